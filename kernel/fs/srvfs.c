/* srvfs.c - a filesystem served by a user process: fsopen("srv", chanfd,
 * opts). Each vnode operation becomes a request (a T-message) sent down a
 * channel (chan.c) to the server, and waits for the reply (an R-message)
 * with the same tag; the protocol is doc/srv.md (constants: uapi/srv.h).
 * Several processes may wait at once, each on its own tag.
 *
 * The server is not trusted. Replies arrive in the server's own write()
 * (the channel's sink) and are checked there and by the waiter: a size
 * outside [SRV_HDR, SRV_MSIZE], an unknown or finished tag, a wrong type,
 * a reply longer than the waiter's buffer, a count beyond what was asked,
 * a bad name or node type - any of them is a protocol error, and the
 * connection is dead: every waiting and later request gets EIO and the
 * server reads end of file. The server's death is the same. A waiting
 * client can always be killed (^C): its tag stays reserved until the late
 * reply comes, and that reply is dropped. A server that calls into its
 * own filesystem waits for itself: only a kill ends that (doc/srv.md). */
#include "arch/x86/x86.h"
#include "fs/chan.h"
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "include/uapi/srv.h"
#include "lib/string.h"
#include "mm/page.h"
#include "proc/proc.h"

enum { REQ_FREE, REQ_WAITING, REQ_DONE, REQ_ABANDONED };

/* One tag: a request and, once done, its reply in the waiter's buffer. */
struct srv_req {
    int state;                          /* REQ_* */
    uint8_t type;                       /* the T-message's type */
    char *reply;                        /* the waiter's buffer, max bytes */
    uint32_t max, len;
    int err;                            /* when done: 0, Rerror's -errno, or -EIO */
};

/* A vnode's server side: its fid. The live nodes are listed so that one
 * inode number is one vnode (what attachments and ".." compare). */
struct snode {
    uint32_t fid;
    struct vnode *v;
    struct snode *next;
};

/* One connection: changed by the client's calls and by the server's
 * writes (the sink), never by an interrupt; nothing here sleeps while it
 * changes the state, so the one-CPU kernel needs no lock. */
struct srvconn {
    struct fs *fs;
    struct chan *c;
    int end;                            /* the kernel's end of c */
    int dead;                           /* protocol error or an end gone */
    int closing;                        /* released: no more messages */
    uint32_t next_fid;
    uint32_t gid;                       /* the group of the fsopen caller */
    struct srv_req req[SRV_TAGS];
    int tag_wait;                       /* sleep channel: a tag may be free */
    struct snode *nodes;
    uint32_t inlen;                     /* bytes of the reply in `in` so far */
    char in[SRV_MSIZE];
};

static const struct vnode_ops srv_ops;

#define CONN(v) ((struct srvconn *)(v)->fs->priv)
#define FID(v)  (((struct snode *)(v)->priv)->fid)

static char *putname(char *p, const char *name)
{
    uint32_t n = strlen(name);

    p = srv_put2(p, n);
    memcpy(p, name, n);
    return p + n;
}

/* A message's header, type only: rpc() fills in size and tag. */
static char *start(char *t, int type)
{
    t[4] = (char)type;
    return t + SRV_HDR;
}

/* The connection is dead: every waiter gets EIO now, every later request
 * at once; the server reads end of file. */
static void mark_dead(struct srvconn *s)
{
    int i;

    if (s->dead)
        return;
    s->dead = 1;
    for (i = 0; i < SRV_TAGS; i++) {
        struct srv_req *q = &s->req[i];
        if (q->state == REQ_WAITING) {
            q->err = -EIO;
            q->state = REQ_DONE;
            wakeup(q);
        } else if (q->state == REQ_ABANDONED) {
            q->state = REQ_FREE;
        }
    }
    wakeup(&s->tag_wait);
    chan_shutdown(s->c, s->end);
}

/* A reply that breaks the protocol, found by its waiter: -EIO. */
static int protocol_error(struct srvconn *s)
{
    mark_dead(s);
    return -EIO;
}

static void free_tag(struct srvconn *s, int tag)
{
    s->req[tag].state = REQ_FREE;
    s->req[tag].reply = NULL;
    wakeup(&s->tag_wait);
}

/* One whole message from the server (its size checked): to the request
 * with its tag. 0, or -EPIPE for the server's write once it broke the
 * protocol. */
static int deliver(struct srvconn *s, const char *m, uint32_t size)
{
    uint32_t tag = srv_get2(m + 5), e;
    uint8_t type = (uint8_t)m[4];
    struct srv_req *q;

    if (tag >= SRV_TAGS || (s->req[tag].state != REQ_WAITING && s->req[tag].state != REQ_ABANDONED))
        goto bad;                       /* no request has that tag */
    q = &s->req[tag];
    if (q->state == REQ_ABANDONED) {
        free_tag(s, tag);               /* its waiter was killed: dropped */
        return 0;
    }
    if (type == Rerror) {
        if (size != SRV_HDR + 4 || (e = srv_get4(m + SRV_HDR)) == 0 || e > EMAXERRNO)
            goto bad;
        q->err = -(int)e;
    } else {
        if (type != q->type + 1 || size > q->max)
            goto bad;
        memcpy(q->reply, m, size);
        q->len = size;
    }
    q->state = REQ_DONE;
    wakeup(q);
    return 0;
bad:
    mark_dead(s);
    return -EPIPE;
}

/* The channel's sink: bytes the server wrote, in its write() call, in
 * pieces of any size. A message is gathered in s->in and delivered when
 * whole; a size field out of range loses the framing for good. bytes
 * NULL: an end of the channel is gone. */
static int srv_sink(void *arg, const void *bytes, uint32_t n)
{
    struct srvconn *s = arg;
    const char *b = bytes;
    uint32_t took = 0;
    int err;

    if (!b) {
        mark_dead(s);
        return 0;
    }
    if (s->dead)
        return -EPIPE;
    while (took < n) {
        uint32_t need = s->inlen < 4 ? 4 : srv_get4(s->in), chunk = need - s->inlen;
        if (chunk > n - took)
            chunk = n - took;
        memcpy(s->in + s->inlen, b + took, chunk);
        s->inlen += chunk;
        took += chunk;
        if (s->inlen == 4 && (srv_get4(s->in) < SRV_HDR || srv_get4(s->in) > SRV_MSIZE)) {
            mark_dead(s);
            return -EPIPE;
        }
        if (s->inlen >= SRV_HDR && s->inlen == srv_get4(s->in)) {
            s->inlen = 0;
            if ((err = deliver(s, s->in, srv_get4(s->in))) < 0)
                return err;
        }
    }
    return (int)n;
}

/* Send the request t (tlen bytes, type set) and wait for its reply, which
 * may be up to rmax bytes long, into r. The reply's length (>= SRV_HDR),
 * Rerror's -errno, -EIO (dead, revoked, protocol error) or -EINTR (killed
 * while waiting: the tag stays reserved until the late reply). */
static int rpc(struct srvconn *s, char *t, uint32_t tlen, char *r, uint32_t rmax)
{
    struct srv_req *q;
    uint32_t st = irq_save();
    int tag, err;

    for (;;) {
        if (s->dead || s->fs->revoked) {
            err = -EIO;
            goto out;
        }
        for (tag = 0; tag < SRV_TAGS && s->req[tag].state != REQ_FREE; tag++)
            ;
        if (tag < SRV_TAGS)
            break;
        if (curproc()->killed) {
            err = -EINTR;
            goto out;
        }
        sleep_on(&s->tag_wait);
    }
    q = &s->req[tag];
    q->state = REQ_WAITING;
    q->type = (uint8_t)t[4];
    q->reply = r;
    q->max = rmax;
    q->len = 0;
    q->err = 0;
    srv_put4(t, tlen);
    srv_put2(t + 5, tag);
    if ((err = chan_send(s->c, s->end, t, tlen, 0, &s->fs->revoked)) < 0) {
        free_tag(s, tag);               /* not sent (or only if dead: no reply) */
        err = err == -EINTR ? -EINTR : -EIO;
        goto out;
    }
    while (q->state == REQ_WAITING) {
        if (s->fs->revoked || curproc()->killed) {
            err = s->fs->revoked ? -EIO : -EINTR;
            q->state = REQ_ABANDONED;   /* a late reply is dropped */
            q->reply = NULL;
            goto out;
        }
        sleep_on(q);
    }
    err = q->err ? q->err : (int)q->len;
    free_tag(s, tag);
out:
    irq_restore(st);
    return err;
}

/* Tclunk: the server may forget fid. Sent without waiting for room or a
 * reply (a vnode's last reference may go while its process is killed);
 * if it cannot go now, the server keeps the fid (doc/srv.md). */
static void clunk(struct srvconn *s, uint32_t fid)
{
    char t[SRV_HDR + 4];
    int tag;

    if (s->dead || s->closing || s->fs->revoked)
        return;
    for (tag = 0; tag < SRV_TAGS && s->req[tag].state != REQ_FREE; tag++)
        ;
    if (tag == SRV_TAGS)
        return;
    srv_put4(start(t, Tclunk), fid);
    srv_put4(t, sizeof(t));
    srv_put2(t + 5, tag);
    s->req[tag].state = REQ_ABANDONED;  /* its reply is dropped */
    if (chan_send(s->c, s->end, t, sizeof(t), 1, NULL) < 0)
        free_tag(s, tag);
}

/* A new node's memory: its snode and its vnode (mode is corrected from
 * the server's stat when it is used). NULL if there is none. */
static struct snode *node_mem(struct srvconn *s, uint32_t mode)
{
    struct snode *n = kzalloc(sizeof(*n));

    if (n && !(n->v = vnode_alloc(s->fs, mode & (S_IFMT | 0777), &srv_ops, 0))) {
        kfree(n);
        return NULL;
    }
    return n;
}

static void node_mem_drop(struct snode *n)
{
    if (n) {
        kfree(n->v);                    /* never seen by anyone: no reference to put */
        kfree(n);
    }
}

/* The vnode for a node the server described (st) under fid: the live one
 * with its inode number if there is one (fid is then clunked), else a new
 * one, in `spare` if the caller took its memory before its request (NULL:
 * taken here; spare is used or freed either way). Only directories and
 * regular files are served: anything else (a device node!) is a protocol
 * error. */
static int node_get(struct srvconn *s, uint32_t fid, const char *st, struct snode *spare,
                    struct vnode **out)
{
    uint32_t mode = srv_get4(st), ino = srv_get4(st + 4);
    struct snode *n;
    struct vnode *v;

    if (!S_ISDIR(mode) && !S_ISREG(mode)) {
        node_mem_drop(spare);
        return protocol_error(s);       /* dead: no clunk needed */
    }
    for (n = s->nodes; n; n = n->next) {
        if (n->v->ino == ino) {
            node_mem_drop(spare);
            clunk(s, fid);
            vnode_get(n->v);
            *out = n->v;
            return 0;
        }
    }
    if (!(n = spare) && !(n = node_mem(s, mode))) {
        clunk(s, fid);
        return -ENOMEM;
    }
    v = n->v;
    v->mode = mode & (S_IFMT | 0777);
    v->ino = ino;
    v->size = srv_get4(st + 8);
    v->mtime = srv_get4(st + 12);
    v->nlink = S_ISDIR(mode) ? 2 : 1;
    v->uid = s->fs->owner;              /* the served nodes are the fsopen caller's */
    v->gid = s->gid;
    v->priv = n;
    n->fid = fid;
    n->next = s->nodes;
    s->nodes = n;
    *out = v;
    return 0;
}

/* A reply that must be exactly `want` bytes long: 0, or a protocol error. */
static int exact(struct srvconn *s, int len, uint32_t want)
{
    if (len < 0)
        return len;
    return (uint32_t)len == want ? 0 : protocol_error(s);
}

static int srv_lookup(struct vnode *dir, const char *name, struct vnode **out)
{
    struct srvconn *s = CONN(dir);
    char t[SRV_HDR + 10 + NAME_MAX], r[SRV_HDR + SRV_STAT], *p;
    uint32_t fid = s->next_fid++;
    int err;

    p = start(t, Twalk);
    p = srv_put4(p, FID(dir));
    p = srv_put4(p, fid);
    p = putname(p, name);
    if ((err = exact(s, rpc(s, t, p - t, r, sizeof(r)), sizeof(r))) < 0)
        return err;
    return node_get(s, fid, r + SRV_HDR, NULL, out);
}

/* Only files and directories can be made on a served filesystem. The new
 * node's memory is taken before the server makes the name: out of memory
 * after it, create would fail with the name made. */
static int srv_create(struct vnode *dir, const char *name, uint32_t mode, uint32_t rdev,
                      const char *symlink, struct vnode **out)
{
    struct srvconn *s = CONN(dir);
    char t[SRV_HDR + 14 + NAME_MAX], r[SRV_HDR + SRV_STAT], *p;
    uint32_t fid = s->next_fid++;
    struct snode *spare;
    int err;

    (void)rdev;
    (void)symlink;
    if (!S_ISREG(mode) && !S_ISDIR(mode))
        return -EPERM;
    if (!(spare = node_mem(s, mode)))
        return -ENOMEM;
    p = start(t, Tcreate);
    p = srv_put4(p, FID(dir));
    p = srv_put4(p, fid);
    p = srv_put4(p, mode);
    p = putname(p, name);
    err = exact(s, rpc(s, t, p - t, r, sizeof(r)), sizeof(r));
    if (err == 0 && (srv_get4(r + SRV_HDR) & S_IFMT) != (mode & S_IFMT))
        err = protocol_error(s);        /* made something else */
    if (err < 0) {
        node_mem_drop(spare);
        return err;
    }
    return node_get(s, fid, r + SRV_HDR, spare, out);
}

static int srv_unlink(struct vnode *dir, const char *name)
{
    struct srvconn *s = CONN(dir);
    char t[SRV_HDR + 6 + NAME_MAX], r[SRV_HDR], *p;

    p = start(t, Tremove);
    p = srv_put4(p, FID(dir));
    p = putname(p, name);
    return exact(s, rpc(s, t, p - t, r, sizeof(r)), sizeof(r));
}

/* Reads in pieces of at most SRV_IOMAX; a short piece is the end. A count
 * beyond what was asked, or a size that does not match the count, is a
 * protocol error (the reply could not even arrive: longer than the
 * buffer given for it). */
static int srv_read(struct vnode *v, void *buf, uint32_t off, uint32_t n)
{
    struct srvconn *s = CONN(v);
    char t[SRV_HDR + 12], *r = kmalloc(SRV_HDR + 4 + SRV_IOMAX), *p;
    uint32_t done = 0;
    int err = 0, len;

    if (!r)
        return -ENOMEM;
    while (done < n) {
        uint32_t chunk = n - done < SRV_IOMAX ? n - done : SRV_IOMAX, cnt;
        p = start(t, Tread);
        p = srv_put4(p, FID(v));
        p = srv_put4(p, off + done);
        p = srv_put4(p, chunk);
        if ((len = rpc(s, t, p - t, r, SRV_HDR + 4 + chunk)) < 0) {
            err = len;
            break;
        }
        if ((uint32_t)len < SRV_HDR + 4 || (cnt = srv_get4(r + SRV_HDR)) > chunk ||
            (uint32_t)len != SRV_HDR + 4 + cnt) {
            err = protocol_error(s);
            break;
        }
        memcpy((char *)buf + done, r + SRV_HDR + 4, cnt);
        done += cnt;
        if (cnt < chunk)
            break;
    }
    kfree(r);
    return done ? (int)done : err;
}

static int srv_write(struct vnode *v, const void *buf, uint32_t off, uint32_t n)
{
    struct srvconn *s = CONN(v);
    char *t = kmalloc(SRV_HDR + 12 + SRV_IOMAX), r[SRV_HDR + 4], *p;
    uint32_t done = 0;
    int err = 0;

    if (!t)
        return -ENOMEM;
    while (done < n) {
        uint32_t chunk = n - done < SRV_IOMAX ? n - done : SRV_IOMAX, cnt;
        p = start(t, Twrite);
        p = srv_put4(p, FID(v));
        p = srv_put4(p, off + done);
        p = srv_put4(p, chunk);
        memcpy(p, (const char *)buf + done, chunk);
        if ((err = exact(s, rpc(s, t, p + chunk - t, r, sizeof(r)), sizeof(r))) < 0)
            break;
        if ((cnt = srv_get4(r + SRV_HDR)) > chunk) {
            err = protocol_error(s);
            break;
        }
        done += cnt;
        if (off + done > v->size)
            v->size = off + done;
        if (cnt < chunk)
            break;
    }
    kfree(t);
    return done ? (int)done : err;
}

static int srv_truncate(struct vnode *v, uint32_t len)
{
    struct srvconn *s = CONN(v);
    char t[SRV_HDR + 8], r[SRV_HDR], *p;
    int err;

    p = start(t, Ttrunc);
    p = srv_put4(p, FID(v));
    p = srv_put4(p, len);
    if ((err = exact(s, rpc(s, t, p - t, r, sizeof(r)), sizeof(r))) == 0)
        v->size = len;
    return err;
}

/* One entry per request; a reply with no body is the end. The name must
 * be a name: 1..NAME_MAX bytes, no '/' and no NUL. */
static int srv_readdir(struct vnode *dir, uint32_t *cookie, char *name, uint32_t *ino,
                       uint32_t *type)
{
    struct srvconn *s = CONN(dir);
    char t[SRV_HDR + 8], r[SRV_HDR + 11 + NAME_MAX], *p;
    uint32_t len, i;
    int got;

    p = start(t, Treaddir);
    p = srv_put4(p, FID(dir));
    p = srv_put4(p, *cookie);
    if ((got = rpc(s, t, p - t, r, sizeof(r))) < 0)
        return got;
    if (got == SRV_HDR)
        return 0;
    p = r + SRV_HDR;
    len = (uint32_t)got < SRV_HDR + 11 ? 0 : srv_get2(p + 9);
    if (len == 0 || len > NAME_MAX || (uint32_t)got != SRV_HDR + 11 + len)
        return protocol_error(s);
    for (i = 0; i < len; i++)
        if (p[11 + i] == '/' || p[11 + i] == '\0')
            return protocol_error(s);
    memcpy(name, p + 11, len);
    name[len] = '\0';
    *cookie = srv_get4(p);
    *ino = srv_get4(p + 4);
    *type = p[8] == DT_DIR || p[8] == DT_REG ? (uint8_t)p[8] : DT_UNKNOWN;
    return 1;
}

/* The vnode's last reference: the server may forget its fid. */
static void srv_inactive(struct vnode *v)
{
    struct srvconn *s = CONN(v);
    struct snode **pp, *n = v->priv;

    for (pp = &s->nodes; *pp; pp = &(*pp)->next) {
        if (*pp == n) {
            *pp = n->next;
            break;
        }
    }
    if (n->fid != SRV_ROOT)
        clunk(s, n->fid);
    kfree(n);
    kfree(v);
}

static const struct vnode_ops srv_ops = {
    .lookup = srv_lookup,
    .create = srv_create,
    .unlink = srv_unlink,
    .read = srv_read,
    .write = srv_write,
    .truncate = srv_truncate,
    .readdir = srv_readdir,
    .inactive = srv_inactive,
    /* No setattr: the protocol has no message that stores a mode, owner
     * or group, and the vnode is made afresh from the server's stat once
     * dropped, so a change kept here would last only until then. fchmod
     * and fchown get EPERM (NO_OP), and so does a create by anyone but
     * the fsopen caller, whose node namei would have to give its maker
     * (the name is removed again). doc/srv.md, decisions.md. */
};

/* Take the channel end src, then ask the server about its root (fid
 * SRV_ROOT), which must be a directory. The caller waits for that first
 * reply, killably. */
static int srv_mount(struct fs *fs, struct file *src, const char *opts)
{
    struct srvconn *s;
    char t[SRV_HDR + 4], r[SRV_HDR + SRV_STAT];
    int err;

    (void)opts;
    if (!src)
        return -EINVAL;                 /* served by someone: a channel end */
    if (!(s = kzalloc(sizeof(*s))))
        return -ENOMEM;
    s->fs = fs;
    s->next_fid = SRV_ROOT + 1;
    s->gid = curproc()->gid;
    if ((err = chan_attach(src, srv_sink, s, &s->c, &s->end)) < 0) {
        kfree(s);
        return err;
    }
    fs->priv = s;
    srv_put4(start(t, Tstat), SRV_ROOT);
    err = exact(s, rpc(s, t, sizeof(t), r, sizeof(r)), sizeof(r));
    if (err == 0 && !S_ISDIR(srv_get4(r + SRV_HDR)))
        err = protocol_error(s);
    if (err == 0)
        err = node_get(s, SRV_ROOT, r + SRV_HDR, NULL, &fs->root);
    if (err < 0) {
        chan_detach(s->c, s->end);
        fs->priv = NULL;
        kfree(s);
        return err;
    }
    return 0;
}

/* The instance's last reference: no node but the root is left. Let go of
 * the channel: the server reads end of file. */
static void srv_release(struct fs *fs)
{
    struct srvconn *s = fs->priv;

    s->closing = 1;
    vnode_put(fs->root);
    chan_detach(s->c, s->end);
    kfree(s);
}

const struct fs_type srv_type = {
    .name = "srv",
    .mount = srv_mount,
    .release = srv_release,
};

/* fsopen("srv", srcfd, opts): the source must be one end of a channel
 * (chan(2)), readied for reading and writing (-ENOTBLK for anything else,
 * -EBUSY for an end a filesystem serves already). The rest is fsopen's:
 * a slot for the fd first, fs_new, the root as a path. */
int srv_fsopen(int srcfd, const char *opts, struct path *out)
{
    struct file *src;
    struct fs *fs;
    int err;

    if (!(src = fd_get(srcfd, &err)))
        return err;
    if (!chan_is_end(src->path.vn))
        return -ENOTBLK;
    if ((src->access & (FA_READ | FA_WRITE)) != (FA_READ | FA_WRITE))
        return -EBADF;
    if ((err = fd_room()) < 0 || (err = fs_new("srv", src, opts, &fs)) < 0)
        return err;
    path_root(fs, out);
    fs_put(fs);
    return 0;
}
