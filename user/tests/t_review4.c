/* t_review4.c - regression tests from the review of the eighth round
 * (a FIFO's ring going with its last end, the mount's new checks). Each
 * test that pins a fix failed on the kernel before it (doc/decisions.md,
 * "Review of the eighth round"); the FIFO tests attack paths that touch
 * the ring while ends come and go, and are booted under heapcheck, whose
 * guarded pool turns a use of a freed ring into a panic. */
#include <orthos.h>
#include "t.h"

#define IMG   "/tmp/rv4.img"
#define IMG2  "/tmp/rv4b.img"           /* the second test's: the first may leave IMG busy */
#define STALE 'S'                       /* what a freed block of the image still holds */

/* /etc/fuzz.ext2 copied to path and made an instance: its root's fd. */
static int ext2_instance(const char *path)
{
    int img, fs;

    if (copyfile("/etc/fuzz.ext2", path) < 0 || (img = open(path, O_RDWR)) < 0)
        return -1;
    fs = fsopen("ext2", img, "");
    close(img);
    return fs;
}

/* Fill the image's free blocks with STALE and free them again: what a
 * deleted file leaves on a disk. */
static int leave_stale_blocks(int fs)
{
    static char buf[1024];
    int p, fd, n = 0;

    memset(buf, STALE, sizeof(buf));
    if ((p = create(fs, "old", S_IFREG, 0600, 0)) < 0 || (fd = ready(p, R_WRITE)) < 0)
        return -1;
    while (write(fd, buf, sizeof(buf)) == (int)sizeof(buf))
        n++;
    close(fd);
    close(p);
    return unlinkat(fs, "old", 0) < 0 ? -1 : n;
}

/* A write into a new block of an ext2 file that fails (out of memory,
 * failnth) leaves no block behind that holds someone else's old bytes:
 * write_data mapped the block, then could not zero it (bzero_block
 * allocated its zeros), and the block stayed in the file (a hole filled)
 * with a deleted file's bytes, for the file's owner to read. A user near
 * its own memory limit makes that allocation fail at will. */
static void a_failed_write_leaves_no_stale_block(void)
{
    char buf[1024];
    int fs, fd, rd, n, i, left, stale = 0;

    CHECK((fs = ext2_instance(IMG)) >= 0, "setup");
    CHECK(leave_stale_blocks(fs) > 8, "stale blocks");
    for (n = 1; n < 40 && !stale; n++) {
        CHECK((fd = create(fs, "new", S_IFREG, 0600, 0)) >= 0 && (rd = ready(fd, R_RDWR)) >= 0,
              "create");
        CHECK(ftruncate(rd, 3000) == 0 && lseek(rd, 2000, SEEK_SET) == 2000, "a hole");
        failnth(n);
        write(rd, "x", 1);              /* (in the hole's block 1, at its byte 976) */
        left = failnth(0);
        CHECK(lseek(rd, 1024, SEEK_SET) == 1024 && read(rd, buf, sizeof(buf)) == sizeof(buf),
              "read block 1");
        for (i = 0; i < (int)sizeof(buf); i++)
            stale += buf[i] == STALE;
        close(rd);
        close(fd);
        CHECK(unlinkat(fs, "new", 0) == 0, "unlink");
        if (left)
            break;                      /* past the write's last point */
    }
    CHECK(!stale, "a failed write (point %d) left %d bytes of a deleted file in the file", n - 1,
          stale);
    close(fs);
    unlink(IMG);
    PASS();
}

/* The same failure past the end of the file left the block past its
 * size: the next mount's check (ext2check.c, past_size) then found the
 * image damaged and made it read-only. */
static void a_failed_write_past_the_end_leaves_the_disk_writable(void)
{
    int fs, img, fd, rd, left;

    CHECK((fs = ext2_instance(IMG2)) >= 0, "setup");
    CHECK((fd = create(fs, "new", S_IFREG, 0600, 0)) >= 0 && (rd = ready(fd, R_WRITE)) >= 0,
          "create");
    CHECK(lseek(rd, 5000, SEEK_SET) == 5000, "lseek");
    failnth(1);
    write(rd, "x", 1);
    left = failnth(0);
    close(rd);
    close(fd);
    close(fs);                          /* its last reference: the instance goes */
    CHECK((img = open(IMG2, O_RDWR)) >= 0 && (fs = fsopen("ext2", img, "")) >= 0, "mount again");
    close(img);
    fd = create(fs, "after", S_IFREG, 0600, 0);
    CHECK(fd >= 0, "the image is read-only after a write that failed (point 1: %s)",
          left ? "never reached" : "fired");
    close(fd);
    close(fs);
    unlink(IMG2);
    PASS();
}

int main(void)
{
    a_failed_write_leaves_no_stale_block();
    a_failed_write_past_the_end_leaves_the_disk_writable();
    printf("t_review4: done\n");
    return t_failures != 0;
}
