/* fcntl.h - open() and its flags. In Orthos open() is not a system call:
 * it is built in user/lib/open.c from walk, create, ready, ftruncate and
 * fcntl. The F_* commands and FD_KEEP come from uapi/fs.h. */
#ifndef _FCNTL_H
#define _FCNTL_H

#include "uapi/fs.h"

#define O_RDONLY    0x0
#define O_WRONLY    0x1
#define O_RDWR      0x2
#define O_ACCMODE   0x3
#define O_CREAT     0x40
#define O_EXCL      0x80
#define O_TRUNC     0x200
#define O_APPEND    0x400
#define O_NONBLOCK  0x800
#define O_DIRECTORY 0x10000
#define O_NOFOLLOW  0x20000
#define O_CLOEXEC   0x80000     /* accepted, no effect: exec closes fds by default */
#define O_KEEP      0x100000    /* Orthos: keep this fd across exec (FD_KEEP) */
#define O_PATH      0x200000    /* only walk: a path fd, no I/O */

int open(const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...);
int fcntl(int fd, int cmd, int arg);

#endif
