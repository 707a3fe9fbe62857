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
 * each clean. Then the frees (a truncation, an unlink), whose blocks
 * cannot be named back once the disk fails: the instance must either
 * stay healthy or write nothing more. doc/decisions.md, "ext2 and a
 * failing disk". */
#include <orthos.h>
#include "t.h"

#define TEMPLATE "/tmp/eio-template.img"
#define WORK     "/tmp/eio.img"
#define STALE    'S'
#define BSIZE    1024                   /* /etc/fuzz.ext2's block size, one group */
#define TIND_AT  68000000               /* past 12 + 256 + 65536 blocks: the triple tree */

static int fs;                          /* the instance of WORK being tried */
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
 * attached at /mnt). */
static void keep_for_e2fsck(int k, int n)
{
    char path[64];

    snprintf(path, sizeof(path), "/mnt/eio/op%02d-w%03d.img", k, n);
    copyfile(WORK, path);
}

static void each_failed_disk_write_leaves_the_image_as_it_was(void)
{
    static struct alloc before, after;
    unsigned k;
    int n, r, err, left, size, stale, right, writes = 0, kept = 0, carrier;

    CHECK(make_template() == 0, "setup");
    carrier = mkdir("/mnt/eio", 0755) == 0;
    for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
        const struct op *o = &ops[k];
        for (n = 1; n < 200; n++) {
            int img;
            CHECK(copyfile(TEMPLATE, WORK) == 0 && (img = open(WORK, O_RDWR)) >= 0, "copy");
            fs = fsopen("ext2", img, "");
            close(img);
            CHECK(fs >= 0 && alloc_state(&before) == 0, "mount");
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
            if (r < 0 && carrier) {
                keep_for_e2fsck(k, n);
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

/* A rename whose writes fail in turn: the new name is written first, then
 * the old one removed. The old code left both names when the disk failed
 * the removal, for a file of one link: unlinking either freed the inode
 * (and its blocks) under the other name. A failed rename leaves the old
 * name alone, a done one the new name alone, and the image healthy. */
static void a_failed_rename_leaves_one_name(void)
{
    int n, r, err, left, had_old, had_new, img;

    for (n = 1; n < 100; n++) {
        CHECK(copyfile(TEMPLATE, WORK) == 0 && (img = open(WORK, O_RDWR)) >= 0, "copy");
        fs = fsopen("ext2", img, "");
        close(img);
        CHECK(fs >= 0, "mount");
        failnth(FAILNTH_WRITES | n);
        r = renameat(fs, "hole", fs, "renamed", 0);
        err = errno;
        left = failnth(0);
        had_old = file_size("hole") >= 0;
        had_new = file_size("renamed") >= 0;
        if (r < 0)
            CHECK(err == EIO, "rename, write %d failing: errno %d, not EIO", n, err);
        CHECK(!(had_old && had_new), "rename, write %d failing: both names, for one link", n);
        CHECK(r < 0 ? had_old && !had_new : had_new && !had_old,
              "rename, write %d failing (%s): old name %d, new name %d", n,
              r < 0 ? "failed" : "done", had_old, had_new);
        close(fs);
        CHECK(mounts_writable(), "rename, write %d failing (%s): the image mounts read-only", n,
              r < 0 ? "failed" : "done");
        if (left)
            break;
    }
    CHECK(n > 1 && n < 100, "rename: %d writes", n - 1);
    printf("  rename: %d writes\n", n - 1);
    PASS();
}

/* ---- freeing, with the disk failing: the blocks freed cannot be named
 * back, for that needs the disk that just failed. So a free that meets a
 * failing write leaves the instance writing nothing more (EUCLEAN, one
 * console line): before, a truncation whose table write failed left the
 * table on the disk naming blocks the bitmap called free, the instance
 * went on, and the next file written took them (two files, one block). */
static int op_truncate(void)
{
    int f = walk(fs, "tr", 0), w = f >= 0 ? ready(f, R_WRITE) : -1, r, e;

    r = ftruncate(w, 1500);
    e = errno;
    close(w);
    close(f);
    errno = e;
    return r;
}

static int op_unlink(void)
{
    return unlinkat(fs, "tr", 0);       /* (the inode and its blocks go here: no fd) */
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

static void a_failed_free_shares_no_block(void)
{
    static const struct {
        const char *name;
        int (*fn)(void);
    } frees[] = { { "truncate", op_truncate }, { "unlink", op_unlink } };
    unsigned k;
    int n, left, after, healthy, refused;

    printf("e2eio: frees (the mount's check may say read-only from here on)\n");
    for (k = 0; k < sizeof(frees) / sizeof(frees[0]); k++) {
        refused = 0;
        for (n = 1; n < 200; n++) {
            int img;
            CHECK(copyfile(TEMPLATE, WORK) == 0 && (img = open(WORK, O_RDWR)) >= 0, "copy");
            fs = fsopen("ext2", img, "");
            close(img);
            CHECK(fs >= 0, "mount");
            failnth(FAILNTH_WRITES | n);
            frees[k].fn();
            left = failnth(0);
            after = write_after();
            close(fs);
            healthy = mounts_writable();
            CHECK(after >= 0, "%s, write %d failing: the next file's write failed otherwise",
                  frees[k].name, n);
            CHECK(healthy || after == 1,
                  "%s, write %d failing: the instance wrote on, and the image mounts read-only",
                  frees[k].name, n);
            refused += after == 1;
            if (left)
                break;
        }
        CHECK(n > 1 && n < 200, "%s: %d writes", frees[k].name, n - 1);
        printf("  %s: %d writes, %d of them left the instance writing no more\n", frees[k].name,
               n - 1, refused);
    }
    PASS();
}

int main(void)
{
    the_longest_symlink_leaves_the_image_healthy();
    each_failed_disk_write_leaves_the_image_as_it_was();
    a_failed_rename_leaves_one_name();
    a_failed_free_shares_no_block();
    unlink(WORK);
    unlink(TEMPLATE);
    sync();
    printf("e2eio: done\n");
    return t_failures != 0;
}
