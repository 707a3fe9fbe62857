/* page.h - the physical page allocator (pmm.c) and the kernel heap
 * (kheap.c). Pages are handed out as kernel virtual addresses in the
 * direct map; V2P() gives the physical address. Each page has a reference
 * count so copy-on-write fork can share it. */
#ifndef MM_PAGE_H
#define MM_PAGE_H

#include <stddef.h>
#include <stdint.h>

/* Boot-time set-up: pages [0, maxpa) exist; `meta` points at enough zeroed
 * memory for pmm_meta_bytes(maxpa). Every page starts reserved; callers free
 * the usable ranges, then reserve what is in use (kernel, modules). */
size_t pmm_meta_bytes(uint32_t maxpa);
void pmm_setup(uint32_t maxpa, void *meta);
void pmm_add_range(uint32_t start, uint32_t end);
void pmm_reserve_range(uint32_t start, uint32_t end);

void *page_alloc(void);                 /* one zeroed page, refs = 1; NULL if none */
void *pages_alloc_uninjected(unsigned n); /* no failnth point: the heap's, the pool's */
void *pages_alloc(unsigned n);          /* n contiguous zeroed pages, refs = 1 */
void pages_free(void *va, unsigned n);
void page_get(uint32_t pa);             /* refs++ */
void page_put(uint32_t pa);             /* refs--; freed at 0 */
unsigned page_refs(uint32_t pa);
/* Promise n free pages to a lazy mapping (-1 if that many are not there):
 * no other allocation can take them. The promise is charged to the
 * running process's user: pmm_reserve returns that user's slot (0: root
 * and the kernel), which the caller keeps and passes back.
 * page_alloc_reserved hands one out (zeroed) and keeps the promise;
 * pmm_unreserve drops promises unused. */
int pmm_reserve(unsigned n);
void pmm_unreserve(unsigned n, unsigned slot);
void *page_alloc_reserved(unsigned slot);
unsigned pmm_reserved_pages(void);
/* fn frees pages that are only kept for reuse and says how many; it is
 * called when memory runs short and by pmm_reclaim (before /proc/meminfo). */
void pmm_set_reclaim(unsigned (*fn)(void));
void pmm_reclaim(void);
unsigned pmm_free_pages(void);
unsigned pmm_total_pages(void);
int pmm_may_store(unsigned n);          /* n more, and an eighth free (root: a 32nd)? */
unsigned pmm_user_pages(void);          /* what the caller's user holds */
unsigned pmm_user_share(void);          /* the most one user may hold */
unsigned pmm_root_reserve(void);        /* what users' processes leave free */

void kheap_init(void);                  /* reads the `heapcheck` boot argument */
void *kmalloc(size_t n);                /* NULL when memory runs out */
void *kzalloc(size_t n);                /* kmalloc + zero */
char *kstrdup(const char *s);           /* a kmalloc'd copy; NULL for NULL */
void kfree(void *p);                    /* panics on a double or bad free */
/* Check every free block now (panics on damage), empty the checker's
 * quarantine and give back the spare pages (kheap_trim), so that the free
 * page count is what it would be without them. */
void kheap_check(void);
unsigned kheap_trim(void);              /* spare bucket pages back: how many */
unsigned kheap_pages(void);             /* pages the heap holds */
unsigned kheap_bucket_pages(void);      /* of those, the ones carved into small blocks */
unsigned kheap_blocks(void);            /* blocks in use */
extern int kheap_checking;              /* the heap checker is on */

#endif
