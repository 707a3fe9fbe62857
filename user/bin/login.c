/* login - start a user's shell: `login [USER]` (root if none). init runs
 * it on the console (the boot argument login=USER names the user; root
 * by default). Anyone but root gets a namespace of their own, as Plan 9
 * gives each login one: there the user may bind, unbind and pivot
 * without privilege, and nothing done there reaches root's processes.
 * There are no passwords: whoever has the console has the machine (a
 * teaching system in QEMU; doc/decisions.md, "Authority"). */
#include <err.h>
#include <orthos.h>
#include <pwd.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    const char *name = argc > 1 ? argv[1] : "root";
    char *sh[] = { NULL, NULL };
    struct passwd *pw;

    if (argc > 2)
        usage("[user]");
    if (!(pw = getpwnam(name)))
        errx(1, "%s: no such user", name);
    if (getuid() != 0 && getuid() != pw->pw_uid)
        errx(1, "only root may log in another user");
    if (become_user(pw, pw->pw_uid != 0) < 0)
        err(1, "%s", name);
    if (pw->pw_uid != 0 && chdir(pw->pw_dir) < 0)
        warn("%s", pw->pw_dir);         /* a shell in / is still a shell */
    sh[0] = pw->pw_shell;
    keepstdio();
    execv(sh[0], sh);
    err(127, "%s", sh[0]);
}
