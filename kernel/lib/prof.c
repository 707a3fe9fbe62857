/* prof.c - a sampling profiler: where does the kernel spend its time?
 * With the boot argument `prof`, the RTC interrupts PROF_HZ times a
 * second (its own clock, beside the timer) and each interrupt counts the
 * function the CPU was in when it came: a sample of the kernel, or one
 * of user mode. /proc/prof shows the counts since boot, the busiest
 * functions first (README, "Where the kernel's time goes").
 *
 * What a sample cannot see: code that runs with interrupts off (between
 * irq_save and irq_restore, or in an interrupt handler) is counted at
 * the point where they come back on, so such a function's cost lands
 * partly on the one that turns interrupts on again. */
#include "arch/x86/cpu.h"
#include "boot.h"
#include "dev/rtc.h"
#include "lib/fmt.h"
#include "lib/kprintf.h"
#include "lib/prof.h"
#include "mm/page.h"

#define PROF_RATE 4                     /* 32768 >> 3: 4096 samples a second */
#define PROF_HZ   4096
#define PROF_TOP  40                    /* functions shown */
#define BACK_MAX  8                     /* frames between the handler and trap() */

static uint32_t *counts;                /* a count per kernel function (ksym_index) */
static uint32_t nsamples, nuser, nlost;

/* The trap frame of the interrupt we are in: the frame-pointer chain from
 * here leads back to trap(), called by trapentry.asm just before trapret
 * with the frame as its argument. NULL if the chain is not as expected. */
static const struct trapframe *interrupted(void)
{
    const uint32_t *frame = __builtin_frame_address(0);
    int depth;

    for (depth = 0; depth < BACK_MAX && (uint32_t)frame >= 0xC0000000u; depth++) {
        uint32_t ret = frame[1];
        if (ret <= (uint32_t)trapret && ret >= (uint32_t)trapret - 8)
            return (const struct trapframe *)frame[2];  /* trap(tf)'s argument */
        frame = (const uint32_t *)frame[0];
    }
    return NULL;
}

static void prof_tick(void)
{
    const struct trapframe *tf = interrupted();
    int32_t i;

    nsamples++;
    if (!tf)
        nlost++;
    else if (tf->cs & 3)
        nuser++;
    else if ((i = ksym_index(tf->eip)) >= 0)
        counts[i]++;
    else
        nlost++;
}

/* At boot: start sampling if the boot argument `prof` asks for it. */
void prof_init(void)
{
    if (!boot_arg("prof") || !(counts = kzalloc(ksym_count() * sizeof(*counts))))
        return;
    rtc_periodic(PROF_RATE, prof_tick);
    kprintf("prof: sampling the kernel %d times a second (/proc/prof)\n", PROF_HZ);
}

int prof_enabled(void)
{
    return counts != NULL;
}

/* /proc/prof: the totals, then the PROF_TOP busiest functions, each with
 * its share of all samples (user mode included) in tenths of a percent. */
int prof_format(char *buf, size_t size)
{
    uint32_t n = ksym_count(), shown = 0, i, best, prev = 0xFFFFFFFFu;
    int len, lastbest = -1;

    len = snprintf(buf, size, "samples %u user %u kernel %u unknown %u (%d Hz)\n", nsamples, nuser,
                   nsamples - nuser - nlost, nlost, PROF_HZ);
    /* the counts in descending order, ties by function number: each pass
     * picks the biggest below the one shown last (or equal, further on) */
    while (shown < PROF_TOP) {
        int pick = -1;
        for (i = 0; i < n; i++) {
            uint32_t c = counts[i];
            if (!c || c > prev || (c == prev && (int)i <= lastbest))
                continue;
            if (pick < 0 || c > counts[pick])
                pick = (int)i;
        }
        if (pick < 0)
            break;
        best = counts[pick];
        len += snprintf(buf + ((size_t)len < size ? (size_t)len : size),
                        (size_t)len < size ? size - len : 0, "%5u %3u.%u%% %s\n", best,
                        best * 1000 / nsamples / 10, best * 1000 / nsamples % 10, ksym_name(pick));
        prev = best;
        lastbest = pick;
        shown++;
    }
    return len;
}
