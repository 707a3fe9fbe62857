/* uapi/srv.h - the file server protocol (doc/srv.md), shared by the
 * kernel's client (kernel/fs/srvfs.c) and the server library
 * (user/lib/srv.c). Every message: size[4] type[1] tag[2] body, integers
 * little-endian; a string is len[2] bytes (no NUL); a stat is
 * mode[4] ino[4] size[4] mtime[4]. */
#ifndef UAPI_SRV_H
#define UAPI_SRV_H

#include <stdint.h>

#define SRV_HDR   7                    /* size[4] type[1] tag[2] */
#define SRV_STAT  16                   /* mode[4] ino[4] size[4] mtime[4] */
#define SRV_IOMAX 4096                 /* the most data one Tread/Twrite moves */
#define SRV_MSIZE (SRV_HDR + 12 + SRV_IOMAX) /* the largest message either way */
#define SRV_TAGS  16                   /* requests outstanding at once: tags 0..15 */
#define SRV_ROOT  0                    /* the fid of the root, from the start */

/* T-messages (kernel to server), each answered by type + 1 or Rerror.
 * The bodies (doc/srv.md):
 *   Tstat    fid[4]                          Rstat    st
 *   Twalk    fid[4] newfid[4] name[s]        Rwalk    st
 *   Tread    fid[4] off[4] count[4]          Rread    count[4] data[count]
 *   Twrite   fid[4] off[4] count[4] data     Rwrite   count[4]
 *   Treaddir fid[4] cookie[4]                Rreaddir nothing (the end), or
 *                                                     next[4] ino[4] type[1] name[s]
 *   Tcreate  fid[4] newfid[4] mode[4] name[s] Rcreate st
 *   Tremove  fid[4] name[s]                  Rremove  nothing
 *   Ttrunc   fid[4] len[4]                   Rtrunc   nothing
 *   Tclunk   fid[4]                          Rclunk   nothing
 *   Rerror (any request): errno[4], 1..4095 */
#define Tstat    100
#define Twalk    102
#define Tread    104
#define Twrite   106
#define Treaddir 108
#define Tcreate  110
#define Tremove  112
#define Ttrunc   114
#define Tclunk   116
#define Rerror   99

/* The fields' byte order, written once for both sides: little-endian,
 * byte by byte (a field may sit at any alignment in a message). */
static inline uint32_t srv_get2(const char *p)
{
    const uint8_t *b = (const uint8_t *)p;

    return b[0] | (uint32_t)b[1] << 8;
}

static inline uint32_t srv_get4(const char *p)
{
    return srv_get2(p) | srv_get2(p + 2) << 16;
}

static inline char *srv_put2(char *p, uint32_t x)
{
    p[0] = (char)x;
    p[1] = (char)(x >> 8);
    return p + 2;
}

static inline char *srv_put4(char *p, uint32_t x)
{
    return srv_put2(srv_put2(p, x), x >> 16);
}

#endif
