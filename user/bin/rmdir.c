/* rmdir - remove empty directories (unlink with UNLINK_DIR). */
#include <err.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    int i, status = 0;

    if (argc < 2)
        usage("dir ...");
    for (i = 1; i < argc; i++) {
        if (rmdir(argv[i]) < 0) {
            warn("%s", argv[i]);
            status = 1;
        }
    }
    return status;
}
