/* t_sysenter.c - system calls entered by sysenter (uapi/syscall.h): the
 * same answers as int $0x80, every register the ABI keeps kept (across a
 * sleep, a preemption, fork and exec), and a program that enters with a
 * bad stack or strange flags hurts only itself. Raw calls, no libc. */
#include "t.h"
#include "uapi/syscall.h"

extern int __sysenter_ok;              /* crt0.asm */

/* One call each way, the arguments in the same registers. */
static int by_sysenter(int nr, unsigned a, unsigned b, unsigned c)
{
    int r;

    __asm__ volatile("push %%ebp\n\tpush $1f\n\tmov %%esp, %%ebp\n\tsysenter\n1:\tpop %%ebp"
                     : "=a"(r), "+c"(b), "+d"(c)
                     : "a"(nr), "b"(a)
                     : "memory");
    return r;
}

static int by_int(int nr, unsigned a, unsigned b, unsigned c)
{
    int r;

    __asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
    return r;
}

/* A call by sysenter with known values in ebx, esi and edi: 0 if they and
 * ebp (the ABI gives it back as it was) came back, else which did not. */
static int sysenter_keeps(int nr, unsigned a, unsigned b, unsigned c, int *ret)
{
    unsigned vb = a, vs = 0x51515151, vd = 0xd1d1d1d1, ebp_off;

    __asm__ volatile("push %%ebp\n\t"
                     "push $1f\n\t"
                     "mov %%esp, %%ebp\n\t"
                     "sysenter\n"
                     "1:\tlea -4(%%esp), %%ecx\n\t"
                     "sub %%ebp, %%ecx\n\t"     /* 0: ebp is what it was */
                     "pop %%ebp"
                     : "=a"(*ret), "+b"(vb), "+S"(vs), "+D"(vd), "+d"(c), "=c"(ebp_off)
                     : "a"(nr), "c"(b)
                     : "memory");
    return (vb != a) | (vs != 0x51515151) << 1 | (vd != 0xd1d1d1d1) << 2 | (ebp_off != 0) << 3;
}

static void sysenter_gives_the_same_results_as_int_0x80(void)
{
    static const int simple[] = { SYS_getpid, SYS_getppid, SYS_getuid, SYS_getgid, 999, -1 };
    int p[2], i, r;
    char got[4] = "";

    for (i = 0; i < (int)(sizeof(simple) / sizeof(simple[0])); i++)
        CHECK((r = by_sysenter(simple[i], 0, 0, 0)) == by_int(simple[i], 0, 0, 0),
              "call %d: %d by sysenter, %d by int $0x80", simple[i], r, by_int(simple[i], 0, 0, 0));
    CHECK(by_sysenter(999, 0, 0, 0) == -ENOSYS, "an unknown call is not ENOSYS");
    CHECK(by_sysenter(SYS_close, -1, 0, 0) == -EBADF, "close(-1) by sysenter is not EBADF");
    CHECK(by_sysenter(SYS_walk, AT_CWD, 0xC0000000u, 0) == -EFAULT,
          "walk of a kernel address by sysenter is not EFAULT");
    CHECK(by_sysenter(SYS_sbrk, 0, 0, 0) == by_int(SYS_sbrk, 0, 0, 0), "sbrk(0) differs");
    CHECK(by_int(SYS_pipe, (unsigned)p, 0, 0) == 0, "pipe");
    CHECK(by_sysenter(SYS_write, p[1], (unsigned)"abc", 3) == 3, "write of 3 by sysenter");
    CHECK(by_int(SYS_read, p[0], (unsigned)got, 3) == 3 && !memcmp(got, "abc", 3),
          "int $0x80 read back '%.3s'", got);
    CHECK(by_int(SYS_write, p[1], (unsigned)"xyz", 3) == 3, "write of 3 by int $0x80");
    CHECK(by_sysenter(SYS_read, p[0], (unsigned)got, 3) == 3 && !memcmp(got, "xyz", 3),
          "sysenter read back '%.3s'", got);
    CHECK(by_sysenter(SYS_read, p[0], 0xC0000000u, 3) == -EFAULT, "read into the kernel");
    close(p[0]);
    close(p[1]);
    PASS();
}

/* Every register sysexit does not take (eax: the result; ecx, edx: sysexit's)
 * comes back, from a plain call, one that sleeps and wakes on another
 * process's write, and many calls while a sibling spins (the timer ends
 * slices on the way back: a switch between entry and exit). */
static void sysenter_keeps_every_register_across_sleep_and_preemption(void)
{
    int p[2], pid, spinner, r, bad, i, status;
    unsigned t;
    char c = 0;

    CHECK(sysenter_keeps(SYS_getpid, 0xb0b0b0b0, 0, 0, &r) == 0 && r == getpid(), "a plain getpid");
    CHECK(pipe(p) == 0, "pipe");
    fflush(stdout);
    if ((pid = fork()) == 0) {
        sleep_ms(50);
        write(p[1], "!", 1);
        _exit(0);
    }
    bad = sysenter_keeps(SYS_read, p[0], (unsigned)&c, 1, &r);
    CHECK(bad == 0 && r == 1 && c == '!', "after a read that slept: bad %x, r %d", bad, r);
    waitpid(pid, &status, 0);
    if ((spinner = fork()) == 0)
        for (;;)
            ;
    for (t = uptime_ms(), i = 0; uptime_ms() - t < 300; i++) {
        bad = sysenter_keeps(SYS_getppid, 0xb0b0b0b0 + i, 0, 0, &r);
        if (bad || r != getppid())
            break;
    }
    kill(spinner, SIGKILL);
    waitpid(spinner, &status, 0);
    CHECK(bad == 0 && r == getppid(), "call %d with a spinning sibling: bad %x, r %d", i, bad, r);
    close(p[0]);
    close(p[1]);
    PASS();
}

/* DF and AC (which sysexit cannot give back) and a null gs come back as
 * the caller had them, by the iret way out. */
static void sysenter_keeps_the_flags_and_segments_a_program_set(void)
{
    unsigned flags, gs = 1;
    int r;

    __asm__ volatile("pushf\n\torl $0x40400, (%%esp)\n\tpopf\n\t"   /* DF, AC */
                     "push %%ebp\n\tpush $1f\n\tmov %%esp, %%ebp\n\tsysenter\n1:\tpop %%ebp\n\t"
                     "pushf\n\tpop %%ecx\n\tcld\n\t"
                     "pushf\n\tandl $~0x40000, (%%esp)\n\tpopf"
                     : "=a"(r), "=c"(flags)
                     : "a"(SYS_getpid)
                     : "edx", "memory", "cc");
    CHECK(r == getpid(), "getpid with DF and AC set: %d", r);
    CHECK((flags & 0x40400) == 0x40400, "eflags after: %x", flags);
    __asm__ volatile("mov %%gs, %%ecx\n\tpush %%ecx\n\txor %%ecx, %%ecx\n\tmov %%ecx, %%gs\n\t"
                     "push %%ebp\n\tpush $1f\n\tmov %%esp, %%ebp\n\tsysenter\n1:\tpop %%ebp\n\t"
                     "mov %%gs, %%ecx\n\tmov %%ecx, %%esi\n\tpop %%ecx\n\tmov %%ecx, %%gs"
                     : "=a"(r), "=S"(gs)
                     : "a"(SYS_getpid)
                     : "ecx", "edx", "memory");
    CHECK(r == getpid() && gs == 0, "with a null gs: r %d, gs %x after", r, gs);
    PASS();
}

static void sysenter_fork_returns_in_both_with_their_registers(void)
{
    int r, bad, status = -1;

    fflush(stdout);
    bad = sysenter_keeps(SYS_fork, 0xb0b0b0b0, 0, 0, &r);
    if (r == 0)
        _exit(bad == 0 ? 42 : 1);
    CHECK(r > 0 && bad == 0, "fork by sysenter in the parent: %d, bad %x", r, bad);
    CHECK(waitpid(r, &status, 0) == r && WIFEXITED(status) && WEXITSTATUS(status) == 42,
          "child status %x (42: its registers were right)", status);
    PASS();
}

static void sysenter_exec_starts_the_new_program(void)
{
    int pid, fd, status = -1;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        static char *argv[] = { "t_sysenter", "exec-child", NULL };
        int pathfd = walk(AT_CWD, "/bin/t_sysenter", 0);
        fd = ready(pathfd, R_READ);
        by_sysenter(SYS_exec, fd, (unsigned)argv, (unsigned)environ);
        _exit(1);
    }
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 43,
          "status %x (43: the new program ran with its arguments)", status);
    PASS();
}

static unsigned bad_esp;

static void enter_with_bad_esp(void)
{
    int r;

    __asm__ volatile("push %%ebp\n\tmov %1, %%ebp\n\tsysenter\n\tpop %%ebp"
                     : "=a"(r)
                     : "r"(bad_esp), "a"(SYS_getpid)
                     : "ecx", "edx", "memory");
    _exit(0);
}

static void enter_with_good_stack(void)
{
    _exit(by_sysenter(SYS_getpid, 0, 0, 0) == getpid() ? 45 : 1);
}

static void enter_single_stepping(void)
{
    int r;

    __asm__ volatile("push %%ebp\n\tpush $1f\n\tmov %%esp, %%ebp\n\t"
                     "pushf\n\torl $0x100, (%%esp)\n\tpopf\n\t"   /* TF: a trap after the */
                     "sysenter\n1:\tpop %%ebp" /* next instruction: in the kernel */
                     : "=a"(r)
                     : "a"(SYS_getpid)
                     : "ecx", "edx", "memory");
    _exit(0);
}

static void enter_as_a_nested_task(void)
{
    int r;

    __asm__ volatile("pushf\n\torl $0x4000, (%%esp)\n\tpopf\n\t"
                     "push %%ebp\n\tpush $1f\n\tmov %%esp, %%ebp\n\tsysenter\n1:\tpop %%ebp\n\t"
                     "pushf\n\tandl $~0x4000, (%%esp)\n\tpopf"
                     : "=a"(r)
                     : "a"(SYS_getpid)
                     : "ecx", "edx", "memory", "cc");
    _exit(r == getpid() ? 44 : 1);
}

/* A garbage user stack pointer kills the caller (SIGSEGV), whatever it
 * points at: nothing, the kernel, the top of the address space. */
static void sysenter_with_a_bad_stack_kills_only_the_caller(void)
{
    static const unsigned bad[] = { 0, 0x1000, 0xBFFFFFFE, 0xC0000000u, 0xC0100000u, 0xFFFFFFFC };
    int i, status = child_status(enter_with_good_stack);

    CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 45, "good stack: %x", status);
    for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++) {
        bad_esp = bad[i];
        status = child_status(enter_with_bad_esp);
        CHECK(status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
              "esp %x: status %x", bad[i], status);
    }
    PASS();
}

/* TF set as sysenter runs: the kernel single-steps its entry (and must not
 * take that for a bug of its own); the caller dies of its own trap, after
 * the call. NT set: the call works and returns. */
static void sysenter_with_strange_flags_harms_only_the_caller(void)
{
    int status = child_status(enter_single_stepping);

    CHECK(status != -1 && WIFSIGNALED(status), "single-stepping: status %x", status);
    CHECK(getpid() > 0, "the kernel is still here");
    status = child_status(enter_as_a_nested_task);
    CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 44, "NT: status %x", status);
    PASS();
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "exec-child"))
        return 43;
    if (!__sysenter_ok) {
        printf("t_sysenter: this CPU has no sysenter\n");
        printf("FAIL t_sysenter_runs: no sysenter to test\n");
        return 1;
    }
    T_RUN(sysenter_gives_the_same_results_as_int_0x80);
    T_RUN(sysenter_keeps_every_register_across_sleep_and_preemption);
    T_RUN(sysenter_keeps_the_flags_and_segments_a_program_set);
    T_RUN(sysenter_fork_returns_in_both_with_their_registers);
    T_RUN(sysenter_exec_starts_the_new_program);
    T_RUN(sysenter_with_a_bad_stack_kills_only_the_caller);
    T_RUN(sysenter_with_strange_flags_harms_only_the_caller);
    printf("t_sysenter: done\n");
    return 0;
}
