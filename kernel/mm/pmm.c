/* pmm.c - the physical page allocator: one reference count per page frame
 * (0 = free), and a roving index that remembers where the last free page
 * was found. Contiguous runs (for large kmalloc) come from the same table.
 * Simple and O(pages) in the worst case; fine for a machine of 128 MiB. */
#include "lib/string.h"
#include "mm/memlayout.h"
#include "mm/page.h"
#include "arch/x86/mmu.h"

#define REF_RESERVED 0xFFFFu            /* never allocated, never freed */

static uint16_t *refs;                  /* refs[pfn] */
static uint32_t npages, nfree, rover;

size_t pmm_meta_bytes(uint32_t maxpa)
{
    return (maxpa / PAGE_SIZE) * sizeof(uint16_t);
}

void pmm_setup(uint32_t maxpa, void *meta)
{
    uint32_t i;

    refs = meta;
    npages = maxpa / PAGE_SIZE;
    for (i = 0; i < npages; i++)
        refs[i] = REF_RESERVED;
    nfree = 0;
    rover = 0;
}

/* Make the whole pages inside [start, end) available. */
void pmm_add_range(uint32_t start, uint32_t end)
{
    uint32_t p;

    for (p = PGROUNDUP(start) / PAGE_SIZE; p < npages && p < end / PAGE_SIZE; p++) {
        if (refs[p] == REF_RESERVED) {
            refs[p] = 0;
            nfree++;
        }
    }
}

/* Take every page touching [start, end) out of use for good. */
void pmm_reserve_range(uint32_t start, uint32_t end)
{
    uint32_t p;

    for (p = start / PAGE_SIZE; p < npages && p < PGROUNDUP(end) / PAGE_SIZE; p++) {
        if (refs[p] == 0)
            nfree--;
        refs[p] = REF_RESERVED;
    }
}

/* Find n free frames in a row, starting the search at the rover. */
static int find_run(unsigned n, uint32_t *first)
{
    uint32_t scanned, p = rover, run = 0;

    for (scanned = 0; scanned < npages + n; scanned++, p++) {
        if (p >= npages) {
            p = 0;
            run = 0;
        }
        run = refs[p] == 0 ? run + 1 : 0;
        if (run == n) {
            *first = p + 1 - n;
            rover = p + 1;
            return 1;
        }
    }
    return 0;
}

void *pages_alloc(unsigned n)
{
    uint32_t first, i;
    void *va;

    if (n == 0 || n > nfree || !find_run(n, &first))
        return NULL;
    for (i = 0; i < n; i++)
        refs[first + i] = 1;
    nfree -= n;
    va = P2V(first * PAGE_SIZE);
    memset(va, 0, n * PAGE_SIZE);
    return va;
}

void *page_alloc(void)
{
    return pages_alloc(1);
}

void pages_free(void *va, unsigned n)
{
    uint32_t pa = V2P(va), i;

    for (i = 0; i < n; i++)
        page_put(pa + i * PAGE_SIZE);
}

void page_get(uint32_t pa)
{
    uint32_t p = pa / PAGE_SIZE;

    if (p < npages && refs[p] != REF_RESERVED)
        refs[p]++;
}

void page_put(uint32_t pa)
{
    uint32_t p = pa / PAGE_SIZE;

    if (p >= npages || refs[p] == REF_RESERVED || refs[p] == 0)
        return;                     /* not ours to free: ignore, never corrupt */
    if (--refs[p] == 0)
        nfree++;
}

unsigned page_refs(uint32_t pa)
{
    uint32_t p = pa / PAGE_SIZE;

    return p < npages && refs[p] != REF_RESERVED ? refs[p] : 0;
}

unsigned pmm_free_pages(void)
{
    return nfree;
}

unsigned pmm_total_pages(void)
{
    return npages;
}
