/* e2man.c - the errors the manual pages give for ext2 images that no
 * ramfs can show: a regular file of 4 GiB or more (EFBIG wherever a walk
 * meets it) and a damaged block map (EUCLEAN, and from then on no
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

/* Every call that walks a path, with a path through or to /big. None
 * marks the instance damaged: a size too big to address is no damage. */
static void a_4_gib_file(void)
{
    char buf[16];
    int fd = walk(root, "healthy", 0);

    EXPECT(walk, EFBIG, a_4_gib_file, walk(root, "big", 0));
    EXPECT(create, EFBIG, through_a_4_gib_file, create(root, "big/x", S_IFREG, 0644, 0));
    EXPECT(link, EFBIG, through_a_4_gib_file, linkat(fd, root, "big/x"));
    EXPECT(unlink, EFBIG, a_4_gib_file, unlinkat(root, "big", 0));
    EXPECT(rename, EFBIG, a_4_gib_file, renameat(root, "big", root, "big2", 0));
    EXPECT(readlink, EFBIG, a_4_gib_file, readlinkat(root, "big", buf, sizeof(buf)));
    EXPECT(bind, EFBIG, on_a_4_gib_file, bind(root, root, "big", 0));
    EXPECT(unbind, EFBIG, a_4_gib_file, unbind(root, "big"));
    EXPECT(setattach, EFBIG, a_4_gib_file, setattach(root, "big", 0));
    close(fd);
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

int main(void)
{
    if (unshare() < 0 || (root = mount_man()) < 0) {
        printf("FAIL e2man_mount: /mnt/man.img: %s\ne2man: done\n", strerror(errno));
        return 1;
    }
    a_4_gib_file();
    a_damaged_block_map();
    close(root);
    printf("e2man: done\n");
    return t_failures != 0;
}
