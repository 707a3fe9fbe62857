/* lab06 - graded tests for lab 06: exec keeps only the fds marked
 * FD_KEEP, in a table of the new program's own, even when the old table
 * is shared with another process (rfork(RFORK_SHAREFDS), the way threads
 * share one) that goes on opening and closing files meanwhile.
 *
 * Each test builds its descriptors at fixed slots, then a "scenario"
 * process C starts /bin/fdprobe (user/tests/fdprobe.c) - by fork, or by
 * rfork so that the probe shares C's table until its exec - and reads the
 * probe's report: a line "fds 8k 9k" naming every fd the new program
 * holds ("k": kept). C checks what it must and sends its verdict to the
 * test process on a pipe. Every wait has a deadline: a wrong solution
 * fails a test, it never hangs one. */
#include <fcntl.h>
#include <orthos.h>
#include <signal.h>
#include <stdarg.h>
#include <unistd.h>
#include "lab.h"
#include "array_size.h"

/* Slots every test uses. A scenario starts by closing every fd it does not
 * need, so a new fd comes at 0-5 and is then moved (at) to its slot. */
#define REP_RD     6           /* the probe's reports, read by C */
#define HOLD_WR    7           /* C writes here: a byte asks for a report, EOF ends the probe */
#define HOLD_RD    8           /* (kept) the probe waits on it */
#define REP_WR     9           /* (kept) the probe reports on it */
#define GO_RD      24          /* fork + exec: the child waits for a byte here... */
#define GO_WR      25          /* ...which C sends once it has closed its copies */
#define VERDICT_RD 28          /* the test reads C's verdict */
#define PROG       30          /* a path fd on /bin/fdprobe, not kept */
#define VERDICT    31          /* C's verdict to the test, not kept */

#define BIT(fd) (1u << (fd))

/* A scenario's verdict (errno says nothing about it). */
#define CHECK_VERDICT(r) \
    do { \
        errno = 0; \
        CHECK(!(r), "%s", (r)); \
    } while (0)

static char why_buf[700];

/* Format a reason for failing into why_buf. */
static const char *why(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why_buf, sizeof(why_buf), fmt, ap);
    va_end(ap);
    return why_buf;
}

/* Move fd to slot `to`: to, or -1. */
static int at(int fd, int to)
{
    if (fd < 0 || dup2(fd, to) != to)
        return -1;
    if (fd != to)
        close(fd);
    return to;
}

static int pipe_at(int rd, int wr)
{
    int p[2];

    return pipe(p) == 0 && at(p[0], rd) == rd && at(p[1], wr) == wr ? 0 : -1;
}

static int keep(int fd)
{
    return fcntl(fd, F_SETFD, FD_KEEP);
}

/* Close every fd except those in mask, PROG and VERDICT. */
static void only_fds(unsigned mask)
{
    int fd;

    for (fd = 0; fd < PROG; fd++)
        if (!(mask & BIT(fd)))
            close(fd);
}

/* One line (without its '\n') from fd, waiting at most ms: its length,
 * -1 at end of file, -2 on timeout, -3 on an error. */
static int read_line(int fd, char *buf, int size, unsigned ms)
{
    unsigned end = uptime_ms() + ms;
    int n = 0, r;
    char c;

    buf[0] = '\0';
    if (fcntl(fd, F_SETFL, R_NONBLOCK) < 0)
        return -3;
    for (;;) {
        if ((r = read(fd, &c, 1)) == 1) {
            if (c == '\n')
                return n;
            if (n < size - 1) {
                buf[n++] = c;
                buf[n] = '\0';
            }
        } else if (r == 0) {
            return -1;
        } else if (errno != EAGAIN) {
            return -3;
        } else if ((int)(uptime_ms() - end) >= 0) {
            return -2;
        } else {
            sleep_ms(5);
        }
    }
}

/* The probe's next report, checked against want; NULL when it matches. */
static const char *expect_report(const char *want, const char *when)
{
    char got[200];
    int r = read_line(REP_RD, got, sizeof(got), 3000);

    if (r == -1 || r == -2)
        return why("%s: the new program sent no report (%s)", when,
                   r == -1 ? "its report pipe was closed" : "timed out");
    if (r < 0)
        return why("%s: reading the report failed, errno %d", when, errno);
    if (strcmp(got, want) != 0)
        return why("%s: the new program holds \"%s\", want exactly \"%s\" (N = fd N, Nk = "
                   "fd N marked FD_KEEP)",
                   when, got, want);
    return NULL;
}

/* Start /bin/fdprobe with the given arguments in a child that shares the
 * caller's table (share) or has a copy of it: the child's pid, or -1.
 * A copy's kept fds are left to the child alone before it execs (the
 * caller closes its own), as a shell does after fork: exec then holds the
 * last reference to those files. */
static int start_probe(int share, const char *a1, const char *a2, const char *a3)
{
    char *argv[] = { "fdprobe", (char *)a1, (char *)a2, (char *)a3, NULL };
    int pid, fd;
    char c;

    if (!share && pipe_at(GO_RD, GO_WR) < 0)
        return -1;
    fflush(stdout);
    pid = share ? rfork(RFORK_SHAREFDS) : fork();
    if (pid == 0) {
        if (!share && read(GO_RD, &c, 1) != 1)
            _exit(126);
        exec(PROG, argv, NULL);
        _exit(127);
    }
    if (!share) {
        for (fd = 0; fd < PROG; fd++)
            if (fcntl(fd, F_GETFD, 0) > 0 || fd == GO_RD)
                close(fd);
        write(GO_WR, "g", 1);
        close(GO_WR);
    }
    return pid;
}

/* Wait for the probe to end by itself (its hold pipe closed): NULL if it
 * exited 0. A probe that is still there is killed. */
static const char *end_probe(int pid)
{
    unsigned end = uptime_ms() + 2000;
    int status = -1, r;

    while ((r = waitpid(pid, &status, WNOHANG)) == 0 && (int)(uptime_ms() - end) < 0)
        sleep_ms(5);
    if (r == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        return "the new program did not end when its hold pipe was closed: some fd still "
               "holds the pipe's write end";
    }
    if (r != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return why("the new program ended with status 0x%x", status);
    return NULL;
}

/* Run fn in a child C with a fresh verdict pipe, and return C's verdict:
 * NULL, or why fn failed. fn builds the table it needs itself (the test
 * process keeps only what it checks after C is gone). */
static const char *scenario(const char *(*fn)(void))
{
    static char got[sizeof(why_buf)];
    int pid, status, r;

    if (pipe_at(VERDICT_RD, VERDICT) < 0 || at(walk(AT_CWD, "/bin/fdprobe", 0), PROG) < 0)
        return "setup: cannot make the verdict pipe or walk /bin/fdprobe";
    fflush(stdout);
    if ((pid = fork()) == 0) {
        const char *res;
        close(VERDICT_RD);
        res = fn();
        snprintf(got, sizeof(got), "%s\n", res ? res : "ok");
        write(VERDICT, got, strlen(got));
        _exit(0);
    }
    close(VERDICT);
    close(PROG);
    if (pid < 0)
        return "setup: fork failed";
    r = read_line(VERDICT_RD, got, sizeof(got), 12000);
    if (r == -2) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        return "the scenario timed out";
    }
    waitpid(pid, &status, 0);
    close(VERDICT_RD);
    if (r < 0)
        return why("the scenario's process ended without a verdict (status 0x%x): was its "
                   "fd %d closed by the other process's exec?",
                   status, VERDICT);
    return strcmp(got, "ok") == 0 ? NULL : got;
}

/* A file holding text, readied for reading at slot `to`. */
static int file_at(const char *path, const char *text, int to)
{
    return put_file(path, text) == 0 ? at(open(path, O_RDONLY), to) : -1;
}

/* ---- fork + exec: which fds the new program gets */

/* The report pipe, a kept file at 12 and the copy dup2 makes of it at 13
 * (unmarked), in a table holding nothing else. */
static int report_and_file(const char *path)
{
    only_fds(0);
    return pipe_at(REP_RD, REP_WR) == 0 && keep(REP_WR) == 0 && file_at(path, "kept\n", 12) == 12 &&
                   keep(12) == 0 && dup2(12, 13) == 13
               ? 0
               : -1;
}

static const char *kept_and_unmarked(void)
{
    const char *r;
    int pid;

    /* 14 a path fd, not kept; 15 a path fd, kept: a kept slot survives whatever it holds */
    if (report_and_file("/tmp/l6a") < 0 || at(walk(AT_CWD, "/tmp", 0), 14) != 14 ||
        at(walk(AT_CWD, "/tmp", 0), 15) != 15 || keep(15) < 0)
        return "setup failed";
    if (fcntl(13, F_GETFD, 0) != 0)
        return "dup2 of a kept fd must start unmarked";
    if ((pid = start_probe(0, "9", NULL, NULL)) < 0)
        return "fork failed";
    r = expect_report("fds 9k 12k 15k", "after exec");
    waitpid(pid, NULL, 0);
    return r;
}

static void exec_closes_every_fd_not_marked_keep(void)
{
    const char *r;

    r = scenario(kept_and_unmarked);
    CHECK_VERDICT(r);
    PASS();
}

/* fds 0, 1, 2 on /dev/null, none kept but `kept`, and the report pipe;
 * then what the probe gets. */
static const char *stdio_with(int kept, const char *want, const char *when)
{
    const char *r;
    int pid, fd;

    only_fds(0);
    if (pipe_at(REP_RD, REP_WR) < 0 || keep(REP_WR) < 0 || at(open("/dev/null", O_RDWR), 14) < 0)
        return "setup failed";
    for (fd = 0; fd < 3; fd++)
        if (dup2(14, fd) != fd || fcntl(fd, F_SETFD, fd == kept ? FD_KEEP : 0) < 0)
            return "setup: dup2 onto 0-2";
    close(14);
    if ((pid = start_probe(0, "9", NULL, NULL)) < 0)
        return "fork failed";
    r = expect_report(want, when);
    waitpid(pid, NULL, 0);
    return r;
}

static const char *stdio_unmarked(void)
{
    const char *r = stdio_with(-1, "fds 9k", "0, 1 and 2 not marked");

    if (!r)
        r = stdio_with(1, "fds 1k 9k", "only 1 marked");
    return r ? r : stdio_with(0, "fds 0k 9k", "only 0 marked (the first slot)");
}

static void stdio_is_not_inherited_unless_kept(void)
{
    const char *r;

    r = scenario(stdio_unmarked);
    CHECK_VERDICT(r);
    PASS();
}

/* The report pipe's write end alone, kept at the last slot, OPEN_MAX - 1
 * (where the scenarios keep their verdict pipe, so this test runs the
 * probe itself): the new program must hold it, like any kept slot. */
static void the_last_slot_is_kept_like_any_other(void)
{
    char buf[200] = "", want[16], arg[8];
    int p[2], pid, status, fd, got, prog;

    CHECK(pipe(p) == 0, "pipe");
    snprintf(arg, sizeof(arg), "%d", OPEN_MAX - 1);
    fflush(stdout);
    if ((pid = fork()) == 0) {
        char *argv[] = { "fdprobe", arg, NULL };
        if ((prog = at(walk(AT_CWD, "/bin/fdprobe", 0), PROG)) < 0 || at(p[1], OPEN_MAX - 1) < 0 ||
            keep(OPEN_MAX - 1) < 0)
            _exit(2);
        for (fd = 0; fd < OPEN_MAX - 1; fd++)
            if (fd != prog)
                close(fd);
        exec(prog, argv, NULL);
        _exit(3);
    }
    close(p[1]);
    got = read_line(p[0], buf, sizeof(buf), 3000);
    close(p[0]);
    CHECK(pid > 0 && wait_child_ms(pid, 5000, &status), "the new program did not end");
    snprintf(want, sizeof(want), "fds %dk", OPEN_MAX - 1);
    CHECK(got > 0 && !strcmp(buf, want), "the new program holds \"%s\", want exactly \"%s\"",
          got > 0 ? buf : "(no report)", want);
    PASS();
}

static const char *two_execs(void)
{
    const char *r;
    int pid;

    if (report_and_file("/tmp/l6b") < 0)
        return "setup failed";
    if ((pid = start_probe(0, "9", "again", NULL)) < 0)
        return "fork failed";
    if (!(r = expect_report("fds 9k 12k", "after the first exec")))
        r = expect_report("fds 9k 12k", "after the second exec");
    waitpid(pid, NULL, 0);
    return r;
}

static void the_keep_mark_lasts_through_a_second_exec(void)
{
    const char *r;

    r = scenario(two_execs);
    CHECK_VERDICT(r);
    PASS();
}

/* Poll a pipe's read end for end of file, for up to ms: 1 at EOF, 0 if a
 * writer is still there, -1 on an error (data, or a bad fd). */
static int sees_eof(int fd, unsigned ms)
{
    unsigned end = uptime_ms() + ms;
    char c;
    int r;

    if (fcntl(fd, F_SETFL, R_NONBLOCK) < 0)
        return -1;
    while ((r = read(fd, &c, 1)) < 0 && errno == EAGAIN && (int)(uptime_ms() - end) < 0)
        sleep_ms(5);
    return r == 0 ? 1 : r < 0 && errno == EAGAIN ? 0 : -1;
}

static const char *writer_closed_by_exec(void)
{
    const char *r;
    int pid, eof;

    only_fds(0);
    if (pipe_at(REP_RD, REP_WR) < 0 || keep(REP_WR) < 0 || pipe_at(HOLD_RD, HOLD_WR) < 0 ||
        keep(HOLD_RD) < 0 || pipe_at(20, 21) < 0)
        return "setup failed";
    if ((pid = start_probe(0, "9", "hold", "8")) < 0)
        return "fork failed";
    close(21);                  /* now only the probe's copy writes to the pipe at 20 */
    if ((r = expect_report("fds 8k 9k", "after exec"))) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return r;
    }
    eof = sees_eof(20, 1000);
    close(HOLD_WR);
    r = end_probe(pid);
    if (eof != 1)
        return eof == 0 ? "the exec'd program's pipe write end (not kept) was never released: "
                          "the reader still sees a writer"
                        : "reading the pipe failed";
    return r;
}

static void a_pipe_writer_closed_by_exec_lets_the_reader_see_eof(void)
{
    const char *r;

    r = scenario(writer_closed_by_exec);
    CHECK_VERDICT(r);
    PASS();
}

/* ---- rfork + exec: the table was shared */

/* The sharer's table: the report and hold pipes, and its own fds: 10 a
 * file, 11 a path fd on a directory, 12/13 a pipe (none kept), 14 the
 * same file again, kept. */
static int sharer_setup(void)
{
    only_fds(0);
    return pipe_at(REP_RD, REP_WR) == 0 && keep(REP_WR) == 0 && pipe_at(HOLD_RD, HOLD_WR) == 0 &&
                   keep(HOLD_RD) == 0 && file_at("/tmp/l6s", "sharer\n", 10) == 10 &&
                   at(walk(AT_CWD, "/tmp", 0), 11) == 11 && pipe_at(12, 13) == 0 &&
                   at(open("/tmp/l6s", O_RDONLY), 14) == 14 && keep(14) == 0
               ? 0
               : -1;
}

/* Each fd below PROG: -1 when closed, else its F_GETFD flags. */
static void snapshot(int *flags)
{
    int fd;

    for (fd = 0; fd < PROG; fd++)
        flags[fd] = fcntl(fd, F_GETFD, 0);
}

/* Are the sharer's fds all there, as they were, and working? */
static const char *sharer_intact(const int *before)
{
    int now[PROG], fd;
    struct stat st;
    char buf[16] = "";

    snapshot(now);
    for (fd = 0; fd < PROG; fd++)
        if (now[fd] != before[fd])
            return why("the sharer's fd %d changed when the other process exec'd: flags %d "
                       "before, %d after (-1: closed)",
                       fd, before[fd], now[fd]);
    if (lseek(10, 0, SEEK_SET) != 0 || read(10, buf, 7) != 7 || strncmp(buf, "sharer\n", 7))
        return "the sharer's file at fd 10 no longer reads";
    if (fstat(11, &st) < 0 || !S_ISDIR(st.st_mode))
        return "the sharer's path fd 11 no longer names /tmp";
    if (write(13, "x", 1) != 1 || read(12, buf, 1) != 1 || buf[0] != 'x')
        return "the sharer's pipe at 12/13 no longer carries data";
    return NULL;
}

static const char *sharer_keeps_fds(void)
{
    int before[PROG], pid;
    unsigned files;
    const char *r;

    if (sharer_setup() < 0)
        return "setup failed";
    snapshot(before);
    files = meminfo("open_files");
    if ((pid = start_probe(1, "9", "hold", "8")) < 0)
        return "rfork failed";
    if (!(r = expect_report("fds 8k 9k 14k", "after exec in a shared table")) &&
        !(r = sharer_intact(before)) && meminfo("open_files") != files)
        r = why("%u open files in the system before the other process exec'd, %u after: "
                "some of the sharer's files were closed",
                files, meminfo("open_files"));
    close(HOLD_WR);
    if (!r)
        r = end_probe(pid);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return r;
}

/* No slot of the shared table marked at all: the new program gets no fd,
 * and the sharer still loses none. */
static const char *sharer_keeps_fds_when_nothing_is_kept(void)
{
    int before[PROG], pid, fd;

    only_fds(0);
    if (file_at("/tmp/l6n", "sharer\n", 10) != 10 || at(walk(AT_CWD, "/tmp", 0), 11) != 11 ||
        pipe_at(12, 13) < 0)
        return "setup failed";
    snapshot(before);
    for (fd = 0; fd < PROG; fd++)
        if (before[fd] > 0)
            return why("setup: fd %d is marked", fd);
    if ((pid = start_probe(1, "9", NULL, NULL)) < 0)
        return "rfork failed";
    if (waitpid(pid, NULL, 0) != pid)
        return "waitpid failed";
    return sharer_intact(before);
}

static void the_sharer_keeps_every_fd_when_the_other_execs(void)
{
    const char *r;

    r = scenario(sharer_keeps_fds);
    CHECK_VERDICT(r);
    r = scenario(sharer_keeps_fds_when_nothing_is_kept);
    CHECK_VERDICT(r);
    PASS();
}

static const char *after_the_exec(void)
{
    const char *r;
    int pid, fd, p[2];

    if (sharer_setup() < 0)
        return "setup failed";
    if ((pid = start_probe(1, "9", "hold", "8")) < 0)
        return "rfork failed";
    if ((r = expect_report("fds 8k 9k 14k", "after exec in a shared table")))
        goto out;
    /* New fds, one even kept; and the sharer lets go of the fds the new
     * program kept: its own references must keep them open. */
    if ((fd = open("/tmp/l6s", O_RDONLY)) < 0 || keep(fd) < 0 || pipe(p) < 0) {
        r = "open or pipe failed in the sharer";
        goto out;
    }
    close(HOLD_RD);
    close(REP_WR);
    close(14);
    if (write(HOLD_WR, "r", 1) != 1) {
        r = "the new program's hold pipe (fd 8, kept) lost its reader when the sharer closed "
            "its own fd 8";
        goto out;
    }
    r = expect_report("fds 8k 9k 14k", "after the sharer opened new fds and closed 8, 9, 14");
out:
    close(HOLD_WR);
    if (!r)
        r = end_probe(pid);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return r;
}

static void fds_the_sharer_opens_after_the_exec_stay_out_of_the_new_program(void)
{
    const char *r;

    r = scenario(after_the_exec);
    CHECK_VERDICT(r);
    PASS();
}

#define RACE_ROUNDS 30
#define MARK        20          /* the sharer is in its loop: the other may exec */

/* One of the ways to make an fd, and its close; -1 if a close failed
 * (someone closed the sharer's fd under it). */
static int open_and_close(int i)
{
    int a = -1, b = -1, p[2];

    switch (i % 4) {
    case 0: a = open("/tmp/l6r", O_RDONLY); break;
    case 1:
        a = walk(AT_CWD, "/tmp/l6r", 0);
        b = a < 0 ? -1 : ready(a, R_READ);
        break;
    case 2:
        if (pipe(p) == 0) {
            a = p[0];
            b = p[1];
        }
        break;
    case 3: a = dup(10); break;
    }
    if (a < 0 || (i % 4 == 1 || i % 4 == 2) != (b >= 0))
        return -2;
    return close(a) == 0 && (b < 0 || close(b) == 0) ? 0 : -1;
}

/* Round after round: the sharer opens and closes fds as fast as it can
 * while the other process (rfork'd, the same table) execs the probe at
 * whatever moment the scheduler gives it. */
static const char *race(void)
{
    char got[200], c;
    int round, pid, i, r, n;
    unsigned end;

    only_fds(0);
    if (pipe_at(REP_RD, REP_WR) < 0 || keep(REP_WR) < 0 || file_at("/tmp/l6r", "race\n", 10) < 0 ||
        fcntl(REP_RD, F_SETFL, R_NONBLOCK) < 0)
        return "setup failed";
    for (round = 0; round < RACE_ROUNDS; round++) {
        fflush(stdout);
        if ((pid = rfork(RFORK_SHAREFDS)) == 0) {
            char *argv[] = { "fdprobe", "9", NULL };
            while (fcntl(MARK, F_GETFD, 0) < 0)
                sched_yield();
            exec(PROG, argv, NULL);
            _exit(127);
        }
        if (pid < 0)
            return "rfork failed";
        if (dup2(10, MARK) != MARK)
            return "setup: mark";
        end = uptime_ms() + 3000;
        for (i = n = 0; n >= 0; i++) {
            if ((r = open_and_close(i)) < 0) {
                kill(pid, SIGKILL);
                waitpid(pid, NULL, 0);
                return why("round %d: %s", round,
                           r == -1 ? "the sharer's close failed: the other's exec closed its fd"
                                   : "the sharer could not open a file");
            }
            while ((r = read(REP_RD, &c, 1)) == 1 && c != '\n' && n < (int)sizeof(got) - 1)
                got[n++] = c;
            if (r == 1 && c == '\n')
                break;
            if (r == 0 || (r < 0 && errno != EAGAIN) || (int)(uptime_ms() - end) >= 0)
                n = -1;
        }
        close(MARK);
        waitpid(pid, NULL, 0);
        if (n < 0)
            return why("round %d: the new program sent no report", round);
        got[n] = '\0';
        if (strcmp(got, "fds 9k") != 0)
            return why("round %d (after %d opens by the sharer): the new program holds "
                       "\"%s\", want exactly \"fds 9k\"",
                       round, i, got);
    }
    return NULL;
}

static void a_file_opened_while_the_other_execs_never_leaks(void)
{
    const char *r;

    r = scenario(race);
    CHECK_VERDICT(r);
    PASS();
}

static const char *sharer_exits(void)
{
    int pid;

    only_fds(BIT(REP_RD) | BIT(HOLD_RD) | BIT(REP_WR) | BIT(21));
    if ((pid = start_probe(1, "9", "hold", "8")) < 0)
        return "rfork failed";
    return expect_report("fds 8k 9k", "after exec in a shared table");
}

static void the_last_sharer_to_exit_releases_the_table(void)
{
    const char *r;
    int eof;

    CHECK(pipe_at(REP_RD, REP_WR) == 0 && keep(REP_WR) == 0, "setup: pipe");
    CHECK(pipe_at(HOLD_RD, 27) == 0 && keep(HOLD_RD) == 0, "setup: pipe");
    CHECK(pipe_at(20, 21) == 0, "setup: pipe");
    r = scenario(sharer_exits);     /* holds 21, the pipe's only writer besides ours */
    close(21);
    eof = r ? -1 : sees_eof(20, 1000);
    close(27);                      /* the probe, now init's child, ends */
    CHECK_VERDICT(r);
    CHECK(eof == 1, "%s",
          eof == 0 ? "the sharer exited after the other's exec, yet its "
                     "fd 21 (a pipe's write end) is still open: the shared table was never released"
                   : "reading the pipe failed");
    PASS();
}

static const char *one_of_each(void)
{
    const char *r;
    int pid, share;

    for (share = 0; share < 2; share++) {
        if (report_and_file("/tmp/l6l") < 0)
            return "setup failed";
        if ((pid = start_probe(share, "9", NULL, NULL)) < 0)
            return "fork failed";
        r = expect_report("fds 9k 12k", share ? "exec in a shared table" : "exec");
        waitpid(pid, NULL, 0);
        if (r)
            return r;
    }
    return NULL;
}

static void exec_leaks_no_files_or_pages(void)
{
    unsigned pages, files;
    const char *r;
    int i;

    r = scenario(one_of_each);      /* warm-up: the kernel heap grows once */
    CHECK_VERDICT(r);
    pages = free_pages();
    files = meminfo("open_files");
    for (i = 0; i < 10 && !r; i++)
        r = scenario(one_of_each);
    CHECK(!r, "run %d: %s", i, r);
    CHECK(meminfo("open_files") == files, "%u open files before 20 execs, %u after", files,
          meminfo("open_files"));
    CHECK(free_pages() == pages, "%u free pages before 20 execs, %u after", pages, free_pages());
    PASS();
}

static const struct lab_test tests[] = {
    LAB_TEST(exec_closes_every_fd_not_marked_keep),
    LAB_TEST(stdio_is_not_inherited_unless_kept),
    LAB_TEST(the_last_slot_is_kept_like_any_other),
    LAB_TEST(the_keep_mark_lasts_through_a_second_exec),
    LAB_TEST(a_pipe_writer_closed_by_exec_lets_the_reader_see_eof),
    LAB_TEST(the_sharer_keeps_every_fd_when_the_other_execs),
    LAB_TEST(fds_the_sharer_opens_after_the_exec_stay_out_of_the_new_program),
    LAB_TEST(a_file_opened_while_the_other_execs_never_leaks),
    LAB_TEST(the_last_sharer_to_exit_releases_the_table),
    LAB_TEST(exec_leaks_no_files_or_pages),
};

int main(int argc, char **argv)
{
    return lab_main("lab06", tests, ARRAY_SIZE(tests), argc, argv);
}
