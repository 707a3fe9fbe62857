/* touch - make sure files exist: create(S_IFREG), and an existing file
 * (EEXIST) is fine. Nothing is opened, so nothing can be truncated.
 * (Orthos has no call to set times, so an existing file is untouched.) */
#include <err.h>
#include <errno.h>
#include <orthos.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    int i, fd, status = 0;

    if (argc < 2)
        usage("file ...");
    for (i = 1; i < argc; i++) {
        if ((fd = create(AT_CWD, argv[i], S_IFREG, 0644, 0)) >= 0)
            close(fd);
        else if (errno != EEXIST) {
            warn("%s", argv[i]);
            status = 1;
        }
    }
    return status;
}
