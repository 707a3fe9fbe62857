/* kstring.h - compile kernel/lib/string.c and fmt.c into a host test
 * under k_ names, so they don't replace the host C library's own. */
#ifndef HOSTTEST_KSTRING_H
#define HOSTTEST_KSTRING_H

#define memset    k_memset
#define memcpy    k_memcpy
#define memmove   k_memmove
#define memcmp    k_memcmp
#define strlen    k_strlen
#define strnlen   k_strnlen
#define strcmp    k_strcmp
#define strncmp   k_strncmp
#define strchr    k_strchr
#define strrchr   k_strrchr
#define strlcpy   k_strlcpy
#define strlcat   k_strlcat
#define vsnprintf k_vsnprintf
#define snprintf  k_snprintf

#include "lib/string.c"
#include "lib/fmt.c"

#endif
