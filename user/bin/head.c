/* head - print the first lines (10, or -n N) of files or standard input,
 * with a "==> name <==" header per file when there are several. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void head(FILE *fp, long lines)
{
    int c;

    while (lines > 0 && (c = fgetc(fp)) != EOF) {
        putchar(c);
        if (c == '\n')
            lines--;
    }
}

int main(int argc, char *argv[])
{
    return filter_lines(argc, argv, head);
}
