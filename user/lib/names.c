/* names.c - the POSIX calls that make and remove names, as compositions.
 * create() makes every kind of node and is always exclusive; mkdir,
 * mkfifo, mknod and symlink are create() with a type, dropping the path
 * fd it returns. link, unlink, rmdir, rename and readlink take paths
 * relative to the current directory (AT_CWD). */
#include <orthos.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* For calls that want only create()'s side effect, not its path fd. */
static int drop(int fd)
{
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* mkdir = create(S_IFDIR) + close */
int mkdir(const char *path, int mode)
{
    return drop(create(AT_CWD, path, S_IFDIR, mode & 07777, 0));
}

/* mkfifo = create(S_IFIFO) + close */
int mkfifo(const char *path, int mode)
{
    return drop(create(AT_CWD, path, S_IFIFO, mode & 07777, 0));
}

/* mknod = create(type from mode, device number) + close */
int mknod(const char *path, int mode, int dev)
{
    return drop(create(AT_CWD, path, mode & S_IFMT, mode & 07777, dev));
}

/* symlink = create(S_IFLNK, the target as create's argument) + close */
int symlink(const char *target, const char *linkpath)
{
    return drop(create(AT_CWD, linkpath, S_IFLNK, 0777, (unsigned long)target));
}

/* link = walk(old, NOFOLLOW) + linkat(fd, new) + close: a hard link names
 * the node itself, so a symlink is linked, not what it points to. */
int link(const char *old, const char *new)
{
    int fd = walk(AT_CWD, old, WALK_NOFOLLOW), ret;

    if (fd < 0)
        return -1;
    ret = linkat(fd, AT_CWD, new);
    close(fd);
    return ret;
}

int unlink(const char *path)
{
    return unlinkat(AT_CWD, path, 0);
}
int rmdir(const char *path)
{
    return unlinkat(AT_CWD, path, UNLINK_DIR);
}
int rename(const char *old, const char *new)
{
    return renameat(AT_CWD, old, AT_CWD, new, 0);
}

int readlink(const char *path, char *buf, size_t n)
{
    return readlinkat(AT_CWD, path, buf, n);
}

/* chmod = walk + fchmod + close: the permission bits of what path names
 * (followed, like stat). fchmod works on the path fd; nothing is readied. */
int chmod(const char *path, int mode)
{
    int fd = walk(AT_CWD, path, 0), ret;

    if (fd < 0)
        return -1;
    ret = fchmod(fd, mode);
    close(fd);
    return ret;
}

/* chown = walk + fchown + close; -1 leaves an id as it is. */
int chown(const char *path, int uid, int gid)
{
    int fd = walk(AT_CWD, path, 0), ret;

    if (fd < 0)
        return -1;
    ret = fchown(fd, uid, gid);
    close(fd);
    return ret;
}
