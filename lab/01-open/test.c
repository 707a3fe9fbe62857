/* lab01 - graded tests for lab 01: open() rebuilt in the C library from
 * walk, create, ready, ftruncate and fcntl.
 *
 * On the lab's course branch every later lab is a stub, so these tests use
 * only the primitives (walk, create, ready, fstat, ftruncate, fcntl, dup,
 * unlink) and open() itself: no pipes, no fsopen or bind, no exec. Each test
 * runs in a child of its own (lab.h) and makes its own names. */
#include <fcntl.h>
#include <orthos.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lab.h"
#include "array_size.h"

/* A regular file (mode 0644) holding text, made without open(); 0 or -1. */
static int make(const char *path, const char *text)
{
    int p = create(AT_CWD, path, S_IFREG, 0644, 0), io, n;

    if (p < 0)
        return -1;
    io = ready(p, R_WRITE);
    close(p);
    if (io < 0)
        return -1;
    n = write(io, text, strlen(text));
    close(io);
    return n == (int)strlen(text) ? 0 : -1;
}

/* The whole contents of path, read without open(); "" if none. */
static const char *contents(const char *path)
{
    static char buf[256];

    if (slurp(path, buf, sizeof(buf)) < 0)
        strcpy(buf, "(unreadable)");
    return buf;
}

/* Does fd's line in /proc/self/fd ("3 reg path") contain what? */
static int fd_line_has(int fd, const char *what)
{
    char buf[1024], prefix[8], *line, *end;

    if (slurp("/proc/self/fd", buf, sizeof(buf)) <= 0)
        return 0;
    snprintf(prefix, sizeof(prefix), "%d ", fd);
    for (line = buf; *line; line = end + 1) {
        if (!(end = strchr(line, '\n')))
            break;
        *end = '\0';
        if (strncmp(line, prefix, strlen(prefix)) == 0)
            return strstr(line, what) != NULL;
    }
    return 0;
}

static void open_reads_an_existing_file(void)
{
    char buf[16] = "";
    int fd;

    CHECK(make("/tmp/l1read", "contents") == 0, "setup");
    CHECK((fd = open("/tmp/l1read", O_RDONLY)) >= 0, "open");
    CHECK(read(fd, buf, sizeof(buf)) == 8 && !strcmp(buf, "contents"), "read '%s'", buf);
    CHECK_ERR(write(fd, "x", 1), EBADF);
    CHECK(fcntl(fd, F_GETFL, 0) == R_READ, "F_GETFL %x, want R_READ", fcntl(fd, F_GETFL, 0));
    close(fd);
    CHECK((fd = open("/tmp/l1read", O_WRONLY)) >= 0, "open for writing");
    CHECK_ERR(read(fd, buf, 1), EBADF);
    CHECK(write(fd, "C", 1) == 1, "write");
    close(fd);
    CHECK(!strcmp(contents("/tmp/l1read"), "Contents"), "'%s' after writing 'C' at 0",
          contents("/tmp/l1read"));
    CHECK_ERR(open("/tmp/l1-none", O_RDONLY), ENOENT);
    CHECK_ERR(open("/tmp/l1-none/x", O_RDONLY), ENOENT);
    CHECK_ERR(open("/tmp/l1read/x", O_RDONLY), ENOTDIR);
    CHECK_ERR(open("/tmp", O_WRONLY), EISDIR);
    /* create's errors too: a new name in root's 0755 directory is EACCES
     * for a user; only EEXIST sends O_CREAT on to walk (last: this process
     * stays the user) */
    CHECK(mkdir("/tmp/l1rootdir", 0755) == 0, "mkdir");
    CHECK(setgid(1000) == 0 && setuid(1000) == 0, "become uid 1000");
    CHECK_ERR(open("/tmp/l1rootdir/new", O_WRONLY | O_CREAT, 0644), EACCES);
    PASS();
}

static void o_creat_makes_a_regular_file_with_the_mode_given(void)
{
    struct stat st;
    int fd;

    CHECK((fd = open("/tmp/l1new", O_RDWR | O_CREAT, 0640)) >= 0, "create");
    CHECK(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0640 &&
              st.st_size == 0,
          "mode %o size %u, want a regular file, 0640, empty", st.st_mode, st.st_size);
    CHECK(write(fd, "made", 4) == 4, "write to the new file");
    close(fd);
    CHECK(!strcmp(contents("/tmp/l1new"), "made"), "contents '%s'", contents("/tmp/l1new"));
    CHECK((fd = open("/tmp/l1new2", O_WRONLY | O_CREAT | O_EXCL, 0666)) >= 0, "create 0666");
    CHECK(fstat(fd, &st) == 0 && (st.st_mode & 07777) == 0666, "mode %o, want 0666 (no umask)",
          st.st_mode & 07777);
    close(fd);
    CHECK((fd = openat(AT_CWD, "/tmp/l1new3", O_WRONLY | O_CREAT, 01755)) >= 0, "openat 01755");
    CHECK(fstat(fd, &st) == 0 && (st.st_mode & 07777) == 01755, "mode %o, want 01755",
          st.st_mode & 07777);
    close(fd);
    CHECK_ERR(open("/tmp/l1-nodir/f", O_WRONLY | O_CREAT, 0644), ENOENT);
    PASS();
}

static void o_creat_o_excl_refuses_an_existing_name(void)
{
    struct stat st;
    int fd;

    CHECK(make("/tmp/l1excl", "old") == 0, "setup");
    CHECK_ERR(open("/tmp/l1excl", O_WRONLY | O_CREAT | O_EXCL, 0600), EEXIST);
    CHECK_ERR(open("/tmp/l1excl", O_RDWR | O_CREAT | O_EXCL | O_TRUNC, 0600), EEXIST);
    CHECK(!strcmp(contents("/tmp/l1excl"), "old"), "the existing file changed: '%s'",
          contents("/tmp/l1excl"));
    CHECK(stat("/tmp/l1excl", &st) == 0 && (st.st_mode & 07777) == 0644, "mode %o changed",
          st.st_mode & 07777);
    CHECK_ERR(open("/tmp", O_RDONLY | O_CREAT | O_EXCL, 0700), EEXIST);
    CHECK((fd = open("/tmp/l1excl2", O_WRONLY | O_CREAT | O_EXCL, 0600)) >= 0, "a new name");
    close(fd);
    PASS();
}

static void o_creat_without_o_excl_opens_the_existing_file_untouched(void)
{
    struct stat before, after;
    char buf[16] = "";
    int fd;

    CHECK(make("/tmp/l1keep", "keep") == 0, "setup");
    CHECK(stat("/tmp/l1keep", &before) == 0, "stat");
    CHECK((fd = open("/tmp/l1keep", O_RDWR | O_CREAT, 0600)) >= 0, "open");
    CHECK(read(fd, buf, sizeof(buf)) == 4 && !strcmp(buf, "keep"), "contents changed: '%s'", buf);
    CHECK(fstat(fd, &after) == 0 && after.st_ino == before.st_ino && after.st_dev == before.st_dev,
          "not the same file (inode %u, was %u)", after.st_ino, before.st_ino);
    CHECK((after.st_mode & 07777) == 0644, "mode %o: O_CREAT must not change an existing file",
          after.st_mode & 07777);
    close(fd);
    PASS();
}

static void o_trunc_empties_only_what_it_may(void)
{
    struct stat st;
    int fd;

    CHECK(make("/tmp/l1trunc", "0123456789") == 0, "setup");
    CHECK((fd = open("/tmp/l1trunc", O_RDONLY | O_TRUNC)) >= 0,
          "O_RDONLY | O_TRUNC must open (and not truncate)");
    close(fd);
    CHECK(!strcmp(contents("/tmp/l1trunc"), "0123456789"),
          "O_RDONLY | O_TRUNC changed the file: '%s'", contents("/tmp/l1trunc"));
    CHECK((fd = open("/tmp/l1trunc", O_WRONLY | O_TRUNC)) >= 0, "O_WRONLY | O_TRUNC");
    CHECK(fstat(fd, &st) == 0 && st.st_size == 0, "size %u after O_TRUNC", st.st_size);
    CHECK(write(fd, "ab", 2) == 2, "write");
    close(fd);
    CHECK((fd = open("/tmp/l1trunc", O_RDWR | O_TRUNC)) >= 0, "O_RDWR | O_TRUNC");
    CHECK(fstat(fd, &st) == 0 && st.st_size == 0, "size %u after O_RDWR | O_TRUNC", st.st_size);
    close(fd);
    CHECK((fd = open("/tmp/l1trunc2", O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0,
          "O_CREAT | O_TRUNC on a new name");
    close(fd);
    /* the shell's `>` on an existing file: O_CREAT finds it with walk, O_TRUNC still applies */
    CHECK(make("/tmp/l1trunc3", "0123456789") == 0, "setup");
    CHECK((fd = open("/tmp/l1trunc3", O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0,
          "O_CREAT | O_TRUNC on an existing file");
    CHECK(fstat(fd, &st) == 0 && st.st_size == 0,
          "size %u after O_WRONLY | O_CREAT | O_TRUNC on an existing file", st.st_size);
    close(fd);
    /* not regular: a FIFO (not only a device) opens, nothing truncated */
    CHECK((fd = create(AT_CWD, "/tmp/l1fifo", S_IFIFO, 0644, 0)) >= 0, "setup: a FIFO");
    close(fd);
    CHECK((fd = open("/tmp/l1fifo", O_RDWR | O_TRUNC)) >= 0,
          "O_RDWR | O_TRUNC on a FIFO must work");
    close(fd);
    CHECK((fd = open("/dev/null", O_WRONLY | O_TRUNC)) >= 0, "O_TRUNC on a device must work");
    CHECK(write(fd, "gone", 4) == 4, "write to /dev/null");
    close(fd);
    PASS();
}

static void o_directory_is_checked_before_ready(void)
{
    int fd, p;

    CHECK(make("/tmp/l1dir", "data") == 0, "setup");
    CHECK_ERR(open("/tmp/l1dir", O_RDONLY | O_DIRECTORY), ENOTDIR);
    CHECK_ERR(open("/tmp/l1dir", O_WRONLY | O_TRUNC | O_DIRECTORY), ENOTDIR);
    CHECK(!strcmp(contents("/tmp/l1dir"), "data"),
          "a refused O_DIRECTORY open changed the file:"
          " '%s'",
          contents("/tmp/l1dir"));
    /* ready would refuse this one with EACCES: the type check must come first */
    CHECK((p = create(AT_CWD, "/tmp/l1dir0", S_IFREG, 0, 0)) >= 0, "setup 0000");
    close(p);
    CHECK_ERR(open("/tmp/l1dir0", O_RDONLY | O_DIRECTORY), ENOTDIR);
    CHECK((fd = open("/tmp", O_RDONLY | O_DIRECTORY)) >= 0, "a directory");
    close(fd);
    CHECK_ERR(open("/tmp", O_WRONLY | O_DIRECTORY), EISDIR);
    PASS();
}

static void o_append_o_nonblock_and_the_access_mode_reach_the_fd(void)
{
    int fd;

    CHECK(make("/tmp/l1app", "abc") == 0, "setup");
    CHECK((fd = open("/tmp/l1app", O_WRONLY | O_APPEND)) >= 0, "open");
    CHECK(fcntl(fd, F_GETFL, 0) == (R_WRITE | R_APPEND), "F_GETFL %x, want R_WRITE | R_APPEND",
          fcntl(fd, F_GETFL, 0));
    CHECK(write(fd, "def", 3) == 3, "write");
    close(fd);
    CHECK(!strcmp(contents("/tmp/l1app"), "abcdef"), "got '%s'", contents("/tmp/l1app"));
    CHECK((fd = open("/tmp/l1app", O_RDWR | O_NONBLOCK)) >= 0, "open");
    CHECK(fcntl(fd, F_GETFL, 0) == (R_RDWR | R_NONBLOCK), "F_GETFL %x, want R_RDWR | R_NONBLOCK",
          fcntl(fd, F_GETFL, 0));
    close(fd);
    /* O_APPEND with O_RDWR too, not only with O_WRONLY */
    CHECK((fd = open("/tmp/l1app", O_RDWR | O_APPEND)) >= 0, "open O_RDWR | O_APPEND");
    CHECK(fcntl(fd, F_GETFL, 0) == (R_RDWR | R_APPEND), "F_GETFL %x, want R_RDWR | R_APPEND",
          fcntl(fd, F_GETFL, 0));
    CHECK(write(fd, "g", 1) == 1, "write");
    close(fd);
    CHECK(!strcmp(contents("/tmp/l1app"), "abcdefg"), "O_RDWR | O_APPEND: got '%s'",
          contents("/tmp/l1app"));
    /* whatever the access mode: O_RDONLY keeps R_APPEND too, and the two
     * flags together both arrive */
    CHECK((fd = open("/tmp/l1app", O_RDONLY | O_APPEND)) >= 0, "open O_RDONLY | O_APPEND");
    CHECK(fcntl(fd, F_GETFL, 0) == (R_READ | R_APPEND), "F_GETFL %x, want R_READ | R_APPEND",
          fcntl(fd, F_GETFL, 0));
    close(fd);
    CHECK((fd = open("/tmp/l1app", O_WRONLY | O_APPEND | O_NONBLOCK)) >= 0,
          "open O_WRONLY | O_APPEND | O_NONBLOCK");
    CHECK(fcntl(fd, F_GETFL, 0) == (R_WRITE | R_APPEND | R_NONBLOCK),
          "F_GETFL %x, want R_WRITE | R_APPEND | R_NONBLOCK", fcntl(fd, F_GETFL, 0));
    close(fd);
    CHECK_ERR(open("/tmp/l1app", O_ACCMODE), EINVAL);
    CHECK_ERR(open("/tmp/l1app", O_ACCMODE | O_CREAT, 0644), EINVAL);
    PASS();
}

static void o_keep_marks_the_fd_and_nothing_else_does(void)
{
    int fd;

    CHECK(make("/tmp/l1k", "k") == 0, "setup");
    CHECK((fd = open("/tmp/l1k", O_RDONLY | O_KEEP)) >= 0, "open O_KEEP");
    CHECK(fcntl(fd, F_GETFD, 0) == FD_KEEP, "O_KEEP: F_GETFD gives %d", fcntl(fd, F_GETFD, 0));
    close(fd);
    CHECK((fd = open("/tmp/l1k", O_RDONLY)) >= 0, "open");
    CHECK(fcntl(fd, F_GETFD, 0) == 0, "without O_KEEP: F_GETFD gives %d", fcntl(fd, F_GETFD, 0));
    close(fd);
    CHECK((fd = open("/tmp/l1k", O_RDONLY | O_CLOEXEC)) >= 0, "open O_CLOEXEC");
    CHECK(fcntl(fd, F_GETFD, 0) == 0, "O_CLOEXEC: F_GETFD gives %d", fcntl(fd, F_GETFD, 0));
    close(fd);
    CHECK((fd = open("/tmp/l1k", O_PATH | O_KEEP)) >= 0, "open O_PATH | O_KEEP");
    CHECK(fcntl(fd, F_GETFD, 0) == FD_KEEP, "O_PATH | O_KEEP: F_GETFD gives %d",
          fcntl(fd, F_GETFD, 0));
    close(fd);
    PASS();
}

static void o_path_gives_a_path_fd_and_readies_nothing(void)
{
    struct stat st;
    char c;
    int p, fd;

    CHECK((p = create(AT_CWD, "/tmp/l1path", S_IFREG, 0, 0)) >= 0, "setup: a file with mode 0");
    close(p);
    CHECK((fd = open("/tmp/l1path", O_PATH)) >= 0, "O_PATH must not ready (ready says EACCES)");
    CHECK(fcntl(fd, F_GETFL, 0) == 0, "F_GETFL %x: not a path fd", fcntl(fd, F_GETFL, 0));
    CHECK(fd_line_has(fd, " reg path"), "/proc/self/fd does not show fd %d as 'reg path'", fd);
    CHECK(fstat(fd, &st) == 0 && S_ISREG(st.st_mode), "fstat a path fd");
    CHECK_ERR(read(fd, &c, 1), EBADF);
    close(fd);
    CHECK((fd = open("/tmp", O_PATH | O_DIRECTORY)) >= 0 && fd_line_has(fd, " dir path"),
          "O_PATH | O_DIRECTORY on /tmp");
    close(fd);
    CHECK_ERR(open("/tmp/l1path", O_PATH | O_DIRECTORY), ENOTDIR);
    /* O_PATH stops after the name: no access mode, no O_TRUNC */
    CHECK(make("/tmp/l1pathw", "kept") == 0, "setup");
    CHECK((fd = open("/tmp/l1pathw", O_PATH | O_WRONLY | O_TRUNC)) >= 0,
          "O_PATH | O_WRONLY | O_TRUNC must give a path fd (errno %d): O_PATH readies and "
          "truncates nothing",
          errno);
    CHECK(fcntl(fd, F_GETFL, 0) == 0, "O_PATH | O_WRONLY: F_GETFL %x, want 0 (a path fd)",
          fcntl(fd, F_GETFL, 0));
    close(fd);
    CHECK(!strcmp(contents("/tmp/l1pathw"), "kept"), "O_PATH | O_TRUNC emptied the file: '%s'",
          contents("/tmp/l1pathw"));
    PASS();
}

static void o_nofollow_refuses_a_symlink(void)
{
    struct stat st;
    int fd;

    CHECK(make("/tmp/l1target", "target") == 0 && symlink("/tmp/l1target", "/tmp/l1link") == 0,
          "setup");
    CHECK((fd = open("/tmp/l1link", O_RDONLY)) >= 0, "a symlink is followed by default");
    CHECK(fstat(fd, &st) == 0 && S_ISREG(st.st_mode), "not the target");
    close(fd);
    CHECK_ERR(open("/tmp/l1link", O_RDONLY | O_NOFOLLOW), ELOOP);
    /* with O_CREAT too: the name exists (as a link), so the walk must not follow it */
    CHECK_ERR(open("/tmp/l1link", O_WRONLY | O_CREAT | O_NOFOLLOW, 0644), ELOOP);
    CHECK((fd = open("/tmp/l1link", O_PATH | O_NOFOLLOW)) >= 0, "O_PATH | O_NOFOLLOW");
    CHECK(fstat(fd, &st) == 0 && S_ISLNK(st.st_mode),
          "O_PATH | O_NOFOLLOW: mode %o, want the"
          " link itself",
          st.st_mode);
    close(fd);
    PASS();
}

static void open_returns_the_lowest_free_fd(void)
{
    int a, b, c, d;

    CHECK(make("/tmp/l1low", "x") == 0, "setup");
    CHECK((a = open("/tmp/l1low", O_RDONLY)) >= 0 && (b = open("/tmp/l1low", O_RDONLY)) > a,
          "open");
    close(a);
    CHECK((c = open("/tmp/l1low", O_RDONLY)) == a, "got fd %d, but %d was free", c, a);
    close(c);
    CHECK((c = open("/tmp/l1low", O_WRONLY | O_CREAT, 0644)) == a,
          "O_CREAT: got fd %d, but %d"
          " was free",
          c, a);
    close(c);
    CHECK((c = open("/tmp/l1low2", O_WRONLY | O_CREAT, 0644)) == a,
          "O_CREAT of a new file: got"
          " fd %d, but %d was free",
          c, a);
    close(c);
    CHECK((d = open("/tmp", O_PATH)) == a, "O_PATH: got fd %d, but %d was free", d, a);
    close(d);
    close(b);
    PASS();
}

/* Every name is resolved from dirfd: walk, create, and the undo's
 * unlinkat. A failed creating openat removes its file in dirfd's directory
 * and never a file of the same name in the cwd. */
static void openat_resolves_every_name_from_dirfd(void)
{
    char buf[16];
    int d, fd;

    CHECK(mkdir("/tmp/l1at", 0755) == 0 && make("/tmp/l1at/old", "old") == 0, "setup");
    CHECK(make("/tmp/old", "in the cwd") == 0 && make("/tmp/victim", "keep me") == 0, "setup");
    CHECK(chdir("/tmp") == 0, "chdir");
    CHECK((d = walk(AT_CWD, "/tmp/l1at", 0)) >= 0, "walk");
    CHECK((fd = openat(d, "made", O_WRONLY | O_CREAT | O_EXCL, 0644)) >= 0, "openat create");
    close(fd);
    CHECK(walk(AT_CWD, "/tmp/l1at/made", 0) >= 0, "openat(dirfd, \"made\", O_CREAT) did not "
                                                  "make the file in dirfd's directory");
    CHECK_ERR(walk(AT_CWD, "/tmp/made", 0), ENOENT);
    CHECK((fd = openat(d, "old", O_RDONLY)) >= 0, "openat of an existing relative name");
    CHECK(read(fd, buf, sizeof(buf)) == 3, "openat(dirfd, \"old\") opened the cwd's old");
    close(fd);
    /* O_CREAT on a name that exists under dirfd: the walk after EEXIST takes dirfd too */
    CHECK((fd = openat(d, "old", O_RDONLY | O_CREAT, 0644)) >= 0, "openat O_CREAT of an existing "
                                                                  "relative name");
    CHECK(read(fd, buf, sizeof(buf)) == 3,
          "openat(dirfd, \"old\", O_CREAT) opened the cwd's old, not dirfd's");
    close(fd);
    CHECK_ERR(openat(d, "victim", O_WRONLY | O_CREAT | O_EXCL, 0444), EACCES);
    CHECK_ERR(walk(d, "victim", 0), ENOENT);
    CHECK(!strcmp(contents("/tmp/victim"), "keep me"),
          "a failed openat under dirfd removed /tmp/victim in the cwd");
    close(d);
    PASS();
}

/* A failure at each step: none may leave an fd, and only a file this very
 * call created may be removed. */
static void a_failed_open_leaves_no_fd_and_no_file(void)
{
    int fds0 = open_fds(), p;
    struct stat st;

    CHECK(make("/tmp/l1fail", "mine") == 0, "setup");
    CHECK((p = create(AT_CWD, "/tmp/l1ro", S_IFREG, 0444, 0)) >= 0, "setup 0444");
    close(p);
    CHECK_ERR(open("/tmp/l1-none", O_RDONLY), ENOENT);
    CHECK_ERR(open("/tmp/l1fail", O_RDONLY | O_DIRECTORY), ENOTDIR);
    CHECK_ERR(open("/tmp/l1fail", O_RDONLY | O_CREAT | O_EXCL, 0644), EEXIST);
    CHECK_ERR(open("/tmp/l1fail", O_ACCMODE), EINVAL);
    CHECK_ERR(open("/tmp/l1acc", O_ACCMODE | O_CREAT, 0644), EINVAL);
    CHECK_ERR(walk(AT_CWD, "/tmp/l1acc", 0), ENOENT); /* refused before anything is made */
    CHECK_ERR(open("/tmp", O_RDWR), EISDIR);
    CHECK(open_fds() == fds0, "%d fds open after six failed opens, %d before", open_fds(), fds0);
    /* ready refuses a file this call created: it is removed again */
    CHECK_ERR(open("/tmp/l1made", O_WRONLY | O_CREAT | O_EXCL, 0444), EACCES);
    CHECK_ERR(walk(AT_CWD, "/tmp/l1made", 0), ENOENT);
    CHECK_ERR(open("/tmp/l1made2", O_RDWR | O_CREAT, 0), EACCES);
    CHECK_ERR(walk(AT_CWD, "/tmp/l1made2", 0), ENOENT);
    /* ...and so does one O_DIRECTORY refuses (a new file is not a directory) */
    CHECK_ERR(open("/tmp/l1made3", O_RDONLY | O_CREAT | O_DIRECTORY, 0644), ENOTDIR);
    CHECK_ERR(walk(AT_CWD, "/tmp/l1made3", 0), ENOENT);
    /* ...but a file that was already there stays */
    CHECK_ERR(open("/tmp/l1ro", O_WRONLY | O_CREAT, 0644), EACCES);
    CHECK(stat("/tmp/l1ro", &st) == 0, "a failed O_CREAT open removed a file it did not make");
    CHECK(open_fds() == fds0, "%d fds open after failed creating opens, %d before", open_fds(),
          fds0);
    PASS();
}

/* With one free slot, open (walk + ready) may fail with EMFILE, but it must
 * not eat the slot or leave the file it made. */
static void open_with_one_free_fd_eats_no_slot(void)
{
    int fds[OPEN_MAX], n = 0, fd, r, e, again, i, fds0 = open_fds();

    CHECK(make("/tmp/l1one", "1") == 0, "setup");
    while ((fd = dup(0)) >= 0)
        fds[n++] = fd;
    close(fds[--n]); /* exactly one slot free */
    errno = 0;
    r = open("/tmp/l1one", O_RDONLY);
    e = errno;
    if (r >= 0)
        close(r);
    errno = 0;
    again = open("/tmp/l1one2", O_WRONLY | O_CREAT, 0644);
    if (again >= 0)
        close(again);
    i = dup(0); /* the one free slot must still be there */
    if (i >= 0)
        close(i);
    for (fd = 0; fd < n; fd++)
        close(fds[fd]);
    CHECK(r >= 0 || e == EMFILE, "open with one free slot gave %d errno %d", r, e);
    CHECK(i >= 0, "the last free slot was lost");
    CHECK(again >= 0 || walk(AT_CWD, "/tmp/l1one2", 0) < 0,
          "a failed O_CREAT open left the file it made");
    CHECK(open_fds() == fds0, "%d fds open, %d before", open_fds(), fds0);
    PASS();
}

/* 64 pages in an unlinked file are freed once the last fd on it closes:
 * an fd open() made on the way and forgot would keep them. */
static void open_holds_nothing_after_close(void)
{
    static char page[4096];
    unsigned before, after;
    int fd, i, rounds, fds0;

    CHECK(make("/tmp/l1big", "") == 0, "setup");
    CHECK((fd = open("/tmp/l1big", O_WRONLY)) >= 0, "open");
    for (i = 0; i < 64; i++)
        CHECK(write(fd, page, sizeof(page)) == sizeof(page), "fill");
    close(fd);
    for (rounds = 0; rounds < 3; rounds++) {
        CHECK((fd = open("/tmp/l1big", rounds == 1 ? O_RDWR | O_APPEND : O_RDONLY)) >= 0, "open");
        close(fd);
    }
    CHECK((fd = open("/tmp/l1big", O_PATH)) >= 0, "O_PATH");
    close(fd);
    CHECK_ERR(open("/tmp/l1big", O_RDONLY | O_DIRECTORY), ENOTDIR);
    /* a successful open of every kind holds no fd but the one it returns */
    fds0 = open_fds();
    CHECK((fd = open("/tmp", O_RDONLY | O_DIRECTORY)) >= 0, "O_DIRECTORY on /tmp");
    close(fd);
    CHECK((fd = open("/tmp/l1big", O_RDWR | O_CREAT | O_TRUNC, 0644)) >= 0, "O_CREAT | O_TRUNC");
    close(fd);
    CHECK(open_fds() == fds0,
          "%d fds open after two opens and their closes, %d before: a successful open "
          "(here O_DIRECTORY, or O_CREAT | O_TRUNC) left another fd open",
          open_fds(), fds0);
    before = free_pages();
    CHECK(unlink("/tmp/l1big") == 0, "unlink");
    after = free_pages();
    CHECK(after >= before + 64,
          "%u free pages before the unlink, %u after: something still "
          "holds the file",
          before, after);
    PASS();
}

static const struct lab_test tests[] = {
    LAB_TEST(open_reads_an_existing_file),
    LAB_TEST(o_creat_makes_a_regular_file_with_the_mode_given),
    LAB_TEST(o_creat_o_excl_refuses_an_existing_name),
    LAB_TEST(o_creat_without_o_excl_opens_the_existing_file_untouched),
    LAB_TEST(o_trunc_empties_only_what_it_may),
    LAB_TEST(o_directory_is_checked_before_ready),
    LAB_TEST(o_append_o_nonblock_and_the_access_mode_reach_the_fd),
    LAB_TEST(o_keep_marks_the_fd_and_nothing_else_does),
    LAB_TEST(o_path_gives_a_path_fd_and_readies_nothing),
    LAB_TEST(o_nofollow_refuses_a_symlink),
    LAB_TEST(open_returns_the_lowest_free_fd),
    LAB_TEST(a_failed_open_leaves_no_fd_and_no_file),
    LAB_TEST(openat_resolves_every_name_from_dirfd),
    LAB_TEST(open_with_one_free_fd_eats_no_slot),
    LAB_TEST(open_holds_nothing_after_close),
};

int main(int argc, char **argv)
{
    return lab_main("lab01", tests, ARRAY_SIZE(tests), argc, argv);
}
