/* usertests.c - the regression and stress suite (/bin/usertests): Orthos
 * driven to its limits from user space. Fork storms to the end of the
 * process table, the fd table and the system file table filled up, memory
 * used up (malloc, sbrk, fork and copy-on-write with no page left),
 * 100-level directory trees, a megabyte through a pipe, eight writers on
 * one pipe, exec at its argument limits, kills of blocked processes and
 * of process groups, and loops that must not leak fds or pages. Each test
 * prints one PASS/FAIL line (t.h) and cleans up before it checks, so that
 * one failure does not cascade into the tests after it. */
#include <dirent.h>
#include <fcntl.h>
#include <orthos.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "uapi/syscall.h"
#include "t.h"
#include "array_size.h"

/* Kernel limits this suite pushes against (not ABI, so not in uapi). */
#define NPROC     64          /* kernel/proc/proc.h: process slots */
#define NOFILE    32          /* kernel/fs/vfs.h: fds per process */
#define NFILE     512         /* kernel/fs/vfs.h: open files in the system */
#define PIPE_SIZE 65536       /* kernel/fs/pipe.c: a pipe's buffer */
#define MAXARG    64          /* kernel/proc/exec.h: argv entries */
#define ARG_MAX   32768       /* kernel/proc/exec.h: bytes of argv + envp */
#define RAMFS_MAX (16 << 20)  /* kernel/fs/ramfs.c: largest ramfs file */

/* ---------------------------------------------------------------- helpers */

/* Processes alive (or zombies) now: the numbered entries of /proc. */
static int live_processes(void)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;

    if (!d)
        return -1;
    while ((e = readdir(d)))
        n += e->d_name[0] >= '1' && e->d_name[0] <= '9';
    closedir(d);
    return n;
}

static int nothing(void)
{
    return 0;
}

/* Run fn in a child (after a warm-up fork, so the page counts compare like
 * with like) and check that it returned 0 and that every page came back
 * once it was reaped. why[code] names the step fn failed at. */
#define CHECK_CHILD_LEAKS_NOTHING(fn, why) \
    do { \
        unsigned before_, after_; \
        int code_; \
        in_child(nothing); \
        before_ = free_pages(); \
        code_ = in_child(fn); \
        after_ = free_pages(); \
        CHECK(code_ == 0, "child: %s (code %d)", \
              code_ >= 0 && code_ < (int)(ARRAY_SIZE(why)) ? why[code_] : "died", code_); \
        CHECK(after_ == before_, "free pages %u before, %u after", before_, after_); \
    } while (0)

/* A deterministic byte stream (xorshift32), the same in every process. */
static void random_bytes(unsigned *state, unsigned char *buf, int n)
{
    unsigned x = *state;
    int i;

    for (i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        buf[i] = (unsigned char)(x >> 24);
    }
    *state = x;
}

/* ------------------------------------------------------------ processes */

static void fork_storm_stops_at_the_process_limit_with_eagain(void)
{
    int pids[2 * NPROC], gate[2], live, n, n2, err, err2, again, reaped, full, pid, status;
    unsigned before, after;

    CHECK((live = live_processes()) >= 2, "cannot count processes in /proc");
    CHECK(pipe(gate) == 0, "pipe");
    n = fork_until_full(gate, pids, 2 * NPROC, &err);
    full = live_processes();
    errno = 0;
    again = fork();                     /* a second try while the table is full */
    if (again == 0)
        _exit(0);
    err2 = errno;
    reaped = release_and_reap(gate, pids, n);
    CHECK(n == NPROC - live, "%d children before fork failed, want %d (%d slots, %d in use)", n,
          NPROC - live, NPROC, live);
    CHECK(err == EAGAIN, "fork failed with errno %d, want EAGAIN", err);
    CHECK(again == -1 && err2 == EAGAIN, "fork on a full table again gave %d errno %d", again,
          err2);
    CHECK(full == NPROC, "/proc listed %d processes while the table was full", full);
    CHECK(reaped == n, "only %d of %d children exited 0 and were reaped", reaped, n);
    CHECK(live_processes() == live, "%d processes after the storm, %d before", live_processes(),
          live);

    /* The table is usable again, and a second storm costs no pages. */
    if ((pid = fork()) == 0)
        _exit(3);
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WEXITSTATUS(status) == 3,
          "fork after the storm");
    before = free_pages();
    CHECK(pipe(gate) == 0, "pipe");
    n2 = fork_until_full(gate, pids, 2 * NPROC, &err);
    reaped = release_and_reap(gate, pids, n2);
    after = free_pages();
    CHECK(n2 == n && err == EAGAIN && reaped == n2,
          "second storm: %d children (errno %d), %d reaped", n2, err, reaped);
    CHECK(after == before, "free pages %u before the second storm, %u after", before, after);
    PASS();
}

/* Children in one group, one outside it; kill(-pgid) must hit exactly the group. */
static void kill_of_a_negative_pgid_kills_the_whole_group_and_no_one_else(void)
{
    int gate[2], pids[5], i, n, err, status, killed = 0, outsider, r_alive, r_again, e_again;
    int r_zero, e_zero, r_none, e_none;

    CHECK(pipe(gate) == 0, "pipe");
    n = fork_until_full(gate, pids, 5, &err);
    CHECK(n == 5, "only %d children", n);
    outsider = pids[4];
    for (i = 0; i < 4; i++)
        setpgid(pids[i], pids[0]);
    setpgid(outsider, outsider);
    errno = 0;
    i = kill(-pids[0], SIGTERM);
    err = errno;
    for (n = 0; n < 4; n++)
        if (waitpid(pids[n], &status, 0) == pids[n] && WIFSIGNALED(status) &&
            WTERMSIG(status) == SIGTERM)
            killed++;
    r_alive = waitpid(outsider, &status, WNOHANG);
    errno = 0;
    r_again = kill(-pids[0], SIGTERM);
    e_again = errno;
    errno = 0;
    r_zero = kill(-outsider, 0);
    e_zero = errno;
    errno = 0;
    r_none = kill(-999999, SIGTERM);
    e_none = errno;
    close(gate[1]);
    close(gate[0]);
    CHECK(waitpid(outsider, &status, 0) == outsider && status == 0,
          "the outsider did not exit normally (status %x)", status);
    CHECK(i == 0, "kill(-pgid, SIGTERM) gave errno %d", err);
    CHECK(killed == 4, "%d of 4 group members died of SIGTERM", killed);
    CHECK(r_alive == 0, "the process outside the group was hit (waitpid gave %d)", r_alive);
    CHECK(r_again == -1 && e_again == ESRCH, "kill of an emptied group gave %d errno %d", r_again,
          e_again);
    CHECK(r_zero == -1 && e_zero == EINVAL, "kill(-pgid, 0) gave %d errno %d", r_zero, e_zero);
    CHECK(r_none == -1 && e_none == ESRCH, "kill of a group that never was gave %d errno %d",
          r_none, e_none);
    PASS();
}

/* Blocked in read, in write and in wait: a kill wakes each, wait tells why. */
static void kill_ends_children_blocked_in_pipe_read_pipe_write_and_wait(void)
{
    static char big[2 * PIPE_SIZE];
    int empty[2], full[2], rd, wr, waiter, pid, status[3] = { 0, 0, 0 }, ok = 0, i;
    unsigned t0, t1;
    char c, st[3][128], buf[256];

    CHECK(pipe(empty) == 0 && pipe(full) == 0, "pipe");
    fflush(stdout);
    if ((rd = fork()) == 0) {
        close(empty[1]);                /* the parent's copy keeps the pipe open */
        read(empty[0], &c, 1);
        _exit(0);
    }
    if ((wr = fork()) == 0) {
        write(full[1], big, sizeof(big));       /* nobody reads: blocks at PIPE_SIZE */
        _exit(0);
    }
    if ((waiter = fork()) == 0) {
        if ((pid = fork()) == 0) {      /* outlives its parent; ends on EOF */
            close(empty[1]);
            read(empty[0], &c, 1);
            _exit(0);
        }
        close(empty[1]);
        _exit(wait(&pid) < 0 ? 1 : 2);
    }
    CHECK(rd > 0 && wr > 0 && waiter > 0, "fork");
    for (i = 0; i < 40; i++) {          /* until all three block (2 s at most: a busy host) */
        sleep_ms(50);
        strcpy(st[0], proc_state(rd, buf, sizeof(buf)));
        strcpy(st[1], proc_state(wr, buf, sizeof(buf)));
        strcpy(st[2], proc_state(waiter, buf, sizeof(buf)));
        if (!strcmp(st[0], "sleeping") && !strcmp(st[1], "sleeping") && !strcmp(st[2], "sleeping"))
            break;
    }
    t0 = uptime_ms();
    ok += kill(rd, SIGTERM) == 0;
    ok += kill(wr, SIGKILL) == 0;
    ok += kill(waiter, SIGINT) == 0;
    waitpid(rd, &status[0], 0);
    waitpid(wr, &status[1], 0);
    waitpid(waiter, &status[2], 0);
    t1 = uptime_ms();
    close(empty[1]);                    /* lets the orphaned grandchild finish */
    close(empty[0]);
    close(full[0]);
    close(full[1]);
    CHECK(!strcmp(st[0], "sleeping") && !strcmp(st[1], "sleeping") && !strcmp(st[2], "sleeping"),
          "before the kills: reader %s, writer %s, waiter %s", st[0], st[1], st[2]);
    CHECK(ok == 3, "kill failed");
    CHECK(WIFSIGNALED(status[0]) && WTERMSIG(status[0]) == SIGTERM, "reader: status %x", status[0]);
    CHECK(WIFSIGNALED(status[1]) && WTERMSIG(status[1]) == SIGKILL, "writer: status %x", status[1]);
    CHECK(WIFSIGNALED(status[2]) && WTERMSIG(status[2]) == SIGINT, "waiter: status %x", status[2]);
    CHECK(t1 - t0 < 1000, "the kills took %u ms to land", t1 - t0);
    PASS();
}

/* ------------------------------------------------------------- fd tables */

static void dup_fills_the_fd_table_exactly_then_emfile(void)
{
    int fds[NOFILE + 1], n = 0, fd, err, open0 = open_fds(), freed, reused, err2, r2, i;

    errno = 0;
    while (n <= NOFILE && (fd = dup(0)) >= 0)
        fds[n++] = fd;
    err = errno;
    freed = fds[n / 2];
    close(freed);
    reused = dup(0);
    errno = 0;
    r2 = dup(0);
    err2 = errno;
    if (r2 >= 0)
        close(r2);
    if (reused >= 0)
        close(reused);
    for (i = 0; i < n; i++)
        if (fds[i] != freed)
            close(fds[i]);
    CHECK(n == NOFILE - open0, "%d dups with %d fds open, want %d", n, open0, NOFILE - open0);
    CHECK(err == EMFILE, "dup on a full table: errno %d, want EMFILE", err);
    CHECK(reused == freed, "after closing fd %d, dup gave %d", freed, reused);
    CHECK(r2 == -1 && err2 == EMFILE, "full again: dup gave %d errno %d", r2, err2);
    CHECK(open_fds() == open0, "%d fds open after closing them all, %d before", open_fds(), open0);
    PASS();
}

/* pipe() needs two slots, open() = walk + ready needs two for a moment:
 * with one free slot they may fail with EMFILE but must not eat the slot. */
static void pipe_and_open_with_one_free_fd_leak_nothing(void)
{
    int fds[NOFILE], n = 0, fd, p[2], rp, ep, ro, eo, after, open0 = open_fds(), i;

    CHECK(put_file("/tmp/onefree", "x") == 0, "setup");
    while ((fd = dup(0)) >= 0)
        fds[n++] = fd;
    close(fds[--n]);                    /* exactly one slot free */
    errno = 0;
    rp = pipe(p);
    ep = errno;
    if (rp == 0) {
        close(p[0]);
        close(p[1]);
    }
    errno = 0;
    ro = open("/tmp/onefree", O_RDONLY);
    eo = errno;
    if (ro >= 0)
        close(ro);
    after = dup(0);                     /* the one free slot must still be there */
    if (after >= 0)
        close(after);
    for (i = 0; i < n; i++)
        close(fds[i]);
    unlink("/tmp/onefree");
    CHECK(rp == -1 && ep == EMFILE, "pipe with one free slot gave %d errno %d", rp, ep);
    CHECK(ro >= 0 || eo == EMFILE, "open with one free slot gave %d errno %d", ro, eo);
    CHECK(after >= 0, "the last free slot was lost (errno %d)", errno);
    CHECK(open_fds() == open0, "%d fds open, %d before", open_fds(), open0);
    PASS();
}

/* Children each make pipes until an error; stop at the first ENFILE.
 * They report on res and wait on gate. Returns the files the children
 * made; *nkids, *enfile, *bad_errno too. */
static int fill_file_table(int gate[2], int res[2], int *pids, int *nkids, int *enfile,
                           int *bad_errno)
{
    int n = 0, total = 0, pid, r[2];
    char c;

    *enfile = *bad_errno = 0;
    fflush(stdout);
    while (n < NPROC / 2 && !*enfile) {
        if ((pid = fork()) == 0) {
            int p[2], made = 0;
            close(gate[1]);
            close(res[0]);
            while (pipe(p) == 0)
                made += 2;
            r[0] = made;
            r[1] = errno;
            write(res[1], r, sizeof(r));
            read(gate[0], &c, 1);
            _exit(0);
        }
        if (pid < 0)
            break;
        pids[n++] = pid;
        if (read_full(res[0], r, sizeof(r)) != sizeof(r))
            break;
        total += r[0];
        if (r[1] == ENFILE)
            *enfile = 1;
        else if (r[1] != EMFILE)
            *bad_errno = r[1];
    }
    *nkids = n;
    return total;
}

static void file_table_fills_to_enfile_and_every_file_comes_back(void)
{
    int gate[2], res[2], pids[NPROC], n, enfile, bad, total, total2, walks = 0, fd, ew, rp, ep;
    int p[2], paths[4], reaped, i, rp2;

    CHECK(pipe(gate) == 0 && pipe(res) == 0, "pipe");
    total = fill_file_table(gate, res, pids, &n, &enfile, &bad);
    while (walks < 4 && (fd = walk(AT_CWD, "/", 0)) >= 0)
        paths[walks++] = fd;
    ew = errno;
    errno = 0;
    rp = pipe(p);
    ep = errno;
    for (i = 0; i < walks; i++)
        close(paths[i]);
    if (rp == 0) {
        close(p[0]);
        close(p[1]);
    }
    reaped = release_and_reap(gate, pids, n);
    close(res[0]);
    close(res[1]);
    rp2 = pipe(p);
    if (rp2 == 0) {
        close(p[0]);
        close(p[1]);
    }
    CHECK(enfile, "%d children made %d files without ENFILE (odd errno %d)", n, total, bad);
    CHECK(!bad, "a child's pipe() failed with errno %d", bad);
    CHECK(total > NFILE - NOFILE && total <= NFILE, "%d files made, the table holds %d", total,
          NFILE);
    CHECK(walks <= 1 && ew == ENFILE, "%d walks worked on a full table, then errno %d", walks, ew);
    CHECK(rp == -1 && ep == ENFILE, "pipe on a full table gave %d errno %d", rp, ep);
    CHECK(reaped == n, "%d of %d children reaped", reaped, n);
    CHECK(rp2 == 0, "pipe after the children left: errno %d", errno);

    /* Every file came back: a second round fits exactly as many. */
    CHECK(pipe(gate) == 0 && pipe(res) == 0, "pipe");
    total2 = fill_file_table(gate, res, pids, &n, &enfile, &bad);
    reaped = release_and_reap(gate, pids, n);
    close(res[0]);
    close(res[1]);
    CHECK(total2 == total && enfile && reaped == n, "second round: %d files (first %d)", total2,
          total);
    PASS();
}

static void open_close_and_walk_close_2000_times_leak_no_fds_or_pages(void)
{
    int i, fd, low, bad = -1, got = 0, p[2];
    unsigned before, after;
    char c;

    CHECK(put_file("/tmp/churn", "c") == 0, "setup");
    for (i = 0; i < 10; i++)            /* warm up the kernel heap */
        close(open("/tmp/churn", O_RDONLY));
    low = dup(0);
    close(low);
    before = free_pages();
    for (i = 0; i < 2000 && bad < 0; i++) {
        if ((fd = open("/tmp/churn", O_RDONLY)) != low || read(fd, &c, 1) != 1 || c != 'c')
            bad = i;
        close(fd);
        if ((fd = walk(AT_CWD, "/tmp/churn", 0)) != low)
            bad = i;
        close(fd);
        if (i % 10 == 0) {
            if (pipe(p) < 0 || p[0] != low)
                bad = i;
            close(p[0]);
            close(p[1]);
        }
        got++;
    }
    after = free_pages();
    fd = dup(0);
    close(fd);
    unlink("/tmp/churn");
    CHECK(bad < 0, "round %d: an fd other than %d, or a failed call (errno %d)", bad, low, errno);
    CHECK(got == 2000, "%d rounds", got);
    CHECK(fd == low, "lowest free fd is %d after the loop, was %d", fd, low);
    CHECK(after == before, "free pages %u before, %u after 2000 rounds", before, after);
    PASS();
}

/* -------------------------------------------------------------- memory */

#define BLOCK   (64 * 1024)
#define NBLOCKS 4096                    /* 256 MiB: more than any test machine */

static void *blocks[NBLOCKS];

/* After fork every page is copy-on-write, and the first write to one
 * needs a free page for the copy. A child about to use up all memory
 * first writes to the stack and data it will use, making them its own. */
static void __attribute__((noinline)) own_stack_and_data(void)
{
    volatile char buf[16384];
    unsigned i;

    for (i = 0; i < sizeof(buf); i += 256)
        buf[i] = (char)i;
    memset(blocks, 0, sizeof(blocks));
    errno = 0;
}

/* malloc 64 KiB blocks until it says no; how many it gave. */
static int malloc_until_null(void)
{
    int n = 0;

    own_stack_and_data();
    while (n < NBLOCKS && (blocks[n] = malloc(BLOCK)) != NULL)
        n++;
    return n;
}

/* A page every process shares copy-on-write with main, which writes it
 * first: drain_memory's last page goes into a copy of it. */
static char last_page_sink[4096] __attribute__((aligned(4096)));

/* Then single pages with sbrk, until not even one is left. sbrk can stop
 * with one page still free: at a 4 MiB boundary the next heap page needs
 * a page table too, two pages. That page then went to the test's own
 * copy-on-write write, which found memory it should not have (a layout
 * of the boot archive made it happen). A read into last_page_sink takes
 * it - a copy-on-write copy needs no page table - or fails with ENOMEM,
 * killing no one; /dev/zero is opened first, as the file takes memory. */
static void drain_memory(void)
{
    int zero = open("/dev/zero", O_RDONLY);

    malloc_until_null();
    while (sbrk(4096) != (void *)-1)
        ;
    read(zero, last_page_sink, 1);
}

static int exhaust_with_malloc(void)
{
    unsigned avail = free_pages();
    int n, i;
    char *p;

    n = malloc_until_null();
    if (n == NBLOCKS)
        return 1;
    if (errno != ENOMEM)
        return 2;
    if ((unsigned)n * (BLOCK / 4096) < avail / 10 * 9)
        return 3;
    for (i = 0; i < n; i++) {
        ((int *)blocks[i])[0] = i;
        ((char *)blocks[i])[BLOCK - 1] = (char)i;
    }
    for (i = 0; i < n; i++)
        if (((int *)blocks[i])[0] != i || ((char *)blocks[i])[BLOCK - 1] != (char)i)
            return 4;
    errno = 0;
    if (sbrk(1 << 20) != (void *)-1 || errno != ENOMEM)
        return 5;
    for (i = 0; i < n; i++)
        free(blocks[i]);
    if (!(p = malloc(BLOCK)))
        return 6;
    free(p);
    if (!(p = malloc(4 << 20)))
        return 7;                       /* freed neighbours merge into big blocks */
    free(p);
    return 0;
}

static void malloc_until_null_gives_enomem_then_the_heap_recovers(void)
{
    static const char *const why[] = {
        "ok",
        "malloc never returned NULL",
        "errno was not ENOMEM",
        "malloc gave up with over a tenth of memory free",
        "blocks overlap",
        "sbrk(1 MiB) with no memory did not fail with ENOMEM",
        "malloc after free failed",
        "malloc(4 MiB) after freeing 64 KiB neighbours failed",
    };
    CHECK_CHILD_LEAKS_NOTHING(exhaust_with_malloc, why);
    PASS();
}

static int sbrk_past_memory(void)
{
    unsigned total = meminfo("total_pages"), avail;
    char *start = sbrk(0), *p;
    unsigned i;

    own_stack_and_data();
    if (total == 0)
        return 1;
    if (sbrk((int)(total * 4096 + (16 << 20))) != (void *)-1)
        return 2;
    if (errno != ENOMEM)
        return 3;
    if (sbrk(0) != start)
        return 4;
    avail = free_pages();
    if ((p = sbrk((int)(avail / 2 * 4096))) != start)
        return 5;                       /* what the failed call took came back */
    for (i = 0; i < avail / 2 * 4096; i += 4096)
        p[i] = 1;
    return 0;
}

static void sbrk_past_physical_memory_fails_with_enomem_and_keeps_nothing(void)
{
    static const char *const why[] = {
        "ok",
        "no total_pages in /proc/meminfo",
        "sbrk beyond RAM succeeded",
        "errno was not ENOMEM",
        "the break moved",
        "half the free memory could not be had afterwards: the failed sbrk kept pages",
    };
    CHECK_CHILD_LEAKS_NOTHING(sbrk_past_memory, why);
    PASS();
}

static int fork_with_no_memory(void)
{
    int pid, err, status;

    drain_memory();
    errno = 0;
    if ((pid = fork()) == 0)
        _exit(0);
    err = errno;
    if (pid > 0) {
        waitpid(pid, &status, 0);
        return 1;
    }
    if (err != ENOMEM && err != EAGAIN)
        return 2;
    sbrk(-(4 << 20));                   /* give back 4 MiB (the malloc'd blocks are lost) */
    if ((pid = fork()) == 0)
        _exit(7);
    if (pid < 0)
        return 3;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 7)
        return 4;
    return 0;
}

static void fork_with_no_free_memory_fails_cleanly_and_works_once_memory_is_back(void)
{
    static const char *const why[] = {
        "ok",
        "fork succeeded with no free memory",
        "fork failed, but not with ENOMEM/EAGAIN",
        "fork failed after 4 MiB were given back",
        "the child of the second fork failed",
    };
    CHECK_CHILD_LEAKS_NOTHING(fork_with_no_memory, why);
    PASS();
}

static char shared_page[4096] __attribute__((aligned(4096)));

/* This process keeps shared_page shared; its child uses up memory and
 * then writes to it: the copy-on-write fault finds no page. */
static int cow_write_with_no_memory(void)
{
    int sync[2], pid, status;
    char c = 's';

    shared_page[0] = 1;                 /* a real page, shared by the fork below */
    if (pipe(sync) < 0)
        return 1;
    if ((pid = fork()) == 0) {
        own_stack_and_data();
        read(sync[0], &c, 1);           /* the parent is in wait by now */
        drain_memory();
        shared_page[0] = 2;             /* needs a copy, and there is no page */
        _exit(0);
    }
    if (pid < 0)
        return 2;
    write(sync[1], &c, 1);
    if (waitpid(pid, &status, 0) != pid)
        return 3;
    if (!WIFSIGNALED(status))
        return 4;
    if (WTERMSIG(status) != SIGSEGV && WTERMSIG(status) != SIGKILL)
        return 5;
    return shared_page[0] == 1 ? 0 : 6;
}

static void cow_write_with_no_free_memory_kills_only_the_writer(void)
{
    static const char *const why[] = {
        "ok",
        "pipe",
        "fork",
        "wait",
        "the writer was not killed",
        "killed by an odd signal",
        "the write reached the parent's page",
    };
    CHECK_CHILD_LEAKS_NOTHING(cow_write_with_no_memory, why);
    PASS();
}

/* The child of copyout_with_no_memory: with memory used up, calls that
 * copy out into shared_page, which needs a copy and finds no page, fail
 * with ENOMEM (the buffer is fine; memory is short) and consume nothing;
 * once memory is back the same reads succeed. The exit code is the why
 * index of copyout_to_cow_with_no_free_memory_fails_with_enomem. */
static int copy_out_to_cow_page(int pipefd, int filefd)
{
    struct stat *st = (struct stat *)shared_page;
    int r;

    own_stack_and_data();
    drain_memory();
    r = (int)read(pipefd, shared_page, 4);
    if (r == -1 && errno == EFAULT)
        return 4;
    if (r != -1 || errno != ENOMEM)
        return 5;
    errno = 0;
    if (read(filefd, shared_page, 4) != -1 || errno != ENOMEM)
        return 6;
    if (lseek(filefd, 0, SEEK_CUR) != 0)
        return 7;
    errno = 0;
    if (fstat(pipefd, st) != -1 || errno != ENOMEM)
        return 8;
    sbrk(-(4 << 20));                   /* give back 4 MiB (the malloc'd blocks are lost) */
    if (read(pipefd, shared_page, 8) != 4 || memcmp(shared_page, "pipe", 4) != 0)
        return 9;
    if (read(filefd, shared_page + 4, 8) != 4 || memcmp(shared_page + 4, "file", 4) != 0)
        return 10;
    return 0;
}

/* This process keeps shared_page shared while its child copies out to it. */
static int copyout_with_no_memory(void)
{
    int p[2], fd, pid, status = 0;

    shared_page[0] = 1;                 /* a real page, shared by the fork below */
    fd = put_file("/tmp/cowread", "file") == 0 ? open("/tmp/cowread", O_RDONLY) : -1;
    unlink("/tmp/cowread");             /* the fd keeps it until the end */
    if (fd < 0 || pipe(p) < 0 || write(p[1], "pipe", 4) != 4)
        return 1;
    if ((pid = fork()) == 0)
        _exit(copy_out_to_cow_page(p[0], fd));
    close(fd);
    close(p[0]);
    close(p[1]);
    if (pid < 0)
        return 2;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return 3;
    if (WEXITSTATUS(status) != 0)
        return WEXITSTATUS(status);
    return shared_page[0] == 1 ? 0 : 11;
}

static void copyout_to_cow_with_no_free_memory_fails_with_enomem(void)
{
    static const char *const why[] = {
        "ok",
        "setup (file, pipe)",
        "fork",
        "the child was killed",
        "read from a pipe into the copy-on-write page failed with EFAULT, not ENOMEM",
        "read from a pipe into the copy-on-write page did not fail with ENOMEM",
        "read from a file into the copy-on-write page did not fail with ENOMEM",
        "the failed file read moved the offset",
        "fstat into the copy-on-write page did not fail with ENOMEM",
        "with memory back, the pipe's 4 bytes did not come (lost by the failed read?)",
        "with memory back, the file's 4 bytes did not come",
        "the child's reads reached the parent's page",
    };
    CHECK_CHILD_LEAKS_NOTHING(copyout_with_no_memory, why);
    PASS();
}

static int __attribute__((noinline)) recurse(int n)
{
    volatile char pad[1024];

    pad[0] = (char)n;
    return n ? recurse(n - 1) + pad[0] : 0;
}

static int overflow_the_stack(void)
{
    return recurse(1000) & 1;           /* 1 MiB of frames; the stack is 128 KiB */
}

static void stack_overflow_kills_only_the_child_with_sigsegv(void)
{
    int code = in_child(overflow_the_stack);

    CHECK(code == 100 + SIGSEGV, "child ended with %d, want killed by SIGSEGV", code);
    PASS();
}

/* ------------------------------------------------------------ directories */

#define DEPTH 100

static void level_name(char *buf, int i)
{
    snprintf(buf, 16, "level%03d_d", i);   /* 10 characters */
}

/* "../" n times, without the last slash. */
static void updirs(char *buf, int n)
{
    buf[0] = '\0';
    while (n-- > 0)
        strcat(buf, n ? "../" : "..");
}

/* Build the 100-level tree under `top` and take it down again, quietly. */
static int deep_tree_round_trip(const char *top)
{
    char name[16];
    int i, err = 0;

    if (mkdir(top, 0755) < 0 || chdir(top) < 0)
        return -1;
    for (i = 0; i < DEPTH && !err; i++) {
        level_name(name, i);
        err = mkdir(name, 0755) < 0 || chdir(name) < 0;
    }
    err |= put_file("leaf", "x") < 0 || unlink("leaf") < 0;
    while (i-- > 0) {
        level_name(name, i);
        err |= chdir("..") < 0 || rmdir(name) < 0;
    }
    err |= chdir("/") < 0 || rmdir(top) < 0;
    return err ? -1 : 0;
}

static void deep_directory_tree_of_100_levels_is_walkable_and_removable(void)
{
    static char want[PATH_MAX], cwd[PATH_MAX], rel[PATH_MAX], longname[2 * PATH_MAX];
    char name[16], buf[64];
    struct stat st, top;
    unsigned before, after;
    int i, fd;

    CHECK(mkdir("/tmp/deep", 0755) == 0 && chdir("/tmp/deep") == 0, "mkdir /tmp/deep");
    CHECK(stat(".", &top) == 0, "stat");
    strcpy(want, "/tmp/deep");
    strcpy(longname, "/tmp/deep");
    for (i = 0; i < DEPTH; i++) {
        level_name(name, i);
        CHECK(mkdir(name, 0755) == 0 && chdir(name) == 0, "mkdir/chdir at depth %d", i + 1);
        strcat(longname, "/");
        strcat(longname, name);
        if (i < 30) {
            strcat(want, "/");
            strcat(want, name);
        }
        if (i == 29)
            CHECK(getcwd(cwd, sizeof(cwd)) && !strcmp(cwd, want), "getcwd at depth 30: %s", cwd);
    }
    CHECK(put_file("leaf", "the bottom of the tree") == 0, "file at depth 100");
    strcat(longname, "/leaf");
    CHECK(strlen(longname) > PATH_MAX, "the absolute name is only %u bytes", strlen(longname));
    CHECK_ERR(walk(AT_CWD, longname, 0), ENAMETOOLONG);
    CHECK_ERR(getcwd(cwd, sizeof(cwd)) ? 0 : -1, ERANGE);
    updirs(rel, DEPTH);
    CHECK((fd = walk(AT_CWD, rel, 0)) >= 0, "walk up 100 levels with ..");
    CHECK(fstat(fd, &st) == 0 && st.st_ino == top.st_ino && st.st_dev == top.st_dev,
          "100 times .. is not /tmp/deep");
    close(fd);

    /* Up to depth 30, then read the leaf by a 70-component relative name. */
    updirs(rel, DEPTH - 30);
    CHECK(chdir(rel) == 0, "chdir up 70 levels");
    CHECK(getcwd(cwd, sizeof(cwd)) && !strcmp(cwd, want), "getcwd back at depth 30: %s", cwd);
    rel[0] = '\0';
    for (i = 30; i < DEPTH; i++) {
        level_name(name, i);
        strcat(rel, name);
        strcat(rel, "/");
    }
    strcat(rel, "leaf");
    CHECK(slurp(rel, buf, sizeof(buf)) == 22 && !strcmp(buf, "the bottom of the tree"),
          "read by a %u-byte relative name: '%s'", strlen(rel), buf);

    /* Take it down from the bottom. */
    rel[strlen(rel) - 5] = '\0';
    CHECK(chdir(rel) == 0, "chdir to the bottom");
    CHECK(unlink("leaf") == 0, "unlink the leaf");
    CHECK_ERR(rmdir("/tmp/deep"), ENOTEMPTY);
    for (i = DEPTH - 1; i >= 0; i--) {
        level_name(name, i);
        CHECK(chdir("..") == 0 && rmdir(name) == 0, "rmdir at depth %d", i + 1);
    }
    CHECK(chdir("/") == 0 && rmdir("/tmp/deep") == 0, "rmdir /tmp/deep");
    CHECK_ERR(stat("/tmp/deep", &st), ENOENT);

    /* A second tree costs no pages once it is gone. */
    before = free_pages();
    CHECK(deep_tree_round_trip("/tmp/deep2") == 0, "second tree (errno %d)", errno);
    after = free_pages();
    CHECK(after == before, "free pages %u before the second tree, %u after", before, after);
    PASS();
}

static void four_hundred_files_in_one_directory_are_listed_once_and_removed(void)
{
    static unsigned char seen[400];
    char name[32];
    struct dirent *e;
    int i, fd, n = 0, dots = 0, dup = 0, odd = 0, left = 0;
    DIR *d;

    CHECK(mkdir("/tmp/many", 0755) == 0, "mkdir");
    for (i = 0; i < 400; i++) {
        snprintf(name, sizeof(name), "/tmp/many/file%03d", i);
        CHECK((fd = create(AT_CWD, name, S_IFREG, 0644, 0)) >= 0, "create %s", name);
        close(fd);
    }
    CHECK((d = opendir("/tmp/many")), "opendir");
    memset(seen, 0, sizeof(seen));
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) {
            dots++;
            continue;
        }
        i = atoi(e->d_name + 4);
        if (strncmp(e->d_name, "file", 4) || i < 0 || i >= 400 || e->d_type != DT_REG)
            odd++;
        else if (seen[i]++)
            dup++;
        n++;
    }
    closedir(d);
    for (i = 0; i < 400; i++) {
        snprintf(name, sizeof(name), "/tmp/many/file%03d", i);
        CHECK(unlink(name) == 0, "unlink %s", name);
    }
    CHECK((d = opendir("/tmp/many")), "opendir");
    while ((e = readdir(d)))
        left += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    CHECK(rmdir("/tmp/many") == 0, "rmdir");
    CHECK(n == 400 && dots == 2 && !dup && !odd, "listed %d names (%d dots, %d twice, %d odd)", n,
          dots, dup, odd);
    CHECK(left == 0, "%d names left after unlinking all", left);
    PASS();
}

/* An unlinked file lives while an fd refers to it, then its pages go. */
static void unlinked_file_keeps_its_data_until_the_last_close(void)
{
    static unsigned char data[256 * 1024], back[256 * 1024];
    unsigned state = 99, crc, mid, after;
    int fd, pid, status;
    struct stat st;

    random_bytes(&state, data, sizeof(data));
    crc = crc32_update(0, data, sizeof(data));
    CHECK((fd = open("/tmp/ghost", O_RDWR | O_CREAT | O_TRUNC, 0644)) >= 0, "open");
    CHECK(writeall(fd, data, sizeof(data)) == 0, "write");
    CHECK(unlink("/tmp/ghost") == 0, "unlink");
    CHECK_ERR(stat("/tmp/ghost", &st), ENOENT);
    mid = free_pages();
    fflush(stdout);
    if ((pid = fork()) == 0) {          /* the child reads it through its copy of the fd */
        memset(back, 0, sizeof(back));
        _exit(lseek(fd, 0, SEEK_SET) != 0 || read_full(fd, back, sizeof(back)) != sizeof(back) ||
              crc32_update(0, back, sizeof(back)) != crc);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork/wait");
    CHECK(status == 0, "the child could not read the unlinked file back (status %x)", status);
    CHECK(fstat(fd, &st) == 0 && st.st_nlink == 0 && st.st_size == sizeof(data),
          "fstat: nlink %u size %u", st.st_nlink, st.st_size);
    close(fd);
    after = free_pages();
    CHECK(after >= mid + sizeof(data) / 4096, "closing freed %d pages, the data had %u",
          (int)(after - mid), sizeof(data) / 4096);
    PASS();
}

static void ramfs_file_grows_to_16_mib_and_no_further(void)
{
    char buf[512], z[512];
    struct stat st;
    unsigned before, after;
    int fd, r1, e1, r2, e2, r3, r4, e4, r5;

    before = free_pages();              /* before the file: unlink frees its node too */
    CHECK((fd = open("/tmp/huge", O_RDWR | O_CREAT | O_TRUNC, 0644)) >= 0, "open");
    r1 = ftruncate(fd, RAMFS_MAX);
    e1 = errno;
    errno = 0;
    r2 = ftruncate(fd, RAMFS_MAX + 1);
    e2 = errno;
    lseek(fd, RAMFS_MAX - 1, SEEK_SET);
    r3 = write(fd, "!", 1);
    errno = 0;
    r4 = write(fd, "?", 1);
    e4 = errno;
    fstat(fd, &st);
    lseek(fd, RAMFS_MAX / 2, SEEK_SET);
    memset(z, 0, sizeof(z));
    r5 = read(fd, buf, sizeof(buf));
    close(fd);
    unlink("/tmp/huge");
    after = free_pages();
    CHECK(r1 == 0, "ftruncate to 16 MiB: errno %d", e1);
    CHECK(r2 == -1 && e2 == EFBIG, "ftruncate past 16 MiB gave %d errno %d", r2, e2);
    CHECK(r3 == 1, "write of the last byte gave %d", r3);
    CHECK(r4 == -1 && e4 == EFBIG, "write past 16 MiB gave %d errno %d", r4, e4);
    CHECK(st.st_size == RAMFS_MAX, "size %u", st.st_size);
    CHECK(r5 == sizeof(buf) && !memcmp(buf, z, sizeof(z)), "the grown middle is not zeros");
    CHECK(after == before, "free pages %u before, %u after unlink", before, after);
    PASS();
}

/* cwd in a directory that is removed, and then its parent too: ".." must
 * not lead to the parent's freed memory (or to what reuses it). */
static void dotdot_of_a_removed_directory_never_reaches_freed_memory(void)
{
    char name[32], cwd[64];
    struct stat gone, st;
    int fd, i, r, e, sr = -1, cw, ecw;

    CHECK(mkdir("/tmp/gone", 0755) == 0 && mkdir("/tmp/gone/sub", 0755) == 0, "mkdir");
    CHECK(stat("/tmp/gone", &gone) == 0, "stat");
    CHECK(chdir("/tmp/gone/sub") == 0, "chdir");
    CHECK(rmdir("/tmp/gone/sub") == 0 && rmdir("/tmp/gone") == 0, "rmdir both");
    CHECK(mkdir("/tmp/decoys", 0755) == 0, "mkdir");
    for (i = 0; i < 16; i++) {          /* new directories: they may reuse the freed memory */
        snprintf(name, sizeof(name), "/tmp/decoys/d%02d", i);
        CHECK(mkdir(name, 0755) == 0, "mkdir %s", name);
    }
    errno = 0;
    cw = getcwd(cwd, sizeof(cwd)) ? 0 : -1;
    ecw = errno;
    errno = 0;
    r = fd = walk(AT_CWD, "..", 0);
    e = errno;
    if (fd >= 0) {
        sr = fstat(fd, &st);
        close(fd);
    }
    chdir("/");
    for (i = 0; i < 16; i++) {
        snprintf(name, sizeof(name), "/tmp/decoys/d%02d", i);
        rmdir(name);
    }
    rmdir("/tmp/decoys");
    CHECK(cw == -1 && ecw == ENOENT, "getcwd in a removed directory gave %d errno %d", cw, ecw);
    CHECK(r >= 0 || e == ENOENT, "walk(..) gave %d errno %d", r, e);
    if (r >= 0)
        CHECK(sr == 0 && S_ISDIR(st.st_mode) && st.st_ino == gone.st_ino && st.st_nlink == 0,
              ".. is inode %u (nlink %u, mode %o), not the removed parent (inode %u)", st.st_ino,
              st.st_nlink, st.st_mode, gone.st_ino);
    PASS();
}

/* ---------------------------------------------------------------- pipes */

#define BIG_PIPE (1 << 20)

static void pipe_carries_1_mib_in_odd_chunks_with_the_right_crc32(void)
{
    static const int wsizes[] = { 1, 7, 4095, 4096, 4097, 513, 10007, 3, 65537, 100 };
    static const int rsizes[] = { 1000, 1, 4096, 333, 8192, 65536, 7 };
    static unsigned char buf[65537];
    unsigned state, crc_got = 0, crc_want = 0;
    int p[2], pid, status, total = 0, n, i, left;

    CHECK(pipe(p) == 0, "pipe");
    fflush(stdout);
    if ((pid = fork()) == 0) {
        close(p[0]);
        state = 0x2545F491;
        for (i = 0, left = BIG_PIPE; left > 0; i++, left -= n) {
            n = wsizes[i % 10] < left ? wsizes[i % 10] : left;
            random_bytes(&state, buf, n);
            if (writeall(p[1], buf, n) < 0)
                _exit(1);
        }
        _exit(0);
    }
    close(p[1]);
    for (i = 0; (n = read(p[0], buf, rsizes[i % 7])) > 0; i++) {
        crc_got = crc32_update(crc_got, buf, n);
        total += n;
    }
    close(p[0]);
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && status == 0, "writer status %x", status);
    state = 0x2545F491;
    for (left = BIG_PIPE; left > 0; left -= n) {
        n = left < (int)sizeof(buf) ? left : (int)sizeof(buf);
        random_bytes(&state, buf, n);
        crc_want = crc32_update(crc_want, buf, n);
    }
    CHECK(total == BIG_PIPE, "read %d bytes, want %d", total, BIG_PIPE);
    CHECK(crc_got == crc_want, "CRC-32 %08x, want %08x", crc_got, crc_want);
    PASS();
}

#define WRITERS 8
#define RECORDS 200
#define RECLEN  64

/* Byte k of writer w's record seq: the writer in the top 3 bits, so a
 * byte tells whose it is even if records were cut up. */
static unsigned char record_byte(int w, int seq, int k)
{
    int v = k == 0 ? seq & 31 : k == 1 ? seq >> 5 : (seq + k) & 31;

    return (unsigned char)(w << 5 | v);
}

static void eight_writers_on_one_pipe_lose_no_bytes_and_keep_their_order(void)
{
    static unsigned char buf[1500];
    unsigned char rec[RECLEN];
    int p[2], gate[2], pids[WRITERS], got[WRITERS], w, s, k, i, n, total = 0, bad = -1;
    int cur = 0, split = 0, ok = 0, status;
    char c;

    CHECK(pipe(p) == 0 && pipe(gate) == 0, "pipe");
    fflush(stdout);
    for (w = 0; w < WRITERS; w++) {
        if ((pids[w] = fork()) == 0) {
            close(p[0]);
            close(gate[1]);
            read(gate[0], &c, 1);       /* all start together */
            for (s = 0; s < RECORDS; s++) {
                for (k = 0; k < RECLEN; k++)
                    rec[k] = record_byte(w, s, k);
                if (write(p[1], rec, RECLEN) != RECLEN)
                    _exit(1);
            }
            _exit(0);
        }
    }
    close(p[1]);
    close(gate[1]);
    close(gate[0]);
    memset(got, 0, sizeof(got));
    for (k = 0; (n = read(p[0], buf, 100 + k % 1400)) > 0; k += 97) {
        sched_yield();                  /* let writers in while the pipe is part full */
        for (i = 0; i < n; i++, total++) {
            w = buf[i] >> 5;
            if (bad < 0 && (got[w] >= RECORDS * RECLEN ||
                            buf[i] != record_byte(w, got[w] / RECLEN, got[w] % RECLEN)))
                bad = total;
            if (w != cur && got[cur] % RECLEN)
                split++;                /* cur's record was cut by w's bytes */
            cur = w;
            got[w]++;
        }
    }
    close(p[0]);
    for (w = 0; w < WRITERS; w++)
        ok += pids[w] > 0 && waitpid(pids[w], &status, 0) == pids[w] && status == 0;
    CHECK(ok == WRITERS, "%d of %d writers finished cleanly", ok, WRITERS);
    CHECK(total == WRITERS * RECORDS * RECLEN, "read %d bytes, want %d", total,
          WRITERS * RECORDS * RECLEN);
    for (w = 0; w < WRITERS; w++)
        CHECK(got[w] == RECORDS * RECLEN, "writer %d: %d bytes, want %d", w, got[w],
              RECORDS * RECLEN);
    CHECK(bad < 0, "byte %d is out of its writer's order", bad);
    CHECK(split == 0,
          "%d of %d 64-byte writes were split by another writer: writes of at "
          "most 4096 bytes must be atomic",
          split, WRITERS * RECORDS);
    PASS();
}

static void writer_blocked_on_a_full_pipe_gets_epipe_when_the_reader_leaves(void)
{
    static char big[PIPE_SIZE + 4096];
    int p[2], res[2], r[3] = { 0, 0, 0 }, pid, status, got;
    char buf[100];

    CHECK(pipe(p) == 0 && pipe(res) == 0, "pipe");
    fflush(stdout);
    if ((pid = fork()) == 0) {
        close(p[0]);
        r[0] = write(p[1], big, sizeof(big));
        r[1] = write(p[1], "x", 1);
        r[2] = errno;
        write(res[1], r, sizeof(r));
        _exit(0);
    }
    close(p[1]);
    close(res[1]);
    sleep_ms(30);
    got = read(p[0], buf, sizeof(buf));
    sleep_ms(30);
    close(p[0]);
    CHECK(read_full(res[0], r, sizeof(r)) == sizeof(r), "no report from the writer");
    close(res[0]);
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && status == 0, "writer status %x", status);
    CHECK(got == sizeof(buf), "read %d", got);
    CHECK(r[0] >= PIPE_SIZE && r[0] < (int)sizeof(big), "the blocked write returned %d", r[0]);
    CHECK(r[1] == -1 && r[2] == EPIPE, "the next write gave %d errno %d", r[1], r[2]);
    PASS();
}

static void nonblocking_pipe_holds_exactly_pipe_size_bytes_then_eagain(void)
{
    static char big[2 * PIPE_SIZE], back[2 * PIPE_SIZE];
    int p[2], i, w1, w2, e2, r1, w3, ew3, w4, r2, r3, e3, r4;
    char c = 0;

    for (i = 0; i < (int)sizeof(big); i++)
        big[i] = (char)(i * 31 + 7);
    CHECK(pipe(p) == 0, "pipe");
    CHECK(fcntl(p[1], F_SETFL, R_NONBLOCK) == 0 && fcntl(p[0], F_SETFL, R_NONBLOCK) == 0,
          "F_SETFL");
    w1 = write(p[1], big, sizeof(big));
    errno = 0;
    w2 = write(p[1], "y", 1);
    e2 = errno;
    r1 = read(p[0], &c, 1);
    errno = 0;
    w3 = write(p[1], "yz", 2);          /* room for one: a small write is all or nothing */
    ew3 = errno;
    w4 = write(p[1], "y", 1);
    r2 = read(p[0], back, sizeof(back));
    errno = 0;
    r3 = read(p[0], back + PIPE_SIZE, 1);
    e3 = errno;
    close(p[1]);
    r4 = read(p[0], &c, 1);
    close(p[0]);
    CHECK(w1 == PIPE_SIZE, "a big non-blocking write took %d bytes, want %d", w1, PIPE_SIZE);
    CHECK(w2 == -1 && e2 == EAGAIN, "write to a full pipe gave %d errno %d", w2, e2);
    CHECK(r1 == 1 && w3 == -1 && ew3 == EAGAIN,
          "after reading 1 byte a 2-byte write gave %d "
          "errno %d: a small write must not be split",
          w3, ew3);
    CHECK(w4 == 1, "a 1-byte write into the 1 free byte gave %d", w4);
    CHECK(r2 == PIPE_SIZE && !memcmp(back, big + 1, PIPE_SIZE - 1) && back[PIPE_SIZE - 1] == 'y',
          "read back %d bytes, or the wrong ones", r2);
    CHECK(r3 == -1 && e3 == EAGAIN, "read of an empty pipe gave %d errno %d", r3, e3);
    CHECK(r4 == 0, "no end of file after the writer closed (%d)", r4);
    PASS();
}

/* write(2) hands a pipe the whole buffer: a non-blocking write longer
 * than the pipe puts in what fits and says so (write.2), where a short
 * one is all or nothing. */
static void a_long_nonblocking_write_puts_in_what_fits(void)
{
    static char big[2 * PIPE_SIZE], back[PIPE_SIZE];
    int p[2], i, w1, w2, r, w3, e3;

    for (i = 0; i < (int)sizeof(big); i++)
        big[i] = (char)(i * 13 + 1);
    CHECK(pipe(p) == 0, "pipe");
    CHECK(fcntl(p[1], F_SETFL, R_NONBLOCK) == 0, "F_SETFL");
    w1 = write(p[1], big, 1000);
    w2 = write(p[1], big + 1000, sizeof(big) - 1000);
    r = read(p[0], back, sizeof(back));
    errno = 0;
    w3 = write(p[1], big, sizeof(big));
    e3 = errno;
    close(p[0]);
    close(p[1]);
    CHECK(w1 == 1000, "the first 1000 bytes: %d", w1);
    CHECK(w2 == PIPE_SIZE - 1000, "a long write into %d bytes of room took %d", PIPE_SIZE - 1000,
          w2);
    CHECK(r == PIPE_SIZE && !memcmp(back, big, PIPE_SIZE), "read back %d bytes, or the wrong ones",
          r);
    CHECK(w3 == PIPE_SIZE, "a long write into an empty pipe took %d (errno %d)", w3, e3);
    PASS();
}

/* A writer child, /bin/cat between two pipes, the parent reading. */
static void pipeline_through_bin_cat_carries_256_kib_intact(void)
{
    static unsigned char buf[8192];
    char *argv[] = { "cat", NULL };
    unsigned state, crc_got = 0, crc_want = 0;
    int a[2], b[2], gen, cat, sg = -1, sc = -1, n, total = 0, left;

    CHECK(pipe(a) == 0 && pipe(b) == 0, "pipe");
    fflush(stdout);
    if ((gen = fork()) == 0) {
        close(a[0]);
        state = 7;
        for (left = 256 * 1024; left > 0; left -= sizeof(buf)) {
            random_bytes(&state, buf, sizeof(buf));
            if (writeall(a[1], buf, sizeof(buf)) < 0)
                _exit(1);
        }
        _exit(0);
    }
    if ((cat = fork()) == 0) {
        dup2(a[0], 0);
        dup2(b[1], 1);
        fcntl(0, F_SETFD, FD_KEEP);
        fcntl(1, F_SETFD, FD_KEEP);
        execv("/bin/cat", argv);
        _exit(127);
    }
    close(a[0]);
    close(a[1]);
    close(b[1]);
    while ((n = read(b[0], buf, sizeof(buf))) > 0) {
        crc_got = crc32_update(crc_got, buf, n);
        total += n;
    }
    close(b[0]);
    waitpid(gen, &sg, 0);
    waitpid(cat, &sc, 0);
    state = 7;
    for (left = 256 * 1024; left > 0; left -= sizeof(buf)) {
        random_bytes(&state, buf, sizeof(buf));
        crc_want = crc32_update(crc_want, buf, sizeof(buf));
    }
    CHECK(sg == 0 && sc == 0, "writer status %x, cat status %x", sg, sc);
    CHECK(total == 256 * 1024 && crc_got == crc_want, "%d bytes, CRC %08x (want %08x)", total,
          crc_got, crc_want);
    PASS();
}

/* Parent and child write through one inherited fd: one shared offset. */
static void fork_shares_the_file_offset_so_records_never_overlap(void)
{
    static char data[16000];
    char rec[17];
    int fd, pid, status, i, n, parent = 0, child = 0, torn = -1;
    struct stat st;

    CHECK((fd = open("/tmp/shared", O_RDWR | O_CREAT | O_TRUNC, 0644)) >= 0, "open");
    fflush(stdout);
    pid = fork();
    for (i = 0; i < 500; i++) {
        snprintf(rec, sizeof(rec), "%c%014d\n", pid ? 'P' : 'C', i);
        if (write(fd, rec, 16) != 16)
            break;
        if (i % 7 == 0)
            sched_yield();
    }
    if (pid == 0)
        _exit(i == 500 ? 0 : 1);
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && status == 0, "child status %x", status);
    CHECK(i == 500, "parent's write %d failed", i);
    CHECK(fstat(fd, &st) == 0 && st.st_size == sizeof(data), "size %u, want %u", st.st_size,
          sizeof(data));
    CHECK(lseek(fd, 0, SEEK_SET) == 0 && read_full(fd, data, sizeof(data)) == sizeof(data),
          "read back");
    close(fd);
    unlink("/tmp/shared");
    for (i = 0; i < (int)sizeof(data) && torn < 0; i += 16) {
        n = atoi(data + i + 1);
        if (data[i + 15] != '\n')
            torn = i;
        else if (data[i] == 'P' && n == parent)
            parent++;
        else if (data[i] == 'C' && n == child)
            child++;
        else
            torn = i;
    }
    CHECK(torn < 0, "record at offset %d is torn or out of order: %.16s", torn, data + torn);
    CHECK(parent == 500 && child == 500, "%d parent and %d child records", parent, child);
    PASS();
}

/* ----------------------------------------------------------------- exec */

static char argspace[MAXARG + 8][4096];

/* argv = { "echo"/"true", n - 1 strings of len bytes, NULL } */
static char **make_argv(char **argv, const char *prog, int n, int len)
{
    int i;

    argv[0] = (char *)prog;
    for (i = 1; i < n; i++) {
        memset(argspace[i], 'a' + i % 26, len);
        argspace[i][len] = '\0';
        argspace[i][0] = (char)('0' + i / 10);
        argspace[i][1] = (char)('0' + i % 10);
        argv[i] = argspace[i];
    }
    argv[n] = NULL;
    return argv;
}

static void exec_with_60_arguments_of_100_bytes_reaches_the_program(void)
{
    static char out[8192];
    char *argv[MAXARG + 8];
    int p[2], pid, status, got, i, bad = -1;

    make_argv(argv, "echo", 61, 100);
    CHECK(pipe(p) == 0, "pipe");
    fflush(stdout);
    if ((pid = fork()) == 0) {
        dup2(p[1], 1);
        fcntl(1, F_SETFD, FD_KEEP);
        execv("/bin/echo", argv);
        _exit(127);
    }
    close(p[1]);
    got = read_full(p[0], out, sizeof(out));
    close(p[0]);
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && status == 0, "echo status %x", status);
    CHECK(got == 60 * 101, "echo wrote %d bytes, want %d", got, 60 * 101);
    for (i = 0; i < 60 && bad < 0; i++)
        if (memcmp(out + i * 101, argv[i + 1], 100) || out[i * 101 + 100] != (i < 59 ? ' ' : '\n'))
            bad = i + 1;
    CHECK(bad < 0, "argument %d arrived changed", bad);
    PASS();
}

/* MAXARG is "at most 64 entries" (exec(2)): 64 run, 65 are E2BIG. */
static void exec_takes_exactly_64_arguments_and_refuses_65(void)
{
    char *argv[MAXARG + 8];
    int pid, status = -1;

    make_argv(argv, "true", MAXARG, 8);
    fflush(stdout);
    if ((pid = fork()) == 0) {
        execv("/bin/true", argv);
        _exit(errno == E2BIG ? 42 : 43);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork/wait");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "exec with 64 argv entries: %s (status %x)",
          WEXITSTATUS(status) == 42 ? "E2BIG" : "failed", status);
    make_argv(argv, "true", MAXARG + 1, 8);
    CHECK_ERR(execv("/bin/true", argv), E2BIG);
    PASS();
}

static void exec_over_its_limits_fails_with_e2big_and_the_caller_keeps_its_fds(void)
{
    char *argv[MAXARG + 8], *small[] = { "true", NULL };
    int fd, n;
    char c;

    CHECK((fd = open("/proc/meminfo", O_RDONLY)) >= 0, "open");
    make_argv(argv, "echo", 70, 100);
    CHECK_ERR(execv("/bin/echo", argv), E2BIG);
    make_argv(argv, "echo", 10, 4000);  /* 36 KB of strings: over ARG_MAX */
    CHECK_ERR(execv("/bin/echo", argv), E2BIG);
    make_argv(argv, "X=1", 70, 8);      /* 70 environment strings */
    CHECK_ERR(execve("/bin/true", small, argv), E2BIG);
    CHECK(fcntl(fd, F_GETFD, 0) == 0 && (n = read(fd, &c, 1)) == 1 && c == 'f',
          "an fd not kept was closed by the failed exec");
    close(fd);
    PASS();
}

/* -------------------------------------------------------------- system calls */

static int raw_syscall(unsigned nr)
{
    int ret;

    __asm__ volatile("int $0x80"
                     : "=a"(ret)
                     : "a"(nr), "b"(0), "c"(0), "d"(0), "S"(0), "D"(0)
                     : "memory");
    return ret;
}

static void unknown_system_call_numbers_give_enosys(void)
{
    static const unsigned nrs[] = { 0,         18,   19,          32,
                                    39,        48,   57,          NSYSCALLS - 1,
                                    NSYSCALLS, 1000, 0x80000000u, 0xFFFFFFFFu };
    unsigned i;
    int r;

    for (i = 0; i < ARRAY_SIZE(nrs); i++) {
        r = raw_syscall(nrs[i]);
        CHECK(r == -ENOSYS, "system call %u gave %d, want -ENOSYS", nrs[i], r);
    }
    CHECK(raw_syscall(SYS_getpid) == getpid(), "a real call after them");
    PASS();
}

/* Make a chain of n directories in fs, remove it bottom-up while holding
 * the deepest, then let go of that: the whole removed chain is freed at
 * once, each freed directory dropping its parent. 0, or the failing level. */
static int removed_chain(int fs, int n)
{
    int deepest, cur, up, i;

    for (cur = dup(fs), i = 0; i < n; i++) {
        int next = create(cur, "d", S_IFDIR, 0755, 0);
        close(cur);
        if ((cur = next) < 0)
            return i + 1;
    }
    deepest = cur;
    for (cur = dup(deepest), i = 0; i < n; i++) {
        if ((up = walk(cur, "..", 0)) < 0 || unlinkat(up, "d", UNLINK_DIR) < 0)
            return n + i + 1;
        close(cur);
        cur = up;
    }
    close(cur);
    close(deepest);                     /* the whole chain goes now */
    return 0;
}

/* Freeing that chain once recursed per level and overflowed the stack. */
static void a_chain_of_10000_removed_directories_is_freed_without_recursion(void)
{
    unsigned before;
    int fs, err;

    CHECK((fs = fsopen("ramfs", -1, NULL)) >= 0, "fsopen");
    CHECK((err = removed_chain(fs, 10000)) == 0, "failed at step %d", err);
    before = free_pages();              /* kmalloc keeps its pages: compare round 2 */
    CHECK((err = removed_chain(fs, 10000)) == 0, "second round failed at step %d", err);
    CHECK(free_pages() == before, "%u pages before, %u after", before, free_pages());
    close(fs);
    PASS();
}

int main(void)
{
    unsigned t0 = uptime_ms();

    chdir("/");
    last_page_sink[0] = 1;              /* a page of our own, to share (drain_memory) */
    fork_storm_stops_at_the_process_limit_with_eagain();
    kill_of_a_negative_pgid_kills_the_whole_group_and_no_one_else();
    kill_ends_children_blocked_in_pipe_read_pipe_write_and_wait();
    dup_fills_the_fd_table_exactly_then_emfile();
    pipe_and_open_with_one_free_fd_leak_nothing();
    file_table_fills_to_enfile_and_every_file_comes_back();
    open_close_and_walk_close_2000_times_leak_no_fds_or_pages();
    malloc_until_null_gives_enomem_then_the_heap_recovers();
    sbrk_past_physical_memory_fails_with_enomem_and_keeps_nothing();
    fork_with_no_free_memory_fails_cleanly_and_works_once_memory_is_back();
    cow_write_with_no_free_memory_kills_only_the_writer();
    copyout_to_cow_with_no_free_memory_fails_with_enomem();
    stack_overflow_kills_only_the_child_with_sigsegv();
    deep_directory_tree_of_100_levels_is_walkable_and_removable();
    four_hundred_files_in_one_directory_are_listed_once_and_removed();
    unlinked_file_keeps_its_data_until_the_last_close();
    ramfs_file_grows_to_16_mib_and_no_further();
    pipe_carries_1_mib_in_odd_chunks_with_the_right_crc32();
    eight_writers_on_one_pipe_lose_no_bytes_and_keep_their_order();
    writer_blocked_on_a_full_pipe_gets_epipe_when_the_reader_leaves();
    nonblocking_pipe_holds_exactly_pipe_size_bytes_then_eagain();
    a_long_nonblocking_write_puts_in_what_fits();
    pipeline_through_bin_cat_carries_256_kib_intact();
    fork_shares_the_file_offset_so_records_never_overlap();
    exec_with_60_arguments_of_100_bytes_reaches_the_program();
    exec_takes_exactly_64_arguments_and_refuses_65();
    exec_over_its_limits_fails_with_e2big_and_the_caller_keeps_its_fds();
    unknown_system_call_numbers_give_enosys();
    a_chain_of_10000_removed_directories_is_freed_without_recursion();
    dotdot_of_a_removed_directory_never_reaches_freed_memory();     /* last: it may corrupt */
    printf("usertests: %u ms\n", uptime_ms() - t0);
    printf("usertests: done\n");
    return t_failures != 0;
}
