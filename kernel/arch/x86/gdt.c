/* gdt.c - the segment table. x86 insists on one even though Orthos uses a
 * flat address space: four flat segments (kernel/user x code/data) and the
 * TSS, whose only job is to tell the CPU which kernel stack to switch to
 * when a user process traps (tss_set_kstack, called on every switch; it
 * sets sysenter's stack too). */
#include "arch/x86/cpu.h"
#include "arch/x86/mmu.h"
#include "arch/x86/x86.h"

struct gdt_entry {
    uint16_t limit_lo, base_lo;
    uint8_t base_mid, access, flags_limit_hi, base_hi;
} __attribute__((packed));

struct gdt_ptr {
    uint16_t limit;
    uint32_t base;
} __attribute__((packed));

struct tss {
    uint32_t link, esp0, ss0, esp1, ss1, esp2, ss2, cr3, eip, eflags;
    uint32_t eax, ecx, edx, ebx, esp, ebp, esi, edi;
    uint32_t es, cs, ss, ds, fs, gs, ldt;
    uint16_t trap, iomap_base;
} __attribute__((packed));

static struct gdt_entry gdt[NSEGS] SWITCH_DATA; /* written once at boot, before anything runs */
static struct tss tss SWITCH_DATA;               /* esp0: set by the scheduler, interrupts off */

static void gdt_set(int i, uint32_t base, uint32_t limit, uint8_t access, uint8_t flags)
{
    gdt[i].limit_lo = limit & 0xFFFF;
    gdt[i].base_lo = base & 0xFFFF;
    gdt[i].base_mid = (base >> 16) & 0xFF;
    gdt[i].access = access;
    gdt[i].flags_limit_hi = (flags << 4) | ((limit >> 16) & 0x0F);
    gdt[i].base_hi = (base >> 24) & 0xFF;
}

void gdt_init(void)
{
    struct gdt_ptr p;

    gdt_set(SEG_KCODE, 0, 0xFFFFF, 0x9A, 0xC);   /* present, ring 0, code, 4K gran */
    gdt_set(SEG_KDATA, 0, 0xFFFFF, 0x92, 0xC);
    gdt_set(SEG_UCODE, 0, 0xFFFFF, 0xFA, 0xC);   /* ring 3 */
    gdt_set(SEG_UDATA, 0, 0xFFFFF, 0xF2, 0xC);
    tss.ss0 = SEL_KDATA;
    tss.iomap_base = sizeof(tss);                /* no I/O bitmap: ring 3 gets no ports */
    gdt_set(SEG_TSS, (uint32_t)&tss, sizeof(tss) - 1, 0x89, 0x0);

    p.limit = sizeof(gdt) - 1;
    p.base = (uint32_t)gdt;
    __asm__ volatile("lgdt (%0)\n\t"
                     "ljmp %1, $1f\n"
                     "1:\n\t"
                     "movw %w2, %%ax\n\t"
                     "movw %%ax, %%ds\n\t"
                     "movw %%ax, %%es\n\t"
                     "movw %%ax, %%fs\n\t"
                     "movw %%ax, %%gs\n\t"
                     "movw %%ax, %%ss\n\t"
                     "ltr %w3\n\t"
                     :
                     : "r"(&p), "i"(SEL_KCODE), "r"(SEL_KDATA), "r"(SEL_TSS)
                     : "eax", "memory");
    /* No LDT. After reset the LDTR still describes 64 KiB at linear 0, so a
     * user selector with the table bit set would be looked up there; a
     * null LDTR makes every such selector simply invalid. */
    __asm__ volatile("lldt %w0" : : "r"(0));
}

/* The kernel stack of the process about to run, for both ways in from user
 * mode: the TSS's esp0 (interrupts, exceptions, int $0x80) and the
 * sysenter stack MSR (idt.c sets up the rest of sysenter). */
SWITCH_PATH void tss_set_kstack(uint32_t esp0)
{
    tss.esp0 = esp0;
    if (sysenter_ok)
        wrmsr(MSR_SYSENTER_ESP, esp0, 0);
}
