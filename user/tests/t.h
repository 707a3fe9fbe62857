/* t.h - the in-guest test helpers. A test function prints exactly one line:
 * "PASS name" or "FAIL name: why". tools/test.py collects them from the
 * serial console; the program ends with "<prog>: done". */
#ifndef USER_TESTS_T_H
#define USER_TESTS_T_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int t_failures;

#define CHECK(cond, ...) \
    do { \
        if (!(cond)) { \
            printf("FAIL %s: ", __func__); \
            printf(__VA_ARGS__); \
            printf(" (line %d, errno %d %s)\n", __LINE__, errno, strerror(errno)); \
            fflush(stdout); \
            t_failures++; \
            return; \
        } \
    } while (0)

/* A call that must fail with a given errno. */
#define CHECK_ERR(call, err) \
    do { \
        errno = 0; \
        int r_ = (call); \
        CHECK(r_ == -1 && errno == (err), "%s gave %d, errno %d (want -1, %s)", #call, r_, \
              errno, #err); \
    } while (0)

#define PASS() \
    do { \
        printf("PASS %s\n", __func__); \
        fflush(stdout); \
    } while (0)

#endif
