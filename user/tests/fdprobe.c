/* fdprobe - tell what descriptors this program was started with. Lab 06's
 * tests (and t_proc) exec it and read its report, a line such as
 *
 *     fds 8k 9k 14
 *
 * listing every open fd, with "k" when it is marked FD_KEEP. It probes
 * with fcntl(F_GETFD) and opens nothing, so the report is exactly the
 * table exec gave it; and it writes to the fd named on its command line,
 * never assuming that 0, 1 and 2 are open.
 *
 *     fdprobe OUT [again] [hold IN]
 *
 * again: after the report, exec fdprobe once more (without "again"), to
 *        show what survives a second exec;
 * hold:  then wait on fd IN: each byte read asks for another report,
 *        end of file ends the program. The test decides when it exits. */
#include <fcntl.h>
#include <orthos.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int report(int out)
{
    char line[8 * OPEN_MAX + 8];
    int fd, flags, len = snprintf(line, sizeof(line), "fds");

    for (fd = 0; fd < OPEN_MAX; fd++)
        if ((flags = fcntl(fd, F_GETFD, 0)) >= 0)
            len +=
                snprintf(line + len, sizeof(line) - len, " %d%s", fd, (flags & FD_KEEP) ? "k" : "");
    line[len++] = '\n';
    return write(out, line, len) == len ? 0 : -1;
}

int main(int argc, char *argv[])
{
    char *args[6] = { "fdprobe" }, c;
    int out, in = -1, again = 0, i, n = 1, prog;

    if (argc < 2)
        return 2;
    out = atoi(argv[1]);
    args[n++] = argv[1];
    for (i = 2; i < argc; i++) {
        if (strcmp(argv[i], "again") == 0) {
            again = 1;
        } else if (strcmp(argv[i], "hold") == 0 && i + 1 < argc) {
            in = atoi(argv[i + 1]);
            args[n++] = argv[i];
            args[n++] = argv[++i];
        } else {
            return 2;
        }
    }
    args[n] = NULL;
    if (report(out) < 0)
        return 3;
    if (again) {                        /* a path fd, not kept: gone after the exec */
        if ((prog = walk(AT_CWD, "/bin/fdprobe", 0)) >= 0)
            exec(prog, args, NULL);
        return 4;
    }
    while (in >= 0 && read(in, &c, 1) == 1)
        if (report(out) < 0)
            return 3;
    return 0;
}
