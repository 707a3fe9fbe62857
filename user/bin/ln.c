/* ln - give a node another name: a hard link (walk + linkat), or with -s
 * a symbolic link (create(S_IFLNK)) whose target is stored as text and
 * need not exist. A hard link's target must: if it does not, the message
 * names it, not the new name. */
#include <err.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    struct stat st;
    int c, sflag = 0;

    while ((c = getopt(argc, argv, "s")) != -1) {
        if (c != 's')
            usage("[-s] target name");
        sflag = 1;
    }
    if (argc - optind != 2)
        usage("[-s] target name");
    if (!sflag && lstat(argv[optind], &st) < 0)
        err(1, "%s", argv[optind]);
    if ((sflag ? symlink(argv[optind], argv[optind + 1]) : link(argv[optind], argv[optind + 1])) <
        0)
        err(1, "%s", argv[optind + 1]);
    return 0;
}
