/* uart.c - COM1, the 16550 serial port at 0x3F8. Output is polled; input
 * raises IRQ 4 and goes to the console like a keystroke. Tests drive
 * Orthos entirely through this port. When the tty has no room, a byte is
 * left in the port and its interrupt turned off: the port's FIFO fills,
 * and QEMU stops taking input from the host (flow control, tty.c). */
#include "arch/x86/cpu.h"
#include "arch/x86/x86.h"
#include "dev/console.h"
#include "dev/tty.h"

#define COM1         0x3F8
#define UART_DATA    (COM1 + 0)
#define UART_IER     (COM1 + 1)
#define UART_FCR     (COM1 + 2)
#define UART_LCR     (COM1 + 3)
#define UART_MCR     (COM1 + 4)
#define UART_LSR     (COM1 + 5)
#define IER_RX       0x01               /* interrupt when a byte arrives */
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
    outb(UART_IER, IER_RX);
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

/* IRQ 4: every waiting byte into the console, while the tty takes them;
 * else the rest stay in the port, unread, with the interrupt off until
 * uart_rx_resume (an unread byte would raise it again at once). */
void uart_intr(void)
{
    while (inb(UART_LSR) & LSR_RX_READY) {
        char c;
        if (!tty_may_take()) {
            outb(UART_IER, 0);
            return;
        }
        c = (char)inb(UART_DATA);
        console_input(c == '\r' ? '\n' : c);
    }
}

/* The tty has room again (or waited long enough): interrupt for the
 * bytes in the port, and on. Interrupts off; a byte already waiting
 * raises IRQ 4 as soon as they are on. */
void uart_rx_resume(void)
{
    if (uart_present)
        outb(UART_IER, IER_RX);
}
