/* t_tty.c - the console's raw mode (fcntl F_GETTTY / F_SETTTY), which the
 * shell's line editor and man's pager use: it is asked for through a
 * console fd, it belongs to the process that asked, and it ends by itself
 * when that process dies or another process group is put in front, so no
 * program is ever left reading a raw console by someone else's mistake.
 * (What raw input does with keys is checked by typing into the shell:
 * tools/test.py, the guestshell suite.) */
#include <fcntl.h>
#include <orthos.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "t.h"

static int mode(void)
{
    return fcntl(STDIN_FILENO, F_GETTTY, 0);
}

static void the_console_starts_cooked(void)
{
    CHECK(isatty(STDIN_FILENO), "fd 0 is not the console");
    CHECK(mode() == 0, "F_GETTTY gave %d", mode());
    PASS();
}

static void raw_mode_is_set_and_cleared_through_a_console_fd(void)
{
    CHECK(fcntl(STDIN_FILENO, F_SETTTY, TTY_RAW) == 0, "F_SETTTY raw");
    CHECK(mode() == TTY_RAW, "raw: F_GETTTY gave %d", mode());
    CHECK(fcntl(STDOUT_FILENO, F_GETTTY, 0) == TTY_RAW, "one console: fd 1 says otherwise");
    CHECK(fcntl(STDIN_FILENO, F_SETTTY, 0) == 0, "F_SETTTY cooked");
    CHECK(mode() == 0, "cooked again: F_GETTTY gave %d", mode());
    PASS();
}

static int set_raw_and_exit(void)
{
    return fcntl(STDIN_FILENO, F_SETTTY, TTY_RAW) == 0 ? 0 : 1;
}

static void raw_mode_ends_when_its_owner_exits(void)
{
    int pid, status;

    fflush(stdout);
    if ((pid = fork()) == 0)
        _exit(set_raw_and_exit());
    CHECK(pid > 0, "fork");
    sleep_ms(50);                   /* a zombie now, not yet reaped */
    CHECK(mode() == 0, "the owner has exited, F_GETTTY still gives %d", mode());
    CHECK(waitpid(pid, &status, 0) == pid && status == 0, "child status %x", status);
    CHECK(mode() == 0, "after the wait F_GETTTY gives %d", mode());
    PASS();
}

static void raw_mode_ends_when_its_owner_is_killed(void)
{
    int p[2], pid, status;
    char c;

    CHECK(pipe(p) == 0, "pipe");
    fflush(stdout);
    if ((pid = fork()) == 0) {
        if (fcntl(STDIN_FILENO, F_SETTTY, TTY_RAW) == 0)
            write(p[1], "r", 1);
        for (;;)
            sleep_ms(1000);
    }
    close(p[1]);
    CHECK(read(p[0], &c, 1) == 1, "the child did not get raw mode");
    close(p[0]);
    CHECK(mode() == TTY_RAW, "the child's raw mode: F_GETTTY gave %d", mode());
    kill(pid, SIGKILL);
    CHECK(mode() == 0, "killed, not yet reaped: F_GETTTY gives %d", mode());
    CHECK(waitpid(pid, &status, 0) == pid && WTERMSIG(status) == SIGKILL, "status %x", status);
    PASS();
}

static void a_new_foreground_group_starts_cooked(void)
{
    CHECK(fcntl(STDIN_FILENO, F_SETTTY, TTY_RAW) == 0, "F_SETTTY raw");
    CHECK(tcsetpgrp(getpid() + 1000) == 0, "tcsetpgrp");
    CHECK(mode() == 0, "another group in front, F_GETTTY still gives %d", mode());
    CHECK(tcsetpgrp(0) == 0, "tcsetpgrp(0)");
    CHECK(fcntl(STDIN_FILENO, F_SETTTY, TTY_RAW) == 0, "F_SETTTY raw");
    CHECK(tcsetpgrp(0) == 0, "tcsetpgrp(0)");
    CHECK(mode() == 0, "no group in front, F_GETTTY still gives %d", mode());
    PASS();
}

/* init's run= child leads its own group (setpgid(0, 0)): putting that
 * group in front must not take raw mode from it (a pager may ask for raw
 * before its shell has made its group the foreground). */
static void raw_mode_survives_its_owners_group_put_in_front(void)
{
    CHECK(fcntl(STDIN_FILENO, F_SETTTY, TTY_RAW) == 0, "F_SETTTY raw");
    CHECK(tcsetpgrp(getpid()) == 0, "tcsetpgrp");
    CHECK(mode() == TTY_RAW, "our own group in front: F_GETTTY gave %d", mode());
    CHECK(tcsetpgrp(0) == 0 && mode() == 0, "tcsetpgrp(0) left it raw");
    PASS();
}

static void only_a_console_fd_readied_for_io_has_a_mode(void)
{
    int p[2], path, null;

    CHECK(pipe(p) == 0, "pipe");
    CHECK_ERR(fcntl(p[0], F_SETTTY, TTY_RAW), ENOTTY);
    CHECK_ERR(fcntl(p[1], F_GETTTY, 0), ENOTTY);
    close(p[0]);
    close(p[1]);
    CHECK((path = walk(AT_CWD, "/dev/console", 0)) >= 0, "walk /dev/console");
    CHECK_ERR(fcntl(path, F_SETTTY, TTY_RAW), EBADF);
    CHECK((null = ready(walk(AT_CWD, "/dev/null", 0), R_READ)) >= 0, "ready /dev/null");
    CHECK_ERR(fcntl(null, F_SETTTY, TTY_RAW), ENOTTY);
    CHECK_ERR(fcntl(STDIN_FILENO, F_SETTTY, 2), EINVAL);
    CHECK_ERR(fcntl(STDIN_FILENO, F_SETTTY, -1), EINVAL);
    CHECK_ERR(fcntl(OPEN_MAX + 3, F_GETTTY, 0), EBADF);
    CHECK(mode() == 0, "a failed call changed the mode to %d", mode());
    close(path);
    close(null);
    PASS();
}

/* A process outside the group in front may not change the mode, either
 * way (EPERM): a background job must not turn the input of the job in
 * front raw, or cooked under its line editor. With no group in front
 * (tcsetpgrp(0), a shell at its prompt) anyone may. */
static void only_the_foreground_group_changes_the_mode(void)
{
    CHECK(tcsetpgrp(getpid() + 1000) == 0, "tcsetpgrp another group");
    CHECK_ERR(fcntl(STDIN_FILENO, F_SETTTY, TTY_RAW), EPERM);
    CHECK(mode() == 0, "refused, yet F_GETTTY gives %d", mode());
    CHECK_ERR(fcntl(STDIN_FILENO, F_SETTTY, 0), EPERM);
    CHECK(tcsetpgrp(getpid()) == 0, "tcsetpgrp our own group");
    CHECK(fcntl(STDIN_FILENO, F_SETTTY, TTY_RAW) == 0 && mode() == TTY_RAW, "raw in front");
    CHECK(fcntl(STDIN_FILENO, F_SETTTY, 0) == 0 && mode() == 0, "cooked in front");
    CHECK(tcsetpgrp(0) == 0, "tcsetpgrp(0)");
    PASS();
}

/* A read of the console with nothing typed waits, and a kill ends the
 * wait (nobody types during the suites: only the kill can). */
static void a_console_read_is_ended_by_kill(void)
{
    int pid, status = 0;
    char c;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        read(STDIN_FILENO, &c, 1);
        _exit(1);
    }
    CHECK(pid > 0 && wait_until_sleeping(pid, 2000), "the reader does not wait");
    CHECK(kill(pid, SIGKILL) == 0, "kill");
    CHECK(wait_child_ms(pid, 2000, &status) && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
          "the reader outlived the kill (status %x)", status);
    PASS();
}

/* ---- the foreground group and session, which the console keeps as
 * numbers: a number comes back after the pids wrap (booted with
 * pidmax=300, tools/test.py), so an ended group or session must not stay
 * named, or whoever led the next of its number would find itself in
 * front: the console's input and ^C its, others' reads EIO. */

#define WRAP_FORKS (4 * 300)            /* pidmax=300: a pid is back within these */

/* A child that leads a group of its own and sleeps until killed; the
 * caller makes the group too, whichever runs first, as the shell does.
 * With session, it leads a session as well and takes the console (as
 * root may: init's login child does so), and the caller waits for that. */
static int sleeper(int session)
{
    int pid, i;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        if (session && setsid() > 0)
            tcsetpgrp(getpid());
        else if (!session)
            setpgid(0, 0);
        for (;;)
            sleep_ms(1000);
    }
    if (pid > 0 && !session)
        setpgid(pid, pid);
    for (i = 0; pid > 0 && session && i < 400 && tcgetpgrp() != pid; i++)
        sleep_ms(5);
    return pid;
}

/* Forks until a child gets pid (each other child exits at once), and has
 * that child run later(): its result, 1 if it found what it should, 2
 * if not; 0 if the pid never came back. */
static int in_later_process_of(int pid, int (*later)(void))
{
    int i, c, status, found = 0;

    fflush(stdout);
    for (i = 0; i < WRAP_FORKS && !found; i++) {
        if ((c = fork()) == 0)
            _exit(getpid() != pid ? 0 : later());
        if (c < 0 || waitpid(c, &status, 0) != c || !WIFEXITED(status))
            return -1;
        found = WEXITSTATUS(status);
    }
    return found;
}

/* Group G in front, then its only process killed and reaped: no group is
 * in front (as after tcsetpgrp(0)), so the caller, of another group,
 * reads again. The old kernel kept G's number in front. */
static void a_group_that_ends_in_front_leaves_none_in_front(void)
{
    int g = sleeper(0), status;

    CHECK(g > 0 && tcsetpgrp(g) == 0 && tcgetpgrp() == g, "the sleeper's group in front");
    CHECK(console_read_error() == EIO, "behind another group, a read: %s",
          strerror(console_read_error()));
    kill(g, SIGKILL);
    CHECK(waitpid(g, &status, 0) == g, "waitpid");
    CHECK(tcgetpgrp() == 0, "group %d has ended, yet tcgetpgrp() gives %d", g, tcgetpgrp());
    CHECK(console_read_error() == EAGAIN, "no group in front, a read: %s",
          strerror(console_read_error()));
    PASS();
}

static int finds_itself_not_in_front(void)
{
    setpgid(0, 0);                      /* leads a new group: the number of the old */
    return tcgetpgrp() == getpid() || console_read_error() != EAGAIN ? 2 : 1;
}

/* The wrap itself: group G in front ends, the pids wrap, and a new
 * process given G's pid leads a group of that number. On the old kernel
 * that group was in front (tcgetpgrp() named it; ^C would kill it, and
 * only it could read); now no group is. */
static void a_later_group_of_its_number_is_not_in_front(void)
{
    int front, status, found;

    front = sleeper(0);
    CHECK(front > 0 && tcsetpgrp(front) == 0, "the sleeper's group in front");
    kill(front, SIGKILL);
    CHECK(waitpid(front, &status, 0) == front, "waitpid");
    found = in_later_process_of(front, finds_itself_not_in_front);
    tcsetpgrp(0);
    CHECK(found > 0, "pid %d never came back in %d forks (%d)", front, WRAP_FORKS, found);
    CHECK(found == 1, "the later group %d found itself in front of the console", front);
    PASS();
}

/* A group ends also when its last process moves out of it (setpgid, or
 * setsid) after its leader has gone: the number is free at once. While
 * a process is left in it, it stays in front. Both ways, in turn. */
static void a_group_ends_in_front_when_its_last_process_moves_out(void)
{
    static const char *const how[] = { "setpgid(0, 0)", "setsid()" };
    int g, p[2], m, status, by;
    char c = 'g';

    for (by = 0; by < 2; by++) {
        g = sleeper(0);
        CHECK(g > 0 && pipe(p) == 0, "fork, pipe");
        fflush(stdout);
        if ((m = fork()) == 0) {
            close(p[1]);
            if (setpgid(0, g) < 0 || read(p[0], &c, 1) != 1)
                _exit(1);
            _exit((by ? setsid() : setpgid(0, 0)) < 0 ? 2 : 0);
        }
        close(p[0]);
        CHECK(m > 0 && setpgid(m, g) == 0, "the member joins group %d", g);
        CHECK(tcsetpgrp(g) == 0, "group %d in front", g);
        kill(g, SIGKILL);
        CHECK(waitpid(g, &status, 0) == g, "waitpid");
        CHECK(tcgetpgrp() == g, "group %d has a process left, yet tcgetpgrp() gives %d", g,
              tcgetpgrp());
        write(p[1], &c, 1);
        close(p[1]);
        CHECK(waitpid(m, &status, 0) == m && status == 0, "the member's %s: status %x", how[by],
              status);
        CHECK(tcgetpgrp() == 0, "its last process left group %d by %s, yet tcgetpgrp() gives %d", g,
              how[by], tcgetpgrp());
        CHECK(console_read_error() == EAGAIN, "no group in front, a read: %s",
              strerror(console_read_error()));
    }
    PASS();
}

/* Root gives the console to a session of its own (tcsetpgrp from a
 * setsid child), which then ends: the console goes back to init's
 * session, whose it was at boot, and we (of init's session) read it.
 * The old kernel kept the dead session's number: our reads failed EIO
 * until someone took the console back, and a process that got the
 * number after a wrap and called setsid() had it. */
static void a_session_that_ends_with_the_console_gives_it_back(void)
{
    int s = sleeper(1), status;

    CHECK(s > 0, "fork");
    CHECK(tcgetpgrp() == s && console_read_error() == EIO,
          "session %d's group in front: tcgetpgrp() %d, our read %s", s, tcgetpgrp(),
          strerror(console_read_error()));
    kill(s, SIGKILL);
    CHECK(waitpid(s, &status, 0) == s, "waitpid");
    CHECK(tcgetpgrp() == 0 && console_read_error() == EAGAIN,
          "session %d has ended: tcgetpgrp() %d, our read %s", s, tcgetpgrp(),
          strerror(console_read_error()));
    PASS();
}

static int finds_the_console_not_its_sessions(void)
{
    setsid();                           /* leads a new session: the number of the old */
    return tcgetpgrp() == getpid() || console_read_error() != EIO ? 2 : 1;
}

static void a_later_session_of_its_number_does_not_get_the_console(void)
{
    int front, status, found;

    front = sleeper(1);
    CHECK(front > 0 && tcgetpgrp() == front, "session %d's group in front", front);
    kill(front, SIGKILL);
    CHECK(waitpid(front, &status, 0) == front, "waitpid");
    found = in_later_process_of(front, finds_the_console_not_its_sessions);
    tcsetpgrp(0);
    CHECK(found > 0, "pid %d never came back in %d forks (%d)", front, WRAP_FORKS, found);
    CHECK(found == 1, "the later session %d found the console its own", front);
    PASS();
}

/* `t_tty ctrl_c`, typed into the shell by tools/test.py (shell/tty, booted
 * with pidmax=300): the job puts a group of its own in front, which ends;
 * the pids wrap and a new group of that number sleeps; the harness types
 * ^C. The old kernel killed the new group with it (status 1); now no group
 * is in front, and ^C only throws the line away. */
static int ctrl_c_reaches_no_later_group(void)
{
    int g = sleeper(0), later = -1, c, i, status, p[2];
    char ch;

    if (g <= 0 || tcsetpgrp(g) < 0 || kill(g, SIGKILL) < 0 || waitpid(g, &status, 0) != g ||
        pipe(p) < 0)
        return 3;
    for (i = 0; i < WRAP_FORKS && later < 0; i++) {
        fflush(stdout);
        if ((c = fork()) == 0) {
            if (getpid() != g)
                _exit(0);
            setpgid(0, 0);
            write(p[1], "r", 1);
            for (;;)
                sleep_ms(1000);
        }
        if (c == g)
            later = c;
        else if (c < 0 || waitpid(c, &status, 0) != c)
            return 3;
    }
    if (later < 0 || setpgid(later, later) < 0 || read(p[0], &ch, 1) != 1)
        return 3;
    printf("t_tty: the later group %d waits for ^C\n", later);
    fflush(stdout);
    for (i = 0; i < 60 && waitpid(later, &status, WNOHANG) == 0; i++)
        sleep_ms(50);
    if (i < 60) {
        printf("t_tty: ^C killed the later group %d (signal %d)\n", later, WTERMSIG(status));
        return 1;
    }
    kill(later, SIGKILL);
    waitpid(later, &status, 0);
    printf("t_tty: ^C killed no later group\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "ctrl_c") == 0)
        return ctrl_c_reaches_no_later_group();
    the_console_starts_cooked();
    raw_mode_is_set_and_cleared_through_a_console_fd();
    raw_mode_ends_when_its_owner_exits();
    raw_mode_ends_when_its_owner_is_killed();
    a_new_foreground_group_starts_cooked();
    raw_mode_survives_its_owners_group_put_in_front();
    only_a_console_fd_readied_for_io_has_a_mode();
    only_the_foreground_group_changes_the_mode();
    a_console_read_is_ended_by_kill();
    a_group_that_ends_in_front_leaves_none_in_front();
    tcsetpgrp(0);                       /* whatever a failed test left in front */
    a_later_group_of_its_number_is_not_in_front();
    tcsetpgrp(0);
    a_group_ends_in_front_when_its_last_process_moves_out();
    tcsetpgrp(0);
    a_session_that_ends_with_the_console_gives_it_back();
    tcsetpgrp(0);
    a_later_session_of_its_number_does_not_get_the_console();
    tcsetpgrp(0);
    printf("t_tty: done\n");
    return t_failures != 0;
}
