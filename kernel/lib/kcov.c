/* kcov.c - the coverage recorder of `make coverage` (doc/coverage.md).
 *
 * That build compiles every kernel file but this one with gcc's
 * -fsanitize-coverage=trace-pc: the compiler puts a call to
 * __sanitizer_cov_trace_pc() at the head of every basic block, and the
 * call's return address says which block it was. This file is compiled
 * without it (it would call itself), and so is every function it calls:
 * it touches nothing but its own bitmap and two I/O ports.
 *
 * Each block is told to the host the first time it runs, at once, on the
 * second serial port (COM2, which the coverage runs give QEMU as a file of
 * its own), as the block's offset from the kernel's load address in hex,
 * one a line. At once rather than in one dump at power-off, so that a
 * guest the host kills (a shell session, a timeout, a hung fuzzer) has
 * told everything it reached; on COM2, so that the console the tests read
 * is untouched. The bitmap makes each block cost the line once a boot:
 * a few thousand lines, a few tenths of a second.
 *
 * Nothing runs before this can: every C function runs after entry.asm has
 * turned paging on, and the bitmap is in .bss, which the loader zeroes.
 * In the ordinary build this file is empty. */
#ifdef KCOV
#include <stdint.h>
#include "arch/x86/x86.h"
#include "lib/kcov.h"
#include "mm/memlayout.h"

#define KCOV_BASE (KERNBASE + 0x100000u) /* linker.ld: the kernel at 1 MiB */
#define KCOV_SPAN (1u << 20)             /* the instrumented text must fit */
#define COM2      0x2F8
#define LSR_THRE  0x20                   /* line status: can send a byte */

static uint8_t kcov_hit[KCOV_SPAN / 8]; /* a bit per byte of text */
static uint32_t kcov_outside;           /* blocks past KCOV_SPAN: none, we hope */

/* No COM2 (a coverage kernel booted by hand): its ports read 0xFF, so
 * "ready" at once, and the bytes go nowhere. */
static void kcov_putc(char c)
{
    while (!(inb(COM2 + 5) & LSR_THRE))
        ;
    outb(COM2, (uint8_t)c);
}

static void kcov_puthex(uint32_t v, char after)
{
    char buf[8];
    int n = 0;
    do {
        buf[n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    while (n)
        kcov_putc(buf[--n]);
    kcov_putc(after);
}

void __sanitizer_cov_trace_pc(void);
void __sanitizer_cov_trace_pc(void)
{
    uint32_t off = (uint32_t)__builtin_return_address(0) - KCOV_BASE;
    if (off >= KCOV_SPAN) {
        kcov_outside++;
        return;
    }
    uint8_t bit = (uint8_t)(1u << (off & 7));
    if (kcov_hit[off >> 3] & bit) /* the common case: seen before */
        return;
    /* An interrupt between the test and the line would tell its own blocks
     * in the middle of this one's: tell the block with interrupts off, and
     * test again, as the interrupt may have told it already. */
    uint32_t was_on = irq_save();
    if (!(kcov_hit[off >> 3] & bit)) {
        kcov_hit[off >> 3] |= bit;
        kcov_puthex(off, '\n');
    }
    irq_restore(was_on);
}

/* "end CODE OUTSIDE" (hex): the boot ran to power-off (tools/coverage.py counts
 * the boots that did not), and how many block calls fell outside the map. */
void kcov_end(int code)
{
    irq_save();
    const char *s = "end ";
    while (*s)
        kcov_putc(*s++);
    kcov_puthex((uint32_t)code, ' ');
    kcov_puthex(kcov_outside, '\n');
}
#endif
