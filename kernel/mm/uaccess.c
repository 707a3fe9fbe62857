/* uaccess.c - copyin/copyout/copyinstr: page-by-page copies between the
 * kernel and a user address space, through the page tables (vm.c). A write
 * to a copy-on-write page takes the private copy first. For bulk data,
 * uaccess_buffer checks a whole buffer once and hands it out as is. */
#include "include/uapi/errno.h"
#include "lib/string.h"
#include "mm/memlayout.h"
#include "mm/uaccess.h"
#include "mm/vm.h"
#include "proc/proc.h"

static int range_ok(uint32_t uaddr, size_t n)
{
    return uaddr + n >= uaddr && uaddr + n <= USER_TOP;
}

int copyout_to(pde_t *pgdir, uint32_t udst, const void *src, size_t n)
{
    const char *s = src;

    if (!range_ok(udst, n))
        return -EFAULT;
    while (n > 0) {
        size_t chunk = PAGE_SIZE - (udst & (PAGE_SIZE - 1));
        char *k = vm_user_page(pgdir, udst, 1);
        if (!k)
            return -EFAULT;
        if (chunk > n)
            chunk = n;
        memcpy(k, s, chunk);
        s += chunk;
        udst += chunk;
        n -= chunk;
    }
    return 0;
}

int copyout(uint32_t udst, const void *src, size_t n)
{
    return copyout_to(curproc()->pgdir, udst, src, n);
}

int copyin(void *dst, uint32_t usrc, size_t n)
{
    char *d = dst;

    if (!range_ok(usrc, n))
        return -EFAULT;
    while (n > 0) {
        size_t chunk = PAGE_SIZE - (usrc & (PAGE_SIZE - 1));
        const char *k = vm_user_page(curproc()->pgdir, usrc, 0);
        if (!k)
            return -EFAULT;
        if (chunk > n)
            chunk = n;
        memcpy(d, k, chunk);
        d += chunk;
        usrc += chunk;
        n -= chunk;
    }
    return 0;
}

/* The length of the user string at usrc if it is shorter than max
 * (its NUL among the first max bytes), -ENAMETOOLONG, or -EFAULT: a
 * string's size before it is copied (get_path allocates exactly that). */
int ustrlen(uint32_t usrc, size_t max)
{
    size_t len = 0;

    while (len < max) {
        const char *k = vm_user_page(curproc()->pgdir, usrc + len, 0);
        size_t chunk = PAGE_SIZE - ((usrc + len) & (PAGE_SIZE - 1));
        if (!k || usrc + len < usrc)
            return -EFAULT;
        for (; chunk > 0 && len < max; chunk--, len++) {
            if (*k++ == '\0')
                return (int)len;
        }
    }
    return -ENAMETOOLONG;
}

int copyinstr(char *dst, uint32_t usrc, size_t max)
{
    size_t len = 0;

    while (len < max) {
        const char *k = vm_user_page(curproc()->pgdir, usrc + len, 0);
        size_t chunk = PAGE_SIZE - ((usrc + len) & (PAGE_SIZE - 1));
        if (!k || usrc + len < usrc)
            return -EFAULT;
        for (; chunk > 0 && len < max; chunk--, len++) {
            if ((dst[len] = *k++) == '\0')
                return (int)len;
        }
    }
    return -ENAMETOOLONG;
}

/* A user buffer the kernel may use as its own (*buf), or -EFAULT.
 * Every page of [uaddr, uaddr + n) is made present now (lazy pages
 * filled, and for write, copy-on-write resolved), and stays so until the
 * system call returns, even across a sleep: a process's address space
 * changes only through its own calls (sbrk, exec, exit; fork takes write
 * access from its caller's pages), never while it is inside another one.
 * read() and write() work straight on such a buffer: one copy, no bounce
 * buffer (kernel/fs/sysfile.c, transfer). */
int uaccess_buffer(uint32_t uaddr, size_t n, int write, void **buf)
{
    if (!uaccess_ok(uaddr, n, write))
        return -EFAULT;
    *buf = (void *)uaddr;
    return 0;
}

/* Is every page of [uaddr, uaddr + n) mapped for user access (and, for
 * write, writable after copy-on-write)? Checked before a read consumes
 * data it could not deliver. */
int uaccess_ok(uint32_t uaddr, size_t n, int write)
{
    if (!range_ok(uaddr, n))
        return 0;
    return n == 0 || vm_user_range(curproc()->pgdir, uaddr, uaddr + n, write);
}
