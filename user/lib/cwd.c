/* cwd.c - chdir and chroot by path: walk to a directory fd, hand it to
 * fchdir or fchroot, close it. The kernel checks that it is a directory.
 * (getcwd is one system call, in syscalls.c.) */
#include <orthos.h>
#include <unistd.h>

static int with_dir(const char *path, int (*set)(int fd))
{
    int fd = walk(AT_CWD, path, 0), ret;

    if (fd < 0)
        return -1;
    ret = set(fd);
    close(fd);
    return ret;
}

/* chdir = walk + fchdir + close */
int chdir(const char *path)
{
    return with_dir(path, fchdir);
}

/* chroot = walk + fchroot + close */
int chroot(const char *path)
{
    return with_dir(path, fchroot);
}
