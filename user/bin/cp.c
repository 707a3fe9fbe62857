/* cp - copy files. Into an existing directory, each source keeps its
 * name. -r copies a directory and everything in it; the copy is never
 * copied into itself (cp -r a a/b). */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <libgen.h>
#include <orthos.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int rflag;
static struct stat made;                /* the first directory -r made... */
static int have_made;                   /* ...once there is one */

static int copy(const char *from, const char *to);

static int copy_tree(const char *from, const char *to, const struct stat *st)
{
    char src[PATH_MAX], dst[PATH_MAX];
    struct dirent **names;
    int n, i, status = 0;

    if (mkdir(to, st->st_mode & 07777) < 0 && errno != EEXIST) {
        warn("%s", to);
        return 1;
    }
    if (!have_made) {
        if (stat(to, &made) < 0) {
            warn("%s", to);
            return 1;
        }
        have_made = 1;
    }
    if ((n = scandir(from, &names, notdots, alphasort)) < 0) {
        warn("%s", from);
        return 1;
    }
    for (i = 0; i < n; i++) {
        if (pathjoin(src, sizeof(src), from, names[i]->d_name) < 0 ||
            pathjoin(dst, sizeof(dst), to, names[i]->d_name) < 0) {
            warn("%s", from);
            status = 1;
        } else
            status |= copy(src, dst);
        free(names[i]);
    }
    free(names);
    return status;
}

static int copy(const char *from, const char *to)
{
    struct stat st;

    if (stat(from, &st) < 0) {
        warn("%s", from);
        return 1;
    }
    if (S_ISDIR(st.st_mode)) {
        if (!rflag) {
            warnx("%s: is a directory (not copied; use -r)", from);
            return 1;
        }
        if (have_made && st.st_dev == made.st_dev && st.st_ino == made.st_ino)
            return 0;                   /* the copy we are making: skip */
        return copy_tree(from, to, &st);
    }
    if (copyfile(from, to) < 0) {
        warn("%s -> %s", from, to);
        return 1;
    }
    return 0;
}

int main(int argc, char *argv[])
{
    char path[PATH_MAX];
    const char *dst;
    struct stat st;
    int c, i, status = 0;

    while ((c = getopt(argc, argv, "r")) != -1) {
        if (c != 'r')
            usage("[-r] from to | [-r] from ... dir");
        rflag = 1;
    }
    if (argc - optind < 2)
        usage("[-r] from to | [-r] from ... dir");
    dst = argv[argc - 1];
    if (stat(dst, &st) < 0 || !S_ISDIR(st.st_mode)) {
        if (argc - optind > 2)
            errx(1, "%s: not a directory", dst);
        return copy(argv[optind], dst);
    }
    for (i = optind; i < argc - 1; i++) {
        if (pathjoin(path, sizeof(path), dst, basename(argv[i])) < 0) {
            warn("%s", argv[i]);
            status = 1;
        } else
            status |= copy(argv[i], path);
    }
    return status;
}
