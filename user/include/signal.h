/* signal.h - signals. Orthos signals cannot be caught or ignored: they
 * kill, and wait() says which one did. Numbers from uapi/proc.h. */
#ifndef _SIGNAL_H
#define _SIGNAL_H

#include "uapi/proc.h"

int kill(int pid, int sig);

#endif
