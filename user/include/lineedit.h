/* lineedit.h - editing a command line on the console, for the shell:
 * cursor keys and the usual control keys, a history of earlier lines,
 * Tab completion of command names and paths (user/lib/lineedit.c); and
 * the key reader it uses, for other programs that read keys (man). The
 * console is put in raw mode (fcntl F_SETTTY) only while a line is being
 * edited; every other program reads it cooked. */
#ifndef _LINEEDIT_H
#define _LINEEDIT_H

#include <stddef.h>

#define EDIT_HISTORY 64          /* lines remembered */

struct lineedit {
    int in, out;                    /* the console: keys come from in, echo goes to out */
    const char *const *commands; /* completed besides $PATH's programs (builtins); NULL-ended */
    char *history[EDIT_HISTORY]; /* line number n (from 1) is history[(n - 1) % EDIT_HISTORY] */
    int nhistory; /* lines entered so far; the last EDIT_HISTORY are kept */
};

/* The keys that arrive as escape sequences (ESC [ or ESC O, parameters,
 * a final byte) from a serial terminal or the PS/2 keyboard alike. */
enum {
    KEY_UP = 0x100,
    KEY_DOWN,
    KEY_RIGHT,
    KEY_LEFT,
    KEY_HOME,
    KEY_END,
    KEY_DELETE,
    KEY_PGUP,
    KEY_PGDN,
    KEY_OTHER,
};

/* The next key from fd (the console, in raw mode): a byte, a KEY_*, or -1
 * when the console fails or is gone. Reads no further than the key. */
int edit_read_key(int fd);

/* Prints prompt and lets the user edit a line of at most size - 1 bytes
 * into line. Returns 1 for a line (entered into the history if not empty
 * and not the same as the previous one), EDIT_TOO_LONG for a line that
 * did not fit (keys were dropped: not to be run), 0 at the end of the
 * input (^D on an empty line, or the console failing), -1 if in is not a
 * console that can be put in raw mode (nothing was printed: read it
 * cooked instead). */
#define EDIT_TOO_LONG 2
int edit_line(struct lineedit *e, const char *prompt, char *line, size_t size);

#endif
