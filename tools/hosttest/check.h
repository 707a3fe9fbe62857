/* check.h - the host unit tests' whole framework: CHECK() prints
 * "FAIL <test>: <why>" and returns from the test function; PASS() prints
 * "PASS <test>". tools/test.py runs each binary and collects the lines.
 * Kernel sources are #included directly, with their libc-clashing names
 * (memcpy, snprintf, ...) renamed by kstring.h first. */
#ifndef HOSTTEST_CHECK_H
#define HOSTTEST_CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK(cond, ...) \
    do { \
        if (!(cond)) { \
            printf("FAIL %s: ", __func__); \
            printf(__VA_ARGS__); \
            printf(" (%s:%d)\n", __FILE__, __LINE__); \
            check_failures++; \
            return; \
        } \
    } while (0)

#define PASS() printf("PASS %s\n", __func__)

#endif
