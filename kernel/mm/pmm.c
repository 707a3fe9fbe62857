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
 * when memory runs short, the reclaim hook gives those back first.
 *
 * Each page (and each promise) is charged to the user whose process took
 * it, until it is freed, whoever frees it: owner[pfn] names a slot of
 * users[], which counts what each user holds, and no user may hold more
 * than half of what is not root's (user_share), so one user always leaves
 * another as much as it took (doc/decisions.md, "One user's pages"). */
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
static uint32_t nusable;                /* pages the pool was given at boot */

/* What each user holds: pages and promises charged to them. Slot 0 is
 * root and the kernel (no process), charged but never limited; a user
 * gets a slot while it holds anything, and the users past the table
 * share its last slot (only root makes users: runas, login, setuid). */
#define USER_SLOTS 16
static struct {
    uint32_t uid, held;
} users[USER_SLOTS];
static uint8_t *owner;                  /* owner[pfn]: the slot its page is charged to */

size_t pmm_meta_bytes(uint32_t maxpa)
{
    return (maxpa / PAGE_SIZE) * (sizeof(uint16_t) + sizeof(uint8_t));
}

void pmm_setup(uint32_t maxpa, void *meta)
{
    refs = meta;
    npages = maxpa / PAGE_SIZE;
    owner = (uint8_t *)(refs + npages); /* zeroed: every page root's */
    memset(refs, 0xFF, npages * sizeof(*refs)); /* every page REF_RESERVED */
    nfree = nreserved = nhot = nusable = 0;
    memset(users, 0, sizeof(users));
    low = npages;
}

/* Frame p becomes free, in the pool. */
static void pool_add(uint32_t p)
{
    refs[p] = 0;
    if (p < low)
        low = p;
}

/* Make the whole pages inside [start, end) available: each run of
 * reserved pages at once (at boot the whole of RAM is one or two runs:
 * a test and a store per page cost some 0.5 ms under QEMU). */
void pmm_add_range(uint32_t start, uint32_t end)
{
    uint32_t p = PGROUNDUP(start) / PAGE_SIZE, last = end / PAGE_SIZE, run;

    if (last > npages)
        last = npages;
    while (p < last) {
        for (run = 0; p + run < last && refs[p + run] == REF_RESERVED; run++)
            ;
        if (run == 0) {
            p++;                        /* in use or free already */
            continue;
        }
        memset(&refs[p], 0, run * sizeof(*refs)); /* free, in the pool */
        if (p < low)
            low = p;
        nfree += run;
        nusable += run;
        p += run;
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
        if (refs[p] == 0) {
            nfree--;
            nusable--;
        }
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

/* Take n free frames (contiguous when n > 1) for user slot u; refs = 1.
 * NULL if no run. */
static void *take(unsigned n, unsigned u)
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
    for (i = 0; i < n; i++) {
        refs[first + i] = 1;
        owner[first + i] = u;
    }
    users[u].held += n;
    nfree -= n;
    return P2V(first * PAGE_SIZE);
}

/* Root's reserve: every page the kernel takes while a user's process
 * runs - its heap, stack and page tables, its kernel stack, the copies
 * its copy-on-write writes make, the kernel heap for its files, pipes
 * and requests - must leave a sixteenth of memory free, and at least
 * ROOT_MIN_PAGES (3 MiB: at 16 MiB root could not grow a heap of 1 MiB,
 * fork, exec a shell and make a file in a sixteenth, nor in 2 MiB). That
 * reserve is root's and the kernel's (no process, or a root process), so
 * a user holding all the rest still leaves root enough to fork, exec,
 * grow and kill. Asked in this one place, since a user reaches memory by
 * a dozen ways (doc/decisions.md, "Authority": memory a user cannot take). */
#ifndef ROOT_MIN_PAGES
#define ROOT_MIN_PAGES 768              /* tools/hosttest/pmm.c has 64 pages: its own */
#endif

static unsigned root_reserve(void)
{
    return npages / 16 > ROOT_MIN_PAGES ? npages / 16 : ROOT_MIN_PAGES;
}

/* What users keep in bulk (pmm_may_store) stops a sixteenth above root's
 * reserve: that sixteenth is for their processes (an eighth of memory in
 * all, above 48 MiB). */
static unsigned bulk_floor(void)
{
    return root_reserve() + npages / 16;
}

/* The most one user may hold, pages and promises: half of what users may
 * keep in bulk, as CHILD_MAX and USER_OPEN_MAX are half of the processes
 * and files that are not root's. So one user always leaves another as
 * much as it took. */
static unsigned user_share(void)
{
    return nusable > bulk_floor() ? (nusable - bulk_floor()) / 2 : 0;
}

/* The slot of the user the running process acts for, claimed if it has
 * none: 0 for root and the kernel. Nothing allocates in an interrupt
 * handler, so the running process is the one asking. */
static unsigned payer(void)
{
    const struct proc *p = curproc();
    unsigned u, spare = 0;

    if (!p || p->uid == 0)
        return 0;
    for (u = 1; u < USER_SLOTS; u++) {
        if (users[u].uid == p->uid)
            return u;
        if (!spare && users[u].held == 0)
            spare = u;
    }
    if (!spare)
        return USER_SLOTS - 1;          /* the table is full: share the last */
    users[spare].uid = p->uid;
    return spare;
}

static unsigned keep_free(unsigned u)
{
    return u ? root_reserve() : 0;
}

/* Are n pages free that nobody was promised, with keep more left over,
 * and within user u's share, with spare pages of it left over? */
static int fits(unsigned n, unsigned keep, unsigned u, unsigned spare)
{
    return n + keep <= nfree - nreserved && (u == 0 || users[u].held + n + spare <= user_share());
}

/* fits, or after giving back what is kept only for reuse (the kernel
 * heap's spare pages, cached program text: either may be u's). */
static int have(unsigned n, unsigned keep, unsigned u, unsigned spare)
{
    if (fits(n, keep, u, spare))
        return 1;
    return (kheap_trim() + (reclaim ? reclaim() : 0)) > 0 && fits(n, keep, u, spare);
}

/* n pages, zeroed. Every page is zeroed here, whatever its use: a page
 * must not leak what it held before, and under QEMU a page that held
 * translated code stays slow to write until every byte of it has been
 * written again (doc/decisions.md, "Memory"). */
void *pages_alloc(unsigned n)
{
    return fault_inject("pages_alloc") ? NULL : pages_alloc_uninjected(n);
}

void *page_alloc(void)
{
    return pages_alloc(1);
}

/* pages_alloc without its fault-injection point, for the kernel heap and
 * the heap checker's guarded pool (kfence.c): kmalloc is the point
 * already. As a second one, how many points a call passed hung on the
 * heap's state (whether a bucket needed a new page), so failnth(2)'s
 * count named another allocation from one run to the next and a sweep
 * could step over one (t_fuzzfound missed a rename that allocated after
 * its first change); the pool's pages stand in for the heap's, so the
 * count fails the same allocations with the pool on as off. */
void *pages_alloc_uninjected(unsigned n)
{
    unsigned u = payer();
    void *va;

    if (n == 0 || !have(n, keep_free(u), u, 0))
        return NULL;
    if ((va = take(n, u)))
        memset(va, 0, n * PAGE_SIZE);
    return va;
}

/* A promise is charged like a page, to the running process's user: the
 * slot charged is returned, for the caller to give back with the promise. */
int pmm_reserve(unsigned n)
{
    unsigned u = payer();

    if (!have(n, keep_free(u), u, 0) || fault_inject("pmm_reserve"))
        return -1;
    nreserved += n;
    users[u].held += n;
    return (int)u;
}

void pmm_unreserve(unsigned n, unsigned u)
{
    nreserved = n > nreserved ? 0 : nreserved - n;
    u = u < USER_SLOTS ? u : 0;
    users[u].held = n > users[u].held ? 0 : users[u].held - n;
}

/* One zeroed page out of what slot u was promised: it cannot fail. The
 * promise's charge becomes the page's. */
void *page_alloc_reserved(unsigned u)
{
    void *va;

    if (nreserved == 0 || nfree == 0)
        panic("page_alloc_reserved: nothing was reserved");
    nreserved--;
    u = u < USER_SLOTS ? u : 0;
    users[u].held -= users[u].held > 0;
    va = take(1, u);
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
    users[owner[p]].held--;             /* its taker's, whoever frees it */
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
 * an eighth of memory (bulk_floor) stays free after them, for processes:
 * their kernel stacks, page tables and copy-on-write copies, and root's
 * reserve below them (keep_free), so a user's bulk runs out (ENOSPC,
 * ENOMEM) before the user's processes do; and, the same way, only while
 * a sixteenth of the user's share stays for the user's processes (a heap
 * up to the share left the process no page for its next copy-on-write
 * write: killed). Nothing gives such pages back when a process needs
 * one, so without this floor one user filling /tmp left none for
 * anyone's fork, exec or fault (doc/decisions.md, "Tests"). Root's own
 * files keep a thirty-second: root may still make a file when users
 * have filled /tmp. */
int pmm_may_store(unsigned n)
{
    unsigned u = payer();

    return have(n, u ? bulk_floor() : npages / 32, u, user_share() / 16) &&
           !fault_inject("pmm_may_store");
}

/* What the running process's user holds (root: root and the kernel),
 * the most a user may, and root's reserve (/proc/meminfo's user_pages,
 * user_share, root_reserve). */
unsigned pmm_user_pages(void)
{
    return users[payer()].held;
}

unsigned pmm_user_share(void)
{
    return user_share();
}

unsigned pmm_root_reserve(void)
{
    return root_reserve();
}
