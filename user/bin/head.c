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
    long lines = 10;
    int c, i, status = 0;
    char *end;
    FILE *fp;

    while ((c = getopt(argc, argv, "n:")) != -1) {
        if (c != 'n')
            usage("[-n lines] [file ...]");
        lines = strtol(optarg, &end, 10);
        if (*end || end == optarg || lines < 0)
            usage("[-n lines] [file ...]");
    }
    if (optind == argc)
        head(stdin, lines);
    for (i = optind; i < argc; i++) {
        if (!(fp = fopen(argv[i], "r"))) {
            warn("%s", argv[i]);
            status = 1;
            continue;
        }
        if (argc - optind > 1)
            printf("%s==> %s <==\n", i > optind ? "\n" : "", argv[i]);
        head(fp, lines);
        fclose(fp);
    }
    return status;
}
