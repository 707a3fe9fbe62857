/* ps - list processes. There is no process-listing system call: /proc
 * has a directory per live pid, and each one's status file holds lines
 * "pid N", "ppid N", "name X", "state X", "pages N". */
#include <ctype.h>
#include <dirent.h>
#include <err.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "array_size.h"

struct status {
    char pid[12], ppid[12], name[32], state[16], pages[12];
};

static int is_pid(const struct dirent *e)
{
    return isdigit((unsigned char)e->d_name[0]);
}

static int by_pid(const struct dirent **a, const struct dirent **b)
{
    return atoi((*a)->d_name) - atoi((*b)->d_name);
}

/* Fill st from /proc/<pid>/status; -1 if the process has gone. */
static int read_status(const char *pid, struct status *st)
{
    static const struct {
        const char *key;
        size_t offset, size;
    } fields[] = {
        { "pid", offsetof(struct status, pid), sizeof(st->pid) },
        { "ppid", offsetof(struct status, ppid), sizeof(st->ppid) },
        { "name", offsetof(struct status, name), sizeof(st->name) },
        { "state", offsetof(struct status, state), sizeof(st->state) },
        { "pages", offsetof(struct status, pages), sizeof(st->pages) },
    };
    char path[64], line[80], *value;
    size_t i;
    FILE *fp;

    snprintf(path, sizeof(path), "/proc/%s/status", pid);
    if (!(fp = fopen(path, "r")))
        return -1;
    memset(st, 0, sizeof(*st));
    while (fgets(line, sizeof(line), fp)) {
        line[strcspn(line, "\n")] = '\0';
        if (!(value = strchr(line, ' ')))
            continue;
        *value++ = '\0';
        for (i = 0; i < ARRAY_SIZE(fields); i++)
            if (strcmp(line, fields[i].key) == 0)
                strlcpy((char *)st + fields[i].offset, value, fields[i].size);
    }
    fclose(fp);
    return 0;
}

int main(int argc, char *argv[])
{
    struct dirent **pids;
    struct status st;
    int n, i;

    if (argc > 1)
        usage("");
    if ((n = scandir("/proc", &pids, is_pid, by_pid)) < 0)
        err(1, "/proc");
    printf("%5s %5s %-9s %5s %s\n", "PID", "PPID", "STATE", "PAGES", "NAME");
    for (i = 0; i < n; i++) {
        if (read_status(pids[i]->d_name, &st) == 0)
            printf("%5s %5s %-9s %5s %s\n", st.pid, st.ppid, st.state, st.pages, st.name);
        free(pids[i]);
    }
    free(pids);
    return 0;
}
