/* sleep - wait for some seconds: a whole number, or a decimal like 0.5
 * (to the millisecond: the kernel's sleep takes milliseconds). */
#include <ctype.h>
#include <err.h>
#include <unistd.h>

/* "1.25" -> 1250; -1 if s is not a number of seconds that fits. */
static long parse_ms(const char *s)
{
    unsigned long ms = 0, scale;
    int digits = 0;

    for (; isdigit((unsigned char)*s); s++, digits++) {
        ms = ms * 10 + (*s - '0');
        if (ms > 2000000)                       /* 23 days is plenty */
            return -1;
    }
    ms *= 1000;
    if (*s == '.')
        for (s++, scale = 100; isdigit((unsigned char)*s); s++, scale /= 10, digits++)
            ms += (*s - '0') * scale;
    return *s || digits == 0 ? -1 : (long)ms;   /* "." and "" are no number */
}

int main(int argc, char *argv[])
{
    long ms;

    if (argc != 2 || (ms = parse_ms(argv[1])) < 0)
        usage("seconds");
    if (sleep_ms(ms) < 0)
        err(1, "sleep");
    return 0;
}
