/* perm.c - who may do what to a node: the permission rules of the VFS
 * layer, each written once and called from the one vfs_ function of each
 * operation (walk and the name operations in namei.c, ready in file.c),
 * plus fchmod and fchown, which change what the rules read. The rules
 * about namespaces and filesystem instances are ns_may_change
 * (namespace.c) and fs_may_revoke (vfs.c). doc/decisions.md, "Authority". */
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "proc/proc.h"

#define ID_KEEP 0xFFFFFFFFu             /* fchown: leave this id as it is */
#define ID_MAX  65535u                  /* ext2 keeps 16 bits of each id */

/* Is p root? A NULL p is the kernel itself, building the boot namespace. */
static int is_root(const struct proc *p)
{
    return !p || p->uid == 0;
}

/* May p have the access `want` (MAY_READ | MAY_WRITE | MAY_EXEC) to v?
 * Everyone but root gets the bits of exactly one class: the owner's if p
 * owns v, else the group's if p is in v's group, else the others'. Root
 * passes every check on a directory, and on anything else needs the bit
 * in some class: a 0444 file is read-only for root too (as it was before
 * there were users), and exec needs an x bit, as on Unix. 0 or -EACCES. */
int perm_check(const struct proc *p, const struct vnode *v, int want)
{
    uint32_t bits;

    if (is_root(p))
        bits = S_ISDIR(v->mode) ? 7 : (v->mode >> 6 | v->mode >> 3 | v->mode) & 7;
    else if (p->uid == v->uid)
        bits = v->mode >> 6 & 7;
    else if (p->gid == v->gid)
        bits = v->mode >> 3 & 7;
    else
        bits = v->mode & 7;
    return want & ~bits ? -EACCES : 0;
}

/* ready(): may p ready v with `access` (FA_READ | FA_WRITE)? Checked with
 * the readier's own credentials against the node, whoever walked to it:
 * a path fd carries no permission (doc/man/ready.2.md). And a device node
 * in an instance a user made (fsopen by a non-root uid: an image file, a
 * ramfs) is readied only by root, or a user could ship /dev/hd0 with mode
 * 0666 inside an image: Linux's "nodev" for user mounts, always on. */
int perm_ready(const struct proc *p, const struct vnode *v, int access)
{
    int want = (access & FA_READ ? MAY_READ : 0) | (access & FA_WRITE ? MAY_WRITE : 0);

    if ((S_ISCHR(v->mode) || S_ISBLK(v->mode)) && v->fs->owner != 0 && !is_root(p))
        return -EACCES;
    return perm_check(p, v, want);
}

/* Adding or taking away a name in dir (create, link, unlink, rename):
 * write and search permission on it. */
int perm_dir_change(const struct proc *p, const struct vnode *dir)
{
    return perm_check(p, dir, MAY_WRITE | MAY_EXEC);
}

/* May p take away v's name in dir (unlink, rename from or over it)? In a
 * sticky directory (S_ISVTX, /tmp) only the owner of v or of dir, or
 * root, may: everyone may write there, not remove each other's files. */
int perm_sticky(const struct proc *p, const struct vnode *dir, const struct vnode *v)
{
    if (!(dir->mode & S_ISVTX) || is_root(p) || p->uid == v->uid || p->uid == dir->uid)
        return 0;
    return -EPERM;
}

/* create(): a new name in dir for a node of `type`. Device nodes are
 * root's alone: with one, anyone could read the disk under everyone. */
int perm_create(const struct proc *p, const struct vnode *dir, uint32_t type)
{
    if ((type == S_IFCHR || type == S_IFBLK) && !is_root(p))
        return -EPERM;
    return perm_dir_change(p, dir);
}

/* A node p has just made is p's, in p's group. 1 if that changed what
 * its filesystem gave it (which then must store it: vnode_setattr), 0 if
 * not (root's nodes, usually: no second write, and no second entry into
 * an ext2 instance that another process may keep busy). */
int perm_own(const struct proc *p, struct vnode *v)
{
    uint32_t uid = p ? p->uid : 0, gid = p ? p->gid : 0;

    if (v->uid == uid && v->gid == gid)
        return 0;
    v->uid = uid;
    v->gid = gid;
    return 1;
}

/* Give v new attributes and have its filesystem store them; a caller
 * puts the old ones back on failure, so the vnode never says what the
 * disk does not. */
static int store_attrs(struct vnode *v, uint32_t mode, uint32_t uid, uint32_t gid)
{
    v->mode = mode;
    v->uid = uid;
    v->gid = gid;
    return vnode_setattr(v);
}

/* The node fd names, if its filesystem may change and the caller owns
 * it (or is root): what fchmod and fchown ask first. */
static int owned_node(int fd, struct vnode **out)
{
    struct proc *p = curproc();
    struct file *f;
    int err;

    if (!(f = fd_get(fd, &err)))
        return err;
    if ((err = fs_may_change(f->path.vn)) < 0 || (err = ns_attr_check(&f->path, BIND_RDONLY)) < 0)
        return err;
    if (!is_root(p) && p->uid != f->path.vn->uid)
        return -EPERM;
    *out = f->path.vn;
    return 0;
}

/* fchmod(): the permission bits (07777) of the node fd names, any fd,
 * path-only ones included; by its owner or root. */
int vfs_fchmod(int fd, uint32_t mode)
{
    struct vnode *v;
    uint32_t old;
    int err;

    if (mode & ~07777u)
        return -EINVAL;
    if ((err = owned_node(fd, &v)) < 0)
        return err;
    old = v->mode;
    if ((err = store_attrs(v, (old & S_IFMT) | mode, v->uid, v->gid)) < 0)
        v->mode = old;
    return err;
}

/* fchown(): the owner and group of the node fd names (ID_KEEP: leave it).
 * Root may give a node to anyone; an owner may only set what it already
 * has (its own uid, its own gid): giving files away would let a user
 * escape quotas and blame others, as BSD decided. An id left as it is
 * (ID_KEEP, or the node's own) is no change, so is never refused: an
 * owner may fchown(fd, uid, -1) a file whose group is not its own. */
int vfs_fchown(int fd, uint32_t uid, uint32_t gid)
{
    struct proc *p = curproc();
    uint32_t ouid, ogid;
    struct vnode *v;
    int err;

    if ((uid != ID_KEEP && uid > ID_MAX) || (gid != ID_KEEP && gid > ID_MAX))
        return -EINVAL;
    if ((err = owned_node(fd, &v)) < 0)
        return err;
    ouid = v->uid;
    ogid = v->gid;
    uid = uid == ID_KEEP ? ouid : uid;
    gid = gid == ID_KEEP ? ogid : gid;
    if (!is_root(p) && (uid != p->uid || (gid != p->gid && gid != ogid)))
        return -EPERM;
    if ((err = store_attrs(v, v->mode, uid, gid)) < 0) {
        v->uid = ouid;
        v->gid = ogid;
    }
    return err;
}
