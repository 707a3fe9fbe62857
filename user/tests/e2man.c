/* e2man.c - the errors the manual pages give for ext2 images that no
 * ramfs can show: a regular file of 4 GiB or more (EFBIG to write or
 * truncate it) and a damaged block map (EUCLEAN, and from then on no
 * writes). t_errno.c makes every other error a page lists; this boot has
 * what it lacks, a disk. tools/test.py (man_ext2) makes /mnt/man.img on
 * the carrier disk with debugfs:
 *   /big      4 bytes, its size's high word 1 (4 GiB + 4)
 *   /badmap   3000 bytes, its first block pointer on the inode table
 *   /prog     /bin/true, its first block pointer on the inode table
 *   /healthy  6 bytes, sound
 * A result is PAGE_ERRNO_what, as t_errno's, and tools/test.py's docs
 * check counts these EXPECTs as that page's errno made to happen. */
#include <orthos.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "t.h"
#include "t_expect.h"

/* /mnt/man.img as an ext2 instance without the whole-disk check (which
 * would make a damaged image read-only: EROFS, not the error asked). */
static int mount_man(void)
{
    int src = open("/mnt/man.img", O_RDWR), root;

    if (src < 0)
        return -1;
    root = fsopen("ext2", src, "nocheck");
    close(src);
    return root;
}

static int ready_at(int dirfd, const char *path, int mode)
{
    int p = walk(dirfd, path, 0), fd;

    if (p < 0)
        return -1;
    fd = ready(p, mode);
    close(p);
    return fd;
}

static int root;

/* A regular file of 4 GiB or more (another system's): its size says 4 GiB
 * - 1 (st_size's most), its first bytes read as they are and the rest up
 * to there as the hole they are, a write or a truncation is EFBIG (its
 * size cannot be stored), and its names go as any file's: rename, link,
 * unlink (which frees it whole). None marks the instance damaged: a size
 * too big to address is no damage. Before, every walk that met it was
 * EFBIG, so it could be neither read nor removed. */
static void a_4_gib_file(void)
{
    char buf[16];
    struct stat st;
    int p = walk(root, "big", 0), rd = p >= 0 ? ready(p, R_READ) : -1;
    int wr = p >= 0 ? ready(p, R_WRITE) : -1, f, i, zeros = 1;

    t_report("e2man_a_4_gib_file_walks", p >= 0 && rd >= 0 && wr >= 0 ? NULL : "walk or ready");
    t_report("e2man_a_4_gib_file_says_4_gib_less_one",
             fstat(p, &st) == 0 && st.st_size == 0xFFFFFFFFu ? NULL : "st_size");
    t_report("e2man_a_4_gib_file_reads_its_bytes",
             read(rd, buf, 8) == 8 && memcmp(buf, "big\n\0\0\0\0", 8) == 0 ? NULL : "read at 0");
    /* the hole, as far as an offset reaches (lseek's INT32_MAX) */
    memset(buf, 'x', sizeof(buf));
    if (lseek(rd, 0x7FFFFFF0, SEEK_SET) != 0x7FFFFFF0 || read(rd, buf, sizeof(buf)) != 16)
        zeros = 0;
    for (i = 0; i < 16; i++)
        zeros = zeros && buf[i] == 0;
    t_report("e2man_a_4_gib_file_reads_its_hole_at_2_gib", zeros ? NULL : "read at 2 GiB - 16");
    EXPECT(write, EFBIG, a_4_gib_file, write(wr, "x", 1));
    EXPECT(ftruncate, EFBIG, a_4_gib_file, ftruncate(wr, 0));
    close(rd);
    close(wr);
    close(p);
    t_report("e2man_a_4_gib_file_is_renamed_linked_and_unlinked",
             renameat(root, "big", root, "big2", 0) == 0 && (f = walk(root, "big2", 0)) >= 0 &&
                     linkat(f, root, "big3") == 0 && close(f) == 0 &&
                     unlinkat(root, "big2", 0) == 0 && unlinkat(root, "big3", 0) == 0 &&
                     walk(root, "big3", 0) < 0 && errno == ENOENT
                 ? NULL
                 : "rename, link or unlink");
    f = create(root, "after-big", S_IFREG, 0644, 0);
    t_report("e2man_a_4_gib_file_is_no_damage", f >= 0 ? NULL : "create after it");
    close(f);
}

static int prog_fd;

static int exec_prog(void)
{
    char *argv[] = { "prog", NULL }, *envp[] = { NULL };

    EXPECT(exec, EUCLEAN, a_block_pointer_on_the_inode_table, exec(prog_fd, argv, envp));
    fflush(stdout);
    return 0;                           /* (an exec that worked ran true: unreported) */
}

/* The first EUCLEAN (the read) marks the instance damaged: every later
 * change fails with EUCLEAN, reads go on. */
static void a_damaged_block_map(void)
{
    char buf[1024];
    int rd = ready_at(root, "badmap", R_READ), wr = ready_at(root, "badmap", R_WRITE);
    int ok = ready_at(root, "healthy", R_RDWR);

    prog_fd = ready_at(root, "prog", R_READ);
    if (rd < 0 || wr < 0 || ok < 0 || prog_fd < 0) {
        t_report("e2man_fds", "ready of /badmap, /healthy or /prog failed");
        return;
    }
    EXPECT(read, EUCLEAN, a_block_pointer_on_the_inode_table, read(rd, buf, sizeof(buf)));
    in_child(exec_prog);
    EXPECT(write, EUCLEAN, a_block_pointer_on_the_inode_table, write(wr, "x", 1));
    EXPECT(write, EUCLEAN, a_sound_file_of_a_damaged_instance, write(ok, "x", 1));
    EXPECT(ftruncate, EUCLEAN, a_damaged_instance, ftruncate(ok, 0));
    EXPECT(fchmod, EUCLEAN, a_damaged_instance, fchmod(ok, 0600));
    EXPECT(fchown, EUCLEAN, a_damaged_instance, fchown(ok, 1, 1));
    t_report("e2man_a_damaged_instance_still_reads",
             read(ok, buf, sizeof(buf)) == 6 ? NULL : "read of /healthy");
    close(rd);
    close(wr);
    close(ok);
    close(prog_fd);
}

/* /mnt/big.img: a sound image whose /big and /kept (3 blocks each) say
 * 4 GiB + 4. /big is unlinked (its blocks and inode freed: the host's
 * e2fsck finds the image clean, and no /big), then a file of 4 blocks
 * takes their place; /kept's inode is written (fchmod 0600), and the
 * host finds its size as it was. */
static void a_4_gib_file_unlinked_frees_it_whole(void)
{
    int src = open("/mnt/big.img", O_RDWR), img = src >= 0 ? fsopen("ext2", src, "") : -1;
    int f, w = -1, i, ok;
    char blk[1024];

    close(src);
    memset(blk, 'A', sizeof(blk));
    ok = img >= 0 && (f = walk(img, "kept", 0)) >= 0 && fchmod(f, 0600) == 0 && close(f) == 0 &&
         unlinkat(img, "big", 0) == 0 && (f = create(img, "after", S_IFREG, 0644, 0)) >= 0 &&
         (w = ready(f, R_WRITE)) >= 0 && close(f) == 0;
    for (i = 0; ok && i < 4; i++)
        ok = write(w, blk, sizeof(blk)) == (int)sizeof(blk);
    close(w);
    close(img);
    sync();
    t_report("e2man_a_4_gib_file_unlinked_frees_it_whole", ok ? NULL : "unlink, then a new file");
}

int main(void)
{
    if (unshare() < 0 || (root = mount_man()) < 0) {
        printf("FAIL e2man_mount: /mnt/man.img: %s\ne2man: done\n", strerror(errno));
        return 1;
    }
    a_4_gib_file();
    a_4_gib_file_unlinked_frees_it_whole();
    a_damaged_block_map();
    close(root);
    printf("e2man: done\n");
    return t_failures != 0;
}
