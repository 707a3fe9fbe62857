/* srvmount - serve a directory from a user process: make a channel
 * (chan), start the server CMD with one end as its stdin and stdout (or,
 * with -f N, as its fd N: stdin and stdout stay the caller's), make the
 * filesystem from the other end (fsopen("srv", ...)) and bind it at DIR.
 * The server keeps running after srvmount exits, in a process group of
 * its own (so ^C of a later job does not end it); it prints nothing on
 * stdout when that is the channel. doc/srv.md. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <orthos.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    int fds[2], root, pid, fdnum = -1, i = 1, e;
    const char *opts = "";
    char *end;

    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (argv[i][1] == 'f' && !argv[i][2]) {
            fdnum = (int)strtol(argv[i + 1], &end, 10);
            if (*end || end == argv[i + 1])
                fdnum = -2;             /* not a number: usage, below */
        } else if (argv[i][1] == 'o' && !argv[i][2])
            opts = argv[i + 1];
        else
            break;
    }
    if (argc - i < 2 || fdnum == 2 || fdnum >= OPEN_MAX || (fdnum < 0 && fdnum != -1))
        usage("[-f fd] [-o opts] dir cmd [args...]");
    if (chan(fds) < 0)
        err(1, "chan");
    if ((pid = fork()) < 0)
        err(1, "fork");
    if (pid == 0) {
        setpgid(0, 0);
        close(fds[0]);              /* first: fd N may be its number */
        if (fdnum < 0) {
            dup2(fds[1], 0);
            dup2(fds[1], 1);
        } else {
            dup2(fds[1], fdnum);
            fcntl(fdnum, F_SETFD, FD_KEEP);
        }
        if (fds[1] != fdnum && fds[1] > 2)
            close(fds[1]);
        keepstdio();
        execvp(argv[i + 1], argv + i + 1);
        err(127, "%s", argv[i + 1]);
    }
    close(fds[1]);
    if ((root = fsopen("srv", fds[0], opts)) < 0) {
        e = errno;
        kill(pid, SIGKILL);
        errno = e;
        err(1, "fsopen srv (server %s)", argv[i + 1]);
    }
    close(fds[0]);
    if (bind(root, AT_CWD, argv[i], 0) < 0) {
        e = errno;
        kill(pid, SIGKILL);
        errno = e;
        err(1, "bind %s", argv[i]);
    }
    close(root);
    return 0;
}
