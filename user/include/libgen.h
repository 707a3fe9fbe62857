/* libgen.h - taking paths apart. */
#ifndef _LIBGEN_H
#define _LIBGEN_H

char *basename(char *path);     /* the last component; may trim trailing '/' in path */

#endif
