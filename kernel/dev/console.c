/* console.c - one console, two screens: every byte goes to the VGA text
 * screen and to COM1; every key (PS/2 or serial) goes to the tty line
 * discipline, which owns echo and line editing. */
#include "arch/x86/cpu.h"
#include "arch/x86/x86.h"
#include "dev/console.h"
#include "dev/tty.h"

void console_init(void)
{
    uart_init();
    vga_init();
}

/* Unmask the input interrupts; called once the tty can take bytes. */
void console_enable_input(void)
{
    irq_register(IRQ_KBD, kbd_intr);
    irq_register(IRQ_COM1, uart_intr);
    kbd_init();
    uart_enable_irq();
}

void console_putc(char c)
{
    uint32_t s = irq_save();

    if (c == '\n')
        uart_putc('\r');
    uart_putc(c);
    vga_putc(c);
    irq_restore(s);
}

void console_write(const char *s, size_t n)
{
    while (n--)
        console_putc(*s++);
}

void console_input(char c)
{
    tty_input(c);
}
