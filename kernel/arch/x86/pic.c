/* pic.c - the two 8259A interrupt controllers. Remapped so IRQ 0-15 arrive
 * at vectors 32-47 (the CPU's exceptions own 0-31); every line starts
 * masked and a driver unmasks its own with pic_unmask().
 * A CPU with a local APIC takes the 8259's requests through the APIC's
 * LINT0 pin, which must be set to pass them ("virtual wire" mode, MP
 * spec 3.6.2.2). SeaBIOS does that; qboot, which the tests boot with,
 * does not, so Orthos does it itself. */
#include "arch/x86/cpu.h"
#include "arch/x86/mmu.h"
#include "arch/x86/x86.h"

#define APIC_ON     (1u << 11)        /* in MSR_APIC_BASE */
#define APIC_SVR    (0xF0 / 4)        /* registers, as 32-bit words */
#define APIC_LVT0   (0x350 / 4)
#define APIC_LVT1   (0x360 / 4)
#define APIC_EXTINT 0x700             /* LVT delivery modes */
#define APIC_NMI    0x400
#define APIC_SVR_ON 0x100             /* software-enabled: the LVT as written */

#define PIC1_CMD  0x20
#define PIC1_DATA 0x21
#define PIC2_CMD  0xA0
#define PIC2_DATA 0xA1
#define PIC_EOI   0x20

/* Cascade line open; changed only at boot, by the drivers' init (one CPU, in order). */
static uint16_t irq_mask = 0xFFFF & ~(1u << 2);

static void pic_write_mask(void)
{
    outb(PIC1_DATA, irq_mask & 0xFF);
    outb(PIC2_DATA, irq_mask >> 8);
}

/* Runs on entry.asm's page directory (before vm_init), which leaves the
 * 4 MiB around the APIC's registers free: mapped there, where they are,
 * uncached, for three writes, then unmapped. The APIC itself raises only
 * its spurious vector, which trap() ignores. */
static void apic_virtual_wire(void)
{
    extern pde_t boot_pgdir[];
    uint64_t base;
    uint32_t pa, *pde;
    volatile uint32_t *apic;

    if (!(cpuid_features() & CPUID_APIC) || !((base = rdmsr(MSR_APIC_BASE)) & APIC_ON))
        return;                         /* no APIC in the way */
    pa = (uint32_t)base & ~(PAGE_SIZE - 1);
    pde = &boot_pgdir[PDX(pa)];
    if (*pde & PTE_P)
        return;                         /* that 4 MiB is the kernel's: not on a PC */
    *pde = (pa & ~(BIGPAGE - 1)) | PTE_P | PTE_W | PTE_PS | PTE_PWT | PTE_PCD;
    invlpg(pa);
    apic = (volatile uint32_t *)pa;
    apic[APIC_SVR] = APIC_SVR_ON | T_SPUR;
    apic[APIC_LVT0] = APIC_EXTINT;      /* the 8259's INTR, as it is */
    apic[APIC_LVT1] = APIC_NMI;
    *pde = 0;
    invlpg(pa);
}

void pic_init(void)
{
    apic_virtual_wire();
    outb(PIC1_CMD, 0x11);           /* ICW1: init, expect ICW4 */
    outb(PIC2_CMD, 0x11);
    outb(PIC1_DATA, T_IRQ0);        /* ICW2: vector offsets */
    outb(PIC2_DATA, T_IRQ0 + 8);
    outb(PIC1_DATA, 1 << 2);        /* ICW3: slave on IRQ2 */
    outb(PIC2_DATA, 2);
    outb(PIC1_DATA, 0x01);          /* ICW4: 8086 mode */
    outb(PIC2_DATA, 0x01);
    pic_write_mask();
}

void pic_unmask(int irq)
{
    irq_mask &= ~(1u << irq);
    pic_write_mask();
}

void pic_eoi(int irq)
{
    if (irq >= 8)
        outb(PIC2_CMD, PIC_EOI);
    outb(PIC1_CMD, PIC_EOI);
}
