/* lines.c - the command line shared by head and tail: `[-n N | -c N]
 * [file ...]`, each file (or standard input) handed to a filter with N
 * lines (-n, 10 by default) or N bytes (-c), and a "==> name <==" header
 * per file when there are several. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define SYNOPSIS "[-n lines | -c bytes] [file ...]"

/* A read that failed (a directory: EISDIR) ends the filter as the end of
 * the file would; it must still be reported, and count in the status. */
static int read_failed(FILE *fp, const char *name)
{
    if (!ferror(fp))
        return 0;
    warn("%s", name);
    return 1;
}

int filter_lines(int argc, char *argv[], void (*filter)(FILE *fp, long n, int bytes))
{
    long n = 10;
    int c, i, bytes = 0, status = 0, shown = 0;
    char *end;
    FILE *fp;

    while ((c = getopt(argc, argv, "n:c:")) != -1) {
        if (c != 'n' && c != 'c')
            usage(SYNOPSIS);
        bytes = c == 'c';
        n = strtol(optarg, &end, 10);
        if (*end || end == optarg || n < 0)
            usage(SYNOPSIS);
    }
    if (optind == argc) {
        filter(stdin, n, bytes);
        status = read_failed(stdin, "stdin");
    }
    for (i = optind; i < argc; i++) {
        if (!(fp = fopen(argv[i], "r"))) {
            warn("%s", argv[i]);
            status = 1;
            continue;
        }
        if (argc - optind > 1)          /* a blank line between headers, not before the first */
            printf("%s==> %s <==\n", shown++ ? "\n" : "", argv[i]);
        filter(fp, n, bytes);
        status |= read_failed(fp, argv[i]);
        fclose(fp);
    }
    return status;
}
