/* path.h - a place in a namespace: a vnode *as reached through* an
 * attachment (Linux's {vfsmount, dentry}, Plan 9's channel and its mount).
 * The bottom of the VFS: a process's root and cwd, every open file and
 * every step of name resolution hold one. A path holds a reference on its
 * vnode, on the vnode's filesystem and on its mount (path_get/path_put). */
#ifndef FS_PATH_H
#define FS_PATH_H

struct fs;
struct mount;
struct vnode;

/* mnt is NULL when the vnode was reached through a filesystem attached
 * nowhere (an fsopen fd); `..` and attachment crossing need both. */
struct path {
    struct mount *mnt;
    struct vnode *vn;
};

/* path_get, path_put, path_copy, path_equal and path_child are inline,
 * in vfs.h (they need the vnode's, filesystem's and mount's counts). */
void path_root(struct fs *fs, struct path *out);
int path_parent(const struct path *p, struct path *up);

#endif
