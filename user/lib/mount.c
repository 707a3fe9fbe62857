/* mount.c - Unix's mount calls rebuilt from the split namespace calls.
 * mount conflated "make a filesystem from a device" (fsopen) with "attach
 * it to the namespace" (bind); umount conflated "detach" (unbind) with
 * "release" (close). pivot_root is the same pieces in another order. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <orthos.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

/* Does the comma-separated option list opts contain opt? */
static int has_option(const char *opts, const char *opt)
{
    size_t n = strlen(opt);

    while (opts && *opts) {
        if (strncmp(opts, opt, n) == 0 && (opts[n] == ',' || opts[n] == '\0'))
            return 1;
        opts = strchr(opts, ',');
        if (opts)
            opts++;
    }
    return 0;
}

/* mount = walk + ready (dev) + fsopen + bind + close + close.
 * dev NULL or "none" means a filesystem with no source (ramfs, procfs).
 * The source is readied read-only for "ro" so a read-only device works.
 * The source is taken with walk and ready, not open(): init mounts the
 * data disk with this before it runs any program, and open() is Lab 01's
 * code, which must not run before a graded test program has its key
 * (user/tests/lab.h). */
int mount(const char *type, const char *dev, const char *dir, const char *opts)
{
    int src = -1, fs, ret, path, saved;

    if (dev && strcmp(dev, "none") != 0) {
        if ((path = walk(AT_CWD, dev, 0)) < 0)
            return -1;
        src = ready(path, has_option(opts, "ro") ? R_READ : R_RDWR);
        saved = errno;
        close(path);
        errno = saved;
        if (src < 0)
            return -1;
    }
    fs = fsopen(type, src, opts);
    if (src >= 0)
        close(src);                     /* the filesystem holds its own reference */
    if (fs < 0)
        return -1;
    ret = bind(fs, AT_CWD, dir, 0);
    close(fs);
    return ret;
}

/* umount = unbind + close. The filesystem is released (and synced) when
 * its last reference goes: if a file inside is still open, that is later,
 * which is all a "lazy unmount" ever was. */
int umount(const char *dir)
{
    int fd = unbind(AT_CWD, dir);

    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* pivot_root(new_root, put_old): make the tree attached at new_root the
 * root, with everything attached below it, and attach the old root at
 * put_old inside it.
 *   1. walk("/"), walk(".")  handles on the old root and cwd, taken while
 *                            they are still reachable (for step 4 and undo)
 *   2. walk(new_root)        check it is a directory, and that put_old exists
 *                            in it, before anything changes
 *   3. fchroot, chdir("/")   root and cwd move to the new root as it is
 *                            attached, so what is attached below it stays
 *   4. bind(oldroot, put_old)  put_old is resolved in the new root: the old
 *                            root comes with its attachments, among them a
 *                            copy of the new root
 *   5. unbind(put_old/NAME)  cut that copy out of the old tree, so the
 *                            old root is reachable at put_old and the new
 *                            tree is not inside it; EINVAL if nothing was
 *                            attached at new_root. NAME is the new root's
 *                            name in the old root: getcwd after fchdir to
 *                            it, before step 3 (new_root may be relative,
 *                            or a symlink)
 * If step 3, 4 or 5 fails, the earlier steps are undone. */
int pivot_root(const char *new_root, const char *put_old)
{
    /* LAB 05: BEGIN */
    int oldroot, oldcwd = -1, newpath = -1, probe, cut = -1, bound, named, e, ret = -1;
    char here[PATH_MAX], copy[PATH_MAX];
    struct stat st;

    if ((oldroot = walk(AT_CWD, "/", 0)) < 0)
        return -1;
    if ((oldcwd = walk(AT_CWD, ".", 0)) < 0 || (newpath = walk(AT_CWD, new_root, 0)) < 0 ||
        fstat(newpath, &st) < 0)
        goto out;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        goto out;
    }
    if ((probe = walk(newpath, put_old + strspn(put_old, "/"), 0)) < 0)
        goto out;
    close(probe);
    /* the copy of the new root under put_old, by the new root's own name in
     * the old root: getcwd from it (new_root may be relative, or a symlink) */
    named = fchdir(newpath) == 0 && getcwd(here, sizeof(here));
    e = errno;
    fchdir(oldcwd);
    if (!named) {
        errno = e;
        goto out;
    }
    if (snprintf(copy, sizeof(copy), "%s/%s", put_old, here) >= (int)sizeof(copy)) {
        errno = ENAMETOOLONG;
        goto out;
    }
    bound = fchroot(newpath) == 0 && chdir("/") == 0 && bind(oldroot, AT_CWD, put_old, 0) == 0;
    if (!bound || (cut = unbind(AT_CWD, copy)) < 0) {
        e = errno;
        if (bound)
            umount(put_old);
        fchroot(oldroot);
        fchdir(oldcwd);
        errno = e;
        goto out;
    }
    close(cut);
    ret = 0;
out:
    close(oldroot);
    if (oldcwd >= 0)
        close(oldcwd);
    if (newpath >= 0)
        close(newpath);
    return ret;
    /* LAB 05: END */
}

/* The options of `bind [-a|-b] [-c] [-r] [-n] from to` (Plan 9's, with
 * Linux's read-only and noexec): -b BIND_BEFORE, -a BIND_AFTER (a union:
 * one of them), -c BIND_CREATE, -r BIND_RDONLY, -n BIND_NOEXEC, in any
 * order before the operands and combined as "-ac" too; "--" ends them.
 * Sets *flags; returns the index of the first operand, or -1 with errno
 * EINVAL for an unknown option or both -a and -b. */
int bind_options(int argc, char *const argv[], int *flags)
{
    static const char letters[] = "bacrn";
    static const int bits[] = { BIND_BEFORE, BIND_AFTER, BIND_CREATE, BIND_RDONLY, BIND_NOEXEC };
    int i;

    *flags = 0;
    for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const char *c;
        if (strcmp(argv[i], "--") == 0)
            return i + 1;
        for (c = argv[i] + 1; *c; c++) {
            const char *at = strchr(letters, *c);
            if (!at) {
                errno = EINVAL;
                return -1;
            }
            *flags |= bits[at - letters];
        }
    }
    if ((*flags & (BIND_BEFORE | BIND_AFTER)) == (BIND_BEFORE | BIND_AFTER)) {
        errno = EINVAL;
        return -1;
    }
    return i;
}
