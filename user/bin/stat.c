/* stat - show what fstat says about names (the link itself, not what a
 * symlink points to: it is walk(WALK_NOFOLLOW) + fstat). */
#include <err.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *type_name(unsigned mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG: return "regular file";
    case S_IFDIR: return "directory";
    case S_IFLNK: return "symbolic link";
    case S_IFIFO: return "fifo";
    case S_IFCHR: return "character device";
    case S_IFBLK: return "block device";
    }
    return "unknown";
}

static int show(const char *path)
{
    char mode[11], target[PATH_MAX];
    struct stat st;
    int n;

    if (lstat(path, &st) < 0) {
        warn("%s", path);
        return 1;
    }
    strmode(st.st_mode, mode);
    printf("  File: %s", path);
    if (S_ISLNK(st.st_mode) && (n = readlink(path, target, sizeof(target) - 1)) >= 0) {
        target[n] = '\0';
        printf(" -> %s", target);
    }
    printf("\n  Type: %s\n", type_name(st.st_mode));
    printf("  Mode: %s (%04o)  Uid: %u  Gid: %u\n", mode, (unsigned)st.st_mode & 07777,
           (unsigned)st.st_uid, (unsigned)st.st_gid);
    printf("  Size: %-10u Blocks: %-8u Links: %u\n", (unsigned)st.st_size, (unsigned)st.st_blocks,
           (unsigned)st.st_nlink);
    printf("Device: %-10u Inode: %u\n", (unsigned)st.st_dev, (unsigned)st.st_ino);
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
        printf("  Rdev: %u, %u\n", (unsigned)MAJOR(st.st_rdev), (unsigned)MINOR(st.st_rdev));
    printf(" Times: access %u  modify %u  change %u\n", (unsigned)st.st_atime,
           (unsigned)st.st_mtime, (unsigned)st.st_ctime);
    return 0;
}

int main(int argc, char *argv[])
{
    int i, status = 0;

    if (argc < 2)
        usage("path ...");
    for (i = 1; i < argc; i++)
        status |= show(argv[i]);
    return status;
}
