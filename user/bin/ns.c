/* ns - show the namespace as a tree. /proc/self/ns lists attachments in
 * tree order ("path fstype source [bind]", parents before children); an
 * attachment's parent is the nearest line above whose path contains it,
 * so a stack of open ancestors is enough to indent. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXDEPTH 32

/* Is path at or below dir? ("/" contains everything.) */
static int contains(const char *dir, const char *path)
{
    size_t n = strlen(dir);

    if (strcmp(dir, "/") == 0)
        return 1;
    return strncmp(dir, path, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

int main(int argc, char *argv[])
{
    char *stack[MAXDEPTH], *line = NULL, *path, *rest, *save;
    size_t cap = 0;
    int depth = 0;
    FILE *fp;

    if (argc > 1)
        usage("");
    if (!(fp = fopen("/proc/self/ns", "r")))
        err(1, "/proc/self/ns");
    while (getline(&line, &cap, fp) >= 0) {     /* lines of any length */
        line[strcspn(line, "\n")] = '\0';
        if (!(path = strtok_r(line, " ", &save)))
            continue;
        rest = strtok_r(NULL, "", &save);
        while (depth > 0 && !contains(stack[depth - 1], path))
            free(stack[--depth]);
        printf("%*s%-*s %s\n", 2 * depth, "", 20 - 2 * depth, path, rest ? rest : "");
        if (depth < MAXDEPTH && !(stack[depth++] = strdup(path)))
            err(1, "out of memory");
    }
    if (ferror(fp))
        err(1, "/proc/self/ns");
    fclose(fp);
    return 0;
}
