/* syscall.h - the system call table's entries. Each sys_ function gets
 * the five raw argument registers, copies in what they point to, checks
 * it, and calls the real work in fs/, mm/ or proc/. */
#ifndef PROC_SYSCALL_H
#define PROC_SYSCALL_H

#include <stdint.h>

struct trapframe;
void syscall_dispatch(struct trapframe *tf);

typedef int (*syscall_fn)(const uint32_t *arg);

/* Laid out by hand (grouped as uapi/syscall.h is): */
/* clang-format off */
#define SYSCALLS(X) \
    X(exit) X(fork) X(wait) X(exec) X(getpid) X(getppid) X(kill) X(sbrk) X(sleep) \
    X(uptime) X(yield) X(setpgid) X(tcsetpgrp) X(poweroff) X(rfork) \
    X(read) X(write) X(close) X(dup) X(dup2) X(pipe) X(lseek) X(fstat) X(getdents) \
    X(ftruncate) X(fcntl) X(sync) \
    X(walk) X(ready) X(create) X(link) X(unlink) X(rename) X(readlink) X(getcwd) \
    X(fsopen) X(bind) X(unbind) X(revoke) X(fchroot) X(fchdir) X(unshare) \
    X(getuid) X(getgid) X(setuid) X(setgid) X(fchmod) X(fchown) \
    X(setattach) X(chan)
/* clang-format on */

#define DECLARE(name) int sys_##name(const uint32_t *arg);
SYSCALLS(DECLARE)
#undef DECLARE

#endif
