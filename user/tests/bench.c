/* bench.c - microbenchmarks, run by `make bench` (tools/bench.py): each
 * line is "BENCH name value unit". Timing uses uptime_ms() (10 ms ticks),
 * so every loop runs long enough for that to be precise to a few percent. */
#include <fcntl.h>
#include <orthos.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

static char buf[65536];

static void report(const char *name, unsigned ops, unsigned ms, const char *unit, unsigned scale)
{
    if (ms == 0)
        ms = 1;
    /* units per second; 32-bit arithmetic (no 64-bit division without
     * libgcc) is exact while ops / scale stays under 4 million */
    printf("BENCH %s %u %s\n", name, ops / scale * 1000 / ms, unit);
}

static void bench_syscall(void)
{
    unsigned t = uptime_ms(), i;

    for (i = 0; i < 200000; i++)
        getppid();
    report("syscall_getppid", 200000, uptime_ms() - t, "calls/s", 1);
}

static void bench_fork_exec(void)
{
    char *argv[] = { "true", NULL };
    unsigned t = uptime_ms(), i;
    int status;

    for (i = 0; i < 100; i++) {
        if (fork() == 0) {
            execv("/bin/true", argv);
            _exit(127);
        }
        wait(&status);
    }
    report("fork_exec_wait", 100, uptime_ms() - t, "runs/s", 1);
}

/* Two processes hand the CPU to each other with sched_yield(): each
 * round trip is two context switches (and two system calls). */
static void bench_switch(void)
{
    unsigned rounds = 20000, t = uptime_ms(), i;
    int pid, status;

    if ((pid = fork()) == 0) {
        for (i = 0; i < rounds; i++)
            sched_yield();
        _exit(0);
    }
    for (i = 0; i < rounds; i++)
        sched_yield();
    waitpid(pid, &status, 0);
    report("context_switch", 2 * rounds, uptime_ms() - t, "switches/s", 1);
}

static void bench_pipe(void)
{
    unsigned total = 16 << 20, got = 0, t = uptime_ms();
    int p[2], n, status;

    pipe(p);
    if (fork() == 0) {
        unsigned sent;
        close(p[0]);
        for (sent = 0; sent < total; sent += sizeof(buf))
            write(p[1], buf, sizeof(buf));
        _exit(0);
    }
    close(p[1]);
    while ((n = read(p[0], buf, sizeof(buf))) > 0)
        got += n;
    close(p[0]);
    wait(&status);
    report("pipe_throughput", got, uptime_ms() - t, "KiB/s", 1024);
}

static void bench_file(const char *name, const char *path, unsigned total)
{
    unsigned t, done;
    int fd;

    if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
        return;
    t = uptime_ms();
    for (done = 0; done < total; done += sizeof(buf))
        if (write(fd, buf, sizeof(buf)) != sizeof(buf))
            break;
    close(fd);
    sync();
    report(name, done, uptime_ms() - t, "KiB/s", 1024);
}

int main(void)
{
    memset(buf, 'b', sizeof(buf));
    bench_syscall();
    bench_fork_exec();
    bench_switch();
    bench_pipe();
    bench_file("ramfs_write", "/tmp/bench", 8 << 20);
    if (walk(AT_CWD, "/mnt/lost+found", 0) >= 0)     /* init attached the disk */
        bench_file("ext2_ata_write", "/mnt/bench", 16 << 20);
    printf("bench: done\n");
    return 0;
}
