/* rm - remove names. -r removes directories and everything in them;
 * -f is quiet about names that do not exist. A symlink is removed, never
 * followed. */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <orthos.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int fflag, rflag;

static int rm(const char *path);

/* The entries first (read in full before any is removed, so removing
 * does not disturb the reading), then the directory itself. */
static int rm_tree(const char *path)
{
    char child[PATH_MAX];
    struct dirent **names;
    int n, i, status = 0;

    if ((n = scandir(path, &names, notdots, NULL)) < 0) {
        warn("%s", path);
        return 1;
    }
    for (i = 0; i < n; i++) {
        if (pathjoin(child, sizeof(child), path, names[i]->d_name) < 0) {
            warn("%s", path);
            status = 1;
        } else
            status |= rm(child);
        free(names[i]);
    }
    free(names);
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
    for (i = optind; i < argc; i++)
        status |= rm(argv[i]);
    return status;
}
