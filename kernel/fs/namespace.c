/* namespace.c - attachments: what is bound where. A namespace is a list
 * of mounts, newest first; each mount says "at vnode mp, reached through
 * mount parent, show root instead". bind() adds one, unbind() takes one
 * (and everything below it) out and hands back an fd on what it held, and
 * revoke() forcibly detaches a filesystem everywhere. fork() shares the
 * namespace; unshare() gives a process its own copy (Plan 9's RFNAMEG).
 * An attachment has attributes of its own (read-only, noexec, nodev:
 * ns_attr_check), and several attached at one place with BIND_BEFORE or
 * BIND_AFTER make a union directory (ns_union, ns_lookup: Lab 08). */
#include "fs/vfs.h"
#include "include/uapi/errno.h"
#include "lib/fault.h"
#include "lib/fmt.h"
#include "lib/kprintf.h"
#include "lib/string.h"
#include "mm/page.h"
#include "proc/proc.h"

/* struct mount and its own flags (MNT_*) are in vfs.h, for the inline
 * mount_get, mount_put and ns_union. */
#define BIND_UNION (BIND_BEFORE | BIND_AFTER)

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

/* The last reference to m went (mount_put): let go of what it holds. */
void mount_release(struct mount *m)
{
    if (m->mp) {
        struct fs *fs = m->mp->fs;
        m->mp->mounted--;
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
        mp->mounted++;
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
        m->mp->mounted--;
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

#define MAX_MOUNTS 256                  /* attachments per namespace */

static int count_mounts(struct namespace *ns)
{
    struct mount *m;
    int n = 0;

    for (m = ns->mounts; m; m = m->next)
        n++;
    return n;
}

/* Has ns no room for `more` attachments? The table is a fault-injection
 * point (lib/fault.h), so that each caller's ENOSPC path can be run. */
static int mounts_full(struct namespace *ns, int more)
{
    return count_mounts(ns) + more > MAX_MOUNTS || fault_inject("mount table");
}

/* The newest attachment of ns on p, or NULL. A vnode that is no mount's
 * place (vnode->mounted, counted in any namespace) has none: most names a
 * walk steps on, so the list is not searched for them. */
static struct mount *covering(struct namespace *ns, const struct path *p)
{
    struct mount *m;

    if (!p->vn->mounted)
        return NULL;
    for (m = ns ? ns->mounts : NULL; m; m = m->next)
        if (m->mp && m->mp == p->vn && m->parent == p->mnt)
            return m;
    return NULL;
}

/* Follow attachments down: while something is bound on p, go to it
 * (something may be stacked on what is bound there); at a union, to its
 * first member, whose root then stands for the whole union. */
void ns_cross(struct namespace *ns, struct path *p)
{
    struct path u[MAX_UNION];
    struct mount *m;
    int n;

    while ((m = covering(ns, p))) {
        struct path next = { m, m->root };
        if ((n = ns_union(ns, &next, u)) > 0)
            next = u[0];
        path_get(&next);
        ns_union_put(u, n);
        path_put(p);
        *p = next;
    }
}

/* ---- union directories (Plan 9's bind -b/-a)
 *
 * A union is made by binding with BIND_BEFORE or BIND_AFTER at a place:
 * its members are the attachments at that place since the newest one made
 * without them (the base, "what was there"; on a plain directory the
 * union bind makes one that shows it, MNT_BASE). No member is special
 * but in its order: a path on any member's root is the union (ns_union),
 * and crossing onto the place lands on the first member's. */

static int same_place(const struct mount *a, const struct mount *b)
{
    return a->parent == b->parent && a->mp == b->mp;
}

/* The attachments of the union m is in, newest first, into seg (at most
 * MAX_UNION): the members, then the base. Their number; 0 if m is not on
 * ns's list. */
static int union_segment(struct namespace *ns, struct mount *m, struct mount **seg)
{
    struct mount *i;
    int n = 0, found = 0;

    for (i = ns->mounts; i; i = i->next) {
        if (!same_place(i, m))
            continue;
        if (n < MAX_UNION)
            seg[n++] = i;
        found |= i == m;
        if (!(i->flags & BIND_UNION)) {         /* a base: the end of a union */
            if (found)
                return n;
            n = 0;
        }
    }
    return found ? n : 0;
}

/* ns_union (vfs.h) for p on the root of an attachment that is or was in
 * a union: fill u with paths on its members' roots in search order and
 * return their number (the caller drops them with ns_union_put), if it
 * is a union of ns with two members or more; otherwise 0. The order: the
 * base, then each member in the order it was bound, a BIND_BEFORE one in
 * front of all so far, a BIND_AFTER one behind. */
int ns_union_members(struct namespace *ns, const struct path *p, struct path *u)
{
    struct mount *seg[MAX_UNION], *dq[2 * MAX_UNION];
    int n, i, lo = MAX_UNION, hi = MAX_UNION;

    if (!ns || (n = union_segment(ns, p->mnt, seg)) < 2)
        return 0;
    dq[hi++] = seg[n - 1];
    for (i = n - 2; i >= 0; i--) {
        if (seg[i]->flags & BIND_BEFORE)
            dq[--lo] = seg[i];
        else
            dq[hi++] = seg[i];
    }
    for (i = 0; i < n; i++) {
        u[i].mnt = dq[lo + i];
        u[i].vn = dq[lo + i]->root;
        path_get(&u[i]);
    }
    return n;
}

void ns_union_put(struct path *u, int n)
{
    while (n > 0)
        path_put(&u[--n]);
}

/* Search the members u[0..n-1] of a union in order for `name`, for
 * process `who`: the first that has it wins, and *out is the child
 * reached through that member's attachment (so that what is attached
 * inside the member, and ".." from inside it, work). A member `who` may
 * not search is passed over, and so is one whose lookup fails (a revoked
 * member costs only its own names); none has it: -ENOENT. The first
 * member's search permission resolve() has checked already. Lab 08. */
static int union_lookup(const struct proc *who, const struct path *u, int n, const char *name,
                        struct path *out)
{
    /* LAB 08: BEGIN (stub:
    (void)who;
    (void)u;
    (void)n;
    (void)name;
    (void)out;
    return -ENOSYS;                     // no member is searched
    ) */
    struct vnode *v;
    int i;

    for (i = 0; i < n; i++) {
        if (i > 0 && perm_check(who, u[i].vn, MAY_EXEC) < 0)
            continue;
        if (vnode_lookup(u[i].vn, name, &v) == 0) {
            path_child(&u[i], v, out);
            return 0;
        }
    }
    return -ENOENT;
    /* LAB 08: END */
}

/* One step of name resolution: `name` in directory dir, for process who;
 * *out gets the child with a reference. In a union, union_lookup. */
int ns_lookup(struct namespace *ns, const struct proc *who, const struct path *dir,
              const char *name, struct path *out)
{
    struct path u[MAX_UNION];
    struct vnode *v;
    int n, err;

    if ((n = ns_union(ns, dir, u)) > 0) {
        err = union_lookup(who, u, n, name, out);
        ns_union_put(u, n);
        return err;
    }
    if ((err = vnode_lookup(dir->vn, name, &v)) == 0)
        path_child(dir, v, out);
    return err;
}

/* getdents() of a union lists each name once, from the first member that
 * has it: is `name`, read from member i of u, one an earlier member has
 * (and so listed already)? "." and ".." only the first member lists (the
 * union's own; a filesystem is never asked to look them up). An earlier
 * member the caller may not search hides nothing, as union_lookup passes
 * it over: the entry listed is the one a lookup finds (and getdents reads
 * no later member the caller may not search: its names are never asked
 * about). Lab 08. */
int ns_union_hides(const struct path *u, int i, const char *name)
{
    /* LAB 08: BEGIN (stub:
    (void)u;
    (void)i;
    (void)name;
    return 0;                           // nothing hidden: a name in two members twice
    ) */
    struct vnode *v;
    int j;

    if (i == 0)
        return 0;
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return 1;
    for (j = 0; j < i; j++) {
        if (j > 0 && perm_check(curproc(), u[j].vn, MAY_EXEC) < 0)
            continue;
        if (vnode_lookup(u[j].vn, name, &v) == 0) {
            vnode_put(v);
            return 1;
        }
    }
    return 0;
    /* LAB 08: END */
}

/* The name operations in a union (create, link, unlink, rename): switch
 * *dir from the union to the member that `name` is acted on in. An
 * existing name (UNION_OLD): the member lookup finds it in (none: *dir
 * stays, and the operation says ENOENT). A new name: the first member
 * bound with BIND_CREATE; none is -EROFS (Plan 9 refuses too); UNION_NEW
 * (create, link) is -EEXIST if any member has the name already, since
 * they are exclusive; UNION_TARGET (rename's) replaces only there. */
int ns_union_dir(struct namespace *ns, struct path *dir, const char *name, int how)
{
    struct path u[MAX_UNION], found = { NULL, NULL };
    struct mount *pick = NULL;
    int n = ns_union(ns, dir, u), i, err = 0;

    if (!n)
        return 0;
    if (how != UNION_TARGET && union_lookup(curproc(), u, n, name, &found) == 0)
        pick = found.mnt;
    if (how == UNION_NEW && pick)
        err = -EEXIST;
    if (how != UNION_OLD) {
        for (i = 0, pick = NULL; i < n && !pick; i++)
            if (u[i].mnt->flags & BIND_CREATE)
                pick = u[i].mnt;
        if (!pick && !err)
            err = -EROFS;
    }
    if (pick && !err) {
        struct path p = { pick, pick->root };
        path_get(&p);
        path_put(dir);
        *dir = p;
    }
    path_put(&found);
    ns_union_put(u, n);
    return err;
}

/* Where a union bind on `where` goes, into *parent and *mp: at the place
 * of the attachment `where` is the root of (joining its union, or making
 * that attachment the base of a new one), or on a plain directory at the
 * directory itself, over a base made here that shows it (with the
 * attributes of the attachment it is on, so it loosens nothing); *base
 * gets that, for undoing. */
static int union_place(struct namespace *ns, const struct path *where, struct mount **parent,
                       struct vnode **mp, struct mount **base)
{
    struct mount *m = where->mnt, *seg[MAX_UNION];
    int n;

    *base = NULL;
    if (where->vn == m->root && m->parent) {
        if ((n = union_segment(ns, m, seg)) >= MAX_UNION || fault_inject("union members"))
            return -ENOSPC;
        seg[n - 1]->flags |= MNT_UNIONED;
        *parent = m->parent;
        *mp = m->mp;
        return 0;
    }
    if (mounts_full(ns, 2))
        return -ENOSPC;
    if (!(*base = mount_new(m, where->vn, where->vn, NULL)))
        return -ENOMEM;
    (*base)->flags = MNT_UNIONED | MNT_BASE | (m->flags & BIND_ATTRS);
    (*base)->next = ns->mounts;
    ns->mounts = *base;
    *parent = m;
    *mp = where->vn;
    return 0;
}

/* Would detaching m lift a restriction, for a caller other than root?
 * m has attributes the attachment it covers lacks, over the same
 * filesystem: what shows through once m is gone may be m's own storage
 * (a directory bound read-only over itself, a union's base that root made
 * read-only with setattach), and a user's copy of root's namespace would
 * write where root's shows read-only. Only root lifts one (setattach). */
static int detach_lifts(const struct mount *m)
{
    struct proc *p = curproc();

    return p && p->uid != 0 && m->parent && m->mp && m->mp->fs == m->root->fs &&
           (m->flags & BIND_ATTRS & ~m->parent->flags);
}

/* A union's base made by union_place goes when it is all that is left
 * at its place (its last member was unbound, or the bind failed) - but
 * stays, a plain attachment, if that would lift a restriction. */
static void drop_lone_base(struct namespace *ns, struct mount *parent, struct vnode *mp)
{
    struct mount *m, *base = NULL;
    int n = 0;

    for (m = ns->mounts; m; m = m->next) {
        if (m->parent == parent && m->mp == mp) {
            n++;
            base = m;
        }
    }
    if (n == 1 && (base->flags & MNT_BASE) && !detach_lifts(base))
        detach_tree(ns, base);
}

/* ---- attributes of an attachment */

/* ns_attr_check, the attribute rules, is inline in vfs.h. */

/* setattach(): set the attributes (BIND_ATTRS) of the attachment whose
 * root (dirfd, path) is - of a union, its first member - in the caller's
 * namespace, in place; other flags stay. Who may: as for bind, and only
 * root may lift a restriction: a user's own namespace starts as a copy of
 * root's, read-only attachments and all, and lifting one there would make
 * the filesystem under it writable for the user. */
int vfs_setattach(int dirfd, const char *path, int flags)
{
    struct namespace *ns = curproc()->ns;
    struct path where;
    struct mount *m;
    int err;

    if (flags & ~BIND_ATTRS)
        return -EINVAL;
    if ((err = ns_may_change(ns)) < 0 || (err = vfs_walk(dirfd, path, 0, &where)) < 0)
        return err;
    m = where.mnt;
    if (!m || where.vn != m->root || !m->attached || !ns_has(ns, m))
        err = -EINVAL;                  /* nothing of ours is attached here */
    else if ((m->flags & BIND_ATTRS & ~flags) && curproc()->uid != 0)
        err = -EPERM;                   /* only root lifts a restriction */
    else
        m->flags = (m->flags & ~BIND_ATTRS) | flags;
    path_put(&where);
    return err;
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

/* Is p the root of a member of a union of ns whose members include the
 * root `root` is on? Each member's root stands for the whole union
 * (ns_union), so a process whose root is a union has it at each of them:
 * a cwd in a later member climbs to that member's root, and ".." (and
 * getcwd's naming) must stop there, not go on to the place the union is
 * bound on, outside the root. Compared by vnode, as ns_dotdot does. */
int ns_union_root(struct namespace *ns, const struct path *root, const struct path *p)
{
    struct path u[MAX_UNION];
    int n, i, hit = 0;

    n = ns_union(ns, p, u);
    for (i = 0; i < n; i++)
        hit |= u[i].vn == root->vn;
    ns_union_put(u, n);
    return hit;
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
        if (root && (p->vn == root->vn || ns_union_root(ns, root, p)))
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

/* The mounts of ns below top (not top) made before limit, in the order
 * they were made (their ids), into list: how many. A mount is always made
 * after its parent, so that order has parents before children - without
 * recursion, which user-made nesting could drive deeper than a kernel
 * stack. One pass and a sort: a search of the list for each next mount
 * cost n x n x depth steps (256 nested attachments: 5 million, some 400
 * ms in one call that let nobody else run). list has room for them all
 * (count_mounts). */
static int mounts_below(struct namespace *ns, struct mount *top, int limit, struct mount **list)
{
    struct mount *m;
    int n = 0, i, j;

    for (m = ns->mounts; m; m = m->next)
        if (m != top && m->id < limit && is_below(m, top))
            list[n++] = m;
    for (i = 1; i < n; i++) {           /* by id: at most 256 */
        for (m = list[i], j = i; j > 0 && list[j - 1]->id > m->id; j--)
            list[j] = list[j - 1];
        list[j] = m;
    }
    return n;
}

/* Give dst a copy of every attachment below src (older than limit), so
 * that binding the root of an attachment brings along what is attached
 * inside it, like Linux's `mount --rbind`: bind / at /old keeps /old/dev.
 * Nothing here sleeps, so the list stays true while the copies are made. */
static int copy_below(struct namespace *ns, struct mount *src, struct mount *dst, int limit)
{
    struct mount *m, *c, **list = kmalloc(count_mounts(ns) * sizeof(*list));
    int n, i, err = 0;

    if (!list)
        return -ENOMEM;
    src->copy = dst;
    n = mounts_below(ns, src, limit, list);
    for (i = 0; i < n && err == 0; i++) {
        m = list[i];
        if (mounts_full(ns, 1)) {
            err = -ENOSPC;
        } else if (!(c = mount_new(m->parent->copy, m->mp, m->root, m->name))) {
            err = -ENOMEM;
        } else {
            c->flags = m->flags | (dst->flags & BIND_ATTRS);    /* a restriction covers all */
            m->copy = c;
            c->next = ns->mounts;
            ns->mounts = c;
        }
    }
    kfree(list);
    return err;
}

/* The restrictions (BIND_ATTRS) a path carries: those of the attachment
 * it was reached through. Whatever is made from the path - a bind of it,
 * a root made of it by fchroot - has them too, so a copy of a read-only
 * attachment (one that unshare() copied from root's namespace, or the fd
 * unbind() handed back) never becomes a writable way in; only root lifts
 * one (vfs_setattach). */
static int path_attrs(const struct path *p)
{
    return p->mnt ? p->mnt->flags & BIND_ATTRS : 0;
}

/* May a node reached at `from` get a name in directory `to` (link, or a
 * rename, whose node's path is its old directory's)? Not if the new name
 * would shed a restriction of from's attachment: through an attachment
 * of the same filesystem without it, a file only a read-only attachment
 * showed would be writable, a device under a nodev one usable (Linux
 * refuses any link or rename across mounts). 0, or -EXDEV. */
int ns_attr_keeps(const struct path *from, const struct path *to)
{
    return path_attrs(from) & ~path_attrs(to) ? -EXDEV : 0;
}

/* The heart of bind(): check that `what` may cover where->vn, make the
 * mount and put it at the head of the namespace's list, so that ns_cross
 * finds it before anything it covers; a union bind joins the union at
 * where (union_place). The flags: only one of BIND_BEFORE and BIND_AFTER,
 * and those only for a directory. */
static int attach(struct namespace *ns, struct vnode *what, const struct path *where,
                  const char *name, int flags, struct mount **out)
{
    struct mount *m, *parent, *base = NULL;
    struct vnode *mp;
    int err;

    if ((err = fs_check(what)) < 0 || (err = fs_check(where->vn)) < 0)
        return err;
    if (S_ISDIR(what->mode) && !S_ISDIR(where->vn->mode))
        return -ENOTDIR;
    if (!S_ISDIR(what->mode) && S_ISDIR(where->vn->mode))
        return -EISDIR;
    if (!where->mnt || !where->mnt->attached || !ns_has(ns, where->mnt))
        return -EINVAL;                 /* target must be in this namespace */
    if ((flags & BIND_UNION) == BIND_UNION || ((flags & BIND_UNION) && !S_ISDIR(what->mode)))
        return -EINVAL;
    if (mounts_full(ns, 1))
        return -ENOSPC;
    parent = where->mnt;
    mp = where->vn;
    if ((flags & BIND_UNION) && (err = union_place(ns, where, &parent, &mp, &base)) < 0)
        return err;
    if (!(m = mount_new(parent, mp, what, name))) {
        if (base)
            detach_tree(ns, base);
        return -ENOMEM;
    }
    m->flags = flags | (flags & BIND_UNION ? MNT_UNIONED : 0);
    m->next = ns->mounts;
    ns->mounts = m;
    *out = m;
    return 0;
}

/* Attach `what` at `where` in ns: directories on directories, everything
 * else on non-directories, never on a revoked filesystem, and only at a
 * place of this namespace. Stacking on an existing attachment covers it
 * (the newest wins in ns_cross); BIND_BEFORE/BIND_AFTER make a union
 * instead. Binding the root of an attachment brings along what is
 * attached below it (copy_below), with the new attachment's attributes
 * added to their own. `name` is the name where was given by, kept for a
 * non-directory (ns_format); may be NULL. `flags`: BIND_FLAGS. */
int ns_bind(struct namespace *ns, const struct path *what, const struct path *where,
            const char *name, int flags)
{
    int limit = next_mount_id, err;
    struct mount *m, *parent;
    struct vnode *mp;

    flags |= path_attrs(what);          /* a restriction travels with the path */
    if ((err = ns_may_change(ns)) < 0 || (err = attach(ns, what->vn, where, name, flags, &m)) < 0)
        return err;
    if (what->mnt && what->vn == what->mnt->root &&
        (err = copy_below(ns, what->mnt, m, limit)) < 0) {
        parent = m->parent;             /* held by the base, if there is one */
        mp = m->mp;
        detach_tree(ns, m);
        drop_lone_base(ns, parent, mp);
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

    if (flags & ~BIND_FLAGS)
        return -EINVAL;
    if (!(f = fd_get(fd, &err)))
        return err;
    if ((err = vfs_walk(dirfd, path, 0, &where)) < 0)
        return err;
    name = vfs_display_name(dirfd, path);
    err = ns_bind(curproc()->ns, &f->path, &where, name, flags);
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
        if (!m->parent && m->root == p->vn &&     /* rooted here before: reuse it */
            (m->flags & BIND_ATTRS) == path_attrs(p)) {
            mount_get(m);
            mount_put(p->mnt);
            p->mnt = m;
            return 0;
        }
    }
    if (mounts_full(ns, 1))
        return -ENOSPC;
    if (!(m = mount_new(NULL, NULL, p->vn, NULL)))
        return -ENOMEM;
    m->flags = path_attrs(p);
    m->next = ns->mounts;
    ns->mounts = m;
    mount_get(m);
    mount_put(p->mnt);
    p->mnt = m;
    return 0;
}

/* How many references to the tree below `top` (a mount with no parent)
 * come from outside it: a path (a root, a cwd, an fd) or a temporary
 * hold. Each mount of the tree has one from the namespace's list, and
 * each but top one from its child link to its parent; the rest are
 * outside. m->copy is the top of m's tree (set_tops). */
static int outside_refs(struct namespace *ns, struct mount *top)
{
    struct mount *m;
    int refs = 0;

    for (m = ns->mounts; m; m = m->next)
        if (m->copy == top)
            refs += m->refs - 1 - (m != top);
    return refs;
}

/* m->copy (ns_copy's scratch; nothing here sleeps) := the top of m's
 * tree, for every mount of ns: once per sweep, not once per root, which
 * with 26 roots and a chain of 120 mounts made each fchdir climb 190000
 * parents (1.3 ms; the review's). */
static void set_tops(struct namespace *ns)
{
    struct mount *m, *top;

    for (m = ns->mounts; m; m = m->next) {
        for (top = m; top->parent; top = top->parent)
            ;
        m->copy = top;
    }
}

/* Let go of the root attachments fchroot made (ns_attach_root) that no
 * one uses any more: no process's root or cwd and no fd is in the tree.
 * Without this, each lived as long as the namespace, holding its
 * filesystem (an image stayed busy: EBUSY, for ever in the boot
 * namespace) and a slot of the table. Called where a root or cwd is let
 * go (fchroot, fchdir, exit, unshare); may sleep (the last reference to
 * a filesystem). */
void ns_drop_unused_roots(struct namespace *ns)
{
    struct mount *m;

again:
    set_tops(ns);
    for (m = ns->mounts; m; m = m->next) {
        if (!m->parent && m != ns->root && outside_refs(ns, m) == 0) {
            detach_tree(ns, m);         /* off the list before it sleeps, */
            goto again;                 /* so start over */
        }
    }
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

/* A union's newest member, in place of p (a path on any of its
 * members' roots): what unbind of a union takes away. */
static void union_newest(struct namespace *ns, struct path *p)
{
    struct mount *seg[MAX_UNION];
    struct path u[MAX_UNION], newest;
    int n = ns_union(ns, p, u);

    if (n > 0 && union_segment(ns, p->mnt, seg) > 0) {
        newest.mnt = seg[0];
        newest.vn = seg[0]->root;
        path_get(&newest);
        path_put(p);
        *p = newest;
    }
    ns_union_put(u, n);
}

/* unbind(): detach what is attached at (dirfd, path) in the caller's
 * namespace; *out is a path on it, for an fd (so a full fd table is
 * refused before anything is detached). At a union, its newest member
 * goes (and the base a union bind made, with the last member). */
int vfs_unbind(int dirfd, const char *path, struct path *out)
{
    struct namespace *ns = curproc()->ns;
    struct mount *parent;
    struct vnode *mp;
    struct path where;
    int err;

    if ((err = ns_may_change(ns)) < 0 || (err = fd_room()) < 0 ||
        (err = vfs_walk(dirfd, path, 0, &where)) < 0)
        return err;
    union_newest(ns, &where);
    parent = where.mnt ? where.mnt->parent : NULL;
    mp = where.mnt ? where.mnt->mp : NULL;
    if (where.mnt && where.vn == where.mnt->root && detach_lifts(where.mnt))
        err = -EPERM;                   /* only root lifts a restriction */
    else if ((err = ns_unbind(ns, &where, out)) == 0 && parent)
        drop_lone_base(ns, parent, mp);
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
        m->copy->flags = m->flags;
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
    struct namespace *ns = ns_copy(p->ns, &p->root, &p->cwd), *old;

    if (!ns)
        return -ENOMEM;
    ns->owner = p->uid;
    old = p->ns;
    p->ns = ns;
    ns_drop_unused_roots(old);          /* p's root and cwd left it: a root they kept */
    ns_put(old);
    return 0;
}

/* s as one field of a line of /proc/<pid>/ns, at buf + len (size bytes
 * in all), like snprintf: its length, whether it fit or not. Fields are
 * split at spaces, so a space in a name is written "\040" and a backslash
 * "\134" (octal, as Linux's mountinfo writes them): a name a user chose
 * cannot shift the fields after it, and "\040" in the text can only be
 * a space. */
static size_t put_field(char *buf, size_t size, size_t len, const char *s)
{
    size_t n = 0;

    for (; *s; s++) {
        const char *e = *s == ' ' ? "\\040" : *s == '\\' ? "\\134" : NULL;
        size_t k = e ? 4 : 1;
        if (len + n + k < size)
            memcpy(buf + len + n, e ? e : s, k);
        else if (len + n < size)
            buf[len + n] = '\0';       /* cut short: what fit, ended */
        n += k;
    }
    if (len + n < size)
        buf[len + n] = '\0';
    return n;
}

/* One line of /proc/<pid>/ns for m into buf (size bytes, of which len
 * are used), like snprintf: the line's length, whether it fit or not. */
static size_t format_one(struct namespace *ns, struct mount *m, const struct path *root,
                         char *where, char *buf, size_t size, size_t len)
{
    struct path p = { m, m->root };
    struct fs *fs = m->root->fs;
    size_t start;

    if (m->name)
        strlcpy(where, m->name, PATH_MAX);
    else if (vfs_path_name(ns, root, &p, where, PATH_MAX) < 0)
        strlcpy(where, "?", PATH_MAX);
    str_printable(where);               /* any bytes but '/': one line each, for every reader */
    start = len;
    len += put_field(buf, size, len, where);
    len += snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0, " %s ",
                    fs->type->name);
    len += put_field(buf, size, len, fs_source_name(fs));
    return len - start +
           snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0,
                    "%s%s%s%s%s%s%s%s\n", m->root == fs->root ? "" : " bind",
                    m->flags & BIND_RDONLY ? " ro" : "", m->flags & BIND_NOEXEC ? " noexec" : "",
                    m->flags & BIND_NODEV ? " nodev" : "", m->flags & BIND_BEFORE ? " before" : "",
                    m->flags & BIND_AFTER ? " after" : "", m->flags & BIND_CREATE ? " create" : "",
                    m->flags & MNT_BASE ? " base" : "");
}

/* /proc/<pid>/ns: one line per attachment, "<where> <fstype> <source>[
 * bind][ ro][ noexec][ nodev][ before| after][ create][ base]", from the process's root down,
 * parents before children, each named as that process names it (from `root`, its root), whoever
 * reads. Like snprintf: returns the length of the whole text, of which what fits is in buf, so a
 * caller can ask again with room for all of it. Naming may sleep (vfs_path_name looks names up, in
 * ext2 too), and a sharer of ns may unbind meanwhile: the mounts are listed first, without
 * sleeping, each with a reference that keeps it whole until it is named.
 * The caller holds ns and root. */
int ns_format(struct namespace *ns, const struct path *root, char *buf, size_t size)
{
    struct mount *top = root->mnt ? root->mnt : ns->root, **list;
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
    n += mounts_below(ns, top, INT32_MAX, list + 1);
    for (i = 0; i < n; i++)
        mount_get(list[i]);
    for (i = 0; i < n; i++)
        len += format_one(ns, list[i], root, where, buf, size, len);
    for (i = 0; i < n; i++)
        mount_put(list[i]);
    kfree(list);
    kfree(where);
    return (int)len;
}
