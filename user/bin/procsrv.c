/* procsrv - a file server whose files are computed when they are read,
 * as /proc's are: `uptime` (seconds since boot) and `ps` (a line per
 * process: pid, state, name, from /proc). Read-only. Serves the channel
 * end on fd 0: `srvmount /tmp/p procsrv; cat /tmp/p/ps`. */
#include <ctype.h>
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <orthos.h>
#include <srv.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define TEXT_MAX 4096

enum { ROOT, UPTIME, PS, NNODES };
static const char *const names[NNODES] = { "/", "uptime", "ps" };
static int nodes[NNODES] = { ROOT, UPTIME, PS }; /* a node is a pointer to its number */

/* Append the value of `key` in /proc/<pid>/status to buf. */
static int status_field(const char *pid, const char *key, char *out, size_t size)
{
    char path[64], text[256], *p, *end;
    int fd, n;

    snprintf(path, sizeof(path), "/proc/%s/status", pid);
    if ((fd = open(path, O_RDONLY)) < 0)
        return -1;
    n = read(fd, text, sizeof(text) - 1);
    close(fd);
    text[n > 0 ? n : 0] = '\0';
    for (p = text; (p = strstr(p, key)); p++) {
        if ((p == text || p[-1] == '\n') && p[strlen(key)] == ' ') {
            p += strlen(key) + 1;
            end = strchr(p, '\n');
            n = end ? end - p : (int)strlen(p);
            snprintf(out, size, "%.*s", n, p);
            return 0;
        }
    }
    return -1;
}

/* The file's contents now: its length. */
static int contents(int node, char *buf)
{
    char state[16], name[32];
    struct dirent *e;
    int n = 0;
    DIR *d;

    if (node == UPTIME) {
        unsigned ms = uptime_ms();
        return snprintf(buf, TEXT_MAX, "%u.%02u\n", ms / 1000, ms % 1000 / 10);
    }
    n = snprintf(buf, TEXT_MAX, "  PID STATE     NAME\n");
    if (!(d = opendir("/proc")))
        return n;
    while ((e = readdir(d)) && n < TEXT_MAX - 64) {
        if (!isdigit((unsigned char)e->d_name[0]) ||
            status_field(e->d_name, "state", state, sizeof(state)) < 0 ||
            status_field(e->d_name, "name", name, sizeof(name)) < 0)
            continue;
        n += snprintf(buf + n, TEXT_MAX - n, "%5s %-9s %s\n", e->d_name, state, name);
    }
    closedir(d);
    return n;
}

static int p_stat(void *node, struct srv_stat *st)
{
    int n = *(int *)node;
    char buf[TEXT_MAX];

    st->mode = n == ROOT ? S_IFDIR | 0555 : S_IFREG | 0444;
    st->ino = n + 1;
    st->size = n == ROOT ? 0 : contents(n, buf);
    st->mtime = 0;
    return 0;
}

static int p_walk(void *dir, const char *name, void **child)
{
    int i;

    (void)dir;
    if (strcmp(name, "..") == 0) {
        *child = &nodes[ROOT];
        return 0;
    }
    for (i = UPTIME; i < NNODES; i++) {
        if (strcmp(name, names[i]) == 0) {
            *child = &nodes[i];
            return 0;
        }
    }
    return -ENOENT;
}

static int p_read(void *node, uint32_t off, char *buf, uint32_t n)
{
    static char text[TEXT_MAX];
    int len;

    if (*(int *)node == ROOT)
        return -EISDIR;
    len = contents(*(int *)node, text);
    if (off >= (uint32_t)len)
        return 0;
    if (n > len - off)
        n = len - off;
    memcpy(buf, text + off, n);
    return n;
}

static int p_readdir(void *dir, uint32_t index, struct srv_dirent *e)
{
    (void)dir;
    if (index + 1 >= NNODES)
        return 0;
    e->ino = index + 2;
    e->type = DT_REG;
    strcpy(e->name, names[index + 1]);
    return 1;
}

static int p_readonly(void *dir, const char *name)
{
    (void)dir;
    (void)name;
    return -EROFS;
}

static int p_create(void *dir, const char *name, uint32_t mode, void **child)
{
    (void)mode;
    (void)child;
    return p_readonly(dir, name);
}

static const struct srv_ops proc_ops = {
    .stat = p_stat,
    .walk = p_walk,
    .read = p_read,
    .readdir = p_readdir,
    .create = p_create,
    .remove = p_readonly,
};

int main(int argc, char *argv[])
{
    if (argc > 1)
        usage("");
    return srv_serve(0, &proc_ops, &nodes[ROOT]) == 0 ? 0 : 1;
}
