/* cpu.h - what the rest of the kernel uses from the x86 layer: the trap
 * frame every interrupt builds, and the set-up calls made once at boot. */
#ifndef ARCH_CPU_H
#define ARCH_CPU_H

#include <stdint.h>

/* Built by trapentry.asm on the kernel stack for every interrupt, exception
 * and system call; restored on the way out. esp/ss exist only when the trap
 * came from user mode (the CPU pushes them on a privilege change). A system
 * call made with sysenter gets the same frame (sysenter_entry builds it by
 * hand), with err = SYSENTER_FRAME. */
struct trapframe {
    uint32_t edi, esi, ebp, oesp, ebx, edx, ecx, eax;   /* pusha */
    uint32_t gs, fs, es, ds;
    uint32_t trapno, err;
    uint32_t eip, cs, eflags;
    uint32_t esp, ss;
};

/* The registers swtch() saves when a thread gives up the CPU: the callee-
 * saved ones and the return address (the rest are on the stack already). */
struct context {
    uint32_t edi, esi, ebx, ebp, eip;
};

#define T_DIVIDE  0
#define T_DEBUG   1
#define T_BRKPT   3                   /* int3: a user program may raise it (idt.c) */
#define T_OFLOW   4                   /* into: likewise */
#define T_ILLOP   6
#define T_DEVICE  7                   /* FPU used with CR0.TS set (#NM): fpu.c */
#define T_GPFLT   13
#define T_PGFLT   14
#define T_FPERR   16                  /* x87 error (#MF) */
#define T_SIMDERR 19                  /* SSE error (#XM) */
#define T_IRQ0    32
#define T_SPUR    0xFF                /* the local APIC's spurious vector (pic.c): ignored */
#define T_SYSCALL 0x80                /* int $0x80, and sysenter too (err tells them apart) */

/* tf->err of a system call made with sysenter: its frame may be left by
 * sysexit (trapentry.asm) as long as it still says so; exec rewrites it. */
#define SYSENTER_FRAME 0x5e

#define IRQ_TIMER 0
#define IRQ_KBD   1
#define IRQ_COM1  4
#define IRQ_ATA   14
#define IRQ_ATA2  15

#define EFLAGS_TF 0x00000100u /* single step: a debug trap after each instruction */
#define EFLAGS_DF 0x00000400u /* direction: string instructions go down */
#define EFLAGS_NT 0x00004000u /* nested task: iret would switch tasks */
#define EFLAGS_AC 0x00040000u /* alignment check (in ring 3) */
#define EFLAGS_VM 0x00020000u /* the trap came from virtual-8086 mode */
/* What a user program may set in its eflags: the arithmetic flags, TF, DF,
 * OF, NT, AC and ID (never IF, IOPL or VM: sysenter_trap puts them right). */
#define EFLAGS_USER 0x00244DD5u

static inline int trap_from_user(const struct trapframe *tf)
{
    return (tf->cs & 3) == 3 || (tf->eflags & EFLAGS_VM);
}

void gdt_init(void);
void tss_set_kstack(uint32_t esp0);
void idt_init(void);
extern int sysenter_ok;                 /* the CPU has sysenter and it is set up (idt.c) */
int sysenter_trap(struct trapframe *tf);    /* trap.c: sysenter lands here */
void pic_init(void);
void pic_unmask(int irq);
void pic_eoi(int irq);
void pit_init(unsigned hz);

typedef void (*irq_handler_t)(void);
void irq_register(int irq, irq_handler_t fn);
const char *trap_name(uint32_t trapno);

/* A process's x87 and SSE registers, in the layout fxsave writes
 * (fpu.c; Intel SDM vol. 1, 10.5.1). Only the fields the kernel sets by
 * name are spelled out. */
struct fpu_state {
    uint16_t fcw, fsw;                  /* control and status words */
    uint8_t ftw, reserved;              /* tag bits, 1 = register in use */
    uint16_t fop;
    uint32_t fip, fcs, fdp, fds;        /* last instruction and operand */
    uint32_t mxcsr, mxcsr_mask;
    uint8_t regs[480];                  /* st0-st7, xmm0-xmm7, reserved */
} __attribute__((aligned(16)));

int fpu_init(void);                             /* first in kmain: 1 if SSE */
void fpu_reset(struct fpu_state *s);
void fpu_switch_to(const struct fpu_state *s);  /* before running s's process */
void fpu_trap(struct fpu_state *s);             /* #NM from the process owning s */
void fpu_copy(struct fpu_state *dst, struct fpu_state *src);   /* fork */

/* Switch kernel stacks (swtch.asm): save into *old, resume new. */
void swtch(struct context **old, struct context *new);

/* The return half of trapentry.asm: restore a trapframe and iret. */
void trapret(void);

#endif
