/* exec.c - running a program by name. The exec system call takes an fd
 * (like fexecve), so exec by path is walk + ready(R_READ) + exec: the
 * name is resolved and checked in user space, the kernel only loads.
 * On success none of these return. Also keepstdio, which a program that
 * runs commands needs before each exec. */
#include <errno.h>
#include <fcntl.h>
#include <orthos.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* execve = walk + ready + close(path fd) + exec [+ close if exec failed].
 * The program fd need not be kept: exec reads the file before it closes
 * the descriptors not marked FD_KEEP. */
int execve(const char *path, char *const argv[], char *const envp[])
{
    int pathfd, fd, e;

    if ((pathfd = walk(AT_CWD, path, 0)) < 0)
        return -1;
    fd = ready(pathfd, R_READ);
    close(pathfd);
    if (fd < 0)
        return -1;
    exec(fd, argv, envp);
    e = errno;
    close(fd);
    errno = e;
    return -1;
}

/* Orthos closes every fd not marked FD_KEEP at exec (the mark itself
 * survives exec). A program that runs a command sharing its standard
 * input, output and error (env, pivot, a shell) marks them first, in case
 * whoever started it did not. A closed one is no error. */
int keepstdio(void)
{
    int fd;

    for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
        if (fcntl(fd, F_SETFD, FD_KEEP) < 0 && errno != EBADF)
            return -1;
    return 0;
}

int execv(const char *path, char *const argv[])
{
    return execve(path, argv, environ);
}

/* Try each directory of $PATH (default "/bin") in turn; an empty entry
 * means ".". A name with a '/' is used as is. Only "not there" moves on to
 * the next directory; any other failure (not executable, too big) is the
 * answer. */
int execvp(const char *file, char *const argv[])
{
    const char *dir = getenv("PATH"), *end;
    char path[PATH_MAX], entry[PATH_MAX];
    size_t len;

    if (strchr(file, '/'))
        return execv(file, argv);
    if (!dir)
        dir = "/bin";
    for (;; dir = end + 1) {
        end = strchr(dir, ':');
        len = end ? (size_t)(end - dir) : strlen(dir);
        if (len == 0)
            strlcpy(entry, ".", sizeof(entry));
        else                                    /* copies exactly len bytes */
            strlcpy(entry, dir, len < sizeof(entry) ? len + 1 : sizeof(entry));
        if (pathjoin(path, sizeof(path), entry, file) == 0)
            execv(path, argv);
        if ((errno != ENOENT && errno != ENOTDIR && errno != ENAMETOOLONG) || !end)
            return -1;
    }
}
