/* lineedit.c - the shell's line editor. While a line is edited the console
 * is raw (fcntl F_SETTTY, TTY_RAW): every key comes here unechoed, and
 * this file echoes and redraws. It assumes only what every terminal and
 * the VGA console do: printable characters, '\b' moves left without
 * erasing, '\n' ends a line. Keys are read one byte at a time, so that
 * what is typed after Enter stays in the tty for the command to read.
 * The editing keys arrive as a serial terminal sends them (ESC [ A for
 * up, ...); the PS/2 driver sends the same (kernel/dev/kbd.c).
 *
 *   Left/Right ^B/^F   move         Home/End ^A/^E    start/end of line
 *   Backspace  Delete  erase        ^U ^K ^W          erase to start/end, a word
 *   Up/Down    ^P/^N   history      Tab               complete; twice: list
 *   ^C                 drop line    ^D                end (on an empty line)
 */
#include <dirent.h>
#include <fcntl.h>
#include <lineedit.h>
#include <orthos.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CTRL(c)   ((c) - '@')
#define COLUMNS   80              /* the width a candidate list is laid out for */
#define MAX_CANDS 1024            /* completions collected at most */

/* One line being edited: buf[0, len), the cursor at pos. */
struct edit {
    struct lineedit *e;
    const char *prompt;
    char *buf;
    int size, len, pos;
    int shown;                      /* history line shown: e->nhistory = the new line */
    char *typed;                    /* the new line, kept while browsing the history */
    int tabs;                       /* Tabs in a row */
    int dropped;                    /* a key did not fit since the line was last empty */
    char out[512];                  /* echo, written once per key */
    int nout;
};

/* ------------------------------------------------------------ output */

static void flush(struct edit *ed)
{
    if (ed->nout > 0)
        writeall(ed->e->out, ed->out, ed->nout);
    ed->nout = 0;
}

static void emit(struct edit *ed, const char *s, int n)
{
    while (n-- > 0) {
        if (ed->nout == (int)sizeof(ed->out))
            flush(ed);
        ed->out[ed->nout++] = *s++;
    }
}

static void emit_str(struct edit *ed, const char *s)
{
    emit(ed, s, strlen(s));
}

static void emit_times(struct edit *ed, char c, int n)
{
    while (n-- > 0)
        emit(ed, &c, 1);
}

/* Moves the cursor to `to`: back with '\b', forward by printing over. */
static void move_to(struct edit *ed, int to)
{
    if (to < ed->pos)
        emit_times(ed, '\b', ed->pos - to);
    else
        emit(ed, ed->buf + ed->pos, to - ed->pos);
    ed->pos = to;
}

/* Draws buf[pos, len) and `erase` blanks after it (what a shorter line
 * leaves on the screen), then brings the cursor back to pos. */
static void redraw_tail(struct edit *ed, int erase)
{
    emit(ed, ed->buf + ed->pos, ed->len - ed->pos);
    emit_times(ed, ' ', erase);
    emit_times(ed, '\b', ed->len - ed->pos + erase);
}

/* ------------------------------------------------------------ editing */

/* Inserts s[0, n) at the cursor, as much as fits; the cursor ends after it.
 * What does not fit is dropped, and the line will not be run. */
static void insert(struct edit *ed, const char *s, int n)
{
    if (n > ed->size - 1 - ed->len) {
        n = ed->size - 1 - ed->len;
        ed->dropped = 1;
    }
    memmove(ed->buf + ed->pos + n, ed->buf + ed->pos, ed->len - ed->pos);
    memcpy(ed->buf + ed->pos, s, n);
    ed->len += n;
    emit(ed, s, n);
    ed->pos += n;
    redraw_tail(ed, 0);
}

/* Erases buf[from, pos) and leaves the cursor at from. */
static void erase_before(struct edit *ed, int from)
{
    int n = ed->pos - from;

    move_to(ed, from);
    memmove(ed->buf + from, ed->buf + from + n, ed->len - from - n);
    ed->len -= n;
    redraw_tail(ed, n);
}

/* Erases buf[pos, to). */
static void erase_after(struct edit *ed, int to)
{
    int n = to - ed->pos;

    memmove(ed->buf + ed->pos, ed->buf + to, ed->len - to);
    ed->len -= n;
    redraw_tail(ed, n);
}

/* The start of the word before the cursor (for ^W). */
static int word_before(struct edit *ed)
{
    int i = ed->pos;

    while (i > 0 && ed->buf[i - 1] == ' ')
        i--;
    while (i > 0 && ed->buf[i - 1] != ' ')
        i--;
    return i;
}

/* Shows s instead of the whole line, the cursor at its end. */
static void replace_line(struct edit *ed, const char *s)
{
    int old = ed->len;

    move_to(ed, 0);
    ed->len = strlen(s) < (size_t)ed->size ? (int)strlen(s) : ed->size - 1;
    ed->dropped = 0;                /* a line from the history fitted */
    memcpy(ed->buf, s, ed->len);
    ed->pos = ed->len;
    emit(ed, ed->buf, ed->len);
    if (old > ed->len) {
        emit_times(ed, ' ', old - ed->len);
        emit_times(ed, '\b', old - ed->len);
    }
}

/* ------------------------------------------------------------ history */

static const char *history_line(struct lineedit *e, int i)
{
    return e->history[i % EDIT_HISTORY];
}

/* Up (dir -1) or down (+1) in the history. The new line is kept aside
 * while older ones are shown, and comes back at the bottom. */
static void browse(struct edit *ed, int dir)
{
    struct lineedit *e = ed->e;
    int oldest = e->nhistory > EDIT_HISTORY ? e->nhistory - EDIT_HISTORY : 0;
    int to = ed->shown + dir;

    if (to < oldest || to > e->nhistory)
        return;
    if (ed->shown == e->nhistory) {
        free(ed->typed);
        ed->typed = strndup(ed->buf, ed->len);
    }
    ed->shown = to;
    replace_line(ed, to < e->nhistory ? history_line(e, to) : ed->typed ? ed->typed : "");
}

static void remember(struct lineedit *e, const char *line)
{
    char **slot = &e->history[e->nhistory % EDIT_HISTORY];
    char *copy;

    if (!*line || (e->nhistory > 0 && strcmp(history_line(e, e->nhistory - 1), line) == 0))
        return;
    if (!(copy = strdup(line)))
        return;
    free(*slot);                    /* the oldest, once the ring is full */
    *slot = copy;
    e->nhistory++;
}

/* ------------------------------------------------------------ completion */

struct candidates {
    struct candidate {
        char *name;
        int dir;                    /* a directory: completes with '/' */
    } c[MAX_CANDS];
    int n;
};

static void add_candidate(struct candidates *c, const char *name, int dir)
{
    int i;

    if (c->n == MAX_CANDS)
        return;
    for (i = 0; i < c->n; i++)
        if (strcmp(c->c[i].name, name) == 0)
            return;                 /* a builtin also in /bin, or a name in two $PATH dirs */
    if ((c->c[c->n].name = strdup(name)))
        c->c[c->n++].dir = dir;
}

/* Entries of dir starting with prefix (dot names only for a dot prefix).
 * commands: programs, so no directories; else directories are marked. */
static void scan_dir(struct candidates *c, const char *dir, const char *prefix, int commands)
{
    size_t plen = strlen(prefix);
    char path[PATH_MAX];
    struct dirent *d;
    struct stat st;
    DIR *dp;
    int isdir;

    if (!(dp = opendir(*dir ? dir : ".")))
        return;
    while ((d = readdir(dp))) {
        if (strncmp(d->d_name, prefix, plen) != 0 || (d->d_name[0] == '.' && prefix[0] != '.'))
            continue;
        if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
            continue;
        isdir = d->d_type == DT_DIR;
        if (d->d_type != DT_DIR && d->d_type != DT_REG &&
            pathjoin(path, sizeof(path), *dir ? dir : ".", d->d_name) == 0)
            isdir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);    /* a link, say */
        if (!(commands && isdir))
            add_candidate(c, d->d_name, isdir && !commands);
    }
    closedir(dp);
}

/* Command names starting with prefix: the caller's (builtins), then the
 * programs in each $PATH directory (default /bin). */
static void scan_commands(struct candidates *c, const char *const *words, const char *prefix)
{
    const char *path = getenv("PATH"), *p, *colon;
    char dir[PATH_MAX];
    size_t n;

    for (; words && *words; words++)
        if (strncmp(*words, prefix, strlen(prefix)) == 0)
            add_candidate(c, *words, 0);
    for (p = path && *path ? path : "/bin"; *p; p = colon + (*colon == ':')) {
        colon = strchr(p, ':');
        colon = colon ? colon : p + strlen(p);
        n = colon - p < (long)sizeof(dir) ? (size_t)(colon - p) : sizeof(dir) - 1;
        memcpy(dir, p, n);
        dir[n] = '\0';
        scan_dir(c, dir, prefix, 1);
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct candidate *)a)->name, ((const struct candidate *)b)->name);
}

/* Prints the candidates in columns, sorted down each column as ls does,
 * then the prompt and the line again, with the cursor where it was. */
static void list_candidates(struct edit *ed, struct candidates *c)
{
    int width = 0, cols, rows, r, i, w, at = ed->pos;

    for (i = 0; i < c->n; i++) {
        w = strlen(c->c[i].name) + c->c[i].dir;
        width = w > width ? w : width;
    }
    qsort(c->c, c->n, sizeof(c->c[0]), by_name);
    cols = COLUMNS / (width + 2) > 0 ? COLUMNS / (width + 2) : 1;
    rows = (c->n + cols - 1) / cols;
    move_to(ed, ed->len);
    emit_str(ed, "\n");
    for (r = 0; r < rows; r++) {
        for (i = r; i < c->n; i += rows) {
            emit_str(ed, c->c[i].name);
            emit_str(ed, c->c[i].dir ? "/" : "");
            if (i + rows < c->n)
                emit_times(ed, ' ', width + 2 - strlen(c->c[i].name) - c->c[i].dir);
        }
        emit_str(ed, "\n");
    }
    emit_str(ed, ed->prompt);
    emit(ed, ed->buf, ed->len);
    move_to(ed, at);
}

/* Tab: completes the word before the cursor as a command name (the first
 * word of a command, without a '/') or as a path. One match is completed
 * with a ' ' after it (a '/' after a directory); several, as far as they
 * agree; a second Tab in a row lists them. Quotes are not understood. */
static void complete(struct edit *ed)
{
    static struct candidates c;
    char word[PATH_MAX], dir[PATH_MAX];
    const char *base;
    int start = ed->pos, before, common, typed, i;

    while (start > 0 && !strchr(" \t|&;<>", ed->buf[start - 1]))
        start--;
    if (ed->pos - start >= (int)sizeof(word))
        return;
    memcpy(word, ed->buf + start, ed->pos - start);
    word[ed->pos - start] = '\0';
    for (before = start; before > 0 && ed->buf[before - 1] == ' '; before--)
        ;
    c.n = 0;
    if (!strchr(word, '/') && (before == 0 || strchr("|&;", ed->buf[before - 1]))) {
        base = word;
        scan_commands(&c, ed->e->commands, word);
    } else {
        base = strrchr(word, '/');
        base = base ? base + 1 : word;
        memcpy(dir, word, base - word);
        dir[base - word] = '\0';
        scan_dir(&c, dir, base, 0);
    }
    typed = strlen(base);
    common = c.n > 0 ? (int)strlen(c.c[0].name) : 0;
    for (i = 1; i < c.n; i++)
        while (strncmp(c.c[0].name, c.c[i].name, common) != 0)
            common--;
    if (common > typed)
        insert(ed, c.c[0].name + typed, common - typed);
    if (c.n == 1)
        insert(ed, c.c[0].dir ? "/" : " ", 1);
    else if (c.n > 1 && common == typed && ed->tabs >= 2)
        list_candidates(ed, &c);
    for (i = 0; i < c.n; i++)
        free(c.c[i].name);
}

/* ------------------------------------------------------------ keys */

int edit_read_key(int fd)
{
    unsigned char c;
    int param = 0, i;

    if (read(fd, &c, 1) != 1)
        return -1;
    if (c != 033)
        return c;
    if (read(fd, &c, 1) != 1)
        return -1;
    if (c != '[' && c != 'O')
        return KEY_OTHER;           /* Alt+key, or ESC itself: nothing to do */
    for (i = 0; i < 8; i++) {       /* parameters, then the final byte */
        if (read(fd, &c, 1) != 1)
            return -1;
        if (c >= '0' && c <= '9')
            param = param * 10 + (c - '0');
        else if (c != ';')
            break;
    }
    switch (c) {
    case 'A': return KEY_UP;
    case 'B': return KEY_DOWN;
    case 'C': return KEY_RIGHT;
    case 'D': return KEY_LEFT;
    case 'H': return KEY_HOME;
    case 'F': return KEY_END;
    case '~':                       /* VT220: 1 or 7 Home, 3 Delete, 4 or 8 End, 5 6 Page */
        switch (param) {
        case 1:
        case 7: return KEY_HOME;
        case 3: return KEY_DELETE;
        case 4:
        case 8: return KEY_END;
        case 5: return KEY_PGUP;
        case 6: return KEY_PGDN;
        }
    }
    return KEY_OTHER;
}

/* Acts on one key. Returns 1 when the line is done (Enter), EDIT_TOO_LONG
 * if it is done but keys were dropped, 0 at the end of the input, -1 to go
 * on. A line cut short is never run as if it were the line typed (or
 * pasted: its end would be lost unseen); emptying it starts afresh. */
static int do_key(struct edit *ed, int key)
{
    ed->tabs = key == '\t' ? ed->tabs + 1 : 0;
    switch (key) {
    case '\n':
    case '\r':
        move_to(ed, ed->len);
        emit_str(ed, "\n");
        return ed->dropped ? EDIT_TOO_LONG : 1;
    case CTRL('D'):
        if (ed->len == 0)
            return 0;
        /* fall through - in a line ^D deletes, as in Emacs */
    case KEY_DELETE:
        if (ed->pos < ed->len)
            erase_after(ed, ed->pos + 1);
        break;
    case CTRL('C'):                 /* the line is dropped; a fresh prompt */
        move_to(ed, ed->len);
        emit_str(ed, "^C\n");
        emit_str(ed, ed->prompt);
        ed->len = ed->pos = 0;
        ed->shown = ed->e->nhistory;
        break;
    case '\b':
    case 0x7F:
        if (ed->pos > 0)
            erase_before(ed, ed->pos - 1);
        break;
    case CTRL('U'): erase_before(ed, 0); break;
    case CTRL('K'): erase_after(ed, ed->len); break;
    case CTRL('W'): erase_before(ed, word_before(ed)); break;
    case KEY_LEFT:
    case CTRL('B'): move_to(ed, ed->pos > 0 ? ed->pos - 1 : 0); break;
    case KEY_RIGHT:
    case CTRL('F'): move_to(ed, ed->pos < ed->len ? ed->pos + 1 : ed->len); break;
    case KEY_HOME:
    case CTRL('A'): move_to(ed, 0); break;
    case KEY_END:
    case CTRL('E'): move_to(ed, ed->len); break;
    case KEY_UP:
    case CTRL('P'): browse(ed, -1); break;
    case KEY_DOWN:
    case CTRL('N'): browse(ed, 1); break;
    case '\t': complete(ed); break;
    default:
        if (key >= ' ' && key < 0x7F) {
            char c = (char)key;
            insert(ed, &c, 1);
        }
    }
    if (ed->len == 0)
        ed->dropped = 0;
    return -1;
}

int edit_line(struct lineedit *e, const char *prompt, char *line, size_t size)
{
    struct edit ed = { .e = e, .prompt = prompt, .buf = line, .size = size };
    int done = -1, key;

    if (size < 1 || fcntl(e->in, F_SETTTY, TTY_RAW) < 0)
        return -1;
    ed.shown = e->nhistory;
    emit_str(&ed, prompt);
    while (done < 0) {
        flush(&ed);
        if ((key = edit_read_key(e->in)) < 0)
            done = 0;
        else
            done = do_key(&ed, key);
    }
    fcntl(e->in, F_SETTTY, 0);      /* cooked again before any command runs, */
    flush(&ed);                     /* and before the newline shows */
    line[ed.len] = '\0';
    if (done == 1)
        remember(e, line);
    free(ed.typed);
    return done;
}
