/* kheap.c - kmalloc/kfree. Small blocks come from power-of-two buckets
 * (32 B .. 2 KiB, header included) carved out of whole pages; anything
 * larger gets its own run of contiguous pages. A header before each block
 * says which, so kfree needs no size. Bucket pages are kept for reuse. */
#include "lib/kprintf.h"
#include "lib/string.h"
#include "mm/page.h"
#include "arch/x86/mmu.h"

#define MIN_SHIFT 5                   /* 32-byte blocks */
#define MAX_SHIFT 11                  /* 2 KiB blocks */
#define NBUCKETS  (MAX_SHIFT - MIN_SHIFT + 1)
#define HDR_MAGIC 0x4B4D4Cu           /* "KML" */

struct block_hdr {
    uint32_t magic : 24;
    uint32_t bucket : 8;                /* NBUCKETS = a page run */
    uint32_t npages;                    /* for page runs */
};

struct free_block {
    struct block_hdr hdr;
    struct free_block *next;
};

static struct free_block *buckets[NBUCKETS];
static unsigned bucket_pages;           /* pages carved into buckets: kept for good */

/* For /proc/meminfo: a leak check must tell these pages from a leak. */
unsigned kheap_bucket_pages(void)
{
    return bucket_pages;
}

void kheap_init(void)
{
    int i;

    for (i = 0; i < NBUCKETS; i++)
        buckets[i] = NULL;
}

/* Split a fresh page into blocks of bucket b. */
static int bucket_refill(int b)
{
    size_t size = (size_t)1 << (b + MIN_SHIFT), off;
    char *page = page_alloc();

    if (!page)
        return -1;
    bucket_pages++;
    for (off = 0; off + size <= PAGE_SIZE; off += size) {
        struct free_block *fb = (struct free_block *)(page + off);
        fb->next = buckets[b];
        buckets[b] = fb;
    }
    return 0;
}

void *kmalloc(size_t n)
{
    size_t need = n + sizeof(struct block_hdr);
    struct block_hdr *h;
    int b;

    if (n == 0 || n > (64u << 20))
        return NULL;
    for (b = 0; b < NBUCKETS; b++)
        if (need <= ((size_t)1 << (b + MIN_SHIFT)))
            break;
    if (b == NBUCKETS) {
        unsigned np = PGROUNDUP(need) / PAGE_SIZE;
        h = pages_alloc(np);
        if (!h)
            return NULL;
        h->npages = np;
    } else {
        if (!buckets[b] && bucket_refill(b) < 0)
            return NULL;
        h = &buckets[b]->hdr;
        buckets[b] = buckets[b]->next;
        h->npages = 0;
    }
    h->magic = HDR_MAGIC;
    h->bucket = b;
    return h + 1;
}

void *kzalloc(size_t n)
{
    void *p = kmalloc(n);

    if (p)
        memset(p, 0, n);
    return p;
}

void kfree(void *p)
{
    struct block_hdr *h;

    if (!p)
        return;
    h = (struct block_hdr *)p - 1;
    if (h->magic != HDR_MAGIC)
        panic("kfree: bad block %p", p);
    h->magic = 0;                       /* catches double frees */
    if (h->bucket == NBUCKETS) {
        pages_free(h, h->npages);
    } else {
        struct free_block *fb = (struct free_block *)h;
        fb->next = buckets[h->bucket];
        buckets[h->bucket] = fb;
    }
}
