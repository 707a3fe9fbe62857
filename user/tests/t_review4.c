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

/* A reader asleep in a FIFO's read while a process sharing its fd table
 * (rfork) closes the fd: the read holds its own reference to the file, so
 * the FIFO keeps a reader and its ring until the read is done; then the
 * last end goes, and the ring with it. (A ring freed under the sleeper
 * is a read after free: the guarded pool panics.) */
static void a_sleeping_reader_keeps_its_fifos_ring(void)
{
    char c = 0;
    int p, r, w, pid, status;

    CHECK((p = create(AT_CWD, "/tmp/rv4f", S_IFIFO, 0600, 0)) >= 0, "mkfifo");
    CHECK((r = ready(p, R_READ)) >= 0, "ready to read");
    if ((pid = rfork(RFORK_SHAREFDS)) == 0)
        _exit(read(r, &c, 1) == 1 && c == 'z' ? 0 : 1);
    CHECK(pid > 0 && wait_until_sleeping(pid, 5000), "the reader does not wait");
    CHECK(close(r) == 0, "close the reader's fd");
    CHECK((w = ready(p, R_WRITE)) >= 0 && write(w, "z", 1) == 1, "write");
    close(w);
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the reader did not read what was written (status 0x%x)", status);
    CHECK((r = ready(p, R_READ | R_NONBLOCK)) >= 0, "ready again");
    CHECK_ERR(read(r, &c, 1), EAGAIN);  /* a fresh ring: no bytes, no writer yet */
    close(r);
    close(p);
    unlink("/tmp/rv4f");
    PASS();
}

/* On a revoked instance a FIFO's ends close without pipe_close (file_put
 * skips a revoked filesystem): the ring stays until the FIFO's vnode
 * goes, with the instance. A reader asleep when revoke comes wakes with
 * EIO. Run twice; the second run must give its pages back. */
static int revoke_a_fifo_in_use(void)
{
    char c;
    int fs, p, r, w, pid, status;

    if ((fs = fsopen("ramfs", -1, "")) < 0 || (p = create(fs, "f", S_IFIFO, 0600, 0)) < 0)
        return 1;
    if ((r = ready(p, R_READ)) < 0 || (w = ready(p, R_WRITE)) < 0)
        return 2;
    if ((pid = fork()) == 0)
        _exit(read(r, &c, 1) < 0 && errno == EIO ? 0 : 1);
    if (pid < 0 || !wait_until_sleeping(pid, 5000))
        return 3;
    if (revoke(fs) < 0)
        return 4;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 5;
    if (read(r, &c, 1) >= 0 || errno != EIO || write(w, "y", 1) >= 0 || errno != EIO)
        return 6;
    close(r);
    close(w);
    close(p);
    close(fs);
    return 0;
}

static void a_revoked_fifo_gives_its_ring_back(void)
{
    int code, lost = pages_lost_in_child(revoke_a_fifo_in_use, &code);

    CHECK(code != 3, "the reader does not wait");
    CHECK(code != 5, "the sleeping reader did not get EIO from revoke");
    CHECK(code == 0, "step %d failed", code);
    CHECK(lost < 16, "%d pages lost: the ring (17) stayed", lost);
    PASS();
}

/* A pipe end bound at a name is readied again after both ends of the
 * pipe() closed, which freed the ring: the next ready() makes a new one
 * and a second conversation goes through it (a ready() that found the
 * old pointer would write into freed memory). */
static void a_bound_pipe_serves_again_after_its_ring_went(void)
{
    char buf[8] = "";
    int fds[2], f, r, w;

    CHECK(pipe(fds) == 0, "pipe");
    CHECK((f = create(AT_CWD, "/tmp/rv4p", S_IFREG, 0644, 0)) >= 0, "placeholder");
    close(f);
    CHECK(write(fds[1], "old", 3) == 3, "write");
    CHECK(bind(fds[0], AT_CWD, "/tmp/rv4p", 0) == 0, "bind");
    close(fds[0]);
    close(fds[1]);
    CHECK((f = walk(AT_CWD, "/tmp/rv4p", 0)) >= 0, "walk");
    CHECK((r = ready(f, R_READ | R_NONBLOCK)) >= 0 && (w = ready(f, R_WRITE)) >= 0, "ready");
    CHECK(write(w, "new", 3) == 3, "write again");
    close(w);
    CHECK(read(r, buf, sizeof(buf)) == 3 && memcmp(buf, "new", 3) == 0, "read '%s'", buf);
    CHECK(read(r, buf, sizeof(buf)) == 0, "end of file");
    close(r);
    close(f);
    CHECK(umount("/tmp/rv4p") == 0, "unbind");
    unlink("/tmp/rv4p");
    PASS();
}

/* ---- every ext2 operation that runs out of memory leaves a disk the
 * next mount's check calls healthy (ext2check.c is e2fsck's judge now:
 * a failure that left half a change made the image read-only). */
#define IMG3 "/tmp/rv4c.img"

static int sweep_fs;

/* create()'s fd closed: 0 or -1 */
static int made(int fd)
{
    return fd < 0 ? -1 : close(fd);
}

static int op_mkdir(void)
{
    return made(create(sweep_fs, "ra/new", S_IFDIR, 0755, 0));
}

static int op_move_dir(void)
{
    return renameat(sweep_fs, "ra/sub", sweep_fs, "rb/sub", 0);
}

static int op_move_dir_over_empty(void)
{
    return renameat(sweep_fs, "ra/sub", sweep_fs, "rb/empty", 0);
}

static int op_rmdir(void)
{
    return unlinkat(sweep_fs, "rb/empty", UNLINK_DIR);
}

/* Names enough for a second block of the directory (hard links: the
 * small image has few inodes). */
static int op_grow_dir(void)
{
    char name[64];
    int i, fd = walk(sweep_fs, "ra/data", 0), r = 0;

    for (i = 0; i < 40 && r == 0; i++) {
        snprintf(name, sizeof(name), "ra/a-long-name-to-fill-the-block-quickly-%02d", i);
        r = linkat(fd, sweep_fs, name);
    }
    close(fd);
    return r;
}

static int op_slow_symlink(void)
{
    return made(
        create(sweep_fs, "ra/ln", S_IFLNK, 0777,
               (unsigned long)"a-target-longer-than-sixty-bytes/so-it-takes-a-block/of-its-own"));
}

static int op_write_far(void)
{
    int fd = create(sweep_fs, "ra/f", S_IFREG, 0644, 0), w, r = -1;

    if (fd >= 0 && (w = ready(fd, R_WRITE)) >= 0) {
        lseek(w, 300000, SEEK_SET);     /* through a double-indirect block */
        r = write(w, "far", 3);
        close(w);
    }
    close(fd);
    return r;
}

static int op_truncate(void)
{
    int fd = walk(sweep_fs, "ra/data", 0), w = fd >= 0 ? ready(fd, R_WRITE) : -1, r;

    r = ftruncate(w, 1500);
    close(w);
    close(fd);
    return r;
}

static int sweep_setup(void)
{
    static char buf[4096];
    int img, fd, w, i;

    if (copyfile("/etc/fuzz.ext2", IMG3) < 0 || (img = open(IMG3, O_RDWR)) < 0)
        return -1;
    sweep_fs = fsopen("ext2", img, "");
    close(img);
    if (sweep_fs < 0 || (fd = create(sweep_fs, "ra", S_IFDIR, 0755, 0)) < 0)
        return -1;
    close(fd);
    if ((fd = create(sweep_fs, "rb", S_IFDIR, 0755, 0)) < 0)
        return -1;
    close(fd);
    if ((fd = create(sweep_fs, "ra/sub", S_IFDIR, 0755, 0)) < 0)
        return -1;
    close(fd);
    if ((fd = create(sweep_fs, "rb/empty", S_IFDIR, 0755, 0)) < 0)
        return -1;
    close(fd);
    if ((fd = create(sweep_fs, "ra/data", S_IFREG, 0644, 0)) < 0 || (w = ready(fd, R_WRITE)) < 0)
        return -1;
    memset(buf, 'd', sizeof(buf));
    for (i = 0; i < 5; i++)
        write(w, buf, sizeof(buf));
    close(w);
    close(fd);
    return 0;
}

/* 1 if the image mounts writable again (its check found nothing). */
static int sweep_remounts_writable(void)
{
    int img, fs, fd;

    close(sweep_fs);
    if ((img = open(IMG3, O_RDWR)) < 0 || (fs = fsopen("ext2", img, "")) < 0)
        return 0;
    close(img);
    fd = create(fs, "probe", S_IFREG, 0644, 0);
    close(fd);
    close(fs);
    return fd >= 0;
}

static void ext2_operations_out_of_memory_leave_a_healthy_disk(void)
{
    static const struct {
        const char *name;
        int (*op)(void);
    } ops[] = {
        { "mkdir", op_mkdir },
        { "move a directory", op_move_dir },
        { "move a directory over an empty one", op_move_dir_over_empty },
        { "rmdir", op_rmdir },
        { "grow a directory", op_grow_dir },
        { "slow symlink", op_slow_symlink },
        { "write far", op_write_far },
        { "truncate", op_truncate },
    };
    unsigned k;
    int n, left;

    for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
        for (n = 1; n < 200; n++) {
            CHECK(sweep_setup() == 0, "setup");
            failnth(n);
            ops[k].op();
            left = failnth(0);
            CHECK(sweep_remounts_writable(),
                  "%s with its allocation %d failing left a disk the mount calls damaged",
                  ops[k].name, n);
            if (left)
                break;
        }
        printf("  %s: %d allocations\n", ops[k].name, n - 1);
    }
    unlink(IMG3);
    PASS();
}

int main(void)
{
    a_failed_write_leaves_no_stale_block();
    a_failed_write_past_the_end_leaves_the_disk_writable();
    a_sleeping_reader_keeps_its_fifos_ring();
    a_revoked_fifo_gives_its_ring_back();
    a_bound_pipe_serves_again_after_its_ring_went();
    ext2_operations_out_of_memory_leave_a_healthy_disk();
    printf("t_review4: done\n");
    return t_failures != 0;
}
