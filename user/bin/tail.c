/* tail - print the last lines (10, or -n N) of files or standard input.
 * The last N lines read are kept in a ring; older ones drop out. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void tail(FILE *fp, long lines)
{
    char **ring, *line = NULL;
    size_t cap = 0;
    long count = 0, i;

    if (lines == 0)
        return;
    if (!(ring = calloc(lines, sizeof(char *))))
        err(1, "%ld lines", lines);
    while (getline(&line, &cap, fp) >= 0) {
        free(ring[count % lines]);
        if (!(ring[count % lines] = strdup(line)))
            err(1, "line %ld", count + 1);
        count++;
    }
    for (i = count > lines ? count - lines : 0; i < count; i++)
        fputs(ring[i % lines], stdout);
    for (i = 0; i < lines; i++)
        free(ring[i]);
    free(ring);
    free(line);
}

int main(int argc, char *argv[])
{
    return filter_lines(argc, argv, tail);
}
