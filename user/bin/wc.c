/* wc - count lines, words and bytes of files (or standard input), with a
 * total when there is more than one file. -l, -w, -c pick the counts. */
#include <ctype.h>
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int lflag, wflag, cflag;
static unsigned total[3];

static void report(const unsigned n[3], const char *name)
{
    if (lflag)
        printf(" %7u", n[0]);
    if (wflag)
        printf(" %7u", n[1]);
    if (cflag)
        printf(" %7u", n[2]);
    if (name)
        printf(" %s", name);
    putchar('\n');
}

static int wc(const char *path)
{
    static char buf[4096];
    unsigned n[3] = { 0, 0, 0 };
    int fd = path ? open(path, O_RDONLY) : STDIN_FILENO, len, i, inword = 0;

    if (fd < 0) {
        warn("%s", path);
        return 1;
    }
    while ((len = read(fd, buf, sizeof(buf))) > 0) {
        n[2] += len;
        for (i = 0; i < len; i++) {
            n[0] += buf[i] == '\n';
            if (isspace((unsigned char)buf[i]))
                inword = 0;
            else if (!inword) {
                inword = 1;
                n[1]++;
            }
        }
    }
    if (len < 0)
        warn("%s", path ? path : "stdin");
    if (fd != STDIN_FILENO)
        close(fd);
    report(n, path);
    for (i = 0; i < 3; i++)
        total[i] += n[i];
    return len < 0;
}

int main(int argc, char *argv[])
{
    int c, i, status = 0;

    while ((c = getopt(argc, argv, "lwc")) != -1) {
        if (c == 'l')
            lflag = 1;
        else if (c == 'w')
            wflag = 1;
        else if (c == 'c')
            cflag = 1;
        else
            usage("[-lwc] [file ...]");
    }
    if (!lflag && !wflag && !cflag)
        lflag = wflag = cflag = 1;
    if (optind == argc)
        return wc(NULL);
    for (i = optind; i < argc; i++)
        status |= wc(argv[i]);
    if (argc - optind > 1)
        report(total, "total");
    return status;
}
