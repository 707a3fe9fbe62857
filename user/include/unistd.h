/* unistd.h - processes, descriptors and the POSIX name calls. Most are
 * one system call each; chdir, chroot, unlink, rmdir, link, symlink,
 * readlink and the exec family are compositions of the Orthos primitives
 * declared in <orthos.h> (see user/lib/names.c, cwd.c, exec.c). */
#ifndef _UNISTD_H
#define _UNISTD_H

#include <stddef.h>
#include <sys/types.h>
#include "uapi/fs.h"

#define STDIN_FILENO  0
#define STDOUT_FILENO 1
#define STDERR_FILENO 2

extern char **environ;

/* processes */
void _exit(int code) __attribute__((noreturn));
int fork(void);
int exec(int fd, char *const argv[], char *const envp[]);    /* fexecve-style */
int execve(const char *path, char *const argv[], char *const envp[]);
int execv(const char *path, char *const argv[]);
int execvp(const char *file, char *const argv[]);
int getpid(void);
int getppid(void);
void *sbrk(int incr);
int setpgid(int pid, int pgid);
int tcsetpgrp(int pgid);            /* make pgid the console's foreground group */
int tcgetpgrp(void);                /* the console's foreground group; 0: none */
int setsid(void);                   /* a new session and group led by the caller */
int sched_yield(void);
int sleep_ms(unsigned ms);
unsigned sleep(unsigned sec);
unsigned uptime_ms(void);
int poweroff(int code);
int getuid(void);
int getgid(void);
int setuid(int uid);                /* root only: there is no way back */
int setgid(int gid);                /* root only; call it before setuid */

/* descriptors */
int read(int fd, void *buf, size_t n);
int write(int fd, const void *buf, size_t n);
int close(int fd);
int dup(int fd);
int dup2(int fd, int to);
int pipe(int fds[2]);
int lseek(int fd, int off, int whence);
int ftruncate(int fd, unsigned len);
int isatty(int fd);
int sync(void);

/* names */
int chdir(const char *path);
int chroot(const char *path);
char *getcwd(char *buf, size_t size);
int unlink(const char *path);
int rmdir(const char *path);
int link(const char *old, const char *new);
int symlink(const char *target, const char *linkpath);
int readlink(const char *path, char *buf, size_t n);
int chown(const char *path, int uid, int gid);     /* walk + fchown; -1 keeps an id */
int fchown(int fd, int uid, int gid);

/* command-line options */
extern char *optarg;
extern int optind, opterr, optopt;
int getopt(int argc, char *const argv[], const char *opts);

#endif
