/* t_attack10.c - attacks of the session of 2026-12-05, tenth (attack): a
 * hostile user against the system calls. Each test that pins a fix failed
 * on the kernel before it (doc/decisions.md, "Attacks, tenth round
 * (session of 2026-12-05, tenth: attack)").
 *
 * Booted with pidmax=300 (tools/test.py): the pids wrap after 300, so a
 * test sees a pid come back after a few hundred forks, not 2^28. */
#include <orthos.h>
#include <srv.h>
#define TURNS_WHO "t_attack10"
#include "t.h"
#include "turns.h"

#define PIDMAX 300                     /* the boot's pidmax= (tools/test.py) */

/* ---- a space in a name shifts the fields of its ns line */

#define SPACED  "/tmp/a10 s\\040 x"     /* a space, a backslash, a space */
#define ESCAPED "/tmp/a10\\040s\\134040\\040x ramfs "

static char ns_text[16384];

/* The student binds a file at SPACED and reads its ns: 0 if the line is
 * there as ESCAPED, and no line starts with the name's second word. */
static int bind_a_spaced_name(void)
{
    int p, fd, n;

    if ((p = create(AT_CWD, SPACED, S_IFREG, 0600, 0)) < 0)
        return 1;
    if (bind(p, AT_CWD, SPACED, 0) < 0)
        return 2;
    if ((fd = open("/proc/self/ns", O_RDONLY)) < 0)
        return 3;
    n = read_full(fd, ns_text, sizeof(ns_text) - 1);
    close(fd);
    ns_text[n > 0 ? n : 0] = '\0';
    if (!strstr(ns_text, "\n" ESCAPED) || strstr(ns_text, "/tmp/a10 ")) {
        printf("t_attack10: the student's ns:\n%s", ns_text);
        return 4;
    }
    return 0;
}

/* /proc/<pid>/ns gives a line per attachment, its fields split at
 * spaces: "<where> <fstype> <source>[ flags]". A name is any bytes but
 * '/' and NUL, so a file bound at "a b" shifted every field of its line
 * ("a" its place, "b" its type, its type the source...): a reader could
 * not tell a file bound at "x ramfs none" from one bound at "x". Now a
 * space is "\040" and a backslash "\134", as in Linux's mountinfo. */
static void a_space_in_a_name_shifts_no_fields_of_its_ns(void)
{
    int code = as_student(bind_a_spaced_name);

    unlink(SPACED);
    CHECK(code == 0, "the student's bind failed at step %d (4: the line as it is)", code);
    PASS();
}

/* ---- a /proc file held across its pid's reuse */

static int to_student[2], to_root[2];

/* The student: a child A of its own, A's fd and status files opened and
 * its /proc directory walked while A lives; A exits and is reaped; its
 * pid to root, who forks until a process of its own has that pid; then
 * what the held files say. 0: ENOENT everywhere. */
static int hold_a_proc_file(void)
{
    static char buf[4096];
    int a, hold[2], fdf, stf, dir, n, m, k;
    char c;

    if (pipe(hold) < 0)
        return 1;
    if ((a = fork()) == 0) {
        close(hold[1]);
        read(hold[0], &c, 1);           /* until the student lets go */
        _exit(0);
    }
    close(hold[0]);
    snprintf(buf, sizeof(buf), "/proc/%d/fd", a);
    if ((fdf = open(buf, O_RDONLY)) < 0)        /* 0400: A is the student's */
        return 2;
    snprintf(buf, sizeof(buf), "/proc/%d/status", a);
    if ((stf = open(buf, O_RDONLY)) < 0)
        return 3;
    snprintf(buf, sizeof(buf), "/proc/%d", a);
    if ((dir = walk(AT_CWD, buf, 0)) < 0)
        return 4;
    close(hold[1]);
    if (waitpid(a, NULL, 0) != a)
        return 5;
    write(to_root[1], &a, sizeof(a));
    if (read(to_student[0], &c, 1) != 1)        /* root's process has pid a now */
        return 6;
    errno = 0;
    n = read(fdf, buf, sizeof(buf) - 1);
    if (n > 0)
        printf("t_attack10: the student read /proc/%d/fd of root's process:\n%.*s", a, n, buf);
    m = read(stf, buf, sizeof(buf) - 1);
    if (m > 0)
        printf("t_attack10: the student read /proc/%d/status:\n%.*s", a, m, buf);
    k = walk(dir, "fd", 0);
    printf("t_attack10: read fd %d, status %d, walk %d\n", n, m, k);
    return n == -1 && m == -1 && k == -1 && errno == ENOENT ? 0 : 7;
}

/* A /proc/<pid> node kept the pid it was looked up for and read
 * whatever process had that pid when read: a user held its own child's
 * /proc/<pid>/fd (0400, opened while the child was the user's) across
 * the child's exit and the pid's reuse, then read the fd table of root's
 * process of that pid. A node keeps its process's birth now: ENOENT
 * once that process is gone, whoever has its pid. */
static void a_held_proc_file_reads_no_later_process_of_its_pid(void)
{
    int s, target = 0, pid, holder = -1, i, status, code;
    int block[2];
    char c = 'x';

    CHECK(pipe(to_student) == 0 && pipe(to_root) == 0 && pipe(block) == 0, "pipes");
    fflush(stdout);
    if ((s = fork()) == 0) {
        if (setgid(STUDENT) < 0 || setuid(STUDENT) < 0)
            _exit(90);
        _exit(hold_a_proc_file());
    }
    CHECK(s > 0, "fork");
    if (read(to_root[0], &target, sizeof(target)) == sizeof(target)) {
        for (i = 0; i < 2 * PIDMAX && holder < 0; i++) {
            if ((pid = fork()) == 0) {
                close(block[1]);
                if (getpid() == target)
                    read(block[0], &c, 1);      /* root's process of that pid, alive */
                _exit(0);
            }
            if (pid == target)
                holder = pid;
            else if (pid > 0)
                waitpid(pid, NULL, 0);
        }
        write(to_student[1], &c, 1);
    }
    waitpid(s, &status, 0);
    close(block[1]);
    if (holder > 0)
        waitpid(holder, NULL, 0);
    close(block[0]), close(to_student[0]), close(to_student[1]);
    close(to_root[0]), close(to_root[1]);
    code = WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
    CHECK(target > 0 && holder == target, "root's forks never had pid %d again (pidmax=%d?)",
          target, PIDMAX);
    CHECK(code == 0, "the student's held files: step %d (7: they read root's process)", code);
    PASS();
}

/* ---- a failed create gives a live served node its would-be maker */

/* A server whose one node is its root, a directory anyone may write in,
 * and whose every create "makes" that root again (its inode number). */
static char the_root;

static int lie_stat(void *node, struct srv_stat *st)
{
    (void)node;
    st->mode = S_IFDIR | 0777;
    st->ino = 1;
    st->size = 0;
    st->mtime = 0;
    return 0;
}

static int lie_walk(void *dir, const char *name, void **child)
{
    (void)dir, (void)child;
    return strcmp(name, "..") == 0 ? (*child = &the_root, 0) : -ENOENT;
}

static int lie_create(void *dir, const char *name, uint32_t mode, void **child)
{
    (void)dir, (void)name, (void)mode;
    *child = &the_root;
    return 0;
}

static int lie_remove(void *dir, const char *name)
{
    (void)dir, (void)name;
    return 0;
}

static const struct srv_ops liar = {
    .stat = lie_stat, .walk = lie_walk, .create = lie_create, .remove = lie_remove
};

static int served_root;

/* The student makes a directory in root's served filesystem. */
static int create_in_the_served_root(void)
{
    errno = 0;
    if (create(served_root, "mine", S_IFDIR, 0755, 0) != -1 || errno != EPERM)
        return 1;                       /* only the fsopen caller makes served nodes */
    return 0;
}

/* A served node is the fsopen caller's, and srv has no setattr, so a
 * create by anyone else is refused: namei gave the new vnode its maker's
 * ids, failed to store them and removed the name. But it left the ids
 * on the vnode, and a server may answer Tcreate with a live node's inode
 * number (the kernel then hands back that node): the student's create
 * made root's served root the student's, in the kernel, until the vnode
 * went. Now the vnode gets its ids back when they cannot be stored. */
static void a_failed_create_leaves_a_served_nodes_owner(void)
{
    struct stat st;
    int fds[2], srv, code;

    CHECK(chan(fds) == 0, "chan");
    fflush(stdout);
    if ((srv = fork()) == 0) {
        close(fds[0]);
        _exit(srv_serve(fds[1], &liar, &the_root) < 0);
    }
    CHECK(srv > 0, "fork");
    close(fds[1]);
    CHECK((served_root = fsopen("srv", fds[0], NULL)) >= 0, "fsopen srv");
    close(fds[0]);
    CHECK(fstat(served_root, &st) == 0 && st.st_uid == 0, "the served root is root's: %d",
          (int)st.st_uid);
    code = as_student(create_in_the_served_root);
    CHECK(fstat(served_root, &st) == 0, "fstat");
    close(served_root);
    waitpid(srv, NULL, 0);
    CHECK(code == 0, "the student's create: step %d", code);
    CHECK(st.st_uid == 0 && st.st_gid == 0, "the served root is %d:%d after the student's create",
          (int)st.st_uid, (int)st.st_gid);
    PASS();
}

/* ---- naming a namespace of stacked attachments holds the CPU */

/* The student binds one ramfs at /tmp/a10s until its namespace is full:
 * each bind covers the one before, so each is the child of the one
 * before (a chain of ~250, all at one name: cheap to name), then reads
 * its /proc/self/ns while S counts. */
static int read_a_stacked_namespace(void)
{
    static char buf[8192];
    int fs, d, n = 0, fd, r, total = 0;
    unsigned t0, ms = 0;

    if ((fs = fsopen("ramfs", -1, "")) < 0)
        return 1;
    if ((d = create(AT_CWD, "/tmp/a10s", S_IFDIR, 0700, 0)) < 0)
        return 2;
    while (bind(fs, AT_CWD, "/tmp/a10s", 0) == 0)
        n++;
    if (errno != ENOSPC || n < 200)
        return 3;
    if ((fd = open("/proc/self/ns", O_RDONLY)) < 0)
        return 4;
    begin_window();
    for (;;) {
        t0 = uptime_ms();
        r = read(fd, buf, sizeof(buf));
        if (uptime_ms() - t0 > ms)
            ms = uptime_ms() - t0;
        if (r <= 0)
            break;
        total += r;
    }
    end_window();
    printf("t_attack10: /proc/self/ns of %d stacked: %d bytes, the longest read %u ms\n", n, total,
           ms);
    return r == 0 && total > n * 10 ? 0 : 5;
}

/* /proc/<pid>/ns lists the attachments parents first: it found each next
 * one by a search of the whole list, each candidate climbing its parents
 * to see whether it was below the root - n x n x depth steps, and one
 * bind on another makes the new one the child of the old. 250 binds at
 * one name: one read held the CPU for 650 ms (kernel code is never
 * preempted; naming them is cheap and lets others run, the list's
 * building did not). Now the list is one pass and a sort (mounts_below);
 * copy_below, which a bind of an attachment's root runs, used the same
 * search (10 ms for 120 nested ones on an idle host; no test here). */
static void reading_a_stacked_namespace_lets_other_processes_run(void)
{
    int turns, ms, code = count_turns_during(read_a_stacked_namespace, &turns, &ms);

    CHECK(code >= 0, "fork");
    rmdir("/tmp/a10s");
    CHECK(code == 0, "the student's namespace failed at step %d", code);
    CHECK(ran_along(turns, ms), "S had %d turns in %d ms while the student read its namespace",
          turns, ms);
    PASS();
}

int main(int argc, char **argv)
{
    t_only = argc > 1 ? argv[1] : NULL;
    T_RUN(a_space_in_a_name_shifts_no_fields_of_its_ns);
    T_RUN(a_held_proc_file_reads_no_later_process_of_its_pid);
    T_RUN(a_failed_create_leaves_a_served_nodes_owner);
    T_RUN(reading_a_stacked_namespace_lets_other_processes_run);
    printf("t_attack10: done\n");
    return t_failures != 0;
}
