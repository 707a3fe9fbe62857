/* t_attack.c - a hostile or careless program against the kernel, where
 * the fuzzers and the other suites do not reach: odd-but-legal arguments
 * and states that random calls almost never build (doc/decisions.md,
 * "Tests"). Each test is a bug that was found so and fixed; each failed
 * on the kernel before its fix. `t_attack NAME` runs only the tests whose
 * name contains NAME. */
#include <orthos.h>
#include <sys/stat.h>
#include "t.h"

#define STUDENT 1000

/* Wait up to ms for pid to end: its status, or -1 (it is then killed and
 * reaped, so no test leaves a process behind). */
static int wait_or_kill(int pid, unsigned ms)
{
    unsigned t0 = uptime_ms();
    int status;

    while (uptime_ms() - t0 < ms) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            return status;
        sleep_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

/* A pipe made by a user was root's (uid 0, mode 0600): fstat said so, and
 * once bound at a name in the user's own namespace, the user who made it
 * could not ready it (EACCES). A channel (chan.c) was the user's. */
static int pipe_of_a_user(void)
{
    struct stat st;
    int p[2], f, n, r, w;
    char c = 0;

    if (setgid(STUDENT) < 0 || setuid(STUDENT) < 0 || unshare() < 0)
        return 1;
    if (pipe(p) < 0 || fstat(p[0], &st) < 0)
        return 2;
    if (st.st_uid != STUDENT || st.st_gid != STUDENT)
        return 3;
    if ((f = create(AT_CWD, "/tmp/attack_np", S_IFREG, 0644, 0)) < 0)
        return 4;
    if (bind(p[0], AT_CWD, "/tmp/attack_np", 0) < 0)
        return 5;
    if ((n = walk(AT_CWD, "/tmp/attack_np", 0)) < 0)
        return 6;
    if ((r = ready(n, R_READ)) < 0 || (w = ready(n, R_WRITE)) < 0)
        return 7;                       /* EACCES before the fix */
    if (write(w, "x", 1) != 1 || read(p[0], &c, 1) != 1 || c != 'x')
        return 8;
    unbind(AT_CWD, "/tmp/attack_np");
    unlinkat(AT_CWD, "/tmp/attack_np", 0);
    return 0;
}

static void a_pipe_belongs_to_the_user_who_made_it(void)
{
    struct stat st;
    int p[2], r = in_child(pipe_of_a_user);

    CHECK(r == 0, "the student's pipe: step %d failed", r);
    CHECK(pipe(p) == 0 && fstat(p[1], &st) == 0 && st.st_uid == 0, "root's pipe: uid %d",
          st.st_uid);
    CHECK((st.st_mode & 07777) == 0600 && S_ISFIFO(st.st_mode), "mode %o", st.st_mode);
    close(p[0]);
    close(p[1]);
    PASS();
}

/* A read of 0 bytes returns 0 at once. From an empty pipe with a writer
 * it waited for data (for ever, if none came), and from the console for
 * a whole line, which it then left there and returned 0 for, as if at
 * end of file. */
static int p0[2];

static int read_nothing_from_the_pipe(void)
{
    char c;

    return read(p0[0], &c, 0) == 0 ? 0 : 1;
}

static int read_nothing_from_the_console(void)
{
    char c;
    int con = walk(AT_CWD, "/dev/console", 0), fd = con < 0 ? -1 : ready(con, R_READ);

    if (fd < 0)
        return 2;
    return read(fd, &c, 0) == 0 ? 0 : 1;
}

static void a_read_of_zero_bytes_never_waits(void)
{
    int pid, st;
    char c;

    CHECK(pipe(p0) == 0, "pipe");
    fflush(stdout);
    if ((pid = fork()) == 0)
        _exit(read_nothing_from_the_pipe());
    st = wait_or_kill(pid, 2000);
    CHECK(st != -1, "read(pipe, buf, 0) was still waiting after 2 s");
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "read(pipe, buf, 0): status %x", st);
    CHECK(fcntl(p0[0], F_SETFL, R_NONBLOCK) == 0 && read(p0[0], &c, 0) == 0,
          "non-blocking read(pipe, buf, 0) is not 0");
    close(p0[1]);
    CHECK(read(p0[0], &c, 0) == 0, "at end of file");
    close(p0[0]);
    if ((pid = fork()) == 0)
        _exit(read_nothing_from_the_console());
    st = wait_or_kill(pid, 2000);
    CHECK(st != -1, "read(console, buf, 0) was still waiting after 2 s");
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "read(console, buf, 0): status %x", st);
    PASS();
}

/* /tmp is anyone's (01777), and ramfs keeps every byte of its files in
 * kernel memory: a user could fill it until no page was left, and then
 * nobody could fork, exec or grow (root's processes included), and a
 * copy-on-write fault killed whoever held the most pages, not the user,
 * whose files stayed. Now ramfs leaves an eighth of memory free for
 * processes (pmm_may_store): writes and creates fail with ENOSPC first. */
#define FILL_NAME "/tmp/attack_fill%d"
#define FILL_MB   (1 << 20)
static char chunk[FILL_MB];

/* As the student: files of data in ever smaller writes until ramfs
 * refuses a new file. 0 if it refused with ENOSPC, else 50 + errno. */
static int fill_tmp(void)
{
    char name[64];
    int i, fd, p, n;

    if (setgid(STUDENT) < 0 || setuid(STUDENT) < 0)
        return 1;
    memset(chunk, 'f', sizeof(chunk));
    for (i = 0;; i++) {
        snprintf(name, sizeof(name), FILL_NAME, i);
        if ((p = create(AT_CWD, name, S_IFREG, 0644, 0)) < 0)
            return errno == ENOSPC ? 0 : 50 + errno;
        fd = ready(p, R_WRITE);
        close(p);
        if (fd < 0)
            return 50 + errno;
        for (n = FILL_MB; n >= 4096; n /= 2)
            while (write(fd, chunk, n) == n)
                ;
        close(fd);
        if (i > 100000)
            return 2;                   /* it never refused */
    }
}

/* What a process needs after that: a megabyte of its own, and a fork and
 * an exec. */
static int grow_fork_and_exec(void)
{
    char *m = sbrk(FILL_MB);
    int i, pid, st;

    if (m == (void *)-1)
        return 1;
    for (i = 0; i < FILL_MB; i += 4096)
        m[i] = 1;
    if ((pid = fork()) < 0)
        return 2;
    if (pid == 0) {
        char *args[] = { "true", NULL };
        execv("/bin/true", args);
        _exit(9);
    }
    return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 3;
}

static void a_user_filling_tmp_leaves_memory_for_everyone_else(void)
{
    unsigned before = free_pages(), full;
    char name[64];
    int r, i, ok;

    r = in_child(fill_tmp);
    full = free_pages();
    ok = in_child(grow_fork_and_exec);
    for (i = 0; snprintf(name, sizeof(name), FILL_NAME, i), unlinkat(AT_CWD, name, 0) == 0; i++)
        ;
    CHECK(ok == 0,
          "with /tmp full (%u pages free of %u), a process could not grow, fork "
          "and exec: step %d failed",
          full, before, ok);
    CHECK(r == 0, "filling /tmp ended with %d (50 + errno: ENOSPC wanted)", r);
    CHECK(full >= meminfo("total_pages") / 8, "/tmp took all but %u pages", full);
    CHECK(free_pages() == before, "%u pages free before, %u after", before, free_pages());
    PASS();
}

int main(int argc, char **argv)
{
    t_only = argc > 1 ? argv[1] : NULL;
    T_RUN(a_pipe_belongs_to_the_user_who_made_it);
    T_RUN(a_read_of_zero_bytes_never_waits);
    T_RUN(a_user_filling_tmp_leaves_memory_for_everyone_else);
    printf("t_attack: done\n");
    return t_failures != 0;
}
