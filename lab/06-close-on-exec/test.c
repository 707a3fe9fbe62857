/* lab06 - graded tests for lab 06: descriptors are closed on exec unless
 * marked FD_KEEP. Each test runs `cat /proc/self/fd` in an exec'd child
 * and reads what that new program can see. */
#include <fcntl.h>
#include <orthos.h>
#include <sys/wait.h>
#include <unistd.h>
#include "t.h"

/* The /proc/self/fd text of a freshly exec'd cat (run with `extra` on fd 3
 * of its own, through one more exec of /bin/env when `chain`). */
static int fds_after_exec(char *out, int size, int chain)
{
    char *cat[] = { "cat", "/proc/self/fd", NULL };
    char *env[] = { "env", "cat", "/proc/self/fd", NULL };
    int p[2], pid, n, got = 0, status;

    if (pipe(p) < 0)
        return -1;
    fflush(stdout);
    if ((pid = fork()) == 0) {
        dup2(p[1], 1);
        fcntl(1, F_SETFD, FD_KEEP);
        close(p[0]);
        close(p[1]);
        if (chain)
            execv("/bin/env", env);
        else
            execv("/bin/cat", cat);
        _exit(127);
    }
    close(p[1]);
    while (got < size - 1 && (n = read(p[0], out + got, size - 1 - got)) > 0)
        got += n;
    out[got] = '\0';
    close(p[0]);
    return waitpid(pid, &status, 0) == pid && status == 0 ? got : -1;
}

static int listed(const char *text, int fd)
{
    char key[8];

    snprintf(key, sizeof(key), "%d ", fd);
    return strncmp(text, key, strlen(key)) == 0 || (snprintf(key, sizeof(key), "\n%d ", fd),
                                                    strstr(text, key) != NULL);
}

static void exec_closes_fds_not_marked_keep(void)
{
    char out[512];
    int fd = open("/proc/meminfo", O_RDONLY);

    CHECK(fd >= 0 && dup2(fd, 12) == 12, "setup");
    close(fd);
    CHECK(fds_after_exec(out, sizeof(out), 0) > 0, "cat did not run");
    CHECK(!listed(out, 12), "fd 12 leaked into the new program:\n%s", out);
    CHECK(listed(out, 0) && listed(out, 1), "stdin/stdout missing:\n%s", out);
    close(12);
    PASS();
}

static void a_kept_fd_survives_while_its_unmarked_neighbour_does_not(void)
{
    char out[512];
    int fd = open("/proc/meminfo", O_RDONLY);

    CHECK(fd >= 0 && dup2(fd, 12) == 12 && dup2(fd, 13) == 13, "setup");
    close(fd);
    CHECK(fcntl(13, F_SETFD, FD_KEEP) == 0, "keep 13");
    CHECK(fds_after_exec(out, sizeof(out), 0) > 0, "cat did not run");
    CHECK(listed(out, 13) && strstr(out, "13 reg r keep"), "kept fd 13 missing:\n%s", out);
    CHECK(!listed(out, 12), "unmarked fd 12 leaked:\n%s", out);
    close(12);
    close(13);
    PASS();
}

static void dup_of_a_kept_fd_is_not_kept(void)
{
    char out[512];
    int fd = open("/proc/meminfo", O_RDONLY), d;

    CHECK(fd >= 0 && dup2(fd, 20) == 20 && fcntl(20, F_SETFD, FD_KEEP) == 0, "setup");
    close(fd);
    CHECK((d = dup(20)) >= 0 && fcntl(d, F_GETFD, 0) == 0, "dup must start unmarked");
    CHECK(dup2(d, 21) == 21 && fcntl(21, F_GETFD, 0) == 0, "dup2 must start unmarked");
    close(d);
    CHECK(fds_after_exec(out, sizeof(out), 0) > 0, "cat did not run");
    CHECK(listed(out, 20) && !listed(out, 21), "want 20 kept and 21 closed:\n%s", out);
    close(20);
    close(21);
    PASS();
}

static void the_keep_mark_lasts_through_a_chain_of_execs(void)
{
    char out[512];
    int fd = open("/proc/meminfo", O_RDONLY);

    CHECK(fd >= 0 && dup2(fd, 15) == 15 && dup2(fd, 16) == 16, "setup");
    close(fd);
    CHECK(fcntl(15, F_SETFD, FD_KEEP) == 0, "keep 15");
    CHECK(fds_after_exec(out, sizeof(out), 1) > 0, "env + cat did not run");
    CHECK(listed(out, 15), "fd 15 lost after two execs:\n%s", out);
    CHECK(!listed(out, 16), "unmarked fd 16 leaked through two execs:\n%s", out);
    close(15);
    close(16);
    PASS();
}

int main(void)
{
    exec_closes_fds_not_marked_keep();
    a_kept_fd_survives_while_its_unmarked_neighbour_does_not();
    dup_of_a_kept_fd_is_not_kept();
    the_keep_mark_lasts_through_a_chain_of_execs();
    printf("lab06: done\n");
    return t_failures != 0;
}
