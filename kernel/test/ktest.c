/* ktest.c - in-kernel tests, run instead of init when the kernel command
 * line says `test=NAME` (`test=all` for every one). Each prints
 * "PASS name" or "FAIL name: why" on the console; tools/test.py collects
 * them. `test=fault` crashes on purpose so the runner can check that a
 * kernel fault panics with a backtrace naming the guilty function;
 * `test=fault_hostile` does it with DF set and a wild frame pointer; the
 * heap_* and kfence_* modes (booted with `heapcheck`) break the heap on
 * purpose so it can check that the heap checker panics and names the block. */
#include "arch/x86/x86.h"
#include "boot.h"
#include "dev/power.h"
#include "include/check.h"
#include "lib/fault.h"
#include "lib/fmt.h"
#include "lib/kprintf.h"
#include "lib/shake.h"
#include "lib/string.h"
#include "lib/ustar.h"
#include "mm/kfence.h"
#include "mm/memlayout.h"
#include "mm/page.h"
#include "mm/vm.h"
#include "proc/proc.h"
#include "include/array_size.h"

static int failures, passes;            /* the tests run one after another, in one process */

/* The harness of the one assertion header (include/check.h): a report is
 * a console line, the test named without its "test_". */
void check_fail(const char *file, const char *test, int line, int saved, const char *fmt, ...)
{
    va_list ap;

    kprintf("FAIL %s: ", test + 5);
    va_start(ap, fmt);
    vkprintf(fmt, ap);
    va_end(ap);
    kprintf(" (line %d)\n", line);
    failures++;
}

void check_pass(const char *test)
{
    kprintf("PASS %s\n", test + 5);
    passes++;
}

/* Pages come back zeroed, distinct, and are all returned. */
static void test_page_alloc_returns_every_page(void)
{
    unsigned before = pmm_free_pages();
    char *p[64];
    int i, j;

    for (i = 0; i < 64; i++) {
        p[i] = page_alloc();
        CHECK(p[i] != NULL, "page_alloc %d failed", i);
        for (j = 0; j < 4096; j++)
            CHECK(p[i][j] == 0, "page %d not zeroed", i);
        memset(p[i], 0xA5, 4096);
    }
    CHECK(pmm_free_pages() == before - 64, "free count %u, expected %u", pmm_free_pages(),
          before - 64);
    for (i = 0; i < 64; i++)
        for (j = i + 1; j < 64; j++)
            CHECK(p[i] != p[j], "page handed out twice");
    for (i = 0; i < 64; i++)
        page_put(V2P(p[i]));
    CHECK(pmm_free_pages() == before, "leaked %d pages", (int)(before - pmm_free_pages()));
    PASS();
}

static void test_pages_alloc_is_contiguous(void)
{
    unsigned before = pmm_free_pages();
    char *run = pages_alloc(8);

    CHECK(run != NULL, "no run of 8 pages");
    memset(run, 1, 8 * 4096);           /* faults if any page is missing */
    CHECK(page_refs(V2P(run + 7 * 4096)) == 1, "last page refs %u", page_refs(V2P(run + 7 * 4096)));
    pages_free(run, 8);
    CHECK(pmm_free_pages() == before, "run not freed");
    PASS();
}

/* Blocks of every size don't overlap, and freed blocks are reused. */
static void test_kmalloc_blocks_do_not_overlap(void)
{
    static const size_t sizes[] = { 1, 24, 100, 500, 2000, 4000, 9000, 70000 };
    unsigned char *b[8];
    unsigned i, j;

    for (i = 0; i < 8; i++) {
        b[i] = kmalloc(sizes[i]);
        CHECK(b[i] != NULL, "kmalloc(%u) failed", (unsigned)sizes[i]);
        memset(b[i], (int)i + 1, sizes[i]);
    }
    for (i = 0; i < 8; i++)
        for (j = 0; j < sizes[i]; j++)
            CHECK(b[i][j] == i + 1, "block %u overwritten at %u", i, j);
    for (i = 0; i < 8; i++)
        kfree(b[i]);
    b[0] = kmalloc(100);
    b[1] = kmalloc(100);
    CHECK(b[0] && b[1] && b[0] != b[1], "reuse broken");
    kfree(b[0]);
    kfree(b[1]);
    CHECK(kmalloc(0) == NULL && kmalloc(0x7FFFFFFF) == NULL, "absurd sizes must fail");
    PASS();
}

/* Small blocks of every bucket and a page run: once all are freed, every
 * page the heap took for them is back with the page allocator. */
static void test_kmalloc_gives_every_page_back(void)
{
    static void *b[600];
    unsigned before, held, blocks, i;

    kheap_check();                          /* empty the heap checker's quarantine */
    before = pmm_free_pages();
    held = kheap_pages();
    blocks = kheap_blocks();
    for (i = 0; i < 600; i++) {
        b[i] = kmalloc(1 + (i * 37) % 2100 + (i % 50 == 0 ? 9000 : 0));
        CHECK(b[i] != NULL, "kmalloc %u failed", i);
    }
    CHECK(pmm_free_pages() < before && kheap_pages() > held, "the heap took no pages");
    CHECK(kheap_blocks() == blocks + 600, "%u blocks in use, expected %u", kheap_blocks(),
          blocks + 600);
    for (i = 0; i < 600; i += 2)            /* out of order, pages half used */
        kfree(b[i]);
    for (i = 1; i < 600; i += 2)
        kfree(b[i]);
    kheap_check();
    CHECK(pmm_free_pages() == before, "%d pages not given back", (int)(before - pmm_free_pages()));
    CHECK(kheap_pages() == held && kheap_blocks() == blocks, "heap holds %u pages, %u blocks",
          kheap_pages(), kheap_blocks());
    PASS();
}

/* With the heap checker, a fresh block's bytes are the poison, never
 * zeros, so a read of what was never written is not hidden: 0x6B, or the
 * seed's with `shake=heapN` (lib/shake.c), which poisons a fresh run of
 * pages too and takes its pads and free blocks from the seed: the same
 * seed twice gives the same blocks. (tools/shake.py's self-check boots
 * it with and without a seed.) */
static void test_fresh_blocks_hold_the_seeds_poison(void)
{
    unsigned char *p, *q;
    uintptr_t first[2];
    unsigned i, round;
    uint32_t rng = shake.heap_rng;

    if (!kheap_checking) {
        PASS();                             /* zeros or anything: nothing promised */
        return;
    }
    for (round = 0; round < 2; round++) {
        kheap_check();                      /* the same heap both rounds */
        shake.heap_rng = rng;
        p = kmalloc(100);
        q = kmalloc(3 * PAGE_SIZE);
        CHECK(p && q, "kmalloc failed");
        first[round] = (uintptr_t)p;
        for (i = 0; i < 100; i++)
            CHECK(p[i] == shake.poison, "byte %u of a fresh block is %02x, not the poison %02x", i,
                  p[i], shake.poison);
        for (i = 0; shake.heap && i < 3 * PAGE_SIZE; i++)
            CHECK(q[i] == shake.poison, "byte %u of a fresh 3-page block is %02x, not %02x", i,
                  q[i], shake.poison);
        kfree(p);
        kfree(q);
    }
    CHECK(first[0] == first[1], "one seed, two blocks: %p then %p", (void *)first[0],
          (void *)first[1]);
    kprintf("ktest: fresh blocks hold %02x\n", shake.poison);
    PASS();
}

/* When memory runs short (kheap_trim, from the page allocator), the
 * heap checker's quarantine gives back the pages its freed blocks hold:
 * without the checker they would be free, and a call refused for want of
 * them must be refused alike whatever waits there. */
static void test_trim_empties_the_quarantine(void)
{
    unsigned before;
    void *p;

    kheap_check();
    before = pmm_free_pages();
    CHECK((p = kmalloc(3 * PAGE_SIZE)) != NULL, "kmalloc failed");
    kfree(p);                               /* with the checker: into the quarantine */
    kheap_trim();
    CHECK(pmm_free_pages() == before, "%u pages free before, %u after the trim", before,
          pmm_free_pages());
    PASS();
}

/* The guarded pool (kfence.c), started here as kmain does once the boot
 * is done (so the tests after this one run with it): a site's first
 * small block ends at its page's end, aligned as its size allows, its
 * next starts at a page's start; a block of up to 64 KiB is there too; a
 * freed slot is not the next one handed out (FIFO); when every one-page
 * slot is live, kmalloc falls back to the heap; and every page comes
 * back. The blocks that fill it are chained through their first word. */
static void test_kfence_pool_fills_then_falls_back(void)
{
    unsigned before, blocks, i, in_pool = 0, n = kfence_slots() + 8;
    volatile unsigned turn;             /* not unrolled: one kmalloc site, not two */
    char *p = NULL, *q, *big;
    void **b, **next, **chain = NULL;

    kfence_start();
    kheap_check();
    before = pmm_free_pages();
    blocks = kheap_blocks();
    for (turn = 0; turn < 2; turn++) {
        p = kmalloc(24);
        CHECK(kfence_has(p) && ((uintptr_t)p + 24) % PAGE_SIZE == (turn ? 24 : 0) &&
                  ((uintptr_t)p & 7) == 0,
              "a 24-byte block at %p: not 8-aligned at its page's %s in the pool", p,
              turn ? "start" : "end");
        kfree(p);
    }
    q = kmalloc(24);
    CHECK(PGROUNDDOWN(q) != PGROUNDDOWN(p), "the slot just freed was handed out again at once");
    kfree(q);
    q = kmalloc(48);
    CHECK(kfence_has(q) && ((uintptr_t)q + 48) % PAGE_SIZE == 0 && ((uintptr_t)q & 15) == 0,
          "a 48-byte block at %p: not 16-aligned at a page's end in the pool", q);
    big = kmalloc(65536);
    CHECK(kfence_has(big) && (uintptr_t)big % PAGE_SIZE == 0,
          "a 64 KiB block at %p: not on pages of its own in the pool", big);
    kfree(big);
    kfree(q);
    for (i = 0; i < n; i++) {
        b = kmalloc(16);
        CHECK(b != NULL, "kmalloc %u failed", i);
        in_pool += kfence_has(b);
        *b = chain;
        chain = b;
    }
    CHECK(in_pool == kfence_slots() && !kfence_has(chain),
          "%u of %u blocks in the pool: want every one of its %u slots, then the heap", in_pool, n,
          kfence_slots());
    for (; chain; chain = next) {
        next = *chain;
        kfree(chain);
    }
    kheap_check();
    CHECK(pmm_free_pages() == before, "%d pages not given back", (int)(before - pmm_free_pages()));
    CHECK(kheap_blocks() == blocks, "%u blocks in use, expected %u", kheap_blocks(), blocks);
    PASS();
}

/* The heap checker's failures, each booted on its own (test=heap_*
 * heapcheck): a panic is the expected outcome, and tools/test.py checks
 * that its message names the block. noinline: the message names us. */
void __attribute__((noinline)) ktest_heap_overflow(void)
{
    char *p = kmalloc(100);

    p[100] = 'x';                       /* one byte past the end */
    kfree(p);
}

void __attribute__((noinline)) ktest_heap_use_after_free(void)
{
    volatile char *p = kmalloc(40);

    kfree((void *)p);
    p[8] = 'x';                         /* the block is free: a write after free */
    kheap_check();
}

void __attribute__((noinline)) ktest_heap_double_free(void)
{
    char *p = kmalloc(40);

    kfree(p);
    kfree(p);
}

/* The guarded pool's (kfence.c): the pool is started by hand, as kmain
 * does once the boot is done; then a small block gets a page of its own,
 * and a read after its free, or past its end, faults. The volatile reads
 * are the bugs; tools/test.py checks the panic names the block. */
void __attribute__((noinline)) ktest_kfence_read_after_free(void)
{
    volatile char *p;

    kfence_start();
    p = kmalloc(40);
    kfree((void *)p);
    (void)p[8];                         /* a read after free */
}

void __attribute__((noinline)) ktest_kfence_read_past_end(void)
{
    volatile char *p;

    kfence_start();
    p = kmalloc(100);
    (void)p[100];                       /* a byte past the end */
}

void __attribute__((noinline)) ktest_kfence_underflow(void)
{
    char *p;

    kfence_start();
    p = kmalloc(100);
    p[-1] = 'x';                        /* a byte before the start: in the slack */
    kfree(p);
}

void __attribute__((noinline)) ktest_kfence_double_free(void)
{
    char *p;

    kfence_start();
    p = kmalloc(40);
    kfree(p);
    kfree(p);
}

/* What the pool could not see before this round (doc/decisions.md, "The
 * guarded pool"): a read before a block's start, a block bigger than a
 * page, a read long after the free, a read while a process has failnth
 * armed. */
void __attribute__((noinline)) ktest_kfence_read_before_start(void)
{
    volatile char *p;
    volatile int i;                     /* not unrolled: one kmalloc site, not two */

    kfence_start();
    for (i = 0; i < 2; i++) {           /* one site's blocks take turns at a page's two ends */
        p = kmalloc(100);
        (void)p[-1];                    /* a byte before the start */
    }
}

void __attribute__((noinline)) ktest_kfence_overflow(void)
{
    char *p;
    volatile int i;                     /* not unrolled: one kmalloc site, not two */

    kfence_start();
    for (i = 0; i < 2; i++) {           /* the second starts at its page's start */
        p = kmalloc(100);
        if (i == 1)
            p[100] = 'x';               /* a byte past the end: in the slack */
        kfree(p);
    }
}

void __attribute__((noinline)) ktest_kfence_big_block_read_past_end(void)
{
    volatile char *p;

    kfence_start();
    p = kmalloc(65536);                 /* a pipe's ring */
    (void)p[65536];                     /* a byte past the end */
}

/* kmalloc and kfree of n-byte blocks, `times` times: other code's blocks. */
static void __attribute__((noinline)) churn(size_t n, unsigned times)
{
    while (times-- > 0)
        kfree(kmalloc(n));
}

void __attribute__((noinline)) ktest_kfence_read_long_after_free(void)
{
    volatile char *p;

    kfence_start();
    p = kmalloc(40);
    kfree((void *)p);
    churn(40, 4000);                    /* 4000 allocations since: its slot not used again */
    (void)p[8];
}

void __attribute__((noinline)) ktest_kfence_failnth_read_after_free(void)
{
    volatile char *p;

    kfence_start();
    fault_armed++;                      /* as a process's failnth(2) would (fault.c) */
    p = kmalloc(40);
    kfree((void *)p);
    (void)p[8];
}

/* A test (or a deliberate crash) the command line names: test=NAME. */
struct ktest {
    const char *name;
    void (*fn)(void);
};

static const struct ktest panics[] = {
    { "heap_overflow", ktest_heap_overflow },
    { "heap_use_after_free", ktest_heap_use_after_free },
    { "heap_double_free", ktest_heap_double_free },
    { "kfence_read_after_free", ktest_kfence_read_after_free },
    { "kfence_read_past_end", ktest_kfence_read_past_end },
    { "kfence_underflow", ktest_kfence_underflow },
    { "kfence_double_free", ktest_kfence_double_free },
    { "kfence_read_before_start", ktest_kfence_read_before_start },
    { "kfence_overflow", ktest_kfence_overflow },
    { "kfence_big_block_read_past_end", ktest_kfence_big_block_read_past_end },
    { "kfence_read_long_after_free", ktest_kfence_read_long_after_free },
    { "kfence_failnth_read_after_free", ktest_kfence_failnth_read_after_free },
};

/* A user mapping is visible through vm_user_page and gone after destroy. */
static void test_vm_map_and_destroy_frees_all(void)
{
    unsigned before = pmm_free_pages();
    pde_t *pd = vm_create();
    char *k;

    CHECK(pd != NULL, "vm_create failed");
    CHECK(vm_alloc_range(pd, 0x400000, 0x403000, PTE_U | PTE_W) == 0, "alloc_range");
    k = vm_user_page(pd, 0x401010, 1);
    CHECK(k != NULL, "mapped page not found");
    k[0] = 'x';
    CHECK(vm_user_page(pd, 0x403000, 0) == NULL, "page past the range is mapped");
    CHECK(vm_user_page(pd, KERNBASE, 0) == NULL, "kernel address given out as user");
    CHECK(vm_user_pages(pd) == 3, "%u user pages, expected 3", vm_user_pages(pd));
    vm_destroy(pd);
    CHECK(pmm_free_pages() == before, "leaked %d pages", (int)(before - pmm_free_pages()));
    PASS();
}

/* After vm_fork both sides share a page until one writes to it. */
static void test_vm_fork_copies_on_write(void)
{
    unsigned before = pmm_free_pages();
    pde_t *a = vm_create(), *b;
    char *pa, *pb;

    CHECK(a && vm_alloc_range(a, 0x400000, 0x401000, PTE_U | PTE_W) == 0, "setup");
    strlcpy(vm_user_page(a, 0x400000, 1), "parent", 16);
    b = vm_fork(a, 0);
    CHECK(b != NULL, "vm_fork failed");
    CHECK(vm_user_page(a, 0x400000, 0) == vm_user_page(b, 0x400000, 0), "not shared");
    pb = vm_user_page(b, 0x400000, 1);              /* write access: copies */
    pa = vm_user_page(a, 0x400000, 0);
    CHECK(pa != pb, "write did not copy");
    strlcpy(pb, "child", 16);
    CHECK(strcmp(pa, "parent") == 0 && strcmp(pb, "child") == 0, "contents mixed up");
    vm_destroy(b);
    CHECK(vm_user_page(a, 0x400000, 1) == pa, "last sharer should keep its page");
    vm_destroy(a);
    CHECK(pmm_free_pages() == before, "leaked %d pages", (int)(before - pmm_free_pages()));
    PASS();
}

/* The timer interrupt is wired: ticks advance while we wait. */
static void test_timer_ticks_advance(void)
{
    uint32_t start = ticks;
    int spins = 0;

    sti();
    while (ticks - start < 5 && spins++ < 1000)
        hlt();
    cli();
    CHECK(ticks - start >= 5, "only %u ticks", ticks - start);
    PASS();
}

static void test_snprintf_formats(void)
{
    char buf[64];

    snprintf(buf, sizeof(buf), "%d|%5u|%-4x|%08X|%s|%c|%p", -42, 7u, 0xabu, 0xBEEFu, "ok", 'z',
             (void *)0x1234);
    CHECK(strcmp(buf, "-42|    7|ab  |0000BEEF|ok|z|0x00001234") == 0, "got '%s'", buf);
    CHECK(snprintf(buf, 4, "%s", "truncate") == 8 && strcmp(buf, "tru") == 0, "truncation");
    PASS();
}

/* The boot archive the loader gave us is an intact ustar file. */
static void test_boot_archive_is_readable(void)
{
    struct ustar_entry e;
    size_t off = 0;
    int n = 0, r;

    CHECK(initrd_size > 0, "no boot module");
    while ((r = ustar_next(initrd_start, initrd_size, &off, &e)) > 0)
        n++;
    CHECK(r == 0, "archive damaged after %d entries", n);
    CHECK(n > 0, "archive empty");
    PASS();
}

/* Deliberately dereference a bad pointer: the panic must name us. */
void __attribute__((noinline)) ktest_fault_deliberately(void)
{
    volatile uint32_t *bad = (uint32_t *)0xDEAD0000;

    *bad = 1;
}

/* The same fault with the worst register state a kernel bug could leave:
 * the direction flag set and a frame pointer into unmapped memory. The
 * panic must still print and end the run (test=fault_hostile). */
static void __attribute__((noinline)) ktest_fault_with_hostile_registers(void)
{
    __asm__ volatile("pushl %%ebp\n\t"
                     "movl $0xF0000000, %%ebp\n\t"
                     "std\n\t"
                     "movl $1, 0xDEAD0000\n\t"
                     "cld\n\t"
                     "popl %%ebp" ::
                         : "memory");
}

static const struct ktest tests[] = {
    { "page_alloc", test_page_alloc_returns_every_page },
    { "pages_alloc", test_pages_alloc_is_contiguous },
    { "kmalloc", test_kmalloc_blocks_do_not_overlap },
    { "kmalloc_pages", test_kmalloc_gives_every_page_back },
    { "vm_map", test_vm_map_and_destroy_frees_all },
    { "vm_fork", test_vm_fork_copies_on_write },
    { "timer", test_timer_ticks_advance },
    { "snprintf", test_snprintf_formats },
    { "initrd", test_boot_archive_is_readable },
    { "poison", test_fresh_blocks_hold_the_seeds_poison },
    { "trim", test_trim_empties_the_quarantine },
    { "kfence", test_kfence_pool_fills_then_falls_back },  /* last: it starts the pool */
};

void ktest_run(const char *which)
{
    unsigned i;

    if (strcmp(which, "fault") == 0) {
        kprintf("ktest: faulting on purpose\n");
        ktest_fault_deliberately();
    }
    if (strcmp(which, "fault_hostile") == 0) {
        kprintf("ktest: faulting on purpose, with DF set and a wild frame pointer\n");
        ktest_fault_with_hostile_registers();
    }
    for (i = 0; i < ARRAY_SIZE(panics); i++) {
        if (strcmp(which, panics[i].name) == 0) {
            kprintf("ktest: %s on purpose (heapcheck %s)\n", which, kheap_checking ? "on" : "off");
            panics[i].fn();
            kprintf("ktest: %s was not caught\n", which);
            machine_poweroff(1);
        }
    }
    for (i = 0; i < ARRAY_SIZE(tests); i++)
        if (strcmp(which, "all") == 0 || strcmp(which, tests[i].name) == 0)
            tests[i].fn();
    kprintf("ktest: %d passed, %d failed\n", passes, failures);
    machine_poweroff(failures ? 1 : 0);
}
