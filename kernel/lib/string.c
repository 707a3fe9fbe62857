/* string.c - memory and string helpers shared by the kernel and libc.
 * memset, memcpy and memmove move 32 or 64 bytes a step, as unrolled
 * word loads and stores: every page the kernel zeroes and every byte a
 * read, a write or a pipe moves goes through them. Under QEMU (TCG) this
 * plain C beats the x86 string instructions, which take a trip through
 * the translator per word: zeroing a page took 2,650 cycles against
 * rep stosl's 5,650, copying one 5,900 against rep movsl's 8,300 to
 * 12,500 (doc/decisions.md, "Performance"); a byte loop costs four times
 * rep movsl. The rest are plain byte loops: clear beats fast there. */
#include "lib/string.h"

/* A word that may sit at any address and alias anything (x86 allows
 * unaligned loads and stores; memcmp's loads too). */
typedef unsigned int __attribute__((may_alias, aligned(1))) any_word;

/* The empty asm in each unrolled loop keeps the compiler from seeing the
 * loop as a memcpy or memset and calling the very function it is in. */
#define NOT_A_LIBCALL() __asm__ volatile("" ::: "memory")

/* n bytes from s to d, lowest address first (the ranges may overlap only
 * with d below s: each step loads its words before it stores them).
 * Inlined into memcpy and memmove: most copies in the kernel are a few
 * bytes (names), where a second call costs as much as the copy. */
static inline __attribute__((always_inline)) void copy_up(void *d, const void *s, size_t n)
{
    unsigned char *dp = d;
    const unsigned char *sp = s;

    for (; n >= 32; n -= 32, dp += 32, sp += 32) {
        const any_word *from = (const any_word *)sp;
        any_word *to = (any_word *)dp;
        unsigned a = from[0], b = from[1], c = from[2], e = from[3];
        to[0] = a;
        to[1] = b;
        to[2] = c;
        to[3] = e;
        a = from[4], b = from[5], c = from[6], e = from[7];
        to[4] = a;
        to[5] = b;
        to[6] = c;
        to[7] = e;
        NOT_A_LIBCALL();
    }
    for (; n >= 4; n -= 4, dp += 4, sp += 4)
        *(any_word *)dp = *(const any_word *)sp;
    while (n--)
        *dp++ = *sp++;
}

void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    unsigned v = (unsigned char)c * 0x01010101u;

    for (; n >= 64; n -= 64, d += 64) {
        any_word *w = (any_word *)d;
        w[0] = w[1] = w[2] = w[3] = w[4] = w[5] = w[6] = w[7] = v;
        w[8] = w[9] = w[10] = w[11] = w[12] = w[13] = w[14] = w[15] = v;
        NOT_A_LIBCALL();
    }
    for (; n >= 16; n -= 16, d += 16) {     /* the kernel's small structures */
        any_word *w = (any_word *)d;
        w[0] = w[1] = w[2] = w[3] = v;
        NOT_A_LIBCALL();
    }
    for (; n >= 4; n -= 4, d += 4)
        *(any_word *)d = v;
    while (n--)
        *d++ = (unsigned char)c;
    return dst;
}

void *memcpy(void *dst, const void *src, size_t n)
{
    copy_up(dst, src, n);
    return dst;
}

/* Copies correctly even when the two ranges overlap. Only a destination
 * inside the source, above it, must go from the end, a byte at a time:
 * that case is rare. */
void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;

    if (d == s || n == 0)
        return dst;
    if (d < s || d >= s + n) {
        copy_up(d, s, n);
    } else {
        d += n;
        s += n;
        while (n--)
            *--d = *--s;
    }
    return dst;
}

/* Four words a step while they are equal (exec compares program pages
 * with it), then a word, then the bytes that differ or are left. */
int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *p = a, *q = b;

    for (; n >= 16; n -= 16, p += 16, q += 16) {
        const any_word *x = (const any_word *)p, *y = (const any_word *)q;
        if ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]))
            break;
    }
    for (; n >= 4 && *(const any_word *)p == *(const any_word *)q; n -= 4, p += 4, q += 4)
        ;
    for (; n; n--, p++, q++)
        if (*p != *q)
            return *p - *q;
    return 0;
}

size_t strlen(const char *s)
{
    size_t n = 0;

    while (s[n])
        n++;
    return n;
}

size_t strnlen(const char *s, size_t max)
{
    size_t n = 0;

    while (n < max && s[n])
        n++;
    return n;
}

int strcmp(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
    for (; n; n--, a++, b++) {
        if (*a != *b)
            return (unsigned char)*a - (unsigned char)*b;
        if (!*a)
            break;
    }
    return 0;
}

char *strchr(const char *s, int c)
{
    for (;; s++) {
        if (*s == (char)c)
            return (char *)s;
        if (!*s)
            return NULL;
    }
}

char *strrchr(const char *s, int c)
{
    const char *last = NULL;

    for (;; s++) {
        if (*s == (char)c)
            last = s;
        if (!*s)
            return (char *)last;
    }
}

/* BSD strlcpy: always terminates (if size > 0), returns strlen(src) so the
 * caller can detect truncation with `>= size`. */
size_t strlcpy(char *dst, const char *src, size_t size)
{
    size_t len = strlen(src);

    if (size) {
        size_t n = len < size - 1 ? len : size - 1;
        memcpy(dst, src, n);
        dst[n] = '\0';
    }
    return len;
}

size_t strlcat(char *dst, const char *src, size_t size)
{
    size_t dlen = strnlen(dst, size);

    if (dlen == size)
        return size + strlen(src);
    return dlen + strlcpy(dst + dlen, src, size - dlen);
}

/* Make s one line of printable text in place: each control character
 * (a newline above all) becomes '?'. For names a user chose that the
 * kernel prints for others, one per line: a process's name in
 * /proc/<pid>/status, an attachment's and an image's in /proc/<pid>/ns
 * and the console's messages - a newline there forged lines. */
char *str_printable(char *s)
{
    char *c;

    for (c = s; *c; c++)
        if ((unsigned char)*c < ' ' || *c == 0x7F)
            *c = '?';
    return s;
}
