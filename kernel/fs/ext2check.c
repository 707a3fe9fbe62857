/* ext2check.c - the whole-disk check fsopen("ext2") runs before an
 * instance may write (ext2.c's ext2_mount calls ext2_check).
 *
 * What one operation sees is one inode, one directory block, one pointer;
 * some damage needs the whole disk to be seen (e2fsck's passes 1, 2, 4
 * and 5): two maps naming one block, a block or an inode in use that its
 * bitmap calls free, more names than links, a dirent's type that is not
 * its inode's. Each lets a healthy-looking operation harm an intact file
 * (a write through one file changes the other; the allocator hands the
 * block or the inode out again; unlink frees an inode a name still
 * reaches). So fsopen walks every inode in use and every directory once,
 * keeping a bit per block (who owns it) and a count and a type per inode,
 * and an image that contradicts itself is made read-only, with
 * one line naming the first contradiction. On the way it also holds each
 * inode to what the operations would find later, one at a time: i_blocks
 * that is not what the map names, a hole in a directory, a directory
 * that does not begin with "." and "..", or whose size is not whole
 * blocks, a block past a file's size, a ".." that is not the directory
 * holding the name, a second name for a directory, a reserved inode
 * free in its bitmap, a symlink whose size is not its text's length, a
 * name twice in one directory, a directory the root does not reach
 * (e2fsck's passes 1, 2, 3 and 5). Cost: the inode table blocks of
 * inodes in use, their indirect blocks, every directory block, each
 * directory's inode and first block once more (dotdot_of; a third time
 * for one met before its parent), each slow symlink's block, and the
 * bitmaps. */
#include "fs/ext2fs.h"
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "lib/kprintf.h"
#include "lib/string.h"
#include "mm/page.h"

#define CHECK_MAX  (4u << 20) /* bookkeeping bytes: a 4 GiB image of 1 KiB blocks */
#define SEEN_FIRST 256        /* name_seen's table at first: a directory of 192 names */
#define SEEN_MAX   (2u << 20) /* ... and its most bytes: 98,304 names in one directory */

/* A name met in the directory pass 2 is walking (name_seen): where it
 * is, to compare it again when another has its hash. */
struct seen {
    uint32_t dir;                       /* whose: a slot of another directory is free */
    uint32_t hash, blk;
    uint32_t off;
};

struct check {
    struct ext2_fs *e;
    uint8_t *owned;                     /* bit b - first_data_block: metadata or some map's */
    uint16_t *names;                    /* [ino]: entries naming it, "." and ".." too */
    uint8_t *type;                      /* [ino]: its dirent type if in use, else 0 */
    uint8_t *named;                     /* bit ino: a directory whose name was met */
    uint8_t *reached;                   /* bit ino: a directory the root reaches (pass 3) */
    uint32_t dirs;                      /* directories in use: a climb's bound */
    struct seen *seen;                  /* pass 2: the names of the directory walked */
    uint32_t seen_size, seen_used;      /* its slots (a power of 2), those of this directory */
    uint32_t ino;                       /* the inode being walked */
    uint32_t target;                    /* owner_of: the block looked for */
    uint32_t claimed;                   /* pass_inode: blocks its map named */
    uint32_t end_lbn;                   /* pass_inode: its last data block's lbn + 1 */
    uint32_t dir_blocks;                /* pass_dir: the directory's size in blocks */
    uint32_t next_lbn;                  /* pass_dir: its first block not met yet */
    char *dirbuf;                       /* the directory block being read */
    char *dotbuf;                       /* dotdot_of's: another directory's first block */
};

/* A line on the console naming the first contradiction; the caller makes
 * the instance read-only. Returns 1 (damage found). */
#define INCONSISTENT(c, fmt, ...) \
    (kprintf("ext2: %s: " fmt ": read-only; run e2fsck\n", (c)->e->fs->source_name, __VA_ARGS__), 1)

static int owned_bit(struct check *c, uint32_t b, int set)
{
    uint32_t i = b - c->e->sb.first_data_block;
    int was = c->owned[i / 8] >> (i % 8) & 1;

    if (set)
        c->owned[i / 8] |= 1 << (i % 8);
    return was;
}

/* Visit every block inode c->ino's map names, each table before what it
 * maps (map_walk, ext2.c's). Only maps of block numbers: not a device's,
 * a FIFO's or a fast symlink's i_block[]; of the reserved inodes (the
 * resize inode's tables are descriptor blocks) only the roots that are
 * data blocks. */
static int inode_walk(struct check *c, const struct ext2_inode *raw, map_visit visit)
{
    struct ext2_fs *e = c->e;
    uint32_t type = raw->mode & S_IFMT, i;
    int r;

    if (c->ino < e->first_ino && c->ino != EXT2_ROOT_INO) {
        for (i = 0; i < EXT2_NBLOCKS; i++)
            if (data_block(e, raw->block[i]) && (r = visit(c, raw->block[i], 0, 0, 0)) != 0)
                return r;
        return 0;
    }
    if (type != S_IFREG && type != S_IFDIR && (type != S_IFLNK || fast_symlink(e, raw)))
        return 0;
    return map_walk_inode(e, raw->block, visit, c);
}

/* Call fn on every inode whose bitmap bit is set, in number order (the
 * order owner_of repeats), with the inode read into *raw. Only the
 * inode table blocks of inodes in use are read. */
static int each_inode(struct check *c, int (*fn)(struct check *, struct ext2_inode *))
{
    struct ext2_fs *e = c->e;
    uint8_t *bits = (uint8_t *)e->scratch;
    struct ext2_inode raw;
    uint32_t g, i;
    int r;

    for (g = 0; g < e->ngroups; g++) {
        if ((r = bread(e, e->groups[g].inode_bitmap, bits)) < 0)
            return r;
        for (i = 0; i < e->sb.inodes_per_group; i++) {
            if (!(bits[i / 8] >> (i % 8) & 1))
                continue;
            c->ino = g * e->sb.inodes_per_group + i + 1;
            walk_step(e);               /* from the cache nothing here sleeps */
            if ((r = dev_read(e, inode_offset(e, c->ino), &raw, sizeof(raw))) < 0 ||
                (r = fn(c, &raw)) != 0)
                return r;
        }
    }
    return 0;
}

static int find_target(void *c, uint32_t blk, int level, uint32_t lbn, uint32_t up)
{
    return blk == ((struct check *)c)->target;
}

static int find_in_inode(struct check *c, struct ext2_inode *raw)
{
    return raw->links_count && inode_walk(c, raw, find_target) == 1;
}

/* The first inode (in each_inode's order) whose map names blk: found
 * again by walking the maps once more, for the message only (a bit per
 * block keeps no owner). 0 if none. It reuses the scratch block and the
 * level tables, so the pass that asks stops right after. */
static uint32_t owner_of(struct check *c, uint32_t blk)
{
    c->target = blk;
    return each_inode(c, find_in_inode) == 1 ? c->ino : 0;
}

/* Pass 1's visitor: a pointer names a data block that nothing else owns. */
static int claim(void *arg, uint32_t blk, int level, uint32_t lbn, uint32_t up)
{
    struct check *c = arg;
    uint32_t me = c->ino, first;

    if (!data_block(c->e, blk))
        return INCONSISTENT(c, "inode %u names block %u, which no file may own", me, blk);
    c->claimed++;
    if (level == 0 && lbn >= c->end_lbn)
        c->end_lbn = lbn + 1;
    if (!owned_bit(c, blk, 1))
        return 0;
    if ((first = owner_of(c, blk)) == me)
        return INCONSISTENT(c, "block %u is in inode %u twice", blk, me);
    return INCONSISTENT(c, "block %u is in inodes %u and %u", blk, first, me);
}

/* Does c->ino's map name a data block past its size? e2fsck's rule: a
 * directory none past its size (but for prealloc_dir_blocks), any other
 * file none that begins past it. (Such a block leaks, and a truncation
 * up to it reads its old bytes back.) */
static int past_size(struct check *c, const struct ext2_inode *raw)
{
    struct ext2_fs *e = c->e;
    uint64_t size = raw->size, last = c->end_lbn - 1;

    if (!c->end_lbn)
        return 0;
    if ((raw->mode & S_IFMT) == S_IFDIR)
        return last >= raw->size / e->bsize + e->sb.prealloc_dir_blocks;
    if ((raw->mode & S_IFMT) == S_IFREG)
        size |= (uint64_t)raw->size_high << 32;
    return last * e->bsize > size;
}

/* A symlink's size is its text's length (e2fsck's rule): readlink gives
 * `size` bytes, and the text ends at its first NUL, so a size past it
 * hands NULs to a path walk and a size short of it another name. A fast
 * symlink's text is in i_block[]; a slow one's in its one block, which
 * holds it and its end (the driver makes none longer: ENAMETOOLONG).
 * Reads each slow symlink's block (from the cache, or the disk). */
static int symlink_text(struct check *c, const struct ext2_inode *raw)
{
    struct ext2_fs *e = c->e;
    const char *text = (const char *)raw->block;
    uint32_t max = sizeof(raw->block), len;
    int r;

    if (!fast_symlink(e, raw)) {
        if (raw->size >= e->bsize || !raw->block[0])
            return INCONSISTENT(c, "symlink %u has size %u, no block 0 to hold it", c->ino,
                                raw->size);
        if ((r = bread(e, raw->block[0], c->dirbuf)) < 0)
            return r;
        text = c->dirbuf;
        max = e->bsize;
    }
    for (len = 0; len < max && text[len]; len++)
        ;
    if (len != raw->size)
        return INCONSISTENT(c, "symlink %u has size %u, its text %u bytes", c->ino, raw->size, len);
    return 0;
}

/* Pass 1, an inode marked in use: in use if it has links too (then a
 * type ext2 knows, and its map's blocks claimed). Its i_blocks counts,
 * in sectors, what its map names and its extended-attribute block: the
 * operations trust it to bound a walk over the map (too small, and the
 * file can never be truncated or freed), a directory's size, and to tell
 * a fast symlink from a slow one. And its map names no block past its
 * size (past_size). (Neither is asked of the reserved inodes, whose maps
 * the check does not walk whole.) */
static int pass_inode(struct check *c, struct ext2_inode *raw)
{
    struct ext2_fs *e = c->e;
    uint8_t t = file_type(raw->mode);
    uint32_t want;
    int r;

    if (!raw->links_count)
        return 0;                       /* allocated, no name yet: nothing reaches it */
    if (!t)
        return INCONSISTENT(c, "inode %u has mode 0%o, no file type", c->ino, raw->mode);
    c->type[c->ino] = t;
    c->claimed = c->end_lbn = 0;
    if ((r = inode_walk(c, raw, claim)) != 0 || (c->ino < e->first_ino && c->ino != EXT2_ROOT_INO))
        return r;
    want = (c->claimed + !!raw->file_acl) * SECTORS(e);
    if (raw->blocks != want)
        return INCONSISTENT(c, "inode %u has i_blocks %u, its map names %u", c->ino, raw->blocks,
                            want);
    if (past_size(c, raw))
        return INCONSISTENT(c, "inode %u has size %u and block %u", c->ino, raw->size,
                            c->end_lbn - 1);
    if (fast_symlink(e, raw) && raw->size >= sizeof(raw->block)) /* (iget refuses it: EUCLEAN) */
        return INCONSISTENT(c, "fast symlink %u has size %u", c->ino, raw->size);
    if ((raw->mode & S_IFMT) == S_IFLNK)
        return symlink_text(c, raw);
    c->dirs += t == EXT2_FT_DIR;
    return 0;
}

/* 1 for an entry ".", 2 for "..", else 0. */
static int dots(const struct ext2_dirent *d)
{
    if (d->name_len == 1 && d->name[0] == '.')
        return 1;
    return d->name_len == 2 && d->name[0] == '.' && d->name[1] == '.' ? 2 : 0;
}

/* What directory dir's ".." names, read from its first block: 0 if the
 * check sees none there (a hole, a broken entry, no ".." second: the
 * walk of dir itself reports each, pass_dir). */
static uint32_t dotdot_of(struct check *c, uint32_t dir)
{
    struct ext2_fs *e = c->e;
    struct ext2_inode raw;
    struct ext2_dirent *d;
    uint32_t off;

    if (dev_read(e, inode_offset(e, dir), &raw, sizeof(raw)) < 0 || !raw.block[0] ||
        bread(e, raw.block[0], c->dotbuf) < 0 || !dir_block_ok(e, c->dotbuf))
        return 0;                       /* (pass 1 saw its map: block[0] is a data block) */
    for (off = 0; off < e->bsize; off += d->rec_len) {
        d = (struct ext2_dirent *)(c->dotbuf + off);
        if (d->inode && dots(d) == 2)
            return d->inode;
    }
    return 0;
}

/* Bit ino of a bit per inode (named, reached): what it was; set too
 * with set. */
static int ino_bit(uint8_t *map, uint32_t ino, int set)
{
    int was = map[ino / 8] >> (ino % 8) & 1;

    if (set)
        map[ino / 8] |= 1 << (ino % 8);
    return was;
}

static uint32_t name_hash(const char *name, uint32_t n)
{
    uint32_t h = 2166136261u;           /* FNV-1a */

    while (n--)
        h = (h ^ (uint8_t)*name++) * 16777619u;
    return h;
}

/* Is name (n bytes) the one at byte off of block blk? (blk is either the
 * block being walked, in dirbuf, or an earlier one, read into dotbuf.) */
static int same_name(struct check *c, const char *name, uint32_t n, uint32_t blk, uint32_t off,
                     uint32_t now)
{
    const struct ext2_dirent *d;
    const char *buf = c->dirbuf;

    if (blk != now) {
        if (bread(c->e, blk, c->dotbuf) < 0)
            return 0;                   /* (read before: dir_block_ok vouched for it) */
        buf = c->dotbuf;
    }
    d = (const struct ext2_dirent *)(buf + off);
    return d->name_len == n && memcmp(d->name, name, n) == 0;
}

/* Twice the slots, the directory's names moved over (the others' slots
 * are free anyway). 0, 1 (too big to check: said), or -ENOMEM. */
static int seen_grow(struct check *c)
{
    uint32_t size = 2 * c->seen_size, i, j;
    struct seen *to, *old = c->seen;

    if (size * sizeof(*to) > SEEN_MAX) {
        kprintf("ext2: %s: directory %u has too many names to check: read-only\n",
                c->e->fs->source_name, c->ino);
        return 1;
    }
    if (!(to = kzalloc(size * sizeof(*to))))
        return -ENOMEM;
    for (i = 0; i < c->seen_size; i++) {
        if (old[i].dir != c->ino)
            continue;
        for (j = old[i].hash & (size - 1); to[j].dir; j = (j + 1) & (size - 1))
            ;
        to[j] = old[i];
    }
    kfree(old);
    c->seen = to;
    c->seen_size = size;
    return 0;
}

/* Pass 2: has the directory being walked (c->ino) an earlier entry of
 * d's name, at byte off of block blk? A lookup finds the first, and the
 * second shows when the first goes (e2fsck's pass 2 asks the same).
 * Names are kept by hash in c->seen, a slot taken by another directory
 * free; only names of equal hashes are compared, the earlier read again
 * (from the cache). No I/O for a directory of distinct names. */
static int name_seen(struct check *c, const struct ext2_dirent *d, uint32_t blk, uint32_t off)
{
    uint32_t h = name_hash(d->name, d->name_len), i, mask;
    struct seen *s;
    int r;

    if (4 * (c->seen_used + 1) > 3 * c->seen_size && (r = seen_grow(c)) != 0)
        return r;
    mask = c->seen_size - 1;
    for (i = h & mask; (s = &c->seen[i])->dir == c->ino; i = (i + 1) & mask)
        if (s->hash == h && same_name(c, d->name, d->name_len, s->blk, s->off, blk))
            return INCONSISTENT(c, "'%.*s' is twice in directory %u", d->name_len, d->name, c->ino);
    s->dir = c->ino;
    s->hash = h;
    s->blk = blk;
    s->off = off;
    c->seen_used++;
    return 0;
}

/* Pass 2's visitor: each entry of a directory block names an inode in
 * use, with its type, and is counted. A directory begins with "." (itself)
 * and ".." and holds no other: where dotdot_of reads its parent, and
 * e2fsck's layout (the operations find a ".." anywhere, and take the
 * first). A directory has one name (the root none: its bit is set from
 * the start), and that name is where its ".." leads (e2fsck's pass 3),
 * even with the link counts adding up: else a climb through ".." (a
 * cwd's, rename's "is it below itself?") goes where the directory is
 * not, and moving or removing it is refused (EUCLEAN); removing one of
 * two names would leave the other naming a free inode. And (pass_dir) a
 * directory's blocks up to its size have no hole: every operation that
 * scans it would find it (EUCLEAN). */
static int count_names(void *arg, uint32_t blk, int level, uint32_t lbn, uint32_t up)
{
    struct check *c = arg;
    struct ext2_fs *e = c->e;
    struct ext2_dirent *d;
    uint32_t off, ino, dd, k = lbn ? 2 : 0; /* k: the entry's place in the directory, to 2 */
    int r;

    if (level > 0 || lbn >= c->dir_blocks)
        return 0;                       /* (what lies past its size is never read) */
    if (lbn == c->next_lbn)             /* (the walk goes in file order) */
        c->next_lbn++;
    if (bread(e, blk, c->dirbuf) < 0 || !dir_block_ok(e, c->dirbuf))
        return INCONSISTENT(c, "block %u of directory %u holds a broken entry", blk, c->ino);
    for (off = 0; off < e->bsize; off += d->rec_len, k += k < 2) {
        d = (struct ext2_dirent *)(c->dirbuf + off);
        if (k < 2 && (!d->inode || dots(d) != (int)k + 1 || (k == 0 && d->inode != c->ino)))
            return INCONSISTENT(c, "directory %u does not begin with '.' and '..'", c->ino);
        if (k == 1 && c->ino == EXT2_ROOT_INO && d->inode != EXT2_ROOT_INO)
            return INCONSISTENT(c, "'..' of the root names %u", d->inode);
        if (k == 2 && d->inode && dots(d))
            return INCONSISTENT(c, "directory %u has another '%.*s'", c->ino, d->name_len, d->name);
        if (!(ino = d->inode))
            continue;
        if ((r = name_seen(c, d, blk, off)) != 0)
            return r;
        if (!c->type[ino])
            return INCONSISTENT(c, "'%.*s' in directory %u names inode %u, which is free",
                                d->name_len, d->name, c->ino, ino);
        if (e->filetype && d->file_type != c->type[ino])
            return INCONSISTENT(c, "'%.*s' in directory %u says type %u, inode %u is type %u",
                                d->name_len, d->name, c->ino, d->file_type, ino, c->type[ino]);
        if (c->names[ino] < 0xFFFF)
            c->names[ino]++;
        if (k < 2 || c->type[ino] != EXT2_FT_DIR)
            continue;
        if (ino_bit(c->named, ino, 1))
            return INCONSISTENT(c, "'%.*s' in directory %u is a second name for directory %u",
                                d->name_len, d->name, c->ino, ino);
        if ((dd = dotdot_of(c, ino)) && dd != c->ino)
            return INCONSISTENT(c, "'..' of directory %u names %u, its name is in %u", ino, dd,
                                c->ino);
        if (ino_bit(c->reached, c->ino, 0))
            ino_bit(c->reached, ino, 1); /* (named where the root reaches) */
    }
    if (k < 2) /* "." alone in the block */
        return INCONSISTENT(c, "directory %u does not begin with '.' and '..'", c->ino);
    return 0;
}

static int pass_dir(struct check *c, struct ext2_inode *raw)
{
    int r;

    if (!c->type[c->ino] || (raw->mode & S_IFMT) != S_IFDIR)
        return 0;
    if (raw->size % c->e->bsize) /* (what iget refuses: EUCLEAN) */
        return INCONSISTENT(c, "directory %u has size %u, not whole blocks", c->ino, raw->size);
    c->dir_blocks = raw->size / c->e->bsize;
    c->next_lbn = 0;
    c->seen_used = 0;
    if ((r = inode_walk(c, raw, count_names)) != 0)
        return r;
    if (c->next_lbn < c->dir_blocks)
        return INCONSISTENT(c, "directory %u has a hole at block %u", c->ino, c->next_lbn);
    if (!c->dir_blocks) /* (else block 0 was walked, and began with "." and "..") */
        return INCONSISTENT(c, "directory %u does not begin with '.' and '..'", c->ino);
    return 0;
}

/* Pass 3: does the root reach directory c->ino? Pass 2 marked each
 * directory named in one the root reaches, as it walked that one; one
 * it met first (a lower inode number than its parent's: a move makes
 * that) is found here by a climb, each step to the directory that holds
 * its one name, which its ".." names (pass 2 made sure of both). A
 * directory with no name, or a climb longer than there are directories
 * (a loop of directories that name each other), is not reachable: with
 * all the counts right, nothing reaches it, and e2fsck would move it to
 * lost+found. The climb's directories are marked on a second climb, so
 * each directory is climbed through at most twice. Each step reads an
 * inode and a first block (dotdot_of), from the cache; none for a
 * directory made after its parent and never moved. */
static int reach(struct check *c)
{
    uint32_t x = c->ino, steps = 0;

    while (!ino_bit(c->reached, x, 0)) {
        if (!ino_bit(c->named, x, 0) || ++steps > c->dirs)
            return INCONSISTENT(c, "directory %u is not reachable from the root", c->ino);
        x = dotdot_of(c, x);
    }
    for (x = c->ino; !ino_bit(c->reached, x, 1); x = dotdot_of(c, x))
        ;
    return 0;
}

/* Pass 4 (with pass 3 for each directory): no inode has fewer links than
 * names (unlink would free it while a name still reaches it). Fewer
 * names than links only leaks it. */
static int pass_links(struct check *c, struct ext2_inode *raw)
{
    int r;

    if (c->type[c->ino] == EXT2_FT_DIR && (r = reach(c)) != 0)
        return r;
    if (c->type[c->ino] && c->names[c->ino] > raw->links_count)
        return INCONSISTENT(c, "inode %u has %u links and %u names", c->ino, raw->links_count,
                            c->names[c->ino]);
    return 0;
}

/* Pass 5 for inodes: each reserved inode is in use in its bitmap (a
 * clear bit there is what the allocator would hand out next: it refuses,
 * EUCLEAN, when it meets one). An inode in use past them whose bit is
 * clear is found where a name reaches it (count_names); with no name
 * nothing reaches it, and its taker loses nothing. */
static int pass_reserved(struct check *c)
{
    struct ext2_fs *e = c->e;
    uint8_t *bits = (uint8_t *)e->scratch;
    uint32_t ino, g = 0, i;
    int r;

    for (ino = 1; ino < e->first_ino; ino++) {
        i = (ino - 1) % e->sb.inodes_per_group;
        if (i == 0 && (r = bread(e, e->groups[g++].inode_bitmap, bits)) < 0)
            return r; /* (the first_ino - 1 reserved inodes may span groups) */
        if (!(bits[i / 8] >> (i % 8) & 1))
            return INCONSISTENT(c, "reserved inode %u is free in the bitmap", ino);
    }
    return 0;
}

/* Pass 5: every block that metadata or a map owns is in use in its bitmap
 * (else the allocator hands it out again). */
static int pass_bitmaps(struct check *c)
{
    struct ext2_fs *e = c->e;
    uint8_t *bits = (uint8_t *)e->scratch;
    uint32_t g, i, b, count, n = e->sb.blocks_per_group / 8;
    int r;

    for (g = 0; g < e->ngroups; g++) {
        if ((r = bread(e, e->groups[g].block_bitmap, bits)) < 0)
            return r;
        count = e->sb.blocks_count - group_start(e, g);
        count = count < e->sb.blocks_per_group ? count : e->sb.blocks_per_group;
        for (i = 0; i < count; i++) {
            uint8_t lost = c->owned[g * n + i / 8] & ~bits[i / 8];
            if (!lost) {
                i |= 7;                 /* nothing lost in this byte: skip it whole */
                continue;
            }
            if (!(lost >> (i % 8) & 1))
                continue;
            b = group_start(e, g) + i;
            if (!data_block(e, b))
                return INCONSISTENT(c, "metadata block %u is free in the bitmap", b);
            return INCONSISTENT(c, "block %u of inode %u is free in the bitmap", b, owner_of(c, b));
        }
    }
    return 0;
}

/* Mark the filesystem's own blocks owned: superblock and descriptor copies
 * (with their reserved blocks), bitmaps, inode tables. */
static void claim_metadata(struct check *c)
{
    struct ext2_fs *e = c->e;
    uint32_t g, b;

    for (g = 0; g < e->ngroups; g++) {
        for (b = group_start(e, g); b < group_start(e, g) + group_meta(e, g); b++)
            owned_bit(c, b, 1);
        owned_bit(c, e->groups[g].block_bitmap, 1);
        owned_bit(c, e->groups[g].inode_bitmap, 1);
        for (b = 0; b < e->itb; b++)
            owned_bit(c, e->groups[g].inode_table + b, 1);
    }
}

/* The whole-disk check: 0 consistent, 1 damage found (and said), or
 * -errno. Its memory is sized to the image: a bit per block, 3 bytes and
 * a bit per inode, at most CHECK_MAX (past it: too big to check,
 * read-only too). */
int ext2_check(struct ext2_fs *e)
{
    struct check c = { .e = e };
    uint32_t bits = ((e->sb.blocks_count - e->sb.first_data_block + 7) / 8 + 1) & ~1u;
    uint64_t size =
        bits + 3 * ((uint64_t)e->sb.inodes_count + 1) + 2 * (e->sb.inodes_count / 8 + 1);
    int r;

    if (size > CHECK_MAX) {
        kprintf("ext2: %s: too big to check (%u KiB to keep): read-only\n", e->fs->source_name,
                (uint32_t)(size >> 10));
        return 1;
    }
    c.owned = kzalloc(size);
    c.dirbuf = kmalloc(e->bsize);
    c.dotbuf = kmalloc(e->bsize);
    c.seen_size = SEEN_FIRST;
    c.seen = kzalloc(SEEN_FIRST * sizeof(*c.seen));
    if (!c.owned || !c.dirbuf || !c.dotbuf || !c.seen) {
        r = -ENOMEM;
        goto out;
    }
    c.names = (uint16_t *)(c.owned + bits);
    c.type = (uint8_t *)(c.names + e->sb.inodes_count + 1);
    c.named = c.type + e->sb.inodes_count + 1;
    c.reached = c.named + e->sb.inodes_count / 8 + 1;
    ino_bit(c.named, EXT2_ROOT_INO, 1);
    ino_bit(c.reached, EXT2_ROOT_INO, 1);
    claim_metadata(&c);
    if ((r = pass_reserved(&c)) == 0 && (r = each_inode(&c, pass_inode)) == 0 &&
        (r = each_inode(&c, pass_dir)) == 0 && (r = each_inode(&c, pass_links)) == 0)
        r = pass_bitmaps(&c);
out:
    kfree(c.seen);
    kfree(c.dotbuf);
    kfree(c.dirbuf);
    kfree(c.owned);
    return r;
}
