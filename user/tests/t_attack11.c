/* t_attack11.c - attacks of the session of 2026-12-06, eleventh (attack):
 * a hostile user against what the kernel keeps for later - a /proc text
 * across a sleep, the console's raw owner across its death - where
 * earlier rounds did not look. Booted with pidmax=300 (tools/test.py).
 * Each test that pins a fix failed on the kernel before it
 * (doc/decisions.md, "Attacks, eleventh round"). */
#include <orthos.h>
#define TURNS_WHO "t_attack11"
#include "t.h"
/* as_student; the turn counter is not used here */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "turns.h"

/* ---- two readers of one /proc node */

#define DEPTH  100                      /* "/a" each: the names fit PATH_MAX */
#define BINDS  20                       /* attachments at the chain's bottom */
#define ROUNDS 5                        /* reads from the start by each reader */

/* The student's namespace: a chain of DEPTH directories and BINDS
 * attachments at its bottom, so that naming them (a read of
 * /proc/<pid>/ns) takes many slices and lets others run in between. */
static int deep_namespace(const char *top_name)
{
    int top, d, p, i;

    if ((top = create(AT_CWD, top_name, S_IFDIR, 0700, 0)) < 0 ||
        (d = create(top, "a", S_IFDIR, 0700, 0)) < 0)
        return -1;
    close(top);
    for (i = 1; i < DEPTH; i++) {
        if ((p = create(d, "a", S_IFDIR, 0700, 0)) < 0)
            return -1;
        close(d);
        d = p;
    }
    if ((p = fsopen("ramfs", -1, "")) < 0)
        return -1;
    for (i = 0; i < BINDS; i++)
        if (bind(p, d, ".", 0) < 0)
            return -1;
    close(p);
    close(d);
    return 0;
}

/* One reader (who: 0 or 1): its own open file of the node behind path
 * fd at, read from offset 0 ROUNDS times (a read there makes the text
 * anew; its first piece is enough), in step with the other reader: each
 * round's reads both end before either reader begins the next, so each
 * round the two makings overlap and both put their text in the node. 0, or the step that failed. */
static int read_rounds(int at, int who, int step[2][2])
{
    static char buf[4096];
    int fd = ready(at, R_READ), i;
    char c = 'r';

    close(step[who][0]);                /* a reader that fails ends the other's wait */
    close(step[!who][1]);
    if (fd < 0)
        return 1;
    for (i = 0; i < ROUNDS; i++) {
        if (lseek(fd, 0, SEEK_SET) != 0)
            return 2;
        if (read(fd, buf, sizeof(buf)) != sizeof(buf))
            return 3;
        if (write(step[who][1], &c, 1) != 1 || read(step[!who][0], &c, 1) != 1)
            return 4;
    }
    close(fd);
    return 0;
}

static int counts[2];                   /* the heap's blocks, to the parent */

/* Two readers, each with an open file of its own on the one node of
 * /proc/<student>/ns (two ready()s of one walk), read it from its start
 * at the same time, round after round; then everything is closed. The
 * kernel heap's blocks must be where they were. */
static int two_readers_of_one_proc_node(void)
{
    int at, pid[2], step[2][2], status, i, bad = 0;
    unsigned before, after;

    if (deep_namespace("/tmp/a11p") < 0)
        return 1;
    before = meminfo("heap_blocks");
    if (pipe(step[0]) < 0 || pipe(step[1]) < 0)
        return 2;
    if ((at = walk(AT_CWD, "/proc/self/ns", 0)) < 0)
        return 3;
    for (i = 0; i < 2; i++) {
        fflush(stdout);
        if ((pid[i] = fork()) == 0)
            _exit(read_rounds(at, i, step));
        if (pid[i] < 0)
            return 4;
    }
    for (i = 0; i < 4; i++)
        close(step[i / 2][i % 2]);
    for (i = 0; i < 2; i++)
        if (waitpid(pid[i], &status, 0) != pid[i] || status != 0)
            bad = 10 + WEXITSTATUS(status);
    close(at);                          /* the node goes, and its last text */
    after = meminfo("heap_blocks");
    write(counts[1], (unsigned[]){ before, after }, 2 * sizeof(unsigned));
    if (bad)
        return bad;
    return after == before ? 0 : 5;
}

/* A /proc file's text is made afresh by a read from offset 0 and kept
 * for the reads after it, in the node; each lookup makes a node, but
 * ready() of one walk's path fd gives as many open files of that node as
 * asked. Making /proc/<pid>/ns's text may sleep or let others run (a
 * long namespace, an ext2 lookup), and a second reader of the node took
 * a text meanwhile: the first then put its own text over the second's,
 * which was lost to the kernel heap - a block of the namespace's size a
 * race, as many as a user cares to make (the heap is held to no floor).
 * Now the text a reader replaces is freed, whoever made it. (The rounds
 * overlap because a text of this namespace takes several slices to
 * make: 5 blocks of 5 rounds were lost on the old kernel, every run.) */
static void two_readers_of_a_proc_node_leak_no_text(void)
{
    unsigned got[2] = { 0, 0 };
    int code;

    CHECK(pipe(counts) == 0, "pipe");
    code = as_student(two_readers_of_one_proc_node);
    close(counts[1]);
    read(counts[0], got, sizeof(got));
    close(counts[0]);
    printf("t_attack11: heap blocks %u before two readers of one ns node, %u after\n", got[0],
           got[1]);
    CHECK(code != 5, "the two readers left %d more blocks on the kernel heap",
          (int)(got[1] - got[0]));
    CHECK(code == 0, "the student's readers failed at step %d", code);
    PASS();
}

/* ---- raw mode and a pid that comes back */

/* The console in raw mode belongs to the process that asked for it, and
 * ends when that process dies: asked lazily, whenever the mode matters
 * (a key, a read, F_GETTTY), by looking the owner's pid up. An owner
 * reaped while nobody asked left its pid recorded, and once the pids
 * wrapped (pidmax=300 here; 2^28 forks otherwise) the process that had
 * it owned raw mode: keys went to it unechoed and unedited, and it had
 * asked for nothing. The owner is now its pid and its birth, as a /proc
 * node's process is (t_attack10). */
static void raw_mode_passes_to_no_later_process_of_its_pid(void)
{
    int pid, c, status, i, found = 0;

    fflush(stdout);
    if ((pid = fork()) == 0)
        _exit(fcntl(STDIN_FILENO, F_SETTTY, TTY_RAW) == 0 ? 0 : 1);
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && status == 0, "the raw child: %x", status);
    /* Nothing asks for the mode until the pid is back: each child but
     * the one that has it exits at once. */
    for (i = 0; i < 4 * 300 && !found; i++) {
        if ((c = fork()) == 0)
            _exit(getpid() != pid ? 0 : fcntl(STDIN_FILENO, F_GETTTY, 0) == TTY_RAW ? 2 : 1);
        CHECK(c > 0 && waitpid(c, &status, 0) == c && WIFEXITED(status), "fork %d", i);
        found = WEXITSTATUS(status);
    }
    CHECK(found, "pid %d never came back in %d forks", pid, i);
    CHECK(found == 1, "pid %d's later process found the console raw", pid);
    CHECK(fcntl(STDIN_FILENO, F_GETTTY, 0) == 0, "the console is still raw");
    PASS();
}

int main(int argc, char **argv)
{
    t_only = argc > 1 ? argv[1] : NULL;
    T_RUN(two_readers_of_a_proc_node_leak_no_text);
    T_RUN(raw_mode_passes_to_no_later_process_of_its_pid);
    printf("t_attack11: done\n");
    return t_failures != 0;
}
