/* path.c - paths: two of the three ways a path is made from another -
 * the root of a new filesystem, and the filesystem's own ".." (a lookup's
 * result below a directory, path_child, and the references a path holds,
 * path_get and path_put, are inline in vfs.h). The bottom of the VFS:
 * namei.c and namespace.c both build on it, and it asks the namespace only
 * for mount references and "is this the top of an attachment". */
#include "fs/vfs.h"
#include "include/uapi/errno.h"

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
