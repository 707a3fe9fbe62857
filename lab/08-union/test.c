/* lab08 - graded tests for lab 08: union directories, the search of a
 * union's members (union_lookup) and the listing of each name once
 * (ns_union_hides).
 *
 * Each test runs in a child of its own (lab.h), in a namespace of its own
 * (unshare), and builds its union in /tmp from ramfs instances it makes:
 * every file holds the tag of the member it is in, so what a lookup found
 * is what reading the file says. Every test looks into a union, so the
 * stub (which searches nothing) scores 0. */
#include <fcntl.h>
#include <orthos.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lab.h"
#include "array_size.h"

#define STUDENT 1000

/* A new ramfs holding the files in the NULL-terminated names[] (each
 * holding tag) and the directory "sub" if want_sub; its fd, or -1. */
static int member(const char *tag, const char *const *names, int want_sub)
{
    int fs = fsopen("ramfs", -1, ""), i, d, w;

    for (i = 0; fs >= 0 && names[i]; i++) {
        if ((d = create(fs, names[i], S_IFREG, 0644, 0)) < 0 || (w = ready(d, R_WRITE)) < 0)
            return -1;
        if (write(w, tag, strlen(tag)) != (int)strlen(tag))
            return -1;
        close(w);
        close(d);
    }
    if (fs >= 0 && want_sub) {
        if ((d = create(fs, "sub", S_IFDIR, 0755, 0)) < 0)
            return -1;
        close(d);
    }
    return fs;
}

/* A plain directory `dir` holding the files names[] (each holding tag). */
static int plain_dir(const char *dir, const char *tag, const char *const *names)
{
    char path[128];
    int i;

    if (mkdir(dir, 0777) < 0 || chmod(dir, 0777) < 0)
        return -1;
    for (i = 0; names[i]; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        if (put_file(path, tag) < 0)
            return -1;
    }
    return 0;
}

/* What the file at path holds, or "(errno name)" if it cannot be read. */
static const char *holds(const char *path)
{
    static char buf[64];

    if (slurp(path, buf, sizeof(buf)) < 0)
        snprintf(buf, sizeof(buf), "(%s)", strerror(errno));
    return buf;
}

/* Grow the file `name` in directory fd dir by `pages` pages of zeros: 0 or -1. */
static int fill(int dir, const char *name, int pages)
{
    static char page[4096];
    int f, w, i;

    if ((f = walk(dir, name, 0)) < 0 || (w = ready(f, R_WRITE)) < 0)
        return -1;
    for (i = 0; i < pages; i++)
        if (write(w, page, sizeof(page)) != sizeof(page))
            return -1;
    close(w);
    close(f);
    return 0;
}

/* Unlink the file `name` (64 pages or more) in directory fd dir: 1 if its
 * 64 pages came back (nothing else held it), else 0; *before and *after
 * get the free pages around the unlink. */
static int unlink_frees_64_pages(int dir, const char *name, unsigned *before, unsigned *after)
{
    int r;

    *before = free_pages();
    r = unlinkat(dir, name, 0);
    *after = free_pages();
    return r == 0 && *after >= *before + 64;
}

#define HOLDS(path, want) \
    CHECK(strcmp(holds(path), want) == 0, "%s holds '%s', want '%s'", path, holds(path), want)

/* How many times getdents of dir lists name; *total gets the count of
 * all entries, *ino the d_ino name was listed with. */
static int listed(const char *dir, const char *name, int *total, uint32_t *ino)
{
    char buf[64];                       /* a few entries per call */
    int fd = open(dir, O_RDONLY), n, off, count = 0;

    *total = 0;
    if (fd < 0)
        return -1;
    while ((n = getdents(fd, buf, sizeof(buf))) > 0) {
        for (off = 0; off < n; off += ((struct dirent *)(buf + off))->d_reclen) {
            struct dirent *de = (struct dirent *)(buf + off);
            if (strcmp(de->d_name, name) == 0) {
                count++;
                *ino = de->d_ino;
            }
            (*total)++;
        }
    }
    close(fd);
    return n < 0 ? -1 : count;
}

/* ------------------------------------------------------------ lookup */

#define MAX_MEMBERS 16                 /* bind(2): a union holds at most 16 members */

static void lookup_finds_names_in_every_member(void)
{
    char tag[8], path[32];
    int a, b, c, d, i, m;

    CHECK(unshare() == 0, "unshare");
    CHECK(plain_dir("/tmp/l8a", "base", (const char *const[]){ "base", NULL }) == 0, "setup");
    CHECK((a = member("A", (const char *const[]){ "a", NULL }, 0)) >= 0, "member A");
    CHECK((b = member("B", (const char *const[]){ "b", NULL }, 0)) >= 0, "member B");
    CHECK(bind(a, AT_CWD, "/tmp/l8a", BIND_AFTER) == 0, "bind -a A");
    CHECK(bind(b, AT_CWD, "/tmp/l8a", BIND_BEFORE) == 0, "bind -b B");
    HOLDS("/tmp/l8a/b", "B");
    HOLDS("/tmp/l8a/base", "base");
    HOLDS("/tmp/l8a/a", "A");
    CHECK_ERR(walk(AT_CWD, "/tmp/l8a/none", 0), ENOENT);
    /* any number of members: two more after A make five, and the last one's name is found */
    CHECK((c = member("C", (const char *const[]){ "c", NULL }, 0)) >= 0, "member C");
    CHECK((d = member("D", (const char *const[]){ "d", NULL }, 0)) >= 0, "member D");
    CHECK(bind(c, AT_CWD, "/tmp/l8a", BIND_AFTER) == 0 &&
              bind(d, AT_CWD, "/tmp/l8a", BIND_AFTER) == 0,
          "bind -a C, bind -a D");
    CHECK(strcmp(holds("/tmp/l8a/c"), "C") == 0 && strcmp(holds("/tmp/l8a/d"), "D") == 0,
          "/tmp/l8a/c holds '%s', /tmp/l8a/d '%s', want 'C' and 'D': a union has any number of "
          "members, and a name only in the fourth or the fifth of five must be found",
          holds("/tmp/l8a/c"), holds("/tmp/l8a/d"));
    /* up to the most a union may have (bind(2): 16): a name only in the last is found */
    for (i = 5; i < MAX_MEMBERS; i++) {
        snprintf(tag, sizeof(tag), "M%d", i);
        CHECK((m = member(tag, (const char *const[]){ tag, NULL }, 0)) >= 0, "member %s", tag);
        CHECK(bind(m, AT_CWD, "/tmp/l8a", BIND_AFTER) == 0, "bind -a %s (member %d of %d)", tag,
              i + 1, MAX_MEMBERS);
        close(m);
    }
    snprintf(tag, sizeof(tag), "M%d", MAX_MEMBERS - 1);
    snprintf(path, sizeof(path), "/tmp/l8a/%s", tag);
    CHECK(strcmp(holds(path), tag) == 0,
          "%s holds '%s', want '%s': a name only in the last of %d members must be found", path,
          holds(path), tag, MAX_MEMBERS);
    PASS();
}

static void lookup_takes_the_first_member_that_has_the_name(void)
{
    unsigned before, after;
    int a, b, c, i;

    CHECK(unshare() == 0, "unshare");
    CHECK(plain_dir("/tmp/l8b", "base", (const char *const[]){ "both", "ab", NULL }) == 0, "setup");
    CHECK((a = member("A", (const char *const[]){ "both", "ab", "ac", NULL }, 0)) >= 0, "A");
    CHECK((b = member("B", (const char *const[]){ "both", NULL }, 0)) >= 0, "B");
    CHECK((c = member("C", (const char *const[]){ "ac", NULL }, 0)) >= 0, "C");
    CHECK(bind(a, AT_CWD, "/tmp/l8b", BIND_AFTER) == 0, "bind -a A");
    HOLDS("/tmp/l8b/both", "base");             /* what was there, then A */
    CHECK(bind(c, AT_CWD, "/tmp/l8b", BIND_AFTER) == 0, "bind -a C");
    HOLDS("/tmp/l8b/ac", "A");                  /* base, A, C */
    CHECK(bind(b, AT_CWD, "/tmp/l8b", BIND_BEFORE) == 0, "bind -b B");
    HOLDS("/tmp/l8b/both", "B");                /* B, base, A, C */
    HOLDS("/tmp/l8b/ab", "base");
    /* a lookup holds nothing of the later members that have the name too: A's "both",
     * grown to 64 pages, gives them back once unlinked after many lookups of the union's */
    CHECK(fill(a, "both", 64) == 0, "fill A's both");
    for (i = 0; i < 3; i++)
        HOLDS("/tmp/l8b/both", "B");
    CHECK(unlink_frees_64_pages(a, "both", &before, &after),
          "%u free pages before A's 64-page both was unlinked, %u after: the lookups of "
          "/tmp/l8b/both, which B's both wins, still hold A's",
          before, after);
    PASS();
}

static int student_finds_x(void)
{
    struct stat st;
    uint32_t ino;
    int total, fd;

    if (setgid(STUDENT) < 0 || setuid(STUDENT) < 0)
        return 1;
    if (strcmp(holds("/tmp/l8c/x"), "X") != 0)
        return 2;                       /* 0711: searchable, so searched */
    if (walk(AT_CWD, "/tmp/l8c/y", 0) >= 0 || errno != ENOENT)
        return 3;                       /* 0744: readable but not searchable */
    /* Z, after X, has an x too: X may be searched, so its x is the one a
     * lookup finds and Z's is hidden from getdents; X itself may not be
     * read, so no x is listed at all */
    if (listed("/tmp/l8c", "x", &total, &ino) != 0)
        return 4;
    /* Y (0744) may be read but not searched: lookup passes it over, so
     * getdents does too (every entry listed is one a lookup finds): y is
     * not listed, and dup, in Y and in Z, is listed once, Z's, the one
     * a walk finds (listing Y's too showed it twice) */
    if (listed("/tmp/l8c", "y", &total, &ino) != 0)
        return 5;
    if ((fd = walk(AT_CWD, "/tmp/l8c/dup", 0)) < 0 || fstat(fd, &st) < 0 ||
        strcmp(holds("/tmp/l8c/dup"), "Z") != 0)
        return 6;
    close(fd);
    if (listed("/tmp/l8c", "dup", &total, &ino) != 1 || ino != st.st_ino)
        return 7;
    return 0;
}

static void a_member_is_searched_by_its_search_permission(void)
{
    int x, y, z, code;

    CHECK(unshare() == 0, "unshare");
    CHECK(mkdir("/tmp/l8c", 0755) == 0, "setup");
    CHECK((y = member("Y", (const char *const[]){ "y", "dup", NULL }, 0)) >= 0, "member Y");
    CHECK((x = member("X", (const char *const[]){ "x", NULL }, 0)) >= 0, "member X");
    CHECK(fchmod(x, 0711) == 0 && fchmod(y, 0744) == 0, "chmod");
    CHECK(bind(y, AT_CWD, "/tmp/l8c", BIND_AFTER) == 0, "bind -a Y");
    CHECK(bind(x, AT_CWD, "/tmp/l8c", BIND_AFTER) == 0, "bind -a X");
    CHECK((z = member("Z", (const char *const[]){ "x", "dup", NULL }, 0)) >= 0, "member Z");
    CHECK(bind(z, AT_CWD, "/tmp/l8c", BIND_AFTER) == 0, "bind -a Z");
    HOLDS("/tmp/l8c/y", "Y");
    HOLDS("/tmp/l8c/dup", "Y");                 /* root searches Y: its dup is first */
    code = in_child(student_finds_x);
    CHECK(code == 0, "as the student: %s",
          code == 2   ? "x not found in a member with mode 0711 (search without read)"
          : code == 3 ? "y found in a member with mode 0744 (read without search)"
          : code == 4 ? "getdents lists x from Z, but X (0711, searchable) has x first and "
                        "hides it: the entry listed must be the one a lookup finds"
          : code == 5 ? "getdents lists y, only in Y (0744): Y may be read but not searched, "
                        "so lookup passes it over, and getdents lists only what lookup finds"
          : code == 6 ? "dup, in Y (0744) and in Z, is not Z's to the student"
          : code == 7 ? "getdents does not list dup once, as Z's: Y (0744, read but not "
                        "searched) and Z both have it, and a lookup finds Z's"
                      : "setuid");
    PASS();
}

static void student_looks(int *step)
{
    uint32_t ino;
    int total = 0;

    *step = 1;
    if (setgid(STUDENT) < 0 || setuid(STUDENT) < 0)
        return;
    *step = 2;
    if (strcmp(holds("/tmp/l8d/open"), "base") != 0)
        return;
    *step = 3;                          /* only in the closed member: ENOENT, passed over */
    if (walk(AT_CWD, "/tmp/l8d/secret", 0) >= 0 || errno != ENOENT)
        return;
    *step = 4;                          /* in a member after the closed one */
    if (strcmp(holds("/tmp/l8d/last"), "L") != 0)
        return;
    *step = 5;                          /* ...and listed: the closed one hides nothing */
    if (listed("/tmp/l8d", "last", &total, &ino) != 1)
        return;
    *step = 0;
}

/* A served filesystem (ramsrv, doc/srv.md) whose server is then killed:
 * every lookup in it fails with EIO. Its fd and the server's pid, or -1. */
static int dead_server_member(int *server)
{
    int fds[2], fs;

    if (chan(fds) < 0)
        return -1;
    fflush(stdout);
    if ((*server = fork()) == 0) {
        dup2(fds[1], 0);
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        keepstdio();
        execv("/bin/ramsrv", (char *const[]){ "ramsrv", NULL });
        _exit(127);
    }
    close(fds[1]);
    fs = *server > 0 ? fsopen("srv", fds[0], "") : -1;
    close(fds[0]);
    return fs;
}

/* A member whose lookup fails (its server died: EIO) is passed over
 * like one the caller may not search; it does not end the search. */
static const char *a_failing_member_is_passed_over(void)
{
    int srv, last, server = -1, status, total, fd;
    uint32_t ino;

    if (plain_dir("/tmp/l8h", "base", (const char *const[]){ "base", NULL }) < 0)
        return "setup";
    if ((srv = dead_server_member(&server)) < 0)
        return "setup: a served filesystem (ramsrv)";
    if ((last = member("L", (const char *const[]){ "last", NULL }, 0)) < 0 ||
        bind(srv, AT_CWD, "/tmp/l8h", BIND_AFTER) < 0 ||
        bind(last, AT_CWD, "/tmp/l8h", BIND_AFTER) < 0)
        return "setup: the union base, served, L";
    if (strcmp(holds("/tmp/l8h/last"), "L") != 0)
        return "/tmp/l8h/last not found while the server lived";
    kill(server, SIGKILL);
    waitpid(server, &status, 0);
    if (strcmp(holds("/tmp/l8h/last"), "L") != 0)
        return "/tmp/l8h/last not found once the served member's lookups fail with EIO: a "
               "member whose lookup fails is passed over";
    if (walk(AT_CWD, "/tmp/l8h/none", 0) >= 0 || errno != ENOENT)
        return "a name no member has is not ENOENT when one member's lookup fails";
    if (listed("/tmp/l8h", "last", &total, &ino) != 1)
        return "/tmp/l8h/last, found by lookup, is not listed once by getdents once the served "
               "member's lookups fail: a member whose lookup fails has no name, so it hides none";
    /* L unbound, the failing member is the last: a name no member has is still ENOENT */
    if ((fd = unbind(AT_CWD, "/tmp/l8h")) < 0)
        return "setup: unbind L";
    close(fd);
    if (strcmp(holds("/tmp/l8h/base"), "base") != 0)
        return "/tmp/l8h/base not found once L was unbound";
    if (walk(AT_CWD, "/tmp/l8h/none", 0) >= 0 || errno != ENOENT)
        return "a name no member has is not ENOENT when the last member's lookup fails (EIO): "
               "a failing member is passed over, so no member has it";
    return NULL;
}

static void a_member_the_caller_may_not_search_is_passed_over(void)
{
    int closed, last, step = -1;
    const char *why;

    CHECK(unshare() == 0, "unshare");
    CHECK(plain_dir("/tmp/l8d", "base", (const char *const[]){ "open", NULL }) == 0, "setup");
    CHECK((closed = member("S", (const char *const[]){ "secret", "last", NULL }, 0)) >= 0,
          "a member only root may search");
    CHECK(fchmod(closed, 0700) == 0, "chmod 0700");
    CHECK((last = member("L", (const char *const[]){ "last", NULL }, 0)) >= 0, "member L");
    CHECK(bind(closed, AT_CWD, "/tmp/l8d", BIND_AFTER) == 0, "bind -a S");
    CHECK(bind(last, AT_CWD, "/tmp/l8d", BIND_AFTER) == 0, "bind -a L");
    HOLDS("/tmp/l8d/secret", "S");              /* root may search it */
    HOLDS("/tmp/l8d/last", "S");
    CHECK(!(why = a_failing_member_is_passed_over()), "%s", why);
    student_looks(&step);
    CHECK(step == 0, "as the student, step %d: %s", step,
          step == 2 ? "/tmp/l8d/open not found"
          : step == 3
              ? "/tmp/l8d/secret, only in a member the student may not search, is not ENOENT"
          : step == 4 ? "/tmp/l8d/last not found in the member after the closed one"
          : step == 5 ? "/tmp/l8d/last, found by lookup, not listed once by getdents"
                      : "setuid");
    PASS();
}

static void a_name_is_reached_through_its_members_attachment(void)
{
    int a, sub, p;

    CHECK(unshare() == 0, "unshare");
    CHECK(plain_dir("/tmp/l8e", "base", (const char *const[]){ "base", NULL }) == 0, "setup");
    CHECK((a = member("A", (const char *const[]){ "a", NULL }, 1)) >= 0, "member A");
    CHECK(bind(a, AT_CWD, "/tmp/l8e", BIND_AFTER) == 0, "bind -a A");
    CHECK((sub = walk(AT_CWD, "/tmp/l8e/sub", 0)) >= 0, "walk into A's sub");
    CHECK((p = walk(sub, "../base", 0)) >= 0, ".. from A's sub must be the union: %s",
          strerror(errno));
    close(p);
    CHECK((p = walk(sub, "../a", 0)) >= 0, "and A's own names");
    close(p);
    CHECK(fchdir(sub) == 0 && (p = walk(AT_CWD, "../../l8e/base", 0)) >= 0,
          "and from a cwd in it, out and back in");
    close(p);
    PASS();
}

/* ------------------------------------------------------------ getdents */

static void getdents_lists_each_name_once(void)
{
    const char *names[] = { ".", "..", "base", "both", "a", "ab", "b", ".a", ".ab", "..a" };
    int a, b, total = 0, i, n;
    uint32_t ino;

    CHECK(unshare() == 0, "unshare");
    CHECK(plain_dir("/tmp/l8f", "base", (const char *const[]){ "base", "both", NULL }) == 0,
          "setup");
    /* names that start with a dot, or two, are names like any other: only . and .. are special */
    CHECK((a = member("A", (const char *const[]){ "a", "both", "ab", ".a", ".ab", "..a", NULL },
                      0)) >= 0,
          "A");
    CHECK((b = member("B", (const char *const[]){ "b", "both", "ab", ".ab", NULL }, 0)) >= 0, "B");
    CHECK(bind(a, AT_CWD, "/tmp/l8f", BIND_AFTER) == 0, "bind -a A");
    CHECK(bind(b, AT_CWD, "/tmp/l8f", BIND_AFTER) == 0, "bind -a B");
    HOLDS("/tmp/l8f/ab", "A");
    for (i = 0; i < (int)ARRAY_SIZE(names); i++) {
        n = listed("/tmp/l8f", names[i], &total, &ino);
        CHECK(n == 1, "'%s' listed %d times, want once", names[i], n);
    }
    CHECK(total == (int)ARRAY_SIZE(names), "%d entries, want %d", total, (int)ARRAY_SIZE(names));
    PASS();
}

static void getdents_lists_a_shared_name_from_the_first_member(void)
{
    struct stat st;
    int a, b, c, total, i;
    uint32_t ino = 0;
    unsigned before, after;

    CHECK(unshare() == 0, "unshare");
    CHECK(mkdir("/tmp/l8g", 0755) == 0, "setup");
    CHECK((a = member("A", (const char *const[]){ "shared", "later", NULL }, 0)) >= 0, "A");
    CHECK((b = member("B", (const char *const[]){ "x", "y", "shared", NULL }, 0)) >= 0, "B");
    CHECK((c = member("C", (const char *const[]){ "later", NULL }, 0)) >= 0, "C");
    CHECK(bind(a, AT_CWD, "/tmp/l8g", BIND_AFTER) == 0, "bind -a A");
    CHECK(bind(b, AT_CWD, "/tmp/l8g", BIND_BEFORE) == 0, "bind -b B");
    CHECK(bind(c, AT_CWD, "/tmp/l8g", BIND_AFTER) == 0, "bind -a C"); /* B, base, A, C */
    HOLDS("/tmp/l8g/shared", "B");
    CHECK(stat("/tmp/l8g/shared", &st) == 0, "stat");
    CHECK(listed("/tmp/l8g", "shared", &total, &ino) == 1, "listed once");
    CHECK(ino == st.st_ino, "listed with ino %u, but the name is B's, ino %u", (unsigned)ino,
          (unsigned)st.st_ino);
    /* hiding A's "shared" looked the name up in B, and hiding C's "later" looked it up in A
     * (a member after the first): each reference was dropped again, so B's shared and A's
     * later, once unlinked, give their pages back */
    CHECK(fill(b, "shared", 64) == 0 && fill(a, "later", 64) == 0, "fill B's shared, A's later");
    for (i = 0; i < 3; i++)
        CHECK(listed("/tmp/l8g", "shared", &total, &ino) == 1 &&
                  listed("/tmp/l8g", "later", &total, &ino) == 1,
              "listed once");
    CHECK(unlink_frees_64_pages(b, "shared", &before, &after),
          "%u free pages before B's 64-page shared was unlinked, %u after: the listings, "
          "which hid A's shared behind it, still hold it",
          before, after);
    CHECK(unlink_frees_64_pages(a, "later", &before, &after),
          "%u free pages before A's 64-page later was unlinked, %u after: the listings, "
          "which hid C's later behind it (A is the third member), still hold it",
          before, after);
    PASS();
}

static const struct lab_test tests[] = {
    LAB_TEST(lookup_finds_names_in_every_member),
    LAB_TEST(lookup_takes_the_first_member_that_has_the_name),
    LAB_TEST(a_member_is_searched_by_its_search_permission),
    LAB_TEST(a_member_the_caller_may_not_search_is_passed_over),
    LAB_TEST(a_name_is_reached_through_its_members_attachment),
    LAB_TEST(getdents_lists_each_name_once),
    LAB_TEST(getdents_lists_a_shared_name_from_the_first_member),
};

int main(int argc, char **argv)
{
    return lab_main("lab08", tests, ARRAY_SIZE(tests), argc, argv);
}
