/* tail - print the last lines (10, or -n N) or the last N bytes (-c N) of
 * files or standard input. The last N lines (or bytes) read are kept in a
 * ring; older ones drop out. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void tail_bytes(FILE *fp, long n)
{
    char *ring;
    long count = 0, i;
    int c;

    if (n == 0)
        return;
    if (!(ring = malloc(n)))
        err(1, "%ld bytes", n);
    while ((c = fgetc(fp)) != EOF)
        ring[count++ % n] = (char)c;
    for (i = count > n ? count - n : 0; i < count; i++)
        putchar(ring[i % n]);
    free(ring);
}

static void tail(FILE *fp, long n, int bytes)
{
    char **ring, *line = NULL;
    size_t cap = 0;
    long count = 0, i;

    if (bytes) {
        tail_bytes(fp, n);
        return;
    }
    if (n == 0)
        return;
    if (!(ring = calloc(n, sizeof(char *))))
        err(1, "%ld lines", n);
    while (getline(&line, &cap, fp) >= 0) {
        free(ring[count % n]);
        if (!(ring[count % n] = strdup(line)))
            err(1, "line %ld", count + 1);
        count++;
    }
    for (i = count > n ? count - n : 0; i < count; i++)
        fputs(ring[i % n], stdout);
    for (i = 0; i < n; i++)
        free(ring[i]);
    free(ring);
    free(line);
}

int main(int argc, char *argv[])
{
    return filter_lines(argc, argv, tail);
}
