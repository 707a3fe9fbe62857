/* copy.c - moving bytes between descriptors: the loops cat, cp, mv and
 * stdio would otherwise each write for themselves. */
#include <errno.h>
#include <fcntl.h>
#include <orthos.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* write() may take less than asked (a pipe with little room): go on until
 * all of it is out. Every output of libc ends here (stdio, fdcopy), so
 * this is where a pipe whose reader has gone ends the program: quietly,
 * with status EXIT_EPIPE, as SIGPIPE does on Unix - `cat big | head -1` is
 * not an error to report. Orthos has no SIGPIPE (signals cannot be
 * ignored, and a program must be able to see EPIPE: it calls write()
 * itself); see doc/decisions.md. */
int writeall(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    int w;

    for (; n > 0; p += w, n -= w) {
        if ((w = write(fd, p, n)) < 0 && errno == EPIPE)
            _exit(EXIT_EPIPE);      /* not exit(): flushing would write there again */
        if (w < 0)
            return -1;
        if (w == 0) {
            errno = EIO;                /* no progress: do not spin */
            return -1;
        }
    }
    return 0;
}

/* 0 at the end of in; -1 if reading failed, -2 if writing did, so that a
 * message can name the side at fault (cat: a full disk is stdout's). */
int fdcopy(int in, int out)
{
    static char buf[4096];
    int n;

    while ((n = read(in, buf, sizeof(buf))) > 0)
        if (writeall(out, buf, n) < 0)
            return -2;
    return n < 0 ? -1 : 0;
}

/* open + fstat + open(O_CREAT | O_TRUNC) + fdcopy: the new file gets the
 * old one's permission bits. A directory is refused with EISDIR. open
 * cannot write a file it makes without owner write (0444: open(3),
 * CAVEATS), so for a user such a copy is made with it, filled, and only
 * then given the old bits (fchmod); a file already there keeps its own. */
int copyfile(const char *from, const char *to)
{
    int flags = O_WRONLY | O_CREAT | O_TRUNC, in, out = -1, ret = -1, mode, lent = 0;
    struct stat st;

    if ((in = open(from, O_RDONLY)) < 0)
        return -1;
    if (fstat(in, &st) < 0)
        goto out;
    if (S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        goto out;
    }
    mode = st.st_mode & 07777;
    if ((out = open(to, flags, mode)) < 0 && errno == EACCES && !(mode & 0200))
        lent = (out = open(to, flags, mode | 0200)) >= 0;  /* owner write, lent */
    if (out < 0)
        goto out;
    ret = fdcopy(in, out) < 0 ? -1 : 0;
    if (ret == 0 && lent)
        ret = fchmod(out, mode);
out:
    close(in);
    if (out >= 0)
        close(out);
    return ret;
}
