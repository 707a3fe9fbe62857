/* vga.c - the 80x25 VGA text screen at physical 0xB8000: characters with
 * a colour byte, a hardware cursor, scrolling by moving rows up. Control
 * characters act as on a serial terminal (\b moves left without erasing),
 * so that a line editor draws the same on both screens. */
#include "arch/x86/x86.h"
#include "lib/string.h"
#include "mm/memlayout.h"
#include "dev/console.h"

#define COLS 80
#define ROWS 25
#define ATTR 0x0700          /* light grey on black */
#define CRTC 0x3D4

static uint16_t *const screen = (uint16_t *)P2V(0xB8000);
static int pos;                         /* touched inside console_putc's irq_save */

static void vga_cursor(void)
{
    outb(CRTC, 14);
    outb(CRTC + 1, pos >> 8);
    outb(CRTC, 15);
    outb(CRTC + 1, pos & 0xFF);
}

void vga_init(void)
{
    int i;

    for (i = 0; i < COLS * ROWS; i++)
        screen[i] = ATTR | ' ';
    pos = 0;
    vga_cursor();
}

void vga_putc(char c)
{
    int i;

    if (c == '\n')
        pos += COLS - pos % COLS;
    else if (c == '\b') {
        if (pos > 0)                /* only moves, as a terminal's does: "\b \b" erases */
            pos--;
    } else if (c == '\r')
        pos -= pos % COLS;
    else if (c == '\t')
        pos = (pos + 8) & ~7;
    else
        screen[pos++] = ATTR | (uint8_t)c;
    if (pos >= COLS * ROWS) {
        memmove(screen, screen + COLS, sizeof(uint16_t) * COLS * (ROWS - 1));
        for (i = COLS * (ROWS - 1); i < COLS * ROWS; i++)
            screen[i] = ATTR | ' ';
        pos -= COLS;
    }
    vga_cursor();
}
