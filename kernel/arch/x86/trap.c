/* trap.c - where every interrupt, exception and system call lands (via
 * trapentry.asm). Hardware interrupts go to their driver; a fault in user
 * mode kills just that process with a message naming it, the address and
 * the instruction; a fault in kernel mode is a kernel bug and panics. */
#include "arch/x86/cpu.h"
#include "arch/x86/x86.h"
#include "lib/kprintf.h"
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

void trap(struct trapframe *tf)
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
    } else if (tf->trapno == T_DEVICE && trap_from_user(tf) && curproc()) {
        fpu_trap(&curproc()->fpu);      /* its first FPU use since a switch: fpu.c */
    } else if (trap_from_user(tf)) {
        if (!user_fault_fixed(tf, addr))
            proc_user_fault(tf, addr);
    } else {
        panic_trap(tf, addr);
    }

    /* On the way back to user mode: die if killed, give up the CPU if the
     * timer said our slice is over. Kernel code is never preempted. */
    if (trap_from_user(tf))
        proc_return_to_user(tf);
}
