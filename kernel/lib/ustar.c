/* ustar.c - the ustar header walk (POSIX.1-1988 "ustar" interchange
 * format): 512-byte headers with octal ASCII numbers, each followed by the
 * file's data rounded up to 512 bytes, and two zero blocks at the end. */
#include "lib/string.h"
#include "lib/ustar.h"

#define BLOCK 512

/* A header block, field by field (POSIX.1-1988): every offset the reader
 * uses is a field's, so none is written as a number. */
struct ustar_header {
    char name[100];
    char mode[8];
    char uid[8];
    char gid[8];
    char size[12];
    char mtime[12];
    char chksum[8];
    char typeflag;
    char linkname[100];
    char magic[6];                      /* "ustar" */
    char version[2];
    char uname[32];
    char gname[32];
    char devmajor[8];
    char devminor[8];
    char prefix[155];
    char pad[12];
};

_Static_assert(sizeof(struct ustar_header) == BLOCK, "a ustar header is one block");
_Static_assert(offsetof(struct ustar_header, chksum) == 148, "the checksum's offset");
_Static_assert(offsetof(struct ustar_header, prefix) == 345, "the prefix's offset");

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

/* The checksum: every byte of the header, its own field counted as
 * spaces: the sum of all 512, then the field's bytes traded for spaces
 * (no test per byte: the boot sums 158 headers). */
static int checksum_ok(const struct ustar_header *h)
{
    const unsigned char *b = (const unsigned char *)h;
    uint32_t want, sum = 0;
    size_t i;

    if (octal(h->chksum, sizeof(h->chksum), &want) < 0)
        return 0;
    for (i = 0; i < BLOCK; i++)
        sum += b[i];
    for (i = 0; i < sizeof(h->chksum); i++)
        sum += ' ' - (unsigned char)h->chksum[i];
    return sum == want;
}

int ustar_next(const void *tar, size_t size, size_t *off, struct ustar_entry *e)
{
    const struct ustar_header *h = (const struct ustar_header *)((const char *)tar + *off);
    char name[sizeof(h->name) + 1], prefix[sizeof(h->prefix) + 1];
    const char *n;

    if (*off + BLOCK > size)
        return *off == size ? 0 : -1;
    if (h->name[0] == '\0')
        return 0;                       /* the zero blocks that end it */
    if (!checksum_ok(h) || memcmp(h->magic, "ustar", 5) != 0)
        return -1;
    if (octal(h->size, sizeof(h->size), &e->size) < 0 ||
        octal(h->mode, sizeof(h->mode), &e->mode) < 0)
        return -1;
    if (e->size > size - *off - BLOCK)
        return -1;                      /* data runs past the end */
    memcpy(name, h->name, sizeof(h->name));
    name[sizeof(h->name)] = '\0';
    memcpy(prefix, h->prefix, sizeof(h->prefix));
    prefix[sizeof(h->prefix)] = '\0';
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
    e->type = h->typeflag ? h->typeflag : '0';
    memcpy(e->link, h->linkname, sizeof(h->linkname));
    e->link[sizeof(h->linkname)] = '\0';
    e->data = (const char *)h + BLOCK;
    *off += BLOCK + ((e->size + BLOCK - 1) / BLOCK) * BLOCK;
    return 1;
}
