/* lab.h - the harness every graded lab test program runs under.
 *
 *     labNN [--key KEY] [TEST...]
 *
 * runs the named tests (all of them, in table order, when none is named),
 * each in a child process of its own, so that a crash, an exit or a change
 * of root in one test cannot touch the next. Before each test it prints
 * "KEY START name"; the test prints "KEY PASS name" or "KEY FAIL name: why"
 * (t.h); a child that dies without reporting is reported here. The grader
 * (tools/grade.py) passes a fresh secret KEY on every run and believes only
 * lines that carry it, times each test from its START line, and after a
 * hang or a panic boots again with the tests that had not run. Without
 * --key (a student typing `lab01` at the shell) the lines have no prefix.
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

#include "t.h"
#include "array_size.h"

struct lab_test {
    const char *name;
    void (*fn)(void);
};

#define LAB_TEST(fn) { #fn, fn }

static inline void lab_line(const char *what, const char *name)
{
    fflush(stdout);
    printf("%s%s%s %s\n", t_key, *t_key ? " " : "", what, name);
    fflush(stdout);
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
    int i, j, named = 0;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--key") == 0 && i + 1 < argc) {
            t_key = argv[++i];
            continue;
        }
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
