/* namei.c - turning names into paths. Resolution walks one component at a
 * time from a starting point (the root for "/...", the cwd for AT_CWD, or
 * any directory fd), crossing attachments on the way down (ns_cross) and
 * up (ns_dotdot), following symlinks up to MAXSYMLINKS deep. "..": never
 * above the process root. WALK_BENEATH: never above the starting dir. */
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "mm/page.h"
#include "proc/proc.h"

#define MAXSYMLINKS 8

struct walker {
    struct namespace *ns;
    const struct path *root;    /* the process root: ".." stops here */
    int flags;
    int links;                  /* symlinks followed so far */
    int depth;                  /* WALK_BENEATH: components below the start */
};

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

static int resolve(struct walker *w, struct path *cur, const char *path, int follow_last);

/* cur is a symlink reached from directory `dir`: continue from dir along
 * the link's target. On success cur holds the result. */
static int follow_link(struct walker *w, struct path *dir, struct path *cur)
{
    char *target;
    int n;

    if (++w->links > MAXSYMLINKS)
        return -ELOOP;
    if (!cur->vn->ops->readlink)
        return -EINVAL;
    if (!(target = kmalloc(PATH_MAX)))
        return -ENOMEM;
    n = cur->vn->ops->readlink(cur->vn, target, PATH_MAX - 1);
    if (n < 0) {
        kfree(target);
        return n;
    }
    target[n] = '\0';
    path_put(cur);
    *cur = *dir;                        /* hand over dir's reference */
    dir->vn = NULL;
    n = resolve(w, cur, target, 1);
    kfree(target);
    return n;
}

/* Walk `path` from *cur (which we own and update). */
static int resolve(struct walker *w, struct path *cur, const char *path, int follow_last)
{
    char name[NAME_MAX + 1];
    int more, err;

    if (path[0] == '/') {
        if (w->flags & WALK_BENEATH)
            return -EXDEV;
        path_put(cur);
        path_copy(cur, w->root);
        w->depth = 0;
    }
    while ((more = next_component(&path, name)) > 0) {
        struct path next;
        struct vnode *child;
        int last = *path == '\0';

        if (!S_ISDIR(cur->vn->mode))
            return -ENOTDIR;
        if ((err = fs_check(cur->vn)) < 0)
            return err;
        if (strcmp(name, ".") == 0)
            continue;
        if (strcmp(name, "..") == 0) {
            if ((w->flags & WALK_BENEATH) && w->depth == 0)
                return -EXDEV;
            if ((err = ns_dotdot(w->ns, w->root, cur)) < 0)
                return err;
            if (w->depth > 0)
                w->depth--;
            continue;
        }
        if (!cur->vn->ops->lookup)
            return -ENOTDIR;
        if ((err = cur->vn->ops->lookup(cur->vn, name, &child)) < 0)
            return err;
        path_child(cur, child, &next);
        ns_cross(w->ns, &next);
        if (S_ISLNK(next.vn->mode) && (!last || follow_last)) {
            err = follow_link(w, cur, &next);
            if (err < 0) {
                path_put(&next);
                return err;
            }
            *cur = next;                /* cur's reference went to follow_link */
            continue;
        }
        path_put(cur);
        *cur = next;
        w->depth++;
    }
    return more;                        /* 0, or -ENAMETOOLONG */
}

/* Resolve (dirfd, path) for process p to a path with a reference. The
 * result is never on a revoked filesystem: resolve checks each directory
 * it passes through, and the end is checked here (a path with no
 * component, like "/", passes through none). */
int vfs_walk_from(struct proc *p, int dirfd, const char *path, int flags, struct path *out)
{
    struct walker w = { p->ns, &p->root, flags, 0, 0 };
    int err;

    if (!path[0])
        return -ENOENT;
    if ((err = walk_start(p, dirfd, path, out)) < 0)
        return err;
    if ((err = resolve(&w, out, path, !(flags & WALK_NOFOLLOW))) == 0)
        err = fs_check(out->vn);
    if (err == 0 && path[strlen(path) - 1] == '/' && !S_ISDIR(out->vn->mode))
        err = -ENOTDIR;                 /* "file/" names a directory or nothing */
    if (err < 0)
        path_put(out);
    return err;
}

/* The body of walk(): resolve for the calling process. */
int vfs_walk(int dirfd, const char *path, int flags, struct path *out)
{
    return vfs_walk_from(curproc(), dirfd, path, flags, out);
}

/* Resolve all but the last component: for create, link, unlink, rename.
 * `name` (NAME_MAX + 1 bytes) gets the last component, which may not be
 * "." or "..". */
int vfs_walk_parent(int dirfd, const char *path, struct path *parent, char *name)
{
    size_t len = strlen(path), i;
    char *dir;
    int err;

    while (len > 1 && path[len - 1] == '/')
        len--;
    for (i = len; i > 0 && path[i - 1] != '/'; i--)
        ;
    if (len - i == 0 || len - i > NAME_MAX)
        return len - i ? -ENAMETOOLONG : -EINVAL;
    memcpy(name, path + i, len - i);
    name[len - i] = '\0';
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return -EINVAL;
    if (!(dir = kmalloc(i + 2)))
        return -ENOMEM;
    if (i == 0)
        strlcpy(dir, ".", 2);
    else
        strlcpy(dir, path, i + 1);
    err = vfs_walk(dirfd, dir, 0, parent);
    kfree(dir);
    if (err == 0 && !S_ISDIR(parent->vn->mode)) {
        path_put(parent);
        return -ENOTDIR;
    }
    if (err == 0 && len < strlen(path)) {   /* "name/": only a directory, or nothing yet */
        struct vnode *v;
        if (parent->vn->ops->lookup(parent->vn, name, &v) == 0) {
            int dir_ok = S_ISDIR(v->mode);  /* the last name is never followed: a */
            vnode_put(v);                   /* symlink to a directory is no directory */
            if (!dir_ok) {
                path_put(parent);
                return -ENOTDIR;
            }
        }
    }
    return err;
}

/* Find the name under which `child` (not an attachment root) appears in
 * directory `dir`. */
static int name_in_dir(struct vnode *dir, struct vnode *child, char *name)
{
    uint32_t cookie = 0, ino, type;

    if (!dir->ops->readdir)
        return -ENOENT;
    while (dir->ops->readdir(dir, &cookie, name, &ino, &type) > 0) {
        struct vnode *v;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        if (ino == child->ino && dir->ops->lookup(dir, name, &v) == 0) {
            int same = v == child || (v->fs == child->fs && v->ino == child->ino);
            vnode_put(v);
            if (same)
                return 0;
        }
    }
    return -ENOENT;
}

/* Write the name of p as seen from the caller's root into buf, the way
 * getcwd() does: climb with "..", naming each step from its parent. A path
 * not below the root (a detached fs, a dir outside a chroot) is prefixed
 * with "?". Returns the length or -ERANGE. */
int vfs_path_name(const struct path *p, char *buf, size_t size)
{
    struct proc *proc = curproc();
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

        if (proc && path_equal(&cur, &proc->root))
            break;
        if ((err = fs_check(cur.vn)) < 0)
            break;                      /* revoked: nothing to ask it */
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
    return vfs_path_name(&curproc()->cwd, buf, size);
}
