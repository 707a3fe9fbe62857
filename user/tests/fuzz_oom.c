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
static char pat_a[BUF], pat_b[BUF], got[BUF], model[BUF];
static char elf[256];
static int elf_len;

/* What an operation may say when memory or a table runs out. */
#define E_MEM      (1u << 0)            /* ENOMEM */
#define E_SPC      (1u << 1)            /* ENOSPC */
#define E_NFILE    (1u << 2)            /* ENFILE */
#define E_MFILE    (1u << 3)            /* EMFILE */
#define E_AGAIN    (1u << 4)            /* EAGAIN */
#define E_IO       (1u << 5)            /* EIO: a file server died mid-request */
#define E_FS       (E_MEM | E_SPC | E_NFILE | E_MFILE)
#define EXEC_WRONG 255              /* a child's status: its argv, envp or cwd is not right */

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
           (r == -EAGAIN && (mask & E_AGAIN)) || (r == -EIO && (mask & E_IO));
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

/* A chain sub/d/d/... DEEP directories down (the walker holds 16 of the
 * directories it went down through itself, and takes memory for more:
 * namei.c push_down) and a symlink "l" to sub (follow_link takes a
 * buffer for its target): 0, or -1 (said). Made once for a sweep (on
 * ext2, making it for each N was three quarters of a run's time), and
 * undone by deep_drop after it. */
#define DEEP 18

static char deep_path[2 + 2 * DEEP + 8];
static int child_status(int r, int left);
static int from_child(int pid, unsigned mask);

static int deep_make(void)
{
    static char via_l[2 + 2 * DEEP + 8];
    int i, fd;

    strcpy(deep_path, "sub");
    strcpy(via_l, "l");
    for (i = 0; i < DEEP; i++) {
        strcat(deep_path, "/d");
        strcat(via_l, "/d");
    }
    if ((fd = walk(bfd, via_l, 0)) >= 0)
        return close(fd), 0;            /* made for an earlier N */
    if (mkd("sub") < 0)
        return fail("setup", "sub: %s", strerror(errno)), -1;
    for (i = 1; i <= DEEP; i++) {
        deep_path[3 + 2 * i] = '\0';
        if (mkd(deep_path) < 0)
            return fail("setup", "%s: %s", deep_path, strerror(errno)), -1;
        deep_path[3 + 2 * i] = '/';
    }
    deep_path[3 + 2 * DEEP] = '\0';
    if ((fd = create(bfd, "l", S_IFLNK, 0777, (unsigned)"sub")) < 0)
        return fail("setup", "l: %s", strerror(errno)), -1;
    close(fd);
    return 0;
}

static void deep_drop(void)
{
    int i;

    for (i = DEEP; i > 0; i--) {
        deep_path[3 + 2 * i] = '\0';
        unlinkat(bfd, deep_path, UNLINK_DIR);
    }
    unlinkat(bfd, "l", 0);
    unlinkat(bfd, "sub", UNLINK_DIR);
}

/* A walk through the symlink down the whole chain, and back up by "..":
 * where it ends is the chain's first "d". */
static int op_walk_deep(int n)
{
    static char path[4 + 2 * DEEP + 3 * (DEEP - 1) + 1];
    int left, r, i, d1, bad = failures;

    if (deep_make() < 0)
        return -1;
    strcpy(path, "l");
    for (i = 0; i < DEEP; i++)
        strcat(path, "/d");
    for (i = 1; i < DEEP; i++)
        strcat(path, "/..");
    r = fz_armed(n, SYS_walk, bfd, (unsigned)path, 0, 0, 0, &left);
    d1 = walk(bfd, "sub/d", 0);
    if (check_result(r, E_FS) == 0 && r >= 0) {
        struct stat a, b;
        if (fstat(r, &a) < 0 || fstat(d1, &b) < 0 || a.st_ino != b.st_ino)
            fail("model", "the walk ended elsewhere than sub/d");
        close(r);
    }
    close(d1);
    return failures != bad ? -1 : left;
}

/* getcwd at the bottom of the chain, in a child: its name, or ENOMEM. */
static int op_getcwd(int n)
{
    static char buf[256], want[256];
    int pid, left, r, fd;

    if (deep_make() < 0)
        return -1;
    if ((pid = fork()) == 0) {
        if ((fd = walk(bfd, deep_path, 0)) < 0 || fchdir(fd) < 0 || getcwd(want, 256) == NULL)
            _exit(0);
        r = fz_armed(n, SYS_getcwd, (unsigned)buf, sizeof(buf), 0, 0, 0, &left);
        _exit(r >= 0 && strcmp(buf, want) != 0 ? EXEC_WRONG : child_status(r, left));
    }
    return from_child(pid, E_MEM);
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
    end = len;
    memcpy(model, pat_a, len);
    if (r > 0) {
        end = off + r > len ? off + r : len;
        if (off > len)
            memset(model + len, 0, off - len);
        memcpy(model + off, pat_b, r);
    }
    if (holds("w", model, end) < 0)
        return -1;
    /* ...and a block the failed part took holds no stale bytes: grown to
     * where the write meant to end, the file reads zeros past the model's
     * end (ext2 once kept an unzeroed block when zeroing it found no
     * memory: another file's deleted bytes). */
    if (off + m > end) {
        if ((fd = openat(bfd, "w", O_RDWR)) < 0 || ftruncate(fd, off + m) < 0)
            return fail("model", "ftruncate to %d: %s", off + m, strerror(errno)), -1;
        close(fd);
        memset(model + end, 0, off + m - end);
        if (holds("w", model, off + m) < 0)
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

/* getdents of a directory with two names, then unarmed getdents to its
 * end: a failure consumes no entry, a short listing (an error after some
 * entries) goes on where it stopped, so each name is listed once. */
static int op_getdents(int n)
{
    static char buf[1024];
    int left, r, fd, c = 0, f = 0, pos, calls = 0;

    if (mkd("sub") < 0 || put("sub/c", pat_a, 1) < 0 || put("sub/f", pat_a, 2) < 0 ||
        (fd = openat(bfd, "sub", O_RDONLY)) < 0)
        return fail("setup", "sub: %s", strerror(errno)), -1;
    r = fz_armed(n, SYS_getdents, fd, (unsigned)buf, sizeof(buf), 0, 0, &left);
    if (check_result(r, E_FS) < 0)
        return close(fd), -1;
    for (; r != 0 && calls < 10; calls++) {
        for (pos = 0; r > 0 && pos < r; pos += ((struct dirent *)(buf + pos))->d_reclen) {
            struct dirent *d = (struct dirent *)(buf + pos);
            c += strcmp(d->d_name, "c") == 0;
            f += strcmp(d->d_name, "f") == 0;
            if (d->d_reclen == 0)
                break;
        }
        if ((r = getdents(fd, buf, sizeof(buf))) < 0)
            r = -errno;
    }
    close(fd);
    if (r != 0 || c != 1 || f != 1)
        return fail("model", "getdents listed c %d times, f %d times, then said %d", c, f, r), -1;
    clean();
    return left;
}

/* The operations on a base, in the sweep's order; srv: ramsrv serves it
 * too (it has no rename, link, symlink or FIFO). */
static const struct fs_op {
    const char *name;
    int (*fn)(int n);
    int srv;
} FS_OPS[] = {
    { "create", op_create, 1 },       { "mkdir", op_mkdir, 1 },
    { "walk", op_walk, 1 },           { "ready", op_ready, 1 },
    { "read", op_read, 1 },           { "write", op_write, 1 },
    { "ftruncate", op_truncate, 1 },  { "unlink", op_unlink, 1 },
    { "rmdir", op_rmdir, 1 },         { "rename", op_rename, 0 },
    { "link", op_link, 0 },           { "symlink", op_symlink, 0 },
    { "fifo", op_fifo, 0 },           { "getdents", op_getdents, 1 },
    { "walk_deep", op_walk_deep, 0 }, { "getcwd", op_getcwd, 0 },
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
    if (code == EXEC_WRONG)
        return fail("model", "the child's strings (argv, envp, cwd) are not what they should be"),
               -1;
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

/* ---- exec of a real program, /bin/fuzz_oom itself (copied into /tmp
 * before the sandbox hides /bin: text, data and a 48 KiB bss, three
 * segments), with an argv and envp whose number and sizes the seed picks.
 * Run as `fuzz_oom --left SEED ...`, it asks failnth(0) before anything
 * else (libc_start makes no call, and exec maps every page table and
 * reserves every lazy page up front, so no point lies between exec's
 * return and main), checks every string of its argv and envp against
 * the seed, touches its bss and exits as op_exec's tiny program does.
 * Nothing after exec's point of no return can fail (the new fd table is
 * made before it): a point passed there would show as a program that
 * got a count it should not have, or as a child killed. */
#define EXEC_ARGS 24               /* at most, after the three */
#define EXEC_ENVS 12

static char exec_space[(EXEC_ARGS + EXEC_ENVS) * 400];
static char *exec_argv[EXEC_ARGS + 4], *exec_envp[EXEC_ENVS + 1];
static char exec_seed[16];
static char *prog_copy[2];          /* /bin/fuzz_oom and /bin/ramsrv, read before the sandbox */
static int prog_len[2];

/* The argv (after "fuzz_oom --left SEED") and envp the seed makes. */
static void exec_strings(unsigned seed)
{
    unsigned r = seed;
    char *sp = exec_space;
    int i, k, len, na = fz_below(&r, EXEC_ARGS + 1), ne = fz_below(&r, EXEC_ENVS + 1);

    for (i = 0; i < na + ne; i++) {
        len = fz_below(&r, 390);
        if (i < na)
            exec_argv[3 + i] = sp;
        else
            exec_envp[i - na] = sp;
        for (k = 0; k < len; k++)
            *sp++ = 'A' + (i * 7 + k) % 53 % 26 + (k % 3 == 0 ? 32 : 0);
        *sp++ = '\0';
    }
    exec_argv[3 + na] = NULL;
    exec_envp[ne] = NULL;
}

/* main's first act when exec'd by op_exec_bin: the status it says. */
static int exec_report(int argc, char **argv, char **envp)
{
    int left = failnth(0), i;

    exec_strings((unsigned)strtoul(argv[2], NULL, 10));
    for (i = 3; exec_argv[i]; i++)
        if (i >= argc || strcmp(argv[i], exec_argv[i]) != 0)
            return EXEC_WRONG;
    for (i = 0; exec_envp[i]; i++)
        if (!envp[i] || strcmp(envp[i], exec_envp[i]) != 0)
            return EXEC_WRONG;
    if (argv[argc] || envp[i])
        return EXEC_WRONG;
    for (i = 0; i < BUF; i += 4096)
        pat_a[i] = got[i] = 1;          /* the lazy bss is there */
    return 1 + (left > 0);
}

/* Write prog_copy[k] to path (mode 0755) once: 0, or -1 (said). */
static int put_prog(int k, const char *path)
{
    int fd;

    if (!prog_copy[k])
        return fail("setup", "%s: not read before the sandbox", path), -1;
    if ((fd = walk(AT_CWD, path, 0)) >= 0)
        return close(fd), 0;
    if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755)) < 0 ||
        writeall(fd, prog_copy[k], prog_len[k]) != 0)
        return fail("setup", "%s: %s", path, strerror(errno)), -1;
    close(fd);
    return 0;
}

static int op_exec_bin(int n)
{
    int pid, fd, left, r;

    if (put_prog(0, "/tmp/.fuzz_oom") < 0)
        return -1;
    snprintf(exec_seed, sizeof(exec_seed), "%u", rng);
    exec_argv[0] = "fuzz_oom";
    exec_argv[1] = "--left";
    exec_argv[2] = exec_seed;
    exec_strings(rng);
    if ((pid = fork()) == 0) {
        if ((fd = walk(AT_CWD, "/tmp/.fuzz_oom", 0)) < 0)
            _exit(0);
        r = fz_armed(n, SYS_exec, fd, (unsigned)exec_argv, (unsigned)exec_envp, 0, 0, &left);
        _exit(child_status(r, left));
    }
    return from_child(pid, E_MEM | E_NFILE | E_MFILE);
}

/* fork of a process with more mapped: a heap of 8-64 pages, each written
 * (present and private), which the child reads and then writes (its
 * copy-on-write copies, unarmed) while the parent's stay as they were. */
static int op_fork_maps(int n)
{
    int pages = 8 + fz_below(&rng, 57), left, r, i, status = -1;
    char *heap = sbrk(pages * 4096);

    if (heap == (char *)-1)
        return fail("setup", "sbrk: %s", strerror(errno)), -1;
    for (i = 0; i < pages; i++)
        heap[i * 4096] = (char)i;
    r = fz_armed(n, SYS_fork, 0, 0, 0, 0, 0, &left);
    if (r == 0) {
        for (i = 0; i < pages; i++) {
            if (heap[i * 4096] != (char)i)
                _exit(3);
            heap[i * 4096] = (char)~i;
        }
        _exit(0);
    }
    if (r > 0 && (waitpid(r, &status, 0) != r || status != 0))
        fail("model", "child: status %#x", status);
    for (i = 0; i < pages; i++)
        if (heap[i * 4096] != (char)i) {
            fail("model", "the parent's page %d changed", i);
            break;
        }
    sbrk(-pages * 4096);
    if (check_result(r, E_MEM | E_AGAIN) < 0)
        return -1;
    return left;
}

/* A pipe, one of: a non-blocking write into it part full (all of it, or
 * EAGAIN without room for all: a write this small is atomic); a read into a buffer the process
 * shares copy-on-write with a child (the copy is made before a byte moves, so a failed one loses no
 * byte: sysfile.c transfer); closing the last writer with bytes queued (the reader gets them, then
 * end of file). */
static char cow_buf[2 * 4096] __attribute__((aligned(4096)));

static int op_pipe_io(int n)
{
    int kind = fz_below(&rng, 3), have = fz_below(&rng, 65537), m = 1 + fz_below(&rng, 8192);
    int p[2], g[2] = { -1, -1 }, left, r, pid = -1, status, k, want, bad = failures;

    if (pipe(p) < 0)
        return fail("setup", "pipe: %s", strerror(errno)), -1;
    fcntl(p[0], F_SETFL, R_NONBLOCK);
    fcntl(p[1], F_SETFL, R_NONBLOCK);
    if (kind != 0)
        have = have % 4096 + 1;
    for (k = 0; k < have; k += r)
        if ((r = write(p[1], pat_a + k % 4096, have - k < 4096 ? have - k : 4096)) <= 0)
            return fail("setup", "pipe write: %s", strerror(errno)), -1;
    if (kind == 0) {
        r = fz_armed(n, SYS_write, p[1], (unsigned)pat_b, m, 0, 0, &left);
        want = m <= 65536 - have ? m : -EAGAIN;     /* all or nothing (pipe.c) */
        if (r < 0 && r != want)
            check_result(r, E_MEM);
        else if (r != want)
            fail("model", "wrote %d of %d bytes into %d free", r, m, 65536 - have);
    } else if (kind == 1) {
        cow_buf[0] = cow_buf[4096] = 0;      /* present, so shared after the fork */
        if (pipe(g) < 0 || (pid = fork()) < 0)
            return fail("setup", "fork: %s", strerror(errno)), -1;
        if (pid == 0) {                 /* holds cow_buf's pages until the gate closes */
            close(g[1]);
            read(g[0], &k, 1);
            _exit(0);
        }
        close(g[0]);
        r = fz_armed(n, SYS_read, p[0], (unsigned)cow_buf, have, 0, 0, &left);
        if (check_result(r, E_MEM) == 0 && r < 0)
            r = read(p[0], cow_buf, have);      /* a failed read took no byte */
        if (r != have || memcmp(cow_buf, pat_a, have) != 0)
            fail("model", "read %d of %d bytes, or other bytes", r, have);
        close(g[1]);
        waitpid(pid, &status, 0);
    } else {
        r = fz_armed(n, SYS_close, p[1], 0, 0, 0, 0, &left);
        if (r != 0)
            fail("errno", "close said %d", r);
        if ((r = read(p[0], got, sizeof(got))) != have || memcmp(got, pat_a, have) != 0 ||
            read(p[0], got, 1) != 0)
            fail("model", "after the writer closed: %d of %d bytes, or no end of file", r, have);
    }
    close(p[0]);
    if (kind != 2)
        close(p[1]);
    return failures != bad ? -1 : left;
}

/* The text of /proc/self/ns (the caller's attachments), into buf. */
static int ns_text(char *buf, int size)
{
    int fd = open("/proc/self/ns", O_RDONLY), n;

    n = fd < 0 ? -1 : read(fd, buf, size - 1);
    close(fd);
    buf[n < 0 ? 0 : n] = '\0';
    return n;
}

/* A read of a /proc file (its text is made per read from offset 0). */
static int op_proc(int n)
{
    static const char *const files[] = { "/proc/meminfo", "/proc/self/status", "/proc/self/fd",
                                         "/proc/self/ns", "/proc/1/status" };
    const char *file = files[fz_below(&rng, 5)];
    int fd = open(file, O_RDONLY), left, r;

    if (fd < 0)
        return fail("setup", "%s: %s", file, strerror(errno)), -1;
    r = fz_armed(n, SYS_read, fd, (unsigned)got, sizeof(got), 0, 0, &left);
    if (r < 0 && check_result(r, E_MEM) == 0)
        r = read(fd, got, sizeof(got));         /* and the file still reads */
    close(fd);
    if (r <= 0)
        return fail("model", "%s: read %d", file, r), -1;
    return left;
}

/* fchroot to a fresh ramfs, in a child with its own copy of the
 * namespace (the root attachment fchroot adds stays as long as the
 * namespace does: in the runner's, 256 of them fill its table): the new
 * root is its root, or (failed) the old one still is. */
static int op_fchroot(int n)
{
    int pid, left, r, fs, fd, ok;

    if ((pid = fork()) == 0) {
        if (unshare() < 0 || (fs = fsopen("ramfs", -1, "")) < 0 ||
            (fd = create(fs, "x", S_IFREG, 0644, 0)) < 0)
            _exit(0);
        close(fd);
        r = fz_armed(n, SYS_fchroot, fs, 0, 0, 0, 0, &left);
        fd = walk(AT_CWD, r < 0 ? "/tmp/mp/m" : "/x", 0);
        ok = fd >= 0;
        close(fd);
        _exit(ok ? child_status(r, left) : 0);
    }
    return from_child(pid, E_FS);
}

/* A union bind (BIND_BEFORE or BIND_AFTER) of a ramfs with the file "u"
 * at /tmp/mp - a plain directory (the bind makes its base), or the root
 * of a ramfs bound there first (which joins the union). Both names are
 * seen after it, only the old after a failure, which changed no
 * attachment: /proc/self/ns is as it was. */
static int op_union(int n)
{
    static char ns_before[4096], ns_after[4096];
    int onto = fz_below(&rng, 2), flag = fz_below(&rng, 2) ? BIND_BEFORE : BIND_AFTER;
    int left, r, fs, lower = -1, fd, m_seen, u_seen;

    if (onto &&
        ((lower = fsopen("ramfs", -1, "")) < 0 || (fd = create(lower, "m", S_IFREG, 0644, 0)) < 0 ||
         close(fd) < 0 || bind(lower, AT_CWD, "/tmp/mp", 0) < 0))
        return fail("setup", "the lower bind: %s", strerror(errno)), -1;
    if (lower >= 0)
        close(lower);
    if ((fs = fsopen("ramfs", -1, "")) < 0 || (fd = create(fs, "u", S_IFREG, 0644, 0)) < 0)
        return fail("setup", "fsopen: %s", strerror(errno)), -1;
    close(fd);
    ns_text(ns_before, sizeof(ns_before));
    r = fz_armed(n, SYS_bind, fs, AT_CWD, (unsigned)"/tmp/mp", flag, 0, &left);
    close(fs);
    if (check_result(r, E_FS) < 0)
        return -1;
    m_seen = (fd = walk(AT_CWD, "/tmp/mp/m", 0)) >= 0;
    close(fd);
    u_seen = (fd = walk(AT_CWD, "/tmp/mp/u", 0)) >= 0;
    close(fd);
    if (!m_seen || u_seen != (r >= 0))
        return fail("model", "bind said %d; m %s, u %s", r, m_seen ? "seen" : "hidden",
                    u_seen ? "seen" : "hidden"),
               -1;
    if (r < 0 && (ns_text(ns_after, sizeof(ns_after)), strcmp(ns_before, ns_after) != 0))
        return fail("model", "a failed union bind changed /proc/self/ns:\n%s-- to --\n%s",
                    ns_before, ns_after),
               -1;
    if ((r >= 0 && unbind_mp() < 0) || (onto && unbind_mp() < 0))
        return -1;
    if (covered())
        return fail("model", "/tmp/mp is still covered after the unbinds"), -1;
    return left;
}

/* A file server that dies mid-request: its read handler exits. The
 * armed call is a read through the instance: EIO (the connection is
 * dead), or what memory running out says, and nothing leaks once the
 * server is reaped. */
static int die_walk(void *dir, const char *name, void **child)
{
    *child = (void *)2;
    return strcmp(name, "f") == 0 ? 0 : -ENOENT;
}

static int die_stat(void *node, struct srv_stat *st)
{
    memset(st, 0, sizeof(*st));
    st->mode = node == (void *)2 ? S_IFREG | 0644 : S_IFDIR | 0755;
    st->ino = (uint32_t)node;
    st->size = 100;
    return 0;
}

static int die_read(void *node, uint32_t off, char *buf, uint32_t n)
{
    _exit(0);
}

static const struct srv_ops DIE_OPS = { .stat = die_stat, .walk = die_walk, .read = die_read };

static int op_srv_die(int n)
{
    int left, r, fds[2], pid, status = -1, fs, fd;

    if (chan(fds) < 0)
        return fail("setup", "chan: %s", strerror(errno)), -1;
    if ((pid = fork()) == 0) {
        close(fds[0]);
        _exit(srv_serve(fds[1], &DIE_OPS, (void *)1) < 0);
    }
    close(fds[1]);
    if ((fs = fsopen("srv", fds[0], "")) < 0 || (fd = openat(fs, "f", O_RDONLY)) < 0)
        return fail("setup", "the dying server: %s", strerror(errno)), -1;
    close(fds[0]);
    r = fz_armed(n, SYS_read, fd, (unsigned)got, 100, 0, 0, &left);
    close(fd);
    close(fs);
    if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
        return fail("setup", "the server: status %#x", status), -1;
    if (r >= 0)
        return fail("model", "a read the server died in said %d", r), -1;
    if (check_result(r, E_MEM | E_IO) < 0)
        return -1;
    return left;
}

static const struct fs_op OPS[] = {
    { "fork", op_fork, 0 },         { "rfork", op_rfork, 0 },         { "exec", op_exec, 0 },
    { "unshare", op_unshare, 0 },   { "pipe", op_pipe, 0 },           { "chan", op_chan, 0 },
    { "sbrk", op_sbrk, 0 },         { "fsopen", op_fsopen, 0 },       { "bind", op_bind, 0 },
    { "unbind", op_unbind, 0 },     { "revoke", op_revoke, 0 },       { "srv", op_srv, 0 },
    { "exec_bin", op_exec_bin, 0 }, { "fork_maps", op_fork_maps, 0 }, { "pipe_io", op_pipe_io, 0 },
    { "proc", op_proc, 0 },         { "fchroot", op_fchroot, 0 },     { "union", op_union, 0 },
    { "srv_die", op_srv_die, 0 },
};

/* ---------------------------------------------------------------- the sweep */

struct counts {
    unsigned free, blocks, files, procs;
};

static int srv_pid = -1;

/* The pages ramsrv (the srv base's server) holds: it never frees a node
 * (a removed one may still have fids), so its heap grows as the srv
 * operations make names, and counts_now adds its pages to the free ones. */
static unsigned srv_pages(void)
{
    char path[32], buf[256], *p;
    int fd, n;

    if (srv_pid <= 0)
        return 0;
    snprintf(path, sizeof(path), "/proc/%d/status", srv_pid);
    if ((fd = open(path, O_RDONLY)) < 0)
        return 0;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return (p = strstr(buf, "pages ")) ? atoi(p + 6) : 0;
}

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
    c->free += srv_pages();
    if (!c->free || !c->blocks || !c->procs)
        fail("setup", "/proc/meminfo does not say free_pages, heap_blocks and procs");
}

/* One operation with N = 1, 2, ... until it passes fewer than N points.
 * Once unarmed first (caches the operation fills for good, such as an
 * ext2 instance's, are filled before the counts are taken). */
static int most_points[128];          /* per operation and base: the longest sweep's points */
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

/* The third base: ramsrv (a file server in user space, doc/srv.md) at
 * /tmp/s, from the copy of /bin/ramsrv main read; a fresh one for each
 * sweep, since ramsrv never frees a node and its heap would grow into
 * page tables counts_now does not see. 0, or -1. */
static int srv_start(void)
{
    int c[2], pid, fs;
    char *argv[] = { "ramsrv", NULL };

    if (put_prog(1, "/tmp/.ramsrv") < 0 || chan(c) < 0)
        return -1;
    if ((pid = fork()) == 0) {
        dup2(c[1], 0);
        fcntl(0, F_SETFD, FD_KEEP);
        execv("/tmp/.ramsrv", argv);
        _exit(127);
    }
    close(c[1]);
    srv_pid = pid;
    fs = fsopen("srv", c[0], "");
    close(c[0]);
    if (pid < 0 || fs < 0 || (mkdir("/tmp/s", 0755) < 0 && errno != EEXIST) ||
        bind(fs, AT_CWD, "/tmp/s", 0) < 0) {
        fz_say("FAIL fuzz_oom_setup: ramsrv at /tmp/s: %s\n", strerror(errno));
        return -1;
    }
    close(fs);
    return 0;
}

/* ramsrv ends when the kernel lets go of its channel. */
static void srv_stop(void)
{
    close(unbind(AT_CWD, "/tmp/s"));
    waitpid(srv_pid, NULL, 0);
    srv_pid = -1;
}

static const struct base {
    const char *path, *name;
} BASES[] = { { "/tmp", "ramfs" }, { "/mnt", "ext2" }, { "/tmp/s", "srv" } };

static void runner(struct fuzz *f, int countfd)
{
    unsigned sweeps = 0, i, k, b;
    unsigned nfs = sizeof(FS_OPS) / sizeof(FS_OPS[0]), nops = sizeof(OPS) / sizeof(OPS[0]);
    int has[3] = { 1, 0, 0 }, fd;

    F = f;
    /* The sandbox closed main's /proc/meminfo: without it every count
     * read 0 and no leak was ever seen (until this session). */
    if ((f->meminfo = open("/proc/meminfo", O_RDONLY)) < 0) {
        fz_say("FAIL fuzz_oom_setup: /proc/meminfo: %s\n", strerror(errno));
        _exit(1);
    }
    has[1] = fz_attach_disk("fuzz_oom", "/mnt");   /* the bases: /tmp (ramfs), /mnt (ext2) */
    if (mkdir("/tmp/mp", 0755) < 0 || (fd = create(AT_CWD, "/tmp/mp/m", S_IFREG, 0644, 0)) < 0) {
        fz_say("FAIL fuzz_oom_setup: /tmp/mp: %s\n", strerror(errno));
        _exit(1);
    }
    close(fd);
    has[2] = prog_copy[1] != NULL;      /* and /tmp/s (ramsrv, per sweep) */
    for (i = 0; i < BUF; i++) {
        pat_a[i] = 'a' + i % 23;
        pat_b[i] = 'B' + i % 19;
    }
    fz_own_pages();
    rng = fz_seed(f->seed, 0);
    for (k = 0; failures < MAX_FAILS && !fz_over(f); k++) {
        /* Each pass: every operation once, from a start the seed picks. */
        i = (k % (nfs * 3 + nops) + (f->seed % 7)) % (nfs * 3 + nops);
        sweep_slot = i;
        if (i < nops) {
            bfd = -1;
            sweep(&OPS[i], "-");
        } else {
            b = (i - nops) / nfs;
            i = (i - nops) % nfs;
            if (!has[b] || (b == 2 && !FS_OPS[i].srv))
                continue;
            on_ext2 = b == 1;
            if (b == 2 && srv_start() < 0)
                break;
            if ((bfd = walk(AT_CWD, BASES[b].path, 0)) < 0) {
                fz_say("FAIL fuzz_oom_setup: base: %s\n", strerror(errno));
                break;
            }
            clean();
            sweep(&FS_OPS[i], BASES[b].name);
            if (FS_OPS[i].fn == op_walk_deep || FS_OPS[i].fn == op_getcwd)
                deep_drop();
            clean();
            close(bfd);
            if (b == 2)
                srv_stop();
        }
        rng = fz_seed(f->seed, k + 1);
        sweeps++;
    }
    for (i = 0; i < nops; i++)
        fz_say("fuzz_oom: %s passes %d points\n", OPS[i].name, most_points[i]);
    for (i = 0; i < nfs; i++)
        fz_say("fuzz_oom: %s passes %d points on ramfs, %d on ext2, %d on srv\n", FS_OPS[i].name,
               most_points[nops + i], most_points[nops + nfs + i], most_points[nops + 2 * nfs + i]);
    unlinkat(AT_CWD, "/tmp/.tiny", 0);
    unlinkat(AT_CWD, "/tmp/.fuzz_oom", 0);
    unlinkat(AT_CWD, "/tmp/.ramsrv", 0);
    unlinkat(AT_CWD, "/tmp/s", UNLINK_DIR);
    sync();
    fz_say("fuzz_oom: %u sweeps (%d operations, ext2 %s, srv %s), %u (operation, N) pairs, %d "
           "failures\n",
           sweeps, (int)(nops + nfs + nfs * has[1] + has[2] * 10 /* FS_OPS[].srv */),
           has[1] ? "too" : "not there", has[2] ? "too" : "not there", f->count, failures);
    write(countfd, &f->count, sizeof(f->count));
    _exit(failures ? 1 : 0);
}

/* A program's bytes, into prog_copy[k] (the sandbox has no /bin). */
static void read_prog(int k, const char *path)
{
    int fd = open(path, O_RDONLY), n;
    struct stat st;

    if (fd < 0 || fstat(fd, &st) < 0 || !(prog_copy[k] = malloc(st.st_size)))
        return;
    n = read(fd, prog_copy[k], st.st_size);
    prog_len[k] = n;
    close(fd);
}

int main(int argc, char **argv, char **envp)
{
    struct fuzz f;
    int status;

    if (argc >= 3 && strcmp(argv[1], "--left") == 0)
        return exec_report(argc, argv, envp);   /* op_exec_bin's program */
    read_prog(0, "/bin/fuzz_oom");         /* before fz_start counts the pages */
    read_prog(1, "/bin/ramsrv");
    if (fz_start(&f, "fuzz_oom", argc, argv) < 0)
        return 2;
    if (getuid() != 0) {
        fz_say("FAIL fuzz_oom_setup: needs root (failnth)\n");
        return 2;
    }
    status = fz_run_sandboxed(&f, runner);
    return fz_finish(&f) || status != 0;
}
