/* multiboot.h - the parts of the Multiboot 0.6.96 information structure
 * that Orthos reads: the command line, the modules, the memory map. */
#ifndef ARCH_MULTIBOOT_H
#define ARCH_MULTIBOOT_H

#include <stdint.h>

#define MULTIBOOT_BOOTLOADER_MAGIC 0x2BADB002u
#define MBI_FLAG_MEM               (1u << 0)
#define MBI_FLAG_CMDLINE           (1u << 2)
#define MBI_FLAG_MODS              (1u << 3)
#define MBI_FLAG_MMAP              (1u << 6)

struct multiboot_info {
    uint32_t flags;
    uint32_t mem_lower, mem_upper;
    uint32_t boot_device;
    uint32_t cmdline;
    uint32_t mods_count, mods_addr;
    uint32_t syms[4];
    uint32_t mmap_length, mmap_addr;
} __attribute__((packed));

struct multiboot_mod {
    uint32_t start, end;
    uint32_t string;
    uint32_t reserved;
} __attribute__((packed));

struct multiboot_mmap {
    uint32_t size;              /* of the rest of this entry */
    uint64_t addr, len;
    uint32_t type;              /* 1 = usable RAM */
} __attribute__((packed));

#endif
