/* printf.c - the printf family around vfprintf (stdio.c) and vsnprintf
 * (kernel/lib/fmt.c, shared with the kernel). dprintf writes straight to
 * a descriptor through a small buffer of its own. */
#include <limits.h>
#include <orthos.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

int vprintf(const char *fmt, va_list ap)
{
    return vfprintf(stdout, fmt, ap);
}

int printf(const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vfprintf(stdout, fmt, ap);
    va_end(ap);
    return n;
}

int fprintf(FILE *fp, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vfprintf(fp, fmt, ap);
    va_end(ap);
    return n;
}

/* The caller promises buf is big enough: prefer snprintf. */
int sprintf(char *buf, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, INT_MAX, fmt, ap);
    va_end(ap);
    return n;
}

struct fd_sink {
    int fd;
    int len;
    int failed;
    char buf[128];
};

static void fd_flush(struct fd_sink *s)
{
    if (writeall(s->fd, s->buf, s->len) < 0)
        s->failed = 1;
    s->len = 0;
}

static void fd_put(char c, void *arg)
{
    struct fd_sink *s = arg;

    s->buf[s->len++] = c;
    if (s->len == (int)sizeof(s->buf))
        fd_flush(s);
}

int vdprintf(int fd, const char *fmt, va_list ap)
{
    struct fd_sink s = { fd, 0, 0, { 0 } };
    int n = vfmt(fd_put, &s, fmt, ap);

    fd_flush(&s);
    return s.failed ? -1 : n;
}

int dprintf(int fd, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vdprintf(fd, fmt, ap);
    va_end(ap);
    return n;
}
