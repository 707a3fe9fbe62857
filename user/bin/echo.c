/* echo - print the arguments, separated by spaces, then a newline
 * (not with -n). */
#include <stdio.h>
#include <string.h>

int main(int argc, char *argv[])
{
    int nflag = argc > 1 && strcmp(argv[1], "-n") == 0;
    int i;

    for (i = 1 + nflag; i < argc; i++) {
        fputs(argv[i], stdout);
        if (i + 1 < argc)
            putchar(' ');
    }
    if (!nflag)
        putchar('\n');
    return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
