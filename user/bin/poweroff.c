/* poweroff - sync and turn the machine off (under QEMU: exit it). */
#include <err.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    if (argc > 1)
        usage("");
    sync();
    poweroff(0);
    err(1, "poweroff");
}
