/* pwd.c - looking users and groups up by name or id in /etc/passwd and
 * /etc/group. Each call reads the file afresh and splits the matching
 * line into a static entry; a line that does not parse is skipped. Each
 * database has its own buffer, so a group lookup leaves the passwd entry
 * the caller holds alone (id(1) prints one after getting the other). */
#include <fcntl.h>
#include <orthos.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DB_MAX    4096                 /* bytes of a database we read */
#define DB_FIELDS 7                    /* passwd has 7 fields, group 4 */

/* One database: its file, and the text and fields of the last lookup,
 * which the entry returned points into. */
struct database {
    const char *path;
    int nfields;
    char text[DB_MAX];
    char *field[DB_FIELDS];
};

static struct database passwd_db = { .path = "/etc/passwd", .nfields = 7 };
static struct database group_db = { .path = "/etc/group", .nfields = 4 };

/* Read db's file into its text, NUL-terminated; 0 or -1. */
static int load(struct database *db)
{
    int fd = open(db->path, O_RDONLY), n, got = 0;

    if (fd < 0)
        return -1;
    while (got < DB_MAX - 1 && (n = read(fd, db->text + got, DB_MAX - 1 - got)) > 0)
        got += n;
    close(fd);
    db->text[got] = '\0';
    return 0;
}

/* Split the line at *pos into exactly db's number of ':'-separated
 * fields and advance *pos past it. 1 if it had them all, 0 if not, -1 at
 * the end. */
static int next_line(struct database *db, char **pos)
{
    char *line = *pos, *end;
    int n = 0, want = db->nfields;

    if (!*line)
        return -1;
    end = strchr(line, '\n');
    if (end)
        *end++ = '\0';
    else
        end = line + strlen(line);
    *pos = end;
    while (n < want) {
        db->field[n++] = line;
        if (!(line = strchr(line, ':')))
            break;
        *line++ = '\0';
    }
    return n == want && !line;
}

/* The line of db whose first field is `name`, or whose number field
 * `idx` is `id` (name NULL), split into db->field; 1 found, 0 not. */
static int find(struct database *db, const char *name, int idx, int id)
{
    char *pos = db->text, **field = db->field;
    int r;

    if (load(db) < 0)
        return 0;
    while ((r = next_line(db, &pos)) >= 0)
        if (r == 1 && (name ? strcmp(field[0], name) == 0 : atoi(field[idx]) == id))
            return 1;
    return 0;
}

static struct passwd *user_entry(void)
{
    static struct passwd pw;
    char **field = passwd_db.field;

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
    char **field = group_db.field;

    gr.gr_name = field[0];
    gr.gr_gid = atoi(field[2]);
    return &gr;
}

struct passwd *getpwnam(const char *name)
{
    return find(&passwd_db, name, 0, 0) ? user_entry() : NULL;
}

struct passwd *getpwuid(int uid)
{
    return find(&passwd_db, NULL, 2, uid) ? user_entry() : NULL;
}

struct group *getgrnam(const char *name)
{
    return find(&group_db, name, 0, 0) ? group_entry() : NULL;
}

struct group *getgrgid(int gid)
{
    return find(&group_db, NULL, 2, gid) ? group_entry() : NULL;
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
