/* kheap.c - kmalloc/kfree. Small blocks come from power-of-two buckets
 * (32 B .. 2 KiB, the 16-byte header included) carved out of whole pages;
 * anything larger gets its own run of contiguous pages. The header before
 * each block says which, so kfree needs no size. A bucket page goes back to
 * the page allocator once none of its blocks is in use, except one spare
 * page per bucket, kept until memory runs short or /proc/meminfo counts
 * (kheap_trim): so the free page count comes back exactly when every block
 * does, and a system call that takes and frees one block does not get,
 * zero and carve a fresh page every time.
 *
 * The heap checker (boot argument `heapcheck`; the test runner and
 * `make fuzz` always pass it) turns silent heap corruption into a loud
 * panic naming the block, its size and who allocated it:
 *   - red zone: the bytes from the end of what was asked for to the end of
 *     the block (at least REDZONE_MIN) hold REDZONE; kfree checks them;
 *   - the magic word sits right before the data, so an underflow breaks it;
 *   - a freed block is filled with POISON and waits in a quarantine of the
 *     last QUARANTINE frees before anyone can have it again (or until
 *     memory runs short: kheap_trim); its poison is checked when it
 *     leaves, when it is handed out, and by kheap_check();
 *   - a second kfree of a block, or kfree of something that is not a
 *     block, is caught by the magic words and the block's alignment;
 *   - once the kernel is up, a block of at most KFENCE_MAX bytes gets
 *     pages of its own in the guarded pool (kfence.c) while a slot is free
 *     there: a read past its end or before its start, or any touch after
 *     its free, faults at once.
 * doc/decisions.md says why it is built so. */
#include "arch/x86/mmu.h"
#include "boot.h"
#include "lib/fault.h"
#include "lib/kprintf.h"
#include "lib/shake.h"
#include "lib/string.h"
#include "mm/kfence.h"
#include "mm/memlayout.h"
#include "mm/page.h"

#define MIN_SHIFT     5                   /* 32-byte blocks */
#define MAX_SHIFT     11                  /* 2 KiB blocks */
#define NBUCKETS      (MAX_SHIFT - MIN_SHIFT + 1)
#define RUN           NBUCKETS            /* the "bucket" of a page run */
#define MAX_ALLOC     (64u << 20)
#define BLOCK_SIZE(b) ((uint32_t)1 << ((b) + MIN_SHIFT))

#define MAGIC_USED           0xA110CA7Eu
#define MAGIC_FREE           0xF4EEB10Cu
#define POISON               shake.poison        /* a freed block's bytes (0x6B: lib/shake.c) */
#define REDZONE              0xFC                /* the bytes after an allocation */
#define REDZONE_MIN          4u
#define QUARANTINE           256                 /* recent frees kept from reuse (at most) */
#define QUARANTINE_RUN_PAGES 4          /* bigger runs go straight back */
#define CHECK_EVERY          1024                /* kfrees between full checks */

/* 16 bytes, so the data after it is 16-byte aligned (blocks are aligned
 * to their size; a run starts on a page). */
struct block_hdr {
    union {
        struct {
            uint32_t size;              /* bytes asked for */
            uint32_t caller;            /* kmalloc's return address */
        } used;                         /* (kept while in quarantine) */
        struct {
            struct block_hdr *next, *prev;  /* the bucket's free list */
        } free;
    } u;
    uint16_t count;                     /* a run: its pages; a bucket page's first
block: the blocks of that page taken */
    uint8_t bucket;                     /* 0 .. NBUCKETS-1, or RUN */
    uint8_t spare;
    uint32_t magic;                     /* MAGIC_USED / MAGIC_FREE, next to the data */
};

/* No lock: the kernel is never preempted (one CPU), and no interrupt
 * handler allocates or frees (nor does the page allocator under us, which
 * has no lock either). So kmalloc and kfree do not turn interrupts off:
 * under QEMU every `sti` ends the translated block and goes back to the
 * emulator's main loop, which cost more than the rest of a small kmalloc
 * (doc/decisions.md, "Performance"). An interrupt handler that must have
 * memory takes it beforehand. */
static struct block_hdr *free_list[NBUCKETS];
static struct {
    struct block_hdr *h;
    uint32_t freed_by;
} quarantine[QUARANTINE];
static unsigned q_next, q_len;          /* ring: the oldest is q_next - q_len */
static char *spare[NBUCKETS];           /* a page of the bucket with no block taken, or NULL */
static unsigned run_pages, bucket_pages, blocks_used, frees_since_check;
static uintptr_t heap_end;              /* the end of the kernel's mapping of memory */
int kheap_checking;                     /* set once at boot: `heapcheck` */

void kheap_init(void)
{
    int i;

    for (i = 0; i < NBUCKETS; i++)
        free_list[i] = NULL;
    heap_end = KERNBASE + pmm_total_pages() * PAGE_SIZE;
    kheap_checking = boot_arg("heapcheck") != NULL;
    if (kheap_checking)
        kprintf("heapcheck: red zones, poisoned frees, quarantine of %d\n", QUARANTINE);
}

/* "name+0xoff" pieces for a panic message. */
static const char *sym(uint32_t addr, uint32_t *off)
{
    const char *name = ksym_lookup(addr, off);

    if (!name)
        *off = addr;
    return name ? name : "?";
}

static unsigned char *data_of(struct block_hdr *h)
{
    return (unsigned char *)(h + 1);
}

/* Bytes after the header: to the end of the bucket block or of the run. */
static uint32_t data_room(const struct block_hdr *h)
{
    return (h->bucket == RUN ? h->count * PAGE_SIZE : BLOCK_SIZE(h->bucket)) - sizeof(*h);
}

/* The header of the first block in h's page: it counts the page's blocks taken. */
static struct block_hdr *page_head(struct block_hdr *h)
{
    return (struct block_hdr *)PGROUNDDOWN(h);
}

/* The checker fills and scans every byte it hands out and takes back;
 * a word at a time, because that is most of its cost. */
static void fill(unsigned char *p, int c, uint32_t n)
{
    uint32_t w = 0x01010101u * (unsigned char)c;

    for (; n && ((uintptr_t)p & 3); n--)
        *p++ = c;
    for (; n >= 4; n -= 4, p += 4)
        *(uint32_t *)p = w;
    while (n--)
        *p++ = c;
}

/* The offset of the first byte in p[0, n) that is not c, or n. */
static uint32_t first_not(const unsigned char *p, int c, uint32_t n)
{
    uint32_t i = 0, w = 0x01010101u * (unsigned char)c;

    for (; i < n && ((uintptr_t)(p + i) & 3); i++)
        if (p[i] != c)
            return i;
    for (; i + 4 <= n && *(const uint32_t *)(p + i) == w; i += 4)
        ;
    for (; i < n; i++)
        if (p[i] != c)
            return i;
    return n;
}

static void list_push(int b, struct block_hdr *h)
{
    h->u.free.prev = NULL;
    h->u.free.next = free_list[b];
    if (free_list[b])
        free_list[b]->u.free.prev = h;
    free_list[b] = h;
}

static void list_remove(int b, struct block_hdr *h)
{
    if (h->u.free.prev)
        h->u.free.prev->u.free.next = h->u.free.next;
    else
        free_list[b] = h->u.free.next;
    if (h->u.free.next)
        h->u.free.next->u.free.prev = h->u.free.prev;
}

/* A free block keeps its free magic and, with the checker on, is still
 * all POISON: anything else was written after it was freed. A block from
 * the quarantine still knows its size and who allocated and freed it. */
static void check_free_block(struct block_hdr *h, uint32_t freed_by)
{
    uint32_t i, n = data_room(h), aoff, foff;
    const unsigned char *d = data_of(h);

    if (h->magic != MAGIC_FREE)
        panic("heapcheck: free block at %p has a damaged header (magic %x)", d, h->magic);
    if (kheap_checking && (i = first_not(d, POISON, n)) < n) {
        if (freed_by) {
            const char *a = sym(h->u.used.caller, &aoff), *f = sym(freed_by, &foff);
            panic("heapcheck: write after free: %u-byte block at %p (kmalloc from %s+0x%x, "
                  "kfree from %s+0x%x): byte %u is %02x",
                  h->u.used.size, d, a, aoff, f, foff, i, d[i]);
        }
        panic("heapcheck: write after free: free %u-byte block at %p: byte %u is %02x",
              n + (uint32_t)sizeof(*h), d, i, d[i]);
    }
}

/* Every byte between the end of the data and the end of the block must
 * still be REDZONE: anything else is an overflow. */
static void check_redzone(struct block_hdr *h)
{
    const unsigned char *d = data_of(h);
    uint32_t size = h->u.used.size, end = data_room(h), off;
    uint32_t i = size + first_not(d + size, REDZONE, end - size);
    const char *fn;

    if (i < end) {
        fn = sym(h->u.used.caller, &off);
        panic("heapcheck: heap overflow: %u-byte block at %p (kmalloc from %s+0x%x) "
              "written %u byte(s) past its end (byte %u is %02x)",
              size, d, fn, off, i - size + 1, i, d[i]);
    }
}

/* Split a fresh page into free blocks of bucket b. */
static int bucket_refill(int b)
{
    uint32_t size = BLOCK_SIZE(b), off;
    char *page = pages_alloc_uninjected(1); /* kmalloc was the failnth point */

    if (!page)
        return -1;
    for (off = 0; off + size <= PAGE_SIZE; off += size) {
        struct block_hdr *h = (struct block_hdr *)(page + off);
        h->count = 0;
        h->bucket = b;
        h->magic = MAGIC_FREE;
        if (kheap_checking)
            fill(data_of(h), POISON, size - sizeof(*h));
        list_push(b, h);
    }
    bucket_pages++;
    return 0;
}

/* A bucket page none of whose blocks is taken goes back to the page
 * allocator, its blocks off the free list. */
static void bucket_page_free(int b, char *page)
{
    uint32_t size = BLOCK_SIZE(b), off;

    for (off = 0; off + size <= PAGE_SIZE; off += size) {
        struct block_hdr *fb = (struct block_hdr *)(page + off);
        check_free_block(fb, 0);
        list_remove(b, fb);
    }
    bucket_pages--;
    page_put(V2P(page));
}

/* Give a freed block back for reuse: a run to the page allocator, a
 * bucket block to its free list, and its page too once all of it is free
 * (unless the bucket has no spare page yet: then it becomes the spare).
 * Inlined into kfree, its caller on every free. */
static inline __attribute__((always_inline)) void release(struct block_hdr *h)
{
    char *page;
    int b = h->bucket;

    if (b == RUN) {
        run_pages -= h->count;
        h->magic = 0;
        pages_free(h, h->count);
        return;
    }
    list_push(b, h);
    if (--page_head(h)->count > 0)
        return;
    page = (char *)page_head(h);
    if (!spare[b])
        spare[b] = page;
    else if (spare[b] != page)
        bucket_page_free(b, page);
}

static void quarantine_evict(void);

/* The spare pages (and the guarded pool's cached frames) go back to the
 * page allocator: how many. pmm calls it
 * when memory runs short, kheap_check (and so /proc/meminfo) always.
 * The checker's quarantine goes first: the pages its freed blocks hold
 * are free memory the kernel without the checker would have, so a call
 * refused for want of memory (ENOSPC at ramfs's eighth) is refused alike
 * however many frees wait there (make shake SHIFT=heap6 found a create
 * refused and the next one, a moment later, let through). */
unsigned kheap_trim(void)
{
    unsigned n = 0, free_before = pmm_free_pages();
    int b;

    while (q_len > 0)
        quarantine_evict();
    n = pmm_free_pages() - free_before;

    for (b = 0; b < NBUCKETS; b++) {
        if (spare[b]) {
            bucket_page_free(b, spare[b]);
            spare[b] = NULL;
            n++;
        }
    }
    return n + kfence_trim();
}

/* The oldest block in quarantine, checked, goes back for reuse. */
static void quarantine_evict(void)
{
    unsigned i = (q_next + QUARANTINE - q_len) % QUARANTINE;

    check_free_block(quarantine[i].h, quarantine[i].freed_by);
    release(quarantine[i].h);
    quarantine[i].h = NULL;
    q_len--;
}

/* The bucket of a block of `need` bytes (header included): the smallest
 * power of two from 32 that holds it, counted from 0; RUN (or more) if
 * no bucket does. From the highest bit of need - 1, not by trying each. */
static int bucket_of(size_t need)
{
    return need <= BLOCK_SIZE(0) ? 0 : 32 - __builtin_clz(need - 1) - MIN_SHIFT;
}

/* `shake=heapN` (lib/shake.c), with the checker only: the extra bytes
 * this kmalloc asks for (red zone: the block moves, overflows into them
 * are still caught), the seed's for its site and size, so a site's blocks
 * are alike on every call: a measurement repeated (a test's free pages
 * before and after) costs the same; and which of the first blocks of a
 * free list it takes: one of those on the same page as the last freed,
 * so the pages fill and empty exactly as without it (a page left in use
 * by a block taken from another one would move the free-page counts that
 * the tests' leak checks compare). Their choices follow the allocations
 * alone, so a seed gives the same heap on every boot. */
static uint32_t shake_pad(size_t n, uint32_t caller)
{
    return shake.pad_max ? shake_site(caller, n) % (shake.pad_max + 1u) : 0;
}

static struct block_hdr *shake_pick(struct block_hdr *h)
{
    struct block_hdr *page = page_head(h), *pick = h, *f = h;
    unsigned k = shake_next(&shake.heap_rng) % (shake.depth + 1u), seen = 0, steps = 0;

    while (seen < k && steps++ < 64 && (f = f->u.free.next) != NULL)
        if (page_head(f) == page) {
            pick = f;
            seen++;
        }
    return pick;
}

/* Inlined into kmalloc, kzalloc and kstrdup: one call per allocation,
 * not two (under QEMU a call and its return cost more than their work). */
static inline __attribute__((always_inline)) void *alloc(size_t n, uint32_t caller)
{
    size_t need = n + sizeof(struct block_hdr);
    struct block_hdr *h;
    int b;

    if (n == 0 || n > MAX_ALLOC || fault_inject("kmalloc"))
        return NULL;
    if (kfence_on && n <= KFENCE_MAX && (h = kfence_alloc(n, caller))) {
        blocks_used++;
        return h;                       /* not a header: the pool's block itself */
    }
    if (kheap_checking)                 /* `shake=heapN`'s pad: 0 without */
        need += REDZONE_MIN + shake_pad(n, caller);
    if ((b = bucket_of(need)) >= RUN) {
        unsigned np = PGROUNDUP(need) / PAGE_SIZE;
        if (!(h = pages_alloc_uninjected(np)))
            return NULL;
        b = RUN;
        h->count = np;
        run_pages += np;
    } else {
        if (!free_list[b] && bucket_refill(b) < 0)
            return NULL;
        h = free_list[b];
        if (kheap_checking) {
            if (shake.depth)
                h = shake_pick(h);      /* `shake=heapN` only */
            check_free_block(h, 0);
        } else if (h->magic != MAGIC_FREE) {
            check_free_block(h, 0);     /* all it would check is the magic */
        }
        list_remove(b, h);
        if (page_head(h)->count++ == 0 && (char *)page_head(h) == spare[b])
            spare[b] = NULL;            /* in use again: no longer spare */
    }
    h->bucket = b;
    h->magic = MAGIC_USED;
    h->u.used.size = n;
    h->u.used.caller = caller;
    if (kheap_checking) {
        if (b == RUN && shake.heap)
            fill(data_of(h), POISON, n);    /* not zeros: as a bucket block's */
        fill(data_of(h) + n, REDZONE, data_room(h) - n);
    }
    blocks_used++;
    return data_of(h);
}

void *kmalloc(size_t n)
{
    return alloc(n, (uint32_t)__builtin_return_address(0));
}

void *kzalloc(size_t n)
{
    void *p = alloc(n, (uint32_t)__builtin_return_address(0));

    if (p)
        memset(p, 0, n);
    return p;
}

/* A copy of the string s in a block of its own size; NULL for NULL, or
 * when memory runs out. */
char *kstrdup(const char *s)
{
    size_t n;
    char *p;

    if (!s)
        return NULL;
    n = strlen(s) + 1;
    if ((p = alloc(n, (uint32_t)__builtin_return_address(0))))
        memcpy(p, s, n);
    return p;
}

/* The header of p, which must be a block kmalloc gave out and nobody has
 * freed: anything else is a kernel bug, and the panic says which. */
static struct block_hdr *header_of(void *p, uint32_t caller)
{
    uintptr_t a = (uintptr_t)p;
    struct block_hdr *h = (struct block_hdr *)p - 1;
    uint32_t off;
    const char *fn;

    /* a block starts at a multiple of its size (a run: of a page) */
    if (a >= KERNBASE + PAGE_SIZE && (a & 31) == sizeof(*h) && a < heap_end &&
        h->magic == MAGIC_USED && h->bucket <= RUN &&
        ((a - sizeof(*h)) & ((h->bucket == RUN ? PAGE_SIZE : BLOCK_SIZE(h->bucket)) - 1)) == 0)
        return h;                       /* a good block: no symbol looked up (every kfree) */
    fn = sym(caller, &off);
    if (a < KERNBASE + PAGE_SIZE || (a & 31) != sizeof(*h) || a >= heap_end)
        panic("kfree(%p) from %s+0x%x: not a heap block", p, fn, off);
    if (h->magic == MAGIC_FREE)
        panic("kfree(%p) from %s+0x%x: double free of a %u-byte block", p, fn, off,
              data_room(h) + (uint32_t)sizeof(*h));
    if (h->magic != MAGIC_USED)
        panic("kfree(%p) from %s+0x%x: no heap block here (magic %x): a bad pointer, "
              "or the block was underrun",
              p, fn, off, h->magic);
    panic("kfree(%p) from %s+0x%x: damaged header (bucket %u)", p, fn, off, h->bucket);
}

/* Check every free block: the free lists and the quarantine. */
static void check_all(void)
{
    struct block_hdr *h;
    unsigned i;
    int b;

    frees_since_check = 0;
    for (b = 0; b < NBUCKETS; b++)
        for (h = free_list[b]; h; h = h->u.free.next)
            check_free_block(h, 0);
    for (i = 0; i < QUARANTINE; i++)
        if (quarantine[i].h)
            check_free_block(quarantine[i].h, quarantine[i].freed_by);
}

void kfree(void *p)
{
    uint32_t freed_by = (uint32_t)__builtin_return_address(0);
    struct block_hdr *h;

    if (!p)
        return;
    if (kfence_has(p)) {
        kfence_free(p, freed_by);
        blocks_used--;
        return;
    }
    h = header_of(p, freed_by);
    blocks_used--;
    if (!kheap_checking) {
        h->magic = MAGIC_FREE;
        release(h);
        return;
    }
    check_redzone(h);
    h->magic = MAGIC_FREE;
    if (h->bucket == RUN && h->count > QUARANTINE_RUN_PAGES) {
        release(h);
    } else {
        fill(data_of(h), POISON, data_room(h));
        if (q_len >= shake.quarantine)   /* QUARANTINE, or shake's fewer */
            quarantine_evict();
        quarantine[q_next].h = h;
        quarantine[q_next].freed_by = freed_by;
        q_next = (q_next + 1) % QUARANTINE;
        q_len++;
    }
    if (++frees_since_check >= CHECK_EVERY)
        check_all();
}

void kheap_check(void)
{
    check_all();
    while (q_len > 0)
        quarantine_evict();
    kheap_trim();
}

unsigned kheap_pages(void)
{
    return run_pages + bucket_pages + kfence_pages();
}

unsigned kheap_bucket_pages(void)
{
    return bucket_pages;
}

unsigned kheap_blocks(void)
{
    return blocks_used;
}
