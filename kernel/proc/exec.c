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

/* ---------------------------------------------------------------- shared text */

/* The pages of read-only segments (text, rodata) are shared by every
 * process that runs the same bytes: each exec reads the file's page and
 * compares it with the cached one, which it maps if they are equal. Equal
 * bytes are all that counts (a file rewritten since, or another file, is
 * simply not equal), and no process can write to such a page, so sharing
 * is never seen - except in speed: under QEMU a page of code run before
 * keeps its translation, which is most of what an exec costs there.
 * Pages only the cache still uses go back when memory runs short and
 * before /proc/meminfo counts (pmm_set_reclaim). */
#define TEXT_PAGES 128

static struct text_page {
    uint32_t fsid, ino, off;            /* where its bytes came from: a hint, they are compared */
    uint32_t pa;                        /* 0: a free slot */
    uint32_t last;                      /* exec_clock at the last use: the oldest goes first */
} text_pages[TEXT_PAGES];
static uint32_t exec_clock;

/* The cached page holding exactly these bytes, with a new reference, or 0. */
static uint32_t text_find(uint32_t fsid, uint32_t ino, uint32_t off, const void *bytes)
{
    int i;

    for (i = 0; i < TEXT_PAGES; i++) {
        struct text_page *t = &text_pages[i];
        if (!t->pa || t->fsid != fsid || t->ino != ino || t->off != off)
            continue;
        if (memcmp(P2V(t->pa), bytes, PAGE_SIZE) != 0) {
            page_put(t->pa);            /* the file changed: forget the old bytes */
            t->pa = 0;
            continue;
        }
        t->last = exec_clock;
        page_get(t->pa);
        return t->pa;
    }
    return 0;
}

/* Keep page pa for the next exec, in a free slot or in place of the page
 * unused for longest; not at all if every slot's page is in use. */
static void text_add(uint32_t fsid, uint32_t ino, uint32_t off, uint32_t pa)
{
    struct text_page *t = NULL;
    int i;

    for (i = 0; i < TEXT_PAGES && (!t || t->pa); i++) {
        struct text_page *c = &text_pages[i];
        if (!c->pa || (page_refs(c->pa) == 1 && (!t || c->last < t->last)))
            t = c;
    }
    if (!t)
        return;
    if (t->pa)
        page_put(t->pa);
    *t = (struct text_page){ fsid, ino, off, pa, exec_clock };
    page_get(pa);
}

/* Give back every cached page no process maps; how many (pmm's reclaim). */
unsigned exec_text_reclaim(void)
{
    unsigned n = 0;
    int i;

    for (i = 0; i < TEXT_PAGES; i++) {
        if (text_pages[i].pa && page_refs(text_pages[i].pa) == 1) {
            page_put(text_pages[i].pa);
            text_pages[i].pa = 0;
            n++;
        }
    }
    return n;
}

/* May page va of segment ph be a shared one? Only in a read-only segment,
 * and only if no other segment touches the page (that one's bytes would
 * be written into it). Where the segment sits in the file does not
 * matter: the page's bytes are compared whole, the file offset is only a
 * hint. (It used to have to sit at the same offset in a page as in
 * memory; programs are linked with -n, their text at 0x80 in the file
 * and at 0x0 in its page, so no page was ever shared.) */
static int shareable(const struct elf_phdr *ph, const struct elf_phdr *all, int n, uint32_t va)
{
    int i;

    if (ph->flags & PF_W)
        return 0;
    for (i = 0; i < n; i++)
        if (&all[i] != ph && all[i].type == PT_LOAD && all[i].memsz &&
            PGROUNDDOWN(all[i].vaddr) <= va && va < all[i].vaddr + all[i].memsz)
            return 0;
    return 1;
}

/* Map page va of read-only segment ph from the cache, or a new page that
 * the cache then keeps. The page holds the segment's file bytes, zeros
 * around them. */
static int map_shared(pde_t *pgdir, struct vnode *v, const struct elf_phdr *ph, uint32_t va)
{
    uint32_t lo = va < ph->vaddr ? ph->vaddr : va, hi = va + PAGE_SIZE;
    uint32_t off = ph->offset + (va - ph->vaddr), pa;
    char *page = page_alloc();
    int err;

    if (!page)
        return -ENOMEM;
    if (hi > ph->vaddr + ph->filesz)
        hi = ph->vaddr + ph->filesz;
    if ((err = read_exact(v, page + (lo - va), ph->offset + (lo - ph->vaddr), hi - lo)) < 0) {
        page_put(V2P(page));
        return err;
    }
    if ((pa = text_find(v->fs->id, v->ino, off, page))) {
        page_put(V2P(page));
    } else {
        pa = V2P(page);
        text_add(v->fs->id, v->ino, off, pa);
    }
    if ((err = vm_map_page(pgdir, va, pa, PTE_U)) < 0)
        page_put(pa);
    return err;
}

/* ---------------------------------------------------------------- loading */

/* Map and fill one PT_LOAD segment: 0 or -errno. Read-only pages come
 * from the shared text above; pages of pure bss, past the last file byte,
 * are lazy (vm.c): reserved now, zeroed when the program first touches
 * them, which for most of a big bss is never; the rest get a fresh page
 * with the file's bytes. */
static int load_segment(pde_t *pgdir, struct vnode *v, const struct elf_phdr *ph,
                        const struct elf_phdr *all, int nph)
{
    uint32_t va, perm = PTE_U | ((ph->flags & PF_W) ? PTE_W : 0);
    uint32_t file_end = ph->vaddr + ph->filesz;
    int err;

    if (ph->memsz < ph->filesz || ph->vaddr < USER_BASE || ph->vaddr + ph->memsz < ph->vaddr ||
        ph->vaddr + ph->memsz > USER_STACK_BOTTOM - PAGE_SIZE ||
        ph->offset + ph->filesz < ph->offset || ph->offset + ph->filesz > v->size)
        return -ENOEXEC;
    for (va = PGROUNDDOWN(ph->vaddr); va < ph->vaddr + ph->memsz; va += PAGE_SIZE) {
        uint32_t lo = va < ph->vaddr ? ph->vaddr : va, hi = va + PAGE_SIZE;
        if (!vm_mapped(pgdir, va)) {    /* else shared with the previous segment */
            int shared = va < file_end && shareable(ph, all, nph, va);
            if (va >= file_end)
                err = vm_lazy_range(pgdir, va, va + PAGE_SIZE, perm);
            else if (shared)
                err = map_shared(pgdir, v, ph, va);
            else
                err = vm_alloc_range(pgdir, va, va + PAGE_SIZE, perm);
            if (err < 0)
                return err;
            if (va >= file_end || shared)
                continue;               /* nothing to copy, or copied */
        }
        if (hi > file_end)
            hi = file_end;
        if (lo < hi && (err = read_exact(v, (char *)vm_user_page(pgdir, va, 0) + (lo - va),
                                         ph->offset + (lo - ph->vaddr), hi - lo)) < 0)
            return err;
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

/* The pages a user's program may take at once (its segments, bss and
 * stack, most of them promised to lazy pages) must leave an eighth of
 * memory free (pmm_may_store): a user's program with a bss as big as
 * free memory held every page while it slept, and root could not fork.
 * Segments load_segment will refuse are not counted. */
static int user_may_load(const struct proc *p, const struct elf_phdr *ph, int nph)
{
    uint32_t pages = USER_STACK_PAGES;
    int i;

    if (p->uid == 0)
        return 1;
    for (i = 0; i < nph; i++)
        if (ph[i].type == PT_LOAD && ph[i].vaddr >= USER_BASE &&
            ph[i].vaddr + ph[i].memsz > ph[i].vaddr &&
            ph[i].vaddr + ph[i].memsz <= USER_STACK_BOTTOM)
            pages += (PGROUNDUP(ph[i].vaddr + ph[i].memsz) - PGROUNDDOWN(ph[i].vaddr)) / PAGE_SIZE;
    return pmm_may_store(pages);
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

    exec_clock++;
    if ((err = fs_check(v)) < 0)
        return err;
    if (!S_ISREG(v->mode))
        return S_ISDIR(v->mode) ? -EISDIR : -EACCES;
    if ((err = perm_check(p, v, MAY_EXEC)) < 0 || (err = ns_attr_check(&f->path, BIND_NOEXEC)) < 0)
        return err;                     /* execute permission (perm.c), a noexec attachment */
    if ((err = read_exact(v, &h, 0, sizeof(h))) < 0 || (err = check_header(&h)) < 0)
        return err == -EIO ? err : -ENOEXEC;
    if (h.phoff > v->size || (err = read_exact(v, ph, h.phoff, h.phnum * sizeof(ph[0]))) < 0)
        return -ENOEXEC;
    if (h.entry < USER_BASE || h.entry >= USER_STACK_BOTTOM)
        return -ENOEXEC;
    if (!user_may_load(p, ph, h.phnum))
        return -ENOMEM;
    if (!(fds = fdtable_new()))
        return -ENOMEM;                 /* the new program's fd table (fdtable_exec) */
    if (!(pgdir = vm_create())) {
        fdtable_put(fds);
        return -ENOMEM;
    }
    for (i = 0; i < h.phnum; i++) {
        if (ph[i].type != PT_LOAD)
            continue;
        if ((err = load_segment(pgdir, v, &ph[i], ph, h.phnum)) < 0)
            goto fail;
        if (ph[i].vaddr + ph[i].memsz > top)
            top = ph[i].vaddr + ph[i].memsz;
    }
    err = -ENOEXEC;
    if (top == 0)
        goto fail;
    if ((err = vm_lazy_range(pgdir, USER_STACK_BOTTOM, USER_TOP, PTE_U | PTE_W)) < 0 ||
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
    f = file_alloc(&where, FA_PATH, 0, NULL);
    path_put(&where);
    if (!f)
        return -ENFILE;
    err = exec_file(p, f, argv, envp);
    file_put(f);
    return err;
}
