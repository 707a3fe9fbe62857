/* strerror.c - words for error and signal numbers, as perror, err() and
 * the shell print them. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "array_size.h"

static const char *const errors[] = {
    [0] = "Success",
    [EPERM] = "Operation not permitted",
    [ENOENT] = "No such file or directory",
    [ESRCH] = "No such process",
    [EINTR] = "Interrupted",
    [EIO] = "I/O error",
    [ENXIO] = "No such device or address",
    [E2BIG] = "Argument list too long",
    [ENOEXEC] = "Exec format error",
    [EBADF] = "Bad file descriptor",
    [ECHILD] = "No child processes",
    [EAGAIN] = "Resource temporarily unavailable",
    [ENOMEM] = "Out of memory",
    [EACCES] = "Permission denied",
    [EFAULT] = "Bad address",
    [ENOTBLK] = "Block device required",
    [EBUSY] = "Device or resource busy",
    [EEXIST] = "File exists",
    [EXDEV] = "Cross-device link",
    [ENODEV] = "No such device",
    [ENOTDIR] = "Not a directory",
    [EISDIR] = "Is a directory",
    [EINVAL] = "Invalid argument",
    [ENFILE] = "Too many open files in system",
    [EMFILE] = "Too many open files",
    [ENOTTY] = "Not a terminal",
    [EFBIG] = "File too large",
    [ENOSPC] = "No space left on device",
    [ESPIPE] = "Illegal seek",
    [EROFS] = "Read-only file system",
    [EMLINK] = "Too many links",
    [EPIPE] = "Broken pipe",
    [ERANGE] = "Result out of range",
    [ENAMETOOLONG] = "File name too long",
    [ENOSYS] = "Function not implemented",
    [ENOTEMPTY] = "Directory not empty",
    [ELOOP] = "Too many levels of symbolic links",
    [EUCLEAN] = "Structure needs cleaning",
};

static const char *const signals[] = {
    [SIGINT] = "Interrupt",
    [SIGILL] = "Illegal instruction",
    [SIGTRAP] = "Trace/breakpoint trap",
    [SIGFPE] = "Arithmetic exception",
    [SIGKILL] = "Killed",
    [SIGSEGV] = "Segmentation fault",
    [SIGTERM] = "Terminated",
};

/* A number without a name gets "what N" in a static buffer. */
static const char *lookup(const char *const *table, int n, int i, const char *what)
{
    static char unknown[32];

    if (i >= 0 && i < n && table[i])
        return table[i];
    snprintf(unknown, sizeof(unknown), "%s %d", what, i);
    return unknown;
}

const char *strerror(int errnum)
{
    return lookup(errors, (int)ARRAY_SIZE(errors), errnum, "Unknown error");
}

const char *strsignal(int sig)
{
    return lookup(signals, (int)ARRAY_SIZE(signals), sig, "Signal");
}
