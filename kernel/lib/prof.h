/* prof.h - the sampling profiler (boot argument `prof`, /proc/prof). */
#ifndef LIB_PROF_H
#define LIB_PROF_H

#include <stddef.h>

void prof_init(void);
int prof_enabled(void);
int prof_format(char *buf, size_t size);

#endif
