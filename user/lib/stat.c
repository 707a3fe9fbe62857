/* stat.c - metadata by name: stat = walk + fstat + close, lstat the same
 * with WALK_NOFOLLOW. A path fd is enough for fstat, so this never opens
 * a device or blocks on a FIFO. Also isatty and strmode. */
#include <errno.h>
#include <orthos.h>
#include <sys/stat.h>
#include <unistd.h>

/* The console's device number (uapi/fs.h). */
#define CONSOLE_RDEV MKDEV(DEV_CONSOLE, 0)

static int stat_walk(const char *path, struct stat *st, int flags)
{
    int fd = walk(AT_CWD, path, flags), ret;

    if (fd < 0)
        return -1;
    ret = fstat(fd, st);
    close(fd);
    return ret;
}

int stat(const char *path, struct stat *st)
{
    return stat_walk(path, st, 0);
}

int lstat(const char *path, struct stat *st)
{
    return stat_walk(path, st, WALK_NOFOLLOW);
}

/* The console is the only terminal Orthos has. */
int isatty(int fd)
{
    struct stat st;

    if (fstat(fd, &st) < 0)
        return 0;
    if (S_ISCHR(st.st_mode) && st.st_rdev == CONSOLE_RDEV)
        return 1;
    errno = ENOTTY;
    return 0;
}

/* "drwxr-xr-x": the type letter, then rwx for owner, group and others. */
void strmode(unsigned mode, char *buf)
{
    static const char types[16] = "?pc?d?b?-?l?????";    /* by (mode & S_IFMT) >> 12 */
    const char *rwx = "rwxrwxrwx";
    int i;

    buf[0] = types[(mode & S_IFMT) >> 12];
    for (i = 0; i < 9; i++)
        buf[i + 1] = (mode & (0400 >> i)) ? rwx[i] : '-';
    if (mode & S_ISVTX)
        buf[9] = (mode & 01) ? 't' : 'T';
    buf[10] = '\0';
}
