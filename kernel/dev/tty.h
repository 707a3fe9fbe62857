/* tty.h - the console's line discipline: cooked input with echo and line
 * editing, ^C to the foreground process group, ^D for end of file; raw
 * input for a program that edits lines itself (fcntl F_SETTTY). */
#ifndef DEV_TTY_H
#define DEV_TTY_H

#include <stddef.h>

int tty_may_take(void);                /* the serial port may give a byte now */
void tty_input(char c);
void tty_tick(void);                   /* from the clock: ends a hold after TTY_HOLD */
int tty_read(char *buf, size_t n, int nonblock);
int tty_write(const char *buf, size_t n);
void tty_set_foreground(int pgid, int sid); /* 0: no foreground job; sid: the console's session */
void tty_forget(int pgid, int sid);    /* group, session ended (proc_left): not kept */
int tty_session(void);                 /* the console's session */
int tty_foreground(void);              /* the console's foreground group; 0: none */
int tty_mode(void);                    /* TTY_RAW or 0 */
int tty_set_mode(int mode);            /* TTY_RAW: raw for the caller; 0: cooked */

#endif
