/*
 * test_icrc.c - CRC-32 and the RoCE invariant CRC (roce_icrc.h).
 *
 * analyzer/engine/PROTOCOL.md "ICRC": CRC-32 over 8 bytes of 0xFF, then the IP
 * header, UDP header, BTH and the rest up to the ICRC, with IPv4 TOS, TTL and
 * header checksum, IPv6 traffic class, flow label and hop limit, the UDP
 * checksum and BTH byte 4 replaced by ones; stored little-endian.
 *
 * The frames are real captures, copied byte for byte from the shared
 * captures (tshark -x), so the engine is checked against hardware/Soft-RoCE
 * ICRCs, not against itself. A second, independent implementation of that
 * definition (ref_icrc, bitwise CRC) is checked on the same real frames and
 * then compared with the engine on generated frames.
 */
#include <stdio.h>
#include <string.h>

#include "roce_decode.h"
#include "roce_icrc.h"
#include "rocegen_build.h"
#include "test_frames.h"
#include "test_util.h"

#define ETH_LEN  14
#define IPV4_LEN 20
#define IPV6_LEN 40
#define UDP_LEN  8

static uint32_t le32_at(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* What the engine reports for an ICRC: its bytes read big-endian, as
 * Wireshark shows the Invariant CRC. */
static uint32_t be32_at(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/*
 * The ICRC by the definition in PROTOCOL.md, with the bitwise CRC of
 * test_util.c. l3: IP header or GRH of l3_len bytes; rest: UDP header
 * (has_udp) or BTH, rest_len bytes up to the ICRC.
 */
static uint32_t ref_icrc(const uint8_t *l3, size_t l3_len, int is_v6, int has_udp,
                         const uint8_t *rest, size_t rest_len)
{
    static uint8_t buf[8 + RG_MAX_FRAME];
    size_t n = 8 + l3_len + rest_len;
    CU_ASSERT_FATAL(n <= sizeof buf);
    memset(buf, 0xFF, 8);
    memcpy(buf + 8, l3, l3_len);
    memcpy(buf + 8 + l3_len, rest, rest_len);
    uint8_t *ip = buf + 8;
    if (is_v6) {
        ip[0] |= 0x0F;                /* traffic class, high nibble */
        ip[1] = ip[2] = ip[3] = 0xFF; /* traffic class low nibble, flow label */
        ip[7] = 0xFF;                 /* hop limit */
    } else {
        ip[1] = 0xFF;           /* TOS */
        ip[8] = 0xFF;           /* TTL */
        ip[10] = ip[11] = 0xFF; /* header checksum */
    }
    uint8_t *bth = ip + l3_len;
    if (has_udp) {
        bth[6] = bth[7] = 0xFF; /* UDP checksum */
        bth += UDP_LEN;
    }
    bth[4] = 0xFF; /* FECN, BECN, resv6 */
    return ~tu_crc32_update(0xFFFFFFFFu, buf, n);
}

/* The real IPv6 frame, freshly copied into a buffer the caller may change. */
static uint8_t *fresh_v6(void)
{
    static uint8_t f[TU_REAL_V6_LEN];
    tu_real_v6_frame(f);
    return f;
}

/* Decode an Ethernet frame with ICRC checking on. */
static void decode(const uint8_t *f, size_t len, struct roce_pkt *pkt)
{
    const struct roce_decode_cfg cfg = {
        .udp_port = ROCE_UDP_PORT_ROCEV2, .vxlan_port = ROCE_UDP_PORT_VXLAN, .check_icrc = 1};
    CU_ASSERT_EQUAL_FATAL(roce_decode(&cfg, ROCE_LINKTYPE_ETHERNET, f, len, len, pkt), 0);
}

/* ---- CRC-32 ---- */

static void test_crc32_check_value(void)
{
    static const uint8_t check[] = "123456789";
    CU_ASSERT_EQUAL(roce_crc32(check, 9), 0xCBF43926u);
    CU_ASSERT_EQUAL(~tu_crc32_update(0xFFFFFFFFu, check, 9), 0xCBF43926u);
    CU_ASSERT_EQUAL(roce_crc32(check, 0), 0);
}

/* The table-driven CRC (8 bytes at a time, then byte by byte) against the
 * bitwise one at every length 0..200, and split at every point. */
static void test_crc32_lengths_and_chaining(void)
{
    uint8_t buf[200];
    struct tu_rng r;
    unsigned wrong = 0;
    tu_rng_seed(&r, 7);
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)tu_rng_next(&r);
    for (size_t n = 0; n <= sizeof buf; n++) {
        uint32_t want = ~tu_crc32_update(0xFFFFFFFFu, buf, n);
        wrong += roce_crc32(buf, n) != want;
        size_t cut = n / 3;
        uint32_t c = roce_crc32_update(0xFFFFFFFFu, buf, cut);
        wrong += ~roce_crc32_update(c, buf + cut, n - cut) != want;
    }
    CU_ASSERT_EQUAL(wrong, 0);
}

/* ---- RoCEv2 over IPv4: a real ACK ---- */

static void test_real_ack_good(void)
{
    const uint8_t *l3 = tu_real_ack + ETH_LEN, *udp = l3 + IPV4_LEN;
    size_t rest = sizeof tu_real_ack - 4 - ETH_LEN - IPV4_LEN;
    struct roce_pkt pkt;

    CU_ASSERT_EQUAL(roce_icrc_compute(l3, IPV4_LEN, 0, 1, udp, rest), TU_REAL_ACK_ICRC);
    CU_ASSERT_EQUAL(ref_icrc(l3, IPV4_LEN, 0, 1, udp, rest), TU_REAL_ACK_ICRC);
    decode(tu_real_ack, sizeof tu_real_ack, &pkt);
    CU_ASSERT_EQUAL(pkt.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(pkt.icrc_status, ROCE_ICRC_GOOD);
    CU_ASSERT_EQUAL(pkt.icrc_wire, TU_REAL_ACK_ICRC_SHOWN);
    CU_ASSERT_EQUAL(pkt.icrc_calc, TU_REAL_ACK_ICRC_SHOWN);
    CU_ASSERT_EQUAL(roce_icrc_wire_value(TU_REAL_ACK_ICRC), TU_REAL_ACK_ICRC_SHOWN);
}

/* Each byte of the frame from the IP header on, flipped: the ICRC must
 * break exactly when the byte is not one of the masked ones. */
static void test_real_ack_each_byte(void)
{
    /* offsets in the frame of the masked bytes: TOS, TTL, IP checksum, UDP checksum, BTH byte 4 */
    static const size_t masked[] = {15, 22, 24, 25, 40, 41, 46};
    unsigned wrong = 0;
    for (size_t off = ETH_LEN; off < sizeof tu_real_ack - 4; off++) {
        uint8_t f[sizeof tu_real_ack];
        struct roce_pkt pkt;
        int is_masked = 0;
        for (size_t i = 0; i < sizeof masked / sizeof masked[0]; i++)
            is_masked |= masked[i] == off;
        if (off >= 16 && off <= 17)
            continue; /* IP total length: changing it changes what the packet is */
        if (off >= 38 && off <= 39)
            continue; /* UDP length: likewise */
        memcpy(f, tu_real_ack, sizeof f);
        f[off] ^= 0x01;
        decode(f, sizeof f, &pkt);
        if (pkt.cls != ROCE_CLASS_ROCE)
            continue; /* e.g. the version nibble: no longer RoCE, nothing to check */
        if (pkt.icrc_status != (is_masked ? ROCE_ICRC_GOOD : ROCE_ICRC_BAD)) {
            wrong++;
            fprintf(stderr, "byte %zu flipped: ICRC status %u\n", off, pkt.icrc_status);
        }
    }
    CU_ASSERT_EQUAL(wrong, 0);
}

static void test_real_ack_masked_fields(void)
{
    uint8_t f[sizeof tu_real_ack];
    struct roce_pkt pkt;
    memcpy(f, tu_real_ack, sizeof f);
    f[15] = 0xC3; /* DSCP 48, ECN CE: a switch marked it */
    f[22] = 1;    /* TTL decremented to 1 */
    f[24] = 0x12; /* header checksum no longer matches: masked anyway */
    f[40] = 0xAB; /* UDP checksum set */
    f[41] = 0xCD;
    f[46] = 0xC0; /* FECN and BECN */
    decode(f, sizeof f, &pkt);
    CU_ASSERT_EQUAL(pkt.icrc_status, ROCE_ICRC_GOOD);
    CU_ASSERT_EQUAL(pkt.ecn, 3);
    CU_ASSERT_EQUAL(pkt.fecn, 1);
    CU_ASSERT_EQUAL(pkt.becn, 1);
}

static void test_real_ack_bad(void)
{
    uint8_t f[sizeof tu_real_ack];
    struct roce_pkt pkt;
    /* AETH MSN byte: the "payload" of an ACK */
    memcpy(f, tu_real_ack, sizeof f);
    f[57] ^= 0x80;
    decode(f, sizeof f, &pkt);
    CU_ASSERT_EQUAL(pkt.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(pkt.icrc_status, ROCE_ICRC_BAD);
    CU_ASSERT_EQUAL(pkt.icrc_wire, TU_REAL_ACK_ICRC_SHOWN);
    CU_ASSERT_NOT_EQUAL(pkt.icrc_calc, TU_REAL_ACK_ICRC_SHOWN);
    /* the ICRC itself damaged */
    memcpy(f, tu_real_ack, sizeof f);
    f[61] ^= 0x01;
    decode(f, sizeof f, &pkt);
    CU_ASSERT_EQUAL(pkt.icrc_status, ROCE_ICRC_BAD);
    CU_ASSERT_EQUAL(pkt.icrc_calc, TU_REAL_ACK_ICRC_SHOWN);
    /* the UDP source port is not masked (only the checksum is) */
    memcpy(f, tu_real_ack, sizeof f);
    f[34] ^= 0x01;
    decode(f, sizeof f, &pkt);
    CU_ASSERT_EQUAL(pkt.icrc_status, ROCE_ICRC_BAD);
}

static void test_real_ack_unchecked(void)
{
    const struct roce_decode_cfg off = {
        .udp_port = ROCE_UDP_PORT_ROCEV2, .vxlan_port = ROCE_UDP_PORT_VXLAN, .check_icrc = 0};
    struct roce_pkt pkt;
    /* checking switched off */
    roce_decode(&off, ROCE_LINKTYPE_ETHERNET, tu_real_ack, sizeof tu_real_ack, sizeof tu_real_ack,
                &pkt);
    CU_ASSERT_EQUAL(pkt.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(pkt.icrc_status, ROCE_ICRC_UNCHECKED);
    /* the ICRC not captured */
    const struct roce_decode_cfg on = {
        .udp_port = ROCE_UDP_PORT_ROCEV2, .vxlan_port = ROCE_UDP_PORT_VXLAN, .check_icrc = 1};
    roce_decode(&on, ROCE_LINKTYPE_ETHERNET, tu_real_ack, sizeof tu_real_ack - 1,
                sizeof tu_real_ack, &pkt);
    CU_ASSERT_EQUAL(pkt.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(pkt.icrc_status, ROCE_ICRC_UNCHECKED);
}

/* ---- a real CNP: BECN set and DSCP 48 on the wire ---- */

static void test_real_cnp_good(void)
{
    const uint8_t *l3 = tu_real_cnp + ETH_LEN, *udp = l3 + IPV4_LEN;
    size_t rest = sizeof tu_real_cnp - 4 - ETH_LEN - IPV4_LEN;
    struct roce_pkt pkt;
    CU_ASSERT_EQUAL(ref_icrc(l3, IPV4_LEN, 0, 1, udp, rest), TU_REAL_CNP_ICRC);
    decode(tu_real_cnp, sizeof tu_real_cnp, &pkt);
    CU_ASSERT_EQUAL(pkt.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(pkt.opcode, 0x81);
    CU_ASSERT_EQUAL(pkt.becn, 1);
    CU_ASSERT_EQUAL(pkt.icrc_status, ROCE_ICRC_GOOD);
    CU_ASSERT_EQUAL(pkt.icrc_calc, be32_at(tu_real_cnp + TU_REAL_CNP_LEN - 4));
}

static void test_real_cnp_reserved_byte(void)
{
    uint8_t f[sizeof tu_real_cnp];
    struct roce_pkt pkt;
    memcpy(f, tu_real_cnp, sizeof f);
    f[60] = 0x01; /* one of the 16 reserved bytes */
    decode(f, sizeof f, &pkt);
    CU_ASSERT_EQUAL(pkt.icrc_status, ROCE_ICRC_BAD);
}

/* ---- RoCEv2 over IPv6: a real UD SEND ---- */

static void test_real_v6_good(void)
{
    uint8_t *f = fresh_v6();
    struct roce_pkt pkt;
    const uint8_t *l3 = f + ETH_LEN, *udp = l3 + IPV6_LEN;
    size_t rest = TU_REAL_V6_LEN - 4 - ETH_LEN - IPV6_LEN;
    CU_ASSERT_EQUAL(ref_icrc(l3, IPV6_LEN, 1, 1, udp, rest), TU_REAL_V6_ICRC);
    CU_ASSERT_EQUAL(roce_icrc_compute(l3, IPV6_LEN, 1, 1, udp, rest), TU_REAL_V6_ICRC);
    decode(f, TU_REAL_V6_LEN, &pkt);
    CU_ASSERT_EQUAL(pkt.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(pkt.af, ROCE_AF_IPV6);
    CU_ASSERT_EQUAL(pkt.payload_len, TU_REAL_V6_PAYLOAD);
    CU_ASSERT_EQUAL(pkt.icrc_status, ROCE_ICRC_GOOD);
}

static void test_real_v6_payload_flip(void)
{
    uint8_t *f = fresh_v6();
    struct roce_pkt pkt;
    f[82 + 500] ^= 0x04; /* one payload byte */
    decode(f, TU_REAL_V6_LEN, &pkt);
    CU_ASSERT_EQUAL(pkt.icrc_status, ROCE_ICRC_BAD);
    CU_ASSERT_EQUAL(pkt.icrc_wire, TU_REAL_V6_ICRC_SHOWN);
}

static void test_real_v6_masked_fields(void)
{
    uint8_t *f = fresh_v6();
    struct roce_pkt pkt;
    f[14] = 0x6C; /* version 6, traffic class 0xC3: DSCP 48, ECN CE */
    f[15] = 0x3A; /* flow label 0xA1234 */
    f[16] = 0x12;
    f[17] = 0x34;
    f[21] = 64;   /* hop limit */
    f[60] = 0x55; /* UDP checksum */
    f[61] = 0xAA;
    f[66] = 0x80; /* FECN */
    decode(f, TU_REAL_V6_LEN, &pkt);
    CU_ASSERT_EQUAL(pkt.ecn, 3);
    CU_ASSERT_EQUAL(pkt.dscp, 48);
    CU_ASSERT_EQUAL(pkt.icrc_status, ROCE_ICRC_GOOD);
    /* an address is not masked */
    f[37] ^= 0x01;
    decode(f, TU_REAL_V6_LEN, &pkt);
    CU_ASSERT_EQUAL(pkt.icrc_status, ROCE_ICRC_BAD);
}

/* ---- the engine against the reference on generated frames ---- */

static void check_generated(const struct rg_spec *s, unsigned *wrong)
{
    uint8_t f[RG_MAX_FRAME];
    struct rg_layout lay;
    struct roce_pkt pkt;
    const struct roce_decode_cfg cfg = {
        .udp_port = ROCE_UDP_PORT_ROCEV2, .vxlan_port = ROCE_UDP_PORT_VXLAN, .check_icrc = 1};
    int n = rg_build(s, f, sizeof f, &lay);
    CU_ASSERT_FATAL(n > 0);
    int v2 = s->kind == RG_KIND_ROCEV2;
    const uint8_t *rest = f + (v2 ? lay.l4_off : lay.bth_off);
    uint32_t want = ref_icrc(f + lay.l3_off, (v2 ? lay.l4_off : lay.bth_off) - lay.l3_off,
                             s->kind == RG_KIND_ROCEV1 || s->ip_version == 6, v2, rest,
                             (size_t)(f + lay.icrc_off - rest));
    roce_decode(&cfg, s->linktype, f, (size_t)n, (size_t)n, &pkt);
    if (pkt.cls != ROCE_CLASS_ROCE || pkt.icrc_status != ROCE_ICRC_GOOD ||
        pkt.icrc_calc != be32_at(f + lay.icrc_off) || le32_at(f + lay.icrc_off) != want)
        (*wrong)++;
}

static void test_engine_matches_reference(void)
{
    /* RC SEND Only, WRITE Only, WRITE Only Imm, ACK, ATOMIC ACK, CmpSwap; UD SEND
     * Only; CNP; XRC WRITE Only Imm; RD WRITE Only Imm */
    static const uint8_t opcodes[] = {0x04, 0x0A, 0x0B, 0x11, 0x12, 0x13, 0x64, 0x81, 0xAB, 0x4B};
    struct tu_rng r;
    unsigned wrong = 0;
    tu_rng_seed(&r, 99);
    for (int i = 0; i < 400; i++) {
        struct rg_spec s;
        uint8_t payload[512];
        rg_spec_init(&s);
        s.opcode = opcodes[tu_rng_below(&r, sizeof opcodes)];
        s.kind = tu_rng_below(&r, 4) == 0 ? RG_KIND_ROCEV1 : RG_KIND_ROCEV2;
        s.ip_version = tu_rng_below(&r, 2) ? 6 : 4;
        if (s.kind == RG_KIND_ROCEV1 || s.ip_version == 6) {
            uint8_t a[RG_ADDR_LEN];
            for (int k = 0; k < RG_ADDR_LEN; k++)
                a[k] = (uint8_t)tu_rng_next(&r);
            rg_addr_v6(s.src, a);
            a[15] ^= 0x5A;
            rg_addr_v6(s.dst, a);
        }
        if (s.kind == RG_KIND_ROCEV2 && s.ip_version == 4 && tu_rng_below(&r, 2))
            s.ip_opts_len = 4 * (uint8_t)tu_rng_below(&r, 11); /* 0..40 option bytes */
        s.n_vlans = tu_rng_below(&r, 3);
        for (unsigned v = 0; v < s.n_vlans; v++)
            s.vlan[v] = (struct rg_vlan){RG_TPID_8021Q, 3, 0, (uint16_t)(v + 10)};
        s.dscp = (uint8_t)tu_rng_below(&r, 64);
        s.ecn = (uint8_t)tu_rng_below(&r, 4);
        s.ttl = (uint8_t)tu_rng_next(&r);
        s.flow_label = tu_rng_next(&r) & 0xFFFFF;
        s.fecn = (uint8_t)tu_rng_below(&r, 2);
        s.becn = (uint8_t)tu_rng_below(&r, 2);
        s.psn = tu_rng_next(&r) & RG_PSN_MASK;
        s.dqpn = tu_rng_next(&r) & RG_QPN_MASK;
        s.udp_sport = (uint16_t)tu_rng_next(&r);
        s.udp_csum = tu_rng_below(&r, 2) ? RG_UDP_CSUM_COMPUTE : RG_UDP_CSUM_ZERO;
        s.payload_len = tu_rng_below(&r, sizeof payload);
        for (size_t k = 0; k < s.payload_len; k++)
            payload[k] = (uint8_t)tu_rng_next(&r);
        s.payload = payload;
        check_generated(&s, &wrong);
    }
    CU_ASSERT_EQUAL(wrong, 0);
}

/* x^n mod P (P = 0x104C11DB7, the CRC-32 polynomial, normal bit order). */
static uint32_t xpow_mod(unsigned n)
{
    uint64_t r = 1;
    for (unsigned i = 0; i < n; i++) {
        r <<= 1;
        if (r & (1ull << 32))
            r ^= 0x104C11DB7ull;
    }
    return (uint32_t)r;
}

static uint64_t refl32_shl1(uint32_t v)
{
    uint32_t r = 0;
    for (int i = 0; i < 32; i++)
        if (v & (1u << i))
            r |= 1u << (31 - i);
    return (uint64_t)r << 1;
}

/* The folding constants of roce_icrc.c are refl32(x^n mod P) << 1 for
 * n = 160, 96, 544, 480 (see its head comment): recomputed here. */
static void test_fold_constants(void)
{
    CU_ASSERT_EQUAL(refl32_shl1(xpow_mod(160)), 0x1751997d0ull);
    CU_ASSERT_EQUAL(refl32_shl1(xpow_mod(96)), 0x0ccaa009eull);
    CU_ASSERT_EQUAL(refl32_shl1(xpow_mod(544)), 0x154442bd4ull);
    CU_ASSERT_EQUAL(refl32_shl1(xpow_mod(480)), 0x1c6e41596ull);
}

/* The folding path (long buffers, when the CPU has PCLMULQDQ) equals the
 * tables for every length up to 2 KB at every alignment within 16 bytes and
 * any starting register. */
static void test_folding_matches_tables(void)
{
    static uint8_t buf[2048 + 16];
    struct tu_rng r;
    tu_rng_seed(&r, 11);
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)tu_rng_next(&r);
    unsigned bad = 0;
    for (size_t off = 0; off < 16; off++)
        for (size_t n = 0; n <= 2048; n++) {
            uint32_t reg = tu_rng_next(&r);
            bad += roce_crc32_update(reg, buf + off, n) != roce_crc32_update_tables(reg, buf + off, n);
        }
    CU_ASSERT_EQUAL(bad, 0);
}

static const struct tu_test tests[] = {
    {"fold_constants", test_fold_constants},
    {"folding_matches_tables", test_folding_matches_tables},
    {"crc32_check_value", test_crc32_check_value},
    {"crc32_lengths_and_chaining", test_crc32_lengths_and_chaining},
    {"real_ack_good", test_real_ack_good},
    {"real_ack_each_byte", test_real_ack_each_byte},
    {"real_ack_masked_fields", test_real_ack_masked_fields},
    {"real_ack_bad", test_real_ack_bad},
    {"real_ack_unchecked", test_real_ack_unchecked},
    {"real_cnp_good", test_real_cnp_good},
    {"real_cnp_reserved_byte", test_real_cnp_reserved_byte},
    {"real_v6_good", test_real_v6_good},
    {"real_v6_payload_flip", test_real_v6_payload_flip},
    {"real_v6_masked_fields", test_real_v6_masked_fields},
    {"engine_matches_reference", test_engine_matches_reference},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "icrc", tests);
}
