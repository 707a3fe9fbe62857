/* open.c - open() is not a system call in Orthos. Unix's open does up to
 * five things at once; here each is its own call, and open is their
 * composition:
 *   get a name      walk(dirfd, path, flags)      or create() for O_CREAT
 *   check its type  fstat(pathfd)                 only for O_DIRECTORY, O_TRUNC
 *   ready it        ready(pathfd, mode)           access, append, nonblock
 *   take its slot   dup2(fd, pathfd), close(fd)   the lowest free fd
 *   truncate        ftruncate(fd, 0)              O_TRUNC
 *   keep on exec    fcntl(fd, F_SETFD, FD_KEEP)   O_KEEP
 * A plain open is walk, ready, dup2, close: each system call costs about
 * a microsecond under QEMU, so no step is made that no flag needs.
 * O_CLOEXEC is accepted and does nothing: exec already closes every fd
 * that was not marked FD_KEEP. */
#include <errno.h>
#include <fcntl.h>
#include <orthos.h>
#include <stdarg.h>
#include <unistd.h>

/* LAB 01: BEGIN (stub:
int openat(int dirfd, const char *path, int flags, ...)
{
    errno = ENOSYS;
    return -1;
}
) */
/* The path fd for path: a new file if O_CREAT. create() is always
 * exclusive, so "create or open" is: try create, and on EEXIST (unless the
 * caller asked for O_EXCL) walk to the file that is already there. The
 * kernel resolves the directories in path for create as it does for walk. */
static int name_fd(int dirfd, const char *path, int flags, int mode, int *created)
{
    int wflags = (flags & O_NOFOLLOW) ? WALK_NOFOLLOW : 0;
    int fd;

    *created = 0;
    if (!(flags & O_CREAT))
        return walk(dirfd, path, wflags);
    fd = create(dirfd, path, S_IFREG, mode & 07777, 0);
    *created = fd >= 0;
    if (fd < 0 && errno == EEXIST && !(flags & O_EXCL))
        fd = walk(dirfd, path, wflags);
    return fd;
}

static int ready_mode(int flags)
{
    static const int access[] = { R_READ, R_WRITE, R_RDWR, -1 };
    int mode = access[flags & O_ACCMODE];

    if (flags & O_APPEND)
        mode |= R_APPEND;
    if (flags & O_NONBLOCK)
        mode |= R_NONBLOCK;
    return mode;
}

/* Readies pathfd and puts the result in pathfd's own slot, then
 * truncates: only regular files have a length to cut, so `> /dev/null`
 * works. The path fd's slot was the lowest free one when walk or create
 * made it, so the result is the lowest free fd, as POSIX open() promises
 * (ready() made its fd above it). dup2 closes the path fd as it fills
 * the slot; on failure nothing is left open. */
static int ready_fd(int pathfd, int flags, const struct stat *st)
{
    int mode = ready_mode(flags), fd;

    if (mode < 0) {
        errno = EINVAL;
        fd = -1;
    } else
        fd = ready(pathfd, mode);
    if (fd < 0 || dup2(fd, pathfd) < 0) {
        if (fd >= 0)
            close(fd);
        close(pathfd);
        return -1;
    }
    close(fd);
    fd = pathfd;
    if ((flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY && S_ISREG(st->st_mode) &&
        ftruncate(fd, 0) < 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* A failed open leaves nothing behind: a file it made goes again. */
static int undo_create(int dirfd, const char *path, int created)
{
    int e = errno;

    if (created)
        unlinkat(dirfd, path, 0);
    errno = e;
    return -1;
}

int openat(int dirfd, const char *path, int flags, ...)
{
    struct stat st;
    int fd, mode = 0, created;
    va_list ap;

    if (flags & O_CREAT) {
        va_start(ap, flags);
        mode = va_arg(ap, int);
        va_end(ap);
    }
    if ((fd = name_fd(dirfd, path, flags, mode, &created)) < 0)
        return -1;
    if ((flags & (O_DIRECTORY | O_TRUNC)) && fstat(fd, &st) < 0)
        goto fail;                      /* the type, when a flag depends on it */
    if ((flags & O_DIRECTORY) && !S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        goto fail;
    }
    if (!(flags & O_PATH) && (fd = ready_fd(fd, flags, &st)) < 0)
        return undo_create(dirfd, path, created);
    if ((flags & O_KEEP) && fcntl(fd, F_SETFD, FD_KEEP) < 0)
        goto fail;
    return fd;
fail:
    close(fd);
    return undo_create(dirfd, path, created);
}
/* LAB 01: END */

int open(const char *path, int flags, ...)
{
    int mode = 0;
    va_list ap;

    if (flags & O_CREAT) {
        va_start(ap, flags);
        mode = va_arg(ap, int);
        va_end(ap);
    }
    return openat(AT_CWD, path, flags, mode);
}
