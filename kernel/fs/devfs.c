/* devfs.c - /dev. A devfs instance is a ramfs filled with one device node
 * per device: walking to a node never touches the device; ready() runs
 * its open routine (dev.h), so /dev/hd3 with no disk walks and fstats
 * fine and fails ready() with -ENXIO. */
#include "dev/dev.h"
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "include/array_size.h"

static const struct {
    const char *name;
    uint32_t mode;
    uint32_t rdev;
} devnodes[] = {
    { "console", S_IFCHR | 0666, MKDEV(DEV_CONSOLE, 0) },
    { "null", S_IFCHR | 0666, MKDEV(DEV_MEM, 0) },
    { "zero", S_IFCHR | 0666, MKDEV(DEV_MEM, 1) },
    { "hd0", S_IFBLK | 0660, MKDEV(DEV_ATA, 0) },
    { "hd1", S_IFBLK | 0660, MKDEV(DEV_ATA, 1) },
    { "hd2", S_IFBLK | 0660, MKDEV(DEV_ATA, 2) },
    { "hd3", S_IFBLK | 0660, MKDEV(DEV_ATA, 3) },
    { "rd0", S_IFBLK | 0440, MKDEV(DEV_RAMDISK, 0) },
};

static int devfs_mount(struct fs *fs, struct file *src, const char *opts)
{
    unsigned i;
    int err;

    if ((err = ramfs_mount(fs, src, opts)) < 0)
        return err;
    for (i = 0; i < ARRAY_SIZE(devnodes); i++) {
        struct vnode *v;
        err =
            vnode_create(fs->root, devnodes[i].name, devnodes[i].mode, devnodes[i].rdev, NULL, &v);
        if (err < 0) {
            ramfs_release(fs);
            return err;
        }
        vnode_put(v);
    }
    return 0;
}

const struct fs_type devfs_type = {
    .name = "devfs",
    .mount = devfs_mount,
    .release = ramfs_release,
};
