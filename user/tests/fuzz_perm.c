/* fuzz_perm.c - the authority fuzzer: /bin/fuzz_perm SEED SECONDS [MAXCOUNT].
 *
 * An oracle fuzzer for who may do what (DESIGN.md section 10, the man
 * pages of walk, ready, create, unlink, rename, link, fchmod, fchown,
 * ftruncate, getdents, exec, bind, unbind, fchroot, revoke, setuid). Each
 * round, root builds a small random tree in the sandbox's ramfs /tmp, or
 * (one round in two, if the guest has a disk: tools/fuzz.py formats one)
 * on an ext2 instance at /mnt:
 * directories, files (some a tiny program), a FIFO, a symlink, owned by a
 * few users and groups, with random modes (sticky directories, ones with
 * no search bit, group-only ones). Then each operation runs in a child
 * that takes a random group and user (setgid, setuid) and makes one call
 * (or a short sequence: walk then ready, unshare then bind), and a model
 * of the tree predicts its result - success or the exact errno - from the
 * rules as the manual states them (m_* below; doc/fuzzing.md lists the
 * choices made where the pages are silent). A success is applied to the
 * model; after every operation root stats the nodes it touched and lists
 * the directories it touched (everything, every 16 operations) and
 * compares them with the model: type, mode, owner, group, link count,
 * size, inode, names. A disagreement fails the run with
 *
 *   FAIL fuzz_perm_oracle: seed S round R op N: <the call>: kernel X, docs Y
 *
 * the credentials, the model's tree, and the round's operations so far;
 * the same seed repeats the same operations, and MAXCOUNT (the count it
 * prints) stops right after the one that failed. The count is operations
 * ("ops").
 *
 * Everything runs in a sandbox (fuzz.h): a runner process enters one
 * (keeping the console for its lines) and does the rounds; the fuzzer
 * waits for it, then checks for leaks. */
#include <fcntl.h>
#include <orthos.h>
#include <stdarg.h>
#include "fuzz.h"

#define NN         40               /* nodes in the model */
#define NE         56               /* names in the model */
#define ROUND_OPS  150              /* operations in a round */
#define FULL_EVERY 16               /* a full comparison every this many operations */
#define HIST       40               /* operations shown with a failure */
#define MAX_FAILS  4                /* failures printed before the run stops */
#define DEPTH_MAX  8                /* symlinks followed in one walk (walk(2)) */
#define KEEP       (-1)             /* fchown: leave the id */
#define EXEC_OK    1000             /* the op child's exec ran the program */
#define ANY_RESULT 1001             /* predict: the rules do not say (a garbled program) */
#define NO_DISK    3                /* hd3: never there, so a block node's ready is ENXIO */

/* ---------------------------------------------------------------- the model */

struct mnode {
    int used;
    unsigned type, mode;            /* S_IFDIR.., and the bits 07777 */
    unsigned uid, gid, size, ino;   /* ino 0: not known yet (learnt at the next check) */
    int elf;                        /* what exec finds: enum below */
    char target[4];                 /* a symlink's: a name in its own directory */
};

/* A regular file's contents, for exec: zeros (or nothing), the tiny
 * program, the program cut short (ENOEXEC: shorter than its headers and
 * segment claim), or one cut and grown again (zeros inside: it may load
 * and fault, or not load; the oracle leaves its exec alone). */
enum { NOT_ELF, WHOLE_ELF, CUT_ELF, GARBLED_ELF };

struct ment {
    int used, dir, node;            /* the name `name` in directory dir is node */
    char name[4];
};

static struct mnode N[NN];
static struct ment E[NE];

/* The credentials an operation runs with. */
struct cred {
    unsigned uid, gid;
};

static const char *const NAMES[] = { "a", "b", "c", "d", "e", "f" };
#define NNAMES 6

static int is_dir(int n)
{
    return N[n].type == S_IFDIR;
}

static int m_find(int dir, const char *name)
{
    int i;

    for (i = 0; i < NE; i++)
        if (E[i].used && E[i].dir == dir && strcmp(E[i].name, name) == 0)
            return i;
    return -1;
}

/* How many names node n has; for a directory, how many of its entries
 * are directories (its link count is 2 + that). */
static int m_names(int n)
{
    int i, k = 0;

    for (i = 0; i < NE; i++)
        k += E[i].used && E[i].node == n;
    return k;
}

static int m_subdirs(int d, int only_dirs)
{
    int i, k = 0;

    for (i = 0; i < NE; i++)
        k += E[i].used && E[i].dir == d && (!only_dirs || is_dir(E[i].node));
    return k;
}

static unsigned m_nlink(int n)
{
    return is_dir(n) ? 2u + m_subdirs(n, 1) : (unsigned)m_names(n);
}

static unsigned pick(unsigned n);
static int detours;                 /* m_path puts in "sub/.." and "." now and then */

/* The path of node n from the base ("p", "p/a/b"): a directory's one
 * name, a file's first. 0, or -1 if n has no name left. */
static int m_path(int n, char *buf, int size)
{
    char tmp[96];
    int i, j;

    if (n == 0) {
        snprintf(buf, size, "p");
        return 0;
    }
    for (i = 0; i < NE; i++)
        if (E[i].used && E[i].node == n) {
            if (m_path(E[i].dir, tmp, sizeof(tmp)) < 0)
                return -1;
            if (detours && pick(8) == 0) {   /* down into a subdirectory and back */
                for (j = 0; j < NE; j++)
                    if (E[j].used && E[j].dir == E[i].dir && is_dir(E[j].node))
                        break;
                if (j < NE && strlen(tmp) < 40)
                    snprintf(tmp + strlen(tmp), sizeof(tmp) - strlen(tmp), "/%s/..", E[j].name);
            } else if (detours && pick(12) == 0 && strlen(tmp) < 40) {
                strcat(tmp, "/.");
            }
            snprintf(buf, size, "%s/%s", tmp, E[i].name);
            return 0;
        }
    return -1;
}

static int m_new_node(unsigned type, unsigned mode, unsigned uid, unsigned gid)
{
    int i;

    for (i = 0; i < NN; i++)
        if (!N[i].used) {
            memset(&N[i], 0, sizeof(N[i]));
            N[i].used = 1;
            N[i].type = type;
            N[i].mode = mode & 07777;
            N[i].uid = uid;
            N[i].gid = gid;
            return i;
        }
    return -1;
}

static int m_free_slots(void)
{
    int i, n = 0, e = 0;

    for (i = 0; i < NN; i++)
        n += !N[i].used;
    for (i = 0; i < NE; i++)
        e += !E[i].used;
    return n < e ? n : e;
}

static void m_add_name(int dir, const char *name, int node)
{
    int i;

    for (i = 0; i < NE; i++)
        if (!E[i].used) {
            E[i].used = 1;
            E[i].dir = dir;
            E[i].node = node;
            snprintf(E[i].name, sizeof(E[i].name), "%s", name);
            return;
        }
}

/* Take name e away; its node goes with its last name. */
static void m_drop_name(int e)
{
    int n = E[e].node;

    E[e].used = 0;
    if (!m_names(n))
        N[n].used = 0;
}

/* The directory directory d's name is in (d > 0). */
static int m_parent(int d)
{
    int i;

    for (i = 0; i < NE; i++)
        if (E[i].used && E[i].node == d)
            return E[i].dir;
    return -1;
}

/* Is a an ancestor of d (or d itself)? */
static int m_below(int a, int d)
{
    int i;

    while (d != a) {
        if (d == 0)
            return 0;
        for (i = 0; i < NE && !(E[i].used && E[i].node == d); i++)
            ;
        if (i == NE)
            return 0;
        d = E[i].dir;
    }
    return 1;
}

/* ---------------------------------------------------------------- the rules, as the pages state
 * them */

#define MAY_X 1
#define MAY_W 2
#define MAY_R 4

/* fchmod(2), ready(2), exec(2): everyone but root gets the bits of exactly
 * one class (owner if it owns the node, else group if in its group, else
 * others); root passes on a directory, and elsewhere needs the bit in
 * some class ("a 0444 file is read-only for root too"). */
static int m_may(const struct cred *c, int n, int want)
{
    unsigned m = N[n].mode, bits;

    if (c->uid == 0)
        bits = is_dir(n) ? 7 : (m >> 6 | m >> 3 | m) & 7;
    else if (c->uid == N[n].uid)
        bits = m >> 6 & 7;
    else if (c->gid == N[n].gid)
        bits = m >> 3 & 7;
    else
        bits = m & 7;
    return want & ~bits ? -EACCES : 0;
}

/* unlink(2), rename(2): in a sticky directory only root, the node's
 * owner or the directory's may take a name away. */
static int m_sticky(const struct cred *c, int dir, int n)
{
    if (!(N[dir].mode & S_ISVTX) || c->uid == 0 || c->uid == N[n].uid || c->uid == N[dir].uid)
        return 0;
    return -EPERM;
}

/* Adding or taking a name in dir: write and search on it. */
static int m_dir_change(const struct cred *c, int dir)
{
    return m_may(c, dir, MAY_W | MAY_X);
}

enum { FOLLOW, NOFOLLOW, PARENT };

static int m_resolve_in(const struct cred *c, int cur, const char *path, int how, char *last,
                        int *depth);

/* walk(2): one component at a time from directory cur: each directory
 * searched needs x; symlinks are followed (but a last one with NOFOLLOW
 * or PARENT), their target resolved from the link's directory; more than
 * 8 is ELOOP. With PARENT, the directory of the last name (searched too)
 * and the name in `last`. A node, or -errno. */
static int m_resolve_in(const struct cred *c, int cur, const char *path, int how, char *last,
                        int *depth)
{
    char comp[8];
    int e, n, err;

    while (*path) {
        const char *end = strchr(path, '/');
        int len = end ? end - path : (int)strlen(path), is_last = !end;

        snprintf(comp, sizeof(comp), "%.*s", len, path);
        path = end ? end + 1 : path + len;
        if (!is_dir(cur))
            return -ENOTDIR;
        if ((err = m_may(c, cur, MAY_X)) < 0)
            return err;
        if (is_last && how == PARENT) {
            strcpy(last, comp);
            return cur;
        }
        if (strcmp(comp, ".") == 0)
            continue;
        if (strcmp(comp, "..") == 0) {      /* back where the walk came from */
            if (cur == 0 || (cur = m_parent(cur)) < 0)
                return -ENOENT;             /* (never made: paths stay in the tree) */
            continue;
        }
        if ((e = m_find(cur, comp)) < 0)
            return -ENOENT;
        n = E[e].node;
        if (N[n].type == S_IFLNK && (!is_last || how == FOLLOW)) {
            if (++*depth > DEPTH_MAX)
                return -ELOOP;
            if ((n = m_resolve_in(c, cur, N[n].target, FOLLOW, NULL, depth)) < 0)
                return n;
        }
        cur = n;
    }
    return cur;
}

/* A path from /tmp: "p" is node 0 (/tmp itself is 0755 root's: searchable). */
static int m_resolve(const struct cred *c, const char *path, int how, char *last)
{
    int depth = 0;

    if (strncmp(path, "p", 1) != 0 || (path[1] != '/' && path[1] != '\0'))
        return -ENOENT;
    if (path[1] == '\0')
        return how == PARENT ? -EINVAL : 0;
    return m_resolve_in(c, 0, path + 2, how, last, &depth);
}

/* ---------------------------------------------------------------- operations */

enum {
    OP_WALK,
    OP_READY,
    OP_GETDENTS,
    OP_CREATE,
    OP_UNLINK,
    OP_RENAME,
    OP_LINK,
    OP_CHMOD,
    OP_CHOWN,
    OP_TRUNC,
    OP_EXEC,
    OP_BIND,
    OP_FCHROOT,
    OP_REVOKE,
    OP_SETID,
    NOPS
};
static const char *const OPNAME[] = { "walk",   "ready", "getdents", "create", "unlink",
                                      "rename", "link",  "chmod",    "chown",  "ftruncate",
                                      "exec",   "bind",  "fchroot",  "revoke", "setid" };

/* One operation: its arguments, and what the child reports. */
struct op {
    int kind;
    struct cred c;
    char path[64], path2[64];       /* from /tmp */
    int flags, mode, a, b;          /* per kind, below */
    int byfd;                       /* the node is handed over as a path fd root walked */
    int rootfd;                     /* that fd (or a readied one), -1 if none */
    int node;                       /* for byfd: the model node it names */
};

struct result {
    int err;                        /* 0, -errno, or EXEC_OK */
    int more[2];                    /* bind: fchmod through it (BIND_RDONLY), unbind */
    unsigned ino, mode, uid;        /* of what the call returned or made */
    char names[64];                 /* getdents: the names, sorted, space-separated */
};

static unsigned seed, round_no, opno, failures, *countp;
static int tmpfd = -1;              /* the base the tree is in: /tmp (ramfs) or /mnt (ext2) */
static const char *base = "/tmp";
static char elf[256];
static int elf_len;
static char hist[HIST][150];
static unsigned outcome[NOPS][4];   /* per kind: predicted 0, EACCES, EPERM, other errors */
static unsigned hist_n;

static const char *errname(int err)
{
    static char buf[16];

    switch (-err) {
    case 0: return "0";
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case EEXIST: return "EEXIST";
    case ENOTDIR: return "ENOTDIR";
    case EISDIR: return "EISDIR";
    case EINVAL: return "EINVAL";
    case ENOTEMPTY: return "ENOTEMPTY";
    case ELOOP: return "ELOOP";
    case EBUSY: return "EBUSY";
    case EXDEV: return "EXDEV";
    case ENOEXEC: return "ENOEXEC";
    case ENXIO: return "ENXIO";
    case EIO: return "EIO";
    case EROFS: return "EROFS";
    case EBADF: return "EBADF";
    }
    if (err == EXEC_OK)
        return "ran";
    snprintf(buf, sizeof(buf), "errno %d", -err);
    return buf;
}

static void op_text(const struct op *o, char *buf, int size)
{
    snprintf(buf, size, "uid %u gid %u %s%s %s%s%s flags 0x%x mode 0%o a %d b %d", o->c.uid,
             o->c.gid, OPNAME[o->kind], o->byfd ? " (root's fd)" : "", o->path,
             o->path2[0] ? " -> " : "", o->path2, o->flags, o->mode, o->a, o->b);
}

/* ---------------------------------------------------------------- the child's side */

/* Become the operation's user: setgid first (after setuid it is fixed). */
static void take_cred(const struct cred *c)
{
    if (setgid(c->gid) < 0 || setuid(c->uid) < 0)
        _exit(99);
}

static int e(int r)
{
    return r < 0 ? -errno : r;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in directory fd (readied), sorted, into out ("" for none). */
static int list_names(int fd, char *out, int size)
{
    char buf[512], *names[NE];
    int n, i, k = 0, off = 0;

    while ((n = getdents(fd, buf, sizeof(buf))) > 0)
        for (i = 0; i < n; i += ((struct dirent *)(buf + i))->d_reclen) {
            char *nm = ((struct dirent *)(buf + i))->d_name;
            if (strcmp(nm, ".") && strcmp(nm, "..") && k < NE)
                names[k++] = strdup(nm);
        }
    if (n < 0)
        return -errno;
    qsort(names, k, sizeof(names[0]), cmp_str);
    out[0] = '\0';
    for (i = 0; i < k; i++) {
        off += snprintf(out + off, size - off, "%s%s", i ? " " : "", names[i]);
        free(names[i]);
    }
    return 0;
}

/* The node to work on: root's path fd, or the child's own walk. */
static int node_fd(const struct op *o, int flags)
{
    return o->byfd ? o->rootfd : e(walk(tmpfd, o->path, flags));
}

/* After unshare: /tmp again, through the new namespace (bind refuses a
 * place reached through another namespace's attachments: bind(2)). */
static int own_tmp(void)
{
    close(tmpfd);
    return tmpfd = walk(AT_CWD, base, 0);
}

static int do_op(const struct op *o, struct result *r)
{
    struct stat st;
    int fd, fd2, err;
    char *argv[] = { "perm_x", NULL };

    take_cred(&o->c);
    switch (o->kind) {
    case OP_WALK:
        if ((fd = e(walk(tmpfd, o->path, o->flags))) < 0)
            return fd;
        fstat(fd, &st);
        r->ino = st.st_ino;
        return 0;
    case OP_READY:
        if ((fd = node_fd(o, o->flags)) < 0)
            return fd;
        return (fd = e(ready(fd, o->mode))) < 0 ? fd : 0;
    case OP_GETDENTS:
        if ((fd = node_fd(o, 0)) < 0 || (fd = e(ready(fd, R_READ))) < 0)
            return fd;
        return list_names(fd, r->names, sizeof(r->names));
    case OP_CREATE:
        if ((fd = e(create(tmpfd, o->path, o->a, o->mode,
                           o->a == S_IFLNK   ? (unsigned long)NAMES[o->b]
                           : o->a == S_IFCHR ? MKDEV(DEV_MEM, 0)         /* /dev/null */
                           : o->a == S_IFBLK ? MKDEV(DEV_ATA, NO_DISK)
                                             : 0))) < 0)
            return fd;
        fstat(fd, &st);
        r->ino = st.st_ino;
        r->mode = st.st_mode;
        r->uid = st.st_uid;
        return 0;
    case OP_UNLINK: return e(unlinkat(tmpfd, o->path, o->flags));
    case OP_RENAME: return e(renameat(tmpfd, o->path, tmpfd, o->path2, o->flags));
    case OP_LINK:
        if ((fd = node_fd(o, WALK_NOFOLLOW)) < 0)
            return fd;
        return e(linkat(fd, tmpfd, o->path2));
    case OP_CHMOD:
        if ((fd = node_fd(o, o->flags)) < 0)
            return fd;
        return e(fchmod(fd, o->mode));
    case OP_CHOWN:
        if ((fd = node_fd(o, o->flags)) < 0)
            return fd;
        return e(fchown(fd, o->a, o->b));
    case OP_TRUNC:                  /* root's fd is readied for writing already */
        if (!o->byfd && ((fd = node_fd(o, 0)) < 0 || (fd = e(ready(fd, R_WRITE))) < 0))
            return fd;
        return e(ftruncate(o->byfd ? o->rootfd : fd, o->a));
    case OP_EXEC:
        if ((fd = node_fd(o, 0)) < 0)
            return fd;
        fflush(stdout);
        return e(exec(fd, argv, NULL));
    case OP_BIND:                   /* a: unshare first; then bind and unbind */
        if (o->a && (unshare() < 0 || own_tmp() < 0))
            return -1000;
        if ((fd = node_fd(o, 0)) < 0)
            return fd;
        if ((err = e(bind(fd, tmpfd, o->path2, o->flags))) < 0)
            return err;
        if (o->flags & BIND_RDONLY)     /* a change through the attachment */
            r->more[0] = (fd2 = e(walk(tmpfd, o->path2, 0))) < 0 ? fd2 : e(fchmod(fd2, 0777));
        r->more[1] = unbind(tmpfd, o->path2) < 0 ? -errno : 0;   /* (an fd on what it held) */
        return 0;
    case OP_FCHROOT:
        if (o->a && (unshare() < 0 || own_tmp() < 0))
            return -1000;
        if ((fd = node_fd(o, 0)) < 0)
            return fd;
        return e(fchroot(fd));
    case OP_REVOKE:                 /* a: 0 the tree's /tmp, 1 own ramfs, 2 own, bound */
        if (o->a == 0)
            return e(revoke(o->rootfd));
        if ((fd = e(fsopen("ramfs", -1, ""))) < 0)
            return fd;
        fstat(fd, &st);
        r->uid = st.st_uid;
        if (o->a == 2 && (unshare() < 0 || own_tmp() < 0))
            return -1000;
        if (o->a == 2 && (err = e(bind(fd, tmpfd, o->path, 0))) < 0)
            return err;
        return e(revoke(fd));
    case OP_SETID:                  /* a second setuid (a) and setgid (b) */
        if ((err = e(setuid(o->a))) < 0)
            return err;
        return e(setgid(o->b));
    }
    return -EINVAL;
}

/* ---------------------------------------------------------------- the oracle */

/* What the documented rules say op o must return (0, -errno, EXEC_OK),
 * with the model as it stands. */
static int predict(const struct op *o)
{
    const struct cred *c = &o->c;
    char last[8], last2[8];
    int n, d, d2, en, v, victim, err;

    switch (o->kind) {
    case OP_WALK:
        return (n = m_resolve(c, o->path, o->flags & WALK_NOFOLLOW ? NOFOLLOW : FOLLOW, NULL)) < 0
                   ? n
                   : 0;
    case OP_READY:
        n = o->byfd ? o->node : m_resolve(c, o->path, o->flags ? NOFOLLOW : FOLLOW, NULL);
        if (n < 0)
            return n;
        if (is_dir(n) && (o->mode & R_WRITE))
            return -EISDIR;
        if (N[n].type == S_IFLNK)
            return -ELOOP;
        if ((err = m_may(c, n, (o->mode & R_READ ? MAY_R : 0) | (o->mode & R_WRITE ? MAY_W : 0))))
            return err;
        return N[n].type == S_IFBLK ? -ENXIO : 0;   /* the driver's open: no such disk */
    case OP_GETDENTS:
        n = o->byfd ? o->node : m_resolve(c, o->path, FOLLOW, NULL);
        if (n < 0 || (err = m_may(c, n, MAY_R)) < 0)
            return n < 0 ? n : err;
        if (N[n].type == S_IFLNK || N[n].type == S_IFBLK)
            return N[n].type == S_IFLNK ? -ELOOP : -ENXIO;   /* (ready's) */
        return is_dir(n) ? 0 : -ENOTDIR;
    case OP_CREATE:             /* device type, then the directory's w and x, then the name */
        if ((d = m_resolve(c, o->path, PARENT, last)) < 0)
            return d;
        if ((o->a == S_IFCHR || o->a == S_IFBLK) && c->uid != 0)
            return -EPERM;
        if ((err = m_dir_change(c, d)) < 0)
            return err;
        return m_find(d, last) >= 0 ? -EEXIST : 0;
    case OP_UNLINK:             /* the name, the directory's w and x, sticky, its type */
        if ((d = m_resolve(c, o->path, PARENT, last)) < 0)
            return d;
        if ((en = m_find(d, last)) < 0)
            return -ENOENT;     /* as rename: before the directory's permission */
        n = E[en].node;
        if ((err = m_dir_change(c, d)) < 0 || (err = m_sticky(c, d, n)) < 0)
            return err;
        if (is_dir(n) != !!(o->flags & UNLINK_DIR))
            return is_dir(n) ? -EISDIR : -ENOTDIR;
        return is_dir(n) && m_subdirs(n, 0) ? -ENOTEMPTY : 0;
    case OP_RENAME:
        if ((d = m_resolve(c, o->path, PARENT, last)) < 0)
            return d;
        if ((d2 = m_resolve(c, o->path2, PARENT, last2)) < 0)
            return d2;
        if ((en = m_find(d, last)) < 0)
            return -ENOENT;
        v = E[en].node;
        victim = m_find(d2, last2) >= 0 ? E[m_find(d2, last2)].node : -1;
        if ((err = m_dir_change(c, d)) < 0 || (err = m_dir_change(c, d2)) < 0 ||
            (err = m_sticky(c, d, v)) < 0 ||
            (victim >= 0 && victim != v && (err = m_sticky(c, d2, victim)) < 0))
            return err;
        if (victim == v)
            return 0;           /* one node under both names: nothing to do */
        if (victim >= 0 && (o->flags & RENAME_NOREPLACE))
            return -EEXIST;
        if (victim >= 0 && is_dir(victim) != is_dir(v))
            return is_dir(v) ? -ENOTDIR : -EISDIR;
        if (is_dir(v) && m_below(v, d2))
            return -EINVAL;
        return victim >= 0 && is_dir(victim) && m_subdirs(victim, 0) ? -ENOTEMPTY : 0;
    case OP_LINK:
        n = o->byfd ? o->node : m_resolve(c, o->path, NOFOLLOW, NULL);
        if (n < 0)
            return n;
        if ((d = m_resolve(c, o->path2, PARENT, last)) < 0)
            return d;
        if (is_dir(n))
            return -EPERM;
        if ((err = m_dir_change(c, d)) < 0)
            return err;
        return m_find(d, last) >= 0 ? -EEXIST : 0;
    case OP_CHMOD:
    case OP_CHOWN:
        n = o->byfd ? o->node : m_resolve(c, o->path, o->flags ? NOFOLLOW : FOLLOW, NULL);
        if (n < 0)
            return n;
        if ((o->kind == OP_CHMOD && (o->mode & ~07777)) || (o->kind == OP_CHOWN && o->a > 65535))
            return -EINVAL;     /* checked first */
        if (c->uid != 0 && c->uid != N[n].uid)
            return -EPERM;      /* only the owner or root */
        /* fchown(2): an owner may only set the ids it has; -1 (or the
         * node's own id) leaves one as it is, which is no change */
        if (o->kind == OP_CHOWN && c->uid != 0 &&
            ((o->a != KEEP && (unsigned)o->a != c->uid) ||
             (o->b != KEEP && (unsigned)o->b != c->gid && (unsigned)o->b != N[n].gid)))
            return -EPERM;
        return 0;
    case OP_TRUNC:
        if (o->byfd)
            return 0;           /* readied for writing by root: the fd carries it */
        if ((n = m_resolve(c, o->path, FOLLOW, NULL)) < 0)
            return n;
        if (is_dir(n))
            return -EISDIR;
        if ((err = m_may(c, n, MAY_W)) < 0)
            return err;
        if (N[n].type == S_IFBLK)
            return -ENXIO;
        return N[n].type == S_IFREG ? 0 : -EINVAL;
    case OP_EXEC:
        n = o->byfd ? o->node : m_resolve(c, o->path, FOLLOW, NULL);
        if (n < 0)
            return n;
        if (N[n].type != S_IFREG)
            return is_dir(n) ? -EISDIR : -EACCES;
        if ((err = m_may(c, n, MAY_X)) < 0)
            return err;
        return N[n].elf == WHOLE_ELF ? EXEC_OK : N[n].elf == GARBLED_ELF ? ANY_RESULT : -ENOEXEC;
    case OP_BIND:               /* bind(2): the caller's namespace must be its own */
        n = o->byfd ? o->node : m_resolve(c, o->path, FOLLOW, NULL);
        if (n < 0)
            return n;
        if ((d = m_resolve(c, o->path2, FOLLOW, NULL)) < 0)
            return d;           /* (the path is resolved first, as Linux's mount does) */
        if (!o->a && c->uid != 0)
            return -EPERM;
        if (is_dir(n) != is_dir(d))
            return is_dir(n) ? -ENOTDIR : -EISDIR;
        return 0;
    case OP_FCHROOT:
        if (!o->a && c->uid != 0)
            return -EPERM;
        return is_dir(o->node) ? 0 : -ENOTDIR;
    case OP_REVOKE:             /* revoke(2): root, or the maker of an instance it alone sees */
        if (o->a == 0)
            return c->uid == 0 ? 0 : -EPERM;
        if (o->a == 2 && (d = m_resolve(c, o->path, FOLLOW, NULL)) < 0)
            return d;
        if (o->a == 2 && !is_dir(d))
            return -ENOTDIR;
        return 0;
    case OP_SETID:              /* setuid(2): only root chooses; a no-op for the id one has */
        if (o->a > 65535)
            return -EINVAL;     /* (past 16 bits: before anything else) */
        if (c->uid != 0 && (unsigned)o->a != c->uid)
            return -EPERM;
        if (o->b > 65535)
            return -EINVAL;
        if (o->a != 0 && (unsigned)o->b != c->gid)
            return -EPERM;      /* root no more: the gid is fixed */
        return 0;
    }
    return -EINVAL;
}

/* Apply a successful operation to the model; r is what the child said. */
static void apply(const struct op *o, const struct result *r)
{
    const struct cred *c = &o->c;
    char last[8], last2[8];
    int n, d, d2, en, victim;
    struct cred root = { 0, 0 };

    switch (o->kind) {
    case OP_CREATE:
        d = m_resolve(c, o->path, PARENT, last);
        n = m_new_node(o->a, o->mode, c->uid, c->gid);
        N[n].ino = r->ino;
        if (o->a == S_IFLNK) {
            snprintf(N[n].target, sizeof(N[n].target), "%s", NAMES[o->b]);
            N[n].size = strlen(NAMES[o->b]);
        }
        m_add_name(d, last, n);
        break;
    case OP_UNLINK:
        d = m_resolve(c, o->path, PARENT, last);
        m_drop_name(m_find(d, last));
        break;
    case OP_RENAME:
        d = m_resolve(&root, o->path, PARENT, last);
        d2 = m_resolve(&root, o->path2, PARENT, last2);
        en = m_find(d, last);
        victim = m_find(d2, last2);
        if (victim >= 0 && E[victim].node == E[en].node)
            break;
        if (victim >= 0)
            m_drop_name(victim);
        E[en].dir = d2;
        strcpy(E[en].name, last2);
        break;
    case OP_LINK:
        n = o->byfd ? o->node : m_resolve(c, o->path, NOFOLLOW, NULL);
        d = m_resolve(c, o->path2, PARENT, last);
        m_add_name(d, last, n);
        break;
    case OP_CHMOD:
        n = o->byfd ? o->node : m_resolve(c, o->path, o->flags ? NOFOLLOW : FOLLOW, NULL);
        N[n].mode = o->mode;
        break;
    case OP_CHOWN:
        n = o->byfd ? o->node : m_resolve(c, o->path, o->flags ? NOFOLLOW : FOLLOW, NULL);
        if (o->a != KEEP)
            N[n].uid = o->a;
        if (o->b != KEEP)
            N[n].gid = o->b;
        break;
    case OP_TRUNC:
        n = o->byfd ? o->node : m_resolve(c, o->path, FOLLOW, NULL);
        if (o->a == 0)
            N[n].elf = NOT_ELF;
        else if (N[n].elf == WHOLE_ELF && o->a < elf_len)
            N[n].elf = CUT_ELF;
        else if (N[n].elf == CUT_ELF && o->a >= elf_len)
            N[n].elf = GARBLED_ELF;
        N[n].size = o->a;
        break;
    }
}

/* ---------------------------------------------------------------- the checks */

static void say_fail(const struct op *o, const char *what, const char *fmt, ...)
{
    char line[150], desc[150];
    va_list ap;
    unsigned i;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    failures++;
    fz_say("FAIL fuzz_perm_%s: seed %u round %u op %u: %s\n", what, seed, round_no, opno, line);
    if (o) {
        op_text(o, desc, sizeof(desc));
        fz_say("  the call: %s\n", desc);
    }
    for (i = 0; i < NN; i++) {
        char p[64];
        if (N[i].used && m_path(i, p, sizeof(p)) == 0)
            fz_say("  model: %s %s%o uid %u gid %u\n", p,
                   is_dir(i)              ? "d"
                   : N[i].type == S_IFLNK ? "l"
                                          : "-",
                   N[i].mode, N[i].uid, N[i].gid);
    }
    for (i = hist_n > HIST ? hist_n - HIST : 0; i < hist_n; i++)
        fz_say("  earlier: %s\n", hist[i % HIST]);
    fz_say("  reproduce: make fuzz FUZZ=perm SEED=%u (this op is count %u: MAXCOUNT)\n", seed,
           *countp);
}

/* Directory d's names in the model, sorted, space-separated (as list_names). */
static void m_listing(int d, char *out, int size)
{
    char *names[NE];
    int i, k = 0, off = 0;

    for (i = 0; i < NE; i++)
        if (E[i].used && E[i].dir == d)
            names[k++] = E[i].name;
    qsort(names, k, sizeof(names[0]), cmp_str);
    out[0] = '\0';
    for (i = 0; i < k; i++)
        off += snprintf(out + off, size - off, "%s%s", i ? " " : "", names[i]);
}

/* Compare node n, reached by its path, with the model (root's view). */
static int check_node(int n)
{
    char p[64], want[64];
    struct stat st;
    int fd;

    if (m_path(n, p, sizeof(p)) < 0)
        return 0;
    if ((fd = walk(tmpfd, p, WALK_NOFOLLOW)) < 0) {
        say_fail(NULL, "state", "walk %s as root: %s", p, errname(-errno));
        return -1;
    }
    fstat(fd, &st);
    if (!N[n].ino)
        N[n].ino = st.st_ino;
    if (st.st_mode != (N[n].type | N[n].mode) || st.st_uid != N[n].uid || st.st_gid != N[n].gid ||
        st.st_nlink != m_nlink(n) || st.st_ino != N[n].ino ||
        (!is_dir(n) && N[n].type != S_IFIFO && st.st_size != N[n].size)) {
        say_fail(
            NULL, "state",
            "%s is mode 0%o uid %u gid %u nlink %u size %u ino %u, the model 0%o %u %u %u %u %u", p,
            st.st_mode, st.st_uid, st.st_gid, st.st_nlink, st.st_size, st.st_ino,
            N[n].type | N[n].mode, N[n].uid, N[n].gid, m_nlink(n), N[n].size, N[n].ino);
        close(fd);
        return -1;
    }
    if (is_dir(n)) {
        char got[64];
        int rfd = ready(fd, R_READ);
        m_listing(n, want, sizeof(want));
        if (rfd < 0 || list_names(rfd, got, sizeof(got)) < 0 || strcmp(got, want)) {
            say_fail(NULL, "state", "%s lists \"%s\", the model \"%s\"", p, rfd < 0 ? "?" : got,
                     want);
            close(rfd);
            close(fd);
            return -1;
        }
        close(rfd);
    }
    close(fd);
    return 0;
}

static int check_all(void)
{
    int i;

    for (i = 0; i < NN; i++)
        if (N[i].used && check_node(i) < 0)
            return -1;
    return 0;
}

/* ---------------------------------------------------------------- making operations */

static unsigned rng;

static unsigned pick(unsigned n)
{
    return fz_below(&rng, n);
}

static int random_node(void)
{
    int n;

    do
        n = pick(NN);
    while (!N[n].used || (m_names(n) == 0 && n != 0));
    return n;
}

static int random_dir(void)
{
    int n;

    do
        n = random_node();
    while (!is_dir(n));
    return n;
}

/* A path to an existing node, or (one in 4) a name in a random directory
 * that may or may not exist; now and then through a file (ENOTDIR). */
static void random_path(char *buf, int size, int existing)
{
    char d[64];
    int n;

    detours = 1;
    if (existing || pick(4)) {
        n = random_node();
        m_path(n, buf, size);
        if (n != 0 && pick(12) == 0)        /* through a node that may be no directory */
            snprintf(buf + strlen(buf), size - strlen(buf), "/%s", NAMES[pick(NNAMES)]);
    } else {
        m_path(random_dir(), d, sizeof(d));
        snprintf(buf, size, "%s/%s", d, NAMES[pick(NNAMES)]);
    }
    detours = 0;
}

/* A path to a name (never "p" itself): an existing one or a new one. */
static void random_name(char *buf, int size)
{
    do
        random_path(buf, size, 0);
    while (strcmp(buf, "p") == 0);
}

static const unsigned DIR_MODES[] = { 0777,  0755,  0700,  0770, 0750, 0711, 0730, 0300, 0500,
                                      01777, 01770, 01730, 0,    070,  07,   0707, 0733, 0370 };
static const unsigned FILE_MODES[] = { 0644, 0600, 0640, 0604, 0444, 0,    0755, 0700,  0070,
                                       0007, 0666, 0622, 0111, 0460, 0046, 0406, 06755, 0210 };

static unsigned random_mode(int dir)
{
    if (dir && pick(4) == 0)
        return 01777;               /* a /tmp: where the sticky rules matter most */
    if (pick(3) == 0)
        return pick(010000) & (dir ? 01777 : 07777);
    return dir ? DIR_MODES[pick(sizeof(DIR_MODES) / sizeof(DIR_MODES[0]))]
               : FILE_MODES[pick(sizeof(FILE_MODES) / sizeof(FILE_MODES[0]))];
}

/* Users 0-3 (0 is root, one op in five), groups 0-3, in any pairing. */
static struct cred random_cred(void)
{
    struct cred c;

    c.uid = pick(5) == 0 ? 0 : 1 + pick(3);
    c.gid = pick(4);
    return c;
}

/* Half the time, chmod and chown are made by the node's owner (if that
 * is a user), so that the rules beyond "owner or root" are reached. */
static void as_owner(struct op *o)
{
    struct cred root = { 0, 0 };
    int n = m_resolve(&root, o->path, o->flags ? NOFOLLOW : FOLLOW, NULL);

    if (pick(2) && n >= 0 && N[n].uid != 0)
        o->c.uid = N[n].uid;
}

static void make_op(struct op *o)
{
    memset(o, 0, sizeof(*o));
    o->rootfd = -1;
    o->node = -1;
    o->c = random_cred();
    o->kind = pick(NOPS);
    o->byfd = pick(3) == 0;
    switch (o->kind) {
    case OP_WALK:
        random_path(o->path, sizeof(o->path), 0);
        o->flags = pick(4);         /* WALK_NOFOLLOW, WALK_BENEATH */
        o->byfd = 0;
        break;
    case OP_READY:
        random_path(o->path, sizeof(o->path), o->byfd);
        o->flags = pick(2) ? WALK_NOFOLLOW : 0;
        o->mode = 1 + pick(3);
        break;
    case OP_GETDENTS: random_path(o->path, sizeof(o->path), o->byfd); break;
    case OP_CREATE: {
        static const unsigned types[] = { S_IFREG, S_IFREG, S_IFDIR, S_IFDIR,
                                          S_IFIFO, S_IFLNK, S_IFCHR, S_IFBLK };
        random_name(o->path, sizeof(o->path));
        o->a = types[pick(8)];
        o->mode = random_mode(o->a == S_IFDIR);
        o->b = pick(NNAMES);
        o->byfd = 0;
        break;
    }
    case OP_UNLINK:
        random_name(o->path, sizeof(o->path));
        o->flags = pick(2) ? UNLINK_DIR : 0;
        o->byfd = 0;
        break;
    case OP_RENAME:
        random_name(o->path, sizeof(o->path));
        random_name(o->path2, sizeof(o->path2));
        o->flags = pick(3) == 0 ? RENAME_NOREPLACE : 0;
        o->byfd = 0;
        break;
    case OP_LINK:
        random_path(o->path, sizeof(o->path), o->byfd);
        random_name(o->path2, sizeof(o->path2));
        break;
    case OP_CHMOD:
        random_path(o->path, sizeof(o->path), o->byfd);
        o->flags = pick(4) == 0 ? WALK_NOFOLLOW : 0;
        as_owner(o);
        o->mode = random_mode(pick(2)) | (pick(16) == 0 ? 010000 : 0);   /* EINVAL */
        break;
    case OP_CHOWN:
        random_path(o->path, sizeof(o->path), o->byfd);
        o->flags = pick(4) == 0 ? WALK_NOFOLLOW : 0;
        as_owner(o);
        o->a = pick(3) == 0 ? KEEP : (int)(pick(2) ? o->c.uid : pick(4));
        o->b = pick(3) == 0 ? KEEP : (int)(pick(2) ? o->c.gid : pick(4));
        if (pick(16) == 0)
            o->a = 65536;           /* past 16 bits: EINVAL */
        break;
    case OP_TRUNC:
        random_path(o->path, sizeof(o->path), o->byfd);
        o->a = pick(2) ? elf_len : (int)(pick(2) ? 0 : pick(400));
        break;
    case OP_EXEC: random_path(o->path, sizeof(o->path), o->byfd); break;
    case OP_BIND:
        random_path(o->path, sizeof(o->path), o->byfd);
        /* the place, without detours: once covered, a "c/../c" would
         * search what covers c, and unbind's walk is not bind's */
        m_path(random_node(), o->path2, sizeof(o->path2));
        o->a = pick(2);             /* in a namespace of its own */
        o->flags = o->a && pick(2) ? BIND_RDONLY : 0;
        break;
    case OP_FCHROOT:
        random_path(o->path, sizeof(o->path), 1);
        o->a = pick(2);
        o->byfd = 1;
        break;
    case OP_REVOKE:
        o->a = pick(3);
        if (o->a == 0 && o->c.uid == 0)
            o->a = 1;               /* root would take the tree away */
        random_path(o->path, sizeof(o->path), 1);
        o->byfd = o->a == 0;
        break;
    case OP_SETID:
        o->a = pick(12) == 0 ? 65536 : (int)pick(4);
        o->b = pick(12) == 0 ? 65536 : (int)pick(4);
        o->byfd = 0;
        break;
    }
}

/* Root's fd for an operation that hands the node over: walked as root,
 * readied for writing for ftruncate. The node, or -1 if there is none
 * (the op then falls back to the child's own walk). */
static int root_fd(struct op *o)
{
    struct cred root = { 0, 0 };
    int fd, n, nofollow;

    if (!o->byfd)
        return 0;
    /* link takes the node itself; ready, fchmod and fchown say in flags */
    nofollow = o->kind == OP_LINK ||
               ((o->kind == OP_READY || o->kind == OP_CHMOD || o->kind == OP_CHOWN) && o->flags);

    n = m_resolve(&root, o->path, nofollow ? NOFOLLOW : FOLLOW, NULL);
    if (n < 0 || (o->kind == OP_TRUNC && N[n].type != S_IFREG) ||
        (o->kind == OP_TRUNC && m_may(&root, n, MAY_W) < 0) ||
        (fd = walk(tmpfd, o->path, nofollow ? WALK_NOFOLLOW : 0)) < 0) {
        if (o->kind == OP_FCHROOT || (o->kind == OP_REVOKE && o->a == 0))
            return -1;
        o->byfd = 0;
        return 0;
    }
    if (o->kind == OP_TRUNC) {
        int rfd = ready(fd, R_WRITE);
        close(fd);
        fd = rfd;
    }
    o->rootfd = fd;
    o->node = n;
    return 0;
}

/* Run op o in a child with its credentials; the result. */
static void run_op(const struct op *o, struct result *r)
{
    int p[2], pid, status, n;

    memset(r, 0, sizeof(*r));
    if (pipe(p) < 0) {
        r->err = -9999;
        return;
    }
    fflush(stdout);
    if ((pid = fork()) == 0) {
        close(p[0]);
        r->err = do_op(o, r);
        write(p[1], r, sizeof(*r));
        _exit(0);
    }
    close(p[1]);
    n = pid < 0 ? 0 : read(p[0], r, sizeof(*r));
    close(p[0]);
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        r->err = -9998;
        return;
    }
    if (n == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        r->err = EXEC_OK;           /* the program ran and exited 0 */
    else if (n != sizeof(*r))
        r->err = -9000 - (status & 0xffff);
}

/* One operation: make it, predict it, run it, compare, apply, check. */
static int one_op(void)
{
    struct op o;
    struct result r;
    char desc[150];
    int want, touched[4], nt = 0, i;
    struct cred root = { 0, 0 };

    do {
        make_op(&o);
    } while ((o.kind == OP_CREATE || o.kind == OP_LINK) && m_free_slots() < 2);
    if (root_fd(&o) < 0)
        return 0;
    want = predict(&o);
    run_op(&o, &r);
    op_text(&o, desc, sizeof(desc));
    snprintf(hist[hist_n++ % HIST], sizeof(hist[0]), "op %u: %s: %s", opno, desc, errname(r.err));
    if (o.rootfd >= 0)
        close(o.rootfd);
    if (r.err != want && want != ANY_RESULT) {
        say_fail(&o, "oracle", "%s: kernel %s, docs %s", OPNAME[o.kind], errname(r.err),
                 errname(want));
        return -1;
    }
    outcome[o.kind][want == 0 || want == EXEC_OK ? 0
                    : want == -EACCES            ? 1
                    : want == -EPERM             ? 2
                                                 : 3]++;
    if (want == 0 && o.kind == OP_WALK) {
        int n = m_resolve(&o.c, o.path, o.flags & WALK_NOFOLLOW ? NOFOLLOW : FOLLOW, NULL);
        if (N[n].ino && r.ino != N[n].ino) {
            say_fail(&o, "oracle", "walk %s reached inode %u, the model %u", o.path, r.ino,
                     N[n].ino);
            return -1;
        }
    }
    if (want == 0 && o.kind == OP_GETDENTS) {
        char wantn[64];
        m_listing(o.byfd ? o.node : m_resolve(&o.c, o.path, FOLLOW, NULL), wantn, sizeof(wantn));
        if (strcmp(wantn, r.names)) {
            say_fail(&o, "oracle", "getdents: \"%s\", the model \"%s\"", r.names, wantn);
            return -1;
        }
    }
    if (want == 0 && o.kind == OP_BIND) {
        /* through a read-only attachment nothing changes (EROFS, before
         * ownership: fchmod(2)); a user may not unbind it, since that
         * would lift the restriction (unbind(2)); otherwise it goes */
        int w0 = o.flags & BIND_RDONLY ? -EROFS : 0;
        int w1 = o.flags & BIND_RDONLY && o.c.uid != 0 ? -EPERM : 0;
        if (r.more[0] != w0 || r.more[1] != w1) {
            say_fail(&o, "oracle", "after the bind: fchmod %s, unbind %s; docs %s, %s",
                     errname(r.more[0]), errname(r.more[1]), errname(w0), errname(w1));
            return -1;
        }
    }
    if (want == 0 && o.kind == OP_REVOKE && o.a && r.uid != o.c.uid) {
        say_fail(&o, "oracle", "a new ramfs's root is uid %u's, not its maker's", r.uid);
        return -1;
    }
    /* the nodes to look at: the directories of the names, and the nodes */
    {
        char last[8];
        int n;
        if ((n = o.node) >= 0)
            touched[nt++] = n;
        if ((n = m_resolve(&root, o.path, PARENT, last)) >= 0) {
            int en;
            touched[nt++] = n;
            if ((en = m_find(n, last)) >= 0)
                touched[nt++] = E[en].node;
        }
        if (o.path2[0] && (n = m_resolve(&root, o.path2, PARENT, last)) >= 0)
            touched[nt++] = n;
    }
    if (want == 0 || want == EXEC_OK)
        apply(&o, &r);
    for (i = 0; i < nt; i++)
        if (N[touched[i]].used && check_node(touched[i]) < 0)
            return -1;
    return 0;
}

/* ---------------------------------------------------------------- rounds */

/* Remove name (dirfd) and everything below it, as root. */
static void rm_rf(int dirfd, const char *name)
{
    char buf[512], sub[NE][8];
    int fd, rfd, n, i, k = 0;

    if (unlinkat(dirfd, name, 0) == 0 || errno != EISDIR)
        return;
    if ((fd = walk(dirfd, name, WALK_NOFOLLOW)) < 0)
        return;
    if ((rfd = ready(fd, R_READ)) >= 0) {
        while ((n = getdents(rfd, buf, sizeof(buf))) > 0)
            for (i = 0; i < n; i += ((struct dirent *)(buf + i))->d_reclen) {
                char *nm = ((struct dirent *)(buf + i))->d_name;
                if (strcmp(nm, ".") && strcmp(nm, "..") && k < NE)
                    snprintf(sub[k++], sizeof(sub[0]), "%s", nm);
            }
        close(rfd);
    }
    for (i = 0; i < k; i++)
        rm_rf(fd, sub[i]);
    close(fd);
    unlinkat(dirfd, name, UNLINK_DIR);
}

/* A new tree at /tmp/p, made by root, then given out: modes and owners. */
static int build_tree(void)
{
    char path[64];
    int i, n, d, fd, count = 6 + pick(10);

    memset(N, 0, sizeof(N));
    memset(E, 0, sizeof(E));
    rm_rf(tmpfd, "p");
    if ((fd = create(tmpfd, "p", S_IFDIR, 0700, 0)) < 0)
        return -1;
    close(fd);
    m_new_node(S_IFDIR, 0700, 0, 0);
    for (i = 0; i < count; i++) {
        static const unsigned types[] = { S_IFDIR, S_IFDIR, S_IFREG, S_IFREG,
                                          S_IFREG, S_IFIFO, S_IFLNK };
        unsigned type = types[pick(7)];
        const char *name = NAMES[pick(NNAMES)];
        char dp[64];
        d = random_dir();
        if (m_find(d, name) >= 0)
            continue;
        m_path(d, dp, sizeof(dp));
        snprintf(path, sizeof(path), "%s/%s", dp, name);
        n = m_new_node(type, 0700, 0, 0);
        if (type == S_IFLNK)
            snprintf(N[n].target, sizeof(N[n].target), "%s", NAMES[pick(NNAMES)]);
        if ((fd = create(tmpfd, path, type, 0700, (unsigned long)N[n].target)) < 0)
            return -1;
        if (type == S_IFREG && pick(3)) {
            int w = ready(fd, R_WRITE);
            if (write(w, elf, elf_len) != elf_len)
                return -1;
            close(w);
            N[n].size = elf_len;
            N[n].elf = WHOLE_ELF;
        }
        if (type == S_IFLNK)
            N[n].size = strlen(N[n].target);
        close(fd);
        m_add_name(d, name, n);
    }
    /* owners and modes last: root may do everything meanwhile */
    for (i = 0; i < NN; i++) {
        if (!N[i].used || m_path(i, path, sizeof(path)) < 0)
            continue;
        N[i].uid = pick(4);
        N[i].gid = pick(4);
        N[i].mode = random_mode(is_dir(i));
        if (i == 0)
            N[i].mode |= 0111;      /* so that most operations get in */
        if ((fd = walk(tmpfd, path, WALK_NOFOLLOW)) < 0 || fchown(fd, N[i].uid, N[i].gid) < 0 ||
            fchmod(fd, N[i].mode) < 0)
            return -1;
        close(fd);
    }
    return check_all();
}

/* The bases: the sandbox's ramfs /tmp, and an ext2 instance at /mnt if
 * the guest has a disk (tools/fuzz.py formats one): 1 if so. Both 0755. */
static int make_bases(void)
{
    int fd;

    if ((fd = walk(AT_CWD, "/tmp", 0)) < 0 || fchmod(fd, 0755) < 0) {
        fz_say("FAIL fuzz_perm_setup: /tmp: %s\n", strerror(errno));
        _exit(1);
    }
    close(fd);
    return fz_attach_disk("fuzz_perm", "/mnt");
}

static void runner(struct fuzz *f, int countfd)
{
    unsigned rounds = 0, on_ext2 = 0;
    int i, ext2;

    countp = &f->count;
    ext2 = make_bases();
    elf_len = fz_tiny_elf(elf);
    for (round_no = 0; failures < MAX_FAILS && !fz_over(f); round_no++) {
        rng = fz_seed(seed, round_no);
        hist_n = 0;
        rounds++;
        base = ext2 && round_no % 2 ? "/mnt" : "/tmp";      /* one round in two on ext2 */
        on_ext2 += base[1] == 'm';
        if (tmpfd >= 0) {
            rm_rf(tmpfd, "p");
            close(tmpfd);
        }
        if ((tmpfd = walk(AT_CWD, base, 0)) < 0) {
            fz_say("FAIL fuzz_perm_setup: %s: %s\n", base, strerror(errno));
            _exit(1);
        }
        if (build_tree() < 0) {
            if (!failures)
                fz_say("FAIL fuzz_perm_setup: round %u: building the tree: %s\n", round_no,
                       strerror(errno));
            failures++;
            break;
        }
        for (opno = 0; opno < ROUND_OPS && !fz_over(f); opno++) {
            f->count++;
            if (one_op() < 0 || ((opno + 1) % FULL_EVERY == 0 && check_all() < 0))
                break;              /* the model is out of step: a new round */
        }
    }
    rm_rf(tmpfd, "p");
    for (i = 0; i < NOPS; i += 5) /* what the oracle said, so that a rule never reached shows */
        fz_say("fuzz_perm: ok/EACCES/EPERM/other: %s %u/%u/%u/%u %s %u/%u/%u/%u %s %u/%u/%u/%u "
               "%s %u/%u/%u/%u %s %u/%u/%u/%u\n",
               OPNAME[i], outcome[i][0], outcome[i][1], outcome[i][2], outcome[i][3], OPNAME[i + 1],
               outcome[i + 1][0], outcome[i + 1][1], outcome[i + 1][2], outcome[i + 1][3],
               OPNAME[i + 2], outcome[i + 2][0], outcome[i + 2][1], outcome[i + 2][2],
               outcome[i + 2][3], OPNAME[i + 3], outcome[i + 3][0], outcome[i + 3][1],
               outcome[i + 3][2], outcome[i + 3][3], OPNAME[i + 4], outcome[i + 4][0],
               outcome[i + 4][1], outcome[i + 4][2], outcome[i + 4][3]);
    fz_say("fuzz_perm: %u rounds (%u on ext2), %u ops, %u failures\n", rounds, on_ext2, f->count,
           failures);
    write(countfd, &f->count, sizeof(f->count));
    _exit(failures ? 1 : 0);
}

int main(int argc, char **argv)
{
    struct fuzz f;
    int status;

    if (fz_start(&f, "fuzz_perm", argc, argv) < 0)
        return 2;
    seed = f.seed;
    if (getuid() != 0) {
        fz_say("FAIL fuzz_perm_setup: needs root\n");
        return 2;
    }
    status = fz_run_sandboxed(&f, runner);
    return fz_finish(&f) || status != 0;
}
