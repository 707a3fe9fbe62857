/* ustar.c - the ustar header walk (POSIX.1-1988 "ustar" interchange
 * format): 512-byte headers with octal ASCII numbers, each followed by the
 * file's data rounded up to 512 bytes, and two zero blocks at the end. */
#include "lib/string.h"
#include "lib/ustar.h"

#define BLOCK 512

static int octal(const char *s, size_t n, uint32_t *out)
{
    uint32_t v = 0;
    size_t i = 0;

    while (i < n && s[i] == ' ')
        i++;
    for (; i < n && s[i] >= '0' && s[i] <= '7'; i++) {
        if (v > (0xFFFFFFFFu >> 3))
            return -1;
        v = v * 8 + (uint32_t)(s[i] - '0');
    }
    if (i < n && s[i] != '\0' && s[i] != ' ')
        return -1;
    *out = v;
    return 0;
}

static int checksum_ok(const unsigned char *h)
{
    uint32_t want, sum = 0;
    int i;

    if (octal((const char *)h + 148, 8, &want) < 0)
        return 0;
    for (i = 0; i < BLOCK; i++)
        sum += (i >= 148 && i < 156) ? ' ' : h[i];
    return sum == want;
}

int ustar_next(const void *tar, size_t size, size_t *off, struct ustar_entry *e)
{
    const unsigned char *h = (const unsigned char *)tar + *off;
    char name[101], prefix[156];
    const char *n;

    if (*off + BLOCK > size)
        return *off == size ? 0 : -1;
    if (h[0] == '\0')
        return 0;                       /* the zero blocks that end it */
    if (!checksum_ok(h) || memcmp(h + 257, "ustar", 5) != 0)
        return -1;
    if (octal((const char *)h + 124, 12, &e->size) < 0 ||
        octal((const char *)h + 100, 8, &e->mode) < 0)
        return -1;
    if (e->size > size - *off - BLOCK)
        return -1;                      /* data runs past the end */
    memcpy(name, h, 100);
    name[100] = '\0';
    memcpy(prefix, h + 345, 155);
    prefix[155] = '\0';
    e->name[0] = '\0';
    if (prefix[0]) {
        strlcpy(e->name, prefix, sizeof(e->name));
        strlcat(e->name, "/", sizeof(e->name));
    }
    strlcat(e->name, name, sizeof(e->name));
    n = e->name;
    while (n[0] == '.' && n[1] == '/')
        n += 2;
    memmove(e->name, n, strlen(n) + 1);
    e->type = h[156] ? (char)h[156] : '0';
    memcpy(e->link, h + 157, 100);
    e->link[100] = '\0';
    e->data = h + BLOCK;
    *off += BLOCK + ((e->size + BLOCK - 1) / BLOCK) * BLOCK;
    return 1;
}
