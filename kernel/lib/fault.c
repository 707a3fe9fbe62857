/* fault.c - fail the Nth allocation, as Linux's /proc/self/fail-nth does:
 * a process arms a count N with failnth(N) (root only: it makes latent
 * bugs reachable), and the Nth fault-injection point it then passes in
 * the kernel (lib/fault.h: kmalloc, pages_alloc, pmm_reserve,
 * pmm_may_store, the process table, the open file table, the fd table)
 * fails as if memory or the table had run out; then the count is spent.
 * failnth(0) disarms and says whether it fired (0) or how many points
 * were still to go, so a test knows when N went past the last point.
 * The count is the process's own: a child does not inherit it, and only
 * the points passed in its own system calls and faults count. Armed with
 * FAILNTH_WRITES, the points are instead the writes a filesystem makes
 * to its source (ext2's dev_write) and the block cache's write-backs to
 * a disk (bcache's write_run): the Nth fails with EIO; with
 * FAILNTH_FROM too, so does every write after it until failnth(0).
 * doc/decisions.md ("fault injection") says why a system call. */
#include "boot.h"
#include "include/uapi/errno.h"
#include "include/uapi/proc.h"
#include "lib/fault.h"
#include "lib/kprintf.h"
#include "proc/proc.h"
#include "proc/syscall.h"

unsigned fault_armed;
static int fault_log = -1;              /* boot argument `faultlog`: say where each fires */

/* The slow half of fault_inject() and fault_inject_write(): some process
 * is armed; is it this one, armed for this kind of point (`write`: a
 * filesystem's write to its source), and is this its Nth point? */
int fault_fire(const char *where, int write, uint32_t caller)
{
    struct proc *p = curproc();
    uint32_t off;
    const char *fn;

    if (!p || p->fail_writes != write)
        return 0;
    if (!p->fail_stuck) {
        if (p->fail_nth == 0 || --p->fail_nth > 0)
            return 0;
        if (p->fail_from)
            p->fail_stuck = 1; /* a disk that fails for good: still armed */
        else
            fault_armed--;
    }
    if (fault_log < 0)
        fault_log = boot_arg("faultlog") != NULL;
    if (fault_log) {
        fn = ksym_lookup(caller, &off);
        kprintf("failnth: pid %d: %s fails (called from %s+0x%x)\n", p->pid, where, fn ? fn : "?",
                fn ? off : caller);
    }
    return 1;
}

void fault_disarm(struct proc *p)
{
    if (p->fail_nth > 0 || p->fail_stuck)
        fault_armed--;
    p->fail_nth = 0;
    p->fail_stuck = 0;
}

/* failnth(n): arm the count at n (0 disarms); FAILNTH_WRITES in n arms
 * it for source writes instead of allocations, FAILNTH_FROM (with it)
 * for the nth and every later one. Returns what the count was: 0 if it
 * fired (or was never armed), else the points it still had to go.
 * Arming is root's; disarming and reading back are anyone's. */
int sys_failnth(const uint32_t *arg)
{
    struct proc *p = curproc();
    int n = (int)arg[0] & ~(FAILNTH_WRITES | FAILNTH_FROM), old = p->fail_nth;

    if ((int)arg[0] < 0 || ((arg[0] & FAILNTH_FROM) && !(arg[0] & FAILNTH_WRITES)))
        return -EINVAL;
    if (n > 0 && p->uid != 0)
        return -EPERM;
    fault_disarm(p);
    p->fail_writes = (arg[0] & FAILNTH_WRITES) != 0;
    p->fail_from = (arg[0] & FAILNTH_FROM) != 0;
    p->fail_nth = n;
    fault_armed += n > 0;
    return old;
}
