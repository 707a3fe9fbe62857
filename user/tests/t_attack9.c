/* t_attack9.c - attacks of the session of 2026-12-05, ninth (attack): a
 * hostile user against the system calls, aimed where the fuzzers do not
 * reach. Each test that pins a fix failed on the kernel before it
 * (doc/decisions.md, "Attacks (session of 2026-12-05, ninth: attack)"). */
#include <orthos.h>
#define TURNS_WHO "t_attack9"
#include "t.h"
#include "turns.h"

#define NAMES 1000                    /* files of the union's directory */
/* files before "a" in the walk's: 1000 made a walk of 20 ms on an idle
 * host (two slices: too short to see whether it lets others run) */
#define WALK_NAMES 10000

/* ---- a union's listing holds the CPU */

/* The student's directory of NAMES files, bound after itself 15 times: a
 * union of 16 members with the same names. Listing it reads member 0's
 * names, then every later member's, each hidden by member 0 (a lookup
 * there: a scan of NAMES entries in ramfs), all in the one getdents call
 * that finds the end. S, a second process, counts its turns meanwhile. */
static int list_a_big_union(void)
{
    static char buf[4096];
    char name[16];
    int d, p, i, got, total = 0, calls = 0;
    unsigned t0, ms = 0;

    if ((d = create(AT_CWD, "/tmp/a9u", S_IFDIR, 0700, 0)) < 0)
        return 1;
    for (i = 0; i < NAMES; i++) {
        snprintf(name, sizeof(name), "n%05d", i);
        if ((p = create(d, name, S_IFREG, 0600, 0)) < 0)
            return 2;
        close(p);
    }
    for (i = 1; i < 16; i++)
        if (bind(d, AT_CWD, "/tmp/a9u", BIND_AFTER) < 0)
            return 3;
    if ((d = open("/tmp/a9u", O_RDONLY)) < 0)
        return 4;
    begin_window();
    for (;;) {
        t0 = uptime_ms();
        got = getdents(d, buf, sizeof(buf));
        if (uptime_ms() - t0 > ms)
            ms = uptime_ms() - t0;
        calls++;
        if (got <= 0)
            break;
        for (i = 0; i < got; i += ((struct dirent *)(buf + i))->d_reclen)
            total++;
    }
    end_window();
    for (i = 0; i < NAMES; i++) {       /* the files go: /tmp is everyone's */
        snprintf(name, sizeof(name), "/tmp/a9u/n%05d", i);
        unlink(name);
    }
    printf("t_attack9: the union's listing: %d entries in %d calls, the longest %u ms\n", total,
           calls, ms);
    return got == 0 && total == NAMES + 2 ? 0 : 5;
}

/* A union of 16 members, each a directory of 1000 names that member 0
 * has too: the getdents call that passes over members 1 to 15 made
 * 15,000 lookups, each a scan of member 0's 1000 entries, without
 * letting any other process run (kernel code is never preempted): one
 * user's call held the machine for seconds. Now the loop gives the CPU
 * up when the timer says the slice is over (and stops for a kill). */
static void a_union_listing_lets_other_processes_run(void)
{
    int turns, ms, code = count_turns_during(list_a_big_union, &turns, &ms);

    CHECK(code >= 0, "fork");
    rmdir("/tmp/a9u");
    CHECK(code == 0, "the student's listing failed at step %d", code);
    CHECK(ran_along(turns, ms), "S had %d turns in %d ms while the student listed the union", turns,
          ms);
    PASS();
}

/* ---- a walk holds the CPU */

#define LINKS 8                         /* namei.c's MAXSYMLINKS */

/* The target of link k: "a/../" as often as fits PATH_MAX, then the link
 * before it (or "."). */
static void long_target(char *t, int k)
{
    int n = 0;

    while (n + 5 + 8 < PATH_MAX - 1)
        n += snprintf(t + n, 6, "a/../");
    if (k == 0)
        snprintf(t + n, 8, ".");
    else
        snprintf(t + n, 8, "s%d", k - 1);
}

/* The student's directory: "a" first (a ramfs directory lists its newest
 * name first, so a lookup of "a" passes every other name), then WALK_NAMES
 * files, then the links. One walk of the last link follows LINKS
 * targets of PATH_MAX bytes, each some 800 lookups of "a". */
static int walk_a_long_way(void)
{
    static char t[PATH_MAX];
    char name[16];
    int d, p, i, fd;
    unsigned t0, ms;

    if ((d = create(AT_CWD, "/tmp/a9w", S_IFDIR, 0700, 0)) < 0 ||
        (p = create(d, "a", S_IFDIR, 0700, 0)) < 0)
        return 1;
    close(p);
    for (i = 0; i < WALK_NAMES; i++) {
        snprintf(name, sizeof(name), "n%05d", i);
        if ((p = create(d, name, S_IFREG, 0600, 0)) < 0)
            return 2;
        close(p);
    }
    for (i = 0; i < LINKS; i++) {
        long_target(t, i);
        snprintf(name, sizeof(name), "s%d", i);
        if ((p = create(d, name, S_IFLNK, 0777, (unsigned long)t)) < 0)
            return 3;
        close(p);
    }
    begin_window();
    t0 = uptime_ms();
    fd = walk(d, "s7", 0);
    ms = uptime_ms() - t0;
    end_window();
    printf("t_attack9: the walk took %u ms\n", ms);
    for (i = 0; i < WALK_NAMES; i++) {
        snprintf(name, sizeof(name), "n%05d", i);
        unlinkat(d, name, 0);
    }
    for (i = 0; i < LINKS; i++) {
        snprintf(name, sizeof(name), "s%d", i);
        unlinkat(d, name, 0);
    }
    rmdir("/tmp/a9w/a");
    return fd >= 0 ? 0 : 4;
}

/* One walk may follow 8 symlinks of PATH_MAX bytes each, every name of
 * them a lookup, and a ramfs lookup scans the directory: 6400 lookups of
 * a name behind 1000 others held the CPU for seconds in one system call
 * (kernel code is never preempted). Now resolution lets others run
 * between names when the slice is over, and stops for a kill. */
static void a_long_walk_lets_other_processes_run(void)
{
    int turns, ms, code = count_turns_during(walk_a_long_way, &turns, &ms);

    CHECK(code >= 0, "fork");
    rmdir("/tmp/a9w");
    CHECK(code == 0, "the student's walk failed at step %d", code);
    CHECK(ran_along(turns, ms), "S had %d turns in %d ms while the student walked", turns, ms);
    PASS();
}

/* ---- naming a namespace holds the CPU */

#define DEPTH 500                       /* "/a" each: the names fit PATH_MAX */
#define BINDS 60                        /* of the namespace's 256 attachments */

/* The student's namespace: a chain of DEPTH directories and BINDS
 * attachments at its bottom. /proc/<pid>/ns names each attachment by
 * climbing to the root. */
static int read_a_deep_namespace(void)
{
    static char buf[4096];
    int top, d, p, i, fd, n, total = 0;
    unsigned t0, ms = 0;

    if ((top = create(AT_CWD, "/tmp/a9p", S_IFDIR, 0700, 0)) < 0 ||
        (d = create(top, "a", S_IFDIR, 0700, 0)) < 0)
        return 1;
    for (i = 1; i < DEPTH; i++) {
        if ((p = create(d, "a", S_IFDIR, 0700, 0)) < 0)
            return 3;
        close(d);
        d = p;
    }
    if ((p = fsopen("ramfs", -1, "")) < 0)
        return 4;
    for (i = 0; i < BINDS; i++)
        if (bind(p, d, ".", 0) < 0)
            return 5;
    if ((fd = open("/proc/self/ns", O_RDONLY)) < 0)
        return 6;
    begin_window();
    for (;;) {
        t0 = uptime_ms();
        n = read(fd, buf, sizeof(buf));
        if (uptime_ms() - t0 > ms)
            ms = uptime_ms() - t0;
        if (n <= 0)
            break;
        total += n;
    }
    end_window();
    printf("t_attack9: /proc/self/ns: %d bytes, the longest read %u ms\n", total, ms);
    return n == 0 && total > BINDS * 2 * DEPTH ? 0 : 7;
}

/* /proc/<pid>/ns names every attachment the way getcwd names a
 * directory: a climb to the root, each step a scan of the parent's
 * entries for the child. 60 attachments at the bottom of a chain of
 * 500 directories: 30,000 steps in one read, each also a look at every
 * attachment (ns_union_root), which held the CPU for 4 s (240
 * attachments: 19 s; kernel code is never preempted). Now each step
 * lets others run when the slice is over, and stops for a kill. */
static void reading_a_deep_namespace_lets_other_processes_run(void)
{
    int turns, ms, code = count_turns_during(read_a_deep_namespace, &turns, &ms);

    CHECK(code >= 0, "fork");
    CHECK(code == 0, "the student's namespace failed at step %d", code);
    CHECK(ran_along(turns, ms), "S had %d turns in %d ms while the student read its namespace",
          turns, ms);
    PASS();
}

/* ---- letting go of a big filesystem holds the CPU */

#define DIRS  100                        /* directories of FILES files each */
#define FILES 300

/* The student fills a ramfs of its own with DIRS x FILES empty files and
 * closes its one fd: the instance's release frees every node. */
static int release_a_big_ramfs(void)
{
    char name[16];
    int fs, d, p, i, j;
    unsigned t0, ms;

    if ((fs = fsopen("ramfs", -1, "")) < 0)
        return 1;
    for (i = 0; i < DIRS; i++) {
        snprintf(name, sizeof(name), "d%03d", i);
        if ((d = create(fs, name, S_IFDIR, 0700, 0)) < 0)
            return 2;
        for (j = 0; j < FILES; j++) {
            snprintf(name, sizeof(name), "f%03d", j);
            if ((p = create(d, name, S_IFREG, 0600, 0)) < 0)
                return 3;
            close(p);
        }
        close(d);
    }
    begin_window();
    t0 = uptime_ms();
    close(fs);
    ms = uptime_ms() - t0;
    end_window();
    printf("t_attack9: the release of %d nodes took %u ms\n", DIRS * (FILES + 1), ms);
    return 0;
}

/* The last reference to a ramfs frees its whole tree, in the system call
 * that let go of it: a user's instance of 60,000 empty files took 430 ms
 * of one close() (30,000 here: 160-230 ms), in which nobody else ran
 * (kernel code is never preempted; S had no turn) at a load of 20. Now
 * the release lets others run when the slice is over. On an idle host
 * the release takes 10 ms, within one slice: there the test cannot tell
 * the two kernels apart (ran_along asks nothing of a call that short),
 * and kmutants.txt leaves its mutant out. */
static void letting_go_of_a_big_ramfs_lets_other_processes_run(void)
{
    int turns, ms, code = count_turns_during(release_a_big_ramfs, &turns, &ms);

    CHECK(code >= 0, "fork");
    CHECK(code == 0, "the student's ramfs failed at step %d", code);
    CHECK(ran_along(turns, ms), "S had %d turns in %d ms while the student's ramfs went", turns,
          ms);
    PASS();
}

/* ---- names that forge lines */

#define FORGED "\nforged ramfs none"

/* The student binds a file at a name holding a newline, and mounts an
 * image whose file name holds one. */
static int bind_forged_names(void)
{
    int p, img, fs;

    if ((p = create(AT_CWD, "/tmp/a9f" FORGED, S_IFREG, 0600, 0)) < 0)
        return 1;
    if (bind(p, AT_CWD, "/tmp/a9f" FORGED, 0) < 0)
        return 2;
    if (copyfile("/etc/fuzz.ext2", "/tmp/a9i" FORGED) < 0 ||
        (img = open("/tmp/a9i" FORGED, O_RDONLY)) < 0)
        return 3;
    if ((fs = fsopen("ext2", img, "ro")) < 0 || create(AT_CWD, "/tmp/a9m", S_IFDIR, 0700, 0) < 0 ||
        bind(fs, AT_CWD, "/tmp/a9m", 0) < 0)
        return 4;
    write(ctl[1], "b", 1);
    read(res[0], &p, 1);                /* until root has read our ns */
    return 0;
}

/* /proc/<pid>/ns is everyone's to read (ps's and mountinfo's kind of
 * fact): one line per attachment. A name is any bytes but '/' and NUL,
 * so the student's names with a newline in them - a file bound at one, an
 * image's file name (its source) - added lines of the student's choice to
 * what root read there, as a process's name once did to
 * /proc/<pid>/status; the image's name reached the kernel's console
 * messages too. Control characters are now '?' there, as in a name. */
static void a_users_names_forge_no_lines_in_its_ns(void)
{
    static char text[8192];
    char path[32], c;
    int pid, n, fd, status;

    CHECK(pipe(ctl) == 0 && pipe(res) == 0, "pipes");
    if ((pid = fork()) == 0) {
        if (setgid(STUDENT) < 0 || setuid(STUDENT) < 0 || unshare() < 0)
            _exit(90);
        _exit(bind_forged_names());
    }
    CHECK(pid > 0, "fork");
    close(ctl[1]);
    close(res[0]);
    if (read(ctl[0], &c, 1) != 1) {
        waitpid(pid, &status, 0);
        CHECK(0, "the student's binds failed: %d", WEXITSTATUS(status));
    }
    snprintf(path, sizeof(path), "/proc/%d/ns", pid);
    CHECK((fd = open(path, O_RDONLY)) >= 0, "open %s", path);
    n = read_full(fd, text, sizeof(text) - 1);
    close(fd);
    text[n > 0 ? n : 0] = '\0';
    write(res[1], "x", 1);
    waitpid(pid, &status, 0);
    close(ctl[0]), close(res[1]);
    unlink("/tmp/a9f" FORGED);
    unlink("/tmp/a9i" FORGED);
    rmdir("/tmp/a9m");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the student's binds: status %x", status);
    CHECK(strstr(text, "a9f?forged\\040ramfs\\040none") &&
              strstr(text, "a9i?forged\\040ramfs\\040none"),
          "the names, with '?' for the newline (and \\040 for a space, t_attack10):\n%s", text);
    CHECK(!strstr(text, "\nforged ramfs"), "a forged line:\n%s", text);
    PASS();
}

int main(int argc, char **argv)
{
    t_only = argc > 1 ? argv[1] : NULL;
    T_RUN(a_users_names_forge_no_lines_in_its_ns);
    T_RUN(a_union_listing_lets_other_processes_run);
    T_RUN(a_long_walk_lets_other_processes_run);
    T_RUN(reading_a_deep_namespace_lets_other_processes_run);
    T_RUN(letting_go_of_a_big_ramfs_lets_other_processes_run);
    printf("t_attack9: done\n");
    return t_failures != 0;
}
