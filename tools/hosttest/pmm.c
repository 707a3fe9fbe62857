/* pmm.c - host tests for the physical page allocator (kernel/mm/pmm.c),
 * run over a malloc'd arena that stands in for physical memory. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "kstring.h"

static uintptr_t arena_base;
#define KERNBASE       arena_base
#define ROOT_MIN_PAGES 0                /* 64 pages: root's reserve is a sixteenth, 4 */
#include "mm/pmm.c"

void panic(const char *fmt, ...)
{
    printf("FAIL panic: %s\n", fmt);
    exit(1);
}

/* pmm asks the kernel heap for its spare pages when memory runs short:
 * there is no heap here. */
unsigned kheap_trim(void)
{
    return 0;
}

/* Nor fault injection (kernel/lib/fault.c): nothing is ever armed. */
unsigned fault_armed;

int fault_fire(const char *where, int write, uint32_t caller)
{
    return 0;
}

/* The running process (proc.h's curproc): none, the kernel, unless a
 * test plays one. */
struct proc *current;

#define NPAGES 64
static unsigned char *arena;
static uint32_t meta[NPAGES * 3];     /* more than pmm_meta_bytes asks for */

/* 64 pages of "RAM"; page 0-1 reserved (like the BIOS area). */
static void setup(void)
{
    if (pmm_meta_bytes(NPAGES * PAGE_SIZE) > sizeof(meta))
        abort();
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

/* The free list is last in, first out: the page just given back (warm in
 * the caches) is the next one handed out, and runs come off the list. */
static void freed_page_is_reused_first(void)
{
    void *a, *b, *run;

    setup();
    a = page_alloc();
    b = page_alloc();
    CHECK(a && b && a != b, "two pages");
    page_put(V2P(a));
    CHECK(page_alloc() == a, "the page freed last was not handed out first");
    page_put(V2P(b));
    page_put(V2P(a));
    CHECK(page_alloc() == a && page_alloc() == b, "not last in, first out");
    page_put(V2P(a));
    page_put(V2P(b));
    run = pages_alloc(8);
    CHECK(run != NULL, "no run");
    a = page_alloc();
    page_put(V2P(a));
    page_get(V2P(a));                   /* a free page: not ours to share */
    CHECK(page_refs(V2P(a)) == 0, "page_get revived a free page");
    while ((a = page_alloc()) != NULL)
        CHECK(V2P(a) < V2P(run) || V2P(a) >= V2P(run) + 8 * PAGE_SIZE,
              "page %u of a run handed out again", V2P(a) / PAGE_SIZE);
    PASS();
}

/* A reserved page is out of everyone's reach but page_alloc_reserved's,
 * and unreserving gives it back. */
static void reserved_pages_are_kept_for_their_owner(void)
{
    unsigned free0, n = 0;
    void *p;

    setup();
    free0 = pmm_free_pages();
    CHECK(pmm_reserve(free0 + 1) < 0, "reserved more than is free");
    CHECK(pmm_reserve(3) == 0, "reserve 3");
    CHECK(pmm_free_pages() == free0 - 3, "reserved pages still counted as free");
    while (page_alloc())
        n++;
    CHECK(n == free0 - 3, "took %u of %u pages past a reserve of 3", n, free0);
    CHECK(pages_alloc(1) == NULL && pmm_reserve(1) < 0, "a reserved page was handed out");
    p = page_alloc_reserved(0);
    CHECK(p && ((unsigned char *)p)[5] == 0 && pmm_reserved_pages() == 2, "reserved page");
    CHECK(pmm_free_pages() == 0, "taking a reserved page changed the free count");
    pmm_unreserve(2, 0);
    CHECK(page_alloc() != NULL, "an unreserved page stayed out of reach");
    PASS();
}

/* Root's reserve: users' processes take no page of the last sixteenth
 * (4 of 64) and store nothing in bulk past the last eighth (8); root
 * may take every page, and store down to a thirty-second (2). One user
 * holds at most half of what is above the eighth ((62 - 8) / 2 = 27),
 * and keeps in bulk all but a sixteenth of that (26), so three users take
 * it all. */
static void a_user_leaves_roots_reserve(void)
{
    struct proc user = { .uid = 1000 }, bob = { .uid = 1001 }, eve = { .uid = 1002 };
    struct proc root = { .uid = 0 };
    unsigned free0, n = 0;
    int slot, slot2;

    setup();
    free0 = pmm_free_pages();
    current = &user;
    CHECK(pmm_may_store(26) && !pmm_may_store(27), "a user's bulk past its share");
    CHECK((slot = pmm_reserve(20)) > 0, "the user's promise");
    current = &bob;
    CHECK((slot2 = pmm_reserve(20)) > slot, "bob's promise");
    current = &eve;
    CHECK(pmm_may_store(free0 - 40 - 8) && !pmm_may_store(free0 - 40 - 7),
          "a user's bulk past the eighth");
    pmm_unreserve(20, slot);
    pmm_unreserve(20, slot2);
    current = &user;
    while (page_alloc())
        n++;
    current = &bob;
    while (page_alloc())
        n++;
    current = &eve;
    while (page_alloc())
        n++;
    CHECK(n == free0 - NPAGES / 16, "users took %u of %u pages", n, free0);
    CHECK(pmm_reserve(1) < 0, "a user reserved a page of root's");
    current = &root;
    CHECK(pmm_may_store(NPAGES / 16 - 2) && !pmm_may_store(NPAGES / 16 - 1), "root's bulk");
    CHECK(pmm_reserve(1) == 0, "root could not reserve a page");
    pmm_unreserve(1, 0);
    n = 0;
    while (page_alloc())
        n++;
    current = NULL;
    CHECK(n == NPAGES / 16, "root took %u of its %u", n, NPAGES / 16);
    PASS();
}

/* A page is charged to the user whose process took it until it is freed,
 * whoever frees it; a promise from when it is made, and the page it
 * becomes the same. Past the share (27) a user gets nothing, while
 * another user and root still get pages. */
static void a_users_pages_are_charged_to_their_taker(void)
{
    struct proc user = { .uid = 1000 }, bob = { .uid = 1001 }, root = { .uid = 0 };
    void *pg[27], *q, *lazy;
    unsigned i;

    setup();
    current = &user;
    CHECK(pmm_reserve(2) == 1, "the user's promise");
    for (i = 0; i < 25; i++)
        CHECK((pg[i] = page_alloc()), "the user's page %u", i);
    CHECK(page_alloc() == NULL && pmm_reserve(1) < 0, "the user took a 28th page");
    current = &bob;
    CHECK((q = page_alloc()), "bob got nothing");
    page_get(V2P(pg[0]));               /* bob shares the user's page (a fork) */
    page_put(V2P(pg[0]));
    current = &root;
    page_put(V2P(pg[0]));               /* root frees it: still the user's page */
    lazy = page_alloc_reserved(1);      /* the user's promise, filled in root's name */
    current = &user;
    CHECK(pmm_user_pages() == 26 && (pg[0] = page_alloc()) && !page_alloc(),
          "the user holds %u (26 wanted), then a page, then no more", pmm_user_pages());
    pmm_unreserve(1, 1);
    CHECK((pg[26] = page_alloc()), "the user's dropped promise was not given back");
    page_put(V2P(lazy));
    current = &bob;
    CHECK(pmm_user_pages() == 1, "bob holds %u (1 wanted)", pmm_user_pages());
    page_put(V2P(q));
    CHECK(pmm_user_pages() == 0, "bob holds %u after his page went back", pmm_user_pages());
    current = NULL;
    PASS();
}

int main(void)
{
    arena = aligned_alloc(PAGE_SIZE, NPAGES * PAGE_SIZE);
    arena_base = (uintptr_t)arena;
    alloc_until_empty_then_null();
    refcounts_free_on_last_put();
    contiguous_run_skips_holes();
    freed_page_is_reused_first();
    reserved_pages_are_kept_for_their_owner();
    a_user_leaves_roots_reserve();
    a_users_pages_are_charged_to_their_taker();
    return check_failures != 0;
}
