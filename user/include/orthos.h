/* orthos.h - the Orthos primitives: each name and namespace operation as
 * its own system call taking and returning file descriptors (see
 * doc/man/ and DESIGN.md section 4). Each wrapper returns the kernel's
 * value, or -1 with errno set. The POSIX calls built from them are in
 * the headers included below, so this one header gives the whole API. */
#ifndef _ORTHOS_H
#define _ORTHOS_H

#include <stddef.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "uapi/fs.h"
#include "uapi/proc.h"

/* names */
int walk(int dirfd, const char *path, int flags);           /* -> path fd */
int ready(int fd, int mode);                                /* -> I/O fd */
int create(int dirfd, const char *path, int type, int perm, unsigned long arg);
int linkat(int fd, int dirfd, const char *path);
int unlinkat(int dirfd, const char *path, int flags);
int renameat(int odirfd, const char *old, int ndirfd, const char *new, int flags);
int readlinkat(int dirfd, const char *path, char *buf, size_t n);
int getdents(int fd, void *buf, size_t n);

/* namespace */
int fsopen(const char *type, int srcfd, const char *opts);  /* -> dir fd on its root */
int bind(int fd, int dirfd, const char *path, int flags);
int unbind(int dirfd, const char *path);                    /* -> fd on what was there */
int setattach(int dirfd, const char *path, int flags);      /* BIND_ATTRS, in place */
int revoke(int fd);
int fchroot(int fd);
int fchdir(int fd);
int unshare(void);
int chan(int fds[2]);               /* a two-way channel: fsopen("srv", fds[0], ...) serves */

/* processes */
int rfork(int flags);               /* fork; RFORK_SHAREFDS: one fd table for both */
int failnth(int n);                 /* fail the nth allocation; -> points left, 0: it fired */

/* libc helpers that are not POSIX (user/lib/copy.c, path.c, exec.c) */
int writeall(int fd, const void *buf, size_t n);    /* all of it, though pipes take less */
int fdcopy(int in, int out);                        /* until EOF: 0; -1 read, -2 write failed */
int copyfile(const char *from, const char *to);     /* a regular file, keeping its mode */
int pathjoin(char *buf, size_t size, const char *dir, const char *name);
int keepstdio(void);                                /* FD_KEEP on 0, 1, 2 for the next exec */

#endif
