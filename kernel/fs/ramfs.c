/* ramfs.c - a filesystem that lives only in memory (the root from the
 * boot archive, /tmp, anything fsopen("ramfs") makes). Each directory is a
 * linked list of entries; each regular file or symlink keeps its bytes in
 * one kmalloc'd buffer that grows by doubling, or, for the files of the
 * boot archive, in the archive itself until the first write (ramfs_borrow).
 * A node lives while it has a name (nlink) or a reference; the whole tree
 * goes when the fs does. */
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "lib/string.h"
#include "mm/page.h"
#include "dev/rtc.h"
#include "proc/proc.h"

#define RAMFS_MAX_FILE (16u << 20)
#define FIRST_PLACE    3            /* readdir's cookies: 0 ".", 1 "..", 2 the list's head */

struct ramfs_dirent {
    struct vnode *v;
    struct ramfs_dirent *next;
    uint32_t place;                 /* readdir's cookie for it: see ramfs_readdir */
    char name[];                    /* in the same block: one kmalloc per entry */
};

struct ramfs_node {
    struct vnode *parent;           /* directories: for ".."; holds a reference */
    struct ramfs_dirent *entries;   /* directories: the newest first */
    uint32_t next_place;            /* the place the next entry gets */
    /* Where the last readdir stopped: the cookie `cursor_at` is followed
     * by `cursor` (NULL: the end). Removing an entry forgets it
     * (cursor_at 0), so a reader going through the list takes one step
     * per entry, not a walk from the head for each. */
    struct ramfs_dirent *cursor;
    uint32_t cursor_at;
    char *data;                     /* files, symlinks */
    uint32_t cap;                   /* bytes kmalloc'd at data; 0: not ours (borrowed) */
};

struct ramfs {
    uint32_t next_ino;
};

static const struct vnode_ops ramfs_ops;

#define NODE(v) ((struct ramfs_node *)(v)->priv)

static struct vnode *ramfs_node_new(struct fs *fs, uint32_t mode)
{
    struct vnode *v = vnode_alloc(fs, mode, &ramfs_ops, sizeof(struct ramfs_node));
    struct ramfs *r = fs->priv;

    if (!v)
        return NULL;
    v->ino = r->next_ino++;
    v->nlink = 0;
    v->mtime = rtc_now();
    return v;
}

/* Are two names the same? Here, not strcmp: names are short, and under
 * QEMU the call costs as much as the comparing. */
static int same_name(const char *a, const char *b)
{
    for (; *a == *b; a++, b++)
        if (!*a)
            return 1;
    return 0;
}

static struct ramfs_dirent *find(struct vnode *dir, const char *name)
{
    struct ramfs_dirent *e;

    for (e = NODE(dir)->entries; e; e = e->next)
        if (same_name(e->name, name))
            return e;
    return NULL;
}

static int ramfs_lookup(struct vnode *dir, const char *name, struct vnode **out)
{
    struct ramfs_dirent *e;

    if (dir->nlink == 0)
        return -ENOENT;                 /* a removed directory holds nothing, not even ".." */
    if (name_is_dotdot(name)) {
        *out = NODE(dir)->parent ? NODE(dir)->parent : dir;
        vnode_get(*out);
        return 0;
    }
    if (!(e = find(dir, name)))
        return -ENOENT;
    vnode_get(e->v);
    *out = e->v;
    return 0;
}

/* Enter v in dir under name; the entry holds a reference and a link. */
static int add_entry(struct vnode *dir, const char *name, struct vnode *v)
{
    size_t len = strlen(name);
    struct ramfs_dirent *e = kmalloc(sizeof(*e) + len + 1);

    if (!e)
        return -ENOMEM;
    memcpy(e->name, name, len + 1);
    e->v = v;
    vnode_get(v);
    v->nlink++;
    if (S_ISDIR(v->mode)) {
        struct vnode *old = NODE(v)->parent;
        vnode_get(dir);                 /* ".." keeps the parent alive */
        NODE(v)->parent = dir;
        vnode_put(old);                 /* a rename moved it away from old */
        dir->nlink++;
    }
    e->place = FIRST_PLACE + NODE(dir)->next_place++;
    e->next = NODE(dir)->entries;
    NODE(dir)->entries = e;
    dir->mtime = rtc_now();
    return 0;
}

static int ramfs_write(struct vnode *v, const void *buf, uint32_t off, uint32_t n);

static int ramfs_create(struct vnode *dir, const char *name, uint32_t mode, uint32_t rdev,
                        const char *symlink, struct vnode **out)
{
    struct vnode *v;
    int err;

    if (find(dir, name))
        return -EEXIST;
    if (!pmm_may_store(1))
        return -ENOSPC;                 /* a node and its entry: kept for processes */
    if (!(v = ramfs_node_new(dir->fs, mode)))
        return -ENOMEM;
    v->rdev = rdev;
    if (S_ISDIR(mode))
        v->nlink = 1;                   /* its own "." */
    if (symlink && (err = ramfs_write(v, symlink, 0, strlen(symlink))) < 0)
        goto fail;
    if ((err = add_entry(dir, name, v)) < 0)
        goto fail;
    *out = v;                           /* the creation reference */
    return 0;
fail:
    vnode_put(v);
    return err;
}

static int ramfs_link(struct vnode *dir, const char *name, struct vnode *v)
{
    if (find(dir, name))
        return -EEXIST;
    return pmm_may_store(1) ? add_entry(dir, name, v) : -ENOSPC;
}

static void drop_entry(struct vnode *dir, struct ramfs_dirent *e)
{
    struct ramfs_dirent **pp;

    for (pp = &NODE(dir)->entries; *pp != e; pp = &(*pp)->next)
        ;
    *pp = e->next;
    NODE(dir)->cursor_at = 0;           /* the cursor may be e */
    e->v->nlink--;
    if (S_ISDIR(e->v->mode)) {
        dir->nlink--;
        e->v->nlink--;                  /* its "." */
    }
    vnode_put(e->v);
    kfree(e);
    dir->mtime = rtc_now();
}

/* Does e name a directory that still has entries? */
static int full_dir(struct ramfs_dirent *e)
{
    return S_ISDIR(e->v->mode) && NODE(e->v)->entries;
}

static int ramfs_unlink(struct vnode *dir, const char *name)
{
    struct ramfs_dirent *e = find(dir, name);

    if (!e)
        return -ENOENT;
    if (full_dir(e))
        return -ENOTEMPTY;
    drop_entry(dir, e);
    return 0;
}

/* Is directory `a` the same as `d`, or an ancestor of it? */
static int is_ancestor(struct vnode *a, struct vnode *d)
{
    for (; d; d = NODE(d)->parent)
        if (d == a)
            return 1;
    return 0;
}

static int ramfs_rename(struct vnode *odir, const char *oname, struct vnode *ndir,
                        const char *nname)
{
    struct ramfs_dirent *e = find(odir, oname), *victim = find(ndir, nname);
    struct vnode *v;
    int err;

    if (!e)
        return -ENOENT;
    v = e->v;
    if (S_ISDIR(v->mode) && is_ancestor(v, ndir))
        return -EINVAL;                 /* a directory into itself */
    if (victim && full_dir(victim))
        return -ENOTEMPTY;
    vnode_get(v);                       /* keep it alive between the two steps */
    if ((err = add_entry(ndir, nname, v)) < 0) {
        vnode_put(v);
        return err;
    }
    if (victim)
        drop_entry(ndir, victim);
    drop_entry(odir, e);
    if (S_ISDIR(v->mode))
        v->nlink++;                     /* drop_entry took "." as well */
    vnode_put(v);
    return 0;
}

static int ramfs_read(struct vnode *v, void *buf, uint32_t off, uint32_t n)
{
    if (off >= v->size)
        return 0;
    if (n > v->size - off)
        n = v->size - off;
    if (NODE(v)->data)
        memcpy(buf, NODE(v)->data + off, n);
    else
        memset(buf, 0, n);
    return (int)n;
}

/* Make room for `size` bytes (zero-filled beyond the old size). */
static int reserve(struct vnode *v, uint32_t size)
{
    struct ramfs_node *node = NODE(v);
    uint32_t cap = node->cap ? node->cap : 64;
    char *nd;

    if (size > RAMFS_MAX_FILE)
        return -EFBIG;
    if (size <= node->cap)
        return 0;
    while (cap < size)
        cap *= 2;
    if (!pmm_may_store(cap / PAGE_SIZE + 1) || !(nd = kzalloc(cap)))
        return -ENOSPC;                 /* memory is full, or processes need what is left */
    if (node->data)
        memcpy(nd, node->data, v->size);
    if (node->cap)
        kfree(node->data);              /* borrowed bytes stay where they are */
    node->data = nd;
    node->cap = cap;
    return 0;
}

static int ramfs_write(struct vnode *v, const void *buf, uint32_t off, uint32_t n)
{
    int err;

    if (off + n < off)
        return -EFBIG;
    if ((err = reserve(v, off + n)) < 0)
        return err;
    if (off > v->size)
        memset(NODE(v)->data + v->size, 0, off - v->size);
    memcpy(NODE(v)->data + off, buf, n);
    if (off + n > v->size)
        v->size = off + n;
    v->mtime = rtc_now();
    return (int)n;
}

/* The file v (new, empty) holds the `size` bytes at data, read where they
 * lie: the boot archive's files (initrd.c), whose memory the kernel keeps
 * for good and nobody writes. Copying 2 MiB into the heap at every boot
 * cost more than the rest of the unpacking; a file is copied out (reserve)
 * only when it is first written or grows. */
int ramfs_borrow(struct vnode *v, const void *data, uint32_t size)
{
    struct ramfs_node *node = NODE(v);

    if (v->ops != &ramfs_ops || !S_ISREG(v->mode) || node->data)
        return -EINVAL;
    node->data = (char *)data;
    node->cap = 0;
    v->size = size;
    return 0;
}

static int ramfs_truncate(struct vnode *v, uint32_t len)
{
    int err;

    if (len > v->size) {
        if ((err = reserve(v, len)) < 0)
            return err;
        memset(NODE(v)->data + v->size, 0, len - v->size);
    }
    v->size = len;
    v->mtime = rtc_now();
    return 0;
}

/* The cookie: 0 for ".", 1 for "..", FIRST_PLACE - 1 for the head of the
 * list, else the place of the entry returned last. Places only grow, and
 * the list is newest first, so what follows a cookie is the first entry
 * with a smaller place: removing or adding other entries never moves it,
 * and a listing shows each entry nobody changed exactly once. (The
 * cookie was once the entry's number in the list: a create, at the head,
 * renumbered every entry, and a listing that others changed showed an
 * entry twice or missed one - fuzz_race seed 1.) A directory would need
 * 4 billion entries added for its places to wrap. */
static int ramfs_readdir(struct vnode *dir, uint32_t *cookie, char *name, uint32_t *ino,
                         uint32_t *type)
{
    struct ramfs_node *node = NODE(dir);
    struct ramfs_dirent *e = node->entries;

    if (*cookie < FIRST_PLACE - 1) {
        struct vnode *v = *cookie == 0 ? dir : (NODE(dir)->parent ? NODE(dir)->parent : dir);
        strlcpy(name, *cookie == 0 ? "." : "..", NAME_MAX + 1);
        *ino = v->ino;
        *type = DT_DIR;
        (*cookie)++;
        return 1;
    }
    if (node->cursor_at >= FIRST_PLACE && node->cursor_at == *cookie)
        e = node->cursor;               /* start where the last call stopped */
    else
        while (e && *cookie >= FIRST_PLACE && e->place >= *cookie)
            e = e->next;
    if (!e)
        return 0;
    strlcpy(name, e->name, NAME_MAX + 1);
    *ino = e->v->ino;
    *type = vnode_type_dt(e->v->mode);
    *cookie = e->place;
    node->cursor = e->next;
    node->cursor_at = *cookie;
    return 1;
}

static int ramfs_readlink(struct vnode *v, char *buf, uint32_t n)
{
    return ramfs_read(v, buf, 0, n);    /* a symlink keeps its target as its bytes */
}

/* The last reference to a node: free it (no name refers to it either, or
 * it would have a reference). Freeing a directory drops its reference on
 * its parent, which may free that too: done in a loop, not by recursion,
 * since a user can remove a chain of directories deeper than a stack. */
static void ramfs_inactive(struct vnode *v)
{
    while (v) {
        struct ramfs_node *node = NODE(v);
        struct vnode *parent = node->parent;
        if (node->cap)
            kfree(node->data);
        kfree(v);                       /* the node too: it is in v's block */
        v = NULL;
        if (parent && --parent->refs == 0)
            v = parent;                 /* its last reference: free it next */
    }
}

static const struct vnode_ops ramfs_ops = {
    .lookup = ramfs_lookup,
    .create = ramfs_create,
    .link = ramfs_link,
    .unlink = ramfs_unlink,
    .rename = ramfs_rename,
    .read = ramfs_read,
    .write = ramfs_write,
    .truncate = ramfs_truncate,
    .readdir = ramfs_readdir,
    .readlink = ramfs_readlink,
    .inactive = ramfs_inactive,
    .setattr = vnode_keeps_attrs,
};

int ramfs_mount(struct fs *fs, struct file *src, const char *opts)
{
    struct ramfs *r;

    if (src)
        return -EINVAL;                 /* ramfs is made from nothing */
    if (!(r = kzalloc(sizeof(*r))))
        return -ENOMEM;
    r->next_ino = 1;
    fs->priv = r;
    if (!(fs->root = ramfs_node_new(fs, S_IFDIR | 0755))) {
        kfree(r);
        return -ENOMEM;
    }
    fs->root->nlink = 2;
    return 0;
}

/* Free the whole tree below root: every entry's reference, depth first.
 * Iterative (down into a non-empty directory, back up through ".." once it
 * is empty), because a user can make trees deeper than a kernel stack.
 * Others run when the slice is over: a user's instance of 60,000 nodes
 * took 430 ms to free in one close(), and kernel code is never
 * preempted. Nobody else can reach the tree (the instance has no
 * references left), so it may change hands midway. */
static void free_tree(struct vnode *root)
{
    struct vnode *dir = root;
    struct ramfs_dirent *e;

    for (;;) {
        if (need_resched && curproc())
            yield();
        if ((e = NODE(dir)->entries)) {
            if (S_ISDIR(e->v->mode) && NODE(e->v)->entries) {
                dir = e->v;             /* empty that one first */
                continue;
            }
            NODE(dir)->entries = e->next;
            vnode_put(e->v);
            kfree(e);
        } else if (dir == root) {
            return;
        } else {
            dir = NODE(dir)->parent;    /* its entry goes on the next round */
        }
    }
}

void ramfs_release(struct fs *fs)
{
    free_tree(fs->root);
    vnode_put(fs->root);
    kfree(fs->priv);
}

const struct fs_type ramfs_type = {
    .name = "ramfs",
    .mount = ramfs_mount,
    .release = ramfs_release,
};
