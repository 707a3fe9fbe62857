/* rm - remove names. -r removes directories and everything in them;
 * -f is quiet about names that do not exist. A symlink is removed, never
 * followed. A name ending in "." or ".." is refused, as POSIX says: rm -r
 * would empty the directory it means before rmdir failed. */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <libgen.h>
#include <orthos.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fflag, rflag;

static int rm(const char *path);

/* The entries first (read in full before any is removed, so removing
 * does not disturb the reading), then the directory itself. One that
 * cannot be read may still be empty: then rmdir alone removes it. A level
 * of the tree is a level of recursion: its path buffer is on the heap, as
 * a PATH_MAX array here overflowed the 128 KiB user stack 120 levels
 * down, in a tree whose paths all fit PATH_MAX. */
static int rm_tree(const char *path)
{
    char *child = malloc(PATH_MAX);
    struct dirent **names;
    int n, i, status = 0, e;

    if (!child || (n = scandir(path, &names, notdots, NULL)) < 0) {
        e = errno;
        free(child);
        if (rmdir(path) == 0)
            return 0;
        errno = e;
        warn("%s", path);
        return 1;
    }
    for (i = 0; i < n; i++) {
        if (pathjoin(child, PATH_MAX, path, names[i]->d_name) < 0) {
            warn("%s", path);
            status = 1;
        } else
            status |= rm(child);
        free(names[i]);
    }
    free(names);
    free(child);
    if (rmdir(path) < 0) {
        warn("%s", path);
        status = 1;
    }
    return status;
}

static int rm(const char *path)
{
    struct stat st;

    if (lstat(path, &st) < 0) {
        if (fflag && errno == ENOENT)
            return 0;
        warn("%s", path);
        return 1;
    }
    if (S_ISDIR(st.st_mode)) {
        if (rflag)
            return rm_tree(path);
        errno = EISDIR;
        warn("%s", path);
        return 1;
    }
    if (unlink(path) < 0) {
        warn("%s", path);
        return 1;
    }
    return 0;
}

/* Is the last component of path "." or ".." ("d/..", "./")? */
static int is_dot_or_dotdot(const char *path)
{
    char copy[PATH_MAX];
    const char *last;

    strlcpy(copy, path, sizeof(copy));
    last = basename(copy);              /* it cuts the copy's trailing '/' */
    return strcmp(last, ".") == 0 || strcmp(last, "..") == 0;
}

int main(int argc, char *argv[])
{
    int c, i, status = 0;

    while ((c = getopt(argc, argv, "rf")) != -1) {
        if (c == 'r')
            rflag = 1;
        else if (c == 'f')
            fflag = 1;
        else
            usage("[-rf] path ...");
    }
    if (optind == argc && !fflag)
        usage("[-rf] path ...");
    for (i = optind; i < argc; i++) {
        if (is_dot_or_dotdot(argv[i])) {
            warnx("%s: refusing to remove . or ..", argv[i]);
            status = 1;
        } else
            status |= rm(argv[i]);
    }
    return status;
}
