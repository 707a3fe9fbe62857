/* kfence.c - the guarded pool: the heap checker's answer to bad reads.
 * (Named after Linux's KFENCE, which does the same with sampling.)
 *
 * Red zones and poison (kheap.c) catch a bad *write*, at kfree or later.
 * A bad *read* changes nothing they can see: a read after free gets
 * poison, a read past the end gets red zone or a neighbour's bytes, and
 * when that value is harmless the code goes on. So with the heap checker
 * on, once the kernel is up (kfence_start, just before the first process
 * runs), every kmalloc of at most KFENCE_MAX bytes is given pages of its
 * own here while the pool has a slot free. Two sizes of slot, each
 * between two pages that are never mapped (guards):
 *
 *   small: | guard | page | guard | page | guard | ... one for a block of up to a page
 *   big:   | guard | 16 pages | guard | 16 pages | ...  a block of up to 64 KiB (a pipe's ring)
 *
 * A site's blocks take turns at the two ends of their slot (turn_left):
 * the first ends exactly where its last page ends, so a read a byte past
 * the end faults at once; the next starts at its first page's start, so a
 * read a byte before the start faults; and so on. (Linux picks the end at
 * random; a grading boot must do the same on every run. By site, not one
 * turn for all: a system call that makes two blocks each time would give
 * each of them the same end for ever.) A block of whole pages is guarded
 * at both ends either way. Only the pages a block covers are mapped.
 *
 * kfree unmaps them, so any touch of the block after its free faults
 * too. The slot then goes to the back of a FIFO of free slots, so its
 * addresses stay unmapped while every other free slot is used first: a
 * stale pointer keeps faulting for the next (slots - blocks live)
 * allocations - some 8000 with 128 MiB of memory. trap() sends a kernel
 * page fault in the pool here (kfence_fault), and the panic says what
 * was done to which block: read or write, after free, past the end or
 * before the start, the block's size, where it was allocated and freed
 * (function, file:line), and the instruction.
 *
 * A block placed at the end starts aligned to the lowest set bit of its
 * size (at most 16, what the heap promises): every type's size is a
 * multiple of its alignment, so an array of T or a struct still gets its
 * alignment, and the end is exact. The REDZONE_MAX bytes of slack on
 * either side of a block are red zone, checked at kfree: a write into
 * the slack is caught there (a read is not: the slack is mapped).
 *
 * The pool costs its page tables and slot records, taken at boot only
 * with `heapcheck` (nothing in bss but a few words), and a page per live
 * block page. kmalloc falls back to the heap when no slot of the size is
 * free, and when less than a quarter of memory would stay free: a block
 * here costs whole pages where the heap costs its size, and near the
 * limits the system keeps (ramfs and pipes stop at an eighth free,
 * pmm_may_store) the pool would move them, so it steps aside and the
 * heap behaves there exactly as without it. Its pages come from
 * pages_alloc_uninjected, which is no fault-injection point: a failnth(2)
 * count fails the same allocations with the pool on as off, so fuzz_oom's
 * error paths run with it. The pool is a net with a size, not a promise.
 *
 * Speed: a kmalloc here costs a mapping per page and a kfree an invlpg
 * per page, some hundreds of instructions each under QEMU; zeroing a
 * fresh frame and scanning a whole page at kfree cost more than both (a
 * ramfs open and close took twice as long again). So the frames of freed
 * blocks are kept (FRAME_CACHE of them) and handed out again as they
 * are, and only the red zones and the block are written. A frame's old
 * bytes in the slack are the kernel's own, and only a bug reads them. The
 * cache goes back with the heap's spare pages (kheap_trim), so
 * /proc/meminfo's free pages still come back exactly. doc/decisions.md
 * says why it is built so. */
#include "arch/x86/cpu.h"
#include "arch/x86/x86.h"
#include "lib/fmt.h"
#include "lib/kprintf.h"
#include "lib/shake.h"
#include "lib/string.h"
#include "mm/kfence.h"
#include "mm/memlayout.h"
#include "mm/page.h"
#include "mm/vm.h"

#define SMALL_MAX   8192u /* one-page slots, at most (and a quarter of memory's pages) */
#define BIG_SLOTS   128u
#define BIG_PAGES   (KFENCE_MAX / PAGE_SIZE)
#define POISON      shake.poison /* as kheap.c: a block's first bytes (0x6B) */
#define REDZONE     0xFC /* as kheap.c: the bytes next to a block */
#define REDZONE_MAX 16u /* that many on each side, or the slack if it is smaller */
#define ALIGN_MAX   16u
#define FRAME_CACHE 32 /* frames of freed blocks kept for the next */

enum { UNUSED, LIVE, FREED };

struct slot {
    uint8_t state;
    uint32_t off; /* where the block starts, from the slot's first page */
    uint32_t size;
    uint32_t alloc_by, free_by; /* return addresses into kmalloc's and kfree's callers */
};

/* The slots of one size: a guard page at base, then each slot's pages
 * followed by a guard page. */
static struct class {
    uintptr_t base;
    unsigned pages; /* a slot's pages: its biggest block */
    unsigned nslots;
    struct slot *slots;
    uint16_t *fifo; /* the free slots, the longest free first */
    unsigned head, len;
    unsigned said_full; /* "full" said on the console */
} small, big;

/* All of it made by kfence_init, only with `heapcheck`: */
static uint32_t pool_bytes; /* the pool's addresses: KFENCE_BASE + [0, this) */
static pte_t **tables; /* the page tables that map them, one per 4 MiB */
static unsigned live_pages;
static void *cached[FRAME_CACHE]; /* frames unmapped by kfree, for kfence_alloc */
static unsigned ncached;
static uint8_t turns[32]; /* a bit per hash of a kmalloc site: its next block's end */
int kfence_on; /* kmalloc may come here (kheap.c asks) */

/* The end of c's addresses: its slots and the guard after the last. */
static uintptr_t class_end(const struct class *c)
{
    return c->base + (1 + c->nslots * (c->pages + 1)) * PAGE_SIZE;
}

/* c's slots from base on, their records in meta (which the caller sized):
 * where the next records go. */
static char *class_init(struct class *c, uintptr_t base, unsigned pages, unsigned nslots,
                        char *meta)
{
    unsigned i;

    c->base = base;
    c->pages = pages;
    c->nslots = c->len = nslots;
    c->slots = (struct slot *)meta;
    c->fifo = (uint16_t *)(c->slots + nslots);
    for (i = 0; i < nslots; i++)
        c->fifo[i] = i;
    return (char *)(c->fifo + nslots);
}

/* The pool's page tables go into the kernel's page directory before any
 * address space copies it (kmain calls this before the first process);
 * they and the slots' records take pages at boot, only with `heapcheck`.
 * As many one-page slots as a quarter of memory's pages (the pool never
 * holds more than that live), at most SMALL_MAX: 8192 with 128 MiB, 1024
 * with 16 MiB. */
void kfence_init(void)
{
    unsigned nsmall = pmm_total_pages() / 4, nslots, ntables, i;
    uint32_t bytes;
    char *meta;

    if (!kheap_checking)
        return;
    if (nsmall > SMALL_MAX)
        nsmall = SMALL_MAX;
    nslots = nsmall + BIG_SLOTS;
    bytes = (1 + nsmall * 2 + 1 + BIG_SLOTS * (BIG_PAGES + 1)) * PAGE_SIZE;
    ntables = (bytes + BIGPAGE - 1) / BIGPAGE;
    if (!(meta = pages_alloc(PGROUNDUP(ntables * sizeof(pte_t *) +
                                       nslots * (sizeof(struct slot) + sizeof(uint16_t))) /
                             PAGE_SIZE)))
        return; /* no pool: the rest of the heap checker goes on */
    tables = (pte_t **)meta;
    for (i = 0; i < ntables; i++)
        tables[i] = vm_kernel_table(KFENCE_BASE + i * BIGPAGE);
    meta = class_init(&small, KFENCE_BASE, 1, nsmall, (char *)(tables + ntables));
    class_init(&big, class_end(&small), BIG_PAGES, BIG_SLOTS, meta);
    pool_bytes = class_end(&big) - KFENCE_BASE;
}

/* From now on every kmalloc of at most KFENCE_MAX bytes may come here:
 * called once the boot is done (init made, its namespace and the
 * initrd's files with it, not yet run), so the objects the kernel keeps
 * for ever do not fill the pool, and what a test or a lab's system call
 * makes lands in it. */
void kfence_start(void)
{
    if (!pool_bytes)
        return; /* no `heapcheck` */
    kfence_on = 1;
    kprintf("heapcheck: guarded pool of %u one-page and %u 64-KiB slots at %p\n", small.nslots,
            big.nslots, (void *)KFENCE_BASE);
}

static pte_t *pte_at(uintptr_t va)
{
    return &tables[(va - KFENCE_BASE) / BIGPAGE][(va / PAGE_SIZE) % 1024];
}

/* Slot j of c's first page. */
static uintptr_t page_of(const struct class *c, unsigned j)
{
    return c->base + (1 + j * (c->pages + 1)) * PAGE_SIZE;
}

/* The first and last page a block covers, as addresses. */
static uintptr_t first_page(const struct class *c, unsigned j)
{
    return page_of(c, j) + PGROUNDDOWN(c->slots[j].off);
}

static uintptr_t end_page(const struct class *c, unsigned j)
{
    return page_of(c, j) + PGROUNDUP(c->slots[j].off + c->slots[j].size);
}

static struct class *class_of(uintptr_t a)
{
    return a < big.base ? &small : &big;
}

int kfence_has(const void *p)
{
    return (uintptr_t)p - KFENCE_BASE < pool_bytes;
}

unsigned kfence_pages(void)
{
    return live_pages + ncached;
}

unsigned kfence_slots(void)
{
    return small.nslots;
}

/* The cached frames go back to the page allocator (kheap_trim: when
 * memory runs short, and before /proc/meminfo counts): how many. */
unsigned kfence_trim(void)
{
    unsigned n = ncached;

    while (ncached > 0)
        page_put(V2P(cached[--ncached]));
    return n;
}

/* Unmap the pages [va, end) of a block: each flushed from the TLB, its
 * frame cached or freed. */
static void unmap(uintptr_t va, uintptr_t end)
{
    for (; va < end; va += PAGE_SIZE) {
        pte_t *pte = pte_at(va);
        void *frame = P2V(PTE_ADDR(*pte));
        *pte = 0;
        invlpg(va);
        if (ncached < FRAME_CACHE)
            cached[ncached++] = frame;
        else
            page_put(V2P(frame));
        live_pages--;
    }
}

/* Map [va, end) to frames, cached ones first (not zeroed again: see the
 * top); -1, with nothing mapped, if memory runs out. Not present before,
 * so no TLB holds them: no invlpg. */
static int map(uintptr_t va, uintptr_t end)
{
    uintptr_t a;
    void *frame;

    for (a = va; a < end; a += PAGE_SIZE) {
        if (ncached > 0)
            frame = cached[--ncached];
        else if (!(frame = pages_alloc_uninjected(1))) {
            unmap(va, a);
            return -1;
        }
        *pte_at(a) = V2P(frame) | PTE_P | PTE_W;
        live_pages++;
    }
    return 0;
}

/* Should the next block from the kmalloc site `caller` start at its
 * slot's start (after the guard below it) rather than end at the slot's
 * end? A site's blocks take turns, the first at the end: a bit per site
 * (a hash of its address into 256 bits: two sites may share one). */
static int turn_left(uint32_t caller)
{
    unsigned h = (caller * 2654435761u) >> 24;
    uint8_t bit = 1u << (h % 8);

    turns[h / 8] ^= bit;
    return !(turns[h / 8] & bit);
}

/* The red zones next to slot j's block: up to REDZONE_MAX bytes of the
 * slack on each side, within the pages it covers. */
static void redzones(const struct class *c, unsigned j, uint32_t *lo, uint32_t *hi)
{
    const struct slot *s = &c->slots[j];
    uint32_t start = PGROUNDDOWN(s->off), end = PGROUNDUP(s->off + s->size);

    *lo = s->off - start < REDZONE_MAX ? start : s->off - REDZONE_MAX;
    *hi = end - (s->off + s->size) < REDZONE_MAX ? end : s->off + s->size + REDZONE_MAX;
}

/* A block of n bytes (0 < n) in a slot of its own, or NULL: n is more
 * than KFENCE_MAX, the pool is off, no slot of its size is free, or
 * memory is short (the caller then takes it from the heap). Its bytes are
 * POISON, as a heap block's are with the checker on, so a read of what
 * was never written is not hidden by zeros. */
void *kfence_alloc(size_t n, uint32_t caller)
{
    struct class *c = n <= PAGE_SIZE ? &small : &big;
    uint32_t align = n & -n, off, lo, hi;
    unsigned j;
    struct slot *s;
    char *va;

    if (!kfence_on || n > KFENCE_MAX ||
        pmm_free_pages() < pmm_total_pages() / 4 + PGROUNDUP(n) / PAGE_SIZE)
        return NULL; /* see the top of the file for the last */
    if (shake.fence_one_in != 1 &&
        (!shake.fence_one_in || (shake_site(caller, 0) >> 8) % shake.fence_one_in))
        return NULL; /* `shake=heapN`: this site's blocks go to the heap (lib/shake.c) */
    if (c->len == 0) {
        if (!c->said_full++)
            kprintf("heapcheck: guarded pool's %u-page slots full: blocks of that size go to "
                    "the heap until one is freed\n",
                    c->pages);
        return NULL;
    }
    j = c->fifo[c->head];
    s = &c->slots[j];
    va = (char *)page_of(c, j);
    if (align > ALIGN_MAX)
        align = ALIGN_MAX;
    off = turn_left(caller) ? 0 : (c->pages * PAGE_SIZE - n) & ~(align - 1);
    if (map((uintptr_t)va + PGROUNDDOWN(off), (uintptr_t)va + PGROUNDUP(off + n)) < 0)
        return NULL;                    /* the slot still says where its last block was */
    s->off = off;
    s->size = n;
    c->head = (c->head + 1) % c->nslots;
    c->len--;
    s->state = LIVE;
    s->alloc_by = caller;
    s->free_by = 0;
    redzones(c, j, &lo, &hi);
    memset(va + lo, REDZONE, s->off - lo);
    memset(va + s->off, POISON, n);
    memset(va + s->off + n, REDZONE, hi - s->off - n);
    return va + s->off;
}

/* A panic about a kfree of p from `caller`, naming the block if there was one. */
static void __attribute__((noreturn)) bad_free(void *p, uint32_t caller, const char *what,
                                               const struct slot *s)
{
    char by[96], from[96];

    ksym_where(caller - 1, by, sizeof(by));
    if (!s || s->state == UNUSED)
        panic("kfree(%p) from %s: %s", p, by, what);
    panic("kfree(%p) from %s: %s of a %u-byte block (kmalloc from %s)", p, by, what, s->size,
          ksym_where(s->alloc_by - 1, from, sizeof(from)));
}

/* The slot whose pages (not guards) hold pool address a, or -1. */
static int slot_at(const struct class *c, uintptr_t a)
{
    unsigned k = (a - c->base) / PAGE_SIZE, stride = c->pages + 1;

    if (k == 0 || (k - 1) % stride >= c->pages || (k - 1) / stride >= c->nslots)
        return -1;
    return (k - 1) / stride;
}

/* kfree of a pool block: the red zones next to it must be intact (else
 * the block was overrun or underrun), then its pages go: unmapped,
 * flushed from the TLB, their frames cached or freed, its slot to the
 * back of the FIFO. */
void kfence_free(void *p, uint32_t caller)
{
    struct class *c = class_of((uintptr_t)p);
    int j = slot_at(c, (uintptr_t)p);
    struct slot *s = j < 0 ? NULL : &c->slots[j];
    const unsigned char *va;
    uint32_t k, lo, hi;
    char from[96];

    if (s && s->state == FREED)
        bad_free(p, caller, "double free", s);
    if (!s || s->state != LIVE || (uintptr_t)p != page_of(c, j) + s->off)
        bad_free(p, caller, "not the start of a block", s);
    va = (const unsigned char *)page_of(c, j);
    redzones(c, j, &lo, &hi);
    for (k = lo; k < hi; k++) {
        if (k == s->off)
            k += s->size; /* the block itself: anything goes */
        if (k < hi && va[k] != REDZONE)
            panic("heapcheck: heap %s: %u-byte block at %p written %u byte(s) %s "
                  "(kmalloc from %s)",
                  k < s->off ? "underflow" : "overflow", s->size, p,
                  k < s->off ? s->off - k : k - s->off - s->size + 1,
                  k < s->off ? "before its start" : "past its end",
                  ksym_where(s->alloc_by - 1, from, sizeof(from)));
    }
    unmap(first_page(c, j), end_page(c, j));
    s->state = FREED;
    s->free_by = caller;
    c->fifo[(c->head + c->len) % c->nslots] = j;
    c->len++;
}

/* The slot pool address a is in, or next to: its own, if a is in a
 * slot's pages; in a guard page, the nearer of the two blocks it lies
 * between (the one it is past the end of, or before the start of). -1 if
 * no block has been near. *start is that block's first byte. */
static int slot_near(const struct class *c, uintptr_t a, uintptr_t *start)
{
    unsigned k = (a - c->base) / PAGE_SIZE, stride = c->pages + 1, i;
    int j = slot_at(c, a), cand[2], best = -1;
    uint32_t dist, best_dist = 0;

    cand[0] = j;
    cand[1] = -1;
    if (j < 0) { /* a guard: after slot k/stride - 1, before k/stride */
        cand[0] = (int)(k / stride) - 1;
        cand[1] = k / stride < c->nslots ? (int)(k / stride) : -1;
    }
    for (i = 0; i < 2; i++) {
        const struct slot *s;
        uintptr_t st;
        if (cand[i] < 0 || (s = &c->slots[cand[i]])->state == UNUSED)
            continue;
        st = page_of(c, cand[i]) + s->off;
        dist = a < st ? st - a : a >= st + s->size ? a - (st + s->size) : 0;
        if (best < 0 || dist < best_dist) {
            best = cand[i];
            best_dist = dist;
            *start = st;
        }
    }
    return best;
}

/* A kernel page fault at addr: if it is in the pool, panic saying what
 * the faulting instruction did to which block. Else return: an ordinary
 * kernel fault, which trap() reports. */
void kfence_fault(const struct trapframe *tf, uint32_t addr)
{
    const char *access = (tf->err & PF_WRITE) ? "write" : "read", *what;
    char msg[480], a[96], f[96], at[96];
    const struct class *c;
    const struct slot *s;
    uintptr_t start = 0;
    int32_t byte;
    int n, j;

    if (tf->trapno != T_PGFLT || !kfence_has((void *)addr))
        return;
    c = class_of(addr);
    ksym_where(tf->eip, at, sizeof(at));
    if ((j = slot_near(c, addr, &start)) < 0) {
        snprintf(msg, sizeof(msg),
                 "kfence: %s at %p in the guarded pool, where no block has been: "
                 "a wild pointer\n  by %s",
                 access, (void *)addr, at);
        panic_fault(tf, msg);
    }
    s = &c->slots[j];
    byte = (int32_t)(addr - start); /* < 0: before the block */
    what = s->state == FREED ? "after free of"
           : byte < 0        ? "before the start of"
                             : "past the end of";
    n = snprintf(msg, sizeof(msg), "kfence: %s %s a %u-byte block at %p: ", access, what, s->size,
                 (void *)start);
    if (byte < 0)
        n += snprintf(msg + n, sizeof(msg) - n, "%d byte(s) before its start", -byte);
    else if (byte >= (int32_t)s->size)
        n += snprintf(msg + n, sizeof(msg) - n, "byte %d, %d past its last", byte,
                      byte - (int32_t)s->size + 1);
    else
        n += snprintf(msg + n, sizeof(msg) - n, "byte %d", byte);
    n += snprintf(msg + n, sizeof(msg) - n, "\n  kmalloc from %s",
                  ksym_where(s->alloc_by - 1, a, sizeof(a)));
    if (s->state == FREED)
        n += snprintf(msg + n, sizeof(msg) - n, "\n  kfree from %s",
                      ksym_where(s->free_by - 1, f, sizeof(f)));
    snprintf(msg + n, sizeof(msg) - n, "\n  %s by the instruction at %s", access, at);
    panic_fault(tf, msg);
}
