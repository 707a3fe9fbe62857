/* path.c - putting paths together and taking them apart, for programs
 * that walk trees (ls, rm, cp) or put a file into a directory (mv, cp). */
#include <errno.h>
#include <libgen.h>
#include <orthos.h>
#include <stdio.h>
#include <string.h>

/* buf = dir "/" name, without doubling a '/' that ends dir ("/" + "bin"
 * is "/bin"). ENAMETOOLONG if it does not fit. */
int pathjoin(char *buf, size_t size, const char *dir, const char *name)
{
    size_t len = strlen(dir);
    const char *sep = len && dir[len - 1] == '/' ? "" : "/";

    if ((size_t)snprintf(buf, size, "%s%s%s", dir, sep, name) >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* POSIX basename: "a/b" -> "b", "a/b/" -> "b" (the '/' is cut off in
 * path), "/" -> "/", "" -> ".". */
char *basename(char *path)
{
    char *end, *slash;

    if (!*path)
        return ".";
    end = path + strlen(path) - 1;
    while (end > path && *end == '/')
        *end-- = '\0';
    slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}
