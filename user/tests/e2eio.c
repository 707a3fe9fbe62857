/* e2eio.c - every ext2 operation that takes a block or an inode, with the
 * Nth write it makes to the disk failing (failnth(FAILNTH_WRITES | n), for
 * every n until the operation makes fewer writes): a hole filled in part
 * and whole, a file grown past its end and through the indirect, double-
 * and triple-indirect trees, mkdir, create, fast and slow symlinks, a name
 * that needs a new directory block (by create and by link). An operation
 * that fails says EIO and leaves the image as it was: the free counts and
 * both bitmaps byte for byte (no block or inode leaks), the file's size,
 * no name made, no byte of a deleted file readable; one that succeeds
 * reads back what it wrote. Either way the image mounts writable again
 * (the mount's check calls it healthy). The images start from
 * /etc/fuzz.ext2 with every free block full of STALE (a deleted file).
 * Each image a failure left is copied to /mnt/eio (the ext2_eio suite
 * attaches a carrier disk there), and the host's e2fsck -fn must find
 * each clean. Then renames (a file to a new name and over another's, a
 * directory), undone or done; the frees (two truncations, an unlink),
 * undone or done with a leak, the instance writing on; and every one of
 * them on a disk that fails for good (FAILNTH_FROM): the old image, a
 * damaged instance, or a free's leak, and e2fsck finding nothing but
 * leaks. Last, on /dev/hd2, the block cache's write-back: refused at an
 * instance's release (said, marked, nothing lost) and at evictions (no
 * other disk's read fails); and the superblock's state: "not clean" while
 * a writable instance is on the disk, clean at its end (close, revoke,
 * poweroff), an unclean image's state kept, a superblock the disk refuses
 * at the mount. doc/decisions.md, "ext2 and a failing disk" and its
 * second, third and fourth parts, and "ext2's clean state". */
#include <orthos.h>
#include "t.h"

#define TEMPLATE "/tmp/eio-template.img"
#define WORK     "/tmp/eio.img"
#define STALE    'S'
#define BSIZE    1024                   /* /etc/fuzz.ext2's block size, one group */
#define TIND_AT  68000000               /* past 12 + 256 + 65536 blocks: the triple tree */

static int fs = -1;                     /* the instance of WORK being tried */
static char buf[BSIZE];

/* A name of 56 bytes (an entry of 64): fifteen fill a directory's first
 * block after "." and "..", the sixteenth needs a second block. */
static void long_name(char *out, int i)
{
    snprintf(out, 64, "full/%02d-a-name-of-fifty-six-bytes-to-fill-a-directory-block-x", i);
}

/* The image every try starts from: the free blocks full of STALE, then
 * the files the operations use. */
static int make_template(void)
{
    char name[64];
    int img, f, w, i;

    if (copyfile("/etc/fuzz.ext2", TEMPLATE) < 0 || (img = open(TEMPLATE, O_RDWR)) < 0)
        return -1;
    fs = fsopen("ext2", img, "");
    close(img);
    if (fs < 0 || (f = create(fs, "old", S_IFREG, 0600, 0)) < 0 || (w = ready(f, R_WRITE)) < 0)
        return -1;
    memset(buf, STALE, sizeof(buf));
    while (write(w, buf, sizeof(buf)) == (int)sizeof(buf))
        ;
    close(w);
    close(f);
    if (unlinkat(fs, "old", 0) < 0)
        return -1;
    if ((f = create(fs, "hole", S_IFREG, 0644, 0)) < 0 || (w = ready(f, R_WRITE)) < 0 ||
        ftruncate(w, 3000) < 0)
        return -1;
    close(w);
    close(f);
    if ((f = create(fs, "small", S_IFREG, 0644, 0)) < 0 || (w = ready(f, R_WRITE)) < 0 ||
        write(w, "0123456789", 10) != 10)
        return -1;
    close(w);
    close(f);
    for (i = 0; i < 3; i++) {
        if ((f = create(fs, i == 0 ? "g_ind" : i == 1 ? "g_dind" : "g_tind", S_IFREG, 0644, 0)) < 0)
            return -1;
        close(f);
    }
    if ((f = create(fs, "full", S_IFDIR, 0755, 0)) < 0)
        return -1;
    close(f);
    /* directories to rename across parents and over an empty one */
    for (i = 0; i < 5; i++) {
        static const char *const dirs[] = { "d1", "d2", "d1/sub", "d1/e1", "d2/empty" };
        if ((f = create(fs, dirs[i], S_IFDIR, 0755, 0)) < 0)
            return -1;
        close(f);
    }
    if ((f = create(fs, "d1/sub/f", S_IFREG, 0644, 0)) < 0)
        return -1;
    close(f);
    if ((f = create(fs, "tr", S_IFREG, 0644, 0)) < 0 || (w = ready(f, R_WRITE)) < 0)
        return -1;
    memset(buf, 't', sizeof(buf));
    for (i = 0; i < 16; i++)            /* direct blocks and the indirect tree */
        if (write(w, buf, sizeof(buf)) != (int)sizeof(buf))
            return -1;
    if (lseek(w, 300000, SEEK_SET) != 300000 || write(w, buf, 3) != 3)
        return -1;                      /* and the double-indirect tree */
    close(w);
    close(f);
    f = walk(fs, "small", 0);
    for (i = 0; i < 15; i++) {
        long_name(name, i);
        if (linkat(f, fs, name) < 0)
            return -1;
    }
    close(f);
    close(fs);
    return 0;
}

/* A test that failed a CHECK returned with its instance open, and WORK
 * cannot be written while it is: the next test closes it first. */
static void no_instance_left(void)
{
    if (fs > 2)
        close(fs);
    fs = -1;
}

/* A fresh copy of the template, mounted: the instance (fs), or -1. */
static int fresh_instance(void)
{
    int img = copyfile(TEMPLATE, WORK) == 0 ? open(WORK, O_RDWR) : -1;

    fs = img >= 0 ? fsopen("ext2", img, "") : -1;
    if (img >= 0)
        close(img);
    return fs;
}

/* ---- the operations: 0, or -1 with errno */
static int write_at(const char *file, uint32_t off, uint32_t n, char c)
{
    int f = walk(fs, file, 0), w = f >= 0 ? ready(f, R_WRITE) : -1, r = -1, e;

    memset(buf, c, n);
    if (w >= 0 && lseek(w, off, SEEK_SET) == (int)off)
        r = write(w, buf, n) == (int)n ? 0 : -1;
    e = errno;
    close(w);
    close(f);
    errno = e;
    return r;
}

static int made(int fd)
{
    return fd < 0 ? -1 : close(fd);
}

static int op_hole_part(void)
{
    return write_at("hole", 2000, 1, 'x');
}
static int op_hole_whole(void)
{
    return write_at("hole", 1024, BSIZE, 'w');
}
static int op_grow(void)
{
    return write_at("small", 5000, 1, 'x');
}
static int op_grow_in_block(void)
{
    return write_at("small", 100, 1, 'x'); /* (block 0 holds it already: no block taken) */
}
static int op_hole_in_table(void)
{
    return write_at("tr", 20 * BSIZE, 3, 'h'); /* a hole in tr's indirect table, which is there */
}
static int op_ind(void)
{
    return write_at("g_ind", 20 * BSIZE, 3, 'i');
}
static int op_dind(void)
{
    return write_at("g_dind", 300000, 3, 'd');
}
static int op_tind(void)
{
    return write_at("g_tind", TIND_AT, 3, 't');
}
static int op_mkdir(void)
{
    return made(create(fs, "newdir", S_IFDIR, 0755, 0));
}
static int op_create(void)
{
    return made(create(fs, "newfile", S_IFREG, 0644, 0));
}

static int op_fast_symlink(void)
{
    return made(create(fs, "g_fast", S_IFLNK, 0777, (unsigned long)"small"));
}

#define SLOW_TARGET "a-target-longer-than-sixty-bytes/so-it-takes-a-block/of-its-own/x"
static int op_slow_symlink(void)
{
    return made(create(fs, "g_slow", S_IFLNK, 0777, (unsigned long)SLOW_TARGET));
}

static int op_create_in_full(void)
{
    char name[64];

    long_name(name, 15);
    return made(create(fs, name, S_IFREG, 0644, 0));
}

static int op_link_in_full(void)
{
    char name[64];
    int f = walk(fs, "hole", 0), r, e;

    long_name(name, 15);
    r = linkat(f, fs, name);
    e = errno;
    close(f);
    errno = e;
    return r;
}

static const struct op {
    const char *name;
    int (*fn)(void);
    const char *file;                   /* a file written: its size and bytes checked */
    uint32_t off, n;                    /* ... where */
    char c;
    const char *made;                   /* or a name made */
} ops[] = {
    { "fill part of a hole", op_hole_part, "hole", 2000, 1, 'x', NULL },
    { "fill a hole's whole block", op_hole_whole, "hole", BSIZE, BSIZE, 'w', NULL },
    { "grow past the end", op_grow, "small", 5000, 1, 'x', NULL },
    { "grow inside the last block", op_grow_in_block, "small", 100, 1, 'x', NULL },
    { "fill a hole named by an old indirect table", op_hole_in_table, "tr", 20 * BSIZE, 3, 'h',
      NULL },
    { "grow through an indirect block", op_ind, "g_ind", 20 * BSIZE, 3, 'i', NULL },
    { "grow through a double-indirect block", op_dind, "g_dind", 300000, 3, 'd', NULL },
    { "grow through a triple-indirect block", op_tind, "g_tind", TIND_AT, 3, 't', NULL },
    { "mkdir", op_mkdir, NULL, 0, 0, 0, "newdir" },
    { "create", op_create, NULL, 0, 0, 0, "newfile" },
    { "fast symlink", op_fast_symlink, NULL, 0, 0, 0, "g_fast" },
    { "slow symlink", op_slow_symlink, NULL, 0, 0, 0, "g_slow" },
    { "create in a full directory", op_create_in_full, NULL, 0, 0, 0,
      "full/15-a-name-of-fifty-six-bytes-to-fill-a-directory-block-x" },
    { "link in a full directory", op_link_in_full, NULL, 0, 0, 0,
      "full/15-a-name-of-fifty-six-bytes-to-fill-a-directory-block-x" },
};

/* ---- what the image says */

/* The allocation state of WORK as on disk: the superblock's and the
 * group's free counts and both bitmaps. */
struct alloc {
    char sb_counts[8], gd_counts[6];
    char bmap[BSIZE], imap[BSIZE];
};

static int read_at(int fd, uint32_t off, void *to, uint32_t n)
{
    return lseek(fd, off, SEEK_SET) == (int)off && read(fd, to, n) == (int)n ? 0 : -1;
}

/* The superblock's s_state: 1 valid, 2 errors found (a leak said so), 0
 * while a writable instance is on it. */
static int sb_state(void)
{
    uint16_t st = 0;
    int img = open(WORK, O_RDONLY);

    read_at(img, 1024 + 58, &st, sizeof(st));
    close(img);
    return st;
}

static int alloc_state(struct alloc *a)
{
    uint32_t gd[3];
    int img = open(WORK, O_RDONLY), r;

    r = img < 0 || read_at(img, 1024 + 12, a->sb_counts, 8) < 0 ||
                read_at(img, 2 * BSIZE, gd, sizeof(gd)) < 0 ||
                read_at(img, 2 * BSIZE + 12, a->gd_counts, 6) < 0 ||
                read_at(img, gd[0] * BSIZE, a->bmap, BSIZE) < 0 ||
                read_at(img, gd[1] * BSIZE, a->imap, BSIZE) < 0
            ? -1
            : 0;
    close(img);
    return r;
}

/* Do the group's free counts on the disk say what its bitmaps say? A
 * free whose descriptor write the disk failed left them apart (e2fsck:
 * "Free blocks count wrong for group #0", exit 4). (Not asked of the
 * superblock's: a sum e2fsck 1.47 recomputes without complaint, exit 0,
 * which bfree and ifree leave to the next write_super.) */
static int counts_agree(const struct alloc *a)
{
    uint32_t sb[6], nblocks, ninodes, i, freeb = 0, freei = 0;
    uint16_t gd[2];
    int img = open(WORK, O_RDONLY), ok;

    ok = img >= 0 && read_at(img, 1024, sb, sizeof(sb)) == 0;
    close(img);
    if (!ok)
        return 0;
    memcpy(gd, a->gd_counts, 4);
    nblocks = sb[1] - sb[5]; /* blocks_count - first_data_block: one group */
    ninodes = sb[0];
    for (i = 0; i < nblocks && i < 8 * BSIZE; i++)
        freeb += !(a->bmap[i / 8] & (1 << (i % 8)));
    for (i = 0; i < ninodes && i < 8 * BSIZE; i++)
        freei += !(a->imap[i / 8] & (1 << (i % 8)));
    return gd[0] == freeb && gd[1] == freei;
}

static int file_size(const char *file)
{
    struct stat st;
    int f = walk(fs, file, WALK_NOFOLLOW), r = f >= 0 && fstat(f, &st) == 0 ? (int)st.st_size : -1;

    close(f);
    return r;
}

/* Bytes of STALE in the block of file holding off, and whether the
 * n bytes at off are c (want). */
static int stale_near(const char *file, uint32_t off, uint32_t n, char c, int want, int *right)
{
    int f = walk(fs, file, 0), rd = f >= 0 ? ready(f, R_READ) : -1, got, i, stale = 0;
    uint32_t at = off - off % BSIZE;

    *right = 1;
    for (; rd >= 0 && at < off + n; at += BSIZE) {
        if (lseek(rd, at, SEEK_SET) != (int)at || (got = read(rd, buf, BSIZE)) < 0)
            break;
        for (i = 0; i < got; i++) {
            stale += buf[i] == STALE;
            if (want && at + i >= off && at + i < off + n && buf[i] != c)
                *right = 0;
        }
    }
    close(rd);
    close(f);
    return stale;
}

/* 1 if WORK mounts writable (the mount's check found nothing), 0 if not. */
static int mounts_writable(void)
{
    int img = open(WORK, O_RDWR), again = img >= 0 ? fsopen("ext2", img, "") : -1, f;

    close(img);
    f = create(again, "probe", S_IFREG, 0644, 0);
    close(f);
    close(again);
    return f >= 0;
}

/* Keep the image a failure left, for the host's e2fsck (if a carrier is
 * attached at /mnt): op* must be clean, free* and from* may leak. */
static int carrier;

static void keep_image(const char *kind, int k, int n)
{
    char path[64];

    if (!carrier)
        return;
    snprintf(path, sizeof(path), "/mnt/eio/%s%02d-w%03d.img", kind, k, n);
    copyfile(WORK, path);
}

static void each_failed_disk_write_leaves_the_image_as_it_was(void)
{
    static struct alloc before, after;
    unsigned k;
    int n, r, err, left, size, stale, right, writes = 0, kept = 0;

    no_instance_left();
    CHECK(make_template() == 0, "setup");
    carrier = mkdir("/mnt/eio", 0755) == 0;
    for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
        const struct op *o = &ops[k];
        for (n = 1; n < 200; n++) {
            int img;
            CHECK(fresh_instance() >= 0 && alloc_state(&before) == 0, "mount");
            size = o->file ? file_size(o->file) : 0;
            failnth(FAILNTH_WRITES | n);
            r = o->fn();
            err = errno;
            left = failnth(0);
            if (r < 0) {
                CHECK(err == EIO, "%s, write %d failing: errno %d, not EIO", o->name, n, err);
                CHECK(alloc_state(&after) == 0, "read the image");
                CHECK(memcmp(before.sb_counts, after.sb_counts, 8) == 0 &&
                          memcmp(before.gd_counts, after.gd_counts, 6) == 0,
                      "%s, write %d failing: the free counts changed", o->name, n);
                CHECK(memcmp(before.bmap, after.bmap, BSIZE) == 0,
                      "%s, write %d failing: the block bitmap changed (a leak)", o->name, n);
                CHECK(memcmp(before.imap, after.imap, BSIZE) == 0,
                      "%s, write %d failing: the inode bitmap changed (a leak)", o->name, n);
                if (o->file)
                    CHECK(file_size(o->file) == size, "%s, write %d failing: size %d, was %d",
                          o->name, n, file_size(o->file), size);
                if (o->made)
                    CHECK(file_size(o->made) < 0, "%s, write %d failing: %s made", o->name, n,
                          o->made);
            } else if (o->made) {
                CHECK(file_size(o->made) >= 0, "%s, write %d failing: no %s", o->name, n, o->made);
            }
            if (o->file) {
                stale = stale_near(o->file, o->off, o->n, o->c, r == 0, &right);
                CHECK(!stale, "%s, write %d failing: %d bytes of a deleted file in %s", o->name, n,
                      stale, o->file);
                CHECK(right, "%s, write %d failing: the write said done, its bytes are not there",
                      o->name, n);
            }
            close(fs);
            CHECK(mounts_writable(), "%s, write %d failing (%s): the image mounts read-only",
                  o->name, n, r < 0 ? "failed" : "done");
            if (r == 0 && o->file) { /* done is on the disk: mounted again, it reads back */
                CHECK((img = open(WORK, O_RDWR)) >= 0, "open");
                fs = fsopen("ext2", img, "");
                close(img);
                CHECK(fs >= 0, "mount again");
                stale_near(o->file, o->off, o->n, o->c, 1, &right);
                CHECK(right && file_size(o->file) >= (int)(o->off + o->n),
                      "%s, write %d failing: done, and mounted again the file has size %d", o->name,
                      n, file_size(o->file));
                close(fs);
            }
            if (r < 0 && carrier) {
                keep_image("op", k, n);
                kept++;
            }
            if (left)
                break;                  /* past the operation's last write */
        }
        CHECK(n > 1 && n < 200, "%s: %d writes", o->name, n - 1);
        printf("  %s: %d writes\n", o->name, n - 1);
        writes += n - 1;
    }
    printf("  %d failing writes tried, %d images kept for e2fsck\n", writes, kept);
    PASS();
}

/* A slow symlink is one block: its text and the NUL that ends it (what
 * e2fsck holds it to, and the mount's check since this round, which
 * reads the block and compares the text's length with the size). The
 * longest target create takes (1023 bytes: PATH_MAX) fills a 1 KiB
 * block but its last byte, and the image stays healthy to the check. */
static void the_longest_symlink_leaves_the_image_healthy(void)
{
    static char target[BSIZE + 1];
    int img, f;

    no_instance_left();
    CHECK(copyfile("/etc/fuzz.ext2", WORK) == 0 && (img = open(WORK, O_RDWR)) >= 0, "copy");
    fs = fsopen("ext2", img, "");
    close(img);
    CHECK(fs >= 0, "mount");
    memset(target, 'l', BSIZE - 1);
    CHECK((f = create(fs, "longest", S_IFLNK, 0777, (unsigned long)target)) >= 0,
          "a symlink of %d bytes", BSIZE - 1);
    close(f);
    target[BSIZE - 1] = 'l';
    CHECK_ERR(create(fs, "too-long", S_IFLNK, 0777, (unsigned long)target), ENAMETOOLONG);
    CHECK(readlinkat(fs, "longest", buf, sizeof(buf)) == BSIZE - 1, "readlink");
    close(fs);
    CHECK(mounts_writable(), "the image is damaged after the symlinks");
    unlink(WORK);
    PASS();
}

/* The inode a name has (0: none). */
static int ino_of(const char *name)
{
    struct stat st;
    int f = walk(fs, name, WALK_NOFOLLOW), r = f >= 0 && fstat(f, &st) == 0 ? (int)st.st_ino : 0;

    close(f);
    return r;
}

/* The directory that holds `name`: "." or what is before its last '/'. */
static void parent_of(const char *name, char *dir, int len)
{
    const char *slash = strrchr(name, '/');

    snprintf(dir, len, "%.*s", slash ? (int)(slash - name) : 1, slash ? name : ".");
}

/* The link count of the directory that holds `name` (-1: none). */
static int parent_links(const char *name)
{
    char dir[32];
    struct stat st;
    int f, r;

    parent_of(name, dir, sizeof(dir));
    f = walk(fs, dir, 0);
    r = f >= 0 && fstat(f, &st) == 0 ? (int)st.st_nlink : -1;
    close(f);
    return r;
}

/* A rename whose writes fail in turn: a file to a new name, a file over
 * another file's name (the target has one link: done, it is freed), a
 * directory to a new name in its parent, to another parent, over an empty
 * directory there and in its own parent (e2fsck checks the ".." and the
 * parents' counts on the images kept: ren*). The tenth round's kernel
 * moved a directory's names first and its ".." last: "rename d1/sub,
 * write 3 failing: the old name is gone". A failed rename leaves the old name alone
 * (and the target's name on the target, the image byte for byte as it
 * was), a done one the new name alone on the moved inode; either way the
 * image is healthy. The ninth round's first kernel left both names for a
 * file of one link when the disk failed the old name's removal ('write 2
 * failing'); the ninth round's last dropped the target's name first, and
 * a failure after it lost the target with the file not moved ("over a
 * name, write 3 failing: the target's name is gone"). */
static void a_failed_rename_leaves_one_name(void)
{
    static const struct {
        const char *from, *to;
        int over;                       /* `to` names a file already */
    } cases[] = {
        { "hole", "renamed", 0 },  { "hole", "g_ind", 1 },      { "full", "moved", 0 },
        { "d1/sub", "d2/sub", 0 }, { "d1/sub", "d2/empty", 1 }, { "d1/sub", "d1/e1", 1 }
    };
    static struct alloc before, after;
    unsigned k;
    int n, r, err, left, src, dst, now_from, now_to, from_links, to_links, isdir, moves;
    char pfrom[32], pto[32];

    no_instance_left();
    for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        const char *from = cases[k].from, *to = cases[k].to;
        for (n = 1; n < 100; n++) {
            CHECK(fresh_instance() >= 0 && alloc_state(&before) == 0, "mount");
            src = ino_of(from);
            dst = ino_of(to);
            from_links = parent_links(from);
            to_links = parent_links(to);
            isdir = strchr(from, '/') || !strcmp(from, "full");
            parent_of(from, pfrom, sizeof(pfrom));
            parent_of(to, pto, sizeof(pto));
            moves = isdir && strcmp(pfrom, pto) != 0;
            failnth(FAILNTH_WRITES | n);
            r = renameat(fs, from, fs, to, 0);
            err = errno;
            left = failnth(0);
            now_from = ino_of(from);
            now_to = ino_of(to);
            if (!strncmp(from, "d1/sub", 6)) /* (what it holds moves with it) */
                CHECK(ino_of(r < 0                     ? "d1/sub/f"
                             : !strcmp(to, "d2/sub")   ? "d2/sub/f"
                             : !strcmp(to, "d2/empty") ? "d2/empty/f"
                                                       : "d1/e1/f"),
                      "rename %s to %s, write %d failing: its file is not in it", from, to, n);
            if (r < 0) {
                CHECK(err == EIO, "rename %s, write %d failing: errno %d, not EIO", from, n, err);
                CHECK(now_from == src && now_to == src ? 0 : 1,
                      "rename %s, write %d failing: both names, for one link", from, n);
                CHECK(now_from == src, "rename %s, write %d failing: the old name is gone", from,
                      n);
                CHECK(now_to == dst, "rename %s to %s, write %d failing: %s", from, to, n,
                      !now_to ? "the target's name is gone" : "the new name is there");
                CHECK(alloc_state(&after) == 0 && memcmp(&before, &after, sizeof(before)) == 0,
                      "rename %s, write %d failing: the bitmaps or counts changed", from, n);
                CHECK(parent_links(from) == from_links && parent_links(to) == to_links,
                      "rename %s to %s, write %d failing: the parents' links %d %d, were %d %d",
                      from, to, n, parent_links(from), parent_links(to), from_links, to_links);
            } else {
                /* A directory's ".." leaves one parent for the other. The
                 * counts go down last: when the disk fails that write, the
                 * rename is done with a count one too high (a leak). */
                int fl = from_links - moves - (!moves && cases[k].over), pl = parent_links(from);
                int tl = to_links + moves - cases[k].over, ql = parent_links(to);
                if (isdir)
                    CHECK((pl == fl || (!left && pl == fl + 1)) &&
                              (ql == tl || (!left && ql == tl + 1)),
                          "rename %s to %s, write %d failing (done): the parents' links %d %d, "
                          "were %d %d",
                          from, to, n, parent_links(from), parent_links(to), from_links, to_links);
                CHECK(!now_from && now_to == src,
                      "rename %s, write %d failing (done): old name %d, new name %d (was %d)", from,
                      n, now_from, now_to, src);
            }
            close(fs);
            CHECK(mounts_writable(), "rename %s, write %d failing (%s): the image mounts read-only",
                  from, n, r < 0 ? "failed" : "done");
            if (!left)
                keep_image("ren", k, n);
            if (left)
                break;
        }
        CHECK(n > 1 && n < 100, "rename %s: %d writes", from, n - 1);
        printf("  rename %s to %s: %d writes\n", from, to, n - 1);
    }
    PASS();
}

/* ---- freeing, with the disk failing: the blocks freed cannot be named
 * back, for that needs the disk that just failed. So a free that meets a
 * failing write leaves the instance writing nothing more (EUCLEAN, one
 * console line): before, a truncation whose table write failed left the
 * table on the disk naming blocks the bitmap called free, the instance
 * went on, and the next file written took them (two files, one block). */
#define CUT_SHORT 1500                   /* into the direct blocks: the trees all go */
#define CUT_DIND  (290 * BSIZE + 10)    /* into the double-indirect tree, on its way */

static int op_truncate(void)
{
    return truncate_at(fs, "tr", CUT_SHORT);
}

/* tr's double-indirect table keeps its first word (a table of level 1,
 * which keeps its first 23 words and loses the 25th: block 292, which
 * holds byte 300000), the first words are kept: the tables on the way to
 * the cut lose their later words. */
static int op_truncate_dind(void)
{
    return truncate_at(fs, "tr", CUT_DIND);
}

static int op_unlink(void)
{
    return unlinkat(fs, "tr", 0);       /* (the inode and its blocks go here: no fd) */
}

#define RMDIR_NAME "d2/empty"

static int op_rmdir(void)
{
    return unlinkat(fs, RMDIR_NAME, UNLINK_DIR); /* (its block, its inode, d2's count) */
}

/* After the free: a new file of 8 blocks. 0 written, 1 refused (EUCLEAN:
 * the instance writes no more), -1 another failure. */
static int write_after(void)
{
    int f = create(fs, "after", S_IFREG, 0644, 0), w = f >= 0 ? ready(f, R_WRITE) : -1, i, r = 0;

    if (f < 0)
        return errno == EUCLEAN ? 1 : -1;
    memset(buf, 'a', sizeof(buf));
    for (i = 0; i < 8 && r == 0; i++)
        if (write(w, buf, sizeof(buf)) != (int)sizeof(buf))
            r = errno == EUCLEAN ? 1 : -1;
    close(w);
    close(f);
    return r;
}

/* The size of tr and whether its first n bytes are all 't'. */
static int tr_intact(uint32_t n)
{
    int f = walk(fs, "tr", 0), rd = f >= 0 ? ready(f, R_READ) : -1, got = 0, i, ok = rd >= 0;
    uint32_t at;

    for (at = 0; ok && at < n; at += got) {
        got = read(rd, buf, n - at < BSIZE ? n - at : BSIZE);
        ok = got > 0;
        for (i = 0; ok && i < got; i++)
            ok = buf[i] == 't';
    }
    close(rd);
    close(f);
    return ok;
}

#define TR_SIZE 300003                  /* make_template's tr */

/* tr's last 3 bytes, at 300000 (in the double-indirect tree), are 't'. */
static int tr_end_intact(void)
{
    int f = walk(fs, "tr", 0), rd = f >= 0 ? ready(f, R_READ) : -1, ok;

    ok = rd >= 0 && lseek(rd, 300000, SEEK_SET) == 300000 && read(rd, buf, 3) == 3 &&
         memcmp(buf, "ttt", 3) == 0;
    close(rd);
    close(f);
    return ok;
}

/* A free that meets a failing write (once) either did not happen - the
 * image byte for byte as it was - or happened with the blocks the disk
 * failed to free leaked (taken, named by nothing: e2fsck gives them
 * back). Either way the instance writes on, and the next file written
 * shares no block with anything (the images go to /mnt/eio/free-*, where
 * e2fsck -fn may report leaks and nothing else). The ninth round's kernel
 * stopped the instance instead (damaged, 55 of 56 truncation writes): it
 * freed a block before the table or inode naming it was written. */
static void a_failed_free_shares_no_block_and_writes_on(void)
{
    static struct alloc before, after_free, clean;
    static const struct {
        const char *name;
        int (*fn)(void);
        int len; /* the size a truncation leaves, -1: an unlink, -2: a rmdir */
    } frees[] = { { "truncate", op_truncate, CUT_SHORT },
                  { "truncate into the double-indirect tree", op_truncate_dind, CUT_DIND },
                  { "unlink", op_unlink, -1 },
                  { "rmdir", op_rmdir, -2 } };
    unsigned k;
    int n, r, err, left, after, size, undone, leaked, len, gone;

    no_instance_left();
    printf("e2eio: frees (the mount's check may say read-only from here on)\n");
    for (k = 0; k < sizeof(frees) / sizeof(frees[0]); k++) {
        undone = leaked = 0;
        /* The bitmaps the free leaves when no write fails: what "a leak"
         * is measured against (a superblock count the disk refused is
         * not one: the next write_super sets it). */
        CHECK(fresh_instance() >= 0 && frees[k].fn() == 0 && alloc_state(&clean) == 0 &&
                  sb_state() == 0,
              "%s with no write failing: done, the image mounted (not clean), no error",
              frees[k].name);
        close(fs);
        for (n = 1; n < 200; n++) {
            CHECK(fresh_instance() >= 0 && alloc_state(&before) == 0, "mount");
            failnth(FAILNTH_WRITES | n);
            r = frees[k].fn();
            err = errno;
            left = failnth(0);
            CHECK(r == 0 || err == EIO, "%s, write %d failing: errno %d, not EIO", frees[k].name, n,
                  err);
            CHECK(alloc_state(&after_free) == 0, "read the image");
            CHECK(counts_agree(&after_free),
                  "%s, write %d failing: the free counts are not the bitmaps' any more",
                  frees[k].name, n);
            size = file_size("tr");
            len = frees[k].len;
            /* done: the cut made, the name gone */
            gone = len >= 0 ? size != TR_SIZE : file_size(len == -1 ? "tr" : RMDIR_NAME) < 0;
            if (r < 0 && !gone) {
                CHECK(memcmp(&before, &after_free, sizeof(before)) == 0,
                      "%s, write %d failing: not done, and the image changed", frees[k].name, n);
                CHECK(len < 0 || (tr_intact(16 * BSIZE) && tr_end_intact()),
                      "%s, write %d failing: not done, and tr's bytes changed", frees[k].name, n);
                undone++;
            } else {
                CHECK(len >= 0    ? size == len && tr_intact(len < 16 * BSIZE ? len : 16 * BSIZE)
                      : len == -1 ? size < 0
                                  : size == TR_SIZE && file_size(RMDIR_NAME) < 0,
                      "%s, write %d failing (%s): tr's size %d", frees[k].name, n,
                      r < 0 ? "failed" : "done", size);
                /* The name is gone, or the cut made: the call did what it
                 * said, whatever leaks (unlink(2), ftruncate(2)); the leak
                 * is marked in the superblock. */
                CHECK(r == 0, "%s, write %d failing: %s, and errno %d", frees[k].name, n,
                      len >= 0 ? "the cut is made" : "the name is gone", err);
                CHECK((memcmp(clean.bmap, after_free.bmap, BSIZE) == 0 &&
                       memcmp(clean.imap, after_free.imap, BSIZE) == 0) ||
                          sb_state() == 2,
                      "%s, write %d failing: blocks or inodes leaked, and the superblock's state "
                      "is %d, not 2 (errors)",
                      frees[k].name, n, sb_state());
                leaked += !left;
            }
            if (left)
                CHECK(sb_state() == 0,
                      "%s, no write failing: the superblock's state %d (not 0: "
                      "mounted, no error)",
                      frees[k].name, sb_state());
            after = write_after();
            close(fs);
            CHECK(after == 0, "%s, write %d failing: %s", frees[k].name, n,
                  after == 1 ? "the instance writes no more" : "the next file's write failed");
            CHECK(mounts_writable(), "%s, write %d failing: the image mounts read-only",
                  frees[k].name, n);
            if (!left)
                keep_image("free", k, n);
            if (left)
                break;
        }
        CHECK(n > 1 && n < 200, "%s: %d writes", frees[k].name, n - 1);
        printf("  %s: %d writes; %d failed and left the image as it was, %d went on (a leak)\n",
               frees[k].name, n - 1, undone, leaked);
    }
    PASS();
}

/* ---- a disk that fails for good: failnth(FAILNTH_WRITES | FAILNTH_FROM
 * | n), the nth write and every later one fail, undoing included. Every
 * operation must leave the old image (byte for byte, as above), or stop
 * the instance (damaged: EUCLEAN from then on) with an image that only
 * leaks - e2fsck -fn on /mnt/eio/from-* may report blocks and inodes
 * taken that nothing names and the counts and i_blocks that follow from
 * them, nothing else (tools/test.py's leaks_only). A free may also be
 * done with its blocks leaked and the instance writing on. */
static void a_disk_failing_for_good_leaves_the_old_image_or_a_damaged_one(void)
{
    static struct alloc before, after;
    static const struct {
        const char *name;
        int (*fn)(void);       /* NULL: rename from to to */
        int frees;             /* 1: a free (may leak); 2: a rmdir, done once its name is gone */
        const char *from, *to; /* a rename's names: each keeps its inode if not done */
    } more[] = { { "rename", NULL, 0, "hole", "renamed" },
                 { "rename over a name", NULL, 0, "hole", "g_ind" },
                 { "rename a directory", NULL, 0, "full", "moved" },
                 { "rename a directory to another", NULL, 0, "d1/sub", "d2/sub" },
                 { "rename a directory over another's", NULL, 0, "d1/sub", "d2/empty" },
                 { "rename a directory over one beside", NULL, 0, "d1/sub", "d1/e1" },
                 { "truncate", op_truncate, 1, NULL, NULL },
                 { "truncate into the double-indirect tree", op_truncate_dind, 1, NULL, NULL },
                 { "unlink", op_unlink, 1, NULL, NULL },
                 { "rmdir", op_rmdir, 2, NULL, NULL } };
    unsigned k, nops = sizeof(ops) / sizeof(ops[0]), nmore = sizeof(more) / sizeof(more[0]);
    int n, r, err, left, size, probe, damage, old, tries = 0, stopped = 0, kept = 0, src, dst;

    no_instance_left();
    CHECK_ERR(failnth(FAILNTH_FROM | 1), EINVAL); /* (FAILNTH_WRITES' only) */
    /* The disk stays dead: the second write fails too, and failnth(0)
     * says the count fired. */
    CHECK(fresh_instance() >= 0, "mount");
    failnth(FAILNTH_WRITES | FAILNTH_FROM | 1);
    r = create(fs, "one", S_IFREG, 0644, 0);
    err = errno;
    probe = create(fs, "two", S_IFREG, 0644, 0);
    left = failnth(0);
    CHECK(r < 0 && err == EIO && probe < 0 && left == 0,
          "a disk failing for good: create gave %d (errno %d), then %d; failnth(0) %d", r, err,
          probe, left);
    close(fs);
    for (k = 0; k < nops + nmore; k++) {
        const struct op *o = k < nops ? &ops[k] : NULL;
        const char *name = o ? o->name : more[k - nops].name;
        const char *from = o ? NULL : more[k - nops].from, *to = o ? NULL : more[k - nops].to;
        for (n = 1; n < 200; n++) {
            CHECK(fresh_instance() >= 0 && alloc_state(&before) == 0, "mount");
            size = o && o->file ? file_size(o->file) : 0;
            src = from ? ino_of(from) : 0;
            dst = to ? ino_of(to) : 0;
            failnth(FAILNTH_WRITES | FAILNTH_FROM | n);
            r = o                   ? o->fn()
                : more[k - nops].fn ? more[k - nops].fn()
                                    : renameat(fs, from, fs, to, 0);
            err = errno;
            left = failnth(0);
            if (left) {
                CHECK(r == 0, "%s, every write failing from %d on: done, and yet %d", name, n, err);
                close(fs);
                break;                  /* past the operation's last write */
            }
            CHECK(r == 0 || err == EIO || err == EUCLEAN,
                  "%s, every write failing from %d on: errno %d, not EIO", name, n, err);
            probe = create(fs, "probe", S_IFREG, 0644, 0);
            damage = probe < 0 && errno == EUCLEAN;
            CHECK(probe >= 0 || damage, "%s, writes failing from %d on: then create says %d", name,
                  n, errno);
            close(probe);
            if (probe >= 0)
                unlinkat(fs, "probe", 0);
            CHECK(alloc_state(&after) == 0, "read the image");
            old = memcmp(&before, &after, sizeof(before)) == 0 &&
                  (!o || !o->file || file_size(o->file) == size) &&
                  (!o || !o->made || file_size(o->made) < 0) &&
                  (!from || (ino_of(from) == src && ino_of(to) == dst));
            if (!damage)
                CHECK(counts_agree(&after),
                      "%s, every write failing from %d on: the instance writes on, and the free "
                      "counts are not the bitmaps'",
                      name, n);
            if (k >= nops && more[k - nops].frees == 2)
                CHECK(r == 0 || file_size(RMDIR_NAME) >= 0,
                      "%s, every write failing from %d on: the name is gone, and errno %d", name, n,
                      err);
            if (r < 0 && !damage && !(k >= nops && more[k - nops].frees))
                CHECK(old,
                      "%s, every write failing from %d on: neither the old image nor a "
                      "damaged instance",
                      name, n);
            /* A free not done (tr's size as it was) with the instance
             * writing on: tr's bytes as they were too. A truncation zeroes
             * the last block's tail first and puts it back if the cut
             * fails; the disk failing that too left zeros inside tr's size
             * and the instance writing on. */
            if (r < 0 && !damage && k >= nops && more[k - nops].frees && file_size("tr") == TR_SIZE)
                CHECK(tr_intact(16 * BSIZE) && tr_end_intact(),
                      "%s, every write failing from %d on: not done, the instance writes on, and "
                      "tr's bytes changed",
                      name, n);
            close(fs);
            if (!damage)
                CHECK(mounts_writable(),
                      "%s, writes failing from %d on: the image mounts "
                      "read-only, the instance wrote on",
                      name, n);
            stopped += damage;
            tries++;
            if (damage || !old) { /* (the old image: its bitmaps and counts seen above) */
                keep_image("from", k, n);
                kept++;
            }
        }
        CHECK(n > 1 && n < 200, "%s: %d writes", name, n - 1);
    }
    printf("  a disk failing for good: %d tries, %d left the instance damaged, %d images kept\n",
           tries, stopped, kept);
    PASS();
}

/* ---- the block cache's last write-back, at an instance's release. ext2
 * writes into the device's cache; the disk sees the blocks when they are
 * evicted, at sync, and at the instance's last reference (vfs's sync and
 * ext2_release's). failnth(FAILNTH_WRITES | n) counts the cache's
 * commands to the disk too (bcache's write_run): here on /dev/hd2, a
 * small ext2 disk of its own (the ext2_eio suite attaches it; init does
 * not attach it anywhere). A write-back that fails at release has nobody
 * to return its error to: the console says it (the host checks the
 * lines: the unit and the block), and the superblock's state goes to 2
 * (errors found) where the disk takes it. The cache keeps what the disk
 * refused, so no byte is lost once the disk writes again. Before, it was
 * said to nobody and the image said "valid". */
#define WB_DISK   "/dev/hd2"
#define WB_BLOCKS 6

static int wb_state(int set)
{
    uint16_t st = (uint16_t)set;
    int d = open(WB_DISK, O_RDWR), r;

    if (set)
        r = lseek(d, 1024 + 58, SEEK_SET) == 1024 + 58 && write(d, &st, 2) == 2 ? set : -1;
    else
        r = read_at(d, 1024 + 58, &st, 2) == 0 ? st : -1;
    close(d);
    return r;
}

static int wb_mount(void)
{
    int d = open(WB_DISK, O_RDWR), f = d >= 0 ? fsopen("ext2", d, "") : -1;

    close(d);
    return f;
}

/* The superblock's s_mnt_count on WB_DISK (through the cache: what the
 * disk holds once synced), -1 if it cannot be read. */
static int wb_mounts(void)
{
    uint16_t n;
    int d = open(WB_DISK, O_RDONLY), r = read_at(d, 1024 + 52, &n, 2) == 0 ? n : -1;

    close(d);
    return r;
}

/* Can instance d make a file? 0, or the errno. */
static int wb_creates(int d, const char *name)
{
    int f = create(d, name, S_IFREG, 0644, 0), err = errno;

    if (f < 0)
        return err;
    close(f);
    return unlinkat(d, name, 0) == 0 ? 0 : errno;
}

/* name holds WB_BLOCKS blocks of c (after the instance is gone). */
static int wb_intact(const char *name, char c)
{
    int d = wb_mount(), f = d >= 0 ? walk(d, name, 0) : -1, rd = f >= 0 ? ready(f, R_READ) : -1;
    int i, j, ok = rd >= 0;

    for (i = 0; ok && i < WB_BLOCKS; i++) {
        ok = read(rd, buf, BSIZE) == BSIZE;
        for (j = 0; ok && j < BSIZE; j++)
            ok = buf[j] == c;
    }
    ok = ok && read(rd, buf, 1) == 0;
    close(rd);
    close(f);
    close(d);
    return ok;
}

static void a_failed_write_back_at_release_is_said_and_marked(void)
{
    char name[16];
    int d, f, w, n, i, r, left, from, state, tries = 0;

    no_instance_left();
    CHECK(wb_state(0) == 1, "%s: no ext2 disk there (state %d)", WB_DISK, wb_state(0));
    /* Each write-back the release makes failing once (n), then every one
     * of them from the first on (from = 1). */
    for (from = 0; from < 2; from++) {
        for (n = 1; n < 100; n++) {
            CHECK(wb_state(1) == 1 && (d = wb_mount()) >= 0, "mount %s", WB_DISK);
            snprintf(name, sizeof(name), "%s%02d", from ? "from" : "wb", n);
            CHECK((f = create(d, name, S_IFREG, 0644, 0)) >= 0 && (w = ready(f, R_WRITE)) >= 0,
                  "create %s", name);
            memset(buf, 'a' + n % 26, sizeof(buf));
            for (i = 0; i < WB_BLOCKS; i++)
                CHECK(write(w, buf, BSIZE) == BSIZE, "write %s", name);
            close(w);
            close(f);
            failnth(FAILNTH_WRITES | (from ? FAILNTH_FROM : 0) | n);
            r = close(d);               /* the last reference: the release's write-back */
            left = failnth(0);
            if (left)
                break;                  /* past the release's last write-back */
            tries++;
            /* Nobody to say it to: close says 0 (the descriptor is gone). */
            CHECK(r == 0, "write-back %d failing at release: close says %d", n, errno);
            /* what the cache kept, written now that the disk writes */
            sync();
            state = wb_state(0);
            if (from) /* (the mount's "not clean" reached the disk, or the error state did) */
                CHECK(state == 0 || state == 2, "every write-back failing: the state %d", state);
            else
                CHECK(state == 2,
                      "write-back %d failing at release: the superblock's state is %d, not 2 "
                      "(errors found)",
                      n, state);
            CHECK(wb_intact(name, 'a' + n % 26), "write-back %d%s failing at release: %s lost", n,
                  from ? " and every later one" : "", name);
            if (from)
                break;                  /* (one try: every write-back fails) */
        }
        CHECK(from ? n == 1 && !left : n > 1 && n < 100, "%s: %d write-backs at release",
              from ? "from" : "once", n - 1);
    }
    /* No failure: the state stays 1. */
    CHECK(wb_state(1) == 1 && (d = wb_mount()) >= 0, "mount %s", WB_DISK);
    CHECK((f = create(d, "clean", S_IFREG, 0644, 0)) >= 0, "create clean");
    close(f);
    close(d);
    CHECK(wb_state(0) == 1, "no write-back failing: the state %d", wb_state(0));
    printf("  write-back at release: %d tries\n", tries);
    PASS();
}

/* ---- the superblock's state (doc/decisions.md, "ext2's clean state").
 * A writable instance writes "not clean" (s_state without VALID) and one
 * more mount (s_mnt_count) before anything else, and its image gets VALID
 * back at its end - the last close, a revoke, poweroff - so that e2fsck
 * -p checks an image whose machine stopped while it was in use. A
 * read-only instance changes nothing. An image that says it has errors
 * or was not cleanly unmounted is mounted writable (a console line: the
 * host checks it) and keeps saying so. Before, s_state was 1 throughout. */
static void the_state_says_not_clean_while_an_instance_writes(void)
{
    int d, ro, n, st;

    no_instance_left();
    CHECK(wb_state(1) == 1 && (n = wb_mounts()) >= 0, "%s: set the state", WB_DISK);
    CHECK((d = wb_mount()) >= 0, "mount %s", WB_DISK);
    CHECK((st = wb_state(0)) == 0 && wb_mounts() == n + 1,
          "a writable instance: the state %d (not 0), the mount count %d (not %d)", st, wb_mounts(),
          n + 1);
    CHECK(wb_creates(d, "st") == 0, "a writable instance makes a file");
    close(d);
    CHECK((st = wb_state(0)) == 1, "its last close: the state %d, not 1 (clean)", st);
    /* read-only: by the option, and by a source read-only */
    CHECK((d = open(WB_DISK, O_RDWR)) >= 0 && (ro = fsopen("ext2", d, "ro")) >= 0, "mount ro");
    close(d);
    CHECK(wb_state(0) == 1 && wb_mounts() == n + 1 && wb_creates(ro, "st") == EROFS,
          "a read-only instance: the state %d, the mount count %d (not %d)", wb_state(0),
          wb_mounts(), n + 1);
    close(ro);
    CHECK((d = open(WB_DISK, O_RDONLY)) >= 0 && (ro = fsopen("ext2", d, "")) >= 0, "mount ro fd");
    close(d);
    CHECK(wb_state(0) == 1 && wb_mounts() == n + 1 && wb_creates(ro, "st") == EROFS,
          "a read-only source: the state %d, the mount count %d", wb_state(0), wb_mounts());
    close(ro);
    /* revoke ends a writable instance as its last close does */
    CHECK((d = wb_mount()) >= 0 && wb_state(0) == 0, "mount again: state %d", wb_state(0));
    CHECK(wb_creates(d, "st") == 0 && revoke(d) == 0, "revoke");
    CHECK((st = wb_state(0)) == 1 && wb_mounts() == n + 2, "revoked: the state %d, not 1", st);
    close(d);
    /* An image not cleanly unmounted, then one with errors (Linux writes
     * 3, VALID | ERROR): writable, and still saying so after. */
    {
        uint16_t v[] = { 0, 3 }, want[] = { 0, 2 };
        unsigned i;
        for (i = 0; i < 2; i++) {
            int dev = open(WB_DISK, O_RDWR);
            CHECK(lseek(dev, 1024 + 58, SEEK_SET) == 1024 + 58 && write(dev, &v[i], 2) == 2,
                  "write state %u", v[i]);
            close(dev);
            CHECK((d = wb_mount()) >= 0 && wb_creates(d, "st") == 0,
                  "an image of state %u mounts writable", v[i]);
            close(d);
            CHECK((st = wb_state(0)) == want[i], "state %u mounted and closed: %d, not %u", v[i],
                  st, want[i]);
        }
    }
    CHECK(wb_state(1) == 1, "state 1 again");
    PASS();
}

/* A disk that refuses the superblock at the mount (its write: 1, or the
 * write-back of it: 2): the instance is read-only, said on the console,
 * and the image as it was - state 1, the mount count the same - once the
 * cache's copy reaches the disk. */
static void a_refused_superblock_at_the_mount_leaves_a_read_only_instance(void)
{
    int d, n, left, mounts, tries = 0;

    no_instance_left();
    CHECK(wb_state(1) == 1 && (mounts = wb_mounts()) >= 0, "%s: state 1", WB_DISK);
    sync();
    for (n = 1; n < 10; n++) {
        failnth(FAILNTH_WRITES | n);
        d = wb_mount();
        left = failnth(0);
        CHECK(d >= 0, "write %d failing at the mount: fsopen says errno %d", n, errno);
        if (left) {
            close(d);
            break;
        }
        tries++;
        CHECK(wb_creates(d, "st") == EROFS, "write %d failing at the mount: the instance writes",
              n);
        close(d);
        sync();
        CHECK(wb_state(0) == 1 && wb_mounts() == mounts,
              "write %d failing at the mount: the state %d, the mount count %d (was 1, %d)", n,
              wb_state(0), wb_mounts(), mounts);
    }
    CHECK(n == 3, "%d writes at the mount, not 2 (the superblock, its write-back)", n - 1);
    CHECK(wb_state(0) == 1 && wb_mounts() == mounts + 1, "(the last try mounted writable)");
    printf("  a refused superblock at the mount: %d tries\n", tries);
    PASS();
}

/* Left for poweroff: an instance of /dev/hd2, attached at /tmp/wb, with a
 * file written. The host finds the image clean after the boot (poweroff
 * writes its state as the last close would); here, mounted, it says 0. */
static void leave_an_instance_for_poweroff(void)
{
    int d = wb_mount(), f;

    CHECK(d >= 0 && mkdir("/tmp/wb", 0755) == 0 && bind(d, AT_CWD, "/tmp/wb", 0) == 0, "attach %s",
          WB_DISK);
    CHECK((f = open("/tmp/wb/at_poweroff", O_WRONLY | O_CREAT | O_EXCL, 0644)) >= 0 &&
              write(f, "kept\n", 5) == 5,
          "write a file");
    close(f);
    close(d);
    sync();
    printf("e2eio: %s left attached, state %d\n", WB_DISK, wb_state(0));
}

/* A dead disk's dirty blocks fail no other disk's read. Three blocks of
 * /dev/hd2 are dirtied in the cache (their own bytes written over them:
 * the image stays as it is), the disk then refuses every write-back
 * (FAILNTH_FROM), and 24 MiB of /dev/hd1 are read, more than the cache
 * holds (an eighth of 128 MiB): each eviction that meets a dirty block
 * tries to write it back and fails. Every read must succeed: the refused
 * block is kept and made the most recently used, and another buffer
 * taken. Before, it stayed the least recently used, and every later miss
 * of every disk tried it first and failed with EIO. */
#define READ_MIB 24

static void a_dead_disks_dirty_blocks_fail_no_other_read(void)
{
    static char big[64 * 1024];
    static const uint32_t at[] = { 100 * 4096, 200 * 4096, 300 * 4096 };
    int d = open(WB_DISK, O_RDWR), h = open("/dev/hd1", O_RDONLY), r = 0, left, bad = -1, err = 0;
    unsigned i;
    uint32_t off;

    no_instance_left();
    CHECK(d >= 0 && h >= 0, "open %s and /dev/hd1", WB_DISK);
    sync(); /* (nothing else dirty) */
    for (i = 0; i < sizeof(at) / sizeof(at[0]); i++)
        CHECK(read_at(d, at[i], buf, BSIZE) == 0 && lseek(d, at[i], SEEK_SET) == (int)at[i] &&
                  write(d, buf, BSIZE) == BSIZE,
              "dirty %s at %u", WB_DISK, at[i]);
    failnth(FAILNTH_WRITES | FAILNTH_FROM | 1);
    for (off = 0; off < READ_MIB << 20 && bad < 0; off += r) {
        r = read(h, big, sizeof(big));
        if (r <= 0) {
            bad = (int)off;
            err = errno;
        }
    }
    left = failnth(0);
    sync(); /* the kept blocks, now that the disk writes */
    close(h);
    close(d);
    CHECK(bad < 0, "the disk refusing write-backs: a read of /dev/hd1 at %d failed (errno %d)", bad,
          err);
    CHECK(left == 0, "no write-back was tried (failnth(0) %d): the cache held it all", left);
    PASS();
}

int main(void)
{
    the_longest_symlink_leaves_the_image_healthy();
    each_failed_disk_write_leaves_the_image_as_it_was();
    a_failed_rename_leaves_one_name();
    a_failed_free_shares_no_block_and_writes_on();
    a_disk_failing_for_good_leaves_the_old_image_or_a_damaged_one();
    a_failed_write_back_at_release_is_said_and_marked();
    a_dead_disks_dirty_blocks_fail_no_other_read();
    the_state_says_not_clean_while_an_instance_writes();
    a_refused_superblock_at_the_mount_leaves_a_read_only_instance();
    leave_an_instance_for_poweroff();
    unlink(WORK);
    unlink(TEMPLATE);
    sync();
    printf("e2eio: done\n");
    return t_failures != 0;
}
