/* uapi/version.h - the system's name and release: one definition for the
 * kernel's boot banner (kernel/main.c) and uname(1). */
#ifndef UAPI_VERSION_H
#define UAPI_VERSION_H

#define ORTHOS_SYSNAME "Orthos"
#define ORTHOS_VERSION "0.1"
#define ORTHOS_MACHINE "i686"      /* what the tree is compiled for (-march=i686) */

#endif
