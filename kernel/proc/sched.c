/* sched.c - the round-robin scheduler, sleep/wakeup and the clock.
 * The scheduler runs on its own stack (the boot stack) and picks the next
 * RUNNABLE process after the one that ran last; a process gives the CPU
 * back through sched(), either voluntarily (sleep_on, yield) or because
 * the timer ended its 10 ms slice on the way back to user mode. */
#include "arch/x86/x86.h"
#include "dev/tty.h"
#include "include/uapi/errno.h"
#include "include/uapi/proc.h"
#include "lib/shake.h"
#include "mm/memlayout.h"
#include "mm/vm.h"
#include "proc/proc.h"

/* The scheduler's own: changed only with interrupts off (sched, scheduler). */
/* These and nslots are SWITCH_DATA (x86.h): every switch touches them. */
SWITCH_DATA static struct context *scheduler_ctx;
SWITCH_DATA struct proc *current;       /* curproc() (proc.h); make gdb reads it too */
SWITCH_DATA int need_resched;           /* set by the timer interrupt (proc.h) */
/* Slots of proc_table ever used: proc_alloc takes the lowest free slot,
 * so with few processes this is small, and the scheduler and wakeup look
 * at nothing past it. It matters under QEMU: every switch empties the
 * TLB, and the table is many pages (a struct proc holds its FPU state). */
SWITCH_DATA static int nslots;
volatile uint32_t ticks;                /* counted by the timer interrupt; read anywhere */

/* proc_alloc took slot p (interrupts off). */
void sched_slot_used(struct proc *p)
{
    if (p - proc_table >= nslots)
        nslots = p - proc_table + 1;
}

SWITCH_PATH void scheduler(void)
{
    int last = 0;
    /* `shake=tickN` was read before the first call (kmain): looked at here
     * once, not on every pass, so that no pass touches shake's page. */
    const int shuffle = shake.shuffle;

    for (;;) {
        struct proc *p = NULL;
        int i;

        /* Let interrupts in on every pass, not only when idle: processes
         * that hand the CPU straight to each other (sched() is entered
         * with interrupts off) must not keep the clock and the keyboard
         * out. The nop matters: sti takes effect one instruction late. */
        __asm__ volatile("sti; nop; cli" ::: "memory");
        if (shuffle && nslots)    /* `shake=tickN`: lib/shake.c */
            last = shake_next(&shake.tick_rng) % nslots;
        for (i = 1; i <= nslots; i++) {
            struct proc *q = &proc_table[(last + i) % nslots];
            if (q->state == P_RUNNABLE) {
                p = q;
                last = (last + i) % nslots;
                break;
            }
        }
        if (!p) {
            __asm__ volatile("sti; hlt");   /* atomic: no wakeup is missed */
            continue;
        }
        current = p;
        p->state = P_RUNNING;
        need_resched = 0;
        tss_set_kstack((uint32_t)p->kstack + KSTACK_SIZE);
        fpu_switch_to(&p->fpu);         /* lazily: see fpu.c */
        vm_switch(p->pgdir);            /* last: QEMU walks the page tables again for */
        swtch(&scheduler_ctx, p->ctx);  /* every page touched after it (SWITCH_PATH) */
        current = NULL;                 /* p's address space stays loaded: see vm_switch */
    }
}

/* Switch to the scheduler. Interrupts must be off and the caller must
 * already have set its state to something other than RUNNING. */
SWITCH_PATH void sched(void)
{
    swtch(&current->ctx, scheduler_ctx);
}

SWITCH_PATH void yield(void)
{
    uint32_t s = irq_save();

    current->state = P_RUNNABLE;
    sched();
    irq_restore(s);
}

/* Sleep until wakeup(chan). Call with interrupts off, after testing the
 * condition you wait for: nothing can wake the channel in between.
 * A channel names one condition, and only those who wait for that
 * condition sleep on it: who changes the condition wakes its channel.
 * Never wake a channel you are about to sleep on yourself (two sleepers
 * of the same kind would wake each other for ever): pipe.c gives
 * readers and writers a channel each for that reason. */
SWITCH_PATH void sleep_on(void *chan)
{
    current->chan = chan;
    current->state = P_SLEEPING;
    sched();
    current->chan = NULL;
}

SWITCH_PATH void wakeup(void *chan)
{
    uint32_t s = irq_save();
    int i;

    for (i = 0; i < nslots; i++)
        if (proc_table[i].state == P_SLEEPING && proc_table[i].chan == chan)
            proc_table[i].state = P_RUNNABLE;
    irq_restore(s);
}

/* Wake every sleeper: they all re-check what they wait for (revoke() uses
 * it so that readers of a revoked FIFO notice). */
void wakeup_all(void)
{
    uint32_t s = irq_save();
    int i;

    for (i = 0; i < nslots; i++)
        if (proc_table[i].state == P_SLEEPING)
            proc_table[i].state = P_RUNNABLE;
    irq_restore(s);
}

/* IRQ 0: count, wake sleep_ms() sleepers, end the running slice, and
 * give the tty its tick (input it holds back waits only so long). */
static void timer_intr(void)
{
    static unsigned part, slice;

    if (shake.tick) {                   /* `shake=tickN`: interrupts between ticks */
        if (++slice >= shake.slice_parts) {
            slice = 0;
            need_resched = 1;
        }
        if (++part < shake.tick_parts)
            return;
        part = 0;
        ticks++;
        wakeup((void *)&ticks);
        tty_tick();
        return;
    }
    ticks++;
    wakeup((void *)&ticks);
    need_resched = 1;
    tty_tick();
}

/* Give the timer interrupt its handler: from now on time passes. */
void clock_init(void)
{
    irq_register(IRQ_TIMER, timer_intr);
}

int sleep_ms(uint32_t ms)
{
    uint32_t s = irq_save();
    uint32_t until = ticks + ms / (1000 / HZ) + (ms % (1000 / HZ) != 0);

    while ((int32_t)(until - ticks) > 0) {
        if (current->killed) {
            irq_restore(s);
            return -EINTR;
        }
        sleep_on((void *)&ticks);
    }
    irq_restore(s);
    return 0;
}

/* A turn at something a system call must hold across a sleep (a name
 * operation's checks and change, a file position's use and move): wait
 * while *busy, then take it. The wait ends with a kill (-EINTR), never
 * with the turn. Whoever holds it gives it back with turn_give. *busy is
 * 0 (free), 1 (taken) or 2 (taken, and someone waits): a turn nobody
 * waited for is given back without a wakeup (every read and write of a
 * file takes one). */
int turn_take(int *busy)
{
    uint32_t s = irq_save();

    while (*busy) {
        if (current && current->killed) {
            irq_restore(s);
            return -EINTR;
        }
        *busy = 2;
        sleep_on(busy);
    }
    *busy = 1;
    irq_restore(s);
    return 0;
}

void turn_give(int *busy)
{
    uint32_t s = irq_save();
    int waited = *busy == 2;

    *busy = 0;
    irq_restore(s);
    if (waited)
        wakeup(busy);
}

/* proc_return_to_user (proc.h) when the process was killed or its slice
 * is over. */
SWITCH_PATH void proc_return_slow(void)
{
    if (current->killed)
        proc_exit(W_SIGNALED(current->killed));
    if (need_resched)
        yield();
    if (current->killed)
        proc_exit(W_SIGNALED(current->killed));
}
