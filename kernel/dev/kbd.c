/* kbd.c - the PS/2 keyboard (IRQ 1): scan code set 1 to ASCII, with shift
 * and control. Each key becomes console input, exactly like a serial byte;
 * the editing keys (arrows, Home, End, Delete, ...) become the escape
 * sequences a serial terminal sends for them, so a program sees one
 * keyboard whichever console it is typed on. */
#include "arch/x86/cpu.h"
#include "arch/x86/x86.h"
#include "dev/console.h"

/* clang-format off */
#define KBD_STATUS  0x64            /* read: the 8042 controller's status */
#define KBD_CMD     0x64            /* write: a command to the controller */
#define KBD_DATA    0x60
#define ST_OUT_FULL 0x01            /* a byte waits in KBD_DATA */
#define ST_IN_FULL  0x02            /* the controller has not taken the last write */
#define CMD_READ_CONFIG  0x20
#define CMD_WRITE_CONFIG 0x60
#define CFG_IRQ     0x01            /* IRQ 1 when a code arrives */
#define CFG_NO_CLK  0x10            /* the keyboard's clock held (no codes) */
#define CFG_XLATE   0x40            /* codes translated to set 1, which this file reads */
#define SC_LSHIFT   0x2A
#define SC_RSHIFT   0x36
#define SC_CTRL     0x1D
#define SC_RELEASE  0x80
#define SC_EXTENDED 0xE0            /* prefix: the next code is a gray key */

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

/* The gray keys (after SC_EXTENDED), as xterm/VT220 sends them. */
static const char *const extended[128] = {
    [0x48] = "\033[A", [0x50] = "\033[B", [0x4D] = "\033[C", [0x4B] = "\033[D",
    [0x47] = "\033[H", [0x4F] = "\033[F", [0x52] = "\033[2~", [0x53] = "\033[3~",
    [0x49] = "\033[5~", [0x51] = "\033[6~",
    [0x1C] = "\n", [0x35] = "/",     /* the keypad's Enter and / */
};

/* clang-format on */

static int shift, ctrl, prefixed;       /* touched only by the keyboard interrupt */

/* Wait (a bounded while) for the status bit to be `set`; 0 when it is. */
static int kbd_wait(uint8_t bit, int set)
{
    int i;

    for (i = 0; i < 100000; i++)
        if (!(inb(KBD_STATUS) & bit) == !set)
            return 0;
    return -1;
}

static void kbd_drain(void)
{
    while (inb(KBD_STATUS) & ST_OUT_FULL)   /* what the firmware left behind */
        inb(KBD_DATA);
}

/* The controller is set as this file reads it: set 1 codes, interrupt on,
 * the keyboard's clock running. SeaBIOS leaves it so; qboot (the tests'
 * firmware) leaves it as the controller resets, translating nothing, so
 * each key would come as set 2's codes (doc/decisions.md, "the tests' firmware"). */
void kbd_init(void)
{
    uint8_t cfg;

    kbd_drain();
    if (kbd_wait(ST_IN_FULL, 0) == 0) {
        outb(KBD_CMD, CMD_READ_CONFIG);
        if (kbd_wait(ST_OUT_FULL, 1) == 0) {
            cfg = (inb(KBD_DATA) | CFG_IRQ | CFG_XLATE) & ~CFG_NO_CLK;
            outb(KBD_CMD, CMD_WRITE_CONFIG);
            if (kbd_wait(ST_IN_FULL, 0) == 0)
                outb(KBD_DATA, cfg);
        }
    }
    kbd_drain();
    pic_unmask(IRQ_KBD);
}

void kbd_intr(void)
{
    const char *seq;
    uint8_t sc;
    char c;

    if (!(inb(KBD_STATUS) & 1))
        return;
    sc = inb(KBD_DATA);
    if (sc == SC_EXTENDED) {
        prefixed = 1;
        return;
    }
    if (prefixed) {                 /* a gray key: right Ctrl, or one of extended[] */
        prefixed = 0;
        if ((sc & ~SC_RELEASE) == SC_CTRL)
            ctrl = !(sc & SC_RELEASE);
        else if (!(sc & SC_RELEASE) && (seq = extended[sc]))
            while (*seq)
                console_input(*seq++);
        return;
    }
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
