/* pwd.c - looking users and groups up by name or id in /etc/passwd and
 * /etc/group. Each call reads the file afresh and splits the matching
 * line into a static entry; a line that does not parse is skipped. */
#include <fcntl.h>
#include <orthos.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DB_MAX    4096                 /* bytes of a database we read */
#define DB_FIELDS 7                    /* passwd has 7 fields, group 4 */

static char db[DB_MAX];
static char *field[DB_FIELDS];

/* Read `path` into db, NUL-terminated; 0 or -1. */
static int load(const char *path)
{
    int fd = open(path, O_RDONLY), n, got = 0;

    if (fd < 0)
        return -1;
    while (got < DB_MAX - 1 && (n = read(fd, db + got, DB_MAX - 1 - got)) > 0)
        got += n;
    close(fd);
    db[got] = '\0';
    return 0;
}

/* Split the line at *pos into exactly `want` ':'-separated fields and
 * advance *pos past it. 1 if it had them all, 0 if not, -1 at the end. */
static int next_line(char **pos, int want)
{
    char *line = *pos, *end;
    int n = 0;

    if (!*line)
        return -1;
    end = strchr(line, '\n');
    if (end)
        *end++ = '\0';
    else
        end = line + strlen(line);
    *pos = end;
    while (n < want) {
        field[n++] = line;
        if (!(line = strchr(line, ':')))
            break;
        *line++ = '\0';
    }
    return n == want && !line;
}

/* The entry of `path` (with `want` fields) whose field `key` is `name`
 * or whose number field `idx` is `id` (name NULL); 1 found, 0 not. */
static int find(const char *path, int want, const char *name, int idx, int id)
{
    char *pos = db;
    int r;

    if (load(path) < 0)
        return 0;
    while ((r = next_line(&pos, want)) >= 0)
        if (r == 1 && (name ? strcmp(field[0], name) == 0 : atoi(field[idx]) == id))
            return 1;
    return 0;
}

static struct passwd *user_entry(void)
{
    static struct passwd pw;

    pw.pw_name = field[0];
    pw.pw_uid = atoi(field[2]);
    pw.pw_gid = atoi(field[3]);
    pw.pw_dir = field[5];
    pw.pw_shell = field[6];
    return &pw;
}

static struct group *group_entry(void)
{
    static struct group gr;

    gr.gr_name = field[0];
    gr.gr_gid = atoi(field[2]);
    return &gr;
}

struct passwd *getpwnam(const char *name)
{
    return find("/etc/passwd", 7, name, 0, 0) ? user_entry() : NULL;
}

struct passwd *getpwuid(int uid)
{
    return find("/etc/passwd", 7, NULL, 2, uid) ? user_entry() : NULL;
}

struct group *getgrnam(const char *name)
{
    return find("/etc/group", 4, name, 0, 0) ? group_entry() : NULL;
}

struct group *getgrgid(int gid)
{
    return find("/etc/group", 4, NULL, 2, gid) ? group_entry() : NULL;
}

/* setgid first: once the uid is not root, nothing else may change. The
 * namespace is made last, so that it is the user's own (unshare(2)). */
int become_user(const struct passwd *pw, int fresh_ns)
{
    if (setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0 || (fresh_ns && unshare() < 0))
        return -1;
    setenv("HOME", pw->pw_dir, 1);
    setenv("USER", pw->pw_name, 1);
    return 0;
}
