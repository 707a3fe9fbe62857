/* id - who this process acts for: `uid=N(name) gid=N(name)`, the names
 * from /etc/passwd and /etc/group (left out when there is none). It takes
 * no user to look up: `id student` is a usage error, not root's ids. */
#include <err.h>
#include <pwd.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    int uid = getuid(), gid = getgid();
    struct passwd *pw;
    struct group *gr;

    if (argc > 1)
        usage("");
    pw = getpwuid(uid);
    printf("uid=%d", uid);
    if (pw)
        printf("(%s)", pw->pw_name);
    printf(" gid=%d", gid);
    if ((gr = getgrgid(gid)))
        printf("(%s)", gr->gr_name);
    printf("\n");
    return 0;
}
