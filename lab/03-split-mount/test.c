/* lab03 - graded tests for lab 03: fsopen() and bind(), the two halves of
 * mount(), and bind() of things that are not filesystems (a pipe end, a
 * file, a device: the article's exercise 2).
 *
 * On the lab's course branch Labs 01 (open) and 02 (pipes) are done and
 * every later lab is a stub: these tests never unbind, umount or revoke.
 * Tests that attach things work in a private namespace (unshare), so what
 * they attach is gone with their process. */
#include <fcntl.h>
#include <orthos.h>
#include <sys/mount.h>
#include <unistd.h>
#include "lab.h"
#include "array_size.h"

/* A copy of the boot archive's ext2 image at path (an image of one's own:
 * a second live instance on the same file would be EBUSY); 0 or -1. */
static int copy_image(const char *path)
{
    static char buf[4096];
    int in = open("/etc/sample.ext2", O_RDONLY), out, n, bad = 0;

    if (in < 0)
        return -1;
    if ((out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) {
        close(in);
        return -1;
    }
    while ((n = read(in, buf, sizeof(buf))) > 0)
        bad |= write(out, buf, n) != n;
    close(in);
    close(out);
    return n < 0 || bad ? -1 : 0;
}

/* Does /proc/self/ns list an attachment line starting with line? */
static int ns_lists(const char *line)
{
    static char ns[4096];
    char *p;

    if (slurp("/proc/self/ns", ns, sizeof(ns)) <= 0)
        return 0;
    for (p = ns; (p = strstr(p, line)); p++)
        if (p == ns || p[-1] == '\n')
            return 1;
    return 0;
}

/* Does fd's line in /proc/self/fd ("3 dir path") end with what? */
static int fd_line_is(int fd, const char *what)
{
    char buf[1024], want[64];

    snprintf(want, sizeof(want), "\n%d %s\n", fd, what);
    buf[0] = '\n';
    return slurp("/proc/self/fd", buf + 1, sizeof(buf) - 1) > 0 && strstr(buf, want);
}

static void fsopen_returns_a_path_fd_on_the_root_of_a_new_fs(void)
{
    struct stat st, st2, root;
    int fs, fs2, low;
    char c;

    low = dup(0);
    close(low);
    CHECK((fs = fsopen("ramfs", -1, NULL)) >= 0, "fsopen");
    CHECK(fs == low, "fd %d, but %d was the lowest free", fs, low);
    CHECK(fstat(fs, &st) == 0 && S_ISDIR(st.st_mode), "not a directory");
    CHECK(fd_line_is(fs, "dir path"), "/proc/self/fd does not list fd %d as 'dir path'", fs);
    CHECK(fcntl(fs, F_GETFL, 0) == 0, "F_GETFL %x: a path fd has no access", fcntl(fs, F_GETFL, 0));
    CHECK_ERR(read(fs, &c, 1), EBADF);
    CHECK(fcntl(fs, F_GETFD, 0) == 0, "F_GETFD %d: a new fd is not kept", fcntl(fs, F_GETFD, 0));
    CHECK(stat("/", &root) == 0 && st.st_dev != root.st_dev, "not a new filesystem");
    CHECK((fs2 = fsopen("ramfs", -1, "")) >= 0 && fstat(fs2, &st2) == 0, "a second fsopen");
    CHECK(st2.st_dev != st.st_dev, "two fsopen calls, one st_dev %u", st.st_dev);
    close(fs2);
    close(fs);
    PASS();
}

static void a_new_fs_is_usable_before_it_is_attached(void)
{
    char buf[16] = "";
    int fs, f, io, d;

    CHECK((fs = fsopen("ramfs", -1, NULL)) >= 0, "fsopen");
    CHECK((f = create(fs, "note", S_IFREG, 0644, 0)) >= 0, "create through the fs fd");
    CHECK((io = ready(f, R_RDWR)) >= 0 && write(io, "unattached", 10) == 10, "write");
    CHECK(lseek(io, 0, SEEK_SET) == 0 && read(io, buf, 10) == 10 && !memcmp(buf, "unattached", 10),
          "read back");
    close(io);
    close(f);
    CHECK((d = create(fs, "a", S_IFDIR, 0755, 0)) >= 0 && fchdir(d) == 0, "fchdir into it");
    close(d);
    CHECK((f = create(AT_CWD, "b", S_IFREG, 0644, 0)) >= 0, "create relative to the cwd");
    close(f);
    CHECK((f = walk(fs, "a/b", 0)) >= 0, "walk(fs, \"a/b\") does not find it");
    close(f);
    close(fs);
    PASS();
}

static void fsopen_checks_its_type_and_options(void)
{
    char opts[80];
    int fs;

    CHECK_ERR(fsopen("nosuchfs", -1, NULL), ENODEV);
    CHECK_ERR(fsopen("", -1, NULL), ENODEV);
    CHECK_ERR(fsopen("ramfs_but_longer", -1, NULL), ENODEV);   /* 16 bytes: longer than 15 */
    CHECK_ERR(fsopen("ramfsramfsramfsramfsramfsramfsramfs", -1, NULL), ENODEV);
    memset(opts, 'o', sizeof(opts));
    opts[63] = '\0';
    CHECK((fs = fsopen("ramfs", -1, opts)) >= 0, "63 bytes of options must be accepted");
    close(fs);
    opts[63] = 'o';
    opts[64] = '\0';
    CHECK_ERR(fsopen("ramfs", -1, opts), EINVAL);
    CHECK_ERR(fsopen((const char *)1, -1, NULL), EFAULT);
    CHECK_ERR(fsopen("ramfs", -1, (const char *)1), EFAULT);
    /* the options reach fs_new: "ro" makes the instance read-only */
    CHECK((fs = fsopen("ramfs", -1, "ro")) >= 0, "fsopen ramfs ro");
    CHECK_ERR(create(fs, "f", S_IFREG, 0644, 0), EROFS);
    close(fs);
    PASS();
}

static void fsopen_takes_a_readable_regular_file_or_device_as_source(void)
{
    char buf[64] = "";
    int img, rd, wr, fs, f, r, d, p[2];

    CHECK(copy_image("/tmp/l3src.ext2") == 0, "setup: copy the image");
    CHECK_ERR(fsopen("ext2", 77, NULL), EBADF);
    CHECK_ERR(fsopen("ramfs", -2, NULL), EBADF);        /* only -1 means "no source" */
    CHECK_ERR(fsopen("ramfs", -100, NULL), EBADF);
    CHECK((img = walk(AT_CWD, "/tmp/l3src.ext2", 0)) >= 0, "walk");
    CHECK_ERR(fsopen("ext2", img, NULL), EBADF);        /* a path fd: ready it first */
    CHECK((wr = ready(img, R_WRITE)) >= 0, "ready for writing");
    CHECK_ERR(fsopen("ext2", wr, NULL), EBADF);         /* write-only: fsopen reads it */
    close(wr);
    CHECK((d = open("/tmp", O_RDONLY | O_DIRECTORY)) >= 0, "a directory");
    CHECK_ERR(fsopen("ext2", d, NULL), ENOTBLK);
    close(d);
    /* the access comes before the type: a path fd on a directory, a write-only device */
    CHECK((d = walk(AT_CWD, "/tmp", 0)) >= 0, "a path fd on a directory");
    CHECK_ERR(fsopen("ext2", d, NULL), EBADF);
    close(d);
    CHECK((d = open("/dev/null", O_WRONLY)) >= 0, "a write-only character device");
    CHECK_ERR(fsopen("ext2", d, NULL), EBADF);
    close(d);
    CHECK((d = open("/dev/zero", O_RDONLY)) >= 0, "a character device");
    CHECK_ERR(fsopen("ext2", d, NULL), ENOTBLK);
    close(d);
    CHECK(pipe(p) == 0, "pipe");                        /* nor is a pipe */
    close(p[1]);
    CHECK_ERR(fsopen("ext2", p[0], NULL), ENOTBLK);
    close(p[0]);
    CHECK((f = create(AT_CWD, "/tmp/l3src.empty", S_IFREG, 0644, 0)) >= 0 &&
              (r = ready(f, R_READ)) >= 0,
          "an empty file");
    CHECK_ERR(fsopen("ext2", r, NULL), EINVAL);         /* an empty file is no ext2 image */
    close(r);
    close(f);
    CHECK((rd = ready(img, R_READ)) >= 0, "ready for reading");
    CHECK_ERR(fsopen("ramfs", rd, NULL), EINVAL);       /* fs_new's own errors pass through */
    CHECK((fs = fsopen("ext2", rd, "ro")) >= 0, "fsopen ext2 from a readable regular file");
    CHECK_ERR(fsopen("ext2", rd, "ro"), EBUSY);         /* one live instance per source */
    /* the source is checked first, before fs_new looks at the type or the source */
    CHECK_ERR(fsopen("ext2", img, "ro"), EBADF);
    CHECK_ERR(fsopen("nosuchfs", img, NULL), EBADF);
    CHECK((wr = ready(img, R_WRITE)) >= 0, "ready for writing");
    CHECK_ERR(fsopen("ext2", wr, "ro"), EBADF);
    close(wr);
    CHECK((d = open("/dev/zero", O_RDONLY)) >= 0, "a character device");
    CHECK_ERR(fsopen("nosuchfs", d, NULL), ENOTBLK);
    close(d);
    close(rd);
    close(img);                         /* the filesystem holds its own reference */
    CHECK((f = walk(fs, "hello.txt", 0)) >= 0 && (r = ready(f, R_READ)) >= 0, "walk + ready");
    CHECK(read(r, buf, sizeof(buf) - 1) > 0 && !strncmp(buf, "Hello from the ext2 disk.", 25),
          "read '%s'", buf);
    close(r);
    close(f);
    close(fs);
    PASS();
}

/* With no free fd slot fsopen fails with EMFILE before it makes anything:
 * so before it can trip over a bad type or a bad image, too. */
static void a_full_fd_table_is_emfile_before_anything_is_made(void)
{
    int fds[OPEN_MAX], n = 0, fd, src, i, r1, e1, r2, e2, r3, e3, fs;

    CHECK((src = open("/tmp/l3empty", O_RDWR | O_CREAT | O_EXCL, 0644)) >= 0, "an empty file");
    while ((fd = dup(0)) >= 0)
        fds[n++] = fd;
    errno = 0;
    r1 = fsopen("ramfs", -1, NULL);
    e1 = errno;
    errno = 0;
    r2 = fsopen("nosuchfs", -1, NULL);
    e2 = errno;
    errno = 0;
    r3 = fsopen("ext2", src, NULL);     /* an empty file is no ext2 image */
    e3 = errno;
    for (i = 0; i < n; i++)
        close(fds[i]);
    CHECK(r1 == -1 && e1 == EMFILE, "ramfs with a full table gave %d errno %d", r1, e1);
    CHECK(r2 == -1 && e2 == EMFILE,
          "an unknown type with a full table gave errno %d, want "
          "EMFILE: the slot must be checked before the instance is made",
          e2);
    CHECK(r3 == -1 && e3 == EMFILE, "a bad image with a full table gave errno %d, want EMFILE", e3);
    CHECK((fs = fsopen("ramfs", -1, NULL)) >= 0, "fsopen once a slot is free");
    close(fs);
    close(src);
    PASS();
}

static int fill_and_drop(void)
{
    static char page[4096];
    int fs, f, io, i;

    if ((fs = fsopen("ramfs", -1, NULL)) < 0 || (f = create(fs, "big", S_IFREG, 0644, 0)) < 0 ||
        (io = ready(f, R_WRITE)) < 0)
        return 1;
    for (i = 0; i < 64; i++)
        if (write(io, page, sizeof(page)) != sizeof(page))
            return 2;
    close(io);
    close(f);
    close(fs);
    return 0;
}

/* Once the fsopen fd and everything made through it are closed the
 * instance is released: its pages come back, and its source is free for a
 * new instance. */
static void the_instance_is_released_when_its_last_fd_closes(void)
{
    int code, lost, img, fs;

    lost = pages_lost_in_child(fill_and_drop, &code);
    CHECK(code == 0, "the child failed at step %d", code);
    CHECK(lost <= 0,
          "%d pages lost: a ramfs holding 64 pages was not released when its last fd"
          " closed",
          lost);
    CHECK(copy_image("/tmp/l3rel.ext2") == 0, "setup");
    CHECK((img = open("/tmp/l3rel.ext2", O_RDONLY)) >= 0, "open the image");
    CHECK((fs = fsopen("ext2", img, "ro")) >= 0, "fsopen");
    close(fs);
    CHECK((fs = fsopen("ext2", img, "ro")) >= 0,
          "a second fsopen of the same image after the "
          "first instance's only fd was closed gave errno %d (EBUSY: still alive?)",
          errno);
    close(fs);
    close(img);
    PASS();
}

static void bind_attaches_the_fs_at_a_directory(void)
{
    int fs, f;

    CHECK(unshare() == 0, "unshare");
    CHECK((fs = fsopen("ramfs", -1, NULL)) >= 0, "fsopen");
    CHECK((f = create(fs, "hello", S_IFREG, 0644, 0)) >= 0, "create");
    close(f);
    CHECK(mkdir("/tmp/l3a", 0755) == 0, "mkdir");
    CHECK(bind(fs, AT_CWD, "/tmp/l3a", 0) == 0, "bind");
    close(fs);                          /* the attachment keeps it */
    CHECK((f = walk(AT_CWD, "/tmp/l3a/hello", 0)) >= 0, "the file is not visible by path");
    close(f);
    CHECK(ns_lists("/tmp/l3a ramfs -\n"), "/proc/self/ns does not list '/tmp/l3a ramfs -'");
    CHECK((f = open("/tmp/l3a/made", O_WRONLY | O_CREAT, 0644)) >= 0, "create by path inside");
    close(f);
    PASS();
}

static void bind_checks_its_arguments(void)
{
    int dir, file, sub;

    CHECK(unshare() == 0, "unshare");
    CHECK((dir = fsopen("ramfs", -1, NULL)) >= 0, "fsopen");
    CHECK((file = create(AT_CWD, "/tmp/l3file", S_IFREG, 0644, 0)) >= 0, "create");
    CHECK_ERR(bind(dir, AT_CWD, "/tmp", 0x40), EINVAL);     /* no such flag */
    CHECK_ERR(bind(dir, AT_CWD, "/tmp", 12345), EINVAL);
    CHECK_ERR(bind(dir, AT_CWD, "/tmp", -1), EINVAL);          /* every bit, the top one too */
    CHECK_ERR(bind(dir, AT_CWD, "/tmp", (int)0x80000000u), EINVAL);
    CHECK_ERR(bind(99, AT_CWD, "/tmp/nowhere", 0x40), EINVAL); /* flags come first */
    CHECK_ERR(bind(99, AT_CWD, "/tmp", 0), EBADF);
    CHECK_ERR(bind(-1, AT_CWD, "/tmp", 0), EBADF);
    CHECK_ERR(bind(dir, AT_CWD, "/tmp/nowhere", 0), ENOENT);
    CHECK_ERR(bind(dir, AT_CWD, "/tmp/l3file/x", 0), ENOTDIR);
    CHECK_ERR(bind(dir, AT_CWD, (const char *)1, 0), EFAULT);
    CHECK_ERR(bind(dir, AT_CWD, "/tmp/l3file", 0), ENOTDIR);  /* a directory on a file */
    CHECK_ERR(bind(file, AT_CWD, "/tmp", 0), EISDIR);         /* a file on a directory */
    CHECK((sub = create(dir, "sub", S_IFDIR, 0755, 0)) >= 0, "mkdir in the unattached fs");
    CHECK_ERR(bind(file, sub, ".", 0), EISDIR);
    CHECK_ERR(bind(dir, sub, ".", 0), EINVAL);      /* a target in no namespace */
    close(sub);
    close(dir);
    close(file);
    PASS();
}

static void bind_stacks_the_newest_on_top(void)
{
    int a = fsopen("ramfs", -1, NULL), b = fsopen("ramfs", -1, NULL), f;

    CHECK(unshare() == 0, "unshare");
    CHECK(a >= 0 && b >= 0, "fsopen");
    CHECK((f = create(a, "from_a", S_IFREG, 0644, 0)) >= 0, "create a");
    close(f);
    CHECK((f = create(b, "from_b", S_IFREG, 0644, 0)) >= 0, "create b");
    close(f);
    CHECK(mkdir("/tmp/l3s", 0755) == 0, "mkdir");
    CHECK(bind(a, AT_CWD, "/tmp/l3s", 0) == 0 && bind(b, AT_CWD, "/tmp/l3s", 0) == 0, "bind");
    CHECK((f = walk(AT_CWD, "/tmp/l3s/from_b", 0)) >= 0, "the newest is not on top");
    close(f);
    CHECK_ERR(walk(AT_CWD, "/tmp/l3s/from_a", 0), ENOENT);
    CHECK((f = walk(a, "from_a", 0)) >= 0, "the covered fs is still reachable through its fd");
    close(f);
    close(a);
    close(b);
    PASS();
}

static void bind_of_a_directory_is_a_bind_mount(void)
{
    int bin, f, tmp;

    CHECK(unshare() == 0, "unshare");
    CHECK((bin = walk(AT_CWD, "/bin", 0)) >= 0, "walk /bin");
    CHECK(mkdir("/tmp/l3bin", 0755) == 0 && bind(bin, AT_CWD, "/tmp/l3bin", 0) == 0, "bind");
    close(bin);
    CHECK((f = walk(AT_CWD, "/tmp/l3bin/true", 0)) >= 0, "/bin/true not seen through the bind");
    close(f);
    CHECK(ns_lists("/tmp/l3bin ramfs initrd bind\n"), "/proc/self/ns does not list the bind mount");
    /* the flags reach ns_bind: a BIND_RDONLY bind of /tmp changes nothing through it */
    CHECK((tmp = walk(AT_CWD, "/tmp", 0)) >= 0, "walk /tmp");
    CHECK(mkdir("/tmp/l3ro", 0755) == 0 && bind(tmp, AT_CWD, "/tmp/l3ro", BIND_RDONLY) == 0,
          "bind /tmp read-only");
    close(tmp);
    CHECK_ERR(create(AT_CWD, "/tmp/l3ro/l3new", S_IFREG, 0644, 0), EROFS);
    CHECK((f = create(AT_CWD, "/tmp/l3new", S_IFREG, 0644, 0)) >= 0, "/tmp itself stays writable");
    close(f);
    /* every flag of BIND_FLAGS is accepted, the attributes BIND_NOEXEC and BIND_NODEV too */
    CHECK((bin = walk(AT_CWD, "/bin", 0)) >= 0 && mkdir("/tmp/l3nx", 0755) == 0, "setup");
    CHECK(bind(bin, AT_CWD, "/tmp/l3nx", BIND_NOEXEC | BIND_NODEV) == 0,
          "bind with BIND_NOEXEC | BIND_NODEV (both in BIND_FLAGS) failed, errno %d: only bits "
          "outside BIND_FLAGS are EINVAL",
          errno);
    close(bin);
    CHECK((f = walk(AT_CWD, "/tmp/l3nx/true", 0)) >= 0, "/bin/true not seen through the bind");
    close(f);
    /* ...and reach ns_bind like the others: nothing runs through a BIND_NOEXEC
     * bind, no device is readied through a BIND_NODEV one (bind(2)) */
    {
        char *argv[] = { "true", NULL };
        int pid, status, dev;

        fflush(stdout);
        if ((pid = fork()) == 0) {
            execv("/tmp/l3nx/true", argv);
            _exit(errno == EACCES ? 3 : 4);
        }
        CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status),
              "the child that ran /tmp/l3nx/true");
        CHECK(WEXITSTATUS(status) == 3,
              "exec of /bin/true through a BIND_NOEXEC bind %s: "
              "the flags go to ns_bind whole, BIND_NOEXEC included",
              WEXITSTATUS(status) == 0 ? "ran it" : "did not fail with EACCES");
        CHECK((dev = walk(AT_CWD, "/dev", 0)) >= 0 && mkdir("/tmp/l3nd", 0755) == 0 &&
                  bind(dev, AT_CWD, "/tmp/l3nd", BIND_NODEV) == 0,
              "bind /dev with BIND_NODEV");
        close(dev);
        CHECK((f = walk(AT_CWD, "/tmp/l3nd/null", 0)) >= 0, "/dev/null not seen through the bind");
        CHECK_ERR(ready(f, R_READ), EACCES);
        close(f);
    }
    PASS();
}

/* The article's exercise 2: bind a pipe end on a file and the name is a
 * named pipe, reached by anyone who walks to it. */
static void a_pipe_bound_at_a_name_is_a_named_pipe(void)
{
    char buf[32] = "";
    int p[2], f, r, pid, status;

    CHECK(unshare() == 0, "unshare");
    CHECK(pipe(p) == 0, "pipe");
    CHECK((f = create(AT_CWD, "/tmp/l3np", S_IFREG, 0644, 0)) >= 0, "placeholder");
    close(f);
    CHECK(bind(p[0], AT_CWD, "/tmp/l3np", 0) == 0, "bind the read end");
    close(p[0]);
    close(p[1]);
    CHECK(ns_lists("/tmp/l3np pipe - bind\n"),
          "/proc/self/ns does not list '/tmp/l3np pipe - bind'");
    CHECK((r = open("/tmp/l3np", O_RDONLY | O_NONBLOCK)) >= 0, "open for reading");
    fflush(stdout);
    if ((pid = fork()) == 0) {          /* knows the pipe only by its name */
        int w = open("/tmp/l3np", O_WRONLY);
        _exit(w >= 0 && write(w, "through the name", 16) == 16 ? 0 : 1);
    }
    CHECK(pid > 0 && wait_child_ms(pid, 5000, &status) && status == 0, "the writer failed");
    CHECK(read(r, buf, sizeof(buf)) == 16 && !memcmp(buf, "through the name", 16), "read '%s'",
          buf);
    CHECK(read(r, buf, 1) == 0, "end of file once the writer is gone");
    close(r);
    /* on a FIFO node (neither a file nor a directory) it is listed by name too */
    CHECK((f = create(AT_CWD, "/tmp/l3fifo", S_IFIFO, 0644, 0)) >= 0, "mkfifo");
    close(f);
    CHECK(pipe(p) == 0 && bind(p[0], AT_CWD, "/tmp/l3fifo", 0) == 0, "bind on a FIFO node");
    close(p[0]);
    close(p[1]);
    CHECK(ns_lists("/tmp/l3fifo pipe - bind\n"),
          "/proc/self/ns does not list '/tmp/l3fifo pipe - bind'");
    PASS();
}

#define LONG_NAME "/tmp/l3_a_file_whose_name_is_rather_longer_than_most"

/* A file bound on a file shows its contents there; a device bound on a
 * file makes the name a device. Each is listed under the name it was bound
 * at, since a file's name cannot be found by climbing "..". */
static void a_file_and_a_device_bound_on_files(void)
{
    char buf[32] = "";
    int src, dev, f;

    CHECK(unshare() == 0, "unshare");
    CHECK(put_file("/tmp/l3from", "the source") == 0 && put_file("/tmp/l3to", "covered") == 0 &&
              put_file("/tmp/l3dev", "a file") == 0,
          "setup");
    CHECK((src = walk(AT_CWD, "/tmp/l3from", 0)) >= 0, "walk");
    CHECK(bind(src, AT_CWD, "/tmp/l3to", 0) == 0, "bind a file on a file");
    close(src);
    CHECK(slurp("/tmp/l3to", buf, sizeof(buf)) == 10 && !strcmp(buf, "the source"),
          "/tmp/l3to reads '%s'", buf);
    CHECK(ns_lists("/tmp/l3to ramfs "), "/proc/self/ns does not list /tmp/l3to");
    CHECK((dev = walk(AT_CWD, "/dev/zero", 0)) >= 0, "walk /dev/zero");
    CHECK(bind(dev, AT_CWD, "/tmp/l3dev", 0) == 0, "bind a device on a file");
    close(dev);
    CHECK((f = open("/tmp/l3dev", O_RDONLY)) >= 0 && read(f, buf, 4) == 4 && !buf[0] && !buf[3],
          "/tmp/l3dev does not read zeros");
    close(f);
    CHECK(ns_lists("/tmp/l3dev devfs "), "/proc/self/ns does not list /tmp/l3dev");
    /* the whole name, however long */
    CHECK(put_file(LONG_NAME, "long") == 0 && (src = walk(AT_CWD, "/tmp/l3from", 0)) >= 0, "setup");
    CHECK(bind(src, AT_CWD, LONG_NAME, 0) == 0, "bind at a long name");
    close(src);
    CHECK(ns_lists(LONG_NAME " ramfs "), "/proc/self/ns does not list %s by its whole name",
          LONG_NAME);
    /* ...and every length up to 60: the name must stay valid until ns_bind has copied it */
    {
        char name[64], line[80];
        int len;

        strcpy(name, "/tmp/l3n");
        for (len = 9; len <= 60; len++) {
            memset(name + 8, 'a' + len % 26, len - 8);
            name[len] = '\0';
            CHECK(put_file(name, "n") == 0 && (src = walk(AT_CWD, "/tmp/l3from", 0)) >= 0,
                  "setup %s", name);
            CHECK(bind(src, AT_CWD, name, 0) == 0, "bind at %s", name);
            close(src);
            snprintf(line, sizeof(line), "%s ramfs ", name);
            CHECK(ns_lists(line),
                  "bound at the %d-byte name %s: /proc/self/ns does not list it "
                  "by that name (freed before ns_bind kept its copy?)",
                  len, name);
        }
    }
    /* a name given relative (to the cwd, to dirfd) is listed made absolute */
    CHECK(mkdir("/tmp/l3rel", 0755) == 0 && put_file("/tmp/l3rel/a", "a") == 0 &&
              put_file("/tmp/l3rel/b", "b") == 0 && chdir("/tmp/l3rel") == 0 &&
              (src = walk(AT_CWD, "/tmp/l3from", 0)) >= 0,
          "setup");
    CHECK(bind(src, AT_CWD, "a", 0) == 0, "bind at \"a\", relative to the cwd");
    CHECK(ns_lists("/tmp/l3rel/a ramfs "),
          "bound at \"a\" from the cwd /tmp/l3rel: /proc/self/ns does not list /tmp/l3rel/a");
    CHECK(chdir("/tmp") == 0 && (f = walk(AT_CWD, "/tmp/l3rel", 0)) >= 0, "setup");
    CHECK(bind(src, f, "b", 0) == 0, "bind at \"b\", relative to dirfd");
    CHECK(ns_lists("/tmp/l3rel/b ramfs "), "bound at (dirfd of /tmp/l3rel, \"b\") from the cwd "
                                           "/tmp: /proc/self/ns does not list /tmp/l3rel/b");
    close(f);
    /* a final symlink is followed, as walk follows it: the file lands on the link's target */
    CHECK(put_file("/tmp/l3to2", "covered") == 0 && symlink("/tmp/l3to2", "/tmp/l3link") == 0,
          "setup");
    CHECK(bind(src, AT_CWD, "/tmp/l3link", 0) == 0, "bind at a symlink to a file");
    close(src);
    CHECK(slurp("/tmp/l3to2", buf, sizeof(buf)) == 10 && !strcmp(buf, "the source"),
          "bound at a symlink to /tmp/l3to2: /tmp/l3to2 reads '%s', want 'the source'", buf);
    PASS();
}

static void mount_is_walk_fsopen_bind(void)
{
    char buf[64] = "";
    int f;

    CHECK(unshare() == 0, "unshare");
    CHECK(mkdir("/tmp/l3m", 0755) == 0 && mkdir("/tmp/l3e", 0755) == 0, "mkdir");
    CHECK(mount("ramfs", NULL, "/tmp/l3m", "") == 0, "mount ramfs");
    CHECK((f = create(AT_CWD, "/tmp/l3m/x", S_IFREG, 0644, 0)) >= 0, "create inside");
    close(f);
    CHECK(ns_lists("/tmp/l3m ramfs -\n"), "/proc/self/ns does not list the mount");
    CHECK(copy_image("/tmp/l3m.ext2") == 0, "setup: copy the image");
    CHECK(mount("ext2", "/tmp/l3m.ext2", "/tmp/l3e", "ro") == 0, "mount an ext2 image");
    CHECK(slurp("/tmp/l3e/hello.txt", buf, sizeof(buf)) > 0 &&
              !strncmp(buf, "Hello from the ext2 disk.", 25),
          "read '%s'", buf);
    CHECK(ns_lists("/tmp/l3e ext2 /tmp/l3m.ext2\n"), "/proc/self/ns does not list the ext2 mount");
    PASS();
}

/* In a private namespace: a ramfs holding 64 pages at /tmp, and 16 more
 * filesystems bound on directories inside it. When the process (and with
 * it the namespace) is gone, every one of them must be released. */
static int bind_many(void)
{
    static char page[4096];
    char name[16];
    int a, b, f, io, i;

    if (unshare() < 0 || (a = fsopen("ramfs", -1, NULL)) < 0 ||
        (f = create(a, "big", S_IFREG, 0644, 0)) < 0 || (io = ready(f, R_WRITE)) < 0)
        return 1;
    for (i = 0; i < 64; i++)
        if (write(io, page, sizeof(page)) != sizeof(page))
            return 2;
    close(io);
    close(f);
    if (bind(a, AT_CWD, "/tmp", 0) < 0)
        return 3;
    for (i = 0; i < 16; i++) {
        snprintf(name, sizeof(name), "/tmp/d%d", i);
        if (mkdir(name, 0755) < 0 || (b = fsopen("ramfs", -1, NULL)) < 0 ||
            bind(b, AT_CWD, name, 0) < 0)
            return 4;
        close(b);
    }
    close(a);
    return 0;
}

static void fsopen_and_bind_leak_nothing(void)
{
    int code, lost, fds0 = open_fds();

    lost = pages_lost_in_child(bind_many, &code);
    CHECK(code == 0, "the child failed at step %d", code);
    CHECK(lost <= 0, "%d pages lost once a namespace with 17 attached filesystems was gone", lost);
    CHECK(open_fds() == fds0, "fds %d, before %d", open_fds(), fds0);
    PASS();
}

#define REFUSED_NAME \
    "/tmp/l3-refused-0123456789012345678901234567890123456789012345678901234567890123456789" \
    "0123456789012345678901234567890123456789012345678901234567890123456789"

/* In a child: bind refused 64 times at each step (EBADF, a walk error,
 * ENOTDIR and EISDIR from ns_bind) at long names, then a refused bind on a
 * 64-page file in a filesystem attached nowhere; every fd closed after. */
static int refuse_binds(void)
{
    static char page[4096];
    int dir, file, fs, f, io, i;

    if ((dir = fsopen("ramfs", -1, NULL)) < 0 || put_file(REFUSED_NAME, "x") < 0 ||
        (file = walk(AT_CWD, REFUSED_NAME, 0)) < 0)
        return 1;
    for (i = 0; i < 64; i++) {
        if (bind(99, AT_CWD, REFUSED_NAME, 0) != -1 || errno != EBADF)
            return 2;
        if (bind(dir, AT_CWD, REFUSED_NAME "/missing", 0) != -1 || errno != ENOTDIR)
            return 3;
        if (bind(dir, AT_CWD, REFUSED_NAME, 0) != -1 || errno != ENOTDIR)
            return 4;
        if (bind(file, AT_CWD, "/tmp", 0) != -1 || errno != EISDIR)
            return 5;
    }
    close(file);
    if ((fs = fsopen("ramfs", -1, NULL)) < 0 || (f = create(fs, "big", S_IFREG, 0644, 0)) < 0 ||
        (io = ready(f, R_WRITE)) < 0)
        return 6;
    for (i = 0; i < 64; i++)
        if (write(io, page, sizeof(page)) != sizeof(page))
            return 7;
    close(io);
    close(f);
    if (bind(dir, fs, "big", 0) != -1)  /* a directory on a file, in no namespace */
        return 8;
    close(fs);
    close(dir);
    return 0;
}

/* "bind keeps no memory" and "no reference leaks" hold for a refused bind
 * too: every early return frees what bind made and drops what it took. */
static void a_refused_bind_keeps_nothing(void)
{
    int code, lost, fds0 = open_fds();

    lost = pages_lost_in_child(refuse_binds, &code);
    CHECK(code == 0, "the child failed at step %d", code);
    CHECK(lost <= 0,
          "%d pages lost to 257 refused binds: a refused bind must free the name it made "
          "and drop the target it walked to (one held a 64-page file)",
          lost);
    CHECK(open_fds() == fds0, "fds %d, before %d", open_fds(), fds0);
    PASS();
}

static const struct lab_test tests[] = {
    LAB_TEST(fsopen_returns_a_path_fd_on_the_root_of_a_new_fs),
    LAB_TEST(a_new_fs_is_usable_before_it_is_attached),
    LAB_TEST(fsopen_checks_its_type_and_options),
    LAB_TEST(fsopen_takes_a_readable_regular_file_or_device_as_source),
    LAB_TEST(a_full_fd_table_is_emfile_before_anything_is_made),
    LAB_TEST(the_instance_is_released_when_its_last_fd_closes),
    LAB_TEST(bind_attaches_the_fs_at_a_directory),
    LAB_TEST(bind_checks_its_arguments),
    LAB_TEST(bind_stacks_the_newest_on_top),
    LAB_TEST(bind_of_a_directory_is_a_bind_mount),
    LAB_TEST(a_pipe_bound_at_a_name_is_a_named_pipe),
    LAB_TEST(a_file_and_a_device_bound_on_files),
    LAB_TEST(mount_is_walk_fsopen_bind),
    LAB_TEST(fsopen_and_bind_leak_nothing),
    LAB_TEST(a_refused_bind_keeps_nothing),
};

int main(int argc, char **argv)
{
    return lab_main("lab03", tests, ARRAY_SIZE(tests), argc, argv);
}
