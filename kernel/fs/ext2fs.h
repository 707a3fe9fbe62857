/* ext2fs.h - inside the ext2 driver: the instance (struct ext2_fs) and
 * the helpers ext2.c lends ext2check.c, the whole-disk check fsopen runs.
 * Only those two files include it; the on-disk format is ext2.h. */
#ifndef FS_EXT2FS_H
#define FS_EXT2FS_H

#include <stdint.h>
#include "fs/ext2.h"

struct fs;
struct file;
struct proc;
struct ext2_node;

struct ext2_fs {
    struct fs *fs;
    struct file *dev;
    struct ext2_super sb;               /* as on disk, with the free counts kept current */
    struct ext2_group *groups;
    uint32_t bsize, ngroups, inode_size, ppb;
    uint32_t gdt_block, gdt_blocks;     /* the descriptor table: where, how many blocks */
    uint32_t rsv_gdt;                   /* blocks reserved after each copy of it */
    uint32_t itb;                       /* inode table blocks per group */
    uint32_t first_ino;                 /* the first inode a file may have */
    uint32_t compat, incompat, ro_compat;   /* feature flags (none in revision 0) */
    int filetype;                       /* dirents carry a file type */
    int damaged;                        /* damage seen: nothing more is written */
    struct proc *holder;                /* the process inside the instance (fs_enter) */
    int holds;                          /* how deep it is nested; 0: nobody inside */
    uint32_t next_ticket, serving;      /* fs_enter's queue: next to give, next in */
    uint32_t walked;                    /* blocks walked, for walk_step's yields */
    struct ext2_node *nodes; /* the inode cache: iget (inside), inactive (never sleeps) */
    char *scratch;                      /* a block for scans and bitmaps: scratch_take */
    int scratch_busy;
    uint32_t *level_tbl[3];             /* map_walk, release_tree, cut_map: one per level */
    int free_failed;                    /* free_inode left something taken (give_back) */
    int sync_err;                       /* the last sync's error: the cache kept blocks */
    uint16_t mount_state;               /* s_state as the mount found it (close_image) */
    int closed;                         /* the image's last state written: no more writes */
};

#define SECTORS(e) ((e)->bsize / 512)

/* ext2.c's, for ext2check.c (each says what it does where it is) */
int dev_read(struct ext2_fs *e, uint32_t off, void *buf, uint32_t n);
int bread(struct ext2_fs *e, uint32_t blk, void *buf);
uint32_t group_start(struct ext2_fs *e, uint32_t g);
uint32_t group_meta(struct ext2_fs *e, uint32_t g);
int data_block(struct ext2_fs *e, uint32_t b);
uint32_t inode_offset(struct ext2_fs *e, uint32_t ino);
int dir_block_ok(struct ext2_fs *e, const char *buf);
int fast_symlink(struct ext2_fs *e, const struct ext2_inode *raw);
uint8_t file_type(uint32_t mode);
void walk_step(struct ext2_fs *e);

/* A visitor of one block of a block map (map_walk): `level` 0 a data
 * block, else a table of that many levels of indirection; lbn the first
 * file block it maps; up the table that names it, 0 for the inode. 0 to
 * go on; anything else stops the walk and is what the walk returns. */
typedef int (*map_visit)(void *arg, uint32_t blk, int level, uint32_t lbn, uint32_t up);
int map_walk(struct ext2_fs *e, uint32_t blk, int level, uint32_t lbn, uint32_t up, map_visit visit,
             void *arg);
int map_walk_inode(struct ext2_fs *e, const uint32_t *block, map_visit visit, void *arg);

/* ext2check.c: 0 consistent, 1 damage found (and said on the console), or -errno */
int ext2_check(struct ext2_fs *e);

#endif
