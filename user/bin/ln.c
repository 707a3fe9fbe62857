/* ln - give a node another name: a hard link (walk + linkat), or with -s
 * a symbolic link (create(S_IFLNK)) whose target is stored as text and
 * need not exist. */
#include <err.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    int c, sflag = 0;

    while ((c = getopt(argc, argv, "s")) != -1) {
        if (c != 's')
            usage("[-s] target name");
        sflag = 1;
    }
    if (argc - optind != 2)
        usage("[-s] target name");
    if ((sflag ? symlink(argv[optind], argv[optind + 1]) : link(argv[optind], argv[optind + 1])) <
        0)
        err(1, "%s", argv[optind + 1]);
    return 0;
}
