/* t_review.c - regression tests from a hostile review of the kernel
 * changes of the 2026-12-05 session (failnth(2), fd_room's reserved open
 * file, ext2's scratch block, per-level tables and map checks). Each
 * test failed on the kernel before its fix (doc/decisions.md, "Review of
 * the fault-injection round"). */
#include <orthos.h>
#include "t.h"
#include "fuzz.h"
#include "uapi/syscall.h"

#define E2DIR "/tmp/rv_e2"
#define E2IMG "/tmp/rv_e2.img"

/* An ext2 instance on a copy of /etc/fuzz.ext2 (128 KiB, 1 KiB blocks),
 * at E2DIR: 0, or -1. */
static int e2_attach(void)
{
    return ext2_copy_at("/etc/fuzz.ext2", E2IMG, E2DIR);
}

static void e2_detach(void)
{
    ext2_copy_drop(E2IMG, E2DIR);
}

/* The superblock's free block and free inode counts, as on the image
 * (the instance writes through to it): count[0] blocks, count[1] inodes. */
static int e2_free_counts(unsigned count[2])
{
    unsigned sb[5];
    int fd = open(E2IMG, O_RDONLY), ok;

    ok = fd >= 0 && lseek(fd, 1024, SEEK_SET) == 1024 && read(fd, sb, sizeof(sb)) == sizeof(sb);
    close(fd);
    if (!ok)
        return -1;
    count[0] = sb[3];
    count[1] = sb[4];
    return 0;
}

static const char *why;         /* what the last step found wrong */
static unsigned base[2];        /* the free counts without the file */

/* A file of len bytes at path (20 KiB: an indirect block and its 8 data
 * blocks past the 12 direct ones): 0, or -1 with why set. */
static int e2_put(const char *path, int len)
{
    static char buf[20 * 1024];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), r;

    memset(buf, 'u', sizeof(buf));
    r = fd >= 0 && writeall(fd, buf, len) == 0 ? 0 : -1;
    close(fd);
    if (r < 0)
        why = "setup (the instance is damaged?)";
    return r;
}

/* After an armed call and its undoing: the free counts must be back at
 * base (a call that said done freed what it dropped; one that failed
 * left it to the undoing). */
static int counts_back(int left)
{
    unsigned now[2];

    if (e2_free_counts(now) < 0)
        why = why ? why : "reading the superblock";
    else if (now[0] != base[0] || now[1] != base[1])
        why = why ? why : "a dropped file's blocks or inode stayed allocated";
    return why ? -1 : left;
}

/* unlink of the last name, with no other reference: the file goes. */
static int unlink_at(int n)
{
    int r, left;

    why = NULL;
    if (e2_put(E2DIR "/u", 20 * 1024) < 0)
        return -1;
    r = fz_armed(n, SYS_unlink, AT_CWD, (unsigned)E2DIR "/u", 0, 0, 0, &left);
    if (r < 0 && unlink(E2DIR "/u") < 0)
        why = "unlink after a failed one (the instance is damaged?)";
    return counts_back(left);
}

/* close of the last reference to an unlinked file: the file goes. */
static int close_at(int n)
{
    int fd, left;

    why = NULL;
    if (e2_put(E2DIR "/c", 20 * 1024) < 0)
        return -1;
    if ((fd = open(E2DIR "/c", O_RDONLY)) < 0 || unlink(E2DIR "/c") < 0) {
        why = "setup (open, unlink)";
        return -1;
    }
    if (fz_armed(n, SYS_close, fd, 0, 0, 0, 0, &left) < 0)
        close(fd);
    return counts_back(left);
}

/* rename over another file: the one replaced goes. */
static int rename_at(int n)
{
    int r, left;

    why = NULL;
    if (e2_put(E2DIR "/ra", 100) < 0 || e2_put(E2DIR "/rb", 20 * 1024) < 0)
        return -1;
    r = fz_armed(n, SYS_rename, AT_CWD, (unsigned)E2DIR "/ra", AT_CWD, (unsigned)E2DIR "/rb", 0,
                 &left);
    if (r < 0 && unlink(E2DIR "/ra") < 0)
        why = "unlink after a failed rename (the instance is damaged?)";
    if (unlink(E2DIR "/rb") < 0)
        why = why ? why : "unlink of the target (the instance is damaged?)";
    return counts_back(left);
}

/* rmdir of an empty directory: its block and inode go. */
static int rmdir_at(int n)
{
    int r, left;

    why = NULL;
    if (mkdir(E2DIR "/d", 0755) < 0) {
        why = "setup (mkdir)";
        return -1;
    }
    r = fz_armed(n, SYS_unlink, AT_CWD, (unsigned)E2DIR "/d", UNLINK_DIR, 0, 0, &left);
    if (r < 0 && rmdir(E2DIR "/d") < 0)
        why = "rmdir after a failed one (the instance is damaged?)";
    return counts_back(left);
}

/* Run fn with N = 1, 2, ... until it passes fewer than N points: the N
 * that went wrong, 0 if none did. */
static int sweep(int (*fn)(int n))
{
    int n, left;

    for (n = 1; n < 2000; n++)
        if ((left = fn(n)) != 0)
            return left < 0 ? n : 0;
    why = "never got past its points";
    return -1;
}

/* free_inode's map check (free_blocks_from) took a buffer from the heap
 * for each indirect table; out of memory there, the inode of a file whose
 * last name and reference were gone was left allocated with its blocks,
 * and unlink had said done: space lost until e2fsck. It now reads into
 * the instance's per-level tables, as freeing does. Each way a file's
 * last name or reference goes is swept. */
static void ext2_drop_out_of_memory_frees_the_file(void)
{
    static const struct {
        const char *name;
        int (*fn)(int n);
    } ops[] = { { "unlink", unlink_at },
                { "close", close_at },
                { "rename", rename_at },
                { "rmdir", rmdir_at } };
    unsigned i;
    int n = 0;

    CHECK(e2_attach() == 0, "attaching a copy of /etc/fuzz.ext2");
    CHECK(e2_free_counts(base) == 0, "reading the superblock");
    for (i = 0; i < sizeof(ops) / sizeof(ops[0]) && n == 0; i++)
        n = sweep(ops[i].fn);
    e2_detach();
    CHECK(n == 0, "%s with fail-nth %d: %s", ops[i - 1].name, n, why);
    PASS();
}

/* failnth's count is the arming process's own: a child starts unarmed
 * (its allocations do not spend the parent's count), and a count armed
 * and left when the process exits goes with its slot (fault_disarm). */
static void failnth_count_stays_with_its_process(void)
{
    int pid, st = -1, left;

    CHECK(failnth(1000000) == 0, "arming");
    if ((pid = fork()) == 0) {
        int i, fd;
        for (i = 0; i < 20; i++) {      /* allocations of the child's own */
            fd = open("/tmp/rv_child", O_RDWR | O_CREAT, 0644);
            close(fd);
            unlink("/tmp/rv_child");
        }
        _exit(failnth(0) == 0 ? 0 : 1); /* never armed: 0 */
    }
    left = failnth(0);
    CHECK(pid > 0 && wait(&st) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
          "the child was armed (status %x)", st);
    CHECK(left > 1000000 - 50 && left < 1000000, "the fork passed %d points", 1000000 - left);
    if ((pid = fork()) == 0) {
        failnth(5);                     /* armed at exit: its slot takes the count away */
        _exit(0);
    }
    CHECK(pid > 0 && wait(&st) == pid, "wait");
    CHECK(failnth(0) == 0, "unarmed, and nothing left over");
    PASS();
}

int main(void)
{
    failnth_count_stays_with_its_process();
    ext2_drop_out_of_memory_frees_the_file();
    printf("t_review: done\n");
    return t_failures != 0;
}
