/* power.c - how Orthos leaves the machine. The test runner boots QEMU with
 * `-device isa-debug-exit,iobase=0xf4,iosize=4`, so a write to port 0xF4
 * ends QEMU with a status the host can read. */
#include "arch/x86/x86.h"
#include "dev/power.h"
#include "lib/kcov.h"

#define DEBUG_EXIT_PORT 0xF4
#define QEMU_ACPI_PM    0x604       /* PIIX4 PM1a control on QEMU's pc machine */
#define PANIC_STATUS    0x7F

int panic_exits;                        /* set once at boot, from the command line */

void machine_poweroff(int code)
{
    cli();
    kcov_end(code); /* make coverage: the boot ran to its end */
    outl(DEBUG_EXIT_PORT, (uint32_t)code);
    outw(QEMU_ACPI_PM, 0x2000);     /* SLP_EN | S5 */
    for (;;)
        hlt();
}

void machine_halt_after_panic(void)
{
    if (panic_exits)
        machine_poweroff(PANIC_STATUS);
    cli();
    for (;;)
        hlt();
}
