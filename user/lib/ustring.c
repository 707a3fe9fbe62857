/* ustring.c - the string functions only user space needs. The common
 * ones are kernel/lib/string.c, which libc shares with the kernel. */
#include <stdlib.h>
#include <string.h>

void *memchr(const void *s, int c, size_t n)
{
    const unsigned char *p = s;

    for (; n; n--, p++)
        if (*p == (unsigned char)c)
            return (void *)p;
    return NULL;
}

char *strcpy(char *dst, const char *src)
{
    return memcpy(dst, src, strlen(src) + 1);
}

/* Pads with NULs up to n and, as C says, does not terminate a long src. */
char *strncpy(char *dst, const char *src, size_t n)
{
    size_t len = strnlen(src, n);

    memcpy(dst, src, len);
    memset(dst + len, 0, n - len);
    return dst;
}

char *strcat(char *dst, const char *src)
{
    strcpy(dst + strlen(dst), src);
    return dst;
}

char *strncat(char *dst, const char *src, size_t n)
{
    char *end = dst + strlen(dst);
    size_t len = strnlen(src, n);

    memcpy(end, src, len);
    end[len] = '\0';
    return dst;
}

char *strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *p = malloc(len + 1);

    if (p) {
        memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

char *strdup(const char *s)
{
    return strndup(s, strlen(s));
}

size_t strspn(const char *s, const char *accept)
{
    size_t n = 0;

    while (s[n] && strchr(accept, s[n]))
        n++;
    return n;
}

size_t strcspn(const char *s, const char *reject)
{
    size_t n = 0;

    while (s[n] && !strchr(reject, s[n]))
        n++;
    return n;
}

char *strpbrk(const char *s, const char *accept)
{
    s += strcspn(s, accept);
    return *s ? (char *)s : NULL;
}

char *strstr(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);

    for (; *haystack; haystack++)
        if (strncmp(haystack, needle, n) == 0)
            return (char *)haystack;
    return n == 0 ? (char *)haystack : NULL;
}

/* Splits s at runs of delim characters; *save remembers where it stopped. */
char *strtok_r(char *s, const char *delim, char **save)
{
    char *tok;

    if (!s)
        s = *save;
    s += strspn(s, delim);
    if (!*s) {
        *save = s;
        return NULL;
    }
    tok = s;
    s += strcspn(s, delim);
    if (*s)
        *s++ = '\0';
    *save = s;
    return tok;
}

char *strtok(char *s, const char *delim)
{
    static char *save;

    return strtok_r(s, delim, &save);
}
