/* pmm.c - host tests for the physical page allocator (kernel/mm/pmm.c),
 * run over a malloc'd arena that stands in for physical memory. */
#include <stdint.h>
#include <stdlib.h>
#include "check.h"
#include "kstring.h"

static uintptr_t arena_base;
#define KERNBASE arena_base
#include "mm/pmm.c"

#define NPAGES 64
static unsigned char *arena;
static uint16_t meta[NPAGES];

/* 64 pages of "RAM"; page 0-1 reserved (like the BIOS area). */
static void setup(void)
{
    k_memset(arena, 0x5A, NPAGES * PAGE_SIZE);
    pmm_setup(NPAGES * PAGE_SIZE, meta);
    pmm_add_range(0, NPAGES * PAGE_SIZE);
    pmm_reserve_range(0, 2 * PAGE_SIZE);
}

static void alloc_until_empty_then_null(void)
{
    void *p;
    int n = 0;

    setup();
    CHECK(pmm_free_pages() == NPAGES - 2, "free %u", pmm_free_pages());
    while ((p = page_alloc()) != NULL) {
        CHECK(V2P(p) >= 2 * PAGE_SIZE, "reserved page %u handed out", V2P(p) / PAGE_SIZE);
        CHECK(((unsigned char *)p)[100] == 0, "page not zeroed");
        n++;
    }
    CHECK(n == NPAGES - 2, "got %d pages", n);
    CHECK(pmm_free_pages() == 0, "count %u after exhausting", pmm_free_pages());
    PASS();
}

static void refcounts_free_on_last_put(void)
{
    void *p;

    setup();
    p = page_alloc();
    page_get(V2P(p));
    CHECK(page_refs(V2P(p)) == 2, "refs %u", page_refs(V2P(p)));
    page_put(V2P(p));
    CHECK(pmm_free_pages() == NPAGES - 3, "freed while still referenced");
    page_put(V2P(p));
    CHECK(pmm_free_pages() == NPAGES - 2, "not freed at zero");
    page_put(V2P(p));                   /* a double free must not corrupt the count */
    CHECK(pmm_free_pages() == NPAGES - 2, "double free changed the count");
    page_put(0);                        /* reserved page: ignored */
    CHECK(pmm_free_pages() == NPAGES - 2, "reserved page freed");
    PASS();
}

static void contiguous_run_skips_holes(void)
{
    void *a, *b, *c, *run;

    setup();
    a = page_alloc();
    b = page_alloc();
    c = page_alloc();
    page_put(V2P(b));                   /* a one-page hole */
    run = pages_alloc(4);
    CHECK(run != NULL, "no run found");
    CHECK(V2P(run) != V2P(b), "a 4-page run placed in a 1-page hole");
    CHECK(page_refs(V2P(run)) == 1 && page_refs(V2P(run) + 3 * PAGE_SIZE) == 1, "run refs");
    CHECK(pages_alloc(NPAGES) == NULL, "impossible run succeeded");
    pages_free(run, 4);
    page_put(V2P(a));
    page_put(V2P(c));
    CHECK(pmm_free_pages() == NPAGES - 2, "leak: %u free", pmm_free_pages());
    PASS();
}

int main(void)
{
    arena = aligned_alloc(PAGE_SIZE, NPAGES * PAGE_SIZE);
    arena_base = (uintptr_t)arena;
    alloc_until_empty_then_null();
    refcounts_free_on_last_put();
    contiguous_run_skips_holes();
    return check_failures != 0;
}
