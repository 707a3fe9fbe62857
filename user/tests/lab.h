/* lab.h - the harness every graded lab test program runs under.
 *
 *     labNN [--graded TAG] [TEST...]
 *
 * runs the named tests (all of them, in table order, when none is named),
 * each in a child process of its own, so that a crash, an exit or a change
 * of root in one test cannot touch the next. Before each test it prints
 * "START name"; the test prints "PASS name" or "FAIL name: why" (t.h); a
 * child that dies without reporting is reported here; "DONE labNN" ends
 * the run. Typed at the shell (no --graded) the lines are just that.
 *
 * A graded run (tools/grade.py) signs them. TAG is a fresh public tag for
 * the boot; the secret is a 16-byte key that is in no argv, no command line
 * and no output: before any test the harness puts a console fd of its own
 * in raw (unechoed) mode, prints "TAG READY", and the grader types the key
 * as 32 hex digits. Every line after that is
 *
 *     TAG MAC START name     TAG MAC PASS name     TAG MAC FAIL name: why
 *
 * MAC being SipHash-2-4 under the key (siphash.h) of "TAG " and the rest
 * of the line, in 16 hex digits. The grader believes only lines whose MAC
 * holds, so printing result lines, or rewriting "FAIL" into "PASS" on the
 * way to the console (code in the kernel can), gains nothing: forging
 * needs the key, which only this process's memory holds (doc/instructors.md
 * says what that leaves open). The grader times each test from its START
 * line, and after a hang or a panic boots again with the tests not yet run.
 *
 * A test program lists its tests and hands them over:
 *
 *     static const struct lab_test tests[] = { LAB_TEST(a_test), ... };
 *     int main(int argc, char **argv) { return lab_main("lab01", tests,
 *                                           ARRAY_SIZE(tests),
 *                                           argc, argv); }
 */
#ifndef USER_TESTS_LAB_H
#define USER_TESTS_LAB_H

#include "siphash.h"
#include "t.h"
#include "array_size.h"

struct lab_test {
    const char *name;
    void (*fn)(void);
};

#define LAB_TEST(fn) { #fn, fn }

#define LAB_TAG_MAX 16                  /* the tag's hex digits, at most */

static char lab_tag[LAB_TAG_MAX + 1];   /* "" unless graded */
static unsigned char lab_key[16];

/* One signed line "TAG MAC body\n", written by a single write() so that
 * nothing else on the console can land inside it. */
static void lab_print_signed(const char *body)
{
    static const char digits[] = "0123456789abcdef";
    char text[1100], mac_hex[17], line[1200];
    uint64_t mac;
    uint32_t half;
    int i, n;

    snprintf(text, sizeof(text), "%s %s", lab_tag, body); /* what the MAC covers */
    mac = siphash24(lab_key, text, (uint32_t)strlen(text));
    for (i = 0; i < 16; i++) {
        half = (uint32_t)(i < 8 ? mac >> 32 : mac);
        mac_hex[i] = digits[(half >> (28 - 4 * (i % 8))) & 0xF];
    }
    mac_hex[16] = '\0';
    n = snprintf(line, sizeof(line), "%s %s %s\n", lab_tag, mac_hex, text + strlen(lab_tag) + 1);
    fflush(stdout);
    write(1, line, n);
}

static inline void lab_line(const char *what, const char *name)
{
    char body[128];

    snprintf(body, sizeof(body), "%s %s", what, name);
    fflush(stdout);
    if (t_print_line)
        t_print_line(body);
    else
        printf("%s\n", body);
    fflush(stdout);
}

static inline int lab_hex(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A graded run's start: take the tag, ask for the key on the console and
 * read it there, raw, through an fd of our own (fd 0 may be anything).
 * 0, or -1 with a message if something is missing. */
static inline int lab_graded(const char *tag)
{
    char hex[32];
    int path, fd, got = 0, n, i;

    for (i = 0; tag[i] && i < LAB_TAG_MAX && lab_hex(tag[i]) >= 0; i++)
        lab_tag[i] = tag[i];
    if (!i || tag[i]) {
        printf("lab: bad --graded tag %s\n", tag);
        return -1;
    }
    path = walk(AT_CWD, "/dev/console", 0);
    fd = path < 0 ? -1 : ready(path, R_READ);
    close(path);
    if (fd < 0 || fcntl(fd, F_SETTTY, TTY_RAW) < 0) {
        printf("lab: cannot read the grader's key on /dev/console (errno %d)\n", errno);
        return -1;
    }
    printf("%s READY\n", lab_tag);
    fflush(stdout);
    while (got < 32 && (n = read(fd, hex + got, 32 - got)) > 0)
        got += n;
    fcntl(fd, F_SETTTY, 0);
    close(fd);
    for (i = 0; i < 32 && got == 32 && lab_hex(hex[i]) >= 0; i++)
        lab_key[i / 2] = (unsigned char)(lab_key[i / 2] << 4 | lab_hex(hex[i]));
    for (n = 0; n < 32; n++)
        ((volatile char *)hex)[n] = 0;
    if (i != 32) {
        printf("lab: the grader's key did not arrive\n");
        return -1;
    }
    t_print_line = lab_print_signed;
    return 0;
}

/* One test in a child of its own; the parent reports a child that died
 * or left without a result. */
static inline void lab_run_one(const struct lab_test *t)
{
    char why[96];
    int pid, status;

    lab_line("START", t->name);
    if ((pid = fork()) == 0) {
        t_reported = 0;
        t->fn();
        if (!t_reported)
            t_report(t->name, "the test returned without a result (a bug in the test)");
        _exit(t_failures ? 1 : 0);
    }
    if (pid < 0) {
        t_report(t->name, "fork failed: cannot run the test");
        return;
    }
    if (waitpid(pid, &status, 0) != pid) {
        t_report(t->name, "lost the test's process");
        return;
    }
    if (WIFSIGNALED(status)) {
        snprintf(why, sizeof(why), "the test's process was killed by signal %d", WTERMSIG(status));
        t_report(t->name, why);
    } else if (WEXITSTATUS(status) > 1) {
        snprintf(why, sizeof(why), "the test's process exited with status %d before reporting",
                 WEXITSTATUS(status));
        t_report(t->name, why);
    } else if (WEXITSTATUS(status) == 1) {
        t_failures++;                   /* the child already said why */
    }
}

static inline int lab_main(const char *prog, const struct lab_test *tests, int ntests, int argc,
                           char **argv)
{
    int i = 1, j, named = 0;

    if (argc > 2 && strcmp(argv[1], "--graded") == 0) {
        if (lab_graded(argv[2]) < 0)
            return 2;
        i = 3;
    }
    for (; i < argc; i++) {
        named++;
        for (j = 0; j < ntests && strcmp(tests[j].name, argv[i]) != 0; j++)
            ;
        if (j == ntests) {
            lab_line("START", argv[i]);
            t_report(argv[i], "no such test in this program");
        } else {
            lab_run_one(&tests[j]);
        }
    }
    if (!named)
        for (j = 0; j < ntests; j++)
            lab_run_one(&tests[j]);
    lab_line("DONE", prog);
    printf("%s: done\n", prog);
    return t_failures != 0;
}

#endif
