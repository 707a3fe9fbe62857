/* t_fuzzfound.c - regression tests for what the fuzzers found (make fuzz,
 * doc/fuzzing.md): each is named for the behaviour it pins down, and each
 * failed on the kernel before its fix. Leak checks count kernel heap
 * blocks (/proc/meminfo heap_blocks), which catches a leak of a few bytes
 * that free_pages would only show after thousands of repeats. */
#include <orthos.h>
#include "t.h"
#include "fuzz.h"
#include "uapi/syscall.h"

/* Run fn (which undoes what it does) once to warm up, then count the
 * kernel's heap blocks around a second run: 0 if none is left behind. */
static int heap_blocks_kept(void (*fn)(void))
{
    unsigned before;

    fn();
    before = meminfo("heap_blocks");
    fn();
    return (int)(meminfo("heap_blocks") - before);
}

static void fsopen_ramfs_and_devfs_from_a_source(void)
{
    int src = open("/tmp/ff_src", O_RDWR | O_CREAT, 0644), i;

    for (i = 0; i < 20; i++) {
        close(fsopen("ramfs", src, ""));
        close(fsopen("devfs", src, ""));
    }
    close(src);
    unlink("/tmp/ff_src");
}

/* fuzz_sys seed 1: ramfs_mount allocated its state before it refused a
 * source, and never freed it. */
static void fsopen_ramfs_with_a_source_fails_and_leaks_nothing(void)
{
    int src, kept;

    CHECK((src = open("/tmp/ff_src", O_RDWR | O_CREAT, 0644)) >= 0, "open");
    CHECK_ERR(fsopen("ramfs", src, ""), EINVAL);
    CHECK_ERR(fsopen("devfs", src, ""), EINVAL);
    close(src);
    unlink("/tmp/ff_src");
    kept = heap_blocks_kept(fsopen_ramfs_and_devfs_from_a_source);
    CHECK(kept == 0, "%d kernel heap blocks left behind by 40 refused fsopens", kept);
    PASS();
}

#define SC_IMAGE "/tmp/ff_syscall.img"
#define SC_MADE  "/tmp/ff_made"

extern int __sysenter_ok;               /* user/lib/crt0.asm: the kernel takes sysenter */

/* Machine code, a byte or a word at a time. */
struct code {
    unsigned char b[128];
    unsigned n;
};

static void op(struct code *c, const char *bytes, unsigned len)
{
    memcpy(c->b + c->n, bytes, len);
    c->n += len;
}

static void word(struct code *c, unsigned w)
{
    memcpy(c->b + c->n, &w, 4);
    c->n += 4;
}

/* A system call with the registers as they are: by sysenter as libc
 * makes it (the return address on the stack, %ebp pointing at it), or
 * by int $0x80. */
static void syscall_insn(struct code *c, int by_sysenter)
{
    if (!by_sysenter) {
        op(c, "\xCD\x80", 2);                   /* int $0x80 */
        return;
    }
    op(c, "\x68", 1);                           /* push $1f */
    word(c, FZ_ELF_CODE + c->n + 4 + 4);
    op(c, "\x89\xE5\x0F\x34", 4);               /* mov %esp, %ebp; sysenter; 1: */
}

/* A program that creates SC_MADE and exits 0, making both calls by
 * sysenter or by int $0x80; its image's length. */
static int creating_image(char *out, int by_sysenter)
{
    struct code c = { .n = 0 };
    unsigned name_at;

    op(&c, "\xB8", 1), word(&c, SYS_create);            /* mov $SYS_create, %eax */
    op(&c, "\xBB", 1), word(&c, (unsigned)AT_CWD);      /* mov $AT_CWD, %ebx */
    op(&c, "\xB9", 1), name_at = c.n, word(&c, 0);      /* mov $name, %ecx (below) */
    op(&c, "\xBA", 1), word(&c, S_IFREG);               /* mov $S_IFREG, %edx */
    op(&c, "\xBE", 1), word(&c, 0644);                  /* mov $0644, %esi */
    op(&c, "\x31\xFF", 2);                              /* xor %edi, %edi */
    syscall_insn(&c, by_sysenter);
    op(&c, "\xB8", 1), word(&c, SYS_exit);              /* mov $SYS_exit, %eax */
    op(&c, "\x31\xDB", 2);                              /* xor %ebx, %ebx */
    syscall_insn(&c, by_sysenter);
    op(&c, "\x0F\x0B", 2);                              /* ud2 */
    memcpy(c.b + name_at, &(unsigned){ FZ_ELF_CODE + c.n }, 4);
    op(&c, SC_MADE, sizeof(SC_MADE));                   /* name: */
    return fz_elf_image(out, c.b, c.n);
}

/* Write img, exec it in a child: its wait status (or 100 + errno if exec
 * failed), and whether SC_MADE was there afterwards (it is removed). */
static int run_image(const char *img, int n, int *made)
{
    int fd = open(SC_IMAGE, O_WRONLY | O_CREAT | O_TRUNC, 0755), pid, status = -1;
    char *argv[] = { "ff", NULL };

    if (fd < 0 || write(fd, img, n) != n)
        return -1;
    close(fd);
    fflush(stdout);
    if ((pid = fork()) == 0) {
        exec(walk(AT_CWD, SC_IMAGE, 0), argv, NULL);
        _exit(100 + errno);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        status = -1;
    unlink(SC_IMAGE);
    *made = (fd = walk(AT_CWD, SC_MADE, 0)) >= 0;
    close(fd);
    unlink(SC_MADE);
    return status;
}

/* fuzz_elf seed 100660299, exec 5270: a mutated /bin/wc ran its libc's
 * sysenter (fz_defuse changed only int $0x80 then), created /arg, and the
 * leak check counted the file's page and two heap blocks as a leak. An
 * image that makes a system call either way must make none once defused:
 * it is killed at the int3, and the file it would create is not there. As
 * written (not defused) it does create the file and exit 0: the program
 * really makes the call. */
static void fuzz_elf_defused_image_makes_no_system_call(void)
{
    char img[256];
    int way, n, status, made;

    for (way = 0; way < 2; way++) {
        const char *how = way ? "sysenter" : "int $0x80";
        if (way && !__sysenter_ok)              /* the CPU has none */
            continue;
        n = creating_image(img, way);
        status = run_image(img, n, &made);
        CHECK(status == 0 && made, "by %s, not defused: status 0x%x, %s made", how, status,
              made ? SC_MADE : "nothing");
        fz_defuse((unsigned char *)img, n);
        status = run_image(img, n, &made);
        CHECK(status != -1 && WIFSIGNALED(status) && !made,
              "by %s, defused: status 0x%x (want a signal), %s made", how, status,
              made ? SC_MADE : "nothing");
    }
    PASS();
}

int main(void)
{
    fsopen_ramfs_with_a_source_fails_and_leaks_nothing();
    fuzz_elf_defused_image_makes_no_system_call();
    printf("t_fuzzfound: done\n");
    return t_failures != 0;
}
