/* check.h - the one assertion header of Orthos's three test harnesses:
 * the host unit tests (tools/hosttest/check.h), the in-kernel tests
 * (kernel/test/ktest.c) and the guest programs (user/tests/t.h). A test
 * is a function that reports exactly once: CHECK(cond, fmt, ...) reports
 * "FAIL <test>: <why>" and returns when cond is false; PASS() reports
 * "PASS <test>" at its end. tools/test.py collects the lines.
 *
 * Where a report goes and what it adds is the harness's: it defines
 *     void check_fail(const char *file, const char *test, int line, int saved,
 *                     const char *fmt, ...);
 *     void check_pass(const char *test);
 * and may define CHECK_SAVED, an expression evaluated before the message's
 * arguments and handed over as `saved` (the guest saves errno, which
 * formatting the message could change), before including this header. */
#ifndef CHECK_H
#define CHECK_H

#ifndef CHECK_SAVED
#define CHECK_SAVED 0
#endif

void check_fail(const char *file, const char *test, int line, int saved, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void check_pass(const char *test);

#define CHECK(cond, ...) \
    do { \
        if (!(cond)) { \
            int check_saved_ = CHECK_SAVED; \
            check_fail(__FILE__, __func__, __LINE__, check_saved_, __VA_ARGS__); \
            return; \
        } \
    } while (0)

#define PASS() check_pass(__func__)

#endif
