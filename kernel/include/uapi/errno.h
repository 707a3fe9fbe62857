/* uapi/errno.h - error numbers, shared by the kernel and libc (Linux's
 * numbering). The kernel returns -EXXX; libc stores EXXX in errno. */
#ifndef UAPI_ERRNO_H
#define UAPI_ERRNO_H

#define EPERM        1   /* operation not permitted */
#define ENOENT       2   /* no such file or directory */
#define ESRCH        3   /* no such process */
#define EINTR        4   /* interrupted */
#define EIO          5   /* I/O error (also: the filesystem was revoked) */
#define ENXIO        6   /* no such device */
#define E2BIG        7   /* argument list too long */
#define ENOEXEC      8   /* not an executable Orthos can run */
#define EBADF        9   /* bad file descriptor (or wrong access for the call) */
#define ECHILD       10  /* no child to wait for */
#define EAGAIN       11  /* try again (non-blocking I/O) */
#define ENOMEM       12  /* out of memory */
#define EACCES       13  /* permission denied */
#define EFAULT       14  /* bad address */
#define ENOTBLK      15  /* a block device (or a regular file) is required */
#define EBUSY        16  /* device or resource busy */
#define EEXIST       17  /* name exists */
#define EXDEV        18  /* cross-device link, or WALK_BENEATH escape */
#define ENODEV       19  /* no such device or filesystem type */
#define ENOTDIR      20  /* not a directory */
#define EISDIR       21  /* is a directory */
#define EINVAL       22  /* invalid argument */
#define ENFILE       23  /* system file table full */
#define EMFILE       24  /* process fd table full */
#define ENOTTY       25  /* not a terminal */
#define EFBIG        27  /* file too large */
#define ENOSPC       28  /* no space left on device */
#define ESPIPE       29  /* illegal seek (pipe) */
#define EROFS        30  /* read-only filesystem */
#define EMLINK       31  /* too many links */
#define EPIPE        32  /* broken pipe */
#define ERANGE       34  /* result out of range */
#define ENAMETOOLONG 36 /* name too long */
#define ENOSYS       38  /* not implemented (a lab stub) */
#define ENOTEMPTY    39  /* directory not empty */
#define ELOOP        40  /* too many symbolic links */
#define EUCLEAN      117 /* structure needs cleaning: a damaged filesystem (ext2) */

#define EMAXERRNO 4095

#endif
