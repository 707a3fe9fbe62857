/* t_expect.h - a checked failure under a manual page's name, for the
 * programs that make the errors the manual lists (t_errno.c, e2man.c):
 * EXPECT(page, EXXX, what, call) must see `call` return -1 with errno
 * EXXX, reported as page_EXXX_what; tools/test.py's docs check counts
 * them as that page's errno made to happen. Include after t.h. */
#ifndef USER_TESTS_T_EXPECT_H
#define USER_TESTS_T_EXPECT_H

#include "t.h"

#define EXPECT(page, err, what, call) \
    do { \
        errno = 0; \
        int r_ = (int)(call); \
        expect_(#page "_" #err "_" #what, r_ == -1, r_, errno, err, #call); \
    } while (0)

/* The same for a call that returns a pointer: NULL (or (void *)-1: sbrk). */
#define EXPECT_NULL(page, err, what, call) \
    do { \
        errno = 0; \
        void *p_ = (void *)(call); \
        expect_(#page "_" #err "_" #what, p_ == NULL || p_ == (void *)-1, (int)p_, errno, err, \
                #call); \
    } while (0)

static void __attribute__((unused)) expect_(const char *name, int failed, int r, int got, int want,
                                            const char *call)
{
    char why[300];

    if (failed && got == want) {
        t_report(name, NULL);
        return;
    }
    snprintf(why, sizeof(why), "%s gave %d, errno %d (%s); want -1, %d (%s)", call, r, got,
             strerror(got), want, strerror(want));
    t_report(name, why);
}

#endif
