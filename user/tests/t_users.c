/* t_users.c - one user against another. Limits: a user may have at most
 * CHILD_MAX processes and USER_OPEN_MAX open files (uapi/proc.h,
 * uapi/fs.h; fork(2), walk(2)), so one user's fork bomb or file hog leaves
 * a second user, and root, free to fork, exec and open. Each user here is
 * an agent: a child of the test that becomes the user and then takes
 * orders over a pipe, answering each with two numbers. The pipes are made
 * before the agent becomes the user, so they are root's files, and what
 * the agent's user holds is exactly what the orders made.
 * Sessions (setsid(2), tcsetpgrp(2)): only a process of the console's
 * session chooses its foreground group, and only the group in front
 * reads it; `t_users steal` is the interactive half (tools/test.py,
 * shell/tty: root's ^C still ends root's job after a user tried). */
#include <fcntl.h>
#include <limits.h>
#include <orthos.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "t.h"

#define ALICE 1000
#define BOB   1001
#define KIDS  (CHILD_MAX + 8)

struct agent {
    int pid, order, answer;
};

/* The agent's side. Its children are sleepers (one process each) and
 * holders (each opens files until its fd table or the user's share is
 * full, then sleeps); all of them sleep reading `gate` until the agent
 * exits. */
static int kids[KIDS], nkids, gate[2], told[2];

static int sleeper(void)
{
    char c;

    close(gate[1]);
    read(gate[0], &c, 1);
    _exit(0);
}

/* A holder: walk "/" until an error (each walk is one open file of its
 * own); tell the agent how many and the error. */
static int holder(void)
{
    int r[2] = { 0, 0 };

    while (walk(AT_CWD, "/", 0) >= 0)
        r[0]++;
    r[1] = errno;
    write(told[1], r, sizeof(r));
    return sleeper();
}

static int spawn(int (*fn)(void))
{
    int pid = nkids < KIDS ? fork() : -1;

    if (pid == 0)
        _exit(fn());
    if (pid > 0)
        kids[nkids++] = pid;
    return pid;
}

/* Carry out one order; r is the answer. */
static void obey(char order, int r[2])
{
    int pid, fd, st = -1;

    errno = 0;
    switch (order) {
    case 'F':                           /* fork sleepers until fork fails */
        while (spawn(sleeper) > 0)
            r[0]++;
        r[1] = errno;
        break;
    case 'f':                           /* fork one sleeper */
        r[0] = spawn(sleeper);
        r[1] = errno;
        break;
    case 'k':                           /* kill the newest child, not waited for */
        r[0] = nkids > 0 ? kill(kids[--nkids], SIGKILL) : -1;
        break;
    case 'r': /* wait for a child */ r[0] = wait(&r[1]); break;
    case 'O':                           /* holders until the user's share is full */
        do {
            int k[2] = { 0, 0 };
            if (spawn(holder) < 0 || read_full(told[0], k, sizeof(k)) != sizeof(k))
                break;
            r[0] += k[0];
            r[1] = k[1];
        } while (r[1] == EMFILE);       /* that holder's table was full: another */
        break;
    case 'o':                           /* open a file (and close it) */
        fd = walk(AT_CWD, "/", 0);
        r[0] = fd >= 0;
        r[1] = errno;
        close(fd);
        break;
    case 'x':                           /* fork and exec /bin/true: its status */
        fflush(stdout);
        if ((pid = fork()) == 0) {
            execv("/bin/true", (char *[]){ "true", NULL });
            _exit(99);
        }
        r[0] = pid > 0 && waitpid(pid, &st, 0) == pid ? st : -1;
        r[1] = errno;
        break;
    }
}

static int agent_main(int uid, int order, int answer)
{
    char c;

    if (setgid(uid) < 0 || setuid(uid) < 0)
        return 1;
    while (read(order, &c, 1) == 1) {
        int r[2] = { 0, 0 };
        obey(c, r);
        if (write(answer, r, sizeof(r)) != sizeof(r))
            break;
    }
    close(gate[1]);                     /* every child wakes and exits */
    while (wait(NULL) > 0)
        ;
    return 0;
}

/* Start an agent acting for uid. */
static int agent_start(struct agent *a, int uid)
{
    int o[2], r[2];

    if (pipe(o) < 0 || pipe(r) < 0 || pipe(gate) < 0 || pipe(told) < 0)
        return -1;
    fflush(stdout);
    if ((a->pid = fork()) == 0) {
        int fd;
        for (fd = 3; fd < OPEN_MAX; fd++) /* another agent's pipes too: it must see its end */
            if (fd != o[0] && fd != r[1] && fd != gate[0] && fd != gate[1] && fd != told[0] &&
                fd != told[1])
                close(fd);
        _exit(agent_main(uid, o[0], r[1]));
    }
    close(o[0]);
    close(r[1]);
    close(gate[0]);
    close(gate[1]);
    close(told[0]);
    close(told[1]);
    a->order = o[1];
    a->answer = r[0];
    return a->pid > 0 ? 0 : -1;
}

/* Give an order; the answer's first number (and the second in *second). */
static int agent_do(struct agent *a, char order, int *second)
{
    int r[2] = { -1, -1 };

    if (write(a->order, &order, 1) != 1 || read_full(a->answer, r, sizeof(r)) != sizeof(r))
        r[0] = r[1] = -1000;
    if (second)
        *second = r[1];
    return r[0];
}

/* The agent exits with all its children; 0 if it ended well. */
static int agent_stop(struct agent *a)
{
    int st = -1;

    close(a->order);
    close(a->answer);
    return wait_child_ms(a->pid, 5000, &st) && st == 0 ? 0 : -1;
}

/* fork + exec /bin/true + wait, as the caller: its status, or -1. */
static int fork_and_exec(void)
{
    int pid, st = -1;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        execv("/bin/true", (char *[]){ "true", NULL });
        _exit(99);
    }
    return pid > 0 && waitpid(pid, &st, 0) == pid ? st : -1;
}

/* Alice's fork bomb stops at CHILD_MAX processes, herself included; Bob
 * and root still fork, exec and open. A child that has exited still
 * counts until it is waited for (it holds its slot); then Alice may fork
 * exactly one more. */
static void a_user_has_at_most_child_max_processes(void)
{
    struct agent alice, bob;
    int n, e = 0, fd;

    CHECK(agent_start(&alice, ALICE) == 0 && agent_start(&bob, BOB) == 0, "agents");
    n = agent_do(&alice, 'F', &e);
    CHECK(n == CHILD_MAX - 1 && e == EAGAIN, "alice forked %d then errno %d (want %d, EAGAIN)", n,
          e, CHILD_MAX - 1);
    CHECK(agent_do(&bob, 'x', &e) == 0, "bob's fork and exec of /bin/true: errno %d", e);
    CHECK(agent_do(&bob, 'o', &e) == 1, "bob's walk: errno %d", e);
    CHECK(fork_and_exec() == 0, "root's fork and exec of /bin/true: %s", strerror(errno));
    fd = walk(AT_CWD, "/", 0);
    CHECK(fd >= 0, "root's walk: %s", strerror(errno));
    close(fd);
    CHECK(agent_do(&alice, 'k', NULL) == 0, "kill one of alice's");
    CHECK(agent_do(&alice, 'f', &e) < 0 && e == EAGAIN, "a zombie not waited for still counts");
    CHECK(agent_do(&alice, 'r', NULL) > 0, "alice waits for it");
    CHECK(agent_do(&alice, 'f', &e) > 0, "alice could not fork once it was reaped: errno %d", e);
    CHECK(agent_do(&alice, 'f', &e) < 0 && e == EAGAIN, "alice forked past CHILD_MAX: errno %d", e);
    CHECK(agent_stop(&alice) == 0 && agent_stop(&bob) == 0, "an agent did not end well");
    PASS();
}

/* A process counts for the user it acts for now: root's child that
 * becomes Alice joins her count (setuid is not refused for it: root
 * chose), and leaves it when it exits. */
static void setuid_moves_a_process_into_its_new_users_count(void)
{
    struct agent alice;
    int n, e = 0, c, p[2], r = -1, st;

    CHECK(agent_start(&alice, ALICE) == 0 && pipe(p) == 0, "agent");
    n = agent_do(&alice, 'F', &e);
    CHECK(n == CHILD_MAX - 1 && e == EAGAIN, "alice forked %d then errno %d", n, e);
    fflush(stdout);
    if ((c = fork()) == 0) {
        int ok = setgid(ALICE) == 0 && setuid(ALICE) == 0;
        write(p[1], &ok, sizeof(ok));
        for (;;)
            sleep_ms(1000);             /* until killed */
    }
    CHECK(c > 0 && read_full(p[0], &r, sizeof(r)) == sizeof(r) && r == 1,
          "root's child could not become alice with alice at CHILD_MAX");
    CHECK(agent_do(&alice, 'k', NULL) == 0 && agent_do(&alice, 'r', NULL) > 0, "kill one");
    CHECK(agent_do(&alice, 'f', &e) < 0 && e == EAGAIN,
          "the child that became alice did not count for her");
    CHECK(kill(c, SIGKILL) == 0 && waitpid(c, &st, 0) == c, "end the child");
    CHECK(agent_do(&alice, 'f', &e) > 0, "the child's exit did not give alice its slot: errno %d",
          e);
    close(p[0]);
    close(p[1]);
    CHECK(agent_stop(&alice) == 0, "the agent did not end well");
    PASS();
}

/* Alice's processes open files until ENFILE: she holds exactly
 * USER_OPEN_MAX. Bob and root still open, fork and exec; once a holder of
 * hers exits, she may open again. */
static void a_user_holds_at_most_user_open_max_files(void)
{
    struct agent alice, bob;
    int n, e = 0, fd, p[2];

    CHECK(agent_start(&alice, ALICE) == 0 && agent_start(&bob, BOB) == 0, "agents");
    n = agent_do(&alice, 'O', &e);
    CHECK(n == USER_OPEN_MAX && e == ENFILE,
          "alice opened %d files, then errno %d (want %d, ENFILE)", n, e, USER_OPEN_MAX);
    CHECK(agent_do(&alice, 'o', &e) == 0 && e == ENFILE, "alice opened one more: errno %d", e);
    CHECK(agent_do(&bob, 'o', &e) == 1, "bob's walk: errno %d", e);
    CHECK(agent_do(&bob, 'x', &e) == 0, "bob's fork and exec of /bin/true: errno %d", e);
    fd = walk(AT_CWD, "/", 0);
    CHECK(fd >= 0 && pipe(p) == 0, "root's walk and pipe: %s", strerror(errno));
    close(fd);
    close(p[0]);
    close(p[1]);
    CHECK(fork_and_exec() == 0, "root's fork and exec of /bin/true: %s", strerror(errno));
    CHECK(agent_do(&alice, 'k', NULL) == 0 && agent_do(&alice, 'r', NULL) > 0, "end a holder");
    CHECK(agent_do(&alice, 'o', &e) == 1, "a holder's exit gave alice nothing back: errno %d", e);
    CHECK(agent_stop(&alice) == 0 && agent_stop(&bob) == 0, "an agent did not end well");
    PASS();
}

/* ---- sessions */

/* In a child: the errors of what a process of another session tries
 * (tcsetpgrp of nobody, of its own group, reading and changing the
 * console's mode), as a user; packed in one int, 8 bits each. */
static int thief(void)
{
    int e[4];

    if (setsid() != getpid() || setgid(ALICE) < 0 || setuid(ALICE) < 0)
        return 255;
    e[0] = tcsetpgrp(0) < 0 ? errno : 0;
    e[1] = tcsetpgrp(getpid()) < 0 ? errno : 0;
    e[2] = console_read_error();
    e[3] = fcntl(STDIN_FILENO, F_SETTTY, TTY_RAW) < 0 ? errno : 0;
    printf("thief: tcsetpgrp(0) %s, tcsetpgrp(its own group) %s, read %s, F_SETTTY %s\n",
           strerror(e[0]), strerror(e[1]), strerror(e[2]), strerror(e[3]));
    fflush(stdout);
    return e[0] == EPERM && e[1] == EPERM && e[2] == EIO && e[3] == EPERM ? 0 : 1;
}

/* With root's job in front, a user's process of another session may not
 * take the console (EPERM) nor read it (EIO); the job stays in front. */
static void another_sessions_process_cannot_take_the_console(void)
{
    int job, pid, st = -1;

    fflush(stdout);
    if ((job = fork()) == 0) {
        setpgid(0, 0);
        for (;;)
            sleep_ms(1000);
    }
    setpgid(job, job);                  /* whichever runs first */
    CHECK(job > 0 && tcsetpgrp(job) == 0 && tcgetpgrp() == job, "root's job in front");
    if ((pid = fork()) == 0)
        _exit(thief());
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid, "wait");
    CHECK(tcgetpgrp() == job, "the foreground group is %d, not root's job %d", tcgetpgrp(), job);
    kill(job, SIGKILL);
    waitpid(job, NULL, 0);
    CHECK(tcsetpgrp(0) == 0, "tcsetpgrp(0): %s", strerror(errno));
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the thief: status %x (see its line)", st);
    PASS();
}

/* Only the group in front reads the console; the others, of the console's
 * session too, get EIO (POSIX's answer when SIGTTIN cannot stop them:
 * Orthos signals only kill). With no group in front (the shell at its
 * prompt) the session reads. */
static void only_the_foreground_group_reads_the_console(void)
{
    int p[2], job, e = -1;

    CHECK(pipe(p) == 0, "pipe");
    fflush(stdout);
    if ((job = fork()) == 0) {
        setpgid(0, 0);
        while (tcgetpgrp() != getpid())
            sleep_ms(5);
        e = console_read_error();
        write(p[1], &e, sizeof(e));
        _exit(0);
    }
    setpgid(job, job);
    CHECK(job > 0 && tcsetpgrp(job) == 0, "tcsetpgrp");
    CHECK(console_read_error() == EIO, "the background read: %s, not EIO",
          strerror(console_read_error()));
    CHECK(read_full(p[0], &e, sizeof(e)) == sizeof(e) && e == EAGAIN,
          "the job in front read: %s, not EAGAIN (nothing typed)", strerror(e));
    waitpid(job, NULL, 0);
    CHECK(tcsetpgrp(0) == 0 && console_read_error() == EAGAIN,
          "nobody in front: the session reads (%s)", strerror(console_read_error()));
    close(p[0]);
    close(p[1]);
    PASS();
}

/* setsid: a new session and group led by the caller, once: a group
 * leader may not (its group would span two sessions); the new session's
 * processes may not join a group of the old one, nor be moved by it. */
static int new_session(void)
{
    int me = getpid(), parent_group = getppid();

    if (setsid() != me || setsid() != -1 || errno != EPERM)
        return 1;
    if (setpgid(0, parent_group) != -1 || errno != EPERM)
        return 2;                       /* a group of another session */
    if (setpgid(0, 0) != 0)
        return 3;                       /* a session leader's no-op */
    if (tcsetpgrp(0) != 0 || tcsetpgrp(0) != 0)
        return 4;                       /* root may: the console is now ours */
    return 0;
}

static void setsid_makes_a_session_once(void)
{
    int pid, st = -1, leader;

    CHECK(setpgid(0, 0) == 0, "a group of our own: %s", strerror(errno));
    CHECK(setsid() == -1 && errno == EPERM, "a group leader made a session");
    fflush(stdout);
    if ((pid = fork()) == 0)
        _exit(new_session());
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid, "wait");
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "step %d failed", WEXITSTATUS(st));
    CHECK(tcsetpgrp(0) == 0, "root takes the console back: %s", strerror(errno));
    if ((leader = fork()) == 0) {
        setsid();
        for (;;)
            sleep_ms(1000);
    }
    sleep_ms(50);
    CHECK(setpgid(leader, 0) == -1 && errno == EPERM, "moved a child of another session");
    kill(leader, SIGKILL);
    waitpid(leader, NULL, 0);
    PASS();
}

int main(int argc, char *argv[])
{
    if (argc > 1 && strcmp(argv[1], "steal") == 0) {
        int pid = fork(), st = -1;
        if (pid == 0)                   /* a user's process of its own session tries */
            _exit(thief());
        waitpid(pid, &st, 0);
        printf("the job sleeps\n");    /* until root's ^C */
        fflush(stdout);
        sleep_ms(60000);
        return 0;
    }
    a_user_has_at_most_child_max_processes();
    setuid_moves_a_process_into_its_new_users_count();
    a_user_holds_at_most_user_open_max_files();
    another_sessions_process_cannot_take_the_console();
    only_the_foreground_group_reads_the_console();
    setsid_makes_a_session_once();
    printf("t_users: done\n");
    return t_failures != 0;
}
