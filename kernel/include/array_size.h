/* array_size.h - ARRAY_SIZE(a): how many elements the array a holds. One
 * definition for the kernel, the C library, its programs and every test
 * (libc's NELEM was a second); kernel/include/ is the one folder all of
 * them see. Give it an array, never a pointer. */
#ifndef ARRAY_SIZE_H
#define ARRAY_SIZE_H

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
