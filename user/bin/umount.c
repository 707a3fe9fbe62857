/* umount - detach what is attached at a directory: unbind + close. Files
 * still open inside keep working; the filesystem goes when they close. */
#include <err.h>
#include <sys/mount.h>

int main(int argc, char *argv[])
{
    int i, status = 0;

    if (argc < 2)
        usage("dir ...");
    for (i = 1; i < argc; i++) {
        if (umount(argv[i]) < 0) {
            warn("%s", argv[i]);
            status = 1;
        }
    }
    return status;
}
