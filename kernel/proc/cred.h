/* cred.h - who a process acts for (cred.c): the rules about processes.
 * The rules about files and namespaces live in the VFS (fs/perm.c). */
#ifndef PROC_CRED_H
#define PROC_CRED_H

int cred_may_signal(int pid);           /* kill(pid > 0): 0, -EPERM or -ESRCH */
int cred_may_signal_group(int pgid);    /* kill(-pgid): 0 or -EPERM */
int cred_may_name_group(int pgid);      /* tcsetpgrp, setpgid: 0 or -EPERM */

#endif
