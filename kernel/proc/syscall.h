/* syscall.h - the system call table's entries. Each sys_ function gets
 * the five raw argument registers, copies in what they point to, checks
 * it, and calls the real work in fs/, mm/ or proc/. */
#ifndef PROC_SYSCALL_H
#define PROC_SYSCALL_H

#include <stdint.h>
#include "arch/x86/cpu.h"
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "include/uapi/syscall.h"
#include "proc/proc.h"

typedef int (*syscall_fn)(const uint32_t *arg);

/* Laid out by hand (grouped as uapi/syscall.h is): */
/* clang-format off */
#define SYSCALLS(X) \
    X(exit) X(fork) X(wait) X(exec) X(getpid) X(getppid) X(kill) X(sbrk) X(sleep) \
    X(uptime) X(yield) X(setpgid) X(tcsetpgrp) X(poweroff) X(rfork) \
    X(setsid) X(tcgetpgrp) \
    X(read) X(write) X(close) X(dup) X(dup2) X(pipe) X(lseek) X(fstat) X(getdents) \
    X(ftruncate) X(fcntl) X(sync) \
    X(walk) X(ready) X(create) X(link) X(unlink) X(rename) X(readlink) X(getcwd) \
    X(fsopen) X(bind) X(unbind) X(revoke) X(fchroot) X(fchdir) X(unshare) \
    X(getuid) X(getgid) X(setuid) X(setgid) X(fchmod) X(fchown) \
    X(setattach) X(chan) X(failnth)
/* clang-format on */

#define DECLARE(name) int sys_##name(const uint32_t *arg);
SYSCALLS(DECLARE)
#undef DECLARE

extern const syscall_fn syscalls[NSYSCALLS];    /* syscall.c */

/* A system call lands here, by int $0x80 (trap()) or sysenter
 * (sysenter_trap(), both in arch/x86/trap.c): look the number up, pass
 * the five argument registers, put the result (value or -errno) back in
 * %eax, and end the call: drop the files it borrowed by fd (fd_end_call).
 * Inline in its two callers: under QEMU a call costs about what this
 * does, and every system call pays it. */
static inline void syscall_dispatch(struct trapframe *tf)
{
    uint32_t arg[5] = { tf->ebx, tf->ecx, tf->edx, tf->esi, tf->edi };
    uint32_t n = tf->eax;
    struct proc *p = curproc();

    if (n < NSYSCALLS && syscalls[n])
        tf->eax = (uint32_t)syscalls[n](arg);
    else
        tf->eax = (uint32_t)-ENOSYS;
    if (p->ncall_files || p->room_table || p->room_file)
        fd_end_call(p);                 /* most calls borrow nothing (fd_end_call's three) */
}

#endif
