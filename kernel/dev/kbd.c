/* kbd.c - the PS/2 keyboard (IRQ 1): scan code set 1 to ASCII, with shift
 * and control. Each key becomes console input, exactly like a serial byte. */
#include "arch/x86/cpu.h"
#include "arch/x86/x86.h"
#include "dev/console.h"

#define KBD_STATUS 0x64
#define KBD_DATA   0x60
#define SC_LSHIFT  0x2A
#define SC_RSHIFT  0x36
#define SC_CTRL    0x1D
#define SC_RELEASE 0x80

/* Laid out by hand (rows of 16 scancodes, as the keyboard lays them): */
/* clang-format off */
static const char normal[128] = {
    0, 27, '1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '-', '=', '\b', '\t',
    'q', 'w', 'e', 'r', 't', 'y', 'u', 'i', 'o', 'p', '[', ']', '\n', 0, 'a', 's',
    'd', 'f', 'g', 'h', 'j', 'k', 'l', ';', '\'', '`', 0, '\\', 'z', 'x', 'c', 'v',
    'b', 'n', 'm', ',', '.', '/', 0, '*', 0, ' ',
};

static const char shifted[128] = {
    0, 27, '!', '@', '#', '$', '%', '^', '&', '*', '(', ')', '_', '+', '\b', '\t',
    'Q', 'W', 'E', 'R', 'T', 'Y', 'U', 'I', 'O', 'P', '{', '}', '\n', 0, 'A', 'S',
    'D', 'F', 'G', 'H', 'J', 'K', 'L', ':', '"', '~', 0, '|', 'Z', 'X', 'C', 'V',
    'B', 'N', 'M', '<', '>', '?', 0, '*', 0, ' ',
};
/* clang-format on */

static int shift, ctrl;

void kbd_init(void)
{
    while (inb(KBD_STATUS) & 1)     /* drop anything the BIOS left behind */
        inb(KBD_DATA);
    pic_unmask(IRQ_KBD);
}

void kbd_intr(void)
{
    uint8_t sc;
    char c;

    if (!(inb(KBD_STATUS) & 1))
        return;
    sc = inb(KBD_DATA);
    if (sc == 0xE0)                 /* extended keys: ignored */
        return;
    if (sc & SC_RELEASE) {
        sc &= ~SC_RELEASE;
        if (sc == SC_LSHIFT || sc == SC_RSHIFT)
            shift = 0;
        else if (sc == SC_CTRL)
            ctrl = 0;
        return;
    }
    if (sc == SC_LSHIFT || sc == SC_RSHIFT) {
        shift = 1;
        return;
    }
    if (sc == SC_CTRL) {
        ctrl = 1;
        return;
    }
    c = shift ? shifted[sc] : normal[sc];
    if (!c)
        return;
    if (ctrl && c >= 'a' && c <= 'z')
        c = c - 'a' + 1;
    console_input(c);
}
