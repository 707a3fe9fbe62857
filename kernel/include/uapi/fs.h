/* uapi/fs.h - the file and namespace ABI shared by kernel and libc: node
 * types, struct stat, directory entries and the flags of the split calls
 * (walk, ready, create, bind, fcntl). See doc/man/ for each call. */
#ifndef UAPI_FS_H
#define UAPI_FS_H

#include <stdint.h>

#define AT_CWD   (-100)      /* dirfd meaning "the current directory" */
#define NAME_MAX 255
#define OPEN_MAX 32          /* fds per process */
#define PATH_MAX 1024

/* Open files one user (any uid but root's) may hold at once: half of
 * those that are not root's (file.c). ENFILE past it (walk(2)). */
#define USER_OPEN_MAX 240

/* Node types: the S_IFMT bits of st_mode, and create()'s `type`. */
#define S_IFMT      0170000
#define S_IFIFO     0010000
#define S_IFCHR     0020000
#define S_IFDIR     0040000
#define S_IFBLK     0060000
#define S_IFREG     0100000
#define S_IFLNK     0120000
#define S_IFSOCK    0140000 /* an end of a channel (chan(2)) */
#define S_ISUID     0004000 /* kept in the mode, never acted on: no set-uid programs */
#define S_ISGID     0002000
#define S_ISVTX     0001000 /* sticky: in such a directory only a name's owner removes it */
#define S_ISDIR(m)  (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m)  (((m) & S_IFMT) == S_IFREG)
#define S_ISLNK(m)  (((m) & S_IFMT) == S_IFLNK)
#define S_ISFIFO(m) (((m) & S_IFMT) == S_IFIFO)
#define S_ISCHR(m)  (((m) & S_IFMT) == S_IFCHR)
#define S_ISBLK(m)  (((m) & S_IFMT) == S_IFBLK)
#define S_ISSOCK(m) (((m) & S_IFMT) == S_IFSOCK)

struct stat {
    uint32_t st_dev;        /* which filesystem instance */
    uint32_t st_ino;
    uint32_t st_mode;       /* type | permission bits */
    uint32_t st_nlink;
    uint32_t st_size;
    uint32_t st_blocks;     /* 512-byte units in use */
    uint32_t st_rdev;       /* device number of a device node */
    uint32_t st_atime, st_mtime, st_ctime;
    uint32_t st_uid;        /* owner */
    uint32_t st_gid;        /* group */
};

/* getdents() fills a buffer with these, each d_reclen bytes long. */
struct dirent {
    uint32_t d_ino;
    uint16_t d_reclen;
    uint8_t d_type;         /* DT_* */
    char d_name[];          /* NUL-terminated */
};
#define DT_UNKNOWN 0
#define DT_FIFO    1
#define DT_CHR     2
#define DT_DIR     4
#define DT_BLK     6
#define DT_REG     8
#define DT_LNK     10

/* walk(dirfd, path, flags) */
#define WALK_NOFOLLOW 0x1     /* a final symlink is returned, not followed */
#define WALK_BENEATH  0x2     /* never leave dirfd: no "/", no ".." above, no symlink out */

/* ready(fd, mode): access, plus status flags */
#define R_READ     0x1
#define R_WRITE    0x2
#define R_RDWR     (R_READ | R_WRITE)
#define R_APPEND   0x4
#define R_NONBLOCK 0x8

/* fcntl(fd, cmd, arg) */
#define F_GETFD  1
#define F_SETFD  2
#define F_GETFL  3       /* access (R_READ/R_WRITE) | R_APPEND | R_NONBLOCK */
#define F_SETFL  4       /* only R_APPEND and R_NONBLOCK can change */
#define F_GETTTY 5       /* the console's input mode: TTY_RAW or 0 (cooked) */
#define F_SETTTY 6       /* set it; only on a console fd readied for I/O */
#define FD_KEEP  0x1     /* keep this fd across exec (default: closed) */
#define TTY_RAW  0x1     /* keys as typed: no echo, no line editing (fcntl(2)) */

/* lseek */
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2

/* unlink(dirfd, name, flags) */
#define UNLINK_DIR 0x1     /* remove a directory (must be empty) */

/* rename(odirfd, old, ndirfd, new, flags) */
#define RENAME_NOREPLACE 0x1

/* bind(fd, dirfd, path, flags): how it joins what is there (one of the
 * first three), whether it takes new names in a union, and the
 * attachment's attributes (setattach(2) changes those in place) */
#define BIND_REPLACE 0x0     /* cover what is there (the default) */
#define BIND_BEFORE  0x1     /* a union: searched before what is there (Plan 9 -b) */
#define BIND_AFTER   0x2     /* a union: searched after what is there (Plan 9 -a) */
#define BIND_CREATE  0x4     /* new names in the union are made here (Plan 9 -c) */
#define BIND_RDONLY  0x8     /* nothing changes through this attachment: EROFS */
#define BIND_NOEXEC  0x10    /* no exec of a file reached through it: EACCES */
#define BIND_NODEV   0x20    /* no device readied through it: EACCES */
#define BIND_ATTRS   (BIND_RDONLY | BIND_NOEXEC | BIND_NODEV)  /* what setattach sets */
#define BIND_FLAGS   (BIND_BEFORE | BIND_AFTER | BIND_CREATE | BIND_ATTRS)

/* Device numbers of the device nodes devfs and create() know about. */
#define MKDEV(major, minor) (((major) << 8) | (minor))
#define MAJOR(dev)          (((dev) >> 8) & 0xFF)
#define MINOR(dev)          ((dev) & 0xFF)
#define DEV_CONSOLE         1   /* minor 0: the console tty */
#define DEV_MEM             2   /* minor 0: null, 1: zero */
#define DEV_ATA             3   /* minor n: ATA disk n (hd0 .. hd3) */
#define DEV_RAMDISK         4   /* minor 0: the boot archive, read-only */

#endif
