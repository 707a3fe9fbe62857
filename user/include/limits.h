/* limits.h - integer limits, from the compiler's own macros. Ours rather
 * than gcc's, because a Linux-hosted gcc's limits.h pulls in glibc's (and
 * its PATH_MAX); PATH_MAX and NAME_MAX here are the kernel's, uapi/fs.h. */
#ifndef _LIMITS_H
#define _LIMITS_H

#include "uapi/fs.h"

#define CHAR_BIT  __CHAR_BIT__
#define SCHAR_MAX __SCHAR_MAX__
#define SCHAR_MIN (-SCHAR_MAX - 1)
#define UCHAR_MAX (SCHAR_MAX * 2 + 1)
#define CHAR_MAX  SCHAR_MAX
#define CHAR_MIN  SCHAR_MIN
#define SHRT_MAX  __SHRT_MAX__
#define SHRT_MIN  (-SHRT_MAX - 1)
#define USHRT_MAX (SHRT_MAX * 2 + 1)
#define INT_MAX   __INT_MAX__
#define INT_MIN   (-INT_MAX - 1)
#define UINT_MAX  (INT_MAX * 2U + 1U)
#define LONG_MAX  __LONG_MAX__
#define LONG_MIN  (-LONG_MAX - 1L)
#define ULONG_MAX (LONG_MAX * 2UL + 1UL)

#endif
