/* syscalls.c - the user side of every system call. One trap() does the
 * work (uapi/syscall.h: number in eax, arguments in ebx, ecx, edx, esi,
 * edi, result in eax); each wrapper below is one line giving the call its
 * C type. A result in [-EMAXERRNO, -1] is an error: errno gets it, -1 is
 * returned. Calls that need more than one trap live in compose files. */
#include <errno.h>
#include <orthos.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>
#include "uapi/syscall.h"

int errno;
extern int __sysenter_ok;               /* crt0.asm: the CPU has sysenter */

/* sysenter when the CPU has it (much cheaper under QEMU than an
 * interrupt), int $0x80 otherwise: the same registers either way, but
 * sysenter saves no return address, so this passes it as a call would,
 * on top of the stack, with the stack pointer in ebp; sysexit comes back
 * with that address in edx and the stack pointer past it in ecx, so both
 * are lost (uapi/syscall.h). ebp is saved by hand: it may be the frame
 * pointer, which gcc will not let an asm clobber. */
static inline int trap(int nr, uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t d, uintptr_t e)
{
    int ret;

    if (__sysenter_ok) {
        asm volatile("push %%ebp\n\t"
                     "push $1f\n\t"
                     "mov %%esp, %%ebp\n\t"
                     "sysenter\n"
                     "1:\tpop %%ebp"
                     : "=a"(ret), "+c"(b), "+d"(c)
                     : "a"(nr), "b"(a), "S"(d), "D"(e)
                     : "memory");
    } else {
        asm volatile("int $0x80"
                     : "=a"(ret)
                     : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
                     : "memory");
    }
    return ret;
}

static inline int check(int ret)
{
    if (ret < 0 && ret >= -EMAXERRNO) {
        errno = -ret;
        return -1;
    }
    return ret;
}

#define U(x)                    ((uintptr_t)(x))
#define SYS5(nr, a, b, c, d, e) check(trap(nr, U(a), U(b), U(c), U(d), U(e)))
#define SYS4(nr, a, b, c, d)    SYS5(nr, a, b, c, d, 0)
#define SYS3(nr, a, b, c)       SYS5(nr, a, b, c, 0, 0)
#define SYS2(nr, a, b)          SYS5(nr, a, b, 0, 0, 0)
#define SYS1(nr, a)             SYS5(nr, a, 0, 0, 0, 0)
#define SYS0(nr)                SYS5(nr, 0, 0, 0, 0, 0)

/* processes */
void _exit(int code)
{
    trap(SYS_exit, code, 0, 0, 0, 0);
    for (;;)
        ;                               /* not reached */
}

int fork(void)
{
    return SYS0(SYS_fork);
}
int rfork(int flags)
{
    return SYS1(SYS_rfork, flags);
}
int waitpid(int pid, int *status, int options)
{
    return SYS3(SYS_wait, pid, status, options);
}
int wait(int *status)
{
    return waitpid(WAIT_ANY, status, 0);
}
int exec(int fd, char *const argv[], char *const envp[])
{
    return SYS3(SYS_exec, fd, argv, envp);
}
int getpid(void)
{
    return SYS0(SYS_getpid);
}
int getppid(void)
{
    return SYS0(SYS_getppid);
}
int kill(int pid, int sig)
{
    return SYS2(SYS_kill, pid, sig);
}
int sleep_ms(unsigned ms)
{
    return SYS1(SYS_sleep, ms);
}
unsigned sleep(unsigned sec)        /* at most 49 days: ms must fit in 32 bits */
{
    return sleep_ms(sec > 4294967u ? 4294967295u : sec * 1000) < 0 ? sec : 0;
}
unsigned uptime_ms(void)
{
    return (unsigned)trap(SYS_uptime, 0, 0, 0, 0, 0);
}
int sched_yield(void)
{
    return SYS0(SYS_yield);
}
int setpgid(int pid, int pgid)
{
    return SYS2(SYS_setpgid, pid, pgid);
}
int tcsetpgrp(int pgid)
{
    return SYS1(SYS_tcsetpgrp, pgid);
}
int tcgetpgrp(void)
{
    return SYS0(SYS_tcgetpgrp);
}
int setsid(void)
{
    return SYS0(SYS_setsid);
}
int poweroff(int code)
{
    return SYS1(SYS_poweroff, code);
}

/* The break is an address, not an error, unless it is in the errno range. */
void *sbrk(int incr)
{
    int ret = SYS1(SYS_sbrk, incr);

    return ret == -1 ? (void *)-1 : (void *)ret;
}

/* files and descriptors */
int read(int fd, void *buf, size_t n)
{
    return SYS3(SYS_read, fd, buf, n);
}
int write(int fd, const void *buf, size_t n)
{
    return SYS3(SYS_write, fd, buf, n);
}
int close(int fd)
{
    return SYS1(SYS_close, fd);
}
int dup(int fd)
{
    return SYS1(SYS_dup, fd);
}
int dup2(int fd, int to)
{
    return SYS2(SYS_dup2, fd, to);
}
int pipe(int fds[2])
{
    return SYS1(SYS_pipe, fds);
}
int lseek(int fd, int off, int whence)
{
    return SYS3(SYS_lseek, fd, off, whence);
}
int fstat(int fd, struct stat *st)
{
    return SYS2(SYS_fstat, fd, st);
}
int getdents(int fd, void *buf, size_t n)
{
    return SYS3(SYS_getdents, fd, buf, n);
}
int ftruncate(int fd, unsigned len)
{
    return SYS2(SYS_ftruncate, fd, len);
}
int fcntl(int fd, int cmd, int arg)
{
    return SYS3(SYS_fcntl, fd, cmd, arg);
}
int sync(void)
{
    return SYS0(SYS_sync);
}

/* names: the split open() */
int walk(int dirfd, const char *path, int flags)
{
    return SYS3(SYS_walk, dirfd, path, flags);
}
int ready(int fd, int mode)
{
    return SYS2(SYS_ready, fd, mode);
}

int create(int dirfd, const char *name, int type, int perm, unsigned long arg)
{
    return SYS5(SYS_create, dirfd, name, type, perm, arg);
}

int linkat(int fd, int dirfd, const char *name)
{
    return SYS3(SYS_link, fd, dirfd, name);
}
int unlinkat(int dirfd, const char *name, int flags)
{
    return SYS3(SYS_unlink, dirfd, name, flags);
}

int renameat(int odirfd, const char *old, int ndirfd, const char *new, int flags)
{
    return SYS5(SYS_rename, odirfd, old, ndirfd, new, flags);
}

int readlinkat(int dirfd, const char *path, char *buf, size_t n)
{
    return SYS4(SYS_readlink, dirfd, path, buf, n);
}

/* getcwd's system call returns the length; the C function the buffer. */
char *getcwd(char *buf, size_t size)
{
    return SYS2(SYS_getcwd, buf, size) < 0 ? NULL : buf;
}

/* namespace: the split mount() */
int fsopen(const char *type, int srcfd, const char *opts)
{
    return SYS3(SYS_fsopen, type, srcfd, opts);
}

int bind(int fd, int dirfd, const char *path, int flags)
{
    return SYS4(SYS_bind, fd, dirfd, path, flags);
}

int unbind(int dirfd, const char *path)
{
    return SYS2(SYS_unbind, dirfd, path);
}

int setattach(int dirfd, const char *path, int flags)
{
    return SYS3(SYS_setattach, dirfd, path, flags);
}
int revoke(int fd)
{
    return SYS1(SYS_revoke, fd);
}
int fchroot(int fd)
{
    return SYS1(SYS_fchroot, fd);
}
int fchdir(int fd)
{
    return SYS1(SYS_fchdir, fd);
}
int unshare(void)
{
    return SYS0(SYS_unshare);
}

/* users and permissions (doc/man/setuid.2.md, fchmod.2.md, fchown.2.md) */
int getuid(void)
{
    return SYS0(SYS_getuid);
}
int getgid(void)
{
    return SYS0(SYS_getgid);
}
int setuid(int uid)
{
    return SYS1(SYS_setuid, uid);
}
int setgid(int gid)
{
    return SYS1(SYS_setgid, gid);
}
int fchmod(int fd, int mode)
{
    return SYS2(SYS_fchmod, fd, mode);
}
int fchown(int fd, int uid, int gid)
{
    return SYS3(SYS_fchown, fd, uid, gid);
}

/* file servers in user space (doc/man/chan.2.md, doc/srv.md) */
int chan(int fds[2])
{
    return SYS1(SYS_chan, fds);
}

/* fault injection, for tests (doc/man/failnth.2.md) */
int failnth(int n)
{
    return SYS1(SYS_failnth, n);
}
