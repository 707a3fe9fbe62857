/* lab05 - graded tests for lab 05: pivot_root() built in the C library
 * from walk, unbind, fchroot and bind. Each test runs in a child that
 * first unshare()s its namespace, so the rest of the system is untouched. */
#include <fcntl.h>
#include <orthos.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>
#include "t.h"

/* Run fn in a child with a private namespace; its exit code. */
static int in_private_ns(int (*fn)(void))
{
    int pid, status;

    fflush(stdout);
    if ((pid = fork()) == 0)
        _exit(unshare() == 0 ? fn() : 99);
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

static int new_root(void)
{
    int f;

    if ((mkdir("/tmp/nr", 0755) < 0 && errno != EEXIST) ||
        mount("ramfs", NULL, "/tmp/nr", "") < 0 || mkdir("/tmp/nr/old", 0755) < 0)
        return -1;
    if ((f = create(AT_CWD, "/tmp/nr/marker", S_IFREG, 0644, 0)) < 0)
        return -1;
    close(f);
    return 0;
}

static int makes_new_root(void)
{
    int f;

    if (new_root() < 0)
        return 1;
    if (pivot_root("/tmp/nr", "/old") < 0)
        return 2;
    if ((f = walk(AT_CWD, "/marker", 0)) < 0)
        return 3;
    close(f);
    if ((f = walk(AT_CWD, "marker", 0)) < 0)
        return 4;                       /* the cwd moved too */
    close(f);
    return 0;
}

static void pivot_root_makes_the_new_fs_the_root(void)
{
    int code = in_private_ns(makes_new_root);

    CHECK(code == 0, "failed at step %d", code);
    PASS();
}

static int old_root_at_put_old(void)
{
    int f;

    if (new_root() < 0 || pivot_root("/tmp/nr", "/old") < 0)
        return 1;
    if ((f = walk(AT_CWD, "/old/bin/true", 0)) < 0)
        return 2;
    close(f);
    if ((f = walk(AT_CWD, "/old/dev/console", 0)) < 0)
        return 3;                       /* with what was attached inside it */
    close(f);
    if (walk(AT_CWD, "/bin/true", 0) >= 0 || errno != ENOENT)
        return 4;
    if ((f = walk(AT_CWD, "/../../bin", 0)) >= 0 || errno != ENOENT)
        return 5;                       /* ".." does not climb out of the new root */
    return 0;
}

static void the_old_root_is_reachable_only_at_put_old(void)
{
    int code = in_private_ns(old_root_at_put_old);

    CHECK(code == 0, "failed at step %d", code);
    PASS();
}

static int umount_put_old(void)
{
    if (new_root() < 0 || pivot_root("/tmp/nr", "/old") < 0)
        return 1;
    if (umount("/old") < 0)
        return 2;
    if (walk(AT_CWD, "/old/bin", 0) >= 0 || errno != ENOENT)
        return 3;
    return 0;
}

static void umount_of_put_old_removes_the_old_tree(void)
{
    int code = in_private_ns(umount_put_old);

    CHECK(code == 0, "failed at step %d", code);
    PASS();
}

static int missing_put_old(void)
{
    int f;

    if (new_root() < 0)
        return 1;
    if (pivot_root("/tmp/nr", "/nonexistent") == 0 || errno != ENOENT)
        return 2;
    if ((f = walk(AT_CWD, "/bin/true", 0)) < 0)
        return 3;                       /* nothing moved */
    close(f);
    if ((f = walk(AT_CWD, "/tmp/nr/marker", 0)) < 0)
        return 4;                       /* the new root is still attached */
    close(f);
    if (pivot_root("/tmp/nr/marker", "/old") == 0 || errno != ENOTDIR)
        return 5;
    return 0;
}

static void pivot_root_with_a_bad_argument_changes_nothing(void)
{
    int code = in_private_ns(missing_put_old);

    CHECK(code == 0, "failed at step %d", code);
    PASS();
}

int main(void)
{
    pivot_root_makes_the_new_fs_the_root();
    the_old_root_is_reachable_only_at_put_old();
    umount_of_put_old_removes_the_old_tree();
    pivot_root_with_a_bad_argument_changes_nothing();
    printf("lab05: done\n");
    return t_failures != 0;
}
