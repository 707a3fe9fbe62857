/* t_auth.c - authority (issue 14): every permission rule of the VFS and
 * namespace layers, tried as the user `student` (uid 1000, gid 1000) by a
 * child of this root process. Root makes what a test needs, a child drops
 * to uid 1000 for good and tries; root's own results are checked too,
 * since root passes every check but the "nobody has the bit" one
 * (doc/decisions.md, "Authority"). */
#include <orthos.h>
#include <sys/stat.h>
#include "array_size.h"
#include "t.h"

#define STUDENT 1000

/* Start test in a child acting for uid and gid, in the boot namespace;
 * the child reports its own PASS/FAIL line. Its pid. */
static int as_user_async(int uid, int gid, void (*test)(void))
{
    int pid;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        if (setgid(gid) < 0 || setuid(uid) < 0) {
            printf("FAIL t_auth_setup: setuid: %s\n", strerror(errno));
            _exit(1);
        }
        test();
        fflush(stdout);
        _exit(0);
    }
    return pid;
}

static int as_student_async(void (*test)(void))
{
    return as_user_async(STUDENT, STUDENT, test);
}

/* The same, waiting for it. */
static void as_user(int uid, int gid, void (*test)(void))
{
    int status, pid = as_user_async(uid, gid, test);

    if (pid > 0)
        waitpid(pid, &status, 0);
}

static void as_student(void (*test)(void))
{
    as_user(STUDENT, STUDENT, test);
}

/* A child that stays alive until root has looked: it writes to seen[1]
 * when its work is done, then waits for root to close done[1]. */
static int seen[2], done[2];

static void wait_for_root(void)
{
    char c;

    close(done[1]);                     /* or its own end keeps the pipe open */
    close(seen[0]);
    write(seen[1], "x", 1);
    read(done[0], &c, 1);
}

/* Make path (as root) with `text` and mode; 0 or -1. */
static int root_file(const char *path, const char *text, int mode)
{
    return put_file(path, text) == 0 && chmod(path, mode) == 0 ? 0 : -1;
}

/* The same, then given to uid and gid. */
static int users_file(const char *path, int mode, int uid, int gid)
{
    return root_file(path, "x", mode) == 0 && chown(path, uid, gid) == 0 ? 0 : -1;
}

/* ready(path, access) by the caller: 0, or -1 with errno set. */
static int try_ready(const char *path, int access)
{
    int p = walk(AT_CWD, path, 0), f = p < 0 ? -1 : ready(p, access), saved = errno;

    close(f);
    close(p);
    errno = saved;
    return f < 0 ? -1 : 0;
}

/* ------------------------------------------------------------ nodes */

static void reading_another_users_0600_file_is_eacces(void)
{
    struct stat st;
    int p;

    CHECK((p = walk(AT_CWD, "/tmp/au_secret", 0)) >= 0, "walk needs no read permission");
    CHECK(fstat(p, &st) == 0 && st.st_uid == 0 && (st.st_mode & 07777) == 0600,
          "fstat: uid %u mode %o", (unsigned)st.st_uid, (unsigned)st.st_mode);
    CHECK_ERR(ready(p, R_READ), EACCES);
    CHECK_ERR(ready(p, R_WRITE), EACCES);
    close(p);
    PASS();
}

/* Exactly one class of bits applies: the owner's to the owner, even when
 * the others' grant more; the group's to a member of the node's group
 * (by gid, not uid); the others' to the rest. Made by main, each "x":
 * au_c_own 0044 the student's; au_c_grp 0640 and au_c_grp_none 0604 of uid 2000
 * in group 1000; au_c_g3 0640 of uid 2000 in group 3000. */
static void each_user_gets_the_bits_of_exactly_one_class(void)
{
    CHECK_ERR(try_ready("/tmp/au_c_own", R_READ), EACCES);      /* owner: ---, not r-- */
    CHECK(try_ready("/tmp/au_c_grp", R_READ) == 0, "a member of the group reads a 0640 file");
    CHECK_ERR(try_ready("/tmp/au_c_grp", R_WRITE), EACCES);
    CHECK_ERR(try_ready("/tmp/au_c_grp_none", R_READ), EACCES); /* group: ---, not others' r-- */
    CHECK_ERR(try_ready("/tmp/au_c_g3", R_READ), EACCES);       /* not in group 3000 */
    PASS();
}

/* The same, as uid 1000 in group 3000: the group is the gid's, whatever
 * the uid's number. */
static void the_group_class_goes_by_gid(void)
{
    CHECK(try_ready("/tmp/au_c_g3", R_READ) == 0, "a member of group 3000 reads a 0640 file");
    CHECK(try_ready("/tmp/au_c_grp_none", R_READ) == 0, "not in group 1000: the others' r--");
    PASS();
}

/* A path fd made by root and inherited: ready checks the readier. */
static int inherited_fd;
static void a_path_fd_from_root_is_readied_with_the_receivers_permission(void)
{
    CHECK_ERR(ready(inherited_fd, R_READ), EACCES);
    PASS();
}

static void writing_in_a_directory_without_write_permission_is_eacces(void)
{
    int f;

    CHECK_ERR(create(AT_CWD, "/tmp/au_ro/new", S_IFREG, 0644, 0), EACCES);
    CHECK_ERR(unlink("/tmp/au_ro/f"), EACCES);
    CHECK_ERR(rename("/tmp/au_ro/f", "/tmp/au_moved"), EACCES);
    CHECK((f = create(AT_CWD, "/tmp/au_mine", S_IFREG, 0644, 0)) >= 0, "create in /tmp");
    CHECK_ERR(linkat(f, AT_CWD, "/tmp/au_ro/link"), EACCES);
    CHECK_ERR(rename("/tmp/au_mine", "/tmp/au_ro/mine"), EACCES);
    close(f);
    CHECK(unlink("/tmp/au_mine") == 0, "unlink of one's own file in /tmp");
    PASS();
}

static void search_permission_is_needed_on_every_directory_walked(void)
{
    int p;

    CHECK((p = walk(AT_CWD, "/tmp/au_closed", 0)) >= 0, "the closed directory itself");
    CHECK_ERR(walk(p, "f", 0), EACCES);
    CHECK_ERR(walk(AT_CWD, "/tmp/au_closed/f", 0), EACCES);
    CHECK_ERR(walk(AT_CWD, "/tmp/au_closed/../au_closed/f", 0), EACCES);
    close(p);
    CHECK((p = walk(AT_CWD, "/tmp/au_xonly/f", 0)) >= 0, "search is x: through a 0711 directory");
    close(p);
    CHECK_ERR(try_ready("/tmp/au_xonly", R_READ), EACCES); /* but not list it */
    CHECK_ERR(walk(AT_CWD, "/tmp/au_ronly/f", 0), EACCES); /* r without x lists, no more */
    CHECK(try_ready("/tmp/au_ronly", R_READ) == 0, "ready a 0744 directory for reading");
    PASS();
}

static void sticky_tmp_keeps_users_from_removing_others_files(void)
{
    int f, w;

    CHECK((w = walk(AT_CWD, "/tmp/au_roots", 0)) >= 0 && (f = ready(w, R_WRITE)) >= 0,
          "a 0666 file is writable by anyone");
    close(f);
    close(w);
    CHECK_ERR(unlink("/tmp/au_roots"), EPERM);
    CHECK_ERR(rename("/tmp/au_roots", "/tmp/au_stolen"), EPERM);
    CHECK((f = create(AT_CWD, "/tmp/au_own", S_IFREG, 0644, 0)) >= 0, "create in /tmp");
    close(f);
    CHECK_ERR(rename("/tmp/au_own", "/tmp/au_roots"), EPERM);     /* nor replace them */
    CHECK(rename("/tmp/au_own", "/tmp/au_own2") == 0, "rename of one's own");
    CHECK(unlink("/tmp/au_own2") == 0, "unlink of one's own");
    PASS();
}

/* In a sticky directory of one's own, others' files are one's to remove
 * (main made /tmp/au_stk, the student's, 01777, with root's file in it). */
static void the_owner_of_a_sticky_directory_removes_anyones_files(void)
{
    CHECK(rename("/tmp/au_stk/roots", "/tmp/au_stk/moved") == 0, "rename of root's file");
    CHECK(unlink("/tmp/au_stk/moved") == 0, "unlink of root's file");
    PASS();
}

static void a_new_node_is_its_makers_and_only_the_owner_changes_its_mode(void)
{
    struct stat st;
    int f, r;

    CHECK((f = create(AT_CWD, "/tmp/au_made", S_IFREG, 0644, 0)) >= 0, "create");
    CHECK(fstat(f, &st) == 0 && st.st_uid == STUDENT && st.st_gid == STUDENT, "owner %u:%u",
          (unsigned)st.st_uid, (unsigned)st.st_gid);
    CHECK(fchmod(f, 0600) == 0 && fstat(f, &st) == 0 && (st.st_mode & 07777) == 0600,
          "fchmod on a path fd");
    CHECK_ERR(fchmod(f, 010000), EINVAL);
    CHECK_ERR(fchown(f, 0, -1), EPERM);                 /* no giving away */
    CHECK_ERR(fchown(f, -1, 0), EPERM);                 /* nor to another group */
    CHECK_ERR(fchown(f, 65536, -1), EINVAL);            /* ext2 keeps 16 bits */
    CHECK_ERR(fchown(f, -1, 65536), EINVAL);
    CHECK(fchown(f, STUDENT, STUDENT) == 0, "setting what it has");
    close(f);
    CHECK((r = walk(AT_CWD, "/tmp/au_secret", 0)) >= 0, "walk");
    CHECK_ERR(fchmod(r, 0666), EPERM);
    CHECK_ERR(fchown(r, STUDENT, STUDENT), EPERM);
    close(r);
    CHECK(unlink("/tmp/au_made") == 0, "unlink");
    PASS();
}

static void exec_needs_execute_permission_of_the_callers_class(void)
{
    char *argv[] = { "au_true", NULL };
    int f;

    CHECK((f = walk(AT_CWD, "/tmp/au_true", 0)) >= 0, "walk");
    CHECK_ERR(exec(f, argv, NULL), EACCES);
    close(f);
    PASS();
}

static void device_nodes_are_made_by_root_and_readied_only_from_roots_filesystems(void)
{
    int fs, c, d;

    CHECK((fs = fsopen("ramfs", -1, "")) >= 0, "fsopen ramfs needs nothing");
    CHECK_ERR(create(fs, "hd", S_IFBLK, 0666, MKDEV(DEV_ATA, 1)), EPERM);
    CHECK((d = walk(AT_CWD, "/dev/hd1", 0)) >= 0, "walk /dev/hd1");
    CHECK_ERR(ready(d, R_READ), EACCES);               /* 0660 root:root */
    close(d);
    close(fs);
    CHECK((fs = fsopen("devfs", -1, "")) >= 0, "a devfs of one's own");
    CHECK((c = walk(fs, "console", 0)) >= 0, "walk its console");
    CHECK_ERR(ready(c, R_WRITE), EACCES);              /* nodev: not from a user's instance */
    close(c);
    close(fs);
    PASS();
}

static void setuid_back_to_root_is_eperm(void)
{
    int pid, status;

    CHECK(getuid() == STUDENT && getgid() == STUDENT, "uid %d gid %d", getuid(), getgid());
    CHECK_ERR(setuid(0), EPERM);
    CHECK_ERR(setgid(0), EPERM);
    CHECK(setuid(STUDENT) == 0 && setgid(STUDENT) == 0, "setting what it has is a no-op");
    if ((pid = fork()) == 0)
        _exit(getuid() == STUDENT && getgid() == STUDENT ? 0 : 1);
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0,
          "a child acts for the same user");
    PASS();
}

/* Ids are 16 bits (ext2 keeps no more): even root gets EINVAL past them,
 * and keeps the id it had. (Run as root, in a child.) */
static void ids_past_16_bits_are_einval(void)
{
    CHECK_ERR(setgid(65536), EINVAL);
    CHECK_ERR(setuid(65536), EINVAL);
    CHECK(getuid() == 0 && getgid() == 0, "uid %d gid %d", getuid(), getgid());
    CHECK(setgid(65535) == 0 && setuid(65535) == 0, "the largest id");
    PASS();
}

/* A root process, asleep: the student must not be able to kill it. */
static int root_sleeper;
static void a_user_kills_only_their_own_processes(void)
{
    int pid, status;

    CHECK_ERR(poweroff(3), EPERM);                     /* nor stop the machine */
    CHECK_ERR(kill(root_sleeper, SIGKILL), EPERM);
    CHECK_ERR(kill(-root_sleeper, SIGKILL), EPERM);     /* its group: root's too */
    if ((pid = fork()) == 0) {
        sleep_ms(10000);
        _exit(0);
    }
    CHECK(pid > 0 && kill(pid, SIGKILL) == 0, "kill of one's own child");
    CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status), "the child was killed");
    PASS();
}

/* ^C kills the console's foreground group: a user may put in front only a
 * group they could kill themselves. */
static void a_user_puts_only_their_own_group_in_front_of_ctrl_c(void)
{
    int pid, status;

    CHECK_ERR(tcsetpgrp(root_sleeper), EPERM);
    CHECK_ERR(tcsetpgrp(getpid() + 1000), EPERM);      /* no such group yet: maybe root's later */
    if ((pid = fork()) == 0) {
        setpgid(0, 0);
        sleep_ms(10000);
        _exit(0);
    }
    setpgid(pid, pid);                  /* whichever of the two runs first */
    CHECK(pid > 0 && tcsetpgrp(pid) == 0, "tcsetpgrp of one's own child's group: %s",
          strerror(errno));
    CHECK(tcsetpgrp(0) == 0, "tcsetpgrp(0): %s", strerror(errno));
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    PASS();
}

/* A user's process joins only a group of theirs: parked in another user's
 * job it would make that job's kill(-pgid) EPERM for its owner (every
 * live member must be theirs), and a group id not used yet may be led by
 * anyone later. A new group of one's own, or a child's, is fine. */
static void a_user_joins_only_their_own_groups(void)
{
    int pid, status;

    CHECK_ERR(setpgid(0, root_sleeper), EPERM);
    CHECK_ERR(setpgid(0, getpid() + 1000), EPERM);
    if ((pid = fork()) == 0) {
        sleep_ms(10000);
        _exit(0);
    }
    CHECK(pid > 0 && setpgid(pid, 0) == 0, "a child into a new group it leads: %s",
          strerror(errno));
    CHECK(setpgid(0, pid) == 0, "joining one's own child's group: %s", strerror(errno));
    CHECK_ERR(setpgid(pid, root_sleeper), EPERM);       /* nor a child into root's */
    CHECK_ERR(setpgid(getppid(), 0), ESRCH);            /* only oneself and one's children */
    CHECK(setpgid(0, 0) == 0, "a new group of one's own: %s", strerror(errno));
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    PASS();
}

static void proc_files_belong_to_their_processs_user(void)
{
    struct stat st;

    CHECK(stat("/proc/self/status", &st) == 0 && st.st_uid == STUDENT, "uid %u",
          (unsigned)st.st_uid);
    CHECK(stat("/proc/1/status", &st) == 0 && st.st_uid == 0, "init's: uid %u",
          (unsigned)st.st_uid);
    PASS();
}

/* /proc/<pid>/fd names every open file: its user's alone; status is anyone's. */
static void another_users_proc_fd_is_eacces_but_status_is_readable(void)
{
    char buf[64];
    int fd;

    CHECK_ERR(open("/proc/1/fd", O_RDONLY), EACCES);
    CHECK((fd = open("/proc/1/status", O_RDONLY)) >= 0 && read(fd, buf, sizeof(buf)) > 0,
          "init's status: %s", strerror(errno));
    close(fd);
    CHECK((fd = open("/proc/self/fd", O_RDONLY)) >= 0 && read(fd, buf, sizeof(buf)) > 0,
          "one's own fd list: %s", strerror(errno));
    close(fd);
    PASS();
}

/* ------------------------------------------------------------ namespaces */

static void bind_unbind_and_fchroot_in_the_boot_namespace_are_eperm(void)
{
    int fs;

    CHECK((fs = fsopen("ramfs", -1, "")) >= 0, "fsopen ramfs");
    CHECK_ERR(bind(fs, AT_CWD, "/tmp/au_mnt", 0), EPERM);
    CHECK_ERR(bind(fs, AT_CWD, "/bin", 0), EPERM);
    CHECK_ERR(unbind(AT_CWD, "/tmp"), EPERM);
    CHECK_ERR(fchroot(fs), EPERM);
    close(fs);
    PASS();
}

static void bind_in_ones_own_namespace_works_and_root_never_sees_it(void)
{
    int fs, f, u;

    CHECK(unshare() == 0, "unshare needs no privilege");
    CHECK((fs = fsopen("ramfs", -1, "")) >= 0, "fsopen");
    CHECK(bind(fs, AT_CWD, "/tmp/au_mnt", 0) == 0, "bind in one's own namespace");
    CHECK((f = create(AT_CWD, "/tmp/au_mnt/inside", S_IFREG, 0644, 0)) >= 0,
          "the root of one's own ramfs is one's own");
    close(f);
    CHECK(bind(fs, AT_CWD, "/bin", 0) == 0, "even over /bin");
    CHECK_ERR(walk(AT_CWD, "/bin/sh", 0), ENOENT);
    CHECK((u = unbind(AT_CWD, "/bin")) >= 0, "unbind");
    CHECK(walk(AT_CWD, "/bin/sh", 0) >= 0, "/bin is back");
    CHECK(bind(fs, AT_CWD, "/bin", 0) == 0, "bind over /bin again, and leave it");
    CHECK(fchroot(fs) == 0, "fchroot in one's own namespace");
    close(u);
    close(fs);
    PASS();
    wait_for_root();                    /* root looks at /bin while this lives */
}

static void revoke_of_root_dev_or_the_old_root_is_eperm(void)
{
    static const char *const theirs[] = { "/", "/dev", "/proc", "/tmp", "/bin" };
    int i, fd;

    for (i = 0; i < (int)ARRAY_SIZE(theirs); i++) {
        CHECK((fd = walk(AT_CWD, theirs[i], 0)) >= 0, "walk %s", theirs[i]);
        CHECK_ERR(revoke(fd), EPERM);
        close(fd);
    }
    CHECK(unshare() == 0, "unshare");
    CHECK(mkdir("/tmp/au_nr", 0755) == 0 && mount("ramfs", "none", "/tmp/au_nr", "") == 0 &&
              mkdir("/tmp/au_nr/old", 0755) == 0,
          "a new root");
    CHECK(pivot_root("/tmp/au_nr", "/old") == 0, "pivot_root in one's own namespace");
    CHECK((fd = walk(AT_CWD, "/old", 0)) >= 0, "walk /old");
    CHECK_ERR(revoke(fd), EPERM);
    close(fd);
    CHECK((fd = walk(AT_CWD, "/old/dev", 0)) >= 0, "walk /old/dev");
    CHECK_ERR(revoke(fd), EPERM);
    close(fd);
    CHECK((fd = walk(AT_CWD, "/old/dev/console", 0)) >= 0 && (i = ready(fd, R_WRITE)) >= 0 &&
              write(i, "", 0) == 0,
          "the console still works");
    PASS();
}

static void revoke_of_ones_own_ramfs_works(void)
{
    int fs, d;

    CHECK((fs = fsopen("ramfs", -1, "")) >= 0, "fsopen");
    CHECK(revoke(fs) == 0, "revoke of one's own, attached nowhere");
    CHECK_ERR(walk(fs, ".", 0), EIO);
    close(fs);
    CHECK(unshare() == 0, "unshare");
    CHECK((fs = fsopen("ramfs", -1, "")) >= 0 && bind(fs, AT_CWD, "/tmp/au_mnt", 0) == 0,
          "bind in one's own namespace");
    CHECK((d = walk(AT_CWD, "/tmp/au_mnt", 0)) >= 0 && revoke(d) == 0,
          "revoke of one's own, attached in one's own namespace");
    close(d);
    close(fs);
    PASS();
}

/* rfork(RFORK_SHAREFDS) child: become the student and run fn on the
 * shared table; its exit code is fn's result (an fd, or 200 + errno). */
static int shared_as_student(int (*fn)(void))
{
    int pid, status;

    fflush(stdout);
    if ((pid = rfork(RFORK_SHAREFDS)) == 0) {
        setgid(STUDENT);
        setuid(STUDENT);
        _exit(fn());
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

static int shared_fs = -1;
static int make_ramfs(void)
{
    int fs = fsopen("ramfs", -1, "");

    return fs < 0 ? 200 + errno : fs;
}
static int revoke_shared(void)
{
    return revoke(shared_fs) < 0 ? 200 + errno : 0;
}

/* A user's own instance, attached by root in the boot namespace: its
 * revoke would change what root sees, so it is root's to revoke now. */
static void revoke_of_ones_own_ramfs_attached_in_roots_namespace_is_eperm(void)
{
    int u;

    CHECK((shared_fs = shared_as_student(make_ramfs)) >= 0 && shared_fs < 200,
          "the student's ramfs: %d", shared_fs);
    CHECK(mkdir("/tmp/au_shared", 0755) == 0 && bind(shared_fs, AT_CWD, "/tmp/au_shared", 0) == 0,
          "root binds it in the boot namespace");
    CHECK(shared_as_student(revoke_shared) == 200 + EPERM, "the owner's revoke is EPERM");
    CHECK((u = unbind(AT_CWD, "/tmp/au_shared")) >= 0, "root unbinds it");
    close(u);
    CHECK(shared_as_student(revoke_shared) == 0, "then the owner may revoke it");
    close(shared_fs);
    rmdir("/tmp/au_shared");
    PASS();
}

/* ------------------------------------------------------------ root */

static void root_bypasses_the_bits_but_not_a_mode_that_grants_nobody(void)
{
    char buf[16];
    int p, f;

    CHECK(slurp("/tmp/au_student", buf, sizeof(buf)) > 0, "root reads the student's 0600 file");
    CHECK((p = walk(AT_CWD, "/tmp/au_closed/f", 0)) >= 0, "root searches a 0700 directory");
    close(p);
    CHECK(root_file("/tmp/au_none", "x", 0444) == 0 && (p = walk(AT_CWD, "/tmp/au_none", 0)) >= 0,
          "setup");
    CHECK_ERR(ready(p, R_WRITE), EACCES);
    CHECK((f = ready(p, R_READ)) >= 0, "read");
    close(f);
    close(p);
    CHECK(try_ready("/tmp/au_c_own", R_READ) == 0, "a 0044 file: a bit in some class will do");
    PASS();
}

static void a_source_readied_read_only_gives_a_read_only_instance(void)
{
    int p, r, fs;

    CHECK((p = walk(AT_CWD, "/etc/sample.ext2", 0)) >= 0 && (r = ready(p, R_READ)) >= 0, "setup");
    CHECK((fs = fsopen("ext2", r, "")) >= 0, "fsopen from a read-only source");
    CHECK_ERR(create(fs, "new", S_IFREG, 0644, 0), EROFS);
    close(fs);
    close(r);
    close(p);
    PASS();
}

/* The student's copy of /bin/true, mode 0700, owned by root. */
static int copy_true(void)
{
    static char buf[65536];
    int p = walk(AT_CWD, "/bin/true", 0), r = p < 0 ? -1 : ready(p, R_READ), n, w, f;

    close(p);
    if (r < 0 || (n = read_full(r, buf, sizeof(buf))) <= 0)
        return -1;
    close(r);
    if ((p = create(AT_CWD, "/tmp/au_true", S_IFREG, 0700, 0)) < 0 || (w = ready(p, R_WRITE)) < 0)
        return -1;
    f = write(w, buf, n);
    close(w);
    close(p);
    return f == n ? 0 : -1;
}

int main(void)
{
    struct stat st;
    int p, pid, status;

    if (stat("/tmp", &st) < 0 || (st.st_mode & 07777) != 01777)
        printf("FAIL tmp_is_sticky_and_writable_by_all: mode %o\n", (unsigned)st.st_mode);
    else
        printf("PASS tmp_is_sticky_and_writable_by_all\n");
    if (root_file("/tmp/au_secret", "root's secret\n", 0600) < 0 || mkdir("/tmp/au_ro", 0755) < 0 ||
        root_file("/tmp/au_ro/f", "x", 0644) < 0 || mkdir("/tmp/au_closed", 0700) < 0 ||
        root_file("/tmp/au_closed/f", "x", 0644) < 0 || root_file("/tmp/au_roots", "", 0666) < 0 ||
        mkdir("/tmp/au_mnt", 0777) < 0 || copy_true() < 0 ||
        root_file("/tmp/au_student", "hers\n", 0600) < 0 ||
        chown("/tmp/au_student", 1000, 1000) < 0 ||
        users_file("/tmp/au_c_own", 0044, STUDENT, STUDENT) < 0 ||
        users_file("/tmp/au_c_grp", 0640, 2000, STUDENT) < 0 ||
        users_file("/tmp/au_c_grp_none", 0604, 2000, STUDENT) < 0 ||
        users_file("/tmp/au_c_g3", 0640, 2000, 3000) < 0 || mkdir("/tmp/au_stk", 0755) < 0 ||
        chmod("/tmp/au_stk", 01777) < 0 || chown("/tmp/au_stk", STUDENT, STUDENT) < 0 ||
        root_file("/tmp/au_stk/roots", "x", 0644) < 0 || mkdir("/tmp/au_xonly", 0711) < 0 ||
        root_file("/tmp/au_xonly/f", "x", 0644) < 0 || mkdir("/tmp/au_ronly", 0744) < 0 ||
        root_file("/tmp/au_ronly/f", "x", 0644) < 0)
        printf("FAIL t_auth_setup: %s\n", strerror(errno));

    as_student(reading_another_users_0600_file_is_eacces);
    inherited_fd = walk(AT_CWD, "/tmp/au_secret", 0);
    as_student(a_path_fd_from_root_is_readied_with_the_receivers_permission);
    close(inherited_fd);
    as_student(writing_in_a_directory_without_write_permission_is_eacces);
    as_student(search_permission_is_needed_on_every_directory_walked);
    as_student(each_user_gets_the_bits_of_exactly_one_class);
    as_user(STUDENT, 3000, the_group_class_goes_by_gid);
    as_student(sticky_tmp_keeps_users_from_removing_others_files);
    as_student(the_owner_of_a_sticky_directory_removes_anyones_files);
    as_student(a_new_node_is_its_makers_and_only_the_owner_changes_its_mode);
    as_student(exec_needs_execute_permission_of_the_callers_class);
    as_student(device_nodes_are_made_by_root_and_readied_only_from_roots_filesystems);
    as_student(setuid_back_to_root_is_eperm);
    as_user(0, 0, ids_past_16_bits_are_einval);
    if ((root_sleeper = fork()) == 0) {
        setpgid(0, 0);
        sleep_ms(20000);
        _exit(0);
    }
    sleep_ms(50);                       /* its setpgid done */
    as_student(a_user_kills_only_their_own_processes);
    as_student(a_user_puts_only_their_own_group_in_front_of_ctrl_c);
    as_student(a_user_joins_only_their_own_groups);
    kill(root_sleeper, SIGKILL);
    waitpid(root_sleeper, &status, 0);
    as_student(proc_files_belong_to_their_processs_user);
    as_student(another_users_proc_fd_is_eacces_but_status_is_readable);
    as_student(bind_unbind_and_fchroot_in_the_boot_namespace_are_eperm);
    if (pipe(seen) == 0 && pipe(done) == 0 &&
        (pid = as_student_async(bind_in_ones_own_namespace_works_and_root_never_sees_it)) > 0) {
        char c;
        close(seen[1]);
        close(done[0]);
        if (read(seen[0], &c, 1) != 1)
            printf("FAIL a_users_bind_over_bin_is_invisible_to_root: the child gave up\n");
        else if ((p = walk(AT_CWD, "/tmp/au_mnt/inside", 0)) >= 0 || walk(AT_CWD, "/bin/sh", 0) < 0)
            printf("FAIL a_users_bind_over_bin_is_invisible_to_root: root sees it\n");
        else
            printf("PASS a_users_bind_over_bin_is_invisible_to_root\n");
        close(done[1]);
        close(seen[0]);
        waitpid(pid, &status, 0);
    }
    as_student(revoke_of_root_dev_or_the_old_root_is_eperm);
    as_student(revoke_of_ones_own_ramfs_works);
    revoke_of_ones_own_ramfs_attached_in_roots_namespace_is_eperm();
    root_bypasses_the_bits_but_not_a_mode_that_grants_nobody();
    a_source_readied_read_only_gives_a_read_only_instance();
    printf("t_auth: done\n");
    return 0;
}
