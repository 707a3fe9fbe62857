/* string.h - string and memory functions. The core set (memcpy, strlen,
 * strcmp, strlcpy, ...) is kernel/lib/string.c, compiled into libc as is;
 * its header is included here so there is one declaration of each. The
 * rest is user/lib/ustring.c and user/lib/strerror.c. */
#ifndef _STRING_H
#define _STRING_H

#include <stddef.h>
#include "lib/string.h"

void *memchr(const void *s, int c, size_t n);
char *strcpy(char *dst, const char *src);
char *strncpy(char *dst, const char *src, size_t n);
char *strcat(char *dst, const char *src);
char *strncat(char *dst, const char *src, size_t n);
char *strdup(const char *s);
char *strndup(const char *s, size_t n);
size_t strspn(const char *s, const char *accept);
size_t strcspn(const char *s, const char *reject);
char *strpbrk(const char *s, const char *accept);
char *strstr(const char *haystack, const char *needle);
char *strtok(char *s, const char *delim);
char *strtok_r(char *s, const char *delim, char **save);

const char *strerror(int errnum);
const char *strsignal(int sig);

#endif
