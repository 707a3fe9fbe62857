/* stdlib.c - number parsing, abs, sorting and pseudo-random numbers. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

static int digit_value(int c)
{
    if (isdigit(c))
        return c - '0';
    if (isalpha(c))
        return tolower(c) - 'a' + 10;
    return 99;
}

/* The part strtol and strtoul share: spaces, a sign, a base prefix
 * ("0x" for 16, "0" for 8 when base is 0), digits. Returns the magnitude,
 * or ULONG_MAX with errno = ERANGE if it does not fit. */
static unsigned long parse(const char *s, char **end, int base, int *neg)
{
    const char *p = s;
    unsigned long v = 0;
    int d, any = 0, overflow = 0;

    while (isspace((unsigned char)*p))
        p++;
    *neg = *p == '-';
    if (*p == '+' || *p == '-')
        p++;
    if ((base == 0 || base == 16) && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
        isxdigit((unsigned char)p[2])) {
        p += 2;
        base = 16;
    } else if (base == 0)
        base = *p == '0' ? 8 : 10;
    for (; (d = digit_value((unsigned char)*p)) < base; p++, any = 1) {
        if (v > (ULONG_MAX - d) / base)
            overflow = 1;
        v = v * base + d;
    }
    if (end)
        *end = (char *)(any ? p : s);
    if (overflow) {
        errno = ERANGE;
        return ULONG_MAX;
    }
    return v;
}

unsigned long strtoul(const char *s, char **end, int base)
{
    int neg;
    unsigned long v = parse(s, end, base, &neg);

    return neg && v != ULONG_MAX ? -v : v;
}

long strtol(const char *s, char **end, int base)
{
    int neg;
    unsigned long v = parse(s, end, base, &neg);

    if (!neg && v > LONG_MAX) {
        errno = ERANGE;
        return LONG_MAX;
    }
    if (neg && v > (unsigned long)LONG_MAX + 1) {
        errno = ERANGE;
        return LONG_MIN;
    }
    return neg ? -(long)(v - 1) - 1 : (long)v;
}

int atoi(const char *s)
{
    return (int)strtol(s, NULL, 10);
}
long atol(const char *s)
{
    return strtol(s, NULL, 10);
}
int abs(int n)
{
    return n < 0 ? -n : n;
}
long labs(long n)
{
    return n < 0 ? -n : n;
}

static void swap(char *a, char *b, size_t size)
{
    char t;

    while (size--) {
        t = *a;
        *a++ = *b;
        *b++ = t;
    }
}

/* Insertion sort: O(n^2), plainly correct, and quick for the few hundred
 * directory entries or processes a program here sorts. */
void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    char *a = base;
    size_t i, j;

    for (i = 1; i < n; i++)
        for (j = i; j > 0 && cmp(a + (j - 1) * size, a + j * size) > 0; j--)
            swap(a + (j - 1) * size, a + j * size, size);
}

static unsigned long rand_state = 1;

/* A linear congruential generator: fine for tests, useless for secrets. */
int rand(void)
{
    rand_state = rand_state * 1103515245 + 12345;
    return (int)((rand_state >> 1) & RAND_MAX);
}

void srand(unsigned seed)
{
    rand_state = seed;
}
