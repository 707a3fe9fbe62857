/* truncate - set the length of files, shorter or longer (the gap reads as
 * zeros): open + ftruncate, the only call in Orthos that truncates. A
 * missing file is created. SIZE is bytes, or with K or M. */
#include <err.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/* "10", "4K", "1M" -> bytes; -1 if not a size, or more than an off_t
 * holds. The limit is checked before the shift: unsigned long has 32
 * bits, and 4096M shifted is 2^32, which wraps to 0. */
static long parse_size(const char *s)
{
    unsigned long n, max = 0x7fffffff;
    int shift = 0;
    char *end;

    n = strtoul(s, &end, 10);
    if (end == s)
        return -1;
    if (*end == 'K' || *end == 'k')
        shift = 10, end++;
    else if (*end == 'M' || *end == 'm')
        shift = 20, end++;
    return *end || n > max >> shift ? -1 : (long)(n << shift);
}

int main(int argc, char *argv[])
{
    long size = -1;
    int c, i, fd, status = 0;

    while ((c = getopt(argc, argv, "s:")) != -1) {
        if (c != 's' || (size = parse_size(optarg)) < 0)
            usage("-s size file ...");
    }
    if (size < 0 || optind == argc)
        usage("-s size file ...");
    for (i = optind; i < argc; i++) {
        if ((fd = open(argv[i], O_WRONLY | O_CREAT, 0644)) < 0 || ftruncate(fd, size) < 0) {
            warn("%s", argv[i]);
            status = 1;
        }
        if (fd >= 0)
            close(fd);
    }
    return status;
}
