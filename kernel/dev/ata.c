/* ata.c - ATA disks on the legacy IDE ports (the ATA/ATAPI-6 command set):
 * IDENTIFY finds which of the four units exist, then every transfer is one
 * command for up to 256 sectors, 28-bit LBA. When the PCI bus has an IDE
 * controller that can master the bus (QEMU's PC has a PIIX3), the drive
 * moves the data itself, by DMA, into the pages a table lists (READ/WRITE
 * DMA), and the caller sleeps until the drive's interrupt says it is done:
 * the CPU runs other processes meanwhile instead of spinning. Without one,
 * 32-bit PIO, polling. Each channel runs one command at a time (a sleeping
 * lock); the block cache (bcache.c) is the only caller. Units: hd0/hd1 =
 * primary master/slave, hd2/hd3 = secondary. */
#include "arch/x86/cpu.h"
#include "arch/x86/x86.h"
#include "dev/blk.h"
#include "dev/dev.h"
#include "include/uapi/errno.h"
#include "lib/kprintf.h"
#include "mm/memlayout.h"
#include "mm/page.h"
#include "proc/proc.h"

#define ATA_SR_ERR        0x01
#define ATA_SR_DRQ        0x08
#define ATA_SR_DF         0x20
#define ATA_SR_BSY        0x80
#define ATA_CMD_READ      0x20
#define ATA_CMD_WRITE     0x30
#define ATA_CMD_READ_DMA  0xC8
#define ATA_CMD_WRITE_DMA 0xCA
#define ATA_CMD_FLUSH     0xE7
#define ATA_CMD_IDENTIFY  0xEC
#define NUNITS            4
#define SPIN_LIMIT        10000000

/* The bus master's registers (Intel PIIX: "Bus Master IDE"), per channel. */
#define BM_CMD    0                     /* bit 0 starts the engine; bit 3: into memory */
#define BM_STATUS 2                     /* bit 1 error, bit 2 interrupt: write 1 to clear */
#define BM_PRDT   4                     /* the physical address of the region table */
#define BM_START  0x01
#define BM_TOMEM  0x08
#define BM_ERR    0x02
#define BM_IRQ    0x04
#define PRD_EOT   0x80000000u           /* the table's last entry */

#define PCI_ADDR 0xCF8
#define PCI_DATA 0xCFC
#define BM_IO    0xC000                 /* where SeaBIOS puts them, if the firmware did not */

/* One IDE channel (two units). Touched by the interrupt handler too: only
 * with interrupts off. */
static struct channel {
    uint16_t io, ctl, bm;               /* bm: bus-master registers, 0 if none */
    int irq;
    int busy;                           /* a caller owns the channel (chan_lock) */
    int active;                         /* a command waits for the interrupt */
    int done, err;                      /* set by finish() */
    uint32_t *prdt;                     /* the region table: one page */
} chans[2] = {
    { 0x1F0, 0x3F6, 0, IRQ_ATA, 0, 0, 0, 0, NULL },
    { 0x170, 0x376, 0, IRQ_ATA2, 0, 0, 0, 0, NULL },
};

static struct {
    int present;
    int dma;                            /* the drive does DMA and its channel can */
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
    uint16_t io = chans[unit / 2].io, ctl = chans[unit / 2].ctl;

    outb(io + 6, 0xE0 | ((unit & 1) << 4) | ((lba >> 24) & 0x0F));
    inb(ctl);                           /* ~400 ns for the drive to settle */
    inb(ctl);
    inb(ctl);
    inb(ctl);
}

/* Select the unit and hand it a command for nsect sectors at lba. */
static int issue(int unit, uint32_t lba, uint32_t nsect, uint8_t cmd)
{
    uint16_t io = chans[unit / 2].io;
    int err;

    select_unit(unit, lba);
    if ((err = wait_ready(io)) < 0)
        return err;
    outb(io + 2, nsect & 0xFF);         /* 256 is written as 0 */
    outb(io + 3, lba & 0xFF);
    outb(io + 4, (lba >> 8) & 0xFF);
    outb(io + 5, (lba >> 16) & 0xFF);
    outb(io + 7, cmd);
    return 0;
}

/* ---------------------------------------------------------------- interrupts */

/* The command in flight on c is over (the drive interrupted): stop the
 * engine, read the drive's status (which also lowers its interrupt line),
 * wake the waiter. From the interrupt, or from a waiter that polls; with
 * interrupts off either way. An interrupt nobody waits for is only
 * acknowledged. */
static void finish(struct channel *c)
{
    uint8_t bms, st;

    if (!c->active) {
        inb(c->io + 7);
        return;
    }
    bms = inb(c->bm + BM_STATUS);
    if (!(bms & BM_IRQ))
        return;                         /* not yet */
    outb(c->bm + BM_CMD, 0);
    st = inb(c->io + 7);
    outb(c->bm + BM_STATUS, BM_IRQ | BM_ERR);
    c->err = (bms & BM_ERR) || (st & (ATA_SR_ERR | ATA_SR_DF)) ? -EIO : 0;
    c->active = 0;
    c->done = 1;
    wakeup(c);
}

static void ata_intr_primary(void)
{
    finish(&chans[0]);
}

static void ata_intr_secondary(void)
{
    finish(&chans[1]);
}

/* Start a command that ends with an interrupt, and wait for it: asleep,
 * or, with no process to put to sleep (boot, the kernel's own tests),
 * polling the bus master's status. A killed process waits all the same:
 * the drive is writing into memory the cache will hand out. 0 or -EIO. */
static int run(struct channel *c, int unit, uint32_t lba, uint32_t nsect, uint8_t cmd, int dma,
               int tomem)
{
    uint32_t s = irq_save();
    int err, spins;

    c->done = 0;
    c->active = 1;
    if ((err = issue(unit, lba, nsect, cmd)) < 0) {
        c->active = 0;
        irq_restore(s);
        return err;
    }
    if (dma)
        outb(c->bm + BM_CMD, BM_START | (tomem ? BM_TOMEM : 0));
    for (spins = 0; !c->done; spins++) {
        if (curproc()) {
            sleep_on(c);
        } else if (spins < SPIN_LIMIT) {
            finish(c);
        } else {
            outb(c->bm + BM_CMD, 0);
            c->active = 0;
            c->err = -EIO;
            break;
        }
    }
    irq_restore(s);
    return c->err;
}

/* ---------------------------------------------------------------- transfers */

/* One caller at a time on a channel: the others sleep. */
static void chan_lock(struct channel *c)
{
    uint32_t s = irq_save();

    while (c->busy)
        sleep_on(&c->busy);
    c->busy = 1;
    irq_restore(s);
}

static void chan_unlock(struct channel *c)
{
    uint32_t s = irq_save();

    c->busy = 0;
    wakeup(&c->busy);
    irq_restore(s);
}

/* By DMA: the region table lists each page (the last one may be partly
 * used: a disk that ends inside a block). */
static int dma(struct channel *c, int unit, uint32_t lba, uint32_t nsect, char *const *pages,
               int write)
{
    uint32_t left = nsect * SECTOR, i;

    for (i = 0; left > 0; i++) {
        uint32_t n = left < PAGE_SIZE ? left : PAGE_SIZE;
        c->prdt[2 * i] = V2P(pages[i]);
        c->prdt[2 * i + 1] = n | (n == left ? PRD_EOT : 0);
        left -= n;
    }
    outb(c->bm + BM_CMD, 0);
    outl(c->bm + BM_PRDT, V2P(c->prdt));
    outb(c->bm + BM_STATUS, BM_IRQ | BM_ERR);
    return run(c, unit, lba, nsect, write ? ATA_CMD_WRITE_DMA : ATA_CMD_READ_DMA, 1, !write);
}

/* By PIO, 32 bits at a time, polling: for a controller without DMA. */
static int pio(struct channel *c, int unit, uint32_t lba, uint32_t nsect, char *const *pages,
               int write)
{
    uint32_t i;
    int err;

    if ((err = issue(unit, lba, nsect, write ? ATA_CMD_WRITE : ATA_CMD_READ)) < 0)
        return err;
    for (i = 0; i < nsect; i++) {
        char *p = pages[i / (PAGE_SIZE / SECTOR)] + i % (PAGE_SIZE / SECTOR) * SECTOR;
        if ((err = wait_drq(c->io)) < 0)
            return err;
        if (write)
            outsl(c->io, p, SECTOR / 4);
        else
            insl(c->io, p, SECTOR / 4);
    }
    return write ? wait_ready(c->io) : 0;
}

/* Move nsect sectors at lba to or from pages[] (whole pages, 8 sectors
 * each, the last maybe fewer); at most ATA_MAX_SECTORS. The block cache
 * is the only caller. */
int ata_io(int unit, uint32_t lba, uint32_t nsect, char *const *pages, int write)
{
    struct channel *c;
    int err;

    if (unit < 0 || unit >= NUNITS || !units[unit].present || nsect == 0 ||
        nsect > ATA_MAX_SECTORS || lba >= units[unit].sectors || nsect > units[unit].sectors - lba)
        return -ENXIO;
    c = &chans[unit / 2];
    chan_lock(c);
    if (units[unit].dma)
        err = dma(c, unit, lba, nsect, pages, write);
    else
        err = pio(c, unit, lba, nsect, pages, write);
    chan_unlock(c);
    return err;
}

/* Ask the drive to put its write cache on the platter (sync, revoke). */
int ata_flush(int unit)
{
    struct channel *c;
    int err;

    if (unit < 0 || unit >= NUNITS || !units[unit].present)
        return -ENXIO;
    c = &chans[unit / 2];
    chan_lock(c);
    if (c->bm) {
        err = run(c, unit, 0, 0, ATA_CMD_FLUSH, 0, 0);
    } else {
        select_unit(unit, 0);
        outb(c->io + 7, ATA_CMD_FLUSH);
        err = wait_ready(c->io);
    }
    chan_unlock(c);
    return err;
}

uint32_t ata_sectors(int unit)
{
    return unit >= 0 && unit < NUNITS && units[unit].present ? units[unit].sectors : 0;
}

/* ---------------------------------------------------------------- finding the disks */

static uint32_t pci_read(uint32_t dev, uint32_t off)
{
    outl(PCI_ADDR, 0x80000000u | dev << 8 | (off & 0xFC));
    return inl(PCI_DATA);
}

static void pci_write(uint32_t dev, uint32_t off, uint32_t value)
{
    outl(PCI_ADDR, 0x80000000u | dev << 8 | (off & 0xFC));
    outl(PCI_DATA, value);
}

/* The bus-master registers of the first PCI IDE controller that has them
 * (class 1, subclass 1, programming interface bit 7), with bus mastering
 * switched on; 0 if there is none. Bus 0 only: where PCs put it. A
 * firmware that assigns no PCI addresses (qboot, which the tests boot
 * with) leaves them at 0: then they go at BM_IO, nothing else's on a PC. */
static uint16_t find_bus_master(void)
{
    uint32_t dev, class, bar, cmd;

    for (dev = 0; dev < 32 * 8; dev++) {        /* device << 3 | function */
        if ((pci_read(dev, 0) & 0xFFFF) == 0xFFFF)
            continue;
        class = pci_read(dev, 8);
        if (class >> 16 != 0x0101 || !(class & 0x8000))
            continue;
        bar = pci_read(dev, 0x20);
        if ((bar & 1) && !(bar & 0xFFFC)) {
            pci_write(dev, 0x20, BM_IO);
            bar = pci_read(dev, 0x20);
        }
        if (!(bar & 1) || !(bar & 0xFFFC))
            continue;
        cmd = pci_read(dev, 4) & 0xFFFF;
        pci_write(dev, 4, cmd | 0x5); /* I/O space and bus master on; status 0 changes nothing */
        return bar & 0xFFFC;
    }
    return 0;
}

static void identify(int unit)
{
    uint16_t io = chans[unit / 2].io, id[256];
    int i;

    select_unit(unit, 0);
    outb(io + 2, 0);
    outb(io + 3, 0);
    outb(io + 4, 0);
    outb(io + 5, 0);
    outb(io + 7, ATA_CMD_IDENTIFY);
    if (inb(io + 7) == 0 || inb(io + 7) == 0xFF)
        return; /* nothing on this cable position */
    if (wait_ready(io) < 0 || inb(io + 4) || inb(io + 5))
        return; /* ATAPI (the CD-ROM) or an error */
    if (wait_drq(io) < 0)
        return;
    insw(io, id, 256);
    units[unit].sectors = id[60] | ((uint32_t)id[61] << 16);
    if (units[unit].sectors > 0x7FFFFF)
        units[unit].sectors = 0x7FFFFF; /* byte offsets are 32-bit: use the first 4 GiB */
    units[unit].dma = (id[49] & 0x100) && chans[unit / 2].bm;
    for (i = 0; i < 20; i++) {
        units[unit].model[2 * i] = id[27 + i] >> 8;
        units[unit].model[2 * i + 1] = id[27 + i] & 0xFF;
    }
    for (i = 40; i > 0 && units[unit].model[i - 1] == ' '; i--)
        ;
    units[unit].model[i] = '\0';
    units[unit].present = units[unit].sectors > 0;
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
    return ata_sectors(minor) * SECTOR;
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
    uint16_t bm = find_bus_master();
    int unit, ch, any = 0;

    for (ch = 0; ch < 2; ch++) {
        if (bm && (chans[ch].prdt = page_alloc()))
            chans[ch].bm = bm + 8 * ch;
    }
    for (unit = 0; unit < NUNITS; unit++) {
        identify(unit);
        if (units[unit].present) {
            kprintf("hd%d: %u KiB, %s%s\n", unit, units[unit].sectors / 2, units[unit].model,
                    units[unit].dma ? ", DMA" : "");
            any = 1;
        }
    }
    for (ch = 0; ch < 2; ch++) {
        if (chans[ch].bm) {
            irq_register(chans[ch].irq, ch ? ata_intr_secondary : ata_intr_primary);
            outb(chans[ch].ctl, 0); /* nIEN clear: the drive may interrupt */
        }
    }
    if (any)
        bcache_init();
    dev_register(DEV_ATA, &ata_dev);
}
