/* boot.h - what kmain learned from the boot loader, for the rest of the
 * kernel: command-line arguments and the boot archive module. */
#ifndef BOOT_H
#define BOOT_H

#include <stddef.h>
#include <stdint.h>
#include "include/uapi/version.h"   /* ORTHOS_VERSION, for the banner */

/* Value of `key=value` on the kernel command line; "" for a bare `key`;
 * NULL if absent. */
const char *boot_arg(const char *key);

/* The boot archive (ustar) loaded as a multiboot module, in the direct map. */
extern const void *initrd_start;
extern size_t initrd_size;

void ktest_run(const char *which) __attribute__((noreturn));

#endif
