/* t.h - the in-guest test helpers. A test function prints exactly one line:
 * "PASS name" or "FAIL name: why". tools/test.py collects them from the
 * serial console; the program ends with "<prog>: done". */
#ifndef USER_TESTS_T_H
#define USER_TESTS_T_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int t_failures;

#define CHECK(cond, ...) \
    do { \
        if (!(cond)) { \
            printf("FAIL %s: ", __func__); \
            printf(__VA_ARGS__); \
            printf(" (line %d, errno %d %s)\n", __LINE__, errno, strerror(errno)); \
            fflush(stdout); \
            t_failures++; \
            return; \
        } \
    } while (0)

/* A call that must fail with a given errno. */
#define CHECK_ERR(call, err) \
    do { \
        errno = 0; \
        int r_ = (call); \
        CHECK(r_ == -1 && errno == (err), "%s gave %d, errno %d (want -1, %s)", #call, r_, \
              errno, #err); \
    } while (0)

#define PASS() \
    do { \
        printf("PASS %s\n", __func__); \
        fflush(stdout); \
    } while (0)

/* CRC-32 (IEEE 802.3, the one Python's zlib.crc32 computes), so the guest
 * and the host can compare file contents. Start with crc = 0. */
static inline unsigned crc32_update(unsigned crc, const void *buf, unsigned n)
{
    static unsigned table[256];
    const unsigned char *p = buf;
    unsigned i, j;

    if (!table[1]) {
        for (i = 0; i < 256; i++) {
            unsigned c = i;
            for (j = 0; j < 8; j++)
                c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    }
    crc = ~crc;
    while (n--)
        crc = table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

#endif
