/* elf.h - the ELF32 structures the loader reads (System V ABI, i386). */
#ifndef PROC_ELF_H
#define PROC_ELF_H

#include <stdint.h>

#define ELF_MAGIC   0x464C457Fu     /* "\x7FELF" little-endian */
#define ELFCLASS32  1
#define ELFDATA2LSB 1
#define ET_EXEC     2
#define EM_386      3
#define PT_LOAD     1
#define PF_X        1
#define PF_W        2
#define PF_R        4

struct elf_header {
    uint32_t magic;
    uint8_t class, data, version, osabi, pad[8];
    uint16_t type, machine;
    uint32_t version2, entry, phoff, shoff, flags;
    uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct elf_phdr {
    uint32_t type, offset, vaddr, paddr, filesz, memsz, flags, align;
};

#endif
