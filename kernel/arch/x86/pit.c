/* pit.c - the 8253/8254 programmable interval timer, channel 0, as the
 * scheduler's clock: it raises IRQ 0 `hz` times a second. */
#include "arch/x86/cpu.h"
#include "arch/x86/x86.h"

#define PIT_HZ  1193182u
#define PIT_CH0 0x40
#define PIT_CMD 0x43

void pit_init(unsigned hz)
{
    uint32_t div = PIT_HZ / hz;

    outb(PIT_CMD, 0x36);            /* channel 0, lo/hi byte, square wave */
    outb(PIT_CH0, div & 0xFF);
    outb(PIT_CH0, div >> 8);
    pic_unmask(IRQ_TIMER);
}
