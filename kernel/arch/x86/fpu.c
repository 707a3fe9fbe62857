/* fpu.c - the x87 FPU and SSE registers, one set per process, switched
 * lazily: the registers hold the state of one save area, the owner's
 * (or of none); a switch to any other process only sets CR0.TS, and that
 * process's first FPU or SSE instruction traps (#NM, fpu_trap), which
 * saves the owner's registers with fxsave and loads the newcomer's with
 * fxrstor. Processes that never touch the FPU (most) never pay for it;
 * doc/decisions.md says why lazy rather than eager. The kernel itself
 * never touches these registers: it is built with -mgeneral-regs-only.
 *
 * The invariant, for the process running: CR0.TS is clear exactly when
 * its save area is the owner, so its state is in the registers then and
 * in its save area otherwise. Touched only with interrupts off (the
 * scheduler, the #NM trap, fork and exec, which never sleep in here). */
#include "arch/x86/cpu.h"
#include "arch/x86/x86.h"
#include "lib/string.h"

#define CR0_MP         (1u << 1)           /* wait/fwait honour TS */
#define CR0_EM         (1u << 2)           /* no FPU: emulate (must be off) */
#define CR0_TS         (1u << 3)           /* task switched: next FPU use traps */
#define CR0_NE         (1u << 5)           /* FPU errors as #MF, not an IRQ 13 nobody handles */
#define CR4_OSFXSR     (1u << 9)           /* the OS saves SSE state: SSE allowed */
#define CR4_OSXMMEXCPT (1u << 10)       /* unmasked SSE errors raise #XM */

SWITCH_DATA static struct fpu_state *owner; /* whose state the registers hold, or NULL */
SWITCH_DATA static int ts_set;              /* CR0.TS as last written */

#define FCW_DEFAULT   0x037F              /* fninit: 64-bit precision, every exception masked */
#define MXCSR_DEFAULT 0x1F80            /* every SSE exception masked, round to nearest */

_Static_assert(sizeof(struct fpu_state) == 512, "fxsave writes 512 bytes");

static inline uint32_t read_cr0(void)
{
    uint32_t v;
    __asm__ volatile("movl %%cr0, %0" : "=r"(v));
    return v;
}

static inline void write_cr0(uint32_t v)
{
    __asm__ volatile("movl %0, %%cr0" : : "r"(v));
}

static inline uint32_t read_cr4(void)
{
    uint32_t v;
    __asm__ volatile("movl %%cr4, %0" : "=r"(v));
    return v;
}

static inline void write_cr4(uint32_t v)
{
    __asm__ volatile("movl %0, %%cr4" : : "r"(v));
}

SWITCH_PATH static void set_ts(int on)
{
    if (on == ts_set)
        return;
    if (on)
        write_cr0(read_cr0() | CR0_TS);
    else
        __asm__ volatile("clts");
    ts_set = on;
}

/* Turn the FPU on for user programs: errors as exceptions (#MF, #XM) that
 * kill the process that caused them, and SSE if the CPU has it. fxsave is
 * there: boot/entry.asm refused a CPU without it (older than a Pentium II).
 * Returns whether SSE is on.
 *
 * kmain calls this first, and it leaves CR0 as the kernel then runs with:
 * TS set, since no process owns the registers yet (the invariant above).
 * QEMU's TCG translates a block of code again for every value of CR0.MP
 * and CR0.TS it runs with, so code that ran at boot with other values
 * (MP clear before this call, TS clear after it) was translated once more
 * when processes called it: a fifth of the blocks translated on the way
 * to the first prompt, which is mostly translating (doc/decisions.md,
 * "Fifth round: boot"). */
int fpu_init(void)
{
    uint32_t d = cpuid_features();

    write_cr0((read_cr0() | CR0_MP | CR0_NE) & ~(CR0_EM | CR0_TS));
    write_cr4(read_cr4() | CR4_OSFXSR | ((d & CPUID_SSE) ? CR4_OSXMMEXCPT : 0));
    __asm__ volatile("fninit");
    set_ts(1);                          /* nobody's state: the first use traps */
    return (d & CPUID_SSE) != 0;
}

/* The state of a process that has not used the FPU: what fninit leaves,
 * with MXCSR at its default and every register zero. If the registers
 * held s (exec, or a slot of the process table used again), they no
 * longer count as anyone's: the next use loads this state. */
void fpu_reset(struct fpu_state *s)
{
    if (owner == s) {
        owner = NULL;
        set_ts(1);
    }
    memset(s, 0, sizeof(*s));
    s->fcw = FCW_DEFAULT;               /* ftw 0 in fxsave's form: every register empty */
    s->mxcsr = MXCSR_DEFAULT;
}

/* fxsave does not raise pending FPU errors and leaves the registers as
 * they were; fxrstor does not raise them either: a pending error reaches
 * its own process, at its next FPU instruction. Both need CR0.TS clear. */
static void fxsave(struct fpu_state *s)
{
    __asm__ volatile("fxsave %0" : "=m"(*s));
}

static void fxrstor(const struct fpu_state *s)
{
    __asm__ volatile("fxrstor %0" : : "m"(*s));
}

/* The scheduler is about to run the process whose save area is s: let
 * its FPU instructions run if the registers are its own, trap otherwise. */
SWITCH_PATH void fpu_switch_to(const struct fpu_state *s)
{
    set_ts(owner != s);
}

/* #NM from user mode: the running process (save area s) used the FPU
 * while the registers held someone else's state. Save that, load s. */
void fpu_trap(struct fpu_state *s)
{
    set_ts(0);
    if (owner == s)
        return;
    if (owner)
        fxsave(owner);
    fxrstor(s);
    owner = s;
}

/* fork: dst gets the running process's FPU state (src is its save area),
 * from the registers if they hold it. */
void fpu_copy(struct fpu_state *dst, struct fpu_state *src)
{
    if (owner == src)
        fxsave(src);                    /* TS is clear: src is the owner */
    memcpy(dst, src, sizeof(*dst));
}
