/* exec.c - the ELF32 loader. Everything is checked before the old program
 * is thrown away: a truncated or malformed file, a segment outside user
 * space or overlapping the stack, too many arguments - each is an error
 * code (-ENOEXEC, -E2BIG, -ENOMEM) and the caller keeps running. So is
 * everything that needs memory, the new program's fd table included. */
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "lib/string.h"
#include "mm/memlayout.h"
#include "mm/page.h"
#include "mm/uaccess.h"
#include "mm/vm.h"
#include "proc/elf.h"
#include "proc/exec.h"
#include "proc/proc.h"

#define MAXPHDRS 16

static int read_exact(struct vnode *v, void *buf, uint32_t off, uint32_t n)
{
    int r = vnode_read(v, buf, off, n);

    return r == (int)n ? 0 : r < 0 ? r : -ENOEXEC;
}

static int check_header(const struct elf_header *h)
{
    if (h->magic != ELF_MAGIC || h->class != ELFCLASS32 || h->data != ELFDATA2LSB ||
        h->type != ET_EXEC || h->machine != EM_386 || h->phentsize != sizeof(struct elf_phdr) ||
        h->phnum == 0 || h->phnum > MAXPHDRS)
        return -ENOEXEC;
    return 0;
}

/* Map and fill one PT_LOAD segment: 0 or -errno. */
static int load_segment(pde_t *pgdir, struct vnode *v, const struct elf_phdr *ph)
{
    uint32_t va, perm = PTE_U | ((ph->flags & PF_W) ? PTE_W : 0);
    int err;

    if (ph->memsz < ph->filesz || ph->vaddr < USER_BASE || ph->vaddr + ph->memsz < ph->vaddr ||
        ph->vaddr + ph->memsz > USER_STACK_BOTTOM - PAGE_SIZE ||
        ph->offset + ph->filesz < ph->offset || ph->offset + ph->filesz > v->size)
        return -ENOEXEC;
    for (va = PGROUNDDOWN(ph->vaddr); va < ph->vaddr + ph->memsz; va += PAGE_SIZE) {
        if (vm_user_page(pgdir, va, 0))
            continue;                   /* shared with the previous segment */
        if ((err = vm_alloc_range(pgdir, va, va + PAGE_SIZE, perm)) < 0)
            return err;
    }
    /* Copy the file bytes page by page through the kernel's direct map. */
    for (va = 0; va < ph->filesz;) {
        uint32_t uva = ph->vaddr + va;
        uint32_t n = PAGE_SIZE - (uva & (PAGE_SIZE - 1));
        char *k = vm_user_page(pgdir, uva, 0);
        if (n > ph->filesz - va)
            n = ph->filesz - va;
        if ((err = read_exact(v, k, ph->offset + va, n)) < 0)
            return err;
        va += n;
    }
    return 0;
}

/* Lay out argc, argv[], envp[] and their strings at the top of the stack:
 * at entry esp -> [argc][argv][envp], as crt0 expects. */
static int build_stack(pde_t *pgdir, const char *const *argv, const char *const *envp,
                       uint32_t *esp)
{
    uint32_t ptrs[2 * MAXARG + 2 + 3];
    uint32_t sp = USER_TOP, base;
    int argc = 0, i, n = 0;
    const char *const *lists[2] = { argv, envp };
    int l;

    for (l = 0; l < 2; l++) {
        int count = 0;
        for (i = 0; lists[l] && lists[l][i]; i++, count++) {
            size_t len = strlen(lists[l][i]) + 1;
            sp -= len;
            if (copyout_to(pgdir, sp, lists[l][i], len) < 0)
                return -E2BIG;
            ptrs[n++] = sp;
        }
        ptrs[n++] = 0;
        if (l == 0)
            argc = count;
    }
    sp &= ~3u;
    sp -= n * 4;
    base = sp;
    if (copyout_to(pgdir, base, ptrs, n * 4) < 0)
        return -E2BIG;
    {
        uint32_t head[3] = { (uint32_t)argc, base, base + (argc + 1) * 4 };
        sp -= sizeof(head);
        if (copyout_to(pgdir, sp, head, sizeof(head)) < 0)
            return -E2BIG;
    }
    *esp = sp;
    return 0;
}

int exec_file(struct proc *p, struct file *f, const char *const *argv, const char *const *envp)
{
    struct vnode *v = f->path.vn;
    struct elf_header h;
    struct elf_phdr ph[MAXPHDRS];
    struct fdtable *fds;
    uint32_t top = 0, esp;
    pde_t *pgdir, *old;
    int i, err;

    if ((err = fs_check(v)) < 0)
        return err;
    if (!S_ISREG(v->mode))
        return S_ISDIR(v->mode) ? -EISDIR : -EACCES;
    if ((err = perm_check(p, v, MAY_EXEC)) < 0)
        return err;                     /* execute permission: the VFS's rule (perm.c) */
    if ((err = read_exact(v, &h, 0, sizeof(h))) < 0 || (err = check_header(&h)) < 0)
        return err == -EIO ? err : -ENOEXEC;
    if (h.phoff > v->size || (err = read_exact(v, ph, h.phoff, h.phnum * sizeof(ph[0]))) < 0)
        return -ENOEXEC;
    if (h.entry < USER_BASE || h.entry >= USER_STACK_BOTTOM)
        return -ENOEXEC;
    if (!(fds = fdtable_new()))
        return -ENOMEM;                 /* the new program's fd table (fdtable_exec) */
    if (!(pgdir = vm_create())) {
        fdtable_put(fds);
        return -ENOMEM;
    }
    for (i = 0; i < h.phnum; i++) {
        if (ph[i].type != PT_LOAD)
            continue;
        if ((err = load_segment(pgdir, v, &ph[i])) < 0)
            goto fail;
        if (ph[i].vaddr + ph[i].memsz > top)
            top = ph[i].vaddr + ph[i].memsz;
    }
    err = -ENOEXEC;
    if (top == 0)
        goto fail;
    if ((err = vm_alloc_range(pgdir, USER_STACK_BOTTOM, USER_TOP, PTE_U | PTE_W)) < 0 ||
        (err = build_stack(pgdir, argv, envp, &esp)) < 0)
        goto fail;

    /* The point of no return: switch p over to the new image. */
    old = p->pgdir;
    p->pgdir = pgdir;
    p->heap_base = p->brk = PGROUNDUP(top);
    if (p == curproc())
        vm_switch(pgdir);
    vm_destroy(old);
    memset(p->tf, 0, sizeof(*p->tf));
    p->tf->cs = SEL_UCODE;
    p->tf->ds = p->tf->es = p->tf->fs = p->tf->gs = p->tf->ss = SEL_UDATA;
    p->tf->eflags = 0x200;              /* interrupts on */
    p->tf->eip = h.entry;
    p->tf->esp = esp;
    fdtable_exec(p, fds);
    proc_set_name(p, argv && argv[0] ? argv[0] : "?");
    return 0;
fail:
    vm_destroy(pgdir);
    fdtable_put(fds);
    return err;
}

int exec_path(struct proc *p, const char *path, const char *const *argv)
{
    static const char *const envp[] = { "PATH=/bin", "HOME=/", NULL };
    struct path where;
    struct file *f;
    int err;

    if ((err = vfs_walk_from(p, AT_CWD, path, 0, &where)) < 0)
        return err;
    f = file_alloc(&where, FA_PATH, 0);
    path_put(&where);
    if (!f)
        return -ENFILE;
    err = exec_file(p, f, argv, envp);
    file_put(f);
    return err;
}
