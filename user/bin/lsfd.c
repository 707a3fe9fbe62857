/* lsfd - show a process's open descriptors (itself by default) from
 * /proc/<pid>/fd, whose lines are "fd kind access [keep] [nonblock]":
 * kind is what the fd refers to, access is path (walked, not readied),
 * r, w or rw, and keep means it survives exec. */
#include <err.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char *argv[])
{
    char path[64], line[128], *fd, *kind, *access, *flags, *save;
    FILE *fp;

    if (argc > 2)
        usage("[pid]");
    snprintf(path, sizeof(path), "/proc/%s/fd", argc == 2 ? argv[1] : "self");
    if (!(fp = fopen(path, "r")))
        err(1, "%s", path);
    printf("%-4s %-5s %-6s %s\n", "FD", "KIND", "ACCESS", "FLAGS");
    while (fgets(line, sizeof(line), fp)) {
        line[strcspn(line, "\n")] = '\0';
        fd = strtok_r(line, " ", &save);
        kind = strtok_r(NULL, " ", &save);
        access = strtok_r(NULL, " ", &save);
        flags = strtok_r(NULL, "", &save);
        if (fd && kind && access)
            printf("%-4s %-5s %-6s %s\n", fd, kind, access, flags ? flags : "");
    }
    fclose(fp);
    return 0;
}
