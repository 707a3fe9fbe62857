/* man - show a manual page: `man walk` (the first section that has one),
 * `man 3 open`. The pages are doc/man/NAME.SECTION.md, put into the boot
 * archive under /usr/share/man. The markdown is rendered lightly for an
 * 80-column console: headings flush left, text wrapped and indented, code
 * blocks as they are, tables in columns, the markup itself (**, `, links)
 * left out, and the few non-ASCII characters spelt in ASCII, which the
 * VGA screen cannot show. On the console the page comes a screenful at a
 * time (space: next page, Enter: next line, q: quit); into a pipe or a
 * file it is printed straight through. */
#include <err.h>
#include <fcntl.h>
#include <lineedit.h>
#include <orthos.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "array_size.h"

#define MANDIR      "/usr/share/man"
#define WIDTH       78              /* wrap text before the console's last column */
#define TEXT_INDENT 4
#define CODE_INDENT 8
#define ROWS        25              /* the VGA screen's; $LINES says otherwise */

/* ------------------------------------------------------------ output text */

/* The rendered page, in one growing buffer. */
static struct {
    char *text;
    size_t len, cap;
} page;

static void out(const char *s, size_t n)
{
    if (page.len + n > page.cap) {
        page.cap = (page.len + n) * 2 + 1024;
        if (!(page.text = realloc(page.text, page.cap)))
            err(1, "page");
    }
    memcpy(page.text + page.len, s, n);
    page.len += n;
}

static void out_str(const char *s)
{
    out(s, strlen(s));
}

static void out_spaces(int n)
{
    while (n-- > 0)
        out(" ", 1);
}

/* ------------------------------------------------------------ inline markup */

/* The non-ASCII characters the pages use, in ASCII. */
static const struct {
    const char *utf8, *ascii;
} spelt[] = {
    { "\xe2\x80\x94", "--" },   { "\xe2\x80\x93", "-" },  { "\xe2\x80\xa6", "..." },
    { "\xe2\x89\xa4", "<=" },   { "\xe2\x89\xa5", ">=" }, { "\xe2\x88\x92", "-" },
    { "\xc3\x97", "x" },        { "\xc2\xb2", "^2" },     { "\xc2\xb3", "^3" },
    { "\xc2\xa7", "section " },
};

/* Copies src to dst (of size bytes), non-ASCII characters spelt as in
 * spelt[] (others dropped). */
static void ascii(char *dst, size_t size, const char *src)
{
    size_t n = 0, i, k;

    for (; *src && n + 9 < size; src++) {
        if (!(*src & 0x80)) {
            dst[n++] = *src;
            continue;
        }
        for (i = 0; i < ARRAY_SIZE(spelt); i++)
            if (strncmp(src, spelt[i].utf8, k = strlen(spelt[i].utf8)) == 0)
                break;
        if (i < ARRAY_SIZE(spelt)) {
            n += snprintf(dst + n, size - n, "%s", spelt[i].ascii);
            src += k - 1;
        }
    }
    dst[n] = '\0';
}

/* Copies src to dst (of size bytes) in ASCII with the markup taken out:
 * `code` kept as it is, ** and * (emphasis) dropped, [text](target) as
 * text, \x as x. */
static void plain(char *dst, size_t size, const char *src)
{
    char buf[2048];
    const char *p = buf, *link_end = NULL, *close;
    size_t n = 0;
    int code = 0;

    ascii(buf, sizeof(buf), src);
    for (; *p && n + 1 < size; p++) {
        if (*p == '`') {
            code = !code;
        } else if (code) {
            dst[n++] = *p;
        } else if (*p == '\\' && p[1]) {
            dst[n++] = *++p;
        } else if (*p == '*') {
            ;                       /* emphasis */
        } else if (*p == '[' && !link_end && (close = strchr(p, ']')) && close[1] == '(' &&
                   strchr(close, ')')) {
            link_end = close;       /* the text stays; "](target)" goes */
        } else if (p == link_end) {
            p = strchr(p, ')');
            link_end = NULL;
        } else {
            dst[n++] = *p;
        }
    }
    dst[n] = '\0';
}

/* ------------------------------------------------------------ blocks */

/* A paragraph or list item being gathered, then wrapped. */
static struct {
    char text[4096];
    size_t len;
    int first, rest;                /* indent of its first line, of the others */
    const char *mark;               /* "- " before the first line of a list item */
} para;

static void para_start(int first, int rest, const char *mark)
{
    para.len = 0;
    para.first = first;
    para.rest = rest;
    para.mark = mark;
}

/* Adds a line's words to the paragraph; what does not fit is left out. */
static void para_add(const char *line)
{
    size_t n = strlen(line);

    if (para.len + 2 >= sizeof(para.text))
        return;
    if (para.len + n + 2 > sizeof(para.text))
        n = sizeof(para.text) - para.len - 2;
    if (para.len)
        para.text[para.len++] = ' ';
    memcpy(para.text + para.len, line, n);
    para.len += n;
    para.text[para.len] = '\0';
}

/* Prints the paragraph wrapped at WIDTH columns (a word longer than a
 * line gets a line of its own), and empties it. */
static void para_flush(void)
{
    char *p = para.text, *word;
    int col, n;

    if (!para.len)
        return;
    out_spaces(para.first);
    out_str(para.mark);
    col = para.first + strlen(para.mark);
    while (*p) {
        while (*p == ' ')
            p++;
        for (word = p; *p && *p != ' '; p++)
            ;
        n = p - word;
        if (!n)
            break;
        if (col > para.rest && col + 1 + n > WIDTH) {
            out_str("\n");
            out_spaces(para.rest);
            col = para.rest;
        } else if (col > para.first + (int)strlen(para.mark)) {
            out(" ", 1);
            col++;
        }
        out(word, n);
        col += n;
    }
    out_str("\n");
    para.len = 0;
}

/* Table rows ("| a | b |"), gathered to be laid out in columns. */
#define MAXROWS 64
#define MAXCOLS 8
static struct {
    char *cell[MAXROWS][MAXCOLS];
    int rows, cols;
} table;

static void table_add(const char *line)
{
    char text[1024], *p, *bar, *end;
    size_t n;
    int c = 0;

    if (table.rows == MAXROWS || strspn(line, "|-: ") == strlen(line))
        return;                     /* the |---|---| line under the header */
    plain(text, sizeof(text), line);
    for (n = strlen(text); n > 0 && text[n - 1] == ' ';)
        text[--n] = '\0';
    for (p = text + (*text == '|'); *p && c < MAXCOLS; p = bar + 1) {
        bar = strchr(p, '|');
        end = bar ? bar : p + strlen(p);
        while (*p == ' ')
            p++;
        while (end > p && end[-1] == ' ')
            end--;
        table.cell[table.rows][c++] = strndup(p, end - p);
        if (!bar)
            break;
    }
    table.cols = c > table.cols ? c : table.cols;
    table.rows++;
}

static void table_flush(void)
{
    int width[MAXCOLS] = { 0 }, r, c, n;

    for (r = 0; r < table.rows; r++)
        for (c = 0; c < table.cols; c++)
            if (table.cell[r][c] && (n = strlen(table.cell[r][c])) > width[c])
                width[c] = n;
    for (r = 0; r < table.rows; r++) {
        out_spaces(TEXT_INDENT);
        for (c = 0; c < table.cols; c++) {
            n = table.cell[r][c] ? strlen(table.cell[r][c]) : 0;
            if (n)
                out_str(table.cell[r][c]);
            if (c + 1 < table.cols)
                out_spaces(width[c] - n + 2);
            free(table.cell[r][c]);
            table.cell[r][c] = NULL;
        }
        out_str("\n");
    }
    table.rows = table.cols = 0;
}

/* ------------------------------------------------------------ the page */

/* Renders the markdown in src, line by line, into page. */
static void render(char *src)
{
    char *line, *next, text[2048];
    int code = 0, blank = 1, level;

    for (line = src; *line; line = next) {
        next = line + strcspn(line, "\n");
        if (*next)
            *next++ = '\0';
        if (strncmp(line, "```", 3) == 0) {         /* a code block starts or ends */
            para_flush();
            code = !code;
            continue;
        }
        if (code) {                                 /* as it is, but in ASCII */
            ascii(text, sizeof(text), line);
            out_spaces(*text ? CODE_INDENT : 0);
            out_str(text);
            out_str("\n");
            blank = 0;
            continue;
        }
        if (*line != '|' && table.rows)
            table_flush();
        if (!*line) {                               /* a paragraph ends */
            para_flush();
            if (!blank)
                out_str("\n");
            blank = 1;
            continue;
        }
        blank = 0;
        if (*line == '#') {                         /* a heading */
            para_flush();
            level = strspn(line, "#");
            plain(text, sizeof(text), line + level + strspn(line + level, " "));
            out_spaces(level > 2 ? TEXT_INDENT - 1 : 0);
            out_str(text);
            out_str("\n");
        } else if (*line == '|') {
            para_flush();
            table_add(line);
        } else if ((line[0] == '-' || line[0] == '*') && line[1] == ' ') {
            para_flush();                           /* a list item */
            para_start(TEXT_INDENT, TEXT_INDENT + 2, "- ");
            plain(text, sizeof(text), line + 2);
            para_add(text);
        } else {
            if (!para.len)
                para_start(TEXT_INDENT, TEXT_INDENT, "");
            plain(text, sizeof(text), line + strspn(line, " "));
            para_add(text);
        }
    }
    para_flush();
    if (table.rows)
        table_flush();
}

/* The whole of path, NUL-terminated, in a malloc'd buffer; NULL if it
 * cannot be read. */
static char *slurp(const char *path)
{
    char *buf = NULL, *nb;
    size_t len = 0, cap = 0;
    int fd = open(path, O_RDONLY), n = 0;

    if (fd < 0)
        return NULL;
    for (;;) {
        if (len + 1 >= cap) {
            cap = cap ? cap * 2 : 8192;
            if (!(nb = realloc(buf, cap)))
                break;
            buf = nb;
        }
        if ((n = read(fd, buf + len, cap - len - 1)) <= 0)
            break;
        len += n;
    }
    close(fd);
    if (n < 0 || !buf || len + 1 > cap) {
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

/* The text of page NAME in SECTION (a digit), or in the first section
 * that has one; its file name is left in path. NULL if there is none. */
static char *find_page(const char *section, const char *name, char *path, size_t size)
{
    const char *s = section ? section : "123456789";
    char *text = NULL;

    for (; *s && !text; s++) {
        snprintf(path, size, "%s/%s.%c.md", MANDIR, name, *s);
        text = slurp(path);
    }
    return text;
}

/* ------------------------------------------------------------ paging */

/* What a key does at the --More-- prompt: the number of lines to show
 * next (a screenful or one), 0 to stop, -1 nothing. */
static int lines_for(int key, int screenful)
{
    switch (key) {
    case ' ':
    case 'f':
    case KEY_PGDN: return screenful;
    case '\n':
    case '\r':
    case 'j':
    case KEY_DOWN: return 1;
    case 'q':
    case 'Q':
    case -1: /* the console is gone */ return 0;
    }
    return -1;
}

/* Shows the page a screenful at a time on the console: the keys are read
 * raw (fcntl F_SETTTY) from standard input; ^C still ends man. */
static void show_paged(void)
{
    static const char more[] = "--More--";
    const char *p = page.text, *end = page.text + page.len, *nl;
    int rows = getenv("LINES") ? atoi(getenv("LINES")) : ROWS;
    int screenful = rows > 2 ? rows - 1 : ROWS - 1, left = screenful;

    fcntl(STDIN_FILENO, F_SETTTY, TTY_RAW);
    for (;;) {
        for (; p < end && left > 0; left--, p = nl) {
            nl = memchr(p, '\n', end - p);
            nl = nl ? nl + 1 : end;
            fwrite(p, 1, nl - p, stdout);
        }
        if (p == end)
            break;
        fputs(more, stdout);
        fflush(stdout);
        while ((left = lines_for(edit_read_key(STDIN_FILENO), screenful)) < 0)
            ;
        printf("\r%*s\r", (int)strlen(more), "");
        if (left == 0)
            break;
    }
    fflush(stdout);
    fcntl(STDIN_FILENO, F_SETTTY, 0);
}

int main(int argc, char *argv[])
{
    char path[PATH_MAX], *text;
    const char *section = NULL, *name;

    if (argc == 3 && argv[1][0] >= '1' && argv[1][0] <= '9' && !argv[1][1])
        section = argv[1];
    else if (argc != 2)
        usage("[section] name   (the pages: ls " MANDIR ")");
    name = argv[argc - 1];
    if (strchr(name, '/') || !(text = find_page(section, name, path, sizeof(path)))) {
        if (section)
            errx(1, "no entry for %s in section %s of the manual", name, section);
        errx(1, "no manual entry for %s", name);
    }
    render(text);
    free(text);
    if (isatty(STDOUT_FILENO) && isatty(STDIN_FILENO))
        show_paged();
    else
        fwrite(page.text, 1, page.len, stdout);
    return 0;
}
