/* t_dos.c - denial of service by an ordinary user. Each test attacks as
 * the student (uid 1000) in a child of the test (which runs as root),
 * then asks whether root can still work - grow its heap, fork, exec, run
 * a shell command, make a file - while the attack holds, and whether
 * every page comes back once the student's processes are gone.
 * doc/decisions.md, "Authority": memory a user cannot take from root. */
#include <fcntl.h>
#include <orthos.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "t.h"

#define STUDENT 1000
#define OTHER   1001                    /* a second user */
#define MB      (1 << 20)
#define PG      4096

/* The user's side of a test: a holder, the student, runs the attack, says
 * what it got (one int) and waits for root's word; then it kills and
 * reaps every process the attack made (kids), undoes the rest and exits. */
static int told[2], word[2];
static int kids[CHILD_MAX], nkids;

static int kid(int (*fn)(void))
{
    int pid;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        close(told[1]);                 /* the holder's end: root reads it to its end */
        _exit(fn());
    }
    if (pid > 0)
        kids[nkids++] = pid;
    return pid;
}

static int user_holds(int (*attack)(void), void (*undo)(void), int *said)
{
    int pid, i;
    char c;

    *said = -1;
    if (pipe(told) < 0 || pipe(word) < 0)
        return -1;
    fflush(stdout);
    if ((pid = fork()) == 0) {
        int r = 99;
        close(told[0]);
        close(word[1]);
        nkids = 0;
        if (setgid(STUDENT) == 0 && setuid(STUDENT) == 0)
            r = attack();
        write(told[1], &r, sizeof(r));
        read(word[0], &c, 1);           /* end of file: root is done */
        for (i = 0; i < nkids; i++)
            kill(kids[i], SIGKILL);
        for (i = 0; i < nkids; i++)
            waitpid(kids[i], NULL, 0);
        if (undo)
            undo();
        _exit(0);
    }
    close(told[1]);
    close(word[0]);
    if (pid > 0 && read_full(told[0], said, sizeof(*said)) != sizeof(*said))
        *said = -1;
    return pid;
}

/* Root lets the holder go: 0 if it ended well. */
static int user_lets_go(int pid)
{
    int st = -1;

    close(word[1]);
    close(told[0]);
    return pid > 0 && wait_child_ms(pid, 20000, &st) && st == 0 ? 0 : -1;
}

/* The steps root and any user must still be able to take: a megabyte of
 * heap, touched (*m), then a fork, an exec and a wait. 0, or the step
 * that failed (1, 2). */
static int heap_fork_exec(char **m)
{
    int i, pid, st = -1;

    if ((*m = sbrk(MB)) == (void *)-1)
        return 1;
    for (i = 0; i < MB; i += PG)
        (*m)[i] = 1;
    fflush(stdout);
    if ((pid = fork()) == 0) {
        execv("/bin/true", (char *[]){ "true", NULL });
        _exit(9);
    }
    return pid < 0 || waitpid(pid, &st, 0) != pid || st != 0 ? 2 : 0;
}

/* A file of 64 KiB (from m) made, written and removed: 0, or 1 if it
 * could not be made, 2 if not written. */
static int file_of_64k(const char *name, const char *m)
{
    int fd, n;

    if ((fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0)
        return 1;
    n = write(fd, m, 64 << 10);
    close(fd);
    unlink(name);
    return n == 64 << 10 ? 0 : 2;
}

/* What root must still do: a megabyte of heap, a fork and an exec, a
 * shell command, a file of 64 KiB in /tmp. 0, or the step that failed. */
static int root_works(void)
{
    char *m;
    int r, pid, st = -1;

    if ((r = heap_fork_exec(&m)) != 0)
        return r;
    if ((pid = fork()) == 0) {
        execv("/bin/sh", (char *[]){ "sh", "-c", "echo root >/tmp/dos_sh", NULL });
        _exit(9);
    }
    if (pid < 0 || waitpid(pid, &st, 0) != pid || st != 0)
        return 3;
    if (unlink("/tmp/dos_sh") < 0)
        return 4;
    return (r = file_of_64k("/tmp/dos_root", m)) ? 4 + r : 0;
}

/* Every page back, once the last of the student's processes is reaped
 * (a process init reaps may take a moment; 5 s at most). */
static int pages_back(unsigned before)
{
    int t;

    for (t = 0; t < 500 && free_pages() != before; t++)
        sleep_ms(10);
    return free_pages() == before;
}

/* A process of the attack's that holds what it has. */
static int sleep_for_ever(void)
{
    for (;;)
        sleep_ms(100000);
    return 0;
}

static int exit_now(void)
{
    return 0;
}

/* sbrk all it may (ever smaller pieces, up to max bytes): how much. */
static unsigned grab(unsigned max)
{
    unsigned got = 0, k;

    for (k = MB; k >= PG; k /= 2)
        while (got + k <= max && sbrk(k) != (void *)-1)
            got += k;
    return got;
}

/* ---- copy-on-write copies ------------------------------------------
 * The floor (pmm_may_store) held a user's heap, bss and files to an
 * eighth of memory free, but not the copies a fork's copy-on-write pages
 * take when they are written: a user with a heap up to the floor forked
 * and wrote it in the child, and took memory down to nothing. Then root
 * could not grow or fork. Now every page the kernel takes while a user's
 * process runs leaves a sixteenth free, root's reserve (pmm.c,
 * keep_free).
 *
 * A process whose heap reached the floor (or its user's share) cannot
 * fork at all: each of its lazy pages (the stack's) is promised again to
 * the child, and a promise is bulk (vm_fork). So an attack grows its heap
 * short of the floor, forks its writer, and only then fills the rest. */
static char *heap;
static unsigned heap_len;
static int small;                       /* t_dos small: at -m 16M */
static int report[2];

/* Write one byte of every page of the heap (copying each); then say so
 * (its pid, for the holder to kill) and sleep. */
static int cow_writer(void)
{
    unsigned i;
    int me = getpid();

    for (i = 0; i < heap_len; i += PG)
        heap[i] = 2;
    write(report[1], &me, sizeof(me));
    return sleep_for_ever();
}

/* The heap's owner: heap_len bytes, touched, or fewer if leave_free
 * pages would not stay free; then a writer child, and sleep. If the fork
 * fails it says so (pid -1). */
static unsigned leave_free;

static int heap_owner(void)
{
    unsigned i, f = free_pages();
    int none = -1;

    if (f < leave_free + heap_len / PG)
        heap_len = f > leave_free ? (f - leave_free) * PG : 0;
    heap = sbrk(0);
    heap_len = grab(heap_len);
    for (i = 0; i < heap_len; i += PG)
        heap[i] = 1;
    if (kid(cow_writer) < 0) {
        write(report[1], &none, sizeof(none));
        return 1;
    }
    close(report[1]);
    return sleep_for_ever();
}

/* The attack, from the holder (which stays small): 1 once the writer is
 * done, 0 if it died first (killed for memory: the owner or the writer
 * may be chosen, proc_out_of_memory), -3 if the owner could not fork. */
static int cow_attack(void)
{
    int pid;

    if (pipe(report) < 0 || kid(heap_owner) < 0)
        return -2;
    close(report[1]);
    if (read_full(report[0], &pid, sizeof(pid)) != sizeof(pid))
        return 0;
    if (pid < 0)
        return -3;
    kids[nkids++] = pid;                /* the owner's child: killed by its pid */
    close(report[0]);
    return 1;
}

static int gate[2];

static int big_root_process(void)
{
    char *m = sbrk(0), c;
    unsigned n = grab(heap_len), i;

    for (i = 0; i < n; i += PG)
        m[i] = 1;
    close(gate[1]);
    read(gate[0], &c, 1);
    return n == heap_len ? 0 : 1;
}

/* Start R with big pages of heap, touched, and wait until it holds them
 * (it holds them until gate[1] is closed): R's pid, or -1. */
static int start_big_root_process(unsigned big)
{
    unsigned before = free_pages();
    int r, t;

    if (pipe(gate) < 0)
        return -1;
    heap_len = big * PG;
    fflush(stdout);
    if ((r = fork()) == 0)
        _exit(big_root_process());
    close(gate[0]);
    for (t = 0; t < 1000 && free_pages() > before - big; t++)
        sleep_ms(10);
    return r;
}

/* And whom a fault short of memory kills: the process with the most
 * pages (proc_out_of_memory). A user whose copies took memory down to
 * nothing had root's biggest process killed, when root's was the
 * biggest. Now a user's fault runs short at root's reserve (or the
 * user's share), and the victim is one of that user's. Root's process R
 * holds more pages than either of the student's (36 % of free memory,
 * touched); the student's heap leaves 96 pages above what users may keep
 * in bulk, for the writer's fork, and the writer's copies run short. */
static void a_users_fault_short_of_memory_kills_none_of_roots(void)
{
    unsigned before = free_pages(), total = meminfo("total_pages"), big = before / 100 * 36;
    unsigned floor = meminfo("root_reserve") + total / 16, share = meminfo("user_share");
    int r, h, said, st = -1, alive;

    CHECK((r = start_big_root_process(big)) > 0, "root's process R: errno %d", errno);
    heap_len = share / 4 * 3 * PG;
    leave_free = floor + 96;
    h = user_holds(cow_attack, NULL, &said);
    leave_free = 0;
    alive = waitpid(r, &st, WNOHANG) == 0;
    CHECK(user_lets_go(h) == 0, "the student's holder failed");
    close(gate[1]);
    if (alive)
        waitpid(r, &st, 0);
    CHECK(alive && st == 0, "root's process of %u pages died (status %x) of the student's copies",
          big, st);
    CHECK(said >= 0, "the student's attack: %d (-3: the heap's owner could not fork)", said);
    CHECK(pages_back(before), "%u pages free before, %u after", before, free_pages());
    PASS();
}

/* ---- files in memory ----------------------------------------------
 * ramfs keeps an eighth of memory free (pmm_may_store), for root as for
 * a user: so when the student had filled /tmp, root could not make a
 * file there, not even a shell's redirection. Now root's files keep
 * only a thirty-second free, so they may grow into root's reserve. */
static const char *fill_name = "/tmp/dos_fill%d";

static unsigned fill_until;             /* pages fill_files leaves free (0: to ENOSPC) */

/* Files of chunk's bytes (a megabyte of them) in /tmp, named fill_name,
 * until ENOSPC: 0; 50 + errno if a file could not be made for another
 * reason, 2 if it never refused. With fill_until, one write a file (a
 * file's buffer doubles as it grows: one write of a power of two takes
 * just its pages), as big as leaves fill_until pages free, and 0 once
 * not even a page does. */
static int fill_files(const char *chunk)
{
    char name[64];
    int i, fd, n = MB, w = 0;

    for (i = 0; i < 100000; i++) {
        while (fill_until && n >= PG && free_pages() < fill_until + n / PG + 8)
            n /= 2;
        if (n < PG)
            return 0;
        snprintf(name, sizeof(name), fill_name, i);
        if ((fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0)
            return errno == ENOSPC ? 0 : 50 + errno;
        if (fill_until)
            w = write(fd, chunk, n) == n;
        else
            for (w = MB; w >= PG; w /= 2)
                while (write(fd, chunk, w) == w)
                    ;
        close(fd);
        if (fill_until && !w)
            return 0;                   /* refused: the share's end */
    }
    return 2;                           /* it never refused */
}

static int fill_tmp(void)
{
    char *chunk = sbrk(MB);             /* not bss: every fork would promise it */

    if (chunk == (void *)-1)
        return 3;
    memset(chunk, 'f', MB);
    return fill_files(chunk);
}

static void unfill_tmp(void)
{
    char name[64];
    int i;

    for (i = 0; snprintf(name, sizeof(name), fill_name, i), unlink(name) == 0; i++)
        ;
}

/* And since each user holds at most its share (below), another user
 * (OTHER) may still grow a heap, fork, exec and make a file. */
static int other_user_works(void);

static void a_user_filling_tmp_leaves_root_room_for_files(void)
{
    unsigned before = free_pages(), held;
    int h, said, ok, other;

    h = user_holds(fill_tmp, unfill_tmp, &said);
    held = free_pages();
    ok = in_child(root_works);
    other = in_child(other_user_works);
    CHECK(user_lets_go(h) == 0, "the student's holder failed");
    CHECK(said == 0, "the student's fill ended with %d (50 + errno; ENOSPC wanted)", said);
    CHECK(ok == 0, "with /tmp filled by the student (%u pages free), root failed at step %d", held,
          ok);
    CHECK(other == 0,
          "with /tmp filled by the student (%u pages free), the other user failed at step %d", held,
          other);
    CHECK(pages_back(before), "%u pages free before, %u after", before, free_pages());
    PASS();
}

/* ---- one user against another ---------------------------------------
 * Root's reserve kept root working, but a page was charged to no user:
 * the student could take everything above root's reserve, and a second
 * user (OTHER) could then not fork, exec or grow a heap. Now each user
 * holds at most half of what is not root's (pmm.c, user_share), so the
 * student leaves another user as much as it took. Each attack holds
 * while the other user works. */
/* What another user must still do: a megabyte of heap, touched; a fork,
 * an exec and a wait; a file of 64 KiB in /tmp. 0, or the step that
 * failed. */
static int other_user_works(void)
{
    char *m;
    int r;

    if (setgid(OTHER) < 0 || setuid(OTHER) < 0)
        return 9;
    if ((r = heap_fork_exec(&m)) != 0)
        return r;
    return (r = file_of_64k("/tmp/dos_other", m)) ? 2 + r : 0;
}

/* The student's heap: all it may get, touched, held by a sleeper. */
static int heap_all(void)
{
    unsigned n = grab(~0u), i;
    char *m = (char *)sbrk(0) - n;

    for (i = 0; i < n; i += PG)
        m[i] = 1;
    write(report[1], &n, sizeof(n));
    return sleep_for_ever();
}

static int heap_attack(void)
{
    unsigned n = 0;

    if (pipe(report) < 0 || kid(heap_all) < 0)
        return -2;
    close(report[1]);
    read_full(report[0], &n, sizeof(n));
    close(report[0]);
    return (int)(n / PG);
}

static void a_users_heap_leaves_another_user_room(void)
{
    unsigned before = free_pages(), held;
    int h, said, ok;

    h = user_holds(heap_attack, NULL, &said);
    held = free_pages();
    ok = in_child(other_user_works);
    CHECK(user_lets_go(h) == 0, "the student's holder failed");
    CHECK(said > 0, "the student's heap: %d pages", said);
    CHECK(ok == 0,
          "with the student's heap of %d pages (%u free), the other user failed at step %d", said,
          held, ok);
    CHECK(pages_back(before), "%u pages free before, %u after", before, free_pages());
    PASS();
}

/* The share is exact: the student's heap stops where its pages (heap,
 * stack, page tables, kernel stack) reach user_share less the sixteenth
 * of it kept for the user's processes (their copy-on-write copies), as
 * /proc/meminfo's user_pages counts them for the reader's user; and the
 * process may still write its stack and data (a copy past the share
 * would kill it). */
static int heap_to_the_share(void)
{
    unsigned share = meminfo("user_share"), bulk = share - share / 16, held;
    static char data[16 * PG];

    grab(~0u);
    memset(data, 1, sizeof(data)); /* 16 pages copied */
    held = meminfo("user_pages");
    if (share == 0 || held > bulk + 16 + 1)
        return 2;
    return held + 64 >= bulk ? 0 : 3; /* a page of sbrk short, and 63 */
}

static int share_is_exact(void)
{
    int r;

    if (setgid(STUDENT) < 0 || setuid(STUDENT) < 0)
        return 9;
    if ((r = in_child(heap_to_the_share)) != 0)
        return r;
    return meminfo("user_pages") < 64 ? 0 : 4;  /* all back but this process's own */
}

static void a_user_holds_at_most_the_user_share(void)
{
    unsigned before = free_pages(), total = meminfo("total_pages"), share = meminfo("user_share");
    int ok = in_child(share_is_exact);

    CHECK(share > total / 5 && share < total / 2, "user_share %u of %u pages", share, total);
    CHECK(ok == 0, "the student's heap to the share: step %d", ok);
    CHECK(pages_back(before), "%u pages free before, %u after", before, free_pages());
    PASS();
}

/* ---- copies a system call makes -------------------------------------
 * A copy-on-write copy made by the CPU's write is a fault: short of
 * memory it kills the user's biggest process, which gives pages back, so
 * memory is at the limit only for a moment. A copy made by a system call
 * writing into the page (read) is refused with ENOMEM and kills nobody:
 * memory stays at the limit while root and other users are asked to
 * work. The student's holder grows a heap of route_pages, touched, and
 * forks the copier; with route_all it also takes everything users may
 * keep in bulk, by every route (below); then the copier copies the heap
 * page by page until the kernel says no. */
static unsigned route_pages;
static int route_all, zero_fd, go[2];
static char *stack_top;                 /* main's frame: above every holder's */

/* Copy now every page the holder writes once the copier has begun: the
 * stack from 8 KiB below this frame up to main's, and errno's. After a
 * fork each page is shared until written, and once the copies have
 * taken all the student may, the holder's next copy-on-write fault would
 * find no page and kill the student's biggest process: the holder. */
static void copy_own_pages(void)
{
    volatile char deep[2 * PG], *p;

    for (p = deep; p < (volatile char *)stack_top; p += PG)
        *p = *p;
    *(volatile char *)stack_top = *stack_top;
    errno = 0;
}

/* Copy every page of the heap (shared with the holder) by reading a byte
 * of /dev/zero into it, once the holder says go, until a read fails:
 * report how many and the errno, then sleep. */
static int copier(void)
{
    int said[2] = { 0, 0 };
    unsigned i;
    char c;

    errno = 0;                          /* its page copied now, not short of memory */
    if (read(go[0], &c, 1) != 1)
        return 1;
    for (i = 0; i < heap_len && read(zero_fd, heap + i, 1) == 1; i += PG)
        said[0]++;
    said[1] = i < heap_len ? errno : 0;
    write(report[1], said, sizeof(said));
    return sleep_for_ever();
}

/* Every route to what users may keep in bulk, each to its end: two
 * sleeping processes (their page tables, kernel stacks and promised stack
 * pages), four pipes (their rings), files in /tmp (from the heap) until
 * ENOSPC; then the heap and a pipe are refused (ENOMEM). 0, or -(step). */
static int bulk_routes(void)
{
    int i, p[2];

    for (i = 0; i < 2; i++)
        if (kid(sleep_for_ever) < 0) {
            return -4;
        }
    for (i = 0; i < 4; i++)
        if (pipe(p) < 0 || write(p[1], heap, PG) != PG)
            return -5;
    fill_name = "/tmp/dos_fill%d";
    if (fill_files(heap) != 0)
        return -6;
    if (grab(MB) >= MB || errno != ENOMEM)  /* a few pages the kernel's heap gave back */
        return -7;
    for (i = 0; i < 8 && pipe(p) == 0; i++)
        ;
    if (i == 8 || errno != ENOMEM)
        return -8;
    return 0;
}

/* The attack: how many copies the copier made before ENOMEM, or -(step
 * that failed). With route_all, the student's next fork must fail too. */
static int copy_routes(void)
{
    int said[2], r;

    heap = sbrk(0);
    heap_len = grab(route_pages * PG);
    if (heap_len != route_pages * PG)
        return -1;
    memset(heap, 1, heap_len);
    if (pipe(go) < 0 || pipe(report) < 0 || (zero_fd = open("/dev/zero", O_RDONLY)) < 0)
        return -2;
    if (kid(copier) < 0)
        return -3;
    if (route_all && (r = bulk_routes()) != 0)
        return r;
    copy_own_pages();
    if (write(go[1], "g", 1) != 1 || read_full(report[0], said, sizeof(said)) != sizeof(said))
        return -9;
    if (said[1] != ENOMEM)
        return -10;
    errno = 0;
    if (route_all && (kid(exit_now) >= 0 || (errno != ENOMEM && errno != EAGAIN)))
        return -11;
    return said[0];
}

/* The student's heap of half its share, and its copies up to the share:
 * the student holds its whole share, and another user still works. */
static void a_users_copy_on_write_copies_leave_another_user_room(void)
{
    unsigned before = free_pages(), share = meminfo("user_share"), held;
    int h, said, ok;

    route_pages = share / 2 + 64;
    route_all = 0;
    h = user_holds(copy_routes, NULL, &said);
    held = free_pages();
    ok = in_child(other_user_works);
    CHECK(user_lets_go(h) == 0, "the student's holder failed");
    CHECK(said > 0, "the student's copies: %d (< 0: the step that failed)", said);
    CHECK(before - held + 64 >= share,
          "the student's heap and %d copies took %u pages (its share: %u)", said, before - held,
          share);
    CHECK(ok == 0,
          "with the student's copies made (%u pages free), the other user failed at step %d", held,
          ok);
    CHECK(pages_back(before), "%u pages free before, %u after", before, free_pages());
    PASS();
}

/* Three users fill /tmp, each to its share or to what users may keep in
 * bulk (files outlive their makers: no process holds them): the last
 * stops a sixteenth of memory above root's reserve (pmm.c, bulk_floor),
 * and root still works, since root's files keep only a thirty-second. */
static int fill_as(int uid, const char *name)
{
    fill_name = name;
    if (setgid(uid) < 0 || setuid(uid) < 0)
        return 9;
    return fill_tmp();
}

static int fill_as_student(void)
{
    return fill_as(STUDENT, "/tmp/dos_fill%d");
}

static int fill_as_other(void)
{
    return fill_as(OTHER, "/tmp/dos_other%d");
}

static int fill_as_third(void)
{
    return fill_as(OTHER + 1, "/tmp/dos_third%d");
}

static void three_users_filling_tmp_leave_root_room_for_files(void)
{
    static const char *names[] = { "/tmp/dos_fill%d", "/tmp/dos_other%d", "/tmp/dos_third%d" };
    unsigned before = free_pages(), total = meminfo("total_pages"), held, floor;
    int a, b, c, ok, i;

    floor = meminfo("root_reserve") + total / 16;
    a = in_child(fill_as_student);
    b = in_child(fill_as_other);
    c = in_child(fill_as_third);
    held = free_pages();
    ok = in_child(root_works);
    for (i = 0; i < 3; i++) {
        fill_name = names[i];
        unfill_tmp();
    }
    fill_name = names[0];
    CHECK(a == 0 && b == 0 && c == 0,
          "the users' fills ended with %d, %d and %d (50 + errno; ENOSPC wanted)", a, b, c);
    CHECK(held + 16 >= floor && held <= floor + 512,
          "three users' files left %u pages free (a sixteenth above root's reserve: %u)", held,
          floor);
    CHECK(ok == 0, "with /tmp filled by three users (%u pages free), root failed at step %d", held,
          ok);
    CHECK(pages_back(before), "%u pages free before, %u after", before, free_pages());
    PASS();
}

/* Users take all that users may, by every route, and root still has its
 * reserve: OTHER fills /tmp to its share; a third user fills it to just
 * short of what the student needs; the student's holder grows a heap
 * (an eighth of memory, or 5/16 of its share at 16 MiB: room for its
 * copies within the share), forks its copier, then takes the rest of
 * users' bulk by every route (processes, pipes, files; bulk_routes), and
 * the copier's copies take memory from there down to root's reserve,
 * where the kernel refuses the next copy (ENOMEM) and the next fork.
 * Memory stays there while root grows a heap of a megabyte, forks,
 * execs a shell and makes a file (root_works). Without the reserve
 * against users' pages (pmm.c, keep_free) the copies took memory below
 * it (at 128 MiB to nothing); with a reserve of only a sixteenth
 * (ROOT_MIN_PAGES), at 16 MiB root's steps failed in what was left. */
static void users_taking_every_route_leave_root_its_reserve(void)
{
    static const char *names[] = { "/tmp/dos_other%d", "/tmp/dos_third%d" };
    unsigned before = free_pages(), total = meminfo("total_pages"), share = meminfo("user_share");
    unsigned reserve = meminfo("root_reserve"), floor = reserve + total / 16, held;
    int a, b = 0, h, said, ok, let, i;

    route_pages = total / 8 < share / 16 * 5 ? total / 8 : share / 16 * 5;
    route_all = 1;
    a = in_child(fill_as_other);
    /* what the third leaves: the student's heap and 352 pages (its own
     * 40, its processes' 180, its pipes' 68, files), less the third's
     * megabyte of heap, given back when it exits */
    fill_until = floor + route_pages + 352 - MB / PG;
    b = in_child(fill_as_third);
    fill_until = 0;
    h = user_holds(copy_routes, unfill_tmp, &said);
    held = free_pages();
    ok = in_child(root_works);
    let = user_lets_go(h);
    for (i = 0; i < 2; i++) {
        fill_name = names[i];
        unfill_tmp();
    }
    fill_name = "/tmp/dos_fill%d";
    CHECK(a == 0 && b == 0, "the other users' fills ended with %d and %d (50 + errno)", a, b);
    CHECK(held + 8 >= reserve, "users left %u pages free, root's reserve is %u (the student: %d)",
          held, reserve, said);
    CHECK(ok == 0, "with users at root's reserve (%u pages free), root failed at step %d", held,
          ok);
    CHECK(said + 64 >= (int)(total / 16) && held <= reserve + 64,
          "the student's copies: %d, a sixteenth of memory wanted (< 0: the step that failed); "
          "%u pages free, root's reserve %u",
          said, held, reserve);
    CHECK(let == 0, "the student's holder failed");
    CHECK(pages_back(before), "%u pages free before, %u after", before, free_pages());
    PASS();
}

/* ---- inodes on a shared disk ---------------------------------------
 * ext2 keeps its last r_blocks_count blocks for root (t_attack), but
 * every inode was anyone's: a user who made empty files until none was
 * left kept root from making any file on the disk at all. Root makes an
 * instance of a copy of /etc/sample.ext2 (64 inodes, 51 free) with a
 * directory everyone may write; the student fills it with empty files. */
#define INO_IMG "/tmp/dos_ino.ext2"
static int ino_fs = -1;

static int fill_inodes(void)
{
    char name[32];
    int i, fd;

    for (i = 0; i < 1000; i++) {
        snprintf(name, sizeof(name), "pub/%d", i);
        if ((fd = openat(ino_fs, name, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0)
            return errno == ENOSPC && i > 40 ? 0 : 50 + errno;
        close(fd);
    }
    return 2;
}

static void a_user_taking_every_inode_leaves_root_some(void)
{
    int img, h, said, d, fd, ef;

    img = open(INO_IMG, O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(img >= 0 && copyfile("/etc/sample.ext2", INO_IMG) == 0, "copy the image: errno %d",
          errno);
    CHECK((ino_fs = fsopen("ext2", img, "")) >= 0, "an instance of the image: errno %d", errno);
    close(img);
    d = create(ino_fs, "pub", S_IFDIR, 01777, 0);
    CHECK(d >= 0 && fchmod(d, 01777) == 0, "pub: errno %d", errno);
    close(d);
    h = user_holds(fill_inodes, NULL, &said);
    errno = 0;
    fd = openat(ino_fs, "roots_file", O_WRONLY | O_CREAT | O_EXCL, 0600);
    ef = errno;
    d = create(ino_fs, "roots_dir", S_IFDIR, 0700, 0);
    CHECK(user_lets_go(h) == 0, "the student's holder failed");
    close(fd);
    close(d);
    close(ino_fs);
    unlink(INO_IMG);
    CHECK(said == 0, "the student's creates ended with %d (50 + errno; ENOSPC wanted)", said);
    CHECK(fd >= 0, "root could not make a file: errno %d", ef);
    CHECK(d >= 0, "root could not make a directory");
    PASS();
}

/* ---- many processes, each holding what it may -----------------------
 * The student's CHILD_MAX - 1 processes: half run cat with an
 * environment of 30 KiB (copied to its stack), reading a pipe nobody
 * writes; a quarter hold a heap of all they may get (up to 2 MiB each);
 * the rest exit and are never waited for. Root still works, and every
 * page comes back. */
static int hog_pipe[2];

static int cat_with_big_env(void)
{
    char *envp[9], *env = sbrk(8 * 4000);
    int i;

    for (i = 0; i < 8 && env != (void *)-1; i++) {
        envp[i] = env + i * 4000;
        memset(envp[i], 'e', 3999);
        envp[i][0] = 'A' + i;
        envp[i][1] = '=';
        envp[i][3999] = '\0';
    }
    envp[8] = NULL;
    dup2(hog_pipe[0], 0);
    fcntl(0, F_SETFD, FD_KEEP);
    execve("/bin/cat", (char *[]){ "cat", NULL }, envp);
    return 9;
}

static int heap_hog(void)
{
    unsigned n = grab(2 * MB), i;
    char *m = (char *)sbrk(0) - n;

    for (i = 0; i < n; i += PG)
        m[i] = 1;
    return sleep_for_ever();
}

static int many_processes(void)
{
    int i, made = 0;

    if (pipe(hog_pipe) < 0)
        return -2;
    for (i = 0; i < CHILD_MAX - 1; i++)
        made += kid(i % 2 ? cat_with_big_env : i % 4 ? heap_hog : exit_now) > 0;
    errno = 0;
    if (fork() >= 0 || errno != EAGAIN)         /* the student's share is full */
        return -3;
    return made;
}

static void a_users_many_processes_and_zombies_leave_root_working(void)
{
    unsigned before = free_pages();
    int h, said, ok;

    h = user_holds(many_processes, NULL, &said);
    sleep_ms(100);                              /* the cats run (a test of nothing timed) */
    ok = in_child(root_works);
    CHECK(user_lets_go(h) == 0, "the student's holder failed");
    CHECK(said == CHILD_MAX - 1, "the student made %d processes", said);
    CHECK(ok == 0, "with the student's processes, root failed at step %d", ok);
    CHECK(pages_back(before), "%u pages free before, %u after", before, free_pages());
    PASS();
}

/* ---- the CPU -------------------------------------------------------
 * A user's fork bomb: every process forks until the student has
 * CHILD_MAX (EAGAIN); then half of them go on trying for ever, and half
 * spin without a system call. The slices are round-robin, and the timer
 * ends a spinner's slice, so root's processes still get their turns:
 * root runs a command, then kills the bomb's group. */
static int bomb_said[2];

static void bomb(void)
{
    char c = 'x';

    while (fork() >= 0)
        ;
    write(bomb_said[1], &c, 1);                 /* full: each tells root */
    if (getpid() % 2)
        for (;;)
            ;
    for (;;)
        fork();
}

static void a_users_fork_bomb_is_ended_by_root(void)
{
    unsigned before = free_pages();
    int pid, ok, st = -1, t;
    char c;

    CHECK(pipe(bomb_said) == 0, "pipe");
    fflush(stdout);
    if ((pid = fork()) == 0) {
        close(bomb_said[0]);
        setpgid(0, 0);
        if (setgid(STUDENT) == 0 && setuid(STUDENT) == 0)
            bomb();
        _exit(1);
    }
    close(bomb_said[1]);
    ok = read(bomb_said[0], &c, 1) == 1;        /* the bomb is full */
    ok = ok ? in_child(root_works) : -1;
    CHECK(kill(-pid, SIGKILL) == 0, "root's kill of the bomb's group: errno %d", errno);
    t = waitpid(pid, &st, 0);
    close(bomb_said[0]);
    CHECK(ok == 0, "while the student's fork bomb spun, root failed at step %d", ok);
    CHECK(t == pid && WIFSIGNALED(st), "the bomb: status %x", st);
    CHECK(pages_back(before), "%u pages free before, %u after", before, free_pages());
    PASS();
}

int main(int argc, char **argv)
{
    /* `t_dos small`: at -m 16M (tools/test.py), all but the one whose
     * numbers need more memory (the student's 29 processes) */
    stack_top = (char *)&argc;
    small = argc > 1 && strcmp(argv[1], "small") == 0;
    t_only = argc > 1 && !small ? argv[1] : NULL;
    T_RUN(a_users_fault_short_of_memory_kills_none_of_roots);
    T_RUN(a_user_filling_tmp_leaves_root_room_for_files);
    T_RUN(three_users_filling_tmp_leave_root_room_for_files);
    T_RUN(users_taking_every_route_leave_root_its_reserve);
    T_RUN(a_user_taking_every_inode_leaves_root_some);
    T_RUN(a_users_heap_leaves_another_user_room);
    T_RUN(a_user_holds_at_most_the_user_share);
    T_RUN(a_users_copy_on_write_copies_leave_another_user_room);
    if (!small)
        T_RUN(a_users_many_processes_and_zombies_leave_root_working);
    T_RUN(a_users_fork_bomb_is_ended_by_root);
    printf("t_dos: done\n");
    return t_failures != 0;
}
