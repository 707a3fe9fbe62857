/* t_proc.c - processes and system calls, seen from user space: fork trees
 * and wait statuses, orphans, kill, sbrk, faults that kill only the child,
 * exec of garbage, 1,000 system calls with bad pointers, and fork+exec+wait
 * a hundred times without losing a page. */
#include <fcntl.h>
#include <orthos.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "t.h"
#include "array_size.h"

static void fork_tree_reports_every_exit_code(void)
{
    int i, status, pid, seen = 0;

    fflush(stdout);
    for (i = 0; i < 5; i++) {
        if ((pid = fork()) == 0) {
            int j, st, sum = 0;
            for (j = 0; j < 2; j++)
                if (fork() == 0)
                    _exit(j + 1);
            for (j = 0; j < 2; j++) {
                if (wait(&st) < 0 || !WIFEXITED(st))
                    _exit(99);
                sum += WEXITSTATUS(st);
            }
            _exit(sum == 3 ? 10 + i : 98);      /* grandchildren exited 1 and 2 */
        }
        CHECK(pid > 0, "fork failed");
    }
    for (i = 0; i < 5; i++) {
        CHECK((pid = wait(&status)) > 0, "wait failed");
        CHECK(WIFEXITED(status), "child %d did not exit normally (status %x)", pid, status);
        CHECK(WEXITSTATUS(status) >= 10 && WEXITSTATUS(status) < 15, "exit code %d",
              WEXITSTATUS(status));
        seen |= 1 << (WEXITSTATUS(status) - 10);
    }
    CHECK(seen == 0x1F, "exit codes seen: %x", seen);
    CHECK_ERR(wait(&status), ECHILD);
    CHECK_ERR(waitpid(12345, &status, 0), ECHILD);
    PASS();
}

static void wait_nohang_returns_zero_while_running(void)
{
    int fds[2], pid, status, quick, i;
    char c = 'x', buf[160];

    CHECK(pipe(fds) == 0, "pipe");
    fflush(stdout);
    if ((pid = fork()) == 0) {
        read(fds[0], &c, 1);            /* wait until the parent says go */
        _exit(7);
    }
    CHECK(waitpid(pid, &status, WNOHANG) == 0, "WNOHANG on a running child");
    if ((quick = fork()) == 0)
        _exit(3);
    for (i = 0; i < 300 && strcmp(proc_state(quick, buf, sizeof(buf)), "zombie") != 0; i++)
        sleep_ms(10);
    CHECK(waitpid(pid, &status, WNOHANG) == 0, "WNOHANG on a running child, another one dead");
    write(fds[1], &c, 1);
    CHECK(waitpid(pid, &status, 0) == pid && WEXITSTATUS(status) == 7, "status %x", status);
    CHECK(waitpid(quick, &status, 0) == quick && WEXITSTATUS(status) == 3, "status %x", status);
    close(fds[0]);
    close(fds[1]);
    PASS();
}

static void orphans_are_adopted_by_init(void)
{
    int fds[2], ans[2] = { 0, 0 }, status;

    CHECK(pipe(fds) == 0, "pipe");
    fflush(stdout);
    if (fork() == 0) {
        if (fork() == 0) {
            char text[256];
            int ans[2];
            sleep_ms(100);              /* by now our parent has exited */
            ans[0] = getppid();
            ans[1] = slurp("/proc/self/status", text, sizeof(text)) > 0 &&
                     strstr(text, "\nppid 1\n") != NULL;
            write(fds[1], ans, sizeof(ans));
            _exit(0);
        }
        _exit(0);
    }
    wait(&status);
    close(fds[1]);
    CHECK(read(fds[0], ans, sizeof(ans)) == sizeof(ans), "no answer from the orphan");
    CHECK(ans[0] == 1, "orphan's parent is %d, not init", ans[0]);
    CHECK(ans[1] == 1, "the orphan's /proc/self/status does not say ppid 1");
    close(fds[0]);
    PASS();
}

/* A child that is already a zombie when its parent exits goes to init,
 * which must be woken to reap it: init sleeps in wait() for a child of
 * its own, and nothing else would wake it. Steps: what failed. */
static int orphan_zombie_steps(int *grandchild)
{
    int fds[2], pid, b;
    char buf[160];

    if (pipe(fds) < 0)
        return 1;
    fflush(stdout);
    if ((pid = fork()) == 0) {
        if ((b = fork()) == 0)
            _exit(0);
        write(fds[1], &b, sizeof(b));
        while (strcmp(proc_state(b, buf, sizeof(buf)), "zombie") != 0)
            sleep_ms(5);                /* a zombie before its parent exits */
        _exit(0);
    }
    close(fds[1]);
    if (read(fds[0], grandchild, sizeof(*grandchild)) != sizeof(*grandchild))
        return 2;
    close(fds[0]);
    if (waitpid(pid, &b, 0) != pid)
        return 3;
    return 0;
}

static void an_orphan_already_a_zombie_is_reaped_by_init(void)
{
    int g = 0, step = orphan_zombie_steps(&g), t;
    char path[32], buf[160];

    CHECK(step == 0, "step %d", step);
    snprintf(path, sizeof(path), "/proc/%d/status", g);
    for (t = 0; t < 3000 && slurp(path, buf, sizeof(buf)) > 0; t += 10)
        sleep_ms(10);
    CHECK(slurp(path, buf, sizeof(buf)) < 0 && errno == ENOENT,
          "pid %d is still there after 3 s: %s", g, proc_state(g, buf, sizeof(buf)));
    PASS();
}

/* A child that blocks in read(fd) until the pipe closes (or it is
 * killed); it closes the pipe's other end, wr, if it has it. */
static int blocked_child(int fd, int wr)
{
    int pid;
    char c;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        if (wr >= 0)
            close(wr);
        read(fd, &c, 1);
        _exit(0);
    }
    return pid;
}

/* A child that is a zombie: exited, not yet reaped. */
static int zombie_child(int own_group)
{
    char buf[160];
    int pid, i;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        if (own_group)
            setpgid(0, 0);
        _exit(5);
    }
    for (i = 0; i < 300 && strcmp(proc_state(pid, buf, sizeof(buf)), "zombie") != 0; i++)
        sleep_ms(10);
    return pid;
}

/* kill(2): a zombie is no process to signal, nor is a group of zombies
 * (ESRCH); of two signals the first is the one wait reports. */
static void kill_knows_zombies_and_keeps_the_first_signal(void)
{
    int p[2], z, pid, status;

    CHECK((z = zombie_child(1)) > 0, "fork");
    CHECK_ERR(kill(z, SIGTERM), ESRCH);
    CHECK_ERR(kill(-z, SIGTERM), ESRCH);        /* its group: only a zombie in it */
    CHECK(waitpid(z, &status, 0) == z && WIFEXITED(status) && WEXITSTATUS(status) == 5,
          "the zombie's own status, %x", status);
    CHECK(pipe(p) == 0, "pipe");
    CHECK((pid = blocked_child(p[0], p[1])) > 0, "fork");
    CHECK(wait_until_sleeping(pid, 2000), "the child does not sleep");
    CHECK(kill(pid, SIGTERM) == 0 && kill(pid, SIGKILL) == 0, "kill twice");
    CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
          "status %x: want the first signal, SIGTERM", status);
    close(p[0]);
    close(p[1]);
    PASS();
}

/* A forked child is in its parent's group: kill(-group) reaches it. */
static int group_with_a_grandchild(int wr, int rd)
{
    int g;

    setpgid(0, 0);
    if ((g = blocked_child(rd, -1)) < 0)
        return 1;
    write(wr, &g, sizeof(g));
    for (;;)
        sleep_ms(1000);
}

static void a_forked_child_is_in_its_parents_group(void)
{
    int p[2], hold[2], a, g = 0, status, t;
    char buf[160];

    CHECK(pipe(p) == 0 && pipe(hold) == 0, "pipe");
    fflush(stdout);
    if ((a = fork()) == 0) {
        close(hold[1]);
        _exit(group_with_a_grandchild(p[1], hold[0]));
    }
    close(hold[0]);
    CHECK(read(p[0], &g, sizeof(g)) == sizeof(g) && g > 0, "the grandchild's pid");
    CHECK(wait_until_sleeping(g, 2000), "the grandchild does not sleep");
    CHECK(kill(-a, SIGKILL) == 0, "kill the group");
    CHECK(waitpid(a, &status, 0) == a && WIFSIGNALED(status), "status %x", status);
    for (t = 0; t < 2000 && *proc_state(g, buf, sizeof(buf)); t += 10)
        sleep_ms(10);                   /* init reaps it once it is dead */
    CHECK(!*proc_state(g, buf, sizeof(buf)), "the grandchild is %s, not killed with its group",
          proc_state(g, buf, sizeof(buf)));
    if (*proc_state(g, buf, sizeof(buf)))
        kill(g, SIGKILL);
    close(hold[1]);
    close(p[0]);
    close(p[1]);
    PASS();
}

/* A pid still naming a live process group is not given out: the new
 * process would be killed with that group. Root may put a process in a
 * group of any number; here, the number the next fork would get. */
static void a_pid_in_use_as_a_group_is_not_given_out(void)
{
    int hold[2], a, b, status;

    CHECK(pipe(hold) == 0, "pipe");
    CHECK((a = blocked_child(hold[0], hold[1])) > 0, "fork");
    CHECK(setpgid(a, a + 1) == 0, "setpgid(%d, %d)", a, a + 1);
    CHECK((b = blocked_child(hold[0], hold[1])) > 0, "fork");
    CHECK(b != a + 1, "pid %d given out while group %d lives", b, a + 1);
    CHECK(kill(-(a + 1), SIGKILL) == 0 && waitpid(a, &status, 0) == a && WIFSIGNALED(status),
          "kill the group");
    CHECK(waitpid(b, &status, WNOHANG) == 0, "the new process went with the group");
    close(hold[1]);
    CHECK(waitpid(b, &status, 0) == b && status == 0, "status %x", status);
    close(hold[0]);
    PASS();
}

/* The waits a kill must end: wait() for a child that lives on, and a
 * long sleep. */
static int waits_for_a_blocked_child(int rd)
{
    int status;

    if (blocked_child(rd, -1) < 0)
        return 1;
    wait(&status);
    return 2;
}

static void kill_ends_a_wait_and_a_long_sleep(void)
{
    int hold[2], pid, status;
    char c;

    CHECK(pipe(hold) == 0, "pipe");
    fflush(stdout);
    if ((pid = fork()) == 0) {
        close(hold[1]);
        _exit(waits_for_a_blocked_child(hold[0]));
    }
    close(hold[0]);
    CHECK(wait_until_sleeping(pid, 2000), "the parent does not sleep in wait");
    CHECK(kill(pid, SIGKILL) == 0, "kill");
    CHECK(wait_child_ms(pid, 2000, &status) && WIFSIGNALED(status), "a wait outlived a kill");
    close(hold[1]);                     /* the grandchild ends; init reaps it */
    CHECK(pipe(hold) == 0, "pipe");
    fflush(stdout);
    if ((pid = fork()) == 0) {
        write(hold[1], "s", 1);         /* (woken at every tick, it seldom looks asleep) */
        sleep_ms(60000);
        _exit(3);
    }
    CHECK(read(hold[0], &c, 1) == 1, "the sleeper did not start");
    close(hold[0]);
    close(hold[1]);
    CHECK(kill(pid, SIGKILL) == 0, "kill");
    CHECK(wait_child_ms(pid, 2000, &status) && WIFSIGNALED(status), "a sleep outlived a kill");
    PASS();
}

static void kill_ends_a_sleeping_child(void)
{
    int pid, status;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        for (;;)
            sleep_ms(1000);
    }
    sleep_ms(20);
    CHECK(kill(pid, SIGTERM) == 0, "kill");
    CHECK(waitpid(pid, &status, 0) == pid, "wait");
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "status %x", status);
    CHECK_ERR(kill(pid, SIGTERM), ESRCH);
    CHECK_ERR(kill(getpid(), 0), EINVAL);
    CHECK_ERR(kill(1, SIGKILL), EPERM);
    PASS();
}

static void busy_child(void)
{
    volatile unsigned n = 0;

    for (;;)
        n++;
}

/* A child that never makes a system call is still preempted and killed. */
static void preemption_lets_parent_kill_a_spinning_child(void)
{
    int pid, status;

    fflush(stdout);
    if ((pid = fork()) == 0)
        busy_child();
    sleep_ms(30);                       /* only possible if the timer preempts */
    CHECK(kill(pid, SIGKILL) == 0, "kill");
    CHECK(waitpid(pid, &status, 0) == pid && WTERMSIG(status) == SIGKILL, "status %x", status);
    PASS();
}

static void sbrk_grows_and_shrinks(void)
{
    char *start = sbrk(0), *p;
    int i;

    CHECK(sbrk(1 << 20) == start, "sbrk returned a different old end");
    p = start;
    for (i = 0; i < (1 << 20); i += 4096)
        p[i] = (char)i;                 /* every page is there */
    CHECK(sbrk(0) == start + (1 << 20), "end did not move");
    CHECK(sbrk(-(1 << 20)) == start + (1 << 20), "shrink");
    CHECK(sbrk(0) == start, "end after shrink");
    errno = 0;
    CHECK(sbrk(0x7FFFFFFF) == (void *)-1 && errno == ENOMEM, "a huge sbrk must fail");
    CHECK(sbrk(-0x10000000) == (void *)-1 && errno == EINVAL, "shrinking below the start");
    errno = 0;                          /* below the start without wrapping: into the program */
    CHECK(sbrk(-(int)((unsigned)sbrk(0) / 2)) == (void *)-1 && errno == EINVAL,
          "shrinking into the program's own data");
    PASS();
}

static char *volatile freed_heap;

static void touch_freed_heap(void)
{
    freed_heap[0] = 1;
}

static void shrunk_heap_is_really_gone(void)
{
    int status;

    freed_heap = sbrk(8192);
    sbrk(-8192);
    status = child_status(touch_freed_heap);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, "status %x", status);
    PASS();
}

static void null_deref(void)
{
    *(volatile int *)0 = 1;
}

static void bad_opcode(void)
{
    __asm__ volatile("ud2");
}

static void divide_by_zero(void)
{
    __asm__ volatile("xorl %%ecx, %%ecx; movl $1, %%eax; cltd; idivl %%ecx" ::
                         : "eax", "ecx", "edx");
}

static void write_to_text(void)
{
    *(volatile char *)&write_to_text = 0;
}

static void breakpoint(void)
{
    __asm__ volatile("int3");
}

static void overflow(void)
{
    __asm__ volatile("movl $0x7fffffff, %%eax; addl $1, %%eax; into" : : : "eax", "cc");
}

static void privileged_instruction(void)
{
    __asm__ volatile("cli");
}

static void kernel_address(void)
{
    *(volatile int *)0xC0100000 = 1;
}

static void faults_kill_only_the_child(void)
{
    static const struct {
        void (*fn)(void);
        int sig;
        const char *what;
    } cases[] = {
        { null_deref, SIGSEGV, "NULL write" },
        { bad_opcode, SIGILL, "ud2" },
        { divide_by_zero, SIGFPE, "divide by zero" },
        { write_to_text, SIGSEGV, "write to text" },
        { privileged_instruction, SIGSEGV, "cli" },
        { kernel_address, SIGSEGV, "kernel address" },
        { breakpoint, SIGTRAP, "int3" },
        { overflow, SIGSEGV, "into" },
    };
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        int status = child_status(cases[i].fn);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == cases[i].sig,
              "%s: status %x, want signal %d", cases[i].what, status, cases[i].sig);
    }
    PASS();                             /* and we are still here */
}

/* Write `n` bytes of `data` to a new executable file in /tmp, return a path fd. */
static int make_file(const char *path, const void *data, int n, int mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

    if (fd < 0 || write(fd, data, n) != n)
        return -1;
    close(fd);
    return walk(AT_CWD, path, 0);
}

static void exec_rejects_garbage(void)
{
    static char junk[4096];
    char elf[200];
    char *argv[] = { "x", NULL };
    int fd, i, tfd;

    for (i = 0; i < (int)sizeof(junk); i++)
        junk[i] = (char)(i * 7 + 3);
    CHECK((fd = make_file("/tmp/empty", junk, 0, 0755)) >= 0, "setup");
    CHECK_ERR(exec(fd, argv, NULL), ENOEXEC);
    close(fd);
    CHECK((fd = make_file("/tmp/junk", junk, sizeof(junk), 0755)) >= 0, "setup");
    CHECK_ERR(exec(fd, argv, NULL), ENOEXEC);
    close(fd);
    /* A real ELF header, then nothing: program headers missing. */
    CHECK((tfd = open("/bin/true", O_RDONLY)) >= 0, "open /bin/true");
    CHECK(read(tfd, elf, sizeof(elf)) == sizeof(elf), "read /bin/true");
    close(tfd);
    CHECK((fd = make_file("/tmp/trunc", elf, 60, 0755)) >= 0, "setup");
    CHECK_ERR(exec(fd, argv, NULL), ENOEXEC);
    close(fd);
    elf[28] = 0x7F;                     /* e_phoff far past the end of the file */
    CHECK((fd = make_file("/tmp/badph", elf, sizeof(elf), 0755)) >= 0, "setup");
    CHECK_ERR(exec(fd, argv, NULL), ENOEXEC);
    close(fd);
    CHECK((fd = make_file("/tmp/noexec", junk, 10, 0644)) >= 0, "setup");
    CHECK_ERR(exec(fd, argv, NULL), EACCES);
    close(fd);
    CHECK((fd = walk(AT_CWD, "/tmp", 0)) >= 0, "walk /tmp");
    CHECK_ERR(exec(fd, argv, NULL), EISDIR);
    close(fd);
    CHECK_ERR(exec(-1, argv, NULL), EBADF);
    CHECK((fd = walk(AT_CWD, "/bin/true", 0)) >= 0, "walk /bin/true");
    CHECK_ERR(exec(fd, (char **)0xC0000000, NULL), EFAULT);
    close(fd);
    PASS();
}

static unsigned lcg = 12345;

static unsigned rnd(void)
{
    lcg = lcg * 1103515245 + 12345;
    return lcg >> 8;
}

/* An address no user program may pass: low, kernel, unmapped, or wrapping. */
/* Each check of exec's on a real program with one field made wrong
 * (tools/kmutants.txt: a kernel without one of them ran these, or ran off
 * into a fault, and no test saw it). The child's exec must fail with
 * ENOEXEC: the child then exits 7, where a program that ran exits 0 and
 * one that faulted dies of a signal. */
static unsigned char elf_image[65536];
static int elf_size;
static const char *elf_argv[] = { "true", NULL };

static void exec_the_changed_copy(void)
{
    int fd = make_file("/tmp/elfcase", elf_image, elf_size, 0755);

    exec(fd, (char **)elf_argv, NULL);
    _exit(errno == ENOEXEC ? 7 : 8);
}

static uint32_t *elf_word(int off)
{
    return (uint32_t *)(elf_image + off);
}

static void exec_checks_every_field_of_a_real_program(void)
{
    static unsigned char orig[sizeof(elf_image)];
    uint32_t phoff, ph2;
    int fd, i, status;
    static const struct {
        const char *what;
        int in_ph2, off, size;          /* in_ph2: off counts from the second header */
        uint32_t value;
    } cases[] = {
        { "no ELF magic", 0, 0, 1, 'X' },
        { "machine x86-64", 0, 18, 2, 62 },
        { "program header entries of 40 bytes", 0, 42, 2, 40 },
        { "17 program headers (the kernel reads 16 at most)", 0, 44, 2, 17 },
        { "entry below USER_BASE", 0, 24, 4, 0x1000 },
        { "entry in the stack", 0, 24, 4, 0xBFFFF000u },
        { "data segment with less memory than file bytes", 1, 20, 4, 0 },
        { "data segment at page 0", 1, 8, 4, 0 },
        { "data segment in the stack's guard page", 1, 8, 4, 0xBFFDF000u },
        { "no loadable segment (the first header PT_NULL too)", 1, 0, 4, 0 },
    };

    CHECK((fd = open("/bin/true", O_RDONLY)) >= 0, "open /bin/true");
    elf_size = read(fd, orig, sizeof(orig));
    close(fd);
    CHECK(elf_size > 200 && elf_size < (int)sizeof(orig), "read /bin/true: %d", elf_size);
    if (elf_size < 1024)
        elf_size = 1024;                /* zeros after it: room for 17 headers (PT_NULL) */
    phoff = *(uint32_t *)(orig + 28);
    ph2 = phoff + 32;                   /* the second PT_LOAD: data and bss */
    CHECK(*(uint16_t *)(orig + 44) == 2 && *(uint32_t *)(orig + ph2) == 1,
          "/bin/true has not two PT_LOAD headers");
    memcpy(elf_image, orig, elf_size);
    CHECK((status = child_status(exec_the_changed_copy)) == 0, "the copy itself: status %x",
          status);
    for (i = 0; i < (int)ARRAY_SIZE(cases); i++) {
        int off = (cases[i].in_ph2 ? (int)ph2 : 0) + cases[i].off;
        memcpy(elf_image, orig, elf_size);
        if (cases[i].size == 1)
            elf_image[off] = (unsigned char)cases[i].value;
        else if (cases[i].size == 2)
            *(uint16_t *)(elf_image + off) = (uint16_t)cases[i].value;
        else
            *elf_word(off) = cases[i].value;
        if (cases[i].in_ph2 && cases[i].off == 0)
            *elf_word(phoff) = 0;
        status = child_status(exec_the_changed_copy);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7,
              "%s: status %x, want exit 7 (exec said ENOEXEC)", cases[i].what, status);
    }
    unlink("/tmp/elfcase");
    PASS();
}

/* wait's options are WNOHANG or nothing: an unknown bit is EINVAL, and
 * the child stays to be reaped. */
static void wait_refuses_unknown_options(void)
{
    int pid = fork(), status;

    if (pid == 0)
        _exit(3);
    CHECK(pid > 0, "fork");
    CHECK_ERR(waitpid(pid, &status, 0x100), EINVAL);
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 3,
          "the child was not there to reap: status %x", status);
    PASS();
}

static void *bad_pointer(void)
{
    switch (rnd() % 4) {
    case 0: return (void *)(rnd() % 0x400000);
    case 1: return (void *)(0xC0000000u + rnd() % 0x3FFFFFFF);
    case 2: return (void *)(0x40000000u + rnd() % 0x40000000);
    default: return (void *)(0xFFFFFFF0u + rnd() % 16);
    }
}

static void thousand_bad_pointers_get_efault(void)
{
    int nul = open("/dev/null", O_RDWR), zero = open("/dev/zero", O_RDONLY), i, r = 0;
    struct stat st;

    CHECK(nul >= 0 && zero >= 0, "open devices");
    for (i = 0; i < 1000; i++) {
        void *p = bad_pointer();
        errno = 0;
        switch (i % 10) {
        case 0: r = read(zero, p, 64); break;
        case 1: r = write(nul, p, 64); break;
        case 2: r = fstat(nul, p); break;
        case 3: r = walk(AT_CWD, p, 0); break;
        case 4: r = pipe(p); break;
        case 5: r = getcwd(p, 64) ? 0 : -1; break;
        case 6: r = create(AT_CWD, p, S_IFREG, 0644, 0); break;
        case 7: r = fsopen(p, -1, NULL); break;
        case 8: r = waitpid(-1, p, WNOHANG); break;
        case 9: r = bind(nul, AT_CWD, p, 0); break;
        }
        CHECK(r == -1 && errno == EFAULT, "call %d (kind %d) with %p gave %d errno %d", i, i % 10,
              p, r, errno);
    }
    CHECK(fstat(nul, &st) == 0 && S_ISCHR(st.st_mode), "the kernel is still fine");
    close(nul);
    close(zero);
    PASS();
}

/* ---- rfork(RFORK_SHAREFDS): two processes, one fd table */

/* What fd holds, as fcntl(F_GETFD) says: -1 closed, 0 open, 1 kept. */
static int fd_state(int fd)
{
    return fcntl(fd, F_GETFD, 0);
}

static void rfork_shares_the_fd_table_both_ways(void)
{
    int pid, status, fd;
    char buf[16] = "";

    CHECK((fd = open("/proc/meminfo", O_RDONLY)) >= 0 && dup2(fd, 21) == 21, "setup");
    close(fd);
    fflush(stdout);
    if ((pid = rfork(RFORK_SHAREFDS)) == 0) {
        /* The parent's fd 21 is ours too; what we do here, it sees. */
        if (fd_state(21) != 0 || close(21) < 0)
            _exit(1);
        if ((fd = open("/proc/meminfo", O_RDONLY)) < 0 || dup2(fd, 20) != 20 ||
            fcntl(20, F_SETFD, FD_KEEP) < 0)
            _exit(2);
        close(fd);
        _exit(0);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "rfork/wait");
    CHECK(status == 0, "child: %s",
          status == W_EXITCODE(1) ? "the parent's fd 21 was not there" : "open/dup2/fcntl failed");
    CHECK(fd_state(21) == -1, "the child closed fd 21, yet the parent still has it");
    CHECK(fd_state(20) == FD_KEEP,
          "fd 20 the child opened and kept is not in the parent's "
          "table after the child exited (state %d)",
          fd_state(20));
    CHECK(read(20, buf, 10) == 10 && strncmp(buf, "free_pages", 10) == 0, "fd 20 does not read");
    close(20);
    PASS();
}

static void rfork_0_copies_the_table_like_fork(void)
{
    int pid, status;

    fflush(stdout);
    if ((pid = rfork(0)) == 0)
        _exit(dup2(1, 22) == 22 ? 0 : 1);
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && status == 0, "rfork(0)");
    CHECK(fd_state(22) == -1, "rfork(0) shared the table: the child's dup2 shows here");
    CHECK_ERR(rfork(2), EINVAL);
    CHECK_ERR(rfork(-1), EINVAL);
    PASS();
}

/* Both sharers' /proc/<pid>/fd list one table. */
static void proc_fd_shows_one_table_for_both_sharers(void)
{
    char mine[512], theirs[512], path[32];
    int pid, hold[2], status, ok;

    CHECK(pipe(hold) == 0, "pipe");
    fflush(stdout);
    if ((pid = rfork(RFORK_SHAREFDS)) == 0) {
        char c;
        _exit(read(hold[0], &c, 1) == 0 ? 0 : 1);     /* until the parent closes hold[1] */
    }
    CHECK(pid > 0, "rfork");
    dup2(hold[0], 23);
    snprintf(path, sizeof(path), "/proc/%d/fd", pid);
    ok = slurp(path, theirs, sizeof(theirs)) > 0 && slurp("/proc/self/fd", mine, sizeof(mine)) > 0;
    close(23);
    close(hold[1]);
    CHECK(waitpid(pid, &status, 0) == pid && status == 0, "child status %x", status);
    close(hold[0]);
    CHECK(ok, "cannot read /proc");
    CHECK(strcmp(mine, theirs) == 0 && strstr(theirs, "\n23 pipe r\n") != NULL,
          "the two sharers' tables differ:\nmine:\n%s\ntheirs:\n%s", mine, theirs);
    PASS();
}

/* One sharer sleeps in read() on a pipe; the other closes that very fd.
 * The read must go on with the file it started on (it holds a reference
 * of its own), not with freed memory. */
static void a_read_in_progress_survives_the_sharer_closing_its_fd(void)
{
    char state[256];
    int pid, p[2], status, i;

    CHECK(pipe(p) == 0 && dup2(p[0], 24) == 24, "setup");
    close(p[0]);
    fflush(stdout);
    if ((pid = rfork(RFORK_SHAREFDS)) == 0) {
        char c = 0;
        _exit(read(24, &c, 1) == 1 && c == 'x' ? 0 : 1);
    }
    CHECK(pid > 0, "rfork");
    snprintf(state, sizeof(state), "/proc/%d/status", pid);
    for (i = 0; i < 100; i++) {             /* until the child sleeps in read() */
        char text[256];
        if (slurp(state, text, sizeof(text)) > 0 && strstr(text, "state sleeping"))
            break;
        sleep_ms(5);
    }
    CHECK(close(24) == 0, "close");
    /* Churn the kernel heap, so a freed file would be reused. */
    for (i = 0; i < 20; i++) {
        int fd = open("/proc/meminfo", O_RDONLY);
        close(fd);
    }
    CHECK(write(p[1], "x", 1) == 1, "write");
    close(p[1]);
    CHECK(waitpid(pid, &status, 0) == pid && status == 0,
          "the reader's read() did not get "
          "the byte (status %x)",
          status);
    PASS();
}

static void exec_that_fails_leaves_the_shared_table_shared(void)
{
    char *argv[] = { "x", NULL };
    int pid, status, fd, hold[2], i;

    CHECK((fd = create(AT_CWD, "/tmp/rf_junk", S_IFREG, 0755, 0)) >= 0, "create");
    CHECK(pipe(hold) == 0, "pipe");
    fflush(stdout);
    if ((pid = rfork(RFORK_SHAREFDS)) == 0) {
        char c;
        if (exec(fd, argv, NULL) != -1 || errno != ENOEXEC)
            _exit(1);
        if (dup2(hold[0], 25) != 25)        /* still shared: the parent will see 25 */
            _exit(2);
        _exit(read(25, &c, 1) == 0 ? 0 : 3);
    }
    CHECK(pid > 0, "rfork");
    for (i = 0; i < 200 && fd_state(25) < 0; i++)
        sleep_ms(5);
    close(hold[1]);                         /* the only writer, if the table is still shared */
    if (i == 200)
        kill(pid, SIGKILL);
    CHECK(waitpid(pid, &status, 0) == pid, "wait");
    CHECK(i < 200,
          "fd 25, made by the child after its exec failed, never showed here: the "
          "failed exec took the child out of the shared table (status %x)",
          status);
    CHECK(status == 0, "child status %x (1: exec did not fail with ENOEXEC)", status);
    close(25);
    close(hold[0]);
    close(fd);
    PASS();
}

/* ---- exec with no memory, in a shared table */

static int fds_before[OPEN_MAX], fds_now[OPEN_MAX];
static int starve_rep_rd, starve_hold_wr;   /* the test's ends, which the child closes */

static void snapshot_fds(int *flags)
{
    int fd;

    for (fd = 0; fd < OPEN_MAX; fd++)
        flags[fd] = fcntl(fd, F_GETFD, 0);
}

/* After fork every page is copy-on-write; a process about to use up all
 * memory first writes to the stack and data it will use. */
static void __attribute__((noinline)) own_stack_and_data(void)
{
    volatile char buf[16384];
    unsigned i;

    for (i = 0; i < sizeof(buf); i += 256)
        buf[i] = (char)i;
    snapshot_fds(fds_before);
    snapshot_fds(fds_now);
    errno = 0;
}

/* fd 9 (kept) is the report pipe, fd 12 a copy of it, not kept yet; the
 * table is shared with a sleeping sharer. Take every free page, then exec
 * /bin/fdprobe, giving back one page after each ENOMEM. Every failed exec
 * must leave the table as it was; after the first, fd 12 is kept too, so
 * the probe's "fds 9k 12k" proves there was one. */
static int exec_starved(void)
{
    char *argv[] = { "fdprobe", "9", NULL };
    int prog = walk(AT_CWD, "/bin/fdprobe", 0), n, tries, sharer;
    char path[32], status[128] = "";

    for (n = 0; n < 3; n++)
        close(n);                       /* the report then names only 9 and 12 */
    close(starve_rep_rd);
    close(starve_hold_wr);
    if (prog < 0 || dup2(9, 12) != 12)
        return 1;
    if ((sharer = rfork(RFORK_SHAREFDS)) == 0) {
        char c;
        _exit(read(13, &c, 1));         /* until the test closes its end */
    }
    snprintf(path, sizeof(path), "/proc/%d/status", sharer);
    for (n = 0; n < 100 && !strstr(status, "state sleeping"); n++) {
        sleep_ms(5);                    /* asleep before memory runs out */
        slurp(path, status, sizeof(status));
    }
    own_stack_and_data();
    for (n = 1 << 24; n >= 4096; n /= 2)
        while (sbrk(n) != (void *)-1)
            ;
    for (tries = 0; tries < 8192; tries++) {
        exec(prog, argv, NULL);
        if (errno != ENOMEM)
            return 3;
        snapshot_fds(fds_now);
        for (n = 0; n < OPEN_MAX; n++)
            if (fds_now[n] != fds_before[n])
                return 2;
        if (tries == 0 && fcntl(12, F_SETFD, FD_KEEP) == 0)
            snapshot_fds(fds_before);
        if (sbrk(-4096) == (void *)-1)
            return 4;
    }
    return 5;
}

/* One starved exec, run by a child: its exit code, the probe's report. */
static int starved_exec(char *report, int size)
{
    int rep[2], hold[2], code;

    memset(report, 0, size);
    if (pipe(rep) < 0 || dup2(rep[1], 9) != 9 || fcntl(9, F_SETFD, FD_KEEP) < 0 || pipe(hold) < 0 ||
        dup2(hold[0], 13) != 13)
        return 1;
    close(rep[1]);
    close(hold[0]);
    starve_rep_rd = rep[0];
    starve_hold_wr = hold[1];
    code = in_child(exec_starved);
    close(9);
    close(13);
    close(hold[1]);                     /* the sharer ends, and with it the old table */
    read_full(rep[0], report, size - 1);
    close(rep[0]);
    return code;
}

static void exec_out_of_memory_changes_no_fd(void)
{
    static const char *const why[] = { "ok",
                                       "setup failed",
                                       "a failed exec changed the fd table",
                                       "exec failed, but not with ENOMEM",
                                       "sbrk(-4096) failed",
                                       "exec never succeeded" };
    char report[64];
    unsigned before;
    int code, run, i;

    /* The first run may grow the kernel heap for good (a bucket refilled
     * while memory was short); only the second is checked for leaks. */
    for (run = 0; run < 2; run++) {
        before = free_pages();
        code = starved_exec(report, sizeof(report));
        CHECK(code == 0, "child: %s (code %d)", code > 0 && code < 6 ? why[code] : "died", code);
        CHECK(strcmp(report, "fds 9k 12k\n") == 0,
              "the program finally run holds \"%s\", "
              "want \"fds 9k 12k\\n\"",
              report);
    }
    for (i = 0; i < 100 && free_pages() != before; i++)
        sleep_ms(10);                   /* the sharer is init's to reap */
    CHECK(free_pages() == before, "free pages %u before, %u after", before, free_pages());
    PASS();
}

/* Run a program with no arguments: its wait status, or -1. */
static int run(const char *path)
{
    char *argv[] = { "prog", NULL };
    int pid, status;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        execv(path, argv);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return status;
}

static int run_true(void)
{
    return run("/bin/true");
}

/* exec shares the pages of program text between runs of the same bytes
 * (kernel/proc/exec.c): the same file, rewritten in place (same inode,
 * same offsets) between two runs, must run its new bytes. */
static void a_program_rewritten_between_runs_runs_its_new_bytes(void)
{
    struct stat a, b;
    int i, st[4];

    for (i = 0; i < 4; i++) {
        CHECK(copyfile(i % 2 ? "/bin/false" : "/bin/true", "/tmp/prog") == 0, "copy");
        CHECK(stat("/tmp/prog", i ? &b : &a) == 0, "stat");
        st[i] = run("/tmp/prog");
    }
    unlink("/tmp/prog");
    CHECK(a.st_ino == b.st_ino, "the copy made a new file (inode %u, then %u): not a rewrite",
          a.st_ino, b.st_ino);
    CHECK(WIFEXITED(st[0]) && WEXITSTATUS(st[0]) == 0, "true ran with status %x", st[0]);
    CHECK(WIFEXITED(st[1]) && WEXITSTATUS(st[1]) == 1, "false over true ran with status %x", st[1]);
    CHECK(WIFEXITED(st[2]) && WEXITSTATUS(st[2]) == 0, "true over false ran with status %x", st[2]);
    CHECK(WIFEXITED(st[3]) && WEXITSTATUS(st[3]) == 1, "false again ran with status %x", st[3]);
    PASS();
}

static void fork_exec_wait_100_times_leaks_no_pages(void)
{
    unsigned before, after;
    int i, status;

    CHECK(run_true() == 0, "warm-up run of /bin/true failed");
    before = free_pages();
    CHECK(before > 0, "cannot read /proc/meminfo");
    for (i = 0; i < 100; i++) {
        status = run_true();
        CHECK(status == 0, "run %d: status %x", i, status);
    }
    after = free_pages();
    CHECK(after == before, "free pages %u before, %u after 100 runs", before, after);
    PASS();
}

int main(void)
{
    fork_tree_reports_every_exit_code();
    wait_nohang_returns_zero_while_running();
    orphans_are_adopted_by_init();
    an_orphan_already_a_zombie_is_reaped_by_init();
    kill_ends_a_sleeping_child();
    kill_knows_zombies_and_keeps_the_first_signal();
    a_forked_child_is_in_its_parents_group();
    a_pid_in_use_as_a_group_is_not_given_out();
    kill_ends_a_wait_and_a_long_sleep();
    preemption_lets_parent_kill_a_spinning_child();
    sbrk_grows_and_shrinks();
    shrunk_heap_is_really_gone();
    faults_kill_only_the_child();
    exec_rejects_garbage();
    exec_checks_every_field_of_a_real_program();
    wait_refuses_unknown_options();
    thousand_bad_pointers_get_efault();
    fork_exec_wait_100_times_leaks_no_pages();
    a_program_rewritten_between_runs_runs_its_new_bytes();
    rfork_shares_the_fd_table_both_ways();
    rfork_0_copies_the_table_like_fork();
    proc_fd_shows_one_table_for_both_sharers();
    a_read_in_progress_survives_the_sharer_closing_its_fd();
    exec_that_fails_leaves_the_shared_table_shared();
    exec_out_of_memory_changes_no_fd();
    printf("t_proc: done\n");
    return t_failures != 0;
}
