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
    unsigned before = image_crc(img);
    int root;

    memset(path + 4, 'n', 200);         /* a long name: the old kernel wrote it past the block */
    path[204] = '\0';
    CHECK((root = mount_image(img, "")) >= 0, "fsopen");
    CHECK(fchdir(root) == 0, "fchdir");
    CHECK_ERR(create(AT_CWD, path, S_IFREG, 0644, 0), EUCLEAN);
    CHECK_ERR(list_dir(root, "dir"), EUCLEAN);
    CHECK(read_file(root, "hello.txt", buf, sizeof(buf)) == 13, "other files still read");
    CHECK(create_refused(root, "elsewhere"), "a damaged instance took a create at its root");
    CHECK(chdir("/") == 0, "chdir /");
    close(root);
    CHECK(image_crc(img) == before, "the image changed");
    PASS();
}

static void entry_naming_a_reserved_inode_is_euclean(void)
{
    int root;

    CHECK((root = mount_image("dirent_reserved_inode", "")) >= 0, "fsopen");
    CHECK_ERR(walk(root, "dir/a", 0), EUCLEAN);
    close(root);
    PASS();
}

static void entry_naming_an_inode_past_the_count_is_euclean(void)
{
    int root;

    CHECK((root = mount_image("dirent_inode_out_of_range", "")) >= 0, "fsopen");
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

    CHECK((root = mount_image("tind_self_loop", "")) >= 0, "fsopen");
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

    CHECK((root = mount_image("dir_huge_size", "")) >= 0, "fsopen");
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

    CHECK((root = mount_image(img, "")) >= 0, "fsopen");
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

    CHECK((root = mount_image("pointer_into_inode_table", "")) >= 0, "fsopen");
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

    CHECK((root = mount_image(img, "")) >= 0, "fsopen");
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

    root = mount_image(img, "");
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

    CHECK((root = mount_image(img, "")) >= 0, "fsopen");
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
