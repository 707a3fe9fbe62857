/* sysfile.c - the file and namespace system calls, each in the Plan 9
 * manner: name the arguments, copy the user's memory in, call the one
 * function that does the call's work - vfs_* for names, open files and
 * the namespace, fd_* for the fd table - and install its result as an fd
 * or copy it out. The rules are the work functions' (doc/decisions.md,
 * "The VFS layers"). Manual pages: doc/man/<call>.2.md. */
#include "fs/chan.h"
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/uaccess.h"
#include "proc/proc.h"
#include "proc/syscall.h"

#define IO_MAX   0x7FFFF000u             /* bytes per read or write (Linux's limit) */
#define IO_CHUNK 4096                   /* getdents' kernel buffer */

/* Copy a user path into a kernel buffer of its own size (kfree it): a
 * short path takes a small block, and an absolute one can become a
 * file's name as it is (named_path). */
static int get_path(uint32_t upath, char **out)
{
    return copyinstr_alloc(upath, PATH_MAX, out);
}

/* A path the call needs only while it runs (link, unlink, rename): into
 * the caller's buffer `small` (PATH_SHORT bytes, on its stack) if it fits,
 * else into a block of its own; put_path lets go of it. A short path
 * then costs no allocation and one pass over its bytes. */
#define PATH_SHORT 128

static int get_short_path(uint32_t upath, char *small, char **out)
{
    int err = copyinstr(small, upath, PATH_SHORT);

    if (err >= 0) {
        *out = small;
        return 0;
    }
    return err == -ENAMETOOLONG ? get_path(upath, out) : err;
}

static void put_path(char *path, const char *small)
{
    if (path != small)
        kfree(path);
}

/* Make an fd from a path: the common tail of walk, create, unbind, fsopen.
 * `name`, if not NULL, is handed to the file. */
static int install_path(struct path *p, int access, char *name)
{
    struct file *f = file_alloc(p, access, 0, NULL);

    path_put(p);
    if (!f) {
        kfree(name);
        return -ENFILE;
    }
    f->name = name;
    return fd_install(f, 0);
}

/* The name for a file made from (dirfd, *path): an absolute path is its
 * own display name, and the file takes get_path's buffer over (*path is
 * NULL then); any other is vfs_display_name's. */
static char *named_path(int dirfd, char **path)
{
    char *name = *path;

    if (name[0] != '/')
        return vfs_display_name(dirfd, name);
    *path = NULL;
    return name;
}

/* ---- I/O */

/* read() and write(): the file's own read or write routine works straight
 * on the user's buffer, checked whole first (uaccess_buffer: every page
 * present, and for a read writable): no bounce buffer and no allocation,
 * so bytes are copied once - a pipe's from the writer into the ring and
 * out into the reader, a file's between the cache and the user. A bad
 * pointer is EFAULT, and a copy-on-write page with no free page to copy
 * it into ENOMEM, before anything happens, so neither loses pipe data. A
 * pipe or the console may put us to sleep, and a process sharing our fd
 * table (rfork) may close the fd meanwhile: we hold our own reference on
 * f. At most IO_MAX bytes move per call, so that a count fits an int. */
static int transfer(const uint32_t *arg, int writing)
{
    uint32_t n = arg[2] < IO_MAX ? arg[2] : IO_MAX;
    struct file *f;
    void *buf;
    int err, r;

    if (!(f = fd_get((int)arg[0], &err)))
        return err;
    if (!(f->access & (writing ? FA_WRITE : FA_READ)))
        return -EBADF;
    if ((err = uaccess_buffer(arg[1], n, !writing, &buf)) < 0)
        return err;
    file_get(f);
    r = writing ? file_write(f, buf, n) : file_read(f, buf, n);
    file_put(f);
    return r;
}

int sys_read(const uint32_t *arg)
{
    return transfer(arg, 0);
}

int sys_write(const uint32_t *arg)
{
    return transfer(arg, 1);
}

int sys_lseek(const uint32_t *arg)
{
    int fd = (int)arg[0], off = (int)arg[1], whence = (int)arg[2];

    return vfs_seek(fd, off, whence);
}

int sys_close(const uint32_t *arg)
{
    int fd = (int)arg[0];

    return fd_close(fd);
}

int sys_dup(const uint32_t *arg)
{
    int fd = (int)arg[0];

    return fd_dup(fd);
}

int sys_dup2(const uint32_t *arg)
{
    int from = (int)arg[0], to = (int)arg[1];

    return fd_dup2(from, to);
}

/* pipe(fds) and chan(fds): make(&a, &b) makes the two ends, then both are
 * installed and their fds copied out to ufds, or neither. */
static int sys_pair(uint32_t ufds, int (*make)(struct file **, struct file **))
{
    struct file *a, *b;
    int fds[2], err;

    if ((err = uaccess_check(ufds, sizeof(fds), 1)) < 0)
        return err;
    if ((err = make(&a, &b)) < 0)
        return err;
    if ((fds[0] = fd_install(a, 0)) < 0) {
        file_put(b);
        return fds[0];
    }
    if ((fds[1] = fd_install(b, 0)) < 0 || (err = copyout(ufds, fds, sizeof(fds))) < 0) {
        fd_close(fds[0]);
        if (fds[1] >= 0)
            fd_close(fds[1]);
        return fds[1] < 0 ? fds[1] : err;
    }
    return 0;
}

/* pipe(fds): fds[0] the read end, fds[1] the write end. */
int sys_pipe(const uint32_t *arg)
{
    return sys_pair(arg[0], pipe_new);
}

/* chan(fds): the two ends of a channel (chan.c). */
int sys_chan(const uint32_t *arg)
{
    return sys_pair(arg[0], chan_new);
}

int sys_fstat(const uint32_t *arg)
{
    int fd = (int)arg[0];
    uint32_t ustat = arg[1];
    struct stat st;
    int err;

    if ((err = vfs_stat(fd, &st)) < 0)
        return err;
    return copyout(ustat, &st, sizeof(st));
}

/* getdents(fd, buf, n): whole entries, through a kernel buffer of at
 * most IO_CHUNK bytes (more than one entry ever needs). The whole user
 * range is checked first, so no entry is consumed and then lost. */
int sys_getdents(const uint32_t *arg)
{
    int fd = (int)arg[0];
    uint32_t ubuf = arg[1], n = arg[2];
    char *kbuf;
    int got, err;

    if ((err = uaccess_check(ubuf, n, 1)) < 0)
        return err;
    if (!(kbuf = kmalloc(IO_CHUNK)))
        return -ENOMEM;
    if ((got = vfs_readdir(fd, kbuf, n < IO_CHUNK ? n : IO_CHUNK)) > 0 &&
        (err = copyout(ubuf, kbuf, got)) < 0)
        got = err;
    kfree(kbuf);
    return got;
}

int sys_ftruncate(const uint32_t *arg)
{
    int fd = (int)arg[0];
    uint32_t len = arg[1];

    return vfs_truncate(fd, len);
}

int sys_fcntl(const uint32_t *arg)
{
    int fd = (int)arg[0], cmd = (int)arg[1];
    uint32_t val = arg[2];

    return fd_fcntl(fd, cmd, val);
}

int sys_fchmod(const uint32_t *arg)
{
    int fd = (int)arg[0];
    uint32_t mode = arg[1];

    return vfs_fchmod(fd, mode);
}

/* fchown(fd, uid, gid): -1 (0xFFFFFFFF) leaves an id as it is. */
int sys_fchown(const uint32_t *arg)
{
    int fd = (int)arg[0];
    uint32_t uid = arg[1], gid = arg[2];

    return vfs_fchown(fd, uid, gid);
}

int sys_sync(const uint32_t *arg)
{
    (void)arg;
    vfs_sync_all();
    return 0;
}

/* ---- names: the split open() */

int sys_walk(const uint32_t *arg)
{
    int dirfd = (int)arg[0], flags = (int)arg[2];
    uint32_t upath = arg[1];
    struct path p;
    char *path;
    int err;

    if ((err = get_path(upath, &path)) < 0)
        return err;
    if ((err = vfs_walk(dirfd, path, flags, &p)) == 0)
        err = install_path(&p, FA_PATH, named_path(dirfd, &path));
    kfree(path);
    return err;
}

int sys_ready(const uint32_t *arg)
{
    int fd = (int)arg[0], mode = (int)arg[1], err;
    struct file *nf;

    if ((err = vfs_ready(fd, mode, &nf)) < 0)
        return err;
    return fd_install(nf, 0);
}

/* create(dirfd, path, type, perm, arg): arg is the device number
 * (S_IFCHR, S_IFBLK) or the symlink's target, a string (S_IFLNK). */
int sys_create(const uint32_t *arg)
{
    int dirfd = (int)arg[0];
    uint32_t upath = arg[1], type = arg[2], perm = arg[3], extra = arg[4];
    char *path, *target = NULL;
    struct path made;
    int err;

    if (type == S_IFLNK && (err = get_path(extra, &target)) < 0)
        return err;
    if ((err = get_path(upath, &path)) == 0) {
        if ((err = vfs_create(dirfd, path, type, perm, extra, target, &made)) == 0)
            err = install_path(&made, FA_PATH, named_path(dirfd, &path));
        kfree(path);
    }
    kfree(target);
    return err;
}

int sys_link(const uint32_t *arg)
{
    int fd = (int)arg[0], dirfd = (int)arg[1];
    uint32_t upath = arg[2];
    char small[PATH_SHORT], *path;
    int err;

    if ((err = get_short_path(upath, small, &path)) < 0)
        return err;
    err = vfs_link(fd, dirfd, path);
    put_path(path, small);
    return err;
}

int sys_unlink(const uint32_t *arg)
{
    int dirfd = (int)arg[0], flags = (int)arg[2];
    uint32_t upath = arg[1];
    char small[PATH_SHORT], *path;
    int err;

    if ((err = get_short_path(upath, small, &path)) < 0)
        return err;
    err = vfs_unlink(dirfd, path, flags);
    put_path(path, small);
    return err;
}

int sys_rename(const uint32_t *arg)
{
    int odirfd = (int)arg[0], ndirfd = (int)arg[2], flags = (int)arg[4];
    uint32_t uold = arg[1], unew = arg[3];
    char small_old[PATH_SHORT], small_new[PATH_SHORT], *old, *new;
    int err;

    if ((err = get_short_path(uold, small_old, &old)) < 0)
        return err;
    if ((err = get_short_path(unew, small_new, &new)) == 0) {
        err = vfs_rename(odirfd, old, ndirfd, new, flags);
        put_path(new, small_new);
    }
    put_path(old, small_old);
    return err;
}

/* readlink(dirfd, path, buf, n): the target, not NUL-terminated. */
int sys_readlink(const uint32_t *arg)
{
    int dirfd = (int)arg[0];
    uint32_t upath = arg[1], ubuf = arg[2], n = arg[3] < PATH_MAX ? arg[3] : PATH_MAX;
    char *path, *buf;
    int got, err;

    if ((got = get_path(upath, &path)) < 0)
        return got;
    if (!(buf = kmalloc(PATH_MAX)))
        got = -ENOMEM;
    else if ((got = vfs_readlink(dirfd, path, buf, n)) > 0 && (err = copyout(ubuf, buf, got)) < 0)
        got = err;
    kfree(buf);
    kfree(path);
    return got;
}

int sys_getcwd(const uint32_t *arg)
{
    uint32_t ubuf = arg[0], size = arg[1] < PATH_MAX ? arg[1] : PATH_MAX;
    char *buf = kmalloc(PATH_MAX);
    int n, err;

    if (!buf)
        return -ENOMEM;
    if ((n = vfs_getcwd(buf, size)) >= 0 && (err = copyout(ubuf, buf, n + 1)) < 0)
        n = err;
    kfree(buf);
    return n;
}

/* ---- the namespace: the split mount() */

/* fsopen(type, srcfd, opts): a type name longer than any type is no type
 * (ENODEV), options longer than FSOPTS_MAX - 1 bytes are EINVAL, and no
 * options pointer means none. "srv" takes a channel end as its source,
 * which no other type does: its own rules are srv_fsopen's (srvfs.c). */
int sys_fsopen(const uint32_t *arg)
{
    uint32_t utype = arg[0], uopts = arg[2];
    int srcfd = (int)arg[1], err;
    char type[FSTYPE_MAX], opts[FSOPTS_MAX] = "";
    struct path root;

    if ((err = copyinstr(type, utype, sizeof(type))) < 0)
        return err == -ENAMETOOLONG ? -ENODEV : err;
    if (uopts && (err = copyinstr(opts, uopts, sizeof(opts))) < 0)
        return err == -ENAMETOOLONG ? -EINVAL : err;
    if (strcmp(type, "srv") == 0)
        err = srv_fsopen(srcfd, opts, &root);
    else
        err = vfs_fsopen(type, srcfd, opts, &root);
    if (err < 0)
        return err;
    return install_path(&root, FA_PATH, NULL);
}

int sys_bind(const uint32_t *arg)
{
    int fd = (int)arg[0], dirfd = (int)arg[1], flags = (int)arg[3];
    uint32_t upath = arg[2];
    char *path;
    int err;

    if ((err = get_path(upath, &path)) < 0)
        return err;
    err = vfs_bind(fd, dirfd, path, flags);
    kfree(path);
    return err;
}

int sys_unbind(const uint32_t *arg)
{
    int dirfd = (int)arg[0];
    uint32_t upath = arg[1];
    struct path what;
    char *path;
    int err;

    if ((err = get_path(upath, &path)) < 0)
        return err;
    err = vfs_unbind(dirfd, path, &what);
    kfree(path);
    return err < 0 ? err : install_path(&what, FA_PATH, NULL);
}

int sys_revoke(const uint32_t *arg)
{
    int fd = (int)arg[0];

    return vfs_revoke(fd);
}

int sys_fchroot(const uint32_t *arg)
{
    int fd = (int)arg[0];

    return vfs_fchroot(fd);
}

int sys_fchdir(const uint32_t *arg)
{
    int fd = (int)arg[0];

    return vfs_fchdir(fd);
}

int sys_unshare(const uint32_t *arg)
{
    (void)arg;
    return ns_unshare(curproc());
}

/* setattach(dirfd, path, flags): an attachment's attributes, in place. */
int sys_setattach(const uint32_t *arg)
{
    int dirfd = (int)arg[0], flags = (int)arg[2];
    uint32_t upath = arg[1];
    char *path;
    int err;

    if ((err = get_path(upath, &path)) < 0)
        return err;
    err = vfs_setattach(dirfd, path, flags);
    kfree(path);
    return err;
}
