/* uaccess.c - copyin/copyout/copyinstr: page-by-page copies between the
 * kernel and a user address space, through the page tables (vm.c). A write
 * to a copy-on-write page takes the private copy first; if there is no
 * page for it, the call fails with -ENOMEM (not -EFAULT: the address is
 * good), and no process is killed for it as a user write's fault would
 * (doc/decisions.md). For bulk data, uaccess_buffer checks a whole buffer
 * once and hands it out as is. */
#include "include/uapi/errno.h"
#include "lib/string.h"
#include "mm/memlayout.h"
#include "mm/page.h"
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
    void *k;
    int err;

    if (!range_ok(udst, n))
        return -EFAULT;
    while (n > 0) {
        size_t chunk = PAGE_SIZE - (udst & (PAGE_SIZE - 1));
        if ((err = vm_user_access(pgdir, udst, 1, &k)) < 0)
            return err;
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

/* Walks the user string at usrc a page at a time, copying it to dst if
 * dst is not NULL: its length if it is shorter than max (its NUL among
 * the first max bytes), -ENAMETOOLONG, or -EFAULT. */
static int ustr_walk(char *dst, uint32_t usrc, size_t max)
{
    size_t len = 0, end;

    while (len < max) {
        const char *k = vm_user_page(curproc()->pgdir, usrc + len, 0);
        size_t chunk = PAGE_SIZE - ((usrc + len) & (PAGE_SIZE - 1));
        if (!k || usrc + len < usrc)
            return -EFAULT;
        end = chunk < max - len ? len + chunk : max;
        if (dst) {                      /* two loops: the test is not made per byte */
            for (; len < end; len++)
                if ((dst[len] = *k++) == '\0')
                    return (int)len;
        } else {
            for (; len < end; len++)
                if (*k++ == '\0')
                    return (int)len;
        }
    }
    return -ENAMETOOLONG;
}

/* A string's size before it is copied (get_path allocates exactly that). */
int ustrlen(uint32_t usrc, size_t max)
{
    return ustr_walk(NULL, usrc, max);
}

/* A kernel copy of the user string at usrc, shorter than max, in a
 * kmalloc'd block of its own size (*out; kfree it): 0, -EFAULT,
 * -ENAMETOOLONG or -ENOMEM. What system calls take paths by. A string
 * that ends in its first page (nearly every path) is measured and copied
 * through one page lookup; a longer one is measured first (ustrlen), then
 * copied. The NUL is the kernel's own: the user's bytes may change
 * meanwhile, never the size of what is copied. */
int copyinstr_alloc(uint32_t usrc, size_t max, char **out)
{
    const char *k = vm_user_page(curproc()->pgdir, usrc, 0);
    size_t room = PAGE_SIZE - (usrc & (PAGE_SIZE - 1)), n;
    char *s;
    int err;

    if (!k)
        return -EFAULT;
    if (room > max)
        room = max;
    if ((n = strnlen(k, room)) == room) {   /* no NUL here: the long way */
        if ((err = ustrlen(usrc, max)) < 0)
            return err;
        n = (size_t)err;
        k = NULL;
    }
    if (!(s = kmalloc(n + 1)))
        return -ENOMEM;
    if (k)
        memcpy(s, k, n);
    else if ((err = copyin(s, usrc, n)) < 0) {
        kfree(s);
        return err;
    }
    s[n] = '\0';
    *out = s;
    return 0;
}

int copyinstr(char *dst, uint32_t usrc, size_t max)
{
    return ustr_walk(dst, usrc, max);
}

/* A user buffer the kernel may use as its own (*buf): 0, -EFAULT or
 * -ENOMEM (uaccess_check).
 * Every page of [uaddr, uaddr + n) is made present now (lazy pages
 * filled, and for write, copy-on-write resolved), and stays so until the
 * system call returns, even across a sleep: a process's address space
 * changes only through its own calls (sbrk, exec, exit; fork takes write
 * access from its caller's pages), never while it is inside another one.
 * read() and write() work straight on such a buffer: one copy, no bounce
 * buffer (kernel/fs/sysfile.c, transfer). */
int uaccess_buffer(uint32_t uaddr, size_t n, int write, void **buf)
{
    int err = uaccess_check(uaddr, n, write);

    if (err == 0)
        *buf = (void *)uaddr;
    return err;
}

/* Is every page of [uaddr, uaddr + n) mapped for user access (and, for
 * write, writable after copy-on-write)? 0; -EFAULT if a page is not;
 * -ENOMEM if a copy-on-write copy found no free page. Checked before a
 * read consumes data it could not deliver: after it, copyout to the
 * range cannot fail. */
int uaccess_check(uint32_t uaddr, size_t n, int write)
{
    if (!range_ok(uaddr, n))
        return -EFAULT;
    return n == 0 ? 0 : vm_user_range(curproc()->pgdir, uaddr, uaddr + n, write);
}
