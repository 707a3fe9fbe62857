/* err.h - the one way programs report errors (BSD's err(3) family):
 * "prog: message: strerror(errno)" on stderr. err and errx also exit;
 * usage prints "usage: prog synopsis" and exits 2. */
#ifndef _ERR_H
#define _ERR_H

extern const char *progname;            /* argv[0] without its directory */

void err(int code, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
void errx(int code, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void usage(const char *synopsis) __attribute__((noreturn));

/* head and tail: parse `[-n N | -c N] [file ...]`, run filter on each
 * file (or stdin) with N and whether N counts bytes (-c) rather than
 * lines; the exit status (1 if a file could not be opened). */
struct stdio_file;
int filter_lines(int argc, char *argv[], void (*filter)(struct stdio_file *fp, long n, int bytes));

#endif
