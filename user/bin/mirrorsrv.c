/* mirrorsrv DIR - a file server that shows DIR, read-only: every name it
 * serves is a path under DIR, looked up afresh on each request (so it
 * mirrors what DIR holds now, not a copy). Writes, creates and removes
 * are EROFS. Serves the channel end on fd 0:
 * `srvmount /tmp/m mirrorsrv /etc; cat /tmp/m/passwd`. */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <srv.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *top;                       /* DIR: ".." never climbs above it */

static int m_stat(void *node, struct srv_stat *st)
{
    struct stat s;

    if (stat(node, &s) < 0)
        return -errno;
    if (!S_ISDIR(s.st_mode) && !S_ISREG(s.st_mode))
        return -EPERM;                  /* served nodes are files and directories */
    st->mode = s.st_mode & ~0222;       /* read-only, and shown so */
    st->ino = s.st_ino;
    st->size = s.st_size;
    st->mtime = s.st_mtime;
    return 0;
}

static int m_walk(void *dir, const char *name, void **child)
{
    size_t n = strlen(dir);
    char *path, *slash;
    struct stat st;

    if (strcmp(name, "..") == 0) {
        path = strdup(dir);
        if (path && strcmp(path, top) != 0 && (slash = strrchr(path, '/')))
            *(slash == path ? slash + 1 : slash) = '\0';
    } else if ((path = malloc(n + strlen(name) + 2))) {
        strcpy(path, dir);
        strcpy(path + n, n && path[n - 1] == '/' ? "" : "/");
        strcat(path, name);
    }
    if (!path)
        return -ENOMEM;
    if (stat(path, &st) < 0) {
        int e = errno;
        free(path);
        return -e;
    }
    *child = path;
    return 0;
}

static int m_read(void *node, uint32_t off, char *buf, uint32_t n)
{
    int fd = open(node, O_RDONLY), r;

    if (fd < 0)
        return -errno;
    r = lseek(fd, off, SEEK_SET) < 0 || (r = read(fd, buf, n)) < 0 ? -errno : r;
    close(fd);
    return r;
}

/* Entry number `index`, "." and ".." left out. */
static int m_readdir(void *dir, uint32_t index, struct srv_dirent *e)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int found = 0;

    if (!d)
        return -errno;
    while ((de = readdir(d))) {
        if (!notdots(de) || index-- > 0)
            continue;
        e->ino = de->d_ino;
        e->type = de->d_type == DT_DIR ? DT_DIR : DT_REG;
        strcpy(e->name, de->d_name);
        found = 1;
        break;
    }
    closedir(d);
    return found;
}

static int m_create(void *dir, const char *name, uint32_t mode, void **child)
{
    (void)dir, (void)name, (void)mode, (void)child;
    return -EROFS;
}

static int m_write(void *node, uint32_t off, const char *buf, uint32_t n)
{
    (void)node, (void)off, (void)buf, (void)n;
    return -EROFS;
}

static int m_trunc(void *node, uint32_t len)
{
    (void)node, (void)len;
    return -EROFS;
}

static int m_remove(void *dir, const char *name)
{
    (void)dir, (void)name;
    return -EROFS;
}

static void m_clunk(void *node)
{
    if (node != top)
        free(node);
}

static const struct srv_ops mirror_ops = {
    .stat = m_stat,
    .walk = m_walk,
    .create = m_create,
    .read = m_read,
    .write = m_write,
    .trunc = m_trunc,
    .readdir = m_readdir,
    .remove = m_remove,
    .clunk = m_clunk,
};

int main(int argc, char *argv[])
{
    struct stat st;

    if (argc != 2)
        usage("DIR");
    if (stat(argv[1], &st) < 0 || !S_ISDIR(st.st_mode))
        errx(1, "%s: not a directory", argv[1]);
    top = argv[1];
    return srv_serve(0, &mirror_ops, top) == 0 ? 0 : 1;
}
