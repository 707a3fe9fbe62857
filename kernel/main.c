/* main.c - kmain(): the order in which Orthos comes up. Each step needs
 * the ones before it: the console first (so everything can talk) and the
 * FPU's control bits as the kernel keeps them (fpu.c says why so early),
 * then segments and traps, physical memory, paging, the heap, devices and the
 * clock, the filesystems, and finally the first user process. */
#include "arch/x86/cpu.h"
#include "arch/x86/multiboot.h"
#include "arch/x86/x86.h"
#include "boot.h"
#include "dev/console.h"
#include "dev/dev.h"
#include "dev/rtc.h"
#include "dev/power.h"
#include "fs/vfs.h"
#include "lib/kprintf.h"
#include "lib/prof.h"
#include "lib/shake.h"
#include "lib/string.h"
#include "mm/kfence.h"
#include "mm/memlayout.h"
#include "mm/page.h"
#include "mm/vm.h"
#include "proc/exec.h"
#include "proc/proc.h"

extern char kernel_end[];

#define CMDLINE_MAX 1024                /* the part of the command line we keep */

/* Set once at boot, from the multiboot information, before anything runs. */
static char cmdline[CMDLINE_MAX];
const void *initrd_start;
size_t initrd_size;

const char *boot_arg(const char *key)
{
    size_t klen = strlen(key);
    const char *s = cmdline;

    while (*s) {
        while (*s == ' ')
            s++;
        if (strncmp(s, key, klen) == 0 && (s[klen] == '=' || s[klen] == ' ' || !s[klen]))
            return s[klen] == '=' ? s + klen + 1 : "";
        while (*s && *s != ' ')
            s++;
    }
    return NULL;
}

/* Copy "test=foo" out of "test=foo other" into buf. */
static const char *boot_arg_word(const char *key, char *buf, size_t size)
{
    const char *v = boot_arg(key);
    size_t n = 0;

    if (!v)
        return NULL;
    while (v[n] && v[n] != ' ' && n + 1 < size) {
        buf[n] = v[n];
        n++;
    }
    buf[n] = '\0';
    return buf;
}

/* "run=PROG ARG..." takes the rest of the command line: init runs PROG
 * with those arguments (the test runner and the grader use it). Splits
 * it in place into at most max-1 words; the array ends with NULL. */
static void boot_run_args(char *buf, size_t size, const char **argv, int max)
{
    const char *v = boot_arg("run");
    int n = 0;

    argv[0] = NULL;
    if (!v)
        return;
    strlcpy(buf, v, size);
    while (*buf && n < max - 1) {
        argv[n++] = buf;
        while (*buf && *buf != ' ')
            buf++;
        while (*buf == ' ')
            *buf++ = '\0';
    }
    argv[n] = NULL;
}

/* "login=USER" (and no run=): init logs USER in on the console instead of
 * root, told by the arguments `-u USER` (user/bin/init.c). */
static void boot_login_args(char *buf, size_t size, const char **argv)
{
    if (argv[0] || !boot_arg_word("login", buf, size) || !buf[0])
        return;
    argv[0] = "-u";
    argv[1] = buf;
    argv[2] = NULL;
}

/* Hand the usable RAM of the multiboot memory map to the page allocator,
 * minus what is already in use: low memory, the kernel, the boot module. */
static void mem_init(const struct multiboot_info *mbi)
{
    uint32_t maxpa = 0, meta_pa, mod_pa, off;
    size_t meta_size;

    if (!(mbi->flags & MBI_FLAG_MMAP))
        panic("boot loader gave no memory map");
    for (off = 0; off < mbi->mmap_length;) {
        const struct multiboot_mmap *m = P2V(mbi->mmap_addr + off);
        if (m->type == 1 && m->addr < PHYS_MAX) {
            uint64_t end = m->addr + m->len;
            if (end > PHYS_MAX)
                end = PHYS_MAX;
            if (end > maxpa)
                maxpa = (uint32_t)end;
        }
        off += m->size + 4;
    }

    /* The allocator's metadata goes right after the kernel, unless the boot
     * module sits there; it must lie inside the 16 MiB the boot tables map. */
    meta_size = pmm_meta_bytes(maxpa);
    meta_pa = PGROUNDUP(V2P(kernel_end));
    mod_pa = initrd_size ? V2P(initrd_start) : 0;
    if (initrd_size && mod_pa < meta_pa + meta_size && mod_pa + initrd_size > meta_pa)
        meta_pa = PGROUNDUP(mod_pa + initrd_size);
    if (meta_pa + meta_size > (16u << 20))
        panic("no room for the page allocator below 16 MiB");
    pmm_setup(maxpa, P2V(meta_pa));

    for (off = 0; off < mbi->mmap_length;) {
        const struct multiboot_mmap *m = P2V(mbi->mmap_addr + off);
        if (m->type == 1 && m->addr < maxpa) {
            uint64_t end = m->addr + m->len;
            pmm_add_range((uint32_t)m->addr, end > maxpa ? maxpa : (uint32_t)end);
        }
        off += m->size + 4;
    }
    pmm_reserve_range(0, V2P(kernel_end));          /* BIOS, VGA, the kernel */
    pmm_reserve_range(meta_pa, meta_pa + meta_size);
    if (initrd_size)
        pmm_reserve_range(mod_pa, mod_pa + initrd_size);
    vm_init(maxpa);
    kprintf("memory: %u MiB, %u pages free\n", maxpa >> 20, pmm_free_pages());
}

static void read_boot_info(const struct multiboot_info *mbi)
{
    if (mbi->flags & MBI_FLAG_CMDLINE)
        strlcpy(cmdline, P2V(mbi->cmdline), sizeof(cmdline));
    if ((mbi->flags & MBI_FLAG_MODS) && mbi->mods_count > 0) {
        const struct multiboot_mod *mod = P2V(mbi->mods_addr);
        initrd_start = P2V(mod->start);
        initrd_size = mod->end - mod->start;
    }
}

/* Pages kept only to be reused, given back when memory runs short and
 * before /proc/meminfo counts (pmm_set_reclaim): how many. */
static unsigned reclaim_caches(void)
{
    return exec_text_reclaim() + proc_kstack_trim();
}

void kmain(uint32_t magic, uint32_t mbi_pa)
{
    const struct multiboot_info *mbi = P2V(mbi_pa);
    char test[32], run[sizeof(cmdline)], user[32], pid[16];
    const char *run_argv[MAXARG];
    int sse;

    console_init();
    sse = fpu_init();                       /* CR0 as it stays: before any code that runs again */
    kprintf("Orthos %s\n", ORTHOS_VERSION);
    kprintf("fpu: x87%s, saved per process\n", sse ? " + SSE" : "");
    if (magic != MULTIBOOT_BOOTLOADER_MAGIC)
        panic("not booted by a multiboot loader (magic %x)", magic);
    read_boot_info(mbi);
    if (boot_arg("panic"))
        panic_exits = 1;
    gdt_init();
    idt_init();
    pic_init();
    mem_init(mbi);
    pmm_set_reclaim(reclaim_caches);        /* shared text, spare kernel stacks */
    shake_init();                           /* `shake=heapN,tickN`: lib/shake.c */
    kheap_init();
    rtc_init();
    prof_init();                            /* boot argument `prof`: lib/prof.c */
    pit_init(HZ * shake.tick_parts);        /* 1 part, or `shake=tickN`'s */
    console_enable_input();
    clock_init();
    dev_init();
    vfs_init();
    kfence_init();                          /* `heapcheck`: tables before any address space */

    if (boot_arg_word("test", test, sizeof(test)))
        ktest_run(test);
    boot_run_args(run, sizeof(run), run_argv, MAXARG);
    boot_login_args(user, sizeof(user), run_argv);
    proc_start_init("/bin/init", run_argv);
    if (boot_arg_word("pidmax", pid, sizeof(pid)))
        proc_set_pid_max(pid_parse(pid));    /* before nextpid=, which must be below it */
    if (boot_arg_word("nextpid", pid, sizeof(pid)))
        proc_set_next_pid(pid_parse(pid));   /* init is 1 still; see proc.h */
    kfence_start();                         /* what runs from now on: kfence.c */
    scheduler();
}
