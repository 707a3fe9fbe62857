/* chmod - set the permission bits of files: `chmod MODE FILE...`, MODE
 * in octal (chmod(3) = walk + fchmod(2): no file is opened). */
#include <err.h>
#include <stdlib.h>
#include <sys/stat.h>

int main(int argc, char *argv[])
{
    int i, status = 0;
    char *end;
    long mode;

    if (argc < 3)
        usage("octal-mode file ...");
    mode = strtol(argv[1], &end, 8);
    if (*end || end == argv[1] || mode < 0 || mode > 07777)
        errx(2, "%s: not an octal mode", argv[1]);
    for (i = 2; i < argc; i++) {
        if (chmod(argv[i], (int)mode) < 0) {
            warn("%s", argv[i]);
            status = 1;
        }
    }
    return status;
}
