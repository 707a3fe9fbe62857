/* dirent.h - reading directories: a DIR buffers the getdents() system
 * call. opendir is open(path, O_RDONLY | O_DIRECTORY): readying a
 * directory for reading is what lets getdents work on it. */
#ifndef _DIRENT_H
#define _DIRENT_H

#include "uapi/fs.h"

typedef struct dir_stream DIR;          /* opaque: see user/lib/dirent.c */

DIR *opendir(const char *path);
DIR *fdopendir(int fd);
struct dirent *readdir(DIR *d);
int closedir(DIR *d);
int dirfd(DIR *d);

/* All entries of path that filter accepts (NULL: all), sorted by cmp
 * (NULL: unsorted), in a malloc'd array of malloc'd copies. Returns the
 * count, or -1. */
int scandir(const char *path, struct dirent ***list, int (*filter)(const struct dirent *),
            int (*cmp)(const struct dirent **, const struct dirent **));
int alphasort(const struct dirent **a, const struct dirent **b);
int notdots(const struct dirent *e);    /* a filter: all but "." and ".." */

#endif
