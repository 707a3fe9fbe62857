/* t_attack12.c - attacks of the session of 2026-12-06, twelfth (hunt):
 * kernel paths that `make coverage` found no test and no fuzzer reaching
 * (doc/decisions.md, "Attacks and coverage"), each driven on purpose and
 * its exact outcome asserted: the errno, nothing left behind (the kernel
 * heap's blocks, free pages, the namespace's attachments), the caller
 * and the kernel alive. */
#include <orthos.h>
#include <srv.h>
#include "proc/elf.h"
#define TURNS_WHO "t_attack12"
#include "t.h"
/* as_student; the turn counter is not used here */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "turns.h"

/* A directory (dirfd, name), its path fd closed: 0, or -1. */
static int mkdir_at(int dirfd, const char *name)
{
    int fd = create(dirfd, name, S_IFDIR, 0700, 0);

    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* ---- a bind whose copy of what is attached below runs out of room */

#define BELOW 20                        /* attachments below the one bound */
#define ROOM  (1 + BELOW / 2)           /* free slots when it is bound: the copy stops halfway */

static char ns_before[16384], ns_after[16384];

/* As the student, in its own namespace: an attachment with BELOW more
 * inside it, a table filled to ROOM free slots, then that attachment's
 * root bound elsewhere, plain and as a union: the bind takes one slot
 * and its copy of the BELOW inside (copy_below) runs out halfway. 0, or
 * the step that failed. */
static int bind_copy_runs_out(void)
{
    int r, q, m, fd, i, n;
    unsigned blocks;
    char name[48];

    if (mkdir_at(AT_CWD, "/tmp/a12c") < 0 || mkdir_at(AT_CWD, "/tmp/a12c/src") < 0 ||
        mkdir_at(AT_CWD, "/tmp/a12c/dst") < 0 || mkdir_at(AT_CWD, "/tmp/a12c/fill") < 0 ||
        put_file("/tmp/a12c/dst/mark", "plain") < 0)
        return 1;
    if ((r = fsopen("ramfs", -1, "")) < 0 || (q = fsopen("ramfs", -1, "")) < 0)
        return 2;
    for (i = 0; i < BELOW; i++) {
        snprintf(name, sizeof(name), "c%d", i);
        if (mkdir_at(r, name) < 0)
            return 3;
    }
    if (bind(r, AT_CWD, "/tmp/a12c/src", 0) < 0)
        return 4;
    for (i = 0; i < BELOW; i++) {
        snprintf(name, sizeof(name), "/tmp/a12c/src/c%d", i);
        if (bind(q, AT_CWD, name, 0) < 0)
            return 5;
    }
    for (n = 0; n < 300 && bind(q, AT_CWD, "/tmp/a12c/fill", 0) == 0; n++)
        ;                               /* the table full: 256 attachments */
    if (n == 300 || errno != ENOSPC)
        return 6;
    for (i = 0; i < ROOM; i++) {
        if ((fd = unbind(AT_CWD, "/tmp/a12c/fill")) < 0)
            return 7;
        close(fd);
    }
    if ((m = walk(AT_CWD, "/tmp/a12c/src", 0)) < 0)
        return 8;
    if (slurp("/proc/self/ns", ns_before, sizeof(ns_before)) <= 0)
        return 9;
    blocks = meminfo("heap_blocks");
    errno = 0;
    if (bind(m, AT_CWD, "/tmp/a12c/dst", 0) != -1 || errno != ENOSPC)
        return 10;
    errno = 0;
    if (bind(m, AT_CWD, "/tmp/a12c/dst", BIND_BEFORE) != -1 || errno != ENOSPC)
        return 11;
    if (slurp("/proc/self/ns", ns_after, sizeof(ns_after)) <= 0 || strcmp(ns_before, ns_after) != 0)
        return 12;
    if (meminfo("heap_blocks") != blocks)
        return 13;
    /* dst is the plain directory it was, and nothing of src's is there */
    if ((fd = walk(AT_CWD, "/tmp/a12c/dst/mark", 0)) < 0)
        return 14;
    close(fd);
    errno = 0;
    if (walk(AT_CWD, "/tmp/a12c/dst/c0", 0) != -1 || errno != ENOENT)
        return 15;
    /* the table has the ROOM slots it had: no copy was left on it */
    for (i = 0; i < ROOM; i++)
        if (bind(q, AT_CWD, "/tmp/a12c/fill", 0) < 0)
            return 16;
    errno = 0;
    if (bind(q, AT_CWD, "/tmp/a12c/fill", 0) != -1 || errno != ENOSPC)
        return 17;
    return 0;
}

/* Binding the root of an attachment brings along what is attached below
 * it (copy_below): one slot of the namespace's table (256) for the bind,
 * one for each copy. With room for the bind but not for every copy the
 * copy stops halfway, and ns_bind takes back the bind and the copies
 * made (and a union's base, for BIND_BEFORE on a plain directory): no
 * test and no fuzzer had reached that undo. ENOSPC each time, and the
 * namespace is as it was: the same /proc/self/ns text, the same heap
 * blocks, dst the plain directory, the same free slots. */
static void bind_whose_copy_runs_out_of_room_changes_nothing(void)
{
    int code = as_student(bind_copy_runs_out);

    CHECK(code != 12, "the namespace changed:\n--- before\n%.400s\n--- after\n%.400s", ns_before,
          ns_after);
    CHECK(code == 0, "the student's binds failed at step %d", code);
    PASS();
}

/* ---- more read-only pages than exec's text cache holds */

#define BIG_PAGES 200                   /* exec.c's TEXT_PAGES is 128 */
#define BIG_AT    0x00400000u           /* USER_BASE: the file maps from offset 0 here */
#define BIG_BYTE  2000                  /* each page's byte the program adds up */

static unsigned char page_buf[4096];

/* A program of BIG_PAGES read-only pages whose every page is filled with
 * one byte, (seed + 3 * page) (the first after the code): it adds up
 * each page's byte at BIG_BYTE and exits with the sum. 0, or -1. */
static int write_big(const char *path, int seed)
{
    /* clang-format off */
    static const unsigned char code[] = {
        0x31, 0xdb,                             /* xor %ebx,%ebx */
        0xbe, 0, 0, 0, 0,                       /* mov $first,%esi */
        0xb9, BIG_PAGES, 0, 0, 0,               /* mov $BIG_PAGES,%ecx */
        0x02, 0x1e,                             /* 1: add (%esi),%bl */
        0x81, 0xc6, 0x00, 0x10, 0x00, 0x00,     /* add $4096,%esi */
        0xe2, 0xf6,                             /* loop 1b */
        0xb8, 0x01, 0, 0, 0,                    /* mov $SYS_exit,%eax */
        0xcd, 0x80,                             /* int $0x80 */
    };
    /* clang-format on */
    struct elf_header h = { 0 };
    struct elf_phdr ph = { 0 };
    uint32_t first = BIG_AT + BIG_BYTE;
    int p, fd, i, ok = 1;

    h.magic = ELF_MAGIC;
    h.class = ELFCLASS32;
    h.data = ELFDATA2LSB;
    h.version = 1;
    h.type = ET_EXEC;
    h.machine = EM_386;
    h.version2 = 1;
    h.entry = BIG_AT + sizeof(h) + sizeof(ph);
    h.phoff = sizeof(h);
    h.ehsize = sizeof(h);
    h.phentsize = sizeof(ph);
    h.phnum = 1;
    ph.type = PT_LOAD;
    ph.offset = 0;
    ph.vaddr = ph.paddr = BIG_AT;
    ph.filesz = ph.memsz = BIG_PAGES * 4096;
    ph.flags = PF_R | PF_X;
    ph.align = 4096;
    if ((p = create(AT_CWD, path, S_IFREG, 0755, 0)) < 0 && errno == EEXIST)
        p = walk(AT_CWD, path, 0);
    if (p < 0 || (fd = ready(p, R_WRITE)) < 0)
        return -1;
    close(p);
    for (i = 0; i < BIG_PAGES && ok; i++) {
        memset(page_buf, (unsigned char)(seed + 3 * i), sizeof(page_buf));
        if (i == 0) {
            memcpy(page_buf, &h, sizeof(h));
            memcpy(page_buf + sizeof(h), &ph, sizeof(ph));
            memcpy(page_buf + sizeof(h) + sizeof(ph), code, sizeof(code));
            memcpy(page_buf + sizeof(h) + sizeof(ph) + 3, &first, 4);
        }
        ok = write(fd, page_buf, sizeof(page_buf)) == (int)sizeof(page_buf);
    }
    close(fd);
    return ok ? 0 : -1;
}

/* What the program written with seed exits with. */
static int big_sum(int seed)
{
    unsigned sum = 0;
    int i;

    for (i = 0; i < BIG_PAGES; i++)
        sum += (unsigned char)(seed + 3 * i);
    return (int)(sum & 0xff);
}

/* Run path in a child: its exit code, 100 + a signal, or -1. */
static int run_big(const char *path)
{
    char *argv[] = { (char *)path, NULL };
    int pid, status;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        execv(path, argv);
        _exit(99);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

/* exec keeps the pages of read-only segments for the next exec of the
 * same bytes (exec.c, TEXT_PAGES slots). A program of more pages than
 * that fills every slot with pages it maps itself, so the rest are
 * mapped uncached (text_add finds no slot); the next program's pages
 * replace the slots only the cache still holds. Neither had ever run:
 * every program the tests and fuzzers exec is smaller, and each read of
 * /proc/meminfo empties the cache. Each run must see its own bytes (the
 * sum of a byte from every page), a program rewritten in place too, and
 * every page must come back. */
static void exec_of_more_text_than_the_cache_holds(void)
{
    unsigned before, after;
    int got;

    CHECK(write_big("/tmp/a12big1", 1) == 0 && write_big("/tmp/a12big2", 2) == 0,
          "writing the programs");
    before = free_pages();
    CHECK((got = run_big("/tmp/a12big1")) == big_sum(1), "the first program gave %d, not %d", got,
          big_sum(1));
    CHECK((got = run_big("/tmp/a12big2")) == big_sum(2), "the second program gave %d, not %d", got,
          big_sum(2));
    CHECK((got = run_big("/tmp/a12big1")) == big_sum(1), "the first again gave %d, not %d", got,
          big_sum(1));
    CHECK(write_big("/tmp/a12big1", 5) == 0, "rewriting the first");
    CHECK((got = run_big("/tmp/a12big1")) == big_sum(5), "the rewritten one gave %d, not %d", got,
          big_sum(5));
    after = free_pages();
    CHECK(after == before, "%d pages did not come back", (int)(before - after));
    unlink("/tmp/a12big1");
    unlink("/tmp/a12big2");
    PASS();
}

/* ---- a group of another session */

/* setpgid may put a process only in a group of its own session: a group
 * is of one session, and a process of ours in another's group would let
 * the kill(-pgid) of that session's job control reach into ours. Root
 * may name any group (cred_may_name_group), so that check is the only
 * one left, and nothing had tried it. EPERM, and the caller stays in its
 * group (a kill of the other group does not reach it). */
static void setpgid_into_a_group_of_another_session_is_eperm(void)
{
    int gate[2], leader, joiner, status, code;
    char c;

    CHECK(pipe(gate) == 0, "pipe");
    fflush(stdout);
    if ((leader = fork()) == 0) {       /* a session and group of its own, waiting */
        close(gate[1]);
        if (setsid() < 0)
            _exit(1);
        read(gate[0], &c, 1);
        _exit(0);
    }
    CHECK(leader > 0, "fork");
    close(gate[0]);
    CHECK(wait_until_sleeping(leader, 5000), "the leader never waited");
    if ((joiner = fork()) == 0) {       /* not a session leader: that EPERM comes first */
        errno = 0;
        if (setpgid(0, leader) != -1 || errno != EPERM)
            _exit(1);
        errno = 0;
        if (setpgid(0, 0) != 0)         /* a group of its own: allowed */
            _exit(2);
        _exit(kill(-leader, SIGKILL) == 0 ? 0 : 3);
    }
    CHECK(joiner > 0 && waitpid(joiner, &status, 0) == joiner, "the joiner");
    code = WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
    close(gate[1]);
    waitpid(leader, &status, 0);
    CHECK(code != 1, "setpgid into another session's group was not EPERM");
    CHECK(code == 0, "the joiner failed at step %d", code);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the leader: status %x", status);
    PASS();
}

/* ---- a writer asleep on a full channel whose peer goes */

#define CHAN_BYTES 8192                 /* kernel/fs/chan.h's CHAN_SIZE */

static char chan_buf[CHAN_BYTES];

/* A write to a channel end waits while the peer's ring has no room for
 * it; the peer's last close wakes it (chan_inactive), and the write must
 * then fail with EPIPE, as a pipe's does, and not go on waiting: the
 * wait's own EPIPE (chan.c, queue) had never run - every test's peer was
 * gone before the write began. */
static void channel_writer_asleep_when_its_peer_goes_gets_epipe(void)
{
    int fds[2], pid, status;

    CHECK(chan(fds) == 0, "chan");
    CHECK(write(fds[0], chan_buf, sizeof(chan_buf)) == (int)sizeof(chan_buf), "filling the ring");
    fflush(stdout);
    if ((pid = fork()) == 0) {
        close(fds[1]);
        errno = 0;
        if (write(fds[0], "x", 1) != -1)
            _exit(1);
        _exit(errno == EPIPE ? 0 : 2);
    }
    CHECK(pid > 0, "fork");
    CHECK(wait_until_sleeping(pid, 5000), "the writer never waited");
    close(fds[1]);                      /* the peer's last reference */
    CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
    close(fds[0]);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the writer: status %x (1: it wrote, 2: another errno)", status);
    PASS();
}

/* ---- /proc of a zombie */

/* A zombie has let go of its fds and its namespace (proc.c), but keeps
 * its slot until it is reaped, and its /proc directory with it. Its ns
 * and fd files read as empty (procfs.c's ns_text for a process with no
 * namespace had never run) and its status as a zombie of no pages; once
 * reaped, the names are gone. */
static void proc_files_of_a_zombie_read_empty(void)
{
    char path[48], buf[256];
    int pid, status, n;

    fflush(stdout);
    if ((pid = fork()) == 0)
        _exit(0);
    CHECK(pid > 0, "fork");
    for (n = 0; n < 500 && strcmp(proc_state(pid, buf, sizeof(buf)), "zombie") != 0; n++)
        sleep_ms(10);
    CHECK(n < 500, "pid %d never became a zombie", pid);
    snprintf(path, sizeof(path), "/proc/%d/ns", pid);
    CHECK((n = slurp(path, buf, sizeof(buf))) == 0, "%s gave %d bytes: %.80s", path, n, buf);
    snprintf(path, sizeof(path), "/proc/%d/fd", pid);
    CHECK((n = slurp(path, buf, sizeof(buf))) == 0, "%s gave %d bytes: %.80s", path, n, buf);
    snprintf(path, sizeof(path), "/proc/%d/status", pid);
    CHECK(slurp(path, buf, sizeof(buf)) > 0 && strstr(buf, "state zombie\n") &&
              strstr(buf, "pages 0\n"),
          "%s: %.160s", path, buf);
    CHECK(waitpid(pid, &status, 0) == pid && status == 0, "waitpid");
    errno = 0;
    CHECK(walk(AT_CWD, path, 0) == -1 && errno == ENOENT, "%s after the reap", path);
    PASS();
}

/* ---- dup2 onto the slot a sleeping call was promised */

/* The caller of fsopen("srv") waits for the server's first reply with a
 * slot of its fd table promised (fd_room), so that it cannot fail for
 * want of one once the filesystem is made; a sharer of the table
 * (rfork) that fills every other slot finds the table full (dup:
 * EMFILE), and dup2 onto the one free slot must be EMFILE too: had it
 * taken it, the fsopen's fd_install would find no slot and panic
 * ("a promised slot is gone"). dup2's check had never run. Then the
 * server answers, and the fsopen's fd is that slot. */
static void dup2_takes_no_slot_a_sleeping_call_was_promised(void)
{
    static int dups[OPEN_MAX];
    char buf[SRV_MSIZE], *p;
    struct srv_msg m;
    struct srv_stat st = { S_IFDIR | 0755, 1, 0, 0 };
    int fds[2], pid, status, base, n = 0, free_slot = -1, fd, got, err;

    CHECK(chan(fds) == 0, "chan");
    CHECK((base = walk(AT_CWD, "/", 0)) >= 0, "walk /");
    fflush(stdout);
    if ((pid = rfork(RFORK_SHAREFDS)) == 0)
        _exit(fsopen("srv", fds[0], NULL) >= 0 ? 0 : 100 + errno);
    CHECK(pid > 0, "rfork");
    CHECK(wait_until_sleeping(pid, 5000), "the fsopen never waited for its server");
    while (n < OPEN_MAX && (fd = dup(base)) >= 0)
        dups[n++] = fd;
    err = errno;
    for (fd = 0; fd < OPEN_MAX; fd++)
        if (fcntl(fd, F_GETFD, 0) < 0 && free_slot < 0)
            free_slot = fd;
    errno = 0;
    got = free_slot >= 0 ? dup2(base, free_slot) : 0;
    CHECK(srv_recv(fds[1], buf, &m) == 1 && m.type == Tstat, "the server's first request");
    p = srv_putstat(buf, &st);
    CHECK(srv_send(fds[1], Tstat + 1, m.tag, buf, p - buf) == 0, "the reply");
    CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
    CHECK(free_slot >= 0 && got == -1 && errno == EMFILE,
          "dup2 onto fd %d, the last free slot, gave %d (errno %d), not EMFILE", free_slot, got,
          errno);
    CHECK(err == EMFILE, "dup stopped with errno %d after %d", err, n);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the fsopen: status %x", status);
    CHECK(fcntl(free_slot, F_GETFD, 0) >= 0, "the fsopen's fd is not fd %d", free_slot);
    close(free_slot);                   /* the last reference: the server reads the end */
    while (n > 0)
        close(dups[--n]);
    close(base);
    close(fds[0]);
    CHECK(srv_recv(fds[1], buf, &m) == 0, "the server was not let go");
    close(fds[1]);
    PASS();
}

/* ---- exec of a served program whose page cannot be read */

#define SERVED_SIZE 8192

/* The server's one file, "prog": a program whose header and program
 * header read fine, and whose every read of a whole page fails (EIO). */
static char prog_node, dir_node;
static unsigned char prog_head[sizeof(struct elf_header) + sizeof(struct elf_phdr)];

static int eio_stat(void *node, struct srv_stat *st)
{
    st->mode = node == &prog_node ? S_IFREG | 0755 : S_IFDIR | 0755;
    st->ino = node == &prog_node ? 2 : 1;
    st->size = node == &prog_node ? SERVED_SIZE : 0;
    st->mtime = 0;
    return 0;
}

static int eio_walk(void *dir, const char *name, void **child)
{
    (void)dir;
    if (strcmp(name, "prog") == 0)
        *child = &prog_node;
    else if (strcmp(name, "..") == 0)
        *child = &dir_node;
    else
        return -ENOENT;
    return 0;
}

static int eio_read(void *node, uint32_t off, char *buf, uint32_t n)
{
    if (node != &prog_node || n >= 4096)
        return -EIO;                    /* a page of the segment */
    if (off >= sizeof(prog_head))
        return 0;
    if (n > sizeof(prog_head) - off)
        n = sizeof(prog_head) - off;
    memcpy(buf, prog_head + off, n);
    return (int)n;
}

static const struct srv_ops eio_ops = { .stat = eio_stat, .walk = eio_walk, .read = eio_read };

static int served_prog;

/* Exec the served program: 0 if exec said EIO and left us running. */
static int exec_served(void)
{
    char *argv[] = { "prog", NULL }, *envp[] = { NULL };

    errno = 0;
    if (exec(served_prog, argv, envp) != -1)
        return 1;
    return errno == EIO ? 0 : 10 + errno;
}

/* exec maps a read-only segment's pages from its shared text (map_shared
 * in exec.c): a fresh page, filled from the file. A read that fails
 * there must give the page back, fail the exec with the read's error,
 * and leave the caller as it was - a served file is the one whose reads
 * fail at the server's will, and no test or fuzzer had exec'd one that
 * failed there. EIO, the caller alive, and no page lost. */
static void exec_of_a_served_program_whose_page_fails_loses_no_page(void)
{
    struct elf_header *h = (struct elf_header *)prog_head;
    struct elf_phdr *ph = (struct elf_phdr *)(prog_head + sizeof(*h));
    int fds[2], srv, root, lost, code;

    h->magic = ELF_MAGIC;
    h->class = ELFCLASS32;
    h->data = ELFDATA2LSB;
    h->version = 1;
    h->type = ET_EXEC;
    h->machine = EM_386;
    h->version2 = 1;
    h->entry = BIG_AT;
    h->phoff = sizeof(*h);
    h->ehsize = sizeof(*h);
    h->phentsize = sizeof(*ph);
    h->phnum = 1;
    ph->type = PT_LOAD;
    ph->vaddr = ph->paddr = BIG_AT;
    ph->filesz = ph->memsz = SERVED_SIZE;
    ph->flags = PF_R | PF_X;
    ph->align = 4096;
    CHECK(chan(fds) == 0, "chan");
    fflush(stdout);
    if ((srv = fork()) == 0) {
        close(fds[0]);
        _exit(srv_serve(fds[1], &eio_ops, &dir_node) < 0);
    }
    CHECK(srv > 0, "fork");
    close(fds[1]);
    CHECK((root = fsopen("srv", fds[0], NULL)) >= 0, "fsopen srv");
    close(fds[0]);
    CHECK((served_prog = walk(root, "prog", 0)) >= 0, "walk prog");
    lost = pages_lost_in_child(exec_served, &code);
    close(served_prog);
    close(root);
    waitpid(srv, NULL, 0);
    CHECK(code == 0, "exec of the served program: %d (1: it ran; 10 + errno)", code);
    CHECK(lost == 0, "%d pages lost to a failed exec", lost);
    PASS();
}

/* ---- link into a union */

/* In a child, root, in a namespace of its own: a union of a (before)
 * over b, without and then with BIND_CREATE. 0, or the step that failed. */
static int link_into_union(void)
{
    int f, a, b, fd;

    if (unshare() < 0)
        return 1;
    if (mkdir_at(AT_CWD, "/tmp/a12u") < 0 || mkdir_at(AT_CWD, "/tmp/a12u/a") < 0 ||
        mkdir_at(AT_CWD, "/tmp/a12u/b") < 0 || put_file("/tmp/a12u/b/old", "b's") < 0 ||
        put_file("/tmp/a12u/f", "linked") < 0)
        return 2;
    if ((f = walk(AT_CWD, "/tmp/a12u/f", 0)) < 0 || (a = walk(AT_CWD, "/tmp/a12u/a", 0)) < 0 ||
        (b = walk(AT_CWD, "/tmp/a12u/b", 0)) < 0)
        return 3;
    if (bind(a, AT_CWD, "/tmp/a12u/b", BIND_BEFORE) < 0)
        return 4;
    errno = 0;
    if (linkat(f, AT_CWD, "/tmp/a12u/b/new") != -1 || errno != EROFS)
        return 5;                       /* no member takes new names */
    errno = 0;
    if (linkat(f, AT_CWD, "/tmp/a12u/b/old") != -1 || errno != EEXIST)
        return 6;                       /* a member has the name */
    if ((fd = unbind(AT_CWD, "/tmp/a12u/b")) < 0)
        return 7;
    close(fd);
    if (bind(a, AT_CWD, "/tmp/a12u/b", BIND_BEFORE | BIND_CREATE) < 0)
        return 8;
    errno = 0;
    if (linkat(f, AT_CWD, "/tmp/a12u/b/old") != -1 || errno != EEXIST)
        return 9;                       /* exclusive: b's name counts */
    if (linkat(f, AT_CWD, "/tmp/a12u/b/new") != 0)
        return 10;
    if ((fd = walk(a, "new", 0)) < 0)   /* made in a, the create member */
        return 11;
    close(fd);
    errno = 0;
    if (walk(b, "new", 0) != -1 || errno != ENOENT)
        return 12;                      /* and not in b's own directory */
    if (slurp("/tmp/a12u/b/new", chan_buf, 32) != 6 || strcmp(chan_buf, "linked") != 0)
        return 13;
    unlinkat(a, "new", 0);
    return 0;
}

/* link() names a node in a directory, which in a union is the member
 * bound with BIND_CREATE (ns_union_dir, as create's): none is EROFS, a
 * name any member has is EEXIST. create, rename and unlink were tested
 * in unions (t_union); link's refusals were never reached. */
static void link_into_a_union_takes_the_create_member(void)
{
    int code = in_child(link_into_union);

    CHECK(code == 0, "failed at step %d", code);
    PASS();
}

int main(int argc, char **argv)
{
    t_only = argc > 1 ? argv[1] : NULL;
    T_RUN(bind_whose_copy_runs_out_of_room_changes_nothing);
    T_RUN(exec_of_more_text_than_the_cache_holds);
    T_RUN(setpgid_into_a_group_of_another_session_is_eperm);
    T_RUN(channel_writer_asleep_when_its_peer_goes_gets_epipe);
    T_RUN(proc_files_of_a_zombie_read_empty);
    T_RUN(link_into_a_union_takes_the_create_member);
    T_RUN(dup2_takes_no_slot_a_sleeping_call_was_promised);
    T_RUN(exec_of_a_served_program_whose_page_fails_loses_no_page);
    printf("t_attack12: done\n");
    return t_failures != 0;
}
