/* grep - print the lines that match a pattern. The pattern is a fixed
 * string or a small regular expression: ^ and $ anchor, . is any
 * character, x* is any number of x, and \ makes the next character plain.
 * -v selects lines that do not match, -c counts them, -n numbers them.
 * Exit status: 0 if a line was selected, 1 if none, 2 on error. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int vflag, cflag, nflag;

/* An atom is one character of the pattern, or two for "\x". */
static int atom_len(const char *re)
{
    return re[0] == '\\' && re[1] ? 2 : 1;
}

static int atom_matches(const char *re, char c)
{
    if (c == '\0')
        return 0;
    if (re[0] == '\\' && re[1])
        return re[1] == c;
    return re[0] == '.' || re[0] == c;
}

/* Does re match a prefix of s? */
static int match_here(const char *re, const char *s)
{
    int n;

    if (re[0] == '\0')
        return 1;
    if (re[0] == '$' && re[1] == '\0')
        return *s == '\0';
    n = atom_len(re);
    if (re[n] == '*') {
        /* Zero copies of the atom, then one more each time round. */
        do {
            if (match_here(re + n + 1, s))
                return 1;
        } while (atom_matches(re, *s++));
        return 0;
    }
    return atom_matches(re, *s) && match_here(re + n, s + 1);
}

/* Does re match anywhere in s? */
static int match(const char *re, const char *s)
{
    if (re[0] == '^')
        return match_here(re + 1, s);
    do {
        if (match_here(re, s))
            return 1;
    } while (*s++);
    return 0;
}

/* Returns how many lines were selected, or -1 if reading failed (a
 * directory: getline ends there as at the end of a file). Each output
 * line starts with "name:" if prefix is set. */
static int grep(const char *re, FILE *fp, const char *name, int prefix)
{
    char *line = NULL;
    size_t cap = 0;
    int len, lineno = 0, count = 0;

    while ((len = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        if (len > 0 && line[len - 1] == '\n')
            line[len - 1] = '\0';
        if (match(re, line) == vflag)
            continue;
        count++;
        if (cflag)
            continue;
        if (prefix)
            printf("%s:", name);
        if (nflag)
            printf("%d:", lineno);
        printf("%s\n", line);
    }
    free(line);
    if (cflag) {
        if (prefix)
            printf("%s:", name);
        printf("%d\n", count);
    }
    if (ferror(fp)) {
        warn("%s", name);
        return -1;
    }
    return count;
}

int main(int argc, char *argv[])
{
    int c, i, n, found = 0, status = 0, many;
    const char *re;
    FILE *fp;

    while ((c = getopt(argc, argv, "vcn")) != -1) {
        if (c == 'v')
            vflag = 1;
        else if (c == 'c')
            cflag = 1;
        else if (c == 'n')
            nflag = 1;
        else
            usage("[-vcn] pattern [file ...]");
    }
    if (optind == argc)
        usage("[-vcn] pattern [file ...]");
    re = argv[optind++];
    if (optind == argc)
        return (n = grep(re, stdin, "stdin", 0)) < 0 ? 2 : n ? 0 : 1;
    many = argc - optind > 1;
    for (i = optind; i < argc; i++) {
        if (!(fp = fopen(argv[i], "r"))) {
            warn("%s", argv[i]);
            status = 2;
            continue;
        }
        if ((n = grep(re, fp, argv[i], many)) < 0)
            status = 2;
        else
            found += n;
        fclose(fp);
    }
    return status ? status : found ? 0 : 1;
}
