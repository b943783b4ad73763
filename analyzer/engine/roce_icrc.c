/*
 * roce_icrc.c - CRC-32 and the RoCE ICRC (see roce_icrc.h).
 *
 * Short buffers: slice-by-8 tables. Long buffers on x86-64 CPUs with
 * carry-less multiplication (PCLMULQDQ, checked at run time): folding, as in
 * Gopal et al., "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ
 * Instruction" (Intel, 2009), derived here for bytes loaded little-endian
 * (the CRC is reflected): a 128-bit block A = A_hi x^64 + A_lo ahead of the
 * next block is replaced by A_hi (x^(d+64-32) mod P) x^32 + A_lo (x^(d-32) mod
 * P) x^32, congruent to A x^d and at most 127 bits long, where d is the
 * folding distance (128 bits for one block, 512 for four in parallel). The
 * constants are those remainders, bit-reflected over 32 bits and shifted
 * left by one (tests/unit recomputes them from the polynomial). The folded
 * 16-byte state and the remaining tail then go through the tables with a
 * zero register, which gives the CRC of the whole buffer: no Barrett
 * reduction is needed.
 */
#include "roce_icrc.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ROCE_HAVE_CLMUL 1
#endif

#include "roce_extract.h"

#include "roce_crc32_inv.inc"
#include "roce_crc32_table.inc"

#define ICRC_LRH_STANDIN_LEN 8
#define IPV4_TOS_OFF         1
#define IPV4_TTL_OFF         8
#define IPV4_CSUM_OFF        10
#define IPV6_VTF_LEN         4 /* version, traffic class, flow label */
#define IPV6_HOPLIMIT_OFF    7
#define IPV6_VERSION_MASK    0xF0u
#define UDP_CSUM_OFF         6
#define UDP_HDR_LEN          8
#define BTH_RESV8A_OFF       4
#define MAX_L3_HDR_LEN       512
#define LRH_LEN              8
#define LRH_VL_MASK          0xF0u
#define GRH_LEN              40

/* The table-driven CRC. */
static uint32_t crc32_tables(uint32_t crc, const uint8_t *p, size_t n)
{
    while (n >= 8) {
        uint32_t lo = crc ^ roce_get_le32(p, 0);
        uint32_t hi = roce_get_le32(p, 4);
        crc = crc32_tab[7][lo & 0xFF] ^ crc32_tab[6][(lo >> 8) & 0xFF] ^
              crc32_tab[5][(lo >> 16) & 0xFF] ^ crc32_tab[4][lo >> 24] ^ crc32_tab[3][hi & 0xFF] ^
              crc32_tab[2][(hi >> 8) & 0xFF] ^ crc32_tab[1][(hi >> 16) & 0xFF] ^
              crc32_tab[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--)
        crc = crc32_tab[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return crc;
}

#ifdef ROCE_HAVE_CLMUL
/* Folding constants: refl32(x^n mod P) << 1 for n = 160, 96 (one block) and
 * 544, 480 (four blocks), P = 0x104C11DB7. */
#define FOLD1_LO  0x1751997d0ull
#define FOLD1_HI  0x0ccaa009eull
#define FOLD4_LO  0x154442bd4ull
#define FOLD4_HI  0x1c6e41596ull
#define CLMUL_MIN 128 /* shorter buffers go through the tables */
#define BLOCK     16

__attribute__((target("pclmul,sse2"))) static inline __m128i fold(__m128i x, __m128i k,
                                                                  __m128i next)
{
    __m128i lo = _mm_clmulepi64_si128(x, k, 0x00); /* low lane x low constant */
    __m128i hi = _mm_clmulepi64_si128(x, k, 0x11); /* high lane x high constant */
    return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

__attribute__((target("pclmul,sse2"))) static uint32_t crc32_clmul(uint32_t crc, const uint8_t *p,
                                                                   size_t n)
{
    const __m128i k4 = _mm_set_epi64x((long long)FOLD4_HI, (long long)FOLD4_LO);
    const __m128i k1 = _mm_set_epi64x((long long)FOLD1_HI, (long long)FOLD1_LO);
    /* the register enters as the first four bytes xored with it */
    __m128i x0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)crc));
    __m128i x1 = _mm_loadu_si128((const __m128i *)(p + BLOCK));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(p + 2 * BLOCK));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(p + 3 * BLOCK));
    uint8_t state[BLOCK];

    p += 4 * BLOCK;
    n -= 4 * BLOCK;
    while (n >= 4 * BLOCK) {
        x0 = fold(x0, k4, _mm_loadu_si128((const __m128i *)p));
        x1 = fold(x1, k4, _mm_loadu_si128((const __m128i *)(p + BLOCK)));
        x2 = fold(x2, k4, _mm_loadu_si128((const __m128i *)(p + 2 * BLOCK)));
        x3 = fold(x3, k4, _mm_loadu_si128((const __m128i *)(p + 3 * BLOCK)));
        p += 4 * BLOCK;
        n -= 4 * BLOCK;
    }
    x0 = fold(x0, k1, x1);
    x0 = fold(x0, k1, x2);
    x0 = fold(x0, k1, x3);
    while (n >= BLOCK) {
        x0 = fold(x0, k1, _mm_loadu_si128((const __m128i *)p));
        p += BLOCK;
        n -= BLOCK;
    }
    _mm_storeu_si128((__m128i *)state, x0);
    return crc32_tables(crc32_tables(0, state, BLOCK), p, n);
}
#endif

uint32_t roce_crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
#ifdef ROCE_HAVE_CLMUL
    if (n >= CLMUL_MIN && __builtin_cpu_supports("pclmul"))
        return crc32_clmul(crc, p, n);
#endif
    return crc32_tables(crc, p, n);
}

uint32_t roce_crc32_update_tables(uint32_t crc, const uint8_t *p, size_t n)
{
    return crc32_tables(crc, p, n);
}

uint32_t roce_crc32(const uint8_t *p, size_t n)
{
    return ~roce_crc32_update(0xFFFFFFFFu, p, n);
}

uint32_t roce_icrc_compute(const uint8_t *l3, size_t l3_hdr_len, int is_v6, int has_udp,
                           const uint8_t *rest, size_t rest_len)
{
    static const uint8_t ones[ICRC_LRH_STANDIN_LEN] = {0xFF, 0xFF, 0xFF, 0xFF,
                                                       0xFF, 0xFF, 0xFF, 0xFF};
    uint8_t hdr[MAX_L3_HDR_LEN];
    uint8_t head[UDP_HDR_LEN + BTH_RESV8A_OFF + 1];
    size_t head_len = has_udp ? UDP_HDR_LEN + BTH_RESV8A_OFF + 1 : BTH_RESV8A_OFF + 1;
    uint32_t crc = roce_crc32_update(0xFFFFFFFFu, ones, sizeof ones);

    if (l3_hdr_len > sizeof hdr || rest_len < head_len)
        return 0; /* cannot happen for a decoded packet; keeps the copy bounded */
    memcpy(hdr, l3, l3_hdr_len);
    if (is_v6) {
        hdr[0] |= (uint8_t)~IPV6_VERSION_MASK;
        memset(hdr + 1, 0xFF, IPV6_VTF_LEN - 1);
        hdr[IPV6_HOPLIMIT_OFF] = 0xFF;
    } else {
        hdr[IPV4_TOS_OFF] = 0xFF;
        hdr[IPV4_TTL_OFF] = 0xFF;
        hdr[IPV4_CSUM_OFF] = 0xFF;
        hdr[IPV4_CSUM_OFF + 1] = 0xFF;
    }
    crc = roce_crc32_update(crc, hdr, l3_hdr_len);

    memcpy(head, rest, head_len);
    if (has_udp) {
        head[UDP_CSUM_OFF] = 0xFF;
        head[UDP_CSUM_OFF + 1] = 0xFF;
    }
    head[head_len - 1] = 0xFF; /* BTH byte 4: FECN, BECN, resv6 */
    crc = roce_crc32_update(crc, head, head_len);
    crc = roce_crc32_update(crc, rest + head_len, rest_len - head_len);
    return ~crc;
}

uint32_t roce_icrc_ib_compute(const uint8_t *lrh, int has_grh, size_t len)
{
    uint8_t head[LRH_LEN + BTH_RESV8A_OFF + 1];

    if (has_grh) /* the LRH as the RoCEv1 stand-in: 8 bytes of ones */
        return len < LRH_LEN + GRH_LEN
                   ? 0
                   : roce_icrc_compute(lrh + LRH_LEN, GRH_LEN, 1, 0, lrh + LRH_LEN + GRH_LEN,
                                       len - LRH_LEN - GRH_LEN);
    if (len < sizeof head)
        return 0; /* cannot happen for a decoded packet */
    memcpy(head, lrh, sizeof head);
    head[0] |= LRH_VL_MASK;
    head[LRH_LEN + BTH_RESV8A_OFF] = 0xFF; /* BTH byte 4: FECN, BECN, resv6 */
    uint32_t crc = roce_crc32_update(0xFFFFFFFFu, head, sizeof head);
    return ~roce_crc32_update(crc, lrh + sizeof head, len - sizeof head);
}

/* One step of the table-driven CRC run backwards on a register difference:
 * the difference before a byte that made no difference itself. */
static uint32_t unstep(uint32_t d)
{
    uint8_t i = crc32_top_inv[d >> 24];
    return ((d ^ crc32_tab[0][i]) << 8) | i;
}

int roce_icrc_solve_field(uint32_t calc, uint32_t wire, size_t after, uint16_t *xor_out)
{
    /* The CRC is linear: calc ^ wire is the register difference that the
     * difference of the two messages made. If only the two bytes of the
     * field differ, running it back over the `after` bytes that follow
     * them (which did not differ) leaves the difference those two bytes
     * made from a zero difference: d1 = T[x0], d2 = T[(d1 ^ x1) & 0xFF] ^ (d1 >> 8). */
    uint32_t d = calc ^ wire;
    if (d == 0)
        return 0;
    for (size_t n = 0; n < after; n++)
        d = unstep(d);
    uint8_t i2 = crc32_top_inv[d >> 24];   /* (d1 ^ x1) & 0xFF */
    uint32_t d1_hi = d ^ crc32_tab[0][i2]; /* d1 >> 8 */
    if (d1_hi >> 24 != 0)
        return 0;
    uint8_t x0 = crc32_top_inv[(d1_hi >> 16) & 0xFF];
    if (crc32_tab[0][x0] >> 8 != d1_hi)
        return 0; /* no two bytes there explain the difference */
    uint8_t x1 = (uint8_t)(i2 ^ (crc32_tab[0][x0] & 0xFF));
    *xor_out = (uint16_t)(x0 << 8 | x1);
    return *xor_out != 0;
}
