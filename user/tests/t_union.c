/* t_union.c - union directories (issue 15, part 2): Plan 9's bind -b/-a/-c
 * with BIND_BEFORE, BIND_AFTER and BIND_CREATE. /tmp/un is a plain
 * directory (names base, both, bdir); ramfs A (a, both, asub/) is bound
 * after it and ramfs B (b, both) before it, so the search order is B,
 * /tmp/un, A. Every rule in a test named for it (doc/decisions.md,
 * "Union directories"). Each test that changes the union makes its own. */
#include <orthos.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "t.h"

static char ns_text[8192];

static int ns_has(const char *text)
{
    return slurp("/proc/self/ns", ns_text, sizeof(ns_text)) > 0 && strstr(ns_text, text) != NULL;
}

/* A new ramfs holding the files names[] (each holding its own tag) and
 * the directories dirs[]; its fd. */
static int new_fs(const char *tag, const char *const *names, const char *const *dirs)
{
    int fs = fsopen("ramfs", -1, ""), i, d, w;

    for (i = 0; fs >= 0 && names && names[i]; i++) {
        if ((d = create(fs, names[i], S_IFREG, 0644, 0)) < 0 || (w = ready(d, R_WRITE)) < 0)
            return -1;
        write(w, tag, strlen(tag));
        close(w);
        close(d);
    }
    for (i = 0; fs >= 0 && dirs && dirs[i]; i++)
        if ((d = create(fs, dirs[i], S_IFDIR, 0755, 0)) < 0)
            return -1;
        else
            close(d);
    return fs;
}

static int fs_a = -1, fs_b = -1;

/* What the file at path holds ("" if it cannot be read). */
static const char *contents(const char *path)
{
    static char buf[64];

    if (slurp(path, buf, sizeof(buf)) < 0)
        buf[0] = '\0';
    return buf;
}

/* How many times each of names[] is listed by getdents of dir; the
 * number of entries in all into *total. */
static int count_name(const char *dir, const char *name, int *total)
{
    char buf[512];
    int fd = open(dir, O_RDONLY), n, off, count = 0;

    *total = 0;
    if (fd < 0)
        return -1;
    while ((n = getdents(fd, buf, sizeof(buf))) > 0) {
        for (off = 0; off < n;) {
            struct dirent *de = (struct dirent *)(buf + off);
            count += strcmp(de->d_name, name) == 0;
            (*total)++;
            off += de->d_reclen;
        }
    }
    close(fd);
    return count;
}

/* d_ino of name as getdents of dir lists it, or 0. */
static uint32_t listed_ino(const char *dir, const char *name)
{
    char buf[512];
    int fd = open(dir, O_RDONLY), n, off;
    uint32_t ino = 0;

    while (fd >= 0 && (n = getdents(fd, buf, sizeof(buf))) > 0) {
        for (off = 0; off < n;) {
            struct dirent *de = (struct dirent *)(buf + off);
            if (!ino && strcmp(de->d_name, name) == 0)
                ino = de->d_ino;
            off += de->d_reclen;
        }
    }
    close(fd);
    return ino;
}

static void lookup_searches_the_members_in_order(void)
{
    CHECK(strcmp(contents("/tmp/un/both"), "B") == 0, "both: '%s' (B is before)",
          contents("/tmp/un/both"));
    CHECK(strcmp(contents("/tmp/un/base"), "base") == 0, "what was there is still found");
    CHECK(strcmp(contents("/tmp/un/a"), "A") == 0, "a from the member bound after");
    CHECK(strcmp(contents("/tmp/un/b"), "B") == 0, "b from the member bound before");
    CHECK_ERR(walk(AT_CWD, "/tmp/un/none", 0), ENOENT);
    PASS();
}

static void bind_after_is_searched_after_what_was_there(void)
{
    int d = open("/tmp/un/both", O_RDONLY), e;

    CHECK(d >= 0, "open");
    close(d);
    CHECK(mkdir("/tmp/un2", 0755) == 0 && put_file("/tmp/un2/both", "base") == 0, "setup");
    CHECK(bind(fs_a, AT_CWD, "/tmp/un2", BIND_AFTER) == 0, "bind -a");
    CHECK(strcmp(contents("/tmp/un2/both"), "base") == 0, "'%s'", contents("/tmp/un2/both"));
    CHECK((e = unbind(AT_CWD, "/tmp/un2")) >= 0, "unbind");
    close(e);
    PASS();
}

static void a_union_lists_a_name_in_both_members_once(void)
{
    int total, i;
    const char *once[] = { ".", "..", "base", "both", "bdir", "a", "asub", "b" };

    for (i = 0; i < (int)(sizeof(once) / sizeof(once[0])); i++)
        CHECK(count_name("/tmp/un", once[i], &total) == 1, "%s listed %d times", once[i],
              count_name("/tmp/un", once[i], &total));
    CHECK(total == 8, "%d entries, want 8", total);
    PASS();
}

static void getdents_lists_a_shared_name_from_the_first_member(void)
{
    struct stat st;

    CHECK(stat("/tmp/un/both", &st) == 0, "stat");
    CHECK(listed_ino("/tmp/un", "both") == st.st_ino, "listed ino %u, walked ino %u",
          listed_ino("/tmp/un", "both"), st.st_ino);
    PASS();
}

static void getdents_in_small_pieces_lists_each_name_once(void)
{
    char buf[16];                       /* room for one entry at a time */
    int fd = open("/tmp/un", O_RDONLY), n, entries = 0, boths = 0, off;

    CHECK(fd >= 0, "open");
    while ((n = getdents(fd, buf, sizeof(buf))) > 0) {
        for (off = 0; off < n; off += ((struct dirent *)(buf + off))->d_reclen) {
            entries++;
            boths += strcmp(((struct dirent *)(buf + off))->d_name, "both") == 0;
        }
    }
    CHECK(n == 0 && entries == 8 && boths == 1, "n %d, %d entries, both %d times", n, entries,
          boths);
    CHECK(lseek(fd, 0, SEEK_SET) == 0 && getdents(fd, buf, sizeof(buf)) > 0 &&
              strcmp(((struct dirent *)buf)->d_name, ".") == 0,
          "rewound, from the first member's first entry");
    close(fd);
    PASS();
}

static void create_in_a_union_without_a_create_member_is_erofs(void)
{
    CHECK_ERR(create(AT_CWD, "/tmp/un/new", S_IFREG, 0644, 0), EROFS);
    CHECK_ERR(mkdir("/tmp/un/newdir", 0755), EROFS);
    PASS();
}

static void bind_create_marks_the_member_that_receives_new_files(void)
{
    int c = new_fs("C", NULL, NULL), d, e;

    CHECK(c >= 0 && mkdir("/tmp/un3", 0755) == 0, "setup");
    CHECK(bind(fs_a, AT_CWD, "/tmp/un3", BIND_BEFORE) == 0, "bind -b A");
    CHECK(bind(c, AT_CWD, "/tmp/un3", BIND_AFTER | BIND_CREATE) == 0, "bind -a -c C");
    CHECK((d = create(AT_CWD, "/tmp/un3/made", S_IFREG, 0644, 0)) >= 0, "create");
    close(d);
    CHECK((d = walk(c, "made", 0)) >= 0, "made in C, the create member");
    close(d);
    CHECK_ERR(walk(fs_a, "made", 0), ENOENT);
    CHECK_ERR(create(AT_CWD, "/tmp/un3/a", S_IFREG, 0644, 0), EEXIST); /* A has it */
    CHECK(mkdir("/tmp/un3/newdir", 0755) == 0 && (d = walk(c, "newdir", 0)) >= 0, "mkdir in C");
    close(d);
    CHECK((e = unbind(AT_CWD, "/tmp/un3")) >= 0, "unbind C");
    close(e);
    CHECK((e = unbind(AT_CWD, "/tmp/un3")) >= 0, "unbind A");
    close(e);
    close(c);
    PASS();
}

static void unlink_in_a_union_removes_the_name_from_the_member_that_has_it(void)
{
    int c = new_fs("C", (const char *const[]){ "gone", NULL }, NULL), d, e;

    CHECK(c >= 0 && mkdir("/tmp/un4", 0755) == 0, "setup");
    CHECK(bind(c, AT_CWD, "/tmp/un4", BIND_AFTER) == 0, "bind -a");
    CHECK(unlink("/tmp/un4/gone") == 0, "unlink");
    CHECK_ERR(walk(c, "gone", 0), ENOENT);
    CHECK((e = unbind(AT_CWD, "/tmp/un4")) >= 0, "unbind");
    close(e);
    close(c);
    (void)d;
    PASS();
}

static void unbind_of_a_union_removes_its_newest_member(void)
{
    int c = new_fs("C", (const char *const[]){ "c", NULL }, NULL), e;
    struct stat st, cs;

    CHECK(c >= 0 && mkdir("/tmp/un5", 0755) == 0 && put_file("/tmp/un5/base", "base") == 0,
          "setup");
    CHECK(bind(fs_a, AT_CWD, "/tmp/un5", BIND_AFTER) == 0 &&
              bind(c, AT_CWD, "/tmp/un5", BIND_BEFORE) == 0,
          "bind");
    CHECK(ns_has("/tmp/un5 ramfs - bind base\n"), "the base is listed:\n%s", ns_text);
    CHECK((e = unbind(AT_CWD, "/tmp/un5")) >= 0, "unbind");
    CHECK(fstat(e, &st) == 0 && fstat(c, &cs) == 0 && st.st_dev == cs.st_dev, "C came back");
    close(e);
    CHECK_ERR(walk(AT_CWD, "/tmp/un5/c", 0), ENOENT);
    CHECK(strcmp(contents("/tmp/un5/a"), "A") == 0, "A stays");
    CHECK(strcmp(contents("/tmp/un5/base"), "base") == 0, "the base stays");
    CHECK((e = unbind(AT_CWD, "/tmp/un5")) >= 0, "unbind A");
    close(e);
    CHECK_ERR(walk(AT_CWD, "/tmp/un5/a", 0), ENOENT);
    CHECK(strcmp(contents("/tmp/un5/base"), "base") == 0, "a plain directory again");
    CHECK(!ns_has("/tmp/un5 "), "nothing attached at /tmp/un5 any more:\n%s", ns_text);
    CHECK((e = create(AT_CWD, "/tmp/un5/new", S_IFREG, 0644, 0)) >= 0, "and it takes new names");
    close(e);
    CHECK_ERR(unbind(AT_CWD, "/tmp/un5"), EINVAL);
    close(c);
    PASS();
}

static void dotdot_in_a_union_member_leads_back_to_the_union(void)
{
    struct stat st, tmp;
    int sub, p;

    CHECK(stat("/tmp/un/asub/../../", &st) == 0 && stat("/tmp", &tmp) == 0 &&
              st.st_ino == tmp.st_ino && st.st_dev == tmp.st_dev,
          "/tmp/un/asub/../.. is /tmp");
    CHECK((sub = walk(AT_CWD, "/tmp/un/asub", 0)) >= 0, "walk into A's subdirectory");
    CHECK((p = walk(sub, "../base", 0)) >= 0, ".. from A's subdirectory is the union");
    close(p);
    CHECK((p = walk(sub, "../b", 0)) >= 0, "with B's names too");
    close(p);
    CHECK(fchdir(sub) == 0 && (p = walk(AT_CWD, "../base", 0)) >= 0, "and from a cwd there");
    close(p);
    CHECK(chdir("/") == 0, "chdir back");
    close(sub);
    PASS();
}

static void walk_beneath_and_a_chroot_hold_in_a_union(void)
{
    int un = walk(AT_CWD, "/tmp/un", 0), p;

    CHECK(un >= 0, "walk");
    CHECK_ERR(walk(un, "asub/../../un", WALK_BENEATH), EXDEV);
    CHECK((p = walk(un, "asub/../b", WALK_BENEATH)) >= 0, "inside is fine");
    close(p);
    close(un);
    PASS();
}

static int chrooted_in_union(void)
{
    struct stat st, root;

    if (chroot("/tmp/un") < 0 || chdir("/") < 0)
        return 1;
    if (stat("/asub/../../..", &st) < 0 || stat("/", &root) < 0)
        return 2;
    if (st.st_ino != root.st_ino || st.st_dev != root.st_dev)
        return 3;
    return walk(AT_CWD, "/../../b", 0) >= 0 ? 0 : 4;
}

static void a_chroot_in_a_union_cannot_be_left_by_dotdot(void)
{
    int code = in_child(chrooted_in_union);

    CHECK(code == 0, "step %d", code);
    PASS();
}

/* A cwd inside a member other than the first (A's asub, or the base's
 * bdir): ".." climbs to that member's root, and one more ".." must stay
 * there, for every member's root is the union, which is the root. */
static int chrooted_below_a_later_member(void)
{
    char cwd[64];

    if (chroot("/tmp/un") < 0)
        return 1;
    if (chdir("/asub") < 0 || walk(AT_CWD, "../../../b", 0) < 0)
        return 2;                       /* up there is the union: B's names */
    if (!getcwd(cwd, sizeof(cwd)) || strcmp(cwd, "/asub") != 0)
        return 7;                       /* named from the root, not "?/tmp/un/asub" */
    if (walk(AT_CWD, "../../un", 0) >= 0 || walk(AT_CWD, "../../../etc/passwd", 0) >= 0)
        return 3;                       /* out: /tmp/un and /etc seen from outside */
    if (walk(AT_CWD, "../../../base", 0) < 0)
        return 4;                       /* and the base's */
    if (chdir("/bdir") < 0 || walk(AT_CWD, "../../un", 0) >= 0)
        return 5;                       /* through the base: out as well */
    return walk(AT_CWD, "../../b", 0) >= 0 ? 0 : 6;
}

static void a_chroot_in_a_union_is_not_left_from_a_cwd_in_a_later_member(void)
{
    int code = in_child(chrooted_below_a_later_member);

    CHECK(code == 0, "step %d", code);
    PASS();
}

static void an_attachment_inside_a_member_is_reached_through_the_union(void)
{
    int x = new_fs("X", (const char *const[]){ "xfile", NULL }, NULL), e;

    CHECK(x >= 0 && bind(x, AT_CWD, "/tmp/un/asub", 0) == 0, "bind inside member A");
    CHECK(strcmp(contents("/tmp/un/asub/xfile"), "X") == 0, "'%s'", contents("/tmp/un/asub/xfile"));
    CHECK((e = unbind(AT_CWD, "/tmp/un/asub")) >= 0, "unbind it");
    close(e);
    close(x);
    PASS();
}

static int student_in_union(void)
{
    int total;

    if (setgid(1000) < 0 || setuid(1000) < 0)
        return 1;
    if (walk(AT_CWD, "/tmp/un6/secret", 0) >= 0 || errno != ENOENT)
        return 2;                       /* in the closed member only: passed over */
    if (count_name("/tmp/un6", "secret", &total) != 0 ||
        count_name("/tmp/un6", "open", &total) != 1)
        return 4;                       /* and not listed: it may not be read either */
    return strcmp(contents("/tmp/un6/open"), "open") == 0 ? 0 : 3;
}

static void a_member_the_caller_may_not_search_is_passed_over(void)
{
    int c = new_fs("C", (const char *const[]){ "secret", NULL }, NULL);
    int code;

    CHECK(c >= 0 && fchmod(c, 0700) == 0, "a closed member");
    CHECK(mkdir("/tmp/un6", 0755) == 0 && put_file("/tmp/un6/open", "open") == 0, "setup");
    CHECK(bind(c, AT_CWD, "/tmp/un6", BIND_AFTER) == 0, "bind -a");
    CHECK(strcmp(contents("/tmp/un6/secret"), "C") == 0, "root finds it");
    code = in_child(student_in_union);
    CHECK(code == 0, "step %d", code);
    close(c);
    PASS();
}

/* A member the student may read but not search (0744) is passed over by
 * getdents as by lookup: its y is not listed, and dup, in it and in a
 * later member, once, with the inode a walk finds (doc/decisions.md, the
 * thirteenth round's "name listed twice"). */
static int student_reads_a_member_it_may_not_search(void)
{
    struct stat st;
    int total, fd;

    if (setgid(1000) < 0 || setuid(1000) < 0)
        return 1;
    if (count_name("/tmp/un10", "y", &total) != 0)
        return 2;
    if ((fd = walk(AT_CWD, "/tmp/un10/dup", 0)) < 0 || fstat(fd, &st) < 0)
        return 3;
    close(fd);
    if (count_name("/tmp/un10", "dup", &total) != 1)
        return 4;
    return listed_ino("/tmp/un10", "dup") == st.st_ino ? 0 : 5;
}

static void a_member_read_but_not_searched_lists_nothing(void)
{
    int y = new_fs("Y", (const char *const[]){ "y", "dup", NULL }, NULL);
    int z = new_fs("Z", (const char *const[]){ "dup", NULL }, NULL), code;

    CHECK(y >= 0 && z >= 0 && fchmod(y, 0744) == 0 && mkdir("/tmp/un10", 0755) == 0, "setup");
    CHECK(bind(y, AT_CWD, "/tmp/un10", BIND_AFTER) == 0 &&
              bind(z, AT_CWD, "/tmp/un10", BIND_AFTER) == 0,
          "bind -a Y, Z");
    code = in_child(student_reads_a_member_it_may_not_search);
    CHECK(code == 0, "step %d%s", code,
          code == 2   ? ": y, only in Y (0744), listed: lookup passes Y over"
          : code == 4 ? ": dup, in Y (0744) and Z, not listed once"
          : code == 5 ? ": dup listed with an inode a walk does not find"
                      : "");
    close(y);
    close(z);
    PASS();
}

static void a_revoked_member_costs_only_its_own_names(void)
{
    int c = new_fs("C", (const char *const[]){ "c", NULL }, NULL), total;

    CHECK(c >= 0 && mkdir("/tmp/un7", 0755) == 0, "setup");
    CHECK(bind(c, AT_CWD, "/tmp/un7", BIND_BEFORE) == 0 &&
              bind(fs_a, AT_CWD, "/tmp/un7", BIND_AFTER) == 0,
          "bind");
    CHECK(revoke(c) == 0, "revoke C");
    CHECK(strcmp(contents("/tmp/un7/a"), "A") == 0, "A's names are still found");
    CHECK(count_name("/tmp/un7", "a", &total) == 1, "and listed");
    close(c);
    PASS();
}

static void union_binds_check_their_flags(void)
{
    int f = walk(AT_CWD, "/tmp/un/base", 0), d = walk(AT_CWD, "/tmp/un/bdir", 0);

    CHECK(f >= 0 && d >= 0, "walk");
    CHECK_ERR(bind(fs_a, AT_CWD, "/tmp/un", BIND_BEFORE | BIND_AFTER), EINVAL);
    CHECK_ERR(bind(f, AT_CWD, "/tmp/un/both", BIND_AFTER), EINVAL);
    CHECK_ERR(bind(f, AT_CWD, "/tmp/un", BIND_AFTER), EISDIR);
    CHECK_ERR(bind(d, AT_CWD, "/tmp/un/base", BIND_BEFORE), ENOTDIR);
    close(f);
    close(d);
    PASS();
}

static void a_read_only_member_refuses_new_names(void)
{
    int c = new_fs("C", NULL, NULL), e;

    CHECK(c >= 0 && mkdir("/tmp/un8", 0755) == 0, "setup");
    CHECK(bind(c, AT_CWD, "/tmp/un8", BIND_AFTER | BIND_CREATE | BIND_RDONLY) == 0, "bind");
    CHECK(ns_has("/tmp/un8 ramfs - ro after create\n"), "flags in /proc/self/ns:\n%s", ns_text);
    CHECK_ERR(create(AT_CWD, "/tmp/un8/x", S_IFREG, 0644, 0), EROFS);
    CHECK((e = unbind(AT_CWD, "/tmp/un8")) >= 0, "unbind");
    close(e);
    close(c);
    PASS();
}

/* A copy of /bin/true, only in a directory bound after /bin. */
static int run_by_name(void)
{
    char *argv[] = { "onlyinunion", NULL };
    int d, w, r, n, p;
    static char buf[65536];

    if (unshare() < 0 || mkdir("/tmp/unbin", 0755) < 0)
        return 1;
    p = walk(AT_CWD, "/bin/true", 0);
    r = ready(p, R_READ);
    n = read_full(r, buf, sizeof(buf));
    if ((d = create(AT_CWD, "/tmp/unbin/onlyinunion", S_IFREG, 0755, 0)) < 0 ||
        (w = ready(d, R_WRITE)) < 0 || write(w, buf, n) != n)
        return 2;
    close(w);
    if (bind(walk(AT_CWD, "/tmp/unbin", 0), AT_CWD, "/bin", BIND_AFTER) < 0)
        return 3;
    if (walk(AT_CWD, "/bin/ls", 0) < 0)
        return 4;                       /* /bin's own programs first */
    execvp("onlyinunion", argv);
    return 5;
}

static void bind_after_finds_a_program_by_name(void)
{
    int code = in_child(run_by_name);

    CHECK(code == 0, "step %d", code);
    PASS();
}

static void bind_options_parses_plan9s_options(void)
{
    char *v1[] = { "bind", "-a", "-c", "x", "y", NULL }, *v2[] = { "bind", "-brn", "x", "y", NULL };
    char *v3[] = { "bind", "-a", "-b", "x", "y", NULL }, *v4[] = { "bind", "-q", "x", "y", NULL };
    int flags;

    CHECK(bind_options(5, v1, &flags) == 3 && flags == (BIND_AFTER | BIND_CREATE), "-a -c");
    CHECK(bind_options(4, v2, &flags) == 2 && flags == (BIND_BEFORE | BIND_RDONLY | BIND_NOEXEC),
          "-brn");
    CHECK(bind_options(5, v3, &flags) == -1 && errno == EINVAL, "-a -b");
    CHECK(bind_options(4, v4, &flags) == -1 && errno == EINVAL, "-q");
    PASS();
}

/* A union made, used and unbound again in a namespace of its own. */
static int union_round(void)
{
    int c = new_fs("C", (const char *const[]){ "c", NULL }, (const char *const[]){ "d", NULL });
    int total, e;

    if (c < 0 || unshare() < 0 || mkdir("/tmp/un9", 0755) < 0)
        return 1;
    static char big[32768];             /* pages that come back only if C is released */

    if (bind(fs_a, AT_CWD, "/tmp/un9", BIND_AFTER) < 0 ||
        bind(c, AT_CWD, "/tmp/un9", BIND_BEFORE | BIND_CREATE) < 0)
        return 2;
    if (strcmp(contents("/tmp/un9/c"), "C") != 0 || count_name("/tmp/un9", "a", &total) != 1)
        return 3;
    if ((e = open("/tmp/un9/new", O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0 ||
        write(e, big, sizeof(big)) != (int)sizeof(big))
        return 4;
    close(e);
    if ((e = open("/tmp/un9/big", O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0 ||
        write(e, big, sizeof(big)) != (int)sizeof(big))
        return 4;
    close(e);
    if (unlink("/tmp/un9/new") < 0)
        return 5;
    while ((e = unbind(AT_CWD, "/tmp/un9")) >= 0)
        close(e);
    close(c);
    return rmdir("/tmp/un9") == 0 ? 0 : 6;
}

static void a_union_made_and_unbound_leaks_nothing(void)
{
    int code, lost = pages_lost_in_child(union_round, &code);

    CHECK(code == 0, "the round failed at step %d", code);
    CHECK(lost <= 0, "%d pages lost", lost);
    PASS();
}

static int unshared_union(void)
{
    if (unshare() < 0)
        return 1;
    if (strcmp(contents("/tmp/un/b"), "B") != 0 || strcmp(contents("/tmp/un/a"), "A") != 0)
        return 2;
    return strcmp(contents("/tmp/un/both"), "B") == 0 ? 0 : 3;
}

static void unshare_copies_a_union_in_its_order(void)
{
    int code = in_child(unshared_union);

    CHECK(code == 0, "step %d", code);
    PASS();
}

static void setup(void)
{
    fs_a = new_fs("A", (const char *const[]){ "a", "both", NULL },
                  (const char *const[]){ "asub", NULL });
    fs_b = new_fs("B", (const char *const[]){ "b", "both", NULL }, NULL);
    if (fs_a < 0 || fs_b < 0 || mkdir("/tmp/un", 0755) < 0 || put_file("/tmp/un/base", "base") ||
        put_file("/tmp/un/both", "base") || mkdir("/tmp/un/bdir", 0755) < 0 ||
        bind(fs_a, AT_CWD, "/tmp/un", BIND_AFTER) < 0 ||
        bind(fs_b, AT_CWD, "/tmp/un", BIND_BEFORE) < 0)
        printf("FAIL t_union_setup: %s\n", strerror(errno));
}

int main(int argc, char *argv[])
{
    t_only = argc > 1 ? argv[1] : NULL;
    setup();
    T_RUN(lookup_searches_the_members_in_order);
    T_RUN(bind_after_is_searched_after_what_was_there);
    T_RUN(a_union_lists_a_name_in_both_members_once);
    T_RUN(getdents_lists_a_shared_name_from_the_first_member);
    T_RUN(getdents_in_small_pieces_lists_each_name_once);
    T_RUN(create_in_a_union_without_a_create_member_is_erofs);
    T_RUN(bind_create_marks_the_member_that_receives_new_files);
    T_RUN(unlink_in_a_union_removes_the_name_from_the_member_that_has_it);
    T_RUN(unbind_of_a_union_removes_its_newest_member);
    T_RUN(dotdot_in_a_union_member_leads_back_to_the_union);
    T_RUN(walk_beneath_and_a_chroot_hold_in_a_union);
    T_RUN(a_chroot_in_a_union_cannot_be_left_by_dotdot);
    T_RUN(a_chroot_in_a_union_is_not_left_from_a_cwd_in_a_later_member);
    T_RUN(an_attachment_inside_a_member_is_reached_through_the_union);
    T_RUN(a_member_the_caller_may_not_search_is_passed_over);
    T_RUN(a_member_read_but_not_searched_lists_nothing);
    T_RUN(a_revoked_member_costs_only_its_own_names);
    T_RUN(union_binds_check_their_flags);
    T_RUN(a_read_only_member_refuses_new_names);
    T_RUN(bind_after_finds_a_program_by_name);
    T_RUN(bind_options_parses_plan9s_options);
    T_RUN(a_union_made_and_unbound_leaks_nothing);
    T_RUN(unshare_copies_a_union_in_its_order);
    printf("t_union: done\n");
    return 0;
}
