/* blk.h - the block cache between the disks and everything that reads
 * them (ext2 through /dev/hdN). Byte-addressed on top, sectors below. */
#ifndef DEV_BLK_H
#define DEV_BLK_H

#include <stdint.h>

int blk_read(int unit, void *buf, uint32_t off, uint32_t n);
int blk_write(int unit, const void *buf, uint32_t off, uint32_t n);
int blk_sync(int unit);             /* write back every dirty sector of unit */

int ata_rw(int unit, uint32_t lba, void *buf, int write);
uint32_t ata_sectors(int unit);
int ata_flush(int unit);
void ata_init(void);

#endif
