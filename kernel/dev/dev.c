/* dev.c - the device switch, and the simplest devices: null, zero, the
 * console, and rd0 (the boot archive as a read-only disk). */
#include "boot.h"
#include "dev/blk.h"
#include "dev/dev.h"
#include "dev/tty.h"
#include "include/uapi/errno.h"
#include "include/uapi/fs.h"
#include "lib/string.h"

const struct devsw *devsw[NDEV];        /* filled at boot by the drivers, read-only after */

void dev_register(int major, const struct devsw *d)
{
    devsw[major] = d;
}

const struct devsw *dev_lookup(uint32_t rdev)
{
    return MAJOR(rdev) < NDEV ? devsw[MAJOR(rdev)] : NULL;
}

static int mem_read(int minor, void *buf, uint32_t off, uint32_t n, int nonblock)
{
    if (minor == 0)
        return 0;                       /* null: always end of file */
    memset(buf, 0, n);                  /* zero: as many zeros as asked */
    return (int)n;
}

static int mem_write(int minor, const void *buf, uint32_t off, uint32_t n, int nonblock)
{
    return (int)n;                      /* both swallow everything */
}

static const struct devsw mem_dev = { "mem", NULL, NULL, mem_read, mem_write, NULL, NULL };

static int cons_read(int minor, void *buf, uint32_t off, uint32_t n, int nonblock)
{
    return tty_read(buf, n, nonblock);
}

static int cons_write(int minor, const void *buf, uint32_t off, uint32_t n, int nonblock)
{
    return tty_write(buf, n);
}

static const struct devsw console_dev = {
    "console", NULL, NULL, cons_read, cons_write, NULL, NULL
};

static int rd_read(int minor, void *buf, uint32_t off, uint32_t n, int nonblock)
{
    if (off >= initrd_size)
        return 0;
    if (n > initrd_size - off)
        n = initrd_size - off;
    memcpy(buf, (const char *)initrd_start + off, n);
    return (int)n;
}

static int rd_open(int minor, int access)
{
    if (!initrd_size)
        return -ENXIO;
    return (access & R_WRITE) ? -EROFS : 0;
}

static uint32_t rd_size(int minor)
{
    return initrd_size;
}

static const struct devsw ramdisk_dev = { "ramdisk", rd_open, NULL, rd_read, NULL, rd_size, NULL };

/* Every block device's cache to disk (sync, poweroff). */
void dev_sync_all(void)
{
    int major, minor;

    for (major = 0; major < NDEV; major++)
        for (minor = 0; devsw[major] && devsw[major]->sync && minor < 4; minor++)
            devsw[major]->sync(minor);
}

void dev_init(void)
{
    dev_register(DEV_CONSOLE, &console_dev);
    dev_register(DEV_MEM, &mem_dev);
    dev_register(DEV_RAMDISK, &ramdisk_dev);
    ata_init();
}
