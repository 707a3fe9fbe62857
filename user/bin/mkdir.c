/* mkdir - make directories (create(S_IFDIR) underneath). With -p, make
 * missing parents too and accept a directory that already exists. */
#include <err.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Is path a directory? errno is left as it was. */
static int is_dir(const char *path)
{
    struct stat st;
    int e = errno, ret = stat(path, &st) == 0 && S_ISDIR(st.st_mode);

    errno = e;
    return ret;
}

/* mkdir each prefix of path in turn, ending at path itself. A prefix that
 * is already a directory is fine whatever mkdir said: EEXIST, or EACCES
 * or EROFS from a parent nobody may write (a user's mkdir -p /tmp/x: "/"
 * is root's), or EINVAL for "/". On failure path is cut at the prefix
 * that failed, and errno says why. */
static int mkdir_parents(char *path)
{
    char *p, c;

    for (p = path + (*path == '/');; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        c = *p;
        *p = '\0';
        if (mkdir(path, 0755) < 0 && !is_dir(path)) {
            if (errno == EEXIST)
                errno = ENOTDIR;        /* there, and not a directory */
            return -1;
        }
        *p = c;
        if (!c)
            break;
    }
    return 0;
}

int main(int argc, char *argv[])
{
    int c, i, pflag = 0, status = 0;

    while ((c = getopt(argc, argv, "p")) != -1) {
        if (c != 'p')
            usage("[-p] dir ...");
        pflag = 1;
    }
    if (optind == argc)
        usage("[-p] dir ...");
    for (i = optind; i < argc; i++) {
        if ((pflag ? mkdir_parents(argv[i]) : mkdir(argv[i], 0755)) < 0) {
            warn("%s", argv[i]);
            status = 1;
        }
    }
    return status;
}
