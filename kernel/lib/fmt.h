/* fmt.h - the printf engine, shared by kprintf (kernel) and printf (libc).
 * It formats into a sink callback, so the caller decides where bytes go. */
#ifndef LIB_FMT_H
#define LIB_FMT_H

#include <stdarg.h>
#include <stddef.h>

typedef void (*fmt_sink_t)(char c, void *arg);

/* Supports %d %i %u %x %X %o %p %s %c %%, flags '-' '0', a width and '*',
 * a precision for %s (digits or '*'), and the 'l' length modifier.
 * Returns the number of characters produced. */
int vfmt(fmt_sink_t sink, void *arg, const char *fmt, va_list ap);

/* Format into buf (always terminated when size > 0); returns the length
 * the full output would have had, like C99 vsnprintf. */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
