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
static int present;                     /* set once at boot: is there a screen? */

static void vga_cursor(void)
{
    outb(CRTC, 14);
    outb(CRTC + 1, pos >> 8);
    outb(CRTC, 15);
    outb(CRTC + 1, pos & 0xFF);
}

/* Is there a VGA card? Its CRT controller's index register reads back
 * what was written to it; without one (QEMU's -vga none, how the tests
 * and `make bench` run) the port reads 0xFF. Then nothing is drawn: each
 * character would cost QEMU four exits to no device for the cursor, and
 * each line past the last a scroll of the screen, for no one to see. */
void vga_init(void)
{
    int i;

    outb(CRTC, 14);
    if (inb(CRTC) != 14)
        return;
    present = 1;
    for (i = 0; i < COLS * ROWS; i++)
        screen[i] = ATTR | ' ';
    pos = 0;
    vga_cursor();
}

void vga_putc(char c)
{
    int i;

    if (!present)
        return;
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
