/* fuzz_srv.c - the file server protocol fuzzer: /bin/fuzz_srv SEED SECONDS
 * [MAXCOUNT]. The ext2 image fuzzer's idea applied to doc/srv.md: this
 * process is a server whose replies are random and often malformed, and
 * a client process makes calls through the filesystem it serves.
 *
 * Each round is one connection: a new channel, fsopen("srv") by the
 * client, a dozen random calls (walk, read, write, getdents, create,
 * unlink, ftruncate, fstat), close. The server answers each request
 * with a well-formed reply (about half of the time: some split into
 * pieces, some late) or a malformed one: a wrong tag, type, size or
 * count, a stat of a device node or of the wrong type, a bad name in a
 * directory entry, a bad errno, a duplicate, garbage, a message cut short
 * by the server's death - or it kills the client while it waits and
 * answers late. The kernel must turn every one into EIO (or the server's
 * errno), never a panic, a hang or a leak; and a well-framed malformed
 * reply must end the connection (the server then reads end of file): a
 * next request instead means the kernel accepted it, and is reported.
 *
 * The client shares this process's fd table (rfork), so a connection
 * costs no fork: only a kill makes a new client. The count is replies
 * sent; the same seed gives the same replies and calls. */
#include <fcntl.h>
#include <orthos.h>
#include <srv.h>
#include "fuzz.h"
#include "uapi/proc.h"
#include "array_size.h"

#define ROUND_CALLS 12
#define BUF         9000

enum kind {
    GOOD,
    GOOD_SPLIT,
    GOOD_LATE,
    GOOD_ERROR, /* well-formed */
    BAD_TAG,
    BAD_TYPE,
    BAD_COUNT,
    BAD_LENGTH,
    BAD_MODE,
    BAD_NAME,
    BAD_ERRNO,
    EXTRA_BYTES,
    WRONG_CREATE,
    EMPTY, /* well-framed, malformed: the connection must die */
    DUPLICATE,
    UNSOLICITED, /* may land on a live tag: not sure to kill it */
    SMALL_SIZE,
    HUGE_SIZE,
    GARBAGE,
    CUT_SHORT, /* framing: then the server dies */
    KILL_CLIENT,
    NKINDS
};

static const char *const kind_names[NKINDS] = {
    "good",         "good_split", "good_late",   "good_error",  "bad_tag",    "bad_type",
    "bad_count",    "bad_length", "bad_mode",    "bad_name",    "bad_errno",  "extra_bytes",
    "wrong_create", "empty",      "duplicate",   "unsolicited", "small_size", "huge_size",
    "garbage",      "cut_short",  "kill_client",
};

static unsigned rng;                    /* the server's choices */
static unsigned replies, malformed, sent[NKINDS], accepted_bad;
static int go[2], back[2], client; /* the client takes "fd round" from go, says root on back */
static char in[SRV_MSIZE], out[SRV_MSIZE + 64];

static unsigned rnd(unsigned n)
{
    return fz_below(&rng, n);
}

static int chance(unsigned percent)
{
    return rnd(100) < percent;
}

/* ------------------------------------------------------------ the client */

static unsigned crng;
static char cbuf[BUF];

static const char *name_arg(void)
{
    static const char *const names[] = { "a", "b", "d", "d/x", "..", "nope", ".", "a/b", "z" };

    return names[fz_below(&crng, ARRAY_SIZE(names))];
}

/* One random call through the served root: its errno, or 0. */
static int one_call(int root)
{
    int fd, p, n = 1 + fz_below(&crng, BUF), r = 0, i;
    struct stat st;

    errno = 0;
    switch (fz_below(&crng, 8)) {
    case 0:
        if ((fd = walk(root, name_arg(), 0)) >= 0)
            close(fd);
        break;
    case 1:
    case 2:
        if ((p = walk(root, name_arg(), 0)) < 0)
            break;
        fd = ready(p, fz_below(&crng, 2) ? R_READ : R_WRITE);
        close(p);
        if (fd < 0)
            break;
        lseek(fd, fz_below(&crng, 3) ? 0 : fz_below(&crng, 20000), SEEK_SET);
        r = fcntl(fd, F_GETFL, 0) & R_READ ? read(fd, cbuf, n) : write(fd, cbuf, n);
        close(fd);
        break;
    case 3:
        if ((fd = ready(root, R_READ)) < 0)
            break;
        for (i = 0; i < 3 && (r = getdents(fd, cbuf, 64 + fz_below(&crng, 1024))) > 0; i++)
            ;
        close(fd);
        break;
    case 4:
        if ((fd = create(root, name_arg(), fz_below(&crng, 2) ? S_IFREG : S_IFDIR, 0644, 0)) >= 0)
            close(fd);
        break;
    case 5: unlinkat(root, name_arg(), fz_below(&crng, 2) ? UNLINK_DIR : 0); break;
    case 6:
        if ((p = walk(root, name_arg(), 0)) < 0 || (fd = ready(p, R_WRITE)) < 0) {
            close(p);
            break;
        }
        close(p);
        ftruncate(fd, fz_below(&crng, 10000));
        close(fd);
        break;
    default: fstat(root, &st);
    }
    (void)r;
    return errno;
}

/* The client: for each "fd round" from go, serve itself a filesystem and
 * use it; a negative fd ends it. */
static void client_loop(unsigned seed)
{
    int msg[2], root;

    for (;;) {
        if (read(go[0], msg, sizeof(msg)) != sizeof(msg) || msg[0] < 0)
            _exit(0);
        crng = fz_seed(seed ^ 0xC11E47u, (unsigned)msg[1]);
        root = fsopen("srv", msg[0], NULL);
        close(msg[0]);
        write(back[1], &root, sizeof(root));
        if (root < 0)
            continue;
        for (int i = 0; i < ROUND_CALLS && one_call(root) != EIO; i++)
            ;
        close(root);
    }
}

/* A new client in this fd table. */
static int start_client(unsigned seed)
{
    int pid;

    fflush(stdout);
    if ((pid = rfork(RFORK_SHAREFDS)) == 0)
        client_loop(seed);
    return pid;
}

/* ------------------------------------------------------------ the server */

static void put_header(char *p, uint32_t size, int type, int tag)
{
    srv_put4(p, size);
    p[4] = (char)type;
    srv_put2(p + 5, tag);
}

/* A random name for a directory entry: 1..20 letters. */
static char *put_name(char *p)
{
    int n = 1 + rnd(20), i;

    p = srv_put2(p, n);
    for (i = 0; i < n; i++)
        *p++ = 'a' + rnd(26);
    return p;
}

static char *put_stat(char *p, uint32_t type)
{
    struct srv_stat st = { type | 0755, 1 + rnd(8), rnd(20000), rnd(1000000) };

    return srv_putstat(p, &st);
}

/* A well-formed reply to m in out: its length. */
static int good_reply(const struct srv_msg *m)
{
    char *p = out + SRV_HDR;
    uint32_t n;

    switch (m->type) {
    case Tstat:
    case Twalk:
        p = put_stat(p, m->type == Tstat && chance(80) ? S_IFDIR : rnd(2) ? S_IFREG : S_IFDIR);
        break;
    case Tcreate: p = put_stat(p, m->mode & S_IFMT); break;
    case Tread:
        n = chance(30) ? m->count : rnd(m->count + 1);
        p = srv_put4(p, n);
        memset(p, 'a' + rnd(26), n);
        p += n;
        break;
    case Twrite: p = srv_put4(p, chance(70) ? m->count : rnd(m->count + 1)); break;
    case Treaddir:
        if (m->cookie < 6 && chance(90)) {
            p = srv_put4(p, m->cookie + 1);
            p = srv_put4(p, 1 + rnd(8));
            *p++ = rnd(2) ? DT_REG : DT_DIR;
            p = put_name(p);
        }
        break;
    }
    put_header(out, p - out, m->type + 1, m->tag);
    return p - out;
}

/* Node types a served filesystem must refuse. */
static const uint32_t bad_types[] = { S_IFCHR, S_IFBLK, S_IFIFO, S_IFLNK, S_IFSOCK, 0, S_IFMT };

/* The same reply made malformed in the way `k` says: its length. */
static int bad_reply(const struct srv_msg *m, enum kind k)
{
    int n = good_reply(m);
    char *p = out + SRV_HDR;

    switch (k) {
    case BAD_TAG: srv_put2(out + 5, SRV_TAGS + rnd(0x10000 - SRV_TAGS)); break;
    case BAD_TYPE:
        do
            out[4] = (char)rnd(256);
        while ((uint8_t)out[4] == m->type + 1 || (uint8_t)out[4] == Rerror);
        break;
    case BAD_COUNT: /* more than asked, the size agreeing */
        if (m->type != Tread && m->type != Twrite)
            return bad_reply(m, BAD_TYPE);
        n = SRV_HDR + 4;
        srv_put4(p, m->count + 1 + rnd(SRV_IOMAX));
        if (m->type == Tread) {
            n += srv_get4(p) > SRV_IOMAX + 16 ? 0 : srv_get4(p);
            memset(p + 4, 'x', n - SRV_HDR - 4);
        }
        srv_put4(out, n);
        break;
    case BAD_LENGTH: /* a count or name the size does not agree with */
        if (m->type == Tread && n > SRV_HDR + 4) {
            srv_put4(p, srv_get4(p) - 1 - rnd(srv_get4(p)));
        } else if (m->type == Tread) {
            srv_put4(p, 1 + rnd(64));
        } else {
            n += 1 + rnd(8); /* trailing bytes after a body */
            srv_put4(out, n);
        }
        break;
    case BAD_MODE:
        if (m->type != Tstat && m->type != Twalk)
            return bad_reply(m, BAD_TYPE);
        srv_put4(p, (fz_next(&rng) & ~(uint32_t)S_IFMT) | bad_types[rnd(ARRAY_SIZE(bad_types))]);
        break;
    case BAD_NAME:
        if (m->type != Treaddir || n == SRV_HDR)
            return bad_reply(m, BAD_TYPE);
        switch (rnd(4)) {
        case 0: srv_put2(p + 9, 0); break;
        case 1: srv_put2(p + 9, srv_get4(out) - SRV_HDR - 11 + 1 + rnd(300)); break;
        case 2: p[11] = '/'; break;
        default: p[11] = '\0';
        }
        break;
    case BAD_ERRNO:
        out[4] = Rerror;
        srv_put4(p, chance(50) ? 0 : 4096 + rnd(100000));
        n = SRV_HDR + 4 + (chance(20) ? 1 + rnd(4) : 0);
        srv_put4(out, n);
        break;
    case EXTRA_BYTES: /* longer than any right reply could be */
        n += 1 + rnd(SRV_IOMAX / 2);
        if (n > SRV_MSIZE)
            n = SRV_MSIZE;
        if (m->type == Tread)
            n = SRV_HDR + 4 + srv_get4(p) + 1 + rnd(16);
        srv_put4(out, n);
        break;
    case WRONG_CREATE:
        if (m->type != Tcreate)
            return bad_reply(m, BAD_TYPE);
        srv_put4(p, (m->mode & S_IFMT) == S_IFDIR ? S_IFREG | 0644 : S_IFDIR | 0755);
        break;
    default: /* EMPTY */
        if (m->type == Tremove || m->type == Ttrunc || m->type == Tclunk || m->type == Treaddir)
            return bad_reply(m, BAD_TYPE);
        n = SRV_HDR;
        srv_put4(out, n);
    }
    return n;
}

/* Write n bytes of out, in one write or in pieces; false if the kernel
 * has let go. */
static int send_bytes(int fd, const char *buf, int n, int pieces)
{
    int off = 0, w, step;

    while (off < n) {
        step = pieces ? 1 + (int)rnd(n - off) : n - off;
        if ((w = write(fd, buf + off, step)) <= 0)
            return 0;
        off += w;
    }
    return 1;
}

/* Close every fd but the ones this process keeps: what a killed client
 * left open in the shared table (its root, a readied file). */
static void close_strays(int meminfo, int srvfd)
{
    for (int fd = 3; fd < OPEN_MAX; fd++)
        if (fd != meminfo && fd != srvfd && fd != go[0] && fd != go[1] && fd != back[0] &&
            fd != back[1])
            close(fd);
}

/* Kill the client while it waits for the reply to m, answer late (the
 * kernel must drop it), let go of what the client held, start another. */
static void kill_client(struct fuzz *f, int srvfd, const struct srv_msg *m)
{
    kill(client, SIGKILL);
    fz_reap(f, client, 0);
    send_bytes(srvfd, out, good_reply(m), 0);
    close_strays(f->meminfo, srvfd);
    client = start_client(f->seed);
}

/* One connection: serve requests on srvfd until the kernel lets go. */
static void serve_round(struct fuzz *f, int srvfd)
{
    struct srv_msg m;
    int expect_dead = 0, n, r;
    enum kind k, last = GOOD;

    while ((r = srv_recv(srvfd, in, &m)) > 0) {
        if (expect_dead) {
            accepted_bad++;
            fz_say("fuzz_srv: seed %u: the kernel asked on after a %s reply\n", f->seed,
                   kind_names[last]);
            expect_dead = 0;
        }
        k = chance(50) ? (enum kind)rnd(GOOD_ERROR + 1) : (enum kind)rnd(NKINDS);
        if (k == KILL_CLIENT && (m.type == Tstat || m.type == Tclunk || chance(80)))
            k = GOOD;
        last = k;
        replies++;
        sent[k]++;
        malformed += k > GOOD_ERROR;
        switch (k) {
        case GOOD:
        case GOOD_SPLIT:
        case GOOD_LATE:
            if (k == GOOD_LATE)
                sleep_ms(1 + rnd(5));
            if (!send_bytes(srvfd, out, good_reply(&m), k == GOOD_SPLIT))
                return;
            break;
        case GOOD_ERROR:
            if (srv_error(srvfd, m.tag, 1 + rnd(EMAXERRNO)) < 0)
                return;
            break;
        case DUPLICATE:
        case UNSOLICITED:
            n = good_reply(&m);
            if (k == UNSOLICITED)
                srv_put2(out + 5, rnd(SRV_TAGS));
            if (!send_bytes(srvfd, out, n, 0) || !send_bytes(srvfd, out, good_reply(&m), 0))
                return;
            break;
        case SMALL_SIZE:
        case HUGE_SIZE:
            put_header(out, k == SMALL_SIZE ? rnd(SRV_HDR) : SRV_MSIZE + 1 + rnd(1 << 20),
                       m.type + 1, m.tag);
            send_bytes(srvfd, out, 4 + rnd(4), chance(50));
            return; /* the kernel has given up: end the round */
        case GARBAGE:
        case CUT_SHORT:
            n = good_reply(&m);
            if (k == GARBAGE)
                for (int i = 0; i < n; i++)
                    out[i] = (char)fz_next(&rng);
            send_bytes(srvfd, out, rnd(n), chance(50));
            return; /* the server dies mid-message */
        case KILL_CLIENT: kill_client(f, srvfd, &m); break;
        default:
            n = bad_reply(&m, k);
            if (!send_bytes(srvfd, out, n, chance(20)))
                return;
            expect_dead = m.type != Tclunk; /* a clunk's reply is never checked */
        }
        f->count = replies;
        if (fz_over(f))
            return;
    }
}

int main(int argc, char **argv)
{
    struct fuzz f;
    int fds[2], msg[2], root, status;
    unsigned round;

    if (fz_start(&f, "fuzz_srv", argc, argv) < 0)
        return 2;
    if (pipe(go) < 0 || pipe(back) < 0 || fcntl(back[0], F_SETFL, R_NONBLOCK) < 0)
        return 2;
    if ((client = start_client(f.seed)) < 0)
        return 2;
    for (round = 0; !fz_over(&f); round++) {
        rng = fz_seed(f.seed, round);
        if (chan(fds) < 0) {
            fz_nap(&f, 10);
            continue;
        }
        msg[0] = fds[0];
        msg[1] = (int)round;
        write(go[1], msg, sizeof(msg)); /* the client takes fds[0] and closes it */
        serve_round(&f, fds[1]);
        close(fds[1]);
        while (read(back[0], &root, sizeof(root)) > 0)
            ;
    }
    msg[0] = -1;
    write(go[1], msg, sizeof(msg));
    status = fz_reap(&f, client, 5000);
    close(go[0]);
    close(go[1]);
    close(back[0]);
    close(back[1]);
    fz_say("fuzz_srv: %u replies, %u malformed; by kind:", replies, malformed);
    for (int k = 0; k < NKINDS; k++)
        fz_say(" %s %u", kind_names[k], sent[k]);
    fz_say("\n");
    if (accepted_bad)
        fz_say("FAIL fuzz_srv_malformed_replies_end_the_connection: %u accepted\n", accepted_bad);
    (void)status;
    return fz_finish(&f) || accepted_bad;
}
