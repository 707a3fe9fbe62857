/* ext2.c - the second extended filesystem, read and write. fsopen("ext2",
 * fd) reads the image through any readable fd: a disk (/dev/hd1, through
 * the block cache) or a regular file holding an image - loop mounting for
 * free. Every change is written through to the source at once (bitmaps,
 * group descriptors, superblock counts, inodes), so the image is always
 * consistent for e2fsck once the device's cache is synced.
 * In memory each inode in use has one vnode (the inode cache), so attaching
 * things onto ext2 names works like on any filesystem. */
#include "dev/rtc.h"
#include "fs/ext2.h"
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "lib/kprintf.h"
#include "lib/string.h"
#include "mm/page.h"

struct ext2_fs {
    struct fs *fs;
    struct file *dev;
    struct ext2_super sb;
    struct ext2_group *groups;
    uint32_t bsize, ngroups, inode_size, ppb, gdt_block;
    int filetype;                   /* dirents carry a file type */
    struct ext2_node *nodes;        /* the inode cache */
};

struct ext2_node {
    struct ext2_inode raw;
    uint32_t ino;
    struct vnode *v;
    struct ext2_node *next;
};

static const struct vnode_ops ext2_ops;

#define E(v)        ((struct ext2_fs *)(v)->fs->priv)
#define N(v)        ((struct ext2_node *)(v)->priv)
#define SECTORS(e)  ((e)->bsize / 512)

/* ---------------------------------------------------------------- I/O */

/* Every disk access of an instance goes through these two. After revoke()
 * the source is gone (dropped by revoke), so they answer -EIO. */
static int dev_read(struct ext2_fs *e, uint32_t off, void *buf, uint32_t n)
{
    int r = e->fs->revoked ? -EIO : file_read_at(e->dev, buf, off, n);

    return r == (int)n ? 0 : r < 0 ? r : -EIO;
}

static int dev_write(struct ext2_fs *e, uint32_t off, const void *buf, uint32_t n)
{
    int r = e->fs->revoked ? -EIO : file_write_at(e->dev, buf, off, n);

    return r == (int)n ? 0 : r < 0 ? r : -EIO;
}

static int bread(struct ext2_fs *e, uint32_t blk, void *buf)
{
    if (blk == 0 || blk >= e->sb.blocks_count)
        return -EIO;                    /* a corrupt pointer: refuse, don't follow */
    return dev_read(e, blk * e->bsize, buf, e->bsize);
}

static int bwrite(struct ext2_fs *e, uint32_t blk, const void *buf)
{
    if (blk == 0 || blk >= e->sb.blocks_count)
        return -EIO;
    return dev_write(e, blk * e->bsize, buf, e->bsize);
}

static int bzero_block(struct ext2_fs *e, uint32_t blk)
{
    void *z = kzalloc(e->bsize);
    int err;

    if (!z)
        return -ENOMEM;
    err = bwrite(e, blk, z);
    kfree(z);
    return err;
}

static int write_super(struct ext2_fs *e)
{
    e->sb.wtime = rtc_now();
    return dev_write(e, EXT2_SB_OFFSET, &e->sb, sizeof(e->sb));
}

static int write_group(struct ext2_fs *e, uint32_t g)
{
    return dev_write(e, e->gdt_block * e->bsize + g * sizeof(struct ext2_group), &e->groups[g],
                     sizeof(struct ext2_group));
}

/* ---------------------------------------------------------------- bitmaps */

/* Find a clear bit among the first `count` of bitmap block `blk`, set it. */
static int take_bit(struct ext2_fs *e, uint32_t blk, uint32_t count, uint32_t *bit)
{
    uint8_t *map = kmalloc(e->bsize);
    uint32_t i;
    int err = -ENOSPC;

    if (!map)
        return -ENOMEM;
    if ((err = bread(e, blk, map)) < 0)
        goto out;
    err = -ENOSPC;
    for (i = 0; i < count && i < e->bsize * 8; i++) {
        if (!(map[i / 8] & (1 << (i % 8)))) {
            map[i / 8] |= 1 << (i % 8);
            *bit = i;
            err = bwrite(e, blk, map);
            break;
        }
    }
out:
    kfree(map);
    return err;
}

static int clear_bit(struct ext2_fs *e, uint32_t blk, uint32_t bit)
{
    uint8_t *map = kmalloc(e->bsize);
    int err;

    if (!map)
        return -ENOMEM;
    if ((err = bread(e, blk, map)) == 0) {
        map[bit / 8] &= ~(1 << (bit % 8));
        err = bwrite(e, blk, map);
    }
    kfree(map);
    return err;
}

/* A free block, preferably in group `goal`; not zeroed. */
static int balloc(struct ext2_fs *e, uint32_t goal, uint32_t *blk)
{
    uint32_t i, g, bit, count;
    int err;

    for (i = 0; i < e->ngroups; i++) {
        g = (goal + i) % e->ngroups;
        if (e->groups[g].free_blocks_count == 0)
            continue;
        count = e->sb.blocks_count - e->sb.first_data_block - g * e->sb.blocks_per_group;
        if (count > e->sb.blocks_per_group)
            count = e->sb.blocks_per_group;
        if ((err = take_bit(e, e->groups[g].block_bitmap, count, &bit)) == -ENOSPC)
            continue;
        if (err < 0)
            return err;
        e->groups[g].free_blocks_count--;
        e->sb.free_blocks_count--;
        *blk = e->sb.first_data_block + g * e->sb.blocks_per_group + bit;
        if ((err = write_group(e, g)) < 0 || (err = write_super(e)) < 0)
            return err;
        return 0;
    }
    return -ENOSPC;
}

static void bfree(struct ext2_fs *e, uint32_t blk)
{
    uint32_t g = (blk - e->sb.first_data_block) / e->sb.blocks_per_group;
    uint32_t bit = (blk - e->sb.first_data_block) % e->sb.blocks_per_group;

    if (blk < e->sb.first_data_block || blk >= e->sb.blocks_count || g >= e->ngroups)
        return;
    if (clear_bit(e, e->groups[g].block_bitmap, bit) < 0)
        return;
    e->groups[g].free_blocks_count++;
    e->sb.free_blocks_count++;
    write_group(e, g);
    write_super(e);
}

static int ialloc(struct ext2_fs *e, uint32_t goal, int dir, uint32_t *ino)
{
    uint32_t i, g, bit;
    int err;

    for (i = 0; i < e->ngroups; i++) {
        g = (goal + i) % e->ngroups;
        if (e->groups[g].free_inodes_count == 0)
            continue;
        if ((err = take_bit(e, e->groups[g].inode_bitmap, e->sb.inodes_per_group, &bit)) ==
            -ENOSPC)
            continue;
        if (err < 0)
            return err;
        *ino = g * e->sb.inodes_per_group + bit + 1;
        if (*ino < e->sb.first_ino) {   /* reserved inodes are never handed out */
            clear_bit(e, e->groups[g].inode_bitmap, bit);
            return -EIO;
        }
        e->groups[g].free_inodes_count--;
        e->groups[g].used_dirs_count += dir;
        e->sb.free_inodes_count--;
        if ((err = write_group(e, g)) < 0 || (err = write_super(e)) < 0)
            return err;
        return 0;
    }
    return -ENOSPC;
}

static void ifree(struct ext2_fs *e, uint32_t ino, int dir)
{
    uint32_t g = (ino - 1) / e->sb.inodes_per_group;

    if (clear_bit(e, e->groups[g].inode_bitmap, (ino - 1) % e->sb.inodes_per_group) < 0)
        return;
    e->groups[g].free_inodes_count++;
    e->groups[g].used_dirs_count -= dir;
    e->sb.free_inodes_count++;
    write_group(e, g);
    write_super(e);
}

/* ---------------------------------------------------------------- inodes */

static uint32_t inode_offset(struct ext2_fs *e, uint32_t ino)
{
    uint32_t g = (ino - 1) / e->sb.inodes_per_group, i = (ino - 1) % e->sb.inodes_per_group;

    return e->groups[g].inode_table * e->bsize + i * e->inode_size;
}

static int write_inode(struct ext2_fs *e, struct ext2_node *n)
{
    struct vnode *v = n->v;

    n->raw.mode = v->mode;
    n->raw.size = v->size;
    n->raw.links_count = v->nlink;
    n->raw.mtime = v->mtime;
    return dev_write(e, inode_offset(e, n->ino), &n->raw, sizeof(n->raw));
}

/* The vnode of inode `ino`, from the cache or read from disk. */
static int iget(struct ext2_fs *e, uint32_t ino, struct vnode **out)
{
    struct ext2_node *n;
    struct vnode *v;
    int err;

    if (ino == 0 || ino > e->sb.inodes_count)
        return -EIO;
    for (n = e->nodes; n; n = n->next) {
        if (n->ino == ino) {
            vnode_get(n->v);
            *out = n->v;
            return 0;
        }
    }
    if (!(n = kzalloc(sizeof(*n))))
        return -ENOMEM;
    if ((err = dev_read(e, inode_offset(e, ino), &n->raw, sizeof(n->raw))) < 0) {
        kfree(n);
        return err;
    }
    if (!(v = vnode_alloc(e->fs, n->raw.mode, &ext2_ops))) {
        kfree(n);
        return -ENOMEM;
    }
    n->ino = ino;
    n->v = v;
    v->priv = n;
    v->ino = ino;
    v->size = n->raw.size;
    v->nlink = n->raw.links_count;
    v->mtime = n->raw.mtime;
    if (S_ISCHR(v->mode) || S_ISBLK(v->mode))
        v->rdev = n->raw.block[0];
    n->next = e->nodes;
    e->nodes = n;
    *out = v;
    return 0;
}

/* ---------------------------------------------------------------- block map */

/* The disk block holding file block `lbn` of n (0 = a hole). With alloc,
 * missing blocks on the way are allocated; *fresh says the data block is
 * new (its old contents are garbage, the caller must fill all of it). */
static int bmap(struct ext2_fs *e, struct ext2_node *n, uint32_t lbn, int alloc, uint32_t *out,
                int *fresh)
{
    uint32_t idx[3], *slot, blk, tblk = 0, *tbl = NULL;
    uint32_t goal = (n->ino - 1) / e->sb.inodes_per_group;
    int levels, i, err = 0, root, changed = 0;

    *out = 0;
    if (fresh)
        *fresh = 0;
    if (lbn < EXT2_NDIR) {
        root = lbn;
        levels = 0;
    } else if ((lbn -= EXT2_NDIR) < e->ppb) {
        root = EXT2_IND;
        levels = 1;
        idx[0] = lbn;
    } else if ((lbn -= e->ppb) < e->ppb * e->ppb) {
        root = EXT2_DIND;
        levels = 2;
        idx[0] = lbn / e->ppb;
        idx[1] = lbn % e->ppb;
    } else if ((lbn -= e->ppb * e->ppb) / e->ppb / e->ppb < e->ppb) {
        root = EXT2_TIND;
        levels = 3;
        idx[0] = lbn / e->ppb / e->ppb;
        idx[1] = (lbn / e->ppb) % e->ppb;
        idx[2] = lbn % e->ppb;
    } else {
        return -EFBIG;
    }
    slot = &n->raw.block[root];
    for (i = 0;; i++) {
        if (!*slot) {
            if (!alloc)
                goto out;
            if ((err = balloc(e, goal, &blk)) < 0)
                goto out;
            if (i < levels && (err = bzero_block(e, blk)) < 0) {
                bfree(e, blk);
                goto out;
            }
            *slot = blk;
            n->raw.blocks += SECTORS(e);
            changed = 1;
            if (i == levels && fresh)
                *fresh = 1;
            if (tblk && (err = bwrite(e, tblk, tbl)) < 0)
                goto out;
        }
        if (i == levels)
            break;
        tblk = *slot;                   /* descend into the next table */
        if (!tbl && !(tbl = kmalloc(e->bsize))) {
            err = -ENOMEM;
            goto out;
        }
        if ((err = bread(e, tblk, tbl)) < 0)
            goto out;
        slot = &tbl[idx[i]];
    }
    *out = *slot;
out:
    kfree(tbl);
    if (changed) {                      /* i_block[] or i_blocks moved */
        int werr = write_inode(e, n);
        if (!err)
            err = werr;
    }
    return err;
}

/* ---------------------------------------------------------------- truncation */

/* Free a whole tree of `level` levels of indirection rooted at blk. */
static void free_tree(struct ext2_fs *e, struct ext2_node *n, uint32_t blk, int level)
{
    uint32_t *tbl, i;

    if (!blk)
        return;
    if (level > 0 && (tbl = kmalloc(e->bsize))) {
        if (bread(e, blk, tbl) == 0)
            for (i = 0; i < e->ppb; i++)
                free_tree(e, n, tbl[i], level - 1);
        kfree(tbl);
    }
    bfree(e, blk);
    n->raw.blocks -= SECTORS(e);
}

/* In the tree at *slot covering `span` file blocks per entry at this
 * level, keep the first `keep` file blocks and free the rest. */
static void trim_tree(struct ext2_fs *e, struct ext2_node *n, uint32_t *slot, int level,
                      uint32_t keep)
{
    uint32_t *tbl, i, span = 1;
    int j;

    if (!*slot)
        return;
    if (keep == 0) {
        free_tree(e, n, *slot, level);
        *slot = 0;
        return;
    }
    if (level == 0 || !(tbl = kmalloc(e->bsize)))
        return;
    for (j = 1; j < level; j++)
        span *= e->ppb;
    if (bread(e, *slot, tbl) == 0) {
        for (i = 0; i < e->ppb; i++) {
            uint32_t start = i * span;
            if (keep <= start)
                trim_tree(e, n, &tbl[i], level - 1, 0);
            else if (keep < start + span)
                trim_tree(e, n, &tbl[i], level - 1, keep - start);
        }
        bwrite(e, *slot, tbl);
    }
    kfree(tbl);
}

/* Keep the first `keep` blocks of n's data, free every other block. */
static void free_blocks_from(struct ext2_fs *e, struct ext2_node *n, uint32_t keep)
{
    uint32_t i, base = EXT2_NDIR, span = e->ppb;
    int level;

    for (i = keep; i < EXT2_NDIR; i++) {
        if (n->raw.block[i]) {
            bfree(e, n->raw.block[i]);
            n->raw.block[i] = 0;
            n->raw.blocks -= SECTORS(e);
        }
    }
    for (level = 1; level <= 3; level++) {
        trim_tree(e, n, &n->raw.block[EXT2_IND + level - 1], level, keep > base ? keep - base : 0);
        base += span;
        span *= e->ppb;
    }
}

/* ---------------------------------------------------------------- file data */

static int ext2_read(struct vnode *v, void *buf, uint32_t off, uint32_t n)
{
    struct ext2_fs *e = E(v);
    uint32_t done = 0, blk;
    char *tmp;
    int err = 0;

    if (off >= v->size)
        return 0;
    if (n > v->size - off)
        n = v->size - off;
    if (!(tmp = kmalloc(e->bsize)))
        return -ENOMEM;
    while (done < n) {
        uint32_t in = (off + done) % e->bsize, chunk = e->bsize - in;
        if (chunk > n - done)
            chunk = n - done;
        if ((err = bmap(e, N(v), (off + done) / e->bsize, 0, &blk, NULL)) < 0)
            break;
        if (!blk)
            memset(tmp, 0, e->bsize);   /* a hole reads as zeros */
        else if ((err = bread(e, blk, tmp)) < 0)
            break;
        memcpy((char *)buf + done, tmp + in, chunk);
        done += chunk;
    }
    kfree(tmp);
    return done ? (int)done : err;
}

static int ext2_write(struct vnode *v, const void *buf, uint32_t off, uint32_t n)
{
    struct ext2_fs *e = E(v);
    uint32_t done = 0, blk;
    char *tmp;
    int err = 0, fresh;

    if (off + n < off)
        return -EFBIG;
    if (!(tmp = kmalloc(e->bsize)))
        return -ENOMEM;
    while (done < n) {
        uint32_t in = (off + done) % e->bsize, chunk = e->bsize - in;
        if (chunk > n - done)
            chunk = n - done;
        if ((err = bmap(e, N(v), (off + done) / e->bsize, 1, &blk, &fresh)) < 0)
            break;
        if (chunk < e->bsize) {         /* part of a block: keep the rest */
            if (fresh)
                memset(tmp, 0, e->bsize);
            else if ((err = bread(e, blk, tmp)) < 0)
                break;
        }
        memcpy(tmp + in, (const char *)buf + done, chunk);
        if ((err = bwrite(e, blk, tmp)) < 0)
            break;
        done += chunk;
        if (off + done > v->size)
            v->size = off + done;
    }
    kfree(tmp);
    v->mtime = rtc_now();
    write_inode(e, N(v));
    return done ? (int)done : err;
}

static int ext2_truncate(struct vnode *v, uint32_t len)
{
    struct ext2_fs *e = E(v);
    uint32_t blk;
    char *tmp;

    if (len < v->size) {
        free_blocks_from(e, N(v), (len + e->bsize - 1) / e->bsize);
        /* Zero the tail of the last block, so growing again reads zeros. */
        if (len % e->bsize && bmap(e, N(v), len / e->bsize, 0, &blk, NULL) == 0 && blk &&
            (tmp = kmalloc(e->bsize))) {
            if (bread(e, blk, tmp) == 0) {
                memset(tmp + len % e->bsize, 0, e->bsize - len % e->bsize);
                bwrite(e, blk, tmp);
            }
            kfree(tmp);
        }
    }
    v->size = len;
    v->mtime = rtc_now();
    return write_inode(e, N(v));
}

/* ---------------------------------------------------------------- directories */

#define DIRENT_SIZE(len)    ((8 + (len) + 3) & ~3u)

/* Call fn on each entry of dir (stop when it returns non-zero). fn gets
 * the block buffer, so it may change it and ask for a write-back (2). */
typedef int (*dirent_fn)(struct ext2_dirent *d, struct ext2_dirent *prev, void *arg);

static int dir_scan(struct ext2_fs *e, struct vnode *dir, dirent_fn fn, void *arg)
{
    uint32_t lbn, blk, off;
    char *buf = kmalloc(e->bsize);
    int r = 0;

    if (!buf)
        return -ENOMEM;
    for (lbn = 0; r == 0 && lbn < dir->size / e->bsize; lbn++) {
        struct ext2_dirent *prev = NULL;
        if ((r = bmap(e, N(dir), lbn, 0, &blk, NULL)) < 0 || !blk ||
            (r = bread(e, blk, buf)) < 0)
            break;
        for (off = 0; off + 8 <= e->bsize && r == 0;) {
            struct ext2_dirent *d = (struct ext2_dirent *)(buf + off);
            if (d->rec_len < 8 || off + d->rec_len > e->bsize || d->name_len + 8u > d->rec_len) {
                r = -EIO;               /* a damaged directory: stop, don't guess */
                break;
            }
            r = fn(d, prev, arg);
            prev = d;
            off += d->rec_len;
        }
        if (r == 2)
            r = bwrite(e, blk, buf) < 0 ? -EIO : 1;
    }
    kfree(buf);
    return r < 0 ? r : 0;
}

struct find {
    const char *name;
    size_t len;
    uint32_t ino;
    int remove;
};

static int find_fn(struct ext2_dirent *d, struct ext2_dirent *prev, void *arg)
{
    struct find *f = arg;

    if (!d->inode || d->name_len != f->len || memcmp(d->name, f->name, f->len) != 0)
        return 0;
    f->ino = d->inode;
    if (!f->remove)
        return 1;
    if (prev)
        prev->rec_len += d->rec_len;    /* the previous entry swallows this one */
    else
        d->inode = 0;                   /* first in its block: just mark it unused */
    return 2;
}

static int dir_find(struct ext2_fs *e, struct vnode *dir, const char *name, int remove,
                    uint32_t *ino)
{
    struct find f = { name, strlen(name), 0, remove };
    int err = dir_scan(e, dir, find_fn, &f);

    if (err < 0)
        return err;
    if (!f.ino)
        return -ENOENT;
    *ino = f.ino;
    return 0;
}

static uint8_t file_type(uint32_t mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG: return EXT2_FT_REG;
    case S_IFDIR: return EXT2_FT_DIR;
    case S_IFCHR: return EXT2_FT_CHR;
    case S_IFBLK: return EXT2_FT_BLK;
    case S_IFIFO: return EXT2_FT_FIFO;
    case S_IFLNK: return EXT2_FT_SYMLINK;
    }
    return 0;
}

struct add {
    const char *name;
    size_t len;
    uint32_t ino;
    uint8_t type;
    int done;
};

static void fill_dirent(struct ext2_dirent *d, const struct add *a)
{
    d->inode = a->ino;
    d->name_len = a->len;
    d->file_type = a->type;
    memcpy(d->name, a->name, a->len);
}

/* Put the new entry into the slack of an existing one, if it fits. */
static int add_fn(struct ext2_dirent *d, struct ext2_dirent *prev, void *arg)
{
    struct add *a = arg;
    uint32_t used = d->inode ? DIRENT_SIZE(d->name_len) : 0;

    if (d->rec_len - used < DIRENT_SIZE(a->len))
        return 0;
    if (used) {
        struct ext2_dirent *n = (struct ext2_dirent *)((char *)d + used);
        n->rec_len = d->rec_len - used;
        d->rec_len = used;
        d = n;
    }
    fill_dirent(d, a);
    a->done = 1;
    return 2;
}

static int dir_add(struct ext2_fs *e, struct vnode *dir, const char *name, struct vnode *v)
{
    struct add a = { name, strlen(name), v->ino, e->filetype ? file_type(v->mode) : 0, 0 };
    uint32_t blk;
    char *buf;
    int err, fresh;

    if (a.len > NAME_MAX)
        return -ENAMETOOLONG;
    if (N(dir)->raw.flags & EXT2_INDEX_FL) {
        N(dir)->raw.flags &= ~EXT2_INDEX_FL;    /* we keep no htree: a plain list again */
        write_inode(e, N(dir));
    }
    if ((err = dir_scan(e, dir, add_fn, &a)) < 0 || a.done)
        return err;
    /* No room: a new block at the end of the directory. */
    if ((err = bmap(e, N(dir), dir->size / e->bsize, 1, &blk, &fresh)) < 0)
        return err;
    if (!(buf = kzalloc(e->bsize)))
        return -ENOMEM;
    ((struct ext2_dirent *)buf)->rec_len = e->bsize;
    fill_dirent((struct ext2_dirent *)buf, &a);
    err = bwrite(e, blk, buf);
    kfree(buf);
    dir->size += e->bsize;
    write_inode(e, N(dir));
    return err;
}

static int empty_fn(struct ext2_dirent *d, struct ext2_dirent *prev, void *arg)
{
    if (!d->inode || (d->name_len == 1 && d->name[0] == '.') ||
        (d->name_len == 2 && d->name[0] == '.' && d->name[1] == '.'))
        return 0;
    *(int *)arg = 0;
    return 1;
}

static int dir_is_empty(struct ext2_fs *e, struct vnode *dir)
{
    int empty = 1;

    return dir_scan(e, dir, empty_fn, &empty) < 0 ? 0 : empty;
}

static int dotdot_fn(struct ext2_dirent *d, struct ext2_dirent *prev, void *arg)
{
    if (d->name_len != 2 || d->name[0] != '.' || d->name[1] != '.')
        return 0;
    d->inode = *(uint32_t *)arg;
    return 2;
}

/* ---------------------------------------------------------------- vnode ops */

static int ext2_lookup(struct vnode *dir, const char *name, struct vnode **out)
{
    struct ext2_fs *e = E(dir);
    uint32_t ino;
    int err;

    if (strcmp(name, ".") == 0) {
        vnode_get(dir);
        *out = dir;
        return 0;
    }
    if ((err = dir_find(e, dir, name, 0, &ino)) < 0)
        return err;
    return iget(e, ino, out);
}

/* A new inode of `mode`, its vnode returned with one reference. */
static int new_inode(struct ext2_fs *e, struct vnode *dir, uint32_t mode, struct vnode **out)
{
    uint32_t ino, now = rtc_now();
    struct ext2_node *n;
    char *zero;
    int err;

    if ((err = ialloc(e, (N(dir)->ino - 1) / e->sb.inodes_per_group, S_ISDIR(mode), &ino)) < 0)
        return err;
    if ((zero = kzalloc(e->inode_size))) {  /* the whole slot: no stale extra fields */
        dev_write(e, inode_offset(e, ino), zero, e->inode_size);
        kfree(zero);
    }
    if ((err = iget(e, ino, out)) < 0) {
        ifree(e, ino, S_ISDIR(mode));
        return err;
    }
    n = N(*out);
    memset(&n->raw, 0, sizeof(n->raw));
    n->raw.atime = n->raw.ctime = now;
    (*out)->mode = mode;
    (*out)->size = 0;
    (*out)->nlink = 1;
    (*out)->mtime = now;
    return write_inode(e, n);
}

static int ext2_create(struct vnode *dir, const char *name, uint32_t mode, uint32_t rdev,
                       const char *symlink, struct vnode **out)
{
    struct ext2_fs *e = E(dir);
    struct vnode *v;
    uint32_t ino;
    int err;

    if (strlen(name) > NAME_MAX)
        return -ENAMETOOLONG;
    if (dir_find(e, dir, name, 0, &ino) == 0)
        return -EEXIST;
    if ((err = new_inode(e, dir, mode, &v)) < 0)
        return err;
    if (S_ISDIR(mode)) {
        struct add dot = { ".", 1, v->ino, e->filetype ? EXT2_FT_DIR : 0, 0 };
        struct add dotdot = { "..", 2, dir->ino, e->filetype ? EXT2_FT_DIR : 0, 0 };
        uint32_t blk;
        char *buf = kzalloc(e->bsize);
        struct ext2_dirent *d = (struct ext2_dirent *)buf;
        if (!buf) {
            err = -ENOMEM;
            goto undo;
        }
        d->rec_len = DIRENT_SIZE(1);
        fill_dirent(d, &dot);
        d = (struct ext2_dirent *)(buf + DIRENT_SIZE(1));
        d->rec_len = e->bsize - DIRENT_SIZE(1);
        fill_dirent(d, &dotdot);
        err = bmap(e, N(v), 0, 1, &blk, NULL);
        if (!err)
            err = bwrite(e, blk, buf);
        kfree(buf);
        if (err < 0)
            goto undo;
        v->size = e->bsize;
        v->nlink = 2;
        dir->nlink++;
        write_inode(e, N(dir));
    } else if (S_ISLNK(mode)) {
        size_t len = strlen(symlink);
        if (len < sizeof(N(v)->raw.block)) {
            memcpy(N(v)->raw.block, symlink, len);  /* a fast symlink */
            v->size = len;
        } else if ((err = ext2_write(v, symlink, 0, len)) < 0) {
            goto undo;
        }
    } else if (S_ISCHR(mode) || S_ISBLK(mode)) {
        N(v)->raw.block[0] = rdev;
        v->rdev = rdev;
    }
    write_inode(e, N(v));
    if ((err = dir_add(e, dir, name, v)) < 0)
        goto undo;
    *out = v;
    return 0;
undo:
    if (S_ISDIR(mode) && v->nlink == 2) {
        dir->nlink--;
        write_inode(e, N(dir));
    }
    v->nlink = 0;                       /* inactive frees blocks and inode */
    vnode_put(v);
    return err;
}

static int ext2_link(struct vnode *dir, const char *name, struct vnode *v)
{
    struct ext2_fs *e = E(dir);
    uint32_t ino;
    int err;

    if (dir_find(e, dir, name, 0, &ino) == 0)
        return -EEXIST;
    if (S_ISDIR(v->mode))
        return -EPERM;
    if (v->nlink >= 65000)
        return -EMLINK;
    if ((err = dir_add(e, dir, name, v)) < 0)
        return err;
    v->nlink++;
    return write_inode(e, N(v));
}

/* Check that `name` in dir may go, and return its vnode. */
static int victim(struct vnode *dir, const char *name, int flags, struct vnode **out)
{
    struct ext2_fs *e = E(dir);
    struct vnode *v;
    uint32_t ino;
    int err;

    if ((err = dir_find(e, dir, name, 0, &ino)) < 0 || (err = iget(e, ino, &v)) < 0)
        return err;
    err = 0;
    if (S_ISDIR(v->mode) && !(flags & UNLINK_DIR))
        err = -EISDIR;
    else if (!S_ISDIR(v->mode) && (flags & UNLINK_DIR))
        err = -ENOTDIR;
    else if (S_ISDIR(v->mode) && !dir_is_empty(e, v))
        err = -ENOTEMPTY;
    if (err) {
        vnode_put(v);
        return err;
    }
    *out = v;
    return 0;
}

/* Take the name away; the node goes when its last reference does. */
static int drop_name(struct vnode *dir, const char *name, struct vnode *v)
{
    struct ext2_fs *e = E(dir);
    uint32_t ino;
    int err;

    if ((err = dir_find(e, dir, name, 1, &ino)) < 0)
        return err;
    if (S_ISDIR(v->mode)) {
        v->nlink = 0;
        dir->nlink--;
        write_inode(e, N(dir));
    } else {
        v->nlink--;
    }
    v->mtime = rtc_now();
    return write_inode(e, N(v));
}

static int ext2_unlink(struct vnode *dir, const char *name, int flags)
{
    struct vnode *v;
    int err;

    if ((err = victim(dir, name, flags, &v)) < 0)
        return err;
    err = drop_name(dir, name, v);
    vnode_put(v);
    return err;
}

/* Is directory `anc` the same as, or above, directory `d`? */
static int is_above(struct ext2_fs *e, struct vnode *anc, struct vnode *d)
{
    uint32_t ino = d->ino, up;
    int depth;

    for (depth = 0; depth < 4096 && ino != EXT2_ROOT_INO; depth++) {
        struct vnode *v;
        if (ino == anc->ino)
            return 1;
        if (iget(e, ino, &v) < 0)
            return 0;
        up = dir_find(e, v, "..", 0, &up) == 0 ? up : EXT2_ROOT_INO;
        vnode_put(v);
        ino = up;
    }
    return ino == anc->ino;
}

static int ext2_rename(struct vnode *odir, const char *oname, struct vnode *ndir,
                       const char *nname, int flags)
{
    struct ext2_fs *e = E(odir);
    struct vnode *v, *old = NULL;
    uint32_t ino, nino;
    int err;

    if ((err = dir_find(e, odir, oname, 0, &ino)) < 0 || (err = iget(e, ino, &v)) < 0)
        return err;
    if (S_ISDIR(v->mode) && is_above(e, v, ndir)) {
        err = -EINVAL;                  /* a directory into itself */
        goto out;
    }
    if (dir_find(e, ndir, nname, 0, &nino) == 0) {
        if (nino == ino)
            goto out;                   /* the same node: nothing to do */
        if (flags & RENAME_NOREPLACE) {
            err = -EEXIST;
            goto out;
        }
        if ((err = victim(ndir, nname, S_ISDIR(v->mode) ? UNLINK_DIR : 0, &old)) < 0)
            goto out;
        if ((err = drop_name(ndir, nname, old)) < 0)
            goto out;
    }
    if ((err = dir_add(e, ndir, nname, v)) < 0 || (err = dir_find(e, odir, oname, 1, &ino)) < 0)
        goto out;
    if (S_ISDIR(v->mode) && odir != ndir) {
        uint32_t parent = ndir->ino;
        dir_scan(e, v, dotdot_fn, &parent);
        odir->nlink--;
        ndir->nlink++;
        write_inode(e, N(odir));
        write_inode(e, N(ndir));
    }
out:
    if (old)
        vnode_put(old);
    vnode_put(v);
    return err;
}

struct readdir_state {
    uint32_t target, pos;
    char *name;
    uint32_t *ino, *type;
    int found;
};

static int ext2_readdir(struct vnode *dir, uint32_t *cookie, char *name, uint32_t *ino,
                        uint32_t *type)
{
    static const uint8_t dt[] = { DT_UNKNOWN, DT_REG, DT_DIR, DT_CHR, DT_BLK, DT_FIFO,
                                  DT_UNKNOWN, DT_LNK };
    struct ext2_fs *e = E(dir);
    uint32_t lbn, blk, off;
    char *buf;

    if (!(buf = kmalloc(e->bsize)))
        return -ENOMEM;
    /* The cookie is the byte offset of the next entry in the directory. */
    while (*cookie < dir->size) {
        struct ext2_dirent *d;
        lbn = *cookie / e->bsize;
        off = *cookie % e->bsize;
        if (bmap(e, N(dir), lbn, 0, &blk, NULL) < 0 || !blk || bread(e, blk, buf) < 0)
            goto broken;
        d = (struct ext2_dirent *)(buf + off);
        if (d->rec_len < 8 || off + d->rec_len > e->bsize || d->name_len + 8u > d->rec_len)
            goto broken;
        *cookie += d->rec_len;
        if (!d->inode)
            continue;
        memcpy(name, d->name, d->name_len);
        name[d->name_len] = '\0';
        *ino = d->inode;
        *type = d->file_type < sizeof(dt) ? dt[d->file_type] : DT_UNKNOWN;
        kfree(buf);
        return 1;
    }
    kfree(buf);
    return 0;
broken:
    kfree(buf);
    return -EIO;                        /* a hole or a damaged entry: not the end */
}

static int ext2_readlink(struct vnode *v, char *buf, uint32_t n)
{
    if (!S_ISLNK(v->mode))
        return -EINVAL;
    if (n > v->size)
        n = v->size;
    if (N(v)->raw.blocks == 0 && v->size < sizeof(N(v)->raw.block)) {
        memcpy(buf, N(v)->raw.block, n);        /* a fast symlink */
        return (int)n;
    }
    return ext2_read(v, buf, 0, n);
}

/* The last reference: write the inode back, or free it if it has no name. */
static void ext2_inactive(struct vnode *v)
{
    struct ext2_fs *e = E(v);
    struct ext2_node *n = N(v), **pp;

    if (!v->fs->revoked) {
        if (v->nlink == 0) {
            if (!(S_ISLNK(v->mode) && n->raw.blocks == 0))
                free_blocks_from(e, n, 0);
            memset(n->raw.block, 0, sizeof(n->raw.block));
            n->raw.dtime = rtc_now();
            v->size = 0;
            write_inode(e, n);
            ifree(e, n->ino, S_ISDIR(v->mode));
        } else {
            write_inode(e, n);
        }
    }
    for (pp = &e->nodes; *pp; pp = &(*pp)->next) {
        if (*pp == n) {
            *pp = n->next;
            break;
        }
    }
    kfree(n);
    kfree(v);
}

static const struct vnode_ops ext2_ops = {
    .lookup = ext2_lookup,
    .create = ext2_create,
    .link = ext2_link,
    .unlink = ext2_unlink,
    .rename = ext2_rename,
    .read = ext2_read,
    .write = ext2_write,
    .truncate = ext2_truncate,
    .readdir = ext2_readdir,
    .readlink = ext2_readlink,
    .inactive = ext2_inactive,
};

/* ---------------------------------------------------------------- the filesystem */

static int ext2_mount(struct fs *fs, struct file *src, const char *opts)
{
    struct ext2_fs *e;
    uint32_t gd_bytes;
    int err = -EINVAL;

    if (!src)
        return -EINVAL;                 /* ext2 needs a disk or an image */
    if (!(e = kzalloc(sizeof(*e))))
        return -ENOMEM;
    e->fs = fs;
    e->dev = src;
    err = file_read_at(src, &e->sb, EXT2_SB_OFFSET, sizeof(e->sb));
    if (err >= 0 && (err != sizeof(e->sb) || e->sb.magic != EXT2_MAGIC))
        err = -EINVAL;                  /* too short, or not ext2 at all */
    if (err < 0)
        goto fail;
    err = -EINVAL;
    if (e->sb.log_block_size > 2 || e->sb.blocks_per_group == 0 ||
        e->sb.inodes_per_group == 0 || e->sb.blocks_count <= e->sb.first_data_block)
        goto fail;
    e->bsize = 1024u << e->sb.log_block_size;
    e->ppb = e->bsize / 4;
    e->inode_size = e->sb.rev_level ? e->sb.inode_size : 128;
    if (e->sb.rev_level == 0)
        e->sb.first_ino = 11;
    if (e->inode_size < 128 || e->inode_size > e->bsize || (e->inode_size & (e->inode_size - 1)))
        goto fail;
    if (e->sb.rev_level && (e->sb.feature_incompat & ~EXT2_INCOMPAT_FILETYPE)) {
        kprintf("ext2: %s: unsupported features (incompat 0x%x): not mounted\n",
                fs->source_name, e->sb.feature_incompat & ~EXT2_INCOMPAT_FILETYPE);
        goto fail;
    }
    if (e->sb.rev_level && (e->sb.feature_ro_compat & ~(EXT2_RO_COMPAT_SPARSE_SUPER |
                                                        EXT2_RO_COMPAT_LARGE_FILE |
                                                        EXT2_RO_COMPAT_BTREE_DIR)) &&
        !fs->readonly) {
        kprintf("ext2: %s: unsupported ro_compat features 0x%x: read-only\n", fs->source_name,
                e->sb.feature_ro_compat);
        fs->readonly = 1;
    }
    if (!(src->access & FA_WRITE))
        fs->readonly = 1;
    e->filetype = e->sb.rev_level && (e->sb.feature_incompat & EXT2_INCOMPAT_FILETYPE);
    e->ngroups = (e->sb.blocks_count - e->sb.first_data_block + e->sb.blocks_per_group - 1) /
                 e->sb.blocks_per_group;
    e->gdt_block = e->sb.first_data_block + 1;
    if ((uint64_t)e->ngroups * e->sb.inodes_per_group < e->sb.inodes_count || e->sb.first_ino < 2 ||
        e->sb.first_ino > e->sb.inodes_count)
        goto fail;                      /* inode numbers past the groups: a damaged image */
    gd_bytes = e->ngroups * sizeof(struct ext2_group);
    if (e->ngroups == 0 || e->ngroups > 65536 || !(e->groups = kmalloc(gd_bytes))) {
        err = e->ngroups ? -ENOMEM : -EINVAL;
        goto fail;
    }
    if ((err = dev_read(e, e->gdt_block * e->bsize, e->groups, gd_bytes)) < 0)
        goto fail;
    fs->priv = e;
    if ((err = iget(e, EXT2_ROOT_INO, &fs->root)) < 0)
        goto fail;
    if (!S_ISDIR(fs->root->mode)) {
        vnode_put(fs->root);
        err = -EINVAL;
        goto fail;
    }
    return 0;
fail:
    fs->priv = NULL;
    kfree(e->groups);
    kfree(e);
    return err;
}

/* Everything is written through already: push the device's cache out. */
static int ext2_sync(struct fs *fs)
{
    struct ext2_fs *e = fs->priv;

    return fs->revoked ? -EIO : file_sync(e->dev);
}

static void ext2_release(struct fs *fs)
{
    struct ext2_fs *e = fs->priv;

    vnode_put(fs->root);
    if (!fs->revoked)
        file_sync(e->dev);
    kfree(e->groups);
    kfree(e);
}

const struct fs_type ext2_type = {
    .name = "ext2",
    .mount = ext2_mount,
    .sync = ext2_sync,
    .release = ext2_release,
};
