/* errno.h - the error number of the last failed library call. The values
 * are the kernel's (uapi/errno.h): a system call returns -EXXX, and the
 * libc wrapper stores EXXX here and returns -1. */
#ifndef _ERRNO_H
#define _ERRNO_H

#include "uapi/errno.h"

extern int errno;

#endif
