/* tty.c - the line discipline between the keyboard/serial port and the
 * processes reading the console. Input is "cooked": bytes collect in an
 * edit line (echoed, backspace and ^U edit it) and only a newline or ^D
 * hands the line to readers. ^C kills the foreground process group (the
 * shell sets it for each job) and throws the line away. */
#include "arch/x86/x86.h"
#include "dev/console.h"
#include "dev/tty.h"
#include "include/uapi/errno.h"
#include "include/uapi/proc.h"
#include "proc/proc.h"

#define TTY_BUF 512
#define CTRL(c) ((c) - '@')

/* A ring: [rd, ed) is ready for readers, [ed, wr) is the line being edited. */
static struct {
    char buf[TTY_BUF];
    unsigned rd, ed, wr;
    int eof_pending;            /* ^D on an empty line: the next read returns 0 */
    int fg_pgid;
} tty;

static void echo(char c)
{
    console_putc(c);
}

void tty_set_foreground(int pgid)
{
    tty.fg_pgid = pgid;
}

int tty_foreground(void)
{
    return tty.fg_pgid;
}

/* Called from the keyboard and serial interrupts. */
void tty_input(char c)
{
    switch (c) {
    case CTRL('C'):
        console_write("^C\n", 3);
        tty.wr = tty.ed;
        if (tty.fg_pgid > 1)
            proc_kill_group(tty.fg_pgid, SIGINT);
        return;
    case CTRL('U'):
        for (; tty.wr != tty.ed; tty.wr--)
            console_write("\b \b", 3);
        return;
    case '\b':
    case 0x7F:
        if (tty.wr != tty.ed) {
            tty.wr--;
            console_write("\b \b", 3);
        }
        return;
    case CTRL('D'):
        if (tty.wr == tty.ed)
            tty.eof_pending = 1;
        tty.ed = tty.wr;
        wakeup(&tty);
        return;
    }
    if (tty.wr - tty.rd >= TTY_BUF - 1 && (c != '\n' || tty.wr - tty.rd >= TTY_BUF))
        return;                 /* full: drop, but keep room to end the line */
    tty.buf[tty.wr++ % TTY_BUF] = c;
    echo(c);
    if (c == '\n') {
        tty.ed = tty.wr;
        wakeup(&tty);
    }
}

/* Read up to one line. Blocks until a line is ready (or -EAGAIN if
 * nonblock); returns 0 at ^D, -EINTR if the reader was killed. */
int tty_read(char *buf, size_t n, int nonblock)
{
    uint32_t s = irq_save();
    size_t got = 0;
    struct proc *p = curproc();

    while (tty.rd == tty.ed && !tty.eof_pending) {
        if (nonblock || (p && p->killed)) {
            irq_restore(s);
            return nonblock ? -EAGAIN : -EINTR;
        }
        sleep_on(&tty);
    }
    if (tty.rd == tty.ed) {
        tty.eof_pending = 0;
        irq_restore(s);
        return 0;
    }
    while (got < n && tty.rd != tty.ed) {
        char c = tty.buf[tty.rd++ % TTY_BUF];
        buf[got++] = c;
        if (c == '\n')
            break;
    }
    irq_restore(s);
    return (int)got;
}

int tty_write(const char *buf, size_t n)
{
    console_write(buf, n);
    return (int)n;
}
