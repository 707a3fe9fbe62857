/* namei.c - turning names into paths. Resolution walks one component at a
 * time from a starting point (the root for "/...", the cwd for AT_CWD, or
 * any directory fd), crossing attachments on the way down (ns_cross),
 * going back up the way it came for ".." (walk_up), following symlinks up
 * to MAXSYMLINKS deep. "..": never above the process root. WALK_BENEATH:
 * never above the starting dir. */
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "mm/page.h"
#include "proc/proc.h"

#define MAXSYMLINKS 8

#define MAXDOWN 4096 /* directories one walk may go down through */
#define NDOWN   16   /* ...of which the walker holds this many itself, no kmalloc */

/* One resolution. ".." after a step down is the directory the walk came
 * from: it pops `down` and never asks the filesystem, whose ".." entry
 * is only what its image says (a crafted ext2 image can point it
 * anywhere: out of a chroot, out of WALK_BENEATH). Only ".." beyond
 * where the walk started asks (ns_dotdot). */
struct walker {
    struct namespace *ns;
    const struct path *root;    /* the process root: ".." stops here */
    int flags;
    int links;                  /* symlinks followed so far */
    struct path *down;          /* the directories gone down through, each held */
    int ndown, cap;             /* WALK_BENEATH: ndown is the depth below the start */
    const struct proc *who;     /* whose search permission each directory needs */
    char *name;                 /* the component being resolved (LAST_PARENT: the last) */
    int slash;                  /* LAST_PARENT: slashes followed the last component */
    struct path in[NDOWN];      /* down's first home: most walks go no deeper */
};

/* Remember dir (its reference handed over) as the way back up. */
static int push_down(struct walker *w, struct path *dir)
{
    if (w->ndown == w->cap) {
        int cap = w->cap * 2;
        struct path *n;
        if (cap > MAXDOWN)
            return -ENAMETOOLONG;
        if (!(n = kmalloc(cap * sizeof(*n))))
            return -ENOMEM;
        memcpy(n, w->down, w->ndown * sizeof(*n));
        if (w->down != w->in)
            kfree(w->down);
        w->down = n;
        w->cap = cap;
    }
    w->down[w->ndown++] = *dir;
    dir->vn = NULL;
    dir->mnt = NULL;
    return 0;
}

/* Forget the way back up (an absolute symlink starts again; the end). */
static void forget_down(struct walker *w)
{
    while (w->ndown > 0)
        path_put(&w->down[--w->ndown]);
}

/* "..": never above the process root; back the way this walk came down;
 * beyond where it started, WALK_BENEATH refuses and anything else climbs
 * (ns_dotdot: out of attachments, then the filesystem's own ".."). */
static int walk_up(struct walker *w, struct path *cur)
{
    if (w->root && cur->vn == w->root->vn)
        return 0;
    if (w->ndown > 0) {
        path_put(cur);
        *cur = w->down[--w->ndown];
        return 0;
    }
    if (w->flags & WALK_BENEATH)
        return -EXDEV;
    return ns_dotdot(w->ns, w->root, cur);
}

/* Copy the next component of *pp into name, advance *pp past it and any
 * slashes. Returns 1, 0 at the end, or -ENAMETOOLONG. */
static int next_component(const char **pp, char *name)
{
    const char *p = *pp;
    size_t n = 0;

    while (*p == '/')
        p++;
    if (!*p)
        return 0;
    while (*p && *p != '/') {
        if (n >= NAME_MAX)
            return -ENAMETOOLONG;
        name[n++] = *p++;
    }
    name[n] = '\0';
    while (*p == '/')
        p++;
    *pp = p;
    return 1;
}

/* The starting point of a (dirfd, path) pair, with a reference. */
static int walk_start(struct proc *p, int dirfd, const char *path, struct path *out)
{
    struct file *f;
    int err;

    if (path[0] == '/')
        path_copy(out, &p->root);
    else if (dirfd == AT_CWD)
        path_copy(out, &p->cwd);
    else if ((f = fd_get(dirfd, &err)))
        path_copy(out, &f->path);
    else
        return err;
    return 0;
}

/* What resolve does with the last component: follows a symlink there or
 * not, or stops before it (vfs_walk_parent: cur is then its directory). */
enum { LAST_FOLLOW, LAST_NOFOLLOW, LAST_PARENT };

static int resolve(struct walker *w, struct path *cur, const char *path, int how);

/* cur is a symlink reached from directory `dir`: continue from dir along
 * the link's target. On success cur holds the result. */
static int follow_link(struct walker *w, struct path *dir, struct path *cur)
{
    char *target;
    int n;

    if (++w->links > MAXSYMLINKS)
        return -ELOOP;
    if (!(target = kmalloc(PATH_MAX)))
        return -ENOMEM;
    n = vnode_readlink(cur->vn, target, PATH_MAX - 1);
    if (n < 0) {
        kfree(target);
        return n;
    }
    target[n] = '\0';
    path_put(cur);
    *cur = *dir;                        /* hand over dir's reference */
    dir->vn = NULL;
    n = resolve(w, cur, target, LAST_FOLLOW);
    kfree(target);
    return n;
}

/* Between two names of a walk (or two steps of naming a path, up): let
 * others run if the slice is over, and stop if the walker was killed
 * (-EINTR). Kernel code is never preempted, and one walk may look up
 * some 9 x PATH_MAX / 2 names (a path and 8 symlinks), each a scan of a
 * directory in ramfs, or of every member of a union: 6400 lookups behind
 * 1000 names held the CPU for 670 ms. /proc/<pid>/ns names up to 256
 * attachments, each up to PATH_MAX / 2 steps, each step a scan of the
 * parent and a look at every attachment: one read took 19 s. */
static int walk_turn(void)
{
    struct proc *p = curproc();

    if (!p)
        return 0;                       /* the boot's own walks: nobody else runs */
    if (need_resched)
        yield();
    return p->killed ? -EINTR : 0;
}

/* Walk `path` from *cur (which we own and update); `how`: LAST_*. */
static int resolve(struct walker *w, struct path *cur, const char *path, int how)
{
    char *name = w->name;               /* (a symlink's resolve uses it too, and is done */
    int more, err;                      /* with it before this one takes the next name) */

    if (path[0] == '/') {
        if (w->flags & WALK_BENEATH)
            return -EXDEV;
        if (!path_equal(cur, w->root)) {    /* (walk_start began at the root already) */
            path_put(cur);
            path_copy(cur, w->root);
        }
        forget_down(w);
    }
    while ((more = next_component(&path, name)) > 0) {
        struct path next;
        int last = *path == '\0';

        if ((err = walk_turn()) < 0)
            return err;
        if (!S_ISDIR(cur->vn->mode))
            return -ENOTDIR;
        if ((err = perm_check(w->who, cur->vn, MAY_EXEC)) < 0)
            return err;                 /* search permission, on every directory walked */
        if (last && how == LAST_PARENT) {
            w->slash = path[-1] == '/'; /* next_component went past any slashes */
            return 0;                   /* cur: the directory the last name is in */
        }
        if (name_is_dot(name))
            continue;
        if (name_is_dotdot(name)) {
            if ((err = walk_up(w, cur)) < 0)
                return err;
            continue;
        }
        if ((err = ns_lookup(w->ns, w->who, cur, name, &next)) < 0)
            return err;                 /* in a union: in each member (Lab 08) */
        ns_cross(w->ns, &next);
        if (S_ISLNK(next.vn->mode) && (!last || how == LAST_FOLLOW)) {
            err = follow_link(w, cur, &next);
            if (err < 0) {
                path_put(&next);
                return err;
            }
            *cur = next;                /* cur's reference went to follow_link */
            continue;
        }
        if ((err = push_down(w, cur)) < 0) {
            path_put(&next);
            return err;
        }
        *cur = next;
    }
    return more;                        /* 0, or -ENAMETOOLONG */
}

/* Does path end in '/' ("name/": only a directory may be named so)? */
static int ends_in_slash(const char *path)
{
    return path[0] && path[strlen(path) - 1] == '/';
}

/* Resolve (dirfd, path) for process p to a path with a reference. The
 * result is never on a revoked filesystem: every lookup on the way asks
 * its filesystem (vnode_lookup: -EIO once revoked), and the end is checked
 * here (a path with no component, like "/", asks none). `name` (NAME_MAX
 * + 1 bytes) holds each component as it is resolved: for LAST_PARENT, the
 * last one, and *slash says whether slashes followed it. */
static int walk_path(struct proc *p, int dirfd, const char *path, int flags, int how, char *name,
                     int *slash, struct path *out)
{
    struct walker w;                    /* w.in is not cleared: push_down fills it */
    int err;

    w.ns = p->ns;
    w.root = &p->root;
    w.flags = flags;
    w.links = 0;
    w.down = w.in;
    w.ndown = 0;
    w.cap = NDOWN;
    w.who = p;
    w.name = name;
    w.slash = 0;
    name[0] = '\0';
    if (flags & ~(WALK_NOFOLLOW | WALK_BENEATH))
        return -EINVAL;
    if (!path[0])
        return -ENOENT;
    if ((err = walk_start(p, dirfd, path, out)) < 0)
        return err;
    if ((err = resolve(&w, out, path, how)) == 0)
        err = fs_check(out->vn);
    forget_down(&w);
    if (w.down != w.in)
        kfree(w.down);
    if (err == 0 && !S_ISDIR(out->vn->mode) && ends_in_slash(path))
        err = -ENOTDIR;                 /* "file/" names a directory or nothing */
    if (err < 0)
        path_put(out);
    if (slash)
        *slash = w.slash;
    return err;
}

int vfs_walk_from(struct proc *p, int dirfd, const char *path, int flags, struct path *out)
{
    char name[NAME_MAX + 1];

    return walk_path(p, dirfd, path, flags, flags & WALK_NOFOLLOW ? LAST_NOFOLLOW : LAST_FOLLOW,
                     name, NULL, out);
}

/* The body of walk(): resolve for the calling process. */
int vfs_walk(int dirfd, const char *path, int flags, struct path *out)
{
    return vfs_walk_from(curproc(), dirfd, path, flags, out);
}

/* What is wrong with the last name of path for the name operations: it
 * is empty (the path is "/", or ""), -EINVAL; longer than NAME_MAX,
 * -ENAMETOOLONG; "." or "..", -EINVAL; or 0. These errors come before
 * any of the walk's: asked only when the walk failed or found such a
 * name (vfs_walk_parent), since a walk that got to the end has the name. */
static int last_name_error(const char *path)
{
    size_t len = strlen(path), i;

    while (len > 1 && path[len - 1] == '/')
        len--;
    for (i = len; i > 0 && path[i - 1] != '/'; i--)
        ;
    if (len - i == 0 || len - i > NAME_MAX)
        return len - i ? -ENAMETOOLONG : -EINVAL;
    if ((len - i == 1 && path[i] == '.') || (len - i == 2 && path[i] == '.' && path[i + 1] == '.'))
        return -EINVAL;
    return 0;
}

/* Resolve all but the last component: for create, link, unlink, rename.
 * `name` (NAME_MAX + 1 bytes) gets the last component, which may not be
 * "." or "..". The walk of the whole path stops before it (LAST_PARENT)
 * and hands it over: the directories on the way are searched (and
 * checked) as walk does, the last is a directory. */
int vfs_walk_parent(int dirfd, const char *path, struct path *parent, char *name)
{
    int err, slash, bad;

    err = walk_path(curproc(), dirfd, path, 0, LAST_PARENT, name, &slash, parent);
    if (err < 0 || !name[0] || name_is_dot(name) || name_is_dotdot(name)) {
        if (err == 0)
            path_put(parent);
        bad = last_name_error(path);
        return bad ? bad : err;
    }
    if (slash) {                        /* "name/": only a directory, or nothing yet */
        struct vnode *v;
        if (vnode_lookup(parent->vn, name, &v) == 0) {
            int dir_ok = S_ISDIR(v->mode);  /* the last name is never followed: a */
            vnode_put(v);                   /* symlink to a directory is no directory */
            if (!dir_ok) {
                path_put(parent);
                return -ENOTDIR;
            }
        }
    }
    return 0;
}

/* ---- the operations on names
 *
 * One function per system call, each holding every rule of its call
 * once; the filesystem is called (vnode_ in vfs.c) only after them, to
 * store. The permission checks of the authority issue go here too. */

static int creatable(uint32_t type)
{
    return type == S_IFREG || type == S_IFDIR || type == S_IFIFO || type == S_IFLNK ||
           type == S_IFCHR || type == S_IFBLK;
}

/* Is v, found by a lookup in dir, covered by an attachment of the
 * caller's namespace? Such a name cannot go away (EBUSY). */
static int covered(const struct path *dir, struct vnode *v)
{
    struct path p = { dir->mnt, v };

    return ns_name_busy(curproc()->ns, &p);
}

/* The directory of a name operation: the union member it works in
 * (ns_union_dir, `how`), and then its filesystem's turn for name
 * operations (fs_names_begin), which the caller ends with fs_names_end
 * once the checks and the change are done. */
static int names_dir(struct path *dir, const char *name, int how)
{
    int err = ns_union_dir(curproc()->ns, dir, name, how);

    return err < 0 ? err : fs_names_begin(dir->vn->fs);
}

/* create(): a new node of `type` with permission bits `perm` at (dirfd,
 * path), always exclusive: the name must be free. *out is its path. rdev
 * is the device of an S_IFCHR or S_IFBLK, symlink the target of an
 * S_IFLNK. The caller makes an fd of it, so a full fd table is refused
 * before anything is made. */
int vfs_create(int dirfd, const char *path, uint32_t type, uint32_t perm, uint32_t rdev,
               const char *symlink, struct path *out)
{
    uint32_t mode = type | (perm & 07777);
    char name[NAME_MAX + 1];
    struct path dir;
    struct vnode *v;
    int err;

    if (!creatable(type))
        return -EINVAL;
    if ((err = fd_room()) < 0)
        return err;
    if (!S_ISDIR(mode) && ends_in_slash(path))
        return -ENOTDIR;                /* "name/" can only be a directory */
    if ((err = vfs_walk_parent(dirfd, path, &dir, name)) < 0)
        return err;
    if ((err = names_dir(&dir, name, UNION_NEW)) < 0) {
        path_put(&dir);
        return err;
    }
    if ((err = fs_may_change(dir.vn)) == 0 && (err = ns_attr_check(&dir, BIND_RDONLY)) == 0 &&
        dir.vn->nlink == 0)
        err = -ENOENT;                  /* a removed directory takes no new names */
    if (err == 0)
        err = perm_create(curproc(), dir.vn, type);
    if (err == 0 &&
        (err = vnode_create(dir.vn, name, mode, S_ISCHR(mode) || S_ISBLK(mode) ? rdev : 0,
                            S_ISLNK(mode) ? symlink : NULL, &v)) == 0) {
        /* the maker's: stored if the filesystem gave it another owner, or
         * the name goes again - and the vnode keeps the owner it had: a
         * server may answer with a live node (its inode number), which
         * must not stay its would-be maker's */
        uint32_t uid = v->uid, gid = v->gid;
        if (perm_own(curproc(), v) && (err = vnode_setattr(v)) < 0) {
            v->uid = uid;
            v->gid = gid;
            vnode_put(v);
            vnode_unlink(dir.vn, name);
        } else {
            path_child(&dir, v, out);
        }
    }
    fs_names_end(dir.vn->fs);
    path_put(&dir);
    return err;
}

/* link(): a new name (dirfd, path) for the node fd names, in the same
 * filesystem; exclusive. Never for a directory: it has one name (and its
 * children's ".."), or a cycle could cut a tree loose. */
int vfs_link(int fd, int dirfd, const char *path)
{
    char name[NAME_MAX + 1];
    struct path dir;
    struct file *f;
    int err;

    if (!(f = fd_get(fd, &err)))
        return err;
    if (!S_ISDIR(f->path.vn->mode) && ends_in_slash(path))
        return -ENOTDIR;                /* "name/" can only name a directory, as in create */
    if ((err = vfs_walk_parent(dirfd, path, &dir, name)) < 0)
        return err;
    if ((err = names_dir(&dir, name, UNION_NEW)) < 0) {
        path_put(&dir);
        return err;
    }
    if (dir.vn->fs != f->path.vn->fs || (err = ns_attr_keeps(&f->path, &dir)) < 0)
        err = -EXDEV;
    else if ((err = fs_may_change(dir.vn)) < 0 || (err = ns_attr_check(&dir, BIND_RDONLY)) < 0)
        ;
    else if (S_ISDIR(f->path.vn->mode))
        err = -EPERM;                   /* no hard link to a directory */
    else if (dir.vn->nlink == 0)
        err = -ENOENT;                  /* a removed directory takes no new names */
    else if ((err = perm_dir_change(curproc(), dir.vn)) == 0)
        err = vnode_link(dir.vn, name, f->path.vn);
    fs_names_end(dir.vn->fs);
    path_put(&dir);
    return err;
}

/* unlink(): take the name (dirfd, path) away. A directory goes only with
 * UNLINK_DIR (and only when empty, which its filesystem knows), anything
 * else only without; a name something is attached on cannot go. */
int vfs_unlink(int dirfd, const char *path, int flags)
{
    char name[NAME_MAX + 1];
    struct path dir;
    struct vnode *v;
    int err;

    if (flags & ~UNLINK_DIR)
        return -EINVAL;
    if ((err = vfs_walk_parent(dirfd, path, &dir, name)) < 0)
        return err;
    if ((err = names_dir(&dir, name, UNION_OLD)) < 0) {
        path_put(&dir);
        return err;
    }
    if ((err = fs_may_change(dir.vn)) == 0 && (err = ns_attr_check(&dir, BIND_RDONLY)) == 0 &&
        (err = vnode_lookup(dir.vn, name, &v)) == 0) {
        /* as rename: a name that is not there is ENOENT, and one that is
         * covered EBUSY, before the directory's permission is asked */
        if (covered(&dir, v))
            err = -EBUSY;
        else if ((err = perm_dir_change(curproc(), dir.vn)) < 0 ||
                 (err = perm_sticky(curproc(), dir.vn, v)) < 0)
            ;
        else if (S_ISDIR(v->mode) && !(flags & UNLINK_DIR))
            err = -EISDIR;
        else if (!S_ISDIR(v->mode) && (flags & UNLINK_DIR))
            err = -ENOTDIR;
        else
            err = vnode_unlink(dir.vn, name);
        vnode_put(v);
    }
    fs_names_end(dir.vn->fs);
    path_put(&dir);
    return err;
}

/* May v, named in odir, take the place of victim (NULL: nothing there)
 * in ndir? 0, 1 when they are one node (nothing to do), or -errno. A
 * name something is attached on cannot go; a victim goes only without
 * RENAME_NOREPLACE, and only for a node of its own kind. */
static int may_replace(const struct path *odir, struct vnode *v, const struct path *ndir,
                       struct vnode *victim, int flags)
{
    struct proc *p = curproc();
    int err;

    if (covered(odir, v) || (victim && covered(ndir, victim)))
        return -EBUSY;
    if ((err = perm_dir_change(p, odir->vn)) < 0 || (err = perm_dir_change(p, ndir->vn)) < 0 ||
        (err = perm_sticky(p, odir->vn, v)) < 0 ||
        (victim && victim != v && (err = perm_sticky(p, ndir->vn, victim)) < 0))
        return err;
    if (ndir->vn->nlink == 0)
        return -ENOENT;                 /* a removed directory takes no new names */
    if (!victim)
        return 0;
    if (victim == v)
        return 1;
    if (flags & RENAME_NOREPLACE)
        return -EEXIST;
    if (S_ISDIR(victim->mode) != S_ISDIR(v->mode))
        return S_ISDIR(v->mode) ? -ENOTDIR : -EISDIR;
    return 0;
}

/* rename's own flag beside the user's: the new name ended in '/' */
#define RENAME_TO_DIR 0x40000000

/* rename's checks and its change (rename_in takes the turn for names). */
static int rename_checked(const struct path *odir, const char *oname, const struct path *ndir,
                          const char *nname, int flags)
{
    struct vnode *v, *victim;
    int err;

    if ((err = fs_may_change(odir->vn)) < 0 || (err = ns_attr_check(odir, BIND_RDONLY)) < 0 ||
        (err = ns_attr_check(ndir, BIND_RDONLY)) < 0 || (err = ns_attr_keeps(odir, ndir)) < 0 ||
        (err = vnode_lookup(odir->vn, oname, &v)) < 0)
        return err;
    if ((flags & RENAME_TO_DIR) && !S_ISDIR(v->mode)) {
        vnode_put(v);
        return -ENOTDIR;                /* "new/" names a directory: only one moves there */
    }
    if ((err = vnode_lookup(ndir->vn, nname, &victim)) == -ENOENT) {
        victim = NULL;                  /* nothing there: a plain move */
        err = 0;
    }
    if (err < 0) {
        vnode_put(v);
        return err;
    }
    if ((err = may_replace(odir, v, ndir, victim, flags)) == 0)
        err = vnode_rename(odir->vn, oname, ndir->vn, nname);
    vnode_put(victim);
    vnode_put(v);
    return err > 0 ? 0 : err;
}

/* rename's work between two resolved directories of one filesystem: its
 * checks and its change, in the filesystem's turn for names. */
static int rename_in(const struct path *odir, const char *oname, const struct path *ndir,
                     const char *nname, int flags)
{
    int err;

    if (odir->vn->fs != ndir->vn->fs)
        return -EXDEV;
    if ((err = fs_names_begin(odir->vn->fs)) < 0)
        return err;
    err = rename_checked(odir, oname, ndir, nname, flags);
    fs_names_end(odir->vn->fs);
    return err;
}

/* rename(): move the name (odirfd, old) to (ndirfd, new), replacing what
 * is there unless RENAME_NOREPLACE (rename_in has the rules). */
int vfs_rename(int odirfd, const char *old, int ndirfd, const char *new, int flags)
{
    char oname[NAME_MAX + 1], nname[NAME_MAX + 1];
    struct path odir, ndir;
    int err;

    if (flags & ~RENAME_NOREPLACE)
        return -EINVAL;
    if ((err = vfs_walk_parent(odirfd, old, &odir, oname)) < 0)
        return err;
    if (ends_in_slash(new))
        flags |= RENAME_TO_DIR;
    if ((err = vfs_walk_parent(ndirfd, new, &ndir, nname)) == 0) {
        struct namespace *ns = curproc()->ns;
        if ((err = ns_union_dir(ns, &odir, oname, UNION_OLD)) == 0 &&
            (err = ns_union_dir(ns, &ndir, nname, UNION_TARGET)) == 0)
            err = rename_in(&odir, oname, &ndir, nname, flags);
        path_put(&ndir);
    }
    path_put(&odir);
    return err;
}

/* readlink(): the target of the symlink (dirfd, path), not followed, into
 * buf (at most n bytes, no NUL); its length. */
int vfs_readlink(int dirfd, const char *path, char *buf, uint32_t n)
{
    struct path p;
    int err;

    if ((err = vfs_walk(dirfd, path, WALK_NOFOLLOW, &p)) < 0)
        return err;
    err = S_ISLNK(p.vn->mode) ? vnode_readlink(p.vn, buf, n) : -EINVAL;
    path_put(&p);
    return err;
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
    ns_drop_unused_roots(curproc()->ns);  /* the root or cwd given up */
    return 0;
}

/* fchroot() changes the namespace (ns_attach_root) as bind does, so it
 * needs what bind needs: a namespace the caller may change. */
int vfs_fchroot(int fd)
{
    int err = ns_may_change(curproc()->ns);

    return err ? err : set_dir(&curproc()->root, fd, 1);
}

int vfs_fchdir(int fd)
{
    return set_dir(&curproc()->cwd, fd, 0);
}

/* Find the name under which `child` (not an attachment root) appears in
 * directory `dir`: 0, -ENOENT if it is in none of its entries, or the
 * error that stopped the search (out of memory is not "not there"). */
static int name_in_dir(struct vnode *dir, struct vnode *child, char *name)
{
    uint32_t cookie = 0, ino, type;
    int err;

    while ((err = vnode_readdir(dir, &cookie, name, &ino, &type)) > 0) {
        struct vnode *v;
        int same;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || ino != child->ino)
            continue;
        if ((err = vnode_lookup(dir, name, &v)) == -ENOENT)
            continue;                   /* gone since readdir saw it */
        if (err < 0)
            return err;
        same = v == child || (v->fs == child->fs && v->ino == child->ino);
        vnode_put(v);
        if (same)
            return 0;
    }
    return err < 0 ? err : -ENOENT;
}

/* Write the name of p as seen from `root` (a process's root in ns) into
 * buf, the way getcwd() does: climb with "..", naming each step from its
 * parent, up to the root (or, when the root is a union, the root of any
 * of its members: ns_union_root). A path not below the root (a detached
 * fs, a dir outside a chroot) is prefixed with "?". Returns the length or
 * -ERANGE. */
int vfs_path_name(struct namespace *ns, const struct path *root, const struct path *p, char *buf,
                  size_t size)
{
    struct path cur;
    char *name, *tmp;
    int err = 0, steps;

    if (size < 2)
        return -ERANGE;
    name = kmalloc(NAME_MAX + 1);
    tmp = kmalloc(size);
    if (!name || !tmp) {
        kfree(name);
        kfree(tmp);
        return -ENOMEM;
    }
    buf[0] = '\0';
    path_copy(&cur, p);
    for (steps = 0;; steps++) {
        struct path up;
        size_t n;

        if (path_equal(&cur, root) || ns_union_root(ns, root, &cur))
            break;
        if ((err = fs_check(cur.vn)) < 0 || (err = walk_turn()) < 0)
            break;                      /* revoked: nothing to ask it; or killed */
        if (steps > PATH_MAX / 2) {
            err = -ELOOP;               /* a damaged filesystem whose ".." goes round */
            break;
        }
        if (ns_climb(&cur))             /* stepped onto a mountpoint */
            continue;
        if ((err = path_parent(&cur, &up)) == 0) {  /* the top of something not below our root */
            if (strlcpy(tmp, "?", size) >= size || strlcat(tmp, buf, size) >= size)
                err = -ERANGE;
            strlcpy(buf, tmp, size);
            break;
        }
        if (err < 0)
            break;
        err = 0;
        if (up.vn == cur.vn) {          /* ".." is itself below the fs root: damaged */
            path_put(&up);
            err = -EIO;
            break;
        }
        if ((err = name_in_dir(up.vn, cur.vn, name)) < 0) {
            path_put(&up);
            break;
        }
        n = snprintf(tmp, size, "/%s%s", name, buf);
        path_put(&cur);
        cur = up;
        if (n >= size) {
            err = -ERANGE;
            break;
        }
        strlcpy(buf, tmp, size);
    }
    path_put(&cur);
    if (!err && !buf[0])
        strlcpy(buf, "/", size);
    kfree(name);
    kfree(tmp);
    return err < 0 ? err : (int)strlen(buf);
}

int vfs_getcwd(char *buf, size_t size)
{
    return vfs_path_name(curproc()->ns, &curproc()->root, &curproc()->cwd, buf, size);
}

/* The name (dirfd, path) is given by, made absolute for display: the one
 * name a resolution records, for /proc and for what is made from its
 * result (an fd's file, an attachment of a non-directory, a filesystem's
 * source). Not cleaned up, and it may name something else tomorrow; a
 * relative path starts from the cwd's name or dirfd's own recorded name.
 * A kmalloc'd string of at most PATH_MAX bytes, or NULL without memory. */
char *vfs_display_name(int dirfd, const char *path)
{
    char *buf, *name;
    struct file *d;
    int err;

    if (path[0] == '/' && strnlen(path, PATH_MAX) < PATH_MAX)
        return kstrdup(path);           /* absolute: the name as it is, no buffer */
    if (!(buf = kmalloc(PATH_MAX)))
        return NULL;
    buf[0] = '\0';
    if (path[0] != '/') {
        if (dirfd == AT_CWD)
            vfs_getcwd(buf, PATH_MAX);
        else if ((d = fd_get(dirfd, &err)) && d->name)
            strlcpy(buf, d->name, PATH_MAX);
        if (buf[0] && strcmp(buf, "/") != 0)
            strlcat(buf, "/", PATH_MAX);
    }
    strlcat(buf, path, PATH_MAX);
    name = kstrdup(buf);
    kfree(buf);
    return name;
}
