/* fuzz_oom.c - the out-of-memory fuzzer: /bin/fuzz_oom SEED SECONDS [MAXCOUNT].
 *
 * Runs each operation below with its Nth fault-injection point failing
 * (failnth(2): the kernel's Nth kmalloc, page, reservation, process slot,
 * open file or fd slot in the call reports "none left"), for N = 1, 2,
 * 3, ... until the call passes fewer than N points, i.e. succeeds with
 * nothing failed. After each (operation, N) pair:
 *   - the call succeeded or said an errno the operation may say when
 *     memory or a table runs out (ENOMEM, ENOSPC, ENFILE, EMFILE; EAGAIN
 *     for fork): never EIO, EFAULT, ENOENT or a panic, hang or reset;
 *   - nothing leaked: free pages, kernel heap blocks, open files and
 *     processes are what they were before the operation's sweep
 *     (/proc/meminfo, after the operation undid what it made);
 *   - the names and bytes are what the operation says for its outcome:
 *     a failed create or mkdir left no name, a failed rename left both
 *     names with their bytes, a failed unlink left the name, a failed
 *     write changed no byte, a failed bind attached nothing.
 * The file operations run on the sandbox's ramfs /tmp and on an ext2
 * instance at /mnt (/dev/hd0, which tools/fuzz.py formats and checks with
 * `e2fsck -fn` after the run). A sweep's sizes come from the seed; the
 * count is (operation, N) pairs. A failure prints
 *
 *   FAIL fuzz_oom_<what>: <op> on <base> with fail-nth N: ...
 *
 * and the kernel says which point failed when booted with `faultlog`.
 * The call is armed and read back by failnth(2) in registers around it
 * (armed() below): nothing else the process does - a copy-on-write fault
 * on its stack after fork - passes a point meanwhile. doc/fuzzing.md. */
#include <fcntl.h>
#include <orthos.h>
#include <srv.h>
#include <stdarg.h>
#include "fuzz.h"
#include "uapi/syscall.h"

#define N_MAX     3000             /* a sweep this long never ends: a failure */
#define MAX_FAILS 4                /* failures printed before the run stops */
#define BUF       12288            /* the largest write */

static struct fuzz *F;
static unsigned rng;
static int failures;
static const char *op_name, *base_name;
static int n_now;                   /* the N of the pair running */
static int bfd = -1;                /* the base directory: /tmp or /mnt */
static int on_ext2;
static char pat_a[BUF], pat_b[BUF], got[BUF];
static char elf[256];
static int elf_len;

/* What an operation may say when memory or a table runs out. */
#define E_MEM   (1u << 0)            /* ENOMEM */
#define E_SPC   (1u << 1)            /* ENOSPC */
#define E_NFILE (1u << 2)            /* ENFILE */
#define E_MFILE (1u << 3)            /* EMFILE */
#define E_AGAIN (1u << 4)            /* EAGAIN */
#define E_FS    (E_MEM | E_SPC | E_NFILE | E_MFILE)

static void fail(const char *what, const char *fmt, ...)
{
    char msg[120];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (failures++ < MAX_FAILS)
        fz_say("FAIL fuzz_oom_%s: %s on %s with fail-nth %d: %s\n", what, op_name, base_name, n_now,
               msg);
}

/* Is r a result the operation may give: >= 0, or an errno in mask? */
static int allowed(int r, unsigned mask)
{
    return r >= 0 || (r == -ENOMEM && (mask & E_MEM)) || (r == -ENOSPC && (mask & E_SPC)) ||
           (r == -ENFILE && (mask & E_NFILE)) || (r == -EMFILE && (mask & E_MFILE)) ||
           (r == -EAGAIN && (mask & E_AGAIN));
}

static int check_result(int r, unsigned mask)
{
    if (allowed(r, mask))
        return 0;
    fail("errno", "returned %d (%s)", r, strerror(-r));
    return -1;
}

/* ---------------------------------------------------------------- the model's checks,
 * made unarmed with libc */

/* name (in the base) holds exactly len bytes of pat: 0, or -1 (said). */
static int holds(const char *name, const char *pat, int len)
{
    int fd = openat(bfd, name, O_RDONLY), n;

    if (fd < 0) {
        fail("model", "%s: %s, want %d bytes", name, strerror(errno), len);
        return -1;
    }
    n = read(fd, got, sizeof(got));
    close(fd);
    if (n != len || memcmp(got, pat, len) != 0) {
        fail("model", "%s: %d bytes (want %d) or other bytes", name, n, len);
        return -1;
    }
    return 0;
}

static int absent(const char *name)
{
    int fd = walk(bfd, name, 0);

    if (fd >= 0 || errno != ENOENT) {
        if (fd >= 0)
            close(fd);
        fail("model", "%s: %s, want it gone", name, fd >= 0 ? "there" : strerror(errno));
        return -1;
    }
    return 0;
}

static int put(const char *name, const char *pat, int len)
{
    int fd = openat(bfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd < 0 || (len && writeall(fd, pat, len) != 0)) {
        fail("setup", "%s: %s", name, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

/* A directory name in the base: 0, or -1. */
static int mkd(const char *name)
{
    int fd = create(bfd, name, S_IFDIR, 0755, 0);

    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* Everything the operations make, gone (whatever is there). */
static void clean(void)
{
    static const char *const files[] = { "n", "a", "b", "u", "w", "l", "sub/c", "sub/f" };
    unsigned i;

    for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        unlinkat(bfd, files[i], 0);
    unlinkat(bfd, "d", UNLINK_DIR);
    unlinkat(bfd, "sub", UNLINK_DIR);
}

/* ---------------------------------------------------------------- the operations.
 * Each makes what it needs (unarmed), makes its call armed with n, checks
 * the result and the model, undoes what it made, and returns the points
 * still to go (0: the count fired, so N+1 comes next), or -1 (said). */

static int op_create(int n)
{
    int left, r = fz_armed(n, SYS_create, bfd, (unsigned)"n", S_IFREG, 0644, 0, &left);

    if (check_result(r, E_FS) < 0)
        return -1;
    if (r >= 0)
        close(r);
    if (r < 0 ? absent("n") : holds("n", pat_a, 0))
        return -1;
    clean();
    return left;
}

static int op_mkdir(int n)
{
    int left, r = fz_armed(n, SYS_create, bfd, (unsigned)"d", S_IFDIR, 0755, 0, &left), fd;

    if (check_result(r, E_FS) < 0)
        return -1;
    if (r >= 0) {
        close(r);
        if ((fd = create(bfd, "d/x", S_IFREG, 0644, 0)) < 0) {      /* a directory that works */
            fail("model", "d/x: %s", strerror(errno));
            return -1;
        }
        close(fd);
        unlinkat(bfd, "d/x", 0);
    } else if (absent("d") < 0) {
        return -1;
    }
    clean();
    return left;
}

static int op_symlink(int n)
{
    static const char target[] = "some/where/else";
    char buf[32];
    int left,
        r = fz_armed(n, SYS_create, bfd, (unsigned)"l", S_IFLNK, 0777, (unsigned)target, &left);

    if (check_result(r, E_FS) < 0)
        return -1;
    if (r >= 0) {
        close(r);
        if (readlinkat(bfd, "l", buf, sizeof(buf)) != (int)sizeof(target) - 1 ||
            memcmp(buf, target, sizeof(target) - 1) != 0)
            return fail("model", "the symlink does not say its target"), -1;
    } else if (absent("l") < 0) {
        return -1;
    }
    clean();
    return left;
}

/* ready() of a FIFO's end (its pipe is made at the first one). */
static int op_fifo(int n)
{
    int left, r, fd, w;

    if ((fd = create(bfd, "n", S_IFIFO, 0644, 0)) < 0)
        return fail("setup", "mkfifo: %s", strerror(errno)), -1;
    r = fz_armed(n, SYS_ready, fd, R_READ | R_NONBLOCK, 0, 0, 0, &left);
    if (check_result(r, E_FS) < 0) {
        close(fd);
        return -1;
    }
    if (r >= 0) {                       /* a writer now finds the reader */
        if ((w = ready(fd, R_WRITE | R_NONBLOCK)) < 0 || write(w, "x", 1) != 1)
            fail("model", "no writer after the reader readied: %s", strerror(errno));
        close(w);
        close(r);
    }
    close(fd);
    clean();
    return left;
}

static int op_walk(int n)
{
    int left, r;

    if (mkd("sub") < 0)
        return fail("setup", "sub: %s", strerror(errno)), -1;
    if (put("sub/f", pat_a, 100) < 0)
        return -1;
    r = fz_armed(n, SYS_walk, bfd, (unsigned)"sub/f", 0, 0, 0, &left);
    if (check_result(r, E_FS) < 0)
        return -1;
    if (r >= 0)
        close(r);
    clean();
    return left;
}

/* ready(fd, R_RDWR) of a file, then a read through it. */
static int op_ready(int n)
{
    int left, r, fd;
    int len = 1 + fz_below(&rng, 3000);

    if (put("a", pat_a, len) < 0 || (fd = walk(bfd, "a", 0)) < 0)
        return -1;
    r = fz_armed(n, SYS_ready, fd, R_RDWR, 0, 0, 0, &left);
    close(fd);
    if (check_result(r, E_FS) < 0)
        return -1;
    if (r >= 0) {
        if (read(r, got, sizeof(got)) != len || memcmp(got, pat_a, len) != 0) {
            close(r);
            return fail("model", "read through the readied fd"), -1;
        }
        close(r);
    }
    clean();
    return left;
}

static int op_read(int n)
{
    int left, r, fd, len = 1 + fz_below(&rng, BUF - 1);

    if (put("a", pat_a, len) < 0 || (fd = openat(bfd, "a", O_RDONLY)) < 0)
        return -1;
    memset(got, 0, sizeof(got));
    r = fz_armed(n, SYS_read, fd, (unsigned)got, BUF, 0, 0, &left);
    close(fd);
    if (check_result(r, E_MEM) < 0)
        return -1;
    if (r >= 0 && (r > len || memcmp(got, pat_a, r) != 0))
        return fail("model", "read %d of %d bytes, not the file's", r, len), -1;
    clean();
    return left;
}

/* A write at an offset (growing the file, or not): a failure changes no
 * byte; a short count changes just those bytes. */
static int op_write(int n)
{
    int left, r, fd, len = fz_below(&rng, 5000), off = fz_below(&rng, len + 1000);
    int m = 1 + fz_below(&rng, BUF - off < 8000 ? BUF - off - 1 : 8000), end;

    if (put("w", pat_a, len) < 0 || (fd = openat(bfd, "w", O_RDWR)) < 0)
        return -1;
    lseek(fd, off, SEEK_SET);
    r = fz_armed(n, SYS_write, fd, (unsigned)pat_b, m, 0, 0, &left);
    close(fd);
    if (check_result(r, E_FS) < 0)
        return -1;
    if (r > m)
        return fail("model", "wrote %d of %d bytes", r, m), -1;
    /* the model: pat_a, zeros up to off if it grew, pat_b's r bytes at off */
    if (r > 0) {
        static char want[BUF];
        end = off + r > len ? off + r : len;
        memcpy(want, pat_a, len);
        if (off > len)
            memset(want + len, 0, off - len);
        memcpy(want + off, pat_b, r);
        if (holds("w", want, end) < 0)
            return -1;
    } else if (holds("w", pat_a, len) < 0) {
        return -1;
    }
    clean();
    return left;
}

static int op_truncate(int n)
{
    int left, r, fd, len = fz_below(&rng, 3000), to = fz_below(&rng, 9000);

    if (put("w", pat_a, len) < 0 || (fd = openat(bfd, "w", O_RDWR)) < 0)
        return -1;
    r = fz_armed(n, SYS_ftruncate, fd, to, 0, 0, 0, &left);
    close(fd);
    if (check_result(r, E_FS) < 0)
        return -1;
    if (r < 0 && holds("w", pat_a, len) < 0)
        return -1;
    if (r >= 0) {
        static char want[9000];
        memset(want, 0, sizeof(want));
        memcpy(want, pat_a, len < to ? len : to);
        if (holds("w", want, to) < 0)
            return -1;
    }
    clean();
    return left;
}

static int op_unlink(int n)
{
    int left, r, len = fz_below(&rng, 3000);

    if (put("u", pat_a, len) < 0)
        return -1;
    r = fz_armed(n, SYS_unlink, bfd, (unsigned)"u", 0, 0, 0, &left);
    if (check_result(r, E_FS) < 0 || (r < 0 ? holds("u", pat_a, len) : absent("u")) < 0)
        return -1;
    clean();
    return left;
}

static int op_rmdir(int n)
{
    int left, r;

    if (mkd("d") < 0)
        return fail("setup", "d: %s", strerror(errno)), -1;
    r = fz_armed(n, SYS_unlink, bfd, (unsigned)"d", UNLINK_DIR, 0, 0, &left);
    if (check_result(r, E_FS) < 0)
        return -1;
    if (r < 0) {
        int fd = walk(bfd, "d", 0);
        if (fd < 0)
            return fail("model", "d: gone after a failed rmdir"), -1;
        close(fd);
    } else if (absent("d") < 0) {
        return -1;
    }
    clean();
    return left;
}

/* rename a onto b (both there), or a into sub/ under a new name. */
static int op_rename(int n)
{
    int left, r, la = 1 + fz_below(&rng, 3000), lb = fz_below(&rng, 3000);
    int other = fz_below(&rng, 2);
    const char *to = other ? "sub/c" : "b";

    if (put("a", pat_a, la) < 0 || put("b", pat_b, lb) < 0 || (other && mkd("sub") < 0))
        return -1;
    r = fz_armed(n, SYS_rename, bfd, (unsigned)"a", bfd, (unsigned)to, 0, &left);
    if (check_result(r, E_FS) < 0)
        return -1;
    if (r < 0) {
        if (holds("a", pat_a, la) < 0 || holds("b", pat_b, lb) < 0 || (other && absent(to) < 0))
            return -1;
    } else if (absent("a") < 0 || holds(to, pat_a, la) < 0 || (other && holds("b", pat_b, lb)))
        return -1;
    clean();
    return left;
}

static int op_link(int n)
{
    int left, r, fd, la = fz_below(&rng, 3000);

    if (put("a", pat_a, la) < 0 || (fd = walk(bfd, "a", 0)) < 0)
        return -1;
    r = fz_armed(n, SYS_link, fd, bfd, (unsigned)"l", 0, 0, &left);
    close(fd);
    if (check_result(r, E_FS) < 0 || (r < 0 ? absent("l") : holds("l", pat_a, la)) < 0 ||
        holds("a", pat_a, la) < 0)
        return -1;
    clean();
    return left;
}

/* The operations on a base, in the sweep's order. */
static const struct fs_op {
    const char *name;
    int (*fn)(int n);
} FS_OPS[] = {
    { "create", op_create },      { "mkdir", op_mkdir },   { "walk", op_walk },
    { "ready", op_ready },        { "read", op_read },     { "write", op_write },
    { "ftruncate", op_truncate }, { "unlink", op_unlink }, { "rmdir", op_rmdir },
    { "rename", op_rename },      { "link", op_link },     { "symlink", op_symlink },
    { "fifo", op_fifo },
};

/* ---- processes, pipes, the namespace; base_name is "-" */

static int op_fork(int n)
{
    int left, r = fz_armed(n, SYS_fork, 0, 0, 0, 0, 0, &left), status;

    if (r == 0)
        _exit(0);                       /* the child: the count is not inherited */
    if (check_result(r, E_MEM | E_AGAIN) < 0)
        return -1;
    if (r > 0 && (waitpid(r, &status, 0) != r || status != 0))
        return fail("model", "child: status %#x", status), -1;
    return left;
}

static int op_rfork(int n)
{
    int left, r = fz_armed(n, SYS_rfork, RFORK_SHAREFDS, 0, 0, 0, 0, &left), status;

    if (r == 0)
        _exit(0);
    if (check_result(r, E_MEM | E_AGAIN) < 0)
        return -1;
    if (r > 0 && (waitpid(r, &status, 0) != r || status != 0))
        return fail("model", "child: status %#x", status), -1;
    return left;
}

/* What the child of a sweep that runs in a child (exec, unshare) says
 * by its exit status: 1 + (left > 0) for success, 3 + (left > 0) + 2 *
 * errno for a failure. The exec'd program says 1 + (left > 0) itself. */
static int child_status(int r, int left)
{
    return (r < 0 ? 3 + 2 * -r : 1) + (left > 0);
}

static int from_child(int pid, unsigned mask)
{
    int status, code, r;

    if (pid < 0)
        return fail("setup", "fork: %s", strerror(errno)), -1;
    if (waitpid(pid, &status, 0) != pid)
        return fail("setup", "waitpid: %s", strerror(errno)), -1;
    if (!WIFEXITED(status))
        return fail("killed", "the child died by signal %d", WTERMSIG(status)), -1;
    code = WEXITSTATUS(status);
    if (code < 1)
        return fail("setup", "child status %d", code), -1;
    r = code <= 2 ? 0 : -((code - 3) / 2);
    if (check_result(r, mask) < 0)
        return -1;
    return (code - 1) % 2;              /* left > 0: 1, else 0 */
}

/* exec of a tiny program that asks failnth(0) and exits 1 + (it had
 * points to go), the same code as a failed exec's child says. */
static int op_exec(int n)
{
    /* clang-format off */
    static const unsigned char code[] = {
        0xB8, SYS_failnth, 0, 0, 0,             /* mov eax, SYS_failnth */
        0x31, 0xDB,                             /* xor ebx, ebx */
        0xCD, 0x80,                             /* int $0x80 */
        0x31, 0xDB,                             /* xor ebx, ebx */
        0x85, 0xC0,                             /* test eax, eax */
        0x0F, 0x95, 0xC3,                       /* setne bl */
        0x43,                                   /* inc ebx */
        0xB8, 0x01, 0x00, 0x00, 0x00,           /* mov eax, SYS_exit */
        0xCD, 0x80,                             /* int $0x80 */
        0x0F, 0x0B,                             /* ud2 */
    };
    /* clang-format on */
    static char *argv[] = { "tiny", NULL };
    int pid, fd, left, r;

    if (!elf_len) {
        elf_len = fz_elf_image(elf, code, sizeof(code));
        if ((fd = open("/tmp/.tiny", O_WRONLY | O_CREAT | O_TRUNC, 0755)) < 0 ||
            writeall(fd, elf, elf_len) != 0)
            return fail("setup", "/tmp/.tiny: %s", strerror(errno)), -1;
        close(fd);
    }
    if ((pid = fork()) == 0) {
        if ((fd = walk(AT_CWD, "/tmp/.tiny", 0)) < 0)
            _exit(0);
        r = fz_armed(n, SYS_exec, fd, (unsigned)argv, (unsigned)(argv + 1), 0, 0, &left);
        _exit(child_status(r, left));
    }
    return from_child(pid, E_MEM | E_NFILE | E_MFILE);
}

static int op_unshare(int n)
{
    int pid, left, r, fd;

    if ((pid = fork()) == 0) {
        r = fz_armed(n, SYS_unshare, 0, 0, 0, 0, 0, &left);
        /* the namespace still works either way */
        if ((fd = walk(AT_CWD, "/tmp", 0)) < 0)
            _exit(0);
        close(fd);
        _exit(child_status(r, left));
    }
    return from_child(pid, E_MEM);
}

/* pipe() or chan(): a pair of fds, or nothing. */
static int op_pair(int n, int nr)
{
    static int fds[2];
    int left, r, k = 0;

    fds[0] = fds[1] = -1;
    r = fz_armed(n, nr, (unsigned)fds, 0, 0, 0, 0, &left);
    if (check_result(r, E_MEM | E_NFILE | E_MFILE) < 0)
        return -1;
    if (r >= 0) {
        if (write(fds[1], "x", 1) != 1 || read(fds[0], &k, 1) != 1 || (char)k != 'x')
            fail("model", "the pair does not carry a byte");
        close(fds[0]);
        close(fds[1]);
    } else if (fds[0] != -1 || fds[1] != -1) {
        return fail("model", "fds %d %d written by a failed call", fds[0], fds[1]), -1;
    }
    return left;
}

static int op_pipe(int n)
{
    return op_pair(n, SYS_pipe);
}

static int op_chan(int n)
{
    return op_pair(n, SYS_chan);
}

static int op_sbrk(int n)
{
    int left, r, pages = 1 + fz_below(&rng, 8);
    char *old = sbrk(0), *p;

    r = fz_armed(n, SYS_sbrk, pages * 4096, 0, 0, 0, 0, &left);
    if (r == -ENOMEM) {
        if (sbrk(0) != old)
            return fail("model", "a failed sbrk moved the break"), -1;
        return left;
    }
    if ((char *)r != old)
        return fail("errno", "sbrk said %#x, the old break was %p", r, old), -1;
    for (p = old; p < old + pages * 4096; p += 4096)
        *p = 1;                         /* the promised pages are there */
    sbrk(-pages * 4096);
    return left;
}

static int op_fsopen(int n)
{
    int left,
        r = fz_armed(n, SYS_fsopen, (unsigned)"ramfs", (unsigned)-1, (unsigned)"", 0, 0, &left);

    if (check_result(r, E_FS) < 0)
        return -1;
    if (r >= 0)
        close(r);
    return left;
}

/* Undo a bind at /tmp/mp: 0, or -1 (said). */
static int unbind_mp(void)
{
    int fd = unbind(AT_CWD, "/tmp/mp");

    if (fd < 0)
        return fail("setup", "unbind: %s", strerror(errno)), -1;
    close(fd);                          /* unbind's fd on what was there */
    return 0;
}

/* The file server of op_srv: one empty directory, its root. */
static int srv_stat_root(void *node, struct srv_stat *st)
{
    memset(st, 0, sizeof(*st));
    st->mode = S_IFDIR | 0755;
    st->ino = 1;
    return 0;
}

static const struct srv_ops SRV_OPS = { .stat = srv_stat_root };

/* fsopen of a file server's instance (doc/srv.md) on one end of a
 * channel, a child serving the other: the kernel asks the root's stat
 * before fsopen returns. The server ends when the kernel lets go. */
static int op_srv(int n)
{
    int left, r, fds[2], pid, status = -1;

    if (chan(fds) < 0)
        return fail("setup", "chan: %s", strerror(errno)), -1;
    if ((pid = fork()) == 0) {
        close(fds[0]);
        _exit(srv_serve(fds[1], &SRV_OPS, "root") < 0);
    }
    close(fds[1]);
    r = fz_armed(n, SYS_fsopen, (unsigned)"srv", fds[0], (unsigned)"", 0, 0, &left);
    close(fds[0]);
    if (r >= 0)
        close(r);
    if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
        return fail("setup", "the server: status %#x", status), -1;
    if (check_result(r, E_FS) < 0)
        return -1;
    return left;
}

/* Does /tmp/mp show an attached ramfs's empty root (1), or the directory
 * below it with its marker file "m" (0)? */
static int covered(void)
{
    int fd = walk(AT_CWD, "/tmp/mp/m", 0);

    if (fd >= 0)
        close(fd);
    return fd < 0;
}

static int op_bind(int n)
{
    int left, r, fs = fsopen("ramfs", -1, "");

    if (fs < 0)
        return fail("setup", "fsopen: %s", strerror(errno)), -1;
    r = fz_armed(n, SYS_bind, fs, AT_CWD, (unsigned)"/tmp/mp", 0, 0, &left);
    close(fs);
    if (check_result(r, E_FS) < 0)
        return -1;
    if (covered() != (r >= 0))
        return fail("model", "bind said %d, the marker is %s", r, covered() ? "hidden" : "seen"),
               -1;
    if (r >= 0 && unbind_mp() < 0)
        return -1;
    return left;
}

static int op_unbind(int n)
{
    int left, r, fs = fsopen("ramfs", -1, "");

    if (fs < 0 || bind(fs, AT_CWD, "/tmp/mp", 0) < 0)
        return fail("setup", "bind: %s", strerror(errno)), -1;
    close(fs);
    r = fz_armed(n, SYS_unbind, AT_CWD, (unsigned)"/tmp/mp", 0, 0, 0, &left);
    if (check_result(r, E_FS) < 0)
        return -1;
    if (r >= 0)
        close(r);
    if (covered() != (r < 0))
        return fail("model", "unbind said %d, the marker is %s", r, covered() ? "hidden" : "seen"),
               -1;
    if (r < 0 && unbind_mp() < 0)
        return -1;
    return left;
}

static int op_revoke(int n)
{
    int left, r, fs = fsopen("ramfs", -1, ""), fd;

    if (fs < 0 || (fd = create(fs, "f", S_IFREG, 0644, 0)) < 0)
        return fail("setup", "fsopen: %s", strerror(errno)), -1;
    r = fz_armed(n, SYS_revoke, fs, 0, 0, 0, 0, &left);
    if (check_result(r, E_FS) < 0)
        return -1;
    if (r >= 0 && ready(fd, R_READ) >= 0)
        return fail("model", "a file of a revoked instance could be readied"), -1;
    close(fd);
    close(fs);
    return left;
}

static const struct fs_op OPS[] = {
    { "fork", op_fork },       { "rfork", op_rfork },   { "exec", op_exec },
    { "unshare", op_unshare }, { "pipe", op_pipe },     { "chan", op_chan },
    { "sbrk", op_sbrk },       { "fsopen", op_fsopen }, { "bind", op_bind },
    { "unbind", op_unbind },   { "revoke", op_revoke }, { "srv", op_srv },
};

/* ---------------------------------------------------------------- the sweep */

struct counts {
    unsigned free, blocks, files, procs;
};

static void counts_now(struct counts *c)
{
    char buf[256], *p;
    int n;

    memset(c, 0, sizeof(*c));
    if (lseek(F->meminfo, 0, SEEK_SET) != 0 || (n = read(F->meminfo, buf, sizeof(buf) - 1)) <= 0)
        return;
    buf[n] = '\0';
    c->free = (p = strstr(buf, "free_pages ")) ? atoi(p + 11) : 0;
    c->blocks = (p = strstr(buf, "heap_blocks ")) ? atoi(p + 12) : 0;
    c->files = (p = strstr(buf, "open_files ")) ? atoi(p + 11) : 0;
    c->procs = (p = strstr(buf, "procs ")) ? atoi(p + 6) : 0;
}

/* One operation with N = 1, 2, ... until it passes fewer than N points.
 * Once unarmed first (caches the operation fills for good, such as an
 * ext2 instance's, are filled before the counts are taken). */
static int most_points[64];          /* per operation and base: the longest sweep's points */
static int sweep_slot;

static void sweep(const struct fs_op *op, const char *base)
{
    struct counts before, after;
    unsigned seed0 = rng;
    int left, n;

    op_name = op->name;
    base_name = base;
    n_now = 0;
    if (op->fn(0) < 0)
        return;
    counts_now(&before);
    for (n = 1; n <= N_MAX && failures < MAX_FAILS; n++) {
        n_now = n;
        rng = seed0;                    /* the same sizes for every N */
        left = op->fn(n);
        counts_now(&after);
        F->count++;
        fz_over(F);
        if (memcmp(&before, &after, sizeof(before)) != 0) {
            fail("leaves_no_leak",
                 "free pages %u -> %u, heap blocks %u -> %u, open files %u -> %u, procs %u -> %u",
                 before.free, after.free, before.blocks, after.blocks, before.files, after.files,
                 before.procs, after.procs);
            before = after;             /* one report per leak */
        }
        if (left != 0) {                /* it went past the last point (or failed: said) */
            if (left > 0 && n - 1 > most_points[sweep_slot])
                most_points[sweep_slot] = n - 1;
            return;
        }
    }
    if (n > N_MAX)
        fail("sweep", "still failing at N = %d", N_MAX);
}

static void runner(struct fuzz *f, int countfd)
{
    unsigned sweeps = 0, i, k;
    int ext2, fd;

    F = f;
    ext2 = fz_attach_disk("fuzz_oom", "/mnt");     /* the bases: /tmp (ramfs), /mnt (ext2) */
    if (mkdir("/tmp/mp", 0755) < 0 || (fd = create(AT_CWD, "/tmp/mp/m", S_IFREG, 0644, 0)) < 0) {
        fz_say("FAIL fuzz_oom_setup: /tmp/mp: %s\n", strerror(errno));
        _exit(1);
    }
    close(fd);
    for (i = 0; i < BUF; i++) {
        pat_a[i] = 'a' + i % 23;
        pat_b[i] = 'B' + i % 19;
    }
    fz_own_pages();
    rng = fz_seed(f->seed, 0);
    for (k = 0; failures < MAX_FAILS && !fz_over(f); k++) {
        unsigned nfs = sizeof(FS_OPS) / sizeof(FS_OPS[0]), nops = sizeof(OPS) / sizeof(OPS[0]);
        /* Each pass: every operation once, from a start the seed picks. */
        i = (k % (nfs * (1 + ext2) + nops) + (f->seed % 7)) % (nfs * (1 + ext2) + nops);
        sweep_slot = i;
        if (i < nops) {
            bfd = -1;
            sweep(&OPS[i], "-");
        } else {
            i -= nops;
            on_ext2 = i >= nfs;
            if ((bfd = walk(AT_CWD, on_ext2 ? "/mnt" : "/tmp", 0)) < 0) {
                fz_say("FAIL fuzz_oom_setup: base: %s\n", strerror(errno));
                break;
            }
            clean();
            sweep(&FS_OPS[i % nfs], on_ext2 ? "ext2" : "ramfs");
            clean();
            close(bfd);
        }
        rng = fz_seed(f->seed, k + 1);
        sweeps++;
    }
    for (i = 0; i < sizeof(OPS) / sizeof(OPS[0]); i++)
        fz_say("fuzz_oom: %s passes %d points\n", OPS[i].name, most_points[i]);
    for (i = 0; i < sizeof(FS_OPS) / sizeof(FS_OPS[0]); i++)
        fz_say("fuzz_oom: %s passes %d points on ramfs, %d on ext2\n", FS_OPS[i].name,
               most_points[i + sizeof(OPS) / sizeof(OPS[0])],
               most_points[i + sizeof(OPS) / sizeof(OPS[0]) + sizeof(FS_OPS) / sizeof(FS_OPS[0])]);
    unlinkat(AT_CWD, "/tmp/.tiny", 0);
    sync();
    fz_say("fuzz_oom: %u sweeps (%d operations, ext2 %s), %u (operation, N) pairs, %d failures\n",
           sweeps,
           (int)(sizeof(FS_OPS) / sizeof(FS_OPS[0]) * (1 + ext2) + sizeof(OPS) / sizeof(OPS[0])),
           ext2 ? "too" : "not there", f->count, failures);
    write(countfd, &f->count, sizeof(f->count));
    _exit(failures ? 1 : 0);
}

int main(int argc, char **argv)
{
    struct fuzz f;
    int status;

    if (fz_start(&f, "fuzz_oom", argc, argv) < 0)
        return 2;
    if (getuid() != 0) {
        fz_say("FAIL fuzz_oom_setup: needs root (failnth)\n");
        return 2;
    }
    status = fz_run_sandboxed(&f, runner);
    return fz_finish(&f) || status != 0;
}
