/* proc.h - processes: the table, the life cycle (fork, exec, exit, wait),
 * and the scheduler's sleep/wakeup. One CPU; "locking" is turning
 * interrupts off (irq_save/irq_restore in arch/x86/x86.h). */
#ifndef PROC_PROC_H
#define PROC_PROC_H

#include <stdint.h>
#include "arch/x86/cpu.h"
#include "arch/x86/mmu.h"
#include "fs/path.h"

#define NPROC       64
#define KSTACK_SIZE 16384
#define PROC_NAME   16
#define HZ          100
#define CALL_FILES  8                   /* files one system call borrows by fd (fd_get) */
/* Pids run from 1 to PID_MAX, then wrap to 2, passing over any pid a
 * process or process group still has. 28 bits: /proc's inode numbers
 * hold a pid and four bits of file kind (procfs.c). */
#define PID_MAX ((1 << 28) - 1)

enum proc_state { P_UNUSED, P_EMBRYO, P_RUNNABLE, P_RUNNING, P_SLEEPING, P_ZOMBIE };

struct fdtable;
struct file;
struct namespace;

struct proc {
    int pid;
    /* Which process of all since boot (1, 2, ...): a pid comes back
     * after a wrap, this never does. /proc's nodes keep it (procfs.c). */
    uint64_t birth;
    char name[PROC_NAME];
    enum proc_state state;
    pde_t *pgdir;
    uint32_t heap_base, brk;            /* sbrk moves brk within [heap_base, stack) */
    char *kstack;
    struct context *ctx;
    struct trapframe *tf;
    struct proc *parent;
    void *chan;                         /* what a sleeping process waits for */
    int killed;                         /* signal number that will kill it, or 0 */
    int status;                         /* wait status, once a zombie */
    int pgid;                           /* process group (tty ^C goes to one) */
    int sid;                            /* session: a login's processes (setsid) */
    uint32_t uid, gid;                  /* who it acts for (cred.c); 0 is root */
    uint32_t start_tick;
    struct fdtable *fds;
    struct namespace *ns;
    struct path root, cwd; /* "/" and "." for its names; empty before init has them */
    struct fpu_state fpu; /* its FPU/SSE registers while it is not running */
    /* The system call in progress (file.c, "fd tables"): the files it
     * borrowed by fd, each with a reference dropped when it returns, and
     * the fd slot and open file fd_room() promised it. */
    struct file *call_files[CALL_FILES];
    int ncall_files;
    struct fdtable *room_table;         /* where a slot is promised, or NULL */
    struct file *room_file;             /* an open file is promised: its memory */
    int fail_nth;                       /* failnth(2): points to go, 0 unarmed (lib/fault.c) */
    int fail_writes;                    /* ... and they are source writes (FAILNTH_WRITES) */
    int fail_from;                      /* ... and the nth and all after it fail (FAILNTH_FROM) */
    int fail_stuck;                     /* FAILNTH_FROM's nth has failed: every write fails */
};

extern struct proc proc_table[NPROC];
extern volatile uint32_t ticks;

/* The running process (NULL in the scheduler and before the first one).
 * Inline: nearly every system call asks several times, and a call under
 * QEMU costs more than the load. Only the scheduler sets it (sched.c). */
extern struct proc *current;

static inline struct proc *curproc(void)
{
    return current;
}

void sched_slot_used(struct proc *p);   /* proc_alloc took this slot (sched.c) */
struct proc *proc_alloc(void);
void proc_free(struct proc *p);
void proc_left(int pgid, int sid);     /* p left them: the console forgets an ended one */
unsigned proc_kstack_trim(void);        /* cached kernel stacks back: pages freed */
int proc_fork(int flags); /* RFORK_* (uapi/proc.h) */
void proc_exit(int status) __attribute__((noreturn));
int proc_wait(int pid, int flags, int *status);
int proc_kill(int pid, int sig);
int proc_kill_group(int pgid, int sig);
/* The pid that the text s spells (/proc's names): decimal digits without
 * a leading zero, 1..PID_MAX. -1 for anything else. */
int pid_parse(const char *s);
/* Boot argument nextpid=N: the pids after init's start at N (a test
 * reaches the big pids, and the wrap, without forking millions of times). */
void proc_set_next_pid(int pid);
/* Boot argument pidmax=N: the pids wrap after N, not PID_MAX (a test
 * sees a pid come back after a few hundred forks; Linux's pid_max). */
void proc_set_pid_max(int max);
struct proc *proc_find(int pid);
struct proc *proc_find_born(int pid, uint64_t birth); /* that pid, if still that process */
int proc_count(void);                   /* slots in use, zombies and embryos too */
int proc_group_session(int pgid);       /* the session of group pgid's members; 0: no group */
void proc_user_fault(struct trapframe *tf, uint32_t addr);
void proc_out_of_memory(struct proc *p); /* a COW fault found no page */

/* Last thing before returning to user mode: die if killed, give up the
 * CPU if the timer said our slice is over. Every system call comes
 * through here, and nearly always neither has happened: the test is
 * inline, the work is proc_return_slow's (sched.c). */
extern int need_resched;
void proc_return_slow(void);

static inline void proc_return_to_user(struct trapframe *tf)
{
    (void)tf;
    if (current->killed || need_resched)
        proc_return_slow();
}
void proc_start_init(const char *path, const char *const *args);
void proc_set_name(struct proc *p, const char *name);

void scheduler(void) __attribute__((noreturn));
void sched(void);
void yield(void);
void sleep_on(void *chan); /* call with interrupts off */
void wakeup(void *chan);
void wakeup_all(void);
int sleep_ms(uint32_t ms); /* -EINTR if killed while asleep */
int turn_take(int *busy);  /* wait until *busy is 0, then set it: 0, or -EINTR if killed */
void turn_give(int *busy); /* clear *busy and wake the next in line */
void clock_init(void);                  /* the timer interrupt's handler */
/* Milliseconds since the clock started (the timer's ticks). Inline: every
 * change to a file or directory stamps its time with it (rtc_now). */
static inline uint32_t uptime_ms(void)
{
    return ticks * (1000 / HZ);
}

#endif
