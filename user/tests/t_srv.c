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
    int end = ramsrv_start(pid), root;

    if (end < 0)
        return -1;
    root = fsopen("srv", end, NULL);
    close(end);
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

/* fn in a child, within ms: its exit code, 100 if it had to be killed,
 * 200 if something else killed it. */
static int bounded_child(int (*fn)(void), unsigned ms)
{
    int pid, status;

    fflush(stdout);
    if ((pid = fork()) == 0)
        _exit(fn());
    if (!wait_child_ms(pid, ms, &status))
        return 100;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 200;
}

static int other_end;

static int fsopen_other_end(void)
{
    return fsopen("srv", other_end, NULL) == -1 && errno == EBUSY ? 0 : 1;
}

/* A write longer than the ring goes in as the reader drains it: each
 * read that makes room wakes the writer. */
static int long_write_through_a_channel(void)
{
    static char big[3 * CHAN_BYTES], back[3 * CHAN_BYTES];
    int c[2], pid, i, got = 0, n;

    if (chan(c) < 0)
        return 1;
    for (i = 0; i < (int)sizeof(big); i++)
        big[i] = (char)(i * 13 + i / 251);
    if ((pid = fork()) == 0)
        _exit(write(c[0], big, sizeof(big)) == sizeof(big) ? 0 : 1);
    close(c[0]);
    while (got < (int)sizeof(back) && (n = read(c[1], back + got, sizeof(back) - got)) > 0)
        got += n;
    if (got != (int)sizeof(back) || memcmp(big, back, sizeof(big)) != 0)
        return 2;
    return waitpid(pid, &n, 0) == pid && n == 0 ? 0 : 3;
}

static void a_write_longer_than_the_ring_goes_through_as_it_is_read(void)
{
    int r = bounded_child(long_write_through_a_channel, 5000);
    CHECK(r == 0, "step %d (100: hung)", r);
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
    CHECK_ERR(write(c[0], "x", 1), EBUSY);      /* nor forging them */
    CHECK_ERR(fsopen("srv", c[0], NULL), EBUSY);
    other_end = c[1];                   /* the server's end: one kernel user per channel */
    CHECK(bounded_child(fsopen_other_end, 2000) == 0, "fsopen of the other end");
    close(c[0]);
    close(c[1]);
    close(root);
    CHECK(exits_cleanly(pid, 2000), "the server ends");
    CHECK(chan(c) == 0, "chan");
    close(c[1]);
    CHECK_ERR(fsopen("srv", c[0], NULL), EPIPE);  /* nobody at the other end */
    close(c[0]);
    PASS();
}

/* ------------------------------------------------------------ 2. a served filesystem */

static void a_served_file_reads_back_what_was_written(void)
{
    static char big[10000], back[10000];
    struct stat st;
    int pid, root, fd, i;

    CHECK((root = serve_ram(&pid)) >= 0, "fsopen srv on ramsrv");
    for (i = 0; i < (int)sizeof(big); i++)
        big[i] = (char)(i * 7 + i / 300);
    CHECK((fd = openat(root, "f", O_CREAT | O_RDWR, 0644)) >= 0, "create f");
    CHECK(write(fd, big, sizeof(big)) == sizeof(big), "write 10000 bytes (three messages)");
    CHECK(fstat(fd, &st) == 0 && st.st_size == sizeof(big), "fstat: size %d", (int)st.st_size);
    CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek");
    CHECK(read_full(fd, back, sizeof(back)) == sizeof(back), "read back");
    CHECK(memcmp(big, back, sizeof(big)) == 0, "the same bytes");
    CHECK(ftruncate(fd, 3) == 0, "ftruncate");
    CHECK(fstat(fd, &st) == 0 && st.st_size == 3, "fstat after ftruncate: %d", (int)st.st_size);
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

/* ------------------------------------------------------------ 3b. every rule of doc/srv.md */

/* One break of the protocol each (doc/srv.md, "What the kernel does not
 * trust"), made by breaker() below at the request named in brk_ops. */
enum brk {
    B_SIZE_HUGE,    /* Rwalk whose size field says 64 KiB (past SRV_MSIZE) */
    B_TAG_HUGE,     /* Rwalk with tag 0xFFFF */
    B_TWICE,        /* two Rwalks for one Twalk, in one write */
    B_ERR_ZERO,     /* Rerror with errno 0 */
    B_ERR_BIG,      /* Rerror with errno 4096 */
    B_ERR_LONG,     /* Rerror ENOENT with a fifth byte of body */
    B_STAT_LONG,    /* Rwalk with 24 bytes of stat: longer than the request allows */
    B_STAT_SHORT,   /* Rwalk with 12 bytes of stat */
    B_FIFO,         /* Rwalk says "f" is a FIFO */
    B_READ_SIZE,    /* Rread with count 2 and 5 bytes of data */
    B_WRITE_COUNT,  /* Rwrite with a count one past what was sent */
    B_NAME_EMPTY,   /* Rreaddir with a name of length 0 */
    B_NAME_SLASH,   /* ... "a/b" */
    B_NAME_NUL,     /* ... "a\0b" */
    B_CREATE_DIR,   /* Rcreate of a directory for a Tcreate of a file */
    B_ROOT_FILE,    /* Rstat of the root says it is a regular file */
    B_COUNT,
};

/* What the client does to meet each break, and whether the kernel must
 * refuse the bad message in the server's own write (EPIPE): a break found
 * only by the waiter (the count of an Rread, a name) reaches the sink
 * whole and well formed. */
enum { OP_WALK, OP_READ, OP_WRITE, OP_LIST, OP_CREATE, OP_MOUNT };
static const struct {
    const char *name;
    int op, refused_in_write;
} brk_ops[B_COUNT] = {
    [B_SIZE_HUGE] = { "size_huge", OP_WALK, 1 },
    [B_TAG_HUGE] = { "tag_huge", OP_WALK, 1 },
    [B_TWICE] = { "twice", OP_WALK, 1 },
    [B_ERR_ZERO] = { "err_zero", OP_WALK, 1 },
    [B_ERR_BIG] = { "err_big", OP_WALK, 1 },
    [B_ERR_LONG] = { "err_long", OP_WALK, 1 },
    [B_STAT_LONG] = { "stat_long", OP_WALK, 1 },
    [B_STAT_SHORT] = { "stat_short", OP_WALK, 0 },
    [B_FIFO] = { "fifo", OP_WALK, 0 },
    [B_READ_SIZE] = { "read_size", OP_READ, 0 },
    [B_WRITE_COUNT] = { "write_count", OP_WRITE, 0 },
    [B_NAME_EMPTY] = { "name_empty", OP_LIST, 0 },
    [B_NAME_SLASH] = { "name_slash", OP_LIST, 0 },
    [B_NAME_NUL] = { "name_nul", OP_LIST, 0 },
    [B_CREATE_DIR] = { "create_dir", OP_CREATE, 0 },
    [B_ROOT_FILE] = { "root_file", OP_MOUNT, 0 },
};

/* A message of n bytes of body in one write(): its result. */
static int send_raw(int fd, int type, int tag, uint32_t size, const void *body, uint32_t n)
{
    static char m[SRV_MSIZE + 64];      /* static: a server's stack is small */

    srv_put4(m, size);
    m[4] = (char)type;
    srv_put2(m + 5, tag);
    memcpy(m + SRV_HDR, body, n);
    return write(fd, m, SRV_HDR + n);
}

/* A stat body: mode, ino, size 5, mtime 0. */
static char *stat_body(char *b, uint32_t mode, uint32_t ino)
{
    struct srv_stat st = { mode, ino, 5, 0 };

    srv_putstat(b, &st);
    return b;
}

/* The server of the break b: a root directory holding "f" ("hello"),
 * honest but for b. Exit codes: 0 fine, 3 a bad message the kernel should
 * have refused in this write was taken, 4 a fid the kernel walked or made
 * was never clunked (the kernel forgot one: the server keeps it for
 * ever). */
static void breaker(int fd, int b)
{
    static char buf[SRV_MSIZE], out[SRV_MSIZE + 64];
    char *p;
    int r = 0, bad_sent = 0, live = 0;
    struct srv_msg m;

    memset(out, 'x', sizeof(out));
    while (srv_recv(fd, buf, &m) > 0) {
        int bad = 1;
        switch (m.type) {
        case Tstat:
            r = send_raw(fd, Tstat + 1, m.tag, SRV_HDR + SRV_STAT,
                         stat_body(out, b == B_ROOT_FILE ? S_IFREG | 0644 : S_IFDIR | 0755, 1),
                         SRV_STAT);
            bad = b == B_ROOT_FILE;
            break;
        case Twalk:
            if (strcmp(m.name, "f") != 0) {
                r = srv_error(fd, m.tag, ENOENT);
                bad = 0;
                break;
            }
            live++;
            stat_body(out, b == B_FIFO ? S_IFIFO | 0644 : S_IFREG | 0644, 2);
            if (b == B_SIZE_HUGE) {
                r = send_raw(fd, Twalk + 1, m.tag, 0x10000, out, 6000);
            } else if (b == B_TAG_HUGE) {
                r = send_raw(fd, Twalk + 1, 0xFFFF, SRV_HDR + SRV_STAT, out, SRV_STAT);
            } else if (b == B_TWICE) {
                char two[2 * (SRV_HDR + SRV_STAT)];
                srv_put4(two, SRV_HDR + SRV_STAT);
                two[4] = Twalk + 1;
                srv_put2(two + 5, m.tag);
                memcpy(two + SRV_HDR, out, SRV_STAT);
                memcpy(two + SRV_HDR + SRV_STAT, two, SRV_HDR + SRV_STAT);
                r = write(fd, two, sizeof(two));
            } else if (b == B_ERR_ZERO || b == B_ERR_BIG || b == B_ERR_LONG) {
                srv_put4(out, b == B_ERR_ZERO ? 0 : b == B_ERR_BIG ? 4096 : ENOENT);
                r = send_raw(fd, Rerror, m.tag, SRV_HDR + 4 + (b == B_ERR_LONG), out,
                             4 + (b == B_ERR_LONG));
            } else if (b == B_STAT_LONG || b == B_STAT_SHORT) {
                uint32_t n = b == B_STAT_LONG ? SRV_STAT + 8 : 12;
                r = send_raw(fd, Twalk + 1, m.tag, SRV_HDR + n, out, n);
            } else {
                r = send_raw(fd, Twalk + 1, m.tag, SRV_HDR + SRV_STAT, out, SRV_STAT);
                bad = b == B_FIFO;
            }
            break;
        case Tread:
            srv_put4(out, b == B_READ_SIZE ? 2 : m.off >= 5 ? 0 : 5 - m.off);
            memcpy(out + 4, "hello", 5);
            r = send_raw(fd, Tread + 1, m.tag, SRV_HDR + 4 + (m.off >= 5 ? 0 : 5 - m.off), out,
                         4 + (m.off >= 5 ? 0 : 5 - m.off));
            bad = b == B_READ_SIZE;
            break;
        case Twrite:
            srv_put4(out, m.count + (b == B_WRITE_COUNT));
            r = send_raw(fd, Twrite + 1, m.tag, SRV_HDR + 4, out, 4);
            bad = b == B_WRITE_COUNT;
            break;
        case Treaddir:
            if (m.cookie > 0) {
                r = send_raw(fd, Treaddir + 1, m.tag, SRV_HDR, NULL, 0);
                bad = 0;
                break;
            }
            p = srv_put4(out, 1);
            p = srv_put4(p, 2);
            *p++ = DT_REG;
            if (b == B_NAME_EMPTY) {
                p = srv_put2(p, 0);
            } else {
                p = srv_put2(p, 3);
                memcpy(p, b == B_NAME_SLASH ? "a/b" : b == B_NAME_NUL ? "a\0b" : "abc", 3);
                p += 3;
            }
            r = send_raw(fd, Treaddir + 1, m.tag, SRV_HDR + (p - out), out, p - out);
            bad = b == B_NAME_EMPTY || b == B_NAME_SLASH || b == B_NAME_NUL;
            break;
        case Tcreate:
            live++;
            r = send_raw(fd, Tcreate + 1, m.tag, SRV_HDR + SRV_STAT,
                         stat_body(out, b == B_CREATE_DIR ? S_IFDIR | 0755 : S_IFREG | 0644, 3),
                         SRV_STAT);
            bad = b == B_CREATE_DIR;
            break;
        case Tclunk:
            live--;
            r = send_raw(fd, Tclunk + 1, m.tag, SRV_HDR, NULL, 0);
            bad = 0;
            break;
        default: r = srv_error(fd, m.tag, EPERM); bad = 0;
        }
        if (bad && b < B_COUNT) {
            bad_sent = 1;
            if (brk_ops[b].refused_in_write && (r != -1 || errno != EPIPE))
                _exit(3);
        }
    }
    /* Honest to the end: every fid the kernel got was given back. */
    _exit(!bad_sent && b >= B_COUNT && live != 0 ? 4 : 0);
}

/* A filesystem served by breaker(b): its root fd (or -1, errno). */
static int serve_breaker(int b, int *pid)
{
    int fds[2], root;

    if (chan(fds) < 0)
        return -1;
    fflush(stdout);
    if ((*pid = fork()) == 0) {
        close(fds[0]);
        breaker(fds[1], b);
    }
    close(fds[1]);
    root = fsopen("srv", fds[0], NULL);
    close(fds[0]);
    return root;
}

/* Meet break b (step numbers: what failed): the call must give EIO, but
 * for B_TWICE, whose first reply is good; the connection is dead after
 * it; the server reads end of file, and exits 0. */
static int broken(int b)
{
    char buf[64];
    int pid, root, fd = -1, r;

    errno = 0;
    root = serve_breaker(b, &pid);
    if (brk_ops[b].op == OP_MOUNT) {
        if (root != -1 || errno != EIO)
            return 1;
        return exits_cleanly(pid, 2000) ? 0 : 8;
    }
    if (root < 0)
        return 2;
    if (brk_ops[b].op == OP_READ || brk_ops[b].op == OP_WRITE || brk_ops[b].op == OP_LIST) {
        if ((fd = ready_at(root, brk_ops[b].op == OP_LIST ? "." : "f",
                           brk_ops[b].op == OP_WRITE ? R_RDWR : R_READ)) < 0)
            return 3;
    }
    errno = 0;
    switch (brk_ops[b].op) {
    case OP_WALK: r = walk(root, "f", 0); break;
    case OP_READ: r = read(fd, buf, 16); break;
    case OP_WRITE: r = write(fd, "abcd", 4); break;
    case OP_LIST: r = getdents(fd, buf, sizeof(buf)); break;
    default: r = create(root, "g", S_IFREG, 0644, 0); break;
    }
    if (b == B_TWICE ? r < 0 : r != -1 || errno != EIO) {
        printf("%s: gave %d, errno %d\n", brk_ops[b].name, r, errno);
        return 4;
    }
    if (walk(root, "f", 0) != -1 || errno != EIO)
        return 5;                       /* alive after a protocol error */
    if (fd >= 0)
        close(fd);
    if (b == B_TWICE)
        close(r);
    close(root);
    return exits_cleanly(pid, 2000) ? 0 : 8;
}

static int child_brk;

static int broken_child(void)
{
    return broken(child_brk);
}

/* Each break in a child, within a deadline (100: hung). */
static void every_protocol_rule_is_held_each_break_alone(void)
{
    int b, r;

    for (b = 0; b < B_COUNT; b++) {
        child_brk = b;
        r = bounded_child(broken_child, 5000);
        CHECK(r == 0, "%s: step %d (100: hung)", brk_ops[b].name, r);
    }
    PASS();
}

/* The honest breaker: every fid the kernel walks, makes or finds again
 * (a walk to a node already live gets a new fid, which the kernel gives
 * back at once) is clunked by the time the filesystem goes. */
static void every_fid_the_kernel_gets_is_clunked(void)
{
    int pid, root, a, b2, fd;
    struct stat st;

    CHECK((root = serve_breaker(B_COUNT, &pid)) >= 0, "fsopen srv");
    CHECK((a = walk(root, "f", 0)) >= 0, "walk f");
    CHECK((b2 = walk(root, "f", 0)) >= 0, "walk f again, while the first is live");
    CHECK(fstat(a, &st) == 0 && fstat(b2, &st) == 0, "fstat");
    CHECK((fd = create(root, "g", S_IFREG, 0644, 0)) >= 0, "create g");
    close(fd);
    close(b2);
    close(a);
    close(root);
    CHECK(exits_cleanly(pid, 2000), "the server counted its fids back (4: one was kept)");
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

/* A server that holds every Tread's reply and says so on the pipe `note`;
 * once `limit` are held it waits for a byte on `go`, then sends them all
 * and goes on. */
static void holding_serve(int fd, int note, int go, int limit)
{
    static char buf[SRV_MSIZE];
    int held[SRV_TAGS], nheld = 0, i;
    char c, zero[4] = { 0, 0, 0, 0 };
    struct srv_msg m;

    while (srv_recv(fd, buf, &m) > 0) {
        switch (m.type) {
        case Tstat: reply_stat(fd, Tstat + 1, m.tag, S_IFDIR | 0755, 1, 0); break;
        case Twalk: reply_stat(fd, Twalk + 1, m.tag, S_IFREG | 0644, 2, 5); break;
        case Tread:
            held[nheld++] = m.tag;
            write(note, "r", 1);
            if (nheld < limit)
                break;
            if (read(go, &c, 1) != 1)
                _exit(2);
            for (i = 0; i < nheld; i++)
                srv_send(fd, Tread + 1, held[i], zero, 4);
            nheld = 0;
            break;
        case Tclunk: srv_send(fd, Tclunk + 1, m.tag, NULL, 0); break;
        default: srv_error(fd, m.tag, EPERM);
        }
    }
    _exit(0);
}

/* A filesystem served by holding_serve(limit): its root fd (or -1); the
 * server's pid, the read end of its notes and the write end of `go`. */
static int serve_holding(int limit, int *srv, int *note, int *go)
{
    int c[2], n[2], g[2], root;

    if (chan(c) < 0 || pipe(n) < 0 || pipe(g) < 0)
        return -1;
    fflush(stdout);
    if ((*srv = fork()) == 0) {
        close(c[0]);
        close(n[0]);
        close(g[1]);
        holding_serve(c[1], n[1], g[0], limit);
    }
    close(c[1]);
    close(n[1]);
    close(g[0]);
    root = fsopen("srv", c[0], NULL);
    close(c[0]);
    *note = n[0];
    *go = g[1];
    return root;
}

/* Every tag busy: SRV_TAGS readers wait for replies the server holds. A
 * further request waits for a tag, and a kill ends that wait; the readers
 * are killed, and once their late replies come the tags are free again.
 * Steps: what failed. */
static int tags_run_out_and_come_back(void)
{
    int note, go, srv, pf, root = serve_holding(SRV_TAGS, &srv, &note, &go), readers[SRV_TAGS], i;
    int pid, status, fd;
    char b[4];

    if (root < 0 || (pf = walk(root, "f", 0)) < 0)
        return 2;
    for (i = 0; i < SRV_TAGS; i++) {
        if ((readers[i] = fork()) == 0) {
            fd = ready(pf, R_READ);     /* a file of its own: no turn on a shared offset */
            _exit(fd >= 0 && read(fd, b, 4) >= 0 ? 0 : 1);
        }
        if (readers[i] < 0 || read(note, b, 1) != 1)
            return 3;                   /* the server has its request */
    }
    if ((pid = fork()) == 0)
        _exit(walk(root, "g", 0) >= 0 ? 0 : 1);
    if (!wait_until_sleeping(pid, 2000))
        return 4;                       /* it should wait for a tag */
    kill(pid, SIGKILL);
    if (!wait_child_ms(pid, 2000, &status) || !WIFSIGNALED(status))
        return 5;                       /* the wait for a tag is not killable */
    for (i = 0; i < SRV_TAGS; i++) {
        kill(readers[i], SIGKILL);
        if (!wait_child_ms(readers[i], 2000, &status) || !WIFSIGNALED(status))
            return 6;
    }
    if (write(go, "g", 1) != 1)
        return 7;
    if ((fd = walk(root, "f", 0)) < 0)
        return 8;                       /* the late replies did not free the tags */
    close(fd);
    close(pf);
    close(root);
    return exits_cleanly(srv, 2000) ? 0 : 9;
}

static void every_tag_busy_a_request_waits_killably_and_tags_come_back(void)
{
    int r = bounded_child(tags_run_out_and_come_back, 10000);

    CHECK(r == 0, "step %d (100: hung)", r);
    PASS();
}

/* A server that answers the mount and the walk to "f", then reads nothing
 * until a byte comes on `go`; after that it answers every Twrite at once
 * and the walks in pairs: the first waits until a second comes. */
static void late_reader_serve(int fd, int go)
{
    static char buf[SRV_MSIZE];
    int pending = -1;
    char c, cnt[4];
    struct srv_msg m;

    while (srv_recv(fd, buf, &m) > 0) {
        if (m.type == Tstat) {
            reply_stat(fd, Tstat + 1, m.tag, S_IFDIR | 0755, 1, 0);
        } else if (m.type == Twalk && strcmp(m.name, "f") == 0) {
            reply_stat(fd, Twalk + 1, m.tag, S_IFREG | 0644, 2, 0);
            if (read(go, &c, 1) != 1)
                _exit(2);
        } else if (m.type == Twalk && pending < 0) {
            pending = m.tag;
        } else if (m.type == Twalk) {
            srv_error(fd, pending, ENOENT);
            srv_error(fd, m.tag, ENOENT);
            pending = -1;
        } else if (m.type == Twrite) {
            srv_put4(cnt, m.count);
            srv_send(fd, Twrite + 1, m.tag, cnt, 4);
        } else if (m.type == Tclunk) {
            srv_send(fd, Tclunk + 1, m.tag, NULL, 0);
        } else {
            srv_error(fd, m.tag, EPERM);
        }
    }
    _exit(0);
}

static int late_pf;

static int write_a_page_to_f(void)
{
    static char page[4096];
    int fd = ready(late_pf, R_RDWR);

    return fd >= 0 && write(fd, page, sizeof(page)) == sizeof(page) ? 0 : 1;
}

static int late_root;

static int walk_to_g_is_enoent(void)
{
    return walk(late_root, "g", 0) == -1 && errno == ENOENT ? 0 : 1;
}

/* A request killed while it waits for room in the channel was never sent:
 * its tag is free at once. Fifteen such kills, then two requests that the
 * server answers only together: both must be answered. Steps: what
 * failed. */
static int killed_before_sending(void)
{
    int c[2], go[2], srv, a, b, w[2], i, status;

    if (chan(c) < 0 || pipe(go) < 0)
        return 1;
    fflush(stdout);
    if ((srv = fork()) == 0) {
        close(c[0]);
        close(go[1]);
        late_reader_serve(c[1], go[0]);
    }
    close(c[1]);
    close(go[0]);
    late_root = fsopen("srv", c[0], NULL);
    close(c[0]);
    if (late_root < 0 || (late_pf = walk(late_root, "f", 0)) < 0)
        return 2;
    if ((a = fork()) == 0)              /* its Twrite fills half the channel, unread */
        _exit(write_a_page_to_f());
    if (!wait_until_sleeping(a, 2000))
        return 3;
    for (i = 0; i < SRV_TAGS - 1; i++) {
        if ((b = fork()) == 0)          /* no room for a second page: it waits */
            _exit(write_a_page_to_f());
        if (!wait_until_sleeping(b, 2000))
            return 4;
        kill(b, SIGKILL);
        if (!wait_child_ms(b, 2000, &status) || !WIFSIGNALED(status))
            return 5;
    }
    for (i = 0; i < 2; i++)
        if ((w[i] = fork()) == 0)
            _exit(walk_to_g_is_enoent());
    if (write(go[1], "g", 1) != 1)
        return 6;
    if (!wait_child_ms(a, 3000, &status) || status != 0)
        return 7;
    for (i = 0; i < 2; i++)
        if (!wait_child_ms(w[i], 3000, &status) || status != 0)
            return 8;                   /* no tag for the second: tags were lost */
    close(late_pf);
    close(late_root);
    return exits_cleanly(srv, 2000) ? 0 : 9;
}

static void a_request_killed_before_it_was_sent_frees_its_tag(void)
{
    int r = bounded_child(killed_before_sending, 15000);

    CHECK(r == 0, "step %d (100: hung)", r);
    PASS();
}

/* Two processes sharing one open file of a served filesystem take turns
 * on its position: while one waits for the server's reply, the other
 * waits for the turn. A kill ends that wait; and the reply that ends the
 * first read hands the turn to the next reader. Steps: what failed. */
static int turns_on_a_shared_position(void)
{
    int note, go, srv, pf, root = serve_holding(1, &srv, &note, &go), fd, a, b, k, status;
    char x;

    if (root < 0 || (pf = walk(root, "f", 0)) < 0 || (fd = ready(pf, R_READ)) < 0)
        return 2;
    if ((a = fork()) == 0)
        _exit(read(fd, &x, 1) == 0 ? 0 : 1);
    if (read(note, &x, 1) != 1)
        return 3;                       /* a waits for the server, holding the turn */
    if ((k = fork()) == 0)
        _exit(read(fd, &x, 1) == 0 ? 0 : 1);
    if (!wait_until_sleeping(k, 2000))
        return 4;
    kill(k, SIGKILL);
    if (!wait_child_ms(k, 2000, &status) || !WIFSIGNALED(status))
        return 5;                       /* the wait for a turn outlived a kill */
    if ((b = fork()) == 0)
        _exit(read(fd, &x, 1) == 0 ? 0 : 1);
    if (!wait_until_sleeping(b, 2000))
        return 6;
    if (write(go, "g", 1) != 1 || !wait_child_ms(a, 2000, &status) || status != 0)
        return 7;
    if (read(note, &x, 1) != 1)
        return 8;                       /* b never got the turn a gave back */
    if (write(go, "g", 1) != 1 || !wait_child_ms(b, 2000, &status) || status != 0)
        return 9;
    close(fd);
    close(pf);
    close(root);
    return exits_cleanly(srv, 2000) ? 0 : 10;
}

static void readers_of_a_shared_served_file_take_turns_killably(void)
{
    int r = bounded_child(turns_on_a_shared_position, 10000);

    CHECK(r == 0, "step %d (100: hung)", r);
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
    T_RUN(a_write_longer_than_the_ring_goes_through_as_it_is_read);
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
    T_RUN(every_protocol_rule_is_held_each_break_alone);
    T_RUN(every_fid_the_kernel_gets_is_clunked);
    T_RUN(a_slow_server_wait_is_ended_by_kill);
    T_RUN(every_tag_busy_a_request_waits_killably_and_tags_come_back);
    T_RUN(a_request_killed_before_it_was_sent_frees_its_tag);
    T_RUN(readers_of_a_shared_served_file_take_turns_killably);
    T_RUN(revoke_of_a_served_fs_ends_access);
    T_RUN(revoke_ends_waits_for_a_reply_and_for_room);
    T_RUN(two_clients_have_requests_outstanding_at_once);
    T_RUN(a_server_calling_its_own_filesystem_is_ended_by_kill);
    T_RUN(a_served_file_is_no_filesystems_source_so_sync_never_waits_on_a_server);
    T_RUN(mirrorsrv_serves_nothing_outside_its_directory);
    printf("t_srv: done\n");
    return t_failures != 0;
}
