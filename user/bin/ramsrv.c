/* ramsrv - a file server keeping files and directories in its own memory:
 * ramfs, in user space. Serves the channel end on fd 0 (srvmount starts
 * it so): `srvmount /tmp/s ramsrv`, or on fd N with `-f N`, for
 * `srvmount -f N /tmp/s ramsrv -f N`. Its nodes are never freed while it
 * runs (a removed one may still have fids); they go when it exits. */
#include <err.h>
#include <errno.h>
#include <srv.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <orthos.h>

#define MAXFILE (1u << 20)

struct node {
    char name[NAME_MAX + 1];
    uint32_t mode, ino, size, mtime;
    char *data;
    struct node *parent, *kids, *next;  /* directories: kids; everyone: next sibling */
};

static uint32_t next_ino = 1;

static struct node *node_new(struct node *parent, const char *name, uint32_t mode)
{
    struct node *n = calloc(1, sizeof(*n));

    if (!n)
        return NULL;
    strcpy(n->name, name);
    n->mode = mode;
    n->ino = next_ino++;
    n->mtime = uptime_ms() / 1000;
    n->parent = parent ? parent : n;
    if (parent) {
        n->next = parent->kids;
        parent->kids = n;
    }
    return n;
}

static struct node *find(struct node *dir, const char *name)
{
    struct node *n;

    for (n = dir->kids; n; n = n->next)
        if (strcmp(n->name, name) == 0)
            return n;
    return NULL;
}

static int ram_stat(void *node, struct srv_stat *st)
{
    struct node *n = node;

    st->mode = n->mode;
    st->ino = n->ino;
    st->size = n->size;
    st->mtime = n->mtime;
    return 0;
}

static int ram_walk(void *dir, const char *name, void **child)
{
    struct node *d = dir;

    *child = strcmp(name, "..") == 0 ? d->parent : find(d, name);
    return *child ? 0 : -ENOENT;
}

static int ram_create(void *dir, const char *name, uint32_t mode, void **child)
{
    if (find(dir, name))
        return -EEXIST;
    if (!S_ISREG(mode) && !S_ISDIR(mode))
        return -EPERM;
    return (*child = node_new(dir, name, mode)) ? 0 : -ENOSPC;
}

static int ram_read(void *node, uint32_t off, char *buf, uint32_t n)
{
    struct node *f = node;

    if (S_ISDIR(f->mode))
        return -EISDIR;
    if (off >= f->size)
        return 0;
    if (n > f->size - off)
        n = f->size - off;
    memcpy(buf, f->data + off, n);
    return n;
}

/* Grow (zero-filled) or cut the file to len bytes. */
static int resize(struct node *f, uint32_t len)
{
    char *d;

    if (len > MAXFILE)
        return -EFBIG;
    if (len > f->size) {
        if (!(d = realloc(f->data, len)))
            return -ENOSPC;
        memset(d + f->size, 0, len - f->size);
        f->data = d;
    }
    f->size = len;
    f->mtime = uptime_ms() / 1000;
    return 0;
}

static int ram_write(void *node, uint32_t off, const char *buf, uint32_t n)
{
    struct node *f = node;
    int err;

    if (S_ISDIR(f->mode))
        return -EISDIR;
    if (off + n > f->size && (err = resize(f, off + n)) < 0)
        return err;
    memcpy(f->data + off, buf, n);
    return n;
}

static int ram_trunc(void *node, uint32_t len)
{
    return resize(node, len);
}

static int ram_readdir(void *dir, uint32_t index, struct srv_dirent *e)
{
    struct node *n = ((struct node *)dir)->kids;

    while (n && index--)
        n = n->next;
    if (!n)
        return 0;
    e->ino = n->ino;
    e->type = S_ISDIR(n->mode) ? DT_DIR : DT_REG;
    strcpy(e->name, n->name);
    return 1;
}

static int ram_remove(void *dir, const char *name)
{
    struct node *d = dir, *n = find(d, name), **pp;

    if (!n)
        return -ENOENT;
    if (n->kids)
        return -ENOTEMPTY;
    for (pp = &d->kids; *pp != n; pp = &(*pp)->next)
        ;
    *pp = n->next;                      /* unnamed; kept for fids that still name it */
    return 0;
}

static const struct srv_ops ram_ops = {
    .stat = ram_stat,
    .walk = ram_walk,
    .create = ram_create,
    .read = ram_read,
    .write = ram_write,
    .trunc = ram_trunc,
    .readdir = ram_readdir,
    .remove = ram_remove,
};

int main(int argc, char *argv[])
{
    struct node *root = node_new(NULL, "/", S_IFDIR | 0777);
    int c, fd = 0;
    char *end;

    while ((c = getopt(argc, argv, "f:")) != -1) {
        if (c != 'f' || (fd = (int)strtol(optarg, &end, 10)) < 0 || *end || end == optarg)
            usage("[-f fd]");
    }
    if (optind != argc)
        usage("[-f fd]");
    return root && srv_serve(fd, &ram_ops, root) == 0 ? 0 : 1;
}
