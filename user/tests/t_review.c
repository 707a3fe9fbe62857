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
    int fd, fs;

    if (copyfile("/etc/fuzz.ext2", E2IMG) < 0 || mkdir(E2DIR, 0755) < 0 ||
        (fd = open(E2IMG, O_RDWR)) < 0)
        return -1;
    fs = fsopen("ext2", fd, "");
    close(fd);
    if (fs < 0 || bind(fs, AT_CWD, E2DIR, 0) < 0)
        return -1;
    close(fs);
    return 0;
}

static void e2_detach(void)
{
    close(unbind(AT_CWD, E2DIR));
    rmdir(E2DIR);
    unlink(E2IMG);
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

/* A file of 20 KiB (an indirect block and its 8 data blocks past the 12
 * direct ones), unlinked with fail-nth n: when unlink says done, the
 * last reference went too, so the blocks and the inode must be free. */
static int unlink_at(int n)
{
    static char buf[20 * 1024];
    unsigned now[2];
    int fd, r, left;

    why = NULL;
    memset(buf, 'u', sizeof(buf));
    if ((fd = open(E2DIR "/u", O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 ||
        writeall(fd, buf, sizeof(buf)) < 0) {
        close(fd);
        why = "setup (the instance is damaged?)";
        return -1;
    }
    close(fd);
    r = fz_armed(n, SYS_unlink, AT_CWD, (unsigned)E2DIR "/u", 0, 0, 0, &left);
    if (r < 0 && unlink(E2DIR "/u") < 0)
        why = "unlink after a failed one (the instance is damaged?)";
    if (e2_free_counts(now) < 0)
        why = why ? why : "reading the superblock";
    else if (now[0] != base[0] || now[1] != base[1])
        why = why ? why : "the unlinked file's blocks or inode stayed allocated";
    return why ? -1 : left;
}

/* free_inode's map check (free_blocks_from) took a buffer from the heap
 * for each indirect table; out of memory there, the inode of a file whose
 * last name and reference were gone was left allocated with its blocks,
 * and unlink had said done: space lost until e2fsck. It now reads into
 * the instance's per-level tables, as freeing does. */
static void ext2_unlink_out_of_memory_frees_the_file(void)
{
    int n, left;

    CHECK(e2_attach() == 0, "attaching a copy of /etc/fuzz.ext2");
    CHECK(e2_free_counts(base) == 0, "reading the superblock");
    for (n = 1; n < 2000; n++)
        if ((left = unlink_at(n)) != 0)
            break;
    e2_detach();
    CHECK(left > 0, "with fail-nth %d: %s", n, why ? why : "never got past its points");
    PASS();
}

int main(void)
{
    ext2_unlink_out_of_memory_frees_the_file();
    printf("t_review: done\n");
    return t_failures != 0;
}
