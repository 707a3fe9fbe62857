/* uaccess.h - the only way the kernel touches user memory. Every user
 * pointer a system call receives goes through these: each page is looked
 * up in the process's page table, so an unmapped, kernel or wrapping
 * address is -EFAULT and never a kernel page fault. */
#ifndef MM_UACCESS_H
#define MM_UACCESS_H

#include <stddef.h>
#include <stdint.h>
#include "arch/x86/mmu.h"

int copyin(void *dst, uint32_t usrc, size_t n);                 /* 0 or -EFAULT */
/* 0, -EFAULT, or -ENOMEM: a copy-on-write page and no free page to copy
 * it into (then what went before that page is written). */
int copyout(uint32_t udst, const void *src, size_t n);
/* Copy a NUL-terminated string of at most max-1 characters: its length,
 * -EFAULT, or -ENAMETOOLONG. */
int copyinstr(char *dst, uint32_t usrc, size_t max);
/* The length of that string (< max), -EFAULT or -ENAMETOOLONG. */
int ustrlen(uint32_t usrc, size_t max);
/* That string in a kmalloc'd block of its own size: 0 or -errno. */
int copyinstr_alloc(uint32_t usrc, size_t max, char **out);
/* Is [uaddr, uaddr + n) all mapped for user access (writable, if write)?
 * 0, -EFAULT, or -ENOMEM (no page to copy a copy-on-write page into). */
int uaccess_check(uint32_t uaddr, size_t n, int write);
/* The same check, then the buffer itself in *buf, usable by the kernel
 * until the system call returns (uaccess.c says why): 0 or the error. */
int uaccess_buffer(uint32_t uaddr, size_t n, int write, void **buf);
/* copyout into any address space (exec builds the new stack with it). */
int copyout_to(pde_t *pgdir, uint32_t udst, const void *src, size_t n);

#endif
