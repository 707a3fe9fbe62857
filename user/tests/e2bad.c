/* e2bad.c - ext2 images damaged on purpose (tools/e2craft.py), each a file
 * NAME.img on the carrier disk attached at /mnt, loop mounted and used. The
 * kernel must refuse an impossible geometry (fsopen: EINVAL), report damage
 * (EUCLEAN) and from then on write nothing to that instance, end every walk
 * in bounded time, and leave an image it may not write byte for byte as it
 * was. The healthy_* images are written to; the host checks them with
 * e2fsck afterwards. Every damaged image holds /hello.txt, /healthy.txt
 * (3000 bytes, byte i = 7i + 3), /evil.txt, /big (20 KiB), /dir/{a,b,c}.
 * `e2bad [TEST...]` runs only the tests whose names are given. */
#include <dirent.h>
#include <fcntl.h>
#include <orthos.h>
#include <sys/mount.h>
#include <unistd.h>
#include "t.h"
#include "array_size.h"

#define BOUNDED_MS 3000                /* "bounded time": the old kernel took minutes */

static char buf[8192];

/* Most tests here hold the per-operation checks to damage, so they mount
 * without the mount's whole-disk check, which would find most of these
 * images at fsopen and make the instance read-only before any operation
 * met the damage (the_mount_check_* tests hold the check itself). */
#define NOCHECK "nocheck"

/* fsopen("ext2") on /mnt/NAME.img, readied for reading and writing: the
 * root's fd, or -1 with errno. */
static int mount_image(const char *name, const char *opts)
{
    char path[80];
    int src, root, e;

    snprintf(path, sizeof(path), "/mnt/%s.img", name);
    if ((src = open(path, O_RDWR)) < 0)
        return -1;
    root = fsopen("ext2", src, opts);
    e = errno;
    close(src);
    errno = e;
    return root;
}

/* CRC-32 of the whole image file: 0 if it cannot be read. */
static unsigned image_crc(const char *name)
{
    char path[80];
    unsigned crc = 0;
    int fd, n;

    snprintf(path, sizeof(path), "/mnt/%s.img", name);
    if ((fd = open(path, O_RDONLY)) < 0)
        return 0;
    while ((n = read(fd, buf, sizeof(buf))) > 0)
        crc = crc32_update(crc, buf, n);
    close(fd);
    return crc;
}

/* The same, but for what a writable mount writes in the superblock:
 * s_mtime, s_wtime, s_mnt_count and s_state (doc/decisions.md, "ext2's
 * clean state"). What an operation on a writable instance changed. */
static unsigned image_crc_but_mount(const char *name)
{
    char path[80];
    unsigned crc = 0, off = 0, i;
    int fd, n;

    snprintf(path, sizeof(path), "/mnt/%s.img", name);
    if ((fd = open(path, O_RDONLY)) < 0)
        return 0;
    while ((n = read(fd, buf, sizeof(buf))) > 0) {
        for (i = 0; i < (unsigned)n; i++)
            if ((off + i >= 1024 + 44 && off + i < 1024 + 54) ||
                (off + i >= 1024 + 58 && off + i < 1024 + 60))
                buf[i] = 0;
        crc = crc32_update(crc, buf, n);
        off += n;
    }
    close(fd);
    return crc;
}

/* A 32-bit superblock field of the image file (byte offset `off` in it). */
static unsigned sb_field(const char *name, unsigned off)
{
    char path[80];
    unsigned v = 0;
    int fd;

    snprintf(path, sizeof(path), "/mnt/%s.img", name);
    if ((fd = open(path, O_RDONLY)) >= 0 && lseek(fd, 1024 + off, SEEK_SET) == (int)(1024 + off))
        read(fd, &v, 4);
    close(fd);
    return v;
}

#define SB_FREE_BLOCKS 12
#define SB_FREE_INODES 16

/* Read a whole file under dirfd: its length, or -1 with errno. */
static int read_file(int dirfd, const char *path, char *out, int size)
{
    int f = walk(dirfd, path, 0), r, n, e;

    if (f < 0)
        return -1;
    r = ready(f, R_READ);
    e = errno;
    close(f);
    if (r < 0) {
        errno = e;
        return -1;
    }
    n = read_full(r, out, size);
    close(r);
    return n;
}

/* List directory path under dirfd: the number of entries, or -1 with errno. */
static int list_dir(int dirfd, const char *path)
{
    int f = walk(dirfd, path, 0), r, n, total = 0, e;

    if (f < 0)
        return -1;
    r = ready(f, R_READ);
    e = errno;
    close(f);
    if (r < 0) {
        errno = e;
        return -1;
    }
    while ((n = getdents(r, buf, sizeof(buf))) > 0) {
        int off = 0;
        while (off < n) {
            total++;
            off += ((struct dirent *)(buf + off))->d_reclen;
        }
    }
    e = errno;
    close(r);
    errno = e;
    return n < 0 ? -1 : total;
}

static int healthy_txt_is_intact(int root)
{
    int i, n = read_file(root, "healthy.txt", buf, sizeof(buf));

    if (n != 3000)
        return 0;
    for (i = 0; i < n; i++)
        if ((unsigned char)buf[i] != ((i * 7 + 3) & 0xFF))
            return 0;
    return 1;
}

/* A create on an instance that found damage: refused, whatever the place. */
static int create_refused(int root, const char *name)
{
    errno = 0;
    return create(root, name, S_IFREG, 0644, 0) < 0 && errno == EUCLEAN;
}

/* ---------------------------------------------------------------- issue 9, finding 6 */

static void create_beside_an_entry_shorter_than_its_name_is_euclean_and_writes_nothing(void)
{
    static const char *img = "short_last_dirent";
    char path[205] = "dir/";
    unsigned before = image_crc_but_mount(img);
    int root;

    memset(path + 4, 'n', 200);         /* a long name: the old kernel wrote it past the block */
    path[204] = '\0';
    CHECK((root = mount_image(img, NOCHECK)) >= 0, "fsopen");
    CHECK(fchdir(root) == 0, "fchdir");
    CHECK_ERR(create(AT_CWD, path, S_IFREG, 0644, 0), EUCLEAN);
    CHECK_ERR(list_dir(root, "dir"), EUCLEAN);
    CHECK(read_file(root, "hello.txt", buf, sizeof(buf)) == 13, "other files still read");
    CHECK(create_refused(root, "elsewhere"), "a damaged instance took a create at its root");
    CHECK(chdir("/") == 0, "chdir /");
    close(root);
    CHECK(image_crc_but_mount(img) == before, "the image changed");
    /* damaged: its writes stopped, the mount's "not clean" stays */
    CHECK((sb_field(img, 56) >> 16) == 0, "the damaged instance left the state %u, not 0",
          sb_field(img, 56) >> 16);
    PASS();
}

static void entry_naming_a_reserved_inode_is_euclean(void)
{
    int root;

    CHECK((root = mount_image("dirent_reserved_inode", NOCHECK)) >= 0, "fsopen");
    CHECK_ERR(walk(root, "dir/a", 0), EUCLEAN);
    close(root);
    PASS();
}

static void entry_naming_an_inode_past_the_count_is_euclean(void)
{
    int root;

    CHECK((root = mount_image("dirent_inode_out_of_range", NOCHECK)) >= 0, "fsopen");
    CHECK_ERR(list_dir(root, "dir"), EUCLEAN);
    close(root);
    PASS();
}

/* ---------------------------------------------------------------- finding 7 */

static void blocks_per_group_over_8x_block_size_is_einval(void)
{
    int root = mount_image("blocks_per_group_huge", "");

    if (root >= 0) {                    /* the old kernel: freeing the block wrote 256 MiB away */
        unlinkat(root, "hello.txt", 0);
        close(root);
    }
    CHECK(root < 0 && errno == EINVAL, "fsopen gave %d", root);
    PASS();
}

static void inodes_per_group_over_8x_block_size_is_einval(void)
{
    CHECK_ERR(mount_image("inodes_per_group_huge", ""), EINVAL);
    PASS();
}

static void inode_table_past_4_gib_is_einval(void)
{
    CHECK_ERR(mount_image("inode_table_wraps", ""), EINVAL);
    PASS();
}

static void block_bitmap_on_the_superblock_is_einval(void)
{
    CHECK_ERR(mount_image("block_bitmap_on_superblock", ""), EINVAL);
    PASS();
}

static void inode_table_over_a_bitmap_is_einval(void)
{
    CHECK_ERR(mount_image("inode_table_on_bitmap", ""), EINVAL);
    PASS();
}

static void blocks_count_beyond_the_image_is_einval(void)
{
    CHECK_ERR(mount_image("blocks_count_past_image", ""), EINVAL);
    PASS();
}

static void unknown_revision_is_einval(void)
{
    CHECK_ERR(mount_image("revision_unknown", ""), EINVAL);
    PASS();
}

/* ---------------------------------------------------------------- finding 8 */

static void self_referencing_indirect_block_unlinks_in_bounded_time(void)
{
    unsigned t0, ms;
    int root, r;

    CHECK((root = mount_image("tind_self_loop", NOCHECK)) >= 0, "fsopen");
    t0 = uptime_ms();
    r = unlinkat(root, "big", 0);
    ms = uptime_ms() - t0;
    CHECK(r == 0, "unlink big");
    CHECK(ms < BOUNDED_MS, "unlink took %u ms", ms);
    CHECK(create_refused(root, "after"), "the instance still writes after a block freed twice");
    close(root);
    PASS();
}

static void directory_with_a_huge_size_is_euclean_in_bounded_time(void)
{
    unsigned t0, ms;
    int root;

    CHECK((root = mount_image("dir_huge_size", NOCHECK)) >= 0, "fsopen");
    t0 = uptime_ms();
    CHECK_ERR(walk(root, "dir/nothing", 0), EUCLEAN);
    CHECK_ERR(list_dir(root, "dir"), EUCLEAN);
    ms = uptime_ms() - t0;
    CHECK(ms < BOUNDED_MS, "lookup and listing took %u ms", ms);
    close(root);
    PASS();
}

/* ---------------------------------------------------------------- finding 9 */

static void block_freed_twice_is_refused_and_counts_stay_true(void)
{
    static const char *img = "block_twice_in_file";
    unsigned before = sb_field(img, SB_FREE_BLOCKS), after;

    int root, refused;

    CHECK((root = mount_image(img, NOCHECK)) >= 0, "fsopen");
    CHECK(unlinkat(root, "hello.txt", 0) == 0, "unlink");
    after = sb_field(img, SB_FREE_BLOCKS);  /* (written through to the image at once) */
    refused = create_refused(root, "after");
    close(root);
    CHECK(after == before + 1, "free blocks %u before, %u after (one block, freed once)", before,
          after);
    CHECK(refused, "the instance still writes after a block freed twice");
    PASS();
}

static void block_pointer_into_the_inode_table_is_never_freed(void)
{
    int root, f, w, e;

    CHECK((root = mount_image("pointer_into_inode_table", NOCHECK)) >= 0, "fsopen");
    CHECK(unlinkat(root, "evil.txt", 0) == 0, "unlink");
    memset(buf, 'x', sizeof(buf));
    f = create(root, "new", S_IFREG, 0644, 0);
    if (f >= 0) {                       /* (the old kernel: the freed table block is reused) */
        w = ready(f, R_WRITE);
        write(w, buf, sizeof(buf));
        close(w);
        close(f);
    }
    e = errno;
    CHECK(healthy_txt_is_intact(root), "healthy.txt was damaged");
    CHECK(f < 0 && e == EUCLEAN, "create after freeing the inode table: %d", f);
    close(root);
    PASS();
}

static void inode_freed_twice_is_refused_and_counts_stay_true(void)
{
    static const char *img = "inode_freed_already";
    unsigned before = sb_field(img, SB_FREE_INODES), after;
    int root, refused;

    CHECK((root = mount_image(img, NOCHECK)) >= 0, "fsopen");
    CHECK(unlinkat(root, "hello.txt", 0) == 0, "unlink");
    after = sb_field(img, SB_FREE_INODES);  /* (written through to the image at once) */
    refused = create_refused(root, "after");
    close(root);
    CHECK(after == before, "free inodes %u before, %u after", before, after);
    CHECK(refused, "the instance still writes after an inode freed twice");
    PASS();
}

/* ---------------------------------------------------------------- finding 10 */

static void read_only_instance_never_frees_an_inode_without_links(void)
{
    static const char *img = "file_without_links";
    unsigned before = image_crc(img);
    int root, f, e, listed, intact;

    CHECK((root = mount_image(img, "ro")) >= 0, "fsopen ro");
    f = walk(root, "hello.txt", 0);
    e = errno;
    if (f >= 0)
        close(f);                       /* (the old kernel freed the inode here) */
    listed = list_dir(root, ".");
    intact = healthy_txt_is_intact(root);
    close(root);
    CHECK(image_crc(img) == before, "a read-only instance changed the image");
    CHECK(f < 0 && e == EUCLEAN, "walk to an inode without links: %d", f);
    CHECK(listed > 0 && intact, "list / (%d), read healthy.txt (%d)", listed, intact);
    PASS();
}

static void unknown_ro_compat_root_without_links_changes_nothing(void)
{
    static const char *img = "ro_compat_unknown_root_without_links";
    unsigned before = image_crc(img);

    int root, e;

    root = mount_image(img, NOCHECK);
    e = errno;
    if (root >= 0) {                    /* (the old kernel mounted it, and freed the root) */
        list_dir(root, ".");
        close(root);
    }
    CHECK(image_crc(img) == before, "a read-only instance changed the image");
    CHECK(root < 0 && e == EUCLEAN, "fsopen of a root without links: %d", root);
    PASS();
}

static void unknown_ro_compat_mounts_read_only_and_changes_nothing(void)
{
    static const char *img = "ro_compat_unknown";
    unsigned before = image_crc(img);
    int root, f;

    CHECK((root = mount_image(img, NOCHECK)) >= 0, "fsopen");
    CHECK(list_dir(root, ".") > 5 && list_dir(root, "dir") == 5, "listing");
    CHECK(healthy_txt_is_intact(root), "read healthy.txt");
    CHECK(read_file(root, "big", buf, sizeof(buf)) == sizeof(buf), "read big");
    CHECK_ERR(create(root, "new", S_IFREG, 0644, 0), EROFS);
    CHECK_ERR(unlinkat(root, "hello.txt", 0), EROFS);
    CHECK((f = walk(root, "hello.txt", 0)) >= 0, "walk");
    CHECK_ERR(ready(f, R_WRITE), EROFS);
    close(f);
    close(root);
    CHECK(image_crc(img) == before, "a read-only instance changed the image");
    PASS();
}

/* ---------------------------------------------------------------- finding 11 */

static void over_65536_groups_is_einval(void)
{
    CHECK_ERR(mount_image("groups_over_65536", ""), EINVAL);
    PASS();
}

/* ---------------------------------------------------------------- patched in the guest */

/* Damage the host's images do not hold (tools/kmutants.txt: a kernel
 * without each of these checks passed every image), made here: a copy of
 * ro_compat_unknown (healthy, mounted read-only, so nothing is written)
 * with one field changed, found by walking the copy's own structures. */
#define PATCHED "patched"

static int image_fd(const char *name, int flags)
{
    char path[80];

    snprintf(path, sizeof(path), "/mnt/%s.img", name);
    return open(path, flags, 0644);
}

static int copy_image(const char *from, const char *to)
{
    int in = image_fd(from, O_RDONLY), out = image_fd(to, O_WRONLY | O_CREAT | O_TRUNC), n, ok = 1;

    while (ok && (n = read(in, buf, sizeof(buf))) > 0)
        ok = write(out, buf, n) == n;
    close(in);
    close(out);
    return in >= 0 && out >= 0 && ok && n == 0;
}

/* Read or write `size` (1, 2 or 4) bytes, little-endian, at `off` in the image. */
static unsigned img_get(const char *name, unsigned off, int size)
{
    unsigned v = 0;
    int fd = image_fd(name, O_RDONLY);

    if (fd >= 0 && lseek(fd, off, SEEK_SET) == (int)off)
        read(fd, &v, size);
    close(fd);
    return v;
}

static void img_put(const char *name, unsigned off, unsigned v, int size)
{
    int fd = image_fd(name, O_WRONLY);

    if (fd >= 0 && lseek(fd, off, SEEK_SET) == (int)off)
        write(fd, &v, size);
    close(fd);
}

static unsigned img_bsize(const char *name)
{
    return 1024u << sb_field(name, 24);
}

/* Where inode ino lies in the image: its group's inode table, its slot. */
static unsigned inode_at(const char *name, unsigned ino)
{
    unsigned bsize = img_bsize(name), ipg = sb_field(name, 40);
    unsigned isize = sb_field(name, 76) ? sb_field(name, 88) & 0xFFFF : 128;
    unsigned gd = (sb_field(name, 20) + 1) * bsize + (ino - 1) / ipg * 32;

    return img_get(name, gd + 8, 4) * bsize + (ino - 1) % ipg * isize;
}

#define I_MODE   0
#define I_SIZE   4
#define I_BLOCK0 40
#define D_REC    4
#define D_NLEN   6

/* The entry of `name` in the first block of the directory inode dir:
 * its byte offset in the image, 0 if none; *last: it ends the block. */
static unsigned entry_at(const char *img, unsigned dir, const char *name, int *last)
{
    unsigned bsize = img_bsize(img), blk = img_get(img, inode_at(img, dir) + I_BLOCK0, 4) * bsize;
    unsigned off, rec, len = strlen(name);
    char got[8];

    for (off = 0; off < bsize; off += rec) {
        int fd = image_fd(img, O_RDONLY);
        rec = img_get(img, blk + off + D_REC, 2);
        memset(got, 0, sizeof(got));
        if (fd >= 0 && lseek(fd, blk + off + 8, SEEK_SET) == (int)(blk + off + 8))
            read(fd, got, len < sizeof(got) ? len : sizeof(got) - 1);
        close(fd);
        if (rec < 8)
            return 0;
        if (img_get(img, blk + off + D_NLEN, 1) == len && memcmp(got, name, len) == 0) {
            *last = off + rec == bsize;
            return blk + off;
        }
    }
    return 0;
}

/* The inode number of path in image img. */
static unsigned ino_in(const char *img, const char *path)
{
    struct stat st;
    int root = mount_image(img, NOCHECK), f = walk(root, path, 0), ok = fstat(f, &st) == 0;

    close(f);
    close(root);
    return ok ? st.st_ino : 0;
}

static void patched_copies_of_a_healthy_image_are_euclean_field_by_field(void)
{
    unsigned hello, dir, a, c, x;
    int root, i, last;

    CHECK(copy_image("ro_compat_unknown", PATCHED), "copy the image");
    CHECK((hello = ino_in(PATCHED, "hello.txt")) && (dir = ino_in(PATCHED, "dir")),
          "inode numbers");
    for (i = 0; i < 8; i++) {
        const char *what = "?";
        CHECK(copy_image("ro_compat_unknown", PATCHED), "copy the image");
        switch (i) {
        case 0:
            what = "hello.txt's first block pointer past the last block";
            img_put(PATCHED, inode_at(PATCHED, hello) + I_BLOCK0, sb_field(PATCHED, 4) + 10, 4);
            break;
        case 1:
            what = "hello.txt's inode of type 0xE000 (no type)";
            x = inode_at(PATCHED, hello) + I_MODE;
            img_put(PATCHED, x, (img_get(PATCHED, x, 2) & 07777) | 0xE000, 2);
            break;
        case 2:
            what = "/dir's size two blocks, its i_blocks one";
            img_put(PATCHED, inode_at(PATCHED, dir) + I_SIZE, 2 * img_bsize(PATCHED), 4);
            break;
        case 3:
            what = "a name on disk holding '/'";
            CHECK((a = entry_at(PATCHED, dir, "a", &last)), "/dir/a's entry");
            img_put(PATCHED, a + 8, '/', 1);
            break;
        case 4:
            what = "records of 10 bytes and a length not a multiple of 4";
            CHECK((c = entry_at(PATCHED, dir, "c", &last)) && last, "/dir/c's entry, the last");
            x = img_get(PATCHED, c + D_REC, 2);
            img_put(PATCHED, c + D_REC, x - 10, 2);     /* c, then an unused record of 10 */
            img_put(PATCHED, c + x - 10, 0, 4);
            img_put(PATCHED, c + x - 10 + D_REC, 10, 2);
            img_put(PATCHED, c + x - 10 + D_NLEN, 0, 2);
            break;
        case 5:
            what = "a name running past its record (into the next one's header)";
            CHECK((a = entry_at(PATCHED, dir, "a", &last)) && !last &&
                      img_get(PATCHED, a + D_REC, 2) == 12,
                  "/dir/a's entry, 12 bytes, not the last");
            img_put(PATCHED, a + 9, 0x787878, 3);  /* its padding "xxx", the next inode's */
            img_put(PATCHED, a + D_NLEN, 5, 1);     /* first byte (not 0): no NUL in 5 */
            break;
        case 6:
            what = "an unknown incompatible feature";
            img_put(PATCHED, 1024 + 96, sb_field(PATCHED, 96) | 0x8000, 4);
            break;
        case 7:
            what = "inodes of 192 bytes (no power of two)";
            img_put(PATCHED, 1024 + 88, 192, 2);
            break;
        }
        if (i >= 6) {
            errno = 0;
            CHECK(mount_image(PATCHED, "") < 0 && errno == EINVAL,
                  "%s: fsopen: errno %d, want EINVAL", what, errno);
            continue;
        }
        CHECK((root = mount_image(PATCHED, NOCHECK)) >= 0, "%s: fsopen", what);
        errno = 0;
        if (i < 2) {
            CHECK(read_file(root, "hello.txt", buf, sizeof(buf)) <= 0 && errno == EUCLEAN,
                  "%s: reading hello.txt: errno %d, want EUCLEAN", what, errno);
        } else if (i == 2) {
            CHECK(read_file(root, "dir/a", buf, sizeof(buf)) <= 0 && errno == EUCLEAN,
                  "%s: reading dir/a: errno %d, want EUCLEAN", what, errno);
        } else {
            CHECK(list_dir(root, "dir") < 0 && errno == EUCLEAN,
                  "%s: listing /dir: errno %d, want EUCLEAN", what, errno);
        }
        close(root);
    }
    CHECK(unlink("/mnt/" PATCHED ".img") == 0, "remove the copy");
    PASS();
}

/* ---------------------------------------------------------------- consistent but evil */

/* Images that pass the mount's checks and a first look, made to send a
 * write where it must not go (tools/e2craft.py's ATTACKS). Besides what
 * each test asserts, the host compares every one of these images before
 * and after this program (e2craft.py harm): nothing intact - metadata but
 * for the driver's own count updates, reserved inodes, the untouched
 * files - may have changed. */

/* n bytes at byte `off` of the file path under root, read into data or
 * written from it: the count, or -1 with errno. */
static int file_at(int root, const char *path, unsigned off, char *data, int n, int writing)
{
    int f = walk(root, path, 0), r, e, got = -1;

    if (f < 0)
        return -1;
    r = ready(f, writing ? R_WRITE : R_READ);
    e = errno;
    close(f);
    if (r < 0) {
        errno = e;
        return -1;
    }
    if (lseek(r, (int)off, SEEK_SET) == (int)off)
        got = writing ? write(r, data, n) : read(r, data, n);
    e = errno;
    close(r);
    errno = e;
    return got;
}

/* The block an attack image's /evil.txt names ("TARGET n"), 0 if none. */
static unsigned evil_target(int root)
{
    char t[32];
    int n = read_file(root, "evil.txt", t, sizeof(t) - 1);

    t[n > 0 ? n : 0] = '\0';
    return n > 7 && strncmp(t, "TARGET ", 7) == 0 ? strtoul(t + 7, NULL, 10) : 0;
}

/* One call on a fresh instance of image img, whose root fd the call
 * names `root`: its result, or -2 if the mount failed; *err: errno after
 * it (or after the mount). Closed before the caller checks, so a failure
 * leaves nothing mounted for the next test. */
#define ON_IMAGE(img, call, err) \
    ({ \
        int root = mount_image(img, NOCHECK), r_ = -2; \
        *(err) = errno; \
        if (root >= 0) { \
            errno = 0; \
            r_ = (call); \
            *(err) = errno; \
            close(root); \
        } \
        r_; \
    })

/* A block map that loops into itself: /big's indirect block names itself
 * (ind_self_loop), its double-indirect one does (dind_self_loop), a block
 * below its triple-indirect one does (tind_inner_loop: no root repeats),
 * its first direct block is its indirect block (direct_is_indirect). The
 * block the loop reaches is the map itself: reading it is EUCLEAN, and so
 * is writing it, so the block numbers a write puts there (healthy.txt's)
 * never send the next write into another file; a truncation (to 100
 * bytes, and to 0) is EUCLEAN before it frees anything (what it freed
 * would still be named by /big, and handed to the next file; to 0, the
 * direct blocks go first, and there direct_is_indirect's table with them:
 * only the map check stands in the way, as bmap does for the other). The old kernel read the map as
 * data, wrote over it, and the next write landed in healthy.txt; a truncation freed blocks until it
 * met one a second time. */
static void block_map_loops_are_euclean_and_spare_other_files(void)
{
    static const struct {
        const char *img;
        unsigned at, next; /* the looping file block's offset, the next one's */
    } c[] = {
        { "ind_self_loop", 12 * 1024, 13 * 1024 },
        { "dind_self_loop", 268 * 1024, 269 * 1024 },
        { "tind_inner_loop", 65804 * 1024, 65805 * 1024 },
        { "direct_is_indirect", 0, 13 * 1024 },
    };
    unsigned i, j, target, crc;
    int root, rd, wr, erd, ewr, intact, tr, etr, tr0, etr0, freed;
    char wrong[500] = "";

    for (i = 0; i < ARRAY_SIZE(c); i++) { /* every image, then the verdict */
        CHECK((root = mount_image(c[i].img, NOCHECK)) >= 0, "%s: fsopen", c[i].img);
        target = evil_target(root);
        errno = 0;
        rd = file_at(root, "big", c[i].at, buf, 1024, 0);
        erd = errno;
        close(root);
        CHECK(target, "%s: the target block", c[i].img);
        CHECK((root = mount_image(c[i].img, NOCHECK)) >= 0, "%s: fsopen again", c[i].img);
        for (j = 0; j < 1024 / 4; j++)
            ((unsigned *)buf)[j] = target;
        errno = 0;
        wr = file_at(root, "big", c[i].at, buf, 1024, 1);
        ewr = errno;
        memset(buf, 'X', 1024);
        file_at(root, "big", c[i].next, buf, 1024, 1);
        intact = healthy_txt_is_intact(root);
        close(root);
        crc = image_crc_but_mount(c[i].img);
        /* To 100 the tail of big's first block is zeroed too, and on a
         * damaged map nothing may be, freed or zeroed, before the whole
         * map is known sound; to 0 every block the map names is freed. */
        tr = ON_IMAGE(c[i].img, truncate_at(root, "big", 100), &etr);
        tr0 = ON_IMAGE(c[i].img, truncate_at(root, "big", 0), &etr0);
        freed = image_crc_but_mount(c[i].img) != crc;
        if (!(rd < 0 && erd == EUCLEAN && wr < 0 && ewr == EUCLEAN && intact && tr == -1 &&
              etr == EUCLEAN && tr0 == -1 && etr0 == EUCLEAN && !freed))
            snprintf(wrong + strlen(wrong), sizeof(wrong) - strlen(wrong),
                     " %s: read %d errno %d, write %d errno %d, healthy.txt %s, truncate %d errno "
                     "%d, to 0 %d errno %d%s;",
                     c[i].img, rd, erd, wr, ewr, intact ? "intact" : "written", tr, etr, tr0, etr0,
                     freed ? " (and it changed the image)" : "");
    }
    CHECK(!wrong[0], "want EUCLEAN four times, healthy.txt intact, the image as it was:%s", wrong);
    PASS();
}

/* A directory whose ".." is a file laid out like a directory
 * (dotdot_is_a_file), or that has no ".." (dir_without_dotdot): a rename
 * that climbs through it ("is /dir above the target?"), or that moves it
 * to another parent (whose ".." it must rewrite), is EUCLEAN and changes
 * nothing. The old kernel climbed through the file and moved /dir below
 * /sub/deeper; without "..", it answered ENOENT to the one and moved the
 * directory without a ".." to rewrite in the other. */
static void rename_through_a_broken_dotdot_is_euclean_and_writes_nothing(void)
{
    unsigned before[2] = { image_crc_but_mount("dotdot_is_a_file"),
                           image_crc_but_mount("dir_without_dotdot") };
    int r[3], e[3];

    r[0] = ON_IMAGE("dotdot_is_a_file", renameat(root, "dir", root, "sub/deeper/moved", 0), &e[0]);
    r[1] =
        ON_IMAGE("dir_without_dotdot", renameat(root, "dir", root, "sub/deeper/moved", 0), &e[1]);
    r[2] =
        ON_IMAGE("dir_without_dotdot", renameat(root, "sub/deeper", root, "dir/deeper", 0), &e[2]);
    CHECK(r[0] == -1 && e[0] == EUCLEAN, "a climb through a file: %d, errno %d", r[0], e[0]);
    CHECK(r[1] == -1 && e[1] == EUCLEAN, "a climb through no '..': %d, errno %d", r[1], e[1]);
    CHECK(r[2] == -1 && e[2] == EUCLEAN, "a move without '..': %d, errno %d", r[2], e[2]);
    CHECK(image_crc_but_mount("dotdot_is_a_file") == before[0], "dotdot_is_a_file changed");
    CHECK(image_crc_but_mount("dir_without_dotdot") == before[1], "dir_without_dotdot changed");
    PASS();
}

/* A second name for a directory (dir_alias: /dir/alias is /sub/deeper,
 * whose link count says 2 and whose ".." says /sub): rmdir through the
 * alias is EUCLEAN. The old kernel removed it and freed the inode /sub
 * still named; the next create took that inode, and /sub/deeper became
 * someone's new file. */
static void rmdir_through_a_second_name_for_a_directory_is_euclean(void)
{
    struct stat st;
    int r[2], e[2], f, isdir;

    r[0] = ON_IMAGE("dir_alias", unlinkat(root, "sub/deeper/file", 0), &e[0]);
    r[1] = ON_IMAGE("dir_alias", unlinkat(root, "dir/alias", UNLINK_DIR), &e[1]);
    f = ON_IMAGE("dir_alias", create(root, "new", S_IFREG, 0644, 0), &e[0]);
    close(f);
    isdir = ON_IMAGE("dir_alias",
                     (f = walk(root, "sub/deeper", 0)) >= 0 && fstat(f, &st) == 0 &&
                         S_ISDIR(st.st_mode) && close(f) == 0,
                     &e[0]);
    CHECK(r[0] == 0, "unlink sub/deeper/file");
    CHECK(r[1] == -1 && e[1] == EUCLEAN, "rmdir dir/alias: %d, errno %d", r[1], e[1]);
    CHECK(isdir == 1, "/sub/deeper is no longer the directory");
    PASS();
}

/* A fast symlink (its text in the inode's 60 bytes) whose size says 200
 * (fast_symlink_size_lies): EUCLEAN. The old kernel gave the 60 bytes. */
static void fast_symlink_longer_than_its_inode_is_euclean(void)
{
    int r, e;

    r = ON_IMAGE("fast_symlink_size_lies", readlinkat(root, "evil.txt", buf, sizeof(buf)), &e);
    CHECK(r == -1 && e == EUCLEAN, "readlink: %d, errno %d", r, e);
    PASS();
}

/* Free counts past what the group or the filesystem holds
 * (group_free_count_lies, super_free_count_lies): EINVAL. The old kernel
 * mounted them; the group's 65535 wrapped to 0 on the first free, and
 * the next allocation found the disk full. */
static void free_counts_past_the_totals_are_einval(void)
{
    int r, e;

    r = ON_IMAGE("group_free_count_lies", 0, &e);
    CHECK(r == -2 && e == EINVAL, "a group's count past its size: %d, errno %d", r, e);
    r = ON_IMAGE("super_free_count_lies", 0, &e);
    CHECK(r == -2 && e == EINVAL, "free inodes past the count: %d, errno %d", r, e);
    PASS();
}

/* With path walked to and held: walk(it, "..") or, with create_new, a
 * create of /new. That call's result, or -3 if path is not there. */
static int holding(int root, const char *path, int create_new)
{
    int f = walk(root, path, 0), r, e;

    if (f < 0)
        return -3;
    r = create_new ? create(root, "new", S_IFREG, 0644, 0) : walk(f, "..", 0);
    e = errno;
    if (r >= 0)
        close(r);
    close(f);
    errno = e;
    return r;
}

/* rmdir sub/deeper after emptying it: the rmdir's result. */
static int empty_and_rmdir_deeper(int root)
{
    if (unlinkat(root, "sub/deeper/file", 0) < 0)
        return -3;
    return unlinkat(root, "sub/deeper", UNLINK_DIR);
}

/* Damage the driver always checked but no image held (doc/coverage.md's
 * list of unreached ext2 checks): a hole in a directory (dir_hole), a
 * loop of ".." entries (dotdot_loop), a root that is a file
 * (root_not_a_directory), a ".." that is a file or a directory without a
 * name for it, met from below (dotdot_is_a_file, dotdot_elsewhere), an
 * empty directory with 3 links (dir_links_lie), a free bit for an inode
 * in use (inode_bit_clear_while_open), a map naming more blocks than
 * i_blocks (i_blocks_too_small: a truncation frees nothing), and a
 * superblock whose inode count, first inode or reserved descriptor blocks
 * do not fit. */
static void rarer_damage_is_euclean(void)
{
    static const char *einval[] = { "inodes_count_disagrees", "first_ino_past_count",
                                    "reserved_gdt_huge" };
    int r[7], e[7];
    unsigned i, crc;

    r[0] = ON_IMAGE("dir_hole", list_dir(root, "dir"), &e[0]);
    r[1] = ON_IMAGE("dotdot_loop", renameat(root, "dir", root, "sub/deeper/moved", 0), &e[1]);
    r[2] = ON_IMAGE("root_not_a_directory", 0, &e[2]);
    r[3] = ON_IMAGE("dotdot_is_a_file", holding(root, "sub/deeper", 0), &e[3]);
    r[4] = ON_IMAGE("dotdot_elsewhere", holding(root, "sub/deeper", 0), &e[4]);
    r[5] = ON_IMAGE("dir_links_lie", empty_and_rmdir_deeper(root), &e[5]);
    r[6] = ON_IMAGE("inode_bit_clear_while_open", holding(root, "hello.txt", 1), &e[6]);
    CHECK(r[0] == -1 && e[0] == EUCLEAN, "listing a directory with a hole: %d, errno %d", r[0],
          e[0]);
    CHECK(r[1] == -1 && e[1] == EUCLEAN, "a climb round a loop of '..': %d, errno %d", r[1], e[1]);
    CHECK(r[2] == -2 && e[2] == EUCLEAN, "a root that is a file: %d, errno %d", r[2], e[2]);
    CHECK(r[3] == -1 && e[3] == EUCLEAN, "'..' to a file, from below: %d, errno %d", r[3], e[3]);
    CHECK(r[4] == -1 && e[4] == EUCLEAN, "'..' to a stranger, from below: %d, errno %d", r[4],
          e[4]);
    CHECK(r[5] == -1 && e[5] == EUCLEAN, "rmdir of an empty directory with 3 links: %d, errno %d",
          r[5], e[5]);
    CHECK(r[6] == -1 && e[6] == EUCLEAN, "a create that finds an open inode free: %d, errno %d",
          r[6], e[6]);
    crc = image_crc_but_mount("i_blocks_too_small");
    r[0] = ON_IMAGE("i_blocks_too_small", truncate_at(root, "big", 100), &e[0]);
    CHECK(r[0] == -1 && e[0] == EUCLEAN, "truncating a map past i_blocks: %d, errno %d", r[0],
          e[0]);
    CHECK(image_crc_but_mount("i_blocks_too_small") == crc,
          "truncating a map past i_blocks changed the image (freed or zeroed)");
    for (i = 0; i < ARRAY_SIZE(einval); i++) {
        r[0] = ON_IMAGE(einval[i], 0, &e[0]);
        CHECK(r[0] == -2 && e[0] == EINVAL, "%s: fsopen: %d, errno %d", einval[i], r[0], e[0]);
    }
    PASS();
}

/* ------ every use, on every attack image */

/* Each step is a thing a user does, on a fresh mount (a step that finds
 * damage stops that instance writing; the next starts unmarked, as after
 * a new fsopen): 0 or -errno, the first that failed. */
static int step_read(int root)
{
    if (!healthy_txt_is_intact(root))
        return errno ? -errno : -EIO;
    if (read_file(root, "hello.txt", buf, sizeof(buf)) != 13 ||
        file_at(root, "big", 0, buf, 1024, 0) < 0 ||
        file_at(root, "big", 12 * 1024, buf, 1024, 0) < 0 ||
        file_at(root, "big", 268 * 1024, buf, 1024, 0) < 0 ||
        read_file(root, "dir/a", buf, sizeof(buf)) != 10 || list_dir(root, ".") < 0 ||
        list_dir(root, "dir") < 0 || list_dir(root, "sub/deeper") < 0)
        return errno ? -errno : -EIO;
    return 0;
}

static int step_read_evil(int root)
{
    if (file_at(root, "evil.txt", 0, buf, 1024, 0) < 0 ||
        file_at(root, "evil.txt", 256u << 20, buf, 1024, 0) < 0)
        return -errno;
    return 0;
}

static int step_write_evil(int root)
{
    memset(buf, 'w', 1024);
    if (file_at(root, "evil.txt", 0, buf, 1024, 1) != 1024 ||
        file_at(root, "evil.txt", 256u << 20, buf, 1024, 1) != 1024)
        return errno ? -errno : -EIO;
    return 0;
}

static int step_truncate_evil(int root)
{
    int f = walk(root, "evil.txt", 0), w, r = 0;

    if (f < 0)
        return -errno;
    if ((w = ready(f, R_WRITE)) < 0 || ftruncate(w, 100) < 0 || ftruncate(w, 0) < 0)
        r = -errno;
    close(w);
    close(f);
    return r;
}

static int step_create(int root)
{
    int f, w, r = 0;

    if ((f = create(root, "w", S_IFDIR, 0755, 0)) < 0)
        return -errno;
    close(f);
    if ((f = create(root, "w/f", S_IFREG, 0644, 0)) < 0)
        return -errno;
    memset(buf, 'n', sizeof(buf));
    if ((w = ready(f, R_WRITE)) < 0 || write(w, buf, sizeof(buf)) != sizeof(buf))
        r = errno ? -errno : -EIO;
    close(w);
    close(f);
    if (r == 0 && (f = create(root, "dir/new", S_IFREG, 0644, 0)) < 0)
        r = -errno;
    close(f);
    return r;
}

static int step_rename(int root)
{
    return renameat(root, "w/f", root, "dir/moved", 0) < 0 ? -errno : 0;
}

static int step_unlink(int root)
{
    if (unlinkat(root, "evil.txt", 0) < 0 || unlinkat(root, "dir/moved", 0) < 0 ||
        unlinkat(root, "dir/new", 0) < 0)
        return -errno;
    return 0;
}

static int step_rmdir(int root)
{
    if (unlinkat(root, "w/f", 0) < 0 && errno != ENOENT)
        return -errno; /* (there if the rename was refused) */
    return unlinkat(root, "w", UNLINK_DIR) < 0 ? -errno : 0;
}

/* Every step on every attack image, in order: each must end as the
 * image's row says, '0' done, 'E' EUCLEAN, 'R' EROFS, 'N' ENOENT (a name
 * an earlier refused step did not make). Never another outcome, and
 * healthy.txt reads intact at the end. (The rows are what the damage implies; the
 * reasons are in the comments.) */
static void every_use_of_an_attack_image_works_or_is_euclean(void)
{
    static int (*const steps[])(int) = { step_read,          step_read_evil, step_write_evil,
                                         step_truncate_evil, step_create,    step_rename,
                                         step_unlink,        step_rmdir };
    static const struct {
        const char *img, *want, *opts;
    } c[] = {
        /* damage only the whole disk shows: the mount's check makes the
         * instance read-only, so every change is EROFS ('R'), every read
         * works (step_rename's w/f was never made) */
        { "blocks_shared", "00RRRNRR", "" },
        { "block_free_in_bitmap", "00RRRNRR", "" },
        { "dirent_names_free_inode", "00RRRNRR", "" },
        { "links_below_names", "00RRRNRR", "" },
        { "dirent_type_disagrees", "00RRRNRR", "" },
        { "i_blocks_too_large", "00RRRNRR", "" },
        { "dir_hole_counts_agree", "00RRRNRR", "" },
        { "dotdot_counts_agree", "00RRRNRR", "" },
        { "dotdot_in_second_block", "00RRRNRR", "" },
        { "dotdot_twice", "00RRRNRR", "" },
        { "dir_two_names_one_parent", "00RRRNRR", "" },
        { "root_named_in_root", "00RRRNRR", "" },
        { "root_dotdot_elsewhere", "00RRRNRR", "" },
        { "dir_without_blocks", "E0RRRNRR", "" }, /* (listing sub/deeper: EUCLEAN) */
        { "dir_size_not_whole_blocks", "E0RRRNRR", "" },
        { "reserved_inode_free", "00RRRNRR", "" },
        { "file_blocks_past_size", "00RRRNRR", "" },
        { "fast_symlink_too_long", "00RRRNRR", "" },
        { "dir_duplicate_name", "00RRRNRR", "" },
        { "fast_symlink_size_not_text", "00RRRNRR", "" },
        { "slow_symlink_size_not_text", "00RRRNRR", "" },
        { "dir_unnamed", "N0RRRNRR", "" },          /* (sub/deeper has no name) */
        { "dir_loop_unreachable", "N0RRRNRR", "" }, /* (nor sub: the root's name is gone) */
        /* the rest without the mount's check, for what each operation sees:
         * big's map loops: reading it; otherwise a healthy image */
        { "ind_self_loop", "E0000000", NOCHECK },
        { "dind_self_loop", "E0000000", NOCHECK },
        { "tind_inner_loop", "00000000", NOCHECK }, /* (its loop lies past what step_read reads) */
        { "direct_is_indirect", "E0000000", NOCHECK },
        /* /sub/deeper's ".." is checked only by a climb or a move */
        { "dotdot_is_a_file", "00000000", NOCHECK },
        { "dir_without_dotdot", "00000000", NOCHECK },
        { "dir_alias", "00000000", NOCHECK },
        /* evil.txt is no longer reachable: its inode is damaged */
        { "fast_symlink_size_lies", "0EEE00E0", NOCHECK },
        /* big's and evil.txt's blocks are metadata: never followed, never freed */
        { "pointers_into_metadata", "EEEE00E0", NOCHECK },
        /* the first allocation meets the lying bit */
        { "bitmap_frees_inode_table", "00E0ENNN", NOCHECK },
        { "inode_bitmap_frees_reserved", "0000ENNN", NOCHECK },
        /* a hole of 4 GiB: nothing wrong with that */
        { "file_size_huge", "00000000", NOCHECK },
        /* /dir's block is damaged: every step through /dir */
        { "entry_spans_blocks", "E000EEE0", NOCHECK },
        { "dirent_inode_one", "E000EEE0", NOCHECK },
        { "dirent_inode_one_past", "E000EEE0", NOCHECK },
    };
    char got[ARRAY_SIZE(steps) + 1], wrong[400] = "";
    unsigned i, j;
    int root, r;

    for (i = 0; i < ARRAY_SIZE(c); i++) {
        for (j = 0; j < ARRAY_SIZE(steps); j++) {
            CHECK((root = mount_image(c[i].img, c[i].opts)) >= 0, "%s: fsopen before step %u",
                  c[i].img, j);
            errno = 0;
            r = steps[j](root);
            got[j] = r == 0          ? '0'
                     : r == -EUCLEAN ? 'E'
                     : r == -EROFS   ? 'R'
                     : r == -ENOENT  ? 'N'
                                     : '?';
            close(root);
        }
        got[j] = '\0';
        if (strcmp(got, c[i].want) != 0)
            snprintf(wrong + strlen(wrong), sizeof(wrong) - strlen(wrong), " %s: %s, want %s;",
                     c[i].img, got, c[i].want);
        CHECK((root = mount_image(c[i].img, "ro")) >= 0 && healthy_txt_is_intact(root),
              "%s: healthy.txt after every step", c[i].img);
        close(root);
    }
    CHECK(!wrong[0], "steps ended:%s", wrong);
    PASS();
}

/* ---------------------------------------------------------------- the mount's check */

/* Can a file of this instance be readied for writing? 0 if so (nothing
 * is written), else -errno: -EROFS once the mount's check found damage. */
static int probe_writable(int root)
{
    int f = walk(root, "healthy.txt", 0), w, e;

    if (f < 0)
        return -errno;
    w = ready(f, R_WRITE);
    e = errno;
    close(f);
    if (w < 0)
        return -e;
    close(w);
    return 0;
}

/* Damage only a view of the whole disk shows (e2craft.py's WHOLE_DISK):
 * two maps naming one block (blocks_shared), a block in use that its
 * bitmap calls free (block_free_in_bitmap), a name for a free inode
 * (dirent_names_free_inode), more names than links (links_below_names),
 * a dirent type that is not its inode's (dirent_type_disagrees), and
 * three the operations find one at a time: i_blocks that is not what the
 * map names (i_blocks_too_large), a hole in a directory
 * (dir_hole_counts_agree), a ".." that names another parent with the
 * counts right (dotdot_counts_agree); and, each with the counts right, a
 * ".." that is not its directory's second entry (dotdot_in_second_block),
 * a second ".." (dotdot_twice), a second name for a directory in its own
 * parent (dir_two_names_one_parent) and a name for the root in the root
 * (root_named_in_root), which its ".." cannot show, and the root's ".."
 * naming another directory (root_dotdot_elsewhere), a directory of no
 * blocks, so without either (dir_without_blocks), a directory's size
 * that is not whole blocks (dir_size_not_whole_blocks) and a reserved
 * inode free in the bitmap (reserved_inode_free), a file's blocks past
 * its size (file_blocks_past_size), a fast symlink longer than its
 * inode holds, its entry's type right (fast_symlink_too_long), a name
 * twice in one directory (dir_duplicate_name), a fast or slow symlink
 * whose size is not its text's length (fast_symlink_size_not_text,
 * slow_symlink_size_not_text), a directory with no name (dir_unnamed)
 * and two that name each other, the root reaching neither
 * (dir_loop_unreachable: e2fsck 1.47 misses this one). fsopen
 * finds each and the instance is read-only: every change EROFS, reading
 * as before, so a user can copy their files off; the image stays byte
 * for byte as it was. Without the check a write to evil.txt rewrote
 * healthy.txt, an allocation took healthy.txt's block, a create gave
 * dir/ghost the new file, and unlinking dir/hello2 freed hello.txt's
 * inode and block. (tools/test.py checks the console line for each.) */
static void whole_disk_damage_makes_the_instance_read_only(void)
{
    static const char *imgs[] = {
        "blocks_shared",         "block_free_in_bitmap",       "dirent_names_free_inode",
        "links_below_names",     "dirent_type_disagrees",      "i_blocks_too_large",
        "dir_hole_counts_agree", "dotdot_counts_agree",        "dotdot_in_second_block",
        "dotdot_twice",          "dir_two_names_one_parent",   "root_named_in_root",
        "root_dotdot_elsewhere", "dir_without_blocks",         "dir_size_not_whole_blocks",
        "reserved_inode_free",   "file_blocks_past_size",      "fast_symlink_too_long",
        "dir_duplicate_name",    "fast_symlink_size_not_text", "slow_symlink_size_not_text",
        "dir_unnamed",           "dir_loop_unreachable"
    };
    unsigned i, crc;
    int root, f;

    for (i = 0; i < ARRAY_SIZE(imgs); i++) {
        crc = image_crc(imgs[i]);
        CHECK((root = mount_image(imgs[i], "")) >= 0, "%s: fsopen", imgs[i]);
        CHECK(healthy_txt_is_intact(root), "%s: read healthy.txt", imgs[i]);
        CHECK(read_file(root, "hello.txt", buf, sizeof(buf)) == 13, "%s: read hello.txt", imgs[i]);
        CHECK(list_dir(root, "dir") >= 5 && read_file(root, "dir/b", buf, sizeof(buf)) == 10,
              "%s: list and read dir", imgs[i]);
        CHECK_ERR(create(root, "new", S_IFREG, 0644, 0), EROFS);
        CHECK_ERR(unlinkat(root, "dir/b", 0), EROFS);
        CHECK_ERR(renameat(root, "dir/b", root, "moved", 0), EROFS);
        CHECK((f = walk(root, "evil.txt", 0)) >= 0, "%s: walk evil.txt", imgs[i]);
        CHECK_ERR(ready(f, R_WRITE), EROFS);
        close(f);
        close(root);
        CHECK(image_crc(imgs[i]) == crc, "%s: the image changed", imgs[i]);
    }
    PASS();
}

/* What each operation does, without the mount's check, with the three
 * contradictions the check now finds as well (e2craft.py's WHOLE_DISK):
 * - dotdot_counts_agree: /sub/deeper's ".." names the root, the counts
 *   moved with it. A climb through it, moving it to another parent and
 *   removing it are EUCLEAN, and so is moving /sub below /sub/deeper: the
 *   old kernel's climb from /sub/deeper went by its ".." to the root, said
 *   "not below itself", and moved /sub into its own child, where neither
 *   was reachable from the root any more (and /sub/deeper/file with them).
 * - dir_hole_counts_agree: /sub's block 1 is a hole. Listing /sub,
 *   removing it, a create in it and a rename into it (each first makes
 *   sure the name is not there) are EUCLEAN; what stops before the hole
 *   works (a lookup of a name in block 0, removing /sub/deeper).
 * - i_blocks_too_large: /evil.txt's i_blocks counts two blocks its map
 *   does not name. Reading, writing, truncating and unlinking it work:
 *   the count only rides along, and goes with the inode.
 * The image changes only where a call succeeded. */
static void contradictions_the_check_finds_are_safe_per_operation(void)
{
    unsigned crc;
    int r[4], e[4], f;

    crc = image_crc_but_mount("dotdot_counts_agree");
    r[0] = ON_IMAGE("dotdot_counts_agree", holding(root, "sub/deeper", 0), &e[0]);
    r[1] =
        ON_IMAGE("dotdot_counts_agree", renameat(root, "sub", root, "sub/deeper/moved", 0), &e[1]);
    r[2] =
        ON_IMAGE("dotdot_counts_agree", renameat(root, "sub/deeper", root, "dir/deeper", 0), &e[2]);
    CHECK(r[0] == -1 && e[0] == EUCLEAN, "'..' to the grandparent, from below: %d, errno %d", r[0],
          e[0]);
    CHECK(r[1] == -1 && e[1] == EUCLEAN, "/sub moved below its own child: %d, errno %d", r[1],
          e[1]);
    CHECK(r[2] == -1 && e[2] == EUCLEAN, "a move of /sub/deeper: %d, errno %d", r[2], e[2]);
    CHECK(image_crc_but_mount("dotdot_counts_agree") == crc, "dotdot_counts_agree changed");
    r[0] = ON_IMAGE("dotdot_counts_agree", empty_and_rmdir_deeper(root), &e[0]);
    CHECK(r[0] == -1 && e[0] == EUCLEAN, "rmdir of /sub/deeper: %d, errno %d", r[0], e[0]);
    r[0] = ON_IMAGE("dotdot_counts_agree", list_dir(root, "sub/deeper"), &e[0]);
    CHECK(r[0] == 2, "/sub/deeper afterwards: %d entries, errno %d", r[0], e[0]);

    r[0] = ON_IMAGE("dir_hole_counts_agree", list_dir(root, "sub"), &e[0]);
    r[1] = ON_IMAGE("dir_hole_counts_agree", read_file(root, "sub/deeper/file", buf, sizeof(buf)),
                    &e[1]);
    r[2] = ON_IMAGE("dir_hole_counts_agree", empty_and_rmdir_deeper(root), &e[2]);
    r[3] = ON_IMAGE("dir_hole_counts_agree", unlinkat(root, "sub", UNLINK_DIR), &e[3]);
    CHECK(r[0] == -1 && e[0] == EUCLEAN, "listing a directory with a hole: %d, errno %d", r[0],
          e[0]);
    CHECK(r[1] == 5, "a file below it, its name before the hole: %d, errno %d", r[1], e[1]);
    CHECK(r[2] == 0, "rmdir of an empty directory below it: %d, errno %d", r[2], e[2]);
    CHECK(r[3] == -1 && e[3] == EUCLEAN, "rmdir of it, the hole past its . and ..: %d, errno %d",
          r[3], e[3]);
    r[0] = ON_IMAGE("dir_hole_counts_agree", create(root, "sub/new", S_IFREG, 0644, 0), &e[0]);
    r[1] =
        ON_IMAGE("dir_hole_counts_agree", renameat(root, "evil.txt", root, "sub/evil", 0), &e[1]);
    CHECK(r[0] == -1 && e[0] == EUCLEAN, "a create in it: %d, errno %d", r[0], e[0]);
    CHECK(r[1] == -1 && e[1] == EUCLEAN, "a rename into it: %d, errno %d", r[1], e[1]);

    memset(buf, 'w', 1024);
    r[0] = ON_IMAGE("i_blocks_too_large", file_at(root, "evil.txt", 4096, buf, 1024, 1), &e[0]);
    r[1] = ON_IMAGE("i_blocks_too_large", read_file(root, "evil.txt", buf, sizeof(buf)), &e[1]);
    r[2] = ON_IMAGE("i_blocks_too_large", step_truncate_evil(root), &e[2]);
    r[3] = ON_IMAGE("i_blocks_too_large", unlinkat(root, "evil.txt", 0), &e[3]);
    CHECK(r[0] == 1024 && r[1] == 5120 && r[2] == 0 && r[3] == 0,
          "write, read, truncate, unlink of evil.txt: %d %d %d %d, errno %d %d %d %d", r[0], r[1],
          r[2], r[3], e[0], e[1], e[2], e[3]);
    CHECK((f = mount_image("i_blocks_too_large", "")) >= 0 && probe_writable(f) == 0 &&
              healthy_txt_is_intact(f),
          "i_blocks_too_large, evil.txt gone: not healthy to the mount's check");
    close(f);
    PASS();
}

/* The check finds at fsopen most of what the operations find later (a
 * map that loops, a pointer into metadata, a broken directory entry, a
 * name for a free inode, a free bit for metadata, a hole in a directory,
 * i_blocks, a second name for a directory...), and leaves to them what it
 * does not look at (a size past the end of a file, more links than names:
 * a leak, not a danger). A read-only instance is not checked (it writes
 * nothing), and neither are images whose geometry fsopen refuses. Runs
 * first: other tests change some of these images (unlink the damage). */
static void the_mount_check_finds_what_the_operations_find_later(void)
{
    static const char *flagged[] = {
        "ind_self_loop",
        "dind_self_loop",
        "tind_inner_loop",
        "direct_is_indirect",
        "dotdot_is_a_file",
        "dir_alias",
        "fast_symlink_size_lies",
        "pointers_into_metadata",
        "bitmap_frees_inode_table",
        "inode_bitmap_frees_reserved",
        "entry_spans_blocks",
        "dirent_inode_one",
        "dirent_inode_one_past",
        "dotdot_loop",
        "dotdot_elsewhere",
        "inode_bit_clear_while_open",
        "short_last_dirent",
        "dirent_reserved_inode",
        "dirent_inode_out_of_range",
        "tind_self_loop",
        "dir_huge_size",
        "block_twice_in_file",
        "pointer_into_inode_table",
        "inode_freed_already",
        "file_without_links",
        "pointer_past_end",
        "dir_hole",
        "i_blocks_too_small",
        "dir_without_dotdot",
    };
    static const char *unflagged[] = { "file_size_huge", "dir_links_lie", "healthy_1k" };
    char wrong[400] = "";
    unsigned i;
    int r, e;

    for (i = 0; i < ARRAY_SIZE(flagged) + ARRAY_SIZE(unflagged); i++) {
        int want_flag = i < ARRAY_SIZE(flagged);
        const char *img = want_flag ? flagged[i] : unflagged[i - ARRAY_SIZE(flagged)];
        int root = mount_image(img, "");
        e = errno;
        r = root < 0 ? -e : probe_writable(root);
        if (root >= 0)
            close(root);
        if (r != (want_flag ? -EROFS : 0))
            snprintf(wrong + strlen(wrong), sizeof(wrong) - strlen(wrong), " %s: %d;", img, r);
    }
    CHECK(!wrong[0], "readying healthy.txt for writing, want EROFS for the first %u:%s",
          (unsigned)ARRAY_SIZE(flagged), wrong);
    PASS();
}

/* A mount in progress takes its image from writers too (vfs.c's
 * making_fs), not only a live instance: ext2's mount reads the image to
 * check it, sleeping on the disk, and a write that came meanwhile went
 * past the check. The child says it is about to fsopen, mounts, says it
 * is done and exits (which drops the instance); meanwhile the parent
 * writes 0 bytes (the test alone: the image stays as it is) again and
 * again, and runs whenever the mount sleeps on the disk. Some of those
 * writes must be EBUSY: before, every one went through while the mount
 * ran (EBUSY came only if the parent ran while the instance was live,
 * between fsopen's return and the child's next word). The image must be
 * cold in the cache, so that the mount sleeps: this test runs before
 * any other reads it, on an image of 8 MiB. */
static void a_mount_in_progress_takes_its_image_from_writers(void)
{
    static const char *img = "healthy_sparse_groups";
    char c = '?';
    int go[2], done[2], src, pid, status, r, busy = 0, through = 0, other = 0;

    CHECK(pipe(go) == 0 && pipe(done) == 0, "pipes");
    CHECK((src = image_fd(img, O_RDWR)) >= 0, "open the image");
    if ((pid = fork()) == 0) {
        int root;
        write(go[1], "g", 1);
        root = fsopen("ext2", src, "");
        write(done[1], root >= 0 ? "y" : "n", 1);
        _exit(0);
    }
    CHECK(pid > 0 && read(go[0], &c, 1) == 1, "fork");
    CHECK(fcntl(done[0], F_SETFL, R_NONBLOCK) == 0, "a nonblocking pipe");
    do {
        r = write(src, buf, 0);
        if (r == -1 && errno == EBUSY)
            busy++;
        else if (r == 0)
            through++;
        else
            other++;
    } while (read(done[0], &c, 1) != 1);
    CHECK(wait(&status) == pid, "wait");
    close(go[0]), close(go[1]), close(done[0]), close(done[1]), close(src);
    CHECK(c == 'y', "fsopen");
    CHECK(busy > 0 && other == 0, "writes while fsopen ran: %d EBUSY, %d went through, %d else",
          busy, through, other);
    PASS();
}

/* A writer that waits for its turn on an open file (behind a reader of
 * the same open file: fork shares it) is asked whether the image is taken
 * once it has its turn, not before: it slept in the turn while an
 * instance was made of the image, then wrote under it. X reads the 8 MiB
 * image (its data cold: many sleeps on the disk, the file's turn held
 * throughout); W writes 4 bytes through the same open file. A W that
 * finds the turn free (X not reading yet) just writes and ends, and
 * another is sent; one that sleeps (in the turn: nothing else it does
 * sleeps) waits for X, and meanwhile the parent fsopens the image. That
 * W's write must be EBUSY. (The 4 bytes are the image's own, so that
 * every write changes nothing.) */
static void a_writer_waiting_for_its_turn_is_refused_once_an_instance_takes_the_image(void)
{
    static const char *img = "healthy_sparse_groups";
    enum { LAST = (8u << 20) - 4096 };
    char path[40], st[160], c = '?';
    int xp[2], xgo[2], res[2], src, fd, root = -1, x, w = -1, n, e = 0, ended = 0, slept = 0;
    int tries = 0, wr[2] = { 0, 0 };
    unsigned same;

    CHECK(pipe(xp) == 0 && pipe(xgo) == 0 && pipe(res) == 0, "pipes");
    CHECK((src = image_fd(img, O_RDWR)) >= 0, "open the image");
    same = img_get(img, LAST, 4);
    if ((x = fork()) == 0) {
        char *big = malloc(LAST);
        read(xgo[0], &c, 1);
        n = big ? read(src, big, LAST) : -1;
        write(xp[1], n == (int)LAST ? "y" : "n", 1);
        _exit(0);
    }
    CHECK(x > 0 && fcntl(xp[0], F_SETFL, R_NONBLOCK) == 0, "fork X");
    write(xgo[1], "x", 1);
    while (!slept && !(ended = read(xp[0], &c, 1) == 1)) {
        if (w < 0) {
            if ((w = fork()) == 0) {
                wr[0] = write(src, &same, 4);
                wr[1] = errno;
                write(res[1], wr, sizeof(wr));
                _exit(0);
            }
            tries++;
            snprintf(path, sizeof(path), "/proc/%d/status", w);
        }
        sched_yield();
        fd = open(path, O_RDONLY);
        n = fd >= 0 ? read(fd, st, sizeof(st) - 1) : -1;
        close(fd);
        st[n > 0 ? n : 0] = '\0';
        if ((slept = strstr(st, "state sleeping") != NULL)) {
            root = fsopen("ext2", src, "");
            e = errno;
        } else if (strstr(st, "state zombie")) {
            waitpid(w, NULL, 0); /* it found the turn free: its write was early */
            read(res[0], wr, sizeof(wr));
            w = -1;
        }
    }
    fcntl(xp[0], F_SETFL, 0);
    if (w > 0)
        CHECK(read(res[0], wr, sizeof(wr)) == sizeof(wr), "W's result");
    if (!ended)
        CHECK(read(xp[0], &c, 1) == 1, "X's result");
    while (wait(NULL) > 0)
        ;
    close(root);
    close(xp[0]), close(xp[1]), close(xgo[0]), close(xgo[1]), close(res[0]), close(res[1]);
    close(src);
    CHECK(slept && !ended, "a W slept in its turn while X read (%d W sent; X ended first: %d)",
          tries, ended);
    CHECK(root >= 0, "fsopen: errno %d", e);
    CHECK(c == 'y', "X read the image");
    CHECK(wr[0] == -1 && wr[1] == EBUSY, "W's write: %d, errno %d", wr[0], wr[1]);
    CHECK(img_get(img, LAST, 4) == same, "the image changed");
    PASS();
}

/* The mount's check lets other processes run, as ext2's other long walks
 * do (walk_step): it read every inode the bitmaps call in use, three
 * times, and from the cache (or an image in memory) nothing of it sleeps,
 * while kernel code is never preempted - an image whose bitmaps said
 * every inode was in use held the CPU for the whole check, and a crafted
 * one of 1.3 million inodes (the most the check keeps) for many seconds.
 * Here a copy of an image of 8192 inodes (cached: just written) with every inode
 * bit set (inodes without links: nothing for the check to find); S counts
 * its turns (one sched_yield each) between the parent's word that the
 * fsopen starts and the word that it is over. Before, S had a turn only
 * if the timer ended the parent's slice right at either word. */
static void the_mount_check_lets_other_processes_run(void)
{
    static const char *img = "all_inodes_used";
    unsigned bsize, ipg, ngroups, g, i, ibm;
    int ctl[2], res[2], s, root, e, turns = -1;
    char c;

    CHECK(copy_image("healthy_many_inodes", img), "copy the image");
    bsize = img_bsize(img);
    ipg = sb_field(img, 40);
    ngroups = sb_field(img, 0) / ipg;
    for (g = 0; g < ngroups; g++) {
        ibm = img_get(img, (sb_field(img, 20) + 1) * bsize + g * 32 + 4, 4) * bsize;
        for (i = 0; i < ipg / 8; i += 4)
            img_put(img, ibm + i, 0xFFFFFFFFu, 4);
    }
    CHECK(pipe(ctl) == 0 && pipe(res) == 0, "pipes");
    if ((s = fork()) == 0) {
        int n = 0;
        fcntl(ctl[0], F_SETFL, R_NONBLOCK);
        while (read(ctl[0], &c, 1) != 1)
            sched_yield();
        while (read(ctl[0], &c, 1) != 1) {
            n++;
            sched_yield();
        }
        write(res[1], &n, sizeof(n));
        _exit(0);
    }
    CHECK(s > 0, "fork");
    write(ctl[1], "s", 1);
    root = mount_image(img, "");
    e = errno;
    write(ctl[1], "e", 1);
    CHECK(read(res[0], &turns, sizeof(turns)) == sizeof(turns), "S's count");
    waitpid(s, NULL, 0);
    close(ctl[0]), close(ctl[1]), close(res[0]), close(res[1]);
    CHECK(root >= 0, "fsopen: errno %d", e);
    close(root);
    CHECK(unlink("/mnt/all_inodes_used.img") == 0, "remove the copy");
    CHECK(turns >= 16, "S had %d turns while the mount checked %u inodes", turns, ngroups * ipg);
    PASS();
}

/* An image file a live instance uses is that instance's to write: any
 * other write to it (through the very fd fsopen was given, or another)
 * and any ftruncate is EBUSY until the instance is gone (or revoked).
 * Before, the owner could write it under the instance, past every check
 * the mount made: here, /evil.txt's block pointer set to healthy.txt's
 * block (blocks_shared, made live), and a write to evil.txt through the
 * instance then rewrote healthy.txt. */
static void an_image_under_a_live_instance_takes_no_other_writer(void)
{
    static const char *img = "live";
    unsigned evil_ptr, healthy_blk, at;
    int src, root, other, f, w, r, e;

    CHECK(copy_image("healthy_1k", img), "copy the image");
    CHECK((at = ino_in(img, "evil.txt")) != 0, "evil.txt's inode");
    evil_ptr = inode_at(img, at) + I_BLOCK0;
    CHECK((at = ino_in(img, "healthy.txt")) != 0, "healthy.txt's inode");
    healthy_blk = img_get(img, inode_at(img, at) + I_BLOCK0, 4);
    CHECK((src = image_fd(img, O_RDWR)) >= 0, "open the image");
    CHECK((root = fsopen("ext2", src, "")) >= 0, "fsopen");
    CHECK((other = image_fd(img, O_WRONLY)) >= 0, "open it again for writing");
    CHECK(lseek(src, evil_ptr, SEEK_SET) == (int)evil_ptr, "lseek");
    CHECK_ERR(write(src, &healthy_blk, 4), EBUSY);
    CHECK(lseek(other, evil_ptr, SEEK_SET) == (int)evil_ptr, "lseek");
    CHECK_ERR(write(other, &healthy_blk, 4), EBUSY);
    CHECK_ERR(ftruncate(other, 4096), EBUSY);
    memset(buf, 'w', 1024);
    r = file_at(root, "evil.txt", 0, buf, 1024, 1);
    e = errno;
    CHECK(r == 1024, "write evil.txt through the instance: %d, errno %d", r, e);
    CHECK(healthy_txt_is_intact(root), "healthy.txt was rewritten");
    CHECK((f = create(root, "made", S_IFREG, 0644, 0)) >= 0, "the instance still writes");
    CHECK((w = ready(f, R_WRITE)) >= 0 && write(w, buf, 1024) == 1024, "write through it");
    close(w);
    close(f);
    CHECK(revoke(root) == 0, "revoke");
    CHECK(lseek(other, 0, SEEK_SET) == 0 && write(other, buf, 4) == 4,
          "a revoked instance's image takes writes again");
    close(root);
    close(other);
    close(src);
    CHECK((src = image_fd(img, O_RDWR)) >= 0 && (root = fsopen("ext2", src, "")) >= 0,
          "a second instance");
    close(root);
    CHECK(write(src, buf, 4) == 4, "the image takes writes once its instance is gone");
    close(src);
    CHECK(unlink("/mnt/live.img") == 0, "remove the copy");
    PASS();
}

/* ---------------------------------------------------------------- healthy images */

/* Everything a user does, on one image; the host's e2fsck judges after. */
static const char *workload(const char *img)
{
    static char why[96];
    int root, f, w, i;

#define TRY(cond, what) \
    do { \
        if (!(cond)) { \
            snprintf(why, sizeof(why), "%s: %s (errno %d)", img, what, errno); \
            return why; \
        } \
    } while (0)
    TRY((root = mount_image(img, "")) >= 0, "fsopen");
    TRY(healthy_txt_is_intact(root), "read healthy.txt");
    TRY(list_dir(root, "dir") == 5, "list dir");
    TRY((f = create(root, "w", S_IFDIR, 0755, 0)) >= 0, "mkdir w");
    close(f);
    for (i = 0; i < 20; i++) {
        char name[32];
        snprintf(name, sizeof(name), "w/file_with_a_longer_name_%02d", i);
        TRY((f = create(root, name, S_IFREG, 0644, 0)) >= 0, "create");
        TRY((w = ready(f, R_WRITE)) >= 0, "ready");
        memset(buf, 'a' + i, sizeof(buf));
        TRY(write(w, buf, sizeof(buf)) == sizeof(buf) && write(w, buf, 3000) == 3000, "write");
        if (i % 3 == 0)
            TRY(ftruncate(w, 1000 * i) == 0, "ftruncate");
        close(w);
        close(f);
    }
    TRY((f = walk(root, "big", 0)) >= 0 && linkat(f, root, "w/big_again") == 0, "link");
    close(f);
    TRY(create(
            root, "w/slow", S_IFLNK, 0777,
            (unsigned long)"a/symlink/target/long/enough/to/need/a/block/of/its/own/0123456789") >=
            0,
        "symlink");
    TRY(renameat(root, "w/file_with_a_longer_name_01", root, "dir/moved", 0) == 0, "rename");
    TRY(renameat(root, "sub/deeper", root, "w/deeper", 0) == 0, "rename a directory");
    for (i = 2; i < 20; i += 2) {
        char name[32];
        snprintf(name, sizeof(name), "w/file_with_a_longer_name_%02d", i);
        TRY(unlinkat(root, name, 0) == 0, "unlink");
    }
    TRY(unlinkat(root, "big", 0) == 0, "unlink big");
    TRY(unlinkat(root, "sub", UNLINK_DIR) == 0, "rmdir sub");
    TRY(read_file(root, "w/big_again", buf, sizeof(buf)) == sizeof(buf), "read the link");
    TRY(sync() == 0, "sync");
    close(root);
#undef TRY
    return NULL;
}

static void healthy_geometries_mount_and_take_writes(void)
{
    static const char *imgs[] = { "healthy_1k",   "healthy_2k",          "healthy_4k",
                                  "healthy_rev0", "healthy_many_groups", "healthy_sparse_groups" };
    const char *why;
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(imgs); i++)
        CHECK(!(why = workload(imgs[i])), "%s", why);
    PASS();
}

static const struct {
    const char *name;
    void (*fn)(void);
} tests[] = {
#define T(f) { #f, f }
    T(the_mount_check_finds_what_the_operations_find_later), /* first: others change images */
    T(a_mount_in_progress_takes_its_image_from_writers), /* second: its image still cold */
    T(a_writer_waiting_for_its_turn_is_refused_once_an_instance_takes_the_image), /* third */
    T(create_beside_an_entry_shorter_than_its_name_is_euclean_and_writes_nothing),
    T(entry_naming_a_reserved_inode_is_euclean),
    T(entry_naming_an_inode_past_the_count_is_euclean),
    T(blocks_per_group_over_8x_block_size_is_einval),
    T(inodes_per_group_over_8x_block_size_is_einval),
    T(inode_table_past_4_gib_is_einval),
    T(block_bitmap_on_the_superblock_is_einval),
    T(inode_table_over_a_bitmap_is_einval),
    T(blocks_count_beyond_the_image_is_einval),
    T(unknown_revision_is_einval),
    T(self_referencing_indirect_block_unlinks_in_bounded_time),
    T(directory_with_a_huge_size_is_euclean_in_bounded_time),
    T(block_freed_twice_is_refused_and_counts_stay_true),
    T(block_pointer_into_the_inode_table_is_never_freed),
    T(inode_freed_twice_is_refused_and_counts_stay_true),
    T(read_only_instance_never_frees_an_inode_without_links),
    T(unknown_ro_compat_root_without_links_changes_nothing),
    T(unknown_ro_compat_mounts_read_only_and_changes_nothing),
    T(over_65536_groups_is_einval),
    T(patched_copies_of_a_healthy_image_are_euclean_field_by_field),
    T(block_map_loops_are_euclean_and_spare_other_files),
    T(rename_through_a_broken_dotdot_is_euclean_and_writes_nothing),
    T(rmdir_through_a_second_name_for_a_directory_is_euclean),
    T(fast_symlink_longer_than_its_inode_is_euclean),
    T(free_counts_past_the_totals_are_einval),
    T(rarer_damage_is_euclean),
    T(every_use_of_an_attack_image_works_or_is_euclean),
    T(whole_disk_damage_makes_the_instance_read_only),
    T(contradictions_the_check_finds_are_safe_per_operation), /* after: changes them */
    T(an_image_under_a_live_instance_takes_no_other_writer),
    T(the_mount_check_lets_other_processes_run),
    T(healthy_geometries_mount_and_take_writes),
#undef T
};

int main(int argc, char **argv)
{
    unsigned i;
    int j;

    if (!disk_at_mnt()) {
        printf("FAIL disk_at_mnt: init did not attach the carrier disk at /mnt\ne2bad: done\n");
        return 1;
    }
    for (i = 0; i < ARRAY_SIZE(tests); i++) {
        for (j = 1; j < argc && strcmp(argv[j], tests[i].name) != 0; j++)
            ;
        if (argc == 1 || j < argc)
            tests[i].fn();
    }
    printf("e2bad: done\n");
    return t_failures != 0;
}
