/* getopt.c - POSIX command-line options: "-l -a", "-la", "-n 5", "-n5",
 * ending at the first non-option or at "--". Programs loop on it, then
 * find their operands at argv[optind]. */
#include <err.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

char *optarg;
int optind = 1, opterr = 1, optopt;
static int optpos = 1;                  /* the next letter in argv[optind] */

static void next_word(void)
{
    optind++;
    optpos = 1;
}

int getopt(int argc, char *const argv[], const char *opts)
{
    const char *word, *spec;

    if (optpos == 1) {
        if (optind >= argc || argv[optind][0] != '-' || argv[optind][1] == '\0')
            return -1;
        if (strcmp(argv[optind], "--") == 0) {
            optind++;
            return -1;
        }
    }
    word = argv[optind];
    optopt = word[optpos++];
    spec = optopt == ':' ? NULL : strchr(opts, optopt);
    if (!spec) {
        if (opterr && opts[0] != ':')
            fprintf(stderr, "%s: unknown option -%c\n", progname, optopt);
        if (word[optpos] == '\0')
            next_word();
        return '?';
    }
    if (spec[1] != ':') {
        if (word[optpos] == '\0')
            next_word();
        return optopt;
    }
    if (word[optpos] != '\0')           /* "-n5" */
        optarg = (char *)word + optpos;
    else if (optind + 1 < argc)         /* "-n 5" */
        optarg = argv[++optind];
    else {
        if (opterr && opts[0] != ':')
            fprintf(stderr, "%s: option -%c needs an argument\n", progname, optopt);
        next_word();
        return opts[0] == ':' ? ':' : '?';
    }
    next_word();
    return optopt;
}
