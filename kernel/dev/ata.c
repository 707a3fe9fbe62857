/* ata.c - ATA disks in PIO mode (the ATA/ATAPI-6 command set): IDENTIFY to
 * find which of the four units exist, then READ/WRITE SECTORS with 28-bit
 * LBA, polling the status register. Polling keeps the driver short and
 * is fast enough under QEMU; an IRQ-driven version would sleep instead of
 * spinning. Units: hd0/hd1 = primary master/slave, hd2/hd3 = secondary. */
#include "arch/x86/x86.h"
#include "dev/blk.h"
#include "dev/dev.h"
#include "include/uapi/errno.h"
#include "lib/kprintf.h"

#define ATA_SR_ERR       0x01
#define ATA_SR_DRQ       0x08
#define ATA_SR_DF        0x20
#define ATA_SR_BSY       0x80
#define ATA_CMD_READ     0x20
#define ATA_CMD_WRITE    0x30
#define ATA_CMD_FLUSH    0xE7
#define ATA_CMD_IDENTIFY 0xEC
#define NUNITS           4
#define SPIN_LIMIT       10000000

static const uint16_t io_base[2] = { 0x1F0, 0x170 };
static const uint16_t ctl_base[2] = { 0x3F6, 0x376 };

static struct {
    int present;
    uint32_t sectors;
    char model[41];
} units[NUNITS];

static int wait_ready(uint16_t io)
{
    int spins;
    uint8_t s = 0;

    for (spins = 0; spins < SPIN_LIMIT; spins++) {
        s = inb(io + 7);
        if (!(s & ATA_SR_BSY))
            break;
    }
    if (s & (ATA_SR_ERR | ATA_SR_DF) || spins == SPIN_LIMIT)
        return -EIO;
    return 0;
}

static int wait_drq(uint16_t io)
{
    int spins;

    for (spins = 0; spins < SPIN_LIMIT; spins++) {
        uint8_t s = inb(io + 7);
        if (s & (ATA_SR_ERR | ATA_SR_DF))
            return -EIO;
        if (!(s & ATA_SR_BSY) && (s & ATA_SR_DRQ))
            return 0;
    }
    return -EIO;
}

static void select_unit(int unit, uint32_t lba)
{
    uint16_t io = io_base[unit / 2];

    outb(io + 6, 0xE0 | ((unit & 1) << 4) | ((lba >> 24) & 0x0F));
    inb(ctl_base[unit / 2]);            /* ~400 ns for the drive to settle */
    inb(ctl_base[unit / 2]);
    inb(ctl_base[unit / 2]);
    inb(ctl_base[unit / 2]);
}

static void identify(int unit)
{
    uint16_t io = io_base[unit / 2], id[256];
    int i;

    select_unit(unit, 0);
    outb(io + 2, 0);
    outb(io + 3, 0);
    outb(io + 4, 0);
    outb(io + 5, 0);
    outb(io + 7, ATA_CMD_IDENTIFY);
    if (inb(io + 7) == 0 || inb(io + 7) == 0xFF)
        return;                         /* nothing on this cable position */
    if (wait_ready(io) < 0 || inb(io + 4) || inb(io + 5))
        return;                         /* ATAPI (the CD-ROM) or an error */
    if (wait_drq(io) < 0)
        return;
    insw(io, id, 256);
    units[unit].sectors = id[60] | ((uint32_t)id[61] << 16);
    if (units[unit].sectors > 0x7FFFFF)
        units[unit].sectors = 0x7FFFFF; /* byte offsets are 32-bit: use the first 4 GiB */
    for (i = 0; i < 20; i++) {
        units[unit].model[2 * i] = id[27 + i] >> 8;
        units[unit].model[2 * i + 1] = id[27 + i] & 0xFF;
    }
    for (i = 40; i > 0 && units[unit].model[i - 1] == ' '; i--)
        ;
    units[unit].model[i] = '\0';
    units[unit].present = units[unit].sectors > 0;
}

/* Transfer one sector; the block cache is the only caller. */
int ata_rw(int unit, uint32_t lba, void *buf, int write)
{
    uint16_t io;
    int err;

    if (unit < 0 || unit >= NUNITS || !units[unit].present || lba >= units[unit].sectors)
        return -ENXIO;
    io = io_base[unit / 2];
    select_unit(unit, lba);
    if ((err = wait_ready(io)) < 0)
        return err;
    outb(io + 2, 1);
    outb(io + 3, lba & 0xFF);
    outb(io + 4, (lba >> 8) & 0xFF);
    outb(io + 5, (lba >> 16) & 0xFF);
    outb(io + 7, write ? ATA_CMD_WRITE : ATA_CMD_READ);
    if ((err = wait_drq(io)) < 0)
        return err;
    if (write) {
        outsw(io, buf, 256);
        return wait_ready(io);
    }
    insw(io, buf, 256);
    return 0;
}

/* Ask the drive to put its write cache on the platter (sync, revoke). */
int ata_flush(int unit)
{
    uint16_t io = io_base[unit / 2];

    if (unit < 0 || unit >= NUNITS || !units[unit].present)
        return -ENXIO;
    select_unit(unit, 0);
    outb(io + 7, ATA_CMD_FLUSH);
    return wait_ready(io);
}

uint32_t ata_sectors(int unit)
{
    return unit >= 0 && unit < NUNITS && units[unit].present ? units[unit].sectors : 0;
}

static int ata_open(int minor, int access)
{
    return ata_sectors(minor) ? 0 : -ENXIO;
}

static int ata_read(int minor, void *buf, uint32_t off, uint32_t n, int nonblock)
{
    return blk_read(minor, buf, off, n);
}

static int ata_write(int minor, const void *buf, uint32_t off, uint32_t n, int nonblock)
{
    return blk_write(minor, buf, off, n);
}

static uint32_t ata_size(int minor)
{
    return ata_sectors(minor) * 512;
}

static int ata_sync(int minor)
{
    return blk_sync(minor);
}

static const struct devsw ata_dev = {
    "ata", ata_open, NULL, ata_read, ata_write, ata_size, ata_sync
};

void ata_init(void)
{
    int unit;

    for (unit = 0; unit < NUNITS; unit++) {
        identify(unit);
        if (units[unit].present)
            kprintf("hd%d: %u KiB, %s\n", unit, units[unit].sectors / 2, units[unit].model);
    }
    dev_register(DEV_ATA, &ata_dev);
}
