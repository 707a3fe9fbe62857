/* initrd.c - unpack the boot archive into the root ramfs, through the
 * same vnode operations create() uses: directories, files, symlinks. A
 * file's bytes are not copied: ramfs reads them in the archive, which the
 * kernel keeps (/dev/initrd), until the file is first written. */
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "lib/kprintf.h"
#include "lib/string.h"
#include "lib/ustar.h"

/* Find or make the directory `name` in dir; returns it with a reference. */
static int subdir(struct vnode *dir, const char *name, struct vnode **out)
{
    int err = vnode_lookup(dir, name, out);

    if (err == -ENOENT)
        err = vnode_create(dir, name, S_IFDIR | 0755, 0, NULL, out);
    if (err == 0 && !S_ISDIR((*out)->mode)) {
        vnode_put(*out);
        err = -ENOTDIR;
    }
    return err;
}

/* Create `path` (relative, '/'-separated) below root, making parents. */
static int unpack_one(struct vnode *root, const struct ustar_entry *e)
{
    char name[NAME_MAX + 1];
    const char *p = e->name, *slash;
    struct vnode *dir = root, *v;
    int err = 0;

    vnode_get(dir);
    while ((slash = strchr(p, '/')) && slash[1]) {
        struct vnode *next;
        size_t n = slash - p;
        if (n == 0 || n > NAME_MAX) {
            p = slash + 1;
            continue;
        }
        memcpy(name, p, n);
        name[n] = '\0';
        err = subdir(dir, name, &next);
        vnode_put(dir);
        if (err < 0)
            return err;
        dir = next;
        p = slash + 1;
    }
    strlcpy(name, p, sizeof(name));
    if (name[strlen(name) - 1] == '/')
        name[strlen(name) - 1] = '\0';
    if (!name[0] || strcmp(name, ".") == 0) {
        vnode_put(dir);
        return 0;
    }
    if (e->type == '5') {
        err = subdir(dir, name, &v);
    } else if (e->type == '2') {
        err = vnode_create(dir, name, S_IFLNK | 0777, 0, e->link, &v);
    } else if (e->type == '0') {
        err = vnode_create(dir, name, S_IFREG | (e->mode & 0777), 0, NULL, &v);
        if (err == 0 && e->size)
            err = ramfs_borrow(v, e->data, e->size); /* read in place, not copied */
    } else {
        vnode_put(dir);
        return 0;                       /* other kinds: skipped */
    }
    if (err == 0)
        vnode_put(v);
    vnode_put(dir);
    return err;
}

int initrd_unpack(struct vnode *root, const void *tar, size_t size)
{
    struct ustar_entry e;
    size_t off = 0;
    int r, n = 0;

    while ((r = ustar_next(tar, size, &off, &e)) > 0) {
        if ((r = unpack_one(root, &e)) < 0) {
            kprintf("initrd: %s: error %d\n", e.name, r);
            return r;
        }
        n++;
    }
    if (r < 0)
        kprintf("initrd: damaged archive at byte %u\n", (unsigned)off);
    return r < 0 ? -EINVAL : n;
}
