/* lab04 - graded tests for lab 04: unbind() returns an fd on what it
 * detached, and revoke() forcibly unmounts a filesystem even after it was
 * lazily detached - the step Linux's umount -l cannot take back.
 *
 * On the lab's course branch Labs 01-03 (open, pipes, fsopen and bind) are
 * done and Labs 05-06 are stubs: no pivot_root here. Each test attaches its
 * own filesystems under its own names. */
#include <fcntl.h>
#include <orthos.h>
#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>
#include "lab.h"
#include "array_size.h"

/* A new ramfs with one file ("file"), attached at dir (made here). */
static int attach_new(const char *dir)
{
    int fs = fsopen("ramfs", -1, NULL), f;

    if (fs < 0 || mkdir(dir, 0755) < 0 || bind(fs, AT_CWD, dir, 0) < 0)
        return -1;
    if ((f = create(fs, "file", S_IFREG, 0644, 0)) < 0)
        return -1;
    close(f);
    close(fs);
    return 0;
}

/* Writes n pages of zeros into a new file name in directory fd dir. */
static int fill(int dir, const char *name, int n)
{
    static char page[4096];
    int f = create(dir, name, S_IFREG, 0644, 0), io, i, bad = 0;

    if (f < 0 || (io = ready(f, R_WRITE)) < 0)
        return -1;
    for (i = 0; i < n; i++)
        bad |= write(io, page, sizeof(page)) != sizeof(page);
    close(io);
    close(f);
    return bad ? -1 : 0;
}

/* Does /proc/self/ns mention name at the start of a line? */
static int ns_lists(const char *name)
{
    static char ns[4096];
    char *p;

    if (slurp("/proc/self/ns", ns, sizeof(ns)) <= 0)
        return -1;
    for (p = ns; (p = strstr(p, name)); p++)
        if ((p == ns || p[-1] == '\n') && p[strlen(name)] == ' ')
            return 1;
    return 0;
}

/* An attachment right under / (its parent the namespace root) is unbound
 * like any other: a new ramfs at /l4top, in a namespace of the child's
 * own (a filesystem of its own too: unbinding /tmp would take, under a
 * wrong unbind that detaches a filesystem everywhere, every process's
 * /tmp). 0, or the step that failed. */
static int unbind_an_attachment_under_the_root(void)
{
    int fs, f, u;

    if (unshare() < 0 || (fs = fsopen("ramfs", -1, NULL)) < 0 ||
        (f = create(fs, "mark", S_IFREG, 0644, 0)) < 0 || bind(fs, AT_CWD, "/l4top", 0) < 0)
        return 1;
    close(f);
    close(fs);
    if ((u = unbind(AT_CWD, "/l4top")) < 0)
        return 2;
    if ((f = walk(u, "mark", 0)) < 0)
        return 3;
    close(f);
    if (walk(AT_CWD, "/l4top/mark", 0) >= 0 || errno != ENOENT)
        return 4;
    close(u);
    return 0;
}

static void unbind_returns_a_path_fd_on_what_was_attached(void)
{
    int code;
    char fds[512], want[32];
    struct stat st;
    int u, f;

    CHECK(attach_new("/tmp/l4a") == 0, "setup");
    CHECK((u = unbind(AT_CWD, "/tmp/l4a")) >= 0, "unbind");
    CHECK(fstat(u, &st) == 0 && S_ISDIR(st.st_mode), "not a directory fd");
    snprintf(want, sizeof(want), "\n%d dir path\n", u);
    fds[0] = '\n';
    CHECK(slurp("/proc/self/fd", fds + 1, sizeof(fds) - 1) > 0 && strstr(fds, want),
          "/proc/self/fd does not list fd %d as 'dir path'", u);
    CHECK(fcntl(u, F_GETFD, 0) == 0, "the new fd is marked FD_KEEP");
    CHECK((f = walk(u, "file", 0)) >= 0, "the fd does not reach the detached fs");
    close(f);
    CHECK_ERR(walk(AT_CWD, "/tmp/l4a/file", 0), ENOENT);
    CHECK(ns_lists("/tmp/l4a") == 0, "/proc/self/ns still lists /tmp/l4a");
    close(u);
    CHECK(mkdir("/l4top", 0755) == 0, "mkdir /l4top");
    code = in_child(unbind_an_attachment_under_the_root);
    rmdir("/l4top");
    CHECK(code == 0,
          "unbind of /l4top, attached right under / (its parent the namespace root): "
          "step %d%s",
          code, code == 2 ? ": only an attachment with no parent is EINVAL" : "");
    PASS();
}

static void files_open_inside_keep_working_after_unbind(void)
{
    char buf[8];
    int io, u, d, f;

    CHECK(attach_new("/tmp/l4b") == 0 && mkdir("/tmp/l4b/sub", 0755) == 0, "setup");
    CHECK((io = open("/tmp/l4b/file", O_RDWR)) >= 0, "open");
    CHECK((d = walk(AT_CWD, "/tmp/l4b/sub", 0)) >= 0, "walk");
    CHECK((u = unbind(AT_CWD, "/tmp/l4b")) >= 0, "unbind");
    close(u);
    CHECK(write(io, "lazy", 4) == 4 && lseek(io, 0, SEEK_SET) == 0 && read(io, buf, 4) == 4 &&
              !memcmp(buf, "lazy", 4),
          "an open file stopped working");
    CHECK((f = create(d, "new", S_IFREG, 0644, 0)) >= 0, "a directory fd stopped working");
    close(f);
    close(io);
    close(d);
    /* an attachment holding the caller's cwd is unbound like any other (not EBUSY, as Unix's
     * umount says), and the cwd keeps working in the detached tree */
    CHECK(attach_new("/tmp/l4bcwd") == 0 && chdir("/tmp/l4bcwd") == 0, "setup");
    CHECK((u = unbind(AT_CWD, "/tmp/l4bcwd")) >= 0,
          "unbind of the attachment holding the cwd failed, errno %d: nothing but the cases "
          "the handout lists is refused",
          errno);
    close(u);
    CHECK((f = create(AT_CWD, "new", S_IFREG, 0644, 0)) >= 0, "the cwd stopped working");
    close(f);
    CHECK(chdir("/") == 0, "chdir /");
    PASS();
}

static void unbind_plus_bind_is_a_move(void)
{
    int u, f;

    CHECK(attach_new("/tmp/l4c") == 0 && mkdir("/tmp/l4d", 0755) == 0, "setup");
    CHECK((u = unbind(AT_CWD, "/tmp/l4c")) >= 0 && bind(u, AT_CWD, "/tmp/l4d", 0) == 0, "move");
    close(u);
    CHECK((f = walk(AT_CWD, "/tmp/l4d/file", 0)) >= 0, "not at the new place");
    close(f);
    CHECK_ERR(walk(AT_CWD, "/tmp/l4c/file", 0), ENOENT);
    CHECK(umount("/tmp/l4d") == 0, "umount at the new place");
    CHECK_ERR(walk(AT_CWD, "/tmp/l4d/file", 0), ENOENT);
    PASS();
}

static int unbind_the_root(void)
{
    if (unshare() < 0)
        return 1;
    return unbind(AT_CWD, "/") < 0 && errno == EINVAL ? 0 : 2;
}

/* An fd on an attachment taken before unshare() reaches the old
 * namespace's attachment, which is not ours to detach any more. */
static int unbind_from_old_namespace(void)
{
    int old = walk(AT_CWD, "/tmp/l4o", 0);

    if (old < 0 || unshare() < 0)
        return 1;
    return unbind(old, ".") < 0 && errno == EINVAL ? 0 : 2;
}

/* A root attachment fchroot made on a detached tree has no parent either:
 * it is a namespace root like /, and unbind refuses it. */
static int unbind_a_root_made_by_fchroot(void)
{
    int fs;

    if (unshare() < 0 || (fs = fsopen("ramfs", -1, NULL)) < 0 || fchroot(fs) < 0)
        return 1;
    return unbind(AT_CWD, "/") < 0 && errno == EINVAL ? 0 : 2;
}

static void unbind_refuses_what_is_not_an_attachment_of_ours(void)
{
    int fs, code, f;

    CHECK(mkdir("/tmp/l4plain", 0755) == 0, "mkdir");
    CHECK_ERR(unbind(AT_CWD, "/tmp/l4plain"), EINVAL);
    CHECK_ERR(unbind(AT_CWD, "/tmp/l4none"), ENOENT);
    CHECK(attach_new("/tmp/l4in") == 0 && mkdir("/tmp/l4in/sub", 0755) == 0, "setup");
    CHECK_ERR(unbind(AT_CWD, "/tmp/l4in/sub"), EINVAL);     /* inside an attachment */
    CHECK((f = walk(AT_CWD, "/tmp/l4in/file", 0)) >= 0, "/tmp/l4in was detached anyway");
    close(f);
    CHECK((fs = fsopen("ramfs", -1, NULL)) >= 0, "fsopen");
    CHECK_ERR(unbind(fs, "."), EINVAL);                     /* attached nowhere */
    close(fs);
    CHECK((code = in_child(unbind_the_root)) == 0, "unbind of / (step %d)", code);
    CHECK((code = in_child(unbind_a_root_made_by_fchroot)) == 0,
          "unbind of a root attachment fchroot made (no parent: EINVAL): step %d", code);
    CHECK(attach_new("/tmp/l4o") == 0, "setup");
    CHECK((code = in_child(unbind_from_old_namespace)) == 0,
          "unbind of another namespace's "
          "attachment (step %d)",
          code);
    CHECK((f = walk(AT_CWD, "/tmp/l4o/file", 0)) >= 0, "another namespace's unbind detached "
                                                       "our /tmp/l4o");
    close(f);
    PASS();
}

/* A ramfs with a dir "b" at /tmp/l4n, and a second one holding 64 pages
 * bound at /tmp/l4n/b: one umount must take both away and release both. */
/* unbind detaches the attachment at path whatever it shows: a file bound
 * on a file comes off, and the covered file is back. */
static void a_file_bound_on_a_file_can_be_unbound(void)
{
    char buf[16] = "";
    int src, u;

    CHECK(unshare() == 0, "unshare");
    CHECK(put_file("/tmp/l4from", "from") == 0 && put_file("/tmp/l4to", "to") == 0, "setup");
    CHECK((src = walk(AT_CWD, "/tmp/l4from", 0)) >= 0 && bind(src, AT_CWD, "/tmp/l4to", 0) == 0,
          "bind a file on a file");
    close(src);
    CHECK((u = unbind(AT_CWD, "/tmp/l4to")) >= 0, "unbind of a file attachment gave errno %d",
          errno);
    CHECK(slurp("/tmp/l4to", buf, sizeof(buf)) == 2 && !strcmp(buf, "to"),
          "the covered file is not back: /tmp/l4to reads '%s'", buf);
    CHECK(ns_lists("/tmp/l4to") == 0, "/proc/self/ns still lists /tmp/l4to");
    close(u);
    PASS();
}

static void unbind_takes_everything_attached_below(void)
{
    unsigned before, after;
    int a, b, f;

    CHECK((a = fsopen("ramfs", -1, NULL)) >= 0 && (b = fsopen("ramfs", -1, NULL)) >= 0, "fsopen");
    CHECK((f = create(a, "b", S_IFDIR, 0755, 0)) >= 0 && fill(b, "big", 64) == 0, "setup");
    close(f);
    CHECK(mkdir("/tmp/l4n", 0755) == 0 && bind(a, AT_CWD, "/tmp/l4n", 0) == 0 &&
              bind(b, AT_CWD, "/tmp/l4n/b", 0) == 0,
          "bind both");
    close(a);
    close(b);
    CHECK((f = walk(AT_CWD, "/tmp/l4n/b/big", 0)) >= 0, "setup: not attached");
    close(f);
    before = free_pages();
    CHECK(umount("/tmp/l4n") == 0, "umount");
    after = free_pages();
    CHECK_ERR(walk(AT_CWD, "/tmp/l4n/b", 0), ENOENT);
    CHECK(ns_lists("/tmp/l4n/b") == 0 && ns_lists("/tmp/l4n") == 0,
          "/proc/self/ns still lists what was attached at or below /tmp/l4n");
    CHECK(after >= before + 64,
          "%u free pages before the umount, %u after: the filesystem "
          "attached below was not released",
          before, after);
    PASS();
}

/* Unbinding a bind of a subdirectory: ".." from the returned fd stops at
 * its top instead of leading to the rest of the filesystem. */
static void dotdot_stops_at_the_top_of_what_was_unbound(void)
{
    struct stat top, up;
    int d, u, f;

    CHECK(mkdir("/tmp/l4s", 0755) == 0 && mkdir("/tmp/l4s/in", 0755) == 0 &&
              put_file("/tmp/l4s/secret", "s") == 0 && mkdir("/tmp/l4t", 0755) == 0,
          "setup");
    CHECK((d = walk(AT_CWD, "/tmp/l4s/in", 0)) >= 0 && bind(d, AT_CWD, "/tmp/l4t", 0) == 0, "bind");
    close(d);
    CHECK((u = unbind(AT_CWD, "/tmp/l4t")) >= 0, "unbind");
    CHECK_ERR(walk(u, "../secret", 0), ENOENT);
    CHECK((f = walk(u, "..", 0)) >= 0 && fstat(f, &up) == 0 && fstat(u, &top) == 0 &&
              up.st_ino == top.st_ino,
          "'..' from the top of the unbound tree left it");
    close(f);
    close(u);
    PASS();
}

static void revoke_fails_every_other_fd_with_eio(void)
{
    int io, dir, u, pid, status, gate[2];
    struct stat st;
    char c;

    CHECK(attach_new("/tmp/l4e") == 0 && mkdir("/tmp/l4e/sub", 0755) == 0, "setup");
    CHECK((io = open("/tmp/l4e/file", O_RDWR)) >= 0 && (dir = walk(AT_CWD, "/tmp/l4e/sub", 0)) >= 0,
          "open");
    CHECK(pipe(gate) == 0, "pipe");
    fflush(stdout);
    if ((pid = fork()) == 0) {          /* another process's fds on it fail too */
        char b;
        close(gate[1]);
        read(gate[0], &b, 1);
        _exit(read(io, &b, 1) < 0 && errno == EIO ? 0 : 1);
    }
    close(gate[0]);
    CHECK((u = walk(AT_CWD, "/tmp/l4e", 0)) >= 0, "walk");
    CHECK(revoke(u) == 0, "revoke an attached fs");
    close(gate[1]);
    CHECK_ERR(read(io, &c, 1), EIO);
    CHECK_ERR(write(io, "x", 1), EIO);
    CHECK_ERR(walk(dir, "..", 0), EIO);
    CHECK_ERR(create(dir, "y", S_IFREG, 0644, 0), EIO);
    CHECK_ERR(ready(dir, R_READ), EIO);
    CHECK_ERR(fstat(io, &st), EIO);
    CHECK_ERR(walk(AT_CWD, "/tmp/l4e/file", 0), ENOENT);     /* detached as well */
    CHECK(ns_lists("/tmp/l4e") == 0, "/proc/self/ns still lists /tmp/l4e");
    CHECK(wait_child_ms(pid, 5000, &status) && status == 0, "another process's fd still works");
    CHECK(close(io) == 0 && close(dir) == 0 && close(u) == 0, "close must still work");
    PASS();
}

static void revoke_works_on_a_detached_fs(void)
{
    int io, u;
    char c;

    CHECK(attach_new("/tmp/l4f") == 0, "setup");
    CHECK((io = open("/tmp/l4f/file", O_RDWR)) >= 0, "open");
    CHECK((u = unbind(AT_CWD, "/tmp/l4f")) >= 0, "lazy detach");
    CHECK(revoke(u) == 0, "revoke after the lazy detach");
    CHECK_ERR(read(io, &c, 1), EIO);
    CHECK_ERR(revoke(u), EIO);
    CHECK_ERR(revoke(io), EIO);
    CHECK_ERR(revoke(77), EBADF);
    close(io);
    close(u);
    PASS();
}

static int gate_in[2], gate_out[2];

/* In a namespace of its own (a copy holding /tmp/l4g), wait for the parent
 * to revoke, then look: the copy's attachment must be gone too. */
static int look_after_revoke(void)
{
    char c = 0;

    if (unshare() < 0)
        return 1;
    write(gate_out[1], &c, 1);
    if (read(gate_in[0], &c, 1) != 1)
        return 2;
    return walk(AT_CWD, "/tmp/l4g/file", 0) < 0 && errno == ENOENT ? 0 : 3;
}

static void revoke_detaches_it_from_every_namespace(void)
{
    int pid, status, u;
    char c;

    CHECK(attach_new("/tmp/l4g") == 0, "setup");
    CHECK(pipe(gate_in) == 0 && pipe(gate_out) == 0, "pipe");
    fflush(stdout);
    if ((pid = fork()) == 0)
        _exit(look_after_revoke());
    CHECK(pid > 0 && read(gate_out[0], &c, 1) == 1, "the child did not unshare");
    CHECK((u = walk(AT_CWD, "/tmp/l4g", 0)) >= 0 && revoke(u) == 0, "revoke");
    CHECK(write(gate_in[1], &c, 1) == 1, "gate");
    CHECK(wait_child_ms(pid, 5000, &status), "child");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "in the other namespace: step %d",
          WEXITSTATUS(status));
    close(u);
    PASS();
}

static void revoke_wakes_a_reader_blocked_on_a_fifo(void)
{
    int fs, f, pid, status;

    CHECK((fs = fsopen("ramfs", -1, NULL)) >= 0, "fsopen");
    CHECK((f = create(fs, "fifo", S_IFIFO, 0644, 0)) >= 0, "mkfifo");
    fflush(stdout);
    if ((pid = fork()) == 0) {
        int r = ready(f, R_READ), w = ready(f, R_WRITE);
        char c;
        (void)w;                        /* a writer stays: the read blocks, no EOF */
        _exit(r >= 0 && read(r, &c, 1) < 0 && errno == EIO ? 0 : 1);
    }
    CHECK(pid > 0 && wait_until_sleeping(pid, 5000), "the reader did not block");
    CHECK(revoke(fs) == 0, "revoke");
    CHECK(wait_child_ms(pid, 5000, &status), "the blocked reader did not wake up");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the blocked reader did not get EIO");
    close(f);
    close(fs);
    PASS();
}

/* An ext2 image in a ramfs that only the ext2 instance still holds (as
 * its source): revoke lets go of the source at once, so the ramfs and its
 * 128 pages go, while the ext2 fd is still open. */
/* An ext2 instance on an image file in a ramfs; its fd. The image's own
 * fds are closed: only the instance holds its source. */
static int ext2_on_an_image(void)
{
    static char buf[4096];
    int img, in, f, io, rd, e, n, bad = 0;

    if ((img = fsopen("ramfs", -1, NULL)) < 0 || (f = create(img, "disk", S_IFREG, 0644, 0)) < 0 ||
        (io = ready(f, R_WRITE)) < 0 || (in = open("/etc/sample.ext2", O_RDONLY)) < 0)
        return -1;
    while ((n = read(in, buf, sizeof(buf))) > 0)
        bad |= write(io, buf, n) != n;
    close(in);
    close(io);
    if (bad || (rd = ready(f, R_READ)) < 0)
        return -1;
    e = fsopen("ext2", rd, "ro");
    close(rd);
    close(f);
    close(img);
    return e;
}

static void revoke_releases_the_source_at_once(void)
{
    unsigned before, after;
    struct stat st;
    int e, in;

    /* only the ext2 instance holds the image's ramfs; two fds point into the instance */
    CHECK((e = ext2_on_an_image()) >= 0, "setup: ext2 on an image file");
    CHECK((in = walk(e, ".", 0)) >= 0, "setup: a second fd into the instance");
    before = free_pages();
    CHECK(revoke(e) == 0, "revoke");
    after = free_pages();
    CHECK_ERR(fstat(e, &st), EIO);
    close(e);
    close(in);
    CHECK(after >= before + 128,
          "%u free pages before the revoke, %u after: the source (a 512 "
          "KiB image) was not let go while two fds into the instance were open",
          before, after);
    PASS();
}

/* revoke lets go of the source, and the instance's release later must not
 * let go of it again: new open files reuse the source's memory in between,
 * and a second put would close one of them under its owner (or free the
 * same memory twice). */
static void revoke_lets_go_of_the_source_once(void)
{
    char a[8] = "", b[8] = "";
    int e, fa, fb, i, other[8];

    CHECK((e = ext2_on_an_image()) >= 0, "setup: ext2 on an image file");
    CHECK(put_file("/tmp/l4A", "AAAA") == 0 && put_file("/tmp/l4B", "BBBB") == 0, "setup");
    CHECK(revoke(e) == 0, "revoke");
    for (i = 0; i < 8; i++)             /* new open files, one maybe where the source was */
        other[i] = walk(AT_CWD, "/tmp/l4A", 0);
    CHECK((fa = open("/tmp/l4A", O_RDONLY)) >= 0, "open A");
    for (i = 0; i < 8; i++)
        close(other[i]);
    close(e);                           /* the instance is released here */
    for (i = 0; i < 8; i++)
        other[i] = walk(AT_CWD, "/tmp/l4B", 0);
    CHECK((fb = open("/tmp/l4B", O_RDONLY)) >= 0, "open B");
    CHECK(read(fa, a, 4) == 4 && !strcmp(a, "AAAA"),
          "an fd opened after the revoke reads '%s', want 'AAAA': the instance's release let go "
          "of the source a second time",
          a);
    CHECK(read(fb, b, 4) == 4 && !strcmp(b, "BBBB"), "fd B reads '%s'", b);
    for (i = 0; i < 8; i++)
        close(other[i]);
    PASS();
}

static void revoke_releases_the_filesystem_after_the_last_close(void)
{
    unsigned before, after;
    int io, u, fs;

    CHECK((fs = fsopen("ramfs", -1, NULL)) >= 0 && fill(fs, "big", 100) == 0, "setup");
    CHECK((io = walk(fs, "big", 0)) >= 0 && (u = dup(fs)) >= 0, "walk");
    before = free_pages();
    CHECK(revoke(fs) == 0, "revoke");
    close(fs);
    CHECK(fstat(io, &(struct stat){ 0 }) < 0 && errno == EIO, "fstat after revoke");
    close(io);
    close(u);
    after = free_pages();
    CHECK(after >= before + 100,
          "%u free pages before, %u after the last close: the revoked "
          "fs was not released",
          before, after);
    PASS();
}

/* umount = unbind + close: the filesystem and everything in it come back
 * at once when nothing else holds it. */
static void umount_leaks_nothing(void)
{
    unsigned before, after;
    int fs, fds0 = open_fds();

    CHECK(mkdir("/tmp/l4u", 0755) == 0, "mkdir");
    CHECK((fs = fsopen("ramfs", -1, NULL)) >= 0 && fill(fs, "big", 64) == 0, "setup");
    CHECK(bind(fs, AT_CWD, "/tmp/l4u", 0) == 0, "bind");
    close(fs);
    before = free_pages();
    CHECK(umount("/tmp/l4u") == 0, "umount");
    after = free_pages();
    CHECK(after >= before + 64,
          "%u free pages before the umount, %u after: the filesystem was "
          "not released",
          before, after);
    CHECK(open_fds() == fds0, "fds %d, before %d", open_fds(), fds0);
    PASS();
}

/* EBUSY is only for pipes and roots: a filesystem the caller's cwd is in
 * is revoked like any other (the cwd then fails with EIO). */
static void revoke_of_the_filesystem_holding_the_cwd_works(void)
{
    int u;

    CHECK(attach_new("/tmp/l4cwd") == 0, "setup");
    CHECK(chdir("/tmp/l4cwd") == 0, "chdir");
    CHECK((u = walk(AT_CWD, ".", 0)) >= 0, "walk");
    CHECK(revoke(u) == 0, "revoke of the filesystem holding the cwd gave errno %d, want success",
          errno);
    CHECK_ERR(walk(AT_CWD, "file", 0), EIO);
    CHECK(chdir("/") == 0, "chdir / after the revoke");
    close(u);
    PASS();
}

static int revoke_own_root(void)
{
    int fs, old, f;

    /* the new root is attached at /tmp/l4own too (old: the old root) */
    if (unshare() < 0 || (old = walk(AT_CWD, "/", 0)) < 0 || mkdir("/tmp/l4own", 0755) < 0 ||
        (fs = fsopen("ramfs", -1, NULL)) < 0 || (f = create(fs, "mark", S_IFREG, 0644, 0)) < 0 ||
        bind(fs, AT_CWD, "/tmp/l4own", 0) < 0 || fchroot(fs) < 0)
        return 1;
    close(f);
    if (revoke(fs) == 0 || errno != EBUSY)
        return 2;
    if ((fs = walk(AT_CWD, "/", 0)) < 0 || revoke(fs) == 0 || errno != EBUSY)
        return 3;
    if (walk(AT_CWD, "/", 0) < 0)
        return 4;                       /* still usable */
    return walk(old, "tmp/l4own/mark", 0) >= 0 ? 0 : 5;    /* a refused revoke detaches nothing */
}

/* The same with the root reached by name: fchroot of the attachment at
 * /tmp/l4own2 (an attachment with a parent, not a namespace root) is still
 * the caller's own root. 0, or the step that failed. */
static int revoke_own_root_by_name(void)
{
    int fs, r;

    if (unshare() < 0 || mkdir("/tmp/l4own2", 0755) < 0 || (fs = fsopen("ramfs", -1, NULL)) < 0 ||
        bind(fs, AT_CWD, "/tmp/l4own2", 0) < 0)
        return 21;
    close(fs);
    if ((r = walk(AT_CWD, "/tmp/l4own2", 0)) < 0 || fchroot(r) < 0)
        return 22;
    if (revoke(r) == 0 || errno != EBUSY)
        return 23;
    return walk(AT_CWD, "/", 0) >= 0 ? 0 : 24;
}

/* The same with the root a directory inside the instance, not its root
 * directory: the root's filesystem is still the caller's own. 0, or the
 * step that failed. */
static int revoke_own_root_in_a_subdirectory(void)
{
    int fs, d;

    if (unshare() < 0 || (fs = fsopen("ramfs", -1, NULL)) < 0 ||
        (d = create(fs, "sub", S_IFDIR, 0755, 0)) < 0 || fchroot(d) < 0)
        return 31;
    if (revoke(fs) == 0 || errno != EBUSY)
        return 32;
    if (revoke(d) == 0 || errno != EBUSY)
        return 33;
    return walk(AT_CWD, "/", 0) >= 0 ? 0 : 34;
}

/* A process whose root another process revoked: its own revoke of that
 * root finds the instance revoked already (EIO), which comes before the
 * EBUSY of the caller's own root. 0, or the step that failed. */
static int own_root_revoked_by_another(void)
{
    int fs, done[2], go[2], pid, status;
    char c;

    if (unshare() < 0 || (fs = fsopen("ramfs", -1, NULL)) < 0 || pipe(done) < 0 || pipe(go) < 0)
        return 10;
    fflush(stdout);
    if ((pid = fork()) == 0) {
        close(done[0]);
        close(go[1]);
        if (fchroot(fs) < 0 || write(done[1], "r", 1) != 1)
            _exit(11);
        if (read(go[0], &c, 1) != 1)    /* until the parent has revoked our root */
            _exit(12);
        _exit(revoke(fs) < 0 && errno == EIO ? 0 : 13);
    }
    close(done[1]);
    close(go[0]);
    if (pid < 0 || read(done[0], &c, 1) != 1)
        return 14;
    if (revoke(fs) < 0)                 /* our root is elsewhere: allowed */
        return 15;
    if (write(go[1], "g", 1) != 1 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return 16;
    return WEXITSTATUS(status);
}

/* Last: a revoke that went through on a pipe would break every pipe. */
static void revoke_refuses_pipes_and_the_callers_own_root(void)
{
    int p[2], code;

    CHECK(pipe(p) == 0, "pipe");
    CHECK_ERR(revoke(p[0]), EBUSY);
    CHECK(write(p[1], "x", 1) == 1, "the pipe still works");
    close(p[0]);
    close(p[1]);
    CHECK((code = in_child(revoke_own_root)) == 0, "revoke of the caller's own root (step %d%s)",
          code, code == 5 ? ": the refused revoke detached it from /tmp/l4own" : "");
    CHECK((code = in_child(revoke_own_root_by_name)) == 0,
          "revoke of the caller's own root, chrooted into an attachment by name: step %d%s", code,
          code == 23 ? " (not EBUSY: the caller's root is its root, wherever it is attached)" : "");
    CHECK((code = in_child(revoke_own_root_in_a_subdirectory)) == 0,
          "revoke of the caller's own root, chrooted into a directory inside the instance: "
          "step %d%s",
          code,
          code == 32 || code == 33 ? " (not EBUSY: the root's filesystem is the caller's own "
                                     "root's, whichever of its directories the root is)"
                                   : "");
    CHECK((code = in_child(own_root_revoked_by_another)) == 0,
          "revoke of the caller's own root after another process revoked it: step %d (13: not "
          "EIO; an instance revoked already is EIO, before the EBUSY of one's own root)",
          code);
    PASS();
}

static int revoke_inits_root(void)
{
    int bin = walk(AT_CWD, "/bin", 0), fs;

    if (bin < 0 || unshare() < 0 || (fs = fsopen("ramfs", -1, NULL)) < 0 || fchroot(fs) < 0)
        return 1;
    if (revoke(bin) == 0)
        return 2;
    return errno == EBUSY ? 0 : 3;
}

/* Really last: init runs every shell from its root, so nobody may revoke
 * it, not even a process in a namespace of its own whose root is
 * elsewhere (only the init's-root rule refuses it there). */
static void nobody_may_revoke_inits_root(void)
{
    int code, f;

    CHECK((code = in_child(revoke_inits_root)) == 0,
          "revoke of a path fd on init's root, from "
          "a process whose root is a fresh ramfs: step %d (2: it was revoked; 3: not EBUSY)",
          code);
    CHECK((f = walk(AT_CWD, "/bin/sh", 0)) >= 0, "init's root no longer works");
    close(f);
    PASS();
}

static const struct lab_test tests[] = {
    LAB_TEST(unbind_returns_a_path_fd_on_what_was_attached),
    LAB_TEST(files_open_inside_keep_working_after_unbind),
    LAB_TEST(unbind_plus_bind_is_a_move),
    LAB_TEST(unbind_refuses_what_is_not_an_attachment_of_ours),
    LAB_TEST(a_file_bound_on_a_file_can_be_unbound),
    LAB_TEST(unbind_takes_everything_attached_below),
    LAB_TEST(dotdot_stops_at_the_top_of_what_was_unbound),
    LAB_TEST(revoke_fails_every_other_fd_with_eio),
    LAB_TEST(revoke_works_on_a_detached_fs),
    LAB_TEST(revoke_detaches_it_from_every_namespace),
    LAB_TEST(revoke_wakes_a_reader_blocked_on_a_fifo),
    LAB_TEST(revoke_releases_the_source_at_once),
    LAB_TEST(revoke_lets_go_of_the_source_once),
    LAB_TEST(revoke_releases_the_filesystem_after_the_last_close),
    LAB_TEST(umount_leaks_nothing),
    LAB_TEST(revoke_of_the_filesystem_holding_the_cwd_works),
    LAB_TEST(revoke_refuses_pipes_and_the_callers_own_root),
    LAB_TEST(nobody_may_revoke_inits_root),
};

int main(int argc, char **argv)
{
    return lab_main("lab04", tests, ARRAY_SIZE(tests), argc, argv);
}
