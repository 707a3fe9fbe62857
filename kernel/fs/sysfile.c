/* sysfile.c - the file and namespace system calls. Each is a thin
 * wrapper in the Plan 9 manner: copy the arguments in, check them, call
 * the vfs_/ns_/file_ function that does the work, install the result as
 * an fd. Manual pages: doc/man/<call>.2.md. */
#include "dev/tty.h"
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/uaccess.h"
#include "proc/proc.h"
#include "proc/syscall.h"

#define IO_MAX 0x7FFFF000u             /* bytes per read or write (Linux's limit) */

/* Copy a user path into a fresh kernel buffer (kfree it). */
static int get_path(uint32_t upath, char **out)
{
    char *k = kmalloc(PATH_MAX);
    int n;

    if (!k)
        return -ENOMEM;
    if ((n = copyinstr(k, upath, PATH_MAX)) < 0) {
        kfree(k);
        return n;
    }
    *out = k;
    return 0;
}

/* Resolve a user (dirfd, path) pair. */
static int walk_user(int dirfd, uint32_t upath, int flags, struct path *out)
{
    char *path;
    int err;

    if ((err = get_path(upath, &path)) < 0)
        return err;
    err = vfs_walk(dirfd, path, flags, out);
    kfree(path);
    return err;
}

static int walk_user_parent(int dirfd, uint32_t upath, struct path *parent, char *name)
{
    char *path;
    int err;

    if ((err = get_path(upath, &path)) < 0)
        return err;
    err = vfs_walk_parent(dirfd, path, parent, name);
    kfree(path);
    return err;
}

/* The absolute name (dirfd, path) was given as, for display only: it is
 * not cleaned up and may name something else tomorrow. */
static char *display_name(int dirfd, const char *path)
{
    char *name = kmalloc(PATH_MAX);
    struct file *d;
    int err;

    if (!name)
        return NULL;
    name[0] = '\0';
    if (path[0] != '/') {
        if (dirfd == AT_CWD)
            vfs_getcwd(name, PATH_MAX);
        else if ((d = fd_get(dirfd, &err)) && d->name)
            strlcpy(name, d->name, PATH_MAX);
        if (name[0] && strcmp(name, "/") != 0)
            strlcat(name, "/", PATH_MAX);
    }
    strlcat(name, path, PATH_MAX);
    return name;
}

/* Make an fd from a path: the common tail of walk, create, unbind, fsopen.
 * `name`, if not NULL, is handed to the file. */
static int install_path(struct path *p, int access, char *name)
{
    struct file *f = file_alloc(p, access, 0);

    path_put(p);
    if (!f) {
        kfree(name);
        return -ENFILE;
    }
    f->name = name;
    return fd_install(f, 0);
}

/* ---- I/O */

/* read() and write(): the file's own read or write routine works straight
 * on the user's buffer, checked whole first (uaccess_buffer: every page
 * present, and for a read writable): no bounce buffer and no allocation,
 * so bytes are copied once - a pipe's from the writer into the ring and
 * out into the reader, a file's between the cache and the user. A bad
 * pointer is EFAULT before anything happens, so it loses no pipe data. A
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
    struct stat st;
    struct file *f;
    int64_t off = (int32_t)arg[1], base;
    int err;

    if (!(f = fd_get((int)arg[0], &err)))
        return err;
    if (f->access == FA_PATH)
        return -EBADF;
    if (S_ISFIFO(f->path.vn->mode) || S_ISCHR(f->path.vn->mode))
        return -ESPIPE;
    if (S_ISDIR(f->path.vn->mode)) {    /* only a rewind: the position is opaque */
        if (arg[2] != SEEK_SET || off != 0)
            return -EINVAL;
        f->dircookie = 0;
        return 0;
    }
    if ((err = file_stat(f, &st)) < 0)
        return err;
    switch (arg[2]) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = f->off; break;
    case SEEK_END: base = st.st_size; break;            /* a device's size too */
    default: return -EINVAL;
    }
    if (base + off < 0 || base + off > 0x7FFFFFFF)
        return -EINVAL;                 /* the result must fit lseek's int */
    f->off = (uint32_t)(base + off);
    return (int)f->off;
}

int sys_close(const uint32_t *arg)
{
    return fd_close((int)arg[0]);
}

/* dup/dup2: the new fd is closed on exec, like every new fd. */
int sys_dup(const uint32_t *arg)
{
    struct file *f;
    int err;

    if (!(f = fd_get((int)arg[0], &err)))
        return err;
    file_get(f);
    return fd_install(f, 0);
}

int sys_dup2(const uint32_t *arg)
{
    struct fdtable *t = curproc()->fds;
    int from = (int)arg[0], to = (int)arg[1], err;
    struct file *f, *old;

    if (!(f = fd_get(from, &err)))
        return err;
    if (to < 0 || to >= NOFILE)
        return -EBADF;
    if (from == to)
        return to;
    file_get(f);
    old = t->fd[to];                    /* fill the slot before the old file's */
    t->fd[to] = f;                      /* last close, so that no sharer of the */
    t->fdflags[to] = 0;                 /* table can see a file being torn down */
    file_put(old);
    return to;
}

int sys_pipe(const uint32_t *arg)
{
    struct file *rd, *wr;
    int fds[2], err;

    if (!uaccess_ok(arg[0], sizeof(fds), 1))
        return -EFAULT;
    if ((err = pipe_new(&rd, &wr)) < 0)
        return err;
    if ((fds[0] = fd_install(rd, 0)) < 0) {
        file_put(wr);
        return fds[0];
    }
    if ((fds[1] = fd_install(wr, 0)) < 0) {
        fd_close(fds[0]);
        return fds[1];
    }
    if (copyout(arg[0], fds, sizeof(fds)) < 0) {
        fd_close(fds[0]);
        fd_close(fds[1]);
        return -EFAULT;
    }
    return 0;
}

int sys_fstat(const uint32_t *arg)
{
    struct stat st;
    struct file *f;
    int err;

    if (!(f = fd_get((int)arg[0], &err)))
        return err;
    if ((err = file_stat(f, &st)) < 0)
        return err;
    return copyout(arg[1], &st, sizeof(st));
}

/* getdents(fd, buf, n): as many whole entries as fit; 0 at the end. */
int sys_getdents(const uint32_t *arg)
{
    uint32_t ubuf = arg[1], n = arg[2], used = 0, ino, type;
    char rec[sizeof(struct dirent) + NAME_MAX + 4] = { 0 };   /* no stale stack bytes out */
    struct dirent *de = (struct dirent *)rec;
    struct file *f;
    struct vnode *v;
    int err;

    if (!(f = fd_get((int)arg[0], &err)))
        return err;
    v = f->path.vn;
    if (!(f->access & FA_READ))
        return -EBADF;
    if (!S_ISDIR(v->mode))
        return -ENOTDIR;
    if ((err = fs_check(v)) < 0)
        return err;
    if (!uaccess_ok(ubuf, n, 1))
        return -EFAULT;
    for (;;) {
        uint32_t cookie = f->dircookie;
        uint16_t len;
        if ((err = v->ops->readdir(v, &cookie, de->d_name, &ino, &type)) <= 0) {
            if (err < 0 && used == 0)
                return err;             /* a read error, not the end */
            break;
        }
        len = (sizeof(struct dirent) + strlen(de->d_name) + 1 + 3) & ~3u;
        memset(de->d_name + strlen(de->d_name), 0,
               len - sizeof(struct dirent) - strlen(de->d_name));
        if (used + len > n) {
            if (used == 0)
                return -EINVAL;         /* the buffer can't hold even one */
            break;
        }
        de->d_ino = ino;
        de->d_reclen = len;
        de->d_type = type;
        if (copyout(ubuf + used, rec, len) < 0)
            return -EFAULT;
        used += len;
        f->dircookie = cookie;
    }
    return (int)used;
}

/* ftruncate(fd, len): the only way to truncate, to any length. */
int sys_ftruncate(const uint32_t *arg)
{
    struct file *f;
    struct vnode *v;
    int err;

    if (!(f = fd_get((int)arg[0], &err)))
        return err;
    v = f->path.vn;
    if (!(f->access & FA_WRITE))
        return -EBADF;
    if (!S_ISREG(v->mode))
        return S_ISDIR(v->mode) ? -EISDIR : -EINVAL;
    if ((err = fs_check(v)) < 0)
        return err;
    if (v->fs->readonly)
        return -EROFS;
    return v->ops->truncate ? v->ops->truncate(v, arg[1]) : -EINVAL;
}

/* F_GETTTY/F_SETTTY: the console's input mode, through an fd readied on
 * it (the device is one tty; the fd says the caller may use it). */
static int console_mode(struct file *f, int cmd, int mode)
{
    struct vnode *v = f->path.vn;
    int err;

    if (f->access == FA_PATH)
        return -EBADF;
    if ((err = fs_check(v)) < 0)
        return err;
    if (!S_ISCHR(v->mode) || v->rdev != MKDEV(DEV_CONSOLE, 0))
        return -ENOTTY;
    return cmd == F_GETTTY ? tty_mode() : tty_set_mode(mode);
}

int sys_fcntl(const uint32_t *arg)
{
    struct fdtable *t = curproc()->fds;
    int fd = (int)arg[0], err;
    struct file *f;

    if (!(f = fd_get(fd, &err)))
        return err;
    switch (arg[1]) {
    case F_GETFD: return t->fdflags[fd];
    case F_SETFD:
        if (arg[2] & ~FD_KEEP)
            return -EINVAL;
        t->fdflags[fd] = arg[2];
        return 0;
    case F_GETFL: return f->access | f->flags;
    case F_SETFL:
        if (arg[2] & ~(R_RDWR | R_APPEND | R_NONBLOCK))
            return -EINVAL;
        if (f->access == FA_PATH)
            return -EBADF;
        f->flags = arg[2] & (R_APPEND | R_NONBLOCK);
        return 0;
    case F_GETTTY:
    case F_SETTTY: return console_mode(f, arg[1], (int)arg[2]);
    }
    return -EINVAL;
}

int sys_sync(const uint32_t *arg)
{
    vfs_sync_all();
    return 0;
}

/* ---- names: the split open() */

int sys_walk(const uint32_t *arg)
{
    struct path p;
    char *path;
    int err;

    if (arg[2] & ~(WALK_NOFOLLOW | WALK_BENEATH))
        return -EINVAL;
    if ((err = get_path(arg[1], &path)) < 0)
        return err;
    if ((err = vfs_walk((int)arg[0], path, (int)arg[2], &p)) == 0)
        err = install_path(&p, FA_PATH, display_name((int)arg[0], path));
    kfree(path);
    return err;
}

int sys_ready(const uint32_t *arg)
{
    struct file *f, *nf;
    int err;

    if (!(f = fd_get((int)arg[0], &err)))
        return err;
    if ((err = file_ready(f, (int)arg[1], &nf)) < 0)
        return err;
    return fd_install(nf, 0);
}

static int valid_type(uint32_t type)
{
    return type == S_IFREG || type == S_IFDIR || type == S_IFIFO || type == S_IFLNK ||
           type == S_IFCHR || type == S_IFBLK;
}

/* create(dirfd, path, type, perm, arg): always exclusive. arg is the
 * device number (S_IFCHR, S_IFBLK) or the symlink target (S_IFLNK). */
int sys_create(const uint32_t *arg)
{
    uint32_t type = arg[2], perm = arg[3] & 07777, rdev = 0;
    char name[NAME_MAX + 1], *target = NULL, *path;
    struct path parent, made;
    struct vnode *v;
    int err;

    if (!valid_type(type))
        return -EINVAL;
    if ((err = fd_room()) < 0)
        return err;
    if (type == S_IFCHR || type == S_IFBLK)
        rdev = arg[4];
    if (type == S_IFLNK && (err = get_path(arg[4], &target)) < 0)
        return err;
    if ((err = get_path(arg[1], &path)) < 0)
        goto out;
    if (type != S_IFDIR && path[0] && path[strlen(path) - 1] == '/')
        err = -ENOTDIR;                 /* "name/" can only be a directory */
    else
        err = vfs_walk_parent((int)arg[0], path, &parent, name);
    kfree(path);
    if (err < 0)
        goto out;
    if ((err = fs_check(parent.vn)) < 0)
        goto out_parent;
    err = -EROFS;
    if (parent.vn->fs->readonly)
        goto out_parent;
    err = -EPERM;
    if (!parent.vn->ops->create)
        goto out_parent;
    if ((err = parent.vn->ops->create(parent.vn, name, type | perm, rdev, target, &v)) < 0)
        goto out_parent;
    made.mnt = parent.mnt;
    made.vn = v;
    path_get(&made);
    vnode_put(v);
    err = install_path(&made, FA_PATH, NULL);
out_parent:
    path_put(&parent);
out:
    kfree(target);
    return err;
}

/* Is name in parent covered by an attachment? Such names can't go away. */
static int name_busy(struct path *parent, const char *name)
{
    struct path p;
    struct vnode *v;
    int busy;

    if (parent->vn->ops->lookup(parent->vn, name, &v) < 0)
        return 0;
    p.mnt = parent->mnt;
    p.vn = v;
    fs_get(v->fs);
    if (p.mnt)
        mount_get(p.mnt);
    ns_cross(curproc()->ns, &p);
    busy = p.vn != v;
    path_put(&p);
    return busy;
}

/* link(fd, dirfd, path): a new name for the node fd names; exclusive. */
int sys_link(const uint32_t *arg)
{
    char name[NAME_MAX + 1];
    struct path parent;
    struct file *f;
    int err;

    if (!(f = fd_get((int)arg[0], &err)))
        return err;
    if ((err = walk_user_parent((int)arg[1], arg[2], &parent, name)) < 0)
        return err;
    if (parent.vn->fs != f->path.vn->fs)
        err = -EXDEV;
    else if ((err = fs_check(parent.vn)) == 0) {
        if (parent.vn->fs->readonly)
            err = -EROFS;
        else if (S_ISDIR(f->path.vn->mode))
            err = -EPERM;
        else
            err = parent.vn->ops->link ? parent.vn->ops->link(parent.vn, name, f->path.vn) : -EPERM;
    }
    path_put(&parent);
    return err;
}

/* unlink(dirfd, path, flags): UNLINK_DIR removes an empty directory. */
int sys_unlink(const uint32_t *arg)
{
    char name[NAME_MAX + 1];
    struct path parent;
    int err;

    if (arg[2] & ~UNLINK_DIR)
        return -EINVAL;
    if ((err = walk_user_parent((int)arg[0], arg[1], &parent, name)) < 0)
        return err;
    if ((err = fs_check(parent.vn)) == 0) {
        if (parent.vn->fs->readonly)
            err = -EROFS;
        else if (name_busy(&parent, name))
            err = -EBUSY;
        else
            err = parent.vn->ops->unlink ? parent.vn->ops->unlink(parent.vn, name, (int)arg[2])
                                         : -EPERM;
    }
    path_put(&parent);
    return err;
}

int sys_rename(const uint32_t *arg)
{
    char oname[NAME_MAX + 1], nname[NAME_MAX + 1];
    struct path op, np;
    int err;

    if (arg[4] & ~RENAME_NOREPLACE)
        return -EINVAL;
    if ((err = walk_user_parent((int)arg[0], arg[1], &op, oname)) < 0)
        return err;
    if ((err = walk_user_parent((int)arg[2], arg[3], &np, nname)) < 0)
        goto out;
    if (op.vn->fs != np.vn->fs)
        err = -EXDEV;
    else if ((err = fs_check(op.vn)) == 0) {
        if (op.vn->fs->readonly)
            err = -EROFS;
        else if (name_busy(&op, oname) || name_busy(&np, nname))
            err = -EBUSY;
        else
            err = op.vn->ops->rename ? op.vn->ops->rename(op.vn, oname, np.vn, nname, (int)arg[4])
                                     : -EPERM;
    }
    path_put(&np);
out:
    path_put(&op);
    return err;
}

/* readlink(dirfd, path, buf, n): the target, not NUL-terminated. */
int sys_readlink(const uint32_t *arg)
{
    struct path p;
    char *buf;
    int n;

    if ((n = walk_user((int)arg[0], arg[1], WALK_NOFOLLOW, &p)) < 0)
        return n;
    if (!S_ISLNK(p.vn->mode) || !p.vn->ops->readlink) {
        path_put(&p);
        return -EINVAL;
    }
    if (!(buf = kmalloc(PATH_MAX))) {
        path_put(&p);
        return -ENOMEM;
    }
    n = p.vn->ops->readlink(p.vn, buf, arg[3] < PATH_MAX ? arg[3] : PATH_MAX);
    if (n > 0 && copyout(arg[2], buf, n) < 0)
        n = -EFAULT;
    kfree(buf);
    path_put(&p);
    return n;
}

int sys_getcwd(const uint32_t *arg)
{
    uint32_t size = arg[1] < PATH_MAX ? arg[1] : PATH_MAX;
    char *buf = kmalloc(PATH_MAX);
    int n;

    if (!buf)
        return -ENOMEM;
    if ((n = vfs_getcwd(buf, size)) >= 0 && copyout(arg[0], buf, n + 1) < 0)
        n = -EFAULT;
    kfree(buf);
    return n;
}

/* ---- the namespace: the split mount() */

/* fsopen(type, srcfd, opts): a new filesystem, attached nowhere; returns
 * a path fd on its root. srcfd -1: no source; else it must be readable.
 * Lab 03 builds this and bind(). */
int sys_fsopen(const uint32_t *arg)
{
    /* LAB 03: BEGIN */
    char type[16], opts[64] = "";
    struct file *src = NULL;
    struct path root;
    struct fs *fs;
    int err;

    if ((err = copyinstr(type, arg[0], sizeof(type))) < 0)
        return err == -ENAMETOOLONG ? -ENODEV : err;
    if (arg[2] && (err = copyinstr(opts, arg[2], sizeof(opts))) < 0)
        return err == -ENAMETOOLONG ? -EINVAL : err;
    if ((int)arg[1] != -1) {
        if (!(src = fd_get((int)arg[1], &err)))
            return err;
        if (!(src->access & FA_READ))
            return -EBADF;              /* ready() the source first */
        if (!S_ISREG(src->path.vn->mode) && !S_ISBLK(src->path.vn->mode))
            return -ENOTBLK;
    }
    if ((err = fd_room()) < 0 || (err = fs_new(type, src, opts, &fs)) < 0)
        return err;
    root.mnt = NULL;
    root.vn = fs->root;
    path_get(&root);
    fs_put(fs);                         /* the path holds it now */
    return install_path(&root, FA_PATH, NULL);
    /* LAB 03: END */
}

/* The absolute name of path in (dirfd, path), for labelling a
 * non-directory attachment: its directory's name plus the last component. */
static void label_of(int dirfd, const char *path, char *label, size_t size)
{
    char name[NAME_MAX + 1];
    struct path dir;
    int n;

    label[0] = '\0';
    if (vfs_walk_parent(dirfd, path, &dir, name) < 0)
        return;
    n = vfs_path_name(&dir, label, size);
    path_put(&dir);
    if (n >= 0 && strlcat(label, n > 1 ? "/" : "", size) < size)
        strlcat(label, name, size);
}

/* bind(fd, dirfd, path, flags): show what fd names at path. */
int sys_bind(const uint32_t *arg)
{
    /* LAB 03: BEGIN (stub:
    (void)label_of;                     // a helper you will want
    return -ENOSYS;
    ) */
    char label[64] = "", *path;
    struct path where;
    struct file *f;
    int err;

    if (arg[3] != BIND_REPLACE)
        return -EINVAL;
    if (!(f = fd_get((int)arg[0], &err)))
        return err;
    if ((err = get_path(arg[2], &path)) < 0)
        return err;
    if ((err = vfs_walk((int)arg[1], path, 0, &where)) == 0) {
        if (!S_ISDIR(where.vn->mode))
            label_of((int)arg[1], path, label, sizeof(label));
        err = ns_bind(curproc()->ns, f, &where, label);
        path_put(&where);
    }
    kfree(path);
    return err;
    /* LAB 03: END */
}

/* unbind(dirfd, path): detach what is attached at path; an fd on it. */
int sys_unbind(const uint32_t *arg)
{
    struct path where, what;
    int err;

    if ((err = fd_room()) < 0 || (err = walk_user((int)arg[0], arg[1], 0, &where)) < 0)
        return err;
    err = ns_unbind(curproc()->ns, &where, &what);
    path_put(&where);
    return err < 0 ? err : install_path(&what, FA_PATH, NULL);
}

/* revoke(fd): forced unmount of the filesystem fd is in, attached or not:
 * sync it, mark it revoked (fs_check then fails every other fd with -EIO),
 * detach it everywhere, and let go of its device. Lab 04 builds this. */
int sys_revoke(const uint32_t *arg)
{
    /* LAB 04: BEGIN */
    struct file *f;
    struct fs *fs;
    int err;

    if (!(f = fd_get((int)arg[0], &err)))
        return err;
    fs = f->path.vn->fs;
    if (fs->revoked)
        return -EIO;
    if (!fs->type->mount || fs == curproc()->root->vn->fs || fs == vfs_boot_root())
        return -EBUSY;                  /* pipes, the caller's own root, init's root */
    if (fs->type->sync)
        fs->type->sync(fs);
    fs->revoked = 1;
    ns_revoke_fs(fs);
    wakeup_all();                       /* sleepers on its FIFOs must see -EIO */
    if (fs->source) {
        file_put(fs->source);           /* the device is free again */
        fs->source = NULL;
    }
    return 0;
    /* LAB 04: END */
}

/* fchroot/fchdir: point the root or cwd at the directory fd names. A
 * root in a detached tree becomes a root attachment of the namespace
 * (ns_attach_root), which is what lets pivot_root be built in user space. */
static int set_dir(struct path *slot, int fd, int is_root)
{
    struct file *f;
    struct path p;
    int err;

    if (!(f = fd_get(fd, &err)))
        return err;
    if (!S_ISDIR(f->path.vn->mode))
        return -ENOTDIR;
    if ((err = fs_check(f->path.vn)) < 0)
        return err;
    path_copy(&p, &f->path);
    if (is_root && (err = ns_attach_root(curproc()->ns, &p)) < 0) {
        path_put(&p);
        return err;
    }
    path_put(slot);
    *slot = p;
    return 0;
}

int sys_fchroot(const uint32_t *arg)
{
    return set_dir(curproc()->root, (int)arg[0], 1);
}

int sys_fchdir(const uint32_t *arg)
{
    return set_dir(curproc()->cwd, (int)arg[0], 0);
}

int sys_unshare(const uint32_t *arg)
{
    struct proc *p = curproc();
    struct namespace *ns = ns_copy(p->ns, p->root, p->cwd);

    if (!ns)
        return -ENOMEM;
    ns_put(p->ns);
    p->ns = ns;
    return 0;
}
