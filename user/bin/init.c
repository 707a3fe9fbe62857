/* init.c - process 1. Opens the console as fds 0, 1, 2 (kept across exec:
 * Orthos closes every other fd on exec by default), attaches a ramfs at
 * /tmp and the ext2 data disk /dev/hd1 (if there is one) at /mnt, then
 * keeps a shell running on the console, reaping every orphan the kernel
 * hands it. Whatever gets revoked, the console gets a working shell back
 * within a second: before each shell init puts back any part of the boot
 * layout that has gone, and while a shell runs it watches the console,
 * replacing a console whose filesystem was revoked (doc/decisions.md).
 * The shell is started by login(1): root's, or with the boot argument
 * login=USER (the kernel passes it as `-u USER`) that user's, in a
 * namespace of its own. With arguments (kernel command line run=PROG
 * ARG..., as the test runner and the grader use) it runs PROG with those
 * arguments once instead and powers the machine off with PROG's exit
 * status. */
#include <errno.h>
#include <fcntl.h>
#include <orthos.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "array_size.h"

#define WATCH_MS   200                 /* how often init looks at the console */
#define RESPAWN_MS 500                 /* pause before restarting a shell that died young */

/* The boot layout: the kernel attaches /dev and /proc, init the rest. */
static const struct {
    const char *type, *source, *dir;
    int mode;                           /* made this mode once attached; 0: as it comes */
} layout[] = {
    { "devfs", NULL, "/dev", 0 },       /* first: the others' sources live there */
    { "procfs", NULL, "/proc", 0 },
    { "ramfs", NULL, "/tmp", 01777 },   /* everyone's scratch space, sticky */
    { "ext2", "/dev/hd1", "/mnt", 0 },
};

/* fds 0, 1, 2 on /dev/console, kept across exec. Built from the primitives
 * rather than open(), so init runs even while open() is a lab stub.
 * Returns 0, or -1 if there is no console to open. */
static int open_console(void)
{
    int path = walk(AT_CWD, "/dev/console", 0), fd = path < 0 ? -1 : ready(path, R_RDWR), i;

    close(path);
    if (fd < 0)
        return -1;
    for (i = 0; i < 3; i++)
        if (dup2(fd, i) != i || fcntl(i, F_SETFD, FD_KEEP) < 0)
            return -1;
    if (fd > 2)
        close(fd);
    return 0;
}

/* Do fds 0-2 still work? A revoked console fails every call with EIO. */
static int console_ok(void)
{
    struct stat st;
    int i;

    for (i = 0; i < 3; i++)
        if (fstat(i, &st) < 0)
            return 0;
    return 1;
}

/* Is something attached at dir? Then it is not on the root's filesystem.
 * (revoke detaches a filesystem everywhere, leaving the bare directory.) */
static int attached(const char *dir)
{
    struct stat root, st;

    return stat("/", &root) == 0 && stat(dir, &st) == 0 && st.st_dev != root.st_dev;
}

/* Attach whatever part of the layout is missing. At boot (announce 0) a
 * missing data disk is normal and only failures are told; later, each
 * part put back is told too. */
static void restore_layout(int announce)
{
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(layout); i++) {
        if (attached(layout[i].dir))
            continue;
        if (mount(layout[i].type, layout[i].source, layout[i].dir, "") == 0) {
            if (layout[i].mode && chmod(layout[i].dir, layout[i].mode) < 0)
                fprintf(stderr, "init: chmod %s: %s\n", layout[i].dir, strerror(errno));
            if (announce)
                printf("init: %s was gone: attached a new %s\n", layout[i].dir, layout[i].type);
        } else if (!announce && errno != ENXIO && layout[i].source) {
            fprintf(stderr, "init: cannot attach %s at %s: %s\n", layout[i].source, layout[i].dir,
                    strerror(errno));
        } else if (!announce && errno != ENXIO) {
            fprintf(stderr, "init: cannot attach %s: %s\n", layout[i].dir, strerror(errno));
        }
    }
    fflush(stdout);
}

/* Before a new shell: the layout back, and a console that works. */
static void recover(void)
{
    int dead = !console_ok();

    restore_layout(!dead);              /* a dead console: /dev first, silently */
    if (dead && open_console() == 0)
        printf("init: the console's filesystem was revoked: a new /dev/console\n");
}

/* Run argv in a child of its own group. A login gets a session of its
 * own too, and the console with it (setsid(2), tcsetpgrp(2)): then no
 * process of another session - a user's server, a job root started with
 * runas and setsid - can take the console's foreground or read it. */
static int spawn(char *const argv[], int login)
{
    int pid = fork();

    if (pid == 0) {
        if (login && setsid() > 0)
            tcsetpgrp(getpid());        /* as root, before login becomes the user */
        else
            setpgid(0, 0);
        execv(argv[0], argv);
        fprintf(stderr, "init: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    return pid;
}

/* Wait for `pid`, reaping any orphans that exit meanwhile. */
static int wait_for(int pid)
{
    int status, got;

    while ((got = wait(&status)) != pid)
        if (got < 0 && errno == ECHILD)
            return -1;
    return status;
}

/* Wait for the shell `pid`, reaping orphans, and look at the console
 * every WATCH_MS: a shell asleep reading a revoked console would never
 * wake (the tty does not know its file was revoked), so init ends it. */
static int supervise(int pid)
{
    int status, got;

    for (;;) {
        while ((got = waitpid(WAIT_ANY, &status, WNOHANG)) > 0)
            if (got == pid)
                return status;
        if (got < 0)
            return -1;
        if (!console_ok())
            kill(-pid, SIGKILL);        /* its group: the shell, not its jobs */
        sleep_ms(WATCH_MS);
    }
}

/* How a child ended, in words, from its wait() status (-1: it could not
 * be waited for): "exited with status 3", "was killed by signal 9 (Killed)". */
static const char *how_it_ended(int status, char *buf, size_t size)
{
    if (status < 0)
        snprintf(buf, size, "could not be waited for");
    else if (WIFEXITED(status))
        snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
    else
        snprintf(buf, size, "was killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    return buf;
}

/* /etc/motd, if there is one, once per boot. */
static void show_motd(void)
{
    char buf[1024];
    int path = walk(AT_CWD, "/etc/motd", 0), fd = path < 0 ? -1 : ready(path, R_READ), n;

    close(path);
    while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
        write(1, buf, n);
    close(fd);
}

int main(int argc, char *argv[])
{
    char *user = argc == 3 && strcmp(argv[1], "-u") == 0 ? argv[2] : "root";

    if (open_console() < 0)
        _exit(100);                     /* nothing to print on: give up */
    restore_layout(0);

    if (argc > 1 && strcmp(argv[1], "-u") != 0) { /* run=PROG ARG...: one program, then power off */
        int status = wait_for(spawn(argv + 1, 0));
        sync();
        poweroff(WIFEXITED(status) ? WEXITSTATUS(status) : 0x40 + WTERMSIG(status));
    }
    show_motd();
    for (;;) {
        char *sh[] = { "/bin/login", user, NULL };
        unsigned started = uptime_ms();
        int pid = spawn(sh, 1), status;
        char how[64];

        status = supervise(pid);
        tcsetpgrp(0); /* the console back to init's session */
        recover();
        printf("init: the shell %s; starting a new one\n", how_it_ended(status, how, sizeof(how)));
        fflush(stdout);
        if (uptime_ms() - started < 1000)
            sleep_ms(RESPAWN_MS); /* it died young: do not spin */
    }
}
