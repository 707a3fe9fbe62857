/* shake.h - the boot argument `shake=heapN,tickN` (lib/shake.c): the heap's
 * layout and the clock's timing perturbed from a seed, for tools/shake.py.
 * Without it every field keeps its default and nothing reads the rest. */
#ifndef LIB_SHAKE_H
#define LIB_SHAKE_H

#include <stdint.h>

struct shake {
    /* heapN (kheap.c, kfence.c; with `heapcheck` only): */
    int heap;               /* given: the fields below are the seed's */
    uint8_t poison;         /* a freed or fresh block's bytes (0x6B without) */
    uint16_t pad_max;       /* each kmalloc asks for up to this many bytes more */
    uint8_t depth;          /* a block is taken up to this far down its page's free blocks */
    unsigned quarantine;    /* frees kept from reuse (QUARANTINE without) */
    unsigned fence_one_in; /* the guarded pool takes 1 site's blocks in this many: 1 or 0 (none) */
    uint32_t heap_rng; /* the seed's salt for shake_site; and a generator */
    /* tickN (sched.c, main.c): */
    int tick;
    unsigned tick_parts; /* timer interrupts per tick: the PIT runs at HZ * this */
    unsigned slice_parts; /* a slice ends after this many interrupts */
    unsigned shuffle; /* the scheduler starts its scan at a random slot */
    uint32_t tick_rng;
};

extern struct shake shake;

void shake_init(void); /* from the command line: kmain, before kheap_init */

/* The seed's choice for one kmalloc site (its return address) and what
 * it asks: murmur3's finalizer, so a site's blocks are treated alike on
 * every call (a measurement repeated gets the same heap). */
static inline uint32_t shake_site(uint32_t caller, uint32_t n)
{
    uint32_t x = shake.heap_rng ^ caller * 0x9E3779B1u ^ n * 0x85EBCA77u;

    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    return x ^ x >> 16;
}

/* xorshift32: the next of *state (never 0). */
static inline uint32_t shake_next(uint32_t *state)
{
    uint32_t x = *state;

    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

#endif
