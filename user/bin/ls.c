/* ls - list directories. A directory operand lists its entries (sorted,
 * without dot-files unless -a); any other operand lists itself. -l adds
 * type and permissions, links, and size (or device numbers), and shows
 * where a symlink points. */
#include <dirent.h>
#include <err.h>
#include <orthos.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int aflag, lflag;

static int visible(const struct dirent *e)
{
    return aflag || e->d_name[0] != '.';
}

/* One line for the node at path, shown as name. */
static int show(const char *path, const char *name)
{
    char mode[11], target[PATH_MAX];
    struct stat st;
    int n;

    if (!lflag) {
        printf("%s\n", name);
        return 0;
    }
    if (lstat(path, &st) < 0) {
        warn("%s", path);
        return 1;
    }
    strmode(st.st_mode, mode);
    printf("%s %2u ", mode, (unsigned)st.st_nlink);
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
        printf("%3u, %3u", (unsigned)MAJOR(st.st_rdev), (unsigned)MINOR(st.st_rdev));
    else
        printf("%8u", (unsigned)st.st_size);
    printf(" %s", name);
    if (S_ISLNK(st.st_mode) && (n = readlink(path, target, sizeof(target) - 1)) >= 0) {
        target[n] = '\0';
        printf(" -> %s", target);
    }
    putchar('\n');
    return 0;
}

static int list(const char *path, int header)
{
    char child[PATH_MAX];
    struct dirent **names;
    struct stat st;
    int n, i, status = 0;

    if (stat(path, &st) < 0 && lstat(path, &st) < 0) {     /* a dangling link shows */
        warn("%s", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode))
        return show(path, path);
    if ((n = scandir(path, &names, visible, alphasort)) < 0) {
        warn("%s", path);
        return 1;
    }
    if (header)
        printf("%s:\n", path);
    for (i = 0; i < n; i++) {
        if (pathjoin(child, sizeof(child), path, names[i]->d_name) < 0) {
            warn("%s/%s", path, names[i]->d_name);
            status = 1;
        } else
            status |= show(child, names[i]->d_name);
        free(names[i]);
    }
    free(names);
    return status;
}

int main(int argc, char *argv[])
{
    int c, i, status = 0;

    while ((c = getopt(argc, argv, "al")) != -1) {
        if (c == 'a')
            aflag = 1;
        else if (c == 'l')
            lflag = 1;
        else
            usage("[-al] [path ...]");
    }
    if (optind == argc)
        return list(".", 0);
    for (i = optind; i < argc; i++) {
        if (i > optind)
            putchar('\n');
        status |= list(argv[i], argc - optind > 1);
    }
    return status;
}
