/* fault.h - fault injection: make the Nth allocation fail (lib/fault.c,
 * doc/man/failnth.2.md). Each place that can run out - the heap, the
 * page allocator, the process and file tables - asks fault_inject()
 * first and, when it says yes, fails just as if memory or the table
 * were exhausted. So the error paths behind it can be run on purpose,
 * one at a time, by user/tests/fuzz_oom.c. A count armed for writes
 * (FAILNTH_WRITES) counts only the writes a filesystem makes to its
 * source instead: user/tests/t_ext2io.c. */
#ifndef LIB_FAULT_H
#define LIB_FAULT_H

#include <stdint.h>

/* How many processes have a count armed: 0 nearly always, so the check
 * on every allocation is one load and a branch predicted not taken.
 * Changed only by fault.c, with the kernel never preempted. */
extern unsigned fault_armed;

int fault_fire(const char *where, int write, uint32_t caller);

/* Should this allocation fail? `where` names the point (for the
 * `faultlog` boot argument); true for the current process's Nth point
 * since it armed its count. A macro, so that the caller named in the log
 * is the one of the function the point is in. */
#define fault_inject(where) \
    (__builtin_expect(fault_armed != 0, 0) && \
     fault_fire((where), 0, (uint32_t)(uintptr_t)__builtin_return_address(0)))

/* Should this write of a filesystem to its source, or of the block cache
 * to a disk, fail (EIO)? The points of a count armed with
 * FAILNTH_WRITES: a disk that fails once. */
#define fault_inject_write(where) \
    (__builtin_expect(fault_armed != 0, 0) && \
     fault_fire((where), 1, (uint32_t)(uintptr_t)__builtin_return_address(0)))

struct proc;
void fault_disarm(struct proc *p);      /* p's slot is freed: its count goes */

#endif
