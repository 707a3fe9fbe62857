/* ustar.h - reading a POSIX ustar archive (the boot archive format), one
 * header at a time. Pure code with no kernel dependencies: host-tested. */
#ifndef LIB_USTAR_H
#define LIB_USTAR_H

#include <stddef.h>
#include <stdint.h>

struct ustar_entry {
    char name[256];         /* prefix "/" name, without a leading "./" */
    char type;              /* '0' file, '5' directory, '2' symlink, ... */
    uint32_t mode;
    uint32_t size;
    const void *data;       /* size bytes, inside the archive */
    char link[101];         /* symlink target: the header's 100 bytes and a NUL */
};

/* Parse the entry at *off and advance *off past it. Returns 1 for an
 * entry, 0 at the end of the archive, -1 for a damaged archive. */
int ustar_next(const void *tar, size_t size, size_t *off, struct ustar_entry *e);

#endif
