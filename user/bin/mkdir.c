/* mkdir - make directories (create(S_IFDIR) underneath). With -p, make
 * missing parents too and accept a directory that already exists. */
#include <err.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir each prefix of path in turn, ending at path itself. */
static int mkdir_parents(char *path)
{
    struct stat st;
    char *p, c;

    for (p = path + (*path == '/');; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        c = *p;
        *p = '\0';
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            return -1;
        *p = c;
        if (!c)
            break;
    }
    if (stat(path, &st) < 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
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
