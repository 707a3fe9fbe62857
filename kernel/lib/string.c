/* string.c - memory and string helpers shared by the kernel and libc.
 * memset, memcpy and memmove work four bytes a step with the x86 string
 * instructions (rep stosl, rep movsl): every page the kernel zeroes and
 * every byte a read, a write or a pipe moves goes through them, and under
 * QEMU a byte loop costs about four times as much. The rest are plain
 * byte loops: clear beats fast there. (The host unit tests compile this
 * file too; on a host that is not an x86 the steps are C loops.) */
#include "lib/string.h"

#if defined(__i386__) || defined(__x86_64__)
#define STRING_OPS_X86 1
#endif

/* n bytes from s to d, lowest address first (the ranges may overlap only
 * with d below s). */
static void copy_up(void *d, const void *s, size_t n)
{
#ifdef STRING_OPS_X86
    size_t words = n / 4, bytes = n % 4;

    __asm__ volatile("rep movsl" : "+D"(d), "+S"(s), "+c"(words) : : "memory");
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(bytes) : : "memory");
#else
    unsigned char *dp = d;
    const unsigned char *sp = s;

    while (n--)
        *dp++ = *sp++;
#endif
}

void *memset(void *dst, int c, size_t n)
{
#ifdef STRING_OPS_X86
    void *d = dst;
    size_t words = n / 4, bytes = n % 4;
    unsigned v = (unsigned char)c * 0x01010101u;

    __asm__ volatile("rep stosl" : "+D"(d), "+c"(words) : "a"(v) : "memory");
    __asm__ volatile("rep stosb" : "+D"(d), "+c"(bytes) : "a"(v) : "memory");
#else
    unsigned char *d = dst;

    while (n--)
        *d++ = (unsigned char)c;
#endif
    return dst;
}

void *memcpy(void *dst, const void *src, size_t n)
{
    copy_up(dst, src, n);
    return dst;
}

/* Copies correctly even when the two ranges overlap. Only a destination
 * inside the source, above it, must go from the end, a byte at a time:
 * that case is rare (and would need the direction flag set and cleared). */
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

/* A word that may sit at any address and alias anything (memcmp's loads). */
typedef unsigned int __attribute__((may_alias, aligned(1))) any_word;

/* Whole words first while they are equal (exec compares program pages
 * with it), then the bytes that differ or are left. */
int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *p = a, *q = b;

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
