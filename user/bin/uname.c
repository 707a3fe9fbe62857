/* uname - print the system's name (-s, the default), its node name (-n),
 * release (-r), the machine (-m), or all of them (-a), in that order. The
 * values are the kernel's (uapi/version.h); Orthos has no host name, so
 * the node name is always "orthos". */
#include <err.h>
#include <stdio.h>
#include <unistd.h>
#include "uapi/version.h"
#include "array_size.h"

static const struct {
    char opt;
    const char *value;
} fields[] = {
    { 's', ORTHOS_SYSNAME },
    { 'n', "orthos" },
    { 'r', ORTHOS_VERSION },
    { 'm', ORTHOS_MACHINE },
};
#define NFIELDS ((int)(ARRAY_SIZE(fields)))

int main(int argc, char *argv[])
{
    int want[NFIELDS] = { 0 }, any = 0, c, i;
    const char *sep = "";

    while ((c = getopt(argc, argv, "asnrm")) != -1) {
        if (c == '?')
            usage("[-asnrm]");
        for (i = 0; i < NFIELDS; i++)
            want[i] |= c == 'a' || c == fields[i].opt;
        any = 1;
    }
    if (optind != argc)
        usage("[-asnrm]");
    want[0] |= !any;
    for (i = 0; i < NFIELDS; i++) {
        if (want[i]) {
            printf("%s%s", sep, fields[i].value);
            sep = " ";
        }
    }
    putchar('\n');
    return 0;
}
