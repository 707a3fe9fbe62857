/* path.c - paths: the references a path holds, and the three ways a path
 * is made from another - a lookup's result below a directory, the root of
 * a new filesystem, and the filesystem's own "..". The bottom of the VFS:
 * namei.c and namespace.c both build on it, and it asks the namespace only
 * for mount references and "is this the top of an attachment". */
#include "fs/vfs.h"
#include "include/uapi/errno.h"

void path_get(const struct path *p)
{
    vnode_get(p->vn);
    fs_get(p->vn->fs);
    if (p->mnt)
        mount_get(p->mnt);
}

void path_put(struct path *p)
{
    struct fs *fs;

    if (!p->vn)
        return;
    fs = p->vn->fs;
    if (p->mnt)
        mount_put(p->mnt);
    vnode_put(p->vn);
    fs_put(fs);
    p->vn = NULL;
    p->mnt = NULL;
}

void path_copy(struct path *dst, const struct path *src)
{
    *dst = *src;
    path_get(dst);
}

int path_equal(const struct path *a, const struct path *b)
{
    return a->vn == b->vn && a->mnt == b->mnt;
}

/* The path of v, a lookup's result in directory `dir`: the same
 * attachment, and v's reference (the one the lookup gave) handed over. */
void path_child(const struct path *dir, struct vnode *v, struct path *out)
{
    out->mnt = dir->mnt;
    out->vn = v;
    fs_get(v->fs);
    if (out->mnt)
        mount_get(out->mnt);
}

/* The root of fs as a path attached nowhere (what fsopen hands back),
 * with a reference of its own: the caller may drop its own on fs. */
void path_root(struct fs *fs, struct path *out)
{
    out->mnt = NULL;
    out->vn = fs->root;
    path_get(out);
}

/* ".." inside p's filesystem, the one rule both name resolution
 * (ns_dotdot) and naming (vfs_path_name) climb by: 1 and *up (a new
 * reference, in the same attachment), or 0 when p is a top that ".." stays
 * at - the root of a namespace or of a detached tree, a filesystem's root
 * reached through an fd - or -errno. p must not be the root of an
 * attachment with a parent: stepping out of attachments (ns_climb) comes
 * first. */
int path_parent(const struct path *p, struct path *up)
{
    struct vnode *v;
    int err;

    if (ns_is_top(p) || p->vn == p->vn->fs->root)
        return 0;
    if ((err = vnode_lookup(p->vn, "..", &v)) < 0)
        return err;
    path_child(p, v, up);
    return 1;
}
