/* t.h - the in-guest test helpers. A test function reports exactly once,
 * with CHECK and PASS from the one assertion header that the host and
 * kernel tests share (kernel/include/check.h): "PASS name" or "FAIL name:
 * why". tools/test.py collects them from the serial console; the program
 * ends with "<prog>: done".
 *
 * A graded run (lab.h) sets t_print_line, which signs each result line
 * for the grader, so nothing a student's code prints or rewrites can pass
 * for a result. A reason spanning lines travels as one line, with "\n" for
 * each newline and "\\" for a backslash. */
#ifndef USER_TESTS_T_H
#define USER_TESTS_T_H

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <orthos.h>
#include <signal.h>
#include <unistd.h>

static int t_failures;
static int t_reported;                  /* results printed by this process */
static void (*t_print_line)(const char *line); /* lab.h's, in a graded run */

/* `prog NAME`: run only the tests whose name holds NAME (T_RUN) */
static const char *t_only __attribute__((unused));

/* Run test() unless the program was asked for other tests (t_only). */
#define T_RUN(test) \
    do { \
        if (!t_only || strstr(#test, t_only)) \
            test(); \
    } while (0)

/* Print one result line (PASS when why is NULL), flushed at once. */
static inline void t_report(const char *name, const char *why)
{
    char line[1100];
    const char *p = why ? why : "";
    int n = snprintf(line, 900, "%s %s%s", why ? "FAIL" : "PASS", name, why ? ": " : "");

    for (n = n < 0 ? 0 : n >= 900 ? 899 : n; *p && n < (int)sizeof(line) - 3; p++) {
        if (*p == '\n' || *p == '\\')
            line[n++] = '\\';
        line[n++] = *p == '\n' ? 'n' : *p;
    }
    line[n] = '\0';
    t_failures += why != NULL;
    fflush(stdout);
    if (t_print_line)
        t_print_line(line);
    else
        printf("%s\n", line);
    fflush(stdout);
    t_reported++;
}

/* The harness of the one assertion header (kernel/include/check.h): a
 * failure's reason gets the line and the errno as it was when the check
 * failed (saved before the message's arguments are evaluated). */
#define CHECK_SAVED errno
#include "include/check.h"

void check_fail(const char *file, const char *test, int line, int saved, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    int n;

    (void)file;
    va_start(ap, fmt);
    n = vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    if (n < 0 || n >= (int)sizeof(why))
        n = (int)strlen(why);
    snprintf(why + n, sizeof(why) - n, " (line %d, errno %d %s)", line, saved, strerror(saved));
    t_report(test, why);
}

void check_pass(const char *test)
{
    t_report(test, NULL);
}

/* A call that must fail with a given errno. */
#define CHECK_ERR(call, err) \
    do { \
        errno = 0; \
        int r_ = (call); \
        CHECK(r_ == -1 && errno == (err), "%s gave %d, errno %d (want -1, %s)", #call, r_, errno, \
              #err); \
    } while (0)

/* Run fn in a child: its exit code, 100 + the signal that killed it, or -1. */
static inline int in_child(int (*fn)(void))
{
    int pid, status;

    fflush(stdout);
    if ((pid = fork()) == 0)
        _exit(fn());
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

/* Run fn in a child and return its raw wait status. */
static inline int child_status(void (*fn)(void))
{
    int pid, status = -1;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        fn();
        _exit(0);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return status;
}

/* Read until n bytes or end of file (pipes and the console give less). */
static inline int read_full(int fd, void *buf, int n)
{
    int got = 0, r;

    while (got < n && (r = read(fd, (char *)buf + got, n - got)) > 0)
        got += r;
    return got;
}

/* Fork children that sleep on the gate pipe until fork fails (or max).
 * Returns how many were made; *err is fork's errno (0 if max was hit). */
static inline int fork_until_full(int gate[2], int *pids, int max, int *err)
{
    int n = 0, pid;
    char c;

    fflush(stdout);
    *err = 0;
    while (n < max) {
        errno = 0;
        if ((pid = fork()) == 0) {
            close(gate[1]);
            read(gate[0], &c, 1);       /* end of file once the parent lets go */
            _exit(0);
        }
        if (pid < 0) {
            *err = errno;
            break;
        }
        pids[n++] = pid;
    }
    return n;
}

/* Open the gate and reap the n children; how many exited with 0. */
static inline int release_and_reap(int gate[2], const int *pids, int n)
{
    int i, status, ok = 0;

    close(gate[1]);
    for (i = 0; i < n; i++)
        if (waitpid(pids[i], &status, 0) == pids[i] && status == 0)
            ok++;
    close(gate[0]);
    return ok;
}

/* The helpers below, which the lab harness and the leak checks rely on,
 * use walk, ready and create directly and never open(): open() is Lab 01's
 * work, and on a course branch it is a stub until the student writes it. */

/* A whole small file into buf, NUL-terminated: its length, or -1. */
static inline int slurp(const char *path, char *buf, int size)
{
    int p = walk(AT_CWD, path, 0), fd, got;

    if (p < 0)
        return -1;
    fd = ready(p, R_READ);
    close(p);
    if (fd < 0)
        return -1;
    got = read_full(fd, buf, size - 1);
    close(fd);
    buf[got] = '\0';
    return got;
}

/* Make (or overwrite) path holding exactly text: 0, or -1. */
static inline int put_file(const char *path, const char *text)
{
    int p = create(AT_CWD, path, S_IFREG, 0644, 0), fd, n = -1;

    if (p < 0 && errno == EEXIST)
        p = walk(AT_CWD, path, 0);
    if (p < 0)
        return -1;
    fd = ready(p, R_WRITE);
    close(p);
    if (fd < 0)
        return -1;
    if (ftruncate(fd, 0) == 0)
        n = write(fd, text, strlen(text));
    close(fd);
    return n == (int)strlen(text) ? 0 : -1;
}

/* ftruncate the file `name` under dir to len bytes: 0, or -1 with the
 * errno of the step that failed (walk, ready or ftruncate), which the
 * closes after it keep. */
static inline int truncate_at(int dir, const char *name, uint32_t len)
{
    int f = walk(dir, name, 0), w = f >= 0 ? ready(f, R_WRITE) : -1, r = w >= 0 ? 0 : -1, e;

    if (w >= 0)
        r = ftruncate(w, len);
    e = errno;
    close(w);
    close(f);
    errno = e;
    return r;
}

/* A read of the console on an fd of our own that does not wait (the
 * shared fd 0's flags are everyone's): EAGAIN if the caller may read it
 * now (nobody types here), EIO if another group is in front or the
 * console is another session's. (t_tty, t_users) */
static inline int console_read_error(void)
{
    int path = walk(AT_CWD, "/dev/console", 0), fd = ready(path, R_READ | R_NONBLOCK), e;
    char c;

    close(path);
    errno = 0;
    e = read(fd, &c, 1) < 0 ? errno : 0;
    close(fd);
    return e;
}

/* A number from /proc/meminfo ("free_pages" or "total_pages"); 0 if none.
 * The leak checks compare free_pages() before and after. */
static inline unsigned meminfo(const char *key)
{
    char buf[256], *p;

    if (slurp("/proc/meminfo", buf, sizeof(buf)) <= 0 || !(p = strstr(buf, key)))
        return 0;
    return (unsigned)atoi(p + strlen(key) + 1);
}

static inline unsigned free_pages(void)
{
    return meminfo("free_pages");
}

/* How many fds this process has open: each slot probed with F_GETFD,
 * which needs no fd of its own (reading /proc/self/fd would). */
static inline int open_fds(void)
{
    int fd, n = 0;

    for (fd = 0; fd < OPEN_MAX; fd++)
        n += fcntl(fd, F_GETFD, 0) >= 0;
    return n;
}

/* The pages fn's work failed to give back: fn runs in a child twice (the
 * first round grows the kernel's heap to what the work needs, so the
 * rounds compare like with like), and free_pages() is compared around the
 * second, once that child has been reaped. *code gets the second child's
 * exit code (in_child). fn must be repeatable: make its names in a fresh
 * filesystem or a private namespace, or remove them. */
static inline int pages_lost_in_child(int (*fn)(void), int *code)
{
    unsigned before;

    in_child(fn);
    before = free_pages();
    *code = in_child(fn);
    return (int)(before - free_pages());
}

/* The state in /proc/<pid>/status ("running", "sleeping", ...), or "". */
static inline const char *proc_state(int pid, char *buf, int size)
{
    char path[32], *p, *nl;

    snprintf(path, sizeof(path), "/proc/%d/status", pid);
    if (slurp(path, buf, size) <= 0 || !(p = strstr(buf, "state ")))
        return "";
    if ((nl = strchr(p, '\n')))
        *nl = '\0';
    return p + 6;
}

/* Wait (up to ms) until pid sleeps, e.g. blocked in a read: 1, or 0 if it
 * never did (or has already exited). Polls every 10 ms, so a slow, busy
 * host only waits longer. */
static inline int wait_until_sleeping(int pid, unsigned ms)
{
    char buf[160];
    const char *state;
    unsigned t;

    for (t = 0; t <= ms; t += 10) {
        state = proc_state(pid, buf, sizeof(buf));
        if (!strcmp(state, "sleeping"))
            return 1;
        if (!*state || !strcmp(state, "zombie"))
            return 0;
        sleep_ms(10);
    }
    return 0;
}

/* Wait (up to ms) for child pid to end: 1 and its wait status in *status,
 * or 0 if it was still running. A child that outlives ms is killed (and
 * reaped, if the kill takes), so a test never hangs on a child. */
static inline int wait_child_ms(int pid, unsigned ms, int *status)
{
    unsigned t;

    for (t = 0; t <= ms; t += 10) {
        if (waitpid(pid, status, WNOHANG) == pid)
            return 1;
        sleep_ms(10);
    }
    kill(pid, SIGKILL);
    for (t = 0; t <= 1000; t += 10) {
        if (waitpid(pid, status, WNOHANG) == pid)
            break;
        sleep_ms(10);
    }
    return 0;
}

/* Is the data disk attached at /mnt? init attaches /dev/hd1 there when
 * the machine has one (a second fsopen of the same disk is EBUSY). */
static inline int disk_at_mnt(void)
{
    char ns[1024];

    return slurp("/proc/self/ns", ns, sizeof(ns)) > 0 && strstr(ns, "/mnt ext2 /dev/hd1\n");
}

/* Start /bin/ramsrv serving on a new channel: the client end (for
 * fsopen("srv", end, ...)), or -1; *pid is the server. */
static inline int ramsrv_start(int *pid)
{
    int c[2];

    if (chan(c) < 0)
        return -1;
    fflush(stdout);
    if ((*pid = fork()) == 0) {
        char *argv[] = { "ramsrv", NULL };
        dup2(c[1], 0);
        fcntl(0, F_SETFD, FD_KEEP);
        execv("/bin/ramsrv", argv);
        _exit(127);
    }
    close(c[1]);
    return c[0];
}

/* An ext2 instance on a copy (img) of the image src, attached at the new
 * directory dir: 0, or -1. ext2_copy_drop undoes it. */
static inline int ext2_copy_at(const char *src, const char *img, const char *dir)
{
    int fd, fs;

    if (copyfile(src, img) < 0 || mkdir(dir, 0755) < 0 || (fd = open(img, O_RDWR)) < 0)
        return -1;
    fs = fsopen("ext2", fd, "");
    close(fd);
    if (fs < 0 || bind(fs, AT_CWD, dir, 0) < 0)
        return -1;
    close(fs);
    return 0;
}

static inline void ext2_copy_drop(const char *img, const char *dir)
{
    close(unbind(AT_CWD, dir));
    rmdir(dir);
    unlink(img);
}

/* CRC-32 (IEEE 802.3, the one Python's zlib.crc32 computes), so the guest
 * and the host can compare file contents. Start with crc = 0. */
static inline unsigned crc32_update(unsigned crc, const void *buf, unsigned n)
{
    static unsigned table[256];
    const unsigned char *p = buf;
    unsigned i, j;

    if (!table[1]) {
        for (i = 0; i < 256; i++) {
            unsigned c = i;
            for (j = 0; j < 8; j++)
                c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    }
    crc = ~crc;
    while (n--)
        crc = table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

#endif
