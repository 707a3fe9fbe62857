/* check.h - the host unit tests' harness: CHECK() and PASS() come from
 * the one assertion header (kernel/include/check.h); here a report is a
 * line on stdout, "FAIL <test>: <why> (<file>:<line>)" or "PASS <test>".
 * tools/test.py runs each binary and collects the lines. Kernel sources
 * are #included directly, with their libc-clashing names (memcpy,
 * snprintf, ...) renamed by kstring.h first. */
#ifndef HOSTTEST_CHECK_H
#define HOSTTEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include "include/check.h"

static int check_failures;

void check_fail(const char *file, const char *test, int line, int saved, const char *fmt, ...)
{
    va_list ap;

    (void)saved;
    printf("FAIL %s: ", test);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf(" (%s:%d)\n", file, line);
    check_failures++;
}

void check_pass(const char *test)
{
    printf("PASS %s\n", test);
}

#endif
