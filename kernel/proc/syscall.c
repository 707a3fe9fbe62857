/* syscall.c - a system call lands here, by int $0x80 (trap()) or sysenter
 * (sysenter_trap(), both in arch/x86/trap.c): look the number up, pass the five
 * argument registers, put the result (value or -errno) back in %eax, and
 * end the call: drop the files it borrowed by fd (fd_end_call). */
#include "arch/x86/cpu.h"
#include "arch/x86/x86.h"
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "include/uapi/syscall.h"
#include "proc/proc.h"
#include "proc/syscall.h"

static const syscall_fn syscalls[NSYSCALLS] = {
#define ENTRY(name) [SYS_##name] = sys_##name,
    SYSCALLS(ENTRY)
#undef ENTRY
};

SWITCH_PATH void syscall_dispatch(struct trapframe *tf)
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
