/* head - print the first lines (10, or -n N) or the first N bytes (-c N)
 * of files or standard input, with a "==> name <==" header per file when
 * there are several. It stops reading as soon as it has printed enough:
 * a writer still feeding it through a pipe then gets EPIPE and ends
 * quietly (doc/decisions.md). */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void head(FILE *fp, long n, int bytes)
{
    int c;

    while (n > 0 && (c = fgetc(fp)) != EOF) {
        putchar(c);
        if (bytes || c == '\n')
            n--;
    }
}

int main(int argc, char *argv[])
{
    return filter_lines(argc, argv, head);
}
