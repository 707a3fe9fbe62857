/* t_errno.c - every error a manual page lists, produced and checked.
 *
 * For each system call page (doc/man/CALL.2.md) and each libc composition
 * with a page of its own (doc/man/CALL.3.md), every errno its ERRORS
 * section names is made to happen here and asserted exactly: the call
 * returns -1 (or NULL) and errno is that errno, nothing else. A result is
 * named PAGE_ERRNO_what (EXPECT below), and tools/test.py (docs/every_errno_a_page_lists_is_tested)
 * holds this file and the pages to each other: a pair a page lists is
 * either EXPECTed here or named in the list below, with the reason, and a
 * pair named here is on its page.
 *
 * The checks run as root unless they are in an as_user() function, which
 * runs in a child acting for uid USER (setuid). The boot namespace is the
 * test's own after unshare(), so its binds change nothing for init.
 *
 * Not produced here (page errno: why). An ext2 image's own errors, EFBIG
 * to write to a file of 4 GiB and EUCLEAN for a damaged block map, are made by
 * e2man.c, which boots with a disk (tools/test.py man_ext2).
 * Not produced here or there:
 *   fork ENOMEM: only when memory runs out (tools/fuzz.py's fault injection)
 *   rfork ENOMEM: only when memory runs out
 *   exec ENOMEM: only when memory runs out
 *   unshare ENOMEM: only when memory runs out
 *   fchroot ENOMEM: only when memory runs out
 *   bind ENOMEM: only when memory runs out
 *   unbind ENOMEM: only when memory runs out
 *   setattach ENOMEM: only when memory runs out
 *   walk ENOMEM: only when memory runs out
 *   create ENOMEM: only when memory runs out
 *   link ENOMEM: only when memory runs out
 *   link EMLINK: ext2's 65000 names for one node (no disk in this boot)
 *   rename ENOMEM: only when memory runs out
 *   rename ENOSPC: ext2's directory that must grow a block, disk full (e2full)
 *   rename EMLINK: ext2's file of 65000 names (no disk in this boot)
 *   unlink ENOMEM: only when memory runs out
 *   read ENOMEM: only when memory runs out
 *   write ENOMEM: only when memory runs out
 *   fstat ENOMEM: a copy-on-write page with memory gone
 *   getdents ENOMEM: only when memory runs out
 *   getcwd ENOMEM: only when memory runs out
 *   readlink ENOMEM: only when memory runs out
 *   wait ENOMEM: a copy-on-write page with memory gone
 *   pipe ENOMEM: only when memory runs out
 *   chan ENOMEM: only when memory runs out
 *   ready ENOMEM: only when memory runs out
 *   fsopen ENOMEM: only when memory runs out
 *   walk EUCLEAN: a damaged ext2 image (e2bad, with a disk)
 *   create EUCLEAN: a damaged ext2 image (e2bad)
 *   link EUCLEAN: a damaged ext2 image (e2bad)
 *   unlink EUCLEAN: a damaged ext2 image (e2bad)
 *   rename EUCLEAN: a damaged ext2 image (e2bad)
 *   readlink EUCLEAN: a damaged ext2 image (e2bad)
 *   bind EUCLEAN: a damaged ext2 image (e2bad)
 *   unbind EUCLEAN: a damaged ext2 image (e2bad)
 *   setattach EUCLEAN: a damaged ext2 image (e2bad)
 *   getdents EUCLEAN: a damaged ext2 image (e2bad)
 *   fsopen EUCLEAN: a damaged ext2 image (e2bad)
 *   getcwd ELOOP: a damaged ext2 image whose .. entries go round
 *   fsopen ELOOP: images inside images four deep (needs ext2 images)
 *   fsopen EINTR: killed while waiting: the process then exits (intro(2))
 *   chan EINTR: killed while waiting: the process then exits (intro(2))
 *   create EINTR: killed while waiting: the process then exits (intro(2))
 *   link EINTR: killed while waiting: the process then exits
 *   unlink EINTR: killed while waiting: the process then exits
 *   rename EINTR: killed while waiting: the process then exits
 *   write EINTR: killed while waiting: the process then exits
 *   lseek EINTR: killed while waiting: the process then exits
 *   dup2 EMFILE: only while a process sharing the table (rfork) is in a call
 *   ftruncate ENOMEM: only when memory runs out (ext2's block buffer)
 *
 * Produced here for one of the causes a page gives, not all:
 *   - fork, rfork EAGAIN: a user's CHILD_MAX; the 64 slots are t_users'
 *   - fsopen EBUSY: a channel that serves already; ext2's same storage
 *     needs an ext2 image (no disk in this boot)
 *   - fsopen, exec EIO: a revoked source; a disk error or a dying server
 *     (t_srv) are not made here
 */
#include <dirent.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "t.h"
#include "t_expect.h"

#define USER   1000                     /* the uid of as_user()'s children */
#define BADPTR ((void *)0xC0001000)     /* kernel memory: never a user address */
#define D      "/tmp/errno"             /* the scratch directory */

/* A plain assertion under a PAGE_ERR_what name: that a failed call left
 * things as they were. */
static void same_(const char *name, int ok, const char *what)
{
    t_report(name, ok ? NULL : what);
}
#define UNCHANGED(page, err, what, cond) same_(#page "_" #err "_" #what "_unchanged", (cond), #cond)

/* Run fn in a child acting for USER (its results are printed there). */
static void as_user(void (*fn)(void))
{
    int pid, st;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        if (setgid(USER) < 0 || setuid(USER) < 0)
            _exit(1);
        fn();
        fflush(stdout);
        _exit(0);
    }
    waitpid(pid, &st, 0);
}

/* Take every free descriptor slot but `leave`: the fds taken, in fds. */
static int fill_fds(int *fds, int leave)
{
    int n = 0, fd, i;

    while ((fd = dup(0)) >= 0)
        fds[n++] = fd;
    for (i = 0; i < leave && n > 0; i++)
        close(fds[--n]);
    return n;
}

static void unfill_fds(const int *fds, int n)
{
    while (n > 0)
        close(fds[--n]);
}

static int pathfd(const char *path)
{
    return walk(AT_CWD, path, WALK_NOFOLLOW);
}

/* ready() on the node (dirfd, path) names itself (a symlink too): its
 * result, errno kept */
static int ready_at(int dirfd, const char *path, int mode)
{
    int p = walk(dirfd, path, WALK_NOFOLLOW), fd = ready(p, mode), e = errno;

    close(p);
    errno = e;
    return fd;
}

/* exec() of the file path names, through a path fd: its result, errno
 * kept (a success would end the test, which then reports no results) */
static int exec_at(const char *path)
{
    int p = pathfd(path), r = exec(p, NULL, NULL), e = errno;

    close(p);
    errno = e;
    return r;
}

static int readied(const char *path, int mode)
{
    int p = walk(AT_CWD, path, 0), fd = ready(p, mode);

    close(p);
    return fd;
}

static int exists(const char *path)
{
    int p = pathfd(path);

    if (p < 0)
        return 0;
    close(p);
    return 1;
}

static char longpath[PATH_MAX + 8];     /* PATH_MAX bytes of "a/a/...": one too many */
static char longname[NAME_MAX + 2];     /* a component of NAME_MAX + 1 bytes */

static int dir;                         /* a path fd on D */
static int rwfd; /* readied for writing, then its attachment made read-only */
static int filefd; /* a path fd on D/file */

/* A ramfs made for the test and revoked: fds on it left over. */
static struct {
    int dir, file, rd, wr, fifo_w;
} rv;

static void make_revoked(void)
{
    int fs = fsopen("ramfs", -1, NULL), f;

    rv.dir = dup(fs);
    f = create(fs, "f", S_IFREG, 0755, 0);
    close(create(fs, "sub", S_IFDIR, 0755, 0));
    rv.file = f;
    rv.rd = ready(f, R_READ);
    rv.wr = ready(f, R_WRITE);
    revoke(fs);
    close(fs);
}

/* ---------------------------------------------------------- processes */

static void process_calls(void)
{
    int st, pid;

    EXPECT(rfork, EINVAL, flag_2, rfork(2));
    EXPECT(failnth, EINVAL, negative, failnth(-1));
    EXPECT(wait, EINVAL, option_2, waitpid(-1, &st, 2));
    if ((pid = fork()) == 0)
        _exit(7);
    EXPECT(wait, EFAULT, status_in_the_kernel, waitpid(pid, BADPTR, 0));
    UNCHANGED(wait, EFAULT, child_not_reaped, waitpid(pid, &st, 0) == pid && WEXITSTATUS(st) == 7);
    EXPECT(wait, ECHILD, no_child, waitpid(-1, &st, 0));
    EXPECT(wait, ECHILD, not_my_child, waitpid(1, &st, WNOHANG));

    EXPECT(kill, EINVAL, signal_0, kill(getpid(), 0));
    EXPECT(kill, EINVAL, signal_32, kill(getpid(), 32));
    EXPECT(kill, ESRCH, no_such_pid, kill(30000, SIGKILL));
    if ((pid = fork()) == 0)
        _exit(0);
    sleep_ms(50); /* a zombie now */
    EXPECT(kill, ESRCH, zombie, kill(pid, SIGKILL));
    waitpid(pid, &st, 0);
    EXPECT(kill, ESRCH, empty_group, kill(-30000, SIGKILL));
    EXPECT(kill, EPERM, init, kill(1, SIGKILL));

    EXPECT_NULL(sbrk, EINVAL, below_the_heap, sbrk(-0x7FFFFFFF));

    EXPECT(setpgid, EINVAL, negative, setpgid(0, -1));
    EXPECT(setpgid, ESRCH, no_such_pid, setpgid(30000, 0));
    EXPECT(setpgid, ESRCH, not_a_child, setpgid(1, 0));
    EXPECT(tcsetpgrp, EINVAL, negative, tcsetpgrp(-1));
    EXPECT(setuid, EINVAL, above_65535, setuid(65536));
    EXPECT(setuid, EINVAL, gid_negative, setgid(-1));
}

static void setpgid_other_session(void)
{
    /* the child, in a session of its own, cannot be moved by its parent */
    int gate[2], pid, st;
    char c;

    pipe(gate);
    if ((pid = fork()) == 0) {
        close(gate[1]);
        setsid();
        read(gate[0], &c, 1);
        _exit(0);
    }
    close(gate[0]);
    sleep_ms(30);
    EXPECT(setpgid, EPERM, child_of_another_session, setpgid(pid, 0));
    close(gate[1]);
    waitpid(pid, &st, 0);
}

static int roots_zombie; /* a child of root's that has exited, not reaped */

static void user_process_calls(void)
{
    int pids[CHILD_MAX + 2], n = 0, pid, gate[2], st;

    EXPECT(kill, EPERM, roots_process, kill(getppid(), SIGTERM));
    EXPECT(kill, EPERM, roots_zombie, kill(roots_zombie, SIGTERM));
    {
        /* 2 GiB more: a user is refused before a page is taken (an eighth
         * of memory stays free). The 0xBFFDF000 limit itself is out of
         * reach: one call moves the break by less than 2 GiB, and the heap
         * would need a gigabyte of memory first. */
        char *brk = sbrk(0);
        EXPECT_NULL(sbrk, ENOMEM, more_than_memory, sbrk(0x7FFFFFFF));
        UNCHANGED(sbrk, ENOMEM, break, sbrk(0) == brk);
    }
    EXPECT(setuid, EPERM, to_root, setuid(0));
    EXPECT(failnth, EPERM, arm_as_a_user, failnth(1));
    EXPECT(setuid, EPERM, gid_to_root, setgid(0));
    EXPECT(poweroff, EPERM, user, poweroff(3));
    EXPECT(setpgid, EPERM, roots_group, setpgid(0, 1));
    EXPECT(tcsetpgrp, EPERM, roots_group, tcsetpgrp(1));
    /* a user's CHILD_MAX: forks until the user's count is full */
    pipe(gate);
    fflush(stdout);
    while (n < CHILD_MAX + 1) {
        if ((pid = fork()) == 0) {
            char c;
            close(gate[1]);
            read(gate[0], &c, 1);
            _exit(0);
        }
        if (pid < 0)
            break;
        pids[n++] = pid;
    }
    EXPECT(fork, EAGAIN, user_at_child_max, fork());
    EXPECT(rfork, EAGAIN, user_at_child_max, rfork(RFORK_SHAREFDS));
    close(gate[1]);
    while (n > 0)
        waitpid(pids[--n], &st, 0);
    close(gate[0]);
}

static void setsid_leader(void)
{
    int pid, st;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        setsid();
        EXPECT(setsid, EPERM, group_leader, setsid());
        fflush(stdout);
        _exit(0);
    }
    waitpid(pid, &st, 0);
}

/* ------------------------------------------------------------ descriptors */

static void descriptor_calls(void)
{
    int fds[OPEN_MAX], n, p[2], fd, c[2];
    char buf[8];
    struct stat st;

    EXPECT(close, EBADF, negative, close(-1));
    EXPECT(close, EBADF, 32, close(OPEN_MAX));
    EXPECT(close, EBADF, not_open, close(OPEN_MAX - 1));
    EXPECT(dup, EBADF, not_open, dup(OPEN_MAX - 1));
    EXPECT(dup2, EBADF, not_open, dup2(OPEN_MAX - 1, 20));
    EXPECT(dup2, EBADF, to_negative, dup2(0, -1));
    EXPECT(dup2, EBADF, to_32, dup2(0, OPEN_MAX));
    n = fill_fds(fds, 0);
    EXPECT(dup, EMFILE, table_full, dup(0));
    EXPECT(walk, EMFILE, table_full, walk(AT_CWD, "/", 0));
    /* the calls with side effects ask for their slot before resolving anything */
    EXPECT(create, EMFILE, before_the_walk, create(AT_CWD, D "/nodir/x", S_IFREG, 0644, 0));
    EXPECT(fsopen, EMFILE, before_the_type, fsopen("nofs", -1, NULL));
    EXPECT(unbind, EMFILE, before_the_walk, unbind(AT_CWD, D "/nothing"));
    EXPECT(create, EMFILE, table_full, create(AT_CWD, D "/emfile", S_IFREG, 0644, 0));
    UNCHANGED(create, EMFILE, nothing_made, (close(fds[--n]), !exists(D "/emfile")));
    fd = pathfd(D);
    EXPECT(ready, EMFILE, table_full, ready(fd, R_READ));
    EXPECT(fsopen, EMFILE, table_full, fsopen("ramfs", -1, NULL));
    EXPECT(unbind, EMFILE, table_full, unbind(AT_CWD, D "/mnt"));
    EXPECT(stat, EMFILE, table_full, stat("/", &st));
    EXPECT(mkdir, EMFILE, table_full, mkdir(D "/emfile", 0755));
    close(fd);
    EXPECT(pipe, EMFILE, one_slot, pipe(p));
    EXPECT(chan, EMFILE, one_slot, chan(c));
    EXPECT(open, EMFILE, one_slot, open(D "/file", O_RDONLY));
    unfill_fds(fds, n);

    EXPECT(pipe, EFAULT, fds_in_the_kernel, pipe(BADPTR));
    EXPECT(chan, EFAULT, fds_in_the_kernel, chan(BADPTR));

    /* read and write */
    fd = pathfd(D "/file");
    EXPECT(read, EBADF, path_fd, read(fd, buf, 1));
    EXPECT(write, EBADF, path_fd, write(fd, "x", 1));
    EXPECT(lseek, EBADF, path_fd, lseek(fd, 0, SEEK_SET));
    EXPECT(getdents, EBADF, path_fd, getdents(fd, buf, sizeof(buf)));
    EXPECT(ftruncate, EBADF, path_fd, ftruncate(fd, 0));
    EXPECT(fcntl, EBADF, setfl_on_a_path_fd, fcntl(fd, F_SETFL, R_NONBLOCK));
    EXPECT(fcntl, EBADF, gettty_on_a_path_fd, fcntl(fd, F_GETTTY, 0));
    close(fd);
    EXPECT(read, EBADF, not_open, read(OPEN_MAX - 1, buf, 1));
    EXPECT(write, EBADF, not_open, write(OPEN_MAX - 1, "x", 1));
    fd = readied(D "/file", R_READ);
    EXPECT(write, EBADF, read_only, write(fd, "x", 1));
    EXPECT(ftruncate, EBADF, read_only, ftruncate(fd, 0));
    EXPECT(read, EFAULT, buf_in_the_kernel, read(fd, BADPTR, 4));
    EXPECT(getdents, ENOTDIR, a_file, getdents(fd, buf, sizeof(buf)));
    EXPECT(lseek, EINVAL, whence_3, lseek(fd, 0, 3));
    EXPECT(lseek, EINVAL, negative, lseek(fd, -1, SEEK_SET));
    EXPECT(fcntl, ENOTTY, not_the_console, fcntl(fd, F_GETTTY, 0));
    close(fd);
    fd = readied(D "/file", R_WRITE);
    EXPECT(read, EBADF, write_only, read(fd, buf, 1));
    EXPECT(write, EFAULT, buf_in_the_kernel, write(fd, BADPTR, 4));
    EXPECT(ftruncate, EFBIG, over_16_mib, ftruncate(fd, 16 * 1024 * 1024 + 1));
    EXPECT(lseek, EINVAL, past_int32_max,
           (lseek(fd, 0x7FFFFFFF, SEEK_SET), lseek(fd, 1, SEEK_CUR)));
    EXPECT(write, EFBIG, at_int32_max, write(fd, "x", 1));
    lseek(fd, 16 * 1024 * 1024, SEEK_SET);
    EXPECT(write, EFBIG, past_16_mib_on_ramfs, write(fd, "x", 1));
    close(fd);
    /* an image file a live ext2 instance is made of: only the instance writes it */
    ext2_copy_at("/etc/sample.ext2", D "/image", D "/image_fs");
    fd = readied(D "/image", R_WRITE);
    EXPECT(write, EBUSY, image_of_a_live_instance, write(fd, "x", 1));
    EXPECT(ftruncate, EBUSY, image_of_a_live_instance, ftruncate(fd, 0));
    close(fd);
    ext2_copy_drop(D "/image", D "/image_fs");

    fd = readied(D, R_READ);
    EXPECT(read, EISDIR, a_directory, read(fd, buf, 1));
    EXPECT(getdents, EINVAL, n_too_small, getdents(fd, buf, 1));
    EXPECT(getdents, EFAULT, buf_in_the_kernel, getdents(fd, BADPTR, 64));
    EXPECT(lseek, EINVAL, directory_not_a_rewind, lseek(fd, 1, SEEK_SET));
    close(fd);

    pipe(p);
    write(p[1], "ab", 2);
    EXPECT(read, EFAULT, pipe_into_the_kernel, read(p[0], BADPTR, 2));
    UNCHANGED(read, EFAULT, nothing_consumed, read(p[0], buf, sizeof(buf)) == 2 && buf[1] == 'b');
    fcntl(p[0], F_SETFL, R_NONBLOCK);
    EXPECT(read, EAGAIN, empty_nonblocking_pipe, read(p[0], buf, 1));
    EXPECT(lseek, ESPIPE, a_pipe, lseek(p[0], 0, SEEK_SET));
    EXPECT(ftruncate, EINVAL, a_pipe, ftruncate(p[1], 0));
    EXPECT(revoke, EBUSY, a_pipe, revoke(p[0]));
    fcntl(p[1], F_SETFL, R_NONBLOCK);
    {
        static char big[65536];
        while (write(p[1], big, sizeof(big)) > 0)
            ;
    }
    EXPECT(write, EAGAIN, full_nonblocking_pipe, write(p[1], "x", 1));
    close(p[0]);
    EXPECT(write, EPIPE, no_reader, write(p[1], "x", 1));
    close(p[1]);
    chan(c);
    fcntl(c[0], F_SETFL, R_NONBLOCK);
    EXPECT(chan, EAGAIN, nothing_queued, read(c[0], buf, 1));
    close(c[1]);
    EXPECT(chan, EPIPE, peer_closed, write(c[0], "x", 1));
    EXPECT(write, EPIPE, channel_peer_closed, write(c[0], "x", 1));
    close(c[0]);

    EXPECT(fstat, EBADF, not_open, fstat(OPEN_MAX - 1, &st));
    EXPECT(fstat, EFAULT, st_in_the_kernel, fstat(0, BADPTR));
    EXPECT(fcntl, EBADF, not_open, fcntl(OPEN_MAX - 1, F_GETFD, 0));
    EXPECT(fcntl, EINVAL, cmd_99, fcntl(0, 99, 0));
    EXPECT(fcntl, EINVAL, setfd_bit_2, fcntl(0, F_SETFD, 2));
    EXPECT(fcntl, EINVAL, setfl_bit_0x10, fcntl(0, F_SETFL, 0x10));
    EXPECT(fcntl, EINVAL, settty_bit_2, fcntl(0, F_SETTTY, 2));
    EXPECT(fchmod, EBADF, not_open, fchmod(OPEN_MAX - 1, 0644));
    EXPECT(fchown, EBADF, not_open, fchown(OPEN_MAX - 1, 0, 0));
    fd = pathfd(D "/file");
    EXPECT(fchmod, EINVAL, bit_010000, fchmod(fd, 010644));
    UNCHANGED(fchmod, EINVAL, mode, fstat(fd, &st) == 0 && (st.st_mode & 07777) == 0644);
    EXPECT(fchown, EINVAL, uid_65536, fchown(fd, 65536, -1));
    EXPECT(fchown, EINVAL, gid_65536, fchown(fd, -1, 65536));
    close(fd);
    fd = pathfd("/proc/meminfo");
    EXPECT(fchmod, EROFS, procfs, fchmod(fd, 0644));
    EXPECT(fchown, EROFS, procfs, fchown(fd, 1, 1));
    close(fd);
    fd = pathfd(D "/mnt/rofile");
    EXPECT(fchmod, EROFS, read_only_attachment, fchmod(fd, 0600));
    EXPECT(fchown, EROFS, read_only_attachment, fchown(fd, 1, 1));
    EXPECT(ftruncate, EROFS, attachment_made_read_only, ftruncate(rwfd, 0));
    close(fd);
}

static void fcntl_other_session(void)
{
    int pid, st, con;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        setsid();
        con = readied("/dev/console", R_READ);
        EXPECT(fcntl, EPERM, settty_from_another_session, fcntl(con, F_SETTTY, TTY_RAW));
        fflush(stdout);
        _exit(0);
    }
    waitpid(pid, &st, 0);
}

/* A user's USER_OPEN_MAX open files: helpers of the same user hold all
 * but none, then every call that makes an open file says ENFILE. */
static void user_open_files_full(void)
{
    int gate[2], got[2], pids[24], n, i, st, fd = pathfd(D "/file"), c[2];
    char ch;

    unshare(); /* so that unbind gets as far as its count */
    pipe(gate);
    pipe(got);
    fflush(stdout);
    for (n = 0; n < 24; n++) { /* each holds what its 32 slots leave */
        if ((pids[n] = fork()) == 0) {
            close(gate[1]);
            while (walk(AT_CWD, "/", 0) >= 0)
                ;
            write(got[1], "x", 1);
            read(gate[0], &ch, 1);
            _exit(0);
        }
    }
    for (i = 0; i < n; i++)
        read(got[0], &ch, 1);
    EXPECT(walk, ENFILE, user_open_max, walk(AT_CWD, "/", 0));
    EXPECT(ready, ENFILE, user_open_max, ready(fd, R_READ));
    EXPECT(create, ENFILE, user_open_max, create(AT_CWD, "/tmp/errno_enfile", S_IFREG, 0644, 0));
    UNCHANGED(create, ENFILE, nothing_made, !exists("/tmp/errno_enfile"));
    EXPECT(pipe, ENFILE, user_open_max, pipe(c));
    EXPECT(chan, ENFILE, user_open_max, chan(c));
    EXPECT(fsopen, ENFILE, user_open_max, fsopen("ramfs", -1, NULL));
    EXPECT(unbind, ENFILE, user_open_max, unbind(AT_CWD, D "/mnt"));
    close(gate[1]);
    for (i = 0; i < n; i++)
        waitpid(pids[i], &st, 0);
}

/* read of /proc/PID/status once PID has gone */
static void proc_file_of_a_gone_process(void)
{
    int pid = fork(), fd, st;
    char path[32], buf[16];

    if (pid == 0) {
        sleep_ms(20);
        _exit(0);
    }
    snprintf(path, sizeof(path), "/proc/%d/status", pid);
    fd = readied(path, R_READ);
    waitpid(pid, &st, 0);
    EXPECT(read, ENOENT, process_gone, read(fd, buf, sizeof(buf)));
    close(fd);
}

/* ------------------------------------------------------------ revoked */

static void revoked_calls(void)
{
    char buf[64];
    struct stat st;
    int fd;

    EXPECT(read, EIO, revoked, read(rv.rd, buf, 1));
    EXPECT(write, EIO, revoked, write(rv.wr, "x", 1));
    EXPECT(lseek, EIO, revoked, lseek(rv.rd, 1, SEEK_SET));
    EXPECT(fstat, EIO, revoked, fstat(rv.file, &st));
    EXPECT(ftruncate, EIO, revoked, ftruncate(rv.wr, 0));
    EXPECT(fchmod, EIO, revoked, fchmod(rv.file, 0644));
    EXPECT(fchown, EIO, revoked, fchown(rv.file, 1, 1));
    EXPECT(ready, EIO, revoked, ready(rv.file, R_READ));
    EXPECT(walk, EIO, revoked, walk(rv.dir, "f", 0));
    EXPECT(create, EIO, revoked, create(rv.dir, "g", S_IFREG, 0644, 0));
    EXPECT(link, EIO, revoked, linkat(rv.file, rv.dir, "g"));
    EXPECT(unlink, EIO, revoked, unlinkat(rv.dir, "f", 0));
    EXPECT(rename, EIO, revoked, renameat(rv.dir, "f", rv.dir, "g", 0));
    EXPECT(readlink, EIO, revoked, readlinkat(rv.dir, "f", buf, sizeof(buf)));
    EXPECT(fchdir, EIO, revoked, fchdir(rv.dir));
    EXPECT(fchroot, EIO, revoked, fchroot(rv.dir));
    EXPECT(revoke, EIO, twice, revoke(rv.dir));
    EXPECT(bind, EIO, revoked_fd, bind(rv.dir, AT_CWD, D "/mnt", 0));
    EXPECT(unbind, EIO, revoked_dirfd, unbind(rv.dir, "sub"));
    EXPECT(setattach, EIO, revoked_dirfd, setattach(rv.dir, "sub", BIND_RDONLY));
    EXPECT(exec, EIO, revoked, exec(rv.rd, NULL, NULL));
    EXPECT(fsopen, EIO, revoked_source, fsopen("ext2", rv.rd, NULL));
    fd = fsopen("ramfs", -1, NULL);
    fchdir(fd);
    revoke(fd);
    EXPECT_NULL(getcwd, EIO, revoked_cwd, getcwd(buf, sizeof(buf)));
    chdir("/");
    close(fd);
}

/* getdents EIO needs a readied directory of the revoked filesystem. */
static void revoked_directory(void)
{
    int fs = fsopen("ramfs", -1, NULL), d = ready(fs, R_READ), con;
    int devfs = fsopen("devfs", -1, NULL), cp;
    char buf[64];

    revoke(fs);
    EXPECT(getdents, EIO, revoked_directory, getdents(d, buf, sizeof(buf)));
    EXPECT(opendir, EIO, readdir_revoked, (readdir(fdopendir(d)) ? 0 : -1));
    close(fs);
    cp = walk(devfs, "console", 0);
    con = ready(cp, R_READ);
    revoke(devfs);
    EXPECT(fcntl, EIO, gettty_revoked, fcntl(con, F_GETTTY, 0));
    close(con);
    close(cp);
    close(devfs);
}

/* ------------------------------------------------------------ names */

/* The walk errors every call that resolves a name reports. */
#define NAME_ERRORS(page, call) \
    do { \
        EXPECT(page, EFAULT, path_in_the_kernel, call(AT_CWD, BADPTR)); \
        EXPECT(page, ENAMETOOLONG, path_1024, call(AT_CWD, longpath)); \
        EXPECT(page, ENAMETOOLONG, component_256, call(dir, longname)); \
        EXPECT(page, ENOENT, no_directory, call(dir, "nodir/x")); \
        EXPECT(page, ENOTDIR, file_on_the_way, call(dir, "file/x")); \
        EXPECT(page, ELOOP, link_loop_on_the_way, call(dir, "loop/x")); \
        EXPECT(page, EBADF, dirfd_not_open, call(OPEN_MAX - 1, "x")); \
    } while (0)

static char rlbuf[64];

static int do_walk(int d, const char *p)
{
    return walk(d, p, 0);
}
static int do_create(int d, const char *p)
{
    return create(d, p, S_IFREG, 0644, 0);
}
static int do_link(int d, const char *p)
{
    return linkat(filefd, d, p);
}
static int do_unlink(int d, const char *p)
{
    return unlinkat(d, p, 0);
}
static int do_rename(int d, const char *p)
{
    return renameat(dir, "file", d, p, 0);
}
static int do_readlink(int d, const char *p)
{
    return readlinkat(d, p, rlbuf, sizeof(rlbuf));
}
static int do_bind(int d, const char *p)
{
    return bind(dir, d, p, 0);
}
static int do_unbind(int d, const char *p)
{
    return unbind(d, p);
}
static int do_setattach(int d, const char *p)
{
    return setattach(d, p, BIND_RDONLY);
}

static void name_calls(void)
{
    int fd, fs, fs2, sub;
    char buf[64];

    NAME_ERRORS(walk, do_walk);
    NAME_ERRORS(create, do_create);
    NAME_ERRORS(link, do_link);
    NAME_ERRORS(unlink, do_unlink);
    NAME_ERRORS(rename, do_rename);
    NAME_ERRORS(readlink, do_readlink);
    NAME_ERRORS(bind, do_bind);
    NAME_ERRORS(unbind, do_unbind);
    NAME_ERRORS(setattach, do_setattach);
    EXPECT(rename, EFAULT, old_in_the_kernel, renameat(dir, BADPTR, dir, "x", 0));
    EXPECT(rename, ENOENT, no_old, renameat(dir, "nothing", dir, "x", 0));

    /* walk */
    EXPECT(walk, EINVAL, flag_4, walk(dir, "file", 4));
    EXPECT(walk, ENOENT, empty, walk(dir, "", 0));
    EXPECT(walk, ENOENT, no_such_name, walk(dir, "nothing", 0));
    EXPECT(walk, ENOTDIR, trailing_slash_on_a_file, walk(dir, "file/", 0));
    EXPECT(walk, ENOTDIR, dirfd_a_file, (fd = pathfd(D "/file"), walk(fd, "x", 0)));
    close(fd);
    EXPECT(walk, ELOOP, link_loop, walk(dir, "loop", 0));
    EXPECT(walk, ENOTDIR, trailing_slash_on_a_symlink_nofollow,
           walk(dir, "sublink/", WALK_NOFOLLOW));
    sub = create(dir, "gone", S_IFDIR, 0755, 0);
    unlinkat(dir, "gone", UNLINK_DIR);
    EXPECT(walk, ENOENT, dotdot_of_a_removed_directory, walk(sub, "..", 0));
    close(sub);
    EXPECT(walk, EXDEV, beneath_dotdot, walk(dir, "..", WALK_BENEATH));
    EXPECT(walk, EXDEV, beneath_absolute, walk(dir, "/", WALK_BENEATH));

    /* ready */
    EXPECT(ready, EBADF, not_open, ready(OPEN_MAX - 1, R_READ));
    fd = pathfd(D "/file");
    EXPECT(ready, EINVAL, mode_0, ready(fd, 0));
    EXPECT(ready, EINVAL, mode_0x10, ready(fd, R_READ | 0x10));
    EXPECT(ready, EINVAL, only_append, ready(fd, R_APPEND));
    close(fd);
    EXPECT(ready, EISDIR, directory_for_writing, ready(dir, R_WRITE));
    EXPECT(ready, ELOOP, a_symlink, ready_at(AT_CWD, D "/loop", R_READ));
    EXPECT(ready, EACCES, no_w_bit_for_root, ready_at(AT_CWD, D "/ro0400", R_WRITE));
    EXPECT(ready, ENXIO, no_driver, ready_at(AT_CWD, D "/nodriver", R_READ));
    EXPECT(ready, EROFS, read_only_attachment, ready_at(AT_CWD, D "/mnt/rofile", R_WRITE));
    EXPECT(ready, EACCES, nodev_attachment, ready_at(AT_CWD, D "/nodev/null", R_READ));

    /* create */
    EXPECT(create, EINVAL, type_0, create(dir, "x", 0, 0644, 0));
    EXPECT(create, EINVAL, dotdot, create(dir, "..", S_IFDIR, 0755, 0));
    EXPECT(create, EINVAL, empty, create(dir, "", S_IFREG, 0644, 0));
    EXPECT(create, EFAULT, target_in_the_kernel,
           create(dir, "x", S_IFLNK, 0777, (unsigned long)BADPTR));
    EXPECT(create, ENAMETOOLONG, target_1024,
           create(dir, "x", S_IFLNK, 0777, (unsigned long)longpath));
    EXPECT(create, ENOTDIR, trailing_slash, create(dir, "newfile/", S_IFREG, 0644, 0));
    EXPECT(create, ENOENT, no_such_directory, create(dir, "nodir/x", S_IFREG, 0644, 0));
    EXPECT(create, EEXIST, the_name_exists, create(dir, "file", S_IFREG, 0644, 0));
    EXPECT(create, EROFS, procfs, create(AT_CWD, "/proc/x", S_IFREG, 0644, 0));
    EXPECT(create, EROFS, read_only_attachment, create(AT_CWD, D "/mnt/x", S_IFREG, 0644, 0));
    UNCHANGED(create, EROFS, nothing_made, !exists(D "/mnt/x"));
    sub = create(dir, "gone", S_IFDIR, 0755, 0);
    unlinkat(dir, "gone", UNLINK_DIR);
    EXPECT(create, ENOENT, removed_directory, create(sub, "x", S_IFREG, 0644, 0));
    EXPECT(link, ENOENT, removed_directory, linkat(filefd, sub, "x"));
    close(sub);
    fs = fsopen("ramfs", -1, NULL);
    fs2 = fsopen("ramfs", -1, NULL);
    close(create(fs, "x", S_IFREG, 0644, 0));
    close(create(fs2, "d", S_IFDIR, 0755, 0));
    close(create(fs2, "y", S_IFREG, 0644, 0));
    bind(fs, AT_CWD, D "/union", BIND_AFTER); /* a union with no BIND_CREATE member */
    EXPECT(create, EROFS, union_without_a_create_member,
           create(AT_CWD, D "/union/new", S_IFREG, 0644, 0));
    bind(fs2, AT_CWD, D "/union", BIND_BEFORE | BIND_CREATE);
    EXPECT(create, EEXIST, a_union_member_has_it, create(AT_CWD, D "/union/x", S_IFREG, 0644, 0));

    /* link */
    EXPECT(link, EBADF, fd_not_open, linkat(OPEN_MAX - 1, dir, "x"));
    fd = pathfd(D "/file");
    EXPECT(link, EINVAL, dotdot, linkat(fd, dir, ".."));
    EXPECT(link, ENOTDIR, trailing_slash_new_name, linkat(fd, dir, "newname/"));
    UNCHANGED(link, ENOTDIR, nothing_made, !exists(D "/newname"));
    EXPECT(link, EEXIST, the_name_exists, linkat(fd, dir, "loop"));
    EXPECT(link, EXDEV, another_filesystem, linkat(fd, fs, "z"));
    close(fd);
    fd = pathfd(D "/mnt/rofile");
    EXPECT(link, EROFS, read_only_attachment, linkat(fd, AT_CWD, D "/mnt/z"));
    close(fd);
    fd = pathfd(D "/sub");
    EXPECT(link, EPERM, a_directory, linkat(fd, dir, "sub2"));
    close(fd);
    fd = pathfd(D "/mnt/rofile");
    EXPECT(link, EXDEV, out_of_a_read_only_attachment, linkat(fd, dir, "rw"));
    close(fd);

    /* unlink */
    EXPECT(unlink, EINVAL, flag_2, unlinkat(dir, "file", 2));
    EXPECT(unlink, EINVAL, dot, unlinkat(dir, ".", UNLINK_DIR));
    EXPECT(unlink, ENOENT, no_such_name, unlinkat(dir, "nothing", 0));
    EXPECT(unlink, EROFS, read_only_attachment, unlinkat(AT_CWD, D "/mnt/rofile", 0));
    EXPECT(unlink, EBUSY, attached_on, unlinkat(dir, "mnt", UNLINK_DIR));
    EXPECT(unlink, EISDIR, a_directory, unlinkat(dir, "sub", 0));
    EXPECT(unlink, ENOTDIR, unlink_dir_on_a_file, unlinkat(dir, "file", UNLINK_DIR));
    EXPECT(unlink, ENOTDIR, trailing_slash_on_a_file, unlinkat(dir, "file/", 0));
    EXPECT(unlink, ENOTDIR, trailing_slash_on_a_symlink_to_a_directory,
           unlinkat(dir, "sublink/", 0));
    UNCHANGED(unlink, ENOTDIR, symlink_kept, exists(D "/sublink"));
    EXPECT(unlink, ENOTEMPTY, full_directory, unlinkat(dir, "full", UNLINK_DIR));
    UNCHANGED(unlink, ENOTEMPTY, still_there, exists(D "/full/f"));

    /* rename */
    EXPECT(rename, EINVAL, flag_2, renameat(dir, "file", dir, "x", 2));
    EXPECT(rename, EINVAL, dotdot, renameat(dir, "..", dir, "x", 0));
    EXPECT(rename, EINVAL, into_itself, renameat(dir, "full", dir, "full/in", 0));
    EXPECT(rename, EXDEV, another_filesystem, renameat(dir, "file", fs, "x2", 0));
    EXPECT(rename, EROFS, read_only_attachment,
           renameat(AT_CWD, D "/mnt/rofile", AT_CWD, D "/mnt/r2", 0));
    EXPECT(rename, EBUSY, attached_on_old, renameat(dir, "mnt", dir, "mnt2", 0));
    EXPECT(rename, EEXIST, noreplace, renameat(dir, "file", dir, "loop", RENAME_NOREPLACE));
    EXPECT(rename, ENOTDIR, directory_onto_a_file, renameat(dir, "sub", dir, "file", 0));
    EXPECT(rename, ENOTDIR, file_to_a_trailing_slash, renameat(dir, "file", dir, "newname/", 0));
    EXPECT(rename, EISDIR, file_onto_a_directory, renameat(dir, "file", dir, "sub", 0));
    EXPECT(rename, ENOTEMPTY, onto_a_full_directory, renameat(dir, "sub", dir, "full", 0));
    UNCHANGED(rename, ENOTEMPTY, both_there, exists(D "/sub") && exists(D "/full/f"));
    close(fs);
    close(fs2);

    /* readlink */
    EXPECT(readlink, EINVAL, not_a_symlink, readlinkat(dir, "file", buf, sizeof(buf)));
    EXPECT(readlink, EFAULT, buf_in_the_kernel, readlinkat(dir, "loop", BADPTR, 8));

    /* getcwd */
    EXPECT_NULL(getcwd, ERANGE, size_1, getcwd(buf, 1));
    EXPECT_NULL(getcwd, ERANGE, too_small, (chdir(D "/sub"), getcwd(buf, 5)));
    EXPECT_NULL(getcwd, EFAULT, buf_in_the_kernel, getcwd(BADPTR, 64));
    sub = create(dir, "gone", S_IFDIR, 0755, 0);
    fchdir(sub);
    unlinkat(dir, "gone", UNLINK_DIR);
    EXPECT_NULL(getcwd, ENOENT, removed, getcwd(buf, sizeof(buf)));
    close(sub);
    chdir("/");

    /* fchdir, fchroot */
    EXPECT(fchdir, EBADF, not_open, fchdir(OPEN_MAX - 1));
    EXPECT(fchroot, EBADF, not_open, fchroot(OPEN_MAX - 1));
    fd = pathfd(D "/file");
    EXPECT(fchdir, ENOTDIR, a_file, fchdir(fd));
    EXPECT(fchroot, ENOTDIR, a_file, fchroot(fd));
    close(fd);
}

static void user_name_calls(void)
{
    int fd;
    char buf[16];

    EXPECT(walk, EACCES, closed_directory, walk(AT_CWD, D "/closed/f", 0));
    fd = pathfd(D "/closed");
    EXPECT(walk, EACCES, the_starting_directory, walk(fd, "f", 0));
    close(fd);
    fd = fsopen("devfs", -1, NULL);
    EXPECT(ready, EACCES, device_of_a_users_devfs, ready_at(fd, "null", R_READ));
    close(fd);
    EXPECT(create, EACCES, roots_directory, create(AT_CWD, D "/x", S_IFREG, 0644, 0));
    EXPECT(create, EPERM, device_node,
           create(AT_CWD, "/tmp/errno_dev", S_IFCHR, 0644, MKDEV(2, 0)));
    EXPECT(mkdir, EACCES, roots_directory, mkdir(D "/x", 0755));
    EXPECT(mkdir, EPERM, mknod_device, mknod("/tmp/errno_dev", S_IFCHR | 0644, MKDEV(2, 0)));
    fd = pathfd(D "/file");
    EXPECT(link, EACCES, roots_directory, linkat(fd, AT_CWD, D "/x"));
    EXPECT(fchmod, EPERM, roots_file, fchmod(fd, 0777));
    EXPECT(fchown, EPERM, roots_file, fchown(fd, USER, -1));
    EXPECT(ready, EACCES, no_w_bit, ready(fd, R_WRITE));
    EXPECT(revoke, EPERM, roots_filesystem, revoke(fd));
    close(fd);
    EXPECT(unlink, EACCES, roots_directory, unlinkat(AT_CWD, D "/file", 0));
    EXPECT(unlink, EPERM, sticky_directory, unlinkat(AT_CWD, "/tmp/errno_sticky", 0));
    EXPECT(rename, EACCES, roots_directory, renameat(AT_CWD, D "/file", AT_CWD, D "/x", 0));
    EXPECT(rename, EPERM, sticky_directory,
           renameat(AT_CWD, "/tmp/errno_sticky", AT_CWD, "/tmp/mine", 0));
    EXPECT(readlink, EACCES, closed_directory, readlinkat(AT_CWD, D "/closed/f", buf, sizeof(buf)));
    EXPECT(stat, EACCES, closed_directory, stat(D "/closed/f", (struct stat *)buf));
    EXPECT(opendir, EACCES, closed_directory, (opendir(D "/closed") ? 0 : -1));
    EXPECT(execv, EACCES, no_x_bit, execv(D "/file", (char *[]){ "file", NULL }));
    EXPECT(bind, EPERM, roots_namespace, bind(dir, AT_CWD, D "/sub", 0));
    /* the order the pages give: bind resolves first, fchroot and unbind ask first */
    EXPECT(bind, ENOENT, resolved_before_eperm, bind(dir, AT_CWD, D "/nothing", 0));
    EXPECT(fchroot, EPERM, asked_before_ebadf, fchroot(OPEN_MAX - 1));
    EXPECT(unbind, EPERM, asked_before_enoent, unbind(AT_CWD, D "/nothing"));
    /* unlink and rename ask for w on the directory once the name is found */
    EXPECT(unlink, ENOENT, before_eacces, unlinkat(AT_CWD, D "/nothing", 0));
    EXPECT(unlink, EBUSY, before_eacces, unlinkat(AT_CWD, D "/mnt", UNLINK_DIR));
    EXPECT(rename, ENOENT, before_eacces, renameat(AT_CWD, D "/nothing", AT_CWD, D "/x", 0));
    EXPECT(unbind, EPERM, roots_namespace, unbind(AT_CWD, D "/mnt"));
    EXPECT(setattach, EPERM, roots_namespace, setattach(AT_CWD, D "/mnt", BIND_RDONLY));
    EXPECT(fchroot, EPERM, roots_namespace, fchroot(dir));
    EXPECT(bind, EACCES, closed_directory, bind(dir, AT_CWD, D "/closed/d", 0));
    EXPECT(link, EACCES, closed_directory_on_the_way, linkat(filefd, AT_CWD, D "/closed/d/x"));
    EXPECT(unlink, EACCES, closed_directory_on_the_way, unlinkat(AT_CWD, D "/closed/d/x", 0));
    EXPECT(rename, EACCES, closed_directory_on_the_way,
           renameat(AT_CWD, D "/closed/d/x", AT_CWD, "/tmp/y", 0));
    /* setattach: a user in a namespace of its own may add a restriction, not lift one */
    if (unshare() == 0) {
        EXPECT(unbind, EACCES, closed_directory, unbind(AT_CWD, D "/closed/d"));
        EXPECT(setattach, EACCES, closed_directory, setattach(AT_CWD, D "/closed/d", 0));
        EXPECT(setattach, EPERM, lifting_read_only, setattach(AT_CWD, D "/mnt", 0));
        EXPECT(unbind, EPERM, lifting_read_only_over_itself, unbind(AT_CWD, D "/self"));
    }
}

/* A channel end serving /bin/ramsrv's filesystem is busy: for a second
 * fsopen and for read and write. */
static void served_channel(void)
{
    int end, pid, root, st;
    char buf[4];

    end = ramsrv_start(&pid);
    root = fsopen("srv", end, NULL);
    EXPECT(fsopen, EBUSY, srv_channel_serving, fsopen("srv", end, NULL));
    EXPECT(chan, EBUSY, read_of_a_serving_end, read(end, buf, sizeof(buf)));
    EXPECT(chan, EBUSY, write_to_a_serving_end, write(end, "x", 1));
    EXPECT(read, EBUSY, a_serving_channel_end, read(end, buf, sizeof(buf)));
    EXPECT(write, EBUSY, a_serving_channel_end, write(end, "x", 1));
    close(end);
    close(root);
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
}

/* ------------------------------------------------------------ namespace */

static void namespace_calls(void)
{
    int fs, fd, i, n, d, p[2];

    EXPECT(fsopen, EFAULT, type_in_the_kernel, fsopen(BADPTR, -1, NULL));
    EXPECT(fsopen, EFAULT, opts_in_the_kernel, fsopen("ramfs", -1, BADPTR));
    EXPECT(fsopen, ENODEV, no_such_type, fsopen("nofs", -1, NULL));
    EXPECT(fsopen, ENODEV, type_16_bytes, fsopen("ramfsramfsramfsr", -1, NULL));
    EXPECT(fsopen, EINVAL, opts_64_bytes, fsopen("ramfs", -1, longname + NAME_MAX + 1 - 64));
    fd = readied(D "/file", R_READ);
    EXPECT(fsopen, EINVAL, ramfs_with_a_source, fsopen("ramfs", fd, NULL));
    EXPECT(fsopen, EINVAL, not_ext2, fsopen("ext2", fd, NULL));
    close(fd);
    EXPECT(fsopen, EINVAL, ext2_without_a_source, fsopen("ext2", -1, NULL));
    EXPECT(fsopen, EBADF, srcfd_not_open, fsopen("ext2", OPEN_MAX - 1, NULL));
    fd = pathfd(D "/file");
    EXPECT(fsopen, EBADF, srcfd_a_path_fd, fsopen("ext2", fd, NULL));
    close(fd);
    pipe(p);
    EXPECT(fsopen, ENOTBLK, a_pipe, fsopen("ext2", p[0], NULL));
    EXPECT(fsopen, ENOTBLK, srv_on_a_pipe, fsopen("srv", p[0], NULL));
    close(p[0]);
    close(p[1]);
    chan(p);
    close(p[1]);
    EXPECT(fsopen, EPIPE, srv_peer_closed, fsopen("srv", p[0], NULL));
    close(p[0]);
    served_channel();

    /* bind */
    EXPECT(bind, EINVAL, flag_0x40, bind(dir, AT_CWD, D "/sub", 0x40));
    EXPECT(bind, EINVAL, flags_checked_first, bind(OPEN_MAX - 1, AT_CWD, D "/nothing", 0x40));
    EXPECT(bind, EINVAL, before_and_after, bind(dir, AT_CWD, D "/sub", BIND_BEFORE | BIND_AFTER));
    fd = pathfd(D "/file");
    EXPECT(bind, EINVAL, union_of_a_file, bind(fd, AT_CWD, D "/file", BIND_BEFORE));
    EXPECT(bind, EBADF, fd_not_open, bind(OPEN_MAX - 1, AT_CWD, D "/sub", 0));
    EXPECT(bind, EISDIR, file_on_a_directory, bind(fd, AT_CWD, D "/sub", 0));
    EXPECT(bind, ENOTDIR, directory_on_a_file, bind(dir, AT_CWD, D "/file", 0));
    close(fd);
    fs = fsopen("ramfs", -1, NULL);
    close(create(fs, "in", S_IFDIR, 0755, 0));
    EXPECT(bind, EINVAL, path_attached_nowhere, bind(dir, fs, "in", 0));
    EXPECT(unbind, EINVAL, place_attached_nowhere, unbind(fs, "in"));
    EXPECT(setattach, EINVAL, place_attached_nowhere, setattach(fs, "in", BIND_RDONLY));
    EXPECT(unbind, EINVAL, ordinary_name, unbind(AT_CWD, D "/sub"));
    EXPECT(unbind, EINVAL, the_root, unbind(AT_CWD, "/"));
    EXPECT(setattach, EINVAL, flag_before, setattach(AT_CWD, D "/mnt", BIND_BEFORE));
    EXPECT(setattach, EINVAL, ordinary_name, setattach(AT_CWD, D "/sub", BIND_RDONLY));
    /* 16 members of one union, then the 17th */
    d = create(fs, "u", S_IFDIR, 0755, 0);
    for (i = 0, n = 0; i < 16; i++)
        n += bind(fs, AT_CWD, D "/un16", BIND_AFTER) == 0;
    EXPECT(bind, ENOSPC, union_of_17, bind(fs, AT_CWD, D "/un16", BIND_AFTER));
    close(d);
    close(fs);

    /* revoke */
    EXPECT(revoke, EBADF, not_open, revoke(OPEN_MAX - 1));
    fd = pathfd("/");
    EXPECT(revoke, EBUSY, the_roots_filesystem, revoke(fd));
    close(fd);

    /* exec */
    EXPECT(exec, EBADF, not_open, exec(OPEN_MAX - 1, NULL, NULL));
    fd = readied("/bin/true", R_READ);
    EXPECT(exec, EFAULT, argv_in_the_kernel, exec(fd, BADPTR, NULL));
    EXPECT(exec, EFAULT, an_argument_in_the_kernel, exec(fd, (char *[]){ BADPTR, NULL }, NULL));
    EXPECT(exec, EFAULT, envp_in_the_kernel, exec(fd, NULL, BADPTR));
    {
        static char *many[70];
        for (i = 0; i < 65; i++)
            many[i] = "x";
        EXPECT(exec, E2BIG, 65_arguments, exec(fd, many, NULL));
        EXPECT(execv, E2BIG, 65_arguments, execv("/bin/true", many));
        static char huge[33000];
        memset(huge, 'a', sizeof(huge) - 1);
        EXPECT(exec, E2BIG, 33000_bytes, exec(fd, (char *[]){ huge, NULL }, NULL));
    }
    close(fd);
    EXPECT(exec, EISDIR, a_directory, exec_at("/bin"));
    EXPECT(exec, EACCES, a_device, exec_at("/dev/null"));
    EXPECT(exec, EACCES, no_x_bit, exec_at(D "/file"));
    EXPECT(exec, ENOEXEC, a_text_file, exec_at(D "/script"));
    EXPECT(exec, EACCES, a_fifo, exec_at(D "/fifo"));
    EXPECT(exec, EACCES, noexec_attachment, exec_at(D "/noexec/true"));
    EXPECT(execv, ENOENT, no_such_file, execv(D "/nothing", (char *[]){ "x", NULL }));
    EXPECT(execv, ENOENT, execvp_nowhere_in_path,
           execvp("no-such-program", (char *[]){ "x", NULL }));
    EXPECT(execv, ENOEXEC, a_text_file, execv(D "/script", (char *[]){ "x", NULL }));
}

/* bind's 256 attachments in a namespace, in a child (its namespace goes
 * with it) */
static void namespace_full(void)
{
    int pid, st, i, fd;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        unshare();
        fd = pathfd(D "/sub");
        for (i = 0; i < 300; i++)
            if (bind(fd, AT_CWD, D "/sub", 0) < 0)
                break;
        EXPECT(bind, ENOSPC, namespace_full, bind(fd, AT_CWD, D "/sub", 0));
        close(fd);
        fd = fsopen("ramfs", -1, NULL); /* a tree attached nowhere gets a root attachment */
        EXPECT(fchroot, ENOSPC, namespace_full, fchroot(fd));
        fflush(stdout);
        _exit(0);
    }
    waitpid(pid, &st, 0);
}

/* ------------------------------------------------------------ libc */

static void libc_calls(void)
{
    struct stat st;

    EXPECT(open, EINVAL, accmode_3, open(D "/file", O_ACCMODE));
    EXPECT(open, ENOTDIR, o_directory_on_a_file, open(D "/file", O_RDONLY | O_DIRECTORY));
    EXPECT(opendir, ENOENT, no_such_directory, (opendir(D "/nothing") ? 0 : -1));
    EXPECT(opendir, ENOTDIR, a_file, (opendir(D "/file") ? 0 : -1));
    EXPECT(stat, ENOENT, no_such_file, stat(D "/nothing", &st));
    EXPECT(stat, EFAULT, st_in_the_kernel, stat(D "/file", BADPTR));
    EXPECT(mkdir, EEXIST, the_name_exists, mkdir(D "/sub", 0755));
    EXPECT(mkdir, ENOENT, no_such_directory, mkdir(D "/nodir/x", 0755));
    EXPECT(mkdir, EINVAL, mknod_unknown_type, mknod(D "/x", 0170000 | 0644, 0));
    EXPECT(chroot, ENOENT, no_such_directory, chroot(D "/nothing"));
    EXPECT(chroot, ENOTDIR, a_file, chroot(D "/file"));
    EXPECT(chroot, ENOENT, chdir_no_such_directory, chdir(D "/nothing"));
    EXPECT(chroot, ENOTDIR, chdir_a_file, chdir(D "/file"));
    EXPECT(pivot_root, ENOTDIR, new_root_a_file, pivot_root(D "/file", "old"));
}

/* open(3)'s CAVEATS: a creating open that then cannot ready the file
 * removes it again; O_CREAT on a dangling symlink is ENOENT. */
static void open_caveats_hold(void)
{
    int fd;

    errno = 0;
    fd = open(D "/c444", O_CREAT | O_WRONLY, 0444);
    CHECK(fd == -1 && errno == EACCES, "open(O_CREAT|O_WRONLY, 0444) gave %d", fd);
    CHECK(!exists(D "/c444"), "the file the failed open made is still there");
    symlink("nowhere", D "/dangling");
    errno = 0;
    fd = open(D "/dangling", O_CREAT | O_WRONLY, 0644);
    CHECK(fd == -1 && errno == ENOENT, "O_CREAT on a dangling symlink gave %d", fd);
    CHECK(!exists(D "/nowhere"), "the symlink's target was made");
    PASS();
}

static void mount_calls(void)
{
    EXPECT(mount, ENXIO, no_such_disk, mount("ext2", "/dev/hd3", D "/sub", NULL));
    EXPECT(mount, EROFS, read_only_source_without_ro,
           mount("ext2", D "/mnt/rofile", D "/sub", NULL));
    EXPECT(mount, EINVAL, not_ext2, mount("ext2", D "/file", D "/sub", NULL));
    EXPECT(mount, EINVAL, umount_nothing_attached, umount(D "/sub"));
}

/* put_old/new_root one byte too long, in a child with a namespace of its
 * own: put_old is 1014 bytes, "/tmp/errno/pv" 13 more and a slash. */
static void pivot_root_name_too_long(void)
{
    int pid, st, fs, d, i;
    char old[PATH_MAX], name[251];

    fflush(stdout);
    if ((pid = fork()) == 0) {
        unshare();
        memset(name, 'p', 250);
        name[250] = '\0';
        fs = fsopen("ramfs", -1, NULL);
        d = dup(fs);
        old[0] = '\0';
        for (i = 0; i < 5; i++) {
            const char *n = i < 4 ? name : "abcdefghij";
            int nd = create(d, n, S_IFDIR, 0755, 0);
            close(d);
            d = nd;
            snprintf(old + strlen(old), sizeof(old) - strlen(old), "%s%s", i ? "/" : "", n);
        }
        close(d);
        mkdir(D "/pv", 0755);
        bind(fs, AT_CWD, D "/pv", 0);
        EXPECT(pivot_root, ENAMETOOLONG, put_old_and_new_root, pivot_root(D "/pv", old));
        fflush(stdout);
        _exit(0);
    }
    waitpid(pid, &st, 0);
}

/* opendir with no memory left for the DIR: a user's heap ends while an
 * eighth of memory is still free (sbrk(2)), so this takes nothing from
 * anyone else. */
static void opendir_without_memory(void)
{
    static const int sizes[] = { 1 << 20, 1 << 16, 4096, 512, 64 };
    int fd = open(D, O_RDONLY | O_DIRECTORY);
    unsigned i;

    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        while (malloc(sizes[i]))
            ;
    EXPECT(opendir, ENOMEM, fdopendir_no_memory_for_the_dir, (fdopendir(fd) ? 0 : -1));
}

/* A ramfs that has filled memory to the eighth it leaves free: every call
 * that would store more says ENOSPC (ramfs.c: pmm_may_store). The filesystem is detached, so its
 * memory comes back when the last fd on it goes. */
static void a_full_ramfs_refuses_all_but_rename(void)
{
    static char chunk[65536];
    int fs = fsopen("ramfs", -1, NULL), f, fd = -1, small, a, b, i, n = 0;
    char name[16];

    close(create(fs, "a", S_IFDIR, 0755, 0));
    close(create(fs, "b", S_IFDIR, 0755, 0));
    close(create(fs, "a/x", S_IFREG, 0644, 0));
    a = walk(fs, "a", 0);
    b = walk(fs, "b", 0);
    f = create(fs, "small", S_IFREG, 0644, 0);
    small = ready(f, R_WRITE);
    close(f);
    /* files of 16 MiB (ramfs's largest) until memory is at its eighth */
    for (i = 0; i < 64 && errno != ENOSPC; i++) {
        snprintf(name, sizeof(name), "big%d", i);
        f = create(fs, name, S_IFREG, 0644, 0);
        close(fd);
        fd = ready(f, R_WRITE);
        close(f);
        while ((n = write(fd, chunk, sizeof(chunk))) > 0)
            ;
    }
    /* a file's buffer doubles, so the big ones stop short: small files
     * of a page each take the rest, until not even a node fits */
    for (i = 0;; i++) {
        int w;
        snprintf(name, sizeof(name), "small%d", i);
        if ((f = create(fs, name, S_IFREG, 0644, 0)) < 0)
            break;
        w = ready(f, R_WRITE);
        n = write(w, chunk, 4096);
        close(w);
        close(f);
    }
    f = walk(fs, "small", 0);
    EXPECT(write, ENOSPC, ramfs_at_an_eighth_free, write(fd, chunk, 4096));
    EXPECT(ftruncate, ENOSPC, ramfs_at_an_eighth_free, ftruncate(small, 1024 * 1024));
    EXPECT(create, ENOSPC, ramfs_at_an_eighth_free, create(b, "y", S_IFREG, 0644, 0));
    EXPECT(link, ENOSPC, ramfs_at_an_eighth_free, linkat(f, b, "y"));
    /* rename(2): ramfs moves a name without asking for room, the old
     * entry goes as the new one comes */
    n = renameat(a, "x", b, "y", 0);
    close(f);
    close(fd);
    close(small);
    close(a);
    close(b);
    close(fs);
    CHECK(n == 0, "a rename in a full ramfs failed");
    PASS();
}

/* ------------------------------------------------------------ setup */

static void setup(void)
{
    int fs, fd, i;

    for (i = 0; i < PATH_MAX; i++)
        longpath[i] = i % 2 ? '/' : 'a';
    longpath[PATH_MAX] = '\0';
    memset(longname, 'n', NAME_MAX + 1);
    if (unshare() < 0)
        printf("t_errno: unshare failed\n");
    mkdir(D, 0755);
    put_file(D "/file", "data");
    fd = pathfd(D "/file");
    fchmod(fd, 0644);
    close(fd);
    put_file(D "/script", "echo hello\n");
    fd = pathfd(D "/script");
    fchmod(fd, 0755);
    close(fd);
    put_file(D "/ro0400", "x");
    fd = pathfd(D "/ro0400");
    fchmod(fd, 0400);
    close(fd);
    symlink("loop", D "/loop");
    symlink("sub", D "/sublink");
    mkfifo(D "/fifo", 0755);
    mkdir(D "/sub", 0755);
    mkdir(D "/full", 0755);
    put_file(D "/full/f", "x");
    mkdir(D "/closed", 0700);
    mkdir(D "/closed/d", 0755);
    put_file(D "/closed/f", "x");
    mknod(D "/nodriver", S_IFCHR | 0644, MKDEV(99, 0));
    mkdir(D "/mnt", 0755);
    mkdir(D "/union", 0755);
    mkdir(D "/un16", 0755);
    mkdir(D "/self", 0755);
    mkdir(D "/nodev", 0755);
    mkdir(D "/noexec", 0755);
    put_file("/tmp/errno_sticky", "x"); /* root's, in sticky /tmp */
    /* a read-only ramfs at D/mnt with a file in it */
    fs = fsopen("ramfs", -1, NULL);
    close(create(fs, "rofile", S_IFREG, 0644, 0));
    bind(fs, AT_CWD, D "/mnt", BIND_RDONLY);
    close(fs);
    /* D/self bound read-only over itself */
    fd = pathfd(D "/self");
    bind(fd, AT_CWD, D "/self", BIND_RDONLY);
    close(fd);
    mkdir(D "/late", 0755);
    fs = fsopen("ramfs", -1, NULL);
    close(create(fs, "f", S_IFREG, 0644, 0));
    bind(fs, AT_CWD, D "/late", 0);
    close(fs);
    rwfd = readied(D "/late/f", R_WRITE);
    setattach(AT_CWD, D "/late", BIND_RDONLY);
    fd = pathfd("/dev");
    bind(fd, AT_CWD, D "/nodev", BIND_NODEV);
    close(fd);
    fd = pathfd("/bin");
    bind(fd, AT_CWD, D "/noexec", BIND_NOEXEC);
    close(fd);
    dir = pathfd(D);
    filefd = pathfd(D "/file");
    make_revoked();
}

int main(int argc, char *argv[])
{
    t_only = argc > 1 ? argv[1] : NULL;
    setup();
    process_calls();
    setpgid_other_session();
    if ((roots_zombie = fork()) == 0)
        _exit(0);
    sleep_ms(30);
    as_user(user_process_calls);
    waitpid(roots_zombie, NULL, 0);
    setsid_leader();
    descriptor_calls();
    fcntl_other_session();
    as_user(user_open_files_full);
    proc_file_of_a_gone_process();
    revoked_calls();
    revoked_directory();
    name_calls();
    as_user(user_name_calls);
    namespace_calls();
    namespace_full();
    libc_calls();
    mount_calls();
    open_caveats_hold();
    a_full_ramfs_refuses_all_but_rename();
    pivot_root_name_too_long();
    as_user(opendir_without_memory);
    printf("t_errno: done\n");
    return t_failures != 0;
}
