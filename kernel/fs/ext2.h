/* ext2.h - the on-disk format of the second extended filesystem, revision
 * 0 and 1 (from the ext2 specification by Dave Poirier and the e2fsprogs
 * documentation). Little-endian, like the i386: structs map bytes 1:1. */
#ifndef FS_EXT2_H
#define FS_EXT2_H

#include <stdint.h>

#define EXT2_MAGIC          0xEF53
#define EXT2_ROOT_INO       2
#define EXT2_SB_OFFSET      1024
#define EXT2_DYNAMIC_REV    1       /* revision 1: inode size and first inode in the sb */
#define EXT2_OLD_FIRST_INO  11      /* revision 0: inodes 1-10 are reserved */
#define EXT2_OLD_INODE_SIZE 128
#define EXT2_MAX_GROUPS     65536   /* Orthos's bound: 2 MiB of group descriptors */
#define EXT2_LINK_MAX       65000   /* links_count is 16 bits: stop well before it wraps */
#define EXT2_VALID_FS       1       /* s_state bits: cleanly unmounted (no writable instance) */
#define EXT2_ERROR_FS       2       /* errors found; without VALID e2fsck -p checks the image */
#define EXT2_NDIR           12      /* direct blocks */
#define EXT2_IND            12      /* i_block[] slots of the indirect trees */
#define EXT2_DIND           13
#define EXT2_TIND           14
#define EXT2_NBLOCKS        15

#define EXT2_COMPAT_RESIZE_INODE    0x0010  /* s_reserved_gdt_blocks follow each gdt copy */
#define EXT2_INCOMPAT_FILETYPE      0x0002
#define EXT2_RO_COMPAT_SPARSE_SUPER 0x0001
#define EXT2_RO_COMPAT_LARGE_FILE   0x0002
#define EXT2_RO_COMPAT_BTREE_DIR    0x0004
#define EXT2_INDEX_FL               0x00001000  /* hashed (htree) directory */

/* dirent file types (with INCOMPAT_FILETYPE) */
#define EXT2_FT_REG     1
#define EXT2_FT_DIR     2
#define EXT2_FT_CHR     3
#define EXT2_FT_BLK     4
#define EXT2_FT_FIFO    5
#define EXT2_FT_SOCK    6
#define EXT2_FT_SYMLINK 7

#define EXT2_S_IFSOCK 0140000     /* a type ext2 stores that Orthos has no use for */

struct ext2_super {
    uint32_t inodes_count, blocks_count, r_blocks_count;
    uint32_t free_blocks_count, free_inodes_count;
    uint32_t first_data_block, log_block_size, log_frag_size;
    uint32_t blocks_per_group, frags_per_group, inodes_per_group;
    uint32_t mtime, wtime;
    uint16_t mnt_count, max_mnt_count, magic, state, errors, minor_rev_level;
    uint32_t lastcheck, checkinterval, creator_os, rev_level;
    uint16_t def_resuid, def_resgid;
    /* revision 1 */
    uint32_t first_ino;
    uint16_t inode_size, block_group_nr;
    uint32_t feature_compat, feature_incompat, feature_ro_compat;
    uint8_t uuid[16];
    char volume_name[16], last_mounted[64];
    uint32_t algorithm_usage_bitmap;
    uint8_t prealloc_blocks, prealloc_dir_blocks;
    uint16_t reserved_gdt_blocks;   /* with COMPAT_RESIZE_INODE */
    uint8_t rest[1024 - 208];
} __attribute__((packed));

struct ext2_group {
    uint32_t block_bitmap, inode_bitmap, inode_table;
    uint16_t free_blocks_count, free_inodes_count, used_dirs_count, pad;
    uint32_t reserved[3];
};

struct ext2_inode {
    uint16_t mode, uid;
    uint32_t size, atime, ctime, mtime, dtime;
    uint16_t gid, links_count;
    uint32_t blocks;                /* 512-byte units, indirect blocks included */
    uint32_t flags, osd1;
    uint32_t block[EXT2_NBLOCKS];
    uint32_t generation, file_acl, size_high, faddr;
    uint8_t osd2[12];
};

#define EXT2_DIRENT_ALIGN 4         /* entries (rec_len) are multiples of 4 bytes */

struct ext2_dirent {
    uint32_t inode;
    uint16_t rec_len;
    uint8_t name_len, file_type;
    char name[];
} __attribute__((packed));

_Static_assert(sizeof(struct ext2_super) == 1024, "superblock layout");
_Static_assert(sizeof(struct ext2_group) == 32, "group descriptor layout");
_Static_assert(sizeof(struct ext2_inode) == 128, "inode layout");

#endif
