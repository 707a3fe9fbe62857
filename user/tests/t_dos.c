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
    if ((pid = fork()) == 0)
        _exit(fn());
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
 * keep_free). */
static char *heap;
static unsigned heap_len, stop_at;
static int small;                       /* t_dos small: at -m 16M */
static int report[2];

/* Write one byte of every page of the heap (copying each), stopping
 * once free memory is down to stop_at pages; then say so (its pid, for
 * the holder to kill) and sleep. */
static int cow_writer(void)
{
    unsigned i;
    int me = getpid();

    unsigned f, n;

    for (i = 0; i < heap_len;) {
        f = stop_at ? free_pages() : ~0u;       /* each write below takes a page */
        if (f <= stop_at + 4)
            break;
        for (n = f - stop_at; n > 0 && i < heap_len; n--, i += PG)
            heap[i] = 2;
    }
    write(report[1], &me, sizeof(me));
    return sleep_for_ever();
}

/* The heap's owner: heap_len bytes, touched; then a writer child, and
 * sleep. The fork promises a page for each of the owner's lazy stack
 * pages, and a user's promises stop at the floor (pmm_may_store) that
 * may have stopped grab: at 16 MiB it does, and the fork failed (ENOMEM),
 * so no copy was ever written (make shake: at -m 16256K, or with the boot
 * archive 132 KiB bigger, the test saw it). So the owner gives back heap,
 * 16 pages at a time, until the writer's fork fits. */
static int heap_owner(void)
{
    unsigned i;

    heap = sbrk(0);
    heap_len = grab(heap_len);
    for (i = 0; i < heap_len; i += PG)
        heap[i] = 1;
    while (kid(cow_writer) < 0) {
        if (errno != ENOMEM || heap_len < 16 * PG)
            return 1;
        heap_len -= 16 * PG;
        sbrk(-16 * PG);
    }
    close(report[1]);
    return sleep_for_ever();
}

/* The attack, from the holder (which stays small): 1 once the writer is
 * done, 0 if it died first (killed for memory: the owner or the writer
 * may be chosen, proc_out_of_memory). */
static int cow_attack(void)
{
    int pid;

    if (pipe(report) < 0 || kid(heap_owner) < 0)
        return -2;
    close(report[1]);
    if (read_full(report[0], &pid, sizeof(pid)) != sizeof(pid))
        return 0;
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

/* One user may hold only half of what users may (user_share, below), so
 * root holds most of memory here (a process R), and the student's heap
 * (192 pages more than the sixteenth between what users keep in bulk and
 * root's reserve: room for the fork) and its copies take what is left
 * down to root's reserve, where the writer's fault kills the heap's
 * owner (which gives back the pages already copied). At 16 MiB (small)
 * the writer stops by itself just above the reserve, so that root has
 * only that: a sixteenth there (1 MiB), or 2 MiB, was too little for
 * root's steps (pmm.c, ROOT_MIN_PAGES: 3 MiB). */
static void a_users_copy_on_write_copies_leave_memory_for_root(void)
{
    unsigned before = free_pages(), total = meminfo("total_pages"), held;
    unsigned reserve = meminfo("root_reserve"), half = total / 16 + 192;
    unsigned big = before - reserve - 2 * half;
    int h, said, ok, r, st = -1;

    CHECK((r = start_big_root_process(big)) > 0, "root's process R: errno %d", errno);
    heap_len = half * PG;
    stop_at = small ? reserve + 8 : 16;
    h = user_holds(cow_attack, NULL, &said);
    held = free_pages();
    ok = in_child(root_works);
    CHECK(user_lets_go(h) == 0, "the student's holder failed");
    close(gate[1]);
    CHECK(waitpid(r, &st, 0) == r && st == 0, "root's process R: status %x", st);
    CHECK(ok == 0, "with the student's copies made (%u pages free of %u), root failed at step %d",
          held, total, ok);
    CHECK((small ? said == 1 : said >= 0) && held < before / 2,
          "the student's attack: %d, %u pages free of %u", said, held, before);
    CHECK(held + 32 >= reserve, "the student left %u pages free of %u", held, total);
    CHECK(pages_back(before), "%u pages free before, %u after", before, free_pages());
    PASS();
}

/* And whom a fault short of memory kills: the process with the most
 * pages (proc_out_of_memory). A user whose copies took memory down to
 * nothing had root's biggest process killed, when root's was the
 * biggest. Now a user's fault runs short at root's reserve, and the
 * victim is one of that user's. Root's process R holds more pages than
 * either of the student's (45 % of free memory, touched). */
static void a_users_fault_short_of_memory_kills_none_of_roots(void)
{
    unsigned before = free_pages(), total = meminfo("total_pages"), big = before / 100 * 45;
    int r, h, said, st = -1, alive;

    CHECK((r = start_big_root_process(big)) > 0, "root's process R: errno %d", errno);
    heap_len = (before - big - total / 8 - 512) * PG;
    stop_at = 0;                                /* write every page */
    h = user_holds(cow_attack, NULL, &said);
    alive = waitpid(r, &st, WNOHANG) == 0;
    CHECK(user_lets_go(h) == 0, "the student's holder failed");
    close(gate[1]);
    if (alive)
        waitpid(r, &st, 0);
    CHECK(alive && st == 0, "root's process of %u pages died (status %x) of the student's copies",
          big, st);
    CHECK(said >= 0, "the student's attack: %d", said);
    CHECK(pages_back(before), "%u pages free before, %u after", before, free_pages());
    PASS();
}

/* ---- files in memory ----------------------------------------------
 * ramfs keeps an eighth of memory free (pmm_may_store), for root as for
 * a user: so when the student had filled /tmp, root could not make a
 * file there, not even a shell's redirection. Now root's files keep
 * only a thirty-second free, so they may grow into root's reserve. */
static const char *fill_name = "/tmp/dos_fill%d";

static int fill_tmp(void)
{
    char name[64], *chunk = sbrk(MB);   /* not bss: every fork would promise it */
    int i, fd, n;

    if (chunk == (void *)-1)
        return 3;
    memset(chunk, 'f', MB);
    for (i = 0; i < 100000; i++) {
        snprintf(name, sizeof(name), fill_name, i);
        if ((fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0)
            return errno == ENOSPC ? 0 : 50 + errno;
        for (n = MB; n >= PG; n /= 2)
            while (write(fd, chunk, n) == n)
                ;
        close(fd);
    }
    return 2;                           /* it never refused */
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

static void a_users_copy_on_write_copies_leave_another_user_room(void)
{
    unsigned before = free_pages(), total = meminfo("total_pages"), held;
    int h, said, ok;

    heap_len = (before - total / 8 - 512) * PG;
    stop_at = total / 16 + 64;                  /* just above root's reserve */
    h = user_holds(cow_attack, NULL, &said);
    held = free_pages();
    ok = in_child(other_user_works);
    CHECK(user_lets_go(h) == 0, "the student's holder failed");
    CHECK(said >= 0, "the student's attack: %d", said);
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

static int exit_now(void)
{
    return 0;
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
    small = argc > 1 && strcmp(argv[1], "small") == 0;
    t_only = argc > 1 && !small ? argv[1] : NULL;
    T_RUN(a_users_copy_on_write_copies_leave_memory_for_root);
    T_RUN(a_users_fault_short_of_memory_kills_none_of_roots);
    T_RUN(a_user_filling_tmp_leaves_root_room_for_files);
    T_RUN(three_users_filling_tmp_leave_root_room_for_files);
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
