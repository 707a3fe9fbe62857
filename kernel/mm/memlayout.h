/* memlayout.h - the virtual address map, the same in every address space:
 *
 *   0x00000000 - 0x003FFFFF   never mapped (NULL dereferences fault)
 *   0x00400000 - USER_TOP     user program, heap (sbrk), stack at the top
 *   KERNBASE   - ...          all physical memory, mapped 1:1 with 4 MiB pages
 *                             (kernel image at KERNBASE + 1 MiB)
 *   KFENCE_BASE - +73 MiB     the heap checker's guarded pool (kfence.c), with
 *                             `heapcheck`: 4 KiB pages, guards never mapped
 *
 * The kernel lives high so that user programs own the low 3 GiB, and every
 * page directory shares the same kernel half (vm.c copies those PDEs). */
#ifndef MM_MEMLAYOUT_H
#define MM_MEMLAYOUT_H

#include <stdint.h>

#ifndef KERNBASE                    /* host unit tests supply their own */
#define KERNBASE 0xC0000000u
#endif
#define PHYS_MAX          0x38000000u     /* direct map ends at 896 MiB */
#define KFENCE_BASE       (KERNBASE + PHYS_MAX)   /* above the direct map */
#define USER_BASE         0x00400000u
#define USER_TOP          KERNBASE
#define USER_STACK_PAGES  32         /* 128 KiB, mapped by exec */
#define USER_STACK_BOTTOM (USER_TOP - USER_STACK_PAGES * 4096u)

#define P2V(pa) ((void *)((uintptr_t)(pa) + KERNBASE))
#define V2P(va) ((uint32_t)((uintptr_t)(va) - KERNBASE))

#endif
