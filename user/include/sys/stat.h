/* sys/stat.h - node metadata and the calls that make nodes. fstat is a
 * system call; stat and lstat are walk + fstat, and mkdir, mkfifo and
 * mknod are create() under their old names (user/lib/stat.c, names.c). */
#ifndef _SYS_STAT_H
#define _SYS_STAT_H

#include <sys/types.h>
#include "uapi/fs.h"

int fstat(int fd, struct stat *st);
int stat(const char *path, struct stat *st);
int lstat(const char *path, struct stat *st);
int mkdir(const char *path, int mode);
int mkfifo(const char *path, int mode);
int mknod(const char *path, int mode, int dev);    /* mode includes the S_IF* type */
int fchmod(int fd, int mode);                       /* any fd, a path fd too */
int chmod(const char *path, int mode);              /* walk + fchmod + close */

/* Orthos extra (BSD has one too): "drwxr-xr-x" for mode in buf[11]. */
void strmode(unsigned mode, char *buf);

#endif
