/* bench_vfs.c - what each system call of open() and of create + unlink
 * costs on ramfs, call by call: the breakdown behind bench.c's
 * ramfs_open_close and ramfs_create_unlink rows (a developer's tool,
 * README "Where the kernel's time goes"):
 *   bench_vfs [DIR]                each call's cost, in DIR (/tmp)
 *   bench_vfs open|create [DIR]    that loop alone for SECONDS, then
 *                                  /proc/prof (boot with `prof`)
 *   bench_vfs null                 the same for getppid(): the cost of
 *                                  a system call itself
 * Each call is timed alone with rdtsc, N times, and the median is turned
 * into nanoseconds against the timer, in 32-bit arithmetic (the guest has
 * no 64-bit division): fine for the few microseconds a call takes. The
 * median, not the mean: on a shared machine the host preempts QEMU now
 * and then, and a mean takes in every such pause. */
#include <fcntl.h>
#include <orthos.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N       2000
#define SECONDS 4

enum { WALK, FSTAT, READY, CLOSE, DUP, DUP2, CREATE, UNLINK, GETPPID, OPEN, CREAT_OPEN, NROW };
static const char *row[NROW] = { "walk",   "fstat",  "ready",   "close",      "dup",         "dup2",
                                 "create", "unlink", "getppid", "open+close", "creat+unlink" };
static uint32_t cyc[NROW][4 * N], cnt[NROW];

static uint32_t rdtsc32(void)
{
    uint32_t lo, hi;

    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return lo;
}

/* Time one call: x is its expression, r its row. */
#define T(r, x) \
    do { \
        uint32_t c0 = rdtsc32(); \
        x; \
        cyc[r][cnt[r]++] = rdtsc32() - c0; \
    } while (0)

/* One loop alone for SECONDS, then the profile of the whole run. */
static void profile(const char *what, const char *oc, const char *cu)
{
    unsigned t = uptime_ms(), n = 0;
    char buf[512];
    int fd, got;

    while (uptime_ms() - t < SECONDS * 1000) {
        if (strcmp(what, "open") == 0)
            close(open(oc, O_RDONLY));
        else if (strcmp(what, "null") == 0)
            getppid();
        else {
            close(open(cu, O_WRONLY | O_CREAT | O_EXCL, 0644));
            unlink(cu);
        }
        n++;
    }
    printf("bench_vfs: %s %u times in %d s\n", what, n, SECONDS);
    if ((fd = open("/proc/prof", O_RDONLY)) < 0) {
        printf("bench_vfs: no /proc/prof: boot with `prof`\n");
        return;
    }
    while ((got = read(fd, buf, sizeof(buf))) > 0)
        write(1, buf, got);
    close(fd);
}

static int by_value(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int prof = argc > 1 && (strcmp(argv[1], "open") == 0 || strcmp(argv[1], "create") == 0 ||
                            strcmp(argv[1], "null") == 0);
    const char *dir = argc > 1 + prof ? argv[1 + prof] : "/tmp";
    char oc[64], cu[64];
    struct stat st;
    uint32_t c0, ms0, cpms; /* TSC cycles per ms */
    int i, p, f, d;

    snprintf(oc, sizeof(oc), "%s/bv.oc", dir);
    snprintf(cu, sizeof(cu), "%s/bv.cu", dir);
    close(open(oc, O_WRONLY | O_CREAT | O_TRUNC, 0644));
    if (prof) {
        profile(argv[1], oc, cu);
        unlink(oc);
        printf("bench_vfs: done\n");
        return 0;
    }
    while (uptime_ms() == (ms0 = uptime_ms()))
        ;
    c0 = rdtsc32();
    for (i = 0; i < N; i++) {
        T(WALK, p = walk(AT_CWD, oc, 0));
        T(FSTAT, fstat(p, &st));
        T(READY, f = ready(p, R_READ));
        T(DUP, d = dup(f));
        T(CLOSE, close(f));
        T(DUP2, dup2(d, p));
        T(CLOSE, close(d));
        T(CLOSE, close(p));
        T(CREATE, p = create(AT_CWD, cu, S_IFREG, 0644, 0));
        T(CLOSE, close(p));
        T(UNLINK, unlinkat(AT_CWD, cu, 0));
        T(GETPPID, getppid());
        T(OPEN, close(open(oc, O_RDONLY)));
        T(CREAT_OPEN, (close(open(cu, O_WRONLY | O_CREAT | O_EXCL, 0644)), unlink(cu)));
    }
    cpms = (rdtsc32() - c0) / (uptime_ms() - ms0);
    for (i = 0; i < NROW; i++) {
        qsort(cyc[i], cnt[i], sizeof(cyc[i][0]), by_value);
        printf("VFSCOST %-12s %6u ns\n", row[i],
               (unsigned)(cyc[i][cnt[i] / 2] * 1000 / (cpms / 1000)));
    }
    unlink(oc);
    printf("bench_vfs: done\n");
    return 0;
}
