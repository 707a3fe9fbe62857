/* bench.c - the guest half of `make bench` (tools/bench.py, README "make
 * bench"). Each measurement is one line
 *     BENCH name amount unit cycles-high cycles-low limit
 * meaning `amount` bytes (unit B) or operations (unit op) took that many
 * TSC cycles; `limit` names the row it is a fraction of ("memcpy", "disk")
 * or is "-". tools/bench.py does the arithmetic (the guest has no 64-bit
 * division). The TSC is read with rdtsc, which QEMU's TCG answers from the
 * host's own tick counter: fine-grained where uptime_ms() has 10 ms ticks.
 *
 * The TSC's rate is timed by the host: "BENCHTSC cycles-high cycles-low"
 * lines (MARKS at the start, MARKS at the end, a timer tick apart) carry
 * the TSC, written the moment it was read, and the host notes when each
 * line reaches it; over the run's tens of seconds, the few ms a line takes
 * to arrive do not count. The line "BENCHCLOCK cycles-high cycles-low ms"
 * at the end is the guest's own figure (the cycles between the first and
 * last marks against its timer), kept as a cross-check only: when the host
 * is loaded QEMU delivers timer interrupts late and coalesces some, the
 * guest's clock falls behind, and a rate from it reads too high (every
 * figure of that run too fast).
 *
 * The limits: the fastest copy this guest's CPU can do (several ways of
 * copying, in user mode: the best one is the limit) and the raw disk,
 * /dev/hd2 read from start to end with a cold cache. Cold reads come
 * first, before anything else touches the disks; the ext2 files to read
 * cold were put in the image by the host. Only calls that every version
 * of Orthos has are used, so the same file measures an old tree too.
 *
 * Some rows only (tools/bench.py --rows): the host writes their names into
 * /mnt/bench.rows on the data disk (a kernel command line cannot carry
 * arguments to an older tree's program); with that file, the rows it does
 * not name are skipped. Without it, every row runs. */
#include <fcntl.h>
#include <signal.h>
#include <orthos.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHUNK  65536                    /* bytes per read or write call */
#define MIN_MS 300                      /* each repeated measurement runs at least this long */
#define MiB    (1u << 20)

#define PIPE_STREAMS 2 /* the pipe row: at least this many streams */

static char buf[CHUNK] __attribute__((aligned(16)));
static char rows[512];                  /* /mnt/bench.rows, or "" (every row) */
static char buf2[CHUNK] __attribute__((aligned(16)));

static uint64_t rdtsc(void)
{
    uint32_t lo, hi;

    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

static void report(const char *name, unsigned amount, const char *unit, uint64_t cycles,
                   const char *limit)
{
    printf("BENCH %s %u %s %x %x %s\n", name, amount, unit, (unsigned)(cycles >> 32),
           (unsigned)cycles, limit);
}

/* Is row `name` to be measured? Every row when no list was given. */
static int want(const char *name)
{
    size_t n = strlen(name);
    const char *r;

    if (!rows[0])
        return 1;
    for (r = rows; (r = strstr(r, name)) != NULL; r += n)
        if ((r == rows || r[-1] == ' ') && (r[n] == ' ' || r[n] == 0))
            return 1;
    return 0;
}

/* The list of rows to run, if the host gave one: words separated by
 * blanks or newlines, kept as single-blank separated. */
static void read_rows(void)
{
    int fd = open("/mnt/bench.rows", O_RDONLY), n, i;

    if (fd < 0)
        return;
    n = read(fd, rows, sizeof(rows) - 1);
    close(fd);
    for (i = 0; i < n; i++)
        if (rows[i] == '\n' || rows[i] == '\t' || rows[i] == '\r')
            rows[i] = ' ';
    rows[n > 0 ? n : 0] = 0;
}

/* Wait for the timer to tick, so that a span of ticks starts on an edge. */
static unsigned tick_edge(void)
{
    unsigned t = uptime_ms(), u;

    while ((u = uptime_ms()) == t)
        ;
    return u;
}

/* Of two spans (amount a1 in c1 cycles, a2 in c2), is the first faster?
 * By multiplying: the guest has no 64-bit division. */
static int faster(unsigned a1, uint64_t c1, unsigned a2, uint64_t c2)
{
    return (uint64_t)a1 * c2 > (uint64_t)a2 * c1;
}

/* A measurement is made of windows of at least `window` cycles (about
 * 2.5 ms: calibrate()) and counts its fastest window. The guest's work is
 * the same in every window; what moves is how much of a core QEMU gets
 * from the host meanwhile, and the host's other work only ever slows a
 * window down. On this 2-core host shared by several QEMUs, a mean over
 * 300 ms took in whatever the others did then: ramfs_create_unlink read
 * 1.35x one run and 2.26x the next. Windows as long as the host's time
 * slices (tens of ms) are rarely clean under load; one of many windows
 * of a few ms mostly is. (The boot rows are the fastest of several boots
 * in tools/bench.py, for the same reason.) */
static uint64_t window;

struct best {
    unsigned n;                         /* units in the fastest window (0: none yet) */
    uint64_t c;                         /* ...and its cycles */
};

/* A window of n units in c cycles ended: keep it if it is the fastest. */
static void best_of(struct best *b, unsigned n, uint64_t c)
{
    if (n && (!b->n || faster(n, c, b->n, b->c))) {
        b->n = n;
        b->c = c;
    }
}

/* The cycles in 40 ms of the timer (tick_edge to tick_edge): a window is
 * a sixteenth of that. */
static void calibrate(void)
{
    unsigned t = tick_edge();
    uint64_t c = rdtsc();

    while (uptime_ms() - t < 40)
        ;
    window = (rdtsc() - c) >> 4;
}

/* A partner that does nothing but hand the CPU back (sched_yield), for a
 * process that wants a CR3 write on each of its own yields: its pid, or
 * the fork's error. partner_end kills and reaps it. */
static int partner_start(void)
{
    int pid = fork();

    if (pid == 0) {
        for (;;)
            sched_yield();
    }
    return pid;
}

static void partner_end(int pid)
{
    int status;

    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
}

/* QEMU without KVM (TCG) sizes its software TLBs at each full flush - each
 * CR3 write, that is each switch between processes - by the most entries
 * used over the last 100 ms, one TLB for the kernel's accesses and one for
 * user mode's: rows that switch often (context_switch, fork, pipe) leave
 * the kernel's at its least, 64 entries indexed by page number, and a row
 * that never switches (open+close, create+unlink, the file writes and warm
 * reads) runs with whatever the
 * rows before it left. Its figure then hung on which of the pages the
 * kernel touches share an entry, that is on where the linker put each
 * kernel function: a change to one function's code (readdir) made this
 * tree's open+close 1.5x slower after context_switch, and no slower
 * without it (doc/decisions.md, "The thirteenth round on this host"). So
 * before such a row: have the kernel write SETTLE_PAGES pages (a read of
 * /dev/zero) and hand the CPU to a partner and back, a few times (each
 * flush finds them all in use, and QEMU doubles that TLB), so that every
 * tree's row starts from the same large TLB. */
#define SETTLE_PAGES  1024
#define SETTLE_ROUNDS 8

/* In a child of its own, with memory of its own (sbrk), so that this
 * process's - which fork_wait copies - stays as it was; the child's
 * partner is a child of its own. */
static void tlb_settle(const char *name)
{
    int pid, partner, status, k, zero, got, n, size = SETTLE_PAGES * 4096;
    char *b;

    if (!want(name))
        return;
    if ((pid = fork()) != 0) {
        if (pid > 0)
            waitpid(pid, &status, 0);
        return;
    }
    partner = partner_start();
    b = sbrk(size);
    zero = partner > 0 && b != (char *)-1 ? open("/dev/zero", O_RDONLY) : -1;
    for (k = 0; zero >= 0 && k < SETTLE_ROUNDS; k++) {
        for (got = 0; got < size; got += n)
            if ((n = read(zero, b + got, size - got)) <= 0)
                break;
        sched_yield();
    }
    partner_end(partner);
    _exit(0);
}

/* Repeat fn(arg) (which does `per` units of work) until MIN_MS have
 * passed, and report the fastest window (a window ends after the call
 * that reaches `window` cycles: whole calls, so one slow call is one
 * window). */
static void repeat(const char *name, void (*fn)(int), int arg, unsigned per, const char *unit,
                   const char *limit)
{
    unsigned t = uptime_ms(), n = 0;
    uint64_t start = rdtsc(), now;
    struct best b = { 0, 0 };

    if (!want(name))
        return;
    do {
        fn(arg);
        n += per;
        if ((now = rdtsc()) - start >= window) {
            best_of(&b, n, now - start);
            n = 0;
            start = rdtsc();
        }
    } while (uptime_ms() - t < MIN_MS);
    if (!b.n)
        best_of(&b, n, rdtsc() - start); /* the one call, if it outlasted MIN_MS */
    report(name, b.n, unit, b.c, limit);
}

/* ---------------------------------------------------------------- limits */

static void copy_movsl(int n)
{
    void *d = buf2, *s = buf;
    unsigned c = CHUNK / 4;

    __asm__ volatile("rep movsl" : "+D"(d), "+S"(s), "+c"(c) : : "memory");
}

static void copy_movsb(int n)
{
    void *d = buf2, *s = buf;
    unsigned c = CHUNK;

    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(c) : : "memory");
}

/* 64 bytes a round through four SSE registers (user programs may use SSE:
 * the kernel saves each process's registers). */
static void copy_sse(int n)
{
    char *d = buf2, *s = buf, *end = buf + CHUNK;

    for (; s < end; s += 64, d += 64)
        __asm__ volatile("movaps (%0), %%xmm0\n\tmovaps 16(%0), %%xmm1\n\t"
                         "movaps 32(%0), %%xmm2\n\tmovaps 48(%0), %%xmm3\n\t"
                         "movaps %%xmm0, (%1)\n\tmovaps %%xmm1, 16(%1)\n\t"
                         "movaps %%xmm2, 32(%1)\n\tmovaps %%xmm3, 48(%1)"
                         :
                         : "r"(s), "r"(d)
                         : "memory");
}

/* Does the kernel let user programs use SSE (CR4.OSFXSR, and saving the
 * registers at each switch)? A child tries one instruction: a kernel
 * without it (an older tree under make bench BASE=...) kills the child
 * with an invalid opcode, and the SSE row is left out. */
static int sse_usable(void)
{
    int pid = fork(), status;

    if (pid == 0) {
        __asm__ volatile("xorps %%xmm0, %%xmm0" : : : "memory");
        _exit(0);
    }
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

/* Four 32-bit loads, then four stores, twice a step: what a compiler's
 * unrolled loop does, and what kernel/lib/string.c's memcpy does (so the
 * limit is never slower than the copy it measures). */
static void copy_words(int n)
{
    char *d = buf2, *s = buf, *end = buf + CHUNK;

    for (; s < end; s += 32, d += 32)
        __asm__ volatile("movl (%0), %%eax\n\tmovl 4(%0), %%ebx\n\t"
                         "movl 8(%0), %%ecx\n\tmovl 12(%0), %%edx\n\t"
                         "movl %%eax, (%1)\n\tmovl %%ebx, 4(%1)\n\t"
                         "movl %%ecx, 8(%1)\n\tmovl %%edx, 12(%1)\n\t"
                         "movl 16(%0), %%eax\n\tmovl 20(%0), %%ebx\n\t"
                         "movl 24(%0), %%ecx\n\tmovl 28(%0), %%edx\n\t"
                         "movl %%eax, 16(%1)\n\tmovl %%ebx, 20(%1)\n\t"
                         "movl %%ecx, 24(%1)\n\tmovl %%edx, 28(%1)"
                         :
                         : "S"(s), "D"(d)
                         : "eax", "ebx", "ecx", "edx", "memory");
}

static void libc_memcpy(int n)
{
    memcpy(buf2, buf, CHUNK);
    __asm__ volatile("" : : : "memory");
}

static void libc_memset(int n)
{
    memset(buf2, n, CHUNK);
    __asm__ volatile("" : : : "memory");
}

/* A mark for the host's clock: the TSC, written at once (not through
 * stdio, whose buffering an older libc may do otherwise). */
#define MARKS 3

static uint64_t mark(void)
{
    char line[48];
    uint64_t c = rdtsc();
    int n = snprintf(line, sizeof line, "BENCHTSC %x %x\n", (unsigned)(c >> 32), (unsigned)c);

    write(1, line, n);
    return c;
}

/* Read a whole file or device in CHUNK reads: the bytes read. */
static unsigned read_all(const char *path)
{
    int fd = open(path, O_RDONLY), r;
    unsigned total = 0;

    if (fd < 0)
        return 0;
    while ((r = read(fd, buf, CHUNK)) > 0)
        total += r;
    close(fd);
    return total;
}

/* Time one cold read of a whole file: a row with no repetition. */
static void read_once(const char *name, const char *path, const char *limit)
{
    uint64_t c = rdtsc();
    unsigned n = read_all(path);

    if (n && want(name))
        report(name, n, "B", rdtsc() - c, limit);
}

/* ---------------------------------------------------------------- processes */

static void do_getppid(int n)
{
    int i;

    for (i = 0; i < 1000; i++)
        getppid();
}

/* Grow the heap by 64 KiB, touch every page, give it back. */
static void do_sbrk(int n)
{
    char *p = sbrk(65536);
    int i;

    if (p == (char *)-1)
        return;
    for (i = 0; i < 65536; i += 4096)
        p[i] = 1;
    sbrk(-65536);
}

static void do_fork_wait(int n)
{
    int status;

    if (fork() == 0)
        _exit(0);
    wait(&status);
}

static void do_fork_exec_wait(int n)
{
    char *argv[] = { "true", NULL };
    int status;

    if (fork() == 0) {
        execv("/bin/true", argv);
        _exit(127);
    }
    wait(&status);
}

/* exec alone: /bin/bench_exec N execs itself N times, then exits. */
static void do_exec_chain(int n)
{
    char *argv[] = { "bench_exec", "100", NULL };
    int status;

    if (fork() == 0) {
        execv("/bin/bench_exec", argv);
        _exit(127);
    }
    wait(&status);
}

/* Two processes hand the CPU to each other with sched_yield(): a partner
 * that does nothing but yield (bench_switch forks it once for the row and
 * kills it after), and this process, `rounds` yields a call. Each yield of
 * ours is a round trip of two context switches and two system calls (ours
 * and the partner's): two operations.
 *
 * A call is short (50 round trips, well under a window) and forks
 * nothing. It used to fork the partner in every call, for 500 round trips:
 * a call of 3.4 ms on this tree and 6 to 10 ms on 62f4a5f, longer than a
 * window, so each window was one call, and longer than the host's time
 * slice (4 ms at HZ=250): whenever another program shared QEMU's core,
 * no window was clean and the row read 1.6x slower (doc/decisions.md,
 * "Context switch, thirteenth round"). The fork, exit and wait were also
 * about 2 % of what it counted. */
static void do_switch(int rounds)
{
    int i;

    for (i = 0; i < rounds; i++)
        sched_yield();
}

#define SWITCH_ROUNDS 50

static void bench_switch(void)
{
    int pid;

    if (!want("context_switch") || (pid = partner_start()) < 0)
        return;
    sched_yield();                      /* the partner has run: it is in its loop */
    repeat("context_switch", do_switch, SWITCH_ROUNDS, 2 * SWITCH_ROUNDS, "op", "-");
    partner_end(pid);
}

/* A writer child pushes total bytes through a pipe in CHUNK writes; the
 * reader's windows go into *b. A window runs from the return of one read
 * to the return of a later one: in the steady state each read returns
 * once the writer has filled the ring and it has emptied it, so a window
 * holds whole rounds of both copies, never bytes written before it
 * began. (The first read's wait, with the fork, is in no window.) */
static int pipe_stream(unsigned total, struct best *b)
{
    unsigned got = 0, n;
    int p[2], r, status;
    uint64_t start = 0, now;

    if (pipe(p) < 0)
        return -1;
    if (fork() == 0) {
        unsigned sent;
        close(p[0]);
        for (sent = 0; sent < total; sent += CHUNK)
            write(p[1], buf, CHUNK);
        _exit(0);
    }
    close(p[1]);
    for (n = 0; (r = read(p[0], buf2, CHUNK)) > 0; got += r) {
        now = rdtsc();
        if (!got) {
            start = now;                /* the first read's return: windows start here */
            continue;
        }
        n += r;
        if (now - start >= window) {
            best_of(b, n, now - start);
            n = 0;
            start = now;
        }
    }
    if (!b->n)
        best_of(b, n, rdtsc() - start); /* a stream shorter than a window */
    close(p[0]);
    wait(&status);
    return got == total ? 0 : -1;
}

/* The pipe row: the fastest window of at least PIPE_STREAMS streams of
 * total bytes (and as many more as MIN_MS allows). */
static void bench_pipe(unsigned total)
{
    unsigned t = uptime_ms(), i;
    struct best b = { 0, 0 };

    if (!want("pipe"))
        return;
    for (i = 0; i < PIPE_STREAMS || uptime_ms() - t < MIN_MS; i++)
        if (pipe_stream(total, &b) < 0)
            return;
    report("pipe", b.n, "B", b.c, "memcpy");
}

/* ---------------------------------------------------------------- files */

static const char *fs_dir[2] = { "/tmp", "/mnt" };

static void path_in(char *p, int fs, const char *name)
{
    snprintf(p, 64, "%s/%s", fs_dir[fs], name);
}

static void do_open_close(int fs)
{
    char p[64];
    int i;

    path_in(p, fs, "bench.oc");
    for (i = 0; i < 100; i++)
        close(open(p, O_RDONLY));
}

static void do_create_unlink(int fs)
{
    char p[64];
    int i;

    path_in(p, fs, "bench.cu");
    for (i = 0; i < 20; i++) {
        close(open(p, O_WRONLY | O_CREAT | O_EXCL, 0644));
        unlink(p);
    }
}

/* Write size bytes to a new file in CHUNK writes (and sync, for a disk):
 * the time includes reaching the disk. */
static void write_file(const char *name, int fs, const char *file, unsigned size)
{
    char p[64];
    unsigned done = 0;
    uint64_t c;
    int fd;

    tlb_settle(name);
    c = rdtsc();
    path_in(p, fs, file);
    if ((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
        return;
    for (; done < size; done += CHUNK)
        if (write(fd, buf, CHUNK) != CHUNK)
            break;
    close(fd);
    if (fs == 1)
        sync();
    if (done == size && want(name))
        report(name, size, "B", rdtsc() - c, fs == 1 ? "disk" : "memcpy");
}

/* Read a file that is now in memory (ramfs, or the cache) until MIN_MS pass. */
static void read_warm(const char *name, int fs, const char *file)
{
    char p[64];
    unsigned t, n = 0, got;
    uint64_t c;

    if (!want(name))
        return;
    tlb_settle(name);
    t = uptime_ms();
    c = rdtsc();
    path_in(p, fs, file);
    do {
        if (!(got = read_all(p)))
            return;
        n += got;
    } while (uptime_ms() - t < MIN_MS);
    report(name, n, "B", rdtsc() - c, fs == 1 ? "disk" : "memcpy");
}

static int have_disk(void)
{
    int fd = walk(AT_CWD, "/mnt/lost+found", 0);     /* init attached the data disk */

    close(fd);
    return fd >= 0;
}

int main(void)
{
    unsigned t0 = 0, t1 = 0, i;
    uint64_t c0 = 0, c = 0;
    int disk = have_disk();

    for (i = 0; i < CHUNK; i++)
        buf[i] = (char)(i * 7 + 1);
    if (disk)
        read_rows();
    calibrate();
    fflush(stdout);
    for (i = 0; i < MARKS; i++) {
        t0 = tick_edge();
        c0 = mark();
    }

    /* Cold reads first: nothing has touched the disks yet. */
    if (want("limit_disk_read"))
        read_once("limit_disk_read", "/dev/hd2", "disk");
    if (disk) {
        /* the warm row reads the file the first cold row left in the cache */
        if (want("ext2_read_1m_cold") || want("ext2_read_1m_warm"))
            read_once("ext2_read_1m_cold", "/mnt/cold1m", "disk");
        if (want("ext2_read_16m_cold"))
            read_once("ext2_read_16m_cold", "/mnt/cold16m", "disk");
        read_warm("ext2_read_1m_warm", 1, "cold1m");
    }

    repeat("limit_memcpy_movsl", copy_movsl, 0, CHUNK, "B", "memcpy");
    repeat("limit_memcpy_movsb", copy_movsb, 0, CHUNK, "B", "memcpy");
    if (want("limit_memcpy_sse") && sse_usable())
        repeat("limit_memcpy_sse", copy_sse, 0, CHUNK, "B", "memcpy");
    repeat("limit_memcpy_words", copy_words, 0, CHUNK, "B", "memcpy");
    repeat("libc_memcpy", libc_memcpy, 0, CHUNK, "B", "memcpy");
    repeat("libc_memset", libc_memset, 0, CHUNK, "B", "memcpy");

    repeat("syscall_getppid", do_getppid, 0, 1000, "op", "-");
    bench_switch();
    repeat("sbrk_64k_touch_free", do_sbrk, 0, 1, "op", "-");
    repeat("fork_wait", do_fork_wait, 0, 1, "op", "-");
    repeat("fork_exec_wait", do_fork_exec_wait, 0, 1, "op", "-");
    repeat("exec_small", do_exec_chain, 0, 101, "op", "-");
    bench_pipe(32 * MiB);

    for (i = 0; i < 2; i++) {
        char p[64];
        if (i == 1 && !disk)
            break;
        path_in(p, i, "bench.oc");
        close(open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644));
        tlb_settle(i ? "ext2_open_close" : "ramfs_open_close");
        repeat(i ? "ext2_open_close" : "ramfs_open_close", do_open_close, i, 100, "op", "-");
        unlink(p);
        tlb_settle(i ? "ext2_create_unlink" : "ramfs_create_unlink");
        repeat(i ? "ext2_create_unlink" : "ramfs_create_unlink", do_create_unlink, i, 20, "op",
               "-");
    }

    if (want("ramfs_write_1m") || want("ramfs_read_1m"))   /* the file the read row reads */
        write_file("ramfs_write_1m", 0, "bench1m", MiB);
    read_warm("ramfs_read_1m", 0, "bench1m");
    if (want("ramfs_write_16m") || want("ramfs_read_16m"))
        write_file("ramfs_write_16m", 0, "bench16m", 16 * MiB);
    read_warm("ramfs_read_16m", 0, "bench16m");
    unlink("/tmp/bench1m");
    unlink("/tmp/bench16m");
    if (disk) {
        if (want("ext2_write_1m"))
            write_file("ext2_write_1m", 1, "bench1m", MiB);
        if (want("ext2_write_16m"))
            write_file("ext2_write_16m", 1, "bench16m", 16 * MiB);
        unlink("/mnt/bench1m");
        unlink("/mnt/bench16m");
        sync();
    }

    fflush(stdout);
    for (i = 0; i < MARKS; i++) {
        t1 = tick_edge();
        c = mark();
    }
    c0 = c - c0;
    printf("BENCHCLOCK %x %x %u\n", (unsigned)(c0 >> 32), (unsigned)c0, t1 - t0);
    printf("bench: done\n");
    return 0;
}
