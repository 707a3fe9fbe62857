/* kfence.c - the guarded pool: the heap checker's answer to bad reads.
 * (Named after Linux's KFENCE, which does the same with sampling.)
 *
 * Red zones and poison (kheap.c) catch a bad *write*, at kfree or later.
 * A bad *read* changes nothing they can see: a read after free gets
 * poison, a read past the end gets red zone or a neighbour's bytes, and
 * when that value is harmless the code goes on. So with the heap checker
 * on, once the kernel is up (kfence_start, just before the first process
 * runs), every kmalloc of at most a page is given a page of its own here
 * while the pool has a slot free:
 *
 *   KFENCE_BASE: | slack | block | guard | slack | block | guard | ...
 *                 <-- one page --> <page>
 *
 * The block ends where its page ends and the next page is never mapped,
 * so a read (or write) a byte past the end faults at once. kfree unmaps
 * the page, so any touch of the block after its free faults too. The
 * slot then goes to the back of a FIFO of free slots, so its addresses
 * stay unmapped while every other free slot is used first: a stale
 * pointer keeps faulting for the next KFENCE_SLOTS - (blocks live)
 * allocations. trap() sends a kernel page fault in the pool here
 * (kfence_fault), and the panic says what was done to which block: read
 * or write, after free or past the end, the block's size, where it was
 * allocated and freed (function, file:line), and the instruction.
 *
 * The start of the block is aligned to the lowest set bit of its size
 * (at most 16, what the heap promises): every type's size is a multiple
 * of its alignment, so an array of T or a struct still gets its
 * alignment, and the end is exact. The last REDZONE_MAX bytes of the
 * slack before the block are red zone, checked at kfree: an underflow
 * write is caught there (an underflow read is not: the slack is mapped).
 *
 * The pool costs its page tables (KFENCE_SLOTS / 512 pages, taken at
 * boot) and a page per live block: at most KFENCE_SLOTS pages, and
 * FRAME_CACHE more. kmalloc falls back to the heap when every slot is
 * live, and also
 * - when less than a quarter of memory is free: a block here costs a
 *   page where the heap costs its size, and a kfree can give a page
 *   back; near the limits the system keeps (ramfs and pipes stop at an
 *   eighth free, pmm_may_store) the pool would move them, so it steps
 *   aside and the heap behaves there exactly as without it;
 * - while some process has failnth(2) armed: the pool's page must not
 *   be a fault-injection point of its own.
 * The pool is a net with a size, not a promise.
 *
 * Speed: a kmalloc here costs a mapping and a kfree an invlpg, some
 * hundreds of instructions each under QEMU; zeroing a fresh frame and
 * scanning a whole page at kfree cost more than both (a ramfs open and
 * close took twice as long again). So the frames of freed blocks are
 * kept (FRAME_CACHE of them) and handed out again as they are, and only
 * the red zone and the block are written. A frame's old bytes in the
 * slack are the kernel's own, and only a bug reads them. The cache goes
 * back with the heap's spare pages (kheap_trim), so /proc/meminfo's free
 * pages still come back exactly. doc/decisions.md says why it is built so. */
#include "arch/x86/cpu.h"
#include "arch/x86/x86.h"
#include "lib/fault.h"
#include "lib/fmt.h"
#include "lib/kprintf.h"
#include "lib/string.h"
#include "mm/kfence.h"
#include "mm/memlayout.h"
#include "mm/page.h"
#include "mm/vm.h"

#define SLOT_BYTES  (2 * PAGE_SIZE)     /* the block's page and its guard */
#define NTABLES     (KFENCE_SLOTS * SLOT_BYTES / BIGPAGE)
#define POISON      0x6B                /* as kheap.c: a block's first bytes */
#define REDZONE     0xFC                /* as kheap.c: the bytes right before a block */
#define REDZONE_MAX 16u                 /* that many, or the slack if it is smaller */
#define ALIGN_MAX   16u
#define FRAME_CACHE 32                  /* frames of freed blocks kept for the next */

_Static_assert(KFENCE_SLOTS *SLOT_BYTES % BIGPAGE == 0, "whole page tables");
_Static_assert(KFENCE_BASE + KFENCE_SLOTS * SLOT_BYTES - 1 > KFENCE_BASE, "fits below 4 GiB");

enum { UNUSED, LIVE, FREED };

static struct slot {
    uint8_t state;
    uint16_t off;                       /* where the block starts in its page */
    uint32_t size;
    uint32_t alloc_by, free_by;         /* return addresses into kmalloc's and kfree's callers */
} slots[KFENCE_SLOTS];
static uint16_t fifo[KFENCE_SLOTS];     /* the free slots, the longest free first */
static unsigned fifo_head, fifo_len, live, said_full;
static pte_t *tables[NTABLES];
static void *cached[FRAME_CACHE];       /* frames unmapped by kfree, for kfence_alloc */
static unsigned ncached;
int kfence_on;                          /* kmalloc may come here (kheap.c asks) */

/* The pool's page tables go into the kernel's page directory before any
 * address space copies it (kmain calls this before the first process). */
void kfence_init(void)
{
    unsigned i;

    if (!kheap_checking)
        return;
    for (i = 0; i < NTABLES; i++)
        tables[i] = vm_kernel_table(KFENCE_BASE + i * BIGPAGE);
    for (i = 0; i < KFENCE_SLOTS; i++)
        fifo[i] = i;
    fifo_len = KFENCE_SLOTS;
}

/* From now on every kmalloc of a page or less may come here: called once
 * the boot is done (init made, its namespace and the initrd's files with
 * it, not yet run), so the objects the kernel keeps for ever do not fill
 * the pool, and what a test or a lab's system call makes lands in it. */
void kfence_start(void)
{
    if (!tables[0])
        return;                         /* no `heapcheck` */
    kfence_on = 1;
    kprintf("heapcheck: guarded pool of %u one-page slots at %p\n", KFENCE_SLOTS,
            (void *)KFENCE_BASE);
}

static uintptr_t page_of(unsigned i)
{
    return KFENCE_BASE + i * SLOT_BYTES;
}

static pte_t *pte_of(unsigned i)
{
    unsigned page = i * 2;              /* the slot's first page, counted from the base */

    return &tables[page / 1024][page % 1024];
}

/* The slot of pool address a (which may be in its guard page). */
static unsigned slot_of(uintptr_t a)
{
    return (a - KFENCE_BASE) / SLOT_BYTES;
}

/* The red zone before s's block: the last bytes of the slack. */
static uint32_t redzone_of(const struct slot *s)
{
    return s->off < REDZONE_MAX ? s->off : REDZONE_MAX;
}

int kfence_has(const void *p)
{
    return (uintptr_t)p - KFENCE_BASE < KFENCE_SLOTS * SLOT_BYTES;
}

unsigned kfence_pages(void)
{
    return live + ncached;
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

/* A block of n bytes (0 < n) in a slot of its own, or NULL: n is more
 * than a page, the pool is off or full, or no page is free (the caller
 * then takes it from the heap). Its bytes are POISON, as a heap block's
 * are with the checker on, so a read of what was never written is not
 * hidden by zeros. */
void *kfence_alloc(size_t n, uint32_t caller)
{
    uint32_t align = n & -n;
    unsigned i;
    char *frame, *va;
    struct slot *s;

    if (!kfence_on || n > PAGE_SIZE || fault_armed || pmm_free_pages() < pmm_total_pages() / 4)
        return NULL;                    /* see the top of the file for the last two */
    if (fifo_len == 0) {
        if (!said_full++)
            kprintf("heapcheck: guarded pool full (%u blocks live): small blocks go to the "
                    "heap until one is freed\n",
                    live);
        return NULL;
    }
    if (ncached > 0)
        frame = cached[--ncached];      /* not zeroed again: see the top */
    else if (!(frame = page_alloc()))
        return NULL;
    i = fifo[fifo_head];
    fifo_head = (fifo_head + 1) % KFENCE_SLOTS;
    fifo_len--;
    s = &slots[i];
    s->state = LIVE;
    s->off = (PAGE_SIZE - n) & ~((align < ALIGN_MAX ? align : ALIGN_MAX) - 1);
    s->size = n;
    s->alloc_by = caller;
    s->free_by = 0;
    /* it was not present: no TLB holds it, no invlpg */
    *pte_of(i) = V2P(frame) | PTE_P | PTE_W;
    live++;
    va = (char *)page_of(i);
    memset(va + s->off - redzone_of(s), REDZONE, redzone_of(s));
    memset(va + s->off, POISON, n);     /* to the page's end: the alignment divides n */
    return va + s->off;
}

/* A panic about a kfree of p from `caller`, naming the block if there was one. */
static void __attribute__((noreturn)) bad_free(void *p, uint32_t caller, const char *what,
                                               const struct slot *s)
{
    char by[96], from[96];

    ksym_where(caller - 1, by, sizeof(by));
    if (s->state == UNUSED)
        panic("kfree(%p) from %s: %s", p, by, what);
    panic("kfree(%p) from %s: %s of a %u-byte block (kmalloc from %s)", p, by, what, s->size,
          ksym_where(s->alloc_by - 1, from, sizeof(from)));
}

/* kfree of a pool block: the red zone before it must be intact (else
 * the block was underrun), then its page goes: unmapped, flushed from
 * the TLB, its frame cached or freed, its slot to the back of the FIFO. */
void kfence_free(void *p, uint32_t caller)
{
    unsigned i = slot_of((uintptr_t)p);
    struct slot *s = &slots[i];
    const unsigned char *va = (const unsigned char *)page_of(i);
    pte_t *pte = pte_of(i);
    uint32_t k;
    void *frame;

    if (s->state == FREED)
        bad_free(p, caller, "double free", s);
    if (s->state != LIVE || (const unsigned char *)p != va + s->off)
        bad_free(p, caller, "not the start of a block", s);
    for (k = s->off - redzone_of(s); k < s->off; k++)
        if (va[k] != REDZONE) {
            char from[96];
            panic("heapcheck: heap underflow: %u-byte block at %p written %u byte(s) before "
                  "its start (kmalloc from %s)",
                  s->size, p, s->off - k, ksym_where(s->alloc_by - 1, from, sizeof(from)));
        }
    frame = P2V(PTE_ADDR(*pte));
    *pte = 0;
    invlpg((uintptr_t)va);
    if (ncached < FRAME_CACHE)
        cached[ncached++] = frame;
    else
        page_put(V2P(frame));
    s->state = FREED;
    s->free_by = caller;
    live--;
    fifo[(fifo_head + fifo_len) % KFENCE_SLOTS] = i;
    fifo_len++;
}

/* A kernel page fault at addr: if it is in the pool, panic saying what
 * the faulting instruction did to which block. Else return: an ordinary
 * kernel fault, which trap() reports. */
void kfence_fault(const struct trapframe *tf, uint32_t addr)
{
    const char *access = (tf->err & PF_WRITE) ? "write" : "read";
    char msg[480], a[96], f[96], at[96];
    const struct slot *s;
    uint32_t start;
    int32_t byte;
    int n, in_guard;

    if (tf->trapno != T_PGFLT || !kfence_has((void *)addr))
        return;
    s = &slots[slot_of(addr)];
    in_guard = (addr - KFENCE_BASE) / PAGE_SIZE % 2;
    start = page_of(slot_of(addr)) + s->off;
    byte = (int32_t)(addr - start);     /* < 0: before the block, in its slack */
    ksym_where(tf->eip, at, sizeof(at));
    if (s->state == UNUSED) {
        snprintf(msg, sizeof(msg),
                 "kfence: %s at %p in the guarded pool, where no block has been: "
                 "a wild pointer\n  by %s",
                 access, (void *)addr, at);
        panic_fault(tf, msg);
    }
    n = snprintf(msg, sizeof(msg), "kfence: %s %s of a %u-byte block at %p: ", access,
                 s->state == FREED ? "after free" : "past the end", s->size, (void *)start);
    if (byte < 0)
        n += snprintf(msg + n, sizeof(msg) - n, "%d byte(s) before its start", -byte);
    else if (in_guard)
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
