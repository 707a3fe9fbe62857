/* t_fuzzfound.c - regression tests for what the fuzzers found (make fuzz,
 * doc/fuzzing.md): each is named for the behaviour it pins down, and each
 * failed on the kernel before its fix. Leak checks count kernel heap
 * blocks (/proc/meminfo heap_blocks), which catches a leak of a few bytes
 * that free_pages would only show after thousands of repeats. */
#include <orthos.h>
#include "t.h"
#include "fuzz.h"
#include "arch/x86/mmu.h"
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

/* Write img, exec it in a child, as it is or the way fuzz_elf does
 * (jailed: fz_exec_jailed): its wait status (100 + errno if exec failed,
 * 99 if there was no jail), and whether SC_MADE was there afterwards (it
 * is removed). */
static int run_image_as(const char *img, int n, int jailed, int *made)
{
    int fd = open(SC_IMAGE, O_WRONLY | O_CREAT | O_TRUNC, 0755), pid, status = -1;
    char *argv[] = { "ff", NULL };

    if (fd < 0 || write(fd, img, n) != n)
        return -1;
    close(fd);
    fflush(stdout);
    if ((pid = fork()) == 0) {
        if (!jailed)
            exec(walk(AT_CWD, SC_IMAGE, 0), argv, NULL);
        else if (fz_exec_jailed(SC_IMAGE, argv, NULL) > 0)
            _exit(99);
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

static int run_image(const char *img, int n, int *made)
{
    return run_image_as(img, n, 0, made);
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

/* The 4 bytes of a system call routine, to be built at run time: `int
 * $0x80; ret`, or `mov %esp, %ebp; sysenter` (sysexit returns to the
 * address on top of the stack, popping it: a ret). */
#define STUB_INT80    0x90C380CDu
#define STUB_SYSENTER 0x340FE589u
#define STUB_MASK     0x55555555u     /* the image holds the stub xor this */

/* Put a system call routine on the stack, made at run time, and a pointer
 * to it above it: then `call *(%esp)` makes a call. */
static void stub_on_stack(struct code *c, int by_sysenter)
{
    op(c, "\xB8", 1), word(c, (by_sysenter ? STUB_SYSENTER : STUB_INT80) ^ STUB_MASK);
    op(c, "\x35", 1), word(c, STUB_MASK);              /* xor $STUB_MASK, %eax */
    op(c, "\x50\x54", 2);                              /* push %eax; push %esp */
}

/* A program that writes a system call routine on its stack at run time
 * and calls it there (no NX bit: the stack is executable), so the file
 * holds no `int $0x80` or `sysenter` for fz_defuse to find: it creates
 * SC_MADE, sends SIGKILL to `victim` and exits with what kill returned
 * (0, or -errno & 0xff). Its image's length. */
static int writing_image(char *out, int by_sysenter, int victim)
{
    struct code c = { .n = 0 };
    unsigned name_at;

    stub_on_stack(&c, by_sysenter);
    op(&c, "\xB8", 1), word(&c, SYS_create);            /* create(AT_CWD, name, ...) */
    op(&c, "\xBB", 1), word(&c, (unsigned)AT_CWD);
    op(&c, "\xB9", 1), name_at = c.n, word(&c, 0);
    op(&c, "\xBA", 1), word(&c, S_IFREG);
    op(&c, "\xBE", 1), word(&c, 0644);
    op(&c, "\x31\xFF", 2);                              /* xor %edi, %edi */
    op(&c, "\xFF\x14\x24", 3);                          /* call *(%esp): the stub */
    op(&c, "\xB8", 1), word(&c, SYS_kill);              /* kill(victim, SIGKILL) */
    op(&c, "\xBB", 1), word(&c, (unsigned)victim);
    op(&c, "\xB9", 1), word(&c, SIGKILL);
    op(&c, "\xFF\x14\x24", 3);
    op(&c, "\x89\xC3", 2);                              /* mov %eax, %ebx */
    op(&c, "\xB8", 1), word(&c, SYS_exit);              /* exit(what kill returned) */
    op(&c, "\xFF\x14\x24", 3);
    op(&c, "\x0F\x0B", 2);                              /* ud2 */
    memcpy(c.b + name_at, &(unsigned){ FZ_ELF_CODE + c.n }, 4);
    op(&c, SC_MADE, sizeof(SC_MADE));                   /* name: */
    return fz_elf_image(out, c.b, c.n);
}

/* A root process of the test's that only sleeps: a target for kill. */
static int start_victim(void)
{
    int pid = fork();

    if (pid == 0)
        for (;;)
            sleep_ms(1000);
    return pid;
}

/* Did the victim die (of SIGKILL)? It is given a second to, as a kill
 * lands when it next runs; one that is alive is killed now and reaped. */
static int victim_died(int pid)
{
    int status, i, r = 0;

    for (i = 0; i < 100 && (r = waitpid(pid, &status, WNOHANG)) == 0; i++)
        sleep_ms(10);
    if (r == pid)
        return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return 0;
}

/* fz_defuse cannot stop code a mutated program writes at run time, so
 * fuzz_elf runs every image jailed (fz_exec_jailed: user FZ_UID, a
 * sandbox of its own): such a program's calls must reach nothing of the
 * fuzzer's. An image that builds a system call on its stack, by each way
 * in, holds nothing to defuse; run as it is, it creates the file and
 * kills a root process of ours; run as fuzz_elf runs it, the file it
 * makes is in its own /tmp, not ours, and its kill is refused (EPERM). */
static void fuzz_elf_jail_keeps_run_time_system_calls_in(void)
{
    char img[256], copy[256];
    int way, n, status, made, victim, killed;

    for (way = 0; way < 2; way++) {
        const char *how = way ? "sysenter" : "int $0x80";
        if (way && !__sysenter_ok)              /* the CPU has none */
            continue;
        CHECK((victim = start_victim()) > 0, "fork");
        n = writing_image(img, way, victim);
        memcpy(copy, img, n);
        fz_defuse((unsigned char *)img, n);
        status = run_image(img, n, &made);
        killed = victim_died(victim);           /* (reaped either way) */
        CHECK(memcmp(copy, img, n) == 0, "by %s: the image holds a system call", how);
        CHECK(status == 0 && made && killed,
              "by %s, not jailed: status 0x%x, %s made, the victim %s", how, status,
              made ? SC_MADE : "nothing", killed ? "killed" : "alive");
        CHECK((victim = start_victim()) > 0, "fork");
        n = writing_image(img, way, victim);
        fz_defuse((unsigned char *)img, n);
        status = run_image_as(img, n, 1, &made);
        killed = victim_died(victim);
        CHECK(!killed && !made && status != -1 && WIFEXITED(status) &&
                  WEXITSTATUS(status) == (-EPERM & 0xff),
              "by %s, jailed: status 0x%x (want exit %d: kill refused), the victim %s, %s made "
              "in our /tmp",
              how, status, -EPERM & 0xff, killed ? "killed" : "alive", made ? SC_MADE : "nothing");
    }
    PASS();
}

/* A program that forks a child that leaves its group and sleeps for ever,
 * and exits 0: the child calls setpgid(0, 0) and so does the parent for
 * it (setpgid(pid, 0)) before it exits, as the shell does, so the child
 * is out of the group whichever runs first. Its calls are built on the
 * stack (int $0x80), so fz_defuse leaves it whole. Its image's length. */
static int escaping_image(char *out)
{
    struct code c = { .n = 0 };
    unsigned child_at;

    stub_on_stack(&c, 0);
    op(&c, "\xB8", 1), word(&c, SYS_fork);              /* fork() */
    op(&c, "\xFF\x14\x24", 3);
    op(&c, "\x85\xC0\x74", 3), child_at = c.n, op(&c, "\0", 1); /* test %eax; jz child */
    op(&c, "\x89\xC3", 2);                              /* setpgid(pid, 0) */
    op(&c, "\xB8", 1), word(&c, SYS_setpgid);
    op(&c, "\x31\xC9", 2);                              /* xor %ecx, %ecx */
    op(&c, "\xFF\x14\x24", 3);
    op(&c, "\xB8", 1), word(&c, SYS_exit);              /* exit(0) */
    op(&c, "\x31\xDB", 2);
    op(&c, "\xFF\x14\x24", 3);
    op(&c, "\x0F\x0B", 2);                              /* ud2 */
    c.b[child_at] = (unsigned char)(c.n - child_at - 1); /* child: */
    op(&c, "\xB8", 1), word(&c, SYS_setpgid);           /* setpgid(0, 0) */
    op(&c, "\x31\xDB\x31\xC9", 4);
    op(&c, "\xFF\x14\x24", 3);
    op(&c, "\xB8", 1), word(&c, SYS_sleep);             /* 1: sleep_ms(1000) */
    op(&c, "\xBB", 1), word(&c, 1000);
    op(&c, "\xFF\x14\x24", 3);
    op(&c, "\xEB\xF1", 2);                              /* jmp 1b */
    return fz_elf_image(out, c.b, c.n);
}

/* A process a jailed program forks may call setpgid(0, 0) and so escape
 * fz_reap's kill(-pid): it then outlived the round, and fuzz_elf's leak
 * check failed on "other processes left". Such an image, run as fuzz_elf
 * runs it (defused, fz_exec_jailed, fz_reap), leaves its child running as
 * FZ_UID (else this test proves nothing); after fuzz_elf's sweep
 * (fz_jailed_procs) no process of FZ_UID is left, and a root process of
 * ours lives on. */
static void fuzz_elf_sweep_kills_what_left_the_jails_group(void)
{
    struct fuzz f = { .name = "t_fuzzfound", .last_beat = uptime_ms() };
    char img[256], *argv[] = { "ff", NULL };
    int n, fd, pid, status, victim, left, i;

    n = escaping_image(img);
    fz_defuse((unsigned char *)img, n);
    CHECK((fd = open(SC_IMAGE, O_WRONLY | O_CREAT | O_TRUNC, 0755)) >= 0 && write(fd, img, n) == n,
          "write %s", SC_IMAGE);
    close(fd);
    fflush(stdout);
    if ((pid = fork()) == 0) {
        if (fz_exec_jailed(SC_IMAGE, argv, NULL) > 0)
            _exit(99);
        _exit(100 + errno);
    }
    CHECK(pid > 0, "fork");
    status = fz_reap(&f, pid, 2000);
    unlink(SC_IMAGE);
    left = fz_jailed_procs(NULL, 0);
    CHECK(status == 0 && left == 1,
          "after fz_reap: status 0x%x (want 0), %d processes of uid %d (want the child)", status,
          left, FZ_UID);
    CHECK((victim = start_victim()) > 0, "fork");
    fz_jailed_procs(NULL, 1);
    for (i = 0; i < 200 && (left = fz_jailed_procs(NULL, 0)) > 0; i++)
        sleep_ms(10);                           /* (a kill lands when it next runs) */
    CHECK(left == 0, "after the sweep: %d processes of uid %d left", left, FZ_UID);
    CHECK(!victim_died(victim), "the sweep killed a root process");
    PASS();
}

/* fuzz_race seed 1 (round 2): a listing of a ramfs directory that others
 * changed meanwhile missed an entry nobody touched (or showed one twice).
 * The cookie was the entry's number in the list, and a create (at the
 * head) or an unlink before it renumbered the rest. Here one entry per
 * getdents, with a create and an unlink between any two. */
static void a_ramfs_listing_shows_unchanged_entries_once_while_others_change(void)
{
    int root = fsopen("ramfs", -1, ""), fd, i, n, k, seen[10] = { 0 }, bad = -1;
    char name[16], buf[64];

    CHECK(root >= 0, "fsopen ramfs");
    for (i = 0; i < 10; i++) {
        snprintf(name, sizeof(name), "keep%d", i);
        close(create(root, name, S_IFREG, 0644, 0));
        snprintf(name, sizeof(name), "gone%d", i);
        close(create(root, name, S_IFREG, 0644, 0));
    }
    CHECK((fd = ready(root, R_READ)) >= 0, "ready the root");
    for (i = 0; i < 100 && (n = getdents(fd, buf, 24)) > 0; i++) {
        if ((k = atoi(((struct dirent *)buf)->d_name + 4)) >= 0 && k < 10 &&
            strncmp(((struct dirent *)buf)->d_name, "keep", 4) == 0)
            seen[k]++;
        snprintf(name, sizeof(name), "new%d", i);
        close(create(root, name, S_IFREG, 0644, 0));
        snprintf(name, sizeof(name), "gone%d", i % 10);
        unlinkat(root, name, 0);
    }
    for (k = 0; k < 10 && bad < 0; k++)
        if (seen[k] != 1)
            bad = k;
    close(fd);
    close(root);
    CHECK(n == 0, "getdents: %d after %d calls (22 entries)", n, i);
    CHECK(bad < 0, "keep%d listed %d times", bad, bad < 0 ? 1 : seen[bad]);
    PASS();
}

/* fuzz_perm seed 1 (round 2, op 130): fchown(fd, uid, -1) by the owner
 * of a file whose group is not the owner's own was EPERM: the kernel
 * filled in -1 with the file's gid and then asked that it be the
 * caller's. -1 leaves an id as it is (fchown(2)), and so does giving the
 * id the node already has: no change, so nothing to refuse. Giving the
 * file to another group is still refused. User 1 of group 1 owns a file
 * root put in group 2. */
static int owner_keeps_the_group(void)
{
    int fd = walk(AT_CWD, "/tmp/ff_chown", 0), r = 0;

    if (setgid(1) < 0 || setuid(1) < 0 || fd < 0)
        return 10;
    r |= fchown(fd, 1, -1) < 0 ? 1 : 0;        /* the uid it has, the group left */
    r |= fchown(fd, -1, -1) < 0 ? 2 : 0;
    r |= fchown(fd, 1, 2) < 0 ? 4 : 0;         /* the group it is in already */
    r |= fchown(fd, -1, 3) == 0 || errno != EPERM ? 8 : 0;  /* another group: no */
    return r;
}

static void an_owner_may_chown_a_file_in_another_group_leaving_the_group(void)
{
    struct stat st;
    int fd, r;

    CHECK((fd = create(AT_CWD, "/tmp/ff_chown", S_IFREG, 0644, 0)) >= 0, "create");
    CHECK(fchown(fd, 1, 2) == 0, "fchown as root");
    r = in_child(owner_keeps_the_group);
    fstat(fd, &st);
    close(fd);
    unlink("/tmp/ff_chown");
    CHECK(r == 0, "as the owner (uid 1, gid 1) of a file of group 2: %s%s%s%s%s",
          r & 1 ? "fchown(fd, 1, -1) refused; " : "", r & 2 ? "fchown(fd, -1, -1) refused; " : "",
          r & 4 ? "fchown(fd, 1, 2) refused; " : "", r & 8 ? "fchown(fd, -1, 3) allowed; " : "",
          r == 10 ? "setup failed" : "");
    CHECK(st.st_uid == 1 && st.st_gid == 2, "uid %u gid %u, want 1 2", st.st_uid, st.st_gid);
    PASS();
}

/* fuzz_perm, writing its oracle: unlink of a name that is not there, in
 * a directory the caller may search but not write, said EACCES (the
 * directory's permission was asked before the name was looked up) while
 * rename of the same name said ENOENT. The name is looked up first now,
 * in both (as on Linux and the BSDs); a name that is there is still
 * EACCES. User 1 in root's 0755 directory. */
static int unlink_as_user(void)
{
    if (setgid(1) < 0 || setuid(1) < 0)
        return 10;
    if (unlinkat(AT_CWD, "/tmp/ff_ro/missing", 0) == 0 || errno != ENOENT)
        return 1;
    if (unlinkat(AT_CWD, "/tmp/ff_ro/missing", UNLINK_DIR) == 0 || errno != ENOENT)
        return 2;
    if (renameat(AT_CWD, "/tmp/ff_ro/missing", AT_CWD, "/tmp/ff_ro/x", 0) == 0 || errno != ENOENT)
        return 3;
    if (unlinkat(AT_CWD, "/tmp/ff_ro/f", 0) == 0 || errno != EACCES)
        return 4;
    return 0;
}

static void unlink_of_a_missing_name_is_enoent_in_a_directory_one_may_not_write(void)
{
    int r;

    CHECK(mkdir("/tmp/ff_ro", 0755) == 0, "mkdir");
    close(create(AT_CWD, "/tmp/ff_ro/f", S_IFREG, 0644, 0));
    r = in_child(unlink_as_user);
    unlink("/tmp/ff_ro/f");
    rmdir("/tmp/ff_ro");
    CHECK(r == 0, "%s",
          r == 1   ? "unlink of a missing name: not ENOENT"
          : r == 2 ? "rmdir of a missing name: not ENOENT"
          : r == 3 ? "rename of a missing name: not ENOENT"
          : r == 4 ? "unlink of a name that is there: not EACCES"
                   : "setup failed");
    PASS();
}

/* ---- fuzz_oom (failnth(2) makes the kernel's Nth allocation fail): each
 * call runs with N = 1, 2, ... until it passes fewer than N points. */

static const char *oom_why;             /* what the last step found wrong */

/* fn(n) makes its call armed at n, checks what it left, and undoes it:
 * the points left (0: it fired), or -1 with oom_why set. The N that went
 * wrong, 0 if none did, or -1 if the call never got past its points. */
static int oom_sweep(int (*fn)(int n))
{
    int n, left;

    for (n = 1; n < 2000; n++)
        if ((left = fn(n)) != 0)
            return left < 0 ? n : 0;
    oom_why = "never got past its points";
    return -1;
}

static int walks(const char *path)
{
    int fd = walk(AT_CWD, path, 0);

    if (fd >= 0)
        close(fd);
    return fd >= 0;
}

/* create made the node, then could not get the memory for its open
 * file: ENFILE, and the name stayed (fd_room takes that memory now,
 * before anything is made). */
static int create_at(int n)
{
    int left, r = fz_armed(n, SYS_create, AT_CWD, (unsigned)"/tmp/ff_oom", S_IFREG, 0644, 0, &left);

    if (r >= 0)
        close(r);
    if (r < 0 && walks("/tmp/ff_oom"))
        oom_why = "a failed create left its name";
    else if (r < 0 && r != -ENOMEM && r != -ENFILE && r != -EMFILE && r != -ENOSPC)
        oom_why = "a failed create said another errno";
    else
        oom_why = NULL;
    unlink("/tmp/ff_oom");
    return oom_why ? -1 : left;
}

static void create_out_of_memory_leaves_no_name(void)
{
    unsigned before = meminfo("heap_blocks");
    int n = oom_sweep(create_at);

    CHECK(n == 0, "with fail-nth %d: %s", n, oom_why);
    CHECK(meminfo("heap_blocks") == before, "heap blocks %u, then %u", before,
          meminfo("heap_blocks"));
    PASS();
}

/* unbind detached, then could not get the memory for the fd on what was
 * there: ENFILE, with the attachment gone. */
static int unbind_at(int n)
{
    int left, r = fz_armed(n, SYS_unbind, AT_CWD, (unsigned)"/tmp/ff_mp", 0, 0, 0, &left);

    oom_why = NULL;
    if (r >= 0)
        close(r);
    if (r < 0 && walks("/tmp/ff_mp/m"))
        oom_why = "a failed unbind detached";
    if (r >= 0 && walks("/tmp/ff_mp/m") == 0)
        oom_why = "unbind said done, and it is still attached";
    if (r < 0)
        close(unbind(AT_CWD, "/tmp/ff_mp"));
    close(bind(fsopen("ramfs", -1, ""), AT_CWD, "/tmp/ff_mp", 0));
    return oom_why ? -1 : left;
}

static void unbind_out_of_memory_keeps_the_attachment(void)
{
    int n, fs;

    CHECK(mkdir("/tmp/ff_mp", 0755) == 0, "mkdir");
    close(create(AT_CWD, "/tmp/ff_mp/m", S_IFREG, 0644, 0));
    CHECK((fs = fsopen("ramfs", -1, "")) >= 0 && bind(fs, AT_CWD, "/tmp/ff_mp", 0) == 0, "bind");
    close(fs);
    n = oom_sweep(unbind_at);
    close(unbind(AT_CWD, "/tmp/ff_mp"));
    unlink("/tmp/ff_mp/m");
    rmdir("/tmp/ff_mp");
    CHECK(n == 0, "with fail-nth %d: %s", n, oom_why);
    PASS();
}

/* An ext2 instance on a copy of /etc/fuzz.ext2 (128 KiB, 1 KiB blocks),
 * at /tmp/ff_e2: 0, or -1. */
#define E2DIR "/tmp/ff_e2"
static int e2_attach(void)
{
    return ext2_copy_at("/etc/fuzz.ext2", "/tmp/ff_e2.img", E2DIR);
}

static void e2_detach(void)
{
    ext2_copy_drop("/tmp/ff_e2.img", E2DIR);
}

static int e2_put(const char *path, int len)
{
    static char buf[5000];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), r;

    memset(buf, 'x', sizeof(buf));
    r = fd >= 0 && writeall(fd, buf, len) == 0 ? 0 : -1;
    close(fd);
    return r;
}

/* ext2's rename added the new name, then ran out of memory taking the
 * old one away: ENOMEM, with both names on one link (damage, and e2fsck
 * saw it). Each rename now takes no memory after its first change. */
static int e2_rename_at(int n)
{
    int left, r;

    oom_why = NULL;
    if (e2_put(E2DIR "/oa", 100) < 0 || mkdir(E2DIR "/od", 0755) < 0) {
        oom_why = "setup";
        return -1;
    }
    r = fz_armed(n, SYS_rename, AT_CWD, (unsigned)E2DIR "/oa", AT_CWD, (unsigned)E2DIR "/od/c", 0,
                 &left);
    if (r < 0 && (!walks(E2DIR "/oa") || walks(E2DIR "/od/c")))
        oom_why = "a failed rename did not leave the names as they were";
    if (r >= 0 && (walks(E2DIR "/oa") || !walks(E2DIR "/od/c")))
        oom_why = "a rename said done and did not move the name";
    if ((unlink(E2DIR "/oa") < 0 && errno != ENOENT) ||
        (unlink(E2DIR "/od/c") < 0 && errno != ENOENT) || rmdir(E2DIR "/od") < 0)
        oom_why = oom_why ? oom_why : "undoing it failed (the instance is damaged?)";
    return oom_why ? -1 : left;
}

/* ext2's ftruncate freed the blocks past the end, then ran out of memory
 * zeroing the last block's tail: the blocks were free and still the
 * file's on the disk, and were freed twice later (EUCLEAN from then on). */
static int e2_truncate_at(int n)
{
    int left, r, fd;

    oom_why = NULL;
    if (e2_put(E2DIR "/ot", 5000) < 0 || (fd = open(E2DIR "/ot", O_RDWR)) < 0) {
        oom_why = "setup (the instance is damaged?)";
        return -1;
    }
    r = fz_armed(n, SYS_ftruncate, fd, 500, 0, 0, 0, &left);
    close(fd);
    if (r < 0 && r != -ENOMEM)
        oom_why = "a failed ftruncate said another errno";
    if (unlink(E2DIR "/ot") < 0)
        oom_why = oom_why ? oom_why : "unlink after it failed (the instance is damaged?)";
    return oom_why ? -1 : left;
}

static void ext2_rename_and_truncate_out_of_memory_leave_the_filesystem_sound(void)
{
    int n, m = -2;

    CHECK(e2_attach() == 0, "attaching a copy of /etc/fuzz.ext2");
    n = oom_sweep(e2_rename_at);
    if (n == 0)
        m = oom_sweep(e2_truncate_at);
    e2_detach();
    CHECK(n == 0, "rename with fail-nth %d: %s", n, oom_why);
    CHECK(m == 0, "ftruncate with fail-nth %d: %s", m, oom_why);
    PASS();
}

/* srvfs's create had the server make the name, then could not get the
 * memory for the new node: ENOMEM, with the name made on the server
 * (srv_create now takes that memory before it asks). */
#define SRVDIR "/tmp/ff_srv"
static int srv_create_at(int n)
{
    int left, r = fz_armed(n, SYS_create, AT_CWD, (unsigned)SRVDIR "/c", S_IFREG, 0644, 0, &left);

    if (r >= 0)
        close(r);
    if (r < 0 && walks(SRVDIR "/c"))
        oom_why = "a failed create left its name on the server";
    else if (r < 0 && r != -ENOMEM && r != -ENFILE && r != -EMFILE && r != -ENOSPC)
        oom_why = "a failed create said another errno";
    else
        oom_why = NULL;
    unlink(SRVDIR "/c");
    return oom_why ? -1 : left;
}

static void srv_create_out_of_memory_leaves_no_name(void)
{
    int pid, end = ramsrv_start(&pid), fs, n;

    CHECK(end >= 0 && (fs = fsopen("srv", end, "")) >= 0, "ramsrv");
    close(end);
    CHECK(mkdir(SRVDIR, 0755) == 0 && bind(fs, AT_CWD, SRVDIR, 0) == 0, "bind");
    close(fs);
    n = oom_sweep(srv_create_at);
    close(unbind(AT_CWD, SRVDIR));
    rmdir(SRVDIR);
    waitpid(pid, NULL, 0);
    CHECK(n == 0, "with fail-nth %d: %s", n, oom_why);
    PASS();
}

/* getcwd's climb looked each step's name up in its parent's entries and
 * took any failure there (ext2's readdir, procfs's lookup out of memory)
 * for "not there": ENOENT, as if the directory had been removed, instead
 * of ENOMEM. */
static char cwd_want[128];

static int getcwd_at(int n)
{
    static char buf[128];
    int left, r = fz_armed(n, SYS_getcwd, (unsigned)buf, sizeof(buf), 0, 0, 0, &left);

    oom_why = NULL;
    if (r < 0 && r != -ENOMEM)
        oom_why = r == -ENOENT ? "ENOENT out of memory" : "a failed getcwd said another errno";
    else if (r >= 0 && strcmp(buf, cwd_want) != 0)
        oom_why = "getcwd said another name";
    return oom_why ? -1 : left;
}

static void getcwd_out_of_memory_is_enomem(void)
{
    int n = -2, fd, pid, status = -1;

    CHECK(e2_attach() == 0, "attaching a copy of /etc/fuzz.ext2");
    if (mkdir(E2DIR "/g1", 0755) == 0 && mkdir(E2DIR "/g1/g2", 0755) == 0 &&
        (fd = walk(AT_CWD, E2DIR "/g1/g2", 0)) >= 0) {
        fflush(stdout);
        if ((pid = fork()) == 0) {      /* the cwd changes in a child */
            fchdir(fd);
            getcwd(cwd_want, sizeof(cwd_want));
            n = oom_sweep(getcwd_at);
            if (n != 0)
                printf("getcwd on ext2 with fail-nth %d: %s\n", n, oom_why);
            if (n == 0 && fchdir(walk(AT_CWD, "/proc/1", 0)) == 0 &&      /* procfs: a */
                getcwd(cwd_want, sizeof(cwd_want)) &&
                (n = oom_sweep(getcwd_at)) != 0) /* lookup allocates */
                printf("getcwd in /proc/1 with fail-nth %d: %s\n", n, oom_why);
            fflush(stdout);
            _exit(n != 0);
        }
        n = pid < 0 || waitpid(pid, &status, 0) != pid || status != 0;
        close(fd);
    }
    rmdir(E2DIR "/g1/g2");
    rmdir(E2DIR "/g1");
    e2_detach();
    CHECK(n == 0, "getcwd in %s/g1/g2 with its allocations failing (see above)", E2DIR);
    PASS();
}

/* fuzz_elf seed 20261206: a program's write to a kernel address (here
 * 0xC0402030) panicked the kernel. The write fault went to the
 * copy-on-write path, which walked the kernel half's page directory entry
 * - a 4 MiB page, not a page table - as if it were one: the first 4 KiB
 * of that 4 MiB of physical memory were read as PTEs, and kernel bytes
 * that looked present, user and copy-on-write named a frame to copy from
 * (or, with one reference, were made "writable": kernel data changed).
 * Here the bytes are ours: a heap of FAKE_PTEs, a frame past the end of
 * memory, spread over physical memory so that some of its pages sit at
 * the start of a 4 MiB; a child writes to each 4 MiB of the kernel half,
 * and each write must only kill it (SIGSEGV). */
#define FAKE_PTE  (0xFFFFF000u | PTE_COW | PTE_U | PTE_P)     /* a frame past the end */
#define FAKE_HEAP (16u << 20)

static void a_write_to_a_kernel_address_kills_and_walks_no_page_table(void)
{
    unsigned *heap = sbrk(FAKE_HEAP), i, mb4 = (meminfo("total_pages") + 1023) / 1024, bad = 0;
    int pid, status;

    CHECK(heap != (void *)-1, "sbrk(%u)", FAKE_HEAP);
    CHECK(mb4 > 0 && mb4 <= 256, "total_pages from /proc/meminfo: %u", meminfo("total_pages"));
    for (i = 0; i < FAKE_HEAP / sizeof(*heap); i++)
        heap[i] = FAKE_PTE;
    for (i = 0; i < mb4; i++) {
        fflush(stdout);
        if ((pid = fork()) == 0) {
            *(volatile unsigned *)(0xC0000000u + (i << 22) + 0x2030) = 1;
            _exit(0);                   /* the write went through: nothing kept it out */
        }
        CHECK(pid > 0, "fork");
        if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV)
            bad++;
    }
    sbrk(-(int)FAKE_HEAP);
    CHECK(bad == 0, "%u of %u writes to the kernel half did not end in SIGSEGV", bad, mb4);
    PASS();
}

int main(void)
{
    fsopen_ramfs_with_a_source_fails_and_leaks_nothing();
    fuzz_elf_defused_image_makes_no_system_call();
    fuzz_elf_jail_keeps_run_time_system_calls_in();
    fuzz_elf_sweep_kills_what_left_the_jails_group();
    a_ramfs_listing_shows_unchanged_entries_once_while_others_change();
    an_owner_may_chown_a_file_in_another_group_leaving_the_group();
    unlink_of_a_missing_name_is_enoent_in_a_directory_one_may_not_write();
    create_out_of_memory_leaves_no_name();
    unbind_out_of_memory_keeps_the_attachment();
    ext2_rename_and_truncate_out_of_memory_leave_the_filesystem_sound();
    srv_create_out_of_memory_leaves_no_name();
    getcwd_out_of_memory_is_enomem();
    a_write_to_a_kernel_address_kills_and_walks_no_page_table();
    printf("t_fuzzfound: done\n");
    return t_failures != 0;
}
