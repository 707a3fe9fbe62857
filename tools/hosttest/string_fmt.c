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

/* memcpy, memmove and memset move words and then the odd bytes: every
 * length up to 40 at every offset up to 3 must change exactly the bytes
 * asked for, and memmove must survive overlaps that are not a multiple
 * of the word either way. */
static void copies_and_fills_every_length_and_offset(void)
{
    unsigned char src[64], dst[64], want[64];
    int off, len, i, shift;

    for (i = 0; i < 64; i++)
        src[i] = (unsigned char)(i * 7 + 3);
    for (off = 0; off < 4; off++) {
        for (len = 0; len <= 40; len++) {
            for (i = 0; i < 64; i++)
                dst[i] = want[i] = 0xEE;
            for (i = 0; i < len; i++)
                want[off + i] = src[(off + 1) % 4 + i];
            k_memcpy(dst + off, src + (off + 1) % 4, len);
            CHECK(k_memcmp(dst, want, 64) == 0, "memcpy of %d bytes at offset %d", len, off);
            for (i = 0; i < len; i++)
                want[off + i] = 0xA5;
            k_memset(dst + off, 0xA5, len);
            CHECK(k_memcmp(dst, want, 64) == 0, "memset of %d bytes at offset %d", len, off);
            if (len > 0) {
                want[off + len - 1] = 0xA4;     /* the last byte differs, and only it */
                CHECK(k_memcmp(dst + off, want + off, len) > 0 &&
                          k_memcmp(want + off, dst + off, len) < 0 &&
                          k_memcmp(dst + off, want + off, len - 1) == 0,
                      "memcmp of %d bytes at offset %d", len, off);
                want[off + len - 1] = 0xA5;
            }
        }
    }
    for (shift = -5; shift <= 5; shift++) {
        for (len = 0; len <= 40; len++) {
            unsigned char buf[64];
            for (i = 0; i < 64; i++)
                buf[i] = want[i] = src[i];
            for (i = 0; i < len; i++)
                want[10 + shift + i] = src[10 + i];
            k_memmove(buf + 10 + shift, buf + 10, len);
            CHECK(k_memcmp(buf, want, 64) == 0, "memmove of %d bytes by %d", len, shift);
        }
    }
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
    copies_and_fills_every_length_and_offset();
    strlcpy_truncates_and_reports_length();
    string_compare_and_search();
    fmt_integers_and_padding();
    fmt_strings_chars_and_unknowns();
    fmt_truncates_like_c99();
    return check_failures != 0;
}
