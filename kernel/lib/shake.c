/* shake.c - the boot argument `shake=heapN`, `shake=tickN` or
 * `shake=heapN,tickN` (N a number, the seed): make test's own suites
 * booted again by tools/shake.py with the kernel's heap and timing moved,
 * so a bug that passes only with one heap layout, one poison byte or one
 * interleaving shows up. The same seed perturbs the same way on every
 * boot (a heap seed exactly: its choices follow the allocations alone).
 *
 * heapN (with `heapcheck` only: it moves the checker's heap):
 *   - the poison, the byte in every freed block and in every fresh one
 *     (not zeroed: heap blocks, the guarded pool's, and with this also
 *     page runs), is the seed's instead of 0x6B;
 *   - each kmalloc asks the heap for 0..pad_max bytes more, the seed's
 *     for its site and size (red zone: a block lands in another bucket
 *     and at another address, and an overflow into the pad is still
 *     caught at kfree);
 *   - a block is taken from up to `depth` blocks down its free list on
 *     the last freed one's page, not always the last freed (the same
 *     page: the pages fill and empty as without it, kheap.c);
 *   - the quarantine keeps the last `quarantine` frees, not 256;
 *   - the guarded pool takes every block, or none (then they go to the
 *     heap, where the above applies). Not some: the blocks a test's read
 *     of /proc/meminfo holds while it counts would then cost a page more
 *     or less by the heap's state (with all in the pool, or all in the
 *     heap, the same each time), and the tests' leak checks, which
 *     compare two such counts, fail (make shake found it: 1 site in 2).
 * Pads by site, not at random on each call, for the same reason.
 * tickN:
 *   - the PIT interrupts tick_parts times per tick (HZ stays the clock's
 *     unit: `ticks` counts every tick_parts-th interrupt);
 *   - a process's slice ends after slice_parts interrupts (1 ms .. 20 ms
 *     instead of 10 ms);
 *   - with `shuffle`, the scheduler starts each scan for a runnable
 *     process at a random slot, not after the last one run (so after a
 *     fork either may run first).
 * Without the argument nothing here runs but the parse at boot:
 * doc/decisions.md ("Shaking the heap and the clock"). */
#include "boot.h"
#include "lib/kprintf.h"
#include "lib/shake.h"

#define DEFAULT_POISON     0x6B
#define DEFAULT_QUARANTINE 256

struct shake shake = {
    .poison = DEFAULT_POISON,
    .quarantine = DEFAULT_QUARANTINE,
    .fence_one_in = 1,
    .tick_parts = 1,
    .slice_parts = 1,
};

/* The i-th choice of a seed: murmur3's finalizer of the two, so seeds
 * next to each other choose independently. */
static uint32_t pick(uint32_t seed, uint32_t i)
{
    uint32_t x = seed * 0x9E3779B1u ^ (i + 1) * 0x85EBCA77u;

    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    return x;
}

/* "heap7", "tick3": the number after name at *s, moving *s past it; -1 if
 * *s does not start so. */
static long word(const char **s, const char *name)
{
    const char *p = *s;
    long n = 0;

    while (*name)
        if (*p++ != *name++)
            return -1;
    if (*p < '0' || *p > '9')
        return -1;
    while (*p >= '0' && *p <= '9' && n < 100000000)
        n = n * 10 + (*p++ - '0');
    *s = p;
    return n;
}

static void heap_seed(uint32_t seed)
{
    static const uint8_t poisons[] = { 0xFF, 0x01, 0x80, 0x7F, 0x20, 0xA5, 0x2F, 0x6B };
    static const uint16_t pads[] = { 0, 8, 16, 48, 100, 256, 1000, 2048 };
    static const uint8_t depths[] = { 0, 1, 3, 7 };
    static const unsigned quarantines[] = { 256, 64, 8, 1 };
    static const unsigned fences[] = { 1, 0 };

    shake.heap = 1;
    shake.poison = poisons[pick(seed, 0) % sizeof(poisons)];
    shake.pad_max = pads[pick(seed, 1) % (sizeof(pads) / sizeof(pads[0]))];
    shake.depth = depths[pick(seed, 2) % sizeof(depths)];
    shake.quarantine = quarantines[pick(seed, 3) % 4];
    shake.fence_one_in = fences[pick(seed, 4) % 2];
    shake.heap_rng = pick(seed, 5) | 1;
    kprintf("shake: heap%u: poison %02x, pads up to %u bytes, blocks taken up to %u deep, "
            "quarantine of %u, guarded pool takes %s\n",
            seed, shake.poison, shake.pad_max, shake.depth, shake.quarantine,
            shake.fence_one_in ? "every block" : "none");
}

static void tick_seed(uint32_t seed)
{
    static const unsigned parts[] = { 1, 2, 3, 5, 7, 10 };

    shake.tick = 1;
    shake.tick_parts = parts[pick(seed, 10) % 6];
    shake.slice_parts = 1 + pick(seed, 11) % (2 * shake.tick_parts);
    shake.shuffle = pick(seed, 12) % 2;
    shake.tick_rng = pick(seed, 13) | 1;
    kprintf("shake: tick%u: %u timer interrupts a tick, a slice of %u (%u us), %s\n", seed,
            shake.tick_parts, shake.slice_parts, shake.slice_parts * 10000 / shake.tick_parts,
            shake.shuffle ? "the scheduler starts at a random slot" : "round robin");
}

void shake_init(void)
{
    const char *s = boot_arg("shake");
    long n;

    if (!s)
        return;
    while (*s && *s != ' ') {
        if ((n = word(&s, "heap")) >= 0 && !shake.heap)
            heap_seed(n);
        else if ((n = word(&s, "tick")) >= 0 && !shake.tick)
            tick_seed(n);
        else
            break;
        if (*s == ',')
            s++;
    }
    if (*s && *s != ' ')
        kprintf("shake: ignoring \"%s\": want shake=heapN, tickN or heapN,tickN\n",
                boot_arg("shake"));
}
