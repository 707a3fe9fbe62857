/* trap.c - where every interrupt, exception and system call lands (via
 * trapentry.asm). Hardware interrupts go to their driver; a fault in user
 * mode kills just that process with a message naming it, the address and
 * the instruction; a fault in kernel mode is a kernel bug and panics. */
#include "arch/x86/cpu.h"
#include "arch/x86/x86.h"
#include "lib/kprintf.h"
#include "mm/kfence.h"
#include "mm/memlayout.h"
#include "mm/uaccess.h"
#include "mm/vm.h"
#include "proc/proc.h"
#include "include/uapi/errno.h"
#include "include/uapi/proc.h"
#include "proc/syscall.h"
#include "include/array_size.h"

#define NIRQ 16

static irq_handler_t irq_handlers[NIRQ];    /* registered at boot, read-only after */

/* Laid out by hand (packed, in vector order): */
/* clang-format off */
static const char *const exception_names[] = {
    "divide error", "debug", "NMI", "breakpoint", "overflow", "bound range",
    "invalid opcode", "device not available", "double fault", "coprocessor overrun",
    "invalid TSS", "segment not present", "stack fault", "general protection fault",
    "page fault", "reserved", "x87 FP error", "alignment check", "machine check",
    "SIMD FP error",
};
/* clang-format on */

const char *trap_name(uint32_t trapno)
{
    if (trapno < ARRAY_SIZE(exception_names))
        return exception_names[trapno];
    return "unexpected trap";
}

void irq_register(int irq, irq_handler_t fn)
{
    irq_handlers[irq] = fn;
    pic_unmask(irq);
}

static void irq_dispatch(int irq)
{
    pic_eoi(irq);                       /* first: the handler may switch away */
    if (irq_handlers[irq])
        irq_handlers[irq]();
}

/* A user page fault may just be the first touch of a lazy page or a write
 * to a copy-on-write page (vm_fault). With no page for a COW copy, the
 * OOM policy picks whom to kill (never init) and the write is retried: it
 * is not p's fault that memory ran out. (A lazy page's frame was reserved
 * when it was mapped: its first touch cannot run out.) */
static int user_fault_fixed(struct trapframe *tf, uint32_t addr)
{
    struct proc *p = curproc();
    int err;

    if (!p || tf->trapno != T_PGFLT)
        return 0;
    if ((err = vm_fault(p->pgdir, addr, (tf->err & PF_WRITE) != 0)) == -ENOMEM)
        proc_out_of_memory(p);
    return err == 0 || err == -ENOMEM;
}

extern char sysenter_entry[], sysenter_flags_clean[], sysenter_ret_load[], sysenter_ret_missing[];

_Static_assert(USER_TOP == 0xC0000000u, "sysenter_entry (trapentry.asm) checks against it");

/* A debug trap at the start of sysenter_entry, before its popf cleared the
 * TF a user program entered with: not a kernel bug, step on. */
static int sysenter_single_step(const struct trapframe *tf)
{
    return tf->trapno == T_DEBUG && tf->eip >= (uint32_t)sysenter_entry &&
           tf->eip <= (uint32_t)sysenter_flags_clean;
}

SWITCH_PATH void trap(struct trapframe *tf)
{
    uint32_t addr = tf->trapno == T_PGFLT ? read_cr2() : 0;

    if ((tf->eflags & EFLAGS_VM) && curproc() && !curproc()->killed) {
        /* Virtual-8086 mode: real CPUs ignore VM in an iret at ring 3, but
         * QEMU's TCG honours it, so a user program can get here with a
         * real-mode cs (and IOPL 3). Orthos runs no such code: whatever
         * trap comes first from that mode ends the process. */
        kprintf("pid %d (%s): virtual-8086 mode (cs:ip %04x:%04x): killed\n", curproc()->pid,
                curproc()->name, tf->cs, tf->eip);
        curproc()->killed = SIGSEGV;
    }
    if (tf->trapno == T_SYSCALL && !(tf->eflags & EFLAGS_VM)) {
        syscall_dispatch(tf);
    } else if (tf->trapno >= T_IRQ0 && tf->trapno < T_IRQ0 + NIRQ) {
        irq_dispatch(tf->trapno - T_IRQ0);
    } else if (tf->trapno == T_SPUR) {
        /* nothing happened */
    } else if (tf->trapno == T_DEVICE && trap_from_user(tf) && curproc()) {
        fpu_trap(&curproc()->fpu);      /* its first FPU use since a switch: fpu.c */
    } else if (trap_from_user(tf)) {
        if (!user_fault_fixed(tf, addr))
            proc_user_fault(tf, addr);
    } else if (tf->trapno == T_PGFLT && tf->eip == (uint32_t)sysenter_ret_load) {
        tf->eip = (uint32_t)sysenter_ret_missing;   /* its one expected fault: see there */
    } else if (!sysenter_single_step(tf)) {
        kfence_fault(tf, addr);         /* a block in the guarded pool: says which */
        panic_trap(tf, addr);
    }

    /* On the way back to user mode: die if killed, give up the CPU if the
     * timer said our slice is over. Kernel code is never preempted. */
    if (trap_from_user(tf))
        proc_return_to_user(tf);
}

/* A selector a user program can have loaded into a data segment register
 * (null, or the user code or data segment, any RPL, in the GDT): anything
 * else in a sysenter frame comes from virtual-8086 mode (see trap()) and
 * would fault when sysexit's way out loads it back. */
SWITCH_PATH static int user_selector(uint32_t sel)
{
    uint32_t slot = sel & ~3u;

    return slot == 0 || slot == (SEL_UCODE & ~3u) || slot == (SEL_UDATA & ~3u);
}

/* sysexit leaves eflags as the kernel has them (trapentry.asm): a user's
 * own TF, NT, AC or DF needs the way out by iret, which restores them. */
#define SYSEXIT_KEEPS_NOT (EFLAGS_TF | EFLAGS_NT | EFLAGS_AC | EFLAGS_DF)

/* sysenter lands here (trapentry.asm) with the frame int $0x80 would have
 * made, but for what the CPU did not save: eflags as the user had them
 * (only the bits a user may set are kept; IF on), and eip and esp, which
 * the ABI passes as a call does: ebp is the user's esp, and the return
 * address is on top of that stack (sysenter_entry read it, unless its
 * page was absent: then eip is 0 and copyin has a go). The call then goes
 * on as int $0x80's.
 * A stack we cannot read, or segments from virtual-8086 mode, kill the
 * process. Returns whether the frame may be left by sysexit: only if it
 * is still the one sysenter made (exec starts another) and asks nothing
 * sysexit cannot do (single-stepping, a nested task): else iret. */
SWITCH_PATH int sysenter_trap(struct trapframe *tf)
{
    struct proc *p = curproc();
    int stack_ok = tf->eip != 0 || copyin(&tf->eip, tf->ebp, 4) == 0;

    tf->eflags = (tf->eflags & EFLAGS_USER) | EFLAGS_IF;
    tf->esp = tf->ebp + 4;
    if (stack_ok && user_selector(tf->ds) && user_selector(tf->es) && user_selector(tf->fs) &&
        user_selector(tf->gs)) {
        syscall_dispatch(tf);
    } else {
        kprintf("pid %d (%s): sysenter with a bad stack (%p) or segments: killed\n", p->pid,
                p->name, (void *)tf->ebp);
        tf->ds = tf->es = tf->fs = tf->gs = SEL_UDATA;
        p->killed = SIGSEGV;
    }
    proc_return_to_user(tf);
    return tf->err == SYSENTER_FRAME && !(tf->eflags & SYSEXIT_KEEPS_NOT);
}
