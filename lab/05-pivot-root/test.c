/* lab05 - graded tests for lab 05: pivot_root() built in the C library
 * from walk, unbind, fchroot and bind.
 *
 * On the lab's course branch Labs 01-04 are done and Lab 06 is a stub. Each
 * test runs in a child of its own (lab.h) that first calls unshare(), so
 * the namespace it turns around is its own; it makes its own names under
 * /tmp (the filesystem is still shared) and starts in a working directory
 * other than the root, so that "root" and "cwd" can be told apart. */
#include <fcntl.h>
#include <orthos.h>
#include <sys/mount.h>
#include <unistd.h>
#include "lab.h"
#include "array_size.h"

static char nr[32], cwd0[64];

/* A private namespace with a new ramfs attached at /tmp/<name> holding
 * "old/" and "marker", and the cwd in /tmp/<name>.cwd; 0 or -1. */
static int setup(const char *name)
{
    char path[64];

    snprintf(nr, sizeof(nr), "/tmp/%s", name);
    snprintf(cwd0, sizeof(cwd0), "/tmp/%s.cwd", name);
    snprintf(path, sizeof(path), "%s/old", nr);
    if (unshare() < 0 || mkdir(nr, 0755) < 0 || mount("ramfs", NULL, nr, "") < 0 ||
        mkdir(path, 0755) < 0)
        return -1;
    snprintf(path, sizeof(path), "%s/marker", nr);
    if (put_file(path, "new root") < 0 || mkdir(cwd0, 0755) < 0 || chdir(cwd0) < 0)
        return -1;
    return 0;
}

/* /proc/self/ns with its lines sorted (the order of attachments made at
 * different times may differ; the set may not). */
static const char *ns_set(char *out, int size)
{
    char buf[4096], *lines[128], *p, *tmp;
    int n = 0, i, j, len = 0;

    out[0] = '\0';
    if (slurp("/proc/self/ns", buf, sizeof(buf)) <= 0)
        return out;
    for (p = strtok(buf, "\n"); p && n < 128; p = strtok(NULL, "\n"))
        lines[n++] = p;
    for (i = 1; i < n; i++)
        for (j = i; j > 0 && strcmp(lines[j - 1], lines[j]) > 0; j--) {
            tmp = lines[j];
            lines[j] = lines[j - 1];
            lines[j - 1] = tmp;
        }
    for (i = 0; i < n && len < size - 1; i++)
        len += snprintf(out + len, size - len, "%s\n", lines[i]);
    return out;
}

static int exists(const char *path)
{
    int fd = walk(AT_CWD, path, 0);

    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

/* Root, cwd and namespace are as before: /bin/true is reachable, the cwd
 * is cwd0, the new root is still attached at nr, and ns lists what it did. */
static const char *unchanged(const char *ns_before)
{
    static char ns[4096], why[128];
    char here[64] = "", marker[64];

    snprintf(marker, sizeof(marker), "%s/marker", nr);
    if (!exists("/bin/true"))
        return "the root moved: /bin/true is gone";
    if (!getcwd(here, sizeof(here)) || strcmp(here, cwd0) != 0) {
        snprintf(why, sizeof(why), "the cwd moved: it is '%s', was '%s'", here, cwd0);
        return why;
    }
    if (!exists(marker))
        return "the new root is no longer attached at its place";
    if (strcmp(ns_set(ns, sizeof(ns)), ns_before) != 0)
        return "/proc/self/ns changed";
    return NULL;
}

static void pivot_root_makes_the_new_fs_the_root_and_the_cwd(void)
{
    char buf[32] = "";
    int d;

    CHECK(setup("l5a") == 0, "setup");
    CHECK(pivot_root(nr, "/old") == 0, "pivot_root");
    CHECK(slurp("/marker", buf, sizeof(buf)) == 8 && !strcmp(buf, "new root"),
          "/marker is not the new root's file");
    CHECK(exists("marker"), "the cwd did not move to the new root: 'marker' is not there");
    CHECK(getcwd(buf, sizeof(buf)) && !strcmp(buf, "/"), "getcwd is '%s', want '/'", buf);
    /* any attachment will do, also a bind of a directory of the same
     * filesystem (same st_dev as the directory it is attached in) */
    CHECK(mkdir("/sub", 0755) == 0 && mkdir("/sub/old", 0755) == 0 &&
              put_file("/sub/inner", "inner") == 0 && mkdir("/b", 0755) == 0,
          "setup in the new root");
    CHECK((d = walk(AT_CWD, "/sub", 0)) >= 0 && bind(d, AT_CWD, "/b", 0) == 0, "bind /sub at /b");
    close(d);
    CHECK(pivot_root("/b", "/old") == 0, "pivot_root onto a bind of a directory of the same fs");
    CHECK(exists("/inner") && exists("/old/marker"), "/inner and /old/marker after the pivot");
    PASS();
}

static void the_old_root_is_reachable_only_at_put_old(void)
{
    CHECK(setup("l5b") == 0, "setup");
    CHECK(pivot_root(nr, "/old") == 0, "pivot_root");
    CHECK(exists("/old/bin/true"), "/old/bin/true: the old root is not at put_old");
    CHECK(exists("/old/dev/console"), "/old/dev/console: the old root came without its "
                                      "attachments");
    CHECK(exists("/old/proc/self/ns"), "/old/proc: the old root came without its attachments");
    CHECK_ERR(walk(AT_CWD, "/bin/true", 0), ENOENT);
    CHECK_ERR(walk(AT_CWD, "/../../bin", 0), ENOENT);
    CHECK(exists("/../../marker") && exists("../marker"), "'..' climbed out of the new root");
    CHECK_ERR(walk(AT_CWD, "/old/tmp/l5b/marker", 0), ENOENT);  /* detached from the old tree */
    /* the old root is attached as it was, not read-only: it can still be changed */
    CHECK(put_file("/old/l5b-written", "w") == 0,
          "a file cannot be made in the old root at /old (errno %d): it must be bound there as it "
          "was, with no attribute added",
          errno);
    CHECK(unlink("/old/l5b-written") == 0, "unlink /old/l5b-written");
    PASS();
}

#define LONG_ROOT "/a-new-root-whose-own-name-is-longer-than-sixty-four-bytes-in-all"

static void put_old_is_a_name_inside_the_new_root(void)
{
    CHECK(setup("l5c") == 0 && mkdir("/tmp/l5c/deep", 0755) == 0 &&
              mkdir("/tmp/l5c/deep/er", 0755) == 0,
          "setup");
    CHECK(pivot_root(nr, "deep/er") == 0, "pivot_root with a relative put_old");
    CHECK(exists("/deep/er/bin/true"), "the old root is not at /deep/er");
    CHECK(exists("/old"), "the new root's own old/ is gone");
    /* every leading slash is skipped: "//put" is put/ in the new root, which
     * the current root does not have */
    CHECK(mkdir("/next", 0755) == 0 && mount("ramfs", NULL, "/next", "") == 0 &&
              mkdir("/next/put", 0755) == 0,
          "setup: a second new root");
    CHECK(pivot_root("/next", "//put") == 0, "pivot_root(new_root, \"//put\") gave errno %d",
          errno);
    CHECK(exists("/put/deep/er/bin/true"), "the old root is not at /put after \"//put\"");
    CHECK(mkdir("/third", 0755) == 0 && mount("ramfs", NULL, "/third", "") == 0 &&
              mkdir("/third/again", 0755) == 0,
          "setup: a third new root");
    CHECK(pivot_root("/third", "///again") == 0, "pivot_root(new_root, \"///again\") gave errno %d",
          errno);
    CHECK(exists("/again/put/deep/er/bin/true"), "the old root is not at /again after "
                                                 "\"///again\": skip every leading slash");
    /* names of any length: a new root whose own name is longer than 64 bytes */
    CHECK(mkdir(LONG_ROOT, 0755) == 0 && mount("ramfs", NULL, LONG_ROOT, "") == 0 &&
              mkdir(LONG_ROOT "/o", 0755) == 0,
          "setup: a new root with a long name");
    CHECK(pivot_root(LONG_ROOT, "o") == 0,
          "pivot_root onto a new root named by %d bytes gave "
          "errno %d: no name length is special",
          (int)strlen(LONG_ROOT), errno);
    CHECK(exists("/o/again/put/deep/er/bin/true"), "the old root is not at /o");
    PASS();
}

static void umount_of_put_old_drops_the_old_tree(void)
{
    CHECK(setup("l5d") == 0, "setup");
    CHECK(pivot_root(nr, "/old") == 0, "pivot_root");
    CHECK(umount("/old") == 0, "umount /old");
    CHECK_ERR(walk(AT_CWD, "/old/bin", 0), ENOENT);
    CHECK(exists("/marker"), "the new root went too");
    PASS();
}

static void a_bad_new_root_changes_nothing(void)
{
    char ns[4096];
    const char *why;

    CHECK(setup("l5e") == 0 && mkdir("/tmp/l5e.plain", 0755) == 0 &&
              mkdir("/tmp/l5e.plain/old", 0755) == 0,
          "setup");
    ns_set(ns, sizeof(ns));
    CHECK_ERR(pivot_root("/tmp/l5e/marker", "/old"), ENOTDIR);
    CHECK(!(why = unchanged(ns)), "after ENOTDIR: %s", why);
    CHECK_ERR(pivot_root("/tmp/l5e.plain", "/old"), EINVAL);   /* nothing attached there */
    CHECK(!(why = unchanged(ns)), "after EINVAL: %s", why);
    CHECK_ERR(pivot_root("/tmp/l5e.none", "/old"), ENOENT);
    CHECK(!(why = unchanged(ns)), "after ENOENT: %s", why);
    PASS();
}

static void a_missing_put_old_changes_nothing(void)
{
    char ns[4096];
    const char *why;

    CHECK(setup("l5f") == 0, "setup");
    ns_set(ns, sizeof(ns));
    CHECK_ERR(pivot_root(nr, "/nonexistent"), ENOENT);
    CHECK(!(why = unchanged(ns)), "%s", why);
    CHECK_ERR(pivot_root(nr, "old/x"), ENOENT);
    CHECK(!(why = unchanged(ns)), "%s", why);
    PASS();
}

/* put_old names a file: the bind fails (a directory on a file), after the
 * root moved. Everything done so far must be undone, for a new_root given
 * relative to the cwd too. */
static void a_failure_after_the_root_moved_is_undone(void)
{
    char ns[4096], here[64] = "";
    const char *why;
    int fs, f;

    CHECK(setup("l5g") == 0 && put_file("/tmp/l5g/afile", "f") == 0, "setup");
    ns_set(ns, sizeof(ns));
    CHECK_ERR(pivot_root(nr, "/afile"), ENOTDIR);
    CHECK(!(why = unchanged(ns)), "%s", why);
    CHECK(chdir("/tmp") == 0, "chdir /tmp");
    CHECK_ERR(pivot_root("l5g", "/afile"), ENOTDIR);
    CHECK(exists("/tmp/l5g/marker"), "after an undone pivot_root(\"l5g\", ...) from /tmp the new "
                                     "root is no longer attached at /tmp/l5g");
    CHECK(exists("/bin/true") && getcwd(here, sizeof(here)) && !strcmp(here, "/tmp"),
          "root or cwd not restored: the cwd is '%s'", here);
    /* a cwd that no name reaches (in a ramfs attached nowhere) is put back too */
    CHECK((fs = fsopen("ramfs", -1, NULL)) >= 0 &&
              (f = create(fs, "inside", S_IFREG, 0644, 0)) >= 0 && fchdir(fs) == 0,
          "setup: the cwd in a ramfs attached nowhere");
    close(f);
    close(fs);
    CHECK_ERR(pivot_root(nr, "/afile"), ENOTDIR);
    CHECK(exists("/bin/true") && exists("inside"),
          "after an undone pivot_root the cwd is not the one it had (a ramfs attached nowhere, "
          "which no name reaches: put it back by the fd taken on it)");
    CHECK(chdir("/tmp") == 0, "chdir /tmp");
    /* new_root through a symlink: the copy to cut has the new root's name */
    CHECK(symlink(nr, "/tmp/l5g.link") == 0, "setup: a symlink to new_root");
    CHECK(pivot_root("/tmp/l5g.link", "/old") == 0,
          "a pivot_root through a symlink to new_root, after the undone ones: errno %d", errno);
    CHECK(exists("/old/bin/true") && exists("/marker"), "the second pivot_root did not work");
    CHECK_ERR(walk(AT_CWD, "/old/tmp/l5g/marker", 0), ENOENT);  /* detached from the old tree */
    PASS();
}

static void pivot_root_leaves_no_fd_behind(void)
{
    int fds0, n;

    CHECK(setup("l5h") == 0 && put_file("/tmp/l5h/afile", "f") == 0, "setup");
    fds0 = open_fds();
    pivot_root("/tmp/l5h/marker", "/old");
    CHECK((n = open_fds()) == fds0, "%d fds open after a failed pivot_root (ENOTDIR), %d before", n,
          fds0);
    pivot_root(nr, "/nonexistent");
    CHECK((n = open_fds()) == fds0, "%d fds open after a failed pivot_root (ENOENT), %d before", n,
          fds0);
    pivot_root(nr, "/afile");
    CHECK((n = open_fds()) == fds0, "%d fds open after an undone pivot_root, %d before", n, fds0);
    CHECK(mkdir("/tmp/l5h.plain", 0755) == 0 && mkdir("/tmp/l5h.plain/old", 0755) == 0, "setup");
    pivot_root("/tmp/l5h.plain", "/old");
    CHECK((n = open_fds()) == fds0,
          "%d fds open after a failed pivot_root (EINVAL: nothing attached), %d before", n, fds0);
    CHECK(pivot_root(nr, "/old") == 0, "pivot_root");
    CHECK((n = open_fds()) == fds0, "%d fds open after pivot_root, %d before", n, fds0);
    PASS();
}

/* What is attached below new_root goes with it (an initramfs mounts
 * /sysroot/proc, then pivots to /sysroot): after an undone pivot it is
 * still there, and after a pivot (new_root given relative to the cwd) it
 * is below the new root, while the old tree at put_old holds no copy of
 * the new one. */
static void attachments_below_the_new_root_stay_with_it(void)
{
    char inner[64];

    CHECK(setup("l5n") == 0 && mkdir("/tmp/l5n/sub", 0755) == 0 &&
              mount("ramfs", NULL, "/tmp/l5n/sub", "") == 0 &&
              put_file("/tmp/l5n/sub/inner", "inner") == 0 && put_file("/tmp/l5n/afile", "f") == 0,
          "setup: a ramfs attached at new_root/sub");
    CHECK_ERR(pivot_root(nr, "/afile"), ENOTDIR);
    snprintf(inner, sizeof(inner), "%s/sub/inner", nr);
    CHECK(exists(inner), "the ramfs attached at new_root/sub is gone after an undone pivot_root");
    CHECK(chdir("/tmp") == 0, "chdir /tmp");
    CHECK(pivot_root("l5n", "/old") == 0, "pivot_root(\"l5n\", \"/old\") from /tmp");
    CHECK(exists("/sub/inner"), "the ramfs attached at new_root/sub is gone after the pivot");
    CHECK(exists("/old/tmp/l5n") && !exists("/old/tmp/l5n/marker"),
          "the new tree is still inside the old one at /old/tmp/l5n");
    PASS();
}

/* A whole pivot in a child: a ramfs holding 64 pages bound over /tmp of a
 * private namespace becomes the root, and the old root is dropped. Once the
 * child is gone every page must be back. */
static int pivot_and_leave(void)
{
    static char page[4096];
    int fs, d, f, io, i;

    if (unshare() < 0 || (fs = fsopen("ramfs", -1, NULL)) < 0 ||
        (d = create(fs, "old", S_IFDIR, 0755, 0)) < 0 ||
        (f = create(fs, "big", S_IFREG, 0644, 0)) < 0 || (io = ready(f, R_WRITE)) < 0)
        return 1;
    for (i = 0; i < 64; i++)
        if (write(io, page, sizeof(page)) != sizeof(page))
            return 2;
    close(io);
    close(f);
    close(d);
    if (bind(fs, AT_CWD, "/tmp", 0) < 0)
        return 3;
    close(fs);
    if (pivot_root("/tmp", "/old") < 0)
        return 4;
    if (umount("/old") < 0 || walk(AT_CWD, "/big", 0) < 0)
        return 5;
    return 0;
}

static void a_pivot_leaks_no_pages(void)
{
    int code, lost;

    lost = pages_lost_in_child(pivot_and_leave, &code);
    CHECK(code == 0, "the child failed at step %d", code);
    CHECK(lost <= 0, "%d pages lost once the pivoted process was gone", lost);
    PASS();
}

static const struct lab_test tests[] = {
    LAB_TEST(pivot_root_makes_the_new_fs_the_root_and_the_cwd),
    LAB_TEST(the_old_root_is_reachable_only_at_put_old),
    LAB_TEST(put_old_is_a_name_inside_the_new_root),
    LAB_TEST(umount_of_put_old_drops_the_old_tree),
    LAB_TEST(a_bad_new_root_changes_nothing),
    LAB_TEST(a_missing_put_old_changes_nothing),
    LAB_TEST(a_failure_after_the_root_moved_is_undone),
    LAB_TEST(pivot_root_leaves_no_fd_behind),
    LAB_TEST(attachments_below_the_new_root_stay_with_it),
    LAB_TEST(a_pivot_leaks_no_pages),
};

int main(int argc, char **argv)
{
    return lab_main("lab05", tests, ARRAY_SIZE(tests), argc, argv);
}
