/* ns - show the namespace as a tree. /proc/self/ns lists attachments in
 * tree order ("path fstype source [bind]", parents before children); an
 * attachment's parent is the nearest line above whose path contains it,
 * so a stack of open ancestors is enough to indent. */
#include <err.h>
#include <stdio.h>
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
    char stack[MAXDEPTH][128], line[256], *path, *rest, *save;
    int depth = 0;
    FILE *fp;

    if (argc > 1)
        usage("");
    if (!(fp = fopen("/proc/self/ns", "r")))
        err(1, "/proc/self/ns");
    while (fgets(line, sizeof(line), fp)) {
        line[strcspn(line, "\n")] = '\0';
        if (!(path = strtok_r(line, " ", &save)))
            continue;
        rest = strtok_r(NULL, "", &save);
        while (depth > 0 && !contains(stack[depth - 1], path))
            depth--;
        printf("%*s%-*s %s\n", 2 * depth, "", 20 - 2 * depth, path, rest ? rest : "");
        if (depth < MAXDEPTH)
            strlcpy(stack[depth++], path, sizeof(stack[0]));
    }
    fclose(fp);
    return 0;
}
