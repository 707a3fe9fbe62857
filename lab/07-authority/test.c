/* lab07 - graded tests for lab 07: who may change a namespace
 * (ns_may_change) and who may revoke a filesystem (fs_may_revoke).
 *
 * Each test starts as root in a child of its own (lab.h) and drops to
 * the user `student` (uid 1000) for what a user tries; when root must
 * do something in between, the two share one fd table
 * (rfork(RFORK_SHAREFDS)), so that a filesystem one of them made is an
 * fd the other holds too. Every test tries at least one thing that must
 * be refused, so the stub (which allows everything) scores 0. */
#include <fcntl.h>
#include <orthos.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lab.h"
#include "array_size.h"

#define STUDENT 1000
/* a uid below 1000: on Unix a "system" one, here a user like any other */
#define SYSTEM_UID 1

/* Act for the student from now on; 0 or -1. */
static int become_student(void)
{
    return setgid(STUDENT) == 0 && setuid(STUDENT) == 0 ? 0 : -1;
}

/* fn run by a process sharing our fd table, as user uid (gid = uid): its
 * result (0 or an errno), or -1 if it could not be run. */
static int shared_as(int uid, int (*fn)(int), int arg)
{
    int pid, status;

    fflush(stdout);
    if ((pid = rfork(RFORK_SHAREFDS)) == 0) {
        if (setgid(uid) < 0 || setuid(uid) < 0)
            _exit(255);
        _exit(fn(arg));
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status) == 255 ? -1 : WEXITSTATUS(status);
}

/* The same, as the student. */
static int shared_as_student(int (*fn)(int), int arg)
{
    return shared_as(STUDENT, fn, arg);
}

/* For shared_as_student: 0, or the errno of the failed call. */
static int student_revoke(int fd)
{
    return revoke(fd) == 0 ? 0 : errno;
}

static int student_fsopen_at(int slot)
{
    int fs = fsopen("ramfs", -1, "");

    if (fs < 0)
        return errno;
    return dup2(fs, slot) == slot ? (close(fs), 0) : errno;
}

/* A fresh directory for this test under /tmp (root's, 0777). */
static int make_dir(const char *path)
{
    return mkdir(path, 0777) == 0 && chmod(path, 0777) == 0 ? 0 : -1;
}

/* The student still in root's group (uid 1000, gid 0), as after a
 * setuid without the setgid: a group grants nothing here, only the uid
 * counts. 0 or -1. */
static int become_student_in_roots_group(void)
{
    return setuid(STUDENT) == 0 && getgid() == 0 ? 0 : -1;
}

/* ------------------------------------------------------------ namespaces */

/* For in_child: 0 if the student in root's group changes nothing in the
 * boot namespace (EPERM each time), else the step that went wrong. */
static int roots_group_changes_nothing(void)
{
    int fs;

    if (become_student_in_roots_group() < 0 || (fs = fsopen("ramfs", -1, "")) < 0)
        return 1;
    if (bind(fs, AT_CWD, "/tmp/l7a", 0) == 0 || errno != EPERM)
        return 2;
    if (unbind(AT_CWD, "/tmp") >= 0 || errno != EPERM)
        return 3;
    if (fchroot(fs) == 0 || errno != EPERM)
        return 4;
    return 0;
}

/* For shared_as: 0, or the errno of a bind of a new ramfs at /tmp/l7a. */
static int user_binds(int unused)
{
    int fs = fsopen("ramfs", -1, "");

    (void)unused;
    return fs >= 0 && bind(fs, AT_CWD, "/tmp/l7a", 0) == 0 ? 0 : errno;
}

static void a_user_cannot_change_the_boot_namespace(void)
{
    int fs, code;

    CHECK(make_dir("/tmp/l7a") == 0, "setup");
    CHECK((code = in_child(roots_group_changes_nothing)) == 0,
          "as uid %d in root's group (gid 0), step %d: a change of the boot namespace was not "
          "EPERM (the uid decides, not the group)",
          STUDENT, code);
    /* every user, not only the student: uid 1 too (no uid but 0 is special) */
    code = shared_as(4242, user_binds, 0);
    CHECK(code == EPERM,
          "as uid 4242, a bind in the boot namespace: %s (want EPERM: only root "
          "and the namespace's owner may change it)",
          code > 0    ? strerror(code)
          : code == 0 ? "it worked"
                      : "did not run");
    code = shared_as(SYSTEM_UID, user_binds, 0);
    CHECK(code == EPERM,
          "as uid %d, a bind in the boot namespace: %s (want EPERM: only uid 0 is root, "
          "a uid below 1000 is a user like any other)",
          SYSTEM_UID,
          code > 0    ? strerror(code)
          : code == 0 ? "it worked"
                      : "did not run");
    CHECK(become_student() == 0, "setuid");
    CHECK((fs = fsopen("ramfs", -1, "")) >= 0, "fsopen of a ramfs needs no privilege");
    CHECK_ERR(bind(fs, AT_CWD, "/tmp/l7a", 0), EPERM);
    CHECK_ERR(bind(fs, AT_CWD, "/bin", 0), EPERM);
    CHECK_ERR(unbind(AT_CWD, "/tmp"), EPERM);
    CHECK_ERR(unbind(AT_CWD, "/dev"), EPERM);
    CHECK_ERR(fchroot(fs), EPERM);
    CHECK(walk(AT_CWD, "/dev/console", 0) >= 0, "/dev is still attached");
    PASS();
}

/* The student in root's group may revoke nothing of root's: not even a
 * ramfs root made, attached nowhere (a wrong "yes" breaks nothing else);
 * but a ramfs of their own, bound in a namespace of their own, is theirs
 * (the uid decides where it may be attached, not the group). */
static int roots_group_revokes_only_its_own(void)
{
    int fs, mine;

    if ((fs = fsopen("ramfs", -1, "")) < 0 || become_student_in_roots_group() < 0)
        return 1;
    if (revoke(fs) == 0 || errno != EPERM)
        return 2;
    if ((mine = fsopen("ramfs", -1, "")) < 0 || unshare() < 0 || bind(mine, AT_CWD, "/tmp", 0) < 0)
        return 3;
    return revoke(mine) == 0 ? 0 : 4;
}

static void a_user_binds_unbinds_and_chroots_in_a_namespace_of_their_own(void)
{
    int fs, u, pid, status;

    CHECK(make_dir("/tmp/l7b") == 0, "setup");
    CHECK(become_student() == 0, "setuid");
    CHECK((fs = fsopen("ramfs", -1, "")) >= 0, "fsopen");
    CHECK_ERR(bind(fs, AT_CWD, "/tmp/l7b", 0), EPERM);     /* not yet: the boot namespace */
    CHECK(unshare() == 0, "unshare");
    CHECK(bind(fs, AT_CWD, "/tmp/l7b", 0) == 0, "bind in one's own namespace");
    CHECK(bind(fs, AT_CWD, "/bin", 0) == 0, "even over /bin");
    CHECK((u = unbind(AT_CWD, "/bin")) >= 0, "unbind");
    close(u);
    if ((pid = fork()) == 0)            /* a child shares the namespace, and its owner's uid */
        _exit(bind(fs, AT_CWD, "/tmp/l7b", 0) == 0 ? 0 : 1);
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0,
          "a child in the same namespace binds too");
    CHECK(fchroot(fs) == 0, "fchroot in one's own namespace");
    PASS();
}

/* The owner is whoever called unshare, not "anyone but the boot one". */
static void a_namespace_root_unshared_is_still_roots(void)
{
    int fs, pid, status;

    CHECK(make_dir("/tmp/l7c") == 0, "setup");
    CHECK(unshare() == 0, "root unshares");
    CHECK((fs = fsopen("ramfs", -1, "")) >= 0, "fsopen");
    if ((pid = fork()) == 0) {
        if (become_student() < 0)
            _exit(2);
        _exit(bind(fs, AT_CWD, "/tmp/l7c", 0) < 0 && errno == EPERM ? 0 : 1);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status),
          "the student's child did not finish");
    CHECK(WEXITSTATUS(status) == 0, "the student bound in root's (unshared) namespace");
    CHECK(bind(fs, AT_CWD, "/tmp/l7c", 0) == 0, "root binds there");
    PASS();
}

/* ------------------------------------------------------------ revoke */

static void a_user_cannot_revoke_what_root_made(void)
{
    static const char *const roots[] = { "/", "/dev", "/proc", "/tmp" };
    int i, fd, c, detached, gone, code;

    CHECK((detached = fsopen("ramfs", -1, "")) >= 0, "root's ramfs, attached nowhere");
    CHECK((gone = fsopen("ramfs", -1, "")) >= 0 && revoke(gone) == 0, "root's revoked ramfs");
    CHECK((code = in_child(roots_group_revokes_only_its_own)) == 0,
          "as uid %d in root's group (gid 0), step %d: %s", STUDENT, code,
          code == 2   ? "the revoke of root's ramfs was not EPERM"
          : code == 4 ? "the revoke of one's own ramfs, bound in one's own namespace, failed"
                      : "setup");
    /* every user, not only the student: uid 4242, and uid 1 (no uid but 0 is special) */
    CHECK((code = shared_as(4242, student_revoke, detached)) == EPERM,
          "as uid 4242, the revoke of root's ramfs: %s",
          code > 0    ? strerror(code)
          : code == 0 ? "it worked"
                      : "did not run");
    CHECK((code = shared_as(SYSTEM_UID, student_revoke, detached)) == EPERM,
          "as uid %d, the revoke of root's ramfs: %s (a uid below 1000 is a user like any other)",
          SYSTEM_UID,
          code > 0    ? strerror(code)
          : code == 0 ? "it worked"
                      : "did not run");
    CHECK(become_student() == 0, "setuid");
    for (i = 0; i < (int)ARRAY_SIZE(roots); i++) {
        CHECK((fd = walk(AT_CWD, roots[i], 0)) >= 0, "walk %s", roots[i]);
        CHECK_ERR(revoke(fd), EPERM);
        close(fd);
    }
    CHECK_ERR(revoke(detached), EPERM);
    CHECK_ERR(revoke(gone), EPERM);     /* EPERM is checked first, before EIO (revoke(2)) */
    CHECK(unshare() == 0, "unshare");
    /* bound in the student's own namespace only, root's ramfs is still root's */
    CHECK(mkdir("/tmp/l7h", 0755) == 0 && bind(detached, AT_CWD, "/tmp/l7h", 0) == 0,
          "the student binds root's ramfs in their own namespace");
    CHECK_ERR(revoke(detached), EPERM); /* only what one made oneself, wherever it is */
    CHECK(mkdir("/tmp/l7d", 0755) == 0 && mount("ramfs", "none", "/tmp/l7d", "") == 0 &&
              mkdir("/tmp/l7d/old", 0755) == 0 && pivot_root("/tmp/l7d", "/old") == 0,
          "a pivot in one's own namespace");
    CHECK((fd = walk(AT_CWD, "/old", 0)) >= 0, "walk /old");
    CHECK_ERR(revoke(fd), EPERM);
    close(fd);
    CHECK((fd = walk(AT_CWD, "/old/dev/console", 0)) >= 0 && (c = ready(fd, R_WRITE)) >= 0 &&
              write(c, "", 0) == 0,
          "the console still works");
    PASS();
}

#define OTHERS 21                       /* another user's ramfs, in the shared table */

static void a_user_revokes_their_own_filesystem(void)
{
    int fs, d, dev, img;

    /* a ramfs another user (uid STUDENT + 1) made, attached nowhere: not the student's */
    CHECK(shared_as(STUDENT + 1, student_fsopen_at, OTHERS) == 0, "another user's ramfs");
    CHECK(become_student() == 0, "setuid");
    CHECK((dev = walk(AT_CWD, "/dev", 0)) >= 0, "walk /dev");
    CHECK_ERR(revoke(dev), EPERM);
    CHECK_ERR(revoke(OTHERS), EPERM);           /* only what one made oneself */
    CHECK(walk(OTHERS, ".", 0) >= 0, "another user's ramfs was revoked");
    CHECK((fs = fsopen("ramfs", -1, "")) >= 0, "fsopen");
    CHECK(revoke(fs) == 0, "revoke of one's own, attached nowhere");
    CHECK_ERR(walk(fs, ".", 0), EIO);
    close(fs);
    CHECK(unshare() == 0 && mkdir("/tmp/l7e", 0755) == 0, "setup");
    CHECK((fs = fsopen("ramfs", -1, "")) >= 0 && bind(fs, AT_CWD, "/tmp/l7e", 0) == 0,
          "bind in one's own namespace");
    CHECK((d = walk(AT_CWD, "/tmp/l7e", 0)) >= 0 && revoke(d) == 0,
          "revoke of one's own, attached in one's own namespace");
    CHECK(walk(AT_CWD, "/tmp/l7e/x", 0) < 0 && errno == ENOENT, "detached by the revoke");
    /* whatever its type and source: an ext2 instance the student made from an image */
    CHECK((img = open("/etc/sample.ext2", O_RDONLY)) >= 0, "open /etc/sample.ext2");
    CHECK((fs = fsopen("ext2", img, "ro")) >= 0, "fsopen of ext2 on /etc/sample.ext2, errno %d",
          errno);
    close(img);
    CHECK(revoke(fs) == 0,
          "revoke of one's own ext2 instance (it has a source) gave errno %d: "
          "a user may revoke every instance they made, whatever its source",
          errno);
    CHECK_ERR(walk(fs, ".", 0), EIO);
    close(fs);
    /* one's own ramfs as one's root: allowed here, fs_revoke says EBUSY (revoke(2)) */
    CHECK((fs = fsopen("ramfs", -1, "")) >= 0 && fchroot(fs) == 0, "fchroot to one's own ramfs");
    CHECK_ERR(revoke(fs), EBUSY);
    PASS();
}

#define SHARED 20                       /* the student's ramfs, in the shared table */

static void a_users_filesystem_attached_in_roots_namespace_is_roots_to_revoke(void)
{
    int u, r;

    CHECK(shared_as_student(student_fsopen_at, SHARED) == 0, "the student's ramfs");
    CHECK(make_dir("/tmp/l7f") == 0 && bind(SHARED, AT_CWD, "/tmp/l7f", 0) == 0,
          "root binds it in the boot namespace");
    r = shared_as_student(student_revoke, SHARED);
    CHECK(r == EPERM, "the student's revoke while root's namespace shows it: %s",
          r > 0    ? strerror(r)
          : r == 0 ? "it worked"
                   : "did not run");
    CHECK((u = unbind(AT_CWD, "/tmp/l7f")) >= 0, "root unbinds it");
    close(u);
    r = shared_as_student(student_revoke, SHARED);
    CHECK(r == 0, "once attached nowhere, its owner's revoke: %s",
          r > 0 ? strerror(r) : "did not run");
    PASS();
}

/* The student, in a namespace of their own, binds a ramfs of theirs at
 * /tmp/l7g, puts an fd on it at SHARED + 2 of the table shared with root,
 * and waits (the namespace must live) until root has revoked it: 0 if the
 * revoke detached it, or the step that failed. */
static int student_binds_and_waits(int unused)
{
    int fs, x, sync[2];
    char c;

    (void)unused;
    if (unshare() < 0 || mkdir("/tmp/l7g", 0755) < 0 || (fs = fsopen("ramfs", -1, "")) < 0 ||
        bind(fs, AT_CWD, "/tmp/l7g", 0) < 0 || dup2(fs, SHARED + 2) != SHARED + 2 ||
        (x = create(fs, "x", S_IFREG, 0644, 0)) < 0)
        return 1;
    close(fs);
    close(x);
    sync[0] = SHARED + 3;               /* root's pipe to us, in the shared table */
    sync[1] = SHARED + 4;               /* ours to root */
    if (write(sync[1], "b", 1) != 1 || read(sync[0], &c, 1) != 1)
        return 2;
    return walk(AT_CWD, "/tmp/l7g/x", 0) < 0 && errno == ENOENT ? 0 : 3;
}

static void root_may_revoke_a_users_filesystem(void)
{
    int dev, r, root, p[2], q[2], pid, status;
    char c;

    CHECK((dev = walk(AT_CWD, "/dev", 0)) >= 0, "walk /dev");
    r = shared_as_student(student_revoke, dev);
    CHECK(r == EPERM, "the student's revoke of /dev: %s",
          r > 0    ? strerror(r)
          : r == 0 ? "it worked"
                   : "did not run");
    CHECK(shared_as_student(student_fsopen_at, SHARED) == 0, "the student's ramfs");
    CHECK(revoke(SHARED) == 0, "root revokes the student's filesystem");
    /* root may revoke anything as far as authority goes: init's root is
     * refused by fs_revoke (Lab 04), with EBUSY, not here with EPERM */
    CHECK((root = walk(AT_CWD, "/", 0)) >= 0, "walk /");
    CHECK_ERR(revoke(root), EBUSY);
    close(root);
    CHECK_ERR(walk(SHARED, ".", 0), EIO);
    /* only the uid makes root: root in the student's group still may */
    CHECK(shared_as_student(student_fsopen_at, SHARED + 1) == 0, "the student's second ramfs");
    CHECK(setgid(STUDENT) == 0 && getuid() == 0 && getgid() == STUDENT, "root joins gid %d",
          STUDENT);
    CHECK(revoke(SHARED + 1) == 0, "root with gid %d revokes the student's filesystem", STUDENT);
    CHECK_ERR(walk(SHARED + 1, ".", 0), EIO);
    /* also a filesystem the student bound in a namespace of their own */
    CHECK(pipe(p) == 0 && pipe(q) == 0 && dup2(p[0], SHARED + 3) == SHARED + 3 &&
              dup2(q[1], SHARED + 4) == SHARED + 4,
          "pipes");
    fflush(stdout);
    if ((pid = rfork(RFORK_SHAREFDS)) == 0)
        _exit(setgid(STUDENT) == 0 && setuid(STUDENT) == 0 ? student_binds_and_waits(0) : 9);
    CHECK(pid > 0 && read(q[0], &c, 1) == 1, "the student's child did not bind");
    r = revoke(SHARED + 2) == 0 ? 0 : errno;
    CHECK(write(p[1], "g", 1) == 1 && waitpid(pid, &status, 0) == pid, "wait");
    CHECK(r == 0,
          "root's revoke of the student's ramfs bound in the student's own namespace: %s "
          "(root may revoke anything, wherever it is attached)",
          strerror(r));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the student's child: step %d (3: still attached after root's revoke)",
          WEXITSTATUS(status));
    PASS();
}

static const struct lab_test tests[] = {
    LAB_TEST(a_user_cannot_change_the_boot_namespace),
    LAB_TEST(a_user_binds_unbinds_and_chroots_in_a_namespace_of_their_own),
    LAB_TEST(a_namespace_root_unshared_is_still_roots),
    LAB_TEST(a_user_cannot_revoke_what_root_made),
    LAB_TEST(a_user_revokes_their_own_filesystem),
    LAB_TEST(a_users_filesystem_attached_in_roots_namespace_is_roots_to_revoke),
    LAB_TEST(root_may_revoke_a_users_filesystem),
};

int main(int argc, char **argv)
{
    return lab_main("lab07", tests, ARRAY_SIZE(tests), argc, argv);
}
