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

int main(void)
{
    the_console_starts_cooked();
    raw_mode_is_set_and_cleared_through_a_console_fd();
    raw_mode_ends_when_its_owner_exits();
    raw_mode_ends_when_its_owner_is_killed();
    a_new_foreground_group_starts_cooked();
    raw_mode_survives_its_owners_group_put_in_front();
    only_a_console_fd_readied_for_io_has_a_mode();
    only_the_foreground_group_changes_the_mode();
    a_console_read_is_ended_by_kill();
    printf("t_tty: done\n");
    return t_failures != 0;
}
