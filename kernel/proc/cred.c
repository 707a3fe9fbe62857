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
 * to kill, or none is killed. For a user, *mine says whether the group
 * has a member acting for them at all (a zombie counts: a group lasts
 * until its last member is reaped). */
static int group_is_mine(int pgid, int *mine)
{
    struct proc *me = curproc();
    int i;

    *mine = 0;
    if (me->uid == 0)
        return 0;
    for (i = 0; i < NPROC; i++) {
        struct proc *p = &proc_table[i];
        if (p->pgid != pgid || p->state == P_UNUSED || p->state == P_EMBRYO)
            continue;
        if (p->uid == me->uid)
            *mine = 1;
        else if (p->state != P_ZOMBIE)
            return -EPERM;
    }
    return 0;
}

int cred_may_signal_group(int pgid)
{
    int mine;

    return group_is_mine(pgid, &mine);
}

/* May the caller name group pgid for a job: put it in front of ^C
 * (tcsetpgrp) or put a process in it (setpgid)? As for kill(-pgid), and a
 * user's group must exist, with a member of theirs: pids only grow, so a
 * group id not yet used could be one a later root process (or another
 * user's) comes to lead, and a process parked in it would make that
 * group's kill(-pgid) EPERM for its owner. (A pipeline whose first process
 * has already exited is still a group: its zombie counts.) Root may name
 * any (init puts its child's group in front whether or not the child made
 * it yet). */
int cred_may_name_group(int pgid)
{
    int mine, err = group_is_mine(pgid, &mine);

    return err < 0 || curproc()->uid == 0 || mine ? err : -EPERM;
}
