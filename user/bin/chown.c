/* chown - give files an owner and group: `chown USER[:GROUP] FILE...`,
 * by name (/etc/passwd, /etc/group) or number. Root may give anything to
 * anyone; an owner may only set its own ids (fchown(2)). */
#include <err.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A user or group by name or number; -1 if there is none. */
static int id_of(const char *s, int group)
{
    struct passwd *pw;
    struct group *gr;
    char *end;
    long n = strtol(s, &end, 10);

    if (!*end && end != s)
        return (int)n;
    if (group)
        return (gr = getgrnam(s)) ? gr->gr_gid : -1;
    return (pw = getpwnam(s)) ? pw->pw_uid : -1;
}

int main(int argc, char *argv[])
{
    int i, uid, gid = -1, status = 0;
    char *colon;

    if (argc < 3)
        usage("user[:group] file ...");
    if ((colon = strchr(argv[1], ':')))
        *colon++ = '\0';
    if ((uid = id_of(argv[1], 0)) < 0)
        errx(2, "%s: no such user", argv[1]);
    if (colon && (gid = id_of(colon, 1)) < 0)
        errx(2, "%s: no such group", colon);
    for (i = 2; i < argc; i++) {
        if (chown(argv[i], uid, gid) < 0) {
            warn("%s", argv[i]);
            status = 1;
        }
    }
    return status;
}
