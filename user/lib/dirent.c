/* dirent.c - reading directories. A DIR holds a directory fd readied for
 * reading and a buffer of entries filled by getdents(); readdir hands
 * them out one at a time. scandir reads a whole directory into memory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <orthos.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct dir_stream {
    int fd;
    int pos, len;               /* next entry in buf, bytes in buf */
    char buf[2048] __attribute__((aligned(4)));
};

/* opendir = open(path, O_RDONLY | O_DIRECTORY) [walk + fstat + ready] */
DIR *opendir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    DIR *d;

    if (fd < 0)
        return NULL;
    if (!(d = fdopendir(fd)))
        close(fd);
    return d;
}

DIR *fdopendir(int fd)
{
    DIR *d = malloc(sizeof(*d));

    if (d) {
        d->fd = fd;
        d->pos = d->len = 0;
    }
    return d;
}

/* NULL at the end of the directory, or on error (with errno set). */
struct dirent *readdir(DIR *d)
{
    struct dirent *e;

    if (d->pos >= d->len) {
        d->len = getdents(d->fd, d->buf, sizeof(d->buf));
        d->pos = 0;
        if (d->len <= 0)
            return NULL;
    }
    e = (struct dirent *)(d->buf + d->pos);
    d->pos += e->d_reclen;
    return e;
}

int closedir(DIR *d)
{
    int ret = close(d->fd);

    free(d);
    return ret;
}

int dirfd(DIR *d)
{
    return d->fd;
}

int alphasort(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

int notdots(const struct dirent *e)
{
    return strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
}

/* qsort's comparator takes pointers to the array elements, which are
 * struct dirent pointers; scandir's takes them typed. */
static int (*scan_cmp)(const struct dirent **, const struct dirent **);

static int scan_compare(const void *a, const void *b)
{
    return scan_cmp((const struct dirent **)a, (const struct dirent **)b);
}

static void free_list(struct dirent **list, int n)
{
    while (n > 0)
        free(list[--n]);
    free(list);
}

int scandir(const char *path, struct dirent ***list, int (*filter)(const struct dirent *),
            int (*cmp)(const struct dirent **, const struct dirent **))
{
    DIR *d = opendir(path);
    struct dirent *e, **v = NULL, **nv;
    int n = 0, cap = 0;

    if (!d)
        return -1;
    while ((e = readdir(d))) {
        if (filter && !filter(e))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            if (!(nv = realloc(v, cap * sizeof(*v))))
                goto fail;
            v = nv;
        }
        if (!(v[n] = malloc(e->d_reclen)))
            goto fail;
        memcpy(v[n++], e, e->d_reclen);
    }
    if (d->len < 0) {                   /* getdents failed (EIO...): not the end */
        int saved = errno;
        closedir(d);
        free_list(v, n);
        errno = saved;
        return -1;
    }
    closedir(d);
    if (cmp) {
        scan_cmp = cmp;
        qsort(v, n, sizeof(*v), scan_compare);
    }
    *list = v;
    return n;
fail:
    closedir(d);
    free_list(v, n);
    errno = ENOMEM;
    return -1;
}
