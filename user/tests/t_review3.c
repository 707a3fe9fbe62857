/* t_review3.c - regression tests from the hostile review of the seventh
 * round (fchroot's root attachments going with their last user, ext2's
 * one block-map walk and the mount's new checks, memory per user, the
 * guarded pool). Each test failed on the kernel before its fix
 * (doc/decisions.md, "Review of the seventh round"). */
#include <orthos.h>
#include "t.h"

#define IMG "/tmp/rv3.img"

static int img_fd;              /* the image, opened O_RDWR */

/* Is the image free for a write (no filesystem holds it)? */
static int image_writable(void)
{
    return lseek(img_fd, 1024 + 56, SEEK_SET) == 1080 && write(img_fd, "\x53", 1) == 1;
}

/* In a child of the shared namespace: fchroot into the image (a root
 * attachment of the shared namespace), then unshare - the root moves
 * to the private copy - then fchroot back out, which lets the copy's
 * root attachment go. No process uses the shared namespace's root
 * attachment any more, and unshare was the last to: the image is free. */
static int chroot_unshare_and_leave(void)
{
    int old = open("/", O_RDONLY | O_DIRECTORY), fs;

    if (old < 0 || (img_fd = open(IMG, O_RDWR)) < 0 || (fs = fsopen("ext2", img_fd, "")) < 0 ||
        fchroot(fs) < 0 || chdir("/") < 0)
        return 1;
    close(fs);
    if (unshare() < 0)
        return 2;
    if (fchroot(old) < 0 || fchdir(old) < 0)
        return 3;
    close(old);
    return image_writable() ? 0 : 4;
}

static void unshare_lets_go_of_the_root_it_moves(void)
{
    int code;

    CHECK(copyfile("/etc/fuzz.ext2", IMG) == 0, "setup");
    code = in_child(chroot_unshare_and_leave);
    CHECK(code != 4, "the image is busy after unshare took the last user of its root attachment "
                     "out of the shared namespace");
    CHECK(code == 0, "step %d failed", code);
    unlink(IMG);
    PASS();
}

int main(void)
{
    unshare_lets_go_of_the_root_it_moves();
    printf("t_review3: done\n");
    return t_failures != 0;
}
