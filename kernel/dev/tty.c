/* tty.c - the line discipline between the keyboard/serial port and the
 * processes reading the console. Input is "cooked" by default: bytes
 * collect in an edit line (echoed, backspace and ^U edit it) and only a
 * newline or ^D hands the line to readers. ^C kills the foreground process
 * group (the shell sets it for each job) and throws the line away.
 * A program that edits lines itself (the shell at its prompt, a pager)
 * asks for raw input with fcntl(fd, F_SETTTY, TTY_RAW): then every byte
 * goes to the reader as typed, unechoed. Raw mode belongs to the process
 * that asked for it: it ends when that process dies or when another
 * process group is put in front (doc/decisions.md, doc/man/fcntl.2.md).
 *
 * Sessions: the console belongs to one session (a login's processes,
 * setsid(2)); only its processes may choose the foreground group (a group
 * of that session), change the mode or read, and while a group is in
 * front only that group reads: the others' reads fail with EIO, as POSIX
 * has for a reader that cannot be stopped by SIGTTIN (Orthos signals only
 * kill). Writes are anyone's. Root's tcsetpgrp may give the console to
 * another session (sysproc.c).
 *
 * Flow control: input that finds the ring full while a reader has bytes
 * to take is left in the serial port (uart.c stops reading it), and QEMU
 * then holds the rest on the host side; a read that makes room lets it
 * in again. So typed-ahead input is never lost while a reader drains it.
 * A ^C behind it must not wait for ever on a job that reads nothing:
 * after TTY_HOLD without a read, bytes are taken again and what does not
 * fit is dropped (as before flow control), so the ^C arrives; it throws
 * all typed-ahead input away, as POSIX's INTR does. */
#include "arch/x86/x86.h"
#include "dev/console.h"
#include "dev/tty.h"
#include "include/uapi/errno.h"
#include "include/uapi/fs.h"
#include "include/uapi/proc.h"
#include "proc/proc.h"

/* Input typed ahead while no one reads (a command runs) waits here: room
 * for a few whole lines of the shell's 1024 bytes. A power of two: rd, ed
 * and wr run on past it and wrap with the unsigned arithmetic. */
#define TTY_BUF  4096
#define TTY_HOLD (5 * HZ)               /* ticks input waits in the port for a reader */
#define CTRL(c)  ((c) - '@')

#define TTY_BOOT_SESSION 1              /* init's (pid 1): the console's at boot */

/* A ring: [rd, ed) is ready for readers, [ed, wr) is the line being edited
 * (always empty in raw mode). Touched only with interrupts off. */
static struct {
    char buf[TTY_BUF];
    unsigned rd, ed, wr;
    int eof_pending;            /* ^D on an empty line: the next read returns 0 */
    int fg_pgid;
    int sid;                    /* the console's session: init's at boot */
    int raw_pid;                /* the process that asked for raw input; 0: cooked */
    uint64_t raw_birth;         /* and its birth: its pid may come back (proc.h) */
    int held;                   /* input is left in the serial port: no room */
    uint32_t held_since;        /* ticks when it began */
    int overflow;               /* held TTY_HOLD: drop what does not fit until a read */
} tty = { .sid = TTY_BOOT_SESSION };

static void echo(char c)
{
    console_putc(c);
}

/* The process that owns raw mode, or NULL (then input is cooked). One
 * that has exited or is being killed owns nothing: a shell that dies at
 * its prompt leaves the console cooked for whoever reads it next. Nor
 * does a later process of its pid: an owner reaped while nobody asked
 * here left its pid recorded, and once the pids wrapped whoever had it
 * found the console raw, unasked. */
static struct proc *raw_owner(void)
{
    struct proc *p;

    if (!tty.raw_pid)
        return NULL;
    p = proc_find_born(tty.raw_pid, tty.raw_birth);
    if (!p || p->state == P_ZOMBIE || p->killed) {
        tty.raw_pid = 0;
        return NULL;
    }
    return p;
}

/* A new foreground group starts cooked, unless it holds the raw owner
 * (a pager that asked for raw before its shell put its group in front).
 * Readers asleep wake to look again: one no longer in front gets EIO. */
void tty_set_foreground(int pgid, int sid)
{
    uint32_t s = irq_save();
    struct proc *owner = raw_owner();

    tty.fg_pgid = pgid;
    tty.sid = sid;
    if (owner && (owner->pgid != pgid || owner->sid != sid))
        tty.raw_pid = 0;
    wakeup(&tty);
    irq_restore(s);
}

/* Group pgid, or session sid, has no process left (proc_left; 0: not
 * that one). Its number comes back for a new group or session once the
 * pids wrap, so the console must not keep it: a group that ends in front
 * leaves no group in front, as tcsetpgrp(0) does, and a session that
 * ends with the console gives it back to init's, whose it was at boot.
 * (Linux's tty holds the group's struct pid, not its number.) Kept, the
 * number put whoever led it next in front: the console's input and ^C. */
void tty_forget(int pgid, int sid)
{
    uint32_t s = irq_save();

    if (sid && sid == tty.sid)
        tty_set_foreground(0, TTY_BOOT_SESSION);
    else if (pgid && pgid == tty.fg_pgid)
        tty_set_foreground(0, tty.sid);
    irq_restore(s);
}

int tty_session(void)
{
    return tty.sid;
}

int tty_foreground(void)
{
    return tty.fg_pgid;
}

/* May p use the console's input (read it, change its mode)? Only a
 * process of its session, and of the foreground group if one is in
 * front (none: the shell at its prompt reads). Interrupts off. */
static int may_use_input(const struct proc *p)
{
    return !p || (p->sid == tty.sid && (!tty.fg_pgid || p->pgid == tty.fg_pgid));
}

/* fcntl(F_GETTTY): TTY_RAW or 0. */
int tty_mode(void)
{
    uint32_t s = irq_save();
    int raw = raw_owner() != NULL;

    irq_restore(s);
    return raw ? TTY_RAW : 0;
}

/* fcntl(F_SETTTY): raw for the caller, or cooked. A half-typed cooked
 * line (typed ahead while nobody read) goes to the raw reader as it is.
 * Only a member of the foreground group may change the mode, or anyone
 * of the console's session when no group is in front (a shell at its
 * prompt): a background job must not turn the input of the job in front
 * raw, or cooked (EPERM), nor a process of another session. */
int tty_set_mode(int mode)
{
    uint32_t s;

    if (mode & ~TTY_RAW)
        return -EINVAL;
    s = irq_save();
    if (!may_use_input(curproc())) {
        irq_restore(s);
        return -EPERM;
    }
    if (mode & TTY_RAW) {
        tty.raw_pid = curproc()->pid;
        tty.raw_birth = curproc()->birth;
        tty.ed = tty.wr;
        wakeup(&tty);
    } else {
        tty.raw_pid = 0;
    }
    irq_restore(s);
    return 0;
}

/* Appends c to the ring unless that would leave no room to end a line.
 * Returns 0, or -1 if c was dropped. */
static int put(char c)
{
    if (tty.wr - tty.rd >= TTY_BUF - 1 && (c != '\n' || tty.wr - tty.rd >= TTY_BUF))
        return -1;
    tty.buf[tty.wr++ % TTY_BUF] = c;
    return 0;
}

/* From the serial interrupt, before it takes a byte from the port: may
 * it? Yes while there is room, or while nothing in the ring is ready for
 * a reader (a cooked line longer than the ring: the bytes must come in,
 * and are dropped, for the newline or ^C that ends it to arrive), or once
 * input has been held TTY_HOLD (tty_tick). No: the serial port keeps the
 * byte, and stops interrupting until tty_read makes room. */
int tty_may_take(void)
{
    if (tty.wr - tty.rd < TTY_BUF - 1 || tty.rd == tty.ed || tty.overflow)
        return 1;
    if (!tty.held) {
        tty.held = 1;
        tty.held_since = ticks;
    }
    return 0;
}

/* The ring has room again (a read, or a ^C that emptied it): the bytes
 * left in the serial port come in, and the next full ring holds them
 * again. Interrupts off. */
static void room_made(void)
{
    if (tty.held || tty.overflow) {
        tty.held = tty.overflow = 0;
        uart_rx_resume();
    }
}

/* The clock's tick (sched.c): input held TTY_HOLD while nobody read is
 * taken again, so that a ^C behind it reaches a job that reads nothing. */
void tty_tick(void)
{
    if (tty.held && ticks - tty.held_since >= TTY_HOLD) {
        tty.held = 0;
        tty.overflow = 1;
        uart_rx_resume();
    }
}

/* Called from the keyboard and serial interrupts. In raw mode only ^C
 * with a job in front is special (it still kills the job, and throws away
 * all typed-ahead input: none of it was meant for what runs next); at a
 * raw prompt ^C is a byte like the others, for the line editor. */
void tty_input(char c)
{
    int raw = raw_owner() != NULL;

    if (c == CTRL('C') && (!raw || tty.fg_pgid > 1)) {
        console_write("^C\n", 3);
        tty.rd = tty.ed = tty.wr;
        tty.eof_pending = 0;
        room_made();
        if (tty.fg_pgid > 1)
            proc_kill_group(tty.fg_pgid, SIGINT);
        return;
    }
    if (raw) {
        if (put(c) == 0) {
            tty.ed = tty.wr;
            wakeup(&tty);
        }
        return;
    }
    switch (c) {
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
    if (put(c) < 0)
        return;                 /* full: drop, but keep room to end the line */
    echo(c);
    if (c == '\n') {
        tty.ed = tty.wr;
        wakeup(&tty);
    }
}

/* Cooked: up to one line. Raw: whatever has been typed, up to n bytes (a
 * ^D typed for a cooked reader that never came is dropped). Blocks until
 * there is something (or -EAGAIN if nonblock); returns 0 at a cooked ^D,
 * -EINTR if the reader was killed, -EIO for a reader that may not read
 * (may_use_input), asked again each time it wakes. */
int tty_read(char *buf, size_t n, int nonblock)
{
    uint32_t s = irq_save();
    size_t got = 0;
    struct proc *p = curproc();
    int raw;

    for (;;) {
        if (!may_use_input(p)) {
            irq_restore(s);
            return -EIO;
        }
        if ((raw = raw_owner() != NULL)) {
            tty.ed = tty.wr;
            tty.eof_pending = 0;
        }
        if (tty.rd != tty.ed || tty.eof_pending)
            break;
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
        if (c == '\n' && !raw)
            break;
    }
    room_made();
    irq_restore(s);
    return (int)got;
}

/* Output goes out in pieces of TTY_PIECE bytes: each takes about 20 ms
 * on the serial line, and the kernel is never preempted, so between two
 * pieces of a long write the others get their turn, and a writer killed
 * meanwhile (^C) stops: the count written so far, or -EINTR. (A write of
 * megabytes held the whole machine for as many seconds.) A write of at
 * most a piece goes out whole, never mixed with another's. */
#define TTY_PIECE 4096

int tty_write(const char *buf, size_t n)
{
    struct proc *p = curproc();
    size_t done = 0, k;

    while (done < n) {
        if (done > 0 && p && need_resched)
            yield();
        if (p && p->killed)
            return done ? (int)done : -EINTR;
        k = n - done < TTY_PIECE ? n - done : TTY_PIECE;
        console_write(buf + done, k);
        done += k;
    }
    return (int)n;
}
