/* tail - print the last lines (10, or -n N) or the last N bytes (-c N) of
 * files or standard input. The last N lines (or bytes) read are kept in a
 * ring; older ones drop out. The ring grows as the input does, up to N,
 * so a large N (tail -n 1000000 of a short file) asks for little memory. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Room in the ring (*size items of item bytes) for item number count, of
 * at most n kept: it doubles while it is smaller than n and full. Until
 * it is n long nothing has wrapped, so the items stay in order; the new
 * part is zeroed (no line yet: text NULL). */
static void *grow(void *ring, long *size, long count, long n, size_t item, const char *what)
{
    long bigger;
    char *r;

    if (count < *size || *size == n)
        return ring;
    bigger = *size == 0 ? (n < 64 ? n : 64) : *size > n / 2 ? n : 2 * *size;
    if (!(r = realloc(ring, bigger * item)))
        err(1, "%ld %s", bigger, what);
    memset(r + *size * item, 0, (bigger - *size) * item);
    *size = bigger;
    return r;
}

static void tail_bytes(FILE *fp, long n)
{
    char *ring = NULL;
    long size = 0, count = 0, i;
    int c;

    if (n == 0)
        return;
    while ((c = fgetc(fp)) != EOF) {
        ring = grow(ring, &size, count, n, 1, "bytes");
        ring[count++ % size] = (char)c;
    }
    for (i = count > n ? count - n : 0; i < count; i++)
        putchar(ring[i % size]);
    free(ring);
}

/* A line as getline read it: it may hold NUL bytes (a binary file), so
 * it is kept and written with its length, never as a C string. */
struct line {
    char *text;
    int len;
};

static void tail(FILE *fp, long n, int bytes)
{
    struct line *ring = NULL, *slot;
    char *line = NULL;
    size_t cap = 0;
    long size = 0, count = 0, i;
    int len;

    if (bytes) {
        tail_bytes(fp, n);
        return;
    }
    if (n == 0)
        return;
    while ((len = getline(&line, &cap, fp)) >= 0) {
        ring = grow(ring, &size, count, n, sizeof(*ring), "lines");
        slot = &ring[count++ % size];
        free(slot->text);
        if (!(slot->text = malloc(len)))
            err(1, "line %ld", count);
        memcpy(slot->text, line, len);
        slot->len = len;
    }
    for (i = count > n ? count - n : 0; i < count; i++)
        fwrite(ring[i % size].text, 1, ring[i % size].len, stdout);
    for (i = 0; i < size; i++)
        free(ring[i].text);
    free(ring);
    free(line);
}

int main(int argc, char *argv[])
{
    return filter_lines(argc, argv, tail);
}
