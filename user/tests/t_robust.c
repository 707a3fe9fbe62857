/* t_robust.c - what a hostile or careless user program must not be able to
 * do to the machine (issue 9): hang it with writers on a full pipe, reach
 * the kernel with its direction flag or other odd register state, or see
 * another process's FPU/SSE registers. Each test is named for what must
 * hold; a test that could hang the machine bounds its own wait.
 *
 * `t_robust NAME` runs only the tests whose name contains NAME; the
 * `--fpu-state` and `--args` modes are what the exec tests run. */
#include <fcntl.h>
#include <orthos.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "t.h"
#include "uapi/syscall.h"

#define EFLAGS_TF 0x0100
#define EFLAGS_DF 0x0400
#define EFLAGS_NT 0x4000
#define EFLAGS_AC 0x40000

#define FCW_DEFAULT   0x037F              /* what fninit leaves: every exception masked */
#define FCW_CHOP      0x0F7F              /* the same, rounding toward zero */
#define MXCSR_DEFAULT 0x1F80
#define MXCSR_CHOP    0x7F80

#define PI_BITS  0x400921FB54442D18ull   /* pi as an IEEE double */
#define TWO_BITS 0x4000000000000000ull   /* 2.0 */

/* ------------------------------------------------------------ helpers */

/* Wait up to ms for pid; kill it if it is still there. Its status, or -1. */
static int wait_bounded(int pid, unsigned ms)
{
    int status;

    return wait_child_ms(pid, ms, &status) ? status : -1;
}

/* ------------------------------------------------------------ 1. pipes */

static int write_one_byte(int fd)
{
    return write(fd, "w", 1) == 1 ? 0 : 1;
}

/* Two writers blocked on a full pipe once woke each other in turn with
 * interrupts off, for ever: the clock stopped. Each must simply sleep
 * (a writer never wakes a writer) while the rest of the machine runs. */
static void two_writers_on_a_full_pipe_sleep_and_the_clock_runs(void)
{
    int p[2], pid[2], status[2], i, n = 0, drained = 0, r;
    char state[2][16], buf[512], text[160];
    unsigned t0, slept;

    CHECK(pipe(p) == 0, "pipe");
    CHECK(fcntl(p[1], F_SETFL, R_NONBLOCK) == 0, "non-blocking");
    while (write(p[1], "x", 1) == 1)
        n++;
    CHECK(errno == EAGAIN && n == 65536, "filled %d bytes, then errno %d", n, errno);
    CHECK(fcntl(p[1], F_SETFL, 0) == 0, "blocking again");
    fflush(stdout);
    for (i = 0; i < 2; i++)
        if ((pid[i] = fork()) == 0)
            _exit(write_one_byte(p[1]));
    t0 = uptime_ms();
    sleep_ms(200);
    slept = uptime_ms() - t0;
    for (i = 0; i < 2; i++)
        snprintf(state[i], sizeof(state[i]), "%s", proc_state(pid[i], text, sizeof(text)));
    while (drained < n + 2 && (r = read(p[0], buf, sizeof(buf))) > 0)
        drained += r;                   /* room again: both writers finish */
    for (i = 0; i < 2; i++)
        status[i] = wait_bounded(pid[i], 2000);
    close(p[0]);
    close(p[1]);
    CHECK(slept >= 200 && slept < 2000, "sleep_ms(200) took %u ms", slept);
    CHECK(strcmp(state[0], "sleeping") == 0 && strcmp(state[1], "sleeping") == 0,
          "blocked writers are %s and %s, not both sleeping", state[0], state[1]);
    CHECK(drained == n + 2, "read %d bytes back, want %d", drained, n + 2);
    for (i = 0; i < 2; i++)
        CHECK(status[i] != -1 && WIFEXITED(status[i]) && WEXITSTATUS(status[i]) == 0,
              "writer %d: status %x", i, status[i]);
    PASS();
}

/* A big write (not atomic) and small ones (atomic) on a full pipe: the
 * big writer must wake the reader before it sleeps, or nobody moves; the
 * small records must come out whole. */
static void a_big_writer_and_small_writers_share_a_full_pipe(void)
{
    static char big[10000], buf[1024];
    int p[2], pids[3], i, total = 0, r, bad = 0, smalls = 0, status;

    CHECK(pipe(p) == 0, "pipe");
    memset(big, 'B', sizeof(big));
    fflush(stdout);
    for (i = 0; i < 3; i++) {
        if ((pids[i] = fork()) == 0) {
            close(p[0]);
            if (i == 0)
                _exit(write(p[1], big, sizeof(big)) == (int)sizeof(big) ? 0 : 1);
            for (r = 0; r < 50; r++)
                if (write(p[1], i == 1 ? "[1111111]" : "[2222222]", 9) != 9)
                    _exit(1);
            _exit(0);
        }
    }
    close(p[1]);
    sleep_ms(50);                       /* let the pipe fill and everyone block */
    {
        static char all[10000 + 2 * 50 * 9 + 1];
        while ((r = read(p[0], buf, sizeof(buf))) > 0 && total + r < (int)sizeof(all)) {
            memcpy(all + total, buf, r);
            total += r;
        }
        all[total] = '\0';
        for (i = 0; i < total; i++) {
            if (all[i] == '[') {
                if (i + 9 > total || all[i + 8] != ']' || strspn(all + i + 1, "12") < 7)
                    bad++;
                smalls++;
                i += 8;
            } else if (all[i] != 'B') {
                bad++;
            }
        }
    }
    close(p[0]);
    for (i = 0; i < 3; i++) {
        status = wait_bounded(pids[i], 3000);
        CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d: status %x",
              i, status);
    }
    CHECK(total == (int)sizeof(big) + 100 * 9, "read %d bytes", total);
    CHECK(smalls == 100 && bad == 0, "%d small records, %d torn", smalls, bad);
    PASS();
}

/* ------------------------------------------------------------ 2. hostile register state */

/* A system call made with the direction flag set (`std; int $0x80`).
 * *flags gets EFLAGS as the call returned them. */
static int syscall_std(int nr, uint32_t a, uint32_t b, uint32_t c, uint32_t *flags)
{
    uint32_t f;
    int ret;

    __asm__ volatile("std\n\tint $0x80\n\tpushfl\n\tpopl %1\n\tcld"
                     : "=a"(ret), "=r"(f)
                     : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(0), "D"(0)
                     : "memory", "cc");
    *flags = f;
    return ret;
}

/* In a child: every kind of copy between user and kernel memory, each with
 * DF set. Returns 0, or the number of the step that went wrong. */
static int calls_with_df_set(void)
{
    static const char msg[16] = "0123456789abcdef";
    char buf[64], cwd[64];
    struct stat want, got;
    int p[2], q[2], fd;
    uint32_t fl;

    if (pipe(p) < 0 || write(p[1], msg, 16) != 16)
        return 1;
    memset(buf, 0, sizeof(buf));
    if (syscall_std(SYS_read, p[0], (uint32_t)buf, 16, &fl) != 16 || memcmp(buf, msg, 16))
        return 2;                       /* copyout of 16 bytes */
    if (!(fl & EFLAGS_DF))
        return 3;                       /* the caller's flags come back as they were */
    if (syscall_std(SYS_write, p[1], (uint32_t)msg, 16, &fl) != 16 || read(p[0], buf, 16) != 16 ||
        memcmp(buf, msg, 16))
        return 4;                       /* copyin */
    if (fstat(p[0], &want) < 0 || syscall_std(SYS_fstat, p[0], (uint32_t)&got, 0, &fl) != 0 ||
        memcmp(&want, &got, sizeof(got)))
        return 5;
    if (!getcwd(cwd, sizeof(cwd)) ||
        syscall_std(SYS_getcwd, (uint32_t)buf, sizeof(buf), 0, &fl) < 0 || strcmp(buf, cwd))
        return 6;
    if ((fd = syscall_std(SYS_walk, AT_CWD, (uint32_t)"/bin/t_robust", 0, &fl)) < 0)
        return 7;                       /* copyinstr */
    close(fd);
    if (syscall_std(SYS_pipe, (uint32_t)q, 0, 0, &fl) != 0 || q[0] < 0 || q[1] < 0 ||
        write(q[1], "z", 1) != 1 || read(q[0], buf, 1) != 1 || buf[0] != 'z')
        return 8;
    if (syscall_std(SYS_getpid, 0, 0, 0, &fl) != getpid())
        return 9;
    if ((unsigned)syscall_std(SYS_uptime, 0, 0, 0, &fl) > uptime_ms())
        return 10;
    return 0;
}

/* exec with DF set: the kernel builds the new stack from the argument
 * strings; the new program checks them (and that DF is clear). */
static int exec_with_df_set(void)
{
    char *argv[] = { "t_robust", "--args", "hello", "world", NULL };
    char *envp[] = { "K=v", NULL };
    uint32_t fl;
    int fd = walk(AT_CWD, "/bin/t_robust", 0);

    keepstdio();
    syscall_std(SYS_exec, fd, (uint32_t)argv, (uint32_t)envp, &fl);
    return 99;
}

static void system_calls_with_the_direction_flag_set_work(void)
{
    int code;

    CHECK((code = in_child(calls_with_df_set)) == 0, "step %d failed", code);
    CHECK((code = in_child(exec_with_df_set)) == 0, "exec: code %d", code);
    PASS();
}

static int sys0(int nr)
{
    int ret;

    __asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr) : "memory");
    return ret;
}

static void set_eflags(uint32_t f)
{
    __asm__ volatile("pushl %0\n\tpopfl" : : "r"(f) : "cc");
}

static uint32_t get_eflags(void)
{
    uint32_t f;

    __asm__ volatile("pushfl\n\tpopl %0" : "=r"(f));
    return f;
}

/* AC and NT set, null data segments: the kernel must neither care nor
 * pass them on. (DF is tested above; TF below.) */
static int calls_with_odd_flags_and_segments(void)
{
    uint32_t before = get_eflags(), after;
    int pid = getpid(), r, r2;

    set_eflags(before | EFLAGS_AC | EFLAGS_NT);
    r = sys0(SYS_getpid);
    after = get_eflags();
    set_eflags(before);
    if (r != pid || (after & (EFLAGS_AC | EFLAGS_NT)) != (EFLAGS_AC | EFLAGS_NT))
        return 1;
    /* null %ds/%es/%fs/%gs across the call: only the call itself runs with them */
    __asm__ volatile("pushl %%ds\n\tpushl %%es\n\t"
                     "xorl %%ecx, %%ecx\n\tmovl %%ecx, %%ds\n\tmovl %%ecx, %%es\n\t"
                     "movl %%ecx, %%fs\n\tmovl %%ecx, %%gs\n\t"
                     "int $0x80\n\t"
                     "popl %%es\n\tpopl %%ds"
                     : "=a"(r2)
                     : "a"(SYS_getpid)
                     : "ecx", "memory");
    if (r2 != pid)
        return 2;
    return 0;
}

static void single_step(void)
{
    set_eflags(get_eflags() | EFLAGS_TF);
    __asm__ volatile("nop\n\tnop");
    _exit(0);
}

static void nested_task_iret(void)
{
    /* iret with NT set is a return to a task that does not exist */
    set_eflags(get_eflags() | EFLAGS_NT);
    __asm__ volatile("pushfl\n\tpushl %%cs\n\tpushl $1f\n\tiret\n1:" ::: "memory");
    _exit(0);
}

static void iret_into_virtual_8086_mode(void)
{
    /* A real CPU ignores VM in an iret at ring 3 (cs 0 then faults); QEMU
     * enters virtual-8086 mode, at cs:ip 0:0, whose first trap the kernel
     * must take as the process's (it took it for its own: panic). */
    __asm__ volatile("pushl $0\n\tpushl $0\n\tpushl $0\n\tpushl $0\n\t" /* gs fs ds es */
                     "pushl $0\n\tpushl $0x100\n\t"                      /* ss esp */
                     "pushl $0x20202\n\tpushl $0\n\tpushl $0\n\t"        /* VM|IF, cs, ip */
                     "iret" ::
                         : "memory");
    _exit(0);
}

static int status_of_child(void (*fn)(void))
{
    int pid;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        fn();
        _exit(0);
    }
    return pid < 0 ? -1 : wait_bounded(pid, 3000);
}

/* LAR of LDT selector 0x000F (index 1, table bit, RPL 3): 0 if the CPU
 * says "invalid" (ZF clear), 1 if it found a descriptor. */
static int lar_says_invalid(void)
{
    uint32_t sel = 0x000F, rights = 0;
    uint8_t zf;

    __asm__ volatile("larl %2, %0\n\tsetz %1" : "+r"(rights), "=q"(zf) : "r"(sel) : "cc");
    return zf ? 1 : 0;
}

static void odd_flags_and_segments_harm_only_the_caller(void)
{
    int code, status;

    CHECK((code = in_child(calls_with_odd_flags_and_segments)) == 0, "step %d failed", code);
    status = status_of_child(single_step);
    CHECK(status != -1 && WIFSIGNALED(status), "a single-stepping process: status %x", status);
    status = status_of_child(nested_task_iret);
    CHECK(status != -1 && WIFSIGNALED(status), "iret with NT set: status %x", status);
    status = status_of_child(iret_into_virtual_8086_mode);
    CHECK(status != -1 && WIFSIGNALED(status), "iret into virtual-8086 mode: status %x", status);
    CHECK(getpid() > 0, "still here");
    PASS();
}

/* There is no LDT: a selector with the table bit set names nothing. (The
 * CPU's reset LDTR described 64 KiB at linear 0, so LAR of such a selector
 * read a "descriptor" from user page 0 and the process died of a page
 * fault; anyone who could map page 0 could have planted a call gate.) */
static void a_selector_in_the_ldt_is_simply_invalid(void)
{
    int code = in_child(lar_says_invalid);

    CHECK(code == 0, "LAR of an LDT selector: %s (code %d)",
          code == 1 ? "a descriptor was found" : "the process died", code);
    PASS();
}

/* ------------------------------------------------------------ 3. FPU and SSE */

static uint64_t fpu_st0(void)
{
    uint64_t v;

    __asm__ volatile("fstl %0" : "=m"(v));
    return v;
}

static unsigned fpu_cw(void)
{
    uint16_t cw;

    __asm__ volatile("fnstcw %0" : "=m"(cw));
    return cw;
}

static void fpu_set_cw(unsigned cw)
{
    uint16_t v = cw;

    __asm__ volatile("fldcw %0" : : "m"(v));
}

static void fpu_load_pi(void)
{
    __asm__ volatile("fninit\n\tfldpi");
}

static void fpu_load_two(void)
{
    __asm__ volatile("fninit\n\tfld1\n\tfld1\n\tfaddp");
}

static int has_sse(void)
{
    uint32_t a = 1, b, c, d;

    __asm__ volatile("cpuid" : "+a"(a), "=b"(b), "=c"(c), "=d"(d));
    return (d & (1u << 25)) && (d & (1u << 24));        /* SSE and FXSR */
}

static void xmm_load(const uint32_t v[4])
{
    __asm__ volatile("movups %0, %%xmm0\n\tmovups %0, %%xmm7" : : "m"(*(const char(*)[16])v));
}

/* 0 if xmm0 and xmm7 both hold v. */
static int xmm_check(const uint32_t v[4])
{
    uint32_t a[4], b[4];

    __asm__ volatile("movups %%xmm0, %0\n\tmovups %%xmm7, %1"
                     : "=m"(*(char(*)[16])a), "=m"(*(char(*)[16])b));
    return memcmp(a, v, 16) || memcmp(b, v, 16);
}

static unsigned mxcsr_get(void)
{
    uint32_t v;

    __asm__ volatile("stmxcsr %0" : "=m"(v));
    return v;
}

static void mxcsr_set(unsigned v)
{
    uint32_t x = v;

    __asm__ volatile("ldmxcsr %0" : : "m"(x));
}

/* Yield to the other process `rounds` times, then spin until preempted a
 * few times; after each, the FPU must still hold st0 and cw. */
static int fpu_keeps(uint64_t st0, unsigned cw, int rounds)
{
    unsigned until;
    int i;

    for (i = 0; i < rounds; i++) {
        sched_yield();
        if (fpu_st0() != st0 || fpu_cw() != cw)
            return 1;
    }
    for (until = uptime_ms() + 100; uptime_ms() < until;)
        if (fpu_st0() != st0 || fpu_cw() != cw)
            return 2;
    return 0;
}

static void fpu_registers_belong_to_each_process(void)
{
    int pid, status, mine;

    fpu_load_pi();
    fpu_set_cw(FCW_CHOP);
    fflush(stdout);
    if ((pid = fork()) == 0) {
        if (fpu_st0() != PI_BITS || fpu_cw() != FCW_CHOP)
            _exit(10);                  /* fork copies the parent's FPU */
        fpu_load_two();
        _exit(fpu_keeps(TWO_BITS, FCW_DEFAULT, 300));
    }
    mine = fpu_keeps(PI_BITS, FCW_CHOP, 300);
    status = wait_bounded(pid, 5000);
    __asm__ volatile("fninit");
    CHECK(mine == 0, "the parent's pi/cw changed while the child ran (%d: st0 %llx)", mine,
          (unsigned long long)fpu_st0());
    CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "child: status %x (10: fork did not copy the FPU; 1, 2: its 2.0 changed)", status);
    PASS();
}

static void sse_registers_belong_to_each_process(void)
{
    static const uint32_t a[4] = { 0x11111111, 0x22222222, 0x33333333, 0x44444444 };
    static const uint32_t b[4] = { 0xAAAAAAAA, 0xBBBBBBBB, 0xCCCCCCCC, 0xDDDDDDDD };
    int pid, status, i, bad = 0;

    CHECK(has_sse(), "this CPU has no SSE");
    xmm_load(a);
    mxcsr_set(MXCSR_CHOP);
    fflush(stdout);
    if ((pid = fork()) == 0) {
        if (xmm_check(a) || mxcsr_get() != MXCSR_CHOP)
            _exit(10);
        xmm_load(b);
        mxcsr_set(MXCSR_DEFAULT);
        for (i = 0; i < 300; i++) {
            sched_yield();
            if (xmm_check(b) || mxcsr_get() != MXCSR_DEFAULT)
                _exit(1);
        }
        _exit(0);
    }
    for (i = 0; i < 300 && !bad; i++) {
        sched_yield();
        bad = xmm_check(a) || mxcsr_get() != MXCSR_CHOP;
    }
    status = wait_bounded(pid, 5000);
    mxcsr_set(MXCSR_DEFAULT);
    CHECK(!bad, "the parent's xmm0/xmm7/mxcsr changed while the child ran (round %d)", i);
    CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "child: status %x (10: fork did not copy xmm/mxcsr; 1: they changed)", status);
    PASS();
}

/* What `t_robust --fpu-state` checks in a freshly exec'd program. */
static int fpu_state_is_clean(void)
{
    uint16_t env[14];
    static const uint32_t zero[4];

    __asm__ volatile("fnstenv %0" : "=m"(env));
    if (env[0] != FCW_DEFAULT)
        return printf("fcw %x\n", env[0]), 1;
    if (env[2] != 0)
        return printf("fsw %x\n", env[2]), 2;
    if (env[4] != 0xFFFF)
        return printf("ftw %x\n", env[4]), 3;
    if (has_sse() && mxcsr_get() != MXCSR_DEFAULT)
        return printf("mxcsr %x\n", mxcsr_get()), 4;
    if (has_sse() && xmm_check(zero))
        return printf("xmm0/xmm7 not zero\n"), 5;
    return 0;
}

static int exec_after_dirtying_the_fpu(void)
{
    static const uint32_t junk[4] = { 1, 2, 3, 4 };
    char *argv[] = { "t_robust", "--fpu-state", NULL };

    fpu_load_pi();
    __asm__ volatile("fld1\n\tfldz");
    fpu_set_cw(0x027F);
    if (has_sse()) {
        xmm_load(junk);
        mxcsr_set(MXCSR_CHOP);
    }
    keepstdio();
    execv("/bin/t_robust", argv);
    return 99;
}

static void exec_starts_with_a_clean_fpu(void)
{
    int code;

    CHECK((code = in_child(exec_after_dirtying_the_fpu)) == 0,
          "the exec'd program found a used FPU (%d: 1 cw, 2 sw, 3 tags, 4 mxcsr, 5 xmm)", code);
    PASS();
}

static void divide_by_zero_unmasked(void)
{
    fpu_load_two();
    fpu_set_cw(FCW_DEFAULT & ~0x4);     /* unmask zero-divide */
    __asm__ volatile("fldz\n\tfdivrp\n\tfwait");
    _exit(0);
}

/* (The SSE twin, #XM from an unmasked divps, cannot be tested here: QEMU
 * 7.2 never raises SSE exceptions. The kernel maps #XM to SIGFPE too.) */
static void unmasked_fpu_exceptions_kill_only_that_process(void)
{
    int status;

    status = status_of_child(divide_by_zero_unmasked);
    CHECK(status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGFPE,
          "x87 divide by zero, unmasked: status %x", status);
    PASS();
}

/* ------------------------------------------------------------ 4. pids */

/* A child's half of the test below: /proc/self names it, and its pid's
 * directory (and no spelling with a leading zero) is there. */
static int proc_names_me(void)
{
    char path[32], want[32], text[256], link[16];
    int pid = getpid(), n = readlink("/proc/self", link, sizeof(link) - 1);

    if (n <= 0)
        return 1;
    link[n] = '\0';
    snprintf(want, sizeof(want), "pid %d\n", pid);
    snprintf(path, sizeof(path), "/proc/%d/status", pid);
    if (atoi(link) != pid || slurp(path, text, sizeof(text)) <= 0 ||
        strncmp(text, want, strlen(want)))
        return 2;
    if (slurp("/proc/self/status", text, sizeof(text)) <= 0 || strncmp(text, want, strlen(want)))
        return 3;
    snprintf(path, sizeof(path), "/proc/0%d/status", pid);
    return slurp(path, text, sizeof(text)) < 0 && errno == ENOENT ? 0 : 4;
}

/* /proc once read no name past 1000009 (its number parsing stopped
 * there), so a long-running machine's processes vanished from ps. The
 * pids printed let the nextpid= boot (tools/test.py) see them wrap after
 * PID_MAX; booted plainly, they are small and this checks /proc alone. */
static void proc_names_every_pid_and_pids_wrap(void)
{
    char text[256];
    int pid[4], status, i, j;

    for (i = 0; i < 4; i++) {
        CHECK((pid[i] = fork()) >= 0, "fork");
        if (pid[i] == 0)
            _exit(proc_names_me());
        CHECK(waitpid(pid[i], &status, 0) == pid[i], "wait");
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d: step %d failed", pid[i],
              WEXITSTATUS(status));
        for (j = 0; j < i; j++)
            CHECK(pid[j] != pid[i] && pid[i] > 1, "pid %d twice, or init's", pid[i]);
    }
    CHECK(slurp("/proc/268435456/status", text, sizeof(text)) < 0 && errno == ENOENT,
          "past PID_MAX");
    CHECK(slurp("/proc/99999999999999999999/status", text, sizeof(text)) < 0 && errno == ENOENT,
          "a number past any int");
    printf("t_robust: pids %d %d %d %d after %d\n", pid[0], pid[1], pid[2], pid[3], getpid());
    PASS();
}

/* How many entries of /proc are named name: -1 if it cannot be listed. */
static int listed_in_proc(const char *name)
{
    char buf[512];
    int p = walk(AT_CWD, "/proc", 0), fd = p >= 0 ? ready(p, R_READ) : -1, n, i, count = 0;

    if (p >= 0)
        close(p);
    if (fd < 0)
        return -1;
    while ((n = getdents(fd, buf, sizeof(buf))) > 0) {
        for (i = 0; i < n;) {
            struct dirent *d = (struct dirent *)(buf + i);
            count += strcmp(d->d_name, name) == 0;
            i += d->d_reclen;
        }
    }
    close(fd);
    return n == 0 ? count : -1;
}

static int listed_pid(int pid)
{
    char name[16];

    snprintf(name, sizeof(name), "%d", pid);
    return listed_in_proc(name);
}

/* /proc lists every live process once - a zombie too (ps shows it) - and
 * one that was reaped not at all, whatever holes its slot left in the
 * table (a listing that stepped over a free slot without moving its
 * cookie named the next process twice). */
static void proc_lists_each_process_once_zombies_too(void)
{
    int p[2], kid[3], z, i, status;
    char buf[160];

    CHECK(pipe(p) == 0, "pipe");
    fflush(stdout);
    for (i = 0; i < 3; i++) {
        if ((kid[i] = fork()) == 0) {
            char c;
            close(p[1]);
            read(p[0], &c, 1);          /* until the pipe closes */
            _exit(0);
        }
        CHECK(kid[i] > 0, "fork");
    }
    close(p[0]);
    if ((z = fork()) == 0)
        _exit(0);
    for (i = 0; i < 300 && strcmp(proc_state(z, buf, sizeof(buf)), "zombie") != 0; i++)
        sleep_ms(10);
    CHECK(strcmp(proc_state(z, buf, sizeof(buf)), "zombie") == 0, "pid %d is no zombie", z);
    /* last: the slot it leaves is a hole below the others' */
    CHECK(kill(kid[0], SIGKILL) == 0 && waitpid(kid[0], &status, 0) == kid[0], "reap the first");
    CHECK(listed_pid(kid[0]) == 0, "reaped pid %d listed %d times", kid[0], listed_pid(kid[0]));
    CHECK(listed_pid(kid[1]) == 1, "pid %d listed %d times", kid[1], listed_pid(kid[1]));
    CHECK(listed_pid(kid[2]) == 1, "pid %d listed %d times", kid[2], listed_pid(kid[2]));
    CHECK(listed_pid(z) == 1, "zombie %d listed %d times", z, listed_pid(z));
    CHECK(listed_pid(getpid()) == 1, "we are listed %d times", listed_pid(getpid()));
    close(p[1]);
    CHECK(waitpid(kid[1], &status, 0) == kid[1] && waitpid(kid[2], &status, 0) == kid[2] &&
              waitpid(z, &status, 0) == z,
          "reap");
    PASS();
}

/* /proc/self/ns of a namespace whose text is longer than the 4 KiB a
 * /proc file is first made in: read whole, every attachment named, the
 * last line ended. In an unshared copy. Steps: what failed. */
#define NS_DIR   "/tmp/a_directory_with_a_long_name_for_a_long_proc_self_ns_text"
#define NS_BINDS 120

static int long_ns_text(void)
{
    static char text[32768];
    int d, i, n, got = 0, count = 0, fd;
    char *at;

    if (unshare() < 0 || (d = fsopen("ramfs", -1, "")) < 0)
        return 1;
    for (i = 0; i < NS_BINDS; i++)
        if (bind(d, AT_CWD, NS_DIR, 0) < 0)
            return 2;
    if ((fd = open("/proc/self/ns", O_RDONLY)) < 0)
        return 3;
    while (got < (int)sizeof(text) - 1 && (n = read(fd, text + got, sizeof(text) - 1 - got)) > 0)
        got += n;
    text[got] = '\0';
    for (at = text; (at = strstr(at, NS_DIR " ramfs")); at++)
        count++;
    if (got < NS_BINDS * (int)sizeof(NS_DIR))
        return 4;                       /* cut short */
    return count == NS_BINDS && text[got - 1] == '\n' ? 0 : 5;
}

static void proc_ns_longer_than_a_page_is_read_whole(void)
{
    int pid, status, r;

    CHECK(mkdir(NS_DIR, 0755) == 0 || errno == EEXIST, "mkdir");
    fflush(stdout);
    if ((pid = fork()) == 0)
        _exit(long_ns_text());
    r = !wait_child_ms(pid, 5000, &status) ? 100 : WIFEXITED(status) ? WEXITSTATUS(status) : 200;
    CHECK(r == 0, "step %d (100: hung)", r);
    rmdir(NS_DIR);
    PASS();
}

/* A /proc file read in pieces is one text, the one its read at offset 0
 * made: its text was made anew at every read, so a reader taking
 * /proc/self/status in pieces while the process grew got the start of one
 * text and the end of the next. The child reads 5 bytes, grows by
 * GROW_PAGES, reads the rest: its pages must be the count from before. */
#define GROW_PAGES 64

static unsigned pages_in(const char *text)
{
    const char *p = strstr(text, "\npages ");

    return p ? (unsigned)atoi(p + 7) : 0;
}

static int status_in_pieces(void)
{
    static char pieces[512], fresh[512]; /* bss: touched before anything is read */
    int fd, got, n;
    char *more;

    memset(pieces, 0, sizeof(pieces));
    memset(fresh, 0, sizeof(fresh));
    if ((fd = open("/proc/self/status", O_RDONLY)) < 0 || read(fd, pieces, 5) != 5)
        return 1;
    if ((more = sbrk(GROW_PAGES * 4096)) == (char *)-1)
        return 2;
    for (n = 0; n < GROW_PAGES; n++)
        more[n * 4096] = 1;
    for (got = 5; (n = read(fd, pieces + got, sizeof(pieces) - 1 - got)) > 0; got += n)
        ;
    if (slurp("/proc/self/status", fresh, sizeof(fresh)) <= 0 || !pages_in(pieces))
        return 3;
    if (strncmp(pieces, "pid ", 4) || pieces[got - 1] != '\n')
        return 4;                       /* not one whole text */
    return pages_in(pieces) + GROW_PAGES <= pages_in(fresh) ? 0 : 5;
}

static void a_proc_file_read_in_pieces_is_one_text(void)
{
    int pid, status, r;

    fflush(stdout);
    if ((pid = fork()) == 0)
        _exit(status_in_pieces());
    r = !wait_child_ms(pid, 5000, &status) ? 100 : WIFEXITED(status) ? WEXITSTATUS(status) : 200;
    CHECK(r == 0, "step %d (5: the pieces are of two texts; 100: hung)", r);
    PASS();
}

/* ------------------------------------------------------------ 4b. a full process table */

#define ROOT_SLOTS 4                    /* the last slots of the table are root's (proc.c) */

/* A child that reads rd until the pipe closes, holding nothing else. */
static int sleeper(int rd, int wr_to_close, int other)
{
    int pid;
    char c;

    if ((pid = fork()) == 0) {
        close(wr_to_close);
        if (other >= 0)
            close(other);
        read(rd, &c, 1);
        _exit(0);
    }
    return pid;
}

/* A user's part: as uid, fork sleepers until the table says no; report
 * how many, wait until the pipe closes, reap them. */
static int user_fills_the_table(int uid, int rd, int hold_wr, int rep)
{
    int n = 0, pid, status;
    char c;

    if (setgid(uid) < 0 || setuid(uid) < 0)
        return 1;
    while ((pid = sleeper(rd, hold_wr, rep)) > 0)
        n++;
    if (pid != -1 || errno != EAGAIN)
        return 2;
    write(rep, &n, sizeof(n));
    read(rd, &c, 1);
    while (wait(&status) > 0)
        ;
    return 0;
}

/* Users' processes fill the table but for root's last ROOT_SLOTS, which
 * root then takes, every one; the last taken is the table's last slot,
 * and closing the pipe its sleeper reads wakes it as it wakes the others.
 * Two users: one may have only CHILD_MAX (t_users), the second takes
 * what is left to users. */
static void a_user_leaves_root_the_last_slots_and_every_slot_wakes(void)
{
    int hold[2], rep[2], u[2], n[2] = { 0, 0 }, kids[ROOT_SLOTS + 1], r = 0, i, status;

    CHECK(pipe(hold) == 0 && pipe(rep) == 0, "pipe");
    fflush(stdout);
    for (i = 0; i < 2; i++) {
        if ((u[i] = fork()) == 0) {
            close(hold[1]);
            close(rep[0]);
            _exit(user_fills_the_table(1000 + i, hold[0], -1, rep[1]));
        }
        CHECK(read(rep[0], &n[i], sizeof(n[i])) == sizeof(n[i]) && n[i] > 10, "user %d forked %d",
              1000 + i, n[i]);
    }
    close(rep[1]);
    close(rep[0]);
    while (r <= ROOT_SLOTS && (kids[r] = sleeper(hold[0], hold[1], -1)) > 0)
        r++;
    CHECK(r == ROOT_SLOTS && kids[r] == -1 && errno == EAGAIN,
          "root forked %d in the slots left, want %d", r, ROOT_SLOTS);
    for (i = 0; i < r; i++)
        CHECK(wait_until_sleeping(kids[i], 2000), "sleeper %d does not sleep", i);
    close(hold[1]);                     /* every sleeper wakes to end of file */
    for (i = 0; i < r; i++)
        CHECK(wait_child_ms(kids[i], 2000, &status) && status == 0, "sleeper %d: status %x", i,
              status);
    for (i = 0; i < 2; i++)
        CHECK(wait_child_ms(u[i], 5000, &status) && status == 0, "user %d's part: status %x",
              1000 + i, status);
    close(hold[0]);
    PASS();
}

/* ------------------------------------------------------------ 5. lseek and a shared read */

#define SEEK_IMG  "/tmp/seek.img"
#define SEEK_FILE 65536                /* bytes of the file read: word i holds offset 4i */
#define SEEK_STEP 4096                 /* where the seeker puts the position */
#define SEEK_MS   1500                 /* how long the race runs */

/* Keeps the instance entered, and yielding: freeing a file's 256 blocks
 * yields every WALK_YIELD (ext2.c), so a read meanwhile waits in the
 * middle, its position's turn held. */
static void hog(int dir)
{
    static char block[256 * 1024];
    int f = create(dir, "hog", S_IFREG, 0644, 0), fd = f < 0 ? -1 : ready(f, R_RDWR);

    for (;;) {
        if (fd < 0 || ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) != 0 ||
            write(fd, block, sizeof(block)) != (int)sizeof(block))
            _exit(1);
    }
}

/* Puts the shared position at the next multiple of SEEK_STEP, for ever. */
static void seeker(int fd)
{
    int k;

    for (k = 0;; k = (k + 1) % (SEEK_FILE / SEEK_STEP))
        if (lseek(fd, k * SEEK_STEP, SEEK_SET) < 0)
            _exit(1);
}

/* A read sharing its open file with a process that lseeks: the read
 * moves the position on from where it read, or the lseek comes after it.
 * The lseek took no turn, so it could land while the read waited inside
 * ext2, and the read then moved the lseek's position on by what it had
 * read elsewhere: the next read started 4 bytes past a multiple of
 * SEEK_STEP that no read had been at. Each read here is of one word,
 * which says where it was read from. */
static void lseek_waits_for_a_shared_read_in_progress(void)
{
    static int words[SEEK_FILE / 4];
    int img, src, root, f, fd, pid[2], i, n = 0, w, prev = -4, odd = 0, first = 0, seeks = 0;
    unsigned t0;

    for (i = 0; i < SEEK_FILE / 4; i++)
        words[i] = 4 * i;
    CHECK(copyfile("/etc/sample.ext2", SEEK_IMG) == 0, "copy the image");
    CHECK((img = walk(AT_CWD, SEEK_IMG, 0)) >= 0 && (src = ready(img, R_RDWR)) >= 0, "ready");
    CHECK((root = fsopen("ext2", src, "")) >= 0, "fsopen ext2");
    close(src);
    close(img);
    CHECK((f = create(root, "words", S_IFREG, 0644, 0)) >= 0 && (fd = ready(f, R_RDWR)) >= 0,
          "create");
    close(f);
    CHECK(write(fd, words, sizeof(words)) == (int)sizeof(words), "write the words");
    fflush(stdout);
    CHECK((pid[0] = fork()) >= 0, "fork");
    if (pid[0] == 0)
        hog(root);
    CHECK((pid[1] = fork()) >= 0, "fork");
    if (pid[1] == 0)
        seeker(fd);
    for (i = 0, t0 = uptime_ms(); uptime_ms() - t0 < SEEK_MS && !odd; i++) {
        if ((n = read(fd, &w, 4)) == 0) {
            prev = -4;                  /* at the end: the seeker brings it back */
            continue;
        }
        if (n != 4)
            break;
        if (w != prev + 4)
            seeks++;
        if (w != prev + 4 && w % SEEK_STEP != 0) {
            odd = w;
            first = prev;
        }
        prev = w;
    }
    kill(pid[0], SIGKILL);
    kill(pid[1], SIGKILL);
    waitpid(pid[0], NULL, 0);
    waitpid(pid[1], NULL, 0);
    close(fd);
    close(root);
    unlink(SEEK_IMG);
    CHECK(n == 4 || n == 0, "read: %d", n);
    CHECK(seeks > 0, "the seeker never moved the position: no race was run");
    CHECK(!odd, "after a read at %d, the next began at %d (read %d)", first, odd, i);
    PASS();
}

/* ------------------------------------------------------------ 6. the library */

/* <pwd.h>: "overwritten by the next call" of the same database. The two
 * databases shared one buffer, so id(1)'s getgrgid rewrote the passwd
 * entry it had just been given (root's shell read "x", from the group
 * file's second line). */
static void a_passwd_entry_survives_a_group_lookup(void)
{
    struct passwd *pw = getpwuid(0);
    struct group *gr;

    CHECK(pw && strcmp(pw->pw_name, "root") == 0, "getpwuid(0)");
    gr = getgrgid(1000);
    CHECK(gr && strcmp(gr->gr_name, "student") == 0 && gr->gr_gid == 1000, "getgrgid(1000)");
    CHECK(strcmp(pw->pw_name, "root") == 0 && strcmp(pw->pw_dir, "/") == 0 &&
              strcmp(pw->pw_shell, "/bin/sh") == 0,
          "root's entry after getgrgid: %s %s %s", pw->pw_name, pw->pw_dir, pw->pw_shell);
    pw = getpwnam("student");
    CHECK(pw && pw->pw_uid == 1000 && strcmp(gr->gr_name, "student") == 0,
          "the group entry after getpwnam: %s", gr->gr_name);
    PASS();
}

/* ------------------------------------------------------------ main */

int main(int argc, char *argv[])
{
    if (argc > 1 && strcmp(argv[1], "--fpu-state") == 0)
        return fpu_state_is_clean();
    if (argc > 1 && strcmp(argv[1], "--args") == 0)
        return argc == 4 && strcmp(argv[2], "hello") == 0 && strcmp(argv[3], "world") == 0 &&
                       getenv("K") && strcmp(getenv("K"), "v") == 0 && !(get_eflags() & EFLAGS_DF)
                   ? 0
                   : 1;
    t_only = argc > 1 ? argv[1] : NULL;
    T_RUN(system_calls_with_the_direction_flag_set_work);
    T_RUN(odd_flags_and_segments_harm_only_the_caller);
    T_RUN(a_selector_in_the_ldt_is_simply_invalid);
    T_RUN(fpu_registers_belong_to_each_process);
    T_RUN(sse_registers_belong_to_each_process);
    T_RUN(exec_starts_with_a_clean_fpu);
    T_RUN(unmasked_fpu_exceptions_kill_only_that_process);
    T_RUN(a_big_writer_and_small_writers_share_a_full_pipe);
    T_RUN(two_writers_on_a_full_pipe_sleep_and_the_clock_runs);
    T_RUN(proc_names_every_pid_and_pids_wrap);
    T_RUN(proc_lists_each_process_once_zombies_too);
    T_RUN(proc_ns_longer_than_a_page_is_read_whole);
    T_RUN(a_proc_file_read_in_pieces_is_one_text);
    T_RUN(a_user_leaves_root_the_last_slots_and_every_slot_wakes);
    T_RUN(lseek_waits_for_a_shared_read_in_progress);
    T_RUN(a_passwd_entry_survives_a_group_lookup);
    printf("t_robust: done\n");
    return t_failures != 0;
}
