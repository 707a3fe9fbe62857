/* t_attack.c - a hostile or careless program against the kernel, where
 * the fuzzers and the other suites do not reach: odd-but-legal arguments
 * and states that random calls almost never build (doc/decisions.md,
 * "Tests"). Each test is a bug that was found so and fixed; each failed
 * on the kernel before its fix. `t_attack NAME` runs only the tests whose
 * name contains NAME. */
#include <orthos.h>
#include <sys/stat.h>
#include "t.h"
#include "fuzz.h"
#include "uapi/syscall.h"

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
static int fill_tmp_files(void)
{
    char name[64];
    int i, fd, p, n;

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

static int fill_tmp(void)
{
    return setgid(STUDENT) < 0 || setuid(STUDENT) < 0 ? 1 : fill_tmp_files();
}

static void remove_tmp_files(void)
{
    char name[64];
    int i;

    for (i = 0; snprintf(name, sizeof(name), FILL_NAME, i), unlinkat(AT_CWD, name, 0) == 0; i++)
        ;
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
    int r, ok;

    r = in_child(fill_tmp);
    full = free_pages();
    ok = in_child(grow_fork_and_exec);
    remove_tmp_files();
    CHECK(ok == 0,
          "with /tmp full (%u pages free of %u), a process could not grow, fork "
          "and exec: step %d failed",
          full, before, ok);
    CHECK(r == 0, "filling /tmp ended with %d (50 + errno: ENOSPC wanted)", r);
    CHECK(full >= meminfo("total_pages") / 8, "/tmp took all but %u pages", full);
    CHECK(free_pages() == before, "%u pages free before, %u after", before, free_pages());
    PASS();
}

/* A user's fork bomb filled the process table, and a user's open files
 * the file table: then root could not fork (EAGAIN) or open (ENFILE),
 * not even to run ps and kill the user's processes. The last slots of
 * each are root's now (ROOT_SLOTS in proc.c, ROOT_FILES in file.c). The
 * student (S, a child of root's test) fills the table with children
 * asleep on a gate, tells root (T) how it ended, and waits for T's word. */
#define NPROC 64                        /* kernel/proc/proc.h */
static int told[2], word[2];

/* Start S running fill (as the student); T reads what S told, in r. */
static int student_fills(void (*fill)(void), int r[2])
{
    int pid;

    if (pipe(told) < 0 || pipe(word) < 0)
        return -1;
    fflush(stdout);
    if ((pid = fork()) == 0) {
        close(told[0]);
        close(word[1]);
        if (setgid(STUDENT) < 0 || setuid(STUDENT) < 0)
            _exit(1);
        fill();
        _exit(0);
    }
    close(told[1]);
    close(word[0]);
    if (read_full(told[0], r, 2 * sizeof(int)) != 2 * sizeof(int))
        r[0] = r[1] = -1;
    return pid;
}

/* T lets S go (S empties the table and exits); S's status. */
static int student_lets_go(int pid)
{
    int st = -1;

    close(word[1]);
    close(told[0]);
    waitpid(pid, &st, 0);
    return st;
}

static void fork_bomb(void)
{
    int gate[2], pids[NPROC], r[2];
    char c;

    pipe(gate);
    r[0] = fork_until_full(gate, pids, NPROC, &r[1]);
    write(told[1], r, sizeof(r));
    read(word[0], &c, 1);               /* end of file: T is done */
    release_and_reap(gate, pids, r[0]);
}

static void a_users_fork_bomb_leaves_root_a_process(void)
{
    int r[2], s, pid, st = -1, err;

    s = student_fills(fork_bomb, r);
    errno = 0;
    if ((pid = fork()) == 0)
        _exit(7);
    err = errno;
    if (pid > 0)
        waitpid(pid, &st, 0);
    CHECK(student_lets_go(s) == 0, "the student's process failed");
    CHECK(r[0] > 0 && r[1] == EAGAIN, "the student forked %d, then errno %d (want EAGAIN)", r[0],
          r[1]);
    CHECK(pid > 0, "root could not fork after the student's %d children: errno %d", r[0], err);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "root's child: status %x", st);
    PASS();
}

/* In S: children that each make pipes until an error, until one hits
 * ENFILE; told: files made, and 0 if the last error was ENFILE. */
static void file_hog(void)
{
    int gate[2], res[2], pids[NPROC], n = 0, r[2] = { 0, -1 }, k[2];
    char c;

    pipe(gate);
    pipe(res);
    fflush(stdout);
    while (n < NPROC / 2 && r[1] != 0) {
        int pid = fork();
        if (pid == 0) {
            int p[2], made = 0;
            close(gate[1]);
            close(res[0]);
            while (pipe(p) == 0)
                made += 2;
            k[0] = made;
            k[1] = errno;
            write(res[1], k, sizeof(k));
            read(gate[0], &c, 1);
            _exit(0);
        }
        if (pid < 0 || read_full(res[0], k, sizeof(k)) != sizeof(k))
            break;
        pids[n++] = pid;
        r[0] += k[0];
        if (k[1] == ENFILE)
            r[1] = 0;
        else if (k[1] != EMFILE)
            break;
    }
    write(told[1], r, sizeof(r));
    read(word[0], &c, 1);
    close(res[0]);
    close(res[1]);
    release_and_reap(gate, pids, n);
}

static void a_user_holding_every_open_file_leaves_root_some(void)
{
    int r[2], s, d, p[2] = { -1, -1 }, ep = 0, ed;

    s = student_fills(file_hog, r);
    errno = 0;
    d = walk(AT_CWD, "/", 0);
    ed = errno;
    if (pipe(p) < 0)
        ep = errno;
    close(d);
    close(p[0]);
    close(p[1]);
    CHECK(student_lets_go(s) == 0, "the student's process failed");
    CHECK(r[0] > 0 && r[1] == 0, "the student made %d files, then no ENFILE", r[0]);
    CHECK(d >= 0, "root could not walk / after the student's %d files: errno %d", r[0], ed);
    CHECK(ep == 0, "root could not make a pipe: errno %d", ep);
    PASS();
}

/* Two processes writing records to one ext2 file: each write must land
 * where no other did. With R_APPEND (each its own open file) a write
 * goes at the end as it is then; through one open file description
 * shared by fork, at the shared offset, which then moves past it. In
 * both, file_write read the position, then ext2 waited for its turn in
 * the instance (another process was inside, a long directory walk that
 * yields), the other writer read the same position meanwhile, and the
 * second write covered the first's record. A third process keeps the
 * instance busy with lookups in a big directory. */
#define RECORDS 300
#define REC     32

static int ext2_copy(void)
{
    char buf[4096];
    int in = open("/etc/sample.ext2", O_RDONLY), out, n, fs;

    out = open("/tmp/attack.ext2", O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0)
        return -1;
    while ((n = read(in, buf, sizeof(buf))) > 0)
        write(out, buf, n);
    close(in);
    fs = fsopen("ext2", out, "");
    close(out);
    return fs;
}

static int e2fs;

/* RECORDS records through fd, or (fd < 0) through an fd of our own on
 * "log", readied with R_APPEND. */
static void write_records(char who, int fd)
{
    char rec[REC + 1];
    int i, p;

    if (fd < 0) {
        p = walk(e2fs, "log", 0);
        fd = p < 0 ? -1 : ready(p, R_WRITE | R_APPEND);
    }
    for (i = 0; fd >= 0 && i < RECORDS; i++) {
        snprintf(rec, sizeof(rec), "%c%04d%026d\n", who, i, 0);
        if (write(fd, rec, REC) != REC)
            _exit(2);
    }
    _exit(fd < 0 ? 1 : 0);
}

/* big/: 40 names of 200 bytes, 5 to a block (lookups in it take a
 * while, and a long walk yields the CPU inside the instance). */
static int make_big_dir(void)
{
    char name[256];
    int d = create(e2fs, "big", S_IFDIR, 0755, 0), f = create(e2fs, "big/f", S_IFREG, 0644, 0);
    int i, err = d < 0 || f < 0;

    for (i = 0; !err && i < 40; i++) {
        snprintf(name, sizeof(name), "big/%0200d", i);
        err = linkat(f, e2fs, name) < 0;
    }
    close(d);
    close(f);
    return err ? -1 : 0;
}

static void busy_looker(void)
{
    for (;;)
        close(walk(e2fs, "big/nobody", 0));
}

/* Two writers of "log", through `shared` (an fd both inherit) or each
 * through its own with R_APPEND; how many records are missing, doubled
 * or torn, and the log's size in *size. */
static int two_writers(int shared, int *size)
{
    static char back[2 * RECORDS * REC + 1];
    int a, b, looker, i, n, sa, sb, seen[2][RECORDS] = { { 0 } }, bad = 0;

    fflush(stdout);
    if ((looker = fork()) == 0)
        busy_looker();
    if ((a = fork()) == 0)
        write_records('A', shared);
    if ((b = fork()) == 0)
        write_records('B', shared);
    sa = wait_or_kill(a, 20000);
    sb = wait_or_kill(b, 20000);
    kill(looker, SIGKILL);
    waitpid(looker, &i, 0);
    if (sa != 0 || sb != 0)
        return -1;
    i = walk(e2fs, "log", 0);
    n = i < 0 ? -1 : ready(i, R_READ);
    close(i);
    i = n;
    n = n < 0 ? -1 : read_full(i, back, sizeof(back));
    close(i);
    for (i = 0; i + REC <= n; i += REC) {
        int who = back[i] == 'A' ? 0 : back[i] == 'B' ? 1 : -1, k;
        back[i + 5] = '\0';
        k = atoi(back + i + 1);
        if (who < 0 || back[i + REC - 1] != '\n' || k < 0 || k >= RECORDS)
            bad++;
        else
            seen[who][k]++;
    }
    for (i = 0; i < RECORDS; i++)
        bad += (seen[0][i] != 1) + (seen[1][i] != 1);
    *size = n;
    return bad;
}

static void writes_to_an_ext2_file_never_cover_each_other(void)
{
    int p, log_fd, shared, bad_append, bad_shared, n_append, n_shared;

    CHECK((e2fs = ext2_copy()) >= 0, "an ext2 instance from a copy of /etc/sample.ext2");
    CHECK(make_big_dir() == 0, "a big directory");
    CHECK((log_fd = create(e2fs, "log", S_IFREG, 0644, 0)) >= 0, "create log");
    bad_append = two_writers(-1, &n_append);
    CHECK((p = walk(e2fs, "log", 0)) >= 0 && (shared = ready(p, R_WRITE)) >= 0 &&
              ftruncate(shared, 0) == 0,
          "the log again, empty");
    close(p);
    bad_shared = two_writers(shared, &n_shared);
    close(shared);
    close(log_fd);
    close(e2fs);
    unlinkat(AT_CWD, "/tmp/attack.ext2", 0);
    CHECK(bad_append == 0 && n_append == 2 * RECORDS * REC,
          "R_APPEND: the log holds %d bytes, want %d; %d records missing, doubled or torn",
          n_append, 2 * RECORDS * REC, bad_append);
    CHECK(bad_shared == 0 && n_shared == 2 * RECORDS * REC,
          "one shared offset: the log holds %d bytes, want %d; %d records missing, doubled or "
          "torn",
          n_shared, 2 * RECORDS * REC, bad_shared);
    PASS();
}

/* A name operation checks, then acts; on ext2 it may wait for its turn
 * in the instance between the two, and another process's name change
 * came in between: a rename with RENAME_NOREPLACE replaced a name made
 * meanwhile, a rename of a file replaced a directory made meanwhile.
 * Two racers, A and B, each do one thing per round on a word from the
 * parent, while the looker keeps the instance busy; exactly one of the
 * two may succeed in each round. */
#define ROUNDS 200

static int go_a[2], go_b[2], done_ab[2];

/* One racer: for each byte on go[0], op(round), and the result (0, or
 * errno) to done_ab. */
static void racer(int go[2], int (*op)(int), char who)
{
    int r[2];
    char c;

    close(go[1]);
    for (r[0] = 0; read(go[0], &c, 1) == 1; r[0]++) {
        errno = 0;
        r[1] = op(r[0]) < 0 ? errno : 0;
        r[0] |= who == 'B' ? 0x10000 : 0;
        write(done_ab[1], r, sizeof(r));
        r[0] &= 0xFFFF;
    }
    _exit(0);
}

static int a_rename_noreplace(int round)
{
    return renameat(e2fs, "x", e2fs, "big/y", RENAME_NOREPLACE);
}

/* B's call comes a little later each round (0 to 4 more turns in the
 * instance first), so that in some rounds it lands between A's checks
 * and A's change (which for a create may need A later, too). */
static void b_later(int round)
{
    int i;

    for (i = 0; i < round % 5; i++)
        close(walk(e2fs, "x", 0));
}

static int b_create(int round)
{
    int fd;

    b_later(round);
    fd = create(e2fs, "big/y", S_IFREG, 0644, 0);

    close(fd);
    return fd;
}

static int a_rename(int round)
{
    return renameat(e2fs, "x", e2fs, "big/y", 0);
}

static int b_mkdir(int round)
{
    int fd;

    b_later(round);
    fd = create(e2fs, "big/y", S_IFDIR, 0755, 0);

    close(fd);
    return fd;
}

static int a_create_inside(int round)
{
    int fd;

    b_later(round / 5);                 /* A later too: every pair of delays */
    fd = create(e2fs, "d/f", S_IFREG, 0644, 0);

    close(fd);
    return fd;
}

static int b_rmdir(int round)
{
    b_later(round);
    return unlinkat(e2fs, "d", UNLINK_DIR);
}

/* ROUNDS rounds of A against B; how many rounds both succeeded in. */
static int race(int (*a_op)(int), int (*b_op)(int))
{
    int a, b, looker, round, both = 0, r[2], ok[2], i, st;

    pipe(go_a);
    pipe(go_b);
    pipe(done_ab);
    fflush(stdout);
    if ((looker = fork()) == 0)
        busy_looker();
    if ((a = fork()) == 0)
        racer(go_a, a_op, 'A');
    if ((b = fork()) == 0)
        racer(go_b, b_op, 'B');
    close(go_a[0]);
    close(go_b[0]);
    close(done_ab[1]);
    for (round = 0; round < ROUNDS; round++) {
        unlinkat(e2fs, "big/y", 0);
        unlinkat(e2fs, "big/y", UNLINK_DIR);
        close(create(e2fs, "x", S_IFREG, 0644, 0));
        close(create(e2fs, "d", S_IFDIR, 0755, 0));
        write(go_a[1], "g", 1);
        write(go_b[1], "g", 1);
        for (i = 0; i < 2; i++) {
            if (read_full(done_ab[0], r, sizeof(r)) != sizeof(r))
                break;
            ok[r[0] >> 16] = r[1] == 0;
        }
        both += i == 2 && ok[0] && ok[1];
        unlinkat(e2fs, "x", 0);
        unlinkat(e2fs, "d/f", 0);
        unlinkat(e2fs, "d", UNLINK_DIR);
    }
    close(go_a[1]);
    close(go_b[1]);
    close(done_ab[0]);
    kill(looker, SIGKILL);              /* (each racer holds the other's go pipe) */
    kill(a, SIGKILL);
    kill(b, SIGKILL);
    waitpid(looker, &st, 0);
    waitpid(a, &st, 0);
    waitpid(b, &st, 0);
    unlinkat(e2fs, "big/y", 0);
    unlinkat(e2fs, "big/y", UNLINK_DIR);
    return both;
}

static void name_checks_hold_until_the_change_on_ext2(void)
{
    int noreplace, over_dir, removed;

    CHECK((e2fs = ext2_copy()) >= 0, "an ext2 instance from a copy of /etc/sample.ext2");
    CHECK(make_big_dir() == 0, "a big directory");
    noreplace = race(a_rename_noreplace, b_create);
    over_dir = race(a_rename, b_mkdir);
    removed = race(a_create_inside, b_rmdir);
    close(e2fs);
    unlinkat(AT_CWD, "/tmp/attack.ext2", 0);
    printf("t_attack: races in %d rounds: %d with RENAME_NOREPLACE, %d over a directory, %d in a "
           "removed directory\n",
           ROUNDS, noreplace, over_dir, removed);
    CHECK(noreplace == 0,
          "in %d of %d rounds both a rename with RENAME_NOREPLACE and a create "
          "of its new name succeeded",
          noreplace, ROUNDS);
    CHECK(over_dir == 0,
          "in %d of %d rounds both a rename of a file and a mkdir of its new "
          "name succeeded",
          over_dir, ROUNDS);
    CHECK(removed == 0,
          "in %d of %d rounds both a create in a directory and its removal "
          "succeeded (an entry in a removed directory)",
          removed, ROUNDS);
    PASS();
}

/* The kernel is never preempted, and a write to the console went out
 * byte by byte in one go: 4 MiB took 19 s on the serial line, during
 * which no other process ran and ^C could not stop the writer. Now it
 * goes in pieces, with the others' turns and a kill between them. The
 * child writes 512 KiB of carriage returns (harmless on any terminal)
 * again and again: once only, it finished before its kill when the
 * guest's clock counts instructions (make shake SHIFT=icount0), and the
 * test failed on a good kernel. */
#define CONSOLE_FLOOD (512 << 10)

static void a_long_console_write_lets_others_run_and_ends_with_a_kill(void)
{
    static char flood[CONSOLE_FLOOD];
    int con = walk(AT_CWD, "/dev/console", 0), fd = con < 0 ? -1 : ready(con, R_WRITE);
    int pid, st = -1;
    unsigned t0, slept, died;

    close(con);
    CHECK(fd >= 0, "ready the console");
    memset(flood, '\r', sizeof(flood));
    fflush(stdout);
    if ((pid = fork()) == 0)
        for (;;)                        /* till killed: however fast the console */
            if (write(fd, flood, sizeof(flood)) < 0)
                _exit(1);
    t0 = uptime_ms();
    sleep_ms(50);
    slept = uptime_ms() - t0;
    kill(pid, SIGKILL);
    t0 = uptime_ms();
    waitpid(pid, &st, 0);
    died = uptime_ms() - t0;
    close(fd);
    printf("\n");                       /* the results start a line of their own */
    CHECK(slept < 500,
          "a sleep of 50 ms took %u ms while another process wrote %d KiB to the "
          "console",
          slept, CONSOLE_FLOOD >> 10);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the writer: status %x", st);
    CHECK(died < 500, "the writer died %u ms after its kill", died);
    PASS();
}

/* The same with pipes on top: a pipe's buffer is 64 KiB of kernel memory,
 * and the open files a user may hold make 240 of them, about the eighth
 * ramfs leaves. So a pipe (and a channel) is made only while that eighth
 * stays free, too (pipe_open, chan_new): the student fills /tmp, then
 * makes pipes in children until refused, and root must still grow,
 * fork and exec. */
static void tmp_then_pipes(void)
{
    fill_tmp_files();
    file_hog();
}

static void a_full_tmp_and_a_users_pipes_leave_memory_for_everyone_else(void)
{
    unsigned before = free_pages();
    int r[2], s, ok;

    s = student_fills(tmp_then_pipes, r);
    ok = in_child(grow_fork_and_exec);
    CHECK(student_lets_go(s) == 0, "the student's process failed");
    remove_tmp_files();
    CHECK(ok == 0,
          "with /tmp full and %d pipe ends held, a process could not grow, fork and "
          "exec: step %d failed",
          r[0], ok);
    CHECK(free_pages() == before, "%u pages free before, %u after", before, free_pages());
    PASS();
}

/* And a user's own memory: sbrk until refused, in several processes,
 * left holding it. A system call short of memory fails (ENOMEM), it
 * kills nobody (doc/decisions.md), so root could not fork a kill for the
 * hog. A user's heap now grows only while an eighth of memory stays
 * free (sys_sbrk, as ramfs). */
static void memory_hog(void)
{
    int gate[2], res[2], pids[8], n, k;
    char c;

    pipe(gate);
    pipe(res);
    fflush(stdout);
    for (n = 0; n < 8; n++) {
        if ((pids[n] = fork()) == 0) {
            close(gate[1]);
            for (k = FILL_MB; k >= 4096; k /= 2)
                while (sbrk(k) != (void *)-1)
                    ;
            write(res[1], "x", 1);
            read(gate[0], &c, 1);
            _exit(0);
        }
        if (pids[n] < 0 || read(res[0], &c, 1) != 1)
            break;
    }
    k = n;
    write(told[1], (int[2]){ k, 0 }, 2 * sizeof(int));
    read(word[0], &c, 1);
    release_and_reap(gate, pids, k);
}

static void a_users_heap_leaves_memory_for_root(void)
{
    unsigned before = free_pages(), held;
    int r[2], s, ok;

    s = student_fills(memory_hog, r);
    held = free_pages();
    ok = in_child(grow_fork_and_exec);
    CHECK(student_lets_go(s) == 0, "the student's process failed");
    CHECK(ok == 0,
          "with %d of the student's processes holding all the heap they could (%u "
          "pages free), root could not grow, fork and exec: step %d failed",
          r[0], held, ok);
    CHECK(free_pages() == before, "%u pages free before, %u after", before, free_pages());
    PASS();
}

/* The same through exec: a program's bss is promised at exec (lazy
 * pages, each reserved), so a user's program with a bss as big as free
 * memory held every page while it slept. A user's exec now promises only
 * what leaves an eighth free (exec_file). The image: one segment, a bss
 * of all the free pages but k, code that sleeps for ever; the student
 * tries k = 256, 512, ... until an exec works. */
#define HOG_IMAGE "/tmp/attack_hog"

static void write_hog(unsigned bss_pages)
{
    static const unsigned char code[] = {
        0xB8, SYS_sleep, 0x00, 0x00, 0x00,      /* 1: mov $SYS_sleep, %eax */
        0xBB, 0xFF,      0xFF, 0xFF, 0x7F,           /* mov $0x7fffffff, %ebx */
        0xCD, 0x80,                             /* int $0x80 */
        0xEB, 0xF2,                             /* jmp 1b */
    };
    static char img[256];
    int n = fz_elf_image(img, code, sizeof(code)), p, fd;
    unsigned *ph = (unsigned *)(img + 52);

    ph[5] = bss_pages * 4096u;                  /* memsz */
    ph[6] = 7;                                  /* R W X */
    if ((p = create(AT_CWD, HOG_IMAGE, S_IFREG, 0755, 0)) < 0)
        p = walk(AT_CWD, HOG_IMAGE, 0);
    if ((fd = ready(p, R_WRITE)) >= 0) {
        ftruncate(fd, 0);
        write(fd, img, n);
        close(fd);
    }
    close(p);
}

static void exec_hog(void)
{
    char *argv[] = { "hog", NULL };
    int pid, r[2] = { 0, 0 }, st;
    unsigned k;
    char c;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        for (k = free_pages() - 256; k > 256; k = k / 4 * 3) { /* user_share stops most */
            write_hog(k);
            exec(walk(AT_CWD, HOG_IMAGE, 0), argv, NULL);
        }
        _exit(100 + errno);
    }
    sleep_ms(300);                              /* exec'd and asleep, or failed */
    r[0] = waitpid(pid, &st, WNOHANG) == 0;     /* 1: the hog runs */
    r[1] = r[0] ? 0 : st;
    write(told[1], r, sizeof(r));
    read(word[0], &c, 1);
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    unlinkat(AT_CWD, HOG_IMAGE, 0);
}

static void a_users_big_bss_leaves_memory_for_root(void)
{
    unsigned before = free_pages(), held;
    int r[2], s, ok;

    s = student_fills(exec_hog, r);
    held = free_pages();
    ok = in_child(grow_fork_and_exec);
    CHECK(student_lets_go(s) == 0, "the student's process failed");
    CHECK(r[0], "no exec of the student's worked (status %x)", r[1]);
    CHECK(ok == 0,
          "with the student's program asleep (%u pages free), root could not grow, "
          "fork and exec: step %d failed",
          held, ok);
    CHECK(free_pages() == before, "%u pages free before, %u after", before, free_pages());
    PASS();
}

/* Two processes listing one ext2 directory through one open file (fork
 * shares its position): each entry must come to exactly one of them.
 * getdents read the position, ext2 made it wait, the other read the
 * same position meanwhile, and both got the same entries. Each lister
 * sends the names it got to the parent. */
static int names_pipe[2];

static void list_some(int d)
{
    char buf[300], line[300];
    int got, i;

    while ((got = getdents(d, buf, sizeof(buf))) > 0)
        for (i = 0; i < got; i += ((struct dirent *)(buf + i))->d_reclen) {
            const char *name = ((struct dirent *)(buf + i))->d_name;
            size_t len = strlen(name);
            snprintf(line, sizeof(line), "%8.8s\n", name + (len > 8 ? len - 8 : 0));
            write(names_pipe[1], line, 9);
        }
    _exit(got < 0 ? 1 : 0);
}

static void two_listers_of_one_ext2_directory_share_its_entries(void)
{
    static char names[200 * 9];
    int d, p, a, b, looker, n, st, twice = 0, i, j;

    CHECK((e2fs = ext2_copy()) >= 0, "an ext2 instance from a copy of /etc/sample.ext2");
    CHECK(make_big_dir() == 0, "a big directory");
    CHECK((p = walk(e2fs, "big", 0)) >= 0 && (d = ready(p, R_READ)) >= 0, "ready big");
    close(p);
    fflush(stdout);
    if ((looker = fork()) == 0)
        busy_looker();
    CHECK(pipe(names_pipe) == 0, "pipe");  /* after the looker: only the listers write */
    if ((a = fork()) == 0)
        list_some(d);
    if ((b = fork()) == 0)
        list_some(d);
    close(names_pipe[1]);
    n = read_full(names_pipe[0], names, sizeof(names));
    close(names_pipe[0]);
    waitpid(a, &st, 0);
    waitpid(b, &st, 0);
    kill(looker, SIGKILL);
    waitpid(looker, &st, 0);
    close(d);
    close(e2fs);
    unlinkat(AT_CWD, "/tmp/attack.ext2", 0);
    for (i = 0; i < n; i += 9)          /* names are unique in their last 8 bytes */
        for (j = i + 9; j < n; j += 9)
            twice += memcmp(names + i, names + j, 9) == 0;
    CHECK(twice == 0 && n == 43 * 9,
          "%d entries listed (want 43: ., .., f and 40 links), %d "
          "of them twice",
          n / 9, twice);
    PASS();
}

/* A socket inode in an ext2 image (a type ext2 stores; Orthos's only
 * sockets are channel ends, chan(2)) could be readied, and read and
 * write then took its ext2 vnode for a channel's: read copied from
 * wherever the inode cache's bytes pointed, and a user's own image, a
 * file in /tmp, panicked the kernel (a page fault in chan_read). The
 * student copies /etc/fuzz.ext2, turns its FIFO's inode into a socket
 * (0140666) and readies it: ENXIO, as POSIX's open of a socket. */
#define SOCK_IMG "/tmp/attack_sock.ext2"

/* A copy of the file `from` at `to` (0600), readied for reading and
 * writing: its fd, or -1. */
static int copy_file(const char *from, const char *to)
{
    char buf[4096];
    int in = open(from, O_RDONLY), out = open(to, O_RDWR | O_CREAT | O_TRUNC, 0600), n = -1;

    if (in >= 0 && out >= 0)
        while ((n = read(in, buf, sizeof(buf))) > 0 && write(out, buf, n) == n)
            ;
    close(in);
    if (n != 0) {
        close(out);
        return -1;
    }
    return out;
}

static int image_at(int img, void *b, int n, uint32_t off, int writing)
{
    if (lseek(img, (int)off, SEEK_SET) != (int)off)
        return -1;
    return (writing ? write(img, b, n) : read(img, b, n)) == n ? 0 : -1;
}

static uint32_t image_word(int img, uint32_t off)
{
    uint32_t w = 0;

    image_at(img, &w, 4, off, 0);
    return w;
}

/* Give inode ino of the image in img the mode `mode` (rev 1 ext2: the
 * superblock at 1024, the first group's descriptors in the next block). */
static int set_inode_mode(int img, uint32_t ino, uint16_t mode)
{
    uint32_t bsize = 1024u << image_word(img, 1024 + 24), ipg = image_word(img, 1024 + 40);
    uint32_t isize = image_word(img, 1024 + 88) & 0xFFFF, first = image_word(img, 1024 + 20);
    uint32_t table, off;

    if (ipg == 0 || isize < 128)
        return -1;
    table = image_word(img, (first + 1) * bsize + 32 * ((ino - 1) / ipg) + 8);
    off = table * bsize + (ino - 1) % ipg * isize;
    return image_at(img, &mode, 2, off, 1);
}

static int ready_a_socket_inode(void)
{
    struct stat st;
    int img, fs, p, r, w;

    if (setgid(STUDENT) < 0 || setuid(STUDENT) < 0)
        return 1;
    if ((img = copy_file("/etc/fuzz.ext2", SOCK_IMG)) < 0)
        return 2;
    if ((fs = fsopen("ext2", img, "")) < 0 || (p = walk(fs, "fifo", 0)) < 0 || fstat(p, &st) < 0 ||
        !S_ISFIFO(st.st_mode))
        return 4;
    close(p);
    close(fs);                          /* the instance goes: the image can change */
    if (set_inode_mode(img, st.st_ino, S_IFSOCK | 0666) < 0)
        return 5;
    if ((fs = fsopen("ext2", img, "")) < 0 || (p = walk(fs, "fifo", 0)) < 0 || fstat(p, &st) < 0 ||
        !S_ISSOCK(st.st_mode))
        return 6;                       /* the patch missed its inode */
    r = ready(p, R_READ);
    if (r >= 0)
        return 7;                       /* before the fix; a read here panicked */
    if (errno != ENXIO)
        return 8;
    w = ready(p, R_RDWR);
    if (w >= 0 || errno != ENXIO)
        return 9;
    close(p);
    close(fs);
    close(img);
    return 0;
}

static void a_socket_inode_in_a_users_image_is_not_a_channel(void)
{
    int r = in_child(ready_a_socket_inode);

    unlinkat(AT_CWD, SOCK_IMG, 0);
    CHECK(r == 0, "the student's socket inode: step %d failed (7: readied; 8, 9: not ENXIO)", r);
    PASS();
}

/* A disk every user writes to (a shared directory, 01777, on /dev/hd1)
 * could be filled by one user to the last block: then root could not
 * write a byte to it either. ext2 keeps the last r_blocks_count blocks
 * (5 % by mke2fs's default) for its reserved user and group, root by
 * default, and Linux honours that; Orthos's block allocator did not. Root
 * makes an instance of a copy of /etc/sample.ext2 (25 of its 512 blocks
 * reserved) with a directory "pub" for everyone; the student fills it. */
#define RSV_IMG "/tmp/attack_rsv.ext2"
static int rsv_fs = -1;

static int fill_pub(void)
{
    static char block[1024];
    int fd, n, w;

    memset(block, 's', sizeof(block));
    if (setgid(STUDENT) < 0 || setuid(STUDENT) < 0)
        return 1;
    if ((fd = openat(rsv_fs, "pub/hog", O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0)
        return 2;
    for (n = 0; (w = write(fd, block, sizeof(block))) == (int)sizeof(block); n++)
        ;
    if (w >= 0 || errno != ENOSPC)
        return 3;                       /* it must end in ENOSPC */
    close(fd);
    return n > 100 ? 0 : 4;             /* it did fill most of the disk */
}

static void a_user_filling_a_shared_disk_leaves_root_its_reserved_blocks(void)
{
    static char block[1024];
    int img, r, fd = -1, d, got = 0, i;

    img = copy_file("/etc/sample.ext2", RSV_IMG);
    CHECK(img >= 0 && (rsv_fs = fsopen("ext2", img, "")) >= 0, "an instance of the image: errno %d",
          errno);
    close(img);
    d = create(rsv_fs, "pub", S_IFDIR, 01777, 0);
    CHECK(d >= 0 && fchmod(d, 01777) == 0, "pub: errno %d", errno);
    close(d);
    r = in_child(fill_pub);
    if ((fd = openat(rsv_fs, "root_file", O_WRONLY | O_CREAT | O_EXCL, 0600)) >= 0)
        for (i = 0; i < 10 && write(fd, block, sizeof(block)) == (int)sizeof(block); i++)
            got += sizeof(block);
    close(fd);
    close(rsv_fs);
    unlinkat(AT_CWD, RSV_IMG, 0);
    CHECK(r == 0, "the student's fill: step %d failed", r);
    CHECK(fd >= 0 && got == 10 * (int)sizeof(block),
          "after the student filled the disk root wrote %d of 10240 bytes (errno %d)", got, errno);
    PASS();
}

/* A channel's end is a stream, as a pipe's is, but read and write took it
 * for a file with a position: through one open file (shared by fork)
 * they took turns on it, so a write waited for ever behind a read
 * waiting for the peer - a client whose child reads replies while it
 * writes requests hung. And lseek moved the unused position, so that
 * writes failed with EFBIG once it was near 2^31. The reader (a child)
 * waits on the shared end; the parent writes through it, then lseeks
 * it. A write that waits is ended by the helper's kill after 5 s (it
 * never waits on the kernel as fixed: the peer's ring has room). */
static int chan_end[2];

static int read_one_byte(void)
{
    char c;

    return read(chan_end[0], &c, 1) == 1 && c == 'p' ? 0 : 1;
}

static int write_through_the_shared_end(void)
{
    char c = 0;

    if (write(chan_end[0], "q", 1) != 1)
        return 1;
    if (read(chan_end[1], &c, 1) != 1 || c != 'q')
        return 2;
    if (lseek(chan_end[0], 0, SEEK_SET) != -1 || errno != ESPIPE)
        return 3;
    return 0;
}

static void a_channel_end_shared_by_fork_reads_and_writes_at_once(void)
{
    int reader, writer, r, w;

    CHECK(chan(chan_end) == 0, "chan: errno %d", errno);
    fflush(stdout);
    if ((reader = fork()) == 0)
        _exit(read_one_byte());
    CHECK(reader > 0 && wait_until_sleeping(reader, 5000), "the reader never waited");
    if ((writer = fork()) == 0)
        _exit(write_through_the_shared_end());
    w = wait_or_kill(writer, 5000);
    write(chan_end[1], "p", 1);         /* the reader's byte */
    r = wait_or_kill(reader, 5000);
    close(chan_end[0]);
    close(chan_end[1]);
    CHECK(w != -1, "a write through a channel end waited behind a read of it");
    CHECK(WIFEXITED(w) && WEXITSTATUS(w) == 0,
          "the writer: step %d failed (3: lseek of a channel end not ESPIPE)", WEXITSTATUS(w));
    CHECK(r != -1 && WIFEXITED(r) && WEXITSTATUS(r) == 0, "the reader: status %x", r);
    PASS();
}

/* A process's name is its argv[0] (exec), shown in /proc/<pid>/status
 * one "key value" line after another, and ps takes a key's last line: a
 * user whose argv[0] was "\npid 1" showed up in root's ps as pid 1 (so
 * root's "kill" of that user's process would hit init's pid, or the pid
 * of root's own shell), and a name could add lines to the kernel's
 * messages on the console ("pid 9 (x\npanic: ...)"). A control
 * character in a name is now shown as '?'. The child runs cat under a
 * forged name, waiting on a pipe (a child in sleep_ms is seen
 * "runnable" at every tick, when the parent polls). */
static int name_pipe[2];

static int cat_with_a_forged_name(void)
{
    char *args[] = { "\npid 1\nppid 1", NULL };

    if (dup2(name_pipe[0], 0) < 0 || fcntl(0, F_SETFD, FD_KEEP) < 0)
        return 8;
    close(name_pipe[1]);
    execv("/bin/cat", args);
    return 9;
}

static void a_process_name_cannot_forge_lines_of_its_status(void)
{
    char buf[256] = "", want[32];
    int pid, lines = 0, ok, st = -1;
    char *p;

    CHECK(pipe(name_pipe) == 0, "pipe: errno %d", errno);
    fflush(stdout);
    if ((pid = fork()) == 0)
        _exit(cat_with_a_forged_name());
    close(name_pipe[0]);
    ok = pid > 0 && wait_until_sleeping(pid, 5000);
    snprintf(want, sizeof(want), "/proc/%d/status", pid);
    if (ok && slurp(want, buf, sizeof(buf)) > 0)
        for (p = buf; *p; p++)
            lines += *p == '\n';
    close(name_pipe[1]);                /* cat reads the end of its input */
    st = wait_or_kill(pid, 5000);
    CHECK(ok, "the child never waited in cat");
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "cat under the forged name: status %x", st);
    snprintf(want, sizeof(want), "pid %d\n", pid);
    CHECK(strncmp(buf, want, strlen(want)) == 0 && lines == 5,
          "its status has %d lines (5 wanted):\n%s", lines, buf);
    CHECK(strstr(buf, "name ?pid 1?ppid 1\n") != NULL, "the name is not shown with '?':\n%s", buf);
    PASS();
}

int main(int argc, char **argv)
{
    t_only = argc > 1 ? argv[1] : NULL;
    T_RUN(a_pipe_belongs_to_the_user_who_made_it);
    T_RUN(a_read_of_zero_bytes_never_waits);
    T_RUN(a_user_filling_tmp_leaves_memory_for_everyone_else);
    T_RUN(a_users_fork_bomb_leaves_root_a_process);
    T_RUN(a_user_holding_every_open_file_leaves_root_some);
    T_RUN(a_full_tmp_and_a_users_pipes_leave_memory_for_everyone_else);
    T_RUN(a_users_heap_leaves_memory_for_root);
    T_RUN(a_users_big_bss_leaves_memory_for_root);
    T_RUN(writes_to_an_ext2_file_never_cover_each_other);
    T_RUN(name_checks_hold_until_the_change_on_ext2);
    T_RUN(two_listers_of_one_ext2_directory_share_its_entries);
    T_RUN(a_long_console_write_lets_others_run_and_ends_with_a_kill);
    T_RUN(a_socket_inode_in_a_users_image_is_not_a_channel);
    T_RUN(a_user_filling_a_shared_disk_leaves_root_its_reserved_blocks);
    T_RUN(a_channel_end_shared_by_fork_reads_and_writes_at_once);
    T_RUN(a_process_name_cannot_forge_lines_of_its_status);
    printf("t_attack: done\n");
    return t_failures != 0;
}
