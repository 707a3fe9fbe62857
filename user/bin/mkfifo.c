/* mkfifo - make named pipes: create(S_IFIFO) + close. (A pipe end made
 * by pipe() can also be given a name, with bind.) */
#include <err.h>
#include <sys/stat.h>

int main(int argc, char *argv[])
{
    int i, status = 0;

    if (argc < 2)
        usage("name ...");
    for (i = 1; i < argc; i++) {
        if (mkfifo(argv[i], 0644) < 0) {
            warn("%s", argv[i]);
            status = 1;
        }
    }
    return status;
}
