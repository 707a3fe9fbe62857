/* vfs.h - the virtual filesystem: vnodes (a node in some filesystem),
 * filesystem instances, paths (path.h: a vnode *as reached through* an
 * attachment), namespaces, open files and fd tables. The layers, top
 * down, one prefix each: the system calls (sysfile.c) call a vfs_
 * function, the work of one call with every rule of it; below are the
 * mechanisms fs_ (instances), ns_ (attachments), file_/fd_ (open files,
 * the fd table), vnode_ (the one way into a filesystem's operations) and
 * path_ (doc/decisions.md, "The VFS layers"). */
#ifndef FS_VFS_H
#define FS_VFS_H

#include <stddef.h>
#include <stdint.h>
#include "fs/path.h"
#include "include/uapi/errno.h"
#include "include/uapi/fs.h"
#include "lib/kprintf.h"

struct fs;
struct vnode;
struct mount;
struct pipe;
struct file;

/* What a filesystem implements for its nodes: storage, and only that.
 * Every rule (types, read-only, revoked, attachments, permissions) is
 * checked by the VFS before an operation is called (vfs_create, ...), and
 * a missing entry makes the VFS answer -EPERM (the vnode_ calls in
 * vfs.c). All return 0 / a count, or -errno. Name arguments are single
 * components, never "." or "..", at most NAME_MAX bytes. */
struct vnode_ops {
    int (*lookup)(struct vnode *dir, const char *name, struct vnode **out);
    int (*create)(struct vnode *dir, const char *name, uint32_t mode, uint32_t rdev,
                  const char *symlink, struct vnode **out);
    int (*link)(struct vnode *dir, const char *name, struct vnode *v);
    /* name is there, and a directory is removed only when empty
     * (-ENOTEMPTY): the VFS has checked its type against the caller's wish */
    int (*unlink)(struct vnode *dir, const char *name);
    /* oname is there; nname is replaced if there (the VFS checked that its
     * type matches, that it is another node, and RENAME_NOREPLACE); the
     * filesystem refuses a directory into itself (-EINVAL), a non-empty
     * victim directory (-ENOTEMPTY) */
    int (*rename)(struct vnode *odir, const char *oname, struct vnode *ndir, const char *nname);
    int (*read)(struct vnode *v, void *buf, uint32_t off, uint32_t n);
    int (*write)(struct vnode *v, const void *buf, uint32_t off, uint32_t n);
    int (*truncate)(struct vnode *v, uint32_t len);
    /* One entry at *cookie (opaque, starts at 0): fills name/ino/type and
     * advances *cookie; returns 1, or 0 at the end. */
    int (*readdir)(struct vnode *dir, uint32_t *cookie, char *name, uint32_t *ino, uint32_t *type);
    int (*readlink)(struct vnode *v, char *buf, uint32_t n);
    void (*inactive)(struct vnode *v);      /* last reference dropped */
    /* Store v->mode, v->uid and v->gid (fchmod, fchown, a new node's
     * owner). NULL: the vnode itself is the storage (ramfs, devfs). */
    int (*setattr)(struct vnode *v);
};

struct vnode {
    uint32_t mode;                  /* S_IF* type | permission bits */
    uint32_t ino;
    uint32_t nlink;
    uint32_t size;
    uint32_t rdev;                  /* device nodes */
    uint32_t mtime;
    uint32_t uid, gid;              /* owner and group (perm.c checks them) */
    int refs;
    int mounted;                    /* mounts (any namespace's) with it as their place */
    struct fs *fs;
    const struct vnode_ops *ops;
    struct pipe *pipe;              /* FIFOs: the ring (pipe_open, pipe_close) */
    void *priv;                     /* the filesystem's own per-node data */
    int appending;                  /* an R_APPEND write is under way (file_write) */
};

#define FSTYPE_MAX 16                   /* a filesystem type's name, its NUL included */
#define FSOPTS_MAX 64                   /* fsopen's options, their NUL included */

/* A kind of filesystem: "ramfs", "ext2", ... (registered in vfs.c). */
struct fs_type {
    const char *name;
    /* Fill in fs->root (and fs->priv). src is the source file or NULL. */
    int (*mount)(struct fs *fs, struct file *src, const char *opts);
    int (*sync)(struct fs *fs);
    void (*release)(struct fs *fs); /* free everything; the fs is unused */
};

/* One filesystem instance, made by fsopen(). It lives while anything
 * refers to it: attachments, open files, cwd/root (counted in refs). */
struct fs {
    const struct fs_type *type;
    struct vnode *root;
    int refs;
    int id;
    int readonly;
    int revoked;                    /* revoke(): every operation now -EIO */
    struct file *source;            /* the device or image file, or NULL */
    char *source_name;              /* the source's recorded name; NULL: no source */
    void *priv;
    struct fs *next;                /* the list of live instances */
    int depth;                      /* images inside images: bounded, see fs_new */
    uint32_t owner;                 /* the uid that called fsopen: who may revoke it */
    int naming;                     /* a name operation is under way (fs_names_begin) */
    int closing;                    /* its next sync is its last: revoke, poweroff (ext2) */
};

/* An open file description. Access FA_PATH = walk() result: names the node
 * but can't read or write. ready() makes a new one with FA_READ/FA_WRITE. */
#define FA_PATH  0
#define FA_READ  R_READ
#define FA_WRITE R_WRITE

struct file {
    int refs;
    int access;                     /* FA_* */
    int flags;                      /* R_APPEND | R_NONBLOCK */
    struct path path;
    uint32_t off;
    int pos_busy;                   /* a read, write or getdents is using the position */
    uint32_t dircookie;             /* getdents position */
    uint32_t dirmember;             /* getdents of a union: in which member (ns_union) */
    char *name;                     /* its display name (vfs_display_name), or NULL */
    uint32_t uid;                   /* charged to: who opened it (USER_OPEN_MAX, file.c) */
    struct file *next_open, *prev_open; /* in file.c's list of every open file */
    char own_name[];                /* file_alloc's copy of a name, in the same block */
};

/* Drop one of the references counted in *refs: 1 if it was the last (the
 * caller then releases the object), else 0. One rule for every counted
 * object here (vnode, fs, mount, file, fd table, namespace); dropping a
 * reference nobody holds is a kernel bug. */
static inline int ref_drop(int *refs)
{
    KASSERT(*refs > 0);
    return --*refs == 0;
}

/* ---- vnodes and filesystems (vfs.c) */
void vfs_init(void);
struct vnode *vnode_alloc(struct fs *fs, uint32_t mode, const struct vnode_ops *ops, size_t priv);
void vnode_release(struct vnode *v);    /* its last reference went: vnode_put */
void fs_release(struct fs *fs);         /* the same for an instance: fs_put */

/* Taking and dropping references, inline: each step of a walk takes
 * and drops several (path_get, path_put), and a call costs more than the
 * count; what the last one means is vnode_release's and fs_release's. */
static inline void vnode_get(struct vnode *v)
{
    v->refs++;
}

static inline void vnode_put(struct vnode *v)
{
    if (v && ref_drop(&v->refs))
        vnode_release(v);
}

static inline void fs_get(struct fs *fs)
{
    fs->refs++;
}

static inline void fs_put(struct fs *fs)
{
    if (fs && ref_drop(&fs->refs))
        fs_release(fs);
}

/* An attachment: "at vnode mp, reached through mount parent, show root
 * instead". Only namespace.c looks inside (it makes, lists and detaches
 * them); it is here for paths, which take and drop references on their
 * mount inline, as on their vnode and filesystem. */
struct mount {
    int refs;                   /* the namespace list's, plus one per path */
    int id;
    int attached;
    struct mount *parent;       /* NULL: a namespace root, or detached */
    struct vnode *mp;           /* the covered vnode (in parent), or NULL */
    struct vnode *root;         /* what is shown there */
    struct mount *next;         /* in the namespace list */
    struct mount *copy;         /* scratch: ns_copy's, and the sweep's (set_tops) */
    char *name;                 /* a non-directory's: the name it was bound at, or NULL */
    int flags;                  /* BIND_* it was bound with (setattach: BIND_ATTRS), MNT_* */
};

/* A mount's own flags, beside BIND_FLAGS: */
#define MNT_UNIONED 0x100       /* a member of a union, or the base it was bound onto */
#define MNT_BASE    0x200       /* the base a union bind made: the directory that was there */

void mount_release(struct mount *m);    /* its last reference went: mount_put */

static inline void mount_get(struct mount *m)
{
    m->refs++;
}

static inline void mount_put(struct mount *m)
{
    if (m && ref_drop(&m->refs))
        mount_release(m);
}

/* ---- paths (path.h): the references a path holds, one on its vnode,
 * one on the vnode's filesystem and one on its mount. Inline, like the
 * counts themselves: every step of a walk takes and drops a few. */
static inline void path_get(const struct path *p)
{
    vnode_get(p->vn);
    fs_get(p->vn->fs);
    if (p->mnt)
        mount_get(p->mnt);
}

/* Drop p's references and empty it; an empty path is a no-op. */
static inline void path_put(struct path *p)
{
    struct vnode *v = p->vn;
    struct fs *fs;

    if (!v)
        return;
    fs = v->fs;                         /* read first: v may go with its reference */
    mount_put(p->mnt);
    vnode_put(v);
    fs_put(fs);
    p->vn = NULL;
    p->mnt = NULL;
}

static inline void path_copy(struct path *dst, const struct path *src)
{
    *dst = *src;
    path_get(dst);
}

static inline int path_equal(const struct path *a, const struct path *b)
{
    return a->vn == b->vn && a->mnt == b->mnt;
}

/* The path of v, a lookup's result in directory `dir`: the same
 * attachment, and v's reference (the one the lookup gave) handed over. */
static inline void path_child(const struct path *dir, struct vnode *v, struct path *out)
{
    out->mnt = dir->mnt;
    out->vn = v;
    fs_get(v->fs);
    if (out->mnt)
        mount_get(out->mnt);
}

/* Is a name "." or ".."? Asked at every step of every walk: inline. */
static inline int name_is_dot(const char *n)
{
    return n[0] == '.' && n[1] == '\0';
}

static inline int name_is_dotdot(const char *n)
{
    return n[0] == '.' && n[1] == '.' && n[2] == '\0';
}
int fs_new(const char *type, struct file *src, const char *opts, struct fs **out);
int fs_revoke(struct fs *fs);                                       /* Lab 04 */
const char *fs_source_name(const struct fs *fs);
int fs_is_source(const struct vnode *v);
int vfs_fsopen(const char *type, int srcfd, const char *opts, struct path *out);  /* Lab 03 */
int vfs_revoke(int fd);

/* -EIO if v's filesystem was revoked, else 0: asked before every use of
 * a node (inline: every walk step and every ready asks). */
static inline int fs_check(const struct vnode *v)
{
    return v->fs && v->fs->revoked ? -EIO : 0;
}

/* May v's filesystem change - its names, its files' bytes? The read-only
 * rule, written once: -EIO once revoked, -EROFS for a read-only instance.
 * Every change of names or of a regular file's bytes asks (the vfs_
 * operations, file_write_at, vfs_ready for write access); devices and
 * FIFOs in a read-only filesystem still work, their bytes are not its. */
static inline int fs_may_change(const struct vnode *v)
{
    int err = fs_check(v);

    return err ? err : v->fs->readonly ? -EROFS : 0;
}
int vnode_lookup(struct vnode *dir, const char *name, struct vnode **out);
int vnode_create(struct vnode *dir, const char *name, uint32_t mode, uint32_t rdev,
                 const char *symlink, struct vnode **out);
int vnode_link(struct vnode *dir, const char *name, struct vnode *v);
int vnode_unlink(struct vnode *dir, const char *name);
int fs_names_begin(struct fs *fs);      /* name operations take turns: 0 or -EINTR */
void fs_names_end(struct fs *fs);
int vnode_rename(struct vnode *odir, const char *oname, struct vnode *ndir, const char *nname);
int vnode_read(struct vnode *v, void *buf, uint32_t off, uint32_t n);
int vnode_write(struct vnode *v, const void *buf, uint32_t off, uint32_t n);
int vnode_truncate(struct vnode *v, uint32_t len);
int vnode_readdir(struct vnode *dir, uint32_t *cookie, char *name, uint32_t *ino, uint32_t *type);
int vnode_readlink(struct vnode *v, char *buf, uint32_t n);
int vnode_setattr(struct vnode *v);
int vnode_keeps_attrs(struct vnode *v);   /* a setattr for in-memory nodes */
int fs_may_revoke(struct fs *fs);                                   /* Lab 07 */
void vfs_sync_all(void);
void vfs_sync_last(void);                 /* poweroff: each sync its last */
void register_fs_type(const struct fs_type *t);
int vnode_type_dt(uint32_t mode);
int opt_has(const char *opts, const char *word);

/* ---- names: resolution and the operations on names (namei.c) */
struct proc;
int vfs_walk(int dirfd, const char *path, int flags, struct path *out);
int vfs_create(int dirfd, const char *path, uint32_t type, uint32_t perm, uint32_t rdev,
               const char *symlink, struct path *out);
int vfs_link(int fd, int dirfd, const char *path);
int vfs_unlink(int dirfd, const char *path, int flags);
int vfs_rename(int odirfd, const char *old, int ndirfd, const char *new, int flags);
int vfs_readlink(int dirfd, const char *path, char *buf, uint32_t n);
int vfs_fchroot(int fd);
int vfs_fchdir(int fd);
int vfs_walk_from(struct proc *p, int dirfd, const char *path, int flags, struct path *out);
int vfs_boot_namespace(struct proc *init);
struct fs *vfs_boot_root(void);         /* init's root: revoke refuses it */
int vfs_walk_parent(int dirfd, const char *path, struct path *parent, char *name);
int vfs_getcwd(char *buf, size_t size);
struct namespace;
int vfs_path_name(struct namespace *ns, const struct path *root, const struct path *p, char *buf,
                  size_t size);
char *vfs_display_name(int dirfd, const char *path);

/* ---- namespaces (namespace.c) */
struct namespace;
struct namespace *ns_create(struct vnode *root);
void ns_get(struct namespace *ns);
void ns_put(struct namespace *ns);
struct namespace *ns_copy(struct namespace *ns, struct path *root, struct path *cwd);
void ns_cross(struct namespace *ns, struct path *p);
int ns_climb(struct path *p);
int ns_is_top(const struct path *p);
int ns_bind(struct namespace *ns, const struct path *what, const struct path *where,
            const char *name, int flags);
int ns_unbind(struct namespace *ns, struct path *where, struct path *out);  /* Lab 04 */
void ns_detach_fs(struct fs *fs);
int vfs_bind(int fd, int dirfd, const char *path, int flags);              /* Lab 03 */
int vfs_unbind(int dirfd, const char *path, struct path *out);
int ns_dotdot(struct namespace *ns, const struct path *root, struct path *p);
int ns_name_busy(struct namespace *ns, const struct path *p);
int ns_unshare(struct proc *p);
int ns_format(struct namespace *ns, const struct path *root, char *buf, size_t size);
int ns_attach_root(struct namespace *ns, struct path *p);
void ns_drop_unused_roots(struct namespace *ns);
struct mount *ns_root_mount(struct namespace *ns);
int ns_may_change(struct namespace *ns);                                   /* Lab 07 */
int ns_attached_beyond(struct fs *fs, uint32_t uid);
int ns_union_root(struct namespace *ns, const struct path *root, const struct path *p);

/* The attribute rules: does p's attachment forbid what `attr` names?
 * BIND_RDONLY: changing anything through it (-EROFS); BIND_NOEXEC: exec
 * (-EACCES); BIND_NODEV: readying a device (-EACCES). A path's attributes
 * are those of the attachment it is on, the one it was reached through,
 * and nothing else's: the filesystem's own read-only is fs_may_change's.
 * A path reached through no attachment (an fsopen fd) has none. Checked
 * where access is granted (ready, create, exec...), never at each
 * read or write: what was granted stays granted. */
static inline int ns_attr_check(const struct path *p, int attr)
{
    if (!p->mnt || !(p->mnt->flags & attr))
        return 0;
    return attr == BIND_RDONLY ? -EROFS : -EACCES;
}
int ns_attr_keeps(const struct path *from, const struct path *to); /* link/rename: -EXDEV */
int vfs_setattach(int dirfd, const char *path, int flags);

/* Union directories (namespace.c, Lab 08): a path on a member's root is
 * the union; ns_union gives its members in order, with references. */
#define MAX_UNION    16                 /* members of one union */
#define UNION_OLD    0                  /* ns_union_dir: acting on an existing name */
#define UNION_NEW    1                  /* making an exclusive new one */
#define UNION_TARGET 2                  /* rename's new name */
int ns_union_members(struct namespace *ns, const struct path *p, struct path *u);

/* If p is the root of a member of a union of ns (two members or more),
 * fill u with paths on its members' roots in search order and return
 * their number (the caller drops them with ns_union_put); otherwise 0.
 * Asked at every step of a walk, and nearly always answered by the
 * first test, here, without a call. */
static inline int ns_union(struct namespace *ns, const struct path *p, struct path *u)
{
    if (!p->mnt || p->vn != p->mnt->root || !(p->mnt->flags & MNT_UNIONED))
        return 0;
    return ns_union_members(ns, p, u);
}
void ns_union_put(struct path *u, int n);
int ns_lookup(struct namespace *ns, const struct proc *who, const struct path *dir,
              const char *name, struct path *out);
int ns_union_hides(const struct path *u, int i, const char *name);          /* Lab 08 */
int ns_union_dir(struct namespace *ns, struct path *dir, const char *name, int how);

/* ---- open files and fd tables (file.c) */
#define NOFILE       OPEN_MAX
#define NFILE        512
#define OFF_MAX      INT32_MAX          /* a file position: what lseek's int result holds */
#define DIRENT_ALIGN 4                  /* getdents records start at multiples of this */

/* A process's descriptors. rfork(RFORK_SHAREFDS) lets several processes
 * use one table (refs counts them): what one opens, closes or marks, the
 * others see at once, as threads do. */
struct fdtable {
    int refs;
    int promised;                   /* free slots fd_room() promised to calls in progress */
    struct file *fd[NOFILE];
    uint8_t fdflags[NOFILE];        /* FD_KEEP */
};

struct file *file_alloc(const struct path *p, int access, int flags, const char *name);
void file_get(struct file *f);
void file_put(struct file *f);
int file_read(struct file *f, void *kbuf, uint32_t n);
int file_write(struct file *f, const void *kbuf, uint32_t n);
const char *file_kind(const struct file *f);
int file_read_at(struct file *f, void *kbuf, uint32_t off, uint32_t n);
int file_write_at(struct file *f, const void *kbuf, uint32_t off, uint32_t n);
int file_sync(struct file *f);
int file_stat(struct file *f, struct stat *st);
int vfs_ready(int fd, int mode, struct file **out);
int vfs_truncate(int fd, uint32_t len);
int vfs_readdir(int fd, void *buf, uint32_t n);
int vfs_stat(int fd, struct stat *st);
int vfs_seek(int fd, int32_t off, int whence);
struct fdtable *fdtable_new(void);                  /* empty, one reference */
struct fdtable *fdtable_dup(struct fdtable *t);     /* a copy (fork) */
struct fdtable *fdtable_share(struct fdtable *t);   /* one more reference (rfork) */
void fdtable_put(struct fdtable *t);                /* the last one closes every fd */
void fdtable_exec(struct proc *p, struct fdtable *fresh);   /* Lab 06 */
int file_count(void);                               /* open files, system-wide */
int fd_install(struct file *f, int keep);       /* the lowest free fd, or -EMFILE */
int fd_room(void);                              /* 0, or -EMFILE / -ENFILE */
struct file *fd_get(int fd, int *err);          /* counted until the call returns */
void fd_end_call(struct proc *p);               /* the call returns: drop what it borrowed */
int fd_close(int fd);
int fd_dup(int fd);
int fd_dup2(int from, int to);
int fd_fcntl(int fd, int cmd, uint32_t arg);

/* ---- permissions (perm.c): every check of the authority rules that is
 * about a node; the namespace's and revoke's are ns_may_change and
 * fs_may_revoke. doc/decisions.md, "Authority". */
#define MAY_EXEC  01                    /* search, for a directory */
#define MAY_WRITE 02
#define MAY_READ  04
int perm_check(const struct proc *p, const struct vnode *v, int want);
int perm_ready(const struct proc *p, const struct vnode *v, int access);
int perm_dir_change(const struct proc *p, const struct vnode *dir);
int perm_sticky(const struct proc *p, const struct vnode *dir, const struct vnode *v);
int perm_create(const struct proc *p, const struct vnode *dir, uint32_t type);
int perm_own(const struct proc *p, struct vnode *v);
int vfs_fchmod(int fd, uint32_t mode);
int vfs_fchown(int fd, uint32_t uid, uint32_t gid);

/* ---- pipes and FIFOs (pipe.c) */
int pipe_open(struct vnode *v, int access);
void pipe_close(struct vnode *v, int access);
int pipe_read(struct vnode *v, void *buf, uint32_t n, int nonblock);
int pipe_write(struct vnode *v, const void *buf, uint32_t n, int nonblock);
int pipe_new(struct file **rd, struct file **wr);
void pipe_free(struct pipe *p);
const char *pipe_kind(struct vnode *v);

/* ---- ramfs, which devfs builds on (ramfs.c) */
int ramfs_mount(struct fs *fs, struct file *src, const char *opts);
void ramfs_release(struct fs *fs);
int ramfs_borrow(struct vnode *v, const void *data, uint32_t size);

/* ---- the root filesystem from the boot archive (initrd.c) */
int initrd_unpack(struct vnode *root, const void *tar, size_t size);

#endif
