/* power.h - turning the machine off. */
#ifndef DEV_POWER_H
#define DEV_POWER_H

/* Leave QEMU with a status through its isa-debug-exit device (QEMU exits
 * with (code << 1) | 1), else ACPI power-off, else halt with interrupts off. */
void machine_poweroff(int code) __attribute__((noreturn));

/* After a panic: power off with status 0x7F if the boot asked for it
 * (`panic=exit`, set by the test runner), otherwise halt for the debugger. */
void machine_halt_after_panic(void) __attribute__((noreturn));
extern int panic_exits;

#endif
