/* sync - write every filesystem's cached blocks to its device. */
#include <err.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    if (argc > 1)
        usage("");
    if (sync() < 0)
        err(1, "sync");
    return 0;
}
