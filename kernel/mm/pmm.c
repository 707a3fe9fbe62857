/* pmm.c - the physical page allocator: one reference count per page frame
 * (0 = free). Freed single pages go on a small stack of hot pages, and a
 * single page is taken from there first, last in, first out: O(1), and
 * the page just given back - still warm in the CPU's caches - is the next
 * one handed out. Behind the stack, free pages are taken lowest address
 * first, and contiguous runs (kernel stacks, large kmalloc) highest
 * address first, so long-lived single pages pile up at the bottom and a
 * big run (a 16 MiB ramfs file) still finds room at the top after hours
 * of pages coming and going. (Linux puts per-CPU lists of hot pages in
 * front of its buddy allocator for the same two reasons.) A plain LIFO
 * list for every page scatters the pages that stay - heap pages, page
 * tables - across all of memory after a program has used all of it once.
 *
 * Pages can also be promised without being handed out yet: vm.c reserves
 * one for each page it maps lazily (a stack page that becomes a zeroed
 * page on first touch), so that the touch never finds memory gone.
 * Everyone else may take only the free pages nobody was promised, and
 * a user's process not the last sixteenth of them: root's (keep_free). And
 * pages in use may be only kept for reuse (exec's shared program text):
 * when memory runs short, the reclaim hook gives those back first. */
#include "lib/fault.h"
#include "lib/kprintf.h"
#include "lib/string.h"
#include "mm/memlayout.h"
#include "mm/page.h"
#include "arch/x86/mmu.h"
#include "proc/proc.h"

#define REF_RESERVED 0xFFFFu            /* never allocated, never freed */
#define REF_HOT      0xFFFEu            /* free, on the hot stack */
#define HOT_PAGES    64

static uint16_t *refs;                  /* refs[pfn] */
static uint32_t npages, nfree;          /* nfree counts the hot pages too */
static uint32_t low;                    /* no free page (refs 0) below this one */
static uint32_t hot[HOT_PAGES], nhot;
static uint32_t nreserved;              /* free pages promised to lazy mappings */
static unsigned (*reclaim)(void);       /* gives back cached pages: how many */

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
    nfree = nreserved = nhot = 0;
    low = npages;
}

/* Frame p becomes free, in the pool. */
static void pool_add(uint32_t p)
{
    refs[p] = 0;
    if (p < low)
        low = p;
}

/* Make the whole pages inside [start, end) available. */
void pmm_add_range(uint32_t start, uint32_t end)
{
    uint32_t p;

    for (p = PGROUNDUP(start) / PAGE_SIZE; p < npages && p < end / PAGE_SIZE; p++) {
        if (refs[p] == REF_RESERVED) {
            pool_add(p);
            nfree++;
        }
    }
}

/* Hot pages go back to the pool (before a run is looked for, and at boot). */
static void cool_down(void)
{
    while (nhot > 0)
        pool_add(hot[--nhot]);
}

/* Take every page touching [start, end) out of use for good. */
void pmm_reserve_range(uint32_t start, uint32_t end)
{
    uint32_t p;

    cool_down();
    for (p = start / PAGE_SIZE; p < npages && p < PGROUNDUP(end) / PAGE_SIZE; p++) {
        if (refs[p] == 0)
            nfree--;
        refs[p] = REF_RESERVED;
    }
}

/* Find n free pool frames in a row: the highest such run. */
static int find_run(unsigned n, uint32_t *first)
{
    uint32_t p = npages, run = 0;

    while (p-- > low) {
        run = refs[p] == 0 ? run + 1 : 0;
        if (run == n) {
            *first = p;
            return 1;
        }
    }
    return 0;
}

/* Take n free frames (contiguous when n > 1); refs = 1. NULL if no run. */
static void *take(unsigned n)
{
    uint32_t first, i;

    if (n == 1 && nhot > 0) {
        first = hot[--nhot];
    } else if (n == 1) {
        while (refs[low] != 0)          /* nfree > 0: there is one */
            low++;
        first = low;
    } else {
        cool_down();
        if (!find_run(n, &first))
            return NULL;
    }
    for (i = 0; i < n; i++)
        refs[first + i] = 1;
    nfree -= n;
    return P2V(first * PAGE_SIZE);
}

/* Are n pages free that nobody was promised, with keep more left over?
 * If not, reclaim, ask again. */
static int have(unsigned n, unsigned keep)
{
    if (n + keep <= nfree - nreserved)
        return 1;
    return (kheap_trim() + (reclaim ? reclaim() : 0)) > 0 && n + keep <= nfree - nreserved;
}

/* Root's reserve: every page the kernel takes while a user's process
 * runs - its heap, stack and page tables, its kernel stack, the copies
 * its copy-on-write writes make, the kernel heap for its files, pipes
 * and requests - must leave a sixteenth of memory free. That sixteenth
 * is root's and the kernel's (no process, or a root process), so a user
 * holding all the rest still leaves root enough to fork, exec, grow and
 * kill. Asked in this one place, since a user reaches memory by a dozen
 * ways (doc/decisions.md, "Authority": memory a user cannot take). */
static unsigned keep_free(void)
{
    const struct proc *p = curproc();

    return p && p->uid != 0 ? npages / 16 : 0;
}

/* n pages, zeroed. Every page is zeroed here, whatever its use: a page
 * must not leak what it held before, and under QEMU a page that held
 * translated code stays slow to write until every byte of it has been
 * written again (doc/decisions.md, "Memory"). */
void *pages_alloc(unsigned n)
{
    void *va;

    if (n == 0 || !have(n, keep_free()) || fault_inject("pages_alloc"))
        return NULL;
    if ((va = take(n)))
        memset(va, 0, n * PAGE_SIZE);
    return va;
}

void *page_alloc(void)
{
    return pages_alloc(1);
}

/* page_alloc without its fault-injection point, for the heap checker's
 * guarded pool (kfence.c), whose pages stand in for the heap's: so
 * failnth(2)'s count fails the same allocations with the pool on as off. */
void *page_alloc_uninjected(void)
{
    void *va;

    if (!have(1, keep_free()))
        return NULL;
    if ((va = take(1)))
        memset(va, 0, PAGE_SIZE);
    return va;
}

int pmm_reserve(unsigned n)
{
    if (!have(n, keep_free()) || fault_inject("pmm_reserve"))
        return -1;
    nreserved += n;
    return 0;
}

void pmm_unreserve(unsigned n)
{
    nreserved = n > nreserved ? 0 : nreserved - n;
}

/* One zeroed page out of what was reserved: it cannot fail. */
void *page_alloc_reserved(void)
{
    void *va;

    if (nreserved == 0 || nfree == 0)
        panic("page_alloc_reserved: nothing was reserved");
    nreserved--;
    va = take(1);
    memset(va, 0, PAGE_SIZE);
    return va;
}

/* Drop one reference to page p. At zero a single page goes on the hot
 * stack (the pool, when that is full) and a run's page to the pool. */
static void put(uint32_t p, int single)
{
    if (p >= npages || refs[p] == REF_RESERVED || refs[p] == REF_HOT || refs[p] == 0)
        return;                     /* not ours to free: ignore, never corrupt */
    if (--refs[p] > 0)
        return;
    nfree++;
    if (single && nhot < HOT_PAGES) {
        refs[p] = REF_HOT;
        hot[nhot++] = p;
    } else {
        pool_add(p);
    }
}

void pages_free(void *va, unsigned n)
{
    uint32_t p = V2P(va) / PAGE_SIZE, i;

    for (i = 0; i < n; i++)
        put(p + i, n == 1);
}

void page_get(uint32_t pa)
{
    uint32_t p = pa / PAGE_SIZE;

    if (p < npages && refs[p] != REF_RESERVED && refs[p] != REF_HOT && refs[p] != 0)
        refs[p]++;                  /* a free page is not ours to share: ignore */
}

void page_put(uint32_t pa)
{
    put(pa / PAGE_SIZE, 1);
}

unsigned page_refs(uint32_t pa)
{
    uint32_t p = pa / PAGE_SIZE;

    return p < npages && refs[p] != REF_RESERVED && refs[p] != REF_HOT ? refs[p] : 0;
}

/* When memory runs short, pages_alloc and pmm_reserve call fn, which
 * frees pages kept only to be reused (exec's shared text), then try again. */
void pmm_set_reclaim(unsigned (*fn)(void))
{
    reclaim = fn;
}

/* Free every page kept only for reuse, so that the free count means what
 * it says (/proc/meminfo calls this first, as it empties the heap's
 * quarantine). */
void pmm_reclaim(void)
{
    if (reclaim)
        reclaim();
}

unsigned pmm_reserved_pages(void)
{
    return nreserved;
}

/* Free pages nobody was promised: a lazy page counts as in use from the
 * moment it is mapped, as it would if it had been filled at once. */
unsigned pmm_free_pages(void)
{
    return nfree - nreserved;
}

unsigned pmm_total_pages(void)
{
    return npages;
}

/* May n more pages go to what any user can make in bulk and keep: the
 * files of a filesystem in memory (ramfs), the buffers of pipes and
 * channels, a user's heap, bss and stack (sbrk, exec, fork)? Only while
 * an eighth of memory stays free after them, for processes: their
 * kernel stacks, page tables and copy-on-write copies, and root's
 * reserve below them (keep_free), so a user's bulk runs out (ENOSPC,
 * ENOMEM) before the user's processes do. Nothing gives such pages back
 * when a process needs one, so without this floor one user filling /tmp
 * left none for anyone's fork, exec or fault (doc/decisions.md,
 * "Tests"). Root's own files keep a thirty-second: root may still make
 * a file when a user has filled /tmp. */
int pmm_may_store(unsigned n)
{
    return have(n, keep_free() ? npages / 8 : npages / 32) && !fault_inject("pmm_may_store");
}
