/* stdlib.h - memory (malloc over sbrk), process exit, number parsing, the
 * environment, sorting. */
#ifndef _STDLIB_H
#define _STDLIB_H

#include <stddef.h>

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define EXIT_EPIPE   141     /* wrote to a pipe nobody reads (copy.c); Unix: 128 + SIGPIPE */
#define RAND_MAX     0x7fffffff

void *malloc(size_t n);
void *calloc(size_t count, size_t size);
void *realloc(void *p, size_t n);
void free(void *p);

void exit(int code) __attribute__((noreturn));  /* flushes stdio, then _exit */

int atoi(const char *s);
long atol(const char *s);
long strtol(const char *s, char **end, int base);
unsigned long strtoul(const char *s, char **end, int base);
int abs(int n);
long labs(long n);

char *getenv(const char *name);
int setenv(const char *name, const char *value, int overwrite);
int unsetenv(const char *name);

void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
int rand(void);
void srand(unsigned seed);

#endif
