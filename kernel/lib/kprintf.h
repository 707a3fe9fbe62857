/* kprintf.h - kernel printing and dying. */
#ifndef LIB_KPRINTF_H
#define LIB_KPRINTF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct trapframe;

int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vkprintf(const char *fmt, va_list ap);

/* Print the message and a symbolised backtrace, then stop the machine.
 * Only for broken kernel invariants: bad user input is an error code. */
void panic(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* The same for a CPU exception taken in kernel mode. */
void panic_trap(const struct trapframe *tf, uint32_t fault_addr) __attribute__((noreturn));
void panic_fault(const struct trapframe *tf, const char *msg) __attribute__((noreturn));

/* Name of the function containing addr, and the offset into it; NULL if
 * the address is outside the kernel's text. */
const char *ksym_lookup(uint32_t addr, uint32_t *offset);
const char *ksym_where(uint32_t addr, char *buf, size_t size); /* "fn+0xoff (file:line)" */
int32_t ksym_index(uint32_t addr);
uint32_t ksym_count(void);
const char *ksym_name(int32_t i);

#define KASSERT(x) \
    do { \
        if (!(x)) \
            panic("assertion failed: %s (%s:%d)", #x, __FILE__, __LINE__); \
    } while (0)

#endif
