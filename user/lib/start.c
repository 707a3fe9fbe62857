/* start.c - how a program begins and ends. crt0.asm calls libc_start with
 * what exec put on the stack; exit() is the one way out that flushes
 * stdio (_exit skips it, which is what a child after fork wants). stdio
 * flushes through a hook it sets when it first buffers output, so that a
 * program that never writes through stdio links none of it; if output
 * was lost, the hook has said so and the status is not 0. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv, char **envp);
void libc_start(int argc, char **argv, char **envp) __attribute__((noreturn));

char **environ;
const char *progname = "?";
int (*libc_exit_flush)(void);           /* set by stdio (stdio.c, put_bytes) */

void libc_start(int argc, char **argv, char **envp)
{
    environ = envp;
    if (argc > 0 && argv[0]) {
        const char *slash = strrchr(argv[0], '/');
        progname = slash ? slash + 1 : argv[0];
    }
    exit(main(argc, argv, envp));
}

void exit(int code)
{
    if (libc_exit_flush && libc_exit_flush() < 0 && code == 0)
        code = EXIT_FAILURE;
    _exit(code);
}
