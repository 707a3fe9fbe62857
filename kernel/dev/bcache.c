/* bcache.c - a write-back cache of disk blocks, a page (8 sectors) each:
 * an eighth of memory's worth, at least 64 blocks and at most 32 MiB, on
 * an LRU list and found through a hash. A read that continues the last
 * one fetches the blocks after it in the same disk command (read-ahead:
 * 4 blocks after a random miss, doubling up to ATA_MAX_PAGES while the
 * reads stay sequential). Writes only dirty a block; the disk sees it - with
 * the dirty blocks that follow it, in one command - when it is evicted, on
 * sync(), on revoke() and when a filesystem's last reference goes (both
 * call the device's sync).
 *
 * The disk driver sleeps while the drive works, so other processes run
 * meanwhile, in here too. The rule (xv6's): a block being filled, written
 * or copied is busy, and only the process that made it busy touches it;
 * whoever else wants it sleeps until it is released, then looks it up
 * again (it may have been evicted in between). A busy block is never
 * evicted. Flags, the hash and the list change only with interrupts off,
 * never across a sleep. Filesystems keep their own state consistent
 * themselves: ext2 lets one process at a time into an instance
 * (fs_enter), and that process may sleep here while the others wait. */
#include "arch/x86/x86.h"
#include "dev/blk.h"
#include "include/uapi/errno.h"
#include "lib/fault.h"
#include "lib/kprintf.h"
#include "lib/string.h"
#include "mm/page.h"
#include "proc/proc.h"

#define NUNITS      4
#define CACHE_SHARE 8                   /* an eighth of memory */
#define CACHE_MIN   64                  /* blocks */
#define CACHE_MAX   (32u << 20) / BLK_SIZE
#define RA_MIN      4                   /* blocks read after a random miss */

struct buf {
    int unit;                           /* -1: holds nothing */
    uint32_t block;                     /* in BLK_SIZE units */
    uint8_t valid;                      /* data holds the disk's bytes, or newer ones */
    uint8_t dirty;                      /* newer than the disk's */
    uint8_t busy;                       /* owned: see the rule above */
    uint8_t wanted;                     /* someone sleeps until it is released */
    struct buf *hnext;                  /* hash chain */
    struct buf *prev, *next;            /* LRU: lru.next is the most recent */
    char *data;                         /* one page; NULL until first used */
};

static struct buf *bufs, **hash, lru;   /* lru: the list's sentinel, and a sleep channel */
static uint32_t nbuf, nhash;
static int lru_wanted;                  /* someone sleeps until any block is released */
static struct {
    uint32_t next, window;              /* the block a sequential reader misses next */
} ra[NUNITS];

void bcache_init(void)
{
    uint32_t want = pmm_total_pages() / CACHE_SHARE, i;

    if (want < CACHE_MIN)
        want = CACHE_MIN;
    if (want > CACHE_MAX)
        want = CACHE_MAX;
    nhash = want;
    bufs = kzalloc(want * sizeof(*bufs));
    hash = kzalloc(nhash * sizeof(*hash));
    lru.next = lru.prev = &lru;
    /* The pages are promised here (free_pages counts them as taken) and
     * each is taken when its buffer first holds a block (rename_buf):
     * zeroing 16 MiB of fresh memory at boot was a fifth of the boot
     * under QEMU, which pays for the first touch of every page. */
    while (want > 0 && pmm_reserve(want) < 0)
        want /= 2;
    for (i = 0; bufs && hash && i < want; i++) {
        bufs[i].unit = -1;
        bufs[i].next = lru.next;
        bufs[i].prev = &lru;
        lru.next->prev = &bufs[i];
        lru.next = &bufs[i];
    }
    nbuf = i;
    if (nbuf < want)
        pmm_unreserve(want - nbuf, 0);  /* at boot: root's (slot 0) */
    kprintf("bcache: %u KiB\n", nbuf * (BLK_SIZE / 1024));
}

static unsigned hash_of(int unit, uint32_t block)
{
    return (block * 31 + unit) % nhash;
}

static struct buf *lookup(int unit, uint32_t block)
{
    struct buf *b;

    for (b = hash[hash_of(unit, block)]; b; b = b->hnext)
        if (b->unit == unit && b->block == block)
            return b;
    return NULL;
}

static void unhash(struct buf *b)
{
    struct buf **pp;

    if (b->unit < 0)
        return;
    for (pp = &hash[hash_of(b->unit, b->block)]; *pp; pp = &(*pp)->hnext) {
        if (*pp == b) {
            *pp = b->hnext;
            return;
        }
    }
}

/* Most recently used now. */
static void touch(struct buf *b)
{
    b->prev->next = b->next;
    b->next->prev = b->prev;
    b->next = lru.next;
    b->prev = &lru;
    lru.next->prev = b;
    lru.next = b;
}

/* b now holds (unit, block), not read yet. A buffer gets its page the
 * first time it holds a block (one of the pages bcache_init reserved). */
static void rename_buf(struct buf *b, int unit, uint32_t block)
{
    if (!b->data)
        b->data = page_alloc_reserved(0);
    unhash(b);
    b->unit = unit;
    b->block = block;
    b->valid = b->dirty = 0;
    b->hnext = hash[hash_of(unit, block)];
    hash[hash_of(unit, block)] = b;
    touch(b);
}

/* Sleep on chan (interrupts are off) until a release wakes it. */
static void wait_for(void *chan)
{
    KASSERT(curproc() != NULL);         /* without processes nothing is ever busy */
    sleep_on(chan);
}

/* Give b back: whoever waits for it, or for any block, may go on. */
static void brelse(struct buf *b)
{
    uint32_t s = irq_save();

    b->busy = 0;
    if (b->wanted) {
        b->wanted = 0;
        wakeup(b);
    }
    if (lru_wanted) {
        lru_wanted = 0;
        wakeup(&lru);
    }
    irq_restore(s);
}

/* Bytes of block `block` that lie on the disk (the last one may be short). */
static uint32_t block_bytes(int unit, uint32_t block)
{
    uint32_t left = ata_sectors(unit) - block * BLK_SECTORS;

    return (left < BLK_SECTORS ? left : BLK_SECTORS) * SECTOR;
}

/* One disk command for run[0..n), consecutive blocks of one unit. */
static int transfer(struct buf **run, uint32_t n, int write)
{
    char *pages[ATA_MAX_PAGES];
    uint32_t i, sectors = 0;

    for (i = 0; i < n; i++) {
        pages[i] = run[i]->data;
        sectors += block_bytes(run[i]->unit, run[i]->block) / SECTOR;
    }
    return ata_io(run[0]->unit, run[0]->block * BLK_SECTORS, sectors, pages, write);
}

/* Write b (busy, dirty) back, with the dirty blocks that follow it and
 * that nobody owns, in one command. A failed write is said on the
 * console (the unit and the block) and its blocks stay dirty, the most
 * recently used: a sync tries them again, an eviction once the others
 * have gone before them; the caller has the error. */
static int write_run(struct buf *b)
{
    struct buf *run[ATA_MAX_PAGES], *nb;
    uint32_t n = 1, i, s = irq_save();
    int err;

    run[0] = b;
    while (n < ATA_MAX_PAGES && (nb = lookup(b->unit, b->block + n)) && nb->dirty && !nb->busy) {
        nb->busy = 1;
        run[n++] = nb;
    }
    irq_restore(s);
    /* failnth(FAILNTH_WRITES | n) counts this too: the disk fails the
     * command, writing nothing (a filesystem's own writes only fill the
     * cache and never fail here: its last reference's sync does). */
    err = fault_inject_write("disk write-back") ? -EIO : transfer(run, n, 1);
    if (err < 0) /* (said each time: the blocks stay dirty, tried again) */
        kprintf("bcache: hd%d: write of block %u (%u block%s of %u bytes) failed (error %d): "
                "kept dirty\n",
                b->unit, b->block, n, n == 1 ? "" : "s", BLK_SIZE, err);
    s = irq_save();
    for (i = 0; i < n; i++) {
        if (err == 0)
            run[i]->dirty = 0;
        else
            touch(run[i]); /* kept, and the last an eviction tries again (bget) */
    }
    irq_restore(s);
    for (i = 1; i < n; i++)
        brelse(run[i]);
    return err;
}

/* The buffer for (unit, block), busy (ours), valid or not: the caller
 * reads it in if it needs its bytes. Sleeps while another process owns it
 * or while every buffer is busy. A dirty block the disk refuses to take
 * back is kept (dirty) and made the most recently used, and another is
 * tried: a block a dead disk will never take would otherwise stay the
 * least recently used and fail every miss of every disk. NULL (and *err)
 * once EVICT_TRIES of them failed in one call. */
#define EVICT_TRIES 4

static struct buf *bget(int unit, uint32_t block, int *err)
{
    uint32_t s = irq_save();
    struct buf *b;
    int failed = 0;

    for (;;) {
        if ((b = lookup(unit, block))) {
            if (!b->busy)
                break;
            b->wanted = 1;
            wait_for(b);
            continue;                   /* it may be another block's by now */
        }
        for (b = lru.prev; b != &lru && b->busy; b = b->prev)
            ;
        if (b == &lru) {
            lru_wanted = 1;
            wait_for(&lru);
            continue;
        }
        if (!b->dirty) {
            rename_buf(b, unit, block);
            break;
        }
        b->busy = 1;                    /* evict a dirty block: write it back first */
        irq_restore(s);
        *err = write_run(b);
        brelse(b);
        if (*err < 0 && ++failed >= EVICT_TRIES)
            return NULL;
        s = irq_save();
    }
    b->busy = 1;
    touch(b);
    irq_restore(s);
    return b;
}

/* Read b (busy, not valid) from the disk, and with it the blocks after it
 * that are not cached yet if the reads look sequential (read-ahead): each
 * takes the least recently used clean buffer nobody owns. */
static int fill(struct buf *b)
{
    struct buf *run[ATA_MAX_PAGES], *nb = NULL;
    uint32_t n = 1, i, disk_blocks, want, s = irq_save();
    int unit = b->unit, err;

    disk_blocks = (ata_sectors(unit) + BLK_SECTORS - 1) / BLK_SECTORS;
    want = b->block == ra[unit].next ? 2 * ra[unit].window : RA_MIN;
    want = want < RA_MIN ? RA_MIN : want > ATA_MAX_PAGES ? ATA_MAX_PAGES : want;
    ra[unit].window = want;
    run[0] = b;
    while (n < want && b->block + n < disk_blocks && !lookup(unit, b->block + n)) {
        for (nb = lru.prev; nb != &lru && (nb->busy || nb->dirty); nb = nb->prev)
            ;
        if (nb == &lru)
            break;
        rename_buf(nb, unit, b->block + n);
        nb->busy = 1;
        run[n++] = nb;
    }
    /* Blocks cached already right after the run (ext2's mount check reads
     * a file's indirect blocks, and a few after each): a sequential reader
     * hits them and misses next past them, and that still continues it. */
    ra[unit].next = b->block + n;
    for (i = 0; i < ATA_MAX_PAGES && lookup(unit, ra[unit].next); i++)
        ra[unit].next++;
    irq_restore(s);
    err = transfer(run, n, 0);
    for (i = 0; i < n; i++) {
        run[i]->valid = err == 0;
        if (i > 0)
            brelse(run[i]);
    }
    return err;
}

/* Clip a transfer to the disk; -ENXIO if there is no disk. */
static int clip(int unit, uint32_t off, uint32_t *n)
{
    uint32_t size = ata_sectors(unit) * SECTOR;

    if (!size || !nbuf)
        return -ENXIO;
    if (off >= size)
        *n = 0;
    else if (*n > size - off)
        *n = size - off;
    return 0;
}

int blk_read(int unit, void *buf, uint32_t off, uint32_t n)
{
    uint32_t done = 0;
    int err = 0;

    if ((err = clip(unit, off, &n)) < 0)
        return err;
    while (done < n) {
        uint32_t in = (off + done) % BLK_SIZE, chunk = BLK_SIZE - in;
        struct buf *b = bget(unit, (off + done) / BLK_SIZE, &err);
        if (!b || (!b->valid && (err = fill(b)) < 0)) {
            if (b)
                brelse(b);
            return done ? (int)done : err;
        }
        if (chunk > n - done)
            chunk = n - done;
        memcpy((char *)buf + done, b->data + in, chunk);
        brelse(b);
        done += chunk;
    }
    return (int)done;
}

int blk_write(int unit, const void *buf, uint32_t off, uint32_t n)
{
    uint32_t done = 0;
    int err = 0;

    if ((err = clip(unit, off, &n)) < 0)
        return err;
    if (n == 0)
        return -ENOSPC;
    while (done < n) {
        uint32_t block = (off + done) / BLK_SIZE, in = (off + done) % BLK_SIZE;
        uint32_t chunk = BLK_SIZE - in;
        struct buf *b;
        if (chunk > n - done)
            chunk = n - done;
        if (!(b = bget(unit, block, &err)))
            return done ? (int)done : err;
        /* Part of a block: the rest must come from the disk first. */
        if (!b->valid && !(in == 0 && chunk == block_bytes(unit, block)) && (err = fill(b)) < 0) {
            brelse(b);
            return done ? (int)done : err;
        }
        memcpy(b->data + in, (const char *)buf + done, chunk);
        b->valid = b->dirty = 1;
        brelse(b);
        done += chunk;
    }
    return (int)done;
}

/* Write back every dirty block of unit, a run at a time: first the runs
 * from their lowest block, then whatever is left (runs longer than one
 * command, blocks dirtied meanwhile); then make the drive put them on the
 * platter. */
int blk_sync(int unit)
{
    uint32_t i, s, pass;
    int err, ret = 0;

    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < nbuf; i++) {
            struct buf *b = &bufs[i], *p;
            s = irq_save();
            while (b->unit == unit && b->dirty && b->busy) {
                b->wanted = 1;
                wait_for(b);
            }
            if (b->unit != unit || !b->dirty ||
                (pass == 0 && b->block > 0 && (p = lookup(unit, b->block - 1)) && p->dirty)) {
                irq_restore(s);
                continue;
            }
            b->busy = 1;
            irq_restore(s);
            if ((err = write_run(b)) < 0)
                ret = err;
            brelse(b);
        }
    }
    if (ata_sectors(unit) && (err = ata_flush(unit)) < 0)
        ret = err;
    return ret;
}
