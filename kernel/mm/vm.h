/* vm.h - address spaces: a page directory whose kernel half is shared by
 * all, whose user half (below USER_TOP) is the process's own. */
#ifndef MM_VM_H
#define MM_VM_H

#include <stddef.h>
#include <stdint.h>
#include "arch/x86/mmu.h"

void vm_init(uint32_t maxpa);
pte_t *vm_kernel_table(uint32_t va);                /* at boot: kfence.c */
pde_t *vm_create(void);                             /* NULL on no memory */
void vm_destroy(pde_t *pgdir);
void vm_free_user(pde_t *pgdir);                    /* the user half only: exit */
void vm_switch(pde_t *pgdir);                       /* NULL: the kernel's own */
int vm_map_page(pde_t *pgdir, uint32_t va, uint32_t pa, uint32_t perm);
int vm_alloc_range(pde_t *pgdir, uint32_t start, uint32_t end, uint32_t perm);
/* Reserve [start, end) and map it lazily: zeroed pages on first touch. */
int vm_lazy_range(pde_t *pgdir, uint32_t start, uint32_t end, uint32_t perm);
void vm_free_range(pde_t *pgdir, uint32_t start, uint32_t end);
pde_t *vm_fork(pde_t *src, int floor); /* copy-on-write copy; floor: a user's (pmm_may_store) */
int vm_resolve_cow(pde_t *pgdir, uint32_t va);      /* 0, or -EFAULT/-ENOMEM */
/* A user page fault at va: 0 if it was a lazy page or a COW write, mended. */
int vm_fault(pde_t *pgdir, uint32_t va, int write);
int vm_mapped(pde_t *pgdir, uint32_t va);           /* present or lazy */

/* Kernel-virtual address of user address `va` in *k (a lazy page is
 * filled; for writes, COW is resolved first): 0, -EFAULT if that page is
 * not mapped for user access (or not writable), -ENOMEM if the COW copy
 * found no free page. */
int vm_user_access(pde_t *pgdir, uint32_t va, int write, void **k);
/* The same, NULL for either error. */
void *vm_user_page(pde_t *pgdir, uint32_t va, int write);
unsigned vm_user_pages(pde_t *pgdir);               /* mapped user pages */
/* 0 if vm_user_access would give every page of [start, end); else
 * -EFAULT if it fails so for any page, or -ENOMEM. */
int vm_user_range(pde_t *pgdir, uint32_t start, uint32_t end, int write);

#endif
