/* unbind - detach the attachment at a path. The system call returns an fd
 * on what was attached; a program can only show its number and close it
 * (the shell's unbind builtin keeps it, to bind elsewhere or revoke). */
#include <err.h>
#include <orthos.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    int fd;

    if (argc != 2)
        usage("path");
    if ((fd = unbind(AT_CWD, argv[1])) < 0)
        err(1, "%s", argv[1]);
    printf("fd %d\n", fd);
    close(fd);
    return 0;
}
