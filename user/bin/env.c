/* env - print the environment, or run a command with NAME=value settings
 * added to it: env [NAME=value ...] [command [arg ...]]. */
#include <err.h>
#include <orthos.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    char **e, *eq;
    int i;

    for (i = 1; i < argc && (eq = strchr(argv[i], '=')); i++) {
        *eq = '\0';
        if (setenv(argv[i], eq + 1, 1) < 0)
            err(1, "%s", argv[i]);
    }
    if (i < argc) {
        keepstdio();
        execvp(argv[i], argv + i);
        err(127, "%s", argv[i]);
    }
    for (e = environ; e && *e; e++)
        puts(*e);
    return 0;
}
