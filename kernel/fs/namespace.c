/* namespace.c - attachments: what is bound where. A namespace is a list
 * of mounts, newest first; each mount says "at vnode mp, reached through
 * mount parent, show root instead". bind() adds one, unbind() takes one
 * (and everything below it) out and hands back an fd on what it held, and
 * revoke() forcibly detaches a filesystem everywhere. fork() shares the
 * namespace; unshare() gives a process its own copy (Plan 9's RFNAMEG). */
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "lib/fmt.h"
#include "lib/kprintf.h"
#include "lib/string.h"
#include "mm/page.h"
#include "proc/proc.h"

struct mount {
    int refs;                   /* the namespace list's, plus one per path */
    int id;
    int attached;
    struct mount *parent;       /* NULL: a namespace root, or detached */
    struct vnode *mp;           /* the covered vnode (in parent), or NULL */
    struct vnode *root;         /* what is shown there */
    struct mount *next;         /* in the namespace list */
    struct mount *copy;         /* scratch for ns_copy */
    char *name;                 /* a non-directory's: the name it was bound at, or NULL */
};

/* Laid out by hand (clang-format reads C++'s namespace keyword): */
/* clang-format off */
struct namespace {
    int refs;
    struct mount *mounts;       /* newest first */
    struct mount *root;
    struct namespace *next;     /* all namespaces, for revoke */
    uint32_t owner;             /* who may change it: its unshare()r; boot's: root */
};
/* clang-format on */

/* Both changed only by system calls, never by an interrupt, and none
 * sleeps while it changes them (one CPU, no kernel preemption). */
static struct namespace *all_ns;        /* every namespace, for revoke */
static int next_mount_id = 1;

void mount_get(struct mount *m)
{
    m->refs++;
}

void mount_put(struct mount *m)
{
    if (!m || !ref_drop(&m->refs))
        return;
    if (m->mp) {
        struct fs *fs = m->mp->fs;
        vnode_put(m->mp);
        fs_put(fs);
    }
    if (m->root) {
        struct fs *fs = m->root->fs;
        vnode_put(m->root);
        fs_put(fs);
    }
    mount_put(m->parent);
    kfree(m->name);
    kfree(m);
}

/* A new attached mount showing `root` at (parent, mp), taking references.
 * A non-directory keeps `name`, the name it is attached at (ns_format
 * cannot find a file's name by climbing, as it does a directory's). */
static struct mount *mount_new(struct mount *parent, struct vnode *mp, struct vnode *root,
                               const char *name)
{
    struct mount *m = kzalloc(sizeof(*m));

    if (!m)
        return NULL;
    if (name && !S_ISDIR(root->mode) && !(m->name = kstrdup(name))) {
        kfree(m);
        return NULL;
    }
    m->refs = 1;
    m->id = next_mount_id++;
    m->attached = 1;
    if ((m->parent = parent))
        mount_get(parent);
    if ((m->mp = mp)) {
        vnode_get(mp);
        fs_get(mp->fs);
    }
    m->root = root;
    vnode_get(root);
    fs_get(root->fs);
    return m;
}

struct namespace *ns_create(struct vnode *root)
{
    struct namespace *ns = kzalloc(sizeof(*ns));

    if (!ns)
        return NULL;
    if (!(ns->root = ns->mounts = mount_new(NULL, NULL, root, NULL))) {
        kfree(ns);
        return NULL;
    }
    ns->refs = 1;
    ns->next = all_ns;
    all_ns = ns;
    return ns;
}

struct mount *ns_root_mount(struct namespace *ns)
{
    return ns->root;
}

void ns_get(struct namespace *ns)
{
    ns->refs++;
}

/* Take m off its namespace's list and cut it loose: its root stays alive
 * for whoever holds paths into it, but ".." no longer leaves it. */
static void detach_one(struct mount *m)
{
    struct mount *parent = m->parent;

    m->attached = 0;
    m->parent = NULL;
    if (m->mp) {
        struct fs *fs = m->mp->fs;
        vnode_put(m->mp);
        m->mp = NULL;
        fs_put(fs);
    }
    mount_put(parent);
    mount_put(m);                       /* the list's reference */
}

static int is_below(struct mount *m, struct mount *top)
{
    for (; m; m = m->parent)
        if (m == top)
            return 1;
    return 0;
}

/* Is m on ns's list (an attachment of this namespace, not another's)? */
static int ns_has(struct namespace *ns, struct mount *m)
{
    struct mount *i;

    for (i = ns->mounts; i; i = i->next)
        if (i == m)
            return 1;
    return 0;
}

/* Detach `top` and every mount below it from ns. */
static void detach_tree(struct namespace *ns, struct mount *top)
{
    struct mount **pp = &ns->mounts, *doomed = NULL, *m;

    while ((m = *pp)) {
        if (is_below(m, top)) {
            *pp = m->next;
            m->next = doomed;
            doomed = m;
        } else {
            pp = &m->next;
        }
    }
    for (m = doomed; m; m = m->next)    /* none of them is ours any more, */
        m->attached = 0;                /* even while detach_one sleeps */
    while ((m = doomed)) {              /* children were listed first */
        doomed = m->next;
        detach_one(m);
    }
}

/* The last reference takes ns off all_ns at once (so that no one finds
 * and takes a dying namespace), then detaches everything, which may sleep. */
void ns_put(struct namespace *ns)
{
    struct namespace **pp;

    if (!ref_drop(&ns->refs))
        return;
    for (pp = &all_ns; *pp; pp = &(*pp)->next) {
        if (*pp == ns) {
            *pp = ns->next;
            break;
        }
    }
    while (ns->mounts) {                /* every tree: fchroot may have added roots */
        struct mount *m = ns->mounts;
        while (m->parent)
            m = m->parent;
        detach_tree(ns, m);
    }
    kfree(ns);
}

/* The newest attachment of ns on p, or NULL. */
static struct mount *covering(struct namespace *ns, const struct path *p)
{
    struct mount *m;

    for (m = ns ? ns->mounts : NULL; m; m = m->next)
        if (m->mp && m->mp == p->vn && m->parent == p->mnt)
            return m;
    return NULL;
}

/* Follow attachments down: while something is bound on p, go to it
 * (something may be stacked on what is bound there). */
void ns_cross(struct namespace *ns, struct path *p)
{
    struct mount *m;

    while ((m = covering(ns, p))) {
        struct path next = { m, m->root };
        path_get(&next);
        path_put(p);
        *p = next;
    }
}

/* Is something attached on p in ns? Such a name cannot go away: unlink
 * and rename say EBUSY. */
int ns_name_busy(struct namespace *ns, const struct path *p)
{
    return covering(ns, p) != NULL;
}

/* If p is the root of an attachment, step out onto the mountpoint. */
int ns_climb(struct path *p)
{
    struct path up;

    if (!p->mnt || p->vn != p->mnt->root || !p->mnt->parent)
        return 0;
    up.mnt = p->mnt->parent;
    up.vn = p->mnt->mp;
    path_get(&up);
    path_put(p);
    *p = up;
    return 1;
}

/* Is p the root of an attachment with nothing above it (a namespace root,
 * or a detached tree)? ".." stays there. */
int ns_is_top(const struct path *p)
{
    return p->mnt && p->vn == p->mnt->root && !p->mnt->parent;
}

/* "..": never above root; out of attachments; then the filesystem's own. */
int ns_dotdot(struct namespace *ns, const struct path *root, struct path *p)
{
    struct path up;
    int err;

    /* The root is recognised by its vnode alone: a directory fd made
     * before unshare() names it through an older mount, and must not climb
     * past it either. */
    for (;;) {
        if (root && p->vn == root->vn)
            return 0;
        if (!ns_climb(p))
            break;
    }
    if ((err = path_parent(p, &up)) <= 0)
        return err;                     /* a top: stay */
    path_put(p);
    *p = up;
    ns_cross(ns, p);
    return 0;
}

#define MAX_MOUNTS 256                  /* attachments per namespace */

static int count_mounts(struct namespace *ns)
{
    struct mount *m;
    int n = 0;

    for (m = ns->mounts; m; m = m->next)
        n++;
    return n;
}

/* The mount below top with the smallest id greater than after (or NULL).
 * A mount is always made after its parent, so visiting in id order visits
 * parents before children - without recursion, which user-made nesting
 * could drive deeper than a kernel stack. */
static struct mount *next_below(struct namespace *ns, struct mount *top, int after, int limit)
{
    struct mount *m, *best = NULL;

    for (m = ns->mounts; m; m = m->next)
        if (m != top && m->id > after && m->id < limit && is_below(m, top) &&
            (!best || m->id < best->id))
            best = m;
    return best;
}

/* Give dst a copy of every attachment below src (older than limit), so
 * that binding the root of an attachment brings along what is attached
 * inside it, like Linux's `mount --rbind`: bind / at /old keeps /old/dev. */
static int copy_below(struct namespace *ns, struct mount *src, struct mount *dst, int limit)
{
    struct mount *m, *c;
    int after = 0;

    src->copy = dst;
    while ((m = next_below(ns, src, after, limit))) {
        after = m->id;
        if (count_mounts(ns) >= MAX_MOUNTS)
            return -ENOSPC;
        if (!(c = mount_new(m->parent->copy, m->mp, m->root, m->name)))
            return -ENOMEM;
        m->copy = c;
        c->next = ns->mounts;
        ns->mounts = c;
    }
    return 0;
}

/* The heart of bind(): check that `what` may cover where->vn, make the
 * mount and put it at the head of the namespace's list, so that ns_cross
 * finds it before anything it covers. */
static int attach(struct namespace *ns, struct vnode *what, const struct path *where,
                  const char *name, struct mount **out)
{
    struct mount *m;
    int err;

    if ((err = fs_check(what)) < 0 || (err = fs_check(where->vn)) < 0)
        return err;
    if (S_ISDIR(what->mode) && !S_ISDIR(where->vn->mode))
        return -ENOTDIR;
    if (!S_ISDIR(what->mode) && S_ISDIR(where->vn->mode))
        return -EISDIR;
    if (!where->mnt || !where->mnt->attached || !ns_has(ns, where->mnt))
        return -EINVAL;                 /* target must be in this namespace */
    if (count_mounts(ns) >= MAX_MOUNTS)
        return -ENOSPC;
    if (!(m = mount_new(where->mnt, where->vn, what, name)))
        return -ENOMEM;
    m->next = ns->mounts;
    ns->mounts = m;
    *out = m;
    return 0;
}

/* Attach `what` at `where` in ns: directories on directories, everything
 * else on non-directories, never on a revoked filesystem, and only at a
 * place of this namespace. Stacking on an existing attachment covers it
 * (the newest wins in ns_cross). Binding the root of an attachment brings
 * along what is attached below it (copy_below). `name` is the name where
 * was given by, kept for a non-directory (ns_format); may be NULL. */
int ns_bind(struct namespace *ns, const struct path *what, const struct path *where,
            const char *name)
{
    int limit = next_mount_id, err;
    struct mount *m;

    if ((err = ns_may_change(ns)) < 0 || (err = attach(ns, what->vn, where, name, &m)) < 0)
        return err;
    if (what->mnt && what->vn == what->mnt->root &&
        (err = copy_below(ns, what->mnt, m, limit)) < 0) {
        detach_tree(ns, m);
        return err;
    }
    return 0;
}

/* bind(): attach what fd names at (dirfd, path) in the caller's
 * namespace. The target is resolved once, and the name it was given by
 * goes with it to ns_bind, which keeps it for a non-directory. Lab 03. */
int vfs_bind(int fd, int dirfd, const char *path, int flags)
{
    /* LAB 03: BEGIN */
    struct path where;
    struct file *f;
    char *name;
    int err;

    if (flags != BIND_REPLACE)
        return -EINVAL;
    if (!(f = fd_get(fd, &err)))
        return err;
    if ((err = vfs_walk(dirfd, path, 0, &where)) < 0)
        return err;
    name = vfs_display_name(dirfd, path);
    err = ns_bind(curproc()->ns, &f->path, &where, name);
    kfree(name);
    path_put(&where);
    return err;
    /* LAB 03: END */
}

/* fchroot() on a detached tree (fsopen, unbind): make it a root of the
 * namespace, so that bind() can attach things below it. *p is updated to
 * name the same vnode through the new root attachment. */
int ns_attach_root(struct namespace *ns, struct path *p)
{
    struct mount *m;

    if (p->mnt && p->mnt->attached && ns_has(ns, p->mnt))
        return 0;
    for (m = ns->mounts; m; m = m->next) {
        if (!m->parent && m->root == p->vn) {      /* rooted here before: reuse it */
            mount_get(m);
            mount_put(p->mnt);
            p->mnt = m;
            return 0;
        }
    }
    if (count_mounts(ns) >= MAX_MOUNTS)
        return -ENOSPC;
    if (!(m = mount_new(NULL, NULL, p->vn, NULL)))
        return -ENOMEM;
    m->next = ns->mounts;
    ns->mounts = m;
    mount_get(m);
    mount_put(p->mnt);
    p->mnt = m;
    return 0;
}

/* unbind(): detach the attachment whose root `where` is; *out gets a
 * detached path on what it showed (the caller turns it into an fd). */
int ns_unbind(struct namespace *ns, struct path *where, struct path *out)
{
    /* LAB 04: BEGIN */
    struct mount *m = where->mnt;

    if (!m || where->vn != m->root || !m->parent || !m->attached || !ns_has(ns, m))
        return -EINVAL;                 /* nothing of ours is attached here */
    out->mnt = m;                       /* detached below, it keeps ".." inside */
    out->vn = m->root;
    path_get(out);
    detach_tree(ns, m);
    return 0;
    /* LAB 04: END */
}

/* unbind(): detach what is attached at (dirfd, path) in the caller's
 * namespace; *out is a path on it, for an fd (so a full fd table is
 * refused before anything is detached). */
int vfs_unbind(int dirfd, const char *path, struct path *out)
{
    struct path where;
    int err;

    if ((err = ns_may_change(curproc()->ns)) < 0 || (err = fd_room()) < 0 ||
        (err = vfs_walk(dirfd, path, 0, &where)) < 0)
        return err;
    err = ns_unbind(curproc()->ns, &where, out);
    path_put(&where);
    return err;
}

/* May the caller change what is attached where in ns (bind, unbind,
 * fchroot)? Root may change any namespace; anyone else only one it owns,
 * one it made with unshare(). With no set-uid programs nothing can be
 * tricked by a namespace its caller built, so that is all the privilege
 * a bind needs (Plan 9); but the boot namespace is root's, or a user
 * could cover /bin under everyone. 0 or -EPERM. (NULL caller: the
 * kernel, building the boot namespace.) Lab 07. */
int ns_may_change(struct namespace *ns)
{
    /* LAB 07: BEGIN (stub:
    (void)ns;
    return 0;                           // anyone may change any namespace
    ) */
    struct proc *p = curproc();

    return !p || p->uid == 0 || p->uid == ns->owner ? 0 : -EPERM;
    /* LAB 07: END */
}

/* Is fs attached, or does it hold an attachment, in a namespace that uid
 * does not own? Then revoking it would change what someone else sees
 * (fs_may_revoke). */
int ns_attached_beyond(struct fs *fs, uint32_t uid)
{
    struct namespace *ns;
    struct mount *m;

    for (ns = all_ns; ns; ns = ns->next) {
        if (ns->owner == uid)
            continue;
        for (m = ns->mounts; m; m = m->next)
            if (m->root->fs == fs || (m->mp && m->mp->fs == fs))
                return 1;
    }
    return 0;
}

/* revoke(): detach every attachment of fs in every namespace. Detaching
 * may sleep (a last reference on an ext2 node or instance), and a
 * namespace may lose its last user meanwhile: each is held while we are
 * in it, and the next one is taken before it is let go. */
void ns_detach_fs(struct fs *fs)
{
    struct namespace *ns = all_ns, *next;
    struct mount *m;

    if (ns)
        ns_get(ns);
    for (; ns; ns = next) {
    again:
        for (m = ns->mounts; m; m = m->next) {
            if (m->root->fs == fs && m != ns->root) {  /* root attachments too */
                detach_tree(ns, m);
                goto again;
            }
        }
        if ((next = ns->next))          /* ns is on the list while we hold it */
            ns_get(next);
        ns_put(ns);
    }
}

/* unshare(): a private copy of ns; root and cwd are moved to the copy. */
struct namespace *ns_copy(struct namespace *ns, struct path *root, struct path *cwd)
{
    struct namespace *n = kzalloc(sizeof(*n));
    struct mount *m, **tail;
    struct path *fix[2] = { root, cwd };
    int i;

    if (!n)
        return NULL;
    tail = &n->mounts;
    for (m = ns->mounts; m; m = m->next) {
        if (!(m->copy = mount_new(NULL, m->mp, m->root, m->name)))
            goto nomem;
        m->copy->id = m->id;            /* same order as the original */
        *tail = m->copy;
        tail = &m->copy->next;
    }
    for (m = ns->mounts; m; m = m->next)
        if (m->parent)
            mount_get(m->copy->parent = m->parent->copy);
    n->root = ns->root->copy;
    n->refs = 1;
    n->next = all_ns;
    all_ns = n;
    for (i = 0; i < 2; i++) {
        if (fix[i]->mnt && fix[i]->mnt->attached && ns_has(ns, fix[i]->mnt)) {
            struct mount *old = fix[i]->mnt;
            mount_get(old->copy);
            fix[i]->mnt = old->copy;
            mount_put(old);
        }
    }
    return n;
nomem:
    while ((m = n->mounts)) {
        n->mounts = m->next;
        mount_put(m);
    }
    kfree(n);
    return NULL;
}

/* unshare(): p gets a private copy of its namespace, owned by p's uid
 * (so a user's copy is the user's to change); its root and cwd move into
 * the copy. Needs no privilege: the copy changes nothing anyone else sees. */
int ns_unshare(struct proc *p)
{
    struct namespace *ns = ns_copy(p->ns, &p->root, &p->cwd);

    if (!ns)
        return -ENOMEM;
    ns->owner = p->uid;
    ns_put(p->ns);
    p->ns = ns;
    return 0;
}

/* One line of /proc/<pid>/ns for m into buf (size bytes, of which len
 * are used), like snprintf: the line's length, whether it fit or not. */
static size_t format_one(struct mount *m, const struct path *root, char *where, char *buf,
                         size_t size, size_t len)
{
    struct path p = { m, m->root };
    struct fs *fs = m->root->fs;

    if (m->name)
        strlcpy(where, m->name, PATH_MAX);
    else if (vfs_path_name(root, &p, where, PATH_MAX) < 0)
        strlcpy(where, "?", PATH_MAX);
    return snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0, "%s %s %s%s\n",
                    where, fs->type->name, fs_source_name(fs), m->root == fs->root ? "" : " bind");
}

/* /proc/<pid>/ns: one line per attachment, "<where> <fstype> <source>[
 * bind]", from the process's root down, parents before children, each
 * named as that process names it (from `root`, its root), whoever reads.
 * Like snprintf: returns the length of the whole text, of which what
 * fits is in buf, so a caller can ask again with room for all of it.
 * Naming may sleep (vfs_path_name looks names up, in ext2 too), and a
 * sharer of ns may unbind meanwhile: the mounts are listed first, without
 * sleeping, each with a reference that keeps it whole until it is named.
 * The caller holds ns and root. */
int ns_format(struct namespace *ns, const struct path *root, char *buf, size_t size)
{
    struct mount *top = root->mnt ? root->mnt : ns->root, *m, **list;
    char *where = kmalloc(PATH_MAX);
    size_t len = 0;
    int n = 0, i;

    list = kmalloc((count_mounts(ns) + 1) * sizeof(*list));
    if (!where || !list) {
        kfree(where);
        kfree(list);
        return -ENOMEM;
    }
    if (size)
        buf[0] = '\0';
    list[n++] = top;
    for (m = top; (m = next_below(ns, top, m == top ? 0 : m->id, INT32_MAX));)
        list[n++] = m;
    for (i = 0; i < n; i++)
        mount_get(list[i]);
    for (i = 0; i < n; i++)
        len += format_one(list[i], root, where, buf, size, len);
    for (i = 0; i < n; i++)
        mount_put(list[i]);
    kfree(list);
    kfree(where);
    return (int)len;
}
