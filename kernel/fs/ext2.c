/* ext2.c - the second extended filesystem, read and write. fsopen("ext2",
 * fd) reads the image through any readable fd: a disk (/dev/hd1, through
 * the block cache) or a regular file holding an image - loop mounting for
 * free. Every change is written through to the source at once (bitmaps,
 * group descriptors, superblock counts, inodes), so the image is always
 * consistent for e2fsck once the device's cache is synced.
 * In memory each inode in use has one vnode (the inode cache), so attaching
 * things onto ext2 names works like on any filesystem.
 *
 * An image is input: whoever made it chose every byte. The mount bounds
 * every superblock and group descriptor field (an impossible geometry is
 * EINVAL); each inode, directory block and block pointer is checked when
 * it is used; whatever contradicts the rest (a block freed twice, a file
 * block inside an inode table, a broken directory entry) is damage: the
 * call fails with EUCLEAN and the instance writes nothing more, like
 * Linux's errors=remount-ro. What only a view of the whole disk shows
 * (two files sharing a block, a block in use marked free...) fsopen looks
 * for once, in ext2check.c: an image that has it is mounted read-only.
 * See doc/decisions.md, "ext2 images are input". */
#include "arch/x86/x86.h"
#include "dev/rtc.h"
#include "fs/ext2fs.h"
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "lib/fault.h"
#include "lib/kprintf.h"
#include "lib/string.h"
#include "mm/page.h"
#include "proc/proc.h"

#define WALK_YIELD    64               /* blocks a long walk handles between two yields */
#define LOG_BSIZE_MAX 2                /* blocks of 1, 2 or 4 KiB (ext2_mount) */

struct ext2_node {
    struct ext2_inode raw;
    uint32_t ino;
    uint32_t disk_links; /* links_count as the disk last took it (free_inode) */
    int big;             /* a regular file of 4 GiB or more: see node_new */
    struct vnode *v;
    struct ext2_node *next;
};

static const struct vnode_ops ext2_ops;

#define E(v) ((struct ext2_fs *)(v)->fs->priv)
#define N(v) ((struct ext2_node *)(v)->priv)

/* ---------------------------------------------------------------- the instance */

/* One process at a time inside an instance. Long walks yield the CPU
 * (walk_step), and meanwhile nobody else may change the blocks they hold
 * in their buffers. Re-entrant: an unlink ends in inactive, which frees.
 * First come, first served (a ticket each): a process that leaves and
 * comes straight back queues behind those already waiting, or one that
 * calls in a loop would keep the others out for good. A waiter never
 * gives its ticket up (a kill takes effect after the call), so the queue
 * cannot stall. */
static void fs_enter(struct ext2_fs *e)
{
    struct proc *me = curproc();
    uint32_t s = irq_save(), ticket;

    if (e->holds && e->holder == me) {
        e->holds++;
        irq_restore(s);
        return;
    }
    ticket = e->next_ticket++;
    while (e->holds || e->serving != ticket)
        sleep_on(e);
    e->holder = me;
    e->holds = 1;
    irq_restore(s);
}

static int fs_leave(struct ext2_fs *e, int ret)
{
    uint32_t s = irq_save();

    if (--e->holds == 0) {
        e->holder = NULL;
        e->serving++;
        wakeup(e);
    }
    irq_restore(s);
    return ret;
}

/* The instance's block buffer for directory scans and bitmap changes
 * (dir_scan, take_bit, clear_bit), taken at mount: an operation must not
 * run out of memory between its first change on the disk and its last,
 * or it stops half done (fuzz_oom found a rename that had added the new
 * name and could not take the old one away: two names, one link). One
 * process at a time is inside the instance (fs_enter), and none of the
 * three calls another while it holds the buffer, which this checks.
 * Freeing a file's blocks is the same: a tree of indirect blocks half
 * freed and still pointed at is freed twice later, so cut_map,
 * release_tree and map_sound (which comes first, and must not fail for
 * want of memory either: inactive would leave a nameless file allocated)
 * read the tables of level L into level_tbl[L - 1], also taken at mount
 * (they go from one level to the one below, never across). */
static char *scratch_take(struct ext2_fs *e)
{
    if (e->scratch_busy)
        panic("ext2: scratch block taken twice");
    e->scratch_busy = 1;
    return e->scratch;
}

static void scratch_give(struct ext2_fs *e)
{
    e->scratch_busy = 0;
}

/* Called for each block a walk visits (directories, freeing a file's
 * tree): every WALK_YIELD blocks, let the other processes run. */
void walk_step(struct ext2_fs *e)
{
    if (++e->walked % WALK_YIELD == 0 && curproc())
        yield();
}

/* The image contradicts itself. Say so once, and write nothing to it from
 * now on (every later change fails with EUCLEAN): a guess at a repair
 * could spread the damage to healthy files. Repair is e2fsck's job. */
static int damaged(struct ext2_fs *e, const char *what, uint32_t n)
{
    if (!e->damaged)
        kprintf("ext2: %s: damaged (%s %u): no more writes\n", e->fs->source_name, what, n);
    e->damaged = 1;
    return -EUCLEAN;
}

static int write_super(struct ext2_fs *e);

/* Mark the image's superblock "errors found" (EXT2_ERROR_FS, and not
 * valid), so that e2fsck -p checks it: after a leak (leaked) and after a
 * write the disk refused at the instance's end (close_image). It stays
 * so until e2fsck has checked the image: close_image gives VALID back
 * only to an image without ERROR. 0, or the disk's error. */
static int mark_error_fs(struct ext2_fs *e)
{
    e->sb.state = (e->sb.state & ~EXT2_VALID_FS) | EXT2_ERROR_FS;
    return write_super(e);
}

/* A write failed where only a leak follows (a free, or a count the disk
 * kept one too high), after the change the caller asked for was made: it
 * stands (unlink's name is gone, so unlink says 0, as on Linux). Say so
 * once, and mark the image (if the disk takes that write), so that
 * e2fsck -p gives the leak back; the instance writes on. */
static void leaked(struct ext2_fs *e, uint32_t ino)
{
    if (e->damaged || (e->sb.state & EXT2_ERROR_FS))
        return; /* (damaged said it, and writes nothing; a marked image - by an earlier leak, or
                 * before the mount, which said so - is checked by e2fsck -p already) */
    kprintf("ext2: %s: a write failed: inode %u leaks (e2fsck gives it back)\n",
            fs_source_name(e->fs), ino);
    mark_error_fs(e);
}

/* May this instance change its image? Every change asks first, and
 * dev_write asks again for each write, as the backstop. */
static int writable(struct ext2_fs *e)
{
    if (e->fs->revoked)
        return -EIO;
    if (e->fs->readonly || e->closed)
        return -EROFS; /* (closed: poweroff is under way, or a revoke) */
    return e->damaged ? -EUCLEAN : 0;
}

/* ---------------------------------------------------------------- I/O */

/* Every disk access of an instance goes through these two. After revoke()
 * the source is gone (dropped by revoke), so they answer -EIO. A read-only
 * or damaged instance never writes a byte: dev_write refuses. A write the
 * disk fails is no damage: the operation gives back what it took and
 * returns the error, the image as it was (bfree in balloc, unmap_fresh);
 * only when undoing fails too does the instance stop writing. */
int dev_read(struct ext2_fs *e, uint32_t off, void *buf, uint32_t n)
{
    int r = e->fs->revoked ? -EIO : file_read_at(e->dev, buf, off, n);

    return r == (int)n ? 0 : r < 0 ? r : -EIO;
}

static int dev_write(struct ext2_fs *e, uint32_t off, const void *buf, uint32_t n)
{
    int r = writable(e);

    if (r == 0 && fault_inject_write("disk write"))
        r = -EIO; /* failnth(FAILNTH_WRITES | n): the disk fails this one, writing nothing */
    if (r == 0)
        r = file_write_at(e->dev, buf, off, n);
    return r == (int)n ? 0 : r < 0 ? r : -EIO;
}

/* n bytes at byte `in` of block blk (whole blocks: bread, bwrite). The
 * block cache below takes any byte range, so file data goes straight
 * between it and the caller's buffer, and a block map lookup reads one
 * pointer, not its whole table. Callers have checked the block number
 * already (bitmaps at mount, pointers by check_ptr); the range test is a
 * last guard. */
static int bread_part(struct ext2_fs *e, uint32_t blk, uint32_t in, void *buf, uint32_t n)
{
    if (blk == 0 || blk >= e->sb.blocks_count)
        return -EIO;
    return dev_read(e, blk * e->bsize + in, buf, n);
}

static int bwrite_part(struct ext2_fs *e, uint32_t blk, uint32_t in, const void *buf, uint32_t n)
{
    if (blk == 0 || blk >= e->sb.blocks_count)
        return -EIO;
    return dev_write(e, blk * e->bsize + in, buf, n);
}

int bread(struct ext2_fs *e, uint32_t blk, void *buf)
{
    return bread_part(e, blk, 0, buf, e->bsize);
}

static int bwrite(struct ext2_fs *e, uint32_t blk, const void *buf)
{
    return bwrite_part(e, blk, 0, buf, e->bsize);
}

/* A new block's zeros (a data block's bytes around a write's, an
 * indirect block), written from here, not from a buffer allocated after
 * the block was taken: out of memory there, write_data left the block
 * mapped with a deleted file's bytes for the file's owner to read. */
static const char zero_block[1024u << LOG_BSIZE_MAX];

static int bzero_block(struct ext2_fs *e, uint32_t blk)
{
    return bwrite(e, blk, zero_block);
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

/* ---------------------------------------------------------------- layout */

/* Does group g hold a copy of the superblock and the descriptors? Every
 * group does, or with sparse_super only 0, 1 and the powers of 3, 5, 7. */
static int has_super(struct ext2_fs *e, uint32_t g)
{
    uint32_t base, x;

    if (g <= 1 || !(e->ro_compat & EXT2_RO_COMPAT_SPARSE_SUPER))
        return 1;
    for (base = 3; base <= 7; base += 2) {
        for (x = base; x < g; x *= base)
            ;
        if (x == g)
            return 1;
    }
    return 0;
}

uint32_t group_start(struct ext2_fs *e, uint32_t g)
{
    return e->sb.first_data_block + g * e->sb.blocks_per_group;
}

/* The blocks at the start of group g taken by the copies of the superblock
 * and descriptor table (with the blocks reserved for the table to grow). */
uint32_t group_meta(struct ext2_fs *e, uint32_t g)
{
    return has_super(e, g) ? 1 + e->gdt_blocks + e->rsv_gdt : 0;
}

/* May a file own block b? It must lie inside the filesystem and be none
 * of its own structures: boot block, superblock and descriptor copies,
 * bitmaps, inode tables. (check_groups made the groups' fields sane.) */
int data_block(struct ext2_fs *e, uint32_t b)
{
    const struct ext2_group *gd;
    uint32_t g;

    if (b == 0 || b < e->sb.first_data_block || b >= e->sb.blocks_count)
        return 0;
    g = (b - e->sb.first_data_block) / e->sb.blocks_per_group;
    gd = &e->groups[g];
    return b >= group_start(e, g) + group_meta(e, g) && b != gd->block_bitmap &&
           b != gd->inode_bitmap && b - gd->inode_table >= e->itb;
}

/* A block pointer read from an inode or an indirect block: 0 (a hole) or
 * a data block; anything else is damage. */
static int check_ptr(struct ext2_fs *e, uint32_t b)
{
    return b == 0 || data_block(e, b) ? 0 : damaged(e, "block pointer", b);
}

/* ---------------------------------------------------------------- bitmaps */

/* Find a clear bit among the first `count` of bitmap block `map` (of group
 * g) and set it. in_use(e, g, bit) vets the find: a clear bit that names
 * something in use (the inode table, a reserved inode) is damage, and then
 * nothing is written. */
static int take_bit(struct ext2_fs *e, uint32_t map, uint32_t g, uint32_t count,
                    int (*in_use)(struct ext2_fs *, uint32_t, uint32_t), uint32_t *bit)
{
    uint8_t *buf = (uint8_t *)scratch_take(e);
    uint32_t i;
    int err;

    if ((err = bread(e, map, buf)) < 0)
        goto out;
    err = -ENOSPC;
    for (i = 0; i < count; i++) {       /* count <= 8 * bsize: checked at mount */
        if (i % 8 == 0 && buf[i / 8] == 0xFF) {
            i += 7;                     /* a full byte: skip it whole */
            continue;
        }
        if (buf[i / 8] & (1 << (i % 8)))
            continue;
        if ((err = in_use(e, g, i)) == 0) {
            buf[i / 8] |= 1 << (i % 8);
            *bit = i;
            err = bwrite_part(e, map, i / 8, &buf[i / 8], 1);
        }
        break;
    }
out:
    scratch_give(e);
    return err;
}

/* Clear bit `bit` of bitmap block map. A bit already clear means the thing
 * is being freed twice: damage (`what` n says which). */
static int clear_bit(struct ext2_fs *e, uint32_t map, uint32_t bit, const char *what, uint32_t n)
{
    uint8_t *buf = (uint8_t *)scratch_take(e);
    int err;

    if ((err = bread(e, map, buf)) == 0) {
        if (!(buf[bit / 8] & (1 << (bit % 8)))) {
            err = damaged(e, what, n);
        } else {
            buf[bit / 8] &= ~(1 << (bit % 8));
            err = bwrite_part(e, map, bit / 8, &buf[bit / 8], 1);
        }
    }
    scratch_give(e);
    return err;
}

/* Set bit `bit` of bitmap block map again: a free whose descriptor the
 * disk refused is undone (bfree, ifree). */
static int set_bit_again(struct ext2_fs *e, uint32_t map, uint32_t bit)
{
    uint8_t *buf = (uint8_t *)scratch_take(e);
    int err;

    if ((err = bread(e, map, buf)) == 0) {
        buf[bit / 8] |= 1 << (bit % 8);
        err = bwrite_part(e, map, bit / 8, &buf[bit / 8], 1);
    }
    scratch_give(e);
    return err;
}

static int block_in_use(struct ext2_fs *e, uint32_t g, uint32_t bit)
{
    uint32_t b = group_start(e, g) + bit;

    return data_block(e, b) ? 0 : damaged(e, "metadata block marked free", b);
}

/* May the caller have one of the last r_blocks_count free blocks? The
 * superblock keeps them for its reserved user and group (root, as mke2fs
 * writes them), as Linux does: without that, a user filling a disk that
 * everyone writes to (/dev/hd1) left root not one block. The kernel
 * itself (no process) may too. */
static int may_take_reserved(const struct ext2_fs *e)
{
    const struct proc *p = curproc();

    return !p || p->uid == 0 || p->uid == e->sb.def_resuid || p->gid == e->sb.def_resgid;
}

static int bfree(struct ext2_fs *e, uint32_t b);

/* A free block, preferably in group `goal`; not zeroed. */
static int balloc(struct ext2_fs *e, uint32_t goal, uint32_t *blk)
{
    uint32_t i, g, bit, count;
    int err;

    if (e->sb.free_blocks_count <= e->sb.r_blocks_count && !may_take_reserved(e))
        return -ENOSPC;
    for (i = 0; i < e->ngroups; i++) {
        g = (goal + i) % e->ngroups;
        if (e->groups[g].free_blocks_count == 0)
            continue;
        count = e->sb.blocks_count - group_start(e, g);
        if (count > e->sb.blocks_per_group)
            count = e->sb.blocks_per_group;
        err = take_bit(e, e->groups[g].block_bitmap, g, count, block_in_use, &bit);
        if (err == -ENOSPC)
            continue;
        if (err < 0)
            return err;
        e->groups[g].free_blocks_count--;
        e->sb.free_blocks_count--;
        *blk = group_start(e, g) + bit;
        if ((err = write_group(e, g)) < 0 || (err = write_super(e)) < 0) {
            if (bfree(e, *blk) < 0) /* the disk failed: the bit and the counts as they were */
                damaged(e, "a write failed and so did its undoing: block", *blk);
            return err;
        }
        return 0;
    }
    return -ENOSPC;
}

/* Give block b back. Only a data block that is in use can go: freeing a
 * bitmap or inode-table block, or a block twice, is refused as damage -
 * the next balloc would hand it out and wreck a healthy file. If the disk
 * fails the group's descriptor, the bit is set again: the block stays
 * taken (named by nothing, when a file's blocks are freed: a leak), not
 * free with a count that says otherwise (e2fsck: "Free blocks count wrong
 * for group"). The superblock's count is a sum of the groups' that
 * e2fsck recomputes without complaint, and the next write_super sets it
 * right: a failure there is not the free's. */
static int bfree(struct ext2_fs *e, uint32_t b)
{
    uint32_t g, bit;
    int err;

    if (!data_block(e, b))
        return damaged(e, "freeing a non-data block", b);
    g = (b - e->sb.first_data_block) / e->sb.blocks_per_group;
    bit = (b - e->sb.first_data_block) % e->sb.blocks_per_group;
    if ((err = clear_bit(e, e->groups[g].block_bitmap, bit, "block freed twice", b)) < 0)
        return err;
    e->groups[g].free_blocks_count++;
    if ((err = write_group(e, g)) < 0) {
        e->groups[g].free_blocks_count--;
        if (set_bit_again(e, e->groups[g].block_bitmap, bit) < 0)
            damaged(e, "a write failed and so did its undoing: the count of block", b);
        return err;
    }
    e->sb.free_blocks_count++;
    write_super(e);
    return 0;
}

uint32_t inode_offset(struct ext2_fs *e, uint32_t ino)
{
    uint32_t g = (ino - 1) / e->sb.inodes_per_group, i = (ino - 1) % e->sb.inodes_per_group;

    return e->groups[g].inode_table * e->bsize + i * e->inode_size;
}

/* A clear bit in an inode bitmap must name a free inode: not a reserved
 * one, not one alive in the cache, not one with links on disk. */
static int inode_in_use(struct ext2_fs *e, uint32_t g, uint32_t bit)
{
    uint32_t ino = g * e->sb.inodes_per_group + bit + 1;
    struct ext2_inode raw;
    struct ext2_node *n;
    int err;

    if (ino < e->first_ino)
        return damaged(e, "reserved inode marked free", ino);
    for (n = e->nodes; n; n = n->next)
        if (n->ino == ino)
            return damaged(e, "inode in use marked free", ino);
    if ((err = dev_read(e, inode_offset(e, ino), &raw, sizeof(raw))) < 0)
        return err;
    return raw.links_count ? damaged(e, "inode with links marked free", ino) : 0;
}

static int ifree(struct ext2_fs *e, uint32_t ino, int dir);

static int ialloc(struct ext2_fs *e, uint32_t goal, int dir, uint32_t *ino)
{
    uint32_t i, g, bit;
    int err;

    /* Root's share of the inodes is its share of the blocks (balloc), or
     * a user making empty files until none was left kept root from
     * making any file on the disk: free/count <= r_blocks/blocks. */
    if ((uint64_t)e->sb.free_inodes_count * e->sb.blocks_count <=
            (uint64_t)e->sb.r_blocks_count * e->sb.inodes_count &&
        !may_take_reserved(e))
        return -ENOSPC;
    for (i = 0; i < e->ngroups; i++) {
        g = (goal + i) % e->ngroups;
        if (e->groups[g].free_inodes_count == 0)
            continue;
        err = take_bit(e, e->groups[g].inode_bitmap, g, e->sb.inodes_per_group, inode_in_use, &bit);
        if (err == -ENOSPC)
            continue;
        if (err < 0)
            return err;
        *ino = g * e->sb.inodes_per_group + bit + 1;
        e->groups[g].free_inodes_count--;
        e->groups[g].used_dirs_count += dir;
        e->sb.free_inodes_count--;
        if ((err = write_group(e, g)) < 0 || (err = write_super(e)) < 0) {
            if (ifree(e, *ino, dir) < 0) /* the disk failed: the bit and the counts as they were */
                damaged(e, "a write failed and so did its undoing: inode", *ino);
            return err;
        }
        return 0;
    }
    return -ENOSPC;
}

/* Give inode ino back; one that is free already is damage. A descriptor
 * the disk fails takes the bit back, as in bfree. */
static int ifree(struct ext2_fs *e, uint32_t ino, int dir)
{
    uint32_t g = (ino - 1) / e->sb.inodes_per_group, bit = (ino - 1) % e->sb.inodes_per_group;
    int err;

    if ((err = clear_bit(e, e->groups[g].inode_bitmap, bit, "inode freed twice", ino)) < 0)
        return err;
    e->groups[g].free_inodes_count++;
    e->groups[g].used_dirs_count -= dir;
    if ((err = write_group(e, g)) < 0) {
        e->groups[g].free_inodes_count--;
        e->groups[g].used_dirs_count += dir;
        if (set_bit_again(e, e->groups[g].inode_bitmap, bit) < 0)
            damaged(e, "a write failed and so did its undoing: the count of inode", ino);
        return err;
    }
    e->sb.free_inodes_count++;
    write_super(e);
    return 0;
}

/* ---------------------------------------------------------------- inodes */

static int write_inode(struct ext2_fs *e, struct ext2_node *n)
{
    struct vnode *v = n->v;
    int err;

    n->raw.mode = v->mode;
    n->raw.uid = v->uid;
    n->raw.gid = v->gid;
    if (!n->big) /* (a big file's size is the disk's, and stays) */
        n->raw.size = v->size;
    n->raw.links_count = v->nlink;
    n->raw.mtime = v->mtime;
    if ((err = dev_write(e, inode_offset(e, n->ino), &n->raw, sizeof(n->raw))) == 0)
        n->disk_links = v->nlink;
    return err;
}

/* A fast symlink keeps its text in i_block[] and owns no block (Linux's
 * test: i_blocks counts nothing but an extended-attribute block). */
int fast_symlink(struct ext2_fs *e, const struct ext2_inode *raw)
{
    return (raw->mode & S_IFMT) == S_IFLNK && raw->blocks == (raw->file_acl ? SECTORS(e) : 0);
}

/* Is inode ino, as read from disk, fit to use? A type ext2 knows, a name
 * (links), for a fast symlink a size its 60 bytes hold, and for a
 * directory a size of whole blocks that the inode can own (which bounds
 * every walk over it). */
static int check_inode(struct ext2_fs *e, uint32_t ino, const struct ext2_inode *raw)
{
    uint32_t type = raw->mode & S_IFMT, nblocks = raw->size / e->bsize;

    if (type != S_IFREG && type != S_IFDIR && type != S_IFLNK && type != S_IFCHR &&
        type != S_IFBLK && type != S_IFIFO && type != EXT2_S_IFSOCK)
        return damaged(e, "type of inode", ino);
    if (raw->links_count == 0)
        return damaged(e, "a name for the free inode", ino);
    if (fast_symlink(e, raw) && raw->size >= sizeof(raw->block))
        return damaged(e, "size of fast symlink", ino); /* its text is i_block[] */
    if (type == S_IFDIR && (raw->size % e->bsize || nblocks == 0 || nblocks > e->sb.blocks_count ||
                            nblocks > raw->blocks / SECTORS(e)))
        return damaged(e, "size of directory", ino);
    return 0;
}

/* A vnode for inode ino with contents raw, entered in the inode cache. */
static int node_new(struct ext2_fs *e, uint32_t ino, const struct ext2_inode *raw,
                    struct vnode **out)
{
    struct ext2_node *n;
    struct vnode *v;

    if (!(n = kzalloc(sizeof(*n))))
        return -ENOMEM;
    if (!(v = vnode_alloc(e->fs, raw->mode, &ext2_ops, 0))) {
        kfree(n);
        return -ENOMEM;
    }
    n->raw = *raw;
    n->ino = ino;
    n->disk_links = raw->links_count;
    n->v = v;
    v->priv = n;
    v->ino = ino;
    v->size = raw->size;
    /* A regular file of 4 GiB or more (the size's high word, i_size_high,
     * set: another system made it). Orthos's offsets and st_size are 32
     * bits: its size says the most they can, 4 GiB - 1, and its bytes
     * read as they are as far as an offset reaches; a write or a
     * truncation, which would have to store a size, is EFBIG. Its names
     * go like any file's (unlink frees it whole; rename, link). */
    if ((raw->mode & S_IFMT) == S_IFREG && raw->size_high) {
        n->big = 1;
        v->size = UINT32_MAX;
    }
    v->nlink = raw->links_count;
    v->mtime = raw->mtime;
    v->uid = raw->uid; /* the low 16 bits: ids above 65535 are refused */
    v->gid = raw->gid;
    if (S_ISCHR(v->mode) || S_ISBLK(v->mode))
        v->rdev = raw->block[0];
    n->next = e->nodes;
    e->nodes = n;
    *out = v;
    return 0;
}

/* The vnode of inode `ino` (named by a directory entry), from the cache or
 * read from disk and checked. */
static int iget(struct ext2_fs *e, uint32_t ino, struct vnode **out)
{
    struct ext2_inode raw;
    struct ext2_node *n;
    int err;

    for (n = e->nodes; n; n = n->next) {
        if (n->ino == ino) {
            vnode_get(n->v);
            *out = n->v;
            return 0;
        }
    }
    if (ino == 0 || ino > e->sb.inodes_count)
        return damaged(e, "inode number", ino);
    if ((err = dev_read(e, inode_offset(e, ino), &raw, sizeof(raw))) < 0 ||
        (err = check_inode(e, ino, &raw)) < 0)
        return err;
    return node_new(e, ino, &raw, out);
}

/* ---------------------------------------------------------------- block map */

/* Block b, met below the inode on a walk down its map (or in a direct
 * slot), repeats one of the inode's indirect roots or a block above it on
 * the path (path[0..depth-1]): a map that loops into itself. Followed, a
 * write to the file would land on its own block map, and the pointers
 * written there would send later writes into any other file's blocks. */
static int map_repeats(const struct ext2_node *n, uint32_t b, const uint32_t *path, int depth)
{
    int j;

    for (j = EXT2_IND; j <= EXT2_TIND; j++)
        if (b == n->raw.block[j])
            return 1;
    for (j = 0; j < depth; j++)
        if (b == path[j])
            return 1;
    return 0;
}

/* What one bmap took (struct fresh): the new blocks, the one nearest the
 * inode first, and where that one is named - i_block[root], or word idx
 * of an older table tbl - so that unmap_fresh can give them all back (below
 * the first, each is named only by the one before it). With `defer` (the
 * caller's), a new data block is not named by bmap (`unnamed`: the last
 * of blk[], to be named at word didx of dtbl, or i_block[root], by
 * name_fresh once the caller has filled it). */
struct fresh {
    uint32_t blk[4];
    int n; /* 0: nothing was taken, the data block is old */
    int root;
    uint32_t tbl, idx;
    int defer, unnamed;
    uint32_t dtbl, didx;
};

/* Give back what one bmap took: unname the first new block (a word of an
 * old table, or i_block[] with the inode written), write i_blocks, then
 * free them all. So a data block the disk failed to fill goes back, and
 * the file's map, i_blocks and the free counts are as before: no block
 * with another file's old bytes stays in the file, none leaks, none lies
 * past the size. If undoing fails too (the disk fails for good), nothing
 * is freed that a map may still name, and the instance writes no more. */
static void unmap_fresh(struct ext2_fs *e, struct ext2_node *n, struct fresh *fr)
{
    static const uint32_t none;
    int i, err = 0, werr = 0, named = fr->n - fr->unnamed;

    if (fr->n == 0)
        return;
    if (named) {
        n->raw.blocks -= named * SECTORS(e);
        if (fr->tbl)
            err = bwrite_part(e, fr->tbl, fr->idx * 4, &none, 4);
        else
            n->raw.block[fr->root] = 0;
        werr = err ? err : write_inode(e, n);
        if (werr < 0 && !fr->tbl)
            err = werr; /* still named by the inode on disk */
        if (err < 0) {
            n->raw.blocks += named * SECTORS(e);
            if (!fr->tbl)
                n->raw.block[fr->root] = fr->blk[0];
        }
    }
    for (i = 0; i < fr->n && err == 0; i++)
        err = bfree(e, fr->blk[i]);
    fr->n = fr->unnamed = 0;
    if (err < 0 || werr < 0)
        damaged(e, "a write failed and so did its undoing: blocks of inode", n->ino);
}

/* Name the new data block bmap left unnamed (fr->unnamed), now that the
 * caller has filled it: the inode first - its i_blocks, and the size the
 * caller set in memory (`was`: the size before), in one write that names
 * a direct block too - then an indirect table's word. So a disk that
 * fails for good leaves at worst an i_blocks too large and a size over a
 * hole (zeros), never a named block it did not fill: bmap used to name
 * it first, and a failed write and its failed undoing left a deleted
 * file's bytes past a file's size (e2fsck extends the size to them) or a
 * directory block never written. On failure the inode is as it was in
 * memory and on the disk (or the instance writes no more), and the caller
 * gives the blocks back (unmap_fresh). */
static int name_fresh(struct ext2_fs *e, struct ext2_node *n, struct fresh *fr, uint32_t was)
{
    uint32_t blk = fr->blk[fr->n - 1];
    int err, wrote;

    n->raw.blocks += SECTORS(e);
    if (!fr->dtbl)
        n->raw.block[fr->root] = blk;
    err = write_inode(e, n);
    wrote = err == 0;
    if (err == 0 && fr->dtbl)
        err = bwrite_part(e, fr->dtbl, fr->didx * 4, &blk, 4);
    if (err == 0) {
        fr->unnamed = 0;
        return 0;
    }
    n->raw.blocks -= SECTORS(e);
    if (!fr->dtbl)
        n->raw.block[fr->root] = 0;
    n->v->size = was;
    if (wrote && write_inode(e, n) < 0)
        damaged(e, "a write failed and so did its undoing: the size of inode", n->ino);
    return err;
}

/* The disk block holding file block `lbn` of n (0 = a hole). With alloc,
 * missing blocks on the way are allocated (tables zeroed before they are
 * named), and *fr (if not NULL) says what was taken: a new data block
 * holds garbage, the caller must fill all of it or give it back
 * (unmap_fresh). If any write fails, bmap gives back what it took itself.
 * Every pointer on the way is checked (check_ptr) before it is followed. */
static int bmap(struct ext2_fs *e, struct ext2_node *n, uint32_t lbn, int alloc, uint32_t *out,
                struct fresh *fr)
{
    uint32_t idx[3], path[4], blk, cur, tblk = 0;
    uint32_t goal = (n->ino - 1) / e->sb.inodes_per_group;
    int levels, i, err = 0, root, changed = 0;
    struct fresh mine;

    *out = 0;
    if (!fr) {
        fr = &mine;
        fr->defer = 0;
    }
    fr->n = fr->unnamed = 0;
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
    cur = n->raw.block[root];
    for (i = 0;; i++) { /* cur: the pointer at level i (in tblk, below the inode) */
        if ((err = check_ptr(e, cur)) < 0)
            goto out;
        if (cur && (i > 0 || levels == 0) && map_repeats(n, cur, path, i)) {
            err = damaged(e, "block map loops in inode", n->ino);
            goto out;
        }
        if (!cur) {
            if (!alloc)
                goto out;
            if ((err = balloc(e, goal, &blk)) < 0)
                goto out;
            if (i < levels && (err = bzero_block(e, blk)) < 0) {
                if (bfree(e, blk) < 0)
                    damaged(e, "a write failed and so did its undoing: block", blk);
                goto out;
            }
            if (fr->n == 0) { /* the first new block: where it is named */
                fr->root = root;
                fr->tbl = i ? tblk : 0;
                fr->idx = i ? idx[i - 1] : 0;
            }
            fr->blk[fr->n++] = blk;
            cur = blk;
            if (i == levels && fr->defer) { /* the caller fills it, then names it */
                fr->unnamed = 1;
                fr->dtbl = i ? tblk : 0;
                fr->didx = i ? idx[i - 1] : 0;
                break;
            }
            n->raw.blocks += SECTORS(e);
            changed = 1;
            if (i == 0)
                n->raw.block[root] = blk;
            else if ((err = bwrite_part(e, tblk, idx[i - 1] * 4, &blk, 4)) < 0)
                goto out;
        }
        if (i == levels)
            break;
        path[i] = tblk = cur; /* descend: read the one pointer we need */
        if ((err = bread_part(e, tblk, idx[i] * 4, &cur, 4)) < 0)
            goto out;
    }
    *out = cur;
out:
    if (changed && err == 0) /* i_block[] or i_blocks moved */
        err = write_inode(e, n);
    if (err < 0) {
        *out = 0;
        unmap_fresh(e, n, fr); /* the map as it was */
    }
    return err;
}

/* ---------------------------------------------------------------- truncation */

/* Freeing a file's blocks goes in the order a failing disk leaves safe
 * (cut_map): first nothing on the disk names them - the tables on the way
 * to the cut lose their later words, then the inode is written with its
 * new size, roots and i_blocks - and only then do they go back to the
 * bitmap (release_tree). A write the disk fails in the first part is
 * undone from memory, and the image is as it was; one it fails in the
 * second leaves that block taken and named by nothing: a leak, which
 * e2fsck gives back. Never the other way round: a block the bitmap calls
 * free while a map still names it is handed to the next file written,
 * and two files share it. */

/* Give back the tree of `level` levels of indirection at blk (level 0: a
 * data block), which nothing names any more. Its tables of level L are
 * read into level_tbl[L - 1]. A block the disk fails to free leaks, and
 * the rest go on: the first error is returned. A block can be freed only
 * once (bfree refuses the second time, as damage, and then nothing more
 * is written), so a tree that names a block twice ends too (map_sound has
 * refused one that loops before any of it is freed). */
static int release_tree(struct ext2_fs *e, uint32_t blk, int level)
{
    uint32_t *tbl, i;
    int err = 0, r;

    if (!blk)
        return 0;
    if (level > 0) {
        tbl = e->level_tbl[level - 1];
        if ((err = bread(e, blk, tbl)) < 0)
            return err; /* the tree leaks */
        for (i = 0; i < e->ppb && !e->damaged; i++)
            if ((r = release_tree(e, tbl[i], level - 1)) < 0 && !err)
                err = r;
    }
    if ((r = bfree(e, blk)) < 0 && !err)
        err = r;
    walk_step(e);
    return err;
}

/* Visit every block of the tree of `level` levels of indirection at blk
 * (level 0: blk is a data block), each table before the blocks it maps,
 * in file order; lbn is the first file block blk maps, up the table that
 * names it (0: the inode). The one walk down a block map that only reads:
 * map_sound's, and the mount's check's (ext2check.c). A visitor that goes
 * on past a table vouches for the pointer: the walk reads it as it is.
 * Tables of level L are read into level_tbl[L - 1] (the walk goes down
 * a level at a time, never across). */
int map_walk(struct ext2_fs *e, uint32_t blk, int level, uint32_t lbn, uint32_t up, map_visit visit,
             void *arg)
{
    uint32_t *tbl, i, span = 1;
    int j, r;

    if (!blk)
        return 0;
    if ((r = visit(arg, blk, level, lbn, up)) != 0 || level == 0)
        return r;
    walk_step(e);
    for (j = 1; j < level; j++)
        span *= e->ppb;
    tbl = e->level_tbl[level - 1]; /* not the heap: inactive's free may not fail */
    if ((r = bread(e, blk, tbl)) < 0)
        return r;
    for (i = 0; i < e->ppb; i++)
        if ((r = map_walk(e, tbl[i], level - 1, lbn + i * span, blk, visit, arg)) != 0)
            return r;
    return 0;
}

/* map_walk over a whole i_block[]: the direct blocks, then the single,
 * double and triple indirect trees. */
int map_walk_inode(struct ext2_fs *e, const uint32_t *block, map_visit visit, void *arg)
{
    uint32_t i, lbn = EXT2_NDIR, span = e->ppb;
    int level, r;

    for (i = 0; i < EXT2_NDIR; i++)
        if ((r = map_walk(e, block[i], 0, i, 0, visit, arg)) != 0)
            return r;
    for (level = 1; level <= 3; level++, lbn += span, span *= e->ppb)
        if ((r = map_walk(e, block[EXT2_IND + level - 1], level, lbn, 0, visit, arg)) != 0)
            return r;
    return 0;
}

struct sound {
    struct ext2_fs *e;
    struct ext2_node *n;
    uint32_t left; /* blocks i_blocks has yet to count */
    uint32_t keep; /* a cut after this many file blocks ... */
    uint32_t going; /* ... frees this many blocks: those that map only file blocks past it */
};

/* map_sound's visitor: a pointer that is a data block, not a table above
 * it or one of the inode's roots (a direct block neither), and no more
 * blocks named than i_blocks counts, which bounds the walk. A block whose
 * first file block is past the cut maps nothing before it: it goes. */
static int sound_visit(void *arg, uint32_t blk, int level, uint32_t lbn, uint32_t up)
{
    struct sound *s = arg;
    int err;

    (void)level;
    if ((up || level == 0) && map_repeats(s->n, blk, &up, up != 0))
        return damaged(s->e, "block map loops in inode", s->n->ino);
    if ((err = check_ptr(s->e, blk)) < 0)
        return err;
    if (s->left == 0)
        return damaged(s->e, "map larger than i_blocks in inode", s->n->ino);
    s->left--;
    s->going += lbn >= s->keep;
    return 0;
}

/* Does n's whole block map hold together (sound_visit on every block)?
 * Asked before anything of it is freed or written: freeing stops at the
 * first damage, and what it had freed would stay named by the inode on
 * disk (a damaged instance writes nothing more), for the next file
 * allocated on a new mount to take. *going: how many blocks a cut after
 * the first `keep` file blocks frees (cut_map's new i_blocks). 0 or
 * -EUCLEAN. */
static int map_sound(struct ext2_fs *e, struct ext2_node *n, uint32_t keep, uint32_t *going)
{
    struct sound s = { e, n, n->raw.blocks / SECTORS(e), keep, 0 };
    int err;

    if (s.left > e->sb.blocks_count)
        s.left = e->sb.blocks_count;
    err = map_walk_inode(e, n->raw.block, sound_visit, &s);
    *going = s.going;
    return err;
}

/* A table on the way down to a cut: its words from `first` on go. */
struct cut {
    uint32_t blk, first;
    int written;
};

/* Keep the first `keep` blocks of n's data and free every other block,
 * `going` of them (map_sound, asked first), writing the inode on the way
 * with what the caller changed in memory (size, dtime; `size` and `dtime`
 * are what they were, for a failure to put back). First the tables on
 * the way to the cut are read (at[L], level L's in level_tbl[L - 1],
 * where it stays) and their later words zeroed on the disk, from the
 * deepest up; then the inode is written, its later roots cleared and
 * i_blocks less `going`. If the disk fails one of those writes, the
 * tables are written back from memory: nothing changed (if that fails
 * too, the instance writes no more; the image has blocks that nothing
 * names, and an i_blocks too large). Then the blocks are freed, the
 * deepest table's first (a table of level L is read into level_tbl[L -
 * 1] no more once those below it are done). One the disk fails to free
 * leaks, and the others go on. Returns 0; or an error with the node and
 * the image as they were (*done 0); or an error with the cut made and
 * some blocks leaked (*done 1). */
static int cut_map(struct ext2_fs *e, struct ext2_node *n, uint32_t keep, uint32_t going,
                   uint32_t size, uint32_t dtime, int *done)
{
    struct cut at[4] = { { 0, 0, 0 } };
    uint32_t roots[EXT2_NBLOCKS], base = EXT2_NDIR, span = e->ppb, k, s, blk, i, *tbl;
    int level, L, err = 0, r;

    *done = 0;
    memcpy(roots, n->raw.block, sizeof(roots));
    for (i = keep; i < EXT2_NDIR; i++)
        n->raw.block[i] = 0;
    for (level = 1; level <= 3 && err == 0; level++, base += span, span *= e->ppb) {
        uint32_t *slot = &n->raw.block[EXT2_IND + level - 1];
        if (keep <= base) {
            *slot = 0;
            continue;
        }
        if (keep - base >= span || !*slot)
            continue;
        /* The cut is inside this tree: the tables on the way to it. */
        for (L = level, k = keep - base, blk = *slot, s = span / e->ppb; L >= 1 && blk;
             L--, s /= e->ppb) {
            if ((err = bread(e, blk, e->level_tbl[L - 1])) < 0)
                break;
            at[L].blk = blk;
            at[L].first = (k + s - 1) / s; /* the first word that maps nothing kept */
            if (k % s == 0)
                break; /* no table below the cut is kept */
            blk = e->level_tbl[L - 1][k / s];
            k %= s;
        }
    }
    for (L = 1; L <= 3 && err == 0; L++) {
        tbl = e->level_tbl[L - 1];
        for (i = at[L].first; at[L].blk && i < e->ppb && !tbl[i]; i++)
            ;
        if (!at[L].blk || i == e->ppb)
            continue; /* nothing named there past the cut */
        err = bwrite_part(e, at[L].blk, at[L].first * 4, zero_block, (e->ppb - at[L].first) * 4);
        at[L].written = err == 0;
    }
    n->raw.blocks -= going * SECTORS(e);
    if (err == 0)
        err = write_inode(e, n);
    if (err < 0) { /* nothing freed yet: everything as it was */
        for (L = 1; L <= 3; L++)
            if (at[L].written &&
                bwrite_part(e, at[L].blk, at[L].first * 4, e->level_tbl[L - 1] + at[L].first,
                            (e->ppb - at[L].first) * 4) < 0)
                damaged(e, "a write failed and so did its undoing: the map of inode", n->ino);
        memcpy(n->raw.block, roots, sizeof(roots));
        n->raw.blocks += going * SECTORS(e);
        n->v->size = size;
        n->raw.dtime = dtime;
        return err;
    }
    *done = 1; /* nothing names them now: free them */
    for (i = keep; i < EXT2_NDIR && !e->damaged; i++)
        if ((r = release_tree(e, roots[i], 0)) < 0 && !err)
            err = r;
    for (L = 1; L <= 3; L++)
        for (i = at[L].first; at[L].blk && i < e->ppb && !e->damaged; i++)
            if ((r = release_tree(e, e->level_tbl[L - 1][i], L - 1)) < 0 && !err)
                err = r;
    for (level = 1, base = EXT2_NDIR, span = e->ppb; level <= 3 && !e->damaged;
         level++, base += span, span *= e->ppb)
        if (keep <= base && (r = release_tree(e, roots[EXT2_IND + level - 1], level)) < 0 && !err)
            err = r;
    return err;
}

/* ---------------------------------------------------------------- file data */

/* File data goes straight between the block cache and buf (which may be
 * the user's own buffer: see transfer in sysfile.c). Blocks that lie one
 * after the other on the disk are read in one call. */
static int read_data(struct ext2_fs *e, struct vnode *v, void *buf, uint32_t off, uint32_t n)
{
    uint32_t done = 0, blk, next;
    int err = 0;

    if (off >= v->size)
        return 0;
    if (n > v->size - off)
        n = v->size - off;
    while (done < n) {
        uint32_t in = (off + done) % e->bsize, chunk = e->bsize - in;
        if (chunk > n - done)
            chunk = n - done;
        if ((err = bmap(e, N(v), (off + done) / e->bsize, 0, &blk, NULL)) < 0)
            break;
        if (!blk) {
            memset((char *)buf + done, 0, chunk); /* a hole reads as zeros */
            done += chunk;
            continue;
        }
        /* Grow the read while the next file block is the next disk block. */
        while (done + chunk < n && (in + chunk) % e->bsize == 0 &&
               bmap(e, N(v), (off + done + chunk) / e->bsize, 0, &next, NULL) == 0 &&
               next == blk + (in + chunk) / e->bsize)
            chunk += n - done - chunk < e->bsize ? n - done - chunk : e->bsize;
        if ((err = bread_part(e, blk, in, (char *)buf + done, chunk)) < 0)
            break;
        done += chunk;
    }
    return done ? (int)done : err;
}

static int truncate_data(struct ext2_fs *e, struct vnode *v, uint32_t len);

/* A new block that cannot be filled (the disk fails the zeros around the
 * write, or the write) goes back (unmap_fresh): left in the file, it
 * would hold a deleted file's bytes, or lie past the size. A new block is
 * named once it is filled, with the size it brings (name_fresh). Grown,
 * the file's new size is written last; if that fails, the file is cut
 * back to its old size (what it had gained goes, the tail is zeroed), and
 * the write counts only what it did below that size; if the cut fails
 * too, the instance writes no more. */
static int write_data(struct ext2_fs *e, struct vnode *v, const void *buf, uint32_t off, uint32_t n)
{
    uint32_t done = 0, blk, old = v->size, was;
    struct fresh fr = { .defer = 1 };
    int err;

    if ((err = writable(e)) < 0)
        return err;
    if (off + n < off)
        return -EFBIG;
    while (done < n) {
        uint32_t in = (off + done) % e->bsize, chunk = e->bsize - in;
        if (chunk > n - done)
            chunk = n - done;
        if ((err = bmap(e, N(v), (off + done) / e->bsize, 1, &blk, &fr)) < 0)
            break;
        was = v->size;
        if (off + done + chunk > v->size)
            v->size = off + done + chunk;
        if ((fr.n && chunk < e->bsize && (err = bzero_block(e, blk)) < 0) || /* the rest: zeros */
            (err = bwrite_part(e, blk, in, (const char *)buf + done, chunk)) < 0 ||
            (fr.unnamed && (err = name_fresh(e, N(v), &fr, was)) < 0)) {
            v->size = was;
            unmap_fresh(e, N(v), &fr);
            break;
        }
        done += chunk;
    }
    if (done) {
        v->mtime = rtc_now();
        if ((err = write_inode(e, N(v))) < 0 && v->size > old) {
            if (truncate_data(e, v, old) < 0 && v->size != old) /* the disk failing for good */
                damaged(e, "a write failed and so did its undoing: the size of inode", v->ino);
            done = off < old ? (old - off < done ? old - off : done) : 0;
        }
    }
    return done ? (int)done : err;
}

static int truncate_data(struct ext2_fs *e, struct vnode *v, uint32_t len)
{
    uint32_t blk = 0, going, was = v->size, in = len % e->bsize;
    char *tail = NULL;
    int err, done;

    if ((err = writable(e)) < 0)
        return err;
    if (len < v->size) {
        /* Zero the tail of the last block, so growing again reads zeros:
         * after the map is known sound and before freeing, for it may run
         * out of memory (the tail is kept, to be put back if the cut is
         * not made: a truncation that failed loses no byte; if the disk
         * fails that too, the instance writes no more), and freeing may
         * not. */
        if ((err = map_sound(e, N(v), (len + e->bsize - 1) / e->bsize, &going)) < 0)
            return err;
        if (in && (err = bmap(e, N(v), len / e->bsize, 0, &blk, NULL)) < 0)
            return err;
        if (in && blk) {
            if (!(tail = kmalloc(e->bsize)))
                return -ENOMEM;
            if ((err = bread_part(e, blk, in, tail, e->bsize - in)) == 0)
                err = bwrite_part(e, blk, in, zero_block, e->bsize - in);
            if (err < 0) {
                kfree(tail);
                return err;
            }
        }
        v->size = len;
        v->mtime = rtc_now();
        err = cut_map(e, N(v), (len + e->bsize - 1) / e->bsize, going, was, N(v)->raw.dtime, &done);
        if (err < 0 && done) {
            leaked(e, v->ino); /* the cut is made, the size is len: done, as unlink */
            err = 0;
        }
        if (err < 0 && !done && tail && bwrite_part(e, blk, in, tail, e->bsize - in) < 0)
            damaged(e, "a write failed and so did its undoing: the last block of inode", v->ino);
        kfree(tail);
        return err;
    }
    v->size = len;
    v->mtime = rtc_now();
    if ((err = write_inode(e, N(v))) < 0)
        v->size = was; /* as the disk has it */
    return err;
}

/* ---------------------------------------------------------------- directories */

/* The room an entry with a name of len bytes takes: the header and the
 * name, rounded up to EXT2_DIRENT_ALIGN. */
#define DIRENT_SIZE(len) \
    ((sizeof(struct ext2_dirent) + (len) + EXT2_DIRENT_ALIGN - 1) & ~(EXT2_DIRENT_ALIGN - 1u))

/* Is the entry at byte `off` of directory block buf whole and sane? Its
 * header inside the block; rec_len a multiple of 4 that ends inside the
 * block and holds the name; a used entry has a name without '/' or NUL
 * and names an inode that may have one (the root, or a non-reserved one). */
static int dirent_ok(struct ext2_fs *e, const char *buf, uint32_t off)
{
    const struct ext2_dirent *d = (const struct ext2_dirent *)(buf + off);
    uint32_t i;

    if (off + sizeof(*d) > e->bsize || d->rec_len < sizeof(*d) || d->rec_len % EXT2_DIRENT_ALIGN ||
        d->rec_len > e->bsize - off || DIRENT_SIZE(d->name_len) > d->rec_len ||
        (!e->filetype && d->file_type))
        return 0; /* (no filetype: that byte is name_len's high byte) */
    if (!d->inode)
        return 1;
    if (d->name_len == 0 || d->inode > e->sb.inodes_count ||
        (d->inode < e->first_ino && d->inode != EXT2_ROOT_INO))
        return 0;
    for (i = 0; i < d->name_len; i++)
        if (d->name[i] == '/' || d->name[i] == '\0')
            return 0;
    return 1;
}

/* Are the entries of a directory block all sane, and do they tile it
 * exactly? The one check of every reader and every writer of directory
 * blocks (dir_read, dir_write): the code past it trusts rec_len and
 * name_len. */
int dir_block_ok(struct ext2_fs *e, const char *buf)
{
    uint32_t off;

    for (off = 0; off < e->bsize; off += ((const struct ext2_dirent *)(buf + off))->rec_len)
        if (!dirent_ok(e, buf, off))
            return 0;
    return 1;
}

/* Block lbn of directory dir into buf, checked; *blk: where it lives. */
static int dir_read(struct ext2_fs *e, struct vnode *dir, uint32_t lbn, char *buf, uint32_t *blk)
{
    int err;

    walk_step(e);
    if ((err = bmap(e, N(dir), lbn, 0, blk, NULL)) < 0)
        return err;
    if (!*blk)
        return damaged(e, "hole in directory", dir->ino);
    if ((err = bread(e, *blk, buf)) < 0)
        return err;
    return dir_block_ok(e, buf) ? 0 : damaged(e, "entry in directory", dir->ino);
}

static int dir_write(struct ext2_fs *e, struct vnode *dir, uint32_t blk, const char *buf)
{
    if (!dir_block_ok(e, buf))
        return damaged(e, "entry about to be written in directory", dir->ino);
    return bwrite(e, blk, buf);
}

/* Call fn on each entry of dir until it says stop. fn gets the block
 * buffer, so it may change it and ask for the block to be written back.
 * The walk covers the directory's size, which check_inode bounded. */
enum scan { SCAN_ON, SCAN_STOP, SCAN_WRITE_STOP }; /* what a dirent_fn answers */
typedef enum scan (*dirent_fn)(struct ext2_dirent *d, struct ext2_dirent *prev, void *arg);

static int dir_scan(struct ext2_fs *e, struct vnode *dir, dirent_fn fn, void *arg)
{
    uint32_t lbn, blk, off;
    char *buf = scratch_take(e);
    int r = SCAN_ON; /* or -errno */

    for (lbn = 0; r == SCAN_ON && lbn < dir->size / e->bsize; lbn++) {
        struct ext2_dirent *prev = NULL, *d;
        if ((r = dir_read(e, dir, lbn, buf, &blk)) < 0)
            break;
        for (off = 0; off < e->bsize && r == SCAN_ON; off += d->rec_len) {
            d = (struct ext2_dirent *)(buf + off);
            r = fn(d, prev, arg);
            prev = d;
        }
        if (r == SCAN_WRITE_STOP && (r = dir_write(e, dir, blk, buf)) == 0)
            r = SCAN_STOP;
    }
    scratch_give(e);
    return r < 0 ? r : 0;
}

struct find {
    const char *name;
    size_t len;
    uint32_t ino;
    int remove;
};

static enum scan find_fn(struct ext2_dirent *d, struct ext2_dirent *prev, void *arg)
{
    struct find *f = arg;

    if (!d->inode || d->name_len != f->len || memcmp(d->name, f->name, f->len) != 0)
        return SCAN_ON;
    f->ino = d->inode;
    if (!f->remove)
        return SCAN_STOP;
    if (prev)
        prev->rec_len += d->rec_len; /* the previous entry swallows this one */
    else
        d->inode = 0; /* first in its block: just mark it unused */
    return SCAN_WRITE_STOP;
}

/* Find `name` in dir (and with remove, take it out): 0 and *ino, -ENOENT,
 * or the error that stopped the scan. */
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

struct set {
    const char *name;
    size_t len;
    uint32_t ino;
    uint8_t type;
    int done;
};

static enum scan set_fn(struct ext2_dirent *d, struct ext2_dirent *prev, void *arg)
{
    struct set *s = arg;

    (void)prev;
    if (!d->inode || d->name_len != s->len || memcmp(d->name, s->name, s->len) != 0)
        return SCAN_ON;
    d->inode = s->ino;
    d->file_type = s->type;
    s->done = 1;
    return SCAN_WRITE_STOP;
}

/* Make `name` in dir name v instead (its entry changed in place: one
 * write). 0, -ENOENT, or the error that stopped the scan. */
static int dir_set(struct ext2_fs *e, struct vnode *dir, const char *name, struct vnode *v);

/* The dirent type of an inode of this mode; 0 for none ext2 knows. */
uint8_t file_type(uint32_t mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG: return EXT2_FT_REG;
    case S_IFDIR: return EXT2_FT_DIR;
    case S_IFCHR: return EXT2_FT_CHR;
    case S_IFBLK: return EXT2_FT_BLK;
    case S_IFIFO: return EXT2_FT_FIFO;
    case S_IFLNK: return EXT2_FT_SYMLINK;
    case EXT2_S_IFSOCK: return EXT2_FT_SOCK;
    }
    return 0;
}

static int dir_set(struct ext2_fs *e, struct vnode *dir, const char *name, struct vnode *v)
{
    struct set st = { name, strlen(name), v->ino, e->filetype ? file_type(v->mode) : 0, 0 };
    int err = dir_scan(e, dir, set_fn, &st);

    return err < 0 ? err : st.done ? 0 : -ENOENT;
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

/* Put the new entry into the slack of an existing one, if it fits. The
 * block was checked, so used <= rec_len and the split stays inside it. */
static enum scan add_fn(struct ext2_dirent *d, struct ext2_dirent *prev, void *arg)
{
    struct add *a = arg;
    uint32_t used = d->inode ? DIRENT_SIZE(d->name_len) : 0;

    if (d->rec_len - used < DIRENT_SIZE(a->len))
        return SCAN_ON;
    if (used) {
        struct ext2_dirent *n = (struct ext2_dirent *)((char *)d + used);
        n->rec_len = d->rec_len - used;
        d->rec_len = used;
        d = n;
    }
    fill_dirent(d, a);
    a->done = 1;
    return SCAN_WRITE_STOP;
}

static int dir_add(struct ext2_fs *e, struct vnode *dir, const char *name, struct vnode *v)
{
    struct add a = { name, strlen(name), v->ino, e->filetype ? file_type(v->mode) : 0, 0 };
    struct fresh fr = { .defer = 1 };
    uint32_t blk, was = dir->size;
    char *buf;
    int err;

    if (a.len > NAME_MAX)
        return -ENAMETOOLONG;
    if (N(dir)->raw.flags & EXT2_INDEX_FL) {
        N(dir)->raw.flags &= ~EXT2_INDEX_FL; /* we keep no htree: a plain list again */
        if ((err = write_inode(e, N(dir))) < 0)
            return err;
    }
    if ((err = dir_scan(e, dir, add_fn, &a)) < 0 || a.done)
        return err;
    /* No room: a new block at the end of the directory (its buffer
     * first: no block is taken for a directory that then cannot grow). */
    if (!(buf = kzalloc(e->bsize)))
        return -ENOMEM;
    ((struct ext2_dirent *)buf)->rec_len = e->bsize;
    fill_dirent((struct ext2_dirent *)buf, &a);
    if ((err = bmap(e, N(dir), dir->size / e->bsize, 1, &blk, &fr)) == 0 &&
        (err = dir_write(e, dir, blk, buf)) == 0) {
        dir->size += e->bsize; /* the block and the size in one inode write (name_fresh) */
        if ((err = fr.unnamed ? name_fresh(e, N(dir), &fr, was) : write_inode(e, N(dir))) < 0)
            dir->size = was;
    }
    if (err < 0) /* (the disk failed the block or the size: the block goes back) */
        unmap_fresh(e, N(dir), &fr);
    kfree(buf);
    return err;
}

static enum scan empty_fn(struct ext2_dirent *d, struct ext2_dirent *prev, void *arg)
{
    if (!d->inode || (d->name_len == 1 && d->name[0] == '.') ||
        (d->name_len == 2 && d->name[0] == '.' && d->name[1] == '.'))
        return SCAN_ON;
    *(int *)arg = 0;
    return SCAN_STOP;
}

/* 1 if dir holds nothing but . and .., 0 if it holds more, or an error. */
static int dir_is_empty(struct ext2_fs *e, struct vnode *dir)
{
    int empty = 1, err = dir_scan(e, dir, empty_fn, &empty);

    return err < 0 ? err : empty;
}

static enum scan dotdot_fn(struct ext2_dirent *d, struct ext2_dirent *prev, void *arg)
{
    if (d->name_len != 2 || d->name[0] != '.' || d->name[1] != '.')
        return SCAN_ON;
    d->inode = *(uint32_t *)arg;
    return SCAN_WRITE_STOP;
}

static enum scan names_fn(struct ext2_dirent *d, struct ext2_dirent *prev, void *arg)
{
    uint32_t *ino = arg;

    (void)prev;
    if (!d->inode || d->inode != *ino || (d->name_len == 1 && d->name[0] == '.') ||
        (d->name_len == 2 && d->name[0] == '.' && d->name[1] == '.'))
        return SCAN_ON;
    *ino = 0; /* found */
    return SCAN_STOP;
}

/* dir's ".." entry names *up: is it really dir's parent - a directory
 * holding a name for dir? The VFS goes back up the way it came down, but
 * a walk from a cwd or a directory fd climbs by this entry, and an image
 * may say anything: a ".." that is not the parent could lead out of a
 * chroot. 0, or -EUCLEAN (and *up put). */
static int check_dotdot(struct ext2_fs *e, struct vnode *dir, struct vnode **up)
{
    uint32_t ino = dir->ino;
    int err;

    if (dir->ino == EXT2_ROOT_INO)
        return (*up)->ino == EXT2_ROOT_INO ? 0 : damaged(e, "'..' of the root: inode", (*up)->ino);
    if (!S_ISDIR((*up)->mode))
        err = damaged(e, "'..' is not a directory: inode", (*up)->ino);
    else if ((err = dir_scan(e, *up, names_fn, &ino)) == 0 && ino != 0)
        err = damaged(e, "'..' is not the parent: directory", dir->ino);
    if (err < 0) {
        vnode_put(*up);
        *up = NULL;
    }
    return err;
}

/* ---------------------------------------------------------------- vnode ops */

/* Each operation enters the instance (fs_enter) around its work, so that
 * what it reads cannot change while a long walk yields. */

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
    fs_enter(e);
    if ((err = dir_find(e, dir, name, 0, &ino)) == 0 && (err = iget(e, ino, out)) == 0 &&
        strcmp(name, "..") == 0)
        err = check_dotdot(e, dir, out);
    return fs_leave(e, err);
}

/* A new node that is not to be, when a write failed: no links, and its
 * last reference gives back its blocks and inode (free_inode). If the
 * disk fails that too (something is left taken), the instance writes no
 * more, as after any undoing the disk failed. */
static void give_back(struct ext2_fs *e, struct vnode *v)
{
    uint32_t ino = v->ino;

    v->nlink = 0;
    e->free_failed = 0;
    vnode_put(v);
    if (e->free_failed)
        damaged(e, "a write failed and so did its undoing: inode", ino);
}

/* A new inode of `mode`, its vnode returned with one reference. */
static int new_inode(struct ext2_fs *e, struct vnode *dir, uint32_t mode, struct vnode **out)
{
    struct ext2_inode raw;
    uint32_t ino;
    char *zero;
    int err;

    if ((err = ialloc(e, (N(dir)->ino - 1) / e->sb.inodes_per_group, S_ISDIR(mode), &ino)) < 0)
        return err;
    memset(&raw, 0, sizeof(raw));
    raw.mode = mode;
    raw.links_count = 0; /* until create_node has made it whole (see there) */
    raw.atime = raw.ctime = raw.mtime = rtc_now();
    if (!(zero = kzalloc(e->inode_size))) {
        err = -ENOMEM;
        goto undo;
    }
    err = dev_write(e, inode_offset(e, ino), zero, e->inode_size); /* no stale extra fields */
    kfree(zero);
    if (err < 0 || (err = node_new(e, ino, &raw, out)) < 0)
        goto undo;
    if ((err = write_inode(e, N(*out))) < 0)
        give_back(e, *out);
    return err;
undo:
    if (ifree(e, ino, S_ISDIR(mode)) < 0)
        damaged(e, "a write failed and so did its undoing: inode", ino);
    return err;
}

/* The first block of a new directory: "." and "..". */
static int make_dir_block(struct ext2_fs *e, struct vnode *dir, struct vnode *v)
{
    struct add dot = { ".", 1, v->ino, e->filetype ? EXT2_FT_DIR : 0, 0 };
    struct add dotdot = { "..", 2, dir->ino, e->filetype ? EXT2_FT_DIR : 0, 0 };
    char *buf = kzalloc(e->bsize);
    struct ext2_dirent *d = (struct ext2_dirent *)buf;
    uint32_t blk;
    int err;

    if (!buf)
        return -ENOMEM;
    d->rec_len = DIRENT_SIZE(1);
    fill_dirent(d, &dot);
    d = (struct ext2_dirent *)(buf + DIRENT_SIZE(1));
    d->rec_len = e->bsize - DIRENT_SIZE(1);
    fill_dirent(d, &dotdot);
    if ((err = bmap(e, N(v), 0, 1, &blk, NULL)) == 0)
        err = dir_write(e, v, blk, buf);
    kfree(buf);
    return err;
}

static int create_node(struct ext2_fs *e, struct vnode *dir, const char *name, uint32_t mode,
                       uint32_t rdev, const char *symlink, struct vnode **out)
{
    struct vnode *v;
    uint32_t ino;
    int err, counted = 0;

    if ((err = writable(e)) < 0)
        return err;
    if (strlen(name) > NAME_MAX)
        return -ENAMETOOLONG;
    if ((err = dir_find(e, dir, name, 0, &ino)) != -ENOENT)
        return err == 0 ? -EEXIST : err;
    if (S_ISDIR(mode) && dir->nlink >= EXT2_LINK_MAX)
        return -EMLINK;
    if ((err = new_inode(e, dir, mode, &v)) < 0)
        return err;
    if (S_ISDIR(mode)) {
        if ((err = make_dir_block(e, dir, v)) < 0)
            goto undo;
        v->size = e->bsize;
        dir->nlink++;
        counted = 1;
        if ((err = write_inode(e, N(dir))) < 0)
            goto undo;
    } else if (S_ISLNK(mode)) {
        size_t len = strlen(symlink);
        if (len < sizeof(N(v)->raw.block)) {
            memcpy(N(v)->raw.block, symlink, len); /* a fast symlink */
            v->size = len;
        } else if ((err = write_data(e, v, symlink, 0, len)) < 0) {
            goto undo;
        }
    } else if (S_ISCHR(mode) || S_ISBLK(mode)) {
        N(v)->raw.block[0] = rdev;
        v->rdev = rdev;
    }
    /* Whole now: its links (0 until here, so that a disk failing for good
     * half way leaves a deleted inode, a leak, not a half-made file that
     * e2fsck would call invalid or put in lost+found), then its name. */
    v->nlink = S_ISDIR(mode) ? 2 : 1;
    if ((err = write_inode(e, N(v))) < 0 || (err = dir_add(e, dir, name, v)) < 0)
        goto undo;
    *out = v;
    return 0;
undo:
    if (counted) {
        dir->nlink--;
        if (write_inode(e, N(dir)) < 0)
            damaged(e, "a write failed and so did its undoing: the links of inode", dir->ino);
    }
    give_back(e, v); /* its blocks and inode */
    return err;
}

static int ext2_create(struct vnode *dir, const char *name, uint32_t mode, uint32_t rdev,
                       const char *symlink, struct vnode **out)
{
    struct ext2_fs *e = E(dir);

    fs_enter(e);
    return fs_leave(e, create_node(e, dir, name, mode, rdev, symlink, out));
}

static int link_node(struct ext2_fs *e, struct vnode *dir, const char *name, struct vnode *v)
{
    uint32_t ino;
    int err;

    if ((err = writable(e)) < 0)
        return err;
    if ((err = dir_find(e, dir, name, 0, &ino)) != -ENOENT)
        return err == 0 ? -EEXIST : err;
    if (v->nlink >= EXT2_LINK_MAX)
        return -EMLINK;
    /* The link first, then the name: if the disk fails between, a link
     * without a name only leaks, a name without its link would be freed
     * under it. */
    v->nlink++;
    if ((err = write_inode(e, N(v))) < 0 || (err = dir_add(e, dir, name, v)) < 0) {
        v->nlink--;
        write_inode(e, N(v));
    }
    return err;
}

static int ext2_link(struct vnode *dir, const char *name, struct vnode *v)
{
    struct ext2_fs *e = E(dir);

    fs_enter(e);
    return fs_leave(e, link_node(e, dir, name, v));
}

/* Does directory v's ".." name dir, the directory it is about to leave
 * (rmdir, or a rename to another parent)? If not, it has no ".." or
 * another name elsewhere: removing it would leave that name dangling (and
 * the inode, reused, would join two files under it). 0 or -EUCLEAN. */
static int dotdot_is(struct ext2_fs *e, struct vnode *v, struct vnode *dir)
{
    uint32_t up;
    int err = dir_find(e, v, "..", 0, &up);

    if (err == -ENOENT || (err == 0 && up != dir->ino))
        return damaged(e, "'..' is not the parent: directory", v->ino);
    return err;
}

/* Check that `name` in dir may go, and return its vnode: a directory
 * only when it is empty. An empty directory has exactly two links (its
 * name and its "."): more means other names point at it, and removing it
 * would leave them dangling; so does a ".." naming another parent.
 * (Whether the caller may remove a directory at all, the VFS has
 * decided.) */
static int victim(struct ext2_fs *e, struct vnode *dir, const char *name, struct vnode **out)
{
    struct vnode *v;
    uint32_t ino;
    int err;

    if ((err = dir_find(e, dir, name, 0, &ino)) < 0 || (err = iget(e, ino, &v)) < 0)
        return err;
    err = 0;
    if (S_ISDIR(v->mode) && (err = dir_is_empty(e, v)) >= 0) {
        if (!err)
            err = -ENOTEMPTY;
        else if (v->nlink != 2)
            err = damaged(e, "links of directory", v->ino);
        else
            err = dotdot_is(e, v, dir);
    }
    if (err) {
        vnode_put(v);
        return err;
    }
    *out = v;
    return 0;
}

/* Take the name away; the node goes when its last reference does. Once
 * the name is gone the call has done what it said: a count the disk then
 * fails to lower stays one too high there (a leak, said by leaked), and
 * the answer is 0. Before, the node's count failing said EIO with the
 * name gone. */
static int drop_name(struct ext2_fs *e, struct vnode *dir, const char *name, struct vnode *v)
{
    uint32_t ino;
    int err;

    if ((err = dir_find(e, dir, name, 1, &ino)) < 0)
        return err;
    v->mtime = rtc_now();
    if (S_ISDIR(v->mode)) {
        /* The directory's own count first: while the disk has it linked,
         * its ".." counts toward the parent (e2fsck counts an unconnected
         * directory's), so the parent's count goes down on the disk only
         * once the directory's is 0 there. If the disk refuses that, the
         * parent's lower count waits for its next write: until then one
         * too high there, a leak. */
        v->nlink = 0;
        dir->nlink--;
        if (write_inode(e, N(v)) < 0)
            leaked(e, v->ino);
        else if (write_inode(e, N(dir)) < 0)
            leaked(e, dir->ino);
        return 0;
    }
    v->nlink--;
    if (write_inode(e, N(v)) < 0)
        leaked(e, v->ino);
    return 0;
}

static int ext2_unlink(struct vnode *dir, const char *name)
{
    struct ext2_fs *e = E(dir);
    struct vnode *v;
    int err;

    fs_enter(e);
    if ((err = writable(e)) == 0 && (err = victim(e, dir, name, &v)) == 0) {
        err = drop_name(e, dir, name, v);
        vnode_put(v);
    }
    return fs_leave(e, err);
}

/* Is directory `anc` the same as, or above, directory `d`? The climb
 * through ".." entries is bounded, and a loop in it (Brent's method: the
 * walker meets a saved point) is damage, found within a few rounds. A
 * climb that ends at the bound, short of the root, cannot tell: -ELOOP
 * (it said "not above", and a rename moved a directory 4097 levels
 * deep below itself). Each step asks, as a lookup of ".." does, that the
 * ".." is a directory holding a name for the one below (check_dotdot): a
 * ".." that skipped /sub on the way up from /sub/deeper said "not above",
 * and /sub moved into /sub/deeper, out of the root's reach with all
 * below it. It costs a scan of each directory on the way up. */
static int is_above(struct ext2_fs *e, struct vnode *anc, struct vnode *d, int *err)
{
    uint32_t ino = d->ino, saved = 0, up = 0, steps, power = 1, lap = 0;

    *err = 0;
    for (steps = 0; steps < 4096 && ino != EXT2_ROOT_INO; steps++) {
        struct vnode *v, *u;
        if (ino == anc->ino)
            return 1;
        if (ino == saved) {
            *err = damaged(e, "loop of '..' at directory", ino);
            return 0;
        }
        if (++lap == power) {
            saved = ino;
            power *= 2;
            lap = 0;
        }
        if ((*err = iget(e, ino, &v)) < 0) /* (a directory: d, or one check_dotdot saw) */
            return 0;
        if ((*err = dir_find(e, v, "..", 0, &up)) == -ENOENT)
            *err = damaged(e, "no '..' in directory", ino);
        else if (*err == 0 && (*err = iget(e, up, &u)) == 0 && (*err = check_dotdot(e, v, &u)) == 0)
            vnode_put(u);
        vnode_put(v);
        if (*err < 0)
            return 0;
        ino = up;
    }
    if (ino != EXT2_ROOT_INO && ino != anc->ino)
        *err = -ELOOP;
    return ino == anc->ino;
}

/* A file's rename (not a directory's), in an order a failing disk leaves
 * safe at every write: the file's link count one up (it is about to have
 * two names), the new name - over the old target's entry in place, if
 * there is one, so that one write moves that name from the target to the
 * file - the old name away, the count back down, and the target's count
 * one down. A failure undoes what was written, the last first: the image
 * as it was, the target kept. Before, the target's name went first, and a
 * failure after it lost the target with the file not moved; and the old
 * name's removal failing left two names for a count of one. If undoing
 * fails too (the disk fails for good), the instance writes no more, with
 * a count at worst one too high (a leak, for e2fsck): never a name that a
 * count does not count. The last two writes failing leave a count one
 * too high on the disk (the next write of the inode sets it right), and
 * the rename done. */
static int rename_file(struct ext2_fs *e, struct vnode *odir, const char *oname, struct vnode *ndir,
                       const char *nname, struct vnode *v)
{
    struct vnode *old = NULL;
    uint32_t ino;
    int err;

    if ((err = dir_find(e, ndir, nname, 0, &ino)) == 0 && (err = victim(e, ndir, nname, &old)) < 0)
        return err;
    if (err < 0 && err != -ENOENT)
        return err;
    if (v->nlink >= EXT2_LINK_MAX) {
        err = -EMLINK;
        goto out;
    }
    v->nlink++;
    if ((err = write_inode(e, N(v))) < 0) {
        v->nlink--;
        goto out;
    }
    if ((err = old ? dir_set(e, ndir, nname, v) : dir_add(e, ndir, nname, v)) < 0)
        goto count_back;
    if ((err = dir_find(e, odir, oname, 1, &ino)) < 0) {
        if ((old ? dir_set(e, ndir, nname, old) : dir_find(e, ndir, nname, 1, &ino)) < 0) {
            damaged(e, "a write failed and so did its undoing: a second name for inode", v->ino);
            goto out; /* two names, and a count of two */
        }
        goto count_back;
    }
    v->nlink--;
    v->mtime = rtc_now();
    if (write_inode(e, N(v)) < 0)
        leaked(e, v->ino); /* (a count one too high) */
    if (old) {
        old->nlink--;
        old->mtime = rtc_now();
        if (write_inode(e, N(old)) < 0) /* (as above; at 0 links, vnode_put frees it) */
            leaked(e, old->ino);
    }
    err = 0;
    goto out;
count_back:
    v->nlink--;
    if (write_inode(e, N(v)) < 0)
        damaged(e, "a write failed and so did its undoing: the links of inode", v->ino);
out:
    if (old)
        vnode_put(old);
    return err;
}

/* A directory's rename, in an order a failing disk leaves at worst leaky
 * at every write, the undoing's included: never two names for the
 * directory (e2fsck: "is a link to directory", and the mount's check
 * calls it damage), never a ".." naming a parent that holds no name for
 * it, never a count lower than the names. A directory's name cannot move
 * in one write (the old and new entries are in two blocks, or two
 * directories), so between the two it has none: it is unconnected, which
 * e2fsck mends by lost+found and which the harness counts as a leak;
 * two names it would clear one of. The order: the new parent's count up
 * (when the directory comes from another), the old name
 * away, the ".." to the new parent, the new name - over an empty
 * target's entry in place (dir_set) - then the counts down: the target's
 * (freed at once; its free failing stops the instance, for a nameless
 * directory of two links is damage to the mount's check),
 * the new parent's for the target's "..", the old parent's. A failure undoes what
 * was written, the last first (the image as it was); an undoing the disk
 * fails too stops the instance (damaged) with the directory unconnected
 * or a count too high. The last writes failing leave a count one too
 * high and the rename done. Before, the new name came first and ".."
 * last, the parents' counts unchecked: a failure left two names or a
 * ".." naming the old parent. */
static int rename_dir(struct ext2_fs *e, struct vnode *odir, const char *oname, struct vnode *ndir,
                      const char *nname, struct vnode *v)
{
    struct vnode *old = NULL;
    uint32_t ino, up = ndir->ino, back = odir->ino;
    int err, moves = odir != ndir, raised = 0;

    if (is_above(e, v, ndir, &err) || err)
        return err ? err : -EINVAL; /* a directory into itself */
    if (moves && (err = dotdot_is(e, v, odir)) < 0)
        return err; /* before anything changes: its ".." is rewritten below */
    if ((err = dir_find(e, ndir, nname, 0, &ino)) == 0 && (err = victim(e, ndir, nname, &old)) < 0)
        return err;
    if (err < 0 && err != -ENOENT)
        return err;
    if (moves) { /* (over a target too: its ".." and v's both count until it goes) */
        if (ndir->nlink >= EXT2_LINK_MAX) {
            err = -EMLINK;
            goto out;
        }
        ndir->nlink++;
        raised = 1;
        if ((err = write_inode(e, N(ndir))) < 0) {
            ndir->nlink--;
            goto out;
        }
    }
    if ((err = dir_find(e, odir, oname, 1, &ino)) < 0)
        goto count_back;
    if (moves && (err = dir_scan(e, v, dotdot_fn, &up)) < 0)
        goto name_back;
    if ((err = old ? dir_set(e, ndir, nname, v) : dir_add(e, ndir, nname, v)) < 0)
        goto dotdot_back;
    /* Done. The counts down (each failing: one too high, a leak's). */
    if (old) {
        /* The target, nameless: a directory of two links that nothing
         * reaches is damage to the mount's check, so it must be freed
         * (its last reference, here unless it is open: free_inode writes
         * its inode again), or the instance stops, as give_back does. */
        old->nlink = 0;
        old->mtime = rtc_now();
        write_inode(e, N(old)); /* (written again by the free) */
        ndir->nlink--; /* (its "..") */
        if (write_inode(e, N(ndir)) < 0)
            leaked(e, ndir->ino);
        ino = old->ino;
        e->free_failed = 0;
        vnode_put(old);
        old = NULL;
        if (e->free_failed)
            damaged(e, "a write failed: a directory no name reaches, inode", ino);
    }
    if (moves) {
        odir->nlink--;
        if (write_inode(e, N(odir)) < 0)
            leaked(e, odir->ino);
    }
    err = 0;
    goto out;
dotdot_back:
    if (moves && dir_scan(e, v, dotdot_fn, &back) < 0) {
        damaged(e, "a write failed and so did its undoing: '..' of directory", v->ino);
        goto out; /* unconnected, its ".." the new parent's: a leak */
    }
name_back:
    if (dir_add(e, odir, oname, v) < 0) {
        damaged(e, "a write failed and so did its undoing: the name of directory", v->ino);
        goto out; /* unconnected: a leak */
    }
count_back:
    if (raised) {
        ndir->nlink--;
        if (write_inode(e, N(ndir)) < 0)
            damaged(e, "a write failed and so did its undoing: the links of inode", ndir->ino);
    }
out:
    if (old)
        vnode_put(old);
    return err;
}

/* Move oname to nname, replacing what nname names (the VFS has checked
 * that it is another node of v's kind, and RENAME_NOREPLACE). */
static int rename_node(struct ext2_fs *e, struct vnode *odir, const char *oname, struct vnode *ndir,
                       const char *nname)
{
    struct vnode *v;
    uint32_t ino;
    int err;

    if ((err = writable(e)) < 0)
        return err;
    if ((err = dir_find(e, odir, oname, 0, &ino)) < 0 || (err = iget(e, ino, &v)) < 0)
        return err;
    if (S_ISDIR(v->mode))
        err = rename_dir(e, odir, oname, ndir, nname, v);
    else
        err = rename_file(e, odir, oname, ndir, nname, v);
    vnode_put(v);
    return err;
}

static int ext2_rename(struct vnode *odir, const char *oname, struct vnode *ndir, const char *nname)
{
    struct ext2_fs *e = E(odir);

    fs_enter(e);
    return fs_leave(e, rename_node(e, odir, oname, ndir, nname));
}

static int ext2_read(struct vnode *v, void *buf, uint32_t off, uint32_t n)
{
    struct ext2_fs *e = E(v);

    fs_enter(e);
    return fs_leave(e, read_data(e, v, buf, off, n));
}

static int ext2_write(struct vnode *v, const void *buf, uint32_t off, uint32_t n)
{
    struct ext2_fs *e = E(v);

    if (N(v)->big)
        return -EFBIG; /* (node_new) */
    fs_enter(e);
    return fs_leave(e, write_data(e, v, buf, off, n));
}

/* fchmod, fchown, a new node's owner: the inode's own mode, uid and gid. */
static int ext2_setattr(struct vnode *v)
{
    struct ext2_fs *e = E(v);

    fs_enter(e);
    return fs_leave(e, write_inode(e, N(v)));
}

static int ext2_truncate(struct vnode *v, uint32_t len)
{
    struct ext2_fs *e = E(v);

    if (N(v)->big)
        return -EFBIG; /* (node_new) */
    fs_enter(e);
    return fs_leave(e, truncate_data(e, v, len));
}

/* One entry at or after byte *cookie of the directory: the cookie is the
 * byte offset of the next entry. The block is read and checked whole, and
 * the entry found by walking it from its start, so a cookie that is not
 * on an entry boundary only skips to the next one. */
static int readdir_at(struct ext2_fs *e, struct vnode *dir, uint32_t *cookie, char *name,
                      uint32_t *ino, uint32_t *type)
{
    static const uint8_t dt[] = { DT_UNKNOWN, DT_REG,  DT_DIR,     DT_CHR,
                                  DT_BLK,     DT_FIFO, DT_UNKNOWN, DT_LNK };
    uint32_t lbn, blk, off, want;
    char *buf;
    int err = 0;

    if (!(buf = kmalloc(e->bsize)))
        return -ENOMEM;
    while (*cookie < dir->size) {
        struct ext2_dirent *d;
        lbn = *cookie / e->bsize;
        want = *cookie % e->bsize;
        if ((err = dir_read(e, dir, lbn, buf, &blk)) < 0)
            goto out;
        for (off = 0; off < e->bsize; off += d->rec_len) {
            d = (struct ext2_dirent *)(buf + off);
            if (off < want || !d->inode)
                continue;
            memcpy(name, d->name, d->name_len);
            name[d->name_len] = '\0';
            *ino = d->inode;
            *type = d->file_type < sizeof(dt) ? dt[d->file_type] : DT_UNKNOWN;
            *cookie = lbn * e->bsize + off + d->rec_len;
            err = 1;
            goto out;
        }
        *cookie = (lbn + 1) * e->bsize;
    }
out:
    kfree(buf);
    return err; /* a damaged block is an error, not the end */
}

static int ext2_readdir(struct vnode *dir, uint32_t *cookie, char *name, uint32_t *ino,
                        uint32_t *type)
{
    struct ext2_fs *e = E(dir);

    fs_enter(e);
    return fs_leave(e, readdir_at(e, dir, cookie, name, ino, type));
}

static int ext2_readlink(struct vnode *v, char *buf, uint32_t n)
{
    struct ext2_fs *e = E(v);
    int r;

    if (n > v->size)
        n = v->size;
    fs_enter(e);
    if (fast_symlink(e, &N(v)->raw)) {
        if (n > sizeof(N(v)->raw.block))
            n = sizeof(N(v)->raw.block);
        memcpy(buf, N(v)->raw.block, n);
        r = (int)n;
    } else {
        r = read_data(e, v, buf, 0, n);
    }
    return fs_leave(e, r);
}

/* A node without names, at its last reference: give back its blocks, then
 * the inode. Damage found on the way stops it (what is left stays
 * allocated: e2fsck finds it). A write the disk fails leaves the inode
 * taken, with no name, if the map was not cut (cut_map put it back), or
 * the blocks the disk failed to free: leaks, never a block or an inode
 * free and named. Device nodes, FIFOs and fast symlinks keep other
 * things than block numbers in i_block[]. */
static void free_inode(struct ext2_fs *e, struct ext2_node *n)
{
    struct vnode *v = n->v;
    uint32_t going, size = v->size, dtime = n->raw.dtime;
    int done, cut = 0;

    if (S_ISREG(v->mode) || S_ISDIR(v->mode) || (S_ISLNK(v->mode) && !fast_symlink(e, &n->raw))) {
        if (map_sound(e, n, 0, &going) < 0) {
            e->free_failed = 1;
            return;
        }
        v->size = 0;
        if (n->big) { /* the inode cut_map writes says 0 bytes: the high word too */
            n->big = 0;
            n->raw.size_high = 0;
        }
        n->raw.dtime = rtc_now();
        cut = cut_map(e, n, 0, going, size, dtime, &done);
    } else {
        memset(n->raw.block, 0, sizeof(n->raw.block));
        v->size = 0;
        n->raw.dtime = rtc_now();
        done = write_inode(e, n) == 0;
    }
    if (!done || cut < 0 || e->damaged || ifree(e, n->ino, S_ISDIR(v->mode)) < 0) {
        e->free_failed = 1; /* a leak (or damage): give_back calls the instance damaged */
        leaked(e, n->ino);
    }
    /* A directory whose inode kept its links on the disk (it refused the
     * writes that drop them: the caller's and the free's) is one no name
     * reaches: damage to the mount's check (a renamed-over target, freed
     * by its last reference, maybe later). At 0 links it only leaks. */
    if (!done && S_ISDIR(v->mode) && n->disk_links)
        damaged(e, "a directory no name reaches kept its links: inode", n->ino);
}

/* The last reference: forget the node, freeing it first if it has no
 * name (and the instance may write). Everything else was written through
 * when it changed, so a read-only user of a file writes nothing here, and
 * only freeing enters the instance (so only it may wait for its turn:
 * most callers of vnode_put never sleep). The node leaves the cache
 * first, so that nobody finds it while it waits. */
static void ext2_inactive(struct vnode *v)
{
    struct ext2_fs *e = E(v);
    struct ext2_node *n = N(v), **pp;

    for (pp = &e->nodes; *pp; pp = &(*pp)->next) {
        if (*pp == n) {
            *pp = n->next;
            break;
        }
    }
    if (v->nlink == 0 && writable(e) == 0) {
        fs_enter(e);
        if (writable(e) == 0)
            free_inode(e, n);
        fs_leave(e, 0);
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
    .setattr = ext2_setattr,
};

/* ---------------------------------------------------------------- the filesystem */

/* Bound every superblock field the code relies on, against each other and
 * against the size of the source (`size` bytes): block size, counts, the
 * group geometry, inode size and numbering, features. An impossible
 * geometry is EINVAL: not a filesystem this kernel can use. */
static int check_super(struct ext2_fs *e, uint32_t size)
{
    struct ext2_super *s = &e->sb;
    uint64_t groups;
    uint32_t n;

    if (s->rev_level > EXT2_DYNAMIC_REV || s->log_block_size > LOG_BSIZE_MAX)
        return -EINVAL;
    e->bsize = 1024u << s->log_block_size;
    e->ppb = e->bsize / 4;
    e->inode_size = s->rev_level ? s->inode_size : EXT2_OLD_INODE_SIZE;
    e->first_ino = s->rev_level ? s->first_ino : EXT2_OLD_FIRST_INO;
    e->compat = s->rev_level ? s->feature_compat : 0;
    e->incompat = s->rev_level ? s->feature_incompat : 0;
    e->ro_compat = s->rev_level ? s->feature_ro_compat : 0;
    if (s->first_data_block != (e->bsize == 1024 ? 1u : 0u) ||
        s->blocks_count <= s->first_data_block ||
        (uint64_t)s->blocks_count * e->bsize > size) /* also keeps offsets within 32 bits */
        return -EINVAL;
    if (s->blocks_per_group < 8 || s->blocks_per_group > 8 * e->bsize || s->blocks_per_group % 8 ||
        s->inodes_per_group == 0 || s->inodes_per_group > 8 * e->bsize)
        return -EINVAL; /* a group's bitmap is one block */
    if (e->inode_size < EXT2_OLD_INODE_SIZE || e->inode_size > e->bsize ||
        (e->inode_size & (e->inode_size - 1)))
        return -EINVAL;
    n = s->blocks_count - s->first_data_block;
    groups = n / s->blocks_per_group + (n % s->blocks_per_group != 0);
    if (groups > EXT2_MAX_GROUPS || groups * s->inodes_per_group != s->inodes_count)
        return -EINVAL; /* every inode number lies in a group */
    if (s->free_blocks_count > s->blocks_count || s->free_inodes_count > s->inodes_count)
        return -EINVAL; /* kept and written back: a count past the total stays wrong */
    e->ngroups = groups;
    if (e->first_ino < EXT2_OLD_FIRST_INO || e->first_ino > s->inodes_count)
        return -EINVAL;
    e->itb = (s->inodes_per_group * e->inode_size + e->bsize - 1) / e->bsize;
    e->gdt_block = s->first_data_block + 1;
    e->gdt_blocks = (e->ngroups * sizeof(struct ext2_group) + e->bsize - 1) / e->bsize;
    e->rsv_gdt = e->compat & EXT2_COMPAT_RESIZE_INODE ? s->reserved_gdt_blocks : 0;
    if (e->rsv_gdt > e->ppb)
        return -EINVAL;
    if (e->incompat & ~EXT2_INCOMPAT_FILETYPE) {
        kprintf("ext2: %s: unsupported features (incompat 0x%x): not mounted\n", e->fs->source_name,
                e->incompat & ~EXT2_INCOMPAT_FILETYPE);
        return -EINVAL;
    }
    return 0;
}

/* Each group's bitmaps and inode table lie inside the group, after its
 * superblock and descriptor copies (so the primary ones too), and apart
 * from each other: an update of one can land on nothing else. Its free
 * counts are no more than it holds: balloc skips a group whose count is
 * 0, and a 16-bit count past the group's size wraps to 0 on a free, so a
 * lying count would turn into a false ENOSPC. */
static int check_groups(struct ext2_fs *e)
{
    uint32_t g;

    for (g = 0; g < e->ngroups; g++) {
        const struct ext2_group *gd = &e->groups[g];
        uint32_t start = group_start(e, g), end = e->sb.blocks_count - start;
        uint32_t meta = start + group_meta(e, g);
        end = start + (end < e->sb.blocks_per_group ? end : e->sb.blocks_per_group);
        if (meta > end || gd->block_bitmap < meta || gd->block_bitmap >= end ||
            gd->inode_bitmap < meta || gd->inode_bitmap >= end || gd->inode_table < meta ||
            gd->inode_table > end || end - gd->inode_table < e->itb ||
            gd->block_bitmap == gd->inode_bitmap || gd->block_bitmap - gd->inode_table < e->itb ||
            gd->inode_bitmap - gd->inode_table < e->itb || gd->free_blocks_count > end - start ||
            gd->free_inodes_count > e->sb.inodes_per_group ||
            gd->used_dirs_count > e->sb.inodes_per_group)
            return -EINVAL;
    }
    return 0;
}

/* An image that was not cleanly unmounted (a writable instance's machine
 * stopped before its end: a crash, a kill, a power cut) or that says it
 * has errors is mounted as any other, with one console line (Linux's
 * "mounting unchecked fs" and "mounting fs with errors"): the whole-disk
 * check (ext2check.c) runs at every writable mount anyway, and what it
 * does not look for - a leak, a count - writing on does not make worse.
 * Refusing it would leave a disk unusable after any crash until the host
 * ran e2fsck: Orthos has none. close_image keeps the state, so e2fsck -p
 * still checks the image later. s_errors is not read: a damaged instance
 * writes no more whatever it says (Linux's remount-ro; its "continue"
 * would spread the damage, its "panic" let an image stop the machine).
 * doc/decisions.md, "ext2's clean state". */
static void say_state(struct ext2_fs *e)
{
    if (e->sb.state & EXT2_ERROR_FS)
        kprintf("ext2: %s: the image says it has errors (state %u): run e2fsck\n",
                fs_source_name(e->fs), e->sb.state);
    else if (!(e->sb.state & EXT2_VALID_FS))
        kprintf("ext2: %s: the image was not cleanly unmounted (state %u): run e2fsck\n",
                fs_source_name(e->fs), e->sb.state);
}

/* A writable instance begins: the image says "not clean" on the disk
 * before anything else is written (VALID cleared, as Linux's
 * ext2_setup_super does), so that e2fsck -p checks an image whose machine
 * stopped while it was in use. The mount is counted (s_mnt_count; e2fsck
 * checks at s_max_mnt_count, which Orthos leaves as it is) and timed
 * (s_mtime, from the RTC). If the disk refuses the superblock or its
 * write-back, the instance is read-only (one console line) and the
 * cache's copy of the superblock is put back as it was: nothing of the
 * image changes. */
static void open_image(struct ext2_fs *e)
{
    uint32_t mtime = e->sb.mtime;
    int err;

    e->mount_state = e->sb.state;
    e->sb.state &= ~EXT2_VALID_FS;
    e->sb.mnt_count++;
    e->sb.mtime = rtc_now();
    if ((err = write_super(e)) == 0 && (err = file_sync(e->dev)) == 0)
        return;
    kprintf("ext2: %s: the disk refused the superblock (error %d): read-only\n",
            fs_source_name(e->fs), err);
    e->sb.state = e->mount_state;
    e->sb.mnt_count--;
    e->sb.mtime = mtime;
    write_super(e); /* (over the refused copy in the cache, if it got there) */
    e->fs->readonly = 1;
}

/* The instance writes no more: release, revoke, poweroff. `err` is the
 * last write-back's (the caller's sync), e->sync_err the one before it.
 * Everything on the disk: the image gets its state back (VALID again if
 * it had it at the mount, unless errors were found since). A write-back
 * the disk refused, or this state's write, is said and marked instead:
 * "errors found" (the blocks refused are in the cache, tried again at each
 * eviction and sync; what is on the disk was written out of order). A
 * read-only, damaged or revoked instance writes nothing: a damaged one's
 * image says "not clean" since its mount. Nobody is left to return an
 * error to (doc/decisions.md, "ext2 on a failing disk, fourth part"). */
static void close_image(struct ext2_fs *e, int err)
{
    const char *src = fs_source_name(e->fs);

    if (err < 0)
        kprintf("ext2: %s: the last write-back failed (error %d): the disk may lack this "
                "instance's last writes\n",
                src, err);
    else if (e->sync_err < 0)
        kprintf("ext2: %s: a write-back failed (error %d); written at release\n", src, e->sync_err);
    if (writable(e) < 0)
        return;
    if (err == 0 && e->sync_err == 0 && !(e->sb.state & EXT2_ERROR_FS)) {
        e->sb.state |= e->mount_state & EXT2_VALID_FS;
        if ((err = write_super(e)) < 0 || (err = file_sync(e->dev)) < 0)
            kprintf("ext2: %s: the disk refused its clean state (error %d)\n", src, err);
    }
    if ((err < 0 || e->sync_err < 0) && (mark_error_fs(e) < 0 || file_sync(e->dev) < 0))
        kprintf("ext2: %s: and the disk refused its error state\n", src);
    e->closed = 1;
}

/* The instance's own memory (mount's, freed by a failed mount and release). */
static void ext2_free(struct ext2_fs *e)
{
    int i;

    for (i = 0; i < 3; i++)
        kfree(e->level_tbl[i]);
    kfree(e->scratch);
    kfree(e->groups);
    kfree(e);
}

static int ext2_mount(struct fs *fs, struct file *src, const char *opts)
{
    struct ext2_fs *e;
    struct stat st;
    uint32_t unknown;
    int err;

    if (!src)
        return -EINVAL; /* ext2 needs a disk or an image */
    if (!(e = kzalloc(sizeof(*e))))
        return -ENOMEM;
    e->fs = fs;
    e->dev = src;
    if ((err = file_stat(src, &st)) < 0)
        goto fail;
    err = file_read_at(src, &e->sb, EXT2_SB_OFFSET, sizeof(e->sb));
    if (err >= 0 && (err != sizeof(e->sb) || e->sb.magic != EXT2_MAGIC))
        err = -EINVAL; /* too short, or not ext2 at all */
    if (err < 0 || (err = check_super(e, st.st_size)) < 0)
        goto fail;
    unknown = e->ro_compat &
              ~(EXT2_RO_COMPAT_SPARSE_SUPER | EXT2_RO_COMPAT_LARGE_FILE | EXT2_RO_COMPAT_BTREE_DIR);
    if (unknown && !fs->readonly) {
        kprintf("ext2: %s: unsupported ro_compat features 0x%x: read-only\n", fs_source_name(fs),
                unknown);
        fs->readonly = 1;
    }
    if (!(src->access & FA_WRITE))
        fs->readonly = 1;
    e->filetype = !!(e->incompat & EXT2_INCOMPAT_FILETYPE);
    if (!(e->groups = kmalloc(e->ngroups * sizeof(struct ext2_group))) ||
        !(e->scratch = kmalloc(e->bsize)) || !(e->level_tbl[0] = kmalloc(e->bsize)) ||
        !(e->level_tbl[1] = kmalloc(e->bsize)) || !(e->level_tbl[2] = kmalloc(e->bsize))) {
        err = -ENOMEM;
        goto fail;
    }
    if ((err = dev_read(e, e->gdt_block * e->bsize, e->groups,
                        e->ngroups * sizeof(struct ext2_group))) < 0 ||
        (err = check_groups(e)) < 0)
        goto fail;
    fs->priv = e;
    if ((err = iget(e, EXT2_ROOT_INO, &fs->root)) < 0)
        goto fail;
    if (!S_ISDIR(fs->root->mode)) {
        vnode_put(fs->root);
        err = damaged(e, "root is not a directory: inode", EXT2_ROOT_INO);
        goto fail;
    }
    /* A read-only instance writes nothing, so there is nothing the check
     * could protect; "nocheck" skips it (the per-operation checks stay). */
    say_state(e);
    if (!fs->readonly && !opt_has(opts, "nocheck")) {
        if ((err = ext2_check(e)) < 0) {
            vnode_put(fs->root);
            goto fail;
        }
        if (err) {
            fs->readonly = 1;
            e->damaged = 1;
        }
    }
    if (!fs->readonly)
        open_image(e);
    return 0;
fail:
    fs->priv = NULL;
    ext2_free(e);
    return err;
}

/* Everything is written through already: push the device's cache out
 * (after any operation in progress, which may be yielding). Its error is
 * kept until a sync succeeds: the blocks the disk refused are still in
 * the cache, not on the disk (close_image looks at it). The last sync of
 * an instance revoke or poweroff ends (fs->closing, set by vfs) also
 * writes its image's state: close_image. */
static int ext2_sync(struct fs *fs)
{
    struct ext2_fs *e = fs->priv;
    int err;

    fs_enter(e);
    err = fs->revoked ? -EIO : file_sync(e->dev);
    if (!fs->revoked && !e->closed) {
        if (fs->closing)
            close_image(e, err);
        e->sync_err = err;
    }
    return fs_leave(e, err);
}

/* The last reference: the last write-back (vfs's sync, then this one,
 * after the root's inode) and the image's state (close_image). */
static void ext2_release(struct fs *fs)
{
    struct ext2_fs *e = fs->priv;

    vnode_put(fs->root);
    if (!fs->revoked && !e->closed)
        close_image(e, file_sync(e->dev));
    ext2_free(e);
}

const struct fs_type ext2_type = {
    .name = "ext2",
    .mount = ext2_mount,
    .sync = ext2_sync,
    .release = ext2_release,
};
