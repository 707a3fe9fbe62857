/* dev.h - the device switch: what a device node's major number means.
 * A device's open routine runs in ready(), never in walk(); read and write
 * take the file offset (block devices are seekable, the console is not). */
#ifndef DEV_DEV_H
#define DEV_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "include/uapi/fs.h"             /* the major numbers: DEV_CONSOLE, ... */
#define NDEV 8

struct devsw {
    const char *name;
    int (*open)(int minor, int access);     /* -ENXIO: no such unit / no media */
    void (*close)(int minor, int access);
    int (*read)(int minor, void *buf, uint32_t off, uint32_t n, int nonblock);
    int (*write)(int minor, const void *buf, uint32_t off, uint32_t n, int nonblock);
    uint32_t (*size)(int minor);            /* bytes, for block devices */
    int (*sync)(int minor);                 /* write back what is cached */
};

extern const struct devsw *devsw[NDEV];
void dev_init(void);
void dev_sync_all(void);
void dev_register(int major, const struct devsw *d);
const struct devsw *dev_lookup(uint32_t rdev);

#endif
