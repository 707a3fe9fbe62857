/* fuzz.h - what every in-guest fuzzer shares: the command line
 * (`/bin/fuzz_NAME SEED SECONDS [MAXCOUNT]`), a seeded random generator
 * (the same seed gives the same sequence of operations), the heartbeat
 * line tools/fuzz.py watches for hangs, the leak check and the final line.
 * The interface is fixed (COMMON.md, doc/fuzzing.md):
 *
 *   fuzz_NAME: seed SEED count N                  at least every 2 seconds
 *   PASS fuzz_NAME_leaves_no_leak                 or FAIL ...: why
 *   fuzz_NAME: done seed SEED count N             the last line
 *
 * A fuzzer runs what may crash in child processes: the parent only
 * forks, watches, kills and reaps, so it is the one process that always
 * lives to print the last line. */
#ifndef USER_TESTS_FUZZ_H
#define USER_TESTS_FUZZ_H

#include <errno.h>
#include <orthos.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "uapi/syscall.h"

#define BEAT_MS       1000            /* heartbeat period (the interface asks <= 2 s) */
#define SETTLE_MS     10000           /* how long the leak check waits for teardown */
#define UNKILLABLE_MS 20000         /* a process killed this long ago that still lives */
#define REAP_YIELDS   64              /* fz_reap's yields before it naps (a nap is a tick) */

struct fuzz {
    const char *name;               /* "fuzz_sys" */
    unsigned seed, seconds, maxcount;
    unsigned count;                 /* iterations done: calls, execs, images */
    unsigned start_ms, last_beat;
    int meminfo;                    /* /proc/meminfo, open all along */
    unsigned free_at_start, blocks_at_start, heap_at_start;
};

/* xorshift32: small, fast, and the same everywhere. Never 0. */
static inline unsigned fz_next(unsigned *s)
{
    unsigned x = *s;

    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

static inline unsigned fz_below(unsigned *s, unsigned n)
{
    return n ? fz_next(s) % n : 0;
}

/* A generator state for part `part` of the run `seed` (a worker, an image):
 * each part's sequence depends only on the seed and its number. */
static inline unsigned fz_seed(unsigned seed, unsigned part)
{
    unsigned s = seed * 2654435761u ^ (part + 1) * 0x9E3779B9u ^ 0x5bd1e995u;
    int i;

    if (!s)
        s = 1;
    for (i = 0; i < 4; i++)
        fz_next(&s);
    return s;
}

/* Write all of a line to stdout, even while memory is short (a child may
 * be exhausting it: the kernel then says ENOMEM for a moment). */
static inline void fz_say(const char *fmt, ...)
{
    char line[160];
    va_list ap;
    int n, off = 0, r, tries = 0;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof(line))
        n = sizeof(line) - 1;
    while (off < n && tries++ < 500) {
        if ((r = write(1, line + off, n - off)) > 0)
            off += r;
        else
            sleep_ms(10);
    }
}

/* A number from /proc/meminfo ("free_pages", "heap_blocks"), read through
 * the fd opened at the start: so reading it makes no new kernel objects
 * that could land on a new page. */
static inline unsigned fz_meminfo(struct fuzz *f, const char *key)
{
    char buf[256], *p;
    int n;

    if (lseek(f->meminfo, 0, SEEK_SET) != 0 || (n = read(f->meminfo, buf, sizeof(buf) - 1)) <= 0)
        return 0;
    buf[n] = '\0';
    return (p = strstr(buf, key)) ? (unsigned)atoi(p + strlen(key) + 1) : 0;
}

static inline unsigned fz_free_pages(struct fuzz *f)
{
    return fz_meminfo(f, "free_pages");
}

static inline unsigned fz_now(struct fuzz *f)
{
    return uptime_ms() - f->start_ms;
}

/* A minimal program around n bytes of code: an ELF header, one program
 * header, the code at file offset 84, loaded at 0x400000 (so the code
 * starts at FZ_ELF_CODE, the entry). out needs 84 + n bytes; its length. */
#define FZ_ELF_CODE (0x400000u + 84)

static inline int fz_elf_image(char *out, const void *code, int ncode)
{
    unsigned *w;
    int n = 52 + 32 + ncode;

    memset(out, 0, n);
    memcpy(out,
           "\x7f"
           "ELF\x01\x01\x01",
           7);
    out[16] = 2;                                /* ET_EXEC */
    out[18] = 3;                                /* EM_386 */
    w = (unsigned *)(out + 20);
    w[0] = 1;                                   /* version */
    w[1] = FZ_ELF_CODE;                         /* entry */
    w[2] = 52;                                  /* phoff */
    out[40] = 52;                               /* ehsize */
    out[42] = 32;                               /* phentsize */
    out[44] = 1;                                /* phnum */
    w = (unsigned *)(out + 52);
    w[0] = 1;                                   /* PT_LOAD */
    w[1] = 0;                                   /* offset */
    w[2] = w[3] = 0x400000;                     /* vaddr, paddr */
    w[4] = w[5] = n;                            /* filesz, memsz */
    w[6] = 5;                                   /* R X */
    w[7] = 4096;
    memcpy(out + 84, code, ncode);
    return n;
}

/* A tiny program that exits 0 (fits in 256 bytes). */
static inline int fz_tiny_elf(char *out)
{
    static const unsigned char code[] = {
        0xB8, 0x01, 0x00, 0x00, 0x00,           /* mov eax, SYS_exit */
        0x31, 0xDB,                             /* xor ebx, ebx */
        0xCD, 0x80,                             /* int $0x80 */
        0x0F, 0x0B,                             /* ud2 */
    };

    return fz_elf_image(out, code, sizeof(code));
}

/* Make an image unable to make a system call, so that a mutated program
 * can only fault: every `int $0x80` (cd 80) and every `sysenter` (0f 34)
 * in it gets int3 for its first byte, wherever the pair sits (an opcode,
 * an operand, data: a jump may land anywhere). Both ways in count: libc
 * calls by sysenter when the CPU has it (user/lib/syscalls.c), and a
 * mutated /bin/wc that still could once made a file with create(), which
 * the leak check saw as a page and two heap blocks kept (doc/fuzzing.md). */
static inline void fz_defuse(unsigned char *img, unsigned size)
{
    unsigned i;

    for (i = 0; i + 1 < size; i++) {
        if ((img[i] == 0xCD && img[i + 1] == 0x80) || (img[i] == 0x0F && img[i + 1] == 0x34))
            img[i] = 0xCC;
    }
}

/* failnth(n), then system call nr(a, b, c, d, e), then failnth(0), back
 * to back in registers: the call's result, and in *left the points the
 * count still had to go (0: it fired). Between the three calls the
 * process touches no memory, so no page fault of its own (a copy-on-write
 * stack page after fork) passes a point. In a child of fork it returns
 * too: 0, with *left 0 (the count is not inherited). fuzz_oom.c sweeps
 * every operation so; t_fuzzfound.c pins what it found. */
static inline int fz_armed(int n, int nr, unsigned a, unsigned b, unsigned c, unsigned d,
                           unsigned e, int *left)
{
    unsigned v[7] = { (unsigned)n, (unsigned)nr, a, b, c, d, e };
    unsigned *p = v;
    int r, l;

    __asm__ volatile("push %%ebp\n\t"
                     "mov %%eax, %%ebp\n\t"
                     "mov %[fn], %%eax\n\t"
                     "mov 0(%%ebp), %%ebx\n\t"
                     "int $0x80\n\t"
                     "mov 4(%%ebp), %%eax\n\t"
                     "mov 8(%%ebp), %%ebx\n\t"
                     "mov 12(%%ebp), %%ecx\n\t"
                     "mov 16(%%ebp), %%edx\n\t"
                     "mov 20(%%ebp), %%esi\n\t"
                     "mov 24(%%ebp), %%edi\n\t"
                     "int $0x80\n\t"
                     "mov %%eax, %%esi\n\t"
                     "mov %[fn], %%eax\n\t"
                     "xor %%ebx, %%ebx\n\t"
                     "int $0x80\n\t"
                     "mov %%eax, %%edi\n\t"
                     "pop %%ebp"
                     : "+a"(p), "=&S"(r), "=&D"(l)
                     : [fn] "i"(SYS_failnth)
                     : "ebx", "ecx", "edx", "memory");
    *left = l;
    return r;
}

/* ---- the sandbox: where a fuzzer runs what may make any system call.
 * fuzz_sys's workers call at random, and a mutated program in fuzz_elf can
 * write `int $0x80` or `sysenter` on its stack and jump there (no NX bit
 * without PAE), which fz_defuse cannot stop. So each runs in a private
 * namespace whose root is a fresh ramfs with its own /tmp, /dev (no
 * console) and /proc: every name it can reach, bind, unbind or revoke is
 * its own, and the instances go when its last process does (nothing for
 * the leak check to count). fz_jail adds an unprivileged user for a
 * program that is not the fuzzer's own code (doc/decisions.md, "## Tests"). */

#define FZ_UID 65534                    /* "nobody": no one else runs as it */
#define FZ_GID 65534

/* Attach a fresh instance of `type` at name under dir: 0, or -1. */
static inline int fz_attach(int dir, const char *type, const char *name)
{
    int fs = fsopen(type, -1, ""), r;

    if (fs >= 0 && strcmp(type, "devfs") == 0)
        unlinkat(fs, "console", 0);             /* random writes stay off the console */
    r = fs < 0 ? -1 : bind(fs, dir, name, 0);
    close(fs);
    return r;
}

/* A sandbox, step 1: a private namespace and a fresh ramfs for its root,
 * holding empty tmp, dev and proc. The root's fd (the caller may put more
 * in it before step 2), or -1. */
static inline int fz_sandbox_root(void)
{
    static const char *const dirs[] = { "tmp", "dev", "proc" };
    int root, i;

    if (unshare() < 0 || (root = fsopen("ramfs", -1, "")) < 0)
        return -1;
    for (i = 0; i < 3; i++)
        close(create(root, dirs[i], S_IFDIR, 0755, 0));
    return root;
}

/* Step 2: root becomes the process's root and cwd (root is closed), with
 * fresh instances at /tmp (ramfs), /dev (devfs without its console) and
 * /proc; every fd but `keep` and `keep2` (above 2, or -1) is closed, and
 * 0-2 are /dev/null. 0, or -1. The instances are bound after fchroot: bind
 * attaches only below an attachment of the namespace, which the fresh
 * ramfs becomes by fchroot (ns_attach_root), not before. */
static inline int fz_sandbox_enter_keeping(int root, int keep, int keep2)
{
    int fd;

    if ((keep >= 0 && keep <= 2) || (keep2 >= 0 && keep2 <= 2) || fchroot(root) < 0)
        return -1;
    close(root);
    if ((root = walk(AT_CWD, "/", 0)) < 0 || fchdir(root) < 0 ||
        fz_attach(root, "ramfs", "tmp") < 0 || fz_attach(root, "devfs", "dev") < 0 ||
        fz_attach(root, "procfs", "proc") < 0)
        return -1;
    for (fd = 0; fd < OPEN_MAX; fd++)
        if (fd != keep && fd != keep2)
            close(fd);
    if ((fd = walk(AT_CWD, "/dev/null", 0)) < 0 || ready(fd, R_RDWR) != 1)
        return -1;                              /* (the lowest free fd: 1, as fd is 0) */
    close(fd);
    dup2(1, 0);
    dup2(1, 2);
    return 0;
}

static inline int fz_sandbox_enter(int root, int keep)
{
    return fz_sandbox_enter_keeping(root, keep, -1);
}

/* The jail for a program the fuzzer did not write (a mutated image), for
 * a root caller: it leads a process group of its own (so the fuzzer's
 * kill(-pid) in fz_reap reaches anything it forks), enters a sandbox
 * keeping only `keep` (with /tmp everyone's, 01777, as init makes it),
 * and then becomes FZ_UID, so that it may neither power off, nor signal
 * the fuzzer or init, nor ready a disk. Root builds the sandbox, unlike
 * login and runas (setuid, then unshare): a devfs a user made is nodev,
 * even its /dev/null, and a namespace and instances that are root's are
 * ones the program cannot rearrange or revoke (it may unshare a copy of
 * its own, of the same sandbox). 0, or -1. */
static inline int fz_jail(int keep)
{
    int root, fd;

    setpgid(0, 0);
    if (getuid() != 0 || (root = fz_sandbox_root()) < 0 || fz_sandbox_enter(root, keep) < 0)
        return -1;
    if ((fd = walk(AT_CWD, "/tmp", 0)) < 0 || fchmod(fd, 01777) < 0)
        return -1;
    close(fd);
    for (fd = 0; fd < 3; fd++)                  /* the program's stdio: /dev/null */
        fcntl(fd, F_SETFD, FD_KEEP);
    return setgid(FZ_GID) < 0 || setuid(FZ_UID) < 0 ? -1 : 0;
}

/* How fuzz_elf runs an image, in a child: walk path (in the fuzzer's
 * namespace), enter the jail keeping that fd, exec it. Returns only if
 * that fails: 1 if there is no such file or no jail, else -1 with exec's
 * errno. exec closes the image's fd (it is not FD_KEEP): the program
 * keeps nothing but /dev/null on 0-2. */
static inline int fz_exec_jailed(const char *path, char **argv, char **envp)
{
    int fd = walk(AT_CWD, path, 0);

    if (fd < 0 || fz_jail(fd) < 0)
        return 1;
    exec(fd, argv, envp);
    return -1;
}

/* The ext2 disk tools/fuzz.py gives fuzz_race, fuzz_perm and fuzz_oom
 * (/dev/hd0, freshly made), attached at `at` (a directory of the
 * sandbox, 0755): 1, or 0 if the guest has no such disk. A disk that is
 * there and cannot be attached fails the run (`FAIL <name>_setup`). */
static inline int fz_attach_disk(const char *name, const char *at)
{
    int fd, dev, fs;

    if ((fd = walk(AT_CWD, "/dev/hd0", 0)) < 0)
        return 0;
    dev = ready(fd, R_RDWR);
    close(fd);
    if (dev < 0 || (fs = fsopen("ext2", dev, "")) < 0) {
        close(dev);
        return 0;
    }
    close(dev);
    if (bind(fs, AT_CWD, at, 0) < 0 || fchmod(fs, 0755) < 0) {
        fz_say("FAIL %s_setup: ext2 at %s: %s\n", name, at, strerror(errno));
        _exit(1);
    }
    close(fs);
    return 1;
}

/* Run runner(f, countfd) in a child inside a sandbox with an empty /mnt,
 * its stdout and stderr the console (FZ_CONSOLE_FD through the sandbox),
 * and wait for it, SETTLE past its time at most (then it is killed:
 * `FAIL <name>_runner_ends`). The runner writes its count to countfd
 * and exits. Its wait status (f->count is its count), or -1. */
#define FZ_CONSOLE_FD 20

static inline int fz_run_sandboxed(struct fuzz *f, void (*runner)(struct fuzz *f, int countfd))
{
    int p[2], pid, status = -1, root, fd;
    unsigned start;

    if (pipe(p) < 0)
        return -1;
    fflush(stdout);
    if ((pid = fork()) == 0) {
        close(p[0]);
        dup2(1, FZ_CONSOLE_FD);
        dup2(p[1], FZ_CONSOLE_FD + 1);
        if ((root = fz_sandbox_root()) < 0 || (fd = create(root, "mnt", S_IFDIR, 0755, 0)) < 0 ||
            close(fd) < 0 || fz_sandbox_enter_keeping(root, FZ_CONSOLE_FD, FZ_CONSOLE_FD + 1) < 0) {
            fz_say("FAIL %s_setup: no sandbox\n", f->name);
            _exit(1);
        }
        dup2(FZ_CONSOLE_FD, 1);
        dup2(FZ_CONSOLE_FD, 2);
        runner(f, FZ_CONSOLE_FD + 1);
        _exit(1);
    }
    close(p[1]);
    start = uptime_ms();
    while (pid > 0 && waitpid(pid, &status, WNOHANG) == 0) {
        if (uptime_ms() - start > f->seconds * 1000u + 60000u) {
            fz_say("FAIL %s_runner_ends: still running after %u s\n", f->name, f->seconds + 60);
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        sleep_ms(20);
    }
    if (read(p[0], &f->count, sizeof(f->count)) != sizeof(f->count))
        f->count = 0;
    close(p[0]);
    return pid < 0 ? -1 : status;
}

/* The program's first initialised variable: its object comes before libc's
 * in the link, so this is at (or near) the start of .data. */
static int fz_data_start = 1;

/* Take a private copy of every page the parent may write - data, bss, heap
 * and its part of the stack - right after a fork, while memory is plenty:
 * a child that runs the machine out of memory later cannot then make the
 * parent's next copy-on-write fault fail (which would kill it). */
static inline void fz_own_pages(void)
{
    volatile char *p, here = 0;
    unsigned top = (unsigned)&here + 65536, end = (unsigned)sbrk(0);

    if (top > 0xBFFFF000u)
        top = 0xBFFFF000u;
    for (p = (char *)((unsigned)&fz_data_start & ~4095u); (unsigned)p < end; p += 4096)
        *p = *p;
    for (p = (char *)(((unsigned)&here - 16384) & ~4095u); (unsigned)p < top; p += 4096)
        *p = *p;
}

/* Parse SEED SECONDS [MAXCOUNT]; 0 and the first heartbeat, or -1. */
static inline int fz_start(struct fuzz *f, const char *name, int argc, char **argv)
{
    memset(f, 0, sizeof(*f));
    f->name = name;
    if (argc < 3) {
        fprintf(stderr, "usage: %s SEED SECONDS [MAXCOUNT]\n", name);
        return -1;
    }
    f->seed = strtoul(argv[1], NULL, 0);
    f->seconds = strtoul(argv[2], NULL, 0);
    f->maxcount = argc > 3 ? strtoul(argv[3], NULL, 0) : 0;
    f->start_ms = f->last_beat = uptime_ms();
    if ((f->meminfo = open("/proc/meminfo", O_RDONLY)) < 0) {
        fprintf(stderr, "%s: /proc/meminfo: %s\n", name, strerror(errno));
        return -1;
    }
    fcntl(f->meminfo, F_SETFD, 0);
    f->free_at_start = fz_free_pages(f);
    f->blocks_at_start = fz_meminfo(f, "heap_blocks");
    f->heap_at_start = fz_meminfo(f, "heap_pages");
    fz_say("%s: seed %u count 0\n", f->name, f->seed);
    return 0;
}

/* Print the heartbeat if it is due; true once the run should stop. */
static inline int fz_over(struct fuzz *f)
{
    unsigned now = uptime_ms();

    if (now - f->last_beat >= BEAT_MS) {
        fz_say("%s: seed %u count %u\n", f->name, f->seed, f->count);
        f->last_beat = now;
    }
    return now - f->start_ms >= f->seconds * 1000u || (f->maxcount && f->count >= f->maxcount);
}

/* Sleep up to ms, keeping the heartbeat going. */
static inline void fz_nap(struct fuzz *f, unsigned ms)
{
    sleep_ms(ms);
    fz_over(f);
}

/* Wait for pid (if > 0) with a deadline: kill it when the deadline passes.
 * Its process group (a fuzzer's worker leads its own) is killed too, so no
 * grandchild outlives it. One that outlives SIGKILL by UNKILLABLE_MS is a
 * kernel bug: the heartbeat stops, and tools/fuzz.py reports a hang.
 * Returns the wait status, or -1. */
static inline int fz_reap(struct fuzz *f, int pid, unsigned deadline_ms)
{
    unsigned start = uptime_ms();
    int status = -1, r, killed = 0, yields = 0;

    while ((r = waitpid(pid, &status, WNOHANG)) == 0) {
        if (yields++ < REAP_YIELDS) { /* most children end at once: no tick's nap */
            sched_yield();
            continue;
        }
        if (!killed && uptime_ms() - start >= deadline_ms) {
            kill(pid, SIGKILL);
            killed = 1;
        }
        if (killed && uptime_ms() - start >= deadline_ms + UNKILLABLE_MS) {
            fz_say("%s: pid %d survives SIGKILL\n", f->name, pid);
            for (;;)
                sleep_ms(1000);                 /* no more heartbeats: a hang */
        }
        fz_nap(f, 2);
    }
    kill(-pid, SIGKILL);
    return r == pid ? status : -1;
}

/* One look through /proc: the number of processes besides init and the
 * caller, in *others (if not NULL), and of those acting for FZ_UID (a
 * process's /proc/<pid> is its user's: kernel/fs/procfs.c), which is the
 * return value. With `sweep`, each of FZ_UID's gets SIGKILL: they are a
 * jailed program's, and one may have left the group fz_reap kills
 * (setpgid takes any group), but nothing else runs as FZ_UID, so the
 * fuzzer (root) kills none of its own nor of init's. Once the fuzzer's
 * jailed child is reaped, one that is found is an escapee. */
static inline int fz_jailed_procs(int *others, int sweep)
{
    char buf[512], path[24];
    int n, i, fd, self = getpid(), count = 0, jailed = 0;
    struct stat st;

    fd = open("/proc", O_RDONLY | O_DIRECTORY);
    while (fd >= 0 && (n = getdents(fd, buf, sizeof(buf))) > 0) {
        for (i = 0; i < n; i += ((struct dirent *)(buf + i))->d_reclen) {
            int pid = atoi(((struct dirent *)(buf + i))->d_name);
            if (pid <= 1 || pid == self)
                continue;
            count++;
            snprintf(path, sizeof(path), "/proc/%d", pid);
            if (stat(path, &st) == 0 && st.st_uid == FZ_UID) {
                jailed++;
                if (sweep)
                    kill(pid, SIGKILL);
            }
        }
    }
    if (fd >= 0)
        close(fd);
    if (others)
        *others = count;
    return jailed;
}

/* The leak check and the last line. Every process the fuzzer made must be
 * gone first: they are orphans of init by now, and init reaps them, so wait
 * until /proc lists no one but init and us, sweeping FZ_UID's processes
 * each time round (fz_jailed_procs: a jailed program's escapees; anything
 * else left is counted, as before). Then free_pages must be what it
 * was at the start, exactly: the heap gives back every page (kernel/mm/kheap.c)
 * and reading meminfo through the fd kept open makes no new objects. */
static inline int fz_finish(struct fuzz *f)
{
    unsigned start = uptime_ms(), now_free = 0;
    int others = 1;

    while (uptime_ms() - start < SETTLE_MS) {
        fz_jailed_procs(&others, 1);
        now_free = fz_free_pages(f);
        if (!others && now_free == f->free_at_start)
            break;
        fz_nap(f, 50);
    }
    if (others || now_free != f->free_at_start)
        fz_say("FAIL %s_leaves_no_leak: free pages %u at the start, %u at the end; kernel "
               "heap blocks %u, %u, pages %u, %u; %d other processes left\n",
               f->name, f->free_at_start, now_free, f->blocks_at_start,
               fz_meminfo(f, "heap_blocks"), f->heap_at_start, fz_meminfo(f, "heap_pages"), others);
    else
        fz_say("PASS %s_leaves_no_leak\n", f->name);
    fz_say("%s: done seed %u count %u\n", f->name, f->seed, f->count);
    return others || now_free != f->free_at_start;
}

#endif
