/* lines.c - the command line shared by head and tail: `[-n N] [file ...]`,
 * each file (or standard input) handed to a filter with N, and a
 * "==> name <==" header per file when there are several. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int filter_lines(int argc, char *argv[], void (*filter)(FILE *fp, long lines))
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
        filter(stdin, lines);
    for (i = optind; i < argc; i++) {
        if (!(fp = fopen(argv[i], "r"))) {
            warn("%s", argv[i]);
            status = 1;
            continue;
        }
        if (argc - optind > 1)
            printf("%s==> %s <==\n", i > optind ? "\n" : "", argv[i]);
        filter(fp, lines);
        fclose(fp);
    }
    return status;
}
