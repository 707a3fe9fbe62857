/* kill - send a signal (TERM unless -SIG says otherwise: a number, or a
 * name with or without "SIG") to processes, or with a negative pid to a
 * process group; "--" ends the options (kill -- -5 is group 5 and TERM).
 * Orthos signals always kill; the number is what wait() reports. */
#include <ctype.h>
#include <err.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "array_size.h"

static const struct {
    const char *name;
    int sig;
} names[] = {
    { "INT", SIGINT },   { "ILL", SIGILL },   { "TRAP", SIGTRAP }, { "FPE", SIGFPE },
    { "KILL", SIGKILL }, { "SEGV", SIGSEGV }, { "TERM", SIGTERM },
};

/* "9", "KILL" or "SIGKILL" -> 9; -1 if it is none of those. */
static int parse_signal(const char *s)
{
    char *end;
    long n;
    size_t i;

    if (isdigit((unsigned char)*s)) {
        n = strtol(s, &end, 10);
        return *end || n <= 0 || n >= NSIG ? -1 : (int)n;
    }
    if (strncmp(s, "SIG", 3) == 0)
        s += 3;
    for (i = 0; i < ARRAY_SIZE(names); i++)
        if (strcmp(s, names[i].name) == 0)
            return names[i].sig;
    return -1;
}

int main(int argc, char *argv[])
{
    int i = 1, sig = SIGTERM, status = 0;
    char *end;
    long pid;

    if (i < argc && argv[i][0] == '-' && strcmp(argv[i], "--") != 0) {
        if ((sig = parse_signal(argv[i] + 1)) < 0)
            errx(2, "%s: unknown signal", argv[i] + 1);
        i++;
    }
    if (i < argc && strcmp(argv[i], "--") == 0)
        i++;
    if (i == argc)
        usage("[-signal] [--] pid ...");
    for (; i < argc; i++) {
        pid = strtol(argv[i], &end, 10);
        if (*end || end == argv[i]) {
            warnx("%s: not a pid", argv[i]);
            status = 1;
        } else if (kill((int)pid, sig) < 0) {
            warn("%s", argv[i]);
            status = 1;
        }
    }
    return status;
}
