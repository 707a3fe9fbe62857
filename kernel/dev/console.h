/* console.h - the kernel console: output mirrored to VGA and COM1, input
 * from the keyboard and COM1 handed to the tty line discipline. */
#ifndef DEV_CONSOLE_H
#define DEV_CONSOLE_H

#include <stddef.h>

void console_init(void);
void console_enable_input(void);
void console_putc(char c);
void console_write(const char *s, size_t n);
void console_input(char c);

void uart_init(void);
void uart_enable_irq(void);
void uart_putc(char c);
void uart_intr(void);
void uart_rx_resume(void);
void vga_init(void);
void vga_putc(char c);
void kbd_init(void);
void kbd_intr(void);

#endif
