/* fmt.c - the one printf formatter in the tree (kernel kprintf and user
 * printf both call vfmt). Small on purpose: no floating point, no %n. */
#include "lib/fmt.h"

struct spec {
    int left;       /* '-' */
    char pad;       /* ' ' or '0' */
    int width;
    int prec;       /* -1: none */
};

static int emit_padded(fmt_sink_t sink, void *arg, const struct spec *sp, const char *s, int len,
                       const char *prefix)
{
    int plen = 0, n = 0, fill, i;

    while (prefix && prefix[plen])
        plen++;
    fill = sp->width - len - plen;
    if (sp->pad == '0' && !sp->left) {
        for (i = 0; i < plen; i++, n++)
            sink(prefix[i], arg);
        plen = 0;
    }
    for (; !sp->left && fill > 0; fill--, n++)
        sink(sp->pad, arg);
    for (i = 0; i < plen; i++, n++)
        sink(prefix[i], arg);
    for (i = 0; i < len; i++, n++)
        sink(s[i], arg);
    for (; sp->left && fill > 0; fill--, n++)
        sink(' ', arg);
    return n;
}

static int emit_number(fmt_sink_t sink, void *arg, const struct spec *sp, unsigned long v,
                       unsigned base, int negative, int upper, const char *prefix)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char buf[16];
    int i = sizeof(buf);

    do {
        buf[--i] = digits[v % base];
        v /= base;
    } while (v);
    return emit_padded(sink, arg, sp, buf + i, sizeof(buf) - i, negative ? "-" : prefix);
}

int vfmt(fmt_sink_t sink, void *arg, const char *fmt, va_list ap)
{
    int n = 0;

    for (; *fmt; fmt++) {
        struct spec sp = { 0, ' ', 0, -1 };
        const char *s;
        long sv;
        unsigned long uv;
        int len, lng = 0;

        if (*fmt != '%') {
            sink(*fmt, arg);
            n++;
            continue;
        }
        fmt++;
        for (;; fmt++) {
            if (*fmt == '-')
                sp.left = 1;
            else if (*fmt == '0')
                sp.pad = '0';
            else
                break;
        }
        if (*fmt == '*') {
            sp.width = va_arg(ap, int);
            fmt++;
        }
        while (*fmt >= '0' && *fmt <= '9')
            sp.width = sp.width * 10 + (*fmt++ - '0');
        if (*fmt == '.') {
            sp.prec = 0;
            if (*++fmt == '*') {
                sp.prec = va_arg(ap, int);
                fmt++;
            }
            for (; *fmt >= '0' && *fmt <= '9'; fmt++)
                sp.prec = sp.prec * 10 + (*fmt - '0');
        }
        for (; *fmt == 'l' || *fmt == 'z'; fmt++)
            lng = 1;
        switch (*fmt) {
        case 'd':
        case 'i':
            sv = lng ? va_arg(ap, long) : va_arg(ap, int);
            n += emit_number(sink, arg, &sp, sv < 0 ? -(unsigned long)sv : (unsigned long)sv, 10,
                             sv < 0, 0, NULL);
            break;
        case 'u':
        case 'x':
        case 'X':
        case 'o':
            uv = lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int);
            n += emit_number(sink, arg, &sp, uv,
                             *fmt == 'u'   ? 10
                             : *fmt == 'o' ? 8
                                           : 16,
                             0, *fmt == 'X', NULL);
            break;
        case 'p':
            sp.pad = '0';
            sp.width = 2 + 2 * sizeof(void *);
            n += emit_number(sink, arg, &sp, (unsigned long)va_arg(ap, void *), 16, 0, 0, "0x");
            break;
        case 's':
            s = va_arg(ap, const char *);
            if (!s)
                s = "(null)";
            for (len = 0; s[len] && (sp.prec < 0 || len < sp.prec); len++)
                ;
            sp.pad = ' ';
            n += emit_padded(sink, arg, &sp, s, len, NULL);
            break;
        case 'c': {
            char c = (char)va_arg(ap, int);
            sp.pad = ' ';
            n += emit_padded(sink, arg, &sp, &c, 1, NULL);
            break;
        }
        case '%':
            sink('%', arg);
            n++;
            break;
        case '\0': return n;
        default:                    /* unknown conversion: print it as is */
            sink('%', arg);
            sink(*fmt, arg);
            n += 2;
            break;
        }
    }
    return n;
}

struct bufsink {
    char *buf;
    size_t size, len;
};

static void buf_put(char c, void *arg)
{
    struct bufsink *b = arg;

    if (b->len + 1 < b->size)
        b->buf[b->len] = c;
    b->len++;
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct bufsink b = { buf, size, 0 };
    int n = vfmt(buf_put, &b, fmt, ap);

    if (size)
        buf[b.len < size ? b.len : size - 1] = '\0';
    return n;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}
