/* sysproc.c - the process system calls: argument checking and copying,
 * then the work in proc.c, sched.c and exec.c. */
#include "arch/x86/x86.h"
#include "dev/power.h"
#include "dev/tty.h"
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "include/uapi/proc.h"
#include "mm/memlayout.h"
#include "mm/page.h"
#include "mm/uaccess.h"
#include "mm/vm.h"
#include "proc/cred.h"
#include "proc/exec.h"
#include "proc/proc.h"
#include "proc/syscall.h"

int sys_exit(const uint32_t *arg)
{
    proc_exit(W_EXITCODE((int)arg[0]));
}

int sys_fork(const uint32_t *arg)
{
    return proc_fork(0);
}

/* rfork(flags): fork, choosing what the child shares (doc/man/rfork.2.md). */
int sys_rfork(const uint32_t *arg)
{
    if (arg[0] & ~RFORK_SHAREFDS)
        return -EINVAL;
    return proc_fork((int)arg[0]);
}

/* wait(pid, int *status, flags) */
int sys_wait(const uint32_t *arg)
{
    int status = 0, pid, err;

    if (arg[2] & ~WNOHANG)
        return -EINVAL;
    if (arg[1] && (err = uaccess_check(arg[1], sizeof(int), 1)) < 0)
        return err;                     /* before a child is reaped and lost */
    pid = proc_wait((int)arg[0], (int)arg[2], &status);
    if (pid > 0 && arg[1] && (err = copyout(arg[1], &status, sizeof(status))) < 0)
        return err;
    return pid;
}

/* Copy a user array of string pointers into buf as kernel strings. */
static int copy_strings(uint32_t uvec, const char **vec, char **space, size_t *left)
{
    int i, n;

    for (i = 0; uvec; i++) {
        uint32_t up;
        if (copyin(&up, uvec + 4 * i, 4) < 0)
            return -EFAULT;
        if (!up)
            break;
        if (i >= MAXARG)
            return -E2BIG;
        if ((n = copyinstr(*space, up, *left)) < 0)
            return n == -ENAMETOOLONG ? -E2BIG : n;
        vec[i] = *space;
        *space += n + 1;
        *left -= n + 1;
    }
    vec[i] = NULL;
    return 0;
}

/* exec(fd, argv, envp): fexecve-style, the program is named by an fd. */
int sys_exec(const uint32_t *arg)
{
    const char *argv[MAXARG + 1], *envp[MAXARG + 1];
    char *buf, *space;
    size_t left = ARG_MAX;
    struct file *f;
    int err;

    if (!(f = fd_get((int)arg[0], &err)))
        return err;
    if (!(buf = space = kmalloc(ARG_MAX)))
        return -ENOMEM;
    if ((err = copy_strings(arg[1], argv, &space, &left)) == 0 &&
        (err = copy_strings(arg[2], envp, &space, &left)) == 0)
        err = exec_file(curproc(), f, argv, envp);
    kfree(buf);
    if (err == 0)                       /* a new program starts with a clean FPU */
        fpu_reset(&curproc()->fpu);
    return err;
}

int sys_getpid(const uint32_t *arg)
{
    return curproc()->pid;
}

int sys_getppid(const uint32_t *arg)
{
    return curproc()->parent ? curproc()->parent->pid : 0;
}

/* kill(pid, sig); a negative pid names a process group. A user kills
 * only its own processes (cred.c). */
int sys_kill(const uint32_t *arg)
{
    int pid = (int)arg[0], sig = (int)arg[1], err;

    if (sig <= 0 || sig >= NSIG)
        return -EINVAL;
    if ((err = pid < 0 ? cred_may_signal_group(-pid) : pid > 0 ? cred_may_signal(pid) : 0) < 0)
        return err;                     /* a user kills only its own processes */
    return pid < 0 ? proc_kill_group(-pid, sig) : proc_kill(pid, sig);
}

/* sbrk(n): grow or shrink the heap by n bytes; returns the old end. A
 * user's heap grows only while an eighth of memory stays free after it
 * (pmm_may_store): short of memory a system call kills nobody, so a
 * user holding every page left root unable to fork even a kill. */
int sys_sbrk(const uint32_t *arg)
{
    struct proc *p = curproc();
    int32_t n = (int32_t)arg[0];
    uint32_t old = p->brk, new = old + n, pages = (PGROUNDUP(new) - PGROUNDUP(old)) / PAGE_SIZE;
    int err;

    if (n > 0) {
        if (new < old || new > USER_STACK_BOTTOM - PAGE_SIZE)
            return -ENOMEM;
        if (pages && p->uid != 0 && !pmm_may_store(pages))
            return -ENOMEM;
        if (pages &&
            (err = vm_alloc_range(p->pgdir, PGROUNDUP(old), PGROUNDUP(new), PTE_U | PTE_W)) < 0)
            return err;
    } else if (n < 0) {
        if (new > old || new < p->heap_base)
            return -EINVAL;
        vm_free_range(p->pgdir, PGROUNDUP(new), PGROUNDUP(old));
    }
    p->brk = new;
    return (int)old;
}

int sys_sleep(const uint32_t *arg)
{
    return sleep_ms(arg[0]);
}

int sys_uptime(const uint32_t *arg)
{
    return (int)uptime_ms();
}

SWITCH_PATH int sys_yield(const uint32_t *arg)
{
    yield();
    return 0;
}

/* setpgid(pid, pgid): pid 0 = the caller, pgid 0 = pid. Only the caller
 * or its children of the same session; into a new group led by pid, or
 * one of pid's session the caller could put in front of ^C (else another
 * user's job could be made unkillable by its owner: kill(-pgid) wants
 * every live member to be theirs). A session leader stays in its group
 * (a no-op is allowed: the login shell's setpgid(0, 0)). */
int sys_setpgid(const uint32_t *arg)
{
    struct proc *me = curproc(), *p;
    int pid = arg[0] ? (int)arg[0] : me->pid, pgid = arg[1] ? (int)arg[1] : pid, err, sid, old;

    if (pgid < 0)
        return -EINVAL;
    if (!(p = proc_find(pid)) || (p != me && p->parent != me))
        return -ESRCH;
    if (p->sid != me->sid || (p->sid == p->pid && pgid != p->pgid))
        return -EPERM;
    if (pgid != p->pid && (err = cred_may_name_group(pgid)) < 0)
        return err;
    if (pgid != p->pid && (sid = proc_group_session(pgid)) && sid != p->sid)
        return -EPERM;                  /* a group is of one session */
    old = p->pgid;
    p->pgid = pgid;
    if (old != pgid)
        proc_left(old, 0);              /* p may have been its last */
    return 0;
}

/* setsid(): a new session and group, both led by the caller (their ids
 * are its pid). Not for a process whose pid names a group already (a
 * group leader): that group would be split across two sessions. */
int sys_setsid(const uint32_t *arg)
{
    struct proc *me = curproc();
    int pgid = me->pgid, sid = me->sid;

    if (proc_group_session(me->pid))
        return -EPERM;
    me->sid = me->pgid = me->pid;
    proc_left(pgid, sid);               /* me may have been the last of either */
    return me->sid;
}

/* tcgetpgrp(): the console's foreground group; 0: none. */
int sys_tcgetpgrp(const uint32_t *arg)
{
    return tty_foreground();
}

/* tcsetpgrp(pgid): whom ^C on the console kills; 0: nobody (the shell sets
 * that while it waits at its prompt, since Orthos signals can't be ignored).
 * Only a group the caller could kill(-pgid) itself, and for a user one that
 * exists: else a user could put root's group in front and type ^C. And
 * for a user only from the console's session, a group of that session:
 * else any process could take ^C (and the console's input) from the login
 * at the console. Root may choose any group; the console then belongs to
 * that group's session (pgid 0: to the caller's; a group not made yet:
 * it stays whose it is - init's child takes it itself, after setsid). */
int sys_tcsetpgrp(const uint32_t *arg)
{
    struct proc *me = curproc();
    int pgid = (int)arg[0], sid = pgid ? proc_group_session(pgid) : me->sid, err;

    if (pgid < 0)
        return -EINVAL;
    if (pgid > 0 && (err = cred_may_name_group(pgid)) < 0)
        return err;
    if (me->uid != 0 && (me->sid != tty_session() || (pgid > 0 && sid != me->sid)))
        return -EPERM;
    tty_set_foreground(pgid, sid ? sid : tty_session());
    return 0;
}

/* poweroff(code): root's alone, since it ends every user's processes. */
int sys_poweroff(const uint32_t *arg)
{
    if (curproc()->uid != 0)
        return -EPERM;
    vfs_sync_last(); /* (ext2 leaves its images clean) */
    machine_poweroff((int)arg[0]);
}
