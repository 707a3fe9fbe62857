/* string_fmt.c - host tests for the string helpers and the printf engine
 * that the kernel and libc share (kernel/lib/string.c, kernel/lib/fmt.c). */
#include "check.h"
#include "kstring.h"

static int eq(const char *a, const char *b)
{
    return k_strcmp(a, b) == 0;
}

static void memmove_handles_overlap(void)
{
    char buf[16] = "abcdefgh";

    k_memmove(buf + 2, buf, 6);
    CHECK(k_memcmp(buf, "ababcdef", 8) == 0, "forward overlap gave '%.8s'", buf);
    k_memmove(buf, buf + 2, 6);
    CHECK(k_memcmp(buf, "abcdefef", 8) == 0, "backward overlap gave '%.8s'", buf);
    PASS();
}

static void strlcpy_truncates_and_reports_length(void)
{
    char buf[5];

    CHECK(k_strlcpy(buf, "orthos", sizeof(buf)) == 6, "return value");
    CHECK(eq(buf, "orth"), "got '%s'", buf);
    CHECK(k_strlcat(buf, "xyz", sizeof(buf)) == 7 && eq(buf, "orth"), "strlcat when full");
    k_strlcpy(buf, "ab", sizeof(buf));
    CHECK(k_strlcat(buf, "cd", sizeof(buf)) == 4 && eq(buf, "abcd"), "strlcat fits");
    PASS();
}

static void string_compare_and_search(void)
{
    CHECK(k_strcmp("abc", "abd") < 0 && k_strcmp("b", "a") > 0 && k_strcmp("", "") == 0, "strcmp");
    CHECK(k_strncmp("abcX", "abcY", 3) == 0 && k_strncmp("a", "b", 0) == 0, "strncmp");
    CHECK(k_strcmp("\xff", "a") > 0, "strcmp must compare as unsigned char");
    CHECK(k_strrchr("/bin/ls", '/') && eq(k_strrchr("/bin/ls", '/'), "/ls"), "strrchr");
    CHECK(k_strchr("abc", '\0') && *k_strchr("abc", '\0') == '\0', "strchr of NUL");
    CHECK(k_strchr("abc", 'z') == NULL, "strchr miss");
    CHECK(k_strnlen("abcdef", 3) == 3, "strnlen");
    PASS();
}

static void fmt_integers_and_padding(void)
{
    char buf[128];

    k_snprintf(buf, sizeof(buf), "%d %i %u %x %X %o", -7, 42, 4000000000u, 255u, 255u, 8u);
    CHECK(eq(buf, "-7 42 4000000000 ff FF 10"), "got '%s'", buf);
    k_snprintf(buf, sizeof(buf), "[%5d][%-5d][%05d][%*d]", 42, 42, -42, 4, 7);
    CHECK(eq(buf, "[   42][42   ][-0042][   7]"), "got '%s'", buf);
    k_snprintf(buf, sizeof(buf), "%d %ld", -2147483647 - 1, 123456789L);
    CHECK(eq(buf, "-2147483648 123456789"), "INT_MIN: got '%s'", buf);
    PASS();
}

static void fmt_strings_chars_and_unknowns(void)
{
    char buf[64];

    k_snprintf(buf, sizeof(buf), "%s|%.3s|%-4s|%4s|%c|%%|%q", "hi", "orthos", "a", "b", 'x');
    CHECK(eq(buf, "hi|ort|a   |   b|x|%|%q"), "got '%s'", buf);
    k_snprintf(buf, sizeof(buf), "[%.*s][%*s]", 3, "abcdef", 3, "z");
    CHECK(eq(buf, "[abc][  z]"), "star precision/width: '%s'", buf);
    k_snprintf(buf, sizeof(buf), "%s", (char *)0);
    CHECK(eq(buf, "(null)"), "NULL string: '%s'", buf);
    PASS();
}

static void fmt_truncates_like_c99(void)
{
    char buf[6];

    CHECK(k_snprintf(buf, sizeof(buf), "%s", "0123456789") == 10, "return value");
    CHECK(eq(buf, "01234"), "got '%s'", buf);
    CHECK(k_snprintf(NULL, 0, "%d", 12345) == 5, "size 0 must only count");
    PASS();
}

int main(void)
{
    memmove_handles_overlap();
    strlcpy_truncates_and_reports_length();
    string_compare_and_search();
    fmt_integers_and_padding();
    fmt_strings_chars_and_unknowns();
    fmt_truncates_like_c99();
    return check_failures != 0;
}
