/* proc.c - the process table and a process's life: allocation, fork
 * (copy-on-write address space, copied fd table, shared namespace), exit
 * (a zombie until its parent waits), wait, kill, and the death of a
 * process that faulted. Orphans are given to init (pid 1). */
#include "arch/x86/x86.h"
#include "dev/tty.h"
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "include/uapi/proc.h"
#include "lib/fault.h"
#include "lib/kprintf.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/vm.h"
#include "proc/exec.h"
#include "proc/proc.h"

/* A slot's state is shared with interrupt handlers (wakeup): changed inside
 * irq_save. The rest of a slot belongs to its process, or to whoever holds
 * an EMBRYO or ZOMBIE slot (fork, wait). */
/* Page-aligned: the first five slots, which the scheduler scans on every
 * switch while few processes run, are then one page (SWITCH_DATA, x86.h). */
struct proc proc_table[NPROC] __attribute__((aligned(4096)));
static int next_pid = 1;                /* changed only by proc_alloc, with interrupts off */
static int pid_max = PID_MAX;           /* the last pid before the wrap: boot's pidmax= */
static uint64_t births;                 /* processes made since boot (proc->birth) */
static struct proc *init_proc;          /* set once at boot */

/* The name is argv[0]'s last part: anyone's choice. A control character
 * in it becomes '?', or a name like "\npid 1" added a line of its own to
 * /proc/<pid>/status (ps showed that user's process as pid 1, for root
 * to kill the wrong one) and to the kernel's messages on the console. */
void proc_set_name(struct proc *p, const char *name)
{
    const char *slash = strrchr(name, '/');

    strlcpy(p->name, slash ? slash + 1 : name, sizeof(p->name));
    str_printable(p->name);
}

/* A new process starts its kernel life in forkret, returning through
 * trapret into user mode with whatever *p->tf says. */
static void forkret(void)
{
}

/* Kernel stacks of reaped processes, kept for the next fork: a fresh
 * one is a run of four pages, found by a scan from the top of memory and
 * zeroed, about 14 us of a 90 us fork + exit + wait under QEMU. A kernel
 * stack is never seen by user code, so one is reused as it was left.
 * proc_kstack_trim gives them back when memory runs short and before
 * /proc/meminfo counts, so free-page checks still balance. Touched only
 * with interrupts off. */
#define KSTACK_CACHE 8
static char *kstack_cache[KSTACK_CACHE];
static int nkstack_cache;

static char *kstack_get(void)
{
    uint32_t s = irq_save();
    char *k = nkstack_cache > 0 ? kstack_cache[--nkstack_cache] : NULL;

    irq_restore(s);
    return k ? k : pages_alloc(KSTACK_SIZE / PAGE_SIZE);
}

static void kstack_put(char *k)
{
    uint32_t s = irq_save();

    if (nkstack_cache < KSTACK_CACHE) {
        kstack_cache[nkstack_cache++] = k;
        k = NULL;
    }
    irq_restore(s);
    if (k)
        pages_free(k, KSTACK_SIZE / PAGE_SIZE);
}

unsigned proc_kstack_trim(void)
{
    uint32_t s = irq_save();
    unsigned n = 0;

    while (nkstack_cache > 0) {
        pages_free(kstack_cache[--nkstack_cache], KSTACK_SIZE / PAGE_SIZE);
        n += KSTACK_SIZE / PAGE_SIZE;
    }
    irq_restore(s);
    return n;
}

int pid_parse(const char *s)
{
    int n = 0;

    if (*s < '1' || *s > '9')
        return -1;                      /* empty, or a leading zero: "01" is not pid 1 */
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || n > (PID_MAX - (*s - '0')) / 10)
            return -1;
        n = n * 10 + (*s - '0');
    }
    return n;
}

void proc_set_next_pid(int pid)
{
    if (pid > 1 && pid <= pid_max)
        next_pid = pid;
}

/* At least 4 pids a slot: pid_next always finds a free one (a slot holds
 * at most three: its pid, group and session). */
void proc_set_pid_max(int max)
{
    if (max >= 4 * NPROC && max <= PID_MAX)
        pid_max = max;
}

/* Whether a process, or the group or session of one, has pid: a pid
 * comes back only when all are gone, or a kill of the old group would
 * reach the new process (and a new setsid would make the old session's).
 * Interrupts off. */
static int pid_in_use(int pid)
{
    int i;

    for (i = 0; i < NPROC; i++)
        if (proc_table[i].state != P_UNUSED &&
            (proc_table[i].pid == pid || proc_table[i].pgid == pid || proc_table[i].sid == pid))
            return 1;
    return 0;
}

/* The next free pid, wrapping after pid_max (init keeps 1). There are
 * far more pids than slots, so one is always free. Interrupts off. */
static int pid_next(void)
{
    int pid;

    do {
        pid = next_pid;
        next_pid = next_pid >= pid_max ? 2 : next_pid + 1;
    } while (pid_in_use(pid));
    return pid;
}

/* The last slots of the table are root's: a user's fork bomb must leave
 * root's shell room to run ps and kill (as Linux keeps a few threads for
 * root), or only a reboot would end it. And a user may have at most
 * CHILD_MAX (uapi/proc.h) slots, half of the others, so that one user's
 * fork bomb leaves a second user as many (doc/decisions.md, "Authority").
 * A slot counts for the uid it acts for now, zombies too: setuid moves
 * it, exit keeps it until the parent waits. */
#define ROOT_SLOTS 4
_Static_assert(CHILD_MAX <= (NPROC - ROOT_SLOTS) / 2, "a user takes at most half of the rest");

/* Find a free slot and give it a pid, a kernel stack, an empty trap frame. */
struct proc *proc_alloc(void)
{
    uint32_t s = irq_save();
    struct proc *p = NULL, *me = curproc();
    int i, left = 0, mine = 0;
    char *sp;

    for (i = 0; i < NPROC; i++) {
        if (proc_table[i].state == P_UNUSED && left++ == 0)
            p = &proc_table[i];         /* the lowest free slot; the others are counted */
        else if (me && proc_table[i].state != P_UNUSED && proc_table[i].uid == me->uid)
            mine++;
    }
    if (p && me && me->uid != 0 && (left <= ROOT_SLOTS || mine >= CHILD_MAX))
        p = NULL;                       /* a user may not take root's slots, nor another's */
    if (fault_inject("proc_alloc"))
        p = NULL;                       /* as if the table were full */
    if (p) {
        p->pid = pid_next();            /* before the slot counts as in use */
        p->birth = ++births;
        p->pgid = p->sid = 0;           /* of no group yet: fork gives it the parent's */
        p->uid = me ? me->uid : 0;      /* and for whom: the embryo is the forker's */
        p->state = P_EMBRYO;
        sched_slot_used(p);
    }
    irq_restore(s);
    if (!p)
        return NULL;
    if (!(p->kstack = kstack_get())) {
        p->state = P_UNUSED;
        return NULL;
    }
    sp = p->kstack + KSTACK_SIZE;
    sp -= sizeof(struct trapframe);
    p->tf = (struct trapframe *)sp;
    memset(p->tf, 0, sizeof(*p->tf));
    sp -= 4;
    *(uint32_t *)sp = (uint32_t)trapret;
    sp -= sizeof(struct context);
    p->ctx = (struct context *)sp;
    memset(p->ctx, 0, sizeof(*p->ctx));
    p->ctx->eip = (uint32_t)forkret;
    p->killed = 0;
    p->chan = NULL;
    p->parent = NULL;
    p->start_tick = ticks;
    fpu_reset(&p->fpu);                 /* a clean FPU, unless fork copies one */
    return p;
}

/* Release what a process holds besides its slot and kernel stack. Each
 * is unhooked from p before it is let go: letting go may sleep (a last
 * close or unmount waits inside ext2), and meanwhile /proc/<pid>/fd and
 * /proc/<pid>/ns may read p; they find NULL or empty, never what is
 * being freed. */
static void proc_release_resources(struct proc *p)
{
    struct fdtable *fds = p->fds;
    struct namespace *ns = p->ns;
    struct path cwd = p->cwd, root = p->root;

    fd_end_call(p);                     /* exit's own call never returns */
    p->fds = NULL;
    p->ns = NULL;
    p->cwd.vn = p->root.vn = NULL;
    p->cwd.mnt = p->root.mnt = NULL;
    fdtable_put(fds);
    path_put(&cwd);
    path_put(&root);
    if (ns) {
        ns_drop_unused_roots(ns);       /* a root p was the last to use */
        ns_put(ns);
    }
    if (p->pgdir && p == curproc()) {
        vm_free_user(p->pgdir);         /* exit: the directory goes at proc_free */
    } else if (p->pgdir) {              /* last: switching back to p needs it */
        pde_t *pgdir = p->pgdir;
        p->pgdir = NULL;
        vm_destroy(pgdir);
    }
}

/* Return a slot to the table (a reaped zombie, or a failed fork). */
void proc_free(struct proc *p)
{
    proc_release_resources(p);
    fault_disarm(p);
    kstack_put(p->kstack);
    p->kstack = NULL;
    p->pid = 0;
    p->name[0] = '\0';
    p->parent = NULL;
    p->state = P_UNUSED;
    proc_left(p->pgid, p->sid);
}

/* A process has left group pgid and session sid (its slot was freed, or
 * setpgid or setsid moved it; 0: it left none). A group or session that
 * has no process left, a zombie counting, has ended, and its number is
 * free: after the pids wrap, a new process may get it and lead a new
 * group or session of that number (pid_in_use). So the console, which
 * keeps its foreground group and session as numbers, forgets an ended
 * one now (tty_forget), before the number can name another. */
void proc_left(int pgid, int sid)
{
    uint32_t s = irq_save();
    int i, group = 0, session = 0;

    for (i = 0; i < NPROC; i++) {
        if (proc_table[i].state != P_UNUSED) {
            group |= pgid && proc_table[i].pgid == pgid;
            session |= sid && proc_table[i].sid == sid;
        }
    }
    tty_forget(group ? 0 : pgid, session ? 0 : sid);
    irq_restore(s);
}

int proc_count(void)
{
    int i, n = 0;

    for (i = 0; i < NPROC; i++)
        n += proc_table[i].state != P_UNUSED;
    return n;
}

struct proc *proc_find(int pid)
{
    int i;

    for (i = 0; i < NPROC; i++)
        if (proc_table[i].pid == pid && proc_table[i].state != P_UNUSED &&
            proc_table[i].state != P_EMBRYO)
            return &proc_table[i];
    return NULL;
}

/* The process pid names if it is the one born birth, else NULL. A pid
 * comes back after a wrap and birth never does (proc->birth), so whoever
 * keeps a process's pid for later - a /proc node, the console's raw
 * owner - keeps its birth too, and finds that process or none. */
struct proc *proc_find_born(int pid, uint64_t birth)
{
    struct proc *p = pid > 0 ? proc_find(pid) : NULL;

    return p && p->birth == birth ? p : NULL;
}

/* A group's members are all of one session (setpgid keeps them so):
 * that session, or 0 if no process (a zombie counts) is in the group. */
int proc_group_session(int pgid)
{
    int i;

    for (i = 0; i < NPROC; i++)
        if (proc_table[i].pgid == pgid && proc_table[i].state != P_UNUSED &&
            proc_table[i].state != P_EMBRYO)
            return proc_table[i].sid;
    return 0;
}

/* fork (flags 0) and rfork: RFORK_SHAREFDS gives the child the parent's
 * fd table itself instead of a copy. */
int proc_fork(int flags)
{
    struct proc *parent = curproc(), *child = proc_alloc();

    if (!child)
        return -EAGAIN;
    child->pgdir = vm_fork(parent->pgdir, parent->uid != 0);
    child->fds = (flags & RFORK_SHAREFDS) ? fdtable_share(parent->fds) : fdtable_dup(parent->fds);
    if (!child->pgdir || !child->fds) {
        proc_free(child);
        return -ENOMEM;
    }
    path_copy(&child->root, &parent->root);
    path_copy(&child->cwd, &parent->cwd);
    child->ns = parent->ns;
    ns_get(child->ns);
    *child->tf = *parent->tf;
    child->tf->eax = 0;                 /* fork() returns 0 in the child */
    fpu_copy(&child->fpu, &parent->fpu); /* the parent's registers, as they are now */
    child->heap_base = parent->heap_base;
    child->brk = parent->brk;
    child->pgid = parent->pgid;
    child->sid = parent->sid;
    child->uid = parent->uid;           /* a child acts for the same user */
    child->gid = parent->gid;
    child->parent = parent;
    strlcpy(child->name, parent->name, sizeof(child->name));
    child->state = P_RUNNABLE;
    return child->pid;
}

/* Become a zombie with wait status `status`; the parent reaps the rest. */
void proc_exit(int status)
{
    struct proc *p = curproc();
    int i;

    if (p == init_proc)
        panic("init exited (status 0x%x)", status);
    proc_release_resources(p);
    cli();
    for (i = 0; i < NPROC; i++) {
        if (proc_table[i].parent == p && proc_table[i].state != P_UNUSED) {
            proc_table[i].parent = init_proc;
            if (proc_table[i].state == P_ZOMBIE)
                wakeup(init_proc);
        }
    }
    p->status = status;
    p->state = P_ZOMBIE;
    wakeup(p->parent);
    sched();
    panic("zombie %d ran again", p->pid);
}

/* Wait for a child (pid > 0: that one; -1: any) to exit and reap it.
 * Returns its pid, 0 if WNOHANG and none has exited yet, or -ECHILD. */
int proc_wait(int pid, int flags, int *status)
{
    struct proc *me = curproc();
    uint32_t s = irq_save();
    int i, have, reaped;

    for (;;) {
        have = 0;
        for (i = 0; i < NPROC; i++) {
            struct proc *c = &proc_table[i];
            if (c->parent != me || c->state == P_UNUSED || (pid > 0 && c->pid != pid))
                continue;
            have = 1;
            if (c->state == P_ZOMBIE) {
                *status = c->status;
                reaped = c->pid;
                proc_free(c);
                irq_restore(s);
                return reaped;
            }
        }
        if (!have || (flags & WNOHANG) || me->killed) {
            irq_restore(s);
            return !have ? -ECHILD : me->killed ? -EINTR : 0;
        }
        sleep_on(me);
    }
}

/* Mark p to die with signal sig at its next return to user mode; a
 * sleeping process is woken so that it notices. */
static void kill_one(struct proc *p, int sig)
{
    if (!p->killed)
        p->killed = sig;
    if (p->state == P_SLEEPING)
        p->state = P_RUNNABLE;
}

int proc_kill(int pid, int sig)
{
    struct proc *p = proc_find(pid);

    if (sig <= 0 || sig >= NSIG)
        return -EINVAL;
    if (!p || p->state == P_ZOMBIE)
        return -ESRCH;
    if (p == init_proc)
        return -EPERM;
    kill_one(p, sig);
    return 0;
}

int proc_kill_group(int pgid, int sig)
{
    int i, n = 0;

    for (i = 0; i < NPROC; i++) {
        struct proc *p = &proc_table[i];
        if (p->pgid == pgid && p != init_proc && p->state != P_UNUSED && p->state != P_EMBRYO &&
            p->state != P_ZOMBIE) {
            kill_one(p, sig);
            n++;
        }
    }
    return n ? 0 : -ESRCH;
}

/* No page for p's copy-on-write fault (trap.c retries the write after
 * this). The OOM policy (doc/decisions.md): the process holding the most
 * user pages is killed - p itself, if that is p - but never init, whose
 * death would take the system down; the others wait (yield) while a
 * victim is dying, so one shortage kills one process. If init is all
 * there is, it waits for memory to come back. A user's fault finds no
 * page when the user's processes hold all but root's reserve (pmm.c,
 * keep_free): then the victim is one of that user's, never another's. */
void proc_out_of_memory(struct proc *p)
{
    struct proc *victim = NULL;
    unsigned most = 0, n;
    int i, dying = 0;

    for (i = 0; i < NPROC; i++) {
        struct proc *q = &proc_table[i];
        if (q->state == P_UNUSED || q->state == P_EMBRYO || q->state == P_ZOMBIE || !q->pgdir)
            continue;
        if (q->killed)
            dying = 1;
        else if (q != init_proc && (p->uid == 0 || q->uid == p->uid) &&
                 (n = vm_user_pages(q->pgdir)) > most) {
            most = n;
            victim = q;
        }
    }
    if (!dying && victim) {
        kprintf("out of memory (pid %d's copy-on-write fault): killed pid %d (%s), %u pages\n",
                p->pid, victim->pid, victim->name, most);
        kill_one(victim, SIGKILL);
    }
    if (!p->killed)
        yield();                        /* let the victim die, then retry */
}

/* A fault in user mode: say who, where and what, then kill just them. */
void proc_user_fault(struct trapframe *tf, uint32_t addr)
{
    struct proc *p = curproc();
    int sig = tf->trapno == T_ILLOP ? SIGILL : SIGSEGV;

    if (tf->trapno == T_DIVIDE || tf->trapno == T_FPERR || tf->trapno == T_SIMDERR)
        sig = SIGFPE;
    else if (tf->trapno == T_BRKPT)
        sig = SIGTRAP;

    if (tf->trapno == T_PGFLT)
        kprintf("pid %d (%s): page fault at %p (%s %s, eip %p): killed\n", p->pid, p->name,
                (void *)addr, (tf->err & PF_WRITE) ? "write" : "read",
                (tf->err & PF_PRESENT) ? "protection" : "not present", (void *)tf->eip);
    else
        kprintf("pid %d (%s): %s (eip %p): killed\n", p->pid, p->name, trap_name(tf->trapno),
                (void *)tf->eip);
    p->killed = sig;
}

/* The first process: run `path` with no fds, in the boot namespace;
 * args (NULL-terminated) become its argv[1...]. */
void proc_start_init(const char *path, const char *const *args)
{
    struct proc *p = proc_alloc();
    const char *argv[MAXARG + 1] = { path };
    int err, n;

    for (n = 0; n < MAXARG - 1 && args[n]; n++)
        argv[n + 1] = args[n];
    argv[n + 1] = NULL;

    if (!p)
        panic("no process slot for init");
    init_proc = p;
    p->parent = NULL;
    p->pgid = p->sid = p->pid;         /* the first session: the console's at boot (tty.c) */
    if ((err = vfs_boot_namespace(p)) < 0)
        panic("cannot set up the root namespace: error %d", err);
    if (!(p->fds = fdtable_new()) || !(p->pgdir = vm_create()))
        panic("no memory for init");
    if ((err = exec_path(p, path, argv)) < 0)
        panic("cannot run %s: error %d", path, err);
    p->state = P_RUNNABLE;
}
