/* x86.h - the few x86 instructions C cannot say: port I/O, control
 * registers, interrupt flag. Everything that knows it runs on an x86 lives
 * under kernel/arch/x86/; portable code includes only this header's names. */
#ifndef ARCH_X86_H
#define ARCH_X86_H

#include <stdint.h>

static inline uint8_t inb(uint16_t port)
{
    uint8_t v;
    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline uint16_t inw(uint16_t port)
{
    uint16_t v;
    __asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline void outb(uint16_t port, uint8_t v)
{
    __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outw(uint16_t port, uint16_t v)
{
    __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
    __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t inl(uint16_t port)
{
    uint32_t v;
    __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

/* Read/write `count` 16-bit words or 32-bit words from/to a port (the ATA
 * data register: IDENTIFY reads words, sector data moves 32 bits at a time). */
static inline void insw(uint16_t port, void *buf, uint32_t count)
{
    __asm__ volatile("cld; rep insw" : "+D"(buf), "+c"(count) : "d"(port) : "memory");
}

static inline void insl(uint16_t port, void *buf, uint32_t count)
{
    __asm__ volatile("cld; rep insl" : "+D"(buf), "+c"(count) : "d"(port) : "memory");
}

static inline void outsl(uint16_t port, const void *buf, uint32_t count)
{
    __asm__ volatile("cld; rep outsl" : "+S"(buf), "+c"(count) : "d"(port));
}

static inline uint32_t read_eflags(void)
{
    uint32_t f;
    __asm__ volatile("pushfl; popl %0" : "=r"(f));
    return f;
}

static inline void cli(void)
{
    __asm__ volatile("cli" ::: "memory");
}
static inline void sti(void)
{
    __asm__ volatile("sti" ::: "memory");
}
static inline void hlt(void)
{
    __asm__ volatile("hlt");
}

static inline uint32_t read_cr2(void)
{
    uint32_t v;
    __asm__ volatile("movl %%cr2, %0" : "=r"(v));
    return v;
}

static inline void write_cr3(uint32_t pa)
{
    __asm__ volatile("movl %0, %%cr3" : : "r"(pa) : "memory");
}

static inline void invlpg(uintptr_t va)
{
    __asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

/* The code every context switch runs, from the CR3 write to the return to
 * user mode, and a system call's way in and out: kept together at the
 * start of .text (linker.ld). A CR3 write empties QEMU's TLB, and every
 * page touched after it is looked up in the page tables again: with this
 * code in one page rather than seven, a switch costs about 0.8 us less
 * under QEMU (doc/decisions.md, "Third round"). */
#define SWITCH_PATH __attribute__((section(".text.hot")))

/* The kernel's variables that every context switch reads or writes (the
 * scheduler's, the TSS and GDT, the FPU's owner, the address space
 * loaded): kept together in the first page of .bss (linker.ld), for the
 * same reason as SWITCH_PATH: each page touched after a CR3 write is one
 * more walk of the page tables under QEMU. They were spread over four
 * pages (doc/decisions.md, "Context switch, thirteenth round"). Only for
 * variables without an initializer: the section is zero-filled. */
#define SWITCH_DATA __attribute__((section(".bss.hot")))

/* Constant data a switch reads (the system call table): beside the code,
 * in SWITCH_PATH's page. */
#define SWITCH_RODATA __attribute__((section(".rodata.hot")))

/* CPUID leaf 1's feature bits in EDX: what this CPU has (boot/entry.asm
 * has already refused one without PSE, CMOV and FXSR). */
#define CPUID_APIC (1u << 9)           /* a local APIC (pic.c) */
#define CPUID_SEP  (1u << 11)           /* sysenter/sysexit (idt.c) */
#define CPUID_SSE  (1u << 25)

static inline uint32_t cpuid_features(void)
{
    uint32_t a = 1, b, c, d;

    __asm__ volatile("cpuid" : "+a"(a), "=b"(b), "=c"(c), "=d"(d));
    return d;
}

/* Model-specific registers: sysenter's (idt.c, gdt.c), the local APIC's (pic.c). */
#define MSR_APIC_BASE    0x1B           /* its registers' address; bit 11: it is on */
#define MSR_SYSENTER_CS  0x174          /* its cs; ss is the next GDT slot */
#define MSR_SYSENTER_ESP 0x175          /* its esp: the running process's kernel stack */
#define MSR_SYSENTER_EIP 0x176          /* where it lands: sysenter_entry */

static inline void wrmsr(uint32_t msr, uint32_t lo, uint32_t hi)
{
    __asm__ volatile("wrmsr" : : "c"(msr), "a"(lo), "d"(hi));
}

static inline uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;

    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return (uint64_t)hi << 32 | lo;
}

static inline uint32_t read_ebp(void)
{
    uint32_t v;
    __asm__ volatile("movl %%ebp, %0" : "=r"(v));
    return v;
}

#define EFLAGS_IF 0x00000200u

/* Interrupt-disable nesting: the uniprocessor kernel's only lock.
 * irq_save() returns whether interrupts were on; irq_restore() puts that back. */
static inline uint32_t irq_save(void)
{
    uint32_t f = read_eflags();
    cli();
    return f & EFLAGS_IF;
}

static inline void irq_restore(uint32_t was_on)
{
    if (was_on)
        sti();
}

#endif
