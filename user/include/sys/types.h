/* sys/types.h - the POSIX type names. On i386 Orthos they are all plain
 * 32-bit integers, which is why the rest of libc just says `int`. */
#ifndef _SYS_TYPES_H
#define _SYS_TYPES_H

#include <stddef.h>

typedef int ssize_t;
typedef int pid_t;
typedef int off_t;
typedef unsigned int mode_t;
typedef unsigned int dev_t;

#endif
