/* chan.h - channels (chan.c): two-way byte streams, chan(2), and the
 * kernel's use of one end by a served filesystem (srvfs.c). */
#ifndef FS_CHAN_H
#define FS_CHAN_H

#include <stdint.h>

#define CHAN_SIZE 8192                  /* bytes queued per direction */

struct chan;
struct file;
struct vnode;
struct path;

/* What the kernel user of an end is given: the bytes its peer wrote (in
 * the writer's system call; returns n, or -errno for the writer), or
 * bytes NULL: either end is gone. Must not sleep. */
typedef int (*chan_sink_fn)(void *arg, const void *bytes, uint32_t n);

int chan_new(struct file **a, struct file **b);
int chan_read(struct vnode *v, void *buf, uint32_t n, int nonblock);
int chan_write(struct vnode *v, const void *buf, uint32_t n, int nonblock);
int chan_is_end(const struct vnode *v);
int chan_attach(struct file *f, chan_sink_fn fn, void *arg, struct chan **out, int *end);
void chan_detach(struct chan *c, int end);
void chan_shutdown(struct chan *c, int end);
int chan_send(struct chan *c, int end, const void *msg, uint32_t n, int nowait, const int *stop);

/* the served filesystem (srvfs.c): fsopen("srv", chanfd, opts) */
int srv_fsopen(int srcfd, const char *opts, struct path *out);

#endif
