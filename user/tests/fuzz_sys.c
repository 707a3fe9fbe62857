/* fuzz_sys.c - the system-call fuzzer: /bin/fuzz_sys SEED SECONDS [MAXCOUNT].
 *
 * The parent only forks workers, watches their progress and kills them;
 * each worker makes BATCH_CALLS raw calls (`int $0x80` and sysenter, in
 * turn) from its own seed:
 * random numbers with random arguments, and typed calls whose arguments
 * are what the kernel must survive - fds the worker made (files, dirs,
 * path fds, pipes, FIFOs, devices, fsopen'd instances, unbound and revoked
 * ones), bad pointers into every region (NULL, unmapped, the kernel, a
 * string running into an unmapped page, read-only text, misaligned, huge
 * lengths), dictionary paths, random flags; fork storms, pipes with kill,
 * namespace sequences and resource exhaustion (fd tables, the file table,
 * memory, processes); a file server of its own (op_serve), mounted and
 * bound where the other calls reach it. MAXCOUNT and the count are system
 * calls.
 *
 * A worker cannot harm the run: it leads its own process group (killed
 * whole when the worker ends), and it lives in a sandbox - a private
 * namespace whose root is a fresh ramfs with its own /tmp, /dev (no
 * console) and /proc instances - so every filesystem it can name or
 * revoke is its own. It never calls poweroff, and never passes the
 * parent's pid or group to kill or setpgid. doc/fuzzing.md has more. */
#include <fcntl.h>
#include <orthos.h>
#include "fuzz.h"
#include "uapi/srv.h"
#include "uapi/syscall.h"
#include "array_size.h"

#define STATUS_FD   31              /* the worker's progress pipe: never an argument */
#define BATCH_CALLS 600             /* calls per worker */
#define WORKER_MS   4000            /* a worker's whole life at most */
#define STALL_MS    300             /* no progress for this long: killed */
#define POOL        20              /* fds a worker keeps to play with */
#define STORM_MAX   24              /* children in a fork storm */
#define PROCS_MAX   64              /* NPROC: enough to fill the process table */
#define PAGE        4096u

enum kind { K_FILE, K_DIR, K_PATH, K_PIPE, K_DEV, K_FSROOT, K_UNBOUND, K_LINK, K_OTHER };

static unsigned rng;                /* this process's generator */
static unsigned calls, reported;    /* calls made; calls already reported */
static int group, parent;           /* the worker's group; the fuzzer's pid */
static int depth;                   /* 0: the worker; children are 1, 2 */
static struct {
    int fd, kind;
} pool[POOL];
static int npool;
/* Everything the kernel may write through a pointer the worker passes
 * lives in one run of heap pages (edge_setup): page 0 holds the two path
 * buffers, pages 1-4 are buf, page 5 ends at edge, after which nothing is
 * mapped. So a call that writes past what it was given hits an unmapped
 * page (EFAULT), never the worker's own variables. */
#define BUF_SIZE (4 * PAGE)
static char *edge;                  /* one past the last mapped page */
static char *buf;
static char (*pathbuf)[1200];

static void one_op(void);

static unsigned rnd(unsigned n)
{
    return fz_below(&rng, n);
}

static int chance(unsigned percent)
{
    return rnd(100) < percent;
}

/* ---- calls and progress */

/* Tell the parent how many calls were made since the last report: one
 * byte each (at most 255), so reports from several processes never mix. */
static void report(void)
{
    while (calls != reported) {
        unsigned char n = calls - reported > 255 ? 255 : calls - reported;
        int r;
        asm volatile("int $0x80"
                     : "=a"(r)
                     : "a"(SYS_write), "b"(STATUS_FD), "c"(&n), "d"(1)
                     : "memory");
        reported += n;
    }
}

/* ---- sysenter (issue 12, perf3-sys): the other way in. Every other call
 * enters by sysenter when the CPU has it (uapi/syscall.h: the same
 * registers, the return address on top of the stack, ebp = esp), and
 * op_regs also enters it with garbage registers and flags. */
extern int __sysenter_ok;               /* crt0.asm */

static int by_sysenter(int nr, unsigned a, unsigned b, unsigned c, unsigned d, unsigned e)
{
    int r;

    asm volatile("push %%ebp\n\tpush $1f\n\tmov %%esp, %%ebp\n\tsysenter\n1:\tpop %%ebp"
                 : "=a"(r), "+c"(b), "+d"(c)
                 : "a"(nr), "b"(a), "S"(d), "D"(e)
                 : "memory");
    return r;
}

/* A child's garbage call by sysenter: every register, TF, NT, AC and DF
 * may be set; ebp (the user stack the kernel reads) anything. */
static void __attribute__((noreturn)) garbage_sysenter(unsigned *r)
{
    if (chance(30))
        r[8] |= 0x100;                  /* TF: the kernel steps through its entry */
    asm volatile("movl %0, %%eax\n\t"
                 "movw 36(%%eax), %%gs\n\t"
                 "movl 4(%%eax), %%ebx\n\t"
                 "movl 8(%%eax), %%ecx\n\t"
                 "movl 12(%%eax), %%edx\n\t"
                 "movl 16(%%eax), %%esi\n\t"
                 "movl 20(%%eax), %%edi\n\t"
                 "movl 24(%%eax), %%ebp\n\t"
                 "pushl 32(%%eax)\n\t"
                 "movl 0(%%eax), %%eax\n\t"
                 "popfl\n\t"
                 "sysenter\n\t"
                 "hlt"                  /* privileged: the child dies here, if not before */
                 :
                 : "r"(r)
                 : "memory");
    __builtin_unreachable();
}
/* ---- end of the sysenter block */

/* One raw system call, counted: no libc wrapper between the fuzzer and
 * the kernel. */
static int sys(int nr, unsigned a, unsigned b, unsigned c, unsigned d, unsigned e)
{
    int r;

    if (__sysenter_ok && (calls & 1))
        r = by_sysenter(nr, a, b, c, d, e);
    else
        asm volatile("int $0x80"
                     : "=a"(r)
                     : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
                     : "memory");
    if (++calls - reported >= 8)
        report();
    return r;
}

#define S0(nr)             sys(nr, 0, 0, 0, 0, 0)
#define S1(nr, a)          sys(nr, (unsigned)(a), 0, 0, 0, 0)
#define S2(nr, a, b)       sys(nr, (unsigned)(a), (unsigned)(b), 0, 0, 0)
#define S3(nr, a, b, c)    sys(nr, (unsigned)(a), (unsigned)(b), (unsigned)(c), 0, 0)
#define S4(nr, a, b, c, d) sys(nr, (unsigned)(a), (unsigned)(b), (unsigned)(c), (unsigned)(d), 0)
#define S5(nr, a, b, c, d, e) \
    sys(nr, (unsigned)(a), (unsigned)(b), (unsigned)(c), (unsigned)(d), (unsigned)(e))

/* ---- the fd pool: what the worker made, by kind, to pass back in */

static void pool_add(int fd, int kind)
{
    int i;

    if (fd < 0 || fd >= STATUS_FD)
        return;
    for (i = 0; i < npool; i++) {
        if (pool[i].fd == fd) {
            pool[i].kind = kind;
            return;
        }
    }
    if (npool == POOL) {                /* forget (and close) a random old one */
        i = rnd(POOL);
        S1(SYS_close, pool[i].fd);
        pool[i].fd = fd;
        pool[i].kind = kind;
        return;
    }
    pool[npool].fd = fd;
    pool[npool++].kind = kind;
}

static int pool_fd(int kind)
{
    int i, n = 0, pick = -1;

    for (i = 0; i < npool; i++)         /* a random one of that kind, or any */
        if ((kind == K_OTHER || pool[i].kind == kind) && rnd(++n) == 0)
            pick = pool[i].fd;
    if (pick < 0 && npool)
        pick = pool[rnd(npool)].fd;
    return pick < 0 ? AT_CWD : pick;
}

/* Any fd argument: mostly the worker's own, sometimes nonsense. Never
 * STATUS_FD. */
static int fd_arg(void)
{
    static const int odd[] = { -1,         AT_CWD,          -2, 32, 33, 100, 1000,
                               0x7fffffff, (int)0x80000000, 0,  1,  2,  30 };

    switch (rnd(10)) {
    case 0: return odd[rnd(ARRAY_SIZE(odd))];
    case 1: return rnd(STATUS_FD);
    case 2: return AT_CWD;
    default: return pool_fd(chance(50) ? (int)rnd(K_OTHER) : K_OTHER);
    }
}

/* ---- pointers and lengths */

/* Map the six pages described above buf; edge is the first unmapped byte. */
static void edge_setup(void)
{
    unsigned brk = (unsigned)sbrk(0), base = (brk + PAGE - 1) & ~(PAGE - 1);

    sbrk(base + 6 * PAGE - brk);
    pathbuf = (char(*)[1200])base;
    buf = (char *)base + PAGE;
    edge = (char *)base + 6 * PAGE;
}

static unsigned bad_ptr(void)
{
    static const unsigned odd[] = {
        0,          1,          0xfff,      0x1000,     0x3ff000,   0x3fffff,
        0x80000000, 0xBFFFFFF8, 0xBFFFFFFF, 0xC0000000, 0xC0100000, 0xC0400000,
        0xF0000000, 0xFFFFF000, 0xFFFFFFF0, 0xFFFFFFFF, 0x7FFFFFFF,
    };

    switch (rnd(5)) {
    case 0: return (unsigned)edge - rnd(16);            /* runs into the unmapped page */
    case 1: return (unsigned)edge + rnd(3 * PAGE);      /* unmapped */
    case 2: return (unsigned)&rnd + rnd(64);            /* read-only text */
    case 3: return fz_next(&rng);
    default: return odd[rnd(ARRAY_SIZE(odd))];
    }
}

/* A buffer argument: mostly good (in buf, maybe misaligned), else bad. */
static unsigned ptr_arg(void)
{
    if (chance(70))
        return (unsigned)buf + (chance(80) ? rnd(PAGE) : rnd(3 * PAGE) + rnd(4));
    return bad_ptr();
}

static unsigned len_arg(void)
{
    static const unsigned huge[] = { 0x7fffffff, 0x80000000, 0xffffffff,
                                     0x10000000, 0x40000001, PAGE * 4 + 1 };

    switch (rnd(8)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return rnd(64);
    case 3: return rnd(PAGE);
    case 4: return PAGE;
    case 5: return PAGE + rnd(PAGE);
    case 6: return huge[rnd(ARRAY_SIZE(huge))];
    default: return fz_next(&rng);
    }
}

/* Fill n bytes at p (in buf) with random bytes. */
static void fill(char *p, unsigned n)
{
    while (n--)
        *p++ = (char)fz_next(&rng);
}

/* ---- paths */

static const char *const dict[] = {
    "",
    "/",
    ".",
    "..",
    "../..",
    "/..",
    "//",
    "///tmp//",
    "/tmp",
    "/tmp/",
    "/tmp/a",
    "/tmp/a/b",
    "/tmp/../tmp/.",
    "/dev",
    "/dev/",
    "/dev/null",
    "/dev/zero",
    "/dev/rd0",
    "/dev/hd0",
    "/dev/hd1",
    "/dev/nope",
    "/proc",
    "/proc/self",
    "/proc/self/",
    "/proc/self/fd",
    "/proc/self/ns",
    "/proc/self/status",
    "/proc/1/ns",
    "/proc/meminfo",
    "/proc/99999/status",
    "/proc/self/..",
    "/proc/0",
    "/bin/true",
    "/bin",
    "file",
    "file/",
    "file/.",
    "file/..",
    "dir",
    "dir/",
    "dir/sub",
    "dir/sub/..",
    "dir/../dir/sub/",
    "fifo",
    "fifo/",
    "link",
    "link/",
    "loop",
    "loop/x",
    "l1",
    "l2/",
    "dangling",
    "dangling/",
    "up",
    "up/tmp",
    "abs",
    "abs/fd",
    "a",
    "b",
    "c",
    "x/y",
    "new",
    "new/",
    "tmp/a",
    "dev/null",
    "proc/self/fd",
    "dir/sub/deeper",
    "/tmp/fifo",
    "/tmp/f",
    "/dev/zero/",
    "img",
};

static const char *const parts[] = {
    "a",   "b",    "dir",  "sub",  "file", "..",   ".",    "",  "tmp",
    "dev", "proc", "self", "link", "loop", "fifo", "null", "x", "new",
};

/* A path in pathbuf[which]: from the dictionary, built from parts, or
 * long (NAME_MAX and past it, PATH_MAX and past it). */
static char *make_path(int which)
{
    static const unsigned longs[] = { 255, 256, 300, 1022, 1023, 1024, 1100 };
    char *p = pathbuf[which];
    unsigned i, n, len;

    switch (rnd(10)) {
    case 0:                                     /* long: names and whole paths */
        len = longs[rnd(7)];
        for (i = 0; i < len; i++)
            p[i] = chance(97) || len < 1000 ? 'a' + rnd(3) : '/';
        if (len > 512)
            for (i = 100; i < len; i += 100 + rnd(100))
                p[i] = '/';
        p[len] = '\0';
        return p;
    case 1:                                     /* random bytes */
        n = 1 + rnd(20);
        for (i = 0; i < n; i++)
            p[i] = (char)(1 + rnd(255));
        p[n] = '\0';
        return p;
    case 2:
    case 3:
    case 4:                     /* components */
        p[0] = '\0';
        n = 1 + rnd(5);
        if (chance(40))
            strcat(p, "/");
        for (i = 0; i < n; i++) {
            strcat(p, parts[rnd(ARRAY_SIZE(parts))]);
            if (i + 1 < n || chance(20))
                strcat(p, "/");
        }
        return p;
    default: strlcpy(p, dict[rnd(ARRAY_SIZE(dict))], sizeof(*pathbuf)); return p;
    }
}

/* A path argument: mostly a good string, else one that runs into the
 * unmapped page (or ends exactly at its edge), or a bad pointer. */
static unsigned path_arg(int which)
{
    char *p = make_path(which);
    unsigned n = strlen(p) + 1;

    switch (rnd(12)) {
    case 0:                                     /* no NUL before the unmapped page */
        if (n > PAGE)
            n = PAGE;
        memcpy(edge - (n - 1), p, n - 1);
        return (unsigned)(edge - (n - 1));
    case 1:                                     /* the NUL is the last mapped byte */
        if (n > PAGE)
            return (unsigned)p;
        memcpy(edge - n, p, n);
        return (unsigned)(edge - n);
    case 2: return bad_ptr();
    default: return (unsigned)p;
    }
}

/* ---- the sandbox */

/* Put `n` bytes in a new file `name` under dir (mode mode). */
static void put(int dir, const char *name, const char *data, int n, int mode)
{
    int p = create(dir, name, S_IFREG, mode, 0), fd = p < 0 ? -1 : ready(p, R_WRITE);

    if (fd >= 0)
        write(fd, data, n);
    close(fd);
    close(p);
}

/* fz_sandbox_root and fz_sandbox_enter (fuzz.h), with one of each kind
 * of node in the root between them: only fds 0-2 (on /dev/null) and
 * STATUS_FD stay open. The worker stays root (it never calls poweroff,
 * fchmod or fchown, nor kills the fuzzer): fz_jail's unprivileged user is
 * for code the fuzzer did not write. */
static int sandbox(void)
{
    static const char *const dirs[] = { "bin", "dir", "dir/sub" };
    char elf[128];
    int root, i, n;

    if ((root = fz_sandbox_root()) < 0)
        return -1;
    for (i = 0; i < 3; i++)
        close(create(root, dirs[i], S_IFDIR, 0755, 0));
    put(root, "file", "some data\n", 10, 0644);
    put(root, "img", buf, 2 * PAGE, 0600);
    n = fz_tiny_elf(elf);
    put(root, "bin/true", elf, n, 0755);
    close(create(root, "fifo", S_IFIFO, 0644, 0));
    close(create(root, "link", S_IFLNK, 0777, (unsigned long)"file"));
    close(create(root, "loop", S_IFLNK, 0777, (unsigned long)"loop"));
    close(create(root, "l1", S_IFLNK, 0777, (unsigned long)"l2"));
    close(create(root, "l2", S_IFLNK, 0777, (unsigned long)"l1"));
    close(create(root, "dangling", S_IFLNK, 0777, (unsigned long)"nowhere"));
    close(create(root, "up", S_IFLNK, 0777, (unsigned long)"../../.."));
    close(create(root, "abs", S_IFLNK, 0777, (unsigned long)"/proc/self"));
    if (fz_sandbox_enter(root, STATUS_FD) < 0)
        return -1;
    close(create(AT_CWD, "/tmp/fifo", S_IFIFO, 0644, 0));     /* in the attached /tmp */
    return 0;
}

/* ---- operations */

static void worker_child(void);

/* A completely random call: any number (but poweroff, fchmod, fchown,
 * setsid: op_session makes those), any arguments. With fchmod or fchown a root worker could take
 * the console's mode away from everyone; with setsid a worker's child
 * would leave the group the watchdog kills, and live on after the run. */
static void op_raw(void)
{
    unsigned a[5];
    int nr, i, r;

    do
        nr = chance(90) ? (int)rnd(NSYSCALLS) : (int)fz_next(&rng) % 200;
    while (nr == SYS_poweroff || nr == SYS_fchmod || nr == SYS_fchown || nr == SYS_setsid);
    for (i = 0; i < 5; i++) {
        switch (rnd(6)) {
        case 0: a[i] = fd_arg(); break;
        case 1: a[i] = ptr_arg(); break;
        case 2: a[i] = path_arg(i & 1); break;
        case 3: a[i] = len_arg(); break;
        case 4: a[i] = rnd(16); break;
        default: a[i] = fz_next(&rng); break;
        }
        if (a[i] == STATUS_FD)
            a[i] = AT_CWD;
    }
    switch (nr) {                               /* keep away from the parent */
    case SYS_kill:
        a[0] = chance(50) ? 0 : chance(50) ? (unsigned)group + 1000 : (unsigned)getpid();
        if (a[0] == (unsigned)parent)
            a[0] = 0;
        break;
    case SYS_setpgid:
        a[0] = 0;
        a[1] = group;
        break;
    case SYS_sleep: a[0] = chance(90) ? 0 : a[0] % 4; break;
    case SYS_sbrk:                              /* (the edge page is put back below) */
        a[0] = chance(90) ? rnd(5 * PAGE) : a[0];   /* (op_exhaust takes all memory) */
        break;
    case SYS_wait: a[2] = chance(95) ? WNOHANG : a[2]; break;
    case SYS_exit:
        if (depth == 0 && chance(90))
            return;                             /* the worker has more to do */
        break;
    }
    r = S5(nr, a[0], a[1], a[2], a[3], a[4]);
    if (nr == SYS_fork && r == 0)
        worker_child();
    if (nr == SYS_sbrk)
        sys(SYS_sbrk, (unsigned)edge - (unsigned)S1(SYS_sbrk, 0), 0, 0, 0, 0);
    if (r >= 0 && r < STATUS_FD &&
        (nr == SYS_walk || nr == SYS_ready || nr == SYS_create || nr == SYS_dup ||
         nr == SYS_fsopen || nr == SYS_unbind))
        pool_add(r, K_OTHER);
}

static void op_walk(void)
{
    static const int kinds[] = { K_PATH, K_DIR, K_LINK };
    unsigned flags = chance(80) ? rnd(4) : fz_next(&rng);
    int fd = S3(SYS_walk, fd_arg(), path_arg(0), flags);

    pool_add(fd, kinds[rnd(3)]);
}

static void op_ready(void)
{
    unsigned mode = chance(85) ? 1 + rnd(15) : fz_next(&rng);
    int src = chance(50) ? S3(SYS_walk, AT_CWD, path_arg(0), chance(20) ? WALK_NOFOLLOW : 0)
                         : pool_fd(K_OTHER);
    int fd;

    if ((mode & R_RDWR) && chance(95))
        mode |= R_NONBLOCK;                     /* FIFOs and pipes: don't sit there */
    fd = S2(SYS_ready, src, mode);
    pool_add(fd, K_FILE);
    if (src != fd && chance(50))
        S1(SYS_close, src);
}

static void op_create(void)
{
    static const unsigned types[] = { S_IFREG, S_IFDIR, S_IFIFO, S_IFLNK, S_IFCHR, S_IFBLK };
    static const unsigned devs[] = { MKDEV(DEV_MEM, 0),
                                     MKDEV(DEV_MEM, 1),
                                     MKDEV(DEV_RAMDISK, 0),
                                     MKDEV(DEV_ATA, 0),
                                     MKDEV(DEV_ATA, 7),
                                     MKDEV(99, 0),
                                     0 };
    unsigned type = chance(90) ? types[rnd(6)] : fz_next(&rng);
    unsigned arg = type == S_IFLNK ? path_arg(1) : chance(80) ? devs[rnd(7)] : fz_next(&rng);
    int fd = S5(SYS_create, fd_arg(), path_arg(0), type, chance(80) ? 0755 : fz_next(&rng), arg);

    pool_add(fd, type == S_IFDIR ? K_DIR : type == S_IFLNK ? K_LINK : K_PATH);
}

static void op_names(void)
{
    switch (rnd(6)) {
    case 0: S3(SYS_link, fd_arg(), fd_arg(), path_arg(0)); break;
    case 1: S3(SYS_unlink, fd_arg(), path_arg(0), chance(80) ? rnd(2) : fz_next(&rng)); break;
    case 2:
        S5(SYS_rename, fd_arg(), path_arg(0), fd_arg(), path_arg(1),
           chance(80) ? rnd(2) : fz_next(&rng));
        break;
    case 3: S4(SYS_readlink, fd_arg(), path_arg(0), ptr_arg(), len_arg()); break;
    case 4: S2(SYS_getcwd, ptr_arg(), len_arg()); break;
    default: S3(SYS_walk, fd_arg(), path_arg(0), WALK_BENEATH | rnd(2)); break;
    }
}

static void op_io(void)
{
    static const unsigned big[] = { 16u << 20, (16u << 20) + 1, 0xffffffff, 1u << 20 };
    unsigned p = ptr_arg(), n = chance(70) ? rnd(2 * PAGE) : len_arg();
    int fd = fd_arg(), r, fds[2];

    if (p >= (unsigned)buf && n <= BUF_SIZE && p - (unsigned)buf <= BUF_SIZE - n)
        fill((char *)p, n);
    switch (rnd(14)) {
    case 0:
    case 1: S3(SYS_read, fd, p, n); break;
    case 2:
    case 3: S3(SYS_write, fd, p, n); break;
    case 4: S3(SYS_lseek, fd, chance(95) ? rnd(PAGE * 5) : fz_next(&rng), rnd(4)); break;
    case 5: S2(SYS_fstat, fd, chance(70) ? (unsigned)buf : bad_ptr()); break;
    case 6: S3(SYS_getdents, fd, p, n); break;
    case 7: S2(SYS_ftruncate, fd, chance(95) ? rnd(3 * PAGE) : big[rnd(4)]); break;
    case 8:
        r = chance(80) ? 1 + rnd(4) : fz_next(&rng);
        S3(SYS_fcntl, fd, r,
           chance(80) ? rnd(16) | (r == F_SETFL && chance(99) ? R_NONBLOCK : 0) : fz_next(&rng));
        break;
    case 9: pool_add(S1(SYS_dup, fd), K_OTHER); break;
    case 10:
        r = rnd(STATUS_FD);
        if (S2(SYS_dup2, fd, chance(90) ? r : (int)fz_next(&rng)) == r)
            pool_add(r, K_OTHER);
        break;
    case 11: S1(SYS_close, fd); break;
    case 12:
        if (S1(SYS_pipe, chance(80) ? (unsigned)fds : bad_ptr()) == 0) {
            pool_add(fds[0], K_PIPE);
            pool_add(fds[1], K_PIPE);
            if (rnd(1000) < 995) {              /* own pipes: blocking would stall */
                S3(SYS_fcntl, fds[0], F_SETFL, R_NONBLOCK);
                S3(SYS_fcntl, fds[1], F_SETFL, R_NONBLOCK);
            }
        }
        break;
    default:
        if (chance(10))
            S0(SYS_sync);
        else
            S3(SYS_read, pool_fd(K_FILE), buf, rnd(PAGE));
        break;
    }
}

static void op_ns(void)
{
    static const char *const types[] = {
        "ramfs", "devfs", "procfs", "ext2", "bogus", "", "ramfsramfsramfsramfs"
    };
    static const char *const opts[] = { "", "ro", "rw", "ro,ro", "x=1,ro", NULL };
    int fd;

    switch (rnd(8)) {
    case 0:                                     /* a new instance, maybe from a source */
        fd = S3(SYS_fsopen, chance(85) ? (unsigned)types[rnd(7)] : bad_ptr(),
                chance(60) ? -1 : fd_arg(), chance(90) ? (unsigned)opts[rnd(6)] : bad_ptr());
        pool_add(fd, K_FSROOT);
        break;
    case 1:                                     /* unions and attributes too */
        S4(SYS_bind, fd_arg(), fd_arg(), path_arg(0),
           chance(60)   ? 0
           : chance(80) ? rnd(BIND_FLAGS + 1)
                        : fz_next(&rng));
        break;
    case 2: pool_add(S2(SYS_unbind, fd_arg(), path_arg(0)), K_UNBOUND); break;
    case 3:
        if (chance(30))                         /* everything here is the worker's own */
            S1(SYS_revoke, fd_arg());
        break;
    case 4: S1(SYS_fchroot, fd_arg()); break;
    case 5: S1(SYS_fchdir, fd_arg()); break;
    case 6:
        if (chance(30))
            S0(SYS_unshare);
        else if (chance(30))
            S3(SYS_setattach, fd_arg(), path_arg(0),
               chance(80) ? rnd(BIND_ATTRS + 1) : fz_next(&rng));
        break;
    default:                                    /* a whole mount, used, then detached */
        fd = S3(SYS_fsopen, (unsigned)types[rnd(3)], -1, (unsigned)"");
        if (fd >= 0 && S4(SYS_bind, fd, AT_CWD, path_arg(0), 0) == 0) {
            S5(SYS_create, AT_CWD, path_arg(1), S_IFREG, 0644, 0);
            pool_add(S2(SYS_unbind, AT_CWD, (unsigned)pathbuf[0]), K_UNBOUND);
        }
        pool_add(fd, K_FSROOT);
        break;
    }
}

/* What a child of the worker does: a few calls, then exit (depth-limited,
 * so storms don't multiply). */
static void worker_child(void)
{
    int i, n;

    reported = calls;                           /* the parent reports its own */
    depth++;
    rng = fz_seed(rng, depth);                  /* a stream of its own */
    n = rnd(20);
    for (i = 0; i < n; i++)
        one_op();
    if (chance(10)) {                           /* exec with whatever fds it has */
        char *argv[] = { "true", (char *)buf, NULL };
        buf[rnd(64)] = '\0';
        S3(SYS_exec, S3(SYS_walk, AT_CWD, (unsigned)"/bin/true", 0), argv, NULL);
    }
    report();
    S1(SYS_exit, rnd(4));
}

/* Kill and reap these children. */
static void reap_all(const int *pids, int n)
{
    int i, status;

    for (i = 0; i < n; i++)
        if (pids[i] > 0 && chance(70))
            S2(SYS_kill, pids[i], chance(50) ? SIGKILL : 1 + rnd(NSIG - 1));
    for (i = 0; i < n; i++) {
        if (pids[i] <= 0)
            continue;
        if (S3(SYS_wait, pids[i], (unsigned)&status, WNOHANG) == 0) {
            S2(SYS_kill, pids[i], SIGKILL);
            S3(SYS_wait, pids[i], chance(90) ? (unsigned)&status : bad_ptr(), 0);
        }
    }
}

static void op_procs(void)
{
    int pids[STORM_MAX], n = 0, i, p[2], pid;

    if (depth >= 2) {
        S0(SYS_getpid);
        return;
    }
    switch (rnd(6)) {
    case 0:                                     /* a fork storm */
        for (i = 0; i < 2 + (int)rnd(STORM_MAX - 2); i++)
            if ((pids[n++] = S0(SYS_fork)) == 0)
                worker_child();
        reap_all(pids, n);
        break;
    case 1:                                     /* a writer blocked on a full pipe, killed */
    case 2:                                     /* a reader blocked on an empty pipe, killed */
        if (S1(SYS_pipe, p) < 0)
            break;
        if ((pid = S0(SYS_fork)) == 0) {
            reported = calls;
            if (rnd(2)) {
                S3(SYS_fcntl, p[1], F_SETFL, R_NONBLOCK);
                while (S3(SYS_write, p[1], buf, PAGE) > 0)
                    ;
                S3(SYS_fcntl, p[1], F_SETFL, 0);
                S3(SYS_write, p[1], buf, 1 + rnd(PAGE));
            } else {
                S3(SYS_read, p[0], buf, 1 + rnd(PAGE));
            }
            report();
            S1(SYS_exit, 0);
        }
        S1(SYS_sleep, rnd(3));
        if (chance(50))
            S1(SYS_close, p[rnd(2)]);
        pids[0] = pid;
        reap_all(pids, 1);
        S1(SYS_close, p[0]);
        S1(SYS_close, p[1]);
        break;
    case 3:                                     /* a FIFO reader and writer, killed */
        if ((pid = S0(SYS_fork)) == 0) {
            reported = calls;
            i = S3(SYS_walk, AT_CWD, (unsigned)(chance(50) ? "/fifo" : "/tmp/fifo"), 0);
            i = S2(SYS_ready, i, 1 + rnd(2));
            S3(SYS_read, i, buf, 10);
            S3(SYS_write, i, buf, 10);
            report();
            S1(SYS_exit, 0);
        }
        S1(SYS_sleep, rnd(3));
        pids[0] = pid;
        reap_all(pids, 1);
        break;
    case 4:                                     /* pull /tmp away under a blocked reader */
        if ((pid = S0(SYS_fork)) == 0) {
            reported = calls;
            S1(SYS_fchdir, S3(SYS_walk, AT_CWD, (unsigned)"/tmp", 0));
            i = S2(SYS_ready, S3(SYS_walk, AT_CWD, (unsigned)"fifo", 0), R_READ);
            S2(SYS_ready, S3(SYS_walk, AT_CWD, (unsigned)"fifo", 0), R_WRITE | R_NONBLOCK);
            S3(SYS_read, i, buf, 10);           /* blocks: a writer is open (ours) */
            S5(SYS_create, AT_CWD, (unsigned)"after", S_IFREG, 0644, 0);
            report();
            S1(SYS_exit, 0);
        }
        S1(SYS_sleep, 1 + rnd(3));
        i = S3(SYS_walk, AT_CWD, (unsigned)"/tmp", 0);
        if (chance(50))
            pool_add(S2(SYS_unbind, AT_CWD, (unsigned)"/tmp"), K_UNBOUND);
        if (chance(70))
            S1(SYS_revoke, i);
        S1(SYS_close, i);
        pids[0] = pid;
        reap_all(pids, 1);
        i = S3(SYS_fsopen, (unsigned)"ramfs", -1, (unsigned)"");   /* a new /tmp */
        S4(SYS_bind, i, AT_CWD, (unsigned)"/tmp", 0);
        S5(SYS_create, i, (unsigned)"fifo", S_IFIFO, 0644, 0);
        S1(SYS_close, i);
        break;
    default:
        S3(SYS_wait, -1, chance(80) ? (unsigned)&i : bad_ptr(), WNOHANG);
        S2(SYS_kill, chance(50) ? getpid() + 1 + (int)rnd(3) : -(group + 1), rnd(NSIG + 1));
        S2(SYS_setpgid, 0, group);
        S1(SYS_tcsetpgrp, chance(50) ? 0 : group);
        break;
    }
}

/* Run out of something, try things while it is gone, give it back. */
static void op_exhaust(void)
{
    int fds[STATUS_FD], pids[PROCS_MAX], n = 0, i, gate[2], pid;
    unsigned brk;

    if (depth > 0)
        return;
    switch ((unsigned[]){ 0, 0, 0, 0, 0, 1, 1, 1, 3, 3, 3, 2 }[rnd(12)]) {
    case 0:                                     /* this process's fd table */
        while (n < STATUS_FD && (fds[n] = S1(SYS_dup, 0)) >= 0)
            n++;
        for (i = 0; i < 8; i++)
            op_io(), op_walk(), op_ns();
        while (n--)
            S1(SYS_close, fds[n]);
        break;
    case 1:                                     /* the system's file table */
        if (S1(SYS_pipe, gate) < 0)
            break;
        for (n = 0; n < 20; n++) {
            if ((pids[n] = S0(SYS_fork)) == 0) {
                reported = calls;
                while (S3(SYS_walk, AT_CWD, (unsigned)"/file", 0) >= 0)
                    ;                           /* a new file each: dup would share one */
                S3(SYS_read, gate[0], buf, 1);  /* until the gate closes */
                S1(SYS_exit, 0);
            }
            if (pids[n] < 0)
                break;
        }
        S1(SYS_sleep, 20);
        for (i = 0; i < 8; i++)
            op_io(), op_walk(), op_ns(), op_create();
        S1(SYS_close, gate[1]);
        reap_all(pids, n);
        S1(SYS_close, gate[0]);
        break;
    case 2:                                     /* memory, in a child */
        if ((pid = S0(SYS_fork)) == 0) {
            reported = calls;
            depth++;
            brk = (unsigned)sbrk(0);
            while ((i = S1(SYS_sbrk, 1u << 20)) >= 0 || i < -4095)
                ;
            while ((i = S1(SYS_sbrk, PAGE)) >= 0 || i < -4095)
                ;
            for (i = 0; i < 10; i++)
                op_io(), op_walk(), op_ns(), op_create(), op_procs();
            S1(SYS_sbrk, brk - (unsigned)sbrk(0));
            report();
            S1(SYS_exit, 0);
        }
        pids[0] = pid;
        S3(SYS_wait, pid, 0, 0);
        break;
    default:                                    /* the process table */
        if (S1(SYS_pipe, gate) < 0)
            break;
        while (n < PROCS_MAX && (pids[n] = S0(SYS_fork)) != 0) {
            if (pids[n] < 0)
                break;
            n++;
        }
        if (n < PROCS_MAX && pids[n] == 0) {
            reported = calls;
            S3(SYS_read, gate[0], buf, 1);
            S1(SYS_exit, 0);
        }
        for (i = 0; i < 4; i++)
            op_procs(), op_io();
        S1(SYS_close, gate[1]);
        reap_all(pids, n);
        S1(SYS_close, gate[0]);
        break;
    }
}

/* ---- a file server of the worker's own (fuzzhunt, 2026-12-06): the
 * other ops then reach srvfs through the worker's namespace - binds on
 * and under it, unbind and revoke with callers waiting, fchroot and
 * fchdir into it, exec of a program it serves, renames and links into and
 * out of it, fds on its nodes in the pool. Its replies are well-formed
 * and random (fuzz_srv does the malformed ones): node types, sizes, and
 * inode numbers from a small range, so that a walk may meet a node it
 * has already, the root among them, with another type or size. */

static int server = -1;             /* the worker's server, or -1 */
static int served;                  /* the worker's mounts of its servers (its exit status) */
#define SERVED_STATUS 4             /* a worker that mounted one exits with this */

/* Read exactly n bytes (the channel end is blocking): 0, or -1 at the end. */
static int read_all(int fd, char *p, unsigned n)
{
    int r;

    while (n) {
        if ((r = read(fd, p, n)) <= 0)
            return -1;
        p += r;
        n -= r;
    }
    return 0;
}

static char *put_stat(char *p)
{
    static const unsigned modes[] = { S_IFDIR | 0755, S_IFREG | 0755, S_IFREG | 0644,
                                      S_IFDIR | 0700, S_IFREG | 0 };
    unsigned mode = modes[rnd(ARRAY_SIZE(modes))];

    p = srv_put4(p, mode);
    p = srv_put4(p, rnd(6));                    /* ino: 0 is the root's, 5 serves a program */
    p = srv_put4(p, chance(80) ? rnd(3 * PAGE) : fz_next(&rng));
    return srv_put4(p, fz_next(&rng));
}

/* The server (a child of the worker): answers each request in turn. */
static void __attribute__((noreturn)) serve(int fd)
{
    static char in[SRV_MSIZE], out[SRV_MSIZE];
    char elf[256];
    unsigned size, off, count, i;
    int nelf = fz_tiny_elf(elf);
    char *p;

    while (read_all(fd, in, 4) == 0 && (size = srv_get4(in)) >= SRV_HDR && size <= SRV_MSIZE &&
           read_all(fd, in + 4, size - 4) == 0) {
        p = out + SRV_HDR;
        out[4] = (char)(in[4] + 1);
        out[5] = in[5];
        out[6] = in[6];
        if (chance(5) || ((uint8_t)in[4] == Twalk && chance(25))) {
            out[4] = Rerror;
            p = srv_put4(p, chance(70) ? ENOENT : 1 + rnd(40));
        } else {
            switch ((uint8_t)in[4]) {
            case Tstat:
            case Twalk:
            case Tcreate: p = put_stat(p); break;
            case Tread:
                off = srv_get4(in + SRV_HDR + 4);
                count = srv_get4(in + SRV_HDR + 8);
                if (count > SRV_IOMAX)
                    count = SRV_IOMAX;
                if (chance(30))
                    count = rnd(count + 1);
                p = srv_put4(p, count);
                for (i = 0; i < count; i++)     /* a program, or random bytes */
                    *p++ = off + i < (unsigned)nelf && chance(90) ? elf[off + i] : (char)rnd(256);
                break;
            case Twrite: p = srv_put4(p, srv_get4(in + SRV_HDR + 8)); break;
            case Treaddir:
                if (srv_get4(in + SRV_HDR + 4) < 4 && chance(80)) {
                    static const char *const names[] = { "a", "b", "dir", "file", "x", "new" };
                    const char *name = names[rnd(ARRAY_SIZE(names))];
                    p = srv_put4(p, srv_get4(in + SRV_HDR + 4) + 1);
                    p = srv_put4(p, rnd(6));
                    *p++ = (char)(chance(50) ? DT_DIR : DT_REG);
                    p = srv_put2(p, strlen(name));
                    memcpy(p, name, strlen(name));
                    p += strlen(name);
                }
                break;
            default: break;                     /* remove, trunc, clunk: nothing */
            }
        }
        srv_put4(out, p - out);
        if (write(fd, out, p - out) < 0)
            break;
    }
    _exit(0);
}

static void op_serve(void)
{
    int ends[2], fd, pid, status;

    if (server > 0 && chance(50)) {             /* its callers see EIO from now on */
        S2(SYS_kill, server, SIGKILL);
        S3(SYS_wait, server, (unsigned)&status, 0);
        server = -1;
        return;
    }
    if (S1(SYS_chan, (unsigned)ends) < 0)
        return;
    if ((pid = S0(SYS_fork)) == 0) {
        reported = calls;                       /* the worker reports its own */
        depth++;
        rng = fz_seed(rng, 99);
        serve(ends[1]);
    }
    S1(SYS_close, ends[1]);
    if (pid < 0) {
        S1(SYS_close, ends[0]);
        return;
    }
    if (server > 0)
        S2(SYS_kill, server, SIGKILL);          /* reaped by wait(-1) in op_procs */
    server = pid;
    fd = S3(SYS_fsopen, (unsigned)"srv", ends[0], (unsigned)"");
    if (chance(80))
        S1(SYS_close, ends[0]);
    else
        pool_add(ends[0], K_PIPE);              /* a taken end: EBUSY */
    if (fd < 0)
        return;
    served++;
    pool_add(fd, chance(50) ? K_FSROOT : K_DIR);
    if (chance(70))
        S4(SYS_bind, fd, AT_CWD, chance(50) ? (unsigned)(chance(50) ? "dir" : "/tmp") : path_arg(0),
           chance(70) ? 0 : rnd(BIND_FLAGS + 1));
}

/* A call made with strange CPU state, in a child that may not survive it:
 * every register (the stack pointer and segment registers too) garbage,
 * or the direction flag set. */
static void op_regs(void)
{
    static const unsigned sels[] = { 0, 0x1b, 0x23, 0x23, 0x23, 0x10, 0x2b, 0xffff };
    static const int nrs[] = { SYS_read,   SYS_write, SYS_getcwd,   SYS_walk,
                               SYS_fstat,  SYS_pipe,  SYS_getdents, SYS_readlink,
                               SYS_uptime, SYS_sbrk,  SYS_yield };
    unsigned r[10];
    int pid, i, status;

    if ((pid = S0(SYS_fork)) == 0) {
        reported = calls;
        report();
        for (i = 0; i < 10; i++)
            r[i] = chance(50) ? fz_next(&rng) : chance(50) ? ptr_arg() : rnd(40);
        r[0] = nrs[rnd(ARRAY_SIZE(nrs))];
        if (r[1] == STATUS_FD)
            r[1] = 1;
        r[8] = (r[8] & 0x2448D5) | 0x2;         /* eflags: no TF */
        if (chance(50))
            r[8] |= 0x400;                      /* DF: trap entry must clear it */
        r[9] = sels[rnd(8)];
        if (__sysenter_ok && chance(50))
            garbage_sysenter(r);
        asm volatile("movl %0, %%eax\n\t"
                     "movw 36(%%eax), %%gs\n\t"
                     "pushl 32(%%eax)\n\t"
                     "popfl\n\t"
                     "movl 4(%%eax), %%ebx\n\t"
                     "movl 8(%%eax), %%ecx\n\t"
                     "movl 12(%%eax), %%edx\n\t"
                     "movl 16(%%eax), %%esi\n\t"
                     "movl 20(%%eax), %%edi\n\t"
                     "movl 24(%%eax), %%ebp\n\t"
                     "movl 28(%%eax), %%esp\n\t"
                     "movl 0(%%eax), %%eax\n\t"
                     "int $0x80\n\t"
                     "hlt"                      /* privileged: the child dies here */
                     :
                     : "r"(r)
                     : "memory");
        __builtin_unreachable();
    }
    if (pid > 0)
        S3(SYS_wait, pid, (unsigned)&status, 0);
    if ((pid = S0(SYS_fork)) == 0) {
        int nr = chance(50) ? SYS_read : SYS_write, fd = chance(50) ? 1 : pool_fd(K_FILE);
        reported = calls;
        report();
        asm volatile("std\n\tint $0x80\n\tcld"
                     : "=a"(i)
                     : "a"(nr), "b"(fd), "c"(buf + PAGE), "d"(16 + rnd(PAGE))
                     : "memory");
        S1(SYS_exit, 0);
    }
    if (pid > 0)
        S3(SYS_wait, pid, (unsigned)&status, 0);
}

/* The calls op_raw never draws, with arguments that cannot reach past
 * the sandbox: fchmod and fchown of a file the worker makes in its own
 * /tmp (or of a bad fd), and setsid - by the worker, a group leader
 * (EPERM), and by a child of the worker's that leaves the group in its
 * own session, makes a few calls there that never block and exits,
 * reaped by pid (so even a worker the watchdog kills leaves nothing
 * behind for long). The worker's other children (fork storms, and a raw
 * fork or rfork's, which goes on as a worker) never call setsid: one
 * would succeed, leave the group and live on. */
static void op_session(void)
{
    static const int bad[] = { -1, AT_CWD, 32, 1000 };
    int fd = S5(SYS_create, AT_CWD, (unsigned)"/tmp/own", S_IFREG, 0644, 0), pid, status;

    S2(SYS_fchmod, chance(80) && fd >= 0 ? fd : bad[rnd(ARRAY_SIZE(bad))],
       chance(50) ? rnd(010000) : fz_next(&rng));
    S3(SYS_fchown, chance(80) && fd >= 0 ? fd : bad[rnd(ARRAY_SIZE(bad))],
       chance(30) ? (unsigned)-1 : rnd(3000), chance(30) ? (unsigned)-1 : fz_next(&rng));
    if (fd >= 0)
        S1(SYS_close, fd);
    S3(SYS_unlink, AT_CWD, (unsigned)"/tmp/own", 0);
    if (depth > 0 || getpid() != group)     /* a child of the worker's (a fork storm's, */
        return;                             /* a raw rfork's) would leave the group */
    S0(SYS_setsid);                             /* the worker leads its group: EPERM */
    if ((pid = S0(SYS_fork)) == 0) {
        reported = calls;
        S0(SYS_setsid);
        S0(SYS_setsid);                         /* now a session leader: EPERM */
        S2(SYS_setpgid, 0, chance(50) ? group : 0);
        S0(SYS_tcgetpgrp);
        S1(SYS_tcsetpgrp, chance(50) ? 0 : getpid());
        report();
        S2(SYS_kill, 0, chance(50) ? 0 : SIGKILL);  /* its own group: itself */
        S1(SYS_exit, 0);
    }
    if (pid > 0)
        S3(SYS_wait, pid, (unsigned)&status, 0);
}

static void one_op(void)
{
    unsigned w = rnd(1000);

    if (w < 5)
        op_serve();
    else if (w < 200)
        op_raw();
    else if (w < 300)
        op_walk();
    else if (w < 380)
        op_ready();
    else if (w < 450)
        op_create();
    else if (w < 560)
        op_names();
    else if (w < 800)
        op_io();
    else if (w < 900)
        op_ns();
    else if (w < 970)
        op_procs();
    else if (w < 980)
        op_exhaust();
    else if (w < 990)
        op_session();
    else
        op_regs();
}

/* One worker: its own group, its own sandbox, BATCH_CALLS calls. */
static void __attribute__((noreturn)) worker(unsigned seed, int status_w)
{
    rng = seed;
    parent = getppid();
    group = getpid();
    setpgid(0, 0);
    if (status_w != STATUS_FD) {
        dup2(status_w, STATUS_FD);
        close(status_w);
    }
    fcntl(STATUS_FD, F_SETFL, R_NONBLOCK);
    edge_setup();
    if (sandbox() < 0)
        _exit(3);
    pool_add(S3(SYS_walk, AT_CWD, (unsigned)"/", 0), K_DIR);
    pool_add(S3(SYS_walk, AT_CWD, (unsigned)"/file", 0), K_PATH);
    while (calls < BATCH_CALLS)
        one_op();
    report();
    _exit(served && depth == 0 ? SERVED_STATUS : 0);
}

/* The parent: a worker at a time, each watched; a worker that stops
 * making progress (a blocked call) or lives too long is killed with its
 * whole group. The count is the calls the workers report. */
int main(int argc, char **argv)
{
    struct fuzz f;
    int st[2], pid, batch, stopped = 0, serving = 0;
    unsigned char got[64];

    if (fz_start(&f, "fuzz_sys", argc, argv) < 0)
        return 2;
    if (pipe(st) < 0 || fcntl(st[0], F_SETFL, R_NONBLOCK) < 0) {
        fprintf(stderr, "fuzz_sys: pipe: %s\n", strerror(errno));
        return 2;
    }
    for (batch = 0; !fz_over(&f); batch++) {
        unsigned start = uptime_ms(), progress = start, now;
        int killed = 0, status, n, i;
        fflush(stdout);
        if ((pid = fork()) == 0)
            worker(fz_seed(f.seed, batch), st[1]);
        if (pid < 0) {
            fz_nap(&f, 20);
            continue;
        }
        fz_own_pages();
        while (waitpid(pid, &status, WNOHANG) == 0) {
            now = uptime_ms();
            while ((n = read(st[0], got, sizeof(got))) > 0) {
                for (i = 0; i < n; i++)
                    f.count += got[i];
                progress = now;
            }
            if (!killed && (now - progress > STALL_MS || now - start > WORKER_MS)) {
                kill(-pid, SIGKILL);
                kill(pid, SIGKILL);
                killed = 1;
                stopped++;
            }
            if (killed && now - start > WORKER_MS + UNKILLABLE_MS) {
                fz_say("fuzz_sys: worker %d (seed %u batch %d) survives SIGKILL\n", pid, f.seed,
                       batch);
                for (;;)
                    sleep_ms(1000);             /* no more heartbeats: a hang */
            }
            fz_nap(&f, 2);
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == SERVED_STATUS)
            serving++;
        kill(-pid, SIGKILL);                    /* its children, if any are left */
        while ((n = read(st[0], got, sizeof(got))) > 0)
            for (i = 0; i < n; i++)
                f.count += got[i];
    }
    close(st[0]);
    close(st[1]);
    fz_say("fuzz_sys: %d workers, %d stopped by the watchdog, %d mounted a server of their own\n",
           batch, stopped, serving);
    return fz_finish(&f);
}
