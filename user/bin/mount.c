/* mount - make a filesystem and attach it: mount(3) is fsopen + bind
 * (user/lib/mount.c). With no arguments, show the namespace as the
 * kernel describes it in /proc/self/ns (see also ns). */
#include <err.h>
#include <fcntl.h>
#include <orthos.h>
#include <sys/mount.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    int fd;

    if (argc == 1) {
        if ((fd = open("/proc/self/ns", O_RDONLY)) < 0 || fdcopy(fd, STDOUT_FILENO) < 0)
            err(1, "/proc/self/ns");
        return 0;
    }
    if (argc != 4 && argc != 5)
        usage("[type source|none dir [options]]");
    if (mount(argv[1], argv[2], argv[3], argc == 5 ? argv[4] : "") < 0)
        err(1, "%s on %s", argv[2], argv[3]);
    return 0;
}
