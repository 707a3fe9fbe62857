/* mv - rename. Into an existing directory, each source keeps its name.
 * rename cannot cross filesystems (EXDEV); a regular file is then copied
 * and the original unlinked, which is all a cross-device move is. If that
 * fails (a full disk), the copy it made is removed again: a failed move
 * leaves the source where it was and no half copy. (A target that was
 * already there has been cut by then, and is left.) */
#include <err.h>
#include <errno.h>
#include <libgen.h>
#include <orthos.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static int move(const char *from, const char *to)
{
    struct stat st;
    int existed, e;

    if (rename(from, to) == 0)
        return 0;
    if (errno != EXDEV || lstat(from, &st) < 0) {
        warn("%s -> %s", from, to);
        return 1;
    }
    if (!S_ISREG(st.st_mode)) {
        warnx("%s: only regular files move across filesystems (try cp -r, rm -r)", from);
        return 1;
    }
    existed = lstat(to, &st) == 0;
    if (copyfile(from, to) < 0 || unlink(from) < 0) {
        e = errno;
        if (!existed)
            unlink(to);
        errno = e;
        warn("%s -> %s", from, to);
        return 1;
    }
    return 0;
}

int main(int argc, char *argv[])
{
    char path[PATH_MAX];
    const char *dst = argv[argc - 1];
    struct stat st;
    int i, status = 0;

    if (argc < 3)
        usage("from to | from ... dir");
    if (stat(dst, &st) < 0 || !S_ISDIR(st.st_mode)) {
        if (argc > 3)
            errx(1, "%s: not a directory", dst);
        return move(argv[1], dst);
    }
    for (i = 1; i < argc - 1; i++) {
        if (pathjoin(path, sizeof(path), dst, basename(argv[i])) < 0) {
            warn("%s", argv[i]);
            status = 1;
        } else
            status |= move(argv[i], path);
    }
    return status;
}
