/* panic.c - the kernel's last words: the message, the registers of a
 * faulting trap, and a backtrace naming each frame's function and source
 * line. Both come from .ksyms, tables tools/ksyms.py makes from the linked
 * kernel's own symbols and DWARF line program (a second link adds them;
 * .text does not move, see linker.ld). */
#include <stdarg.h>
#include <stddef.h>
#include "arch/x86/cpu.h"
#include "arch/x86/mmu.h"
#include "arch/x86/x86.h"
#include "dev/power.h"
#include "lib/fmt.h"
#include "lib/kprintf.h"

struct ksym {
    uint32_t addr;
    uint32_t name;          /* offset into ksym_names */
};

/* From addr up to the next entry's address, the code is this source line. */
struct kline {
    uint32_t addr;
    uint16_t line;          /* 0: no line (compiler-made code, padding) */
    uint16_t file;          /* offset into kline_files */
};

/* The tables of the generated build/ksyms1.c. The first link, which
 * gives tools/ksyms.py its addresses, has no ksyms1.c: the empty, weak
 * tables of kernel/lib/ksyms.c stand in there and give way in the second. */
extern const struct ksym ksyms[];
extern const uint32_t nksyms;
extern const char ksym_names[];
extern const struct kline klines[];
extern const uint32_t nklines;
extern const char kline_files[];

#define BACKTRACE_MAX 16

/* The last entry of a table sorted by address whose address is at most
 * addr: its index, or -1. Both tables start each entry with its address
 * (a uint32_t) and are `size` bytes an entry, so one search serves both. */
static int32_t last_at_or_below(const void *table, uint32_t n, size_t size, uint32_t addr)
{
    const char *t = table;
    uint32_t lo = 0, hi = n;

    if (n == 0 || *(const uint32_t *)t > addr)
        return -1;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (*(const uint32_t *)(t + mid * size) <= addr)
            lo = mid;
        else
            hi = mid;
    }
    return (int32_t)lo;
}

/* The number of the function holding addr (0 .. ksym_count() - 1), or -1:
 * before the first, or far past the last. */
int32_t ksym_index(uint32_t addr)
{
    int32_t i = last_at_or_below(ksyms, nksyms, sizeof(ksyms[0]), addr);

    if (i < 0 || ((uint32_t)i == nksyms - 1 && addr - ksyms[i].addr > 0x10000))
        return -1;
    return i;
}

uint32_t ksym_count(void)
{
    return nksyms;
}

/* The name of function number i (ksym_index). */
const char *ksym_name(int32_t i)
{
    return ksym_names + ksyms[i].name;
}

const char *ksym_lookup(uint32_t addr, uint32_t *offset)
{
    int32_t i = ksym_index(addr);

    if (i < 0)
        return NULL;
    *offset = addr - ksyms[i].addr;
    return ksym_name(i);
}

/* The source line holding addr: its file (NULL if unknown) and *line. */
static const char *kline_lookup(uint32_t addr, uint32_t *line)
{
    int32_t i = last_at_or_below(klines, nklines, sizeof(klines[0]), addr);

    if (i < 0 || kline_files[klines[i].file] == '\0')
        return NULL;
    *line = klines[i].line;
    return kline_files + klines[i].file;
}

/* One backtrace line: address, function+offset, (file:line). */
static void print_frame(uint32_t eip)
{
    uint32_t off, line;
    const char *name = ksym_lookup(eip, &off);
    const char *file = kline_lookup(eip, &line);

    if (name)
        kprintf("  %p %s+0x%x", (void *)eip, name, off);
    else
        kprintf("  %p ?", (void *)eip);
    if (file && line)
        kprintf(" (%s:%u)", file, line);
    else if (file)
        kprintf(" (%s)", file);
    kprintf("\n");
}

/* Walk the saved-%ebp chain (the kernel is built with frame pointers). */
static void backtrace_from(uint32_t eip, uint32_t ebp)
{
    int depth;

    kprintf("backtrace:\n");
    print_frame(eip);
    for (depth = 0; depth < BACKTRACE_MAX && ebp >= 0xC0000000u; depth++) {
        uint32_t *frame = (uint32_t *)ebp;
        if (frame[1] == 0)
            break;
        print_frame(frame[1] - 1);  /* -1: point inside the call instruction */
        ebp = frame[0];
    }
}

static void __attribute__((noreturn)) halt_forever(void)
{
    kprintf("kernel halted.\n");
    machine_halt_after_panic();
}

/* Panics entered so far. The panic path trusts nothing it is handed: a
 * frame pointer in the backtrace may point anywhere, so a fault while
 * panicking ends the report (once) instead of recursing until the stack
 * is gone and the machine resets without a word. */
static int panicking;                   /* counted with interrupts off (panic turns them off) */

static void panic_enter(void)
{
    cli();
    __asm__ volatile("cld");            /* string instructions must go up */
    if (panicking++ == 0)
        return;
    if (panicking == 2)
        kprintf("\n(a fault while panicking: the report ends here)\n");
    machine_halt_after_panic();
}

void panic(const char *fmt, ...)
{
    va_list ap;
    char msg[160];

    panic_enter();
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    kprintf("\npanic: %s\n", msg);
    backtrace_from((uint32_t)__builtin_return_address(0) - 1, read_ebp());
    halt_forever();
}

/* "name+0xoff (file:line)" for a code address, as a backtrace line
 * shows it, into buf: for messages that name a caller (kfence.c). */
const char *ksym_where(uint32_t addr, char *buf, size_t size)
{
    uint32_t off, line;
    const char *name = ksym_lookup(addr, &off), *file = kline_lookup(addr, &line);
    int n =
        name ? snprintf(buf, size, "%s+0x%x", name, off) : snprintf(buf, size, "%p", (void *)addr);

    if (file && (size_t)n < size)
        snprintf(buf + n, size - n, " (%s:%u)", file, line);
    return buf;
}

/* The registers of the faulting trap and the backtrace from it. */
static void __attribute__((noreturn)) trap_report(const struct trapframe *tf)
{
    /* A trap from the kernel itself pushes no esp or ss (the CPU stays on
     * the same stack): the interrupted code's stack starts where they would
     * be, and its ss is the kernel's. */
    int from_kernel = (tf->cs & 3) == 0;
    uint32_t esp = from_kernel ? (uint32_t)&tf->esp : tf->esp;
    uint32_t ss = from_kernel ? SEL_KDATA : tf->ss;

    kprintf("  eax %08x ebx %08x ecx %08x edx %08x\n", tf->eax, tf->ebx, tf->ecx, tf->edx);
    kprintf("  esi %08x edi %08x ebp %08x efl %08x\n", tf->esi, tf->edi, tf->ebp, tf->eflags);
    kprintf("  cs %04x esp %08x ss %04x trap %u err %x\n", tf->cs, esp, ss, tf->trapno, tf->err);
    backtrace_from(tf->eip, tf->ebp);
    halt_forever();
}

void panic_trap(const struct trapframe *tf, uint32_t fault_addr)
{
    uint32_t off;
    const char *fn;

    panic_enter();
    fn = ksym_lookup(tf->eip, &off);
    if (tf->trapno == T_PGFLT)
        kprintf("\npanic: kernel page fault at %p (%s, eip %p in %s)\n", (void *)fault_addr,
                (tf->err & 2) ? "write" : "read", (void *)tf->eip, fn ? fn : "?");
    else
        kprintf("\npanic: kernel %s (trap %u, err %x) at eip %p in %s\n", trap_name(tf->trapno),
                tf->trapno, tf->err, (void *)tf->eip, fn ? fn : "?");
    trap_report(tf);
}

/* A kernel fault whose cause the caller has worked out (kfence.c): its
 * message, which may run to several lines, then what panic_trap shows. */
void panic_fault(const struct trapframe *tf, const char *msg)
{
    panic_enter();
    kprintf("\npanic: %s\n", msg);
    trap_report(tf);
}
