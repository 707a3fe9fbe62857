/* e2write.c - write to an ext2 disk and leave a MANIFEST of what should be
 * there, for the host to check with debugfs and e2fsck, and for e2read to
 * check on the next boot: a big file through the indirect blocks, a file
 * reaching past the triple-indirect boundary, hundreds of random
 * create/write/truncate/rename/unlink steps checked against a model in
 * memory, directories over several blocks, symlinks, hard links. */
#include <dirent.h>
#include <stdarg.h>
#include <fcntl.h>
#include <orthos.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>
#include "t.h"

#define BIG_MB 66                  /* through the double-indirect blocks */
#define NFILES 24
#define MAXLEN (48 * 1024)
#define NOPS   400

static char manifest[32768];
static int mlen;
static char block[4096];

/* Add a line to the MANIFEST. */
static void note(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    mlen += vsnprintf(manifest + mlen, sizeof(manifest) - mlen, fmt, ap);
    va_end(ap);
}

static unsigned seed = 2026;

static unsigned rnd(unsigned n)
{
    seed = seed * 1103515245 + 12345;
    return (seed >> 8) % n;
}

static void fill_block(unsigned i)
{
    unsigned x = i * 2654435761u, k;

    for (k = 0; k < sizeof(block); k += 4) {
        x = x * 1664525 + 1013904223;
        memcpy(block + k, &x, 4);
    }
}

static void big_file_through_indirect_blocks(void)
{
    int fd = open("/mnt/big", O_WRONLY | O_CREAT | O_EXCL, 0644);
    unsigned i, crc = 0, n = BIG_MB * 256;
    struct stat st;

    CHECK(fd >= 0, "create /mnt/big");
    for (i = 0; i < n; i++) {
        fill_block(i);
        CHECK(write(fd, block, sizeof(block)) == sizeof(block), "write block %u", i);
        crc = crc32_update(crc, block, sizeof(block));
    }
    CHECK(write(fd, "end", 3) == 3, "tail");
    crc = crc32_update(crc, "end", 3);
    close(fd);
    CHECK(stat("/mnt/big", &st) == 0 && st.st_size == n * 4096 + 3, "size %u", st.st_size);
    note("f %s %u %08x\n", "big", n * 4096 + 3, crc);
    PASS();
}

static void sparse_file_past_triple_indirect(void)
{
    static const unsigned off = 70u << 20;  /* 1 KiB blocks: triple indirect from ~64.3 MiB */
    int fd = open("/mnt/sparse", O_RDWR | O_CREAT | O_EXCL, 0644);
    unsigned crc = 0, i;
    char c = 1;

    CHECK(fd >= 0, "create");
    CHECK(lseek(fd, off, SEEK_SET) == (int)off && write(fd, "far", 3) == 3, "write far");
    CHECK(lseek(fd, 5000, SEEK_SET) == 5000 && write(fd, "near", 4) == 4, "write near");
    CHECK(lseek(fd, 1000, SEEK_SET) == 1000 && read(fd, &c, 1) == 1 && c == 0, "hole not zero");
    close(fd);
    memset(block, 0, sizeof(block));
    for (i = 0; i < off / 4096; i++) {     /* the CRC of the whole file, holes included */
        if (i == 1) {
            memcpy(block + 5000 - 4096, "near", 4);
            crc = crc32_update(crc, block, 4096);
            memset(block, 0, sizeof(block));
        } else {
            crc = crc32_update(crc, block, 4096);
        }
    }
    crc = crc32_update(crc, "far", 3);
    note("f %s %u %08x\n", "sparse", off + 3, crc);
    PASS();
}

/* The model: what each of NFILES names should hold. */
static struct {
    char *data;
    unsigned len;
    int exists;
} model[NFILES];

static void name_of(int i, char *path, int full)
{
    snprintf(path, 64, "%s%s/f%d", full ? "/mnt/" : "", i % 2 ? "r" : "r/sub", i);
}

static void one_random_step(int step, char *why)
{
    int i = rnd(NFILES), j, fd;
    char path[64], path2[64];
    unsigned off, len, k;

    name_of(i, path, 1);
    switch (rnd(5)) {
    case 0:
    case 1:                             /* write somewhere, creating if needed */
        off = rnd(MAXLEN / 2);
        len = 1 + rnd(MAXLEN / 2);
        if ((fd = open(path, O_WRONLY | O_CREAT, 0644)) < 0 || lseek(fd, off, SEEK_SET) != (int)off)
            goto fail;
        if (!model[i].exists) {
            model[i].exists = 1;
            model[i].len = 0;
        }
        for (k = 0; k < len; k++)
            block[k % sizeof(block)] = (char)(step + k);
        for (k = 0; k < len; k += sizeof(block)) {
            unsigned n = len - k < sizeof(block) ? len - k : sizeof(block);
            if (write(fd, block, n) != (int)n)
                goto fail;
        }
        close(fd);
        if (off > model[i].len)
            memset(model[i].data + model[i].len, 0, off - model[i].len);
        for (k = 0; k < len; k++)
            model[i].data[off + k] = block[k % sizeof(block)];
        if (off + len > model[i].len)
            model[i].len = off + len;
        return;
    case 2:                             /* truncate, shrinking or growing */
        if (!model[i].exists)
            return;
        len = rnd(MAXLEN);
        if ((fd = open(path, O_WRONLY)) < 0 || ftruncate(fd, len) < 0)
            goto fail;
        close(fd);
        if (len > model[i].len)
            memset(model[i].data + model[i].len, 0, len - model[i].len);
        model[i].len = len;
        return;
    case 3:                             /* rename, replacing whatever is there */
        j = rnd(NFILES);
        if (!model[i].exists || i == j)
            return;
        name_of(j, path2, 1);
        if (rename(path, path2) < 0)
            goto fail;
        memcpy(model[j].data, model[i].data, model[i].len);
        model[j].len = model[i].len;
        model[j].exists = 1;
        model[i].exists = 0;
        return;
    default:                            /* unlink */
        if (!model[i].exists)
            return;
        if (unlink(path) < 0)
            goto fail;
        model[i].exists = 0;
        return;
    }
fail:
    snprintf(why, 128, "step %d on %s: %s", step, path, strerror(errno));
}

static void random_operations_match_a_model(void)
{
    static char buf[MAXLEN];
    char why[128] = "", path[64];
    int i, step, fd, n;
    unsigned crc;

    CHECK(mkdir("/mnt/r", 0755) == 0 && mkdir("/mnt/r/sub", 0755) == 0, "mkdir");
    for (i = 0; i < NFILES; i++)
        CHECK((model[i].data = malloc(MAXLEN)) != NULL, "malloc");
    for (step = 0; step < NOPS && !why[0]; step++)
        one_random_step(step, why);
    CHECK(!why[0], "%s", why);
    for (i = 0; i < NFILES; i++) {
        name_of(i, path, 1);
        fd = open(path, O_RDONLY);
        CHECK((fd >= 0) == model[i].exists, "%s exists: %d, model says %d", path, fd >= 0,
              model[i].exists);
        if (fd < 0)
            continue;
        n = read(fd, buf, sizeof(buf));
        close(fd);
        CHECK(n == (int)model[i].len && memcmp(buf, model[i].data, n) == 0,
              "%s: %d bytes read, model has %u", path, n, model[i].len);
        crc = crc32_update(0, buf, n);
        name_of(i, path, 0);
        note("f %s %u %08x\n", path, n, crc);
    }
    PASS();
}

static void directories_grow_shrink_and_move(void)
{
    char path[64];
    struct stat st;
    int i;

    CHECK(mkdir("/mnt/many", 0755) == 0, "mkdir");
    for (i = 0; i < 200; i++) {         /* 200 entries: several directory blocks */
        snprintf(path, sizeof(path), "/mnt/many/entry-with-a-longish-name-%03d", i);
        CHECK(mkdir(path, 0755) == 0, "mkdir %s", path);
    }
    for (i = 0; i < 200; i += 2) {
        snprintf(path, sizeof(path), "/mnt/many/entry-with-a-longish-name-%03d", i);
        CHECK(rmdir(path) == 0, "rmdir %s", path);
    }
    CHECK(stat("/mnt/many", &st) == 0 && st.st_nlink == 102, "nlink %u", st.st_nlink);
    CHECK(mkdir("/mnt/many/entry-with-a-longish-name-001/inner", 0755) == 0, "mkdir inner");
    CHECK_ERR(rmdir("/mnt/many/entry-with-a-longish-name-001"), ENOTEMPTY);
    CHECK(rename("/mnt/many/entry-with-a-longish-name-001", "/mnt/moved") == 0, "move a dir");
    CHECK(stat("/mnt/moved/inner/..", &st) == 0, "inner/.. after the move");
    CHECK_ERR(rename("/mnt/moved", "/mnt/moved/inner/x"), EINVAL);
    note("d many 99\n");
    note("d moved 1\n");
    PASS();
}

/* rename() must not move a directory below itself: ext2 climbs ".."
 * from the new parent looking for it, a bounded climb (4096 steps), and
 * past the bound it answered "not above". A chain of 4100 directories,
 * and its top moved into its bottom: the old kernel did it, cutting the
 * chain off the tree in a loop (e2fsck found it). Now the climb that ends
 * unfinished refuses (ELOOP). The chain goes from the bottom up, by "..". */
#define DEEP 4100

static void a_directory_is_never_moved_below_itself_however_deep(void)
{
    int mnt = walk(AT_CWD, "/mnt", 0), cur, up, i, r, err, gone = 0;

    CHECK(mnt >= 0 && (cur = create(mnt, "deep", S_IFDIR, 0755, 0)) >= 0, "mkdir deep");
    for (i = 0; i < DEEP; i++) {
        CHECK((up = create(cur, "d", S_IFDIR, 0755, 0)) >= 0, "mkdir at depth %d", i + 1);
        close(cur);
        cur = up;
    }
    errno = 0;
    r = renameat(mnt, "deep", cur, "loop", 0);
    err = errno;
    for (i = 0; i < DEEP; i++) {         /* from the bottom up */
        if ((up = walk(cur, "..", 0)) < 0 || unlinkat(up, "d", UNLINK_DIR) < 0)
            break;
        close(cur);
        cur = up;
        gone++;
    }
    close(cur);
    CHECK(r == -1 && err == ELOOP,
          "renaming the top of %d directories into its bottom gave %d, "
          "errno %d (want ELOOP)",
          DEEP, r, err);
    CHECK(gone == DEEP && unlinkat(mnt, "deep", UNLINK_DIR) == 0, "removed %d of %d", gone, DEEP);
    close(mnt);
    PASS();
}

static void symlinks_and_hard_links(void)
{
    static const char *slow = "a/very/long/symlink/target/that/does/not/fit/in/the/inode/"
                              "block/array/of/sixty/bytes";
    struct stat st;
    char t[200];
    int n;

    CHECK(symlink("big", "/mnt/fast") == 0 && symlink(slow, "/mnt/slow") == 0, "symlink");
    CHECK((n = readlink("/mnt/slow", t, sizeof(t))) == (int)strlen(slow) && !memcmp(t, slow, n),
          "slow link reads back");
    CHECK(stat("/mnt/fast", &st) == 0 && st.st_size == BIG_MB * 256 * 4096 + 3, "follow");
    CHECK(link("/mnt/big", "/mnt/big2") == 0, "link");
    CHECK(stat("/mnt/big", &st) == 0 && st.st_nlink == 2, "nlink %u", st.st_nlink);
    CHECK(unlink("/mnt/big2") == 0 && stat("/mnt/big", &st) == 0 && st.st_nlink == 1, "unlink");
    note("l fast big\nl slow %s\n", slow);
    PASS();
}

/* The raw disk under the filesystem reads to its last byte and no
 * further: its last megabyte, read in order (the block cache reads ahead
 * more and more blocks at a time, and must stop at the end of the disk). */
static void the_raw_disk_reads_to_its_last_byte(void)
{
    struct stat st;
    int fd = open("/dev/hd1", O_RDONLY), n, total = 0;

    CHECK(fd >= 0 && fstat(fd, &st) == 0 && st.st_size >= (1 << 20), "/dev/hd1: size %d",
          (int)st.st_size);
    CHECK(lseek(fd, st.st_size - (1 << 20), SEEK_SET) == (int)st.st_size - (1 << 20), "lseek");
    while ((n = read(fd, block, sizeof(block))) > 0)
        total += n;
    CHECK(n == 0 && total == (1 << 20), "read %d bytes of the last MiB, then %d (errno %d)", total,
          n, errno);
    close(fd);
    PASS();
}

static void persist_manifest(void)
{
    int fd = open("/mnt/MANIFEST", O_WRONLY | O_CREAT | O_TRUNC, 0644);

    CHECK(fd >= 0 && write(fd, manifest, mlen) == mlen, "write MANIFEST");
    close(fd);
    CHECK(sync() == 0, "sync");
    PASS();
}

int main(void)
{
    if (!disk_at_mnt()) {
        printf("FAIL disk_at_mnt: init did not attach /dev/hd1 at /mnt\ne2write: done\n");
        return 1;
    }
    big_file_through_indirect_blocks();
    sparse_file_past_triple_indirect();
    random_operations_match_a_model();
    directories_grow_shrink_and_move();
    a_directory_is_never_moved_below_itself_however_deep();
    symlinks_and_hard_links();
    the_raw_disk_reads_to_its_last_byte();
    persist_manifest();
    printf("e2write: done\n");
    return t_failures != 0;
}
