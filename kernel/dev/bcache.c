/* bcache.c - a write-back cache of disk sectors: NBUF buffers on an LRU
 * list, found through a small hash. Writes only dirty a buffer; the disk
 * sees them when the buffer is evicted, on sync(), on revoke() and when a
 * filesystem's last reference goes (both call the device's sync). */
#include "dev/blk.h"
#include "include/uapi/errno.h"
#include "lib/string.h"

#define SECTOR 512
#define NBUF   2048                    /* 1 MiB of cache */
#define NHASH  512

struct buf {
    int unit;                           /* -1: empty */
    uint32_t lba;
    int dirty;
    struct buf *hnext;                  /* hash chain */
    struct buf *prev, *next;            /* LRU: head is most recent */
    uint8_t data[SECTOR];
};

static struct buf bufs[NBUF];
static struct buf *hash[NHASH];
static struct buf lru;                  /* sentinel */
static int ready;

static void setup(void)
{
    int i;

    lru.next = lru.prev = &lru;
    for (i = 0; i < NBUF; i++) {
        bufs[i].unit = -1;
        bufs[i].next = lru.next;
        bufs[i].prev = &lru;
        lru.next->prev = &bufs[i];
        lru.next = &bufs[i];
    }
    ready = 1;
}

static unsigned hash_of(int unit, uint32_t lba)
{
    return (lba * 31 + unit) % NHASH;
}

static void unhash(struct buf *b)
{
    struct buf **pp;

    if (b->unit < 0)
        return;
    for (pp = &hash[hash_of(b->unit, b->lba)]; *pp; pp = &(*pp)->hnext) {
        if (*pp == b) {
            *pp = b->hnext;
            return;
        }
    }
}

static void touch(struct buf *b)
{
    b->prev->next = b->next;
    b->next->prev = b->prev;
    b->next = lru.next;
    b->prev = &lru;
    lru.next->prev = b;
    lru.next = b;
}

/* The buffer for (unit, lba), read from disk unless `whole` (the caller
 * will overwrite all of it). NULL on an I/O error. */
static struct buf *bget(int unit, uint32_t lba, int whole, int *err)
{
    struct buf *b;

    if (!ready)
        setup();
    for (b = hash[hash_of(unit, lba)]; b; b = b->hnext) {
        if (b->unit == unit && b->lba == lba) {
            touch(b);
            return b;
        }
    }
    b = lru.prev;                       /* least recently used */
    if (b->dirty && (*err = ata_rw(b->unit, b->lba, b->data, 1)) < 0)
        return NULL;
    unhash(b);
    b->dirty = 0;
    b->unit = -1;
    if (!whole && (*err = ata_rw(unit, lba, b->data, 0)) < 0)
        return NULL;
    b->unit = unit;
    b->lba = lba;
    b->hnext = hash[hash_of(unit, lba)];
    hash[hash_of(unit, lba)] = b;
    touch(b);
    return b;
}

/* Clip a transfer to the disk; -ENXIO if there is no disk. */
static int clip(int unit, uint32_t off, uint32_t *n)
{
    uint32_t size = ata_sectors(unit) * SECTOR;

    if (!size)
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
        uint32_t in = (off + done) % SECTOR, chunk = SECTOR - in;
        struct buf *b = bget(unit, (off + done) / SECTOR, 0, &err);
        if (!b)
            return done ? (int)done : err;
        if (chunk > n - done)
            chunk = n - done;
        memcpy((char *)buf + done, b->data + in, chunk);
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
        uint32_t in = (off + done) % SECTOR, chunk = SECTOR - in;
        struct buf *b;
        if (chunk > n - done)
            chunk = n - done;
        if (!(b = bget(unit, (off + done) / SECTOR, chunk == SECTOR, &err)))
            return done ? (int)done : err;
        memcpy(b->data + in, (const char *)buf + done, chunk);
        b->dirty = 1;
        done += chunk;
    }
    return (int)done;
}

int blk_sync(int unit)
{
    int i, err, ret = 0;

    for (i = 0; ready && i < NBUF; i++) {
        if (bufs[i].unit == unit && bufs[i].dirty) {
            if ((err = ata_rw(unit, bufs[i].lba, bufs[i].data, 1)) < 0)
                ret = err;
            else
                bufs[i].dirty = 0;
        }
    }
    if (ata_sectors(unit) && (err = ata_flush(unit)) < 0)
        ret = err;
    return ret;
}
