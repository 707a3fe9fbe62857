/* srv.h - writing a file server (user/lib/srv.c; the protocol: doc/srv.md).
 * A server answers the kernel's requests on one end of a channel
 * (chan(2)); fsopen("srv", other_end, opts) is the filesystem it serves.
 * Two levels: srv_recv/srv_send speak raw messages (the tests and the
 * fuzzer forge replies with them); srv_serve runs a whole server from a
 * table of operations on your own nodes (void *), the library keeping
 * the kernel's fids. */
#ifndef _SRV_H
#define _SRV_H

#include <stdint.h>
#include "uapi/fs.h"
#include "uapi/srv.h"

/* A request, decoded: the fields its type has (doc/srv.md). */
struct srv_msg {
    int type, tag;
    uint32_t fid, newfid, off, count, cookie, mode, len;
    char name[NAME_MAX + 1];
    const char *data;                   /* Twrite: count bytes, in the buffer given */
};

struct srv_stat {
    uint32_t mode, ino, size, mtime;
};

struct srv_dirent {
    uint32_t ino;
    int type;                           /* DT_REG, DT_DIR */
    char name[NAME_MAX + 1];
};

/* Read one whole message from fd into buf (SRV_MSIZE bytes) and decode
 * it: 1, 0 at end of file, -1 (errno) on an error or a malformed one. */
int srv_recv(int fd, char *buf, struct srv_msg *m);
/* Write one message: header (size from n), then n bytes of body. 0 or -1. */
int srv_send(int fd, int type, int tag, const void *body, uint32_t n);
int srv_error(int fd, int tag, int err);            /* Rerror */
char *srv_putstat(char *p, const struct srv_stat *st); /* srv_put4 etc.: uapi/srv.h */

/* What a server implements; a NULL entry answers EPERM. Each returns 0
 * (read, write: a count) or -errno. Nodes are the server's own. */
struct srv_ops {
    int (*stat)(void *node, struct srv_stat *st);
    int (*walk)(void *dir, const char *name, void **child);  /* name may be ".." */
    int (*create)(void *dir, const char *name, uint32_t mode, void **child);
    int (*read)(void *node, uint32_t off, char *buf, uint32_t n);
    int (*write)(void *node, uint32_t off, const char *buf, uint32_t n);
    int (*trunc)(void *node, uint32_t len);
    /* entry number `index` of dir (no "." or ".."): 1, 0 past the end */
    int (*readdir)(void *dir, uint32_t index, struct srv_dirent *e);
    int (*remove)(void *dir, const char *name);
    void (*clunk)(void *node);          /* the kernel forgot a fid on node */
};

/* Serve requests on fd until the kernel lets go (end of file): root is
 * fid SRV_ROOT. 0, or -1 if the channel failed. */
int srv_serve(int fd, const struct srv_ops *ops, void *root);

#endif
