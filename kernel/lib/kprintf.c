/* kprintf.c - formatted output to the console through the shared vfmt(). */
#include <stdarg.h>
#include "dev/console.h"
#include "lib/fmt.h"
#include "lib/kprintf.h"

static void console_sink(char c, void *arg)
{
    (void)arg;
    console_putc(c);
}

int vkprintf(const char *fmt, va_list ap)
{
    return vfmt(console_sink, NULL, fmt, ap);
}

int kprintf(const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vkprintf(fmt, ap);
    va_end(ap);
    return n;
}
