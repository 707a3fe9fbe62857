/* pic.c - the two 8259A interrupt controllers. Remapped so IRQ 0-15 arrive
 * at vectors 32-47 (the CPU's exceptions own 0-31); every line starts
 * masked and a driver unmasks its own with pic_unmask(). */
#include "arch/x86/cpu.h"
#include "arch/x86/x86.h"

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

void pic_init(void)
{
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
