/* cp - copy files. Into an existing directory, each source keeps its
 * name. -r copies a directory and everything in it; the copy is never
 * copied into itself (cp -r a a/b), and nothing is copied onto itself:
 * opening the target truncates it, which would empty the source first
 * (cp a a, cp -r dir .). -r copies a symlink as a symlink and a FIFO or
 * a device as a new node of its kind, as POSIX cp -R does: following a
 * link to ".." would copy the tree into itself, and opening a FIFO waits
 * for a writer for ever. */
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

/* A node that -r copies as what it is, not by its contents. */
static int copy_node(const char *from, const char *to, const struct stat *st)
{
    char target[PATH_MAX];
    int n;

    if (S_ISLNK(st->st_mode)) {
        if ((n = readlink(from, target, sizeof(target) - 1)) < 0) {
            warn("%s", from);
            return 1;
        }
        target[n] = '\0';
        n = symlink(target, to);
    } else
        n = mknod(to, st->st_mode, st->st_rdev);
    if (n < 0) {
        warn("%s -> %s", from, to);
        return 1;
    }
    return 0;
}

/* mkdir to, or accept a directory already there (cp -r into a tree that
 * exists); the first one made is remembered, not to be copied into
 * itself. Its own function, so that its struct stat is not in every
 * level of the recursion. A directory it makes has rwx for its owner
 * until copy_tree has filled it: a user could not copy into a copy of
 * a 0555 directory. 1 if it made one, 0 if one was there, -1. */
static int make_dir(const char *to, int mode)
{
    struct stat dir;
    int created = mkdir(to, mode | 0700) == 0;

    if ((!created && errno != EEXIST) || stat(to, &dir) < 0) {
        warn("%s", to);
        return -1;
    }
    if (!S_ISDIR(dir.st_mode)) {
        warnx("%s: not a directory", to);
        return -1;
    }
    if (!have_made) {
        made = dir;
        have_made = 1;
    }
    return created;
}

/* A level of the tree is a level of recursion, so each keeps little on
 * the stack: the two paths are on the heap (two PATH_MAX arrays per level
 * overflowed the 128 KiB user stack 60 levels down). A directory it made
 * gets its own bits once it is full, even if it could not be read. */
static int copy_tree(const char *from, const char *to, const struct stat *st)
{
    int mode = st->st_mode & 07777, n = 0, i, status = 0, created;
    struct dirent **names = NULL;
    char *src, *dst;                    /* one allocation: dst = src + PATH_MAX */

    if ((created = make_dir(to, mode)) < 0)
        return 1;
    if (!(src = malloc(2 * PATH_MAX)) || (n = scandir(from, &names, notdots, alphasort)) < 0) {
        warn("%s", from);
        status = 1;
        n = 0;
    }
    dst = src ? src + PATH_MAX : NULL;
    for (i = 0; i < n; i++) {
        if (pathjoin(src, PATH_MAX, from, names[i]->d_name) < 0 ||
            pathjoin(dst, PATH_MAX, to, names[i]->d_name) < 0) {
            warn("%s", from);
            status = 1;
        } else
            status |= copy(src, dst);
        free(names[i]);
    }
    free(names);
    free(src);
    if (created && (mode & 0700) != 0700 && chmod(to, mode) < 0) {
        warn("%s", to);
        status = 1;
    }
    return status;
}

/* Is to the node st describes (cp a a, or a hard link of a)? */
static int same_file(const char *to, const struct stat *st)
{
    struct stat old;

    return (rflag ? lstat : stat)(to, &old) == 0 && old.st_dev == st->st_dev &&
           old.st_ino == st->st_ino;
}

static int copy(const char *from, const char *to)
{
    struct stat st;

    if ((rflag ? lstat : stat)(from, &st) < 0) {
        warn("%s", from);
        return 1;
    }
    if (same_file(to, &st)) {
        warnx("%s and %s are the same file", from, to);
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
    if (rflag && !S_ISREG(st.st_mode))
        return copy_node(from, to, &st);
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
        have_made = 0;                  /* each source's copy is a new tree */
        if (pathjoin(path, sizeof(path), dst, basename(argv[i])) < 0) {
            warn("%s", argv[i]);
            status = 1;
        } else
            status |= copy(argv[i], path);
    }
    return status;
}
