/* t_srv.c - file servers in user space (issue 15, part 3; doc/srv.md):
 * channels (chan(2)), a filesystem served by /bin/ramsrv, and a fake
 * server in a child process that speaks the protocol and breaks it on
 * purpose where a test says so. Every wait here is bounded: a test that
 * would hang the kernel fails by its deadline instead.
 *
 * `t_srv NAME` runs only the tests whose name contains NAME. */
#include <fcntl.h>
#include <orthos.h>
#include <signal.h>
#include <srv.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "t.h"
#include "uapi/proc.h"

/* ------------------------------------------------------------ helpers */

/* A filesystem served by /bin/ramsrv: its root fd; *pid is the server. */
static int serve_ram(int *pid)
{
    int fds[2], root;

    if (chan(fds) < 0)
        return -1;
    if ((*pid = fork()) == 0) {
        char *argv[] = { "ramsrv", NULL };
        dup2(fds[1], 0);
        fcntl(0, F_SETFD, FD_KEEP);
        execv("/bin/ramsrv", argv);
        _exit(127);
    }
    close(fds[1]);
    root = fsopen("srv", fds[0], NULL);
    close(fds[0]);
    return root;
}

/* What the fake server does wrong (or slowly), chosen before it forks. */
enum mischief {
    HONEST,
    WRONG_TAG,      /* Rwalk with a tag no request has */
    WRONG_TYPE,     /* Rstat for a Twalk */
    LONG_READ,      /* Rread with 8 bytes more than asked */
    BAD_SIZE,       /* a size field of 3 */
    LONG_NAME,      /* Rreaddir whose name runs past its message */
    DEVICE_NODE,    /* Rwalk says "f" is a character device */
    DIE_MID_REPLY,  /* half an Rread, then exit */
    SLOW_READ,      /* the first Tread gets its reply only after the next request */
};
static enum mischief mischief;

static void reply_stat(int fd, int type, int tag, uint32_t mode, uint32_t ino, uint32_t size)
{
    struct srv_stat st = { mode, ino, size, 0 };
    char body[SRV_STAT];

    srv_putstat(body, &st);
    srv_send(fd, type, tag, body, sizeof(body));
}

/* The fake server: a root directory holding one file "f" ("hello"). */
static void fake(int fd)
{
    char buf[SRV_MSIZE], out[SRV_MSIZE], *p;
    int slow_tag = -1, n;
    unsigned at;
    struct srv_msg m;

    while (srv_recv(fd, buf, &m) > 0) {
        if (slow_tag >= 0) {                /* the late reply first: to a dead request */
            srv_put4(out, 5);
            memcpy(out + 4, "late!", 5);
            srv_send(fd, Tread + 1, slow_tag, out, 9);
            slow_tag = -2;
        }
        switch (m.type) {
        case Tstat: reply_stat(fd, Tstat + 1, m.tag, S_IFDIR | 0755, 1, 0); break;
        case Twalk:
            if (strcmp(m.name, "f") != 0) {
                srv_error(fd, m.tag, ENOENT);
                break;
            }
            reply_stat(fd, mischief == WRONG_TYPE ? Tstat + 1 : Twalk + 1,
                       mischief == WRONG_TAG ? m.tag + 1 : m.tag,
                       mischief == DEVICE_NODE ? S_IFCHR | 0666 : S_IFREG | 0644, 2, 5);
            break;
        case Tread:
            if (mischief == SLOW_READ && slow_tag == -1) {
                slow_tag = m.tag;
                break;
            }
            n = m.off >= 5 ? 0 : 5 - m.off < m.count ? 5 - m.off : m.count;
            if (mischief == LONG_READ)
                n = m.count + 8;
            memset(out, 'x', sizeof(out));
            srv_put4(out, n);
            at = m.off < 5 ? m.off : 5;
            memcpy(out + 4, &"hello"[at], (unsigned)n < 5 - at ? (unsigned)n : 5 - at);
            if (mischief == BAD_SIZE) {
                write(fd, "\3\0\0\0\x69\0\0", 7);
            } else if (mischief == DIE_MID_REPLY) {
                char msg[32];
                srv_put4(msg, SRV_HDR + 4 + n);
                msg[4] = Tread + 1;
                srv_put2(msg + 5, m.tag);
                write(fd, msg, 9);
                _exit(0);
            } else {
                srv_send(fd, Tread + 1, m.tag, out, 4 + n);
            }
            break;
        case Treaddir:
            if (m.cookie > 0) {
                srv_send(fd, Treaddir + 1, m.tag, NULL, 0);
                break;
            }
            p = srv_put4(out, 1);
            p = srv_put4(p, 2);
            *p++ = DT_REG;
            p = srv_put2(p, mischief == LONG_NAME ? 200 : 1);
            *p++ = 'f';
            srv_send(fd, Treaddir + 1, m.tag, out, p - out);
            break;
        case Tclunk: srv_send(fd, Tclunk + 1, m.tag, NULL, 0); break;
        default: srv_error(fd, m.tag, EPERM);
        }
    }
    _exit(0);
}

/* A filesystem served by fake() with the mischief `how`: its root fd. */
static int serve_fake(enum mischief how, int *pid)
{
    int fds[2], root;

    mischief = how;
    if (chan(fds) < 0)
        return -1;
    fflush(stdout);
    if ((*pid = fork()) == 0) {
        close(fds[0]);
        fake(fds[1]);
    }
    close(fds[1]);
    root = fsopen("srv", fds[0], NULL);
    close(fds[0]);
    return root;
}

/* Ready name (under root) for reading: an fd, or -1. */
static int ready_at(int root, const char *name, int mode)
{
    int p = walk(root, name, 0), fd;

    if (p < 0)
        return -1;
    fd = ready(p, mode);
    close(p);
    return fd;
}

/* Did pid exit (within ms) with status 0? It is reaped either way. */
static int exits_cleanly(int pid, unsigned ms)
{
    int status = -1, done = wait_child_ms(pid, ms, &status);

    if (!done || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        printf("server %d: %s, status %x\n", pid, done ? "ended" : "still there", status);
    return done && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* ------------------------------------------------------------ 1. channels */

static void a_channel_carries_bytes_both_ways(void)
{
    int c[2];
    char buf[16] = "";

    CHECK(chan(c) == 0, "chan");
    CHECK(write(c[0], "ping", 4) == 4, "write end 0");
    CHECK(write(c[1], "pong!", 5) == 5, "write end 1");
    CHECK(read(c[1], buf, sizeof(buf)) == 4 && memcmp(buf, "ping", 4) == 0, "end 1 reads ping");
    CHECK(read(c[0], buf, sizeof(buf)) == 5 && memcmp(buf, "pong!", 5) == 0, "end 0 reads pong!");
    CHECK(fcntl(c[0], F_GETFD, 0) == 0 && fcntl(c[1], F_GETFD, 0) == 0,
          "closed on exec by default");
    CHECK(fcntl(c[0], F_GETFL, 0) == R_RDWR, "each end is readable and writable");
    close(c[0]);
    close(c[1]);
    PASS();
}

static void a_closed_peer_gives_eof_and_epipe(void)
{
    int c[2], *volatile bad;
    char buf[8];

    CHECK(chan(c) == 0, "chan");
    CHECK(write(c[0], "x", 1) == 1, "write");
    close(c[0]);
    CHECK(read(c[1], buf, sizeof(buf)) == 1, "what was queued is still read");
    CHECK(read(c[1], buf, sizeof(buf)) == 0, "then end of file");
    CHECK_ERR(write(c[1], "y", 1), EPIPE);
    close(c[1]);
    bad = (int *)0x10;
    CHECK_ERR(chan(bad), EFAULT);
    PASS();
}

static int read_a_silent_channel(void)
{
    int c[2];
    char b;

    if (chan(c) < 0)
        return 1;
    read(c[0], &b, 1);                  /* nobody writes: only a kill ends this */
    return 2;
}

static void a_blocked_channel_read_is_ended_by_kill(void)
{
    int pid, status;

    fflush(stdout);
    if ((pid = fork()) == 0)
        _exit(read_a_silent_channel());
    sleep_ms(200);
    CHECK(kill(pid, SIGKILL) == 0, "kill");
    CHECK(wait_child_ms(pid, 2000, &status), "the reader did not die");
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %#x", status);
    PASS();
}

#define CHAN_BYTES 8192                 /* a channel's ring, each way (chan(2)) */

/* The child's half of the test below: 0, or the step that failed. */
static int nonblocking_channel_steps(void)
{
    static char big[CHAN_BYTES + 100];
    int c[2], n, total = 0;
    char b;

    if (chan(c) < 0 || fcntl(c[0], F_SETFL, R_NONBLOCK) < 0)
        return 1;
    if (read(c[0], &b, 1) != -1 || errno != EAGAIN)
        return 2;                       /* nothing queued: no waiting */
    while ((n = write(c[0], big, 1000)) > 0)
        total += n;
    if (n != -1 || errno != EAGAIN || total != 8000)
        return 3;                       /* 1000 at a time: all or nothing, as a pipe's */
    if (write(c[0], big, sizeof(big)) != 192 || write(c[0], "x", 1) != -1 || errno != EAGAIN)
        return 4;                       /* longer than the ring: what fits */
    if (read(c[1], big, sizeof(big)) != CHAN_BYTES || write(c[0], big, sizeof(big)) != CHAN_BYTES)
        return 5;                       /* emptied: the long write fills it again */
    if (fcntl(c[1], F_SETFL, R_NONBLOCK) < 0 || read(c[1], big, sizeof(big)) != CHAN_BYTES ||
        read(c[1], &b, 1) != -1 || errno != EAGAIN)
        return 6;
    close(c[0]);
    return read(c[1], &b, 1) == 0 ? 0 : 7; /* the peer gone: end of file, not EAGAIN */
}

/* R_NONBLOCK on a channel end: EAGAIN where a read or write would wait,
 * as on a pipe. The channel ignored it, and the child hung. */
static void a_nonblocking_channel_end_gives_eagain_instead_of_waiting(void)
{
    int pid, status;

    fflush(stdout);
    CHECK((pid = fork()) >= 0, "fork");
    if (pid == 0)
        _exit(nonblocking_channel_steps());
    CHECK(wait_child_ms(pid, 3000, &status), "the child waited (killed after 3 s)");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "step %d failed", WEXITSTATUS(status));
    PASS();
}

static void fsopen_srv_takes_only_a_channel_end(void)
{
    int c[2], pid, root, f = ready_at(AT_CWD, "/bin/ls", R_READ);
    char b;

    CHECK(f >= 0, "ready /bin/ls");
    CHECK_ERR(fsopen("srv", f, NULL), ENOTBLK);
    CHECK_ERR(fsopen("srv", -1, NULL), EBADF);
    close(f);
    CHECK(chan(c) == 0, "chan");
    CHECK_ERR(fsopen("ext2", c[0], NULL), ENOTBLK);
    close(c[0]);
    close(c[1]);
    CHECK((root = serve_fake(HONEST, &pid)) >= 0, "fsopen srv");
    CHECK(chan(c) == 0, "chan");
    CHECK(write(c[1], "z", 1) == 1, "write");
    close(root);
    CHECK(exits_cleanly(pid, 2000), "the server reads end of file once the fs is gone");
    /* an end taken by the kernel is the kernel's: no reading its messages */
    CHECK((pid = fork()) >= 0, "fork");
    if (pid == 0) {
        close(c[0]);
        fake(c[1]);
    }
    CHECK((root = fsopen("srv", c[0], NULL)) >= 0, "fsopen srv");
    CHECK_ERR(read(c[0], &b, 1), EBUSY);
    CHECK_ERR(fsopen("srv", c[0], NULL), EBUSY);
    close(c[0]);
    close(c[1]);
    close(root);
    CHECK(exits_cleanly(pid, 2000), "the server ends");
    PASS();
}

/* ------------------------------------------------------------ 2. a served filesystem */

static void a_served_file_reads_back_what_was_written(void)
{
    static char big[10000], back[10000];
    int pid, root, fd, i;

    CHECK((root = serve_ram(&pid)) >= 0, "fsopen srv on ramsrv");
    for (i = 0; i < (int)sizeof(big); i++)
        big[i] = (char)(i * 7 + i / 300);
    CHECK((fd = openat(root, "f", O_CREAT | O_RDWR, 0644)) >= 0, "create f");
    CHECK(write(fd, big, sizeof(big)) == sizeof(big), "write 10000 bytes (three messages)");
    CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek");
    CHECK(read_full(fd, back, sizeof(back)) == sizeof(back), "read back");
    CHECK(memcmp(big, back, sizeof(big)) == 0, "the same bytes");
    CHECK(ftruncate(fd, 3) == 0, "ftruncate");
    close(fd);
    CHECK((fd = ready_at(root, "f", R_READ)) >= 0, "f again");
    CHECK(read(fd, back, sizeof(back)) == 3 && memcmp(back, big, 3) == 0, "3 bytes left");
    close(fd);
    close(root);
    CHECK(exits_cleanly(pid, 2000), "ramsrv exits when its filesystem goes");
    PASS();
}

static int served_root;                 /* for the child below */

/* A child that is not the server's owner makes a file in the served root
 * (ramsrv's is 0777): 0 if refused with EPERM and no name was left. */
static int a_stranger_makes_a_file(void)
{
    if (setgid(1000) < 0 || setuid(1000) < 0)
        return 1;
    if (create(served_root, "theirs", S_IFREG, 0644, 0) != -1 || errno != EPERM)
        return 2;
    return walk(served_root, "theirs", 0) < 0 && errno == ENOENT ? 0 : 3;
}

/* The protocol cannot store a mode, owner or group (doc/srv.md): every
 * served node is the fsopen caller's, with the bits the server reports.
 * fchmod and fchown said 0 and changed only the kernel's vnode, and the
 * change was gone once the vnode was (the next walk asked the server). */
static void chmod_and_chown_of_a_served_file_are_refused(void)
{
    struct stat st;
    int pid, root, fd, status;

    CHECK((root = serve_ram(&pid)) >= 0, "fsopen srv on ramsrv");
    CHECK(fchmod(root, 0777) == -1 && errno == EPERM, "fchmod of the root");
    CHECK((fd = openat(root, "f", O_CREAT | O_RDWR, 0640)) >= 0, "create f");
    CHECK(fchmod(fd, 0600) == -1 && errno == EPERM, "fchmod: not stored, so refused");
    CHECK(fchown(fd, 1000, 1000) == -1 && errno == EPERM, "fchown");
    CHECK(fstat(fd, &st) == 0 && (st.st_mode & 07777) == 0640 && st.st_uid == 0,
          "unchanged: %o uid %d", st.st_mode, st.st_uid);
    close(fd);
    CHECK((fd = walk(root, "f", 0)) >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 07777) == 0640,
          "the server's mode: %o", st.st_mode);
    close(fd);
    served_root = root;
    CHECK((status = in_child(a_stranger_makes_a_file)) == 0, "a stranger's create: step %d",
          status);
    close(root);
    CHECK(exits_cleanly(pid, 2000), "ramsrv exits");
    PASS();
}

/* create() for a test that only wants the name: 0, or -1. */
static int make(int dir, const char *name, int type)
{
    int fd = create(dir, name, type, 0755, 0);

    if (fd >= 0)
        close(fd);
    return fd < 0 ? -1 : 0;
}

static void a_served_directory_lists_created_names(void)
{
    int pid, root, fd, n, i, seen = 0;
    char buf[512];

    CHECK((root = serve_ram(&pid)) >= 0, "fsopen srv on ramsrv");
    CHECK(make(root, "a", S_IFREG) == 0, "create a");
    CHECK(make(root, "bb", S_IFREG) == 0, "create bb");
    CHECK(make(root, "dir", S_IFDIR) == 0, "create dir");
    CHECK(make(root, "dir/inner", S_IFREG) == 0, "create dir/inner");
    CHECK_ERR(create(root, "a", S_IFREG, 0644, 0), EEXIST);
    CHECK_ERR(create(root, "fifo", S_IFIFO, 0644, 0), EPERM);
    CHECK(unlinkat(root, "bb", 0) == 0, "unlink bb");
    CHECK(make(root, "c", S_IFREG) == 0, "create c");
    CHECK((fd = ready_at(root, ".", R_READ)) >= 0, "ready the root");
    while ((n = getdents(fd, buf, sizeof(buf))) > 0) {
        for (i = 0; i < n;) {
            struct dirent *d = (struct dirent *)(buf + i);
            seen |= strcmp(d->d_name, "a") == 0                            ? 1
                    : strcmp(d->d_name, "c") == 0                          ? 2
                    : strcmp(d->d_name, "dir") == 0 && d->d_type == DT_DIR ? 4
                                                                           : 8;
            i += d->d_reclen;
        }
    }
    CHECK(n == 0, "getdents ends");
    CHECK(seen == 7, "listed a, c and dir only (seen %#x)", seen);
    CHECK_ERR(unlinkat(root, "dir", UNLINK_DIR), ENOTEMPTY);
    close(fd);
    close(root);
    CHECK(exits_cleanly(pid, 2000), "ramsrv exits");
    PASS();
}

static void the_servers_death_gives_eio_not_a_hang(void)
{
    int pid, root, fd;
    unsigned t0;
    char b[8];

    CHECK((root = serve_ram(&pid)) >= 0, "fsopen srv on ramsrv");
    CHECK((fd = openat(root, "f", O_CREAT | O_RDWR, 0644)) >= 0, "create f");
    CHECK(kill(pid, SIGKILL) == 0 && waitpid(pid, NULL, 0) == pid, "the server is killed");
    t0 = uptime_ms();
    CHECK_ERR(read(fd, b, sizeof(b)), EIO);
    CHECK_ERR(write(fd, "x", 1), EIO);
    CHECK_ERR(walk(root, "g", 0), EIO);
    CHECK_ERR(create(root, "g", S_IFREG, 0644, 0), EIO);
    CHECK(uptime_ms() - t0 < 1000, "the errors took %u ms", uptime_ms() - t0);
    close(fd);
    close(root);
    PASS();
}

/* ------------------------------------------------------------ 3. hostile replies */

/* One mischief (step numbers: what failed; 100: hung, killed): walk to "f" (and read it, and list
 * the root) must give EIO, and the connection is dead for later calls too; the server reads end of
 * file and exits. */
static int hostile(enum mischief how, int walk_fails)
{
    char b[32], canary[64];
    int pid, root, fd, got;

    memset(canary, 'C', sizeof(canary));
    if ((root = serve_fake(how, &pid)) < 0)
        return 1;
    if (walk_fails) {
        if (walk(root, "f", 0) != -1 || errno != EIO)
            return 2;
    } else if (how == LONG_NAME) {
        if ((fd = ready_at(root, ".", R_READ)) < 0 || getdents(fd, b, sizeof(b)) != -1 ||
            errno != EIO)
            return 3;
        close(fd);
    } else {
        if ((fd = ready_at(root, "f", R_READ)) < 0)
            return 4;
        got = read(fd, canary + 8, 16);
        if (got != -1 || errno != EIO)
            return 5;
        if (memcmp(canary + 8 + 16, "CCCCCCCC", 8) != 0)
            return 6;                   /* a byte beyond what was asked was written */
        close(fd);
    }
    if (walk(root, "f", 0) != -1 || errno != EIO)
        return 7;                       /* still alive after a protocol error */
    close(root);
    return exits_cleanly(pid, 2000) ? 0 : 8;
}

/* hostile(how) in a child, within a deadline: a kernel that waits for
 * ever on a broken reply fails the test instead of hanging the suite. */
static enum mischief child_how;
static int child_walk_fails;

static int hostile_child(void)
{
    return hostile(child_how, child_walk_fails);
}

static int bounded_hostile(enum mischief how, int walk_fails)
{
    int pid, status;

    child_how = how;
    child_walk_fails = walk_fails;
    fflush(stdout);
    if ((pid = fork()) == 0)
        _exit(hostile_child());
    if (!wait_child_ms(pid, 5000, &status))
        return 100;                     /* hung: killed */
    return WIFEXITED(status) ? WEXITSTATUS(status) : 200;
}

static void a_server_dying_mid_reply_gives_eio(void)
{
    int r = bounded_hostile(DIE_MID_REPLY, 0);
    CHECK(r == 0, "step %d", r);
    PASS();
}

static void a_reply_with_a_wrong_tag_gives_eio(void)
{
    int r = bounded_hostile(WRONG_TAG, 1);
    CHECK(r == 0, "step %d", r);
    PASS();
}

static void a_reply_of_the_wrong_type_gives_eio(void)
{
    int r = bounded_hostile(WRONG_TYPE, 1);
    CHECK(r == 0, "step %d", r);
    PASS();
}

static void a_reply_longer_than_asked_gives_eio(void)
{
    int r = bounded_hostile(LONG_READ, 0);
    CHECK(r == 0, "step %d", r);
    PASS();
}

static void a_reply_with_a_bad_size_gives_eio(void)
{
    int r = bounded_hostile(BAD_SIZE, 0);
    CHECK(r == 0, "step %d", r);
    PASS();
}

static void a_name_running_past_its_message_gives_eio(void)
{
    int r = bounded_hostile(LONG_NAME, 0);
    CHECK(r == 0, "step %d", r);
    PASS();
}

static void a_served_device_node_is_refused_with_eio(void)
{
    int r = bounded_hostile(DEVICE_NODE, 1);
    CHECK(r == 0, "step %d", r);
    PASS();
}

static void an_error_reply_gives_the_servers_errno(void)
{
    int pid, root;

    CHECK((root = serve_fake(HONEST, &pid)) >= 0, "fsopen srv");
    CHECK_ERR(walk(root, "nosuch", 0), ENOENT);
    CHECK_ERR(create(root, "g", S_IFREG, 0644, 0), EPERM);
    CHECK(make(root, "f", S_IFREG) == -1 && errno == EPERM, "the connection lives on");
    close(root);
    CHECK(exits_cleanly(pid, 2000), "the server exits");
    PASS();
}

/* ------------------------------------------------------------ 4. waiting */

static int read_f_of(int root)
{
    int fd = ready_at(root, "f", R_READ);
    char b[8];

    if (fd < 0)
        return 1;
    read(fd, b, sizeof(b));             /* the server holds the reply back */
    return 2;
}

/* A client waiting for a slow server is killed; the late reply to its
 * request is dropped, and the connection goes on serving. */
static void a_slow_server_wait_is_ended_by_kill(void)
{
    int pid, root, client, status, fd;
    char b[8] = "";

    CHECK((root = serve_fake(SLOW_READ, &pid)) >= 0, "fsopen srv");
    fflush(stdout);
    if ((client = fork()) == 0)
        _exit(read_f_of(root));
    sleep_ms(300);
    CHECK(waitpid(client, &status, WNOHANG) == 0, "the client waits");
    CHECK(kill(client, SIGKILL) == 0, "kill");
    CHECK(wait_child_ms(client, 2000, &status), "the waiting client did not die");
    CHECK(WIFSIGNALED(status), "killed, status %#x", status);
    CHECK((fd = ready_at(root, "f", R_READ)) >= 0, "ready f: the late reply was dropped");
    CHECK(read(fd, b, sizeof(b)) == 5 && memcmp(b, "hello", 5) == 0, "read gave '%s'", b);
    close(fd);
    close(root);
    CHECK(exits_cleanly(pid, 2000), "the server exits");
    PASS();
}

static void revoke_of_a_served_fs_ends_access(void)
{
    int pid, root, fd, dir;
    char b[8], ns[2048];

    CHECK((root = serve_ram(&pid)) >= 0, "fsopen srv on ramsrv");
    CHECK((fd = openat(root, "f", O_CREAT | O_RDWR, 0644)) >= 0, "create f");
    CHECK(write(fd, "abc", 3) == 3, "write");
    CHECK(mkdir("/tmp/srvrev", 0755) == 0 || errno == EEXIST, "mkdir");
    CHECK(bind(root, AT_CWD, "/tmp/srvrev", 0) == 0, "bind");
    CHECK(slurp("/proc/self/ns", ns, sizeof(ns)) > 0 && strstr(ns, "\n/tmp/srvrev srv chan\n"),
          "/proc/self/ns names the source by its kind:\n%s", ns);
    CHECK((dir = walk(AT_CWD, "/tmp/srvrev", 0)) >= 0, "walk");
    CHECK(revoke(dir) == 0, "revoke");
    CHECK_ERR(read(fd, b, sizeof(b)), EIO);
    CHECK_ERR(walk(root, "f", 0), EIO);
    CHECK_ERR(walk(AT_CWD, "/tmp/srvrev/f", 0), ENOENT);     /* detached */
    close(fd);
    close(dir);
    close(root);
    CHECK(exits_cleanly(pid, 2000), "the server reads end of file and exits");
    rmdir("/tmp/srvrev");
    PASS();
}

/* A server that answers the mount and two walks, then reads no more: two
 * 4 KiB writes fill its channel, so the second waits for room to send. */
static void deaf_serve(int fd)
{
    char buf[SRV_MSIZE];
    int walks = 0;
    struct srv_msg m;

    while (walks < 2 && srv_recv(fd, buf, &m) > 0) {
        if (m.type == Tstat)
            reply_stat(fd, Tstat + 1, m.tag, S_IFDIR | 0755, 1, 0);
        else if (m.type == Twalk && ++walks)
            reply_stat(fd, Twalk + 1, m.tag, S_IFREG | 0666, 2 + walks, 0);
        else
            srv_error(fd, m.tag, EPERM);
    }
    sleep_ms(20000);                    /* deaf, not dead: its end stays open */
    _exit(0);
}

static int write_4k(int fd)
{
    static char block[4096];

    return write(fd, block, sizeof(block)) == -1 && errno == EIO ? 0 : 2;
}

static void revoke_ends_waits_for_a_reply_and_for_room(void)
{
    int fds[2], server, a, b, root, sa, sb, fa, fb;

    CHECK(chan(fds) == 0, "chan");
    fflush(stdout);
    if ((server = fork()) == 0) {
        close(fds[0]);
        deaf_serve(fds[1]);
    }
    close(fds[1]);
    CHECK((root = fsopen("srv", fds[0], NULL)) >= 0, "fsopen srv");
    /* fds[0] stays open: revoke must end the waits even while the kernel's
     * end of the channel lives on (its fd can no longer read or write) */
    CHECK((fa = ready_at(root, "f", R_WRITE)) >= 0 && (fb = ready_at(root, "g", R_WRITE)) >= 0,
          "ready f and g");
    if ((a = fork()) == 0)
        _exit(write_4k(fa));
    sleep_ms(200);
    if ((b = fork()) == 0)
        _exit(write_4k(fb));
    sleep_ms(300);
    CHECK(waitpid(a, &sa, WNOHANG) == 0 && waitpid(b, &sb, WNOHANG) == 0, "both wait");
    CHECK(revoke(root) == 0, "revoke");
    CHECK(wait_child_ms(a, 1000, &sa) && wait_child_ms(b, 1000, &sb), "a client waits on");
    CHECK(WIFEXITED(sa) && WEXITSTATUS(sa) == 0, "the one waiting for a reply: %x", sa);
    CHECK(WIFEXITED(sb) && WEXITSTATUS(sb) == 0, "the one waiting for room: %x", sb);
    close(fa);
    close(fb);
    close(root);
    close(fds[0]);
    kill(server, SIGKILL);
    CHECK(waitpid(server, NULL, 0) == server, "the deaf server is gone");
    PASS();
}

/* Two clients' reads outstanding at once: the server takes both requests
 * before answering either, and answers the second first. */
static void two_serve(int fd)
{
    char buf[SRV_MSIZE], out[16];
    int tags[2], fids[2], n = 0, i;
    uint32_t names[16] = { 0 };         /* fid -> 1 or 2 */
    struct srv_msg m;

    while (srv_recv(fd, buf, &m) > 0) {
        switch (m.type) {
        case Tstat: reply_stat(fd, Tstat + 1, m.tag, S_IFDIR | 0755, 1, 0); break;
        case Twalk:
            if ((strcmp(m.name, "one") && strcmp(m.name, "two")) || m.newfid >= 16) {
                srv_error(fd, m.tag, ENOENT);
                break;
            }
            names[m.newfid] = m.name[1] == 'n' ? 1 : 2;
            reply_stat(fd, Twalk + 1, m.tag, S_IFREG | 0644, 1 + names[m.newfid], 3);
            break;
        case Tread:
            if (m.off > 0) {
                srv_put4(out, 0);
                srv_send(fd, Tread + 1, m.tag, out, 4);
                break;
            }
            tags[n] = m.tag;
            fids[n++] = m.fid;
            if (n < 2)
                break;
            if (tags[0] == tags[1])
                _exit(3);               /* two outstanding requests must differ */
            for (i = 1; i >= 0; i--) {
                srv_put4(out, 3);
                memcpy(out + 4, fids[i] < 16 && names[fids[i]] == 1 ? "111" : "222", 3);
                srv_send(fd, Tread + 1, tags[i], out, 7);
            }
            n = 0;
            break;
        case Tclunk: srv_send(fd, Tclunk + 1, m.tag, NULL, 0); break;
        default: srv_error(fd, m.tag, EPERM);
        }
    }
    _exit(0);
}

static int read_name(int root, const char *name, const char *want)
{
    int fd = ready_at(root, name, R_READ);
    char b[8] = "";

    if (fd < 0)
        return 1;
    return read(fd, b, sizeof(b)) == 3 && memcmp(b, want, 3) == 0 ? 0 : 2;
}

static void two_clients_have_requests_outstanding_at_once(void)
{
    int fds[2], pid, root, a, b, sa, sb;

    CHECK(chan(fds) == 0, "chan");
    fflush(stdout);
    if ((pid = fork()) == 0) {
        close(fds[0]);
        two_serve(fds[1]);
    }
    close(fds[1]);
    CHECK((root = fsopen("srv", fds[0], NULL)) >= 0, "fsopen srv");
    close(fds[0]);
    if ((a = fork()) == 0)
        _exit(read_name(root, "one", "111"));
    if ((b = fork()) == 0)
        _exit(read_name(root, "two", "222"));
    CHECK(wait_child_ms(a, 3000, &sa) && wait_child_ms(b, 3000, &sb), "a client hangs");
    CHECK(WIFEXITED(sa) && WEXITSTATUS(sa) == 0, "client one: status %#x", sa);
    CHECK(WIFEXITED(sb) && WEXITSTATUS(sb) == 0, "client two: status %#x", sb);
    close(root);
    CHECK(exits_cleanly(pid, 2000), "the server saw two tags and exits");
    PASS();
}

/* A server that calls into its own filesystem while it handles a request
 * waits for itself: the kernel cannot answer for it. Killing the server
 * ends that, and its client gets EIO (doc/srv.md). */
static int self_pipe[2];

static void self_serve(int fd)
{
    char buf[SRV_MSIZE];
    struct srv_msg m;
    int root;

    while (srv_recv(fd, buf, &m) > 0) {
        if (m.type == Tstat)
            reply_stat(fd, Tstat + 1, m.tag, S_IFDIR | 0755, 1, 0);
        else if (m.type == Twalk && strcmp(m.name, "self") == 0 &&
                 read(self_pipe[0], &root, sizeof(root)) == sizeof(root))
            walk(root, "other", 0);     /* a request to itself: never answered */
        else
            srv_error(fd, m.tag, ENOENT);
    }
    _exit(0);
}

static int walk_self(int root)
{
    return walk(root, "self", 0) == -1 && errno == EIO ? 0 : 1;
}

static void a_server_calling_its_own_filesystem_is_ended_by_kill(void)
{
    int fds[2], server, client, root, status;

    CHECK(pipe(self_pipe) == 0 && chan(fds) == 0, "pipe, chan");
    fflush(stdout);
    if ((server = rfork(RFORK_SHAREFDS)) == 0)
        self_serve(fds[1]);             /* sees the fds made after this: one table */
    CHECK((root = fsopen("srv", fds[0], NULL)) >= 0, "fsopen srv");
    CHECK(write(self_pipe[1], &root, sizeof(root)) == sizeof(root), "tell the server");
    if ((client = fork()) == 0) {
        close(fds[1]);                  /* the server's end is the server's alone */
        _exit(walk_self(root));
    }
    sleep_ms(300);
    CHECK(waitpid(client, &status, WNOHANG) == 0, "the client waits for the stuck server");
    CHECK(kill(server, SIGKILL) == 0, "kill the server");
    CHECK(wait_child_ms(server, 2000, &status), "the server, waiting for itself, did not die");
    close(fds[1]);                      /* its end: in the table it shared with us */
    CHECK(wait_child_ms(client, 2000, &status), "the client still waits");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the client got %#x, not EIO", status);
    close(root);
    close(fds[0]);
    close(self_pipe[0]);
    close(self_pipe[1]);
    PASS();
}

/* ------------------------------------------------------------ 6. served files as sources */

/* A server of one file, "img", holding /etc/fuzz.ext2 (an ext2 image):
 * honest until /tmp/srv_deaf exists, then deaf (its end stays open). */
static void img_serve(int fd)
{
    static char img[128 * 1024], buf[SRV_MSIZE], out[SRV_MSIZE];
    int in = open("/etc/fuzz.ext2", O_RDONLY), n, len = 0;
    struct srv_msg m;

    while (in >= 0 && (n = read(in, img + len, sizeof(img) - len)) > 0)
        len += n;
    while (srv_recv(fd, buf, &m) > 0) {
        if (walk(AT_CWD, "/tmp/srv_deaf", 0) >= 0) {
            sleep_ms(20000);
            break;
        }
        switch (m.type) {
        case Tstat: reply_stat(fd, Tstat + 1, m.tag, S_IFDIR | 0755, 1, 0); break;
        case Twalk:
            if (strcmp(m.name, "img") == 0)
                reply_stat(fd, Twalk + 1, m.tag, S_IFREG | 0666, 2, len);
            else
                srv_error(fd, m.tag, ENOENT);
            break;
        case Tread:
            n = m.off >= (unsigned)len ? 0 : len - m.off < m.count ? len - m.off : m.count;
            srv_put4(out, n);
            memcpy(out + 4, img + m.off, n);
            srv_send(fd, Tread + 1, m.tag, out, 4 + n);
            break;
        case Twrite:
            n = m.off >= (unsigned)len ? 0 : len - m.off < m.count ? len - m.off : m.count;
            memcpy(img + m.off, m.data, n);
            srv_put4(out, n);
            srv_send(fd, Twrite + 1, m.tag, out, 4);
            break;
        case Tclunk: srv_send(fd, Tclunk + 1, m.tag, NULL, 0); break;
        default: srv_error(fd, m.tag, EPERM);
        }
    }
    _exit(0);
}

/* With an ext2 made of a served file whose server has gone deaf, a client
 * inside the ext2 waits for the server while it holds the instance (a
 * killable wait); a sync(2) by anyone else - root's, the one poweroff
 * makes - waits for that client, and no kill ends its wait. So a served
 * file is no filesystem's source (ENOTBLK). On a kernel that takes it,
 * the test shows the wait: a mkdir waits for the deaf server, and a
 * sync in another process must die of a kill within a second. */
static void a_served_file_is_no_filesystems_source_so_sync_never_waits_on_a_server(void)
{
    int fds[2], server, root, img, e2, err, a, b, st, sync_killable = -1;

    unlinkat(AT_CWD, "/tmp/srv_deaf", 0);
    CHECK(chan(fds) == 0, "chan");
    fflush(stdout);
    if ((server = fork()) == 0) {
        close(fds[0]);
        img_serve(fds[1]);
    }
    close(fds[1]);
    CHECK((root = fsopen("srv", fds[0], NULL)) >= 0, "fsopen srv");
    close(fds[0]);
    CHECK((img = ready_at(root, "img", R_RDWR)) >= 0, "ready img");
    e2 = fsopen("ext2", img, "");
    err = errno;
    if (e2 >= 0) {
        CHECK(put_file("/tmp/srv_deaf", "") == 0, "deafen the server");
        if ((a = fork()) == 0)
            _exit(create(e2, "new", S_IFDIR, 0755, 0) < 0 ? 1 : 0);
        sleep_ms(200);
        if ((b = fork()) == 0) {
            sync();
            _exit(0);
        }
        sleep_ms(300);
        kill(b, SIGKILL);
        sync_killable = wait_child_ms(b, 1000, &st);
        kill(a, SIGKILL);               /* the client lets go: the sync ends */
        waitpid(a, NULL, 0);
        if (!sync_killable)
            waitpid(b, NULL, 0);
        close(e2);
    }
    revoke(root);
    kill(server, SIGKILL);
    waitpid(server, NULL, 0);
    unlinkat(AT_CWD, "/tmp/srv_deaf", 0);
    close(img);
    close(root);
    CHECK(e2 < 0 && err == ENOTBLK, "fsopen ext2 on a served file: %d; a sync %s", e2,
          sync_killable < 0 ? "-"
          : sync_killable   ? "was killable"
                            : "ignored a kill");
    PASS();
}

/* /bin/mirrorsrv DIR serves what is in DIR, with the server's authority:
 * a symlink in DIR must not make it serve something outside DIR (here
 * /etc/passwd, and /etc through a directory link; or .. of DIR). */
static void mirrorsrv_serves_nothing_outside_its_directory(void)
{
    int fds[2], pid, root, p, d;
    char buf[64];

    CHECK(mkdir("/tmp/mir", 0755) == 0 && mkdir("/tmp/mir/d", 0755) == 0 &&
              put_file("/tmp/mir/d/in", "inside") == 0 &&
              symlink("/etc/passwd", "/tmp/mir/pw") == 0 && symlink("/etc", "/tmp/mir/etc") == 0 &&
              symlink("../../etc/passwd", "/tmp/mir/d/up") == 0 &&
              symlink("d/in", "/tmp/mir/rel") == 0,
          "setup: %s", strerror(errno));
    CHECK(chan(fds) == 0, "chan");
    fflush(stdout);
    if ((pid = fork()) == 0) {
        char *argv[] = { "mirrorsrv", "/tmp/mir", NULL };
        dup2(fds[1], 0);
        fcntl(0, F_SETFD, FD_KEEP);
        execv("/bin/mirrorsrv", argv);
        _exit(127);
    }
    close(fds[1]);
    CHECK((root = fsopen("srv", fds[0], NULL)) >= 0, "fsopen srv");
    close(fds[0]);
    CHECK((p = ready_at(root, "d/in", R_READ)) >= 0 && read(p, buf, sizeof(buf)) == 6,
          "d/in is served");
    close(p);
    CHECK((p = ready_at(root, "rel", R_READ)) >= 0, "a link inside DIR is followed");
    close(p);
    CHECK_ERR(walk(root, "pw", 0), EXDEV);
    CHECK_ERR(walk(root, "etc", 0), EXDEV);
    CHECK_ERR(walk(root, "d/up", 0), EXDEV);
    CHECK((d = walk(root, "d", 0)) >= 0 && (p = walk(d, "../..", 0)) >= 0, "walk d/../..");
    CHECK_ERR(walk(p, "passwd", 0), ENOENT);    /* .. of DIR is DIR, not /etc's parent */
    close(p);
    close(d);
    close(root);
    CHECK(exits_cleanly(pid, 2000), "mirrorsrv ends");
    PASS();
}

int main(int argc, char *argv[])
{
    t_only = argc > 1 ? argv[1] : NULL;
    T_RUN(a_channel_carries_bytes_both_ways);
    T_RUN(a_closed_peer_gives_eof_and_epipe);
    T_RUN(a_blocked_channel_read_is_ended_by_kill);
    T_RUN(a_nonblocking_channel_end_gives_eagain_instead_of_waiting);
    T_RUN(fsopen_srv_takes_only_a_channel_end);
    T_RUN(a_served_file_reads_back_what_was_written);
    T_RUN(a_served_directory_lists_created_names);
    T_RUN(chmod_and_chown_of_a_served_file_are_refused);
    T_RUN(the_servers_death_gives_eio_not_a_hang);
    T_RUN(a_server_dying_mid_reply_gives_eio);
    T_RUN(a_reply_with_a_wrong_tag_gives_eio);
    T_RUN(a_reply_of_the_wrong_type_gives_eio);
    T_RUN(a_reply_longer_than_asked_gives_eio);
    T_RUN(a_reply_with_a_bad_size_gives_eio);
    T_RUN(a_name_running_past_its_message_gives_eio);
    T_RUN(a_served_device_node_is_refused_with_eio);
    T_RUN(an_error_reply_gives_the_servers_errno);
    T_RUN(a_slow_server_wait_is_ended_by_kill);
    T_RUN(revoke_of_a_served_fs_ends_access);
    T_RUN(revoke_ends_waits_for_a_reply_and_for_room);
    T_RUN(two_clients_have_requests_outstanding_at_once);
    T_RUN(a_server_calling_its_own_filesystem_is_ended_by_kill);
    T_RUN(a_served_file_is_no_filesystems_source_so_sync_never_waits_on_a_server);
    T_RUN(mirrorsrv_serves_nothing_outside_its_directory);
    printf("t_srv: done\n");
    return t_failures != 0;
}
