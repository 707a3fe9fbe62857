/* bench_exec.c - `bench_exec N`: exec itself N more times, then exit. A
 * small program for make bench's exec row (user/tests/bench.c times a
 * chain of 100). The count is decremented as a decimal string in place. */
#include <unistd.h>

int main(int argc, char **argv)
{
    char *d;

    if (argc < 2)
        return 2;
    for (d = argv[1]; d[1]; d++)
        ;
    if (argv[1][0] == '0' && !argv[1][1])
        return 0;
    while (*d == '0')
        *d-- = '9';
    (*d)--;
    if (argv[1][0] == '0' && argv[1][1])
        argv[1]++;                      /* "100" -> "099" -> "99" */
    execv("/bin/bench_exec", argv);
    return 127;
}
