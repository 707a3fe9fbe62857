/* fuzz_elf.c - the ELF fuzzer: /bin/fuzz_elf SEED SECONDS [MAXCOUNT].
 *
 * Real programs from /bin (and a tiny hand-made one) are the seeds. Each
 * round takes one, changes what the loader reads - e_phoff, e_phnum,
 * e_phentsize, the entry point, every program header field (type, offset,
 * sizes, a vaddr in the kernel or one that wraps, alignment), overlapping
 * segments, a truncated file, huge values, random bytes - writes it to
 * /tmp and execs it in a child. exec must fail with an error code and
 * leave the child intact (it checks its own memory and exits with the
 * errno), or succeed and run: then the program dies of a fault or is
 * killed when its time is up. Never a panic, a hang or a reset.
 * MAXCOUNT and the count are execs.
 *
 * A mutated program must not be able to do anything but fault: every
 * `int $0x80` (cd 80) and `sysenter` (0f 34) byte pair in an image gets
 * `int3` for its first byte before it is written (fz_defuse), so no code
 * from the file can make a system call (poweroff, kill, create included).
 * Code it writes at run time can (there is no NX bit): so the child
 * execs it in a jail (fz_exec_jailed, fuzz.h), as user FZ_UID in a
 * sandbox of its own, where any call reaches only its own things. A
 * process such a program forks may leave the group fz_reap kills, so
 * once a second the fuzzer kills whatever runs as FZ_UID (fz_jailed_procs).
 * doc/fuzzing.md has more. */
#include <fcntl.h>
#include <orthos.h>
#include "fuzz.h"
#include "proc/elf.h"
#include "array_size.h"

#define IMAGE     "/tmp/fuzz_elf.img"
#define MAX_IMAGE (160 * 1024)
#define NSEEDS    5
#define EXEC_MS   300             /* a program that runs longer is killed */
#define SWEEP_MS  1000            /* how often FZ_UID's escapees are killed */
#define PAGE      4096u

static const char *const seed_files[] = { "/bin/true", "/bin/echo", "/bin/wc", "/bin/kill" };

static struct {
    char *data;
    unsigned size;
} seeds[NSEEDS];
static int nseeds;
static unsigned char img[MAX_IMAGE + PAGE];
static unsigned rng;

/* Results, by kind: exit codes 0..63 are errnos from a failed exec. */
static unsigned by_errno[64], killed, bad_after_fail, swept;

/* A child that saw exec fail checks this is still intact. */
static const char guard_text[] = "exec failed and left the caller alone";
static char guard[sizeof(guard_text)];

static unsigned rnd(unsigned n)
{
    return fz_below(&rng, n);
}

static int chance(unsigned percent)
{
    return rnd(100) < percent;
}

/* The part of an ELF file the loader reads: up to the end of the last
 * segment's bytes (section headers and debug information are left off). */
static unsigned loaded_size(const char *d, unsigned size)
{
    const struct elf_header *h = (const struct elf_header *)d;
    unsigned end = sizeof(*h), i;

    for (i = 0; i < h->phnum && h->phoff + (i + 1) * sizeof(struct elf_phdr) <= size; i++) {
        const struct elf_phdr *ph = (const struct elf_phdr *)(d + h->phoff) + i;
        if (ph->offset + ph->filesz > end && ph->offset + ph->filesz <= size)
            end = ph->offset + ph->filesz;
        if (h->phoff + (i + 1) * sizeof(*ph) > end)
            end = h->phoff + (i + 1) * sizeof(*ph);
    }
    return end;
}

static void load_seeds(void)
{
    unsigned i;
    int fd, n, r;

    for (i = 0; i < ARRAY_SIZE(seed_files); i++) {
        char *d = malloc(MAX_IMAGE);
        if (!d || (fd = open(seed_files[i], O_RDONLY)) < 0)
            continue;
        for (n = 0; n < MAX_IMAGE && (r = read(fd, d + n, MAX_IMAGE - n)) > 0; n += r)
            ;
        close(fd);
        if (n > (int)sizeof(struct elf_header)) {
            seeds[nseeds].data = d;
            seeds[nseeds++].size = loaded_size(d, n);
        }
    }
    seeds[nseeds].data = malloc(256);
    seeds[nseeds].size = fz_tiny_elf(seeds[nseeds].data);
    nseeds++;
}

/* Interesting values for an address, an offset or a size. */
static unsigned pick(const unsigned *v, unsigned n)
{
    return chance(85) ? v[rnd(n)] : fz_next(&rng);
}
#define PICK(...) \
    pick((const unsigned[]){ __VA_ARGS__ }, \
         sizeof((const unsigned[]){ __VA_ARGS__ }) / sizeof(unsigned))

/* Change one thing the loader reads. size is the image's length so far. */
static void mutate(unsigned *size)
{
    struct elf_header *h = (struct elf_header *)img;
    unsigned nph = h->phnum < 16 ? h->phnum : 16, i;
    struct elf_phdr *ph;

    if (h->phoff < *size && nph && h->phoff + nph * sizeof(*ph) <= *size)
        ph = (struct elf_phdr *)(img + h->phoff) + rnd(nph);
    else
        ph = (struct elf_phdr *)(img + sizeof(*h));
    switch (rnd(20)) {
    case 0:
        h->phoff = PICK(0, 1, 51, 52, 53, *size - 1, *size, *size + 100, 0xFFFFFFF0, 0x7FFFFFFF,
                        h->phoff + 4);
        break;
    case 1: h->phnum = PICK(0, 1, 2, 15, 16, 17, 255, 0xFFFF); break;
    case 2: h->phentsize = PICK(0, 1, 31, 32, 33, 64, 0xFFFF); break;
    case 3:
        h->entry = PICK(0, 0x3FFFFF, 0x400000, 0x10000000, 0xBFFDF000 - 1, 0xBFFFFFFF, 0xC0000000,
                        0xC0100000, 0xFFFFFFFF, ph->vaddr + ph->memsz, ph->vaddr + ph->memsz - 1);
        break;
    case 4:                                     /* the identification */
        i = rnd(20);
        img[i < 16 ? i : 16 + 2 * (i - 16)] = (unsigned char)fz_next(&rng);
        break;
    case 5: ph->type = PICK(PT_LOAD, 0, 2, 3, 4, 6, 7, 0x6474E551, 0x70000000); break;
    case 6:
        ph->offset = PICK(0, 1, ph->offset + 1, *size - 1, *size, *size + PAGE, 0xFFFFF000,
                          0xFFFFFFFF, 0x80000000);
        break;
    case 7:
        ph->filesz = PICK(0, 1, ph->memsz, ph->memsz + 1, *size, *size + 1, 0xFFFFFFFF, 0x7FFFFFFF,
                          ph->filesz + PAGE);
        break;
    case 8:
        ph->memsz = PICK(0, ph->filesz, ph->filesz - 1, ph->filesz + 1, 0x7FFFFFFF, 0x80000000,
                         0xFFFFFFFF, 64u << 20, 200u << 20, 0xBFBFF000);
        break;
    case 9:                                     /* the kernel, the stack, wrapping */
        ph->vaddr = PICK(0, 0x1000, 0x3FF000, 0x3FFFFF, 0x400001, 0xBFFDE000, 0xBFFDF000,
                         0xBFFFF000, 0xC0000000, 0xC0100000, 0xBFFFFFFF, 0xFFFFF000, 0 - ph->memsz,
                         0x80000000, ph->vaddr + 1, ph->vaddr - PAGE);
        break;
    case 10: ph->align = PICK(0, 1, 3, 16, 4096, 0x400000, 0x80000000); break;
    case 11: ph->flags = fz_next(&rng); break;
    case 12:                                    /* overlapping segments */
        if (nph >= 2 && *size >= 2 * sizeof(*ph) && h->phoff <= *size - 2 * sizeof(*ph)) {
            struct elf_phdr *a = (struct elf_phdr *)(img + h->phoff);
            a[1] = a[0];
            a[1].vaddr += PICK(0, 1, PAGE - 1, PAGE, a[0].memsz / 2);
            a[1].flags ^= PF_W;
        }
        break;
    case 13:                                    /* many headers */
        h->phnum = 16;
        if (h->phoff <= MAX_IMAGE - 16 * sizeof(*ph)) { /* (phoff may be huge: no sum) */
            for (i = 1; i < 16; i++)
                ((struct elf_phdr *)(img + h->phoff))[i] = *ph;
            if (*size < h->phoff + 16 * sizeof(*ph))
                *size = h->phoff + 16 * sizeof(*ph);
        }
        break;
    case 14:
    case 15:                           /* truncated */
        *size = PICK(0, 1, 51, 52, 53, h->phoff, h->phoff + 16, h->phoff + 32, ph->offset,
                     ph->offset + ph->filesz / 2, *size - 1) %
                (*size + 1);
        break;
    case 16:
    case 17:                           /* random bytes in the headers */
        for (i = rnd(8) + 1; i > 0; i--)
            img[rnd(h->phoff + 2 * sizeof(*ph) < *size ? h->phoff + 2 * sizeof(*ph) : *size)] =
                (unsigned char)fz_next(&rng);
        break;
    default:                                    /* random bytes anywhere */
        for (i = rnd(16) + 1; i > 0 && *size; i--)
            img[rnd(*size)] = (unsigned char)fz_next(&rng);
        break;
    }
}

/* Write the image where every round puts it: 0 or -1. */
static int put_image(unsigned size, int mode)
{
    int fd, w;

    unlink(IMAGE);
    if ((fd = create(AT_CWD, IMAGE, S_IFREG, mode, 0)) < 0)
        return -1;
    w = ready(fd, R_WRITE);
    close(fd);
    if (w < 0 || writeall(w, img, size) < 0) {
        close(w);
        return -1;
    }
    close(w);
    return 0;
}

/* The child: exec the image in the jail (fz_exec_jailed); if that fails,
 * report the errno, unless the failed exec damaged the caller. */
static void __attribute__((noreturn)) try_exec(void)
{
    static char *many[80], big[40000];
    char *argv[] = { "elf", "arg", NULL }, *envp[] = { "X=1", NULL };
    char *bad[] = { "elf", (char *)0x1000, NULL };
    char **av = argv, **ev = chance(50) ? envp : NULL;
    int err, i;

    switch (rnd(40)) {                          /* now and then, arguments exec must refuse */
    case 0: av = (char **)0x1000; break;        /* EFAULT */
    case 1: av = bad; break;                    /* EFAULT */
    case 2: ev = (char **)(0xC0000000); break;  /* EFAULT */
    case 3:                                     /* E2BIG: too many */
        for (i = 0; i < 79; i++)
            many[i] = "x";
        av = many;
        break;
    case 4:                                     /* E2BIG: too long */
        memset(big, 'b', sizeof(big) - 1);
        argv[1] = big;
        break;
    }
    if (fz_exec_jailed(IMAGE, av, ev) > 0)     /* no image, or no jail */
        _exit(63);
    err = errno;
    if (memcmp(guard, guard_text, sizeof(guard)) != 0)
        _exit(62);
    _exit(err > 0 && err < 62 ? err : 61);
}

static const char *errname(int e)
{
    switch (e) {
    case ENOEXEC: return "ENOEXEC";
    case ENOMEM: return "ENOMEM";
    case EFAULT: return "EFAULT";
    case EACCES: return "EACCES";
    case E2BIG: return "E2BIG";
    case EIO: return "EIO";
    }
    return NULL;
}

int main(int argc, char **argv)
{
    struct fuzz f;
    unsigned round, size, i, last_sweep;
    int pid, status, e;

    load_seeds();                               /* (its memory stays: before the count) */
    if (fz_start(&f, "fuzz_elf", argc, argv) < 0)
        return 2;
    if (getuid() != 0) {                        /* fz_jail builds as root, runs as FZ_UID */
        fprintf(stderr, "fuzz_elf: must run as root, to jail what it runs\n");
        return 2;
    }
    memcpy(guard, guard_text, sizeof(guard));
    last_sweep = uptime_ms();
    for (round = 0; !fz_over(&f); round++) {
        rng = fz_seed(f.seed, round);
        i = rnd(nseeds);
        size = seeds[i].size;
        memcpy(img, seeds[i].data, size);
        for (i = chance(5) ? 0 : 1 + rnd(4); i > 0; i--)
            mutate(&size);
        fz_defuse(img, size);              /* (std, popf and iret stay: trap entry clears DF) */
        if (put_image(size, chance(97) ? 0755 : 0644) < 0) {
            fz_say("fuzz_elf: cannot write %s: %s\n", IMAGE, strerror(errno));
            break;
        }
        fflush(stdout);
        if ((pid = fork()) == 0)
            try_exec();
        if (pid < 0) {
            fz_nap(&f, 10);
            continue;
        }
        status = fz_reap(&f, pid, EXEC_MS);
        f.count++;
        e = -1;
        if (WIFSIGNALED(status))
            killed++;
        else if ((e = WEXITSTATUS(status)) == 62)
            bad_after_fail++;
        else
            by_errno[e & 63]++;
        if (e == 62 || (WIFEXITED(status) && !errname(e)))
            fz_say("fuzz_elf: round %u: exec gave %s %d\n", round,
                   e == 62 ? "a damaged caller, status" : "unexpected errno", e);
        if (uptime_ms() - last_sweep >= SWEEP_MS) { /* (the child is reaped: none is ours) */
            swept += fz_jailed_procs(NULL, 1);
            last_sweep = uptime_ms();
        }
    }
    unlink(IMAGE);
    fz_say("fuzz_elf: %u killed after exec, ENOEXEC %u, ENOMEM %u, EFAULT %u, EACCES %u, "
           "E2BIG %u, other %u; %u escaped processes swept\n",
           killed, by_errno[ENOEXEC], by_errno[ENOMEM], by_errno[EFAULT], by_errno[EACCES],
           by_errno[E2BIG],
           f.count - killed - by_errno[ENOEXEC] - by_errno[ENOMEM] - by_errno[EFAULT] -
               by_errno[EACCES] - by_errno[E2BIG],
           swept);
    return fz_finish(&f);
}
