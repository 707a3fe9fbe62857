/* vm.c - paging. The kernel half of every page directory maps all physical
 * memory at KERNBASE with 4 MiB pages (no page tables to keep in sync);
 * the user half uses ordinary 4 KiB pages with page tables. fork() shares
 * user pages copy-on-write: both sides lose write access, PTE_COW marks
 * the page, and the first write fault copies it (vm_resolve_cow).
 *
 * A lazy page (PTE_LAZY, exec's stack and bss) has no frame yet: its PTE
 * is not present and holds only the permissions; the first touch, by the
 * process (a page fault, vm_fault) or by the kernel on its behalf
 * (vm_user_page), puts a zeroed page there. Each lazy PTE holds one page
 * reserved in pmm.c, so that touch can never fail: lazy costs nothing
 * but time saved, and memory runs out where it always did, at exec, fork
 * or sbrk, as -ENOMEM. (The CPU never caches a translation that is not
 * present, so making one present needs no TLB flush.) The promise is
 * charged to a user (pmm.c): where the frame's address would be, the
 * lazy PTE keeps that user's slot, so the promise goes back to whoever
 * was charged, whoever drops it (after a setuid, or an exit). */
#include "arch/x86/x86.h"
#include "include/uapi/errno.h"
#include "lib/kprintf.h"
#include "lib/string.h"
#include "mm/memlayout.h"
#include "mm/page.h"
#include "mm/vm.h"

#define KPDX               PDX(KERNBASE)
#define LAZY_CHARGED(slot) ((uint32_t)(slot) << 12) /* in a lazy PTE's frame bits */
#define LAZY_SLOT(pte)     ((pte) >> 12)

static pde_t *kpgdir;
SWITCH_DATA static pde_t *active;
static int spaces_made;                 /* vm_create has copied the kernel half */

void vm_init(uint32_t maxpa)
{
    uint32_t pa;

    kpgdir = page_alloc();
    if (!kpgdir)
        panic("vm_init: no page for the kernel page directory");
    for (pa = 0; pa < maxpa && KPDX + PDX(pa) < 1024 && pa < PHYS_MAX; pa += BIGPAGE)
        kpgdir[KPDX + PDX(pa)] = pa | PTE_P | PTE_W | PTE_PS;
    vm_switch(NULL);
}

/* A page table of 4 KiB pages for the kernel's 4 MiB at va (above the
 * direct map), empty: its caller maps and unmaps pages in it itself
 * (kfence.c's guarded pool). Only before the first vm_create: every
 * address space copies the kernel's PDEs then, and so shares this table,
 * and a change to it is seen in all of them (after an invlpg in the one
 * loaded: a CR3 write empties the TLB of the rest). */
pte_t *vm_kernel_table(uint32_t va)
{
    pte_t *pt;

    if (spaces_made || va < KERNBASE + PHYS_MAX || (kpgdir[PDX(va)] & PTE_P))
        panic("vm_kernel_table(%p): too late, or not a free kernel 4 MiB", (void *)va);
    if (!(pt = page_alloc()))
        panic("vm_kernel_table: no page");
    kpgdir[PDX(va)] = V2P(pt) | PTE_P | PTE_W;  /* no PTE_U: the kernel's */
    return pt;
}

pde_t *vm_create(void)
{
    pde_t *pd = page_alloc();

    spaces_made = 1;
    if (pd)
        memcpy(pd + KPDX, kpgdir + KPDX, (1024 - KPDX) * sizeof(pde_t));
    return pd;
}

/* Load an address space. Loading the one already there is skipped: every
 * CR3 write empties the TLB, and under QEMU its whole translation cache of
 * jumps too, which costs more than the switch itself (the scheduler keeps
 * the last process's space while it looks for the next, which is often
 * the same one). */
SWITCH_PATH void vm_switch(pde_t *pgdir)
{
    pde_t *next = pgdir ? pgdir : kpgdir;

    if (next == active)
        return;
    active = next;
    write_cr3(V2P(active));
}

/* The PTE for user address va, allocating its page table if `alloc`;
 * NULL if absent, and for any va in the kernel half: there a PDE maps a
 * 4 MiB page, not a page table, and reading it as one took kernel bytes
 * for a PTE (a user's write to a kernel address reached vm_resolve_cow,
 * which copied from, or made writable, whatever those bytes named:
 * doc/decisions.md, "The ELF fuzzer's panic"). */
static pte_t *vm_walk(pde_t *pgdir, uint32_t va, int alloc)
{
    pde_t *pde = &pgdir[PDX(va)];
    pte_t *pt;

    if (va >= USER_TOP)
        return NULL;
    if (*pde & PTE_P)
        return (pte_t *)P2V(PTE_ADDR(*pde)) + PTX(va);
    if (!alloc || !(pt = page_alloc()))
        return NULL;
    *pde = V2P(pt) | PTE_P | PTE_W | PTE_U;
    return pt + PTX(va);
}

static void flush(pde_t *pgdir, uint32_t va)
{
    if (pgdir == active)
        invlpg(va);
}

/* Map pa at va. Only a mapping that replaces a present one is flushed
 * from the TLB: the TLB never holds a translation that was not present,
 * and under QEMU an invlpg costs what a few hundred instructions do. */
int vm_map_page(pde_t *pgdir, uint32_t va, uint32_t pa, uint32_t perm)
{
    pte_t *pte = vm_walk(pgdir, va, 1);
    int was_present;

    if (!pte)
        return -ENOMEM;
    was_present = (*pte & PTE_P) != 0;
    if (was_present)
        page_put(PTE_ADDR(*pte));
    else if (*pte & PTE_LAZY)
        pmm_unreserve(1, LAZY_SLOT(*pte));
    *pte = pa | perm | PTE_P;
    if (was_present)
        flush(pgdir, va);
    return 0;
}

/* Map fresh zeroed pages over [start, end); on failure nothing stays mapped. */
int vm_alloc_range(pde_t *pgdir, uint32_t start, uint32_t end, uint32_t perm)
{
    uint32_t va;

    for (va = PGROUNDDOWN(start); va < end; va += PAGE_SIZE) {
        void *page = page_alloc();
        if (!page || vm_map_page(pgdir, va, V2P(page), perm) < 0) {
            if (page)
                page_put(V2P(page));
            vm_free_range(pgdir, PGROUNDDOWN(start), va);
            return -ENOMEM;
        }
    }
    return 0;
}

/* Map [start, end) lazily: every page reserved now, zeroed on first touch.
 * -ENOMEM (and nothing mapped) if the pages or the page tables are not there. */
int vm_lazy_range(pde_t *pgdir, uint32_t start, uint32_t end, uint32_t perm)
{
    uint32_t va;
    int slot;

    start = PGROUNDDOWN(start);
    if ((slot = pmm_reserve((PGROUNDUP(end) - start) / PAGE_SIZE)) < 0)
        return -ENOMEM;
    for (va = start; va < end; va += PAGE_SIZE) {
        pte_t *pte = vm_walk(pgdir, va, 1);
        if (!pte) {
            pmm_unreserve((PGROUNDUP(end) - va) / PAGE_SIZE, slot);
            vm_free_range(pgdir, start, va);
            return -ENOMEM;
        }
        if (*pte & PTE_P)
            page_put(PTE_ADDR(*pte));
        else if (*pte & PTE_LAZY)
            pmm_unreserve(1, LAZY_SLOT(*pte));
        *pte = PTE_LAZY | LAZY_CHARGED(slot) | (perm & (PTE_U | PTE_W));
    }
    return 0;
}

/* Unmap [start, end) (end at most USER_TOP): a page table at a time, an
 * empty 4 MiB skipped whole and an empty entry with one test (exit and
 * exec free a whole address space this way). */
void vm_free_range(pde_t *pgdir, uint32_t start, uint32_t end)
{
    uint32_t va = PGROUNDDOWN(start);

    while (va < end) {
        uint32_t next = (va | (BIGPAGE - 1)) + 1, stop = next < end ? next : end;
        pte_t *pt;
        if (!(pgdir[PDX(va)] & PTE_P)) {
            va = next;                  /* skip the empty 4 MiB */
            continue;
        }
        pt = P2V(PTE_ADDR(pgdir[PDX(va)]));
        for (; va < stop; va += PAGE_SIZE) {
            pte_t *pte = &pt[PTX(va)];
            if (*pte & PTE_P) {
                page_put(PTE_ADDR(*pte));
                *pte = 0;
                flush(pgdir, va);
            } else if (*pte & PTE_LAZY) {
                pmm_unreserve(1, LAZY_SLOT(*pte));
                *pte = 0;
            }
        }
    }
}

/* Free every user page and page table, and leave the user half empty.
 * The directory itself stays, so a process that exits can do this on its
 * own address space while it is still loaded: no CR3 write (and, under
 * QEMU, no emptied TLB) just to die; its pages leave the TLB one by one. */
void vm_free_user(pde_t *pgdir)
{
    uint32_t i;

    vm_free_range(pgdir, 0, USER_TOP);
    for (i = 0; i < KPDX; i++) {
        if (pgdir[i] & PTE_P)
            page_put(PTE_ADDR(pgdir[i]));
        pgdir[i] = 0;
    }
}

/* Free every user page, every page table, then the directory itself. */
void vm_destroy(pde_t *pgdir)
{
    if (!pgdir)
        return;
    if (pgdir == active)
        vm_switch(NULL);
    vm_free_user(pgdir);
    page_put(V2P(pgdir));
}

/* Up to this many pages made read-only by a fork are flushed from the TLB
 * one by one (invlpg); more, and the whole TLB goes (a CR3 write), which
 * under QEMU costs about as much as refilling some thirty pages. */
#define FORK_INVLPG_MAX 32

/* Copy-on-write clone of the user half: share every page read-only. A
 * lazy page stays lazy on both sides, each with a page reserved: for a
 * user's fork (floor) only while an eighth of memory stays free after it
 * (pmm_may_store), or a user's forks of a program with a big bss could
 * promise away every page. */
pde_t *vm_fork(pde_t *src, int floor)
{
    pde_t *dst = vm_create();
    uint32_t i, j, nro = 0, ro[FORK_INVLPG_MAX];
    int slot;

    if (!dst)
        return NULL;
    for (i = 0; i < KPDX; i++) {
        pte_t *spt, *dpt;
        if (!(src[i] & PTE_P))
            continue;
        if (!(dpt = page_alloc())) {
            vm_destroy(dst);
            return NULL;
        }
        dst[i] = V2P(dpt) | PTE_P | PTE_W | PTE_U;
        spt = P2V(PTE_ADDR(src[i]));
        for (j = 0; j < 1024; j++) {
            if (!spt[j])
                continue;
            if (spt[j] & PTE_LAZY) {
                if ((floor && !pmm_may_store(1)) || (slot = pmm_reserve(1)) < 0) {
                    vm_destroy(dst);
                    return NULL;
                }
                dpt[j] = PTE_FLAGS(spt[j]) | LAZY_CHARGED(slot); /* the forker's promise */
            }
            if (!(spt[j] & PTE_P))
                continue;
            if (spt[j] & PTE_W) {
                spt[j] = (spt[j] & ~PTE_W) | PTE_COW;
                if (nro < FORK_INVLPG_MAX)
                    ro[nro] = i << 22 | j << 12;
                nro++;
            }
            dpt[j] = spt[j];
            page_get(PTE_ADDR(spt[j]));
        }
    }
    if (src == active && nro > FORK_INVLPG_MAX)
        write_cr3(V2P(src));            /* we removed write access: flush all */
    else if (src == active)
        for (j = 0; j < nro; j++)
            invlpg(ro[j]);
    return dst;
}

/* A write to a COW page: take a private copy, or reuse it if we are the
 * last sharer. Returns -EFAULT if va is not a COW page at all (a kernel
 * address included: vm_walk finds no PTE there). */
int vm_resolve_cow(pde_t *pgdir, uint32_t va)
{
    pte_t *pte = vm_walk(pgdir, va, 0);
    uint32_t pa;
    void *copy;

    if (!pte || !(*pte & PTE_P) || !(*pte & PTE_U) || !(*pte & PTE_COW))
        return -EFAULT;
    pa = PTE_ADDR(*pte);
    if (page_refs(pa) == 1) {
        *pte = (*pte | PTE_W) & ~PTE_COW;
    } else {
        if (!(copy = page_alloc()))
            return -ENOMEM;
        memcpy(copy, P2V(pa), PAGE_SIZE);
        *pte = V2P(copy) | ((PTE_FLAGS(*pte) | PTE_W) & ~PTE_COW);
        page_put(pa);
    }
    flush(pgdir, va);
    return 0;
}

/* The lazy page at *pte gets its zeroed frame (reserved when it was mapped). */
static void lazy_fill(pte_t *pte)
{
    void *page = page_alloc_reserved(LAZY_SLOT(*pte));

    *pte = V2P(page) | (PTE_FLAGS(*pte) & ~PTE_LAZY) | PTE_P;
}

/* A user page fault the process is not to blame for: the first touch of
 * a lazy page, or a write to a copy-on-write one. 0 if it is mended. */
int vm_fault(pde_t *pgdir, uint32_t va, int write)
{
    pte_t *pte = vm_walk(pgdir, va, 0);

    if (pte && (*pte & PTE_LAZY)) {
        lazy_fill(pte);
        return 0;
    }
    return write ? vm_resolve_cow(pgdir, va) : -EFAULT;
}

/* The page of user address va as the kernel may use it on the process's
 * behalf (its kernel-virtual address in *k): a lazy page is filled and,
 * for a write, a copy-on-write page copied, as the process's own touch
 * would. 0; -EFAULT if there is no user page there (or, for a write, it
 * is read-only); -ENOMEM if the copy found no free page: the address is
 * good, memory is short (a system call says so, doc/decisions.md). */
int vm_user_access(pde_t *pgdir, uint32_t va, int write, void **k)
{
    pte_t *pte;
    int err;

    if (va >= USER_TOP || !pgdir)
        return -EFAULT;
    pte = vm_walk(pgdir, va, 0);
    if (pte && (*pte & PTE_LAZY))
        lazy_fill(pte);
    if (!pte || (*pte & (PTE_P | PTE_U)) != (PTE_P | PTE_U))
        return -EFAULT;
    if (write && !(*pte & PTE_W) && (err = vm_resolve_cow(pgdir, va)) < 0)
        return err;
    *k = (char *)P2V(PTE_ADDR(*pte)) + (va & (PAGE_SIZE - 1));
    return 0;
}

void *vm_user_page(pde_t *pgdir, uint32_t va, int write)
{
    void *k;

    return vm_user_access(pgdir, va, write, &k) == 0 ? k : NULL;
}

/* Is every page of [start, end) usable by the user as vm_user_access
 * makes it (0)? If not, -EFAULT if any page is bad, else -ENOMEM: a bad
 * buffer is the caller's to hear about whatever memory there is. The
 * same answer as vm_user_access page by page, but a page table is found
 * once for its 1024 pages and a page already present with the access
 * asked for costs one test: read() and write() check their whole buffer
 * with it on every call (uaccess.c). */
int vm_user_range(pde_t *pgdir, uint32_t start, uint32_t end, int write)
{
    uint32_t need = PTE_P | PTE_U | (write ? PTE_W : 0), va = PGROUNDDOWN(start);
    pte_t *pt = NULL;
    void *k;
    int err, result = 0;

    if (end > USER_TOP || !pgdir)
        return -EFAULT;
    for (; va < end; va += PAGE_SIZE) {
        if (!pt || PTX(va) == 0)
            pt = (pgdir[PDX(va)] & PTE_P) ? (pte_t *)P2V(PTE_ADDR(pgdir[PDX(va)])) : NULL;
        if (pt && (pt[PTX(va)] & need) == need)
            continue;
        if ((err = vm_user_access(pgdir, va, write, &k)) == -EFAULT)
            return err;
        if (err < 0)
            result = err;               /* -ENOMEM: look on for a bad page */
    }
    return result;
}

/* Is anything mapped at va, a lazy page included? (Nothing is filled.) */
int vm_mapped(pde_t *pgdir, uint32_t va)
{
    pte_t *pte = vm_walk(pgdir, va, 0);

    return pte && (*pte & (PTE_P | PTE_LAZY));
}

unsigned vm_user_pages(pde_t *pgdir)
{
    unsigned i, j, n = 0;

    for (i = 0; i < KPDX; i++) {
        pte_t *pt;
        if (!(pgdir[i] & PTE_P))
            continue;
        pt = P2V(PTE_ADDR(pgdir[i]));
        for (j = 0; j < 1024; j++)
            n += (pt[j] & PTE_P) != 0;
    }
    return n;
}
