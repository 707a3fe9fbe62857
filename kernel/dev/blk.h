/* blk.h - the block cache between the disks and everything that reads
 * them (ext2 through /dev/hdN), and the disk driver below it. Byte
 * offsets on top, blocks of BLK_SIZE (a page: 8 sectors) inside, sectors
 * below. */
#ifndef DEV_BLK_H
#define DEV_BLK_H

#include <stdint.h>

#define SECTOR          512
#define BLK_SIZE        4096                    /* a cache block: one page */
#define BLK_SECTORS     (BLK_SIZE / SECTOR)
#define ATA_MAX_PAGES   32                      /* one disk command moves at most this */
#define ATA_MAX_SECTORS (ATA_MAX_PAGES * BLK_SECTORS)

void bcache_init(void);             /* sized from memory; ata_init calls it if there is a disk */
int blk_read(int unit, void *buf, uint32_t off, uint32_t n);
int blk_write(int unit, const void *buf, uint32_t off, uint32_t n);
int blk_sync(int unit);             /* write back every dirty block of unit */

/* nsect sectors at lba to or from pages[] (8 sectors a page, the last page
 * maybe fewer), in one command; the caller sleeps until the drive is done. */
int ata_io(int unit, uint32_t lba, uint32_t nsect, char *const *pages, int write);
uint32_t ata_sectors(int unit);
int ata_flush(int unit);
void ata_init(void);

#endif
