/* sh - the Orthos shell. Reads command lines from the console, a script
 * (sh FILE) or a string (sh -c CMD) and runs them: pipelines, redirections,
 * && || ; &, quoting and $ expansion. Its fd builtins (fsopen, walk, ready,
 * bind, unbind, ...) hold descriptors in the shell itself, so that the split
 * primitives of DESIGN.md section 4 can be tried by hand, one call a line.
 * Each line goes lexer -> parser (a flat list of pipelines) -> executor.
 * At the console, lines are typed with history, editing and Tab completion
 * (user/lib/lineedit.c). */
#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <lineedit.h>
#include <orthos.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>
#include "array_size.h"

/* ------------------------------------------------------------ limits and state */

#define MAXLINE   1024            /* bytes in one command line, without its newline */
#define MAXWORDS  64              /* words in one line, redirection targets included */
#define MAXSTAGES 16              /* commands in one pipeline */
#define MAXEXPAND 4096            /* bytes of one command's words after $ expansion */
#define FD_LIMIT  OPEN_MAX        /* fds per process (uapi/fs.h) */
#define SCRIPT_FD (FD_LIMIT - 1)  /* a script being read, out of the fd builtins' way */

static int last_status;             /* $? */
static int njobs;                   /* background jobs started and not yet reported done */
static int interactive;             /* reading a terminal: print prompts */
static int job_control;             /* each job gets its own process group and the console */
static char **params;               /* $0, $1, ... $9 */
static int nparams;
static int editing;                 /* the console is both ends: edit lines there */
static struct lineedit editor = { .in = STDIN_FILENO, .out = STDOUT_FILENO };

/* ------------------------------------------------------------ reading lines */

/* Lines come from an fd through this buffer. A terminal's read() returns at
 * most one line; a file or a pipe may return many, or half of one. */
struct reader {
    int fd;
    char buf[MAXLINE + 1];          /* room for the longest line and its newline */
    int start, len;                 /* buf[start, len) is read but not yet used */
    int eof;
};

/* Copies the next line, without its newline, into line[MAXLINE + 1].
 * Returns 1 for a line, 0 at the end of the input, -1 for a line that was
 * too long (it is skipped, up to and including its newline). A last line
 * without a newline still counts. */
static int read_line(struct reader *r, char *line)
{
    int too_long = 0, avail, n;
    char *nl;

    for (;;) {
        avail = r->len - r->start;
        nl = memchr(r->buf + r->start, '\n', avail);
        if (nl || (r->eof && avail > 0)) {
            n = nl ? nl - (r->buf + r->start) : avail;
            memcpy(line, r->buf + r->start, n);
            line[n] = '\0';
            r->start += nl ? n + 1 : n;
            return too_long ? -1 : 1;
        }
        if (r->eof)
            return too_long ? -1 : 0;
        if (avail == (int)sizeof(r->buf)) {     /* full, and still no newline */
            too_long = 1;
            avail = 0;
        }
        memmove(r->buf, r->buf + r->start, avail);
        r->start = 0;
        r->len = avail;
        n = read(r->fd, r->buf + r->len, sizeof(r->buf) - r->len);
        if (n <= 0)                 /* ^D on an empty line, end of file, or an error */
            r->eof = 1;
        else
            r->len += n;
    }
}

/* ------------------------------------------------------------ lexer */

/* The lexer cuts a line into tokens. Words keep their quotes and $ signs:
 * they are expanded only when their command runs, so that in
 * `false; echo $?` the $? is the status of false. */
enum token_type { T_WORD, T_PIPE, T_OR, T_AMP, T_AND, T_SEMI, T_REDIR, T_END };
enum redir_kind { RD_IN, RD_OUT, RD_APPEND, RD_DUP };

struct token {
    int type;
    char *word;                     /* T_WORD: its raw text, in wordbuf */
    int fd, kind;                   /* T_REDIR: the fd it changes, and how */
};

struct lexer {
    const char *p;                  /* the next character of the line */
    char *out;                      /* where the next word's text goes */
    int nwords;
    struct token tok;               /* the current token: the parser's lookahead */
};

static char wordbuf[MAXLINE + MAXWORDS + 1];    /* every word of the line, NUL-terminated */

/* Says what is wrong with the line, in one write; returns -1. */
static int __attribute__((format(printf, 1, 2))) syntax_error(const char *fmt, ...)
{
    char msg[128];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "sh: syntax error: %s\n", msg);
    return -1;
}

static int is_blank(int c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static int ends_word(int c)
{
    return c == '\0' || is_blank(c) || strchr("|&;<>", c);
}

/* Scans one word at lx->p into wordbuf, quotes and backslashes kept; the
 * only check is that every quote is closed. */
static int lex_word(struct lexer *lx)
{
    const char *p = lx->p;
    char quote;

    if (lx->nwords == MAXWORDS)
        return syntax_error("more than %d words", MAXWORDS);
    lx->tok.type = T_WORD;
    lx->tok.word = lx->out;
    while (!ends_word(*p)) {
        if (*p == '\\' && p[1]) {
            *lx->out++ = *p++;
        } else if (*p == '\'' || *p == '"') {
            quote = *p;
            *lx->out++ = *p++;
            while (*p && *p != quote) {
                if (quote == '"' && *p == '\\' && p[1])
                    *lx->out++ = *p++;
                *lx->out++ = *p++;
            }
            if (!*p)
                return syntax_error("unterminated %s quote", quote == '"' ? "double" : "single");
        }
        *lx->out++ = *p++;
    }
    *lx->out++ = '\0';
    lx->nwords++;
    lx->p = p;
    return 0;
}

/* Scans a redirection operator at lx->p, after its optional fd number:
 * < > >> <& >&. The file (or fd) it names is the next token. */
static void lex_redir(struct lexer *lx, int fd)
{
    const char *p = lx->p;
    int out = *p++ == '>';

    lx->tok.type = T_REDIR;
    lx->tok.fd = fd >= 0 ? fd : out;
    if (*p == '&') {
        lx->tok.kind = RD_DUP;
        p++;
    } else if (out && *p == '>') {
        lx->tok.kind = RD_APPEND;
        p++;
    } else
        lx->tok.kind = out ? RD_OUT : RD_IN;
    lx->p = p;
}

/* Moves lx->tok to the next token of the line. Returns 0, or -1 after a
 * syntax error has been reported. */
static int lex(struct lexer *lx)
{
    const char *p = lx->p, *q;
    int fd = -1, twice;

    while (is_blank(*p))
        p++;
    if (*p == '#')                  /* a comment: only where a word could start */
        p += strlen(p);
    lx->p = p;
    if (*p == '\0') {
        lx->tok.type = T_END;
        return 0;
    }
    if (*p == ';' || *p == '|' || *p == '&') {
        twice = *p != ';' && p[1] == *p;                /* || or && */
        if (*p == ';')
            lx->tok.type = T_SEMI;
        else if (*p == '|')
            lx->tok.type = twice ? T_OR : T_PIPE;
        else
            lx->tok.type = twice ? T_AND : T_AMP;
        lx->p = p + 1 + twice;
        return 0;
    }
    for (q = p; isdigit((unsigned char)*q); q++)    /* "2>": the fd number of a redirection */
        fd = fd < 1000 ? (fd < 0 ? 0 : fd * 10) + (*q - '0') : fd;
    if (*q == '<' || *q == '>') {
        lx->p = q;
        lex_redir(lx, fd);
        return 0;
    }
    return lex_word(lx);
}

static const char *token_name(const struct token *t)
{
    static const char *const names[] = {
        [T_PIPE] = "|",          [T_OR] = "||",  [T_AMP] = "&",
        [T_AND] = "&&",          [T_SEMI] = ";", [T_REDIR] = "redirection",
        [T_END] = "end of line",
    };

    return t->type == T_WORD ? t->word : names[t->type];
}

/* ------------------------------------------------------------ parser */

/* A parsed line is a flat list of pipelines. Each says how it joins the
 * next: `;` or `&` end an and-or list, `&&` and `||` continue it. Every
 * command holds at least one word, so MAXWORDS bounds every pool below;
 * the spare entry is the one being filled when the lexer hits the limit. */
struct redir {
    int fd, kind;
    char *target;                   /* raw word: a file, or for RD_DUP an fd or "-" */
};

struct command {
    char **argv;                    /* raw words, NULL-terminated */
    int argc;
    struct redir *redirs;
    int nredirs;
};

struct pipeline {
    struct command *cmds;
    int ncmds;
    int next;                       /* T_SEMI, T_AMP, T_AND, T_OR, or T_END for the last */
};

static struct {
    struct pipeline pipes[MAXWORDS + 1];
    struct command cmds[MAXWORDS + 1];
    char *argv[2 * MAXWORDS];       /* every command's words and its NULL */
    struct redir redirs[MAXWORDS + 1];
    int npipes, ncmds, nargv, nredirs;
} prog;

/* command := (WORD | REDIR WORD)+ */
static int parse_command(struct lexer *lx)
{
    struct command *c = &prog.cmds[prog.ncmds];
    struct redir *r;

    c->argv = &prog.argv[prog.nargv];
    c->argc = 0;
    c->redirs = &prog.redirs[prog.nredirs];
    c->nredirs = 0;
    for (;;) {
        if (lx->tok.type == T_WORD) {
            c->argv[c->argc++] = lx->tok.word;
        } else if (lx->tok.type == T_REDIR) {
            r = &c->redirs[c->nredirs];
            r->fd = lx->tok.fd;
            r->kind = lx->tok.kind;
            if (lex(lx) < 0)
                return -1;
            if (lx->tok.type != T_WORD)
                return syntax_error("redirection without a file name (found %s)",
                                    token_name(&lx->tok));
            r->target = lx->tok.word;
            c->nredirs++;
        } else
            break;
        if (lex(lx) < 0)
            return -1;
    }
    if (c->argc == 0 && c->nredirs == 0)
        return syntax_error("unexpected %s", token_name(&lx->tok));
    c->argv[c->argc] = NULL;
    prog.nargv += c->argc + 1;
    prog.nredirs += c->nredirs;
    prog.ncmds++;
    return 0;
}

/* pipeline := command ('|' command)* */
static int parse_pipeline(struct lexer *lx)
{
    struct pipeline *pl = &prog.pipes[prog.npipes++];

    pl->cmds = &prog.cmds[prog.ncmds];
    pl->ncmds = 0;
    for (;;) {
        if (pl->ncmds == MAXSTAGES)
            return syntax_error("a pipeline of more than %d commands", MAXSTAGES);
        if (parse_command(lx) < 0)
            return -1;
        pl->ncmds++;
        if (lx->tok.type != T_PIPE)
            break;
        if (lex(lx) < 0)
            return -1;
    }
    pl->next = lx->tok.type;        /* after a command: ; & && || or the end */
    return 0;
}

/* line := pipeline (op pipeline)* [';' | '&'], into prog. Returns 0, or -1
 * after printing a syntax error (then nothing must run). */
static int parse_line(const char *line)
{
    struct lexer lx = { .p = line, .out = wordbuf };
    int op;

    prog.npipes = prog.ncmds = prog.nargv = prog.nredirs = 0;
    if (lex(&lx) < 0)
        return -1;
    if (lx.tok.type == T_END)
        return 0;
    for (;;) {
        if (parse_pipeline(&lx) < 0)
            return -1;
        op = lx.tok.type;
        if (op == T_END)
            return 0;
        if (lex(&lx) < 0)
            return -1;
        if (lx.tok.type == T_END && (op == T_SEMI || op == T_AMP)) {
            prog.pipes[prog.npipes - 1].next = op;
            return 0;
        }
    }
}

/* ------------------------------------------------------------ expansion */

/* A command's words after expansion: quotes removed, backslashes applied,
 * $ replaced. A word is one argument even if $VAR holds spaces (there is
 * no field splitting); an unquoted word that expands to nothing is dropped. */
struct expansion {
    char *argv[MAXWORDS + 1];
    int argc;
    char *targets[MAXWORDS];        /* each redirection's file name */
};

static struct {
    char buf[MAXEXPAND];
    size_t len;
    int full;
} xout;

static void put(const char *s, size_t n)
{
    if (xout.len + n > sizeof(xout.buf)) {
        xout.full = 1;
        return;
    }
    memcpy(xout.buf + xout.len, s, n);
    xout.len += n;
}

static int is_name_char(int c, int first)
{
    return isalpha(c) || c == '_' || (!first && isdigit(c));
}

/* The value of environment variable name[0, len), or NULL. */
static const char *env_lookup(const char *name, size_t len)
{
    char **e;

    for (e = environ; e && *e; e++)
        if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
            return *e + len + 1;
    return NULL;
}

/* Expands the $ at w: $? $$ $# $0..$9 $NAME ${NAME}. Anything else is a
 * plain '$'. Returns where the word goes on. */
static const char *expand_dollar(const char *w)
{
    const char *name = w + 1, *val = NULL;
    char num[16];
    size_t len = 0;

    if (*name == '?' || *name == '$' || *name == '#') {
        snprintf(num, sizeof(num), "%d",
                 *name == '?'   ? last_status
                 : *name == '$' ? getpid()
                                : nparams - 1);
        put(num, strlen(num));
        return name + 1;
    }
    if (isdigit((unsigned char)*name)) {
        if (*name - '0' < nparams)
            put(params[*name - '0'], strlen(params[*name - '0']));
        return name + 1;
    }
    if (*name == '{')
        name++;
    while (is_name_char((unsigned char)name[len], len == 0))
        len++;
    if (len == 0 || (name[-1] == '{' && name[len] != '}')) {
        put("$", 1);                /* not a parameter after all */
        return w + 1;
    }
    if ((val = env_lookup(name, len)))
        put(val, strlen(val));
    return name + len + (name[-1] == '{');
}

/* Expands one raw word into xout. Returns the result, or NULL if xout is
 * full. *quoted tells whether any part of it was quoted (then an empty
 * result is still an argument, as in `echo ""`). The lexer made sure
 * every quote is closed. */
static char *expand_word(const char *w, int *quoted)
{
    char *start = xout.buf + xout.len;
    int in_double = 0;

    *quoted = 0;
    while (*w) {
        if (*w == '\'' && !in_double) {
            *quoted = 1;
            for (w++; *w != '\''; w++)
                put(w, 1);
            w++;
        } else if (*w == '"') {
            *quoted = 1;
            in_double = !in_double;
            w++;
        } else if (*w == '\\' && w[1] && (!in_double || strchr("$\"\\`", w[1]))) {
            *quoted = 1;
            put(w + 1, 1);
            w += 2;
        } else if (*w == '$') {
            w = expand_dollar(w);
        } else {
            put(w++, 1);
        }
    }
    put("", 1);
    return xout.full ? NULL : start;
}

/* Expands all of c's words and redirection targets into x. Returns 0, or
 * -1 after saying they do not fit. */
static int expand_command(struct command *c, struct expansion *x)
{
    int i, quoted;
    char *s;

    xout.len = 0;
    xout.full = 0;
    x->argc = 0;
    for (i = 0; i < c->argc; i++) {
        if (!(s = expand_word(c->argv[i], &quoted)))
            goto full;
        if (*s || quoted)
            x->argv[x->argc++] = s;
    }
    x->argv[x->argc] = NULL;
    for (i = 0; i < c->nredirs; i++)
        if (!(x->targets[i] = expand_word(c->redirs[i].target, &quoted)))
            goto full;
    return 0;
full:
    fprintf(stderr, "sh: command longer than %d bytes after expansion\n", MAXEXPAND);
    return -1;
}

/* ------------------------------------------------------------ redirections */

/* What an fd referred to before a builtin's redirection changed it. */
struct saved_fd {
    int fd;
    int copy;                       /* where it is kept meanwhile; -1: it was closed */
    int flags;                      /* its FD_KEEP mark, which dup2 does not carry */
};

struct saved_fds {
    struct saved_fd fd[MAXWORDS];
    int n;
};

/* "3" -> 3. Anything but a plain decimal number is EBADF. */
static int parse_fd(const char *s, int *fd)
{
    char *end;
    long n = strtol(s, &end, 10);

    if (!isdigit((unsigned char)*s) || *end || n >= FD_LIMIT) {
        errno = EBADF;
        return -1;
    }
    *fd = (int)n;
    return 0;
}

/* Makes `to` refer to what `from` does, and closes `from`. */
static int move_fd(int from, int to)
{
    if (from == to)
        return to;
    if (dup2(from, to) < 0)
        return -1;
    close(from);
    return to;
}

/* Remembers what fd refers to (once per fd) in a free slot high above the
 * ones the fd builtins hand out, so `walk x > f` still prints the fd a
 * plain `walk x` would. */
static int save_fd(struct saved_fds *s, int fd)
{
    struct saved_fd *sv;
    int i, slot;

    for (i = 0; i < s->n; i++)
        if (s->fd[i].fd == fd)
            return 0;
    sv = &s->fd[s->n];
    sv->fd = fd;
    sv->copy = -1;
    if ((sv->flags = fcntl(fd, F_GETFD, 0)) >= 0) {
        for (slot = SCRIPT_FD - 1; slot > 2; slot--)
            if (slot != fd && fcntl(slot, F_GETFD, 0) < 0 && errno == EBADF)
                break;
        if (slot <= 2 || (sv->copy = dup2(fd, slot)) < 0) {
            warn("cannot save fd %d", fd);
            return -1;
        }
    }
    s->n++;
    return 0;
}

/* Undoes save_fd, newest first. */
static void restore_fds(struct saved_fds *s)
{
    struct saved_fd *sv;

    while (s->n > 0) {
        sv = &s->fd[--s->n];
        if (sv->copy < 0) {
            close(sv->fd);
        } else {
            move_fd(sv->copy, sv->fd);
            fcntl(sv->fd, F_SETFD, sv->flags);
        }
    }
}

/* Applies c's redirections in order, in this process. With `save`, first
 * records each fd that changes so restore_fds can undo it (builtins run
 * in the shell); a child passes NULL. Returns 0, or -1 after saying why. */
static int apply_redirs(struct command *c, struct expansion *x, struct saved_fds *save)
{
    static const int flags[] = {
        [RD_IN] = O_RDONLY,
        [RD_OUT] = O_WRONLY | O_CREAT | O_TRUNC,
        [RD_APPEND] = O_WRONLY | O_CREAT | O_APPEND,
    };
    struct redir *r;
    int i, fd;

    for (i = 0; i < c->nredirs; i++) {
        r = &c->redirs[i];
        if (r->fd >= FD_LIMIT) {
            errno = EBADF;
            warn("%d", r->fd);
            return -1;
        }
        if (save && save_fd(save, r->fd) < 0)
            return -1;
        if (r->kind == RD_DUP && strcmp(x->targets[i], "-") == 0) {
            close(r->fd);                               /* N>&- */
        } else if (r->kind == RD_DUP) {                 /* N>&M, N<&M */
            if (parse_fd(x->targets[i], &fd) < 0 || fcntl(fd, F_GETFD, 0) < 0 ||
                dup2(fd, r->fd) < 0) {
                warn("%s", x->targets[i]);
                return -1;
            }
        } else if ((fd = open(x->targets[i], flags[r->kind], 0644)) < 0 || move_fd(fd, r->fd) < 0) {
            warn("%s", x->targets[i]);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ builtins */

/* A builtin runs in the shell itself only if it must, to change the
 * shell (cd, export, the fd builtins, wait for the shell's own jobs): as
 * a command of its own, it runs there. Every other builtin (readfd, fds,
 * pwd, help) always runs in a child, like a program, so that ^C can stop
 * it: readfd on a FIFO may wait for ever, and ^C kills the foreground job,
 * never the shell. In a pipeline or in the background every builtin runs
 * in a child. Errors say "sh: NAME: why" and give status 1. */
struct builtin {
    const char *name;
    int (*run)(int argc, char **argv);
    int min, max;                   /* how many arguments it takes */
    int in_shell;                   /* it changes the shell: run it there */
    const char *args, *help;
};

static int fail(const char *name)
{
    warn("%s", name);
    return 1;
}

/* "sh: cd: /nope: No such file or directory": the name that failed too. */
static int fail_path(const char *name, const char *path)
{
    warn("%s: %s", name, path);
    return 1;
}

/* For the builtins that make an fd: "fd N", or the error. */
static int print_fd(const char *name, int fd)
{
    if (fd < 0)
        return fail(name);
    printf("fd %d\n", fd);
    return 0;
}

/* argv[i] as an fd number, or -1 (errno EBADF). */
static int arg_fd(char **argv, int i)
{
    int fd;

    return parse_fd(argv[i], &fd) < 0 ? -1 : fd;
}

static int b_cd(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : getenv("HOME");

    dir = dir && *dir ? dir : "/";
    if (chdir(dir) < 0)
        return fail_path(argv[0], dir);
    return 0;
}

static int b_pwd(int argc, char **argv)
{
    char cwd[PATH_MAX];

    if (!getcwd(cwd, sizeof(cwd)))
        return fail(argv[0]);
    printf("%s\n", cwd);
    return 0;
}

static int b_exit(int argc, char **argv)
{
    char *end;
    long n = argc > 1 ? strtol(argv[1], &end, 10) : last_status;

    if (argc > 1 && (*end || end == argv[1])) {
        errno = EINVAL;
        return fail(argv[0]);
    }
    exit((int)n & 0xFF);
}

/* export NAME=VALUE ...; alone, lists the environment. There are no shell
 * variables apart from it: $NAME reads the environment. */
static int b_export(int argc, char **argv)
{
    char **e, *eq;
    int i, status = 0;

    if (argc == 1)
        for (e = environ; e && *e; e++)
            printf("%s\n", *e);
    for (i = 1; i < argc; i++) {
        if (!(eq = strchr(argv[i], '=')) || eq == argv[i]) {
            errno = EINVAL;
            status = fail(argv[0]);
            continue;
        }
        *eq = '\0';                 /* the word is ours: split it in place */
        if (setenv(argv[i], eq + 1, 1) < 0)
            status = fail(argv[0]);
        *eq = '=';
    }
    return status;
}

static int status_of(int wstatus)
{
    return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}

static void report_done(int pid, int wstatus)
{
    printf("[%d] done status %d\n", pid, status_of(wstatus));
    njobs--;
}

/* Every child still running is a background job: foreground ones were
 * waited for by pid. Waiting could take for ever (`cat fifo &`), so with
 * job control a stand-in child holds the console meanwhile: ^C kills it
 * (it is the foreground job), which ends the wait and spares both the
 * shell and the jobs. Status 130 (128 + SIGINT) when ^C ended it. */
static int b_wait(int argc, char **argv)
{
    int pid, wstatus, standin = 0;

    fflush(stdout);
    if (job_control && njobs > 0 && (standin = fork()) == 0) {
        setpgid(0, 0);
        for (;;)
            sleep_ms(60000);
    }
    if (standin > 0) {
        setpgid(standin, standin);      /* the child does the same: whichever runs first */
        tcsetpgrp(standin);
    }
    while (njobs > 0 && (pid = wait(&wstatus)) > 0) {
        if (pid == standin) {
            standin = -1;               /* ^C */
            break;
        }
        report_done(pid, wstatus);
    }
    if (standin > 0) {
        kill(standin, SIGKILL);
        waitpid(standin, &wstatus, 0);
    }
    if (job_control)
        tcsetpgrp(0);
    return standin < 0 ? 128 + SIGINT : 0;
}

/* The source of a filesystem: walk + ready, read-write if it may be, else
 * read-only (a write-protected image, a read-only device). */
static int open_source(const char *path)
{
    int pathfd = walk(AT_CWD, path, 0), fd, e;

    if (pathfd < 0)
        return -1;
    fd = ready(pathfd, R_RDWR);
    if (fd < 0 && (errno == EACCES || errno == EROFS))
        fd = ready(pathfd, R_READ);
    e = errno;
    close(pathfd);
    errno = e;
    return fd;
}

/* fsopen TYPE [SRC [OPTS]]: SRC "-" (or none) means no source, as ramfs. */
static int b_fsopen(int argc, char **argv)
{
    int src = -1, fd, e;

    if (argc > 2 && strcmp(argv[2], "-") != 0 && (src = open_source(argv[2])) < 0)
        return fail_path(argv[0], argv[2]);
    fd = fsopen(argv[1], src, argc > 3 ? argv[3] : "");
    e = errno;
    if (src >= 0)
        close(src);                 /* the filesystem holds its own reference */
    errno = e;
    return print_fd(argv[0], fd);
}

static int b_walk(int argc, char **argv)
{
    int fd = walk(AT_CWD, argv[1], 0);

    return fd < 0 ? fail_path(argv[0], argv[1]) : print_fd(argv[0], fd);
}

static int b_walkat(int argc, char **argv)
{
    int dirfd = arg_fd(argv, 1), fd = dirfd < 0 ? -1 : walk(dirfd, argv[2], 0);

    return fd < 0 && dirfd >= 0 ? fail_path(argv[0], argv[2]) : print_fd(argv[0], fd);
}

/* ready FD MODE: MODE is r, w or rw, plus a for append. */
static int b_ready(int argc, char **argv)
{
    int fd = arg_fd(argv, 1), mode = 0;
    const char *m;

    for (m = argv[2]; *m; m++) {
        if (*m == 'r' || *m == 'w' || *m == 'a') {
            mode |= *m == 'r' ? R_READ : *m == 'w' ? R_WRITE : R_APPEND;
        } else {
            errno = EINVAL;
            return fail(argv[0]);
        }
    }
    if (!(mode & R_RDWR)) {
        errno = EINVAL;
        return fail(argv[0]);
    }
    return print_fd(argv[0], fd < 0 ? -1 : ready(fd, mode));
}

static int builtin_usage(const char *name);

/* bind [-a|-b] [-c] [-r] [-n] FROM TO: FROM is one of the shell's fds
 * (a number) or a path, walked and let go again (what /bin/bind does);
 * the options are bind_options' (Plan 9's). */
static int b_bind(int argc, char **argv)
{
    int flags, i = bind_options(argc, argv, &flags), fd, err;

    if (i < 0 || argc - i != 2)
        return builtin_usage(argv[0]);
    if (isdigit((unsigned char)argv[i][0]))
        fd = arg_fd(argv, i);
    else if ((fd = walk(AT_CWD, argv[i], 0)) < 0)
        return fail_path(argv[0], argv[i]);
    if (fd < 0)
        return fail(argv[0]);
    err = bind(fd, AT_CWD, argv[i + 1], flags);
    if (!isdigit((unsigned char)argv[i][0]))
        close(fd);
    return err < 0 ? fail_path(argv[0], argv[i + 1]) : 0;
}

static int b_unbind(int argc, char **argv)
{
    int fd = unbind(AT_CWD, argv[1]);

    return fd < 0 ? fail_path(argv[0], argv[1]) : print_fd(argv[0], fd);
}

/* revoke, fchroot, fchdir and close all take one fd and return 0 or -1. */
static int fd_call(char **argv, int (*call)(int fd))
{
    int fd = arg_fd(argv, 1);

    if (fd < 0 || call(fd) < 0)
        return fail(argv[0]);
    return 0;
}

static int b_revoke(int argc, char **argv)
{
    return fd_call(argv, revoke);
}

static int b_fchroot(int argc, char **argv)
{
    return fd_call(argv, fchroot);
}

static int b_fchdir(int argc, char **argv)
{
    return fd_call(argv, fchdir);
}

static int b_close(int argc, char **argv)
{
    return fd_call(argv, close);
}

static int b_keep(int argc, char **argv)
{
    int fd = arg_fd(argv, 1);

    if (fd < 0 || fcntl(fd, F_SETFD, FD_KEEP) < 0)
        return fail(argv[0]);
    return 0;
}

static int b_unshare(int argc, char **argv)
{
    return unshare() < 0 ? fail(argv[0]) : 0;
}

/* Prints /proc/self/fd, less the line for the fd that reads it. It runs
 * in a child, whose fds are a copy of the shell's (and its redirections). */
static int b_fds(int argc, char **argv)
{
    char buf[2048], *line, *next;
    int fd, n, len = 0;

    if ((fd = open("/proc/self/fd", O_RDONLY)) < 0)
        return fail(argv[0]);
    while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
        len += n;
    close(fd);
    if (n < 0)
        return fail(argv[0]);
    buf[len] = '\0';
    for (line = buf; *line; line = next) {
        n = strcspn(line, "\n");
        next = line + n + (line[n] == '\n');
        if (atoi(line) != fd) {
            fwrite(line, 1, n, stdout);
            putchar('\n');
        }
    }
    return 0;
}

/* readfd FD: what cat would do, for an fd the shell holds. */
static int b_readfd(int argc, char **argv)
{
    int fd = arg_fd(argv, 1);

    fflush(stdout);
    if (fd < 0 || fdcopy(fd, STDOUT_FILENO) < 0)
        return fail(argv[0]);
    return 0;
}

/* history: the lines typed at this shell's prompt, numbered from the
 * first; the last EDIT_HISTORY are kept (Up and Down recall them). */
static int b_history(int argc, char **argv)
{
    int n = editor.nhistory > EDIT_HISTORY ? editor.nhistory - EDIT_HISTORY : 0;

    for (; n < editor.nhistory; n++)
        printf("%5d  %s\n", n + 1, editor.history[n % EDIT_HISTORY]);
    return 0;
}

static int b_help(int argc, char **argv);

static const struct builtin builtins[] = {
    { "cd", b_cd, 0, 1, 1, "[DIR]", "change directory (default $HOME, else /)" },
    { "pwd", b_pwd, 0, 0, 0, "", "print the current directory" },
    { "exit", b_exit, 0, 1, 1, "[N]", "leave the shell with status N (default $?)" },
    { "export", b_export, 0, MAXWORDS, 1, "[NAME=VALUE ...]", "set variables; alone, list them" },
    { "help", b_help, 0, 0, 0, "", "list the builtins" },
    { "history", b_history, 0, 0, 0, "", "list the lines typed so far (Up recalls them)" },
    { "wait", b_wait, 0, 0, 1, "", "wait for every background job" },
    { "fsopen", b_fsopen, 1, 3, 1, "TYPE [SRC [OPTS]]", "new filesystem from SRC (or none) -> fd" },
    { "walk", b_walk, 1, 1, 1, "PATH", "a path-only fd on PATH -> fd" },
    { "walkat", b_walkat, 2, 2, 1, "FD PATH", "walk PATH from directory FD -> fd" },
    { "ready", b_ready, 2, 2, 1, "FD r|w|rw[a]", "ready path fd FD for I/O -> new fd" },
    { "bind", b_bind, 2, 6, 1, BIND_OPTIONS " FD|PATH PATH", "attach FD (or PATH) there" },
    { "unbind", b_unbind, 1, 1, 1, "PATH", "detach what is at PATH -> fd on it" },
    { "revoke", b_revoke, 1, 1, 1, "FD", "force-unmount the filesystem FD is in" },
    { "fchroot", b_fchroot, 1, 1, 1, "FD", "make directory FD the shell's root" },
    { "fchdir", b_fchdir, 1, 1, 1, "FD", "make directory FD the current directory" },
    { "close", b_close, 1, 1, 1, "FD", "close one of the shell's fds" },
    { "keep", b_keep, 1, 1, 1, "FD", "let commands inherit FD (FD_KEEP)" },
    { "unshare", b_unshare, 0, 0, 1, "", "give the shell a private namespace" },
    { "fds", b_fds, 0, 0, 0, "", "list the shell's fds (/proc/self/fd)" },
    { "readfd", b_readfd, 1, 1, 0, "FD", "copy what FD reads to standard output" },
};
#define NBUILTINS ((int)(ARRAY_SIZE(builtins)))

static int b_help(int argc, char **argv)
{
    char synopsis[64];
    int i;

    for (i = 0; i < NBUILTINS; i++) {
        snprintf(synopsis, sizeof(synopsis), "%s %s", builtins[i].name, builtins[i].args);
        printf("  %-40s %s\n", synopsis, builtins[i].help);
    }
    return 0;
}

static const struct builtin *find_builtin(const char *name)
{
    int i;

    for (i = 0; i < NBUILTINS; i++)
        if (strcmp(builtins[i].name, name) == 0)
            return &builtins[i];
    return NULL;
}

/* The one usage line of a builtin, from its table entry: for a wrong
 * count of arguments and for what the builtin itself refuses (bind's
 * options). Status 2, as usage(3) exits with. */
static int builtin_usage(const char *name)
{
    const struct builtin *b = find_builtin(name);

    fprintf(stderr, "sh: usage: %s %s\n", b->name, b->args);
    return 2;
}

/* Checks the argument count, runs b, and flushes what it printed. Output
 * that could not be written (`walk x 1>&-`) is this builtin's error, and
 * is cleared: left set, exit() would report it when the shell ends. */
static int run_builtin(const struct builtin *b, int argc, char **argv)
{
    int status;

    if (argc - 1 < b->min || argc - 1 > b->max)
        return builtin_usage(b->name);
    status = b->run(argc, argv);
    if (fflush(stdout) == EOF || ferror(stdout)) {
        warn("%s: write error", b->name);
        clearerr(stdout);
        status = status ? status : 1;
    }
    return status;
}

/* ------------------------------------------------------------ executor */

/* In a forked child: gives the command its redirections and runs it, as
 * a builtin or a program. Only 0, 1, 2 and the redirected fds are marked
 * FD_KEEP, so the program gets those and the fds the user kept: nothing
 * else of the shell's crosses exec. Never returns. */
static void exec_command(struct command *c, struct expansion *x)
{
    const struct builtin *b;
    int i;

    if (apply_redirs(c, x, NULL) < 0)
        _exit(1);
    if (x->argc == 0)
        _exit(0);
    if ((b = find_builtin(x->argv[0]))) {
        job_control = njobs = 0;        /* not the shell: no console, no jobs of its own */
        exit(run_builtin(b, x->argc, x->argv));
    }
    keepstdio();
    for (i = 0; i < c->nredirs; i++)
        fcntl(c->redirs[i].fd, F_SETFD, FD_KEEP);   /* a closed one is no error */
    execvp(x->argv[0], x->argv);
    if (errno == ENOENT && !strchr(x->argv[0], '/'))
        fprintf(stderr, "sh: %s: command not found\n", x->argv[0]);
    else
        warn("%s", x->argv[0]);
    _exit(errno == ENOENT ? 127 : 126);
}

/* A builtin (or a command of redirections only) in the shell itself: its
 * redirections last as long as it runs. */
static int run_in_shell(struct command *c, struct expansion *x)
{
    struct saved_fds saved = { .n = 0 };
    int status = 1;

    if (apply_redirs(c, x, &saved) == 0)
        status = x->argc ? run_builtin(find_builtin(x->argv[0]), x->argc, x->argv) : 0;
    fflush(stdout);
    restore_fds(&saved);
    return status;
}

/* The status of a job, and a word if a signal other than ^C's killed it
 * (the console has already echoed "^C"). */
static int job_status(int wstatus)
{
    int sig = WTERMSIG(wstatus);

    if (WIFSIGNALED(wstatus) && sig != SIGINT)
        fprintf(stderr, "%s (signal %d)\n", strsignal(sig), sig);
    return status_of(wstatus);
}

/* Starts the stages of pl, joined by pipes, and waits for them all; the
 * status is the last one's. With job control, the stages form one process
 * group that has the console (and its ^C) until they are done. A lone
 * builtin that changes the shell runs in the shell instead. */
static int run_pipeline(struct pipeline *pl)
{
    static struct expansion x;
    int pids[MAXSTAGES], n = pl->ncmds, pgid = 0, in = -1, p[2], i, started, wstatus;
    const struct builtin *b;
    int status = 1;

    if (n == 1) {
        if (expand_command(&pl->cmds[0], &x) < 0)
            return 1;
        if (x.argc == 0 || ((b = find_builtin(x.argv[0])) && b->in_shell))
            return run_in_shell(&pl->cmds[0], &x);
    }
    fflush(stdout);                 /* or the children would print it again */
    for (i = 0; i < n; i++) {
        p[0] = p[1] = -1;
        if (i < n - 1 && pipe(p) < 0) {
            warn("pipe");
            break;
        }
        if ((pids[i] = fork()) == 0) {
            if (job_control)
                setpgid(0, pgid);
            if (in >= 0)
                move_fd(in, STDIN_FILENO);
            if (p[1] >= 0) {
                close(p[0]);
                move_fd(p[1], STDOUT_FILENO);
            }
            if (n > 1 && expand_command(&pl->cmds[i], &x) < 0)
                _exit(1);
            exec_command(&pl->cmds[i], &x);
        }
        if (pids[i] < 0) {
            warn("fork");
            if (p[0] >= 0) {
                close(p[0]);
                close(p[1]);
            }
            break;
        }
        if (job_control) {          /* the child does the same: whichever runs first */
            pgid = pgid ? pgid : pids[i];
            setpgid(pids[i], pgid);
            if (i == 0)
                tcsetpgrp(pgid);
        }
        if (in >= 0)
            close(in);
        if (p[1] >= 0)
            close(p[1]);
        in = p[0];
    }
    if (in >= 0)
        close(in);
    started = i;
    for (i = 0; i < started; i++)
        if (waitpid(pids[i], &wstatus, 0) == pids[i] && i == n - 1)
            status = job_status(wstatus);
    if (job_control)
        tcsetpgrp(0);               /* no job in front: ^C only clears the line */
    return status;
}

/* Runs n pipelines joined by && and ||, left to right: each runs only if
 * the status so far allows it. Leaves the status in $?. */
static void run_and_or(struct pipeline *pl, int n)
{
    int i;

    last_status = run_pipeline(&pl[0]);
    for (i = 1; i < n; i++) {
        if (pl[i - 1].next == T_AND && last_status != 0)
            continue;
        if (pl[i - 1].next == T_OR && last_status == 0)
            continue;
        last_status = run_pipeline(&pl[i]);
    }
}

/* `list &`: one child runs the whole and-or list (execing directly if it
 * is one command) in its own process group, so the next ^C spares it. It
 * reads /dev/null, not the console: while a job is in front the kernel
 * refuses a background read (EIO, tcsetpgrp(2)), but at the prompt no
 * group is, and the job would take the lines typed for the shell. */
static void run_background(struct pipeline *pl, int n)
{
    static struct expansion x;
    int pid, fd;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        if (job_control)
            setpgid(0, 0);
        job_control = interactive = 0;
        if ((fd = open("/dev/null", O_RDONLY)) >= 0)
            move_fd(fd, STDIN_FILENO);
        if (n == 1 && pl->ncmds == 1) {
            if (expand_command(&pl->cmds[0], &x) < 0)
                _exit(1);
            exec_command(&pl->cmds[0], &x);
        }
        run_and_or(pl, n);
        exit(last_status);
    }
    if (pid < 0) {
        warn("fork");
        last_status = 1;
        return;
    }
    if (job_control)
        setpgid(pid, pid);
    printf("[%d]\n", pid);
    njobs++;
    last_status = 0;
}

/* Parses and runs one line. A syntax error runs nothing and gives status 2. */
static void run_line(const char *line)
{
    int i, j;

    if (parse_line(line) < 0) {
        last_status = 2;
        return;
    }
    for (i = 0; i < prog.npipes; i = j + 1) {
        for (j = i; prog.pipes[j].next == T_AND || prog.pipes[j].next == T_OR; j++)
            ;
        if (prog.pipes[j].next == T_AMP)
            run_background(&prog.pipes[i], j - i + 1);
        else
            run_and_or(&prog.pipes[i], j - i + 1);
    }
}

/* Reaps the background jobs that have finished, saying so. */
static void reap_jobs(void)
{
    int pid, wstatus;

    while ((pid = waitpid(WAIT_ANY, &wstatus, WNOHANG)) > 0)
        report_done(pid, wstatus);
    fflush(stdout);
}

/* ------------------------------------------------------------ main */

/* sh -c CMD: each line of CMD in turn. */
static void run_string(const char *s)
{
    char line[MAXLINE + 1];
    size_t n;

    for (; *s; s += n + (s[n] == '\n')) {
        n = strcspn(s, "\n");
        if (n > MAXLINE) {
            fprintf(stderr, "sh: line longer than %d bytes\n", MAXLINE);
            last_status = 2;
            continue;
        }
        memcpy(line, s, n);
        line[n] = '\0';
        run_line(line);
        reap_jobs();
    }
}

/* The next command line, as read_line returns it. At the console it is
 * edited (history, Tab completion) after a prompt naming the current
 * directory; if the console cannot be put in raw mode, the prompt is
 * printed and the line read cooked. */
static int next_line(struct reader *in, char *line)
{
    char cwd[PATH_MAX], prompt[PATH_MAX + 4];
    int r;

    if (!interactive)
        return read_line(in, line);
    snprintf(prompt, sizeof(prompt), "%s $ ", getcwd(cwd, sizeof(cwd)) ? cwd : "?");
    fflush(stdout);
    if (editing && (r = edit_line(&editor, prompt, line, MAXLINE + 1)) >= 0)
        return r == EDIT_TOO_LONG ? -1 : r;
    fputs(prompt, stdout);
    fflush(stdout);
    return read_line(in, line);
}

/* sh: read the console; sh FILE [ARG...]: run a script with $1... set;
 * sh -c CMD [ARG...]: run CMD. The exit status is the last command's. */
int main(int argc, char *argv[])
{
    static struct reader in;
    static char line[MAXLINE + 1];
    static const char *names[NBUILTINS + 1];
    char *cmd;
    int fd, r, i;

    params = argv;
    nparams = argc;
    if (argc > 1 && strcmp(argv[1], "-c") == 0) {
        if (argc < 3)
            usage("[-c command | file] [arg ...]");
        cmd = argv[2];
        argv[2] = argv[0];          /* $0 stays "sh"; $1 is the first ARG */
        params = argv + 2;
        nparams = argc - 2;
        run_string(cmd);
        exit(last_status);
    }
    if (argc > 1) {
        if ((fd = open(argv[1], O_RDONLY)) < 0)
            err(127, "%s", argv[1]);
        in.fd = move_fd(fd, SCRIPT_FD) < 0 ? fd : SCRIPT_FD;
        params = argv + 1;
        nparams = argc - 1;
    } else {
        in.fd = STDIN_FILENO;
        interactive = isatty(STDIN_FILENO);
    }
    if (interactive) {              /* our own group; ^C goes to each job, never to us */
        job_control = 1;
        setpgid(0, 0);
        tcsetpgrp(0);
        editing = isatty(STDOUT_FILENO);
        for (i = 0; i < NBUILTINS; i++)
            names[i] = builtins[i].name;
        editor.commands = names;    /* Tab completes them as well as /bin's programs */
    }
    for (;;) {
        reap_jobs();
        if ((r = next_line(&in, line)) == 0)
            break;
        if (r < 0) {
            fprintf(stderr, "sh: line longer than %d bytes\n", MAXLINE);
            last_status = 2;
            continue;
        }
        run_line(line);
    }
    if (interactive)
        putchar('\n');
    exit(last_status);
}
