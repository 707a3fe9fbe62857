/* t_attach.c - attributes of an attachment (issue 15, part 1): one ramfs
 * attached read-write at /tmp/at_rw and read-only at /tmp/at_ro, /bin
 * attached noexec, /dev nodev; every rule of BIND_RDONLY, BIND_NOEXEC,
 * BIND_NODEV and setattach(2), each in a test named for it
 * (doc/decisions.md, "Attributes of an attachment"). */
#include <orthos.h>
#include <sys/stat.h>
#include "t.h"

static int fs = -1;                     /* the ramfs attached at both places */

static char ns_text[8192];              /* /proc/self/ns as ns_has_line last read it */

/* Is text in /proc/self/ns? */
static int ns_has_line(const char *text)
{
    char *buf = ns_text;

    return slurp("/proc/self/ns", buf, sizeof(ns_text)) > 0 && strstr(buf, text) != NULL;
}

static int path_fd(const char *path)
{
    return walk(AT_CWD, path, 0);
}

static void a_read_only_attachment_refuses_create_with_erofs(void)
{
    CHECK_ERR(create(AT_CWD, "/tmp/at_ro/new", S_IFREG, 0644, 0), EROFS);
    CHECK_ERR(create(AT_CWD, "/tmp/at_ro/newdir", S_IFDIR, 0755, 0), EROFS);
    CHECK_ERR(create(AT_CWD, "/tmp/at_ro/fifo", S_IFIFO, 0644, 0), EROFS);
    CHECK_ERR(walk(AT_CWD, "/tmp/at_ro/new", 0), ENOENT);
    PASS();
}

static void the_same_fs_is_writable_at_its_other_attachment(void)
{
    char buf[32];

    CHECK(put_file("/tmp/at_rw/made", "through rw\n") == 0, "write through the rw attachment");
    CHECK(slurp("/tmp/at_ro/made", buf, sizeof(buf)) > 0 && strcmp(buf, "through rw\n") == 0,
          "the ro attachment shows the same file: '%s'", buf);
    CHECK(mkdir("/tmp/at_rw/d", 0755) == 0, "mkdir through rw");
    PASS();
}

static void a_read_only_attachment_refuses_ready_for_writing(void)
{
    int p = path_fd("/tmp/at_ro/f"), r;

    CHECK(p >= 0, "walk");
    CHECK_ERR(ready(p, R_WRITE), EROFS);
    CHECK_ERR(ready(p, R_RDWR), EROFS);
    CHECK_ERR(ready(p, R_WRITE | R_APPEND), EROFS);
    CHECK((r = ready(p, R_READ)) >= 0, "reading is allowed");
    close(r);
    close(p);
    CHECK_ERR(open("/tmp/at_ro/f", O_WRONLY), EROFS);
    PASS();
}

static void a_read_only_attachment_refuses_unlink_rename_and_link_with_erofs(void)
{
    int p = path_fd("/tmp/at_ro/f");

    CHECK(p >= 0, "walk");
    CHECK_ERR(unlinkat(AT_CWD, "/tmp/at_ro/f", 0), EROFS);
    CHECK_ERR(unlinkat(AT_CWD, "/tmp/at_ro/d", UNLINK_DIR), EROFS);
    CHECK_ERR(renameat(AT_CWD, "/tmp/at_ro/f", AT_CWD, "/tmp/at_ro/g", 0), EROFS);
    CHECK_ERR(renameat(AT_CWD, "/tmp/at_rw/made", AT_CWD, "/tmp/at_ro/g", 0), EROFS);
    CHECK_ERR(renameat(AT_CWD, "/tmp/at_ro/made", AT_CWD, "/tmp/at_rw/g", 0), EROFS);
    CHECK_ERR(linkat(p, AT_CWD, "/tmp/at_ro/f2"), EROFS);
    CHECK(walk(AT_CWD, "/tmp/at_rw/f", 0) >= 0, "still there");
    close(p);
    PASS();
}

static void a_read_only_attachment_refuses_fchmod_and_fchown_with_erofs(void)
{
    int p = path_fd("/tmp/at_ro/f"), q = path_fd("/tmp/at_rw/f");

    CHECK(p >= 0 && q >= 0, "walk");
    CHECK_ERR(fchmod(p, 0600), EROFS);
    CHECK_ERR(fchown(p, 0, 0), EROFS);
    CHECK(fchmod(q, 0640) == 0, "the same node through rw");
    close(p);
    close(q);
    PASS();
}

static void a_file_readied_for_writing_before_setattach_keeps_writing(void)
{
    char buf[32];
    int w = open("/tmp/at_rw/keep", O_WRONLY | O_CREAT | O_TRUNC, 0644), w2;

    CHECK(w >= 0, "open for writing");
    CHECK(setattach(AT_CWD, "/tmp/at_rw", BIND_RDONLY) == 0, "setattach ro");
    CHECK_ERR(open("/tmp/at_rw/keep", O_WRONLY), EROFS);
    CHECK(write(w, "kept\n", 5) == 5, "the fd readied before keeps writing");
    CHECK_ERR(ftruncate(w, 0), EROFS);     /* a change to the file itself: checked each time */
    CHECK(setattach(AT_CWD, "/tmp/at_rw", 0) == 0, "setattach rw again");
    CHECK((w2 = open("/tmp/at_rw/keep", O_WRONLY | O_APPEND)) >= 0, "writable again");
    close(w2);
    close(w);
    CHECK(slurp("/tmp/at_rw/keep", buf, sizeof(buf)) == 5 && strcmp(buf, "kept\n") == 0, "'%s'",
          buf);
    PASS();
}

static void setattach_changes_an_attachments_attributes_in_place(void)
{
    int d;

    CHECK(ns_has_line("/tmp/at_ro ramfs - ro\n"), "ro before");
    CHECK(setattach(AT_CWD, "/tmp/at_ro", 0) == 0, "setattach 0");
    CHECK((d = create(AT_CWD, "/tmp/at_ro/now", S_IFREG, 0644, 0)) >= 0, "writable now");
    close(d);
    CHECK(ns_has_line("/tmp/at_ro ramfs -\n"), "no ro in /proc/self/ns");
    CHECK(setattach(AT_CWD, "/tmp/at_ro", BIND_RDONLY | BIND_NOEXEC) == 0, "setattach ro noexec");
    CHECK_ERR(unlinkat(AT_CWD, "/tmp/at_ro/now", 0), EROFS);
    CHECK(ns_has_line("/tmp/at_ro ramfs - ro noexec\n"), "both in /proc/self/ns");
    CHECK(setattach(AT_CWD, "/tmp/at_ro", BIND_RDONLY) == 0, "back to ro");
    PASS();
}

static void proc_ns_shows_each_attachments_flags(void)
{
    CHECK(ns_has_line("/tmp/at_rw ramfs -\n"), "the rw one has none");
    CHECK(ns_has_line("/tmp/at_ro ramfs - ro\n"), "ro");
    CHECK(ns_has_line("/tmp/at_nx ramfs initrd bind noexec\n"), "noexec:\n%s", ns_text);
    CHECK(ns_has_line("/tmp/at_nd devfs - nodev\n"), "nodev");
    PASS();
}

static int exec_noexec_true(void)
{
    char *argv[] = { "true", NULL };

    execv("/tmp/at_nx/true", argv);
    return errno == EACCES ? 42 : 43;
}

static int exec_plain_true(void)
{
    char *argv[] = { "true", NULL };

    execv("/bin/true", argv);
    return 43;
}

static void exec_through_a_noexec_attachment_is_eacces(void)
{
    int p = path_fd("/tmp/at_nx/true"), r;

    CHECK(p >= 0, "walk");
    CHECK((r = ready(p, R_READ)) >= 0, "reading it is allowed");
    close(r);
    close(p);
    CHECK(in_child(exec_noexec_true) == 42, "exec through noexec must fail with EACCES");
    CHECK(in_child(exec_plain_true) == 0, "the same program through /bin runs");
    PASS();
}

static void a_device_under_a_nodev_attachment_cannot_be_readied(void)
{
    int p = path_fd("/tmp/at_nd/null"), q = path_fd("/dev/null"), r;

    CHECK(p >= 0 && q >= 0, "walk");
    CHECK_ERR(ready(p, R_READ), EACCES);
    CHECK_ERR(ready(p, R_WRITE), EACCES);
    CHECK((r = ready(q, R_WRITE)) >= 0, "the same device through /dev");
    close(r);
    close(p);
    close(q);
    PASS();
}

static void an_fd_from_fsopen_has_no_attachment_attributes(void)
{
    int p = create(fs, "viafd", S_IFREG, 0644, 0), w;

    CHECK(p >= 0, "create through the fsopen fd");
    CHECK((w = ready(p, R_WRITE)) >= 0, "ready for writing through it");
    close(w);
    close(p);
    CHECK(walk(AT_CWD, "/tmp/at_ro/viafd", 0) >= 0, "seen at the ro attachment");
    PASS();
}

static void a_restriction_covers_the_attachments_a_bind_brings_along(void)
{
    int outer = fsopen("ramfs", -1, ""), inner = fsopen("ramfs", -1, ""), t, d;

    CHECK(outer >= 0 && inner >= 0, "fsopen");
    CHECK(mkdir("/tmp/at_tree", 0755) == 0 && bind(outer, AT_CWD, "/tmp/at_tree", 0) == 0,
          "bind outer");
    CHECK(mkdir("/tmp/at_tree/in", 0755) == 0 && bind(inner, AT_CWD, "/tmp/at_tree/in", 0) == 0,
          "bind inner");
    CHECK((t = path_fd("/tmp/at_tree")) >= 0 && mkdir("/tmp/at_rtree", 0755) == 0, "walk");
    CHECK(bind(t, AT_CWD, "/tmp/at_rtree", BIND_RDONLY) == 0, "bind -r of the tree");
    CHECK_ERR(create(AT_CWD, "/tmp/at_rtree/in/x", S_IFREG, 0644, 0), EROFS);
    CHECK_ERR(create(AT_CWD, "/tmp/at_rtree/x", S_IFREG, 0644, 0), EROFS);
    CHECK((d = create(AT_CWD, "/tmp/at_tree/in/x", S_IFREG, 0644, 0)) >= 0, "the original");
    close(d);
    CHECK(walk(AT_CWD, "/tmp/at_rtree/in/x", 0) >= 0, "the copy shows it");
    close(t);
    close(outer);
    close(inner);
    PASS();
}

static int unshared_still_read_only(void)
{
    if (unshare() < 0)
        return 1;
    return create(AT_CWD, "/tmp/at_ro/u", S_IFREG, 0644, 0) < 0 && errno == EROFS ? 0 : 2;
}

static void unshare_copies_the_attributes(void)
{
    CHECK(in_child(unshared_still_read_only) == 0, "in an unshared copy /tmp/at_ro is not ro");
    PASS();
}

/* A namespace holds at most MAX_MOUNTS (256) attachments: past that, bind
 * is ENOSPC, not a list that grows until the kernel's memory is gone.
 * In an unshared copy, so the test's own namespace keeps its size. */
static int binds_until_refused(void)
{
    int d, i;

    if (unshare() < 0 || (d = fsopen("ramfs", -1, "")) < 0)
        return 1;                       /* (no attachment: nothing below comes along) */
    for (i = 0; i < 1000 && bind(d, AT_CWD, "/tmp/at_rw", 0) == 0; i++)
        ;
    if (i == 1000)
        return 2;                       /* never refused */
    return errno == ENOSPC && i > 100 ? 0 : 3;
}

static void a_namespace_holds_a_bounded_number_of_attachments(void)
{
    int r = in_child(binds_until_refused);

    CHECK(r == 0, "1000 binds: %s (%d)", r == 2 ? "all made" : "refused early, or not with ENOSPC",
          r);
    PASS();
}

static void bind_and_setattach_check_their_flags(void)
{
    int d = path_fd("/tmp/at_rw"), f = path_fd("/tmp/at_rw/f");

    CHECK(d >= 0 && f >= 0, "walk");
    CHECK_ERR(bind(d, AT_CWD, "/tmp/at_rw", 0x40), EINVAL);
    CHECK_ERR(bind(d, AT_CWD, "/tmp/at_rw", ~BIND_FLAGS), EINVAL);
    CHECK_ERR(bind(d, AT_CWD, "/tmp/at_rw", BIND_BEFORE | BIND_AFTER), EINVAL);
    CHECK_ERR(bind(f, AT_CWD, "/tmp/at_rw/made", BIND_AFTER), EINVAL);  /* no union of files */
    CHECK_ERR(setattach(AT_CWD, "/tmp/at_rw", BIND_AFTER), EINVAL);
    CHECK_ERR(setattach(AT_CWD, "/tmp/at_rw", BIND_CREATE), EINVAL);
    CHECK_ERR(setattach(AT_CWD, "/tmp/at_rw", 0x40), EINVAL);
    CHECK_ERR(setattach(AT_CWD, "/tmp/at_rw/d", BIND_RDONLY), EINVAL);   /* not attached there */
    CHECK_ERR(setattach(AT_CWD, "/tmp/nothing_here", BIND_RDONLY), ENOENT);
    CHECK_ERR(setattach(AT_CWD, (const char *)1, BIND_RDONLY), EFAULT);
    CHECK_ERR(setattach(99, "rel", BIND_RDONLY), EBADF);
    CHECK_ERR(setattach(fs, ".", BIND_RDONLY), EINVAL);     /* attached nowhere */
    CHECK(create(AT_CWD, "/tmp/at_rw/still", S_IFREG, 0644, 0) >= 0, "nothing changed");
    close(d);
    close(f);
    PASS();
}

static int student_setattach(void)
{
    if (setgid(1000) < 0 || setuid(1000) < 0)
        return 1;
    if (setattach(AT_CWD, "/tmp/at_ro", 0) == 0 || errno != EPERM)
        return 2;
    if (bind(path_fd("/tmp"), AT_CWD, "/tmp/at_rw", BIND_RDONLY) == 0 || errno != EPERM)
        return 3;
    if (unshare() < 0 || setattach(AT_CWD, "/tmp/at_rw", BIND_NOEXEC) < 0)
        return 4;                       /* its own namespace: its own to restrict */
    if (setattach(AT_CWD, "/tmp/at_rw", 0) == 0 || errno != EPERM)
        return 5;                       /* but only root lifts a restriction */
    if (setattach(AT_CWD, "/tmp/at_ro", 0) == 0 || errno != EPERM)
        return 6;                       /* root's read-only, copied by unshare */
    return create(AT_CWD, "/tmp/at_ro/student", S_IFREG, 0644, 0) == 0 || errno != EROFS ? 7 : 0;
}

static void setattach_needs_a_namespace_of_ones_own(void)
{
    CHECK(fchmod(fs, 0777) == 0, "let the student in");
    CHECK(in_child(student_setattach) == 0, "step %d failed", in_child(student_setattach));
    CHECK_ERR(create(AT_CWD, "/tmp/at_ro/student2", S_IFREG, 0644, 0), EROFS);  /* root's ns */
    PASS();
}

static void a_bind_of_a_read_only_path_is_read_only_too(void)
{
    int ro = path_fd("/tmp/at_ro");

    CHECK(ro >= 0 && mkdir("/tmp/at_copy", 0755) == 0, "setup");
    CHECK(bind(ro, AT_CWD, "/tmp/at_copy", 0) == 0, "bind: %s", strerror(errno));
    CHECK_ERR(create(AT_CWD, "/tmp/at_copy/new", S_IFREG, 0644, 0), EROFS);
    CHECK(ns_has_line("/tmp/at_copy ramfs - ro\n"), "ns: %s", ns_text);
    close(ro);
    PASS();
}

/* unbind hands back the attachment, restrictions and all; a root made of
 * it by fchroot, or a bind of it, keeps them. */
static int fchroot_of_an_unbound_read_only_attachment(void)
{
    int u;

    if (unshare() < 0 || (u = unbind(AT_CWD, "/tmp/at_ro")) < 0)
        return 1;
    if (create(u, "new", S_IFREG, 0644, 0) >= 0 || errno != EROFS)
        return 2;
    if (bind(u, AT_CWD, "/tmp/at_nx", 0) < 0)
        return 3;
    if (create(AT_CWD, "/tmp/at_nx/new", S_IFREG, 0644, 0) >= 0 || errno != EROFS)
        return 4;
    if (fchroot(u) < 0)
        return 5;
    return create(AT_CWD, "/new", S_IFREG, 0644, 0) >= 0 || errno != EROFS ? 6 : 0;
}

static void an_unbound_read_only_attachment_stays_read_only(void)
{
    int step = in_child(fchroot_of_an_unbound_read_only_attachment);

    CHECK(step == 0, "step %d failed", step);
    PASS();
}

static void root_lifts_a_restriction_with_setattach(void)
{
    int p;

    CHECK(setattach(AT_CWD, "/tmp/at_copy", 0) == 0, "setattach: %s", strerror(errno));
    CHECK((p = create(AT_CWD, "/tmp/at_copy/roots", S_IFREG, 0644, 0)) >= 0, "create: %s",
          strerror(errno));
    close(p);
    PASS();
}

/* A ramfs holding "secret" (a file), "null" (a device node) and "pub" (a
 * directory), attached with `attrs` at /tmp/NAME and its pub at
 * /tmp/NAME_pub with none: the same filesystem, two attachments. */
static int attach_twice(const char *name, int attrs)
{
    char at[64], pub[64];
    int f = fsopen("ramfs", -1, ""), d, w, err = 0;

    snprintf(at, sizeof(at), "/tmp/%s", name);
    snprintf(pub, sizeof(pub), "/tmp/%s_pub", name);
    if (f < 0 || (d = create(f, "secret", S_IFREG, 0666, 0)) < 0 || (w = ready(d, R_WRITE)) < 0)
        return -1;
    write(w, "secret\n", 7);
    close(w);
    close(d);
    if ((d = create(f, "null", S_IFCHR, 0666, MKDEV(DEV_MEM, 0))) < 0)
        return -1;
    close(d);
    if ((d = create(f, "pub", S_IFDIR, 0777, 0)) < 0 || mkdir(at, 0755) < 0 ||
        mkdir(pub, 0755) < 0 || bind(f, AT_CWD, at, attrs) < 0 || bind(d, AT_CWD, pub, 0) < 0)
        err = -1;
    close(d);
    close(f);
    return err;
}

/* link() makes a second name for a node: in the writable attachment, a
 * file that only a read-only one showed would be writable through it. */
static void link_out_of_a_read_only_attachment_is_refused(void)
{
    int p, w;

    CHECK(attach_twice("lk_ro", BIND_RDONLY) == 0, "setup: %s", strerror(errno));
    CHECK((p = path_fd("/tmp/lk_ro/secret")) >= 0, "walk");
    CHECK_ERR(ready(p, R_WRITE), EROFS);
    CHECK_ERR(linkat(p, AT_CWD, "/tmp/lk_ro_pub/secret"), EXDEV);
    w = open("/tmp/lk_ro_pub/secret", O_WRONLY);
    CHECK(w < 0, "the file is writable through the new name");
    close(p);
    PASS();
}

/* The same for a device node under a nodev attachment, by link or by a
 * rename out of it (allowed: the attachment is writable). */
static void link_or_rename_out_of_a_nodev_attachment_is_refused(void)
{
    int p, r;

    CHECK(attach_twice("lk_nd", BIND_NODEV) == 0, "setup: %s", strerror(errno));
    CHECK((p = path_fd("/tmp/lk_nd/null")) >= 0, "walk");
    CHECK_ERR(ready(p, R_READ), EACCES);
    CHECK_ERR(linkat(p, AT_CWD, "/tmp/lk_nd_pub/null"), EXDEV);
    CHECK_ERR(renameat(AT_CWD, "/tmp/lk_nd/null", AT_CWD, "/tmp/lk_nd_pub/null", 0), EXDEV);
    r = open("/tmp/lk_nd_pub/null", O_RDONLY);
    CHECK(r < 0, "the device is readied through the new name");
    CHECK(renameat(AT_CWD, "/tmp/lk_nd/null", AT_CWD, "/tmp/lk_nd/null2", 0) == 0,
          "a rename inside the nodev attachment: %s", strerror(errno));
    close(p);
    PASS();
}

/* Root makes a directory read-only for everyone by binding it read-only
 * over itself (/tmp/at_self), and a union's base read-only with setattach
 * (/tmp/at_ub). A student's unshared copy of root's namespace may unbind
 * what it likes, but not lift a restriction so: with the read-only
 * attachment gone, the same directory would show through, writable, and
 * the student would write into what root's namespace shows read-only. */
static int student_unbinds_a_restriction(void)
{
    int u;

    if (setgid(1000) < 0 || setuid(1000) < 0 || unshare() < 0)
        return 1;
    if ((u = unbind(AT_CWD, "/tmp/at_self")) >= 0 || errno != EPERM)
        return 2;
    if (create(AT_CWD, "/tmp/at_self/student", S_IFREG, 0644, 0) >= 0 || errno != EROFS)
        return 3;
    if ((u = unbind(AT_CWD, "/tmp/at_ub")) < 0)
        return 4;                       /* the union's member: not a restriction */
    close(u);
    if (create(AT_CWD, "/tmp/at_ub/student", S_IFREG, 0644, 0) >= 0 || errno != EROFS)
        return 5;                       /* the read-only base stayed */
    return 0;
}

static void unbind_by_a_user_lifts_no_restriction_from_what_it_covers(void)
{
    int d = path_fd("/tmp"), m = fsopen("ramfs", -1, ""), step;

    CHECK(d >= 0 && m >= 0 && mkdir("/tmp/at_self", 0777) == 0 && mkdir("/tmp/at_ub", 0777) == 0 &&
              chmod("/tmp/at_self", 0777) == 0 && chmod("/tmp/at_ub", 0777) == 0,
          "setup");
    close(d);
    CHECK((d = path_fd("/tmp/at_self")) >= 0 && bind(d, AT_CWD, "/tmp/at_self", BIND_RDONLY) == 0,
          "bind -r /tmp/at_self over itself: %s", strerror(errno));
    close(d);
    CHECK(bind(m, AT_CWD, "/tmp/at_ub", BIND_AFTER) == 0 &&
              setattach(AT_CWD, "/tmp/at_ub", BIND_RDONLY) == 0,
          "a union on /tmp/at_ub, its base read-only: %s", strerror(errno));
    close(m);
    step = in_child(student_unbinds_a_restriction);
    CHECK(step == 0, "step %d failed", step);
    CHECK_ERR(walk(AT_CWD, "/tmp/at_self/student", 0), ENOENT);
    CHECK_ERR(walk(AT_CWD, "/tmp/at_ub/student", 0), ENOENT);
    PASS();
}

static void setup(void)
{
    int bin = path_fd("/bin"), dev = path_fd("/dev");

    fs = fsopen("ramfs", -1, "");
    if (fs < 0 || bin < 0 || dev < 0 || mkdir("/tmp/at_rw", 0755) < 0 ||
        mkdir("/tmp/at_ro", 0755) < 0 || mkdir("/tmp/at_nx", 0755) < 0 ||
        mkdir("/tmp/at_nd", 0755) < 0 || bind(fs, AT_CWD, "/tmp/at_rw", 0) < 0 ||
        bind(fs, AT_CWD, "/tmp/at_ro", BIND_RDONLY) < 0 ||
        bind(bin, AT_CWD, "/tmp/at_nx", BIND_NOEXEC) < 0 ||
        bind(dev, AT_CWD, "/tmp/at_nd", BIND_NODEV) < 0 || put_file("/tmp/at_rw/f", "f\n") < 0)
        printf("FAIL t_attach_setup: %s\n", strerror(errno));
    close(bin);
    close(dev);
}

int main(int argc, char *argv[])
{
    t_only = argc > 1 ? argv[1] : NULL;
    setup();
    T_RUN(a_read_only_attachment_refuses_create_with_erofs);
    T_RUN(the_same_fs_is_writable_at_its_other_attachment);
    T_RUN(a_read_only_attachment_refuses_ready_for_writing);
    T_RUN(a_read_only_attachment_refuses_unlink_rename_and_link_with_erofs);
    T_RUN(a_read_only_attachment_refuses_fchmod_and_fchown_with_erofs);
    T_RUN(a_file_readied_for_writing_before_setattach_keeps_writing);
    T_RUN(setattach_changes_an_attachments_attributes_in_place);
    T_RUN(proc_ns_shows_each_attachments_flags);
    T_RUN(exec_through_a_noexec_attachment_is_eacces);
    T_RUN(a_device_under_a_nodev_attachment_cannot_be_readied);
    T_RUN(an_fd_from_fsopen_has_no_attachment_attributes);
    T_RUN(a_restriction_covers_the_attachments_a_bind_brings_along);
    T_RUN(unshare_copies_the_attributes);
    T_RUN(bind_and_setattach_check_their_flags);
    T_RUN(a_namespace_holds_a_bounded_number_of_attachments);
    T_RUN(setattach_needs_a_namespace_of_ones_own);
    T_RUN(a_bind_of_a_read_only_path_is_read_only_too);
    T_RUN(an_unbound_read_only_attachment_stays_read_only);
    T_RUN(root_lifts_a_restriction_with_setattach);
    T_RUN(link_out_of_a_read_only_attachment_is_refused);
    T_RUN(link_or_rename_out_of_a_nodev_attachment_is_refused);
    T_RUN(unbind_by_a_user_lifts_no_restriction_from_what_it_covers);
    printf("t_attach: done\n");
    return 0;
}
