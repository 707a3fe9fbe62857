/* mmu.h - x86 segment and paging constants (Intel SDM vol. 3, ch. 3-4).
 * Two-level paging: a page directory of 1024 PDEs, each naming a page
 * table of 1024 PTEs (or, with PTE_PS, one 4 MiB page). */
#ifndef ARCH_MMU_H
#define ARCH_MMU_H

#include <stdint.h>

#define PAGE_SIZE  4096u
#define PAGE_SHIFT 12
#define BIGPAGE    (4u << 20)

#define PTE_P        0x001u  /* present */
#define PTE_W        0x002u  /* writable */
#define PTE_U        0x004u  /* user may access */
#define PTE_PWT      0x008u  /* write-through */
#define PTE_PCD      0x010u  /* not cached (device registers) */
#define PTE_PS       0x080u  /* 4 MiB page (in a PDE) */
#define PTE_COW      0x200u  /* software bit: copy-on-write page */
#define PTE_LAZY     0x400u  /* software bit, not present: a zeroed page on first touch */
#define PTE_FLAGS(e) ((e) & 0xFFFu)
#define PTE_ADDR(e)  ((e) & ~0xFFFu)

#define PDX(va) (((uintptr_t)(va) >> 22) & 0x3FF)
#define PTX(va) (((uintptr_t)(va) >> 12) & 0x3FF)

#define PGROUNDDOWN(a) ((uintptr_t)(a) & ~(uintptr_t)(PAGE_SIZE - 1))
#define PGROUNDUP(a)   PGROUNDDOWN((uintptr_t)(a) + PAGE_SIZE - 1)

/* GDT slots and the selectors that name them (low 2 bits = privilege). */
#define SEG_KCODE 1
#define SEG_KDATA 2
#define SEG_UCODE 3
#define SEG_UDATA 4
#define SEG_TSS   5
#define NSEGS     6
#define SEL_KCODE (SEG_KCODE << 3)
#define SEL_KDATA (SEG_KDATA << 3)
#define SEL_UCODE ((SEG_UCODE << 3) | 3)
#define SEL_UDATA ((SEG_UDATA << 3) | 3)
#define SEL_TSS   (SEG_TSS << 3)

/* Page-fault error code bits. */
#define PF_PRESENT 0x1u
#define PF_WRITE   0x2u
#define PF_USER    0x4u

typedef uint32_t pte_t;
typedef uint32_t pde_t;

#endif
