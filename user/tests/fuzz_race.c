/* fuzz_race.c - the race fuzzer: /bin/fuzz_race SEED SECONDS [MAXCOUNT].
 *
 * The other fuzzers call from one process at a time; the bugs they never
 * reach are races between processes sharing files, directories and open
 * files while the kernel sleeps inside a call (ext2 waits for its turn in
 * the instance and on the disk, then acts on checks made before the
 * wait). Here each round, on ext2 (the disk /dev/hd0, which tools/fuzz.py
 * formats and checks with e2fsck afterwards) or on ramfs, WORKERS
 * processes make random calls on a few shared names at once, some through
 * open files they share (inherited across fork), and the round's leader
 * kills some of them mid-call. What must hold is checked as it happens
 * and after the round, so that a failure names what broke:
 *
 *   - every record a writer appended is in its log exactly once, whole
 *     (records carry writer, sequence number and checksum);
 *   - a listing shows every entry that nobody changed exactly once, and
 *     readers sharing one open directory see each entry once between them;
 *   - a name is exclusively claimed (create, mkdir, link, rename with
 *     RENAME_NOREPLACE) by one process at a time, and stays its owner's
 *     until the owner lets go; an entry made in a directory stays until
 *     its maker removes it (the directory cannot go meanwhile);
 *   - names that nobody changes always resolve; a worker's own file,
 *     its part of a file all write, and a file whose names are gone
 *     read back what it wrote;
 *   - directories moved about and fds closed under a call (worker 0 and
 *     a twin share one fd table) may fail, but must leave a sound tree;
 *   - after the round: no name listed twice, each listed name resolves
 *     to what the listing said, link counts match the names found; the
 *     area removes cleanly, and ext2's free inode and block counts are
 *     back where they started; the image, mounted again, walks clean.
 *
 * The count is system calls made by the workers ("ops"). Workers are
 * seeded from (SEED, round, worker), but which call overtakes which
 * depends on the timer: a seed repeats its operations, not always its
 * interleavings (doc/fuzzing.md). Everything runs in a sandbox (fuzz.h):
 * the round's leader enters one, keeping only its report pipe, and makes
 * the ext2 instance from the sandbox's own /dev/hd0. */
#include <fcntl.h>
#include <orthos.h>
#include <stdarg.h>
#include "fuzz.h"
#include "t.h"

#define REPORT_FD  20               /* the leader's and workers' lines to the fuzzer */
#define WORKERS    5                /* processes racing in a round */
#define WORKER_OPS 200              /* calls a worker makes in a round */
#define ROUND_MS   30000            /* a round not over by now is stuck: a failure */
#define KILL_MS    150              /* kills come this soon in a round (one lasts ~200) */
#define LEADER_MS  60000            /* ... and the fuzzer kills a leader living this long */
#define NSTABLE    16               /* entries of p/ that nobody changes */
#define NSTATIC    40               /* entries of s/, the directory read through a shared fd */
#define NX         6                /* names claimed exclusively: x0.. */
#define ND         4                /* names claimed by mkdir, overwritten by rename: d0.. */
#define NCLAIM     (NX + ND)
#define REC        32               /* bytes in an appended record */
#define DATA_MAX   5000             /* bytes of a worker's own file, or of its part of shared */
#define PART_BASE  (12 * 1024)      /* shared: past ext2's direct blocks (1 KiB), so that the */
#define PART_STEP  8192             /* workers' parts share an indirect block */
#define NMOVE      4                /* directories of q/, moved about: m0.. */
#define SLOT0      26               /* fds 26..31: dup2'd and closed under a twin's calls */
#define NSLOT      6
#define TWIN_OPS   300              /* calls a twin makes at most */
#define MAX_ENTS   96               /* entries in one directory of the area */
#define MAX_FILES  64               /* files in the area, for the link counts */
#define LONG_NAME  "_with_a_long_name_so_that_the_directory_spans_several_ext2_blocks_"

/* What a worker tells its leader (one write each: never split). */
struct msg {
    unsigned char who, kind;
    unsigned short a;
    unsigned b;
};

/* A static entry read (a); the shared listing's end; at the end, a
 * log's (a) records appended (b); a twin's pid (b). */
enum { M_SAW, M_END, M_DONE, M_TWIN };

static unsigned seed, round_no;     /* what the failure lines name */
static const char *fs_name;
static int me = -1;                 /* the worker's number; -1 in the leader */
static unsigned rng;

static unsigned rnd(unsigned n)
{
    return fz_below(&rng, n);
}

static int chance(unsigned percent)
{
    return rnd(100) < percent;
}

/* A line to the fuzzer, which prints it (REPORT_FD: a pipe, one write). */
static void tell(const char *fmt, ...)
{
    char line[200];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof(line) - 2)
        n = sizeof(line) - 2;
    line[n++] = '\n';
    write(REPORT_FD, line, n);
}

/* A broken invariant: "FAIL fuzz_race_<what>: <why> [where]". */
static void fail(const char *what, const char *fmt, ...)
{
    char why[140];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    tell("FAIL fuzz_race_%s: %s [seed %u round %u %s %s%d]", what, why, seed, round_no, fs_name,
         me < 0 ? "leader" : "worker ", me < 0 ? 0 : me);
    if (me >= 0)
        _exit(1);                       /* a worker says one thing: the first */
}

static void name_of_stable(char *buf, int size, int i)
{
    snprintf(buf, size, "stable%02d" LONG_NAME, i);
}

static void name_of_static(char *buf, int size, int i)
{
    snprintf(buf, size, "static%02d" LONG_NAME, i);
}

static void name_of_claim(char *buf, int size, int i)
{
    snprintf(buf, size, i < NX ? "x%d" : "d%d", i < NX ? i : i - NX);
}

/* The number in "stable07..." or "static07..." if name starts with
 * prefix, else -1. */
static int numbered(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);

    if (strncmp(name, prefix, n) != 0 || name[n] < '0' || name[n] > '9')
        return -1;
    return atoi(name + n);
}

static int is_dots(const char *name)
{
    return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

/* ---- records: what appenders write, self-describing */

static unsigned rec_sum(int log, int who, unsigned seq)
{
    unsigned x = fz_seed(seed ^ round_no * 40503u, (unsigned)(log * 64 + who) * 1000003u + seq);

    return x;
}

static void rec_make(char *rec, int log, int who, unsigned seq)
{
    int n = snprintf(rec, REC, "R%d%02d%06u %08x", log, who, seq, rec_sum(log, who, seq));

    memset(rec + n, '.', REC - 1 - n);
    rec[REC - 1] = '\n';
}

/* 0 and the record's writer and sequence number, or -1 if it is not a
 * whole record of `log` (torn, overwritten, someone else's bytes). */
static int rec_parse(const char *rec, int log, int *who, unsigned *seq)
{
    char want[REC + 1];

    if (rec[0] != 'R' || rec[1] != '0' + log || rec[REC - 1] != '\n')
        return -1;
    *who = (rec[2] - '0') * 10 + (rec[3] - '0');
    *seq = strtoul(rec + 4, NULL, 10);
    if (*who < 0 || *who >= WORKERS || *seq >= WORKER_OPS)
        return -1;
    rec_make(want, log, *who, *seq);
    return memcmp(rec, want, REC) == 0 ? 0 : -1;
}

/* ---- a worker */

static int area, pool, moves;       /* race/, race/p/, race/q/ */
static int msg_w;                   /* the pipe to the leader */
static int shared_append, shared_log1, shared_list;  /* open files every worker shares */
static int own_append;              /* a worker's own log0, with R_APPEND */
static unsigned seq[2], ops;

/* A worker's data: its own file p/t<worker> (which it may truncate), and
 * its part of the shared file "shared" (the others write theirs). */
static struct data {
    int fd;
    unsigned base;                  /* where our bytes start */
    int own;                        /* ours alone: it may be truncated */
    unsigned char shadow[DATA_MAX]; /* what it must hold; zeros past len */
    unsigned len;                   /* bytes from base that we wrote or truncated to */
} data[2];
static struct {
    int name;                       /* claim number */
    unsigned ino;
    int dir;
} owned[NCLAIM];
static int nowned;
static char buf[8192];                 /* more than DATA_MAX */

static void to_leader(int kind, int a, unsigned b)
{
    struct msg m = { (unsigned char)me, (unsigned char)kind, (unsigned short)a, b };

    write(msg_w, &m, sizeof(m));
}

/* walk + ready: an open file of name under dir, or -1. */
static int open_at(int dir, const char *name, int mode)
{
    int p = walk(dir, name, WALK_NOFOLLOW), fd;

    if (p < 0)
        return -1;
    fd = ready(p, mode);
    close(p);
    return fd;
}

/* A new node name under d: 0, or -1. */
static int make(int d, const char *name, int type)
{
    int fd = create(d, name, type, 0755, 0);

    if (fd < 0)
        return -1;                      /* (with create's errno) */
    close(fd);
    return 0;
}

static unsigned ino_of(int fd)
{
    struct stat st;

    return fstat(fd, &st) == 0 ? st.st_ino : 0;
}

/* Append a record to log 0 (through an R_APPEND file of our own or the
 * one everybody shares) or to log 1 (through the one open file everybody
 * shares: its offset moves past each record). */
static void op_append(void)
{
    int log = chance(60) ? 0 : 1, fd = log ? shared_log1 : chance(60) ? own_append : shared_append;
    char rec[REC];

    rec_make(rec, log, me, seq[log]);
    if (write(fd, rec, REC) != REC)
        fail("appends_are_whole", "log%d: write of record %u: %s", log, seq[log], strerror(errno));
    else
        seq[log]++;
}

static unsigned char seen[WORKERS][WORKER_OPS];    /* records found by scan_log */

/* Read log `log` from its start: whole records only, each once (seen
 * counts them). 0, or -1 after a failure. */
static int scan_log(int log)
{
    int fd, n, i, who, at = 0, bad = 0;
    char name[8];
    unsigned s;

    snprintf(name, sizeof(name), "log%d", log);
    memset(seen, 0, sizeof(seen));
    if ((fd = open_at(area, name, R_READ)) < 0) {
        fail("unchanged_names_always_resolve", "%s: %s", name, strerror(errno));
        return -1;
    }
    while (!bad && (n = read_full(fd, buf, REC * 64)) > 0) {
        for (i = 0; !bad && i + REC <= n; i += REC, at += REC) {
            if ((bad = rec_parse(buf + i, log, &who, &s) < 0))
                fail("appended_records_are_whole", "%s: no record at byte %d: %.20s", name, at,
                     buf + i);
            else if ((bad = seen[who][s]++ > 0))
                fail("appended_records_land_once", "%s: worker %d's record %u twice", name, who, s);
        }
        if (!bad && (bad = n % REC != 0))
            fail("appended_records_are_whole", "%s: %d bytes after byte %d", name, n % REC, at);
    }
    close(fd);
    return bad ? -1 : 0;
}

/* A log read during the round: whole records so far, each once. */
static void op_read_log(void)
{
    scan_log(rnd(2));
}

/* One getdents through the directory everybody shares: each entry goes
 * to one of the readers, once. */
static void op_list_shared(void)
{
    int n = getdents(shared_list, buf, 128 + rnd(300)), i, k;

    if (n < 0)
        fail("shared_listing_works", "getdents: %s", strerror(errno));
    else if (n == 0)
        to_leader(M_END, 0, 0);
    for (i = 0; i < n; i += ((struct dirent *)(buf + i))->d_reclen)
        if ((k = numbered(((struct dirent *)(buf + i))->d_name, "static")) >= 0)
            to_leader(M_SAW, k, 0);
}

/* A whole listing of p/ (changing all the time) or s/ through an open
 * file of our own: every entry nobody changes shows exactly once. */
static void op_list_own(void)
{
    int in_p = chance(70), fd = open_at(area, in_p ? "p" : "s", R_READ), n, i, k;
    int count[NSTATIC] = { 0 }, expect = in_p ? NSTABLE : NSTATIC;
    const char *prefix = in_p ? "stable" : "static";

    if (fd < 0) {
        fail("unchanged_names_always_resolve", "%s: %s", in_p ? "p" : "s", strerror(errno));
        return;
    }
    while ((n = getdents(fd, buf, 128 + rnd(700))) > 0)
        for (i = 0; i < n; i += ((struct dirent *)(buf + i))->d_reclen)
            if ((k = numbered(((struct dirent *)(buf + i))->d_name, prefix)) >= 0 && k < expect)
                count[k]++;
    if (n < 0)
        fail("listings_work", "getdents of %s: %s", in_p ? "p" : "s", strerror(errno));
    for (k = 0; n == 0 && k < expect; k++)
        if (count[k] != 1) {
            fail("listings_show_unchanged_entries_once", "%s%02d in %s/ %d times in one listing",
                 prefix, k, in_p ? "p" : "s", count[k]);
            break;
        }
    close(fd);
}

/* A name nobody changes resolves, whatever happens around it. */
static void op_must_exist(void)
{
    char name[128];
    int fd, k = rnd(4);

    if (k == 0) {
        snprintf(name, sizeof(name), "log%u", rnd(2));
    } else if (k == 1) {
        memcpy(name, "s/", 2);
        name_of_static(name + 2, sizeof(name) - 2, rnd(NSTATIC));
    } else {
        memcpy(name, "p/", 2);
        name_of_stable(name + 2, sizeof(name) - 2, rnd(NSTABLE));
    }
    if ((fd = walk(area, name, WALK_NOFOLLOW)) < 0)
        fail("unchanged_names_always_resolve", "%.24s: %s", name, strerror(errno));
    close(fd);
}

static int find_owned(int name)
{
    int i;

    for (i = 0; i < nowned; i++)
        if (owned[i].name == name)
            return i;
    return -1;
}

static void drop_owned(int i)
{
    owned[i] = owned[--nowned];
}

/* A private file of ours ("u<worker>") to link or rename from; its fd. */
static int make_private(char *name, int size)
{
    snprintf(name, size, "u%d", me);
    return create(pool, name, S_IFREG, 0644, 0);
}

/* Claim a name: x names only by what fails if the name exists (create,
 * mkdir, link, rename with RENAME_NOREPLACE); d names by mkdir, or by a
 * plain rename of a file, which may replace a file but never a directory.
 * That file is nobody's: another rename may replace it, and once that
 * one is unlinked a mkdir may claim the name before our unlink. A
 * claimed name stays ours till we let it go. */
static void op_claim(void)
{
    static const char *const ways[] = { "create", "mkdir", "link", "rename NOREPLACE", "rename" };
    int c = rnd(NCLAIM), how = c < NX ? rnd(4) : chance(50) ? 1 : 4, fd = -1, r, err;
    int dir = how == 1;
    char name[8], priv[8];
    unsigned ino = 0;

    if (find_owned(c) >= 0)
        return;
    name_of_claim(name, sizeof(name), c);
    switch (how) {
    case 0:
    case 1: r = fd = create(pool, name, dir ? S_IFDIR : S_IFREG, 0755, 0); break;
    case 2:
        r = linkat(data[0].fd, pool, name);
        fd = dup(data[0].fd);
        break;
    default:
        if ((fd = make_private(priv, sizeof(priv))) < 0) {
            fail("private_names_work", "create %s: %s", priv, strerror(errno));
            return;
        }
        r = renameat(pool, priv, pool, name, how == 3 ? RENAME_NOREPLACE : 0);
        if (r < 0 && unlinkat(pool, priv, 0) < 0)
            fail("private_names_work", "unlink %s after a failed rename: %s", priv,
                 strerror(errno));
        break;
    }
    err = errno;
    if (r >= 0)
        ino = ino_of(fd);
    close(fd);
    if (r < 0) {
        errno = err;
        if (errno != EEXIST && !(how == 4 && errno == EISDIR))
            fail("claims_fail_only_when_taken", "%s by %s: %s", name, ways[how], strerror(errno));
        return;
    }
    if (how == 4) {                     /* a file anyone may replace: not a claim */
        if (unlinkat(pool, name, 0) < 0 && errno != ENOENT && errno != EISDIR)
            fail("renamed_files_can_go", "unlink %s: %s", name, strerror(errno));
        return;
    }
    owned[nowned].name = c;
    owned[nowned].ino = ino;
    owned[nowned++].dir = dir;
}

/* A name we claimed is still ours; let it go, or move it. */
static void op_release(void)
{
    int i = rnd(nowned), fd, r, to, err;
    char name[8], other[8];
    unsigned ino;

    if (!nowned)
        return;
    name_of_claim(name, sizeof(name), owned[i].name);
    fd = walk(pool, name, WALK_NOFOLLOW);
    err = errno;
    ino = fd < 0 ? 0 : ino_of(fd);
    close(fd);
    if (ino != owned[i].ino) {
        fail("claims_are_kept", "%s (%s, inode %u) is now %s %u", name,
             owned[i].dir ? "a directory" : "a file", owned[i].ino,
             fd < 0 ? strerror(err) : "inode", ino);
        drop_owned(i);
        return;
    }
    if (chance(25)) {                   /* move it to a free x name */
        to = rnd(NX);
        if (find_owned(to) >= 0)
            return;
        name_of_claim(other, sizeof(other), to);
        if (renameat(pool, name, pool, other, RENAME_NOREPLACE) == 0)
            owned[i].name = to;
        else if (errno != EEXIST)
            fail("claims_move", "rename %s %s: %s", name, other, strerror(errno));
        return;
    }
    r = unlinkat(pool, name, owned[i].dir ? UNLINK_DIR : 0);
    if (r == 0)
        drop_owned(i);
    else if (!(owned[i].dir && errno == ENOTEMPTY))
        fail("claims_can_be_let_go", "unlink %s: %s", name, strerror(errno));
}

/* An entry made in a directory (someone's claim, perhaps being removed
 * or moved at this moment) stays there until we remove it ourselves:
 * nobody else removes it, and the directory cannot go while it holds it. */
static void op_child(void)
{
    char name[8];
    int d, fd, dir = chance(30);

    name_of_claim(name, sizeof(name), rnd(NCLAIM));
    if ((d = walk(pool, name, WALK_NOFOLLOW)) < 0)
        return;
    fd = create(d, "c", dir ? S_IFDIR : S_IFREG, 0755, 0);
    if (fd < 0 && errno != EEXIST && errno != ENOENT && errno != ENOTDIR)
        fail("creates_fail_only_for_a_reason", "%s/c: %s", name, strerror(errno));
    close(fd);
    if (fd >= 0 && chance(30))
        close(walk(pool, "nobody", 0));         /* a little later */
    if (fd >= 0 && unlinkat(d, "c", dir ? UNLINK_DIR : 0) < 0)
        fail("entries_stay_until_removed", "%s/c (%s) made, then unlink: %s", name,
             dir ? "a directory" : "a file", strerror(errno));
    close(d);
}

/* Our data: writes at an offset, truncations of our own file, and reads
 * that must give back what we wrote (nobody else writes our bytes; the
 * others write theirs into the same blocks' tree of the shared file). */
static void op_data(void)
{
    struct data *d = &data[rnd(2)];
    unsigned off = rnd(DATA_MAX), n = 1 + rnd(DATA_MAX - off), i;
    int r = -1, what = rnd(3);

    if (what == 1 && !d->own)
        what = 2;
    switch (what) {
    case 0:
        for (i = 0; i < n; i++)
            buf[i] = d->shadow[off + i] = (unsigned char)fz_next(&rng);
        if (lseek(d->fd, d->base + off, SEEK_SET) != (int)(d->base + off) ||
            write(d->fd, buf, n) != (int)n) {
            fail("data_writes", "write %u at %u: %s", n, d->base + off, strerror(errno));
            return;
        }
        if (off + n > d->len)
            d->len = off + n;
        break;
    case 1:
        if (ftruncate(d->fd, off) < 0) {
            fail("data_truncates", "to %u: %s", off, strerror(errno));
            return;
        }
        if (off < d->len)
            memset(d->shadow + off, 0, d->len - off);
        d->len = off;
        break;
    default: /* our own file to its end; our part of the shared one */
        if (lseek(d->fd, d->base, SEEK_SET) == (int)d->base)
            r = read_full(d->fd, buf, d->own ? sizeof(buf) : d->len);
        if (r != (int)d->len) {
            fail("data_reads_back", "%s: read %d bytes of %u: %s", d->own ? "own" : "shared", r,
                 d->len, strerror(errno));
            return;
        }
        for (i = 0; i < d->len; i++)
            if ((unsigned char)buf[i] != d->shadow[i]) {
                fail("data_reads_back", "%s: byte %u is %02x, wrote %02x",
                     d->own ? "own" : "shared", d->base + i, (unsigned char)buf[i], d->shadow[i]);
                return;
            }
        break;
    }
}

/* A file of ours with no name: made, opened, unlinked, written and read
 * back through its fd, now and then named again (linkat takes an open
 * file whose names are all gone) and removed again. Its inode goes with
 * the last close, or with our death if we are killed meanwhile (ext2's
 * free counts after the round say whether it went). */
static void op_orphan(void)
{
    char name[8];
    int fd, n = 1 + rnd(3000), i;

    snprintf(name, sizeof(name), "o%d", me);
    if (make(pool, name, S_IFREG) < 0 || (fd = open_at(pool, name, R_RDWR)) < 0 ||
        unlinkat(pool, name, 0) < 0) {
        fail("orphans_are_made", "%s: %s", name, strerror(errno));
        return;
    }
    for (i = 0; i < n; i++)
        buf[i] = (char)(i * 7 + me);
    if (write(fd, buf, n) != n || lseek(fd, 0, SEEK_SET) != 0 ||
        read_full(fd, buf + 4096, n) != n || memcmp(buf, buf + 4096, n) != 0)
        fail("orphans_keep_their_data", "%d bytes: %s", n, strerror(errno));
    if (chance(50) && (linkat(fd, pool, name) < 0 || unlinkat(pool, name, 0) < 0))
        fail("orphans_can_be_named_again", "%s: %s", name, strerror(errno));
    close(fd);
}

/* q/'s directories moved into and out of each other, and made again: a
 * move of a directory below itself must fail however others move things
 * meanwhile (else a loop cut off from the tree: the checks after the
 * round find it). Only errors a filesystem should never give fail. */
static void op_move(void)
{
    char from[8], to[8];
    int a = rnd(NMOVE), b = rnd(NMOVE), c = rnd(NMOVE), r;

    snprintf(from, sizeof(from), chance(50) ? "m%d" : "m%d/m%d", a, b);
    snprintf(to, sizeof(to), chance(50) ? "m%d" : "m%d/m%d", c, a);
    if (chance(30))
        r = make(moves, from, S_IFDIR);
    else
        r = renameat(moves, from, moves, to, chance(50) ? RENAME_NOREPLACE : 0);
    if (r < 0 && (errno == EIO || errno == EUCLEAN || errno == EFAULT || errno == EBADF))
        fail("directories_move", "%s %s: %s", from, to, strerror(errno));
}

/* Worker 0 and its twin share one fd table (rfork): fds SLOT0.. are
 * dup2'd, closed and used by both at once, so a call's fd may be closed
 * or replaced under it. Nothing else of theirs is touched: the sources
 * are fds opened for this alone (a path fd, a directory and a file ready
 * for reading), whose positions nobody needs. Any result will do but a
 * crash, a hang or a leak. */
static int sources[3] = { -1, -1, -1 }, twin_pid;

static void op_slots(void)
{
    int slot = SLOT0 + rnd(NSLOT);

    switch (rnd(6)) {
    case 0: dup2(sources[rnd(3)], slot); break;
    case 1: close(slot); break;
    case 2: read(slot, buf, 64); break;
    case 3: getdents(slot, buf, 512); break;
    case 4: lseek(slot, rnd(2) ? 0 : rnd(4096), SEEK_SET); break;
    default: close(walk(slot, rnd(2) ? "c" : "log0", 0)); break;
    }
}

static void __attribute__((noreturn)) twin(int parent)
{
    int i;

    for (i = 0; i < TWIN_OPS && getppid() == parent; i++) {
        op_slots();
        ops++;
    }
    tell("+%u", ops);
    _exit(0);
}

/* A lookup of a name nobody has: a walk through all of p/'s blocks. */
static void op_lookup(void)
{
    char name[8] = "nobody";

    if (chance(50))
        name_of_claim(name, sizeof(name), rnd(NCLAIM));
    close(walk(pool, name, WALK_NOFOLLOW));
}

static void one_op(void)
{
    unsigned w = rnd(100);

    if (w < 20)
        op_append();
    else if (w < 24)
        op_read_log();
    else if (w < 32)
        op_list_shared();
    else if (w < 37)
        op_list_own();
    else if (w < 42)
        op_must_exist();
    else if (w < 57)
        op_claim();
    else if (w < 67)
        op_release();
    else if (w < 77)
        op_child();
    else if (w < 87)
        op_data();
    else if (w < 91)
        op_move();
    else if (w < 94)
        op_orphan();
    else if (w < 99 && twin_pid && chance(50))
        op_slots();
    else if (w < 99)
        op_lookup();
    else
        sync();                         /* ext2's dirty blocks to the disk: a sleep inside */
    ops++;
}

static void __attribute__((noreturn)) worker(int who)
{
    char name[8];
    int p, i;

    me = who;
    rng = fz_seed(seed, round_no * WORKERS + who);
    snprintf(name, sizeof(name), "t%d", me);
    own_append = open_at(area, "log0", R_WRITE | R_APPEND);
    make(pool, name, S_IFREG);
    data[0].fd = (p = walk(pool, name, 0)) < 0 ? -1 : ready(p, R_RDWR);
    data[0].own = 1;
    close(p);
    data[1].fd = open_at(area, "shared", R_RDWR);
    data[1].base = PART_BASE + me * PART_STEP;
    if (own_append < 0 || data[0].fd < 0 || data[1].fd < 0) {
        fail("workers_start", "log0, shared or p/%s: %s", name, strerror(errno));
        _exit(1);
    }
    if (me == 0 && chance(50)) {
        sources[0] = dup(area);
        sources[1] = ready(pool, R_READ);
        sources[2] = open_at(area, "shared", R_READ);
        if ((twin_pid = rfork(RFORK_SHAREFDS)) == 0)
            twin(getppid());
        if (twin_pid > 0)
            to_leader(M_TWIN, 0, twin_pid);
        else
            twin_pid = 0;
    }
    for (i = 0; i < WORKER_OPS; i++) {
        one_op();
        if (ops % 50 == 0)
            tell("+%u", 50);
    }
    tell("+%u", ops % 50);
    if (twin_pid > 0) {
        kill(twin_pid, SIGKILL);
        waitpid(twin_pid, &i, 0);
    }
    to_leader(M_DONE, 0, seq[0]);
    to_leader(M_DONE, 1, seq[1]);
    _exit(0);
}

/* ---- the leader: sets a round up, runs its workers, checks */

static int dev_fd = -1;             /* /dev/hd0, for ext2's superblock */

/* ext2's free blocks and inodes, from the superblock on the disk. */
static int free_counts(unsigned *blocks, unsigned *inodes)
{
    unsigned char sb[1024];

    if (lseek(dev_fd, 1024, SEEK_SET) != 1024 || read_full(dev_fd, sb, 1024) != 1024)
        return -1;
    *blocks = sb[12] | sb[13] << 8 | sb[14] << 16 | (unsigned)sb[15] << 24;
    *inodes = sb[16] | sb[17] << 8 | sb[18] << 16 | (unsigned)sb[19] << 24;
    return 0;
}

/* The entries of directory d (not . and ..), in a malloc'd array of
 * names, with their inode numbers and types; the count, or -1. */
struct entry {
    char name[NAME_MAX + 1];
    unsigned ino, type;
};

static int list_all(int d, struct entry **out)
{
    int fd = ready(d, R_READ), n, i, count = 0;
    struct entry *e = malloc(MAX_ENTS * sizeof(*e));
    struct dirent *de;

    *out = e;
    if (fd < 0 || !e) {
        close(fd);
        return -1;
    }
    while ((n = getdents(fd, buf, sizeof(buf))) > 0)
        for (i = 0; i < n; i += de->d_reclen) {
            de = (struct dirent *)(buf + i);
            if (is_dots(de->d_name) || count == MAX_ENTS)
                continue;
            strlcpy(e[count].name, de->d_name, sizeof(e[count].name));
            e[count].ino = de->d_ino;
            e[count++].type = de->d_type;
        }
    close(fd);
    return n < 0 ? -1 : count;
}

static struct {
    unsigned ino, nlink, names;
} files[MAX_FILES];
static int nfiles;

static void count_name(unsigned ino, unsigned nlink)
{
    int i;

    for (i = 0; i < nfiles && files[i].ino != ino; i++)
        ;
    if (i == MAX_FILES)
        return;
    if (i == nfiles) {
        files[nfiles].ino = ino;
        files[nfiles].nlink = nlink;
        files[nfiles++].names = 0;
    }
    files[i].names++;
}

/* fsck, small: below d (called path), no name twice, every name resolves
 * to what its entry said, directories' link counts are 2 + subdirectories;
 * files' names are counted for check_links. 0, or -1 after a failure. */
static int check_tree(int d, const char *path, int depth)
{
    struct entry *e;
    struct stat st;
    int n = list_all(d, &e), i, j, c, subdirs = 0, bad = n < 0;

    if (n < 0)
        fail("areas_can_be_listed", "%s: %s", path, strerror(errno));
    for (i = 0; !bad && i < n; i++) {
        for (j = 0; j < i && strcmp(e[i].name, e[j].name) != 0; j++)
            ;
        if (j < i) {
            fail("names_are_listed_once", "%s/%.40s twice", path, e[i].name);
            bad = 1;
            break;
        }
        if ((c = walk(d, e[i].name, WALK_NOFOLLOW)) < 0 || fstat(c, &st) < 0) {
            fail("listed_names_resolve", "%s/%.40s: %s", path, e[i].name, strerror(errno));
            bad = 1;
        } else if (st.st_ino != e[i].ino || (S_ISDIR(st.st_mode) != (e[i].type == DT_DIR))) {
            fail("listings_agree_with_stat", "%s/%.40s: listed inode %u type %u, is %u mode %o",
                 path, e[i].name, e[i].ino, e[i].type, st.st_ino, st.st_mode);
            bad = 1;
        } else if (S_ISDIR(st.st_mode)) {
            subdirs++;
            bad = depth < 8 && check_tree(c, e[i].name, depth + 1) < 0;
        } else {
            count_name(st.st_ino, st.st_nlink);
        }
        close(c);
    }
    if (!bad && fstat(d, &st) == 0 && st.st_nlink != 2u + subdirs) {
        fail("directory_link_counts", "%s: nlink %u with %d subdirectories", path, st.st_nlink,
             subdirs);
        bad = 1;
    }
    free(e);
    return bad ? -1 : 0;
}

static int check_links(void)
{
    int i;

    for (i = 0; i < nfiles; i++)
        if (files[i].names != files[i].nlink) {
            fail("file_link_counts", "inode %u: nlink %u, %u names found", files[i].ino,
                 files[i].nlink, files[i].names);
            return -1;
        }
    return 0;
}

/* Remove name under d and everything below it. `strict`: every removal
 * must succeed (after a round); else as much as can be (a leftover from
 * a round that was stopped). 0, or -1. */
static int remove_tree(int d, const char *name, int strict)
{
    struct entry *e = NULL;
    int c = walk(d, name, WALK_NOFOLLOW), n, i, bad = 0;
    struct stat st;

    if (c < 0 || fstat(c, &st) < 0) {
        close(c);
        return strict ? -1 : 0;
    }
    if (S_ISDIR(st.st_mode)) {
        n = list_all(c, &e);
        for (i = 0; i < n; i++)
            bad |= remove_tree(c, e[i].name, strict);
        free(e);
    }
    close(c);
    if (unlinkat(d, name, S_ISDIR(st.st_mode) ? UNLINK_DIR : 0) < 0) {
        if (strict)
            fail("areas_remove_cleanly", "%.40s: %s", name, strerror(errno));
        return -1;
    }
    return bad;
}

/* race/: log0, log1, shared, s/ (NSTATIC entries), p/ (NSTABLE entries,
 * with holes between them where removed fillers were), q/ (NMOVE
 * directories). 0, or -1. */
static int setup_area(int root)
{
    char name[128];
    int i, s, err;

    err = make(root, "race", S_IFDIR) < 0 || (area = walk(root, "race", 0)) < 0 ||
          make(area, "log0", S_IFREG) < 0 || make(area, "log1", S_IFREG) < 0 ||
          make(area, "shared", S_IFREG) < 0 || make(area, "s", S_IFDIR) < 0 ||
          make(area, "p", S_IFDIR) < 0 || make(area, "q", S_IFDIR) < 0 ||
          (s = walk(area, "s", 0)) < 0 || (pool = walk(area, "p", 0)) < 0 ||
          (moves = walk(area, "q", 0)) < 0;
    for (i = 0; !err && i < NMOVE; i++) {
        snprintf(name, sizeof(name), "m%d", i);
        err = make(moves, name, S_IFDIR) < 0;
    }
    for (i = 0; !err && i < NSTATIC; i++) {
        name_of_static(name, sizeof(name), i);
        err = make(s, name, S_IFREG) < 0;
    }
    for (i = 0; !err && i < NSTABLE; i++) {
        name_of_stable(name, sizeof(name), i);
        err = make(pool, name, S_IFREG) < 0;
        snprintf(name, sizeof(name), "filler%02d" LONG_NAME, i);
        err = err || make(pool, name, S_IFREG) < 0;
    }
    for (i = 0; !err && i < NSTABLE; i += 2) {
        snprintf(name, sizeof(name), "filler%02d" LONG_NAME, i);
        err = unlinkat(pool, name, 0) < 0;
    }
    close(s);
    return err ? -1 : 0;
}

/* The logs after the round: each worker's records 0, 1, ... in each, once
 * each, none missing; as many as it said it wrote, if it lived to say. */
static void check_log(int log, const unsigned *done, const int *told)
{
    unsigned top, s;
    int who;

    if (scan_log(log) < 0)
        return;
    for (who = 0; who < WORKERS; who++) {
        for (top = WORKER_OPS; top > 0 && !seen[who][top - 1]; top--)
            ;
        for (s = 0; s < top && seen[who][s]; s++)
            ;
        if (s < top || (told[who] && done[who] != top)) {
            fail("appended_records_are_kept",
                 "log%d: worker %d wrote %u records, has 0..%d, not %u", log, who,
                 told[who] ? done[who] : top, (int)s - 1, s);
            break;
        }
    }
}

static int msgs_r;
static unsigned saw[NSTATIC], done[2][WORKERS];
static int told[2][WORKERS], listing_ended, twin_of_0;

static void read_msgs(void)
{
    struct msg m[32];
    int n, i;

    while ((n = read(msgs_r, m, sizeof(m))) > 0)
        for (i = 0; i < n / (int)sizeof(m[0]); i++) {
            if (m[i].who >= WORKERS)
                continue;
            if (m[i].kind == M_SAW && m[i].a < NSTATIC)
                saw[m[i].a]++;
            else if (m[i].kind == M_END)
                listing_ended = 1;
            else if (m[i].kind == M_TWIN)
                twin_of_0 = m[i].b;
            else if (m[i].kind == M_DONE && m[i].a < 2) {
                done[m[i].a][m[i].who] = m[i].b;
                told[m[i].a][m[i].who] = 1;
            }
        }
}

/* Fork the workers, kill some mid-call, wait for the rest; the number
 * killed, or -1 if the round got stuck. */
static int run_workers(void)
{
    int pid[WORKERS], alive = 0, i, st, killed = 0, p[2];
    unsigned start = uptime_ms(), kill_at = chance(40) ? rnd(KILL_MS) : ~0u;

    if (pipe(p) < 0)
        return -1;
    msgs_r = p[0];
    msg_w = p[1];
    fcntl(msgs_r, F_SETFL, R_NONBLOCK);
    for (i = 0; i < WORKERS; i++) {
        if ((pid[i] = fork()) == 0) {
            close(msgs_r);
            worker(i);
        }
        alive += pid[i] > 0;
    }
    close(msg_w);
    while (alive > 0) {
        read_msgs();
        if (uptime_ms() - start >= kill_at) {   /* SIGKILL, most likely inside a call */
            i = rnd(WORKERS);
            if (pid[i] > 0 && kill(pid[i], SIGKILL) == 0)
                killed++;
            kill_at = chance(30) ? kill_at + rnd(KILL_MS) : ~0u;
        }
        if (uptime_ms() - start >= ROUND_MS) {
            fail("rounds_end", "%d workers still running after %u ms", alive, ROUND_MS);
            for (i = 0; i < WORKERS; i++)
                if (pid[i] > 0)
                    kill(pid[i], SIGKILL);
            killed = -1;
            start = uptime_ms();
        }
        for (i = 0; i < WORKERS; i++)
            if (pid[i] > 0 && waitpid(pid[i], &st, WNOHANG) == pid[i]) {
                pid[i] = 0;
                alive--;
            }
        sleep_ms(2);
    }
    read_msgs();
    close(msgs_r);
    /* A twin outlives a killed worker 0 until it sees it gone (its parent
     * changes): wait for it, holding the round's files as it does. */
    for (start = uptime_ms(); twin_of_0 > 0 && kill(twin_of_0, SIGKILL) == 0; sleep_ms(2))
        if (uptime_ms() - start >= ROUND_MS) {
            fail("rounds_end", "worker 0's twin %d outlives SIGKILL", twin_of_0);
            return -1;
        }
    return killed;
}

/* One round in a sandbox of its own; exits 0 if nothing failed. */
static void __attribute__((noreturn)) leader(void)
{
    int root, tmp, killed, i, ext2 = round_no % 3 != 2, p;
    unsigned blocks0 = 0, inodes0 = 0, blocks1, inodes1;

    rng = fz_seed(seed, 0x10000 + round_no);
    fs_name = ext2 ? "ext2" : "ramfs";
    setpgid(0, 0);
    if ((tmp = fz_sandbox_root()) < 0 || fz_sandbox_enter(tmp, REPORT_FD) < 0) {
        fail("sandbox", "cannot enter: %s", strerror(errno));
        _exit(1);
    }
    if (ext2) {
        p = walk(AT_CWD, "/dev/hd0", 0);
        dev_fd = p < 0 ? -1 : ready(p, R_RDWR);
        close(p);
        root = dev_fd < 0 ? -1 : fsopen("ext2", dev_fd, "");
    } else {
        root = walk(AT_CWD, "/tmp", 0);
    }
    if (root < 0) {
        fail("setup", "no %s (/dev/hd0 must hold one: tools/fuzz.py formats it): %s", fs_name,
             strerror(errno));
        _exit(1);
    }
    remove_tree(root, "race", 0);       /* what a stopped round left */
    if (ext2 && free_counts(&blocks0, &inodes0) < 0) {
        fail("setup", "ext2's superblock on /dev/hd0: %s", strerror(errno));
        _exit(1);
    }
    if (setup_area(root) < 0) {
        fail("setup", "the area: %s", strerror(errno));
        _exit(1);
    }
    shared_append = open_at(area, "log0", R_WRITE | R_APPEND);
    shared_log1 = open_at(area, "log1", R_WRITE);
    shared_list = open_at(area, "s", R_READ);
    if ((killed = run_workers()) < 0)
        _exit(1);
    tell("!%d", killed);
    check_log(0, done[0], told[0]);
    check_log(1, done[1], told[1]);
    for (i = 0; i < NSTATIC; i++)
        if (saw[i] > 1 || (listing_ended && !killed && saw[i] != 1)) {
            fail("shared_listings_show_each_entry_once",
                 "static%02d read %u times through one open directory", i, saw[i]);
            break;
        }
    close(shared_append);
    close(shared_log1);
    close(shared_list);
    close(pool);
    close(moves);
    if (check_tree(area, "race", 0) == 0)
        check_links();
    close(area);
    if (remove_tree(root, "race", 1) < 0)
        _exit(1);
    close(root);                        /* ext2: the last reference, so the instance goes */
    if (ext2) {
        if (free_counts(&blocks1, &inodes1) < 0 || blocks1 != blocks0 || inodes1 != inodes0)
            fail("ext2_frees_what_a_round_made",
                 "free inodes %u before, %u after; free blocks %u, %u", inodes0, inodes1, blocks0,
                 blocks1);
        if ((root = fsopen("ext2", dev_fd, "")) < 0)
            fail("ext2_mounts_again", "%s", strerror(errno));
        else if (check_tree(root, "/", 0) == 0)
            check_links();
        close(root);
    }
    _exit(0);
}

/* ---- the fuzzer: a leader per round, its lines printed */

struct report {
    int fd, failed;
    unsigned kills;
    char line[256];
    int len;
};

/* Read what the leader and its workers said: "+N" (calls made), "!N"
 * (workers killed), anything else printed as it is. */
static void read_report(struct fuzz *f, struct report *r)
{
    char c;

    while (read(r->fd, &c, 1) == 1) {
        if (c != '\n') {
            if (r->len < (int)sizeof(r->line) - 1)
                r->line[r->len++] = c;
            continue;
        }
        r->line[r->len] = '\0';
        r->len = 0;
        if (r->line[0] == '+')
            f->count += atoi(r->line + 1);
        else if (r->line[0] == '!')
            r->kills += atoi(r->line + 1);
        else {
            fz_say("%s\n", r->line);
            r->failed |= strncmp(r->line, "FAIL", 4) == 0;
        }
    }
}

int main(int argc, char **argv)
{
    struct fuzz f;
    struct report r = { 0 };
    int p[2], pid, status;
    unsigned rounds = 0, start;

    if (fz_start(&f, "fuzz_race", argc, argv) < 0)
        return 2;
    seed = f.seed;
    if (pipe(p) < 0 || fcntl(p[0], F_SETFL, R_NONBLOCK) < 0)
        return 2;
    r.fd = p[0];
    for (round_no = 0; !r.failed && !fz_over(&f); round_no++) {
        fflush(stdout);
        if ((pid = fork()) == 0) {
            close(p[0]);
            dup2(p[1], REPORT_FD);
            leader();
        }
        if (pid < 0) {
            fz_nap(&f, 20);
            continue;
        }
        rounds++;
        start = uptime_ms();
        while (waitpid(pid, &status, WNOHANG) == 0) {
            read_report(&f, &r);
            if (uptime_ms() - start > LEADER_MS) {
                fz_say("FAIL fuzz_race_rounds_end: round %u's leader ran %u ms\n", round_no,
                       LEADER_MS);
                r.failed = 1;
                status = fz_reap(&f, pid, 0);
                break;
            }
            fz_nap(&f, 5);
        }
        kill(-pid, SIGKILL);            /* its workers, if any are left */
        read_report(&f, &r);
        if (!r.failed && status != 0)
            fz_say("FAIL fuzz_race_leader_ends_well: round %u's leader exit status %d\n", round_no,
                   status);
        r.failed |= status != 0;
    }
    close(p[0]);
    close(p[1]);
    fz_say("fuzz_race: %u rounds (ext2 %u, ramfs %u), %u ops, %u workers killed\n", rounds,
           rounds - rounds / 3, rounds / 3, f.count, r.kills);
    return fz_finish(&f) || r.failed;
}
