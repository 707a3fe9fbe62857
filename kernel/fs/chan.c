/* chan.c - channels: a bidirectional byte stream with two ends, each end
 * readable and writable (socketpair's shape; chan(2)). Bytes written to
 * one end are read from the other, in order, through a ring of CHAN_SIZE
 * bytes per direction. An end is a vnode of type S_IFSOCK in an internal
 * filesystem, as a pipe's is; it lives while its vnode does, so a closed
 * peer is seen exactly as with pipes: a read returns 0 (end of file) once
 * the bytes queued are read, a write fails with EPIPE.
 *
 * One end may be taken by the kernel (chan_attach): a served filesystem
 * (srvfs.c) speaks its protocol over it. Then bytes the peer writes do not
 * queue: they go straight to the kernel user's sink function, in the
 * writer's own system call, and the kernel sends with chan_send. A user
 * fd left on a taken end can no longer read or write it (EBUSY), so
 * nobody can steal or forge the kernel's messages.
 *
 * Sleep channels (sched.c's rule: one condition each): a reader of end i
 * waits on &q[i].wr (bytes for i), a writer to end i on &q[i].rd (room). */
#include "arch/x86/x86.h"
#include "fs/chan.h"
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "lib/string.h"
#include "mm/page.h"
#include "proc/proc.h"

struct chan {
    struct {
        char *buf;
        uint32_t rd, wr;                /* free-running; wr - rd bytes wait for end i */
    } q[2];
    int gone[2];                        /* end i closed (or shut): its peer sees EOF/EPIPE */
    chan_sink_fn sink[2];               /* end i is the kernel's: bytes for it go here */
    void *sink_arg[2];
    int refs;                           /* live end vnodes + kernel users */
};

static const struct fs_type chanfs_type = { "chan", NULL, NULL, NULL };
/* refs: changed by system calls only; never released (like pipefs) */
static struct fs chanfs = { .type = &chanfs_type, .refs = 1 };
static const struct vnode_ops chan_ops;
static uint32_t next_chan_ino = 2; /* changed only by chan_new, which never sleeps */

#define END(v)  ((int)((v)->ino & 1))
#define CHAN(v) ((struct chan *)(v)->priv)

static void chan_put(struct chan *c)
{
    if (!ref_drop(&c->refs))
        return;
    kfree(c->q[0].buf);
    kfree(c->q[1].buf);
    kfree(c);
}

/* Wake everyone who waits on either direction: a change of state (an end
 * gone) that readers and writers of both sides must re-check. */
static void wake_all(struct chan *c)
{
    wakeup(&c->q[0].rd);
    wakeup(&c->q[0].wr);
    wakeup(&c->q[1].rd);
    wakeup(&c->q[1].wr);
}

/* The ring's copies: as many bytes as there are (out) or room for (in),
 * at most n. */
static uint32_t ring_out(struct chan *c, int e, char *dst, uint32_t n)
{
    uint32_t got = 0;

    while (got < n && c->q[e].rd != c->q[e].wr) {
        uint32_t at = c->q[e].rd % CHAN_SIZE, chunk = CHAN_SIZE - at;
        if (chunk > c->q[e].wr - c->q[e].rd)
            chunk = c->q[e].wr - c->q[e].rd;
        if (chunk > n - got)
            chunk = n - got;
        memcpy(dst + got, c->q[e].buf + at, chunk);
        c->q[e].rd += chunk;
        got += chunk;
    }
    return got;
}

static uint32_t ring_in(struct chan *c, int e, const char *src, uint32_t n)
{
    uint32_t put = 0;

    while (put < n && c->q[e].wr - c->q[e].rd < CHAN_SIZE) {
        uint32_t at = c->q[e].wr % CHAN_SIZE, chunk = CHAN_SIZE - at;
        if (chunk > CHAN_SIZE - (c->q[e].wr - c->q[e].rd))
            chunk = CHAN_SIZE - (c->q[e].wr - c->q[e].rd);
        if (chunk > n - put)
            chunk = n - put;
        memcpy(c->q[e].buf + at, src + put, chunk);
        c->q[e].wr += chunk;
        put += chunk;
    }
    return put;
}

/* read() on an end: waits for bytes (killable; -EAGAIN instead with
 * nonblock, the file's R_NONBLOCK), 0 once the peer is gone and nothing
 * is left. A stream has no offset: file.c calls this, as it calls
 * pipe_read, with the file's flags, which a vnode op is not given. */
int chan_read(struct vnode *v, void *buf, uint32_t n, int nonblock)
{
    struct chan *c = CHAN(v);
    int e = END(v);
    uint32_t s, got;

    if (c->sink[e])
        return -EBUSY;                  /* the kernel's end now */
    s = irq_save();
    while (c->q[e].rd == c->q[e].wr) {
        if (c->gone[!e] || c->gone[e] || n == 0) {
            irq_restore(s);
            return 0;                   /* end of file */
        }
        if (nonblock || curproc()->killed) {
            irq_restore(s);
            return nonblock ? -EAGAIN : -EINTR;
        }
        sleep_on(&c->q[e].wr);
    }
    got = ring_out(c, e, buf, n);
    wakeup(&c->q[e].rd);
    irq_restore(s);
    return (int)got;
}

/* Queue n bytes for end `to`: a write of at most CHAN_SIZE bytes waits
 * for room for all of it (atomic, as a pipe's), a longer one goes in as
 * room appears. `nowait`: take what fits now, never sleep. A wait ends
 * when the caller is killed (-EINTR) or *stop becomes true (-EIO). */
static int queue(struct chan *c, int to, const void *buf, uint32_t n, int nowait, const int *stop)
{
    uint32_t s = irq_save(), put = 0;
    int err = 0;

    while (put < n) {
        uint32_t room = CHAN_SIZE - (c->q[to].wr - c->q[to].rd);
        if (c->gone[to] || c->gone[!to]) {
            err = -EPIPE;
            break;
        }
        if (room == 0 || (n <= CHAN_SIZE && put == 0 && room < n)) {
            if (nowait)
                break;
            if (curproc()->killed || (stop && *stop)) {
                err = curproc()->killed ? -EINTR : -EIO;
                break;
            }
            sleep_on(&c->q[to].rd);
            continue;
        }
        put += ring_in(c, to, (const char *)buf + put, n - put);
        wakeup(&c->q[to].wr);
    }
    irq_restore(s);
    return put ? (int)put : err ? err : nowait ? -EAGAIN : 0;
}

/* write() on an end: to the peer's ring (with nonblock, only what fits
 * now, as a pipe: -EAGAIN for none), or to the peer's kernel user, which
 * never waits. */
int chan_write(struct vnode *v, const void *buf, uint32_t n, int nonblock)
{
    struct chan *c = CHAN(v);
    int e = END(v), p = !e;

    if (c->sink[e])
        return -EBUSY;
    if (c->gone[p] || c->gone[e])
        return -EPIPE;
    if (c->sink[p])
        return c->sink[p](c->sink_arg[p], buf, n);
    return queue(c, p, buf, n, nonblock, NULL);
}

/* The end's last reference: its peer now sees it gone, and a kernel user
 * of either side is told (sink with no bytes). */
static void chan_inactive(struct vnode *v)
{
    struct chan *c = CHAN(v);
    int e = END(v);

    c->gone[e] = 1;
    if (c->sink[e])
        c->sink[e](c->sink_arg[e], NULL, 0);
    if (c->sink[!e])
        c->sink[!e](c->sink_arg[!e], NULL, 0);
    wake_all(c);
    kfree(v);
    chan_put(c);
}

static const struct vnode_ops chan_ops = {
    .inactive = chan_inactive,
    .setattr = vnode_keeps_attrs,
};

/* chan(): a new channel, both ends readied for reading and writing,
 * owned by the caller. Both files, or neither. */
int chan_new(struct file **a, struct file **b)
{
    struct chan *c = kzalloc(sizeof(*c));
    struct vnode *v[2] = { NULL, NULL };
    struct path p[2];
    int i;

    *a = *b = NULL;
    if (!c || !pmm_may_store(2 * CHAN_SIZE / PAGE_SIZE + 1) || /* as a pipe's (pipe_open) */
        !(c->q[0].buf = kmalloc(CHAN_SIZE)) || !(c->q[1].buf = kmalloc(CHAN_SIZE)) ||
        !(v[0] = vnode_alloc(&chanfs, S_IFSOCK | 0600, &chan_ops, 0)) ||
        !(v[1] = vnode_alloc(&chanfs, S_IFSOCK | 0600, &chan_ops, 0))) {
        kfree(v[0]);
        if (c) {
            kfree(c->q[0].buf);
            kfree(c->q[1].buf);
        }
        kfree(c);
        return -ENOMEM;
    }
    for (i = 0; i < 2; i++) {
        v[i]->priv = c;
        v[i]->ino = next_chan_ino + i;  /* even: end 0, odd: end 1 */
        perm_own(curproc(), v[i]);
        c->refs++;
        fs_get(&chanfs);                /* vnode_alloc's reference becomes p[i]'s */
        p[i].mnt = NULL;
        p[i].vn = v[i];
    }
    next_chan_ino += 2;
    if ((*a = file_alloc(&p[0], FA_READ | FA_WRITE, 0, NULL)))
        *b = file_alloc(&p[1], FA_READ | FA_WRITE, 0, NULL);
    path_put(&p[0]);                    /* the files hold the ends now */
    path_put(&p[1]);
    if (!*b) {
        file_put(*a);
        *a = NULL;
        return -ENFILE;
    }
    return 0;
}

/* Is v an end of a channel? */
int chan_is_end(const struct vnode *v)
{
    return v->ops == &chan_ops;
}

/* Take the end f is on for a kernel user: from now on what the peer
 * writes goes to fn(arg, bytes, n), and fn(arg, NULL, 0) says that either
 * end is gone. f must be readied for reading and writing; neither end may
 * be taken already, nor gone. The channel is held until chan_detach. */
int chan_attach(struct file *f, chan_sink_fn fn, void *arg, struct chan **out, int *end)
{
    struct vnode *v = f->path.vn;
    struct chan *c;
    int e;

    if (!chan_is_end(v))
        return -ENOTBLK;
    if ((f->access & (FA_READ | FA_WRITE)) != (FA_READ | FA_WRITE))
        return -EBADF;
    c = CHAN(v);
    e = END(v);
    if (c->sink[0] || c->sink[1])
        return -EBUSY;
    if (c->gone[0] || c->gone[1])
        return -EPIPE;
    c->sink[e] = fn;
    c->sink_arg[e] = arg;
    c->refs++;
    wake_all(c);                        /* a reader of this end now gets EBUSY */
    *out = c;
    *end = e;
    return 0;
}

/* The kernel user lets go: its end is gone for the peer from now on. */
void chan_detach(struct chan *c, int end)
{
    c->sink[end] = NULL;
    c->gone[end] = 1;
    wake_all(c);
    chan_put(c);
}

/* The kernel user will say no more (a protocol error): the peer reads the
 * end of file after what is queued, and its writes fail with EPIPE. The
 * sink stays, so nothing reaches the user's fds. */
void chan_shutdown(struct chan *c, int end)
{
    c->gone[end] = 1;
    wake_all(c);
}

/* Send a whole message (n <= CHAN_SIZE) from the kernel's end to its
 * peer: waits for room (killable: -EINTR, nothing sent; or -EIO once
 * *stop, if stop is given, is true: a revoked filesystem), or with
 * `nowait` sends only if it fits now (-EAGAIN). -EPIPE if either end is
 * gone. */
int chan_send(struct chan *c, int end, const void *msg, uint32_t n, int nowait, const int *stop)
{
    int r;

    if (n > CHAN_SIZE)
        return -EINVAL;
    if (nowait && CHAN_SIZE - (c->q[!end].wr - c->q[!end].rd) < n)
        return -EAGAIN;
    r = queue(c, !end, msg, n, nowait, stop);
    return r < 0 ? r : (uint32_t)r == n ? 0 : -EIO;
}
