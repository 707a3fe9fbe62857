/* stdio.h - buffered streams over file descriptors. stdout is flushed at
 * each newline, before stdin is read, and at exit; stderr is unbuffered
 * (each call leaves in one write). The formatting engine is shared with
 * the kernel: vfmt, vsnprintf and snprintf come from kernel/lib/fmt.h. */
#ifndef _STDIO_H
#define _STDIO_H

#include <stdarg.h>
#include <stddef.h>
#include "lib/fmt.h"

#define EOF       (-1)
#define BUFSIZ    1024
#define FOPEN_MAX 16

typedef struct stdio_file FILE;         /* opaque: see user/lib/stdio.c */

extern FILE *stdin, *stdout, *stderr;

FILE *fopen(const char *path, const char *mode);
FILE *fdopen(int fd, const char *mode);
int fclose(FILE *fp);
int fflush(FILE *fp);                   /* NULL: every output stream */
int fileno(FILE *fp);
int feof(FILE *fp);
int ferror(FILE *fp);
void clearerr(FILE *fp);
int fseek(FILE *fp, long off, int whence);
long ftell(FILE *fp);

int fgetc(FILE *fp);
int getc(FILE *fp);
int getchar(void);
int ungetc(int c, FILE *fp);
char *fgets(char *buf, int size, FILE *fp);
int getline(char **line, size_t *cap, FILE *fp);
size_t fread(void *buf, size_t size, size_t n, FILE *fp);

int fputc(int c, FILE *fp);
int putc(int c, FILE *fp);
int putchar(int c);
int fputs(const char *s, FILE *fp);
int puts(const char *s);
size_t fwrite(const void *buf, size_t size, size_t n, FILE *fp);

int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int fprintf(FILE *fp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int dprintf(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sprintf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int vprintf(const char *fmt, va_list ap);
int vfprintf(FILE *fp, const char *fmt, va_list ap);
int vdprintf(int fd, const char *fmt, va_list ap);

void perror(const char *s);
int rename(const char *old, const char *new);   /* renameat(AT_CWD, ..., 0) */

#endif
