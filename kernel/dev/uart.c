/* uart.c - COM1, the 16550 serial port at 0x3F8. Output is polled; input
 * raises IRQ 4 and goes to the console like a keystroke. Tests drive
 * Orthos entirely through this port. */
#include "arch/x86/cpu.h"
#include "arch/x86/x86.h"
#include "dev/console.h"

#define COM1         0x3F8
#define UART_DATA    (COM1 + 0)
#define UART_IER     (COM1 + 1)
#define UART_FCR     (COM1 + 2)
#define UART_LCR     (COM1 + 3)
#define UART_MCR     (COM1 + 4)
#define UART_LSR     (COM1 + 5)
#define LSR_RX_READY 0x01
#define LSR_TX_EMPTY 0x20

static int uart_present;                /* set once at boot */

void uart_init(void)
{
    outb(UART_IER, 0x00);
    outb(UART_LCR, 0x80);           /* DLAB: set the divisor */
    outb(UART_DATA, 1);             /* 115200 baud */
    outb(UART_IER, 0);
    outb(UART_LCR, 0x03);           /* 8N1 */
    outb(UART_FCR, 0xC7);           /* FIFOs on, cleared */
    outb(UART_MCR, 0x0B);           /* DTR, RTS, OUT2 (IRQ gate) */
    uart_present = inb(UART_LSR) != 0xFF;
}

void uart_enable_irq(void)
{
    if (!uart_present)
        return;
    outb(UART_IER, 0x01);           /* interrupt when a byte arrives */
    pic_unmask(IRQ_COM1);
}

void uart_putc(char c)
{
    int spins = 100000;

    if (!uart_present)
        return;
    while (!(inb(UART_LSR) & LSR_TX_EMPTY) && --spins)
        ;
    outb(UART_DATA, (uint8_t)c);
}

/* IRQ 4: drain every waiting byte into the console. */
void uart_intr(void)
{
    while (inb(UART_LSR) & LSR_RX_READY) {
        char c = (char)inb(UART_DATA);
        console_input(c == '\r' ? '\n' : c);
    }
}
