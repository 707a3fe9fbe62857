/* uapi/proc.h - process ABI shared by kernel and libc: wait statuses and
 * signal numbers. Orthos signals cannot be caught: they only kill, and
 * wait() reports which one did. */
#ifndef UAPI_PROC_H
#define UAPI_PROC_H

#define SIGINT  2   /* ^C on the console */
#define SIGILL  4   /* invalid opcode */
#define SIGTRAP 5   /* int3 */
#define SIGFPE  8   /* divide error */
#define SIGKILL 9
#define SIGSEGV 11  /* page fault, protection fault */
#define SIGTERM 15
#define NSIG    32

/* status from wait(): exit code in bits 8-15, or the killing signal in 0-6. */
#define W_EXITCODE(code) (((code) & 0xFF) << 8)
#define W_SIGNALED(sig)  ((sig) & 0x7F)
#define WIFEXITED(s)     (((s) & 0x7F) == 0)
#define WEXITSTATUS(s)   (((s) >> 8) & 0xFF)
#define WIFSIGNALED(s)   (((s) & 0x7F) != 0)
#define WTERMSIG(s)      ((s) & 0x7F)

/* rfork(flags): what the child shares with its parent (rfork(0) = fork). */
#define RFORK_SHAREFDS 1   /* one fd table for both, as threads have (Plan 9: no RFFDG) */

/* Processes one user (any uid but root's) may have at once, zombies
 * included, as POSIX's CHILD_MAX and Linux's RLIMIT_NPROC count them:
 * half of the slots that are not root's (proc.c), so that one user's
 * fork bomb leaves another user as many. fork is EAGAIN past it. */
#define CHILD_MAX 30

/* failnth(FAILNTH_WRITES | n): count only the writes a filesystem makes
 * to its source (ext2's) and the block cache's write-backs to a disk,
 * and fail the nth with EIO, writing nothing: a
 * disk that fails once (doc/man/failnth.2.md). */
#define FAILNTH_WRITES 0x40000000
/* failnth(FAILNTH_WRITES | FAILNTH_FROM | n): the nth write fails and so
 * does every later one, until failnth(0): a disk that fails for good
 * (with FAILNTH_WRITES only). */
#define FAILNTH_FROM 0x20000000

#define WAIT_ANY (-1)
#define WNOHANG  1   /* wait(): return 0 at once if no child has exited */

#endif
