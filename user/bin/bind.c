/* bind - attach what one name refers to at another: walk(from) +
 * bind(fd, to). A directory on a directory is a bind mount; a file on a
 * file, a device or a FIFO on a file works the same way. */
#include <err.h>
#include <orthos.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    int fd;

    if (argc != 3)
        usage("from to");
    if ((fd = walk(AT_CWD, argv[1], 0)) < 0)
        err(1, "%s", argv[1]);
    if (bind(fd, AT_CWD, argv[2], 0) < 0)
        err(1, "%s", argv[2]);
    close(fd);
    return 0;
}
