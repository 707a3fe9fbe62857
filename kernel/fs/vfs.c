/* vfs.c - vnodes and filesystem instances: allocation, reference counts,
 * the registry of filesystem types, and fs_new() (the body of fsopen).
 * A filesystem instance is made here and attached nowhere: attaching is
 * namespace.c's business. That separation is the point of Orthos. */
#include "dev/dev.h"
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "lib/kprintf.h"
#include "lib/string.h"
#include "mm/page.h"
#include "proc/proc.h"

#define NFSTYPES     8
#define MAX_FS_DEPTH 4                  /* filesystems from images inside images */

static const struct fs_type *fs_types[NFSTYPES]; /* filled at boot (vfs_init), read-only after */
/* Both changed only by system calls (fsopen, a last fs_put), never by an
 * interrupt, and none sleeps while it changes them (one CPU, no kernel
 * preemption: doc/decisions.md). */
static int next_fs_id = 1;
static struct fs *live_fs; /* every instance, for sync() */
/* Instances whose type is still making them (fs_new, in t->mount): not
 * live yet (sync must not touch them), but their sources are taken. */
static struct fs *making_fs;

/* Take fs off the list *pp starts. */
static void fs_unlist(struct fs **pp, struct fs *fs)
{
    for (; *pp; pp = &(*pp)->next) {
        if (*pp == fs) {
            *pp = fs->next;
            return;
        }
    }
}

extern const struct fs_type ramfs_type, devfs_type, procfs_type, ext2_type, srv_type;

void register_fs_type(const struct fs_type *t)
{
    int i;

    for (i = 0; i < NFSTYPES; i++) {
        if (!fs_types[i]) {
            fs_types[i] = t;
            return;
        }
    }
    panic("register_fs_type: table full");
}

void vfs_init(void)
{
    register_fs_type(&ramfs_type);
    register_fs_type(&devfs_type);
    register_fs_type(&procfs_type);
    register_fs_type(&ext2_type);
    register_fs_type(&srv_type); /* served by a user process: srvfs.c, doc/srv.md */
}

/* A new vnode with one reference; `priv` bytes of the filesystem's own
 * data (zeroed) follow it in the same block, at v->priv, and go with it
 * (ramfs keeps its node there: one allocation per file). */
struct vnode *vnode_alloc(struct fs *fs, uint32_t mode, const struct vnode_ops *ops, size_t priv)
{
    struct vnode *v = kzalloc(sizeof(*v) + priv);

    if (!v)
        return NULL;
    if (priv)
        v->priv = v + 1;
    v->mode = mode;
    v->refs = 1;
    v->fs = fs;
    v->ops = ops;
    v->nlink = 1;
    return v;
}

/* The last reference to v went (vnode_put): the filesystem decides what
 * that means (ramfs keeps linked nodes, ext2 writes the inode back and
 * forgets it). */
void vnode_release(struct vnode *v)
{
    if (v->pipe) {
        pipe_free(v->pipe);
        v->pipe = NULL;
    }
    if (v->ops && v->ops->inactive)
        v->ops->inactive(v);
    else
        kfree(v);
}

/* The last reference (fs_put): off the list of live instances at once,
 * before anything that may sleep (so that sync(2) and fsopen never find,
 * and never take, a dying instance), then sync, let the type free its
 * state, drop the source. */
void fs_release(struct fs *fs)
{
    fs_unlist(&live_fs, fs);
    if (!fs->revoked && fs->type->sync)
        fs->type->sync(fs);
    if (fs->type->release)
        fs->type->release(fs);
    if (fs->source)
        file_put(fs->source);
    kfree(fs->source_name);
    kfree(fs);
}

/* The name fs was made from, for messages and /proc/<pid>/ns: the name its
 * source was walked by (its kind if it had none: "chan"), "-" for no source. */
const char *fs_source_name(const struct fs *fs)
{
    return fs->source_name ? fs->source_name : "-";
}

/* ---- calling the filesystem
 *
 * The one place a vnode's operations are called. Two answers are given
 * here for every operation: -EIO once the instance is revoked (after
 * revoke() no filesystem code runs for it again, only inactive and
 * release), and NO_OP for an operation the filesystem does not implement
 * (doc/man/intro.2.md). Every other rule - types, read-only, attachments,
 * permissions - is the vfs_ function's of the system call (namei.c,
 * file.c, namespace.c); the boot code (rootfs.c, initrd.c), building its
 * own root before there is anyone to refuse, calls these directly. */
#define NO_OP (-EPERM)

/* 0 if v's filesystem may be called for an operation it does or (when
 * `implemented` is 0) does not have. */
static int callable(struct vnode *v, int implemented)
{
    int err = fs_check(v);

    return err ? err : implemented ? 0 : NO_OP;
}

int vnode_lookup(struct vnode *dir, const char *name, struct vnode **out)
{
    int err = callable(dir, dir->ops->lookup != NULL);

    return err ? err : dir->ops->lookup(dir, name, out);
}

int vnode_create(struct vnode *dir, const char *name, uint32_t mode, uint32_t rdev,
                 const char *symlink, struct vnode **out)
{
    int err = callable(dir, dir->ops->create != NULL);

    return err ? err : dir->ops->create(dir, name, mode, rdev, symlink, out);
}

int vnode_link(struct vnode *dir, const char *name, struct vnode *v)
{
    int err = callable(dir, dir->ops->link != NULL);

    return err ? err : dir->ops->link(dir, name, v);
}

int vnode_unlink(struct vnode *dir, const char *name)
{
    int err = callable(dir, dir->ops->unlink != NULL);

    return err ? err : dir->ops->unlink(dir, name);
}

/* Name operations (create, link, unlink, rename) on one filesystem take
 * turns, from their first check to their change: a filesystem may sleep
 * in between (ext2 waits for its turn in the instance), and another
 * process's change of a name meanwhile made the checks stale - a rename
 * with RENAME_NOREPLACE replaced a name made meanwhile, a file replaced a
 * directory, a new entry went into a directory removed meanwhile.
 * Lookups need no turn. A wait for one's turn ends with a kill. */
int fs_names_begin(struct fs *fs)
{
    return turn_take(&fs->naming);
}

void fs_names_end(struct fs *fs)
{
    turn_give(&fs->naming);
}

int vnode_rename(struct vnode *odir, const char *oname, struct vnode *ndir, const char *nname)
{
    int err = callable(odir, odir->ops->rename != NULL);

    return err ? err : odir->ops->rename(odir, oname, ndir, nname);
}

int vnode_read(struct vnode *v, void *buf, uint32_t off, uint32_t n)
{
    int err = callable(v, v->ops->read != NULL);

    return err ? err : v->ops->read(v, buf, off, n);
}

int vnode_write(struct vnode *v, const void *buf, uint32_t off, uint32_t n)
{
    int err = callable(v, v->ops->write != NULL);

    return err ? err : v->ops->write(v, buf, off, n);
}

int vnode_truncate(struct vnode *v, uint32_t len)
{
    int err = callable(v, v->ops->truncate != NULL);

    return err ? err : v->ops->truncate(v, len);
}

int vnode_readdir(struct vnode *dir, uint32_t *cookie, char *name, uint32_t *ino, uint32_t *type)
{
    int err = callable(dir, dir->ops->readdir != NULL);

    return err ? err : dir->ops->readdir(dir, cookie, name, ino, type);
}

int vnode_readlink(struct vnode *v, char *buf, uint32_t n)
{
    int err = callable(v, v->ops->readlink != NULL);

    return err ? err : v->ops->readlink(v, buf, n);
}

/* setattr of a filesystem whose vnodes are all the storage a node has
 * (ramfs, a channel's ends): the mode, uid and gid are already in the
 * vnode. */
int vnode_keeps_attrs(struct vnode *v)
{
    (void)v;
    return 0;
}

/* Store v's mode, uid and gid (perm.c). A filesystem that cannot keep
 * them (procfs makes its nodes afresh; srv's protocol has no message for
 * them) has no setattr: NO_OP. */
int vnode_setattr(struct vnode *v)
{
    int err = callable(v, v->ops->setattr != NULL);

    return err ? err : v->ops->setattr(v);
}

/* Do a and b hold the same bytes? One vnode; or two block device nodes
 * of one device (any devfs's hd1, a node made with create(S_IFBLK)); or
 * one file reached twice (its filesystem and inode number). */
static int same_storage(const struct vnode *a, const struct vnode *b)
{
    if (a == b)
        return 1;
    if (S_ISBLK(a->mode) && S_ISBLK(b->mode))
        return a->rdev == b->rdev;
    return S_ISREG(a->mode) && S_ISREG(b->mode) && a->fs == b->fs && a->ino == b->ino;
}

/* Is v the disk or image a live instance is made of? Then that instance
 * alone may change it: a second instance would wreck it (fsopen: EBUSY),
 * and so would a user writing an image file under it (file_write,
 * ftruncate: EBUSY), past every check ext2 made when it looked (the
 * instance writes through its own file_write_at). */
int fs_is_source(const struct vnode *v)
{
    struct fs *lists[] = { live_fs, making_fs }, *fs;
    int i;

    for (i = 0; i < 2; i++)
        for (fs = lists[i]; fs; fs = fs->next)
            if (fs->source && !fs->revoked && same_storage(fs->source->path.vn, v))
                return 1;
    return 0;
}

/* fsopen(): make a filesystem of `type` from `src` (may be NULL). On
 * success *out holds one reference, for the caller's fd. */
int fs_new(const char *type, struct file *src, const char *opts, struct fs **out)
{
    const struct fs_type *t = NULL;
    struct fs *fs;
    int i, err;

    for (i = 0; i < NFSTYPES; i++)
        if (fs_types[i] && strcmp(fs_types[i]->name, type) == 0)
            t = fs_types[i];
    if (!t)
        return -ENODEV;
    if (src && fs_is_source(src->path.vn))
        return -EBUSY; /* two instances writing one disk would wreck it */
    /* A served file's I/O waits for as long as its server likes, and a
     * filesystem holds its instance across its source's I/O (ext2's
     * fs_enter, a wait no kill ends): anyone's sync(2), poweroff's too,
     * would wait on a user's server. No filesystem is made of one. */
    if (src && src->path.vn->fs->type == &srv_type)
        return -ENOTBLK;
    /* An image in an image in ...: each level is a kernel stack frame chain
     * on every read. */
    if (src && src->path.vn->fs->depth >= MAX_FS_DEPTH)
        return -ELOOP;
    if (!(fs = kzalloc(sizeof(*fs))))
        return -ENOMEM;
    fs->type = t;
    fs->refs = 1;
    fs->depth = src ? src->path.vn->fs->depth + 1 : 0;
    fs->id = next_fs_id++;
    /* A source not readied for writing gives a read-only instance: fsopen
     * can do no more with a device than its caller could (authority). */
    fs->readonly = opt_has(opts, "ro") || (src && !(src->access & FA_WRITE));
    fs->owner = curproc() ? curproc()->uid : 0;     /* who may revoke it */
    if (src) {
        file_get(src);
        fs->source = src;
        /* a user's file name, printed for others (the console, /proc/<pid>/ns) */
        if ((fs->source_name = kstrdup(src->name ? src->name : file_kind(src))))
            str_printable(fs->source_name);
    }
    /* A mount may sleep on the disk (ext2 reads the whole image to check
     * it): meanwhile its source is taken, for fsopen and for writers. */
    fs->next = making_fs;
    making_fs = fs;
    err = t->mount(fs, src, opts ? opts : "");
    fs_unlist(&making_fs, fs);
    if (err < 0) {
        if (fs->source)
            file_put(fs->source);
        kfree(fs->source_name);
        kfree(fs);
        return err;
    }
    if (!src)
        perm_own(curproc(), fs->root); /* made from nothing: its maker's, to fill */
    fs->next = live_fs;
    live_fs = fs;
    *out = fs;
    return 0;
}

/* fsopen(): a new instance of `type` made from the file srcfd names (-1:
 * from nothing), attached nowhere; *out is its root, a path that holds
 * the instance. The source must be readied for reading, and be a regular
 * file (an image) or a block device. The caller makes an fd of *out, so a
 * full fd table is refused before the instance is made. Lab 03. */
int vfs_fsopen(const char *type, int srcfd, const char *opts, struct path *out)
{
    /* LAB 03: BEGIN */
    struct file *src = NULL;
    struct fs *fs;
    int err;

    if (srcfd != -1) {
        if (!(src = fd_get(srcfd, &err)))
            return err;
        if (!(src->access & FA_READ))
            return -EBADF; /* ready() the source first */
        if (!S_ISREG(src->path.vn->mode) && !S_ISBLK(src->path.vn->mode))
            return -ENOTBLK;
    }
    if ((err = fd_room()) < 0 || (err = fs_new(type, src, opts, &fs)) < 0)
        return err;
    path_root(fs, out);
    fs_put(fs); /* the path holds it now */
    return 0;
    /* LAB 03: END */
}

/* revoke(): force off the filesystem the node fd names is in (fs_revoke),
 * if the caller may (fs_may_revoke). */
int vfs_revoke(int fd)
{
    struct file *f;
    int err;

    if (!(f = fd_get(fd, &err)))
        return err;
    if ((err = fs_may_revoke(f->path.vn->fs)) < 0)
        return err;
    f->path.vn->fs->closing = 1; /* fs_revoke's sync is its last */
    if ((err = fs_revoke(f->path.vn->fs)) < 0)
        f->path.vn->fs->closing = 0;
    return err;
}

/* May the caller revoke fs? Root may; anyone else only an instance it
 * made itself (fsopen) that is attached in no namespace it does not own,
 * nor holds something attached in one: a user's revoke must change
 * nothing another user sees. So init's root and the boot namespace's
 * /dev, made by the kernel for root, are root's to revoke. 0 or -EPERM.
 * Lab 07. */
int fs_may_revoke(struct fs *fs)
{
    /* LAB 07: BEGIN (stub:
    (void)fs;
    return 0;                           // anyone may revoke anything
    ) */
    uint32_t uid = curproc()->uid;

    if (uid == 0)
        return 0;
    if (fs->owner != uid || ns_attached_beyond(fs, uid))
        return -EPERM;
    return 0;
    /* LAB 07: END */
}

/* Forced unmount of fs, attached or not: sync it, mark it revoked (every
 * other fd on it then fails with -EIO: the vnode_ calls and fs_check
 * refuse), detach it from every namespace, wake every sleeper (a reader
 * of one of its FIFOs must see -EIO) and let go of its source, so the
 * device is free at once. The instance itself lives on until its last
 * reference goes. Never for a pipe, the caller's own root or init's root
 * (-EBUSY). Lab 04. */
int fs_revoke(struct fs *fs)
{
    /* LAB 04: BEGIN */
    if (fs->revoked)
        return -EIO;
    if (!fs->type->mount || fs == curproc()->root.vn->fs || fs == vfs_boot_root())
        return -EBUSY; /* pipes, the caller's own root, init's root */
    if (fs->type->sync)
        fs->type->sync(fs);
    fs->revoked = 1;
    ns_detach_fs(fs);
    wakeup_all(); /* sleepers on its FIFOs must see -EIO */
    if (fs->source) {
        file_put(fs->source); /* the device is free again */
        fs->source = NULL;
    }
    return 0;
    /* LAB 04: END */
}

/* sync(2): write back every live filesystem, then whatever the devices
 * still cache (raw writes to /dev/hdN included). A sync may sleep (ext2
 * waits for its turn), and meanwhile an instance may lose its last user:
 * each is held while it syncs, and the next one is taken before it is
 * let go (an instance we hold stays on the list, so its next is live). */
void vfs_sync_all(void)
{
    struct fs *fs = live_fs, *next;

    if (fs)
        fs_get(fs);
    for (; fs; fs = next) {
        if (!fs->revoked && fs->type->sync)
            fs->type->sync(fs);
        if ((next = fs->next))
            fs_get(next);
        fs_put(fs);
    }
    dev_sync_all();
}

/* poweroff(2): sync(2), each instance's sync its last (fs->closing): ext2
 * leaves its image clean, as an unmount would, and writes no more. */
void vfs_sync_last(void)
{
    struct fs *fs;

    for (fs = live_fs; fs; fs = fs->next)
        fs->closing = 1;
    vfs_sync_all();
}

/* Is `word` one of the comma-separated options in `opts`? */
int opt_has(const char *opts, const char *word)
{
    size_t n = strlen(word);

    while (opts && *opts) {
        if (strncmp(opts, word, n) == 0 && (opts[n] == ',' || opts[n] == '\0'))
            return 1;
        opts = strchr(opts, ',');
        if (opts)
            opts++;
    }
    return 0;
}

int vnode_type_dt(uint32_t mode)
{
    switch (mode & S_IFMT) {
    case S_IFDIR: return DT_DIR;
    case S_IFREG: return DT_REG;
    case S_IFLNK: return DT_LNK;
    case S_IFIFO: return DT_FIFO;
    case S_IFCHR: return DT_CHR;
    case S_IFBLK: return DT_BLK;
    }
    return DT_UNKNOWN;
}
