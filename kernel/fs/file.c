/* file.c - open file descriptions and fd tables. A file made by walk()
 * has FA_PATH access: it names a node and nothing more. ready() makes a
 * second file on the same node with read and/or write access, which is
 * where the node's "open" side effects happen: a device's open routine
 * runs, a FIFO gains a reader or writer. An fd table belongs to one
 * process, or is shared by several (rfork); fds are closed on exec unless
 * marked FD_KEEP, and exec takes the process out of a shared table
 * (fdtable_exec, Lab 06). */
#include "dev/dev.h"
#include "dev/tty.h"
#include "fs/chan.h"
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "lib/fault.h"
#include "lib/kprintf.h"
#include "lib/string.h"
#include "mm/page.h"
#include "proc/proc.h"

/* All three changed only by code that never sleeps, never by an IRQ. */
static int nfiles;
static int nfiles_promised; /* open files fd_room() promised to calls in progress */
static struct file *open_files; /* every open file: a user's are counted (user_files) */

/* The last open files of the table are root's: a user holding every one
 * would leave root's shell unable to open anything, not even to find
 * and kill that user's processes (ENFILE). And a user may hold at most
 * USER_OPEN_MAX (uapi/fs.h), half of the others, so that one user's
 * files leave a second user as many (doc/decisions.md, "Authority"). */
#define ROOT_FILES 32
_Static_assert(USER_OPEN_MAX <= (NFILE - ROOT_FILES) / 2, "a user takes at most half of the rest");

/* The open files charged to uid: those it opened (a file stays its
 * opener's until the last close, whoever holds it by then) and those
 * fd_room() promised to calls of its processes. */
static int user_files(uint32_t uid)
{
    const struct file *f;
    int n = 0, i;

    for (f = open_files; f; f = f->next_open)
        n += f->uid == uid;
    for (i = 0; i < NPROC; i++)
        n += proc_table[i].state != P_UNUSED && proc_table[i].uid == uid && proc_table[i].room_file;
    return n;
}

/* Is an open file left for p? A user may not take root's last ones, nor
 * more than USER_OPEN_MAX. The user's own are counted only when the
 * system holds that many: below it no user can be at the limit, and an
 * open stays O(1). */
static int file_left(const struct proc *p)
{
    int used = nfiles + nfiles_promised;

    if (fault_inject("file table"))
        return 0;
    if (!p || p->uid == 0)
        return used < NFILE;
    return used < NFILE - ROOT_FILES &&
           (used < USER_OPEN_MAX || user_files(p->uid) < USER_OPEN_MAX);
}

/* A new open file on p, one reference, named `name` (or NULL: the caller
 * may hand it a kmalloc'd name in f->name): a copy kept in the file's
 * own block, one allocation, as ready() names every file it makes. A
 * call that fd_room() promised a file takes that one (its memory too,
 * when it has no name to copy: then this cannot fail); any other may not
 * take a promised one (ENFILE). */
struct file *file_alloc(const struct path *p, int access, int flags, const char *name)
{
    size_t len = name ? strlen(name) + 1 : 0;
    struct proc *me = curproc();
    struct file *f, *promised = me ? me->room_file : NULL;

    if (promised && !len)
        f = promised;
    else if ((!promised && !file_left(me)) || !(f = kzalloc(sizeof(*f) + len)))
        return NULL;
    if (name)
        f->name = memcpy(f->own_name, name, len);
    if (promised) {
        if (f != promised)
            kfree(promised);
        me->room_file = NULL;
        nfiles_promised--;
    }
    nfiles++;
    f->uid = me ? me->uid : 0;
    f->next_open = open_files;
    if (open_files)
        open_files->prev_open = f;
    open_files = f;
    f->refs = 1;
    f->access = access;
    f->flags = flags;
    path_copy(&f->path, p);
    return f;
}

void file_get(struct file *f)
{
    f->refs++;
}

/* The last close undoes what ready() did (FIFO ends, device close). */
void file_put(struct file *f)
{
    struct vnode *v;

    if (!f || !ref_drop(&f->refs))
        return;
    v = f->path.vn;
    if (f->access != FA_PATH && !v->fs->revoked) {
        if (S_ISFIFO(v->mode))
            pipe_close(v, f->access);
        else if ((S_ISCHR(v->mode) || S_ISBLK(v->mode)) && dev_lookup(v->rdev) &&
                 dev_lookup(v->rdev)->close)
            dev_lookup(v->rdev)->close(MINOR(v->rdev), f->access);
    }
    path_put(&f->path);
    if (f->name != f->own_name)
        kfree(f->name);
    if (f->prev_open)
        f->prev_open->next_open = f->next_open;
    else
        open_files = f->next_open;
    if (f->next_open)
        f->next_open->prev_open = f->prev_open;
    kfree(f);
    nfiles--;
}

/* ready(): a new file with `mode` access on the node fd names. Permission
 * checks and open side effects happen here and only here. */
int vfs_ready(int fd, int mode, struct file **out)
{
    int access = mode & R_RDWR, err;
    struct file *f, *nf;
    struct vnode *v;

    if (!(f = fd_get(fd, &err)))
        return err;
    v = f->path.vn;
    if ((mode & ~(R_RDWR | R_APPEND | R_NONBLOCK)) || !access)
        return -EINVAL;
    if ((err = fs_check(v)) < 0)
        return err;
    if (S_ISDIR(v->mode) && (access & FA_WRITE))
        return -EISDIR;
    if (S_ISLNK(v->mode))
        return -ELOOP; /* a symlink itself has no contents to ready */
    if ((access & FA_WRITE) && S_ISREG(v->mode) &&
        ((err = fs_may_change(v)) < 0 || (err = ns_attr_check(&f->path, BIND_RDONLY)) < 0))
        return err; /* the attachment's read-only too: checked here, once */
    if ((err = perm_ready(curproc(), v, access)) < 0)
        return err; /* the readier's permission, whoever made the path fd */
    if (S_ISCHR(v->mode) || S_ISBLK(v->mode)) {
        const struct devsw *d = dev_lookup(v->rdev);
        if ((err = ns_attr_check(&f->path, BIND_NODEV)) < 0)
            return err;
        if (!d)
            return -ENXIO;
        if (d->open && (err = d->open(MINOR(v->rdev), access)) < 0)
            return err;
    }
    if (S_ISFIFO(v->mode) && (err = pipe_open(v, access)) < 0)
        return err;
    /* read and write take every S_IFSOCK node for a channel's end, but an
     * ext2 image may hold a socket inode too (its vnode's priv is ext2's):
     * read through it, chan_read copied from wherever that pointed (a
     * user's own image panicked the kernel). As POSIX's open of a socket. */
    if (S_ISSOCK(v->mode) && !chan_is_end(v))
        return -ENXIO;
    if (!(nf = file_alloc(&f->path, access, mode & (R_APPEND | R_NONBLOCK), f->name))) {
        if (S_ISFIFO(v->mode))
            pipe_close(v, access);
        return -ENFILE;
    }
    *out = nf;
    return 0;
}

/* What f is, in a word: /proc/<pid>/fd's kinds, and the name of a
 * filesystem's source that has no path (a channel's end). */
const char *file_kind(const struct file *f)
{
    switch (f->path.vn->mode & S_IFMT) {
    case S_IFDIR: return "dir";
    case S_IFREG: return "reg";
    case S_IFLNK: return "lnk";
    case S_IFCHR: return "chr";
    case S_IFBLK: return "blk";
    case S_IFIFO: return pipe_kind(f->path.vn);
    case S_IFSOCK: return "chan";
    }
    return "?";
}

/* Read at an explicit offset; shared by read() and by filesystems that
 * read their image through a file (ext2 on a device or a regular file). */
int file_read_at(struct file *f, void *buf, uint32_t off, uint32_t n)
{
    struct vnode *v = f->path.vn;
    const struct devsw *d;
    int err;

    if (!(f->access & FA_READ))
        return -EBADF;
    if ((err = fs_check(v)) < 0)
        return err;
    /* A read of nothing returns 0 at once: a stream (a pipe, the console)
     * would otherwise wait for bytes it cannot hand over. */
    switch (v->mode & S_IFMT) {
    case S_IFDIR: return -EISDIR;
    case S_IFIFO: return n ? pipe_read(v, buf, n, f->flags & R_NONBLOCK) : 0;
    case S_IFSOCK: return n ? chan_read(v, buf, n, f->flags & R_NONBLOCK) : 0;
    case S_IFCHR:
    case S_IFBLK:
        if (!(d = dev_lookup(v->rdev)) || !d->read)
            return -ENXIO;
        return n ? d->read(MINOR(v->rdev), buf, off, n, f->flags & R_NONBLOCK) : 0;
    default: return vnode_read(v, buf, off, n);
    }
}

int file_write_at(struct file *f, const void *buf, uint32_t off, uint32_t n)
{
    struct vnode *v = f->path.vn;
    const struct devsw *d;
    int err;

    if (!(f->access & FA_WRITE))
        return -EBADF;
    if ((err = fs_check(v)) < 0)
        return err;
    switch (v->mode & S_IFMT) {
    case S_IFDIR: return -EISDIR;
    case S_IFIFO: return pipe_write(v, buf, n, f->flags & R_NONBLOCK);
    case S_IFSOCK: return chan_write(v, buf, n, f->flags & R_NONBLOCK);
    case S_IFCHR:
    case S_IFBLK:
        if (!(d = dev_lookup(v->rdev)) || !d->write)
            return -ENXIO;
        return d->write(MINOR(v->rdev), buf, off, n, f->flags & R_NONBLOCK);
    default: return (err = fs_may_change(v)) < 0 ? err : vnode_write(v, buf, off, n);
    }
}

/* Write back what the device under f caches (a no-op for ramfs files). */
int file_sync(struct file *f)
{
    struct vnode *v = f->path.vn;
    const struct devsw *d;

    if (S_ISBLK(v->mode) && (d = dev_lookup(v->rdev)) && d->sync)
        return d->sync(MINOR(v->rdev));
    return 0;
}

/* Has f a position? Not a FIFO, a character device or a channel's end:
 * a stream. (A channel's end counted as a file: a write through an open
 * file shared by fork waited for its turn behind a read of it, which
 * waited for the peer - for ever, if the peer waited for that write.) */
static int seekable(struct file *f)
{
    uint32_t mode = f->path.vn->mode;

    return !S_ISFIFO(mode) && !S_ISCHR(mode) && !S_ISSOCK(mode);
}

/* Reads and writes that use and move a file's position take turns on it
 * (f->pos_busy): a filesystem may sleep in between (ext2 waits for its
 * turn in the instance), and a process sharing the open file (fork, dup)
 * then used the same position - two writers wrote over each other's
 * records. Appends take turns on the node as well (v->appending), through
 * whichever open file: each goes at the end as it is when it happens.
 * Streams (pipes, the console) have no position, and take no turn (a
 * reader may wait there for ever). */
int file_read(struct file *f, void *buf, uint32_t n)
{
    int r;

    if (!seekable(f))
        return file_read_at(f, buf, f->off, n);
    if ((r = turn_take(&f->pos_busy)) < 0)
        return r;
    if ((r = file_read_at(f, buf, f->off, n)) > 0)
        f->off += r;
    turn_give(&f->pos_busy);
    return r;
}

/* write() at the position (with R_APPEND, at the end). Nothing goes past
 * OFF_MAX, the last position lseek can return: a write that would is cut
 * short there, and one that starts there is EFBIG (doc/decisions.md,
 * "Offsets"). */
static int write_here(struct file *f, const void *buf, uint32_t n)
{
    int r;

    /* An image an instance uses (or one being made: fs_new) is that
     * instance's to write. Asked here, with the turns held: a writer asked
     * before its turn, slept in turn_take behind a reader of the same open
     * file, and wrote once an instance had checked the image and used it. */
    if (S_ISREG(f->path.vn->mode) && fs_is_source(f->path.vn))
        return -EBUSY;
    if ((f->flags & R_APPEND) && S_ISREG(f->path.vn->mode))
        f->off = f->path.vn->size;
    if (n > 0) {
        if (f->off >= OFF_MAX)
            return -EFBIG;
        if (n > OFF_MAX - f->off)
            n = OFF_MAX - f->off;
    }
    if ((r = file_write_at(f, buf, f->off, n)) > 0)
        f->off += r;
    return r;
}

int file_write(struct file *f, const void *buf, uint32_t n)
{
    struct vnode *v = f->path.vn;
    int append = (f->flags & R_APPEND) && S_ISREG(v->mode), r;

    if (!seekable(f))
        return file_write_at(f, buf, f->off, n);
    if ((r = turn_take(&f->pos_busy)) < 0)
        return r;
    if (!append || (r = turn_take(&v->appending)) == 0) {
        r = write_here(f, buf, n);
        if (append)
            turn_give(&v->appending);
    }
    turn_give(&f->pos_busy);
    return r;
}

/* fstat(): works on every fd, path-only ones included. */
int file_stat(struct file *f, struct stat *st)
{
    struct vnode *v = f->path.vn;
    const struct devsw *d;
    int err;

    if ((err = fs_check(v)) < 0)
        return err;
    memset(st, 0, sizeof(*st));
    st->st_dev = v->fs->id;
    st->st_ino = v->ino;
    st->st_mode = v->mode;
    st->st_nlink = v->nlink;
    st->st_size = v->size;
    if (S_ISBLK(v->mode) && (d = dev_lookup(v->rdev)) && d->size)
        st->st_size = d->size(MINOR(v->rdev));
    st->st_blocks = (v->size + 511) / 512;
    st->st_rdev = v->rdev;
    st->st_atime = st->st_mtime = st->st_ctime = v->mtime;
    st->st_uid = v->uid;
    st->st_gid = v->gid;
    return 0;
}

/* fstat(): the node fd names, path-only fds included. */
int vfs_stat(int fd, struct stat *st)
{
    struct file *f;
    int err;

    return (f = fd_get(fd, &err)) ? file_stat(f, st) : err;
}

/* The position's move for lseek, in the file's turn: a directory only
 * rewinds (its position is opaque); a file's new position counts from
 * the start, the position or the end (a device's size too). */
static int seek_here(struct file *f, int32_t off, int whence)
{
    struct stat st;
    int64_t base;
    int err;

    if (S_ISDIR(f->path.vn->mode)) {
        if (whence != SEEK_SET || off != 0)
            return -EINVAL;
        f->dircookie = 0;
        f->dirmember = 0;
        return 0;
    }
    if ((err = file_stat(f, &st)) < 0)
        return err;
    switch (whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = f->off; break;
    case SEEK_END: base = st.st_size; break;
    default: return -EINVAL;
    }
    if (base + off < 0 || base + off > OFF_MAX)
        return -EINVAL; /* the result must fit lseek's int */
    f->off = (uint32_t)(base + off);
    return (int)f->off;
}

/* lseek() takes the position's turn, as a read, write or getdents does
 * (file_read): a read asleep inside ext2 (for the instance, or the disk)
 * moves the position on from where it read when it wakes, so an lseek
 * made meanwhile by a process sharing the file was overwritten - the
 * next read began past the lseek's target by what the first had read.
 * Now the lseek waits for that read and comes after it. */
int vfs_seek(int fd, int32_t off, int whence)
{
    struct file *f;
    int err;

    if (!(f = fd_get(fd, &err)))
        return err;
    if (f->access == FA_PATH)
        return -EBADF;
    if (!seekable(f))
        return -ESPIPE;
    if ((err = turn_take(&f->pos_busy)) < 0)
        return err;
    err = seek_here(f, off, whence);
    turn_give(&f->pos_busy);
    return err;
}

/* ftruncate(): the only way to change a regular file's length, to any
 * length, through an fd readied for writing. */
int vfs_truncate(int fd, uint32_t len)
{
    struct file *f;
    struct vnode *v;
    int err;

    if (!(f = fd_get(fd, &err)))
        return err;
    v = f->path.vn;
    if (!(f->access & FA_WRITE))
        return -EBADF;
    if (!S_ISREG(v->mode))
        return S_ISDIR(v->mode) ? -EISDIR : -EINVAL;
    if (fs_is_source(v))
        return -EBUSY; /* as file_write */
    if ((err = fs_may_change(v)) < 0 || (err = ns_attr_check(&f->path, BIND_RDONLY)) < 0)
        return err;
    return vnode_truncate(v, len);
}

/* The size of a directory entry record holding a name of `len` bytes:
 * the header, the name and its NUL, rounded up to DIRENT_ALIGN. */
static uint16_t dirent_size(size_t len)
{
    return (sizeof(struct dirent) + len + 1 + DIRENT_ALIGN - 1) & ~(DIRENT_ALIGN - 1u);
}

/* getdents(): as many whole entries of the directory f as fit in buf (n
 * bytes), from where the last call stopped; their size, 0 at the end.
 * The position moves past exactly the entries returned. A union is read
 * member after member (f->dirmember), each name once (Lab 08:
 * ns_union_hides, which lets no member the caller may not search hide a
 * name); a later member the caller may not read, or may not search, or
 * that fails (revoked), is passed over, as lookup passes over the last
 * two: every entry listed is one a lookup finds, so a name in a member
 * read but not searched and in a later one is listed once, not twice
 * (doc/decisions.md, "Lab 08: a member read but not searched"). */
static int readdir_here(struct file *f, void *buf, uint32_t n)
{
    char rec[sizeof(struct dirent) + NAME_MAX + DIRENT_ALIGN] = { 0 }; /* no stale bytes out */
    struct dirent *de = (struct dirent *)rec;
    uint32_t used = 0, ino, type;
    struct path u[MAX_UNION];
    int err, nu, fail = 0;

    nu = ns_union(curproc()->ns, &f->path, u);
    while (f->dirmember < (uint32_t)(nu ? nu : 1)) {
        uint32_t cookie = f->dircookie, i = f->dirmember;
        struct vnode *dir = nu ? u[i].vn : f->path.vn;
        size_t len;
        /* A union's later members are read in this one call until a name
         * no earlier member has, each name a lookup in every earlier
         * member: 15 members of 3000 names hidden by the first held the
         * CPU for 24 s (kernel code is never preempted). Let others run
         * when the slice is over, and stop for a kill, as tty_write. */
        if (need_resched)
            yield();
        if (curproc()->killed) {
            fail = used ? 0 : -EINTR;
            break;
        }
        if (i > 0 && perm_check(curproc(), dir, MAY_READ | MAY_EXEC) < 0)
            err = 0; /* lookup passes it over: its names are not the union's */
        else
            err = vnode_readdir(dir, &cookie, de->d_name, &ino, &type);
        if (err <= 0 && (int)i + 1 < nu) {
            f->dirmember++; /* the next member, from its start */
            f->dircookie = 0;
            continue;
        }
        if (err <= 0) {
            if (err < 0 && used == 0)
                fail = err; /* a read error, not the end */
            break;
        }
        if (nu && ns_union_hides(u, (int)i, de->d_name)) {
            f->dircookie = cookie; /* listed already, from an earlier member */
            continue;
        }
        len = strlen(de->d_name);
        memset(de->d_name + len, 0, dirent_size(len) - sizeof(struct dirent) - len);
        if (used + dirent_size(len) > n) {
            if (used == 0)
                fail = -EINVAL; /* the buffer can't hold even one */
            break;
        }
        de->d_ino = ino;
        de->d_reclen = dirent_size(len);
        de->d_type = type;
        memcpy((char *)buf + used, rec, de->d_reclen);
        used += de->d_reclen;
        f->dircookie = cookie;
    }
    ns_union_put(u, nu);
    return fail ? fail : (int)used;
}

/* getdents() on fd, in the open file's turn for its position (as read's:
 * ext2 may make a reader wait, and a sharer then read the same entries). */
int vfs_readdir(int fd, void *buf, uint32_t n)
{
    struct file *f;
    int err;

    if (!(f = fd_get(fd, &err)))
        return err;
    if (!(f->access & FA_READ))
        return -EBADF;
    if (!S_ISDIR(f->path.vn->mode))
        return -ENOTDIR;
    if ((err = turn_take(&f->pos_busy)) < 0)
        return err;
    err = readdir_here(f, buf, n);
    turn_give(&f->pos_busy);
    return err;
}

/* F_GETTTY/F_SETTTY: the console's input mode, through an fd readied on
 * it (the device is one tty; the fd says the caller may use it). */
static int console_mode(struct file *f, int cmd, int mode)
{
    struct vnode *v = f->path.vn;
    int err;

    if (f->access == FA_PATH)
        return -EBADF;
    if ((err = fs_check(v)) < 0)
        return err;
    if (!S_ISCHR(v->mode) || v->rdev != MKDEV(DEV_CONSOLE, 0))
        return -ENOTTY;
    return cmd == F_GETTTY ? tty_mode() : tty_set_mode(mode);
}

/* ---- fd tables
 *
 * A table may be shared: rfork(RFORK_SHAREFDS) gives the child the
 * parent's table itself, as threads share one. The kernel is never
 * preempted (one CPU; the timer switches processes only on their way back
 * to user mode), but a system call may sleep inside a filesystem (ext2
 * waits for its turn in the instance, and yields in long walks), and
 * then a sharer runs and may close, dup2 or fill the table. Two rules
 * make that safe, each written once, here:
 *  - fd_get() lends the call a counted reference on the file (and so on
 *    its vnode, filesystem and mount), kept in the process's call_files
 *    and dropped by fd_end_call() when the call returns: a sharer's close
 *    only takes the name away, the file lives until the call is done.
 *  - fd_room() promises the call a slot in its table (and an open file):
 *    calls with side effects (create, unbind, fsopen) ask before making
 *    them, and no one else may take a promised slot, so the promised
 *    EMFILE-before-anything-changed holds even if a sharer opens files
 *    while the call sleeps. fd_install() redeems the promise; an unused
 *    one ends with the call.
 * A slot is emptied before its file's reference is dropped (fd_close,
 * fd_dup2, fdtable_put), so no one reading the table can find a file
 * being torn down; /proc/<pid>/fd reads it without sleeping. */

struct fdtable *fdtable_new(void)
{
    struct fdtable *t = kzalloc(sizeof(*t));

    if (t)
        t->refs = 1;
    return t;
}

/* fork(): a second table on the same open files, marks and all. */
struct fdtable *fdtable_dup(struct fdtable *t)
{
    struct fdtable *n = fdtable_new();
    int i;

    if (!n)
        return NULL;
    for (i = 0; i < NOFILE; i++) {
        if ((n->fd[i] = t->fd[i]))
            file_get(n->fd[i]);
        n->fdflags[i] = t->fdflags[i];
    }
    return n;
}

/* rfork(RFORK_SHAREFDS): the same table, one more process using it. */
struct fdtable *fdtable_share(struct fdtable *t)
{
    t->refs++;
    return t;
}

/* A process lets go of its table (exit, exec). The other sharers keep it
 * as it is; the last one out closes every fd in it. */
void fdtable_put(struct fdtable *t)
{
    int i;

    if (!t || !ref_drop(&t->refs))
        return;
    for (i = 0; i < NOFILE; i++) {
        struct file *f = t->fd[i];
        t->fd[i] = NULL;
        file_put(f);
    }
    kfree(t);
}

/* exec(): the new program gets a table of its own holding exactly the fds
 * marked FD_KEEP, still marked, so a kept fd stays kept down a chain of
 * execs; every other fd is closed. `fresh` is an empty table that
 * exec_file() allocated before its point of no return, so this step
 * cannot fail. If p's table is shared, p leaves it: the other sharers
 * keep every fd they had, and nothing they open later reaches p. The
 * kept fds are copied into the private table *before* p lets go of the
 * old one, which may be the last reference to their files. Lab 06. */
void fdtable_exec(struct proc *p, struct fdtable *fresh)
{
    /* LAB 06: BEGIN (stub:
    fdtable_put(fresh);                 // unused: p keeps its table, every fd in it
    (void)p;
    ) */
    struct fdtable *old = p->fds;
    int i;

    for (i = 0; i < NOFILE; i++) {
        if (old->fd[i] && (old->fdflags[i] & FD_KEEP)) {
            file_get(old->fd[i]);
            fresh->fd[i] = old->fd[i];
            fresh->fdflags[i] = FD_KEEP;
        }
    }
    p->fds = fresh;
    fdtable_put(old);
    /* LAB 06: END */
}

/* How many open file descriptions exist (shown in /proc/meminfo, so that
 * tests can see a reference that was never dropped). */
int file_count(void)
{
    return nfiles;
}

/* Has t a free slot that no call was promised: more empty slots than
 * promised ones? The scan stops as soon as it knows (at the first empty
 * slot, when nothing is promised: every fd_install asks). */
static int slot_unpromised(struct fdtable *t)
{
    int i, n = 0;

    for (i = 0; i < NOFILE; i++)
        if (!t->fd[i] && ++n > t->promised)
            return 1;
    return 0;
}

/* Put f (whose reference we take over) in the lowest free slot: the one
 * fd_room() promised this call, or one that no call was promised. */
int fd_install(struct file *f, int keep)
{
    struct proc *me = curproc();
    struct fdtable *t = me->fds;
    int i;

    for (i = 0; i < NOFILE && t->fd[i]; i++)
        ;                               /* the lowest free slot */
    if (me->room_table == t) {
        t->promised--;
        me->room_table = NULL;
        if (i == NOFILE)
            panic("fd_install: a promised slot is gone");
    } else if (i == NOFILE || (t->promised && !slot_unpromised(t)) || fault_inject("fd table")) {
        file_put(f);
        return -EMFILE;
    }
    t->fd[i] = f;
    t->fdflags[i] = keep ? FD_KEEP : 0;
    return i;
}

/* Called before a call with side effects (create, unbind, fsopen) makes
 * its fd, so that a full table - the process's or the system's - is an
 * error *before* anything changed: 0, and a slot and an open file are
 * promised to this call until it returns (fd_install, file_alloc take
 * them), or -EMFILE / -ENFILE / -ENOMEM. The open file's memory is
 * taken here too: running out of it after the side effect would leave
 * the name made, or the attachment gone, and the call failed (fuzz_oom). */
int fd_room(void)
{
    struct proc *me = curproc();
    struct fdtable *t = me->fds;

    if (me->room_table)
        return 0;                       /* asked twice in one call */
    if (!file_left(me))
        return -ENFILE;
    if (!slot_unpromised(t) || fault_inject("fd table"))
        return -EMFILE;
    if (!(me->room_file = kzalloc(sizeof(struct file))))
        return -ENOMEM;
    t->promised++;
    me->room_table = t;
    nfiles_promised++;
    return 0;
}

/* The file fd names, with a reference that lasts until the system call
 * returns (fd_end_call): the caller may sleep with it and need not put
 * it. */
struct file *fd_get(int fd, int *err)
{
    struct proc *me = curproc();
    struct fdtable *t = me->fds;
    struct file *f;

    if (fd < 0 || fd >= NOFILE || !(f = t->fd[fd])) {
        *err = -EBADF;
        return NULL;
    }
    KASSERT(me->ncall_files < CALL_FILES);  /* a call borrows a few files at most */
    file_get(f);
    me->call_files[me->ncall_files++] = f;
    return f;
}

/* The end of p's system call (syscall_dispatch; proc_exit for the call
 * that never returns): drop what fd_get lent it and what fd_room
 * promised it and it did not use. May sleep (a last close). */
void fd_end_call(struct proc *p)
{
    if (p->room_table) {
        p->room_table->promised--;
        p->room_table = NULL;
    }
    if (p->room_file) {
        nfiles_promised--;
        kfree(p->room_file);
        p->room_file = NULL;
    }
    while (p->ncall_files > 0) {
        struct file *f = p->call_files[--p->ncall_files];
        p->call_files[p->ncall_files] = NULL;
        file_put(f);
    }
}

int fd_close(int fd)
{
    struct fdtable *t = curproc()->fds;
    struct file *f;

    if (fd < 0 || fd >= NOFILE || !(f = t->fd[fd]))
        return -EBADF;
    t->fd[fd] = NULL;
    t->fdflags[fd] = 0;
    file_put(f);
    return 0;
}

/* dup(): the lowest free fd on fd's open file, closed on exec like every
 * new fd (the FD_KEEP mark belongs to the slot, not to the file). */
int fd_dup(int fd)
{
    struct file *f;
    int err;

    if (!(f = fd_get(fd, &err)))
        return err;
    file_get(f);
    return fd_install(f, 0);
}

/* dup2(): fd `to` on from's open file, unmarked; what `to` held is closed. */
int fd_dup2(int from, int to)
{
    struct fdtable *t = curproc()->fds;
    struct file *f, *old;
    int err;

    if (!(f = fd_get(from, &err)))
        return err;
    if (to < 0 || to >= NOFILE)
        return -EBADF;
    if (from == to)
        return to;
    if (!t->fd[to] && !slot_unpromised(t))
        return -EMFILE;                 /* the last free slots are promised */
    file_get(f);
    old = t->fd[to]; /* fill the slot before the old file's */
    t->fd[to] = f; /* last close, so that no sharer of the */
    t->fdflags[to] = 0; /* table can see a file being torn down */
    file_put(old);
    return to;
}

/* fcntl(): the slot's mark (F_GETFD/F_SETFD: FD_KEEP), the open file's
 * I/O modes (F_GETFL/F_SETFL: R_APPEND, R_NONBLOCK; the access is fixed
 * by ready), the console's input mode (F_GETTTY/F_SETTTY). */
int fd_fcntl(int fd, int cmd, uint32_t arg)
{
    struct fdtable *t = curproc()->fds;
    struct file *f;
    int err;

    if (!(f = fd_get(fd, &err)))
        return err;
    switch (cmd) {
    case F_GETFD: return t->fdflags[fd];
    case F_SETFD:
        if (arg & ~FD_KEEP)
            return -EINVAL;
        t->fdflags[fd] = arg;
        return 0;
    case F_GETFL: return f->access | f->flags;
    case F_SETFL:
        if (arg & ~(R_RDWR | R_APPEND | R_NONBLOCK))
            return -EINVAL;
        if (f->access == FA_PATH)
            return -EBADF;
        f->flags = arg & (R_APPEND | R_NONBLOCK);
        return 0;
    case F_GETTTY:
    case F_SETTTY: return console_mode(f, cmd, (int)arg);
    }
    return -EINVAL;
}
