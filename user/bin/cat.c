/* cat - copy files (or standard input, also named "-") to standard
 * output, in order. */
#include <err.h>
#include <fcntl.h>
#include <orthos.h>
#include <string.h>
#include <unistd.h>

static int cat(const char *path)
{
    int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY), ret;

    if (fd < 0) {
        warn("%s", path);
        return 1;
    }
    ret = fdcopy(fd, STDOUT_FILENO);
    if (ret < 0)
        warn("%s", ret == -2 ? "standard output" : path);
    if (fd != STDIN_FILENO)
        close(fd);
    return ret < 0;
}

int main(int argc, char *argv[])
{
    int i, status = 0;

    if (argc < 2)
        return cat("-");
    for (i = 1; i < argc; i++)
        status |= cat(argv[i]);
    return status;
}
