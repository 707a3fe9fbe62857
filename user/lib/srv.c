/* srv.c - the file server library (srv.h; the protocol: doc/srv.md).
 * srv_recv/srv_send move whole messages over a channel end; srv_serve is
 * a server's main loop: it decodes each request, calls the server's
 * operation on the node its fid names, and answers with the same tag.
 * Requests are answered one at a time, in the order they came. */
#include <errno.h>
#include <srv.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *srv_putstat(char *p, const struct srv_stat *st)
{
    p = srv_put4(p, st->mode);
    p = srv_put4(p, st->ino);
    p = srv_put4(p, st->size);
    return srv_put4(p, st->mtime);
}

/* Exactly n bytes from fd: 1, 0 at end of file before any, -1. */
static int readfull(int fd, char *buf, uint32_t n)
{
    uint32_t got = 0;
    int r;

    while (got < n) {
        if ((r = read(fd, buf + got, n - got)) <= 0) {
            if (r == 0 && got == 0)
                return 0;
            if (r == 0)
                errno = EIO;            /* cut short */
            return -1;
        }
        got += r;
    }
    return 1;
}

/* All n bytes to fd: 0, or -1. Not writeall(), which ends the program on
 * EPIPE: a server sees its kernel let go and decides for itself. */
static int writefull(int fd, const char *buf, uint32_t n)
{
    int w;

    for (; n > 0; buf += w, n -= w)
        if ((w = write(fd, buf, n)) <= 0)
            return -1;
    return 0;
}

/* A name field at p (len[2] bytes) into m->name; the bytes it took, or
 * -1 if it is not a name or runs past end. */
static int getname(const char *p, const char *end, struct srv_msg *m)
{
    uint32_t n;

    if (end - p < 2 || (n = srv_get2(p)) == 0 || n > NAME_MAX || (uint32_t)(end - p - 2) < n)
        return -1;
    memcpy(m->name, p + 2, n);
    m->name[n] = '\0';
    return 2 + n;
}

int srv_recv(int fd, char *buf, struct srv_msg *m)
{
    const char *p = buf + SRV_HDR, *end;
    uint32_t size;
    int r;

    if ((r = readfull(fd, buf, 4)) <= 0)
        return r;
    size = srv_get4(buf);
    if (size < SRV_HDR || size > SRV_MSIZE) {
        errno = EIO;
        return -1;
    }
    if ((r = readfull(fd, buf + 4, size - 4)) <= 0)
        return r < 0 ? -1 : (errno = EIO, -1);
    end = buf + size;
    memset(m, 0, sizeof(*m));
    m->type = (uint8_t)buf[4];
    m->tag = srv_get2(buf + 5);
    if (end - p >= 4)
        m->fid = srv_get4(p);
    switch (m->type) {
    case Tstat:
    case Tclunk: return size == SRV_HDR + 4 ? 1 : (errno = EIO, -1);
    case Twalk:
    case Tcreate:
        if (end - p < 8 + (m->type == Tcreate ? 4 : 0))
            break;
        m->newfid = srv_get4(p + 4);
        p += 8;
        if (m->type == Tcreate) {
            m->mode = srv_get4(p);
            p += 4;
        }
        return getname(p, end, m) == end - p ? 1 : (errno = EIO, -1);
    case Tremove: return getname(p + 4, end, m) == end - p - 4 ? 1 : (errno = EIO, -1);
    case Tread:
    case Twrite:
        if (end - p < 12)
            break;
        m->off = srv_get4(p + 4);
        m->count = srv_get4(p + 8);
        m->data = p + 12;
        if (m->count > SRV_IOMAX || (m->type == Twrite && (uint32_t)(end - p - 12) != m->count))
            break;
        return 1;
    case Treaddir:
    case Ttrunc:
        if (size != SRV_HDR + 8)
            break;
        m->cookie = m->len = srv_get4(p + 4);
        return 1;
    }
    errno = EIO;
    return -1;
}

int srv_send(int fd, int type, int tag, const void *body, uint32_t n)
{
    char buf[SRV_MSIZE];

    if (n > SRV_MSIZE - SRV_HDR) {
        errno = EINVAL;
        return -1;
    }
    srv_put4(buf, SRV_HDR + n);
    buf[4] = (char)type;
    srv_put2(buf + 5, tag);
    memcpy(buf + SRV_HDR, body, n);
    return writefull(fd, buf, SRV_HDR + n);
}

int srv_error(int fd, int tag, int err)
{
    char body[4];

    srv_put4(body, err);
    return srv_send(fd, Rerror, tag, body, 4);
}

/* ---- srv_serve: fids to nodes, a small growing table */

struct fidmap {
    uint32_t fid;
    void *node;
};

static struct fidmap *fids;
static int nfids, capfids;

static struct fidmap *fid_find(uint32_t fid)
{
    int i;

    for (i = 0; i < nfids; i++)
        if (fids[i].fid == fid)
            return &fids[i];
    return NULL;
}

static int fid_add(uint32_t fid, void *node)
{
    struct fidmap *f = fid_find(fid);

    if (f) {
        f->node = node;                 /* the kernel reused it: it forgot the old one */
        return 0;
    }
    if (nfids == capfids) {
        int cap = capfids ? 2 * capfids : 32;
        struct fidmap *n = realloc(fids, cap * sizeof(*n));
        if (!n)
            return -ENOMEM;
        fids = n;
        capfids = cap;
    }
    fids[nfids].fid = fid;
    fids[nfids++].node = node;
    return 0;
}

/* A new node under newfid: remember it, describe it. */
static int answer_node(const struct srv_ops *ops, uint32_t newfid, void *node, char *body)
{
    struct srv_stat st;
    int err;

    if (!ops->stat)
        return -EPERM;
    if ((err = ops->stat(node, &st)) < 0 || (err = fid_add(newfid, node)) < 0)
        return err;
    srv_putstat(body, &st);
    return SRV_STAT;
}

/* One request: the body of its reply (its length) or -errno. */
static int handle(const struct srv_ops *ops, struct srv_msg *m, char *body)
{
    struct fidmap *f = fid_find(m->fid);
    struct srv_dirent e;
    struct srv_stat st;
    void *child;
    int r;

    if (!f)
        return -EBADF;
    switch (m->type) {
    case Tstat:
        if (!ops->stat)
            return -EPERM;
        if ((r = ops->stat(f->node, &st)) < 0)
            return r;
        srv_putstat(body, &st);
        return SRV_STAT;
    case Twalk:
        if (!ops->walk)
            return -EPERM;
        if ((r = ops->walk(f->node, m->name, &child)) < 0)
            return r;
        return answer_node(ops, m->newfid, child, body);
    case Tcreate:
        if (!ops->create)
            return -EPERM;
        if ((r = ops->create(f->node, m->name, m->mode, &child)) < 0)
            return r;
        return answer_node(ops, m->newfid, child, body);
    case Tread:
        if (!ops->read)
            return -EPERM;
        if ((r = ops->read(f->node, m->off, body + 4, m->count)) < 0)
            return r;
        if ((uint32_t)r > m->count)
            r = m->count;
        srv_put4(body, r);
        return 4 + r;
    case Twrite:
        if (!ops->write)
            return -EPERM;
        if ((r = ops->write(f->node, m->off, m->data, m->count)) < 0)
            return r;
        srv_put4(body, r);
        return 4;
    case Treaddir:
        if (!ops->readdir)
            return -EPERM;
        if ((r = ops->readdir(f->node, m->cookie, &e)) <= 0)
            return r;
        body = srv_put4(body, m->cookie + 1);
        body = srv_put4(body, e.ino);
        *body++ = (char)e.type;
        srv_put2(body, strlen(e.name));
        memcpy(body + 2, e.name, strlen(e.name));
        return 11 + strlen(e.name);
    case Tremove: return ops->remove ? ops->remove(f->node, m->name) : -EPERM;
    case Ttrunc: return ops->trunc ? ops->trunc(f->node, m->len) : -EPERM;
    case Tclunk:
        if (ops->clunk)
            ops->clunk(f->node);
        *f = fids[--nfids];
        return 0;
    }
    return -ENOSYS;
}

int srv_serve(int fd, const struct srv_ops *ops, void *root)
{
    char *in = malloc(SRV_MSIZE), *body = malloc(SRV_MSIZE);
    struct srv_msg m;
    int r = -1, n;

    if (!in || !body || fid_add(SRV_ROOT, root) < 0)
        goto out;
    while ((r = srv_recv(fd, in, &m)) > 0) {
        if ((n = handle(ops, &m, body)) < 0)
            r = srv_error(fd, m.tag, -n);
        else
            r = srv_send(fd, m.type + 1, m.tag, body, n);
        if (r < 0)
            break;
    }
out:
    free(in);
    free(body);
    return r < 0 && errno != EPIPE ? -1 : 0; /* EPIPE: the kernel let go first */
}
