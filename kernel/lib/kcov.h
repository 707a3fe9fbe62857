/* kcov.h - the coverage recorder of `make coverage` (doc/coverage.md).
 * In that build every basic block of the kernel calls
 * __sanitizer_cov_trace_pc(); kcov.c remembers which blocks ran. In the
 * ordinary build there is no recorder and kcov_end() is nothing. */
#ifndef LIB_KCOV_H
#define LIB_KCOV_H

#ifdef KCOV
/* The last word on the coverage line before the machine goes off. */
void kcov_end(int code);
#else
static inline void kcov_end(int code)
{
    (void)code;
}
#endif

#endif
