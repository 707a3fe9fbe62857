/* tty.h - the console's line discipline: cooked input with echo and line
 * editing, ^C to the foreground process group, ^D for end of file. */
#ifndef DEV_TTY_H
#define DEV_TTY_H

#include <stddef.h>

void tty_input(char c);
int tty_read(char *buf, size_t n, int nonblock);
int tty_write(const char *buf, size_t n);
void tty_set_foreground(int pgid);     /* 0: no foreground job */
int tty_foreground(void);

#endif
