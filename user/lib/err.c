/* err.c - error messages for programs: "prog: message[: strerror]". The
 * whole line is formatted first and written at once, so messages from
 * processes sharing the console do not interleave mid-line. */
#include <err.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void report(int with_errno, const char *fmt, va_list ap)
{
    char msg[256];
    int e = errno;
    size_t n;

    n = snprintf(msg, sizeof(msg), "%s: ", progname);
    if (n < sizeof(msg))
        n += vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
    if (with_errno && n < sizeof(msg))
        n += snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(e));
    if (n > sizeof(msg) - 2)
        n = sizeof(msg) - 2;            /* truncated: keep room for "\n" */
    msg[n] = '\n';
    msg[n + 1] = '\0';
    fputs(msg, stderr);
    errno = e;
}

void err(int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    report(1, fmt, ap);
    va_end(ap);
    exit(code);
}

void errx(int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    report(0, fmt, ap);
    va_end(ap);
    exit(code);
}

void warn(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    report(1, fmt, ap);
    va_end(ap);
}

void warnx(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    report(0, fmt, ap);
    va_end(ap);
}

/* Bad arguments: exit status 2, as the POSIX utilities do. */
void usage(const char *synopsis)
{
    fprintf(stderr, "usage: %s%s%s\n", progname, *synopsis ? " " : "", synopsis);
    exit(2);
}
