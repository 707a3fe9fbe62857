/* rootfs.c - the first namespace. The boot archive is unpacked into a
 * fresh ramfs, which becomes the root; devfs and procfs are made and
 * attached at /dev and /proc with fs_new + ns_bind, exactly the work the
 * fsopen() and bind() system calls do for a user. */
#include "boot.h"
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "lib/kprintf.h"
#include "lib/string.h"
#include "mm/page.h"
#include "proc/proc.h"

/* The filesystem init runs from. It holds /bin/sh, so revoke refuses it
 * (EBUSY) for everyone: init could give the console no shell without it
 * (doc/decisions.md). Set once, at boot; init never changes its root. */
static struct fs *boot_root;            /* set once at boot */

struct fs *vfs_boot_root(void)
{
    return boot_root;
}

/* fsopen(type) + bind(fd, "/where"), for the boot path. */
static int boot_mount(struct proc *p, const char *type, const char *where)
{
    struct path root, at;
    struct fs *fs;
    int err;

    if ((err = fs_new(type, NULL, "", &fs)) < 0)
        return err;
    path_root(fs, &root);
    fs_put(fs);                         /* the path holds it now */
    if ((err = vfs_walk_from(p, AT_CWD, where, 0, &at)) == 0) {
        err = ns_bind(p->ns, &root, &at, NULL, 0);
        path_put(&at);
    }
    path_put(&root);
    return err;
}

static int ensure_dir(struct vnode *root, const char *name)
{
    struct vnode *v;
    int err = vnode_lookup(root, name, &v);

    if (err == -ENOENT)
        err = vnode_create(root, name, S_IFDIR | 0755, 0, NULL, &v);
    if (err == 0)
        vnode_put(v);
    return err;
}

int vfs_boot_namespace(struct proc *p)
{
    struct fs *rootfs;
    struct path root;
    int err, n;

    if ((err = fs_new("ramfs", NULL, "", &rootfs)) < 0)
        return err;
    rootfs->source_name = kstrdup("initrd");  /* for /proc/<pid>/ns; NULL shows "-" */
    if (initrd_size) {
        if ((n = initrd_unpack(rootfs->root, initrd_start, initrd_size)) < 0)
            kprintf("initrd: could not unpack the boot archive (error %d)\n", n);
        else
            kprintf("initrd: %d entries unpacked\n", n);
    } else {
        kprintf("initrd: no boot archive was loaded\n");
    }
    if ((err = ensure_dir(rootfs->root, "dev")) < 0 ||
        (err = ensure_dir(rootfs->root, "proc")) < 0 ||
        (err = ensure_dir(rootfs->root, "tmp")) < 0 || (err = ensure_dir(rootfs->root, "mnt")) < 0)
        return err;
    if (!(p->ns = ns_create(rootfs->root)))
        return -ENOMEM;
    boot_root = rootfs;
    fs_put(rootfs);                     /* the namespace holds it now */
    root.mnt = ns_root_mount(p->ns);
    root.vn = root.mnt ? rootfs->root : NULL;
    path_copy(&p->root, &root);
    path_copy(&p->cwd, &root);
    if ((err = boot_mount(p, "devfs", "/dev")) < 0 || (err = boot_mount(p, "procfs", "/proc")) < 0)
        return err;
    return 0;
}
