/* idt.c - the ways into the kernel. The interrupt descriptor table: 256
 * gates, each pointing at a stub in trapentry.asm. Only the system-call
 * gate (int 0x80) may be raised from ring 3; a user `int $13` gets a
 * general protection fault. And the second way to make a system call,
 * sysenter, when the CPU has it: three MSRs name its entry point
 * (sysenter_entry in trapentry.asm), its code segment and its stack (the
 * running process's kernel stack, set on every switch: gdt.c).
 * Exceptions and IRQs use interrupt gates (the CPU turns interrupts off on
 * entry); the system-call gate is a trap gate, so the timer and keyboard
 * keep working during long system calls. Code that shares data with an
 * interrupt handler says so with irq_save()/irq_restore(). */
#include "arch/x86/cpu.h"
#include "arch/x86/mmu.h"
#include "arch/x86/x86.h"
#include "lib/kprintf.h"

struct idt_gate {
    uint16_t off_lo, sel;
    uint8_t zero, type_attr;
    uint16_t off_hi;
} __attribute__((packed));

static struct idt_gate idt[256];        /* written once at boot, before interrupts are on */
extern uint32_t trap_vectors[256];
extern char sysenter_entry[];

int sysenter_ok;                        /* set once at boot */

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

/* sysenter loads cs from MSR_SYSENTER_CS and ss from the slot after it;
 * sysexit takes the user's cs and ss from the two slots after those: the
 * GDT's order (mmu.h) is the one the instructions need. The C library
 * uses sysenter exactly when CPUID says the CPU has it (crt0.asm), so
 * the kernel must set it up whenever it is there. */
static void sysenter_init(void)
{
    _Static_assert(SEG_KDATA == SEG_KCODE + 1 && SEG_UCODE == SEG_KCODE + 2 &&
                       SEG_UDATA == SEG_KCODE + 3,
                   "sysenter/sysexit need kernel cs, kernel ss, user cs, user ss in a row");
    if (!(cpuid_features() & CPUID_SEP)) {
        kprintf("syscalls: int $0x80 only (this CPU has no sysenter)\n");
        return;
    }
    wrmsr(MSR_SYSENTER_CS, SEL_KCODE, 0);
    wrmsr(MSR_SYSENTER_EIP, (uint32_t)sysenter_entry, 0);
    sysenter_ok = 1;                    /* SYSENTER_ESP: tss_set_kstack, before any user code */
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
    idt_set(T_BRKPT, trap_vectors[T_BRKPT], GATE_INTERRUPT, 3);    /* else a user int3 is a #GP */
    idt_set(T_OFLOW, trap_vectors[T_OFLOW], GATE_INTERRUPT, 3);
    p.limit = sizeof(idt) - 1;
    p.base = (uint32_t)idt;
    __asm__ volatile("lidt %0" : : "m"(p));
    sysenter_init();
}
