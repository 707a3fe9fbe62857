/* stdio.c - streams: a FILE is a descriptor plus a buffer. Output waits
 * in the buffer until it is full, a newline on a line-buffered stream
 * (stdout), fflush, or exit; stderr is unbuffered. Input is read a buffer
 * at a time; reading stdin first flushes stdout so a prompt shows. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <orthos.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SF_READ   0x01
#define SF_WRITE  0x02
#define SF_UNBUF  0x04        /* each call goes straight to write() */
#define SF_LINE   0x08        /* flush at every '\n' */
#define SF_EOF    0x10
#define SF_ERR    0x20
#define SF_MALLOC 0x40        /* buf is ours to free (fopen'd streams) */

struct stdio_file {
    int fd;
    int flags;                  /* 0: a free slot */
    char *buf;
    int size;
    int rpos, rlen;             /* reading: next byte, bytes held */
    int wlen;                   /* writing: bytes waiting */
};

static char inbuf[BUFSIZ], outbuf[BUFSIZ];
static struct stdio_file files[FOPEN_MAX] = {
    { 0, SF_READ, inbuf, BUFSIZ, 0, 0, 0 },
    { 1, SF_WRITE | SF_LINE, outbuf, BUFSIZ, 0, 0, 0 },
    { 2, SF_WRITE | SF_UNBUF, NULL, 0, 0, 0, 0 },
};
FILE *stdin = &files[0];
FILE *stdout = &files[1];
FILE *stderr = &files[2];

static int fail(FILE *fp, int flag)
{
    fp->flags |= flag;
    return EOF;
}

static int flush_out(FILE *fp)
{
    int n = fp->wlen;

    fp->wlen = 0;
    if (n > 0 && writeall(fp->fd, fp->buf, n) < 0)
        return fail(fp, SF_ERR);
    return 0;
}

/* A "+" stream turning from reading to writing: give back the read-ahead
 * so the bytes land where the caller thinks the stream is. */
static void drop_input(FILE *fp)
{
    if (fp->rpos < fp->rlen)
        lseek(fp->fd, fp->rpos - fp->rlen, SEEK_CUR);
    fp->rpos = fp->rlen = 0;
}

extern int (*libc_exit_flush)(void);  /* start.c: exit() calls it */

/* exit()'s flush. Output that could not be written (a full disk, a closed
 * stdout: `ls > /mnt/full`) is lost, and the program may never have
 * looked: say so here, and exit() turns a status of 0 into 1, as GNU's
 * close_stdout does. -1 if anything failed. */
static int flush_all(void)
{
    if (fflush(NULL) == 0 && !ferror(stdout))
        return 0;
    warn("write error");
    return -1;
}

/* Every output function ends here. The first buffered byte asks exit()
 * to flush (start.c). */
static int put_bytes(FILE *fp, const char *p, size_t n)
{
    int newline = 0;

    if (!(fp->flags & SF_WRITE)) {
        errno = EBADF;
        return fail(fp, SF_ERR);
    }
    if (fp->rlen)
        drop_input(fp);
    if (fp->flags & SF_UNBUF)
        return writeall(fp->fd, p, n) < 0 ? fail(fp, SF_ERR) : 0;
    libc_exit_flush = flush_all;
    for (; n > 0; n--, p++) {
        if (fp->wlen == fp->size && flush_out(fp))
            return EOF;
        fp->buf[fp->wlen++] = *p;
        newline |= *p == '\n';
    }
    if (newline && (fp->flags & SF_LINE))
        return flush_out(fp);
    return 0;
}

/* Refill the read buffer: 0, or EOF at end of file or on error. */
static int fill(FILE *fp)
{
    int n;

    if (!(fp->flags & SF_READ)) {
        errno = EBADF;
        return fail(fp, SF_ERR);
    }
    if (fp->wlen && flush_out(fp))
        return EOF;
    if (fp == stdin)
        fflush(stdout);
    if ((n = read(fp->fd, fp->buf, fp->size)) <= 0)
        return fail(fp, n == 0 ? SF_EOF : SF_ERR);
    fp->rpos = 0;
    fp->rlen = n;
    return 0;
}

/* ---------------------------------------------------------------- streams */

FILE *fdopen(int fd, const char *mode)
{
    FILE *fp;

    for (fp = files; fp < files + FOPEN_MAX && fp->flags; fp++)
        ;
    if (fp == files + FOPEN_MAX) {
        errno = EMFILE;
        return NULL;
    }
    if (!(fp->buf = malloc(BUFSIZ)))
        return NULL;
    fp->fd = fd;
    fp->size = BUFSIZ;
    fp->rpos = fp->rlen = fp->wlen = 0;
    fp->flags = SF_MALLOC;
    if (mode[0] == 'r' || strchr(mode, '+'))
        fp->flags |= SF_READ;
    if (mode[0] != 'r' || strchr(mode, '+'))
        fp->flags |= SF_WRITE;
    return fp;
}

/* "r", "w" (create, truncate), "a" (create, append), each with an
 * optional "+" for both directions; "b" is accepted and means nothing. */
FILE *fopen(const char *path, const char *mode)
{
    int flags, fd;
    FILE *fp;

    switch (mode[0]) {
    case 'r': flags = O_RDONLY; break;
    case 'w': flags = O_WRONLY | O_CREAT | O_TRUNC; break;
    case 'a': flags = O_WRONLY | O_CREAT | O_APPEND; break;
    default: errno = EINVAL; return NULL;
    }
    if (strchr(mode, '+'))
        flags = (flags & ~O_ACCMODE) | O_RDWR;
    if ((fd = open(path, flags, 0666)) < 0)
        return NULL;
    if (!(fp = fdopen(fd, mode)))
        close(fd);
    return fp;
}

int fclose(FILE *fp)
{
    int ret = fflush(fp);

    if (close(fp->fd) < 0)
        ret = EOF;
    if (fp->flags & SF_MALLOC)
        free(fp->buf);
    memset(fp, 0, sizeof(*fp));
    return ret;
}

int fflush(FILE *fp)
{
    int ret = 0;

    if (fp)
        return fp->wlen ? flush_out(fp) : 0;
    for (fp = files; fp < files + FOPEN_MAX; fp++)
        if (fp->wlen && flush_out(fp))
            ret = EOF;
    return ret;
}

int fileno(FILE *fp)
{
    return fp->fd;
}
int feof(FILE *fp)
{
    return (fp->flags & SF_EOF) != 0;
}
int ferror(FILE *fp)
{
    return (fp->flags & SF_ERR) != 0;
}
void clearerr(FILE *fp)
{
    fp->flags &= ~(SF_EOF | SF_ERR);
}

int fseek(FILE *fp, long off, int whence)
{
    if (fp->wlen && flush_out(fp))
        return -1;
    if (whence == SEEK_CUR)
        off -= fp->rlen - fp->rpos;     /* the descriptor is ahead by this much */
    fp->rpos = fp->rlen = 0;
    fp->flags &= ~SF_EOF;
    return lseek(fp->fd, off, whence) < 0 ? -1 : 0;
}

long ftell(FILE *fp)
{
    int pos = lseek(fp->fd, 0, SEEK_CUR);

    return pos < 0 ? -1 : pos - (fp->rlen - fp->rpos) + fp->wlen;
}

/* ---------------------------------------------------------------- input */

int fgetc(FILE *fp)
{
    if (fp->rpos == fp->rlen && fill(fp))
        return EOF;
    return (unsigned char)fp->buf[fp->rpos++];
}

int getc(FILE *fp)
{
    return fgetc(fp);
}
int getchar(void)
{
    return fgetc(stdin);
}

/* One byte of push-back, guaranteed; more while there is room. */
int ungetc(int c, FILE *fp)
{
    if (c == EOF || !(fp->flags & SF_READ))
        return EOF;
    if (fp->rpos == 0) {
        if (fp->rlen == fp->size)
            return EOF;
        memmove(fp->buf + 1, fp->buf, fp->rlen);
        fp->rlen++;
        fp->rpos++;
    }
    fp->buf[--fp->rpos] = (char)c;
    fp->flags &= ~SF_EOF;
    return (unsigned char)c;
}

char *fgets(char *buf, int size, FILE *fp)
{
    int i = 0, c = 0;

    while (i < size - 1 && c != '\n' && (c = fgetc(fp)) != EOF)
        buf[i++] = (char)c;
    if (i == 0 || size <= 0)
        return NULL;
    buf[i] = '\0';
    return buf;
}

/* A whole line of any length, newline included, into a buffer that grows
 * with realloc. Returns its length, or -1 at end of file or on an error
 * (ferror tells which). */
int getline(char **line, size_t *cap, FILE *fp)
{
    size_t len = 0;
    int c = 0;

    while (c != '\n' && (c = fgetc(fp)) != EOF) {
        if (len + 2 > *cap) {
            size_t ncap = *cap ? *cap * 2 : 128;
            char *p = realloc(*line, ncap);
            if (!p)
                return fail(fp, SF_ERR);    /* ENOMEM: not the end of the file */
            *line = p;
            *cap = ncap;
        }
        (*line)[len++] = (char)c;
    }
    if (len == 0)
        return -1;
    (*line)[len] = '\0';
    return len;
}

size_t fread(void *buf, size_t size, size_t n, FILE *fp)
{
    size_t want = size * n, got = 0, chunk;

    while (got < want) {
        if (fp->rpos == fp->rlen && fill(fp))
            break;
        chunk = fp->rlen - fp->rpos;
        if (chunk > want - got)
            chunk = want - got;
        memcpy((char *)buf + got, fp->buf + fp->rpos, chunk);
        fp->rpos += chunk;
        got += chunk;
    }
    return size ? got / size : 0;
}

/* ---------------------------------------------------------------- output */

int fputc(int c, FILE *fp)
{
    char ch = (char)c;

    return put_bytes(fp, &ch, 1) ? EOF : (unsigned char)ch;
}

int putc(int c, FILE *fp)
{
    return fputc(c, fp);
}
int putchar(int c)
{
    return fputc(c, stdout);
}
int fputs(const char *s, FILE *fp)
{
    return put_bytes(fp, s, strlen(s));
}

int puts(const char *s)
{
    return fputs(s, stdout) || fputc('\n', stdout) == EOF ? EOF : 0;
}

size_t fwrite(const void *buf, size_t size, size_t n, FILE *fp)
{
    return put_bytes(fp, buf, size * n) ? 0 : n;
}

static void stream_put(char c, void *fp)
{
    put_bytes(fp, &c, 1);
}

/* The printf engine is the kernel's vfmt, fed one byte at a time. An
 * unbuffered stream (stderr) is lent a buffer for the length of the call,
 * so a message leaves in one write instead of one per character. */
int vfprintf(FILE *fp, const char *fmt, va_list ap)
{
    char line[256];
    int n;

    if (!(fp->flags & SF_UNBUF))
        return vfmt(stream_put, fp, fmt, ap);
    fp->buf = line;
    fp->size = sizeof(line);
    fp->flags &= ~SF_UNBUF;
    n = vfmt(stream_put, fp, fmt, ap);
    flush_out(fp);
    fp->buf = NULL;
    fp->size = 0;
    fp->flags |= SF_UNBUF;
    return ferror(fp) ? EOF : n;
}

void perror(const char *s)
{
    const char *msg = strerror(errno);

    if (s && *s)
        fprintf(stderr, "%s: %s\n", s, msg);
    else
        fprintf(stderr, "%s\n", msg);
}
