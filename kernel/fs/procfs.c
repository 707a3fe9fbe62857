/* procfs.c - /proc: the kernel's state as text files, made fresh on every
 * read from offset 0. /proc/<pid>/{status,fd,ns}, /proc/self (a symlink to
 * the caller's pid), /proc/meminfo, and /proc/prof when the profiler runs
 * (lib/prof.c). Nodes are made on lookup and freed on last put; their
 * inode numbers encode (pid, file) so names stay stable. A process's
 * nodes are that process's, not its pid's: the pid comes back after a
 * wrap, and a file held open across it would read (and, being opened as
 * the old process's owner, read for them) whatever process has it then.
 * Each node keeps its process's birth (proc.h); once that process has
 * gone, its nodes say ENOENT, as their names do. */
#include "fs/vfs.h"
#include "include/array_size.h"
#include "include/uapi/errno.h"
#include "lib/fmt.h"
#include "lib/prof.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/vm.h"
#include "proc/proc.h"

enum { PF_ROOT, PF_SELF, PF_MEMINFO, PF_PIDDIR, PF_STATUS, PF_FD, PF_NS, PF_PROF };

/* A node's inode number is its pid (PID_MAX: 28 bits) and its kind. */
#define INO(pid, kind) (((uint32_t)(pid) << 4) | (kind))
#define INO_PID(ino)   ((int)((ino) >> 4))
#define INO_KIND(ino)  ((ino) & 0xF)
#define TEXT_MAX       4096

static const struct vnode_ops procfs_ops;

/* A file's text as its last read from offset 0 made it: the reads after
 * it, further on, go on in the same text (a reader taking the file in
 * pieces gets one whole text, not the pieces of several). Nodes are made
 * per lookup, so each open file has its own. */
struct snapshot {
    char *text;
    int len;
    uint64_t birth;                     /* the process of a pid's node */
};

static const struct {
    const char *name;
    int kind;
} pid_files[] = { { "status", PF_STATUS }, { "fd", PF_FD }, { "ns", PF_NS } };

/* A node of kind for process p (NULL: none, pid 0). */
static struct vnode *proc_node(struct fs *fs, struct proc *p, int kind)
{
    int pid = p ? p->pid : 0;
    uint32_t mode = (kind == PF_PIDDIR || kind == PF_ROOT) ? S_IFDIR | 0555
                    : kind == PF_SELF                      ? S_IFLNK | 0777
                    : kind == PF_FD                        ? S_IFREG | 0400
                                                           : S_IFREG | 0444;
    struct vnode *v = vnode_alloc(fs, mode, &procfs_ops, sizeof(struct snapshot));

    if (v) {
        if (p) {                        /* a process's files are its user's */
            v->uid = p->uid;
            v->gid = p->gid;
            ((struct snapshot *)v->priv)->birth = p->birth;
        }
        v->ino = INO(pid, kind);
        v->nlink = kind == PF_PIDDIR ? 2 : 1;
    }
    return v;
}

static int procfs_lookup(struct vnode *dir, const char *name, struct vnode **out)
{
    struct proc *p;
    int kind = INO_KIND(dir->ino), pid, i;

    if (strcmp(name, "..") == 0) {
        *out = dir->fs->root;
        vnode_get(*out);
        return 0;
    }
    if (kind == PF_ROOT) {
        if (strcmp(name, "self") == 0)
            *out = proc_node(dir->fs, NULL, PF_SELF);
        else if (strcmp(name, "meminfo") == 0) {
            kheap_check();              /* see make_text */
            pmm_reclaim();
            *out = proc_node(dir->fs, NULL, PF_MEMINFO);
        } else if (strcmp(name, "prof") == 0 && prof_enabled())
            *out = proc_node(dir->fs, NULL, PF_PROF);
        else if ((pid = pid_parse(name)) > 0 && (p = proc_find(pid)))
            *out = proc_node(dir->fs, p, PF_PIDDIR);
        else
            return -ENOENT;
        return *out ? 0 : -ENOMEM;
    }
    if (!(p = proc_find_born(INO_PID(dir->ino), ((struct snapshot *)dir->priv)->birth)))
        return -ENOENT;                 /* the directory's process has gone */
    for (i = 0; i < (int)ARRAY_SIZE(pid_files); i++) {
        if (strcmp(name, pid_files[i].name) == 0) {
            *out = proc_node(dir->fs, p, pid_files[i].kind);
            return *out ? 0 : -ENOMEM;
        }
    }
    return -ENOENT;
}

static int procfs_readdir(struct vnode *dir, uint32_t *cookie, char *name, uint32_t *ino,
                          uint32_t *type)
{
    uint32_t c = (*cookie)++;

    if (c < 2) {
        strlcpy(name, c ? ".." : ".", NAME_MAX + 1);
        *ino = c ? dir->fs->root->ino : dir->ino;
        *type = DT_DIR;
        return 1;
    }
    c -= 2;
    if (INO_KIND(dir->ino) == PF_PIDDIR) {
        if (c >= ARRAY_SIZE(pid_files))
            return 0;
        strlcpy(name, pid_files[c].name, NAME_MAX + 1);
        *ino = INO(INO_PID(dir->ino), pid_files[c].kind);
        *type = DT_REG;
        return 1;
    }
    if (c < 2) {
        strlcpy(name, c ? "meminfo" : "self", NAME_MAX + 1);
        *ino = INO(0, c ? PF_MEMINFO : PF_SELF);
        *type = c ? DT_REG : DT_LNK;
        return 1;
    }
    c -= 2;
    if (prof_enabled() && c-- == 0) {
        strlcpy(name, "prof", NAME_MAX + 1);
        *ino = INO(0, PF_PROF);
        *type = DT_REG;
        return 1;
    }
    for (; c < NPROC; c++, (*cookie)++) {     /* the rest: one per live process */
        struct proc *p = &proc_table[c];
        if (p->state != P_UNUSED && p->state != P_EMBRYO) {
            snprintf(name, NAME_MAX + 1, "%d", p->pid);
            *ino = INO(p->pid, PF_PIDDIR);
            *type = DT_DIR;
            return 1;
        }
    }
    return 0;
}

static const char *state_name(enum proc_state s)
{
    switch (s) {
    case P_RUNNING: return "running";
    case P_RUNNABLE: return "runnable";
    case P_SLEEPING: return "sleeping";
    case P_ZOMBIE: return "zombie";
    default: return "embryo";
    }
}

/* /proc/<pid>/fd: read without sleeping, so the table cannot change
 * under it (an exiting p has already let go of it: NULL, empty). */
static int fd_text(struct proc *p, char *buf, size_t size)
{
    static const char *const access[] = { "path", "r", "w", "rw" };
    size_t len = 0;
    int i;

    buf[0] = '\0';
    for (i = 0; i < NOFILE && p->fds; i++) {
        struct file *f = p->fds->fd[i];
        if (!f)
            continue;
        len += snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0,
                        "%d %s %s%s%s\n", i, file_kind(f), access[f->access & 3],
                        (p->fds->fdflags[i] & FD_KEEP) ? " keep" : "",
                        (f->flags & R_NONBLOCK) ? " nonblock" : "");
    }
    return (int)len;
}

/* /proc/<pid>/ns. Naming the attachments may sleep (in ext2), and p may
 * exit or unshare meanwhile: the text is made from references of our own
 * on its namespace and its root. An exiting p has none (proc.c): empty. */
static int ns_text(struct proc *p, char *buf, size_t size)
{
    struct namespace *ns = p->ns;
    struct path root;
    int len;

    if (!ns || !p->root.vn) {
        if (size)
            buf[0] = '\0';
        return 0;
    }
    ns_get(ns);
    path_copy(&root, &p->root);
    len = ns_format(ns, &root, buf, size);
    path_put(&root);
    ns_put(ns);
    return len;
}

/* The whole text of a /proc file into buf, like snprintf: its length,
 * whether or not all of it fit in size bytes. */
static int make_text(struct vnode *v, char *buf, size_t size)
{
    int kind = INO_KIND(v->ino);
    struct proc *p = proc_find_born(INO_PID(v->ino), ((struct snapshot *)v->priv)->birth);

    if (kind == PF_MEMINFO) {
        /* Count the heap checker's quarantine as free, here and already
         * when the name is looked up: then a leak check that opens this
         * file twice sees the same number with the checker as without.
         * Pages kept only for reuse (exec's shared text) are freed too. */
        kheap_check();
        pmm_reclaim();
        return snprintf(buf, size,
                        "free_pages %u\ntotal_pages %u\nopen_files %d\n"
                        "heap_pages %u\nheap_bucket_pages %u\nheap_blocks %u\nheapcheck %d\n"
                        "procs %d\nuser_pages %u\nuser_share %u\nroot_reserve %u\n",
                        pmm_free_pages(), pmm_total_pages(), file_count(), kheap_pages(),
                        kheap_bucket_pages(), kheap_blocks(), kheap_checking, proc_count(),
                        pmm_user_pages(), pmm_user_share(), pmm_root_reserve());
    }
    if (kind == PF_PROF)
        return prof_format(buf, size);
    if (!p)
        return -ENOENT;                 /* the process has gone */
    switch (kind) {
    case PF_STATUS:
        return snprintf(buf, size, "pid %d\nppid %d\nname %s\nstate %s\npages %u\n", p->pid,
                        p->parent ? p->parent->pid : 0, p->name, state_name(p->state),
                        p->pgdir ? vm_user_pages(p->pgdir) : 0);
    case PF_FD: return fd_text(p, buf, size);
    case PF_NS: return ns_text(p, buf, size);
    }
    return -EINVAL;
}

/* Make v's text anew, into TEXT_MAX bytes, or into exactly enough when it
 * is longer (a namespace of many attachments): never cut short. The old
 * text goes first, so /proc/meminfo read again through one open file
 * counts the same heap blocks as read through a new one. Making a text
 * may sleep or let others run (ns_text), and another open file of this
 * node (ready() twice from one walk) may take a text meanwhile: ours
 * replaces it, which is freed then (it was lost to the heap, a text of
 * the namespace's size each time, as often as a user liked). */
static int take_snapshot(struct vnode *v)
{
    struct snapshot *s = v->priv;
    size_t size = TEXT_MAX;
    char *text;
    int len;

    kfree(s->text);
    s->text = NULL;
    for (;;) {
        if (!(text = kmalloc(size)))
            return -ENOMEM;
        if ((len = make_text(v, text, size)) < 0 || (size_t)len < size)
            break;
        kfree(text);
        size = (size_t)len + 1;         /* it grew: ask again with room for all of it */
    }
    if (len < 0) {
        kfree(text);
        return len;
    }
    kfree(s->text);                     /* another reader's, taken while we made ours */
    s->text = text;
    s->len = len;
    return 0;
}

/* A read from offset 0 takes the text anew; a read further on goes on in
 * the text taken then (or takes one, if none was). The copy out does not
 * sleep, so the text it reads stays; the making may (take_snapshot), and
 * open files of one node share its text: the last one made. */
static int procfs_read(struct vnode *v, void *buf, uint32_t off, uint32_t n)
{
    struct snapshot *s = v->priv;
    int err;

    if ((off == 0 || !s->text) && (err = take_snapshot(v)) < 0)
        return err;
    if (off >= (uint32_t)s->len)
        return 0;
    if (n > s->len - off)
        n = s->len - off;
    memcpy(buf, s->text + off, n);
    return (int)n;
}

/* The last reference: the text goes with the node. */
static void procfs_inactive(struct vnode *v)
{
    kfree(((struct snapshot *)v->priv)->text);
    kfree(v);
}

static int procfs_readlink(struct vnode *v, char *buf, uint32_t n)
{
    char tmp[16];
    int len = snprintf(tmp, sizeof(tmp), "%d", curproc() ? curproc()->pid : 0);

    if ((uint32_t)len > n)
        len = n;
    memcpy(buf, tmp, len);
    return len;
}

static const struct vnode_ops procfs_ops = {
    .lookup = procfs_lookup,
    .readdir = procfs_readdir,
    .read = procfs_read,
    .readlink = procfs_readlink,
    .inactive = procfs_inactive,
};

static int procfs_mount(struct fs *fs, struct file *src, const char *opts)
{
    if (src)
        return -EINVAL;
    fs->readonly = 1;
    fs->root = proc_node(fs, NULL, PF_ROOT);
    return fs->root ? 0 : -ENOMEM;
}

static void procfs_release(struct fs *fs)
{
    vnode_put(fs->root);
}

const struct fs_type procfs_type = {
    .name = "procfs",
    .mount = procfs_mount,
    .release = procfs_release,
};
