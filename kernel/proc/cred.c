/* cred.c - who a process acts for: its user and group ids, inherited by
 * fork and kept across exec. Orthos has no set-uid programs, so an id can
 * only go down: root (uid 0) may become anyone, and nobody may become
 * root again (doc/man/setuid.2.md). What the ids allow is decided in the
 * VFS layer (kernel/fs/perm.c, ns_may_change, fs_may_revoke), but for
 * signals, which are the processes' own business (below). */
#include "include/uapi/errno.h"
#include "proc/cred.h"
#include "proc/proc.h"
#include "proc/syscall.h"

#define ID_MAX 65535u                   /* ext2 keeps 16 bits of each id */

int sys_getuid(const uint32_t *arg)
{
    (void)arg;
    return (int)curproc()->uid;
}

int sys_getgid(const uint32_t *arg)
{
    (void)arg;
    return (int)curproc()->gid;
}

/* Set *id to `want`: root may choose any id, anyone else only the one it
 * has (a no-op, so that a program may drop privilege without asking who
 * it is first). */
static int set_id(uint32_t *id, uint32_t want)
{
    if (want > ID_MAX)
        return -EINVAL;
    if (curproc()->uid != 0 && want != *id)
        return -EPERM;
    *id = want;
    return 0;
}

/* setgid before setuid: once the uid is not 0, the gid is fixed too. */
int sys_setgid(const uint32_t *arg)
{
    return set_id(&curproc()->gid, arg[0]);
}

int sys_setuid(const uint32_t *arg)
{
    return set_id(&curproc()->uid, arg[0]);
}

/* May the caller kill pid? Root may kill anyone, a user only processes
 * acting for the same uid (Unix's rule, with one uid): otherwise any user
 * could end root's shell. */
int cred_may_signal(int pid)
{
    struct proc *me = curproc(), *p = proc_find(pid);

    if (!p)
        return -ESRCH;
    return me->uid == 0 || me->uid == p->uid ? 0 : -EPERM;
}

/* The same for a process group: every live member must be the caller's
 * to kill, or none is killed. */
int cred_may_signal_group(int pgid)
{
    struct proc *me = curproc();
    int i;

    if (me->uid == 0)
        return 0;
    for (i = 0; i < NPROC; i++) {
        struct proc *p = &proc_table[i];
        if (p->pgid == pgid && p->state != P_UNUSED && p->state != P_EMBRYO &&
            p->state != P_ZOMBIE && p->uid != me->uid)
            return -EPERM;
    }
    return 0;
}
