/* syscall.c - the system call table: number to sys_ function. The
 * dispatch itself (syscall_dispatch) is inline in syscall.h. */
#include "arch/x86/x86.h"
#include "include/uapi/syscall.h"
#include "proc/syscall.h"

/* SWITCH_RODATA (x86.h): every system call reads it, a yield too. */
SWITCH_RODATA const syscall_fn syscalls[NSYSCALLS] = {
#define ENTRY(name) [SYS_##name] = sys_##name,
    SYSCALLS(ENTRY)
#undef ENTRY
};
