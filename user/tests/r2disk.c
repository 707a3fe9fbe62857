/* r2disk.c - the findings of ATTACK2.md that need a disk as /dev/hd1
 * (init attaches it at /mnt): booted by tools/test.py's robust2 block
 * with an image it made, `r2disk twoinst` on a clean one (which e2fsck
 * then checks), `r2disk dotdot` on one whose jail/a/.. entry names the
 * root directory instead of jail. */
#include "t.h"

/* Finding 5: a second ext2 instance on the disk /mnt already uses, by
 * another node of the same device, is refused. */
static void a_second_instance_on_the_same_disk_is_refused(void)
{
    int node, src, dev;

    CHECK((node = create(AT_CWD, "/tmp/hd1again", S_IFBLK, 0600, MKDEV(DEV_ATA, 1))) >= 0, "mknod");
    CHECK((src = ready(node, R_RDWR)) >= 0, "ready the node");
    CHECK_ERR(fsopen("ext2", src, ""), EBUSY);
    close(src);
    close(node);
    unlinkat(AT_CWD, "/tmp/hd1again", 0);
    CHECK((dev = fsopen("devfs", -1, "")) >= 0, "a devfs of our own");
    CHECK((node = walk(dev, "hd1", 0)) >= 0 && (src = ready(node, R_RDWR)) >= 0, "its hd1");
    CHECK_ERR(fsopen("ext2", src, ""), EBUSY);
    close(src);
    close(node);
    close(dev);
    /* and the one instance still writes as it should (e2fsck checks) */
    CHECK(mkdir("/mnt/still_one", 0755) == 0, "mkdir in /mnt");
    CHECK(put_file("/mnt/still_one/f", "one instance\n") == 0, "write in /mnt");
    sync();
    PASS();
}

/* Finding 11 (write(2) said 0): a write at the end of a block device. */
static void a_write_at_the_end_of_a_block_device_is_enospc(void)
{
    int p = walk(AT_CWD, "/dev/hd1", 0), fd = ready(p, R_RDWR);
    char buf[512] = { 0 };
    struct stat st;

    CHECK(fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0, "ready /dev/hd1");
    CHECK(lseek(fd, 0, SEEK_END) == (int)st.st_size, "lseek to the end");
    CHECK_ERR(write(fd, buf, sizeof(buf)), ENOSPC);
    CHECK(lseek(fd, st.st_size + 4096, SEEK_SET) > 0, "lseek past the end");
    CHECK_ERR(write(fd, buf, sizeof(buf)), ENOSPC);
    close(fd);
    close(p);
    PASS();
}

/* Finding 6: an image's ".." entry cannot lead out of WALK_BENEATH or a
 * chroot. */
static int try_escape(const char *path)
{
    int fd = walk(AT_CWD, path, 0);

    if (fd >= 0)
        close(fd);
    return fd >= 0 ? 0 : errno;
}

static int jailed(void)
{
    int jail = walk(AT_CWD, "/mnt/jail", 0), r;

    if (jail < 0 || fchroot(jail) < 0 || fchdir(jail) < 0)
        return 10;
    close(jail);
    if ((r = try_escape("/a/../secret/key.txt")) != ENOENT)
        return r ? 20 : 1;              /* 1: escaped from the root */
    if (chdir("/a") < 0)
        return 11;
    if ((r = try_escape("../secret/key.txt")) != EUCLEAN)
        return r ? 30 : 2;              /* 2: escaped from a cwd below the root */
    return 0;
}

static void an_images_dotdot_does_not_lead_out(void)
{
    int jail = walk(AT_CWD, "/mnt/jail", 0), fd, code;

    CHECK(jail >= 0, "no /mnt/jail");
    fd = walk(jail, "a/../secret/key.txt", WALK_BENEATH);
    CHECK(fd < 0 && errno == ENOENT, "WALK_BENEATH: %s", fd >= 0 ? "escaped" : "wrong error");
    fd = walk(jail, "a/../a/../../secret", WALK_BENEATH);
    CHECK(fd < 0 && errno == EXDEV, "WALK_BENEATH above the start");
    CHECK((fd = walk(jail, "a/..", 0)) >= 0, "a/.. from jail");
    close(fd);
    code = in_child(jailed);
    CHECK(code == 0, "in a chroot: code %d", code);
    close(jail);
    PASS();
}

int main(int argc, char *argv[])
{
    const char *what = argc > 1 ? argv[1] : "";

    if (strcmp(what, "twoinst") == 0) {
        a_second_instance_on_the_same_disk_is_refused();
        a_write_at_the_end_of_a_block_device_is_enospc();
    } else if (strcmp(what, "dotdot") == 0) {
        an_images_dotdot_does_not_lead_out();
    } else {
        printf("usage: r2disk twoinst|dotdot\n");
    }
    printf("r2disk: done\n");
    return t_failures != 0;
}
