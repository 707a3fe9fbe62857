/* siphash.h - SipHash-2-4 (Aumasson and Bernstein, 2012), a keyed hash: the
 * signature on each result line of a graded run (lab.h). Without the 16-byte
 * key, nobody can make the hash of a line, so code that rewrites "FAIL" into
 * "PASS" on its way to the console makes a line the grader rejects.
 * tools/grade.py computes the same function in Python; make test checks
 * that both give the paper's test vectors. Only <stdint.h>: the host can
 * compile it too. */
#ifndef USER_TESTS_SIPHASH_H
#define USER_TESTS_SIPHASH_H

#include <stdint.h>

#define SIP_ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static inline uint64_t sip_le64(const unsigned char *p)
{
    uint64_t v = 0;
    int i;

    for (i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static inline void sip_rounds(uint64_t v[4], int n)
{
    while (n--) {
        v[0] += v[1];
        v[1] = SIP_ROTL(v[1], 13);
        v[1] ^= v[0];
        v[0] = SIP_ROTL(v[0], 32);
        v[2] += v[3];
        v[3] = SIP_ROTL(v[3], 16);
        v[3] ^= v[2];
        v[0] += v[3];
        v[3] = SIP_ROTL(v[3], 21);
        v[3] ^= v[0];
        v[2] += v[1];
        v[1] = SIP_ROTL(v[1], 17);
        v[1] ^= v[2];
        v[2] = SIP_ROTL(v[2], 32);
    }
}

/* SipHash-2-4 of the n bytes at msg under the 16-byte key. */
static inline uint64_t siphash24(const unsigned char key[16], const void *msg, uint32_t n)
{
    const unsigned char *m = msg;
    uint64_t k0 = sip_le64(key), k1 = sip_le64(key + 8), last = (uint64_t)(n & 0xFF) << 56;
    uint64_t v[4] = { 0x736f6d6570736575ULL ^ k0, 0x646f72616e646f6dULL ^ k1,
                      0x6c7967656e657261ULL ^ k0, 0x7465646279746573ULL ^ k1 };
    uint32_t i;

    for (; n >= 8; n -= 8, m += 8) {
        v[3] ^= sip_le64(m);
        sip_rounds(v, 2);
        v[0] ^= sip_le64(m);
    }
    for (i = 0; i < n; i++)
        last |= (uint64_t)m[i] << (8 * i);
    v[3] ^= last;
    sip_rounds(v, 2);
    v[0] ^= last;
    v[2] ^= 0xFF;
    sip_rounds(v, 4);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

#endif
