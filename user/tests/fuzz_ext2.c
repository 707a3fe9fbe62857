/* fuzz_ext2.c - the ext2 image fuzzer: `fuzz_ext2 SEED SECONDS [MAXCOUNT]`.
 * Each iteration damages a copy of /etc/fuzz.ext2 (a 128 KiB image with
 * every kind of block, made by tools/e2craft.py) where it hurts - the
 * superblock, the group descriptor, the bitmaps, the inodes in use, the
 * directory blocks, the indirect blocks - with random bytes, bit flips and
 * telling values (0, -1, 0x7fffffff, the block count, a block's own number,
 * a metadata block), writes it to /tmp, loop mounts it, and uses it: walks
 * and lists everything, reads files, then creates, writes, truncates,
 * links, renames, unlinks - now and then trying to damage the image file
 * again while it is mounted (refused: EBUSY). The kernel may refuse (EINVAL, EUCLEAN, EIO...)
 * but must not panic, hang or leak. The interface (heartbeat, leak check,
 * last line) is the one every fuzzer shares: see COMMON.md / tools/fuzz.py.
 *
 * Every walk is WALK_BENEATH | WALK_NOFOLLOW from a directory fd of the
 * image and every change names one component in such a directory, so a
 * hostile symlink can never lead the fuzzer out of the image; FIFOs and
 * device nodes are never readied. The same seed gives the same images and
 * the same operations: xorshift32, no clock in any choice. */
#include <dirent.h>
#include <fcntl.h>
#include <orthos.h>
#include <sys/stat.h>
#include <unistd.h>
#include "t.h"
#include "array_size.h"

#define BASE         "/etc/fuzz.ext2"
#define IMAGE        "/tmp/fuzz_ext2.img"
#define IMG_MAX      (128 * 1024)
#define MAX_MUT      8                   /* mutations per image before the mount, at most */
#define MAX_UNDO     32                  /* ... and with those made while it is mounted */
#define MAX_NODES    48                  /* nodes collected by the walk */
#define MAX_DEPTH    6
#define READ_MAX     (16 * 1024)         /* bytes read from one file */
#define WRITE_OPS    12                  /* changes tried per image */
#define HEARTBEAT_MS 1000

static unsigned char base[IMG_MAX], img[IMG_MAX];
static unsigned img_len;
static char iobuf[8192];
static unsigned seed, count;
static unsigned last_beat;

/* ---------------------------------------------------------------- randomness */

static unsigned rng;

static unsigned rnd32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static unsigned rnd(unsigned n)
{
    return n ? rnd32() % n : 0;
}

/* The heartbeat: at least every HEARTBEAT_MS, called between operations. */
static void beat(void)
{
    unsigned now = uptime_ms();

    if (now - last_beat >= HEARTBEAT_MS) {
        printf("fuzz_ext2: seed %u count %u\n", seed, count);
        fflush(stdout);
        last_beat = now;
    }
}

/* ---------------------------------------------------------------- the base image */

static unsigned get32(const unsigned char *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (unsigned)p[3] << 24;
}

static unsigned get16(const unsigned char *p)
{
    return p[0] | p[1] << 8;
}

/* Where the base image keeps what is worth damaging (found once, at start). */
static struct {
    unsigned bsize, blocks, inodes, ipg, isize, first_data, bitmaps[2], itable, itb;
    unsigned inode_off[64];             /* byte offsets of the inodes in use */
    unsigned ninodes;
    unsigned dir_inode_off[16], ndirino;    /* ... of the directories among them */
    unsigned dir_blocks[32], ndir;      /* block numbers */
    unsigned ind_blocks[32], nind;
    unsigned data_blocks[64], ndata;    /* some blocks in use, for cross-links */
} L;

static void note_block(unsigned *list, unsigned *n, unsigned max, unsigned b)
{
    if (b && b < L.blocks && *n < max)
        list[(*n)++] = b;
}

/* The indirect blocks (and some data blocks) under pointer b at `level`. */
static void note_tree(unsigned b, int level, int dir)
{
    unsigned i;

    if (!b || b >= L.blocks)
        return;
    if (level == 0) {
        if (dir)
            note_block(L.dir_blocks, &L.ndir, 32, b);
        else
            note_block(L.data_blocks, &L.ndata, 64, b);
        return;
    }
    note_block(L.ind_blocks, &L.nind, 32, b);
    for (i = 0; i < L.bsize / 4; i++)
        note_tree(get32(base + b * L.bsize + 4 * i), level - 1, dir);
}

static int learn_layout(void)
{
    const unsigned char *sb = base + 1024, *gd;
    unsigned ino, i;

    L.inodes = get32(sb);
    L.blocks = get32(sb + 4);
    L.first_data = get32(sb + 20);
    L.bsize = 1024u << get32(sb + 24);
    L.ipg = get32(sb + 40);
    L.isize = get32(sb + 76) ? get16(sb + 88) : 128;
    if (L.bsize > 4096 || L.blocks * L.bsize > img_len || L.ipg != L.inodes)
        return -1;                      /* one group, inside the file: what e2craft makes */
    gd = base + (L.first_data + 1) * L.bsize;
    L.bitmaps[0] = get32(gd);
    L.bitmaps[1] = get32(gd + 4);
    L.itable = get32(gd + 8);
    L.itb = (L.inodes * L.isize + L.bsize - 1) / L.bsize;
    for (ino = 1; ino <= L.inodes && L.ninodes < 64; ino++) {
        unsigned off = L.itable * L.bsize + (ino - 1) * L.isize, mode;
        if (off + 128 > img_len)
            return -1;
        mode = get16(base + off);
        if (!mode || !get16(base + off + 26))
            continue;
        L.inode_off[L.ninodes++] = off;
        if ((mode & S_IFMT) == S_IFREG || (mode & S_IFMT) == S_IFDIR ||
            ((mode & S_IFMT) == S_IFLNK && get32(base + off + 28))) {
            int dir = (mode & S_IFMT) == S_IFDIR;
            if (dir && L.ndirino < 16)
                L.dir_inode_off[L.ndirino++] = off;
            for (i = 0; i < 12; i++)
                note_tree(get32(base + off + 40 + 4 * i), 0, dir);
            for (i = 0; i < 3; i++)
                note_tree(get32(base + off + 88 + 4 * i), i + 1, dir);
        }
    }
    return L.ninodes && L.ndir && L.nind ? 0 : -1;
}

/* ---------------------------------------------------------------- mutations */

static struct {
    unsigned off, len;
} undo[MAX_UNDO];
static unsigned nundo;

/* A value that tends to break assumptions about the field at `off`. */
static unsigned telling_value(unsigned off)
{
    unsigned own = off / L.bsize;

    switch (rnd(16)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return 0xFFFFFFFFu;
    case 3: return 0x7FFFFFFFu;
    case 4: return 0x80000000u;
    case 5: return L.blocks;
    case 6: return L.blocks - 1 + rnd(3);
    case 7: return L.inodes + rnd(2);
    case 8: return own;                 /* a block pointing at itself */
    case 9: return L.bitmaps[rnd(2)];
    case 10: return L.itable + rnd(L.itb);
    case 11: return L.first_data + rnd(2);
    case 12: return L.ndata ? L.data_blocks[rnd(L.ndata)] : 7;  /* a cross-link */
    case 13: return L.ind_blocks[rnd(L.nind)];
    case 14: return 2 + rnd(12);        /* the root, reserved inodes, the first ones */
    }
    return rnd32() >> rnd(32);
}

/* Change `len` bytes at off in img, remembering them for the undo. */
static void poke(unsigned off, unsigned len, unsigned v)
{
    unsigned i;

    if (off + len > img_len || nundo == MAX_UNDO)
        return;
    for (i = 0; i < len; i++)
        img[off + i] = v >> (8 * i);
    undo[nundo].off = off;
    undo[nundo].len = len;
    nundo++;
}

/* Fill `len` bytes at off with the 32-bit word v, as one undo entry. */
static void poke_fill(unsigned off, unsigned len, unsigned v)
{
    unsigned i;

    if (off + len > img_len || nundo == MAX_UNDO)
        return;
    for (i = 0; i < len; i++)
        img[off + i] = v >> (8 * (i % 4));
    undo[nundo].off = off;
    undo[nundo].len = len;
    nundo++;
}

/* One mutation of the field-sized (1, 2 or 4 bytes) or raw kind at off. */
static void mutate_at(unsigned off, unsigned field)
{
    switch (rnd(4)) {
    case 0: /* a bit flip */ poke(off, 1, img[off] ^ (1 << rnd(8))); break;
    case 1: /* a random byte */ poke(off + rnd(field), 1, rnd32()); break;
    default: /* a telling value, the field's width */ poke(off, field, telling_value(off)); break;
    }
}

/* Damage with a shape: fields changed together, as the worst images made
 * by hand are (tools/e2craft.py), which single changes rarely reach. */
static void mutate_shaped(void)
{
    unsigned b, t, in, off, pos, rec, len, n, i, d0;

    switch (rnd(7)) {
    case 0:                             /* an indirect block with one pointer everywhere */
        b = L.ind_blocks[rnd(L.nind)];
        poke_fill(b * L.bsize, L.bsize, rnd(2) ? b : telling_value(b * L.bsize));
        break;
    case 1:                             /* a directory claiming to be huge, all of it real */
        in = L.dir_inode_off[rnd(L.ndirino)];
        d0 = get32(img + in + 40);
        t = L.ind_blocks[rnd(L.nind)];
        poke_fill(t * L.bsize, L.bsize, rnd(2) ? d0 : t);
        poke_fill(in + 44, 44, d0);     /* i_block[1..11] */
        poke_fill(in + 88, 12, t);      /* the three trees */
        poke(in + 4, 4, rnd(2) ? 0xFFFFFC00u : (L.blocks + rnd(64)) * L.bsize);
        poke(in + 28, 4, rnd(2) ? 0xFFFFFFFFu : get32(img + in + 28) + rnd(1024));
        break;
    case 2:                             /* a directory entry at the edge of its room */
        b = L.dir_blocks[rnd(L.ndir)] * L.bsize;
        n = rnd(2) ? 1000 : rnd(8);     /* mostly the last entry */
        for (pos = 0; n-- && (rec = get16(img + b + pos + 4)) >= 8 && pos + rec < L.bsize;)
            pos += rec;
        len = img[b + pos + 6];
        switch (rnd(4)) {
        case 0: poke(b + pos + 4, 2, 8 + len); break;
        case 1: poke(b + pos + 4, 2, ((8 + len + 3) & ~3u) - 1 - rnd(3)); break;
        case 2: poke(b + pos + 6, 1, get16(img + b + pos + 4) - 8 + 1 + rnd(3)); break;
        default: poke(b + pos + 4, 2, L.bsize - pos - 1 - rnd(4)); break;
        }
        break;
    case 3:                             /* group geometry past a bitmap, counts to match */
        switch (rnd(3)) {
        case 0:
            poke(1024 + 32, 4, rnd(2) ? 0x7FFFFFFFu : 8 * L.bsize + 8 * (1 + rnd(64)));
            poke(1024 + 4, 4, get32(img + 1024 + 32) - rnd(64));
            in = L.inode_off[rnd(L.ninodes)];
            poke(in + 40 + 4 * rnd(15), 4, get32(img + 1024 + 4) - 1 - rnd(1 << 20));
            break;
        case 1:
            poke(1024 + 40, 4, rnd(2) ? 0x7FFFFFFFu : 8 * L.bsize + 8 * (1 + rnd(64)));
            poke(1024 + 0, 4, get32(img + 1024 + 40));
            break;
        default:
            poke(1024 + 32, 4, 8);
            poke(1024 + 4, 4, 1 + 8 * (65536 + rnd(4)));
            poke(1024 + 40, 4, 1);
            break;
        }
        break;
    case 4:                             /* a block owned twice: across files, or in one */
        in = L.inode_off[rnd(L.ninodes)];
        off = L.inode_off[rnd(L.ninodes)] + 40 + 4 * rnd(15);
        poke(in + 40 + 4 * rnd(15), 4,
             get32(img + off) ? get32(img + off) : L.data_blocks[rnd(L.ndata)]);
        break;
    case 5:                             /* bitmaps that free what is in use */
        if (rnd(2)) {
            i = (L.inode_off[rnd(L.ninodes)] - L.itable * L.bsize) / L.isize;
            off = L.bitmaps[1] * L.bsize + i / 8;
        } else {
            i = (rnd(2) ? L.data_blocks[rnd(L.ndata)] : L.itable + rnd(L.itb)) - L.first_data;
            off = L.bitmaps[0] * L.bsize + i / 8;
        }
        poke(off, 1, img[off] & ~(1 << (i % 8)));
        break;
    default:                            /* tables on each other, or wrapping past 4 GiB */
        off = (L.first_data + 1) * L.bsize + 4 * rnd(3);
        switch (rnd(4)) {
        case 0: poke(off, 4, L.first_data + rnd(2)); break;
        case 1: poke(off, 4, L.bitmaps[rnd(2)]); break;
        case 2: poke(off, 4, L.itable + rnd(L.itb)); break;
        default: poke(off, 4, get32(img + off) + 0x80000000u / L.bsize * 2); break;
        }
        break;
    }
}

static void mutate_once(void)
{
    unsigned r = rnd(100), off, b;

    if (r < 25) {
        mutate_shaped();
        return;
    }
    r = rnd(100);

    if (r < 18) {                       /* the superblock's fields */
        off = 1024 + 4 * rnd(26);
        if (rnd(4) == 0)
            off = 1024 + 88 + 2 * rnd(8);   /* inode size, group number, ... */
        mutate_at(off, off >= 1024 + 88 && off < 1024 + 92 ? 2 : 4);
    } else if (r < 26) {                /* the group descriptor */
        off = (L.first_data + 1) * L.bsize + 4 * rnd(5);
        mutate_at(off, off % 32 >= 12 ? 2 : 4);
    } else if (r < 34) {                /* a bitmap: bits that lie */
        off = L.bitmaps[rnd(2)] * L.bsize + rnd(L.bsize / 8);
        poke(off, 1, img[off] ^ (1 << rnd(8)));
    } else if (r < 60) {                /* an inode in use */
        static const unsigned char fields[][2] = {
            { 0, 2 }, { 4, 4 }, { 26, 2 }, { 28, 4 }, { 32, 4 }, { 104, 4 }, { 108, 4 },
        };
        unsigned in = L.inode_off[rnd(L.ninodes)];
        if (rnd(2)) {
            unsigned f = rnd(ARRAY_SIZE(fields));
            mutate_at(in + fields[f][0], fields[f][1]);
        } else {
            mutate_at(in + 40 + 4 * rnd(15), 4);    /* i_block[] */
        }
    } else if (r < 80) {                /* a directory entry */
        b = L.dir_blocks[rnd(L.ndir)];
        off = b * L.bsize;
        if (rnd(3)) {                   /* walk to an entry, then hit one of its fields */
            unsigned n = rnd(8), pos = 0, rec;
            while (n-- && (rec = get16(img + off + pos + 4)) >= 8 && pos + rec + 8 <= L.bsize)
                pos += rec;
            switch (rnd(4)) {
            case 0: mutate_at(off + pos, 4); break;             /* inode */
            case 1:
                poke(off + pos + 4, 2,
                     rnd(3) ? get16(img + off + pos + 4) + rnd(9) - 4 : telling_value(off));
                break;           /* rec_len */
            case 2: poke(off + pos + 6, 1, rnd(256)); break;    /* name_len */
            default: poke(off + pos + 7, 1, rnd(9)); break;     /* file_type */
            }
        } else {
            mutate_at(off + 4 * rnd(L.bsize / 4), 4);
        }
    } else if (r < 92) {                /* an indirect block's pointer */
        b = L.ind_blocks[rnd(L.nind)];
        off = b * L.bsize + 4 * (rnd(4) ? rnd(8) : rnd(L.bsize / 4));
        mutate_at(off, 4);
    } else {                            /* anywhere */
        mutate_at(rnd(img_len), 1);
    }
}

/* ---------------------------------------------------------------- using an image */

static struct node {
    int dir;                            /* directory fd (BENEATH walk), or -1 */
    char name[64];                      /* the entry's name in its parent */
    int parent;                         /* index of the parent, -1 for the root */
    int depth;
    unsigned mode;
} nodes[MAX_NODES];
static int nnodes;

static unsigned stat_images, stat_mounted, stat_refused, stat_damaged, stat_ops, slowest;

/* Open the directory `name` under dirfd (no symlink, no way out). */
static int open_dir(int dirfd, const char *name)
{
    int w = walk(dirfd, name, WALK_BENEATH | WALK_NOFOLLOW), r;
    struct stat st;

    if (w < 0)
        return -1;
    if (fstat(w, &st) < 0 || !S_ISDIR(st.st_mode)) {
        close(w);
        return -1;
    }
    r = ready(w, R_READ);
    close(w);
    return r;
}

static void read_file(int dirfd, const char *name)
{
    int w = walk(dirfd, name, WALK_BENEATH | WALK_NOFOLLOW), r, n, got = 0;
    struct stat st;

    if (w < 0)
        return;
    if (fstat(w, &st) == 0 && S_ISREG(st.st_mode) && (r = ready(w, R_READ)) >= 0) {
        if (st.st_size > READ_MAX)
            lseek(r, rnd(st.st_size - READ_MAX), SEEK_SET);
        while (got < READ_MAX && (n = read(r, iobuf, sizeof(iobuf))) > 0)
            got += n;
        close(r);
    }
    close(w);
}

/* List node i (a directory) and note what it holds: files are read at
 * once, directories added for the walk to visit. */
static void visit(int i)
{
    int n, off, calls;

    for (calls = 0; calls < 8 && (n = getdents(nodes[i].dir, iobuf, sizeof(iobuf))) > 0; calls++) {
        static char names[8192];
        memcpy(names, iobuf, n);        /* read_file reuses iobuf */
        for (off = 0; off < n; off += ((struct dirent *)(names + off))->d_reclen) {
            struct dirent *d = (struct dirent *)(names + off);
            if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") ||
                strlen(d->d_name) >= sizeof(nodes[0].name))
                continue;
            stat_ops++;
            beat();
            if (d->d_type == DT_REG) {
                read_file(nodes[i].dir, d->d_name);
            } else if (d->d_type == DT_LNK) {
                char target[128];
                struct stat st;
                int w;
                readlinkat(nodes[i].dir, d->d_name, target, sizeof(target));
                if ((w = walk(nodes[i].dir, d->d_name, WALK_BENEATH)) >= 0) {
                    fstat(w, &st);      /* followed, but never out of the image */
                    close(w);
                }
            }
            if (nnodes < MAX_NODES) {
                struct node *c = &nodes[nnodes];
                c->depth = nodes[i].depth + 1;
                c->dir = d->d_type == DT_DIR && c->depth < MAX_DEPTH
                             ? open_dir(nodes[i].dir, d->d_name)
                             : -1;
                strlcpy(c->name, d->d_name, sizeof(c->name));
                c->parent = i;
                c->mode = d->d_type;
                nnodes++;
            }
        }
    }
}

/* Stand in directory i and climb: getcwd and ".." meet whatever the
 * image's ".." entries say (they never lead above the image's root). */
static void climb_from(int i)
{
    char cwd[256];
    int w;

    if (nodes[i].dir < 0 || fchdir(nodes[i].dir) < 0)
        return;
    getcwd(cwd, sizeof(cwd));
    if ((w = walk(AT_CWD, "../..", 0)) >= 0)
        close(w);
    chdir("/");
}

/* The directory fd a change happens in: the root or one the walk opened. */
static int some_dir(void)
{
    int tries, i;

    for (tries = 0; tries < 4; tries++)
        if (nodes[i = rnd(nnodes)].dir >= 0)
            return nodes[i].dir;
    return nodes[0].dir;
}

static void new_name(char *name)
{
    static const char *stems[] = { "n", "new_file", "a_rather_long_name_for_a_new_entry", "d" };

    snprintf(name, 64, "%s%u", stems[rnd(4)], rnd(40));
}

/* Write n bytes at off into the regular file name under dirfd (created
 * when `create_it`). */
static void write_file(int dirfd, const char *name, int create_it)
{
    int w = create_it ? create(dirfd, name, S_IFREG, 0644, 0)
                      : walk(dirfd, name, WALK_BENEATH | WALK_NOFOLLOW);
    unsigned len = rnd(4) ? rnd(4096) : rnd(40000), off = rnd(4) ? 0 : rnd(300000), done;
    struct stat st;
    int r;

    if (w < 0)
        return;
    if (fstat(w, &st) == 0 && S_ISREG(st.st_mode) && (r = ready(w, R_WRITE)) >= 0) {
        memset(iobuf, 'a' + rnd(26), sizeof(iobuf));
        lseek(r, off, SEEK_SET);
        for (done = 0; done < len; done += sizeof(iobuf))
            if (write(r, iobuf, len - done < sizeof(iobuf) ? len - done : sizeof(iobuf)) < 0)
                break;
        if (rnd(3) == 0)
            ftruncate(r, rnd(2) ? rnd(len + 1) : rnd(80000));
        close(r);
    }
    close(w);
}

/* Try to damage the image file under the mounted instance, as its owner
 * might: refused (EBUSY), for the instance alone writes its image (else
 * the damage would slip past the mount's check). Anything else fails. */
static void mutate_live(void)
{
    unsigned first = nundo, i;
    int fd = open(IMAGE, O_WRONLY), r;

    if (fd < 0)
        return;
    mutate_once();
    for (i = first; i < nundo; i++) {
        if (lseek(fd, undo[i].off, SEEK_SET) != (int)undo[i].off)
            continue;
        if ((r = write(fd, img + undo[i].off, undo[i].len)) != -1 || errno != EBUSY)
            printf("FAIL fuzz_ext2_live_image_is_the_instances: seed %u image %u: a write to "
                   "the image under its instance gave %d, errno %d\n",
                   seed, count, r, errno);
    }
    close(fd);
}

/* One change: create, write, truncate, mkdir, symlink, link, rename, unlink. */
static void change_something(void)
{
    char name[64], name2[64];
    struct node *victim = nnodes > 1 ? &nodes[1 + rnd(nnodes - 1)] : NULL;
    int parent = victim ? nodes[victim->parent].dir : -1, w;

    new_name(name);
    switch (parent >= 0 ? rnd(9) : rnd(4)) {
    case 0:
    case 1: write_file(some_dir(), name, 1); break;
    case 2:
        if ((w = create(some_dir(), name, S_IFDIR, 0755, 0)) >= 0)
            close(w);
        break;
    case 3:
        snprintf(name2, sizeof(name2), rnd(2) ? "t%u" : "../%u/a/long/enough/symlink/target/%u",
                 rnd(100), rnd(100));
        if ((w = create(some_dir(), name, S_IFLNK, 0777, (unsigned long)name2)) >= 0)
            close(w);
        break;
    case 4:
        if (victim->mode == DT_REG)
            write_file(parent, victim->name, 0);
        break;
    case 5:
        if ((w = walk(parent, victim->name, WALK_BENEATH | WALK_NOFOLLOW)) >= 0) {
            linkat(w, some_dir(), name);
            close(w);
        }
        break;
    case 6:
        renameat(parent, victim->name, some_dir(), rnd(3) ? name : nodes[rnd(nnodes)].name,
                 rnd(2) ? RENAME_NOREPLACE : 0);
        break;
    default: unlinkat(parent, victim->name, victim->mode == DT_DIR ? UNLINK_DIR : 0); break;
    }
}

static void close_nodes(void)
{
    int i;

    for (i = 0; i < nnodes; i++)
        if (nodes[i].dir >= 0)
            close(nodes[i].dir);
    nnodes = 0;
}

/* Write the image (base + this iteration's mutations) to IMAGE. */
static int write_image(void)
{
    int fd = open(IMAGE, O_WRONLY | O_CREAT | O_TRUNC, 0644), ok;

    if (fd < 0)
        return -1;
    ok = write(fd, img, img_len) == (int)img_len;
    close(fd);
    return ok ? 0 : -1;
}

static void one_image(int mutations)
{
    unsigned i, t0 = uptime_ms(), ms;
    int src, root, err;

    nundo = 0;
    for (i = 0; (int)i < mutations; i++)
        mutate_once();
    if (write_image() < 0) {
        printf("fuzz_ext2: cannot write %s: %s\n", IMAGE, strerror(errno));
        goto restore;
    }
    stat_images++;
    if ((src = open(IMAGE, O_RDWR)) < 0)
        goto gone;
    /* Half the writable mounts skip the whole-disk check, or it would find
     * most damage at fsopen and the operations' own checks would meet little. */
    root = fsopen("ext2", src, rnd(8) == 0 ? "ro" : rnd(2) ? "nocheck" : "");
    err = errno;
    close(src);
    if (root < 0) {
        stat_refused++;
        if (err == EUCLEAN)
            stat_damaged++;
        goto gone;
    }
    stat_mounted++;
    nodes[0].dir = ready(root, R_READ); /* getdents needs a ready fd */
    nodes[0].parent = -1;
    nodes[0].depth = 0;
    nodes[0].mode = DT_DIR;
    strlcpy(nodes[0].name, ".", sizeof(nodes[0].name));
    nnodes = 1;
    for (i = 0; (int)i < nnodes; i++) { /* breadth first: nnodes grows as we go */
        if (nodes[i].dir >= 0)
            visit(i);
        if (rnd(4) == 0)
            climb_from(i);
    }
    for (i = 0; i < WRITE_OPS && nodes[0].dir >= 0; i++) {
        if (rnd(8) == 0)
            mutate_live();
        change_something();
        stat_ops++;
        beat();
    }
    if ((src = create(root, "probe", S_IFREG, 0644, 0)) >= 0)
        close(src);
    else if (errno == EUCLEAN)
        stat_damaged++;
    if (nodes[0].dir >= 0 && lseek(nodes[0].dir, 0, SEEK_SET) == 0)
        while (getdents(nodes[0].dir, iobuf, sizeof(iobuf)) > 0)    /* the root after it all */
            stat_ops++;
    if (rnd(2))
        revoke(root);                   /* forced, or let the last close release it */
    close_nodes();
    close(root);
gone:
    unlink(IMAGE);
restore:
    for (i = 0; i < nundo; i++)
        memcpy(img + undo[i].off, base + undo[i].off, undo[i].len);
    ms = uptime_ms() - t0;
    if (ms > slowest)
        slowest = ms;
    if (ms >= 500)                      /* worth a look: replay with MAXCOUNT = count + 1 */
        printf("fuzz_ext2: seed %u image %u took %u ms\n", seed, count, ms);
}

int main(int argc, char **argv)
{
    unsigned seconds, maxcount, start, before, after, kept;
    int fd, n;

    if (argc < 3) {
        fprintf(stderr, "usage: fuzz_ext2 SEED SECONDS [MAXCOUNT]\n");
        return 2;
    }
    seed = strtoul(argv[1], NULL, 0);
    seconds = strtoul(argv[2], NULL, 0);
    maxcount = argc > 3 ? strtoul(argv[3], NULL, 0) : 0xFFFFFFFFu;
    rng = seed * 2654435761u + 0x9E3779B9u;
    if (!rng)
        rng = 1;
    if ((fd = open(BASE, O_RDONLY)) < 0 || (n = read_full(fd, base, sizeof(base))) <= 0 ||
        (unsigned)n % 1024) {
        printf("FAIL fuzz_ext2_base_image: cannot read %s\nfuzz_ext2: done seed %u count 0\n", BASE,
               seed);
        return 1;
    }
    close(fd);
    img_len = n;
    memcpy(img, base, img_len);
    if (learn_layout() < 0) {
        printf("FAIL fuzz_ext2_base_image: %s is not the image e2craft makes\n"
               "fuzz_ext2: done seed %u count 0\n",
               BASE, seed);
        return 1;
    }
    /* One undamaged round first, so that the baseline has the kernel's
     * caches warm. The kernel heap never gives back a page it has carved
     * into small blocks; a damaged image can need more of them at once
     * than any image before it (more inodes cached, say), so the pages
     * expected missing at the end are exactly those the buckets grew by
     * (heap_bucket_pages in /proc/meminfo), and no other. */
    one_image(0);
    stat_images = stat_mounted = stat_refused = stat_damaged = stat_ops = slowest = 0;
    before = free_pages();
    kept = meminfo("heap_bucket_pages");
    start = last_beat = uptime_ms();
    printf("fuzz_ext2: seed %u count 0\n", seed);
    while (count < maxcount && uptime_ms() - start < seconds * 1000) {
        one_image(rnd(4) ? 1 + rnd(3) : 1 + rnd(MAX_MUT));
        count++;
        beat();
    }
    after = free_pages();
    kept = meminfo("heap_bucket_pages") - kept;
    printf("fuzz_ext2: seed %u images %u mounted %u refused %u damaged %u ops %u slowest %u ms\n",
           seed, stat_images, stat_mounted, stat_refused, stat_damaged, stat_ops, slowest);
    if (after + kept == before)
        printf("PASS fuzz_ext2_leaves_no_leak\n");
    else
        printf("FAIL fuzz_ext2_leaves_no_leak: free pages %u at the start, %u at the end "
               "(%u kept by the heap's buckets)\n",
               before, after, kept);
    printf("fuzz_ext2: done seed %u count %u\n", seed, count);
    return after + kept != before;
}
