/* uapi/syscall.h - system call numbers, shared by the kernel's table
 * (kernel/proc/syscall.c) and libc's stubs (user/lib/syscalls.c).
 * Calling convention: `int $0x80`, number in %eax, arguments in %ebx,
 * %ecx, %edx, %esi, %edi; the result comes back in %eax: a value >= 0, or
 * -errno; every other register is kept. Manual entries: doc/man/<name>.2.md.
 *
 * Or `sysenter`, when CPUID.1:EDX bit 11 (SEP) says the CPU has it (the
 * kernel then always sets it up; libc uses it, doc/decisions.md says why):
 * the same number and arguments in the same registers, and the way back
 * as a call would leave it: %ebp = the stack pointer, with the return
 * address on top of that stack. The call returns there, with %esp past
 * that address (as `ret` would) and %ebp as it was; %ecx and %edx are lost
 * (sysexit takes them), everything else is kept. A stack the kernel
 * cannot read kills the process (SIGSEGV). libc's stub:
 *     push %ebp; push $1f; mov %esp, %ebp; sysenter; 1: pop %ebp */
#ifndef UAPI_SYSCALL_H
#define UAPI_SYSCALL_H

/* processes */
#define SYS_exit      1
#define SYS_fork      2
#define SYS_wait      3
#define SYS_exec      4
#define SYS_getpid    5
#define SYS_getppid   6
#define SYS_kill      7
#define SYS_sbrk      8
#define SYS_sleep     9
#define SYS_uptime    10
#define SYS_yield     11
#define SYS_setpgid   12
#define SYS_tcsetpgrp 13
#define SYS_poweroff  14
#define SYS_rfork     15
#define SYS_setsid    16
#define SYS_tcgetpgrp 17

/* files and descriptors */
#define SYS_read      20
#define SYS_write     21
#define SYS_close     22
#define SYS_dup       23
#define SYS_dup2      24
#define SYS_pipe      25
#define SYS_lseek     26
#define SYS_fstat     27
#define SYS_getdents  28
#define SYS_ftruncate 29
#define SYS_fcntl     30
#define SYS_sync      31

/* names: the split open() */
#define SYS_walk     40
#define SYS_ready    41
#define SYS_create   42
#define SYS_link     43
#define SYS_unlink   44
#define SYS_rename   45
#define SYS_readlink 46
#define SYS_getcwd   47

/* namespace: the split mount() */
#define SYS_fsopen  50
#define SYS_bind    51
#define SYS_unbind  52
#define SYS_revoke  53
#define SYS_fchroot 54
#define SYS_fchdir  55
#define SYS_unshare 56

/* users and permissions (doc/decisions.md, "Authority") */
#define SYS_getuid 58
#define SYS_getgid 59
#define SYS_setuid 60
#define SYS_setgid 61
#define SYS_fchmod 62
#define SYS_fchown 63

/* attachments (issue 15) */
#define SYS_setattach 64

/* file servers in user space (doc/srv.md) */
#define SYS_chan 65

/* fault injection, for tests (doc/man/failnth.2.md) */
#define SYS_failnth 66

#define NSYSCALLS 72

#endif
