/* kfence.h - the heap checker's guarded pool (kfence.c): pages of its
 * own for each block of up to KFENCE_MAX bytes, between unmapped guard
 * pages, so a read after free, past the end or before the start faults. */
#ifndef MM_KFENCE_H
#define MM_KFENCE_H

#include <stddef.h>
#include <stdint.h>

#define KFENCE_MAX 65536u              /* the biggest block it takes: a pipe's ring */

struct trapframe;

void kfence_init(void);                 /* page tables, before any address space */
void kfence_start(void);                /* boot done: kmalloc may use the pool */
void *kfence_alloc(size_t n, uint32_t caller);  /* NULL: use the heap */
void kfence_free(void *p, uint32_t caller);
int kfence_has(const void *p);          /* p is in the pool */
unsigned kfence_pages(void);            /* pages the pool holds */
unsigned kfence_slots(void);            /* how many one-page slots */
unsigned kfence_trim(void);             /* cached frames back: how many */
/* A kernel page fault at addr: panics naming the block if addr is in
 * the pool; returns if not. */
void kfence_fault(const struct trapframe *tf, uint32_t addr);
extern int kfence_on;

#endif
