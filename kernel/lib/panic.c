/* panic.c - the kernel's last words: the message, the registers of a
 * faulting trap, and a backtrace with function names. The names come from
 * .ksyms, a table tools/ksyms.py makes from the linked kernel's own symbols
 * (a second link adds it; .text does not move, see linker.ld). */
#include <stdarg.h>
#include "arch/x86/cpu.h"
#include "arch/x86/x86.h"
#include "dev/power.h"
#include "lib/fmt.h"
#include "lib/kprintf.h"

struct ksym {
    uint32_t addr;
    uint32_t name;          /* offset into ksym_names */
};

/* Defined by the generated build/ksyms.c (empty in the first link). */
extern const struct ksym ksyms[];
extern const uint32_t nksyms;
extern const char ksym_names[];

#define BACKTRACE_MAX 16

const char *ksym_lookup(uint32_t addr, uint32_t *offset)
{
    uint32_t lo = 0, hi = nksyms;

    if (nksyms == 0 || addr < ksyms[0].addr)
        return NULL;
    while (hi - lo > 1) {           /* last symbol with ksyms[i].addr <= addr */
        uint32_t mid = (lo + hi) / 2;
        if (ksyms[mid].addr <= addr)
            lo = mid;
        else
            hi = mid;
    }
    if (lo == nksyms - 1 && addr - ksyms[lo].addr > 0x10000)
        return NULL;
    *offset = addr - ksyms[lo].addr;
    return ksym_names + ksyms[lo].name;
}

static void print_frame(uint32_t eip)
{
    uint32_t off;
    const char *name = ksym_lookup(eip, &off);

    if (name)
        kprintf("  %p %s+0x%x\n", (void *)eip, name, off);
    else
        kprintf("  %p ?\n", (void *)eip);
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
static int panicking;

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
    kprintf("  eax %08x ebx %08x ecx %08x edx %08x\n", tf->eax, tf->ebx, tf->ecx, tf->edx);
    kprintf("  esi %08x edi %08x ebp %08x efl %08x\n", tf->esi, tf->edi, tf->ebp, tf->eflags);
    backtrace_from(tf->eip, tf->ebp);
    halt_forever();
}
