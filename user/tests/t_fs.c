/* t_fs.c - the split primitives of Orthos, tested from user space: fsopen,
 * bind, unbind, revoke, fchroot, walk, ready, create, the libc
 * compositions built on them (open, mount, umount, pivot_root, chroot),
 * close-on-exec by default, pipes bound as named pipes, and a clear error
 * for every kind of bad input. One test per behaviour, each can fail. */
#include <dirent.h>
#include <fcntl.h>
#include <orthos.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>
#include "t.h"

#define NOFILE_GUESS 64

static void bind_makes_it_visible_by_path_and_in_proc_ns(void)
{
    char buf[1024];
    int fs, f;

    CHECK((fs = fsopen("ramfs", -1, NULL)) >= 0, "fsopen");
    CHECK((f = create(fs, "motd", S_IFREG, 0644, 0)) >= 0, "create");
    close(f);
    CHECK(mkdir("/tmp/m1", 0755) == 0, "mkdir /tmp/m1");
    CHECK(bind(fs, AT_CWD, "/tmp/m1", 0) == 0, "bind");
    CHECK(put_file("/tmp/m1/motd", "bound") == 0, "write by path");
    CHECK(slurp("/tmp/m1/motd", buf, sizeof(buf)) == 5 && strcmp(buf, "bound") == 0, "read");
    CHECK(slurp("/proc/self/ns", buf, sizeof(buf)) > 0, "read /proc/self/ns");
    CHECK(strstr(buf, "/tmp/m1 ramfs -\n") != NULL, "/proc/self/ns lacks /tmp/m1:\n%s", buf);
    CHECK(strstr(buf, "/ ramfs initrd\n") && strstr(buf, "/dev devfs -\n") &&
              strstr(buf, "/proc procfs -\n") && strstr(buf, "/tmp ramfs -\n"),
          "boot attachments:\n%s", buf);
    close(fs);
    PASS();
}

/* 3 (uses /tmp/m1 from 2) */
static void unbind_returns_an_fd_and_open_files_keep_working(void)
{
    char buf[1024];
    int rw, u, f;

    CHECK((rw = open("/tmp/m1/motd", O_RDWR)) >= 0, "open inside before unbind");
    CHECK((u = unbind(AT_CWD, "/tmp/m1")) >= 0, "unbind");
    CHECK(write(rw, "still", 5) == 5, "write to a file opened before the unbind");
    CHECK(lseek(rw, 0, SEEK_SET) == 0 && read(rw, buf, 5) == 5 && !memcmp(buf, "still", 5),
          "read back");
    CHECK_ERR(open("/tmp/m1/motd", O_RDONLY), ENOENT);
    CHECK((f = walk(u, "motd", 0)) >= 0, "the unbind fd still reaches the fs");
    close(f);
    CHECK(slurp("/proc/self/ns", buf, sizeof(buf)) > 0 && !strstr(buf, "/tmp/m1 "),
          "still listed:\n%s", buf);
    CHECK(mkdir("/tmp/m2", 0755) == 0 && bind(u, AT_CWD, "/tmp/m2", 0) == 0, "re-bind (move)");
    CHECK(slurp("/tmp/m2/motd", buf, sizeof(buf)) == 5 && !strcmp(buf, "still"), "moved: '%s'",
          buf);
    CHECK(umount("/tmp/m2") == 0, "umount");
    CHECK_ERR(open("/tmp/m2/motd", O_RDONLY), ENOENT);
    close(rw);
    close(u);
    PASS();
}

static void revoke_after_lazy_detach_fails_other_fds_with_eio(void)
{
    static char big[4096];
    int fs, rw, u, i, sub;
    unsigned before, after;
    char c;

    CHECK((fs = fsopen("ramfs", -1, NULL)) >= 0, "fsopen");
    CHECK(mkdir("/tmp/rv", 0755) == 0 && bind(fs, AT_CWD, "/tmp/rv", 0) == 0, "bind");
    close(fs);
    CHECK(mkdir("/tmp/rv/sub", 0755) == 0, "mkdir inside");
    CHECK((rw = open("/tmp/rv/data", O_RDWR | O_CREAT, 0644)) >= 0, "open inside");
    for (i = 0; i < 64; i++)
        CHECK(write(rw, big, sizeof(big)) == sizeof(big), "fill");
    CHECK((sub = walk(AT_CWD, "/tmp/rv/sub", 0)) >= 0, "walk inside");
    CHECK((u = unbind(AT_CWD, "/tmp/rv")) >= 0, "lazy detach");
    CHECK(read(rw, &c, 1) == 0, "before revoke the open file works");
    before = free_pages();
    CHECK(revoke(u) == 0, "revoke");
    CHECK_ERR(read(rw, &c, 1), EIO);
    CHECK_ERR(write(rw, "x", 1), EIO);
    CHECK_ERR(walk(sub, "..", 0) >= 0 ? walk(sub, "x", 0) : -1, EIO);
    CHECK_ERR(walk(u, "data", 0), EIO);
    CHECK_ERR(revoke(u), EIO);
    CHECK(close(rw) == 0 && close(sub) == 0 && close(u) == 0, "close still works");
    after = free_pages();
    CHECK(after >= before + 64, "filesystem not released: %u free pages before, %u after", before,
          after);
    PASS();
}

/* 5: in a child with its own namespace */
static int do_pivot(void)
{
    char buf[1024];
    int fd;

    if (unshare() < 0 || mkdir("/tmp/newroot", 0755) < 0 ||
        mount("ramfs", NULL, "/tmp/newroot", "") < 0 || mkdir("/tmp/newroot/old", 0755) < 0 ||
        put_file("/tmp/newroot/marker", "new") < 0)
        return 1;
    if (pivot_root("/tmp/newroot", "/old") < 0)
        return 2;
    if (slurp("/marker", buf, sizeof(buf)) != 3)
        return 3;                       /* the new root is "/" */
    if ((fd = walk(AT_CWD, "/old/bin/true", 0)) < 0)
        return 4;                       /* the old root is at put_old */
    close(fd);
    if ((fd = walk(AT_CWD, "/old/dev/null", 0)) < 0)
        return 5;                       /* with its attachments */
    close(fd);
    if ((fd = walk(AT_CWD, "/bin", 0)) >= 0 || errno != ENOENT)
        return 6;                       /* and nowhere else */
    if ((fd = walk(AT_CWD, "/..", 0)) < 0 || walk(fd, "marker", 0) < 0)
        return 7;                       /* ".." stays in the new root */
    if (umount("/old") < 0)
        return 8;
    if (walk(AT_CWD, "/old/bin", 0) >= 0 || errno != ENOENT)
        return 9;                       /* the old tree is gone */
    if (slurp("/proc/self/ns", buf, sizeof(buf)) >= 0)
        return 10;                      /* /proc was in the old tree too */
    return 0;
}

static void pivot_root_composed_in_user_space(void)
{
    int code = in_child(do_pivot), fd;

    CHECK(code == 0, "pivot child failed at step %d", code);
    CHECK((fd = walk(AT_CWD, "/bin/true", 0)) >= 0, "the parent's namespace changed");
    close(fd);
    CHECK_ERR(walk(AT_CWD, "/tmp/newroot/marker", 0), ENOENT);
    PASS();
}

static int do_jail(void)
{
    struct stat a, b;
    int outside, fd;

    if ((outside = walk(AT_CWD, "/", 0)) < 0 || chroot("/tmp/jail") < 0 || chdir("/") < 0)
        return 1;
    if ((fd = walk(AT_CWD, "..", 0)) < 0 || fstat(fd, &a) < 0 || stat("/", &b) < 0)
        return 2;
    if (a.st_ino != b.st_ino || a.st_dev != b.st_dev)
        return 3;                       /* ".." from the root is the root */
    if (walk(AT_CWD, "/../../bin/true", 0) >= 0 || errno != ENOENT)
        return 4;
    if (stat("/inside", &a) < 0)
        return 5;
    /* The classic hole: a directory fd from outside still leads out. */
    if ((fd = walk(outside, "bin/true", 0)) < 0)
        return 6;
    return 0;
}

static void chroot_jail_holds_but_outside_fd_escapes(void)
{
    int code, d;

    CHECK(mkdir("/tmp/jail", 0755) == 0 && mkdir("/tmp/jail/sub", 0755) == 0, "mkdir");
    CHECK(put_file("/tmp/jail/inside", "x") == 0, "file");
    code = in_child(do_jail);
    CHECK(code == 0, "jail child failed at step %d", code);
    CHECK(symlink("/bin", "/tmp/jail/abs") == 0 && symlink("../..", "/tmp/jail/up") == 0 &&
              symlink("sub", "/tmp/jail/rel") == 0,
          "symlinks");
    CHECK((d = walk(AT_CWD, "/tmp/jail", 0)) >= 0, "walk jail");
    CHECK_ERR(walk(d, "..", WALK_BENEATH), EXDEV);
    CHECK_ERR(walk(d, "sub/../..", WALK_BENEATH), EXDEV);
    CHECK_ERR(walk(d, "/bin", WALK_BENEATH), EXDEV);
    CHECK_ERR(walk(d, "abs", WALK_BENEATH), EXDEV);
    CHECK_ERR(walk(d, "up", WALK_BENEATH), EXDEV);
    CHECK(walk(d, "sub/..", WALK_BENEATH) >= 0, "staying inside must work");
    CHECK(walk(d, "rel", WALK_BENEATH) >= 0, "a symlink inside must work");
    CHECK(walk(d, "abs", 0) >= 0, "without WALK_BENEATH the symlink is followed");
    close(d);
    PASS();
}

static void walk_on_fifo_never_blocks_and_ready_succeeds(void)
{
    struct stat st;
    int p, r, w;
    char buf[8];

    CHECK(mkfifo("/tmp/fifo", 0644) == 0, "mkfifo");
    CHECK((p = walk(AT_CWD, "/tmp/fifo", 0)) >= 0, "walk");
    CHECK(fstat(p, &st) == 0 && S_ISFIFO(st.st_mode), "not a fifo");
    CHECK((r = ready(p, R_READ | R_NONBLOCK)) >= 0, "ready for read with no writer");
    CHECK_ERR(read(r, buf, 1), EAGAIN);
    CHECK((w = ready(p, R_WRITE)) >= 0, "ready for write");
    CHECK(write(w, "ab", 2) == 2, "write");
    CHECK(read(r, buf, sizeof(buf)) == 2 && !memcmp(buf, "ab", 2), "read what was written");
    close(w);
    CHECK(read(r, buf, 1) == 0, "end of file after the last writer left");
    close(r);
    close(p);
    PASS();
}

static void ready_opens_the_walked_node_even_after_rename(void)
{
    struct stat st;
    char buf[8] = "";
    int p, r;

    CHECK(put_file("/tmp/a", "AAA") == 0 && put_file("/tmp/b", "BBB") == 0, "setup");
    CHECK((p = walk(AT_CWD, "/tmp/a", 0)) >= 0, "walk");
    CHECK(fstat(p, &st) == 0 && S_ISREG(st.st_mode), "fstat before ready");
    CHECK(rename("/tmp/b", "/tmp/a") == 0, "rename over the walked name");
    CHECK((r = ready(p, R_READ)) >= 0, "ready");
    CHECK(read(r, buf, 3) == 3 && !memcmp(buf, "AAA", 3),
          "ready opened '%s', not the node "
          "that was walked",
          buf);
    CHECK(slurp("/tmp/a", buf, sizeof(buf)) == 3 && !strcmp(buf, "BBB"), "by name: '%s'", buf);
    close(r);
    close(p);
    PASS();
}

static void create_is_exclusive_for_every_type(void)
{
    static const int types[] = { S_IFREG, S_IFDIR, S_IFIFO, S_IFLNK };
    static const char *const names[] = { "/tmp/x_reg", "/tmp/x_dir", "/tmp/x_fifo", "/tmp/x_lnk" };
    char buf[16];
    struct stat st;
    int i, fd;

    for (i = 0; i < 4; i++) {
        unsigned long arg = types[i] == S_IFLNK ? (unsigned long)"target" : 0;
        CHECK((fd = create(AT_CWD, names[i], types[i], 0644, arg)) >= 0, "create %s", names[i]);
        close(fd);
        CHECK_ERR(create(AT_CWD, names[i], types[i], 0644, arg), EEXIST);
        CHECK_ERR(create(AT_CWD, names[i], S_IFREG, 0644, 0), EEXIST);
    }
    fd = open("/tmp/x_reg", O_WRONLY);
    CHECK(fd >= 0 && write(fd, "keep me", 7) == 7, "write");
    close(fd);
    CHECK((fd = open("/tmp/x_reg", O_RDWR | O_CREAT, 0644)) >= 0, "O_CREAT on an existing file");
    CHECK(read(fd, buf, 7) == 7 && !memcmp(buf, "keep me", 7), "O_CREAT must not truncate");
    close(fd);
    CHECK_ERR(open("/tmp/x_reg", O_RDWR | O_CREAT | O_EXCL, 0644), EEXIST);
    CHECK((fd = open("/tmp/x_reg", O_RDWR | O_TRUNC)) >= 0, "O_TRUNC");
    CHECK(fstat(fd, &st) == 0 && st.st_size == 0, "O_TRUNC left %u bytes", st.st_size);
    CHECK(ftruncate(fd, 100) == 0 && fstat(fd, &st) == 0 && st.st_size == 100, "grow");
    CHECK(read(fd, buf, 4) == 4 && buf[0] == 0 && buf[3] == 0, "grown bytes are zero");
    CHECK(ftruncate(fd, 3) == 0 && fstat(fd, &st) == 0 && st.st_size == 3, "shrink");
    close(fd);
    CHECK((fd = open("/tmp/x_reg", O_RDONLY)) >= 0, "open ro");
    CHECK_ERR(ftruncate(fd, 0), EBADF);
    close(fd);
    PASS();
}

static void fds_are_closed_on_exec_unless_kept(void)
{
    char *argv[] = { "cat", "/proc/self/fd", NULL };
    char out[512];
    int pfd[2], a, pid, n, got = 0, status;

    CHECK((a = open("/tmp/x_reg", O_RDONLY)) >= 0, "open");
    CHECK(dup2(a, 10) == 10 && dup2(a, 11) == 11, "dup2");
    close(a);
    CHECK(fcntl(11, F_SETFD, FD_KEEP) == 0 && fcntl(11, F_GETFD, 0) == FD_KEEP, "keep 11");
    CHECK(fcntl(10, F_GETFD, 0) == 0, "a new fd must not be kept");
    CHECK(pipe(pfd) == 0, "pipe");
    fflush(stdout);
    if ((pid = fork()) == 0) {
        dup2(pfd[1], 1);
        fcntl(1, F_SETFD, FD_KEEP);
        execv("/bin/cat", argv);
        _exit(127);
    }
    close(pfd[1]);
    while (got < (int)sizeof(out) - 1 && (n = read(pfd[0], out + got, sizeof(out) - 1 - got)) > 0)
        got += n;
    out[got] = '\0';
    close(pfd[0]);
    CHECK(waitpid(pid, &status, 0) == pid && status == 0, "cat failed (%x)", status);
    CHECK(strstr(out, "11 reg r keep\n") != NULL, "kept fd 11 missing:\n%s", out);
    CHECK(strstr(out, "\n10 ") == NULL, "fd 10 leaked into the new program:\n%s", out);
    CHECK(strstr(out, "0 chr rw keep\n") != NULL, "stdin missing:\n%s", out);
    close(10);
    close(11);
    PASS();
}

/* A pipe end bound at a name comes off it with umount (unbind), and the
 * name is the file it covered again. (The named pipe itself, a writer
 * that knows only the name, end of file: Lab 03's test.) */
static void a_pipe_end_bound_at_a_name_comes_off_with_umount(void)
{
    char buf[1024] = "";
    struct stat st;
    int p[2], f;

    CHECK(pipe(p) == 0, "pipe");
    CHECK((f = create(AT_CWD, "/tmp/np", S_IFREG, 0644, 0)) >= 0, "placeholder");
    close(f);
    CHECK(bind(p[1], AT_CWD, "/tmp/np", 0) == 0, "bind the pipe at /tmp/np");
    close(p[0]);
    close(p[1]);
    CHECK(stat("/tmp/np", &st) == 0 && S_ISFIFO(st.st_mode), "the name is not the pipe");
    CHECK(umount("/tmp/np") == 0, "unbind the pipe");
    CHECK(stat("/tmp/np", &st) == 0 && S_ISREG(st.st_mode), "the placeholder is not back");
    CHECK(slurp("/proc/self/ns", buf, sizeof(buf)) > 0 && !strstr(buf, "/tmp/np "),
          "still listed:\n%s", buf);
    PASS();
}

static int cwd_in_revoked_ext2(void)
{
    char buf[64];
    int img = open("/etc/sample.ext2", O_RDONLY), fs, d, probe;

    if (img < 0)
        return 1;
    /* (the parent's instance is still live: use our own copy of the image) */
    if ((probe = open("/tmp/copy.ext2", O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0)
        return 2;
    while ((d = read(img, buf, sizeof(buf))) > 0)
        write(probe, buf, d);
    close(img);
    if ((fs = fsopen("ext2", probe, "ro")) < 0 || (d = walk(fs, "lost+found", 0)) < 0 ||
        fchdir(d) < 0)
        return 3;
    close(probe);
    if (revoke(fs) < 0)
        return 4;
    return getcwd(buf, sizeof(buf)) == NULL && errno == EIO ? 0 : 5;
}

/* 12: a regular file holding an ext2 image (in the boot ramfs) is a source. */
static void fsopen_ext2_from_an_image_in_a_regular_file(void)
{
    char buf[64] = "", ns[1024];
    int img, fs, f, r;

    CHECK((img = open("/etc/sample.ext2", O_RDONLY)) >= 0, "open /etc/sample.ext2");
    CHECK((fs = fsopen("ext2", img, "ro")) >= 0, "fsopen ext2 from a regular file");
    close(img);                         /* the filesystem holds its own reference */
    CHECK((f = walk(fs, "hello.txt", 0)) >= 0 && (r = ready(f, R_READ)) >= 0, "walk + ready");
    CHECK(read(r, buf, sizeof(buf) - 1) > 0 && !strncmp(buf, "Hello from the ext2 disk.", 25),
          "read '%s'", buf);
    close(r);
    close(f);
    CHECK_ERR(create(fs, "new", S_IFREG, 0644, 0), EROFS);
    CHECK((img = open("/etc/sample.ext2", O_RDONLY)) >= 0, "open again");
    CHECK_ERR(fsopen("ext2", img, "ro"), EBUSY);    /* one instance per source */
    close(img);
    CHECK(mkdir("/tmp/loop", 0755) == 0 && bind(fs, AT_CWD, "/tmp/loop", 0) == 0, "bind");
    CHECK((f = open("/tmp/loop/README.txt", O_RDONLY)) >= 0, "by path");
    close(f);
    CHECK(slurp("/proc/self/ns", ns, sizeof(ns)) > 0 &&
              strstr(ns, "/tmp/loop ext2 /etc/sample.ext2\n"),
          "ns:\n%s", ns);
    CHECK(umount("/tmp/loop") == 0, "umount");
    CHECK(in_child(cwd_in_revoked_ext2) == 0, "getcwd inside a revoked ext2 must be EIO");
    close(fs);
    PASS();
}

static void bad_input_gets_a_clear_error(void)
{
    int path, rd, dir, fds[2], i, n;
    char c;

    CHECK((path = walk(AT_CWD, "/tmp/x_reg", 0)) >= 0, "walk");
    CHECK_ERR(read(path, &c, 1), EBADF);
    CHECK_ERR(write(path, "x", 1), EBADF);
    CHECK((rd = ready(path, R_READ)) >= 0, "ready");
    CHECK_ERR(write(rd, "x", 1), EBADF);
    CHECK_ERR(ready(path, 0), EINVAL);
    CHECK_ERR(ready(path, 0x100), EINVAL);
    CHECK_ERR(read(99, &c, 1), EBADF);
    CHECK_ERR(read(-1, &c, 1), EBADF);
    CHECK_ERR(bind(path, AT_CWD, "/tmp", 0), EISDIR);
    CHECK((dir = walk(AT_CWD, "/tmp/jail", 0)) >= 0, "walk dir");
    CHECK_ERR(bind(dir, AT_CWD, "/tmp/x_reg", 0), ENOTDIR);
    CHECK_ERR(bind(dir, AT_CWD, "/tmp/jail/sub", 7), EINVAL);
    CHECK_ERR(unbind(AT_CWD, "/tmp/jail"), EINVAL);
    CHECK_ERR(unbind(AT_CWD, "/"), EINVAL);
    CHECK_ERR(walk(AT_CWD, "", 0), ENOENT);
    CHECK_ERR(walk(AT_CWD, "/no/such/thing", 0), ENOENT);
    CHECK_ERR(walk(AT_CWD, "/tmp/x_reg/below", 0), ENOTDIR);
    CHECK_ERR(walk(AT_CWD, "/tmp", 0x80), EINVAL);
    CHECK_ERR(walk(path, "x", 0), ENOTDIR);
    CHECK_ERR(create(AT_CWD, "/tmp/bogus", 0123, 0644, 0), EINVAL);
    CHECK_ERR(create(AT_CWD, "/tmp/no/such/dir", S_IFREG, 0644, 0), ENOENT);
    CHECK_ERR(unlinkat(AT_CWD, "/tmp/jail", 0), EISDIR);
    CHECK_ERR(unlinkat(AT_CWD, "/tmp/jail", UNLINK_DIR), ENOTEMPTY);
    CHECK_ERR(unlinkat(AT_CWD, "/tmp/x_reg", UNLINK_DIR), ENOTDIR);
    CHECK_ERR(unlinkat(AT_CWD, "/dev", UNLINK_DIR), EBUSY);
    CHECK_ERR(fcntl(rd, 99, 0), EINVAL);
    CHECK_ERR(fcntl(rd, F_SETFD, 0x40), EINVAL);
    CHECK_ERR(fsopen("ramfs", 99, NULL), EBADF);
    CHECK_ERR(revoke(99), EBADF);
    CHECK_ERR(fchroot(path), ENOTDIR);
    CHECK_ERR(fchdir(rd), ENOTDIR);
    CHECK_ERR(getdents(rd, &c, 1), ENOTDIR);
    CHECK_ERR(getdents(dir, &c, 1), EBADF);       /* a path fd: ready it to list */
    CHECK_ERR(ftruncate(dir, 0), EBADF);
    CHECK_ERR(dup2(rd, 99), EBADF);
    CHECK_ERR(rename("/tmp/x_reg", "/dev/x"), EXDEV);
    CHECK_ERR(renameat(AT_CWD, "/tmp/x_reg", AT_CWD, "/tmp/x_dir", 0), EISDIR);
    CHECK_ERR(renameat(AT_CWD, "/tmp/a", AT_CWD, "/tmp/x_reg", RENAME_NOREPLACE), EEXIST);
    CHECK_ERR(renameat(AT_CWD, "/tmp/jail", AT_CWD, "/tmp/jail/sub/in", 0), EINVAL);
    CHECK(pipe(fds) == 0, "pipe");
    CHECK_ERR(lseek(fds[0], 0, SEEK_SET), ESPIPE);
    close(fds[0]);
    CHECK_ERR(write(fds[1], "x", 1), EPIPE);
    close(fds[1]);
    CHECK(symlink("loop2", "/tmp/loop1") == 0 && symlink("loop1", "/tmp/loop2") == 0, "loop");
    CHECK_ERR(walk(AT_CWD, "/tmp/loop1", 0), ELOOP);
    /* Fill the fd table: EMFILE, and nothing breaks. */
    for (n = 0; (i = dup(rd)) >= 0; n++)
        ;
    CHECK(errno == EMFILE && n > 10, "fd table: %d dups, errno %d", n, errno);
    for (i = 0; i < 32; i++)
        if (i > 2 && i != rd && i != path && i != dir)
            close(i);
    CHECK(read(rd, &c, 0) == 0, "rd still usable");
    close(rd);
    close(path);
    close(dir);
    PASS();
}

/* Each argument check at its edge, and in its order (tools/kmutants.txt:
 * each of these was a wrong kernel no test saw). read and write ask the
 * fd's access before the buffer; ready refuses unknown mode bits, a
 * directory for writing and a symlink itself; F_SETFL sets modes, never
 * the access; lseek stays within 0..OFF_MAX and knows its whences; link
 * stays in the node's filesystem and off directories; create takes no
 * type from perm; unknown flags are EINVAL; fd OPEN_MAX is no fd; dup2's
 * new fd is not kept across exec; link and unlink take paths longer than
 * their stack buffer; getdents checks its buffer before it takes an
 * entry, so a bad one loses none; a path of PATH_MAX bytes has no room
 * for its NUL, a name of NAME_MAX + 1 bytes is too long; fsopen's
 * too-long type is no type and too-long options are invalid; pipe() with
 * room for no fd, or one, keeps no open file. */
static void argument_checks_hold_at_their_edges(void)
{
    static char path[PATH_MAX + 1], opts[128], type[64];
    int rd, wr, d, fds[2], i, n, files, was_free[OPEN_MAX];
    char *bad = (char *)0xC0000000u, buf[256];
    struct dirent *de = (struct dirent *)buf;
    struct stat st;

    CHECK((rd = open("/tmp/x_reg", O_RDONLY)) >= 0, "open");
    CHECK((wr = open("/tmp/x_reg", O_WRONLY)) >= 0, "open for writing");
    CHECK_ERR(write(rd, bad, 1), EBADF);        /* the fd's access first */
    CHECK_ERR(read(wr, bad, 1), EBADF);
    CHECK_ERR(read(rd, bad, 1), EFAULT);
    close(wr);
    CHECK((n = walk(AT_CWD, "/tmp/x_reg", 0)) >= 0, "walk");
    CHECK_ERR(ready(n, R_READ | 0x100), EINVAL); /* a known bit with an unknown one */
    CHECK_ERR(fcntl(n, F_SETFL, R_APPEND), EBADF); /* a path fd has no I/O modes */
    close(n);
    CHECK((n = walk(AT_CWD, "/tmp", 0)) >= 0, "walk /tmp");
    CHECK_ERR(ready(n, R_WRITE), EISDIR);        /* a directory changes by names only */
    close(n);
    CHECK(symlink("x_reg", "/tmp/x_edge_lnk") == 0, "symlink");
    CHECK((n = walk(AT_CWD, "/tmp/x_edge_lnk", WALK_NOFOLLOW)) >= 0, "walk the link itself");
    CHECK_ERR(ready(n, R_READ), ELOOP);          /* a symlink has no contents to read */
    close(n);
    unlink("/tmp/x_edge_lnk");
    CHECK_ERR(fcntl(rd, F_SETFL, R_NONBLOCK | 0x100), EINVAL);
    CHECK(fcntl(rd, F_SETFL, R_RDWR) == 0, "F_SETFL"); /* the access bits are ignored: */
    CHECK((fcntl(rd, F_GETFL, 0) & R_RDWR) == R_READ, "F_SETFL made a read-only fd 0x%x",
          fcntl(rd, F_GETFL, 0));                        /* ready fixed them */
    CHECK_ERR(write(rd, "x", 1), EBADF);
    CHECK_ERR(lseek(rd, -1, SEEK_SET), EINVAL);  /* no position before the start */
    CHECK(lseek(rd, 1, SEEK_SET) == 1, "lseek");
    CHECK_ERR(lseek(rd, -2, SEEK_CUR), EINVAL);
    CHECK_ERR(lseek(rd, 0, 3), EINVAL);         /* no such whence */
    CHECK((n = walk(AT_CWD, "/tmp/x_reg", 0)) >= 0, "walk");
    CHECK_ERR(lseek(n, 0, SEEK_SET), EBADF);     /* a path fd has no position */
    close(n);
    CHECK((n = walk(AT_CWD, "/tmp/x_reg", 0)) >= 0 && (d = fsopen("ramfs", -1, "")) >= 0,
          "a file and another filesystem");
    CHECK_ERR(linkat(n, d, "x"), EXDEV);         /* a name only in the node's own */
    close(d);
    close(n);
    CHECK((n = walk(AT_CWD, "/tmp/jail", 0)) >= 0, "walk a directory");
    CHECK_ERR(linkat(n, AT_CWD, "/tmp/x_edge_dir"), EPERM); /* no hard link to a directory */
    close(n);
    CHECK((n = create(AT_CWD, "/tmp/x_edge", S_IFREG, 0170644, 0)) >= 0, "create");
    CHECK(fstat(n, &st) == 0 && st.st_mode == (S_IFREG | 0644),
          "create with type bits in perm made mode 0%o", st.st_mode); /* perm's type bits: none */
    close(n);
    CHECK_ERR(unlinkat(AT_CWD, "/tmp/x_edge", 0x100), EINVAL);
    CHECK_ERR(renameat(AT_CWD, "/tmp/x_edge", AT_CWD, "/tmp/x_edge2", 0x100), EINVAL);
    CHECK(unlink("/tmp/x_edge") == 0, "unlink");
    n = fcntl(0, F_GETFD, 0);                   /* the table's marks lie right after */
    CHECK(fcntl(0, F_SETFD, FD_KEEP) == 0, "F_SETFD"); /* it: one set, a lookup one past */
    CHECK_ERR(read(OPEN_MAX, buf, 1), EBADF);   /* the end would find a "file" there */
    CHECK_ERR(close(OPEN_MAX), EBADF);
    CHECK_ERR(dup2(rd, OPEN_MAX), EBADF);
    fcntl(0, F_SETFD, n);
    CHECK((i = dup(rd)) >= 0 && fcntl(rd, F_SETFD, FD_KEEP) == 0, "dup");
    CHECK(dup2(rd, i) == i && fcntl(i, F_GETFD, 0) == 0, "dup2 gave fd %d rd's FD_KEEP", i);
    close(i);
    fcntl(rd, F_SETFD, 0);
    memset(path, 'n', 200);                     /* a path past link's short buffer */
    memcpy(path, "/tmp/", 5);
    path[200] = '\0';
    CHECK((n = open(path, O_CREAT | O_WRONLY, 0644)) >= 0, "create a 195-byte name");
    close(n);
    CHECK(unlinkat(AT_CWD, path, 0) == 0, "unlink of a 200-byte path: errno %d", errno);
    CHECK((d = open("/tmp", O_RDONLY)) >= 0, "open /tmp");
    CHECK_ERR(getdents(d, buf, 8), EINVAL);      /* no room for one entry: no end either */
    CHECK_ERR(getdents(d, bad, sizeof(buf)), EFAULT);
    CHECK(getdents(d, buf, sizeof(buf)) > 0 && strcmp(de->d_name, ".") == 0,
          "the first entry after a getdents into a bad buffer is '%s', not '.'", de->d_name);
    close(d);
    for (i = 0; i < PATH_MAX; i += 2)
        memcpy(path + i, "./", 2);              /* "./" * 512: PATH_MAX bytes, no NUL */
    CHECK_ERR(walk(AT_CWD, path, 0), ENAMETOOLONG);
    memcpy(path, "/tmp/", 5);                   /* a name of NAME_MAX bytes, then of one more */
    memset(path + 5, 'n', NAME_MAX + 1);
    path[5 + NAME_MAX] = '\0';
    CHECK_ERR(walk(AT_CWD, path, 0), ENOENT);
    path[5 + NAME_MAX] = 'n';
    path[5 + NAME_MAX + 1] = '\0';
    CHECK_ERR(walk(AT_CWD, path, 0), ENAMETOOLONG);
    for (i = 0; i < PATH_MAX; i += 2)
        memcpy(path + i, "./", 2);
    path[PATH_MAX - 1] = '\0';                  /* one fewer: it fits */
    CHECK((n = walk(AT_CWD, path, 0)) >= 0, "walk of a path of PATH_MAX - 1 bytes: errno %d",
          errno);
    close(n);
    memset(type, 'r', sizeof(type) - 1);
    CHECK_ERR(fsopen(type, -1, NULL), ENODEV);
    memset(opts, 'o', sizeof(opts) - 1);
    CHECK_ERR(fsopen("ramfs", -1, opts), EINVAL);
    for (i = 0; i < OPEN_MAX; i++)
        was_free[i] = fcntl(i, F_GETFD, 0) < 0;
    files = (int)meminfo("open_files");
    while (dup(rd) >= 0)
        ;
    CHECK_ERR(pipe(fds), EMFILE);               /* no room: neither end is kept */
    close(OPEN_MAX - 1);                        /* room for one end only */
    CHECK_ERR(pipe(fds), EMFILE);
    for (i = 0; i < OPEN_MAX; i++)
        if (was_free[i])
            close(i);
    CHECK((int)meminfo("open_files") == files, "open files %u, want %d: pipe() kept an end",
          meminfo("open_files"), files);
    close(rd);
    PASS();
}

static void getcwd_names_the_directory_across_attachments(void)
{
    char buf[128];

    CHECK(mkdir("/tmp/cw", 0755) == 0 && mkdir("/tmp/cw/deep", 0755) == 0, "mkdir");
    CHECK(chdir("/tmp/cw/deep") == 0, "chdir");
    CHECK(getcwd(buf, sizeof(buf)) && !strcmp(buf, "/tmp/cw/deep"), "getcwd gave '%s'", buf);
    CHECK(chdir("/proc") == 0 && getcwd(buf, sizeof(buf)) && !strcmp(buf, "/proc"), "'%s'", buf);
    CHECK(chdir("..") == 0 && getcwd(buf, sizeof(buf)) && !strcmp(buf, "/"), "'%s'", buf);
    CHECK(chdir("/tmp/cw/deep") == 0, "chdir back");
    CHECK_ERR(getcwd(buf, 5) ? 0 : -1, ERANGE);
    CHECK(chdir("/") == 0, "chdir /");
    PASS();
}

static void links_and_renames_keep_counts(void)
{
    struct stat st;
    char buf[8];

    CHECK(put_file("/tmp/l1", "data") == 0, "setup");
    CHECK(link("/tmp/l1", "/tmp/l2") == 0, "link");
    CHECK(stat("/tmp/l1", &st) == 0 && st.st_nlink == 2, "nlink %u", st.st_nlink);
    CHECK_ERR(link("/tmp/l1", "/tmp/l2"), EEXIST);
    CHECK(unlink("/tmp/l1") == 0, "unlink");
    CHECK(stat("/tmp/l2", &st) == 0 && st.st_nlink == 1, "nlink %u", st.st_nlink);
    CHECK(rename("/tmp/l2", "/tmp/jail/sub/l3") == 0, "rename across dirs");
    CHECK(slurp("/tmp/jail/sub/l3", buf, sizeof(buf)) == 4, "content after rename");
    CHECK_ERR(stat("/tmp/l2", &st), ENOENT);
    PASS();
}

/* ---- regressions: each of these was a bug once */

static int unbind_from_old_namespace(void)
{
    int old = walk(AT_CWD, "/tmp/rg1", 0);

    if (old < 0 || unshare() < 0)
        return 1;
    if (unbind(old, ".") >= 0 || errno != EINVAL)
        return 2;                       /* that attachment is not ours any more */
    if (bind(old, old, ".", 0) >= 0 || errno != EINVAL)
        return 3;
    return 0;
}

static void unbind_and_bind_refuse_another_namespaces_attachments(void)
{
    int f;

    CHECK(mkdir("/tmp/rg1", 0755) == 0 && mount("ramfs", NULL, "/tmp/rg1", "") == 0, "setup");
    CHECK(in_child(unbind_from_old_namespace) == 0, "step %d", in_child(unbind_from_old_namespace));
    CHECK((f = create(AT_CWD, "/tmp/rg1/still", S_IFREG, 0644, 0)) >= 0, "still attached");
    close(f);
    CHECK(umount("/tmp/rg1") == 0, "umount");
    PASS();
}

static int fchroot_into_big_fs(void)
{
    static char big[4096];
    int fs = fsopen("ramfs", -1, NULL), f, io, i;

    if (fs < 0 || (f = create(fs, "big", S_IFREG, 0644, 0)) < 0 || (io = ready(f, R_WRITE)) < 0)
        return 1;
    for (i = 0; i < 200; i++)
        if (write(io, big, sizeof(big)) != sizeof(big))
            return 2;
    close(io);
    close(f);
    if (unshare() < 0 || fchroot(fs) < 0)
        return 3;
    return 0;
}

static void a_namespace_rooted_by_fchroot_is_freed_with_it(void)
{
    unsigned before;
    int code;

    CHECK(in_child(fchroot_into_big_fs) == 0, "child failed");   /* warm-up */
    before = free_pages();
    CHECK((code = in_child(fchroot_into_big_fs)) == 0, "child failed at %d", code);
    CHECK(free_pages() == before, "%u free pages before, %u after", before, free_pages());
    PASS();
}

/* In the shared namespace: fchroot into a detached tree in a child that
 * then exits. The root attachment fchroot made goes with its last user:
 * before, it lived as long as the namespace (the boot one: for ever),
 * holding the filesystem, so its image stayed busy, and each one took a
 * slot of the table (256), after which every bind was ENOSPC. */
static int fchroot_into(int fs)
{
    return fchroot(fs) < 0 || chdir("/") < 0 ? -1 : 0;
}

/* One process: a new root 300 times (more than the table holds), each
 * with an attachment below it; the one before goes once neither its root
 * nor its cwd is in it. */
static int fchroot_again_and_again(void)
{
    int i, fs;

    for (i = 0; i < 300; i++) {
        if ((fs = fsopen("ramfs", -1, "")) < 0 || fchroot_into(fs) < 0)
            return 1;
        close(fs);
        if (mkdir("/d", 0755) < 0 || mount("ramfs", NULL, "/d", "") < 0)
            return 2;
    }
    return 0;
}

static void a_root_made_by_fchroot_goes_with_its_last_user(void)
{
    int img, fs, pid, st, code;

    CHECK(copyfile("/etc/fuzz.ext2", "/tmp/rg9.img") == 0, "setup");
    CHECK((img = open("/tmp/rg9.img", O_RDWR)) >= 0, "open the image");
    CHECK((fs = fsopen("ext2", img, "")) >= 0, "fsopen: %s", strerror(errno));
    fflush(stdout);
    if ((pid = fork()) == 0)
        _exit(-fchroot_into(fs));
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
          "the child's fchroot failed");
    close(fs);
    CHECK(lseek(img, 1024 + 56, SEEK_SET) == 1080 && write(img, "\x53", 1) == 1,
          "the image is still busy after its last user went: %s", strerror(errno));
    CHECK((fs = fsopen("ext2", img, "ro")) >= 0, "fsopen again: %s", strerror(errno));
    close(fs);
    close(img);
    unlink("/tmp/rg9.img");
    CHECK((code = in_child(fchroot_again_and_again)) == 0,
          "300 roots in one process: step %d failed (2: the table filled up)", code);
    CHECK(mkdir("/tmp/rg9", 0755) == 0 && mount("ramfs", NULL, "/tmp/rg9", "") == 0,
          "the table filled up: %s", strerror(errno));
    CHECK(umount("/tmp/rg9") == 0 && rmdir("/tmp/rg9") == 0, "cleanup");
    PASS();
}

static void a_full_fd_table_fails_before_anything_changes(void)
{
    int fds[NOFILE_GUESS], n = 0, i, f;

    CHECK(mkdir("/tmp/rg4", 0755) == 0 && mount("ramfs", NULL, "/tmp/rg4", "") == 0, "setup");
    while (n < NOFILE_GUESS && (fds[n] = dup(0)) >= 0)
        n++;
    CHECK(errno == EMFILE, "could not fill the table");
    CHECK_ERR(create(AT_CWD, "/tmp/rg4/x", S_IFREG, 0644, 0), EMFILE);
    CHECK_ERR(unbind(AT_CWD, "/tmp/rg4"), EMFILE);
    for (i = 0; i < n; i++)
        close(fds[i]);
    CHECK_ERR(walk(AT_CWD, "/tmp/rg4/x", 0), ENOENT);           /* not created */
    CHECK((f = walk(AT_CWD, "/tmp/rg4", 0)) >= 0, "walk");
    close(f);
    CHECK(umount("/tmp/rg4") == 0, "still attached, so umount works");
    PASS();
}

/* A FIFO's ring (64 KiB) is made by the first ready() and goes with the
 * last end: it was kept until the FIFO was removed, charged to whoever
 * opened it first, so a user's FIFOs could leave another user (or root)
 * paying 17 pages each that it could not give back. */
static int open_and_close_a_fifo(void)
{
    unsigned before, opened, after;
    int p, r, w;

    if (setgid(1000) < 0 || setuid(1000) < 0)
        return 1;
    if ((p = create(AT_CWD, "/tmp/rg6", S_IFIFO, 0600, 0)) < 0)
        return 2;
    before = meminfo("user_pages");
    if ((r = ready(p, R_READ | R_NONBLOCK)) < 0 || (w = ready(p, R_WRITE)) < 0)
        return 3;
    opened = meminfo("user_pages");
    close(w);
    close(r);
    after = meminfo("user_pages");
    close(p);
    unlink("/tmp/rg6");
    printf("  user 1000's pages: %u before, %u open, %u after its last end\n", before, opened,
           after);
    return opened < before + 16 ? 4 : after + 16 > opened ? 5 : 0;
}

static void a_fifos_ring_goes_with_its_last_end(void)
{
    int code = in_child(open_and_close_a_fifo);

    CHECK(code != 4, "the ring was not charged to its opener");
    CHECK(code != 5, "the ring stayed after the last end closed");
    CHECK(code == 0, "step %d failed", code);
    PASS();
}

static void a_fifo_serves_one_conversation_after_another(void)
{
    char c;
    int p, r, w, round;

    CHECK((p = create(AT_CWD, "/tmp/rg5", S_IFIFO, 0644, 0)) >= 0, "mkfifo");
    for (round = 0; round < 2; round++) {
        CHECK((r = ready(p, R_READ)) >= 0 && (w = ready(p, R_WRITE)) >= 0, "round %d", round);
        CHECK(write(w, "q", 1) == 1, "round %d: write", round);
        close(w);
        CHECK(read(r, &c, 1) == 1 && c == 'q', "round %d: read", round);
        CHECK(read(r, &c, 1) == 0, "round %d: EOF", round);
        close(r);
    }
    /* Unread bytes go with the last end, and so does the last writer: a
     * new reader finds no bytes and no end of file, only a wait. */
    CHECK((r = ready(p, R_READ)) >= 0 && (w = ready(p, R_WRITE)) >= 0, "ready");
    CHECK(write(w, "stale", 5) == 5, "write");
    close(w);
    close(r);
    CHECK((r = ready(p, R_READ | R_NONBLOCK)) >= 0, "ready, non-blocking");
    CHECK_ERR(read(r, &c, 1), EAGAIN);
    close(r);
    close(p);
    PASS();
}

static void lseek_rewinds_a_directory_and_finds_a_devices_end(void)
{
    char buf[512];
    struct stat st;
    int d, n1, n2, rd;

    CHECK((d = open("/bin", O_RDONLY | O_DIRECTORY)) >= 0, "open /bin");
    CHECK((n1 = getdents(d, buf, sizeof(buf))) > 0, "getdents");
    CHECK(lseek(d, 0, SEEK_SET) == 0 && (n2 = getdents(d, buf, sizeof(buf))) == n1, "rewind");
    CHECK_ERR(lseek(d, 10, SEEK_SET), EINVAL);
    close(d);
    CHECK((rd = open("/dev/rd0", O_RDONLY)) >= 0 && fstat(rd, &st) == 0, "open /dev/rd0");
    CHECK(st.st_size > 0 && lseek(rd, 0, SEEK_END) == (int)st.st_size, "SEEK_END %d, size %u",
          lseek(rd, 0, SEEK_END), st.st_size);
    close(rd);
    PASS();
}

static void a_trailing_slash_names_only_directories(void)
{
    int f;

    CHECK_ERR(walk(AT_CWD, "/bin/true/", 0), ENOTDIR);
    CHECK((f = walk(AT_CWD, "/bin/", 0)) >= 0, "a directory with a slash");
    close(f);
    CHECK_ERR(create(AT_CWD, "/tmp/rg6/", S_IFREG, 0644, 0), ENOTDIR);
    CHECK_ERR(walk(AT_CWD, "/tmp/rg6", 0), ENOENT);
    CHECK((f = create(AT_CWD, "/tmp/rg6/", S_IFDIR, 0755, 0)) >= 0, "mkdir with a slash");
    close(f);
    PASS();
}

static int jail_then_unshare(void)
{
    int in;

    if (chroot("/tmp/rg7") < 0 || chdir("/") < 0 || (in = walk(AT_CWD, "in", 0)) < 0)
        return 1;
    if (unshare() < 0)
        return 2;
    if (walk(in, "../../../bin/true", 0) >= 0 || errno != ENOENT)
        return 3;                       /* an fd from before unshare must not climb out */
    if (fchdir(in) < 0 || unshare() < 0 || fchdir(in) < 0)
        return 4;                       /* (a second unshare once wrote freed memory) */
    if (walk(AT_CWD, "../../../bin/true", 0) >= 0 || errno != ENOENT)
        return 5;
    return 0;
}

static void a_jail_holds_across_unshare(void)
{
    int code;

    CHECK(mkdir("/tmp/rg7", 0755) == 0 && mkdir("/tmp/rg7/in", 0755) == 0, "setup");
    CHECK((code = in_child(jail_then_unshare)) == 0, "failed at step %d", code);
    PASS();
}

static void names_with_a_trailing_slash_and_removed_directories(void)
{
    int d;

    CHECK(put_file("/tmp/rg8", "x") == 0, "setup");
    CHECK_ERR(unlink("/tmp/rg8/"), ENOTDIR);
    CHECK_ERR(rename("/tmp/rg8/", "/tmp/rg9"), ENOTDIR);
    CHECK_ERR(rename("/tmp/rg8", "/tmp/rg9/"), ENOTDIR);   /* a file is no directory there */
    CHECK_ERR(walk(AT_CWD, "/tmp/rg9", 0), ENOENT);
    CHECK(mkdir("/tmp/rg8d", 0755) == 0 && rename("/tmp/rg8d", "/tmp/rg9d/") == 0 &&
              rmdir("/tmp/rg9d") == 0,
          "a directory moves to \"new/\": %s", strerror(errno));
    CHECK(mkdir("/tmp/rg10", 0755) == 0 && (d = walk(AT_CWD, "/tmp/rg10", 0)) >= 0, "mkdir");
    CHECK(rmdir("/tmp/rg10") == 0, "rmdir");
    CHECK_ERR(create(d, "ghost", S_IFREG, 0644, 0), ENOENT);
    CHECK_ERR(walk(d, "..", 0), ENOENT);
    close(d);
    PASS();
}

/* ready(2): the boot ramdisk's node has mode 0440, and permission is
 * checked before any device open routine runs. */
static void ready_for_writing_the_boot_ramdisk_is_eacces(void)
{
    int p;

    CHECK((p = walk(AT_CWD, "/dev/rd0", 0)) >= 0, "walk /dev/rd0");
    CHECK_ERR(ready(p, R_WRITE), EACCES);
    CHECK_ERR(ready(p, R_RDWR), EACCES);
    close(p);
    PASS();
}

/* The last name of unlink/rename is never followed, so "link/" on a
 * symlink to a directory names a symlink, which is not a directory. */
static void a_trailing_slash_on_a_symlink_to_a_directory_removes_nothing(void)
{
    char buf[32];

    CHECK(mkdir("/tmp/rg11", 0755) == 0 && symlink("/tmp/rg11", "/tmp/rg12") == 0, "setup");
    CHECK_ERR(unlink("/tmp/rg12/"), ENOTDIR);
    CHECK_ERR(rmdir("/tmp/rg12/"), ENOTDIR);
    CHECK_ERR(rename("/tmp/rg12/", "/tmp/rg13"), ENOTDIR);
    CHECK(readlink("/tmp/rg12", buf, sizeof(buf)) == 9, "the symlink is gone");
    CHECK(unlink("/tmp/rg12") == 0 && rmdir("/tmp/rg11") == 0, "without the slash");
    PASS();
}

/* link(2), rename(2): a removed directory takes no new names. */
static void link_and_rename_into_a_removed_directory_are_enoent(void)
{
    int d;

    CHECK(put_file("/tmp/rg14", "x") == 0 && mkdir("/tmp/rg15", 0755) == 0, "setup");
    CHECK((d = walk(AT_CWD, "/tmp/rg15", 0)) >= 0 && rmdir("/tmp/rg15") == 0, "rmdir");
    CHECK_ERR(link("/tmp/rg14", "/tmp/rg15/a"), ENOENT);
    CHECK_ERR(renameat(AT_CWD, "/tmp/rg14", d, "b", 0), ENOENT);
    close(d);
    CHECK((d = walk(AT_CWD, "/tmp/rg14", 0)) >= 0, "the file stayed where it was");
    close(d);
    PASS();
}

/* A process whose root was revoked (by a process with another root)
 * gets EIO for every name, "/" included. */
static int walk_a_revoked_root(void)
{
    int fs, go[2], done[2], pid, status, r1, r2, e1, e2;
    char c = 0;

    if ((fs = fsopen("ramfs", -1, NULL)) < 0 || pipe(go) < 0 || pipe(done) < 0)
        return 1;
    if ((pid = fork()) == 0) {
        if (fchroot(fs) < 0)
            _exit(2);
        write(done[1], &c, 1);
        read(go[0], &c, 1);             /* the parent has revoked our root */
        r1 = walk(AT_CWD, "/", 0);
        e1 = errno;
        r2 = walk(AT_CWD, "//", 0);
        e2 = errno;
        _exit(r1 < 0 && e1 == EIO && r2 < 0 && e2 == EIO ? 0 : 3);
    }
    if (read(done[0], &c, 1) != 1 || revoke(fs) < 0)
        return 4;
    write(go[1], &c, 1);
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : 5;
}

static void walk_of_a_revoked_root_is_eio(void)
{
    int code;

    CHECK((code = in_child(walk_a_revoked_root)) == 0, "failed at step %d", code);
    PASS();
}

/* revoke(2): a writer blocked on a full FIFO of the revoked filesystem
 * wakes with EIO. */
static void revoke_fails_a_writer_blocked_on_a_full_fifo_with_eio(void)
{
    int fs, f, pid, status, got = 0, i;

    CHECK((fs = fsopen("ramfs", -1, NULL)) >= 0, "fsopen");
    CHECK((f = create(fs, "fifo", S_IFIFO, 0644, 0)) >= 0, "mkfifo");
    fflush(stdout);
    if ((pid = fork()) == 0) {
        int r = ready(f, R_READ), w = ready(f, R_WRITE | R_NONBLOCK);
        while (write(w, "x", 1) == 1)
            ;
        fcntl(w, F_SETFL, 0);
        _exit(r >= 0 && write(w, "x", 1) < 0 && errno == EIO ? 0 : 1);
    }
    sleep_ms(100);
    CHECK(revoke(fs) == 0, "revoke");
    for (i = 0; i < 40 && (got = waitpid(pid, &status, WNOHANG)) == 0; i++)
        sleep_ms(50);
    if (got == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    CHECK(got == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the blocked writer did not get EIO (status %x)", status);
    close(f);
    close(fs);
    PASS();
}

/* /proc/<pid>/ns names each attachment as that process names it, from
 * its own root, whoever reads it: read from another namespace every name
 * used to come out as "?/...". */
static void proc_ns_names_another_namespaces_attachments(void)
{
    static char buf[2048];
    int up[2], down[2], pid, fs, n, status;
    char path[32], c;

    CHECK(pipe(up) == 0 && pipe(down) == 0, "pipes");
    CHECK(mkdir("/tmp/nsother", 0755) == 0, "mkdir");
    if ((pid = fork()) == 0) {
        close(up[0]);
        close(down[1]);
        if (unshare() < 0 || (fs = fsopen("ramfs", -1, NULL)) < 0 ||
            bind(fs, AT_CWD, "/tmp/nsother", 0) < 0 || write(up[1], "x", 1) != 1)
            _exit(1);
        read(down[0], &c, 1);           /* until the parent has looked */
        _exit(0);
    }
    close(up[1]);
    close(down[0]);
    snprintf(path, sizeof(path), "/proc/%d/ns", pid);
    n = read(up[0], &c, 1) == 1 ? slurp(path, buf, sizeof(buf)) : -2;
    close(down[1]);
    close(up[0]);
    waitpid(pid, &status, 0);
    CHECK(n != -2, "the child could not bind in its own namespace");
    CHECK(n > 0, "read %s", path);
    CHECK(strstr(buf, "/tmp/nsother ramfs -\n") && strstr(buf, "/ ramfs initrd\n") &&
              strstr(buf, "/dev devfs -\n") && !strchr(buf, '?'),
          "%s read from another namespace:\n%s", path, buf);
    PASS();
}

#define LONG_NS_BINDS 20

/* In a namespace of its own: LONG_NS_BINDS attachments with names of
 * 262 bytes (lines longer than 256), then the whole of /proc/self/ns and
 * of what `ns` prints. */
static int bind_many_long_names(void)
{
    static char text[16384];
    char name[300];
    int i, fs, fd, out, status, pid, n;

    if (unshare() < 0 || mkdir("/tmp/nslong", 0755) < 0)
        return 1;
    for (i = 0; i < LONG_NS_BINDS; i++) {
        snprintf(name, sizeof(name), "/tmp/nslong/%0250d", i);
        if (mkdir(name, 0755) < 0 || (fs = fsopen("ramfs", -1, NULL)) < 0 ||
            bind(fs, AT_CWD, name, 0) < 0)
            return 2;
        close(fs);
    }
    if ((fd = open("/proc/self/ns", O_RDONLY)) < 0 ||
        (n = read_full(fd, text, sizeof(text) - 1)) <= 4096)
        return 3;                       /* it must be longer than 4 KiB */
    close(fd);
    text[n] = '\0';
    snprintf(name, sizeof(name), "/tmp/nslong/%0250d ramfs -\n", LONG_NS_BINDS - 1);
    if (!strstr(text, name) || text[n - 1] != '\n')
        return 4;
    if ((out = open("/tmp/nslong.out", O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
        return 5;
    if ((pid = fork()) == 0) {
        char *argv[] = { "ns", NULL };
        dup2(out, 1);
        fcntl(1, F_SETFD, FD_KEEP);
        execv("/bin/ns", argv);
        _exit(127);
    }
    close(out);
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 6;
    if ((fd = open("/tmp/nslong.out", O_RDONLY)) < 0 ||
        (n = read_full(fd, text, sizeof(text) - 1)) <= 0)
        return 7;
    text[n] = '\0';
    snprintf(name, sizeof(name), "/tmp/nslong/%0250d", LONG_NS_BINDS - 1);
    return strstr(text, name) ? 0 : 8;
}

/* A namespace whose /proc/<pid>/ns passes 4 KiB is read whole, and `ns`
 * shows all of it: the read used to fail (ERANGE), and `ns` printed
 * nothing and exited 0. */
static void proc_ns_longer_than_4k_is_read_whole(void)
{
    int code;

    CHECK((code = in_child(bind_many_long_names)) == 0,
          "step %d (3: /proc/self/ns not read whole, 4: the last attachment missing, "
          "6-8: ns did not print it)",
          code);
    PASS();
}

int main(void)
{
    bind_makes_it_visible_by_path_and_in_proc_ns();
    unbind_returns_an_fd_and_open_files_keep_working();
    revoke_after_lazy_detach_fails_other_fds_with_eio();
    pivot_root_composed_in_user_space();
    chroot_jail_holds_but_outside_fd_escapes();
    walk_on_fifo_never_blocks_and_ready_succeeds();
    ready_opens_the_walked_node_even_after_rename();
    create_is_exclusive_for_every_type();
    fds_are_closed_on_exec_unless_kept();
    a_pipe_end_bound_at_a_name_comes_off_with_umount();
    fsopen_ext2_from_an_image_in_a_regular_file();
    bad_input_gets_a_clear_error();
    argument_checks_hold_at_their_edges();
    getcwd_names_the_directory_across_attachments();
    links_and_renames_keep_counts();
    unbind_and_bind_refuse_another_namespaces_attachments();
    a_namespace_rooted_by_fchroot_is_freed_with_it();
    a_root_made_by_fchroot_goes_with_its_last_user();
    a_full_fd_table_fails_before_anything_changes();
    a_fifo_serves_one_conversation_after_another();
    a_fifos_ring_goes_with_its_last_end();
    lseek_rewinds_a_directory_and_finds_a_devices_end();
    a_trailing_slash_names_only_directories();
    a_jail_holds_across_unshare();
    names_with_a_trailing_slash_and_removed_directories();
    ready_for_writing_the_boot_ramdisk_is_eacces();
    a_trailing_slash_on_a_symlink_to_a_directory_removes_nothing();
    link_and_rename_into_a_removed_directory_are_enoent();
    walk_of_a_revoked_root_is_eio();
    revoke_fails_a_writer_blocked_on_a_full_fifo_with_eio();
    proc_ns_names_another_namespaces_attachments();
    proc_ns_longer_than_4k_is_read_whole();
    printf("t_fs: done\n");
    return t_failures != 0;
}
