/* bind - attach what one name refers to at another: walk(from) +
 * bind(fd, to). A directory on a directory is a bind mount; a file on a
 * file, a device or a FIFO on a file works the same way. Plan 9's
 * options: -b or -a make a union of `to` and `from` (searched before or
 * after what is there), -c lets the union create in `from`; -r attaches
 * read-only, -n noexec (bind(2), setattach(2)). */
#include <err.h>
#include <orthos.h>
#include <sys/mount.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    int fd, flags, i = bind_options(argc, argv, &flags);

    if (i < 0 || argc - i != 2)
        usage(BIND_OPTIONS " from to");
    if ((fd = walk(AT_CWD, argv[i], 0)) < 0)
        err(1, "%s", argv[i]);
    if (bind(fd, AT_CWD, argv[i + 1], flags) < 0)
        err(1, "%s", argv[i + 1]);
    close(fd);
    return 0;
}
