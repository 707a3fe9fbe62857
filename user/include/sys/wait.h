/* sys/wait.h - waiting for children. WNOHANG and the status macros
 * (WIFEXITED, ...) are the kernel's, from uapi/proc.h. */
#ifndef _SYS_WAIT_H
#define _SYS_WAIT_H

#include "uapi/proc.h"

int wait(int *status);
int waitpid(int pid, int *status, int options);

#endif
