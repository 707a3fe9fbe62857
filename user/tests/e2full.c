/* e2full.c - fill an ext2 disk until it says ENOSPC, then make room and
 * fill it again: the error must come back cleanly, the space must return,
 * and (checked by the host) e2fsck must find the filesystem consistent. */
#include <fcntl.h>
#include <orthos.h>
#include <sys/mount.h>
#include <unistd.h>
#include "t.h"

static char chunk[8192];

/* Write chunk after chunk into new files until the disk is full. */
static int fill(unsigned *bytes, int *files)
{
    char path[64];
    int fd, n, i;

    *bytes = 0;
    for (*files = 0; *files < 10000; (*files)++) {
        snprintf(path, sizeof(path), "/mnt/fill/f%d", *files);
        if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0)
            return errno;
        for (i = 0; i < 8; i++) {
            if ((n = write(fd, chunk, sizeof(chunk))) < 0) {
                close(fd);
                return errno;
            }
            *bytes += n;
            if (n < (int)sizeof(chunk)) {
                close(fd);
                return ENOSPC;          /* a short write: the last bytes that fit */
            }
        }
        close(fd);
    }
    return 0;
}

static void full_disk_says_enospc_and_recovers(void)
{
    unsigned first, second;
    int files, files2, err, i;
    char path[64];

    memset(chunk, 'z', sizeof(chunk));
    CHECK(mkdir("/mnt/fill", 0755) == 0, "mkdir");
    err = fill(&first, &files);
    CHECK(err == ENOSPC, "filling ended with errno %d after %u bytes", err, first);
    CHECK(first > 100000, "only %u bytes fit", first);
    CHECK_ERR(mkdir("/mnt/fill/more", 0755) == 0 ? 0 : (errno == ENOSPC ? -1 : 0), ENOSPC);
    for (i = 0; i <= files; i++) {
        snprintf(path, sizeof(path), "/mnt/fill/f%d", i);
        CHECK(unlink(path) == 0 || errno == ENOENT, "unlink %s", path);
    }
    err = fill(&second, &files2);
    CHECK(err == ENOSPC, "second fill ended with errno %d", err);
    CHECK(second + 16384 >= first && second <= first + 16384,
          "space did not come back: %u bytes the first time, %u the second", first, second);
    CHECK(sync() == 0, "sync");
    PASS();
}

int main(void)
{
    if (!disk_at_mnt()) {
        printf("FAIL disk_at_mnt: init did not attach /dev/hd1 at /mnt\ne2full: done\n");
        return 1;
    }
    full_disk_says_enospc_and_recovers();
    printf("e2full: done\n");
    return t_failures != 0;
}
