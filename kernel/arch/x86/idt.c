/* idt.c - the interrupt descriptor table: 256 gates, each pointing at a
 * stub in trapentry.asm. Only the system-call gate (int 0x80) may be
 * raised from ring 3; a user `int $13` gets a general protection fault.
 * Exceptions and IRQs use interrupt gates (the CPU turns interrupts off on
 * entry); the system-call gate is a trap gate, so the timer and keyboard
 * keep working during long system calls. Code that shares data with an
 * interrupt handler says so with irq_save()/irq_restore(). */
#include "arch/x86/cpu.h"
#include "arch/x86/mmu.h"

struct idt_gate {
    uint16_t off_lo, sel;
    uint8_t zero, type_attr;
    uint16_t off_hi;
} __attribute__((packed));

static struct idt_gate idt[256];        /* written once at boot, before interrupts are on */
extern uint32_t trap_vectors[256];

#define GATE_INTERRUPT 0x8E            /* present, 32-bit, clears IF */
#define GATE_TRAP      0x8F            /* present, 32-bit, leaves IF alone */

static void idt_set(int n, uint32_t handler, int type, int dpl)
{
    idt[n].off_lo = handler & 0xFFFF;
    idt[n].sel = SEL_KCODE;
    idt[n].zero = 0;
    idt[n].type_attr = type | (dpl << 5);
    idt[n].off_hi = handler >> 16;
}

void idt_init(void)
{
    struct {
        uint16_t limit;
        uint32_t base;
    } __attribute__((packed)) p;
    int i;

    for (i = 0; i < 256; i++)
        idt_set(i, trap_vectors[i], GATE_INTERRUPT, 0);
    idt_set(T_SYSCALL, trap_vectors[T_SYSCALL], GATE_TRAP, 3);
    p.limit = sizeof(idt) - 1;
    p.base = (uint32_t)idt;
    __asm__ volatile("lidt %0" : : "m"(p));
}
