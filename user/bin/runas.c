/* runas - run a command as another user, in a namespace of its own:
 * `runas USER CMD [ARG...]`. Only root may (setuid(2)); the command gets
 * USER's ids for good and a fresh namespace owned by USER (unshare after
 * setuid), so it may bind and unbind there, and nothing it does changes
 * what root's processes see. Orthos's answer to su and sudo: with no
 * set-uid programs, only root can start a process as someone else. */
#include <err.h>
#include <orthos.h>
#include <pwd.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    struct passwd *pw;

    if (argc < 3)
        usage("user command [arg ...]");
    if (getuid() != 0)
        errx(1, "only root may run commands as another user");
    if (!(pw = getpwnam(argv[1])))
        errx(1, "%s: no such user", argv[1]);
    if (become_user(pw, 1) < 0)
        err(1, "%s", argv[1]);
    keepstdio();
    execvp(argv[2], argv + 2);
    err(127, "%s", argv[2]);
}
