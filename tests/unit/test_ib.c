/*
 * test_ib.c - native InfiniBand (roce_ib.c, roce_icrc.c's InfiniBand ICRC,
 * the engine's FECN/BECN handling; ERF records and raw ERF files through
 * the capture reader, analyzer/capture).
 *
 * analyzer/engine/PROTOCOL.md "InfiniBand": the LRH (IBA Vol. 1 7.7), what
 * its next header says follows, the VCRC (CRC-16, polynomial 0x100B,
 * reflected, all-ones start, complemented, least significant byte first)
 * and the ICRC with InfiniBand's variant fields (VL without a GRH; the
 * whole LRH, the GRH's traffic class, flow label and hop limit with one;
 * BTH byte 4). The CRCs are checked against references written here from
 * that definition (a bitwise CRC-16 in the unreflected form over
 * bit-reversed bytes, the bitwise CRC-32 of test_util.c), not against the
 * engine's tables. No real native InfiniBand capture was available: a
 * global packet's ICRC is also checked to equal that of the RoCEv1 packet
 * with the same GRH (RoCE's rule, written independently in roce_icrc.c).
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "roce_engine.h"
#include "roce_ib.h"
#include "roce_icrc.h"
#include "rocegen_build.h"
#include "rocegen_encap.h"
#include "test_util.h"

#define LRH_LEN 8
#define GRH_LEN 40
#define BTH_LEN 12

static const struct roce_decode_cfg cfg = {
    .udp_port = ROCE_UDP_PORT_ROCEV2, .vxlan_port = ROCE_UDP_PORT_VXLAN, .check_icrc = 1};

static void dec(const uint8_t *p, size_t caplen, size_t wirelen, struct roce_pkt *pkt)
{
    CU_ASSERT_EQUAL_FATAL(roce_decode(&cfg, ROCE_LINKTYPE_INFINIBAND, p, caplen, wirelen, pkt), 0);
}

static size_t build(const struct rg_spec *s, uint8_t *buf, struct rg_layout *lay)
{
    int n = rg_build(s, buf, RG_MAX_FRAME, lay);
    CU_ASSERT_FATAL(n > 0);
    return (size_t)n;
}

/* A spec of a native InfiniBand packet (LIDs 1 -> 2, or GIDs when grh). */
static void ib_spec(struct rg_spec *s, int grh)
{
    rg_spec_init(s);
    s->linktype = RG_LINKTYPE_INFINIBAND;
    s->kind = RG_KIND_IB;
    s->ib_grh = (uint8_t)grh;
    if (grh) {
        memset(s->src, 0, RG_ADDR_LEN);
        memset(s->dst, 0, RG_ADDR_LEN);
        s->src[0] = s->dst[0] = 0xFE;
        s->src[1] = s->dst[1] = 0x80;
        s->src[15] = 0x11;
        s->dst[15] = 0x22;
    }
}

/* ---- references ---- */

static uint8_t reverse8(uint8_t b)
{
    uint8_t r = 0;
    for (int i = 0; i < 8; i++)
        r = (uint8_t)(r << 1 | ((b >> i) & 1u));
    return r;
}

/* The VCRC by its definition, computed the unreflected way: bytes
 * bit-reversed into an MSB-first register with the polynomial 0x100B, the
 * result bit-reversed back and complemented. */
static uint16_t ref_vcrc(const uint8_t *p, size_t n)
{
    uint16_t crc = 0xFFFF;
    for (size_t i = 0; i < n; i++) {
        crc ^= (uint16_t)(reverse8(p[i]) << 8);
        for (int b = 0; b < 8; b++)
            crc = (uint16_t)(crc & 0x8000u ? (unsigned)(crc << 1) ^ 0x100Bu : (unsigned)crc << 1);
    }
    uint16_t r = 0;
    for (int i = 0; i < 16; i++)
        r = (uint16_t)(r << 1 | ((crc >> i) & 1u));
    return (uint16_t)~r;
}

/* The InfiniBand ICRC by its definition: len bytes from the LRH, variant
 * fields set to ones, bitwise CRC-32 (test_util.c), complemented. */
static uint32_t ref_icrc_ib(const uint8_t *pkt, size_t len, int grh)
{
    static uint8_t b[RG_MAX_FRAME];
    CU_ASSERT_FATAL(len <= sizeof b);
    memcpy(b, pkt, len);
    size_t bth = LRH_LEN;
    if (grh) {
        memset(b, 0xFF, LRH_LEN); /* the whole LRH: routers rewrite it */
        b[LRH_LEN] |= 0x0F;       /* traffic class, high nibble */
        b[LRH_LEN + 1] = b[LRH_LEN + 2] = b[LRH_LEN + 3] = 0xFF; /* TC low nibble, flow label */
        b[LRH_LEN + 7] = 0xFF;                                   /* hop limit */
        bth += GRH_LEN;
    } else {
        b[0] |= 0xF0; /* VL */
    }
    b[bth + 4] = 0xFF; /* FECN, BECN, resv6 */
    return ~tu_crc32_update(0xFFFFFFFFu, b, len);
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- CRCs ---- */

/* The engine's table-driven VCRC against the bitwise reference: every
 * one-byte message (each table entry is the first step of one of them),
 * every prefix of random buffers, and the check value of "123456789". */
static void test_vcrc_reference(void)
{
    static const uint8_t check[] = "123456789";
    uint8_t buf[300];
    struct tu_rng r;
    unsigned wrong = 0;
    for (unsigned b = 0; b < 256; b++) {
        uint8_t one = (uint8_t)b;
        wrong += roce_vcrc_compute(&one, 1) != ref_vcrc(&one, 1);
    }
    tu_rng_seed(&r, 11);
    for (unsigned k = 0; k < 16; k++) {
        for (size_t i = 0; i < sizeof buf; i++)
            buf[i] = (uint8_t)tu_rng_next(&r);
        for (size_t n = 0; n <= sizeof buf; n++)
            wrong += roce_vcrc_compute(buf, n) != ref_vcrc(buf, n);
    }
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(roce_vcrc_compute(check, 9), ref_vcrc(check, 9));
    CU_ASSERT_EQUAL(roce_vcrc_compute(check, 0), 0x0000); /* ~0xFFFF */
}

/* Generated local and global packets with random payloads: the ICRC the
 * builder wrote (the engine's) equals the reference, the VCRC too, and
 * the decoder finds both good. */
static void test_crcs_of_packets(void)
{
    struct tu_rng r;
    unsigned wrong = 0;
    tu_rng_seed(&r, 5);
    for (unsigned i = 0; i < 200; i++) {
        uint8_t f[RG_MAX_FRAME], payload[600];
        struct rg_spec s;
        struct rg_layout lay;
        struct roce_pkt p;
        int grh = (int)(i & 1u);
        ib_spec(&s, grh);
        s.opcode = (uint8_t)(i % 3 == 0 ? RG_OP_RC_WRITE_ONLY : RG_OP_RC_SEND_ONLY);
        s.payload_len = tu_rng_below(&r, sizeof payload);
        for (size_t j = 0; j < s.payload_len; j++)
            payload[j] = (uint8_t)tu_rng_next(&r);
        s.payload = payload;
        s.ib_vl = (uint8_t)tu_rng_below(&r, 16);
        s.ib_sl = (uint8_t)tu_rng_below(&r, 16);
        s.slid = (uint16_t)tu_rng_next(&r);
        s.dlid = (uint16_t)tu_rng_next(&r);
        s.psn = tu_rng_below(&r, 1u << 24);
        s.flow_label = tu_rng_below(&r, 1u << 20);
        size_t n = build(&s, f, &lay);
        wrong += le32(f + lay.icrc_off) != ref_icrc_ib(f, lay.icrc_off, grh);
        wrong += (uint16_t)(f[n - 2] | f[n - 1] << 8) != ref_vcrc(f, n - 2);
        dec(f, n, n, &p);
        wrong += p.icrc_status != ROCE_ICRC_GOOD || p.vcrc_status != ROCE_ICRC_GOOD;
    }
    CU_ASSERT_EQUAL(wrong, 0);
}

/* Which fields the ICRC covers: changing a variant field (and fixing the
 * VCRC, as the next hop does) keeps it good; changing an invariant one
 * makes it bad. */
static void test_icrc_variant_fields(void)
{
    static const struct {
        int grh;
        size_t off;
        uint8_t xor_mask;
        int variant;
        const char *what;
    } cases[] = {
        {0, 0, 0xF0, 1, "VL"},
        {0, 1, 0xF0, 0, "SL"},
        {0, 3, 0x01, 0, "DLID"},
        {0, 7, 0x01, 0, "SLID"},
        {0, LRH_LEN + 4, 0xC0, 1, "FECN, BECN"},
        {0, LRH_LEN + 4, 0x3F, 1, "resv6"},
        {0, LRH_LEN + 11, 0x01, 0, "PSN"},
        {1, 1, 0xF0, 1, "SL with a GRH"},
        {1, 3, 0x01, 1, "DLID with a GRH"},
        {1, LRH_LEN + 1, 0x30, 1, "traffic class"},
        {1, LRH_LEN + 3, 0x01, 1, "flow label"},
        {1, LRH_LEN + 7, 0x01, 1, "hop limit"},
        {1, LRH_LEN + 8, 0x01, 0, "source GID"},
        {1, LRH_LEN + GRH_LEN + 4, 0x80, 1, "FECN with a GRH"},
        {1, LRH_LEN + GRH_LEN + 7, 0x01, 0, "dest QP with a GRH"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t f[RG_MAX_FRAME];
        struct rg_spec s;
        struct roce_pkt p;
        ib_spec(&s, cases[i].grh);
        s.payload_len = 32;
        size_t n = build(&s, f, NULL);
        f[cases[i].off] ^= cases[i].xor_mask;
        uint16_t v = roce_vcrc_compute(f, n - 2);
        f[n - 2] = (uint8_t)v;
        f[n - 1] = (uint8_t)(v >> 8);
        dec(f, n, n, &p);
        CU_ASSERT_EQUAL(p.vcrc_status, ROCE_ICRC_GOOD);
        if (p.icrc_status != (cases[i].variant ? ROCE_ICRC_GOOD : ROCE_ICRC_BAD))
            fprintf(stderr, "  %s: ICRC %u\n", cases[i].what, p.icrc_status);
        CU_ASSERT_EQUAL(p.icrc_status, cases[i].variant ? ROCE_ICRC_GOOD : ROCE_ICRC_BAD);
    }
}

/* A global packet has the ICRC of the RoCEv1 packet with the same GRH. */
static void test_icrc_global_is_rocev1(void)
{
    uint8_t f[RG_MAX_FRAME], g[RG_MAX_FRAME];
    struct rg_spec s;
    struct rg_layout li, lv;
    ib_spec(&s, 1);
    s.payload_len = 100;
    build(&s, f, &li);
    s.linktype = RG_LINKTYPE_ETHERNET;
    s.kind = RG_KIND_ROCEV1;
    build(&s, g, &lv);
    CU_ASSERT_EQUAL(le32(f + li.icrc_off), le32(g + lv.icrc_off));
    CU_ASSERT_EQUAL(roce_icrc_ib_compute(f, 1, li.icrc_off), le32(g + lv.icrc_off));
}

/* ---- the LRH ---- */

/* An RC Acknowledge, written out by hand:
 *   LRH   1 0 | 3 2 | 00 04 | 00 07 | 00 01    VL 1, LVer 0, SL 3, LNH 2 (local),
 *                                              DLID 4, PktLen 7 words, SLID 1
 *   BTH   11 | 40 | ff ff | 00 | 87 04 08 | 00 | d4 0b 55   RC Acknowledge, MigReq,
 *                                              P_Key 0xFFFF, dest QP 0x870408, PSN 0xD40B55
 *   AETH  1f | 00 00 01                        ACK, credits invalid, MSN 1
 *   ICRC, VCRC computed here */
static void test_lrh_local_by_hand(void)
{
    uint8_t f[LRH_LEN + BTH_LEN + 4 + 4 + 2] = {
        0x10, 0x32, 0x00, 0x04, 0x00, 0x07, 0x00, 0x01, 0x11, 0x40, 0xFF, 0xFF,
        0x00, 0x87, 0x04, 0x08, 0x00, 0xD4, 0x0B, 0x55, 0x1F, 0x00, 0x00, 0x01,
    };
    struct roce_pkt p;
    uint32_t icrc = ref_icrc_ib(f, 24, 0);
    for (int i = 0; i < 4; i++)
        f[24 + i] = (uint8_t)(icrc >> (8 * i));
    uint16_t v = ref_vcrc(f, 28);
    f[28] = (uint8_t)v;
    f[29] = (uint8_t)(v >> 8);
    dec(f, sizeof f, sizeof f, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(p.version, ROCE_VERSION_IB);
    CU_ASSERT_EQUAL(p.lrh.vl, 1);
    CU_ASSERT_EQUAL(p.lrh.lver, 0);
    CU_ASSERT_EQUAL(p.lrh.sl, 3);
    CU_ASSERT_EQUAL(p.lrh.lnh, ROCE_LNH_LOCAL);
    CU_ASSERT_EQUAL(p.lrh.dlid, 4);
    CU_ASSERT_EQUAL(p.lrh.slid, 1);
    CU_ASSERT_EQUAL(p.lrh.pktlen, 7);
    CU_ASSERT_EQUAL(p.af, ROCE_AF_LID);
    CU_ASSERT_EQUAL(roce_addr_lid(p.src), 1);
    CU_ASSERT_EQUAL(roce_addr_lid(p.dst), 4);
    CU_ASSERT_FALSE(roce_addr_is_v4(p.src));
    CU_ASSERT_EQUAL(p.bth_off, LRH_LEN);
    CU_ASSERT_EQUAL(p.end_off, 28);
    CU_ASSERT_EQUAL(p.opcode, 0x11);
    CU_ASSERT_EQUAL(p.dqpn, 0x870408);
    CU_ASSERT_EQUAL(p.psn, 0xD40B55);
    CU_ASSERT_EQUAL(p.aeth_msn, 1);
    CU_ASSERT_EQUAL(p.icrc_status, ROCE_ICRC_GOOD);
    CU_ASSERT_EQUAL(p.vcrc_status, ROCE_ICRC_GOOD);
    /* both CRCs as Wireshark shows them: the bytes in wire order, big-endian */
    CU_ASSERT_EQUAL(p.vcrc_wire, (uint16_t)(f[28] << 8 | f[29]));
    CU_ASSERT_EQUAL(p.vcrc_calc, p.vcrc_wire);
    CU_ASSERT_EQUAL(p.icrc_wire, (uint32_t)f[24] << 24 | (uint32_t)f[25] << 16 |
                                     (uint32_t)f[26] << 8 | f[27]);
}

/* A global packet: GIDs as the flow's addresses, the BTH after the GRH. */
static void test_lrh_global(void)
{
    uint8_t f[RG_MAX_FRAME];
    struct rg_spec s;
    struct roce_pkt p;
    ib_spec(&s, 1);
    s.payload_len = 8;
    size_t n = build(&s, f, NULL);
    CU_ASSERT_EQUAL(f[1] & 3, ROCE_LNH_GLOBAL);
    dec(f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
    CU_ASSERT(p.has_grh);
    CU_ASSERT_EQUAL(p.af, ROCE_AF_IPV6);
    CU_ASSERT_EQUAL(memcmp(p.src, s.src, RG_ADDR_LEN), 0);
    CU_ASSERT_EQUAL(memcmp(p.dst, s.dst, RG_ADDR_LEN), 0);
    CU_ASSERT_EQUAL(p.bth_off, LRH_LEN + GRH_LEN);
    CU_ASSERT_EQUAL(p.payload_len, 8);
    CU_ASSERT_EQUAL(p.icrc_status, ROCE_ICRC_GOOD);
}

/* What else the LRH may carry: counted, not analysed. */
static void test_non_transport(void)
{
    uint8_t f[RG_MAX_FRAME];
    struct rg_spec s;
    struct roce_pkt p;
    ib_spec(&s, 0);
    s.kind = RG_KIND_IB_RAW;
    s.ib_ethertype = 0x0800;
    s.payload_len = 20;
    size_t n = build(&s, f, NULL);
    dec(f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_NON_ROCE);
    CU_ASSERT_EQUAL(p.ib_other, ROCE_IB_RAW);
    CU_ASSERT_EQUAL(p.vcrc_status, ROCE_ICRC_GOOD);

    s.kind = RG_KIND_IB_IPV6;
    n = build(&s, f, NULL);
    dec(f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_NON_ROCE);
    CU_ASSERT_EQUAL(p.ib_other, ROCE_IB_IPV6);

    ib_spec(&s, 1);
    s.grh_next_hdr = 0x11; /* UDP: a raw IPv6 datagram routed by its GRH */
    n = build(&s, f, NULL);
    dec(f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_NON_ROCE);
    CU_ASSERT_EQUAL(p.ib_other, ROCE_IB_IPV6);
    CU_ASSERT_EQUAL(p.vcrc_status, ROCE_ICRC_GOOD);
    CU_ASSERT_STRING_EQUAL(roce_ib_other_name(ROCE_IB_RAW), "raw");
    CU_ASSERT_STRING_EQUAL(roce_ib_other_name(ROCE_IB_IPV6), "ipv6");
}

static void expect_malformed(const struct rg_spec *s, enum roce_malformed why)
{
    uint8_t f[RG_MAX_FRAME];
    struct roce_pkt p;
    size_t n = build(s, f, NULL);
    dec(f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_MALFORMED);
    CU_ASSERT_EQUAL(p.malformed, why);
    CU_ASSERT_EQUAL(p.version, ROCE_VERSION_IB);
}

static void test_malformed(void)
{
    struct rg_spec s;
    ib_spec(&s, 0);
    s.ib_lver = 1;
    expect_malformed(&s, ROCE_MAL_LRH_VERSION);
    ib_spec(&s, 0);
    s.ib_pktlen = 1; /* 4 bytes: not even the LRH */
    expect_malformed(&s, ROCE_MAL_LRH_LENGTH);
    ib_spec(&s, 1);
    s.ib_pktlen = 11; /* 44 bytes: LRH and a part of the GRH */
    expect_malformed(&s, ROCE_MAL_LRH_LENGTH);
    ib_spec(&s, 0);
    s.ib_pktlen = 4; /* LRH and 8 bytes: no room for the BTH */
    expect_malformed(&s, ROCE_MAL_SHORT_BTH);
    ib_spec(&s, 0);
    s.opcode = 0x81; /* the RoCEv2 CNP is not an InfiniBand opcode */
    expect_malformed(&s, ROCE_MAL_OPCODE);
    ib_spec(&s, 0);
    s.opcode = 0x80; /* the InfiniBand CNP is */
    uint8_t f[RG_MAX_FRAME];
    struct roce_pkt p;
    size_t n = build(&s, f, NULL);
    dec(f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(p.op->kind, ROCE_KIND_CNP);
    CU_ASSERT_EQUAL(p.end_off, LRH_LEN + BTH_LEN + 4);
}

/* Cut by the snaplen: the LRH (IB, nothing more known), the transport, the
 * VCRC; a capture without the VCRC leaves it unchecked. */
static void test_cuts(void)
{
    uint8_t f[RG_MAX_FRAME];
    struct rg_spec s;
    struct roce_pkt p;
    ib_spec(&s, 0);
    s.payload_len = 16;
    size_t n = build(&s, f, NULL);
    for (size_t cap = 0; cap <= n; cap++) {
        dec(f, cap, n, &p);
        CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
        CU_ASSERT_EQUAL(p.lrh_captured, cap >= LRH_LEN);
        CU_ASSERT_EQUAL(p.bth_captured, cap >= LRH_LEN + BTH_LEN);
        CU_ASSERT_EQUAL(p.icrc_status, cap >= n - 2 ? ROCE_ICRC_GOOD : ROCE_ICRC_UNCHECKED);
        CU_ASSERT_EQUAL(p.vcrc_status, cap == n ? ROCE_ICRC_GOOD : ROCE_ICRC_UNCHECKED);
        CU_ASSERT_EQUAL(p.truncated, cap < n);
    }
    dec(f, n - 2, n - 2, &p); /* a capture that keeps no VCRC */
    CU_ASSERT_FALSE(p.truncated);
    CU_ASSERT_EQUAL(p.icrc_status, ROCE_ICRC_GOOD);
    CU_ASSERT_EQUAL(p.vcrc_status, ROCE_ICRC_UNCHECKED);
}

/* The LRH's extremes and the lengths it declares: the permissive DLID and
 * VL 15 decode as any other; a packet followed by bytes the LRH does not
 * count keeps its CRCs where the LRH puts them; a length beyond the frame
 * leaves both CRCs unchecked (they were not captured); a global packet
 * cut inside its GRH is InfiniBand with nothing more known; a raw packet
 * cut inside its raw header is counted as raw, not opened as a mirror. */
static void test_lrh_edges(void)
{
    uint8_t f[RG_MAX_FRAME];
    struct rg_spec s;
    struct roce_pkt p;
    ib_spec(&s, 0);
    s.ib_vl = 15;
    s.slid = 0;
    s.dlid = 0xFFFF;
    size_t n = build(&s, f, NULL);
    dec(f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(p.lrh.vl, 15);
    CU_ASSERT_EQUAL(roce_addr_lid(p.dst), 0xFFFF);
    CU_ASSERT_EQUAL(roce_addr_lid(p.src), 0);
    CU_ASSERT_EQUAL(p.icrc_status, ROCE_ICRC_GOOD);
    CU_ASSERT_EQUAL(p.vcrc_status, ROCE_ICRC_GOOD);

    ib_spec(&s, 0); /* 6 bytes the LRH does not count after the VCRC */
    s.payload_len = 12;
    n = build(&s, f, NULL);
    memset(f + n, 0xA5, 6);
    dec(f, n + 6, n + 6, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(p.end_off, n - ROCE_VCRC_LEN);
    CU_ASSERT_EQUAL(p.payload_len, 12);
    CU_ASSERT_EQUAL(p.icrc_status, ROCE_ICRC_GOOD);
    CU_ASSERT_EQUAL(p.vcrc_status, ROCE_ICRC_GOOD);

    ib_spec(&s, 0); /* the largest length: 2047 words, far beyond the frame */
    s.ib_pktlen = 2047;
    n = build(&s, f, NULL);
    dec(f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(p.lrh.pktlen, 2047);
    CU_ASSERT_EQUAL(p.end_off, 2047 * 4);
    CU_ASSERT_EQUAL(p.icrc_status, ROCE_ICRC_UNCHECKED);
    CU_ASSERT_EQUAL(p.vcrc_status, ROCE_ICRC_UNCHECKED);

    ib_spec(&s, 1); /* cut inside the GRH */
    n = build(&s, f, NULL);
    for (size_t cap = LRH_LEN; cap < LRH_LEN + GRH_LEN; cap += 13) {
        dec(f, cap, n, &p);
        CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
        CU_ASSERT(p.has_grh);
        CU_ASSERT_FALSE(p.bth_captured);
        CU_ASSERT(p.truncated);
    }

    ib_spec(&s, 1); /* LVer 1 on a global packet: malformed before the GRH */
    s.ib_lver = 1;
    expect_malformed(&s, ROCE_MAL_LRH_VERSION);

    ib_spec(&s, 0); /* a raw packet cut inside its raw header: not looked into */
    s.kind = RG_KIND_IB_RAW;
    s.ib_ethertype = 0x1123;
    s.payload_len = 0;
    n = build(&s, f, NULL);
    dec(f, LRH_LEN + 2, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_NON_ROCE);
    CU_ASSERT_EQUAL(p.ib_other, ROCE_IB_RAW);
    CU_ASSERT_EQUAL(p.encap, ROCE_ENCAP_NONE);
}

/* A switch's mirror: the packet inside is decoded, the switch recorded. */
static void test_mirror(void)
{
    uint8_t in[RG_MAX_FRAME], out[RG_MAX_FRAME];
    struct rg_spec s;
    struct rg_wrap w;
    struct roce_pkt p;
    ib_spec(&s, 0);
    s.slid = 0x11;
    s.dlid = 0x22;
    s.dqpn = 0xB2;
    size_t n = build(&s, in, NULL);
    rg_wrap_init(&w, RG_WRAP_IB_MIRROR, 0, 0);
    w.outer.slid = 0xFE;
    w.outer.dlid = 0xFF;
    int m = rg_wrap_build(&w, in, n, out, sizeof out);
    CU_ASSERT_FATAL(m > 0);
    CU_ASSERT_EQUAL(out[1] & 3, ROCE_LNH_RAW);
    dec(out, (size_t)m, (size_t)m, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(p.encap, ROCE_ENCAP_IB_MIRROR);
    CU_ASSERT_EQUAL(p.encap_depth, 1);
    CU_ASSERT_EQUAL(p.encap_src_af, ROCE_AF_LID);
    CU_ASSERT_EQUAL(roce_addr_lid(p.encap_src), 0xFE);
    CU_ASSERT_EQUAL(roce_addr_lid(p.src), 0x11);
    CU_ASSERT_EQUAL(p.dqpn, 0xB2);
    CU_ASSERT_EQUAL(p.lrh_off, LRH_LEN + 8);
    CU_ASSERT_EQUAL(p.icrc_status, ROCE_ICRC_GOOD);
    CU_ASSERT_EQUAL(p.vcrc_status, ROCE_ICRC_GOOD); /* the mirrored packet's */
    CU_ASSERT_STRING_EQUAL(roce_encap_name(ROCE_ENCAP_IB_MIRROR), "ib_mirror");
}

/* ---- the engine ---- */

struct eng {
    struct roce_engine *e;
    struct roce_verdict v[32];
    uint64_t frame;
    int64_t ts;
};

static void on_v(const struct roce_verdict *v, void *ctx)
{
    struct eng *g = ctx;
    if (v->frame < 32)
        g->v[v->frame] = *v;
}

static void eng_init(struct eng *g)
{
    struct roce_config c;
    memset(g, 0, sizeof *g);
    roce_config_default(&c);
    c.on_verdict = on_v;
    c.ctx = g;
    g->e = roce_engine_new(&c);
    g->ts = 1000000000;
    CU_ASSERT_PTR_NOT_NULL_FATAL(g->e);
}

/* Feed s at time us microseconds; returns the frame number. */
static uint64_t feed(struct eng *g, const struct rg_spec *s, int64_t us)
{
    uint8_t f[RG_MAX_FRAME];
    size_t n = build(s, f, NULL);
    struct roce_frame_in in = {++g->frame, g->ts + us * ROCE_NS_PER_US, s->linktype, f,
                               (uint32_t)n, (uint32_t)n};
    roce_engine_frame(g->e, &in, NULL);
    return in.frame;
}

/* A request A (LID 1, QP 0xA1) -> B (LID 2, QP 0xB2), and the way back. */
static void req(struct rg_spec *s, uint32_t psn, int fecn)
{
    ib_spec(s, 0);
    s->opcode = RG_OP_RC_SEND_ONLY;
    s->dqpn = 0xB2;
    s->psn = psn;
    s->fecn = (uint8_t)fecn;
    s->ackreq = 1;
}

static void back(struct rg_spec *s, uint8_t opcode, uint32_t psn, int becn)
{
    ib_spec(s, 0);
    s->slid = 2;
    s->dlid = 1;
    s->opcode = opcode;
    s->dqpn = 0xA1;
    s->psn = psn;
    s->becn = (uint8_t)becn;
    s->aeth_syndrome = 0x1F;
}

/* FECN is InfiniBand's CE mark; a CNP (0x80) or BECN on a response of the
 * connection answers it, with the same verdicts and latencies. */
static void test_fecn_answers(void)
{
    struct eng g;
    struct rg_spec s;
    eng_init(&g);
    req(&s, 100, 1);
    uint64_t m1 = feed(&g, &s, 0); /* FECN */
    back(&s, RG_OP_RC_ACK, 100, 1);
    uint64_t a1 = feed(&g, &s, 2); /* ACK with BECN: answers it */
    req(&s, 101, 1);
    uint64_t m2 = feed(&g, &s, 10); /* FECN */
    back(&s, RG_OP_RC_ACK, 101, 0);
    uint64_t a2 = feed(&g, &s, 11); /* ACK without BECN: not an answer */
    back(&s, RG_OP_IB_CNP, 0, 1);
    uint64_t c2 = feed(&g, &s, 40); /* CNP */
    req(&s, 102, 0);
    feed(&g, &s, 500);
    roce_engine_finish(g.e);
    CU_ASSERT_EQUAL(g.v[m1].flags, ROCE_V_CE | ROCE_V_CE_ANSWERED);
    CU_ASSERT_EQUAL(g.v[m1].cnp_frame, a1);
    CU_ASSERT_EQUAL(g.v[a1].flags, ROCE_V_CNP | ROCE_V_CNP_MATCHED);
    CU_ASSERT_EQUAL(g.v[a1].cnp_for_frame, m1);
    CU_ASSERT_EQUAL(g.v[a1].cnp_latency_ns, 2 * ROCE_NS_PER_US);
    CU_ASSERT_EQUAL(g.v[a2].flags, 0);
    CU_ASSERT_EQUAL(g.v[m2].cnp_frame, c2);
    CU_ASSERT_EQUAL(g.v[c2].flags, ROCE_V_CNP | ROCE_V_CNP_MATCHED);
    CU_ASSERT_EQUAL(g.v[c2].cnp_latency_ns, 30 * ROCE_NS_PER_US);
    const struct roce_totals *t = roce_engine_totals(g.e);
    CU_ASSERT_EQUAL(t->ce_marked, 2);
    CU_ASSERT_EQUAL(t->cnp_packets, 1);
    CU_ASSERT_EQUAL(t->becn_packets, 1);
    CU_ASSERT_EQUAL(t->cnps_matched, 2);
    CU_ASSERT_EQUAL(t->ib_packets, 6);
    CU_ASSERT_EQUAL(t->vcrc_good, 6);
    roce_engine_free(g.e);
}

/* The other ends of the CE/CNP analysis on FECN: a FECN mark no answer
 * follows within the CNP window (100 us) is unanswered; an InfiniBand CNP
 * or a BECN on a response with no FECN mark before it is unexplained, as a
 * RoCEv2 CNP without a CE mark. */
static void test_fecn_unanswered(void)
{
    struct eng g;
    struct rg_spec s;
    eng_init(&g);
    back(&s, RG_OP_IB_CNP, 0, 1);
    uint64_t c = feed(&g, &s, 0); /* CNP, nothing to answer */
    back(&s, RG_OP_RC_ACK, 99, 1);
    uint64_t b = feed(&g, &s, 1); /* BECN, nothing it answers */
    req(&s, 100, 1);
    uint64_t m = feed(&g, &s, 1000); /* FECN */
    req(&s, 101, 0);
    feed(&g, &s, 1101); /* past the window */
    back(&s, RG_OP_IB_CNP, 0, 1);
    uint64_t late = feed(&g, &s, 1102); /* too late to answer it */
    roce_engine_finish(g.e);
    CU_ASSERT_EQUAL(g.v[c].flags, ROCE_V_CNP | ROCE_V_CNP_UNEXPLAINED);
    CU_ASSERT_EQUAL(g.v[b].flags, ROCE_V_CNP | ROCE_V_CNP_UNEXPLAINED);
    CU_ASSERT_EQUAL(g.v[m].flags, ROCE_V_CE | ROCE_V_CE_UNANSWERED);
    CU_ASSERT_EQUAL(g.v[late].flags, ROCE_V_CNP | ROCE_V_CNP_UNEXPLAINED);
    const struct roce_totals *t = roce_engine_totals(g.e);
    CU_ASSERT_EQUAL(t->ce_marked, 1);
    CU_ASSERT_EQUAL(t->ce_unanswered, 1);
    CU_ASSERT_EQUAL(t->cnp_packets, 2);
    CU_ASSERT_EQUAL(t->becn_packets, 1);
    CU_ASSERT_EQUAL(t->cnps_matched, 0);
    CU_ASSERT_EQUAL(t->cnps_unexplained, 3);
    roce_engine_free(g.e);
}

/* What is not a mark or an answer: FECN and BECN on RoCEv2 (its marks are
 * ECN's, its answers CNPs), CE in a GRH's traffic class on InfiniBand (its
 * mark is FECN), BECN on an InfiniBand request. */
static void test_marks_per_link(void)
{
    struct eng g;
    struct rg_spec s;
    eng_init(&g);
    rg_spec_init(&s); /* RoCEv2 with FECN, ECT(0) */
    s.psn = 8;
    s.fecn = 1;
    uint64_t v2 = feed(&g, &s, 0);
    ib_spec(&s, 1); /* InfiniBand global, CE in the traffic class, no FECN */
    s.ecn = RG_ECN_CE;
    uint64_t tc = feed(&g, &s, 1);
    req(&s, 7, 0); /* InfiniBand request with BECN */
    s.becn = 1;
    uint64_t rb = feed(&g, &s, 2);
    rg_spec_init(&s); /* a RoCEv2 ACK with BECN, after a CE mark of the same flow */
    s.ecn = RG_ECN_CE;
    s.psn = 9;
    uint64_t ce = feed(&g, &s, 3);
    rg_spec_init(&s);
    rg_spec_reverse(&s);
    s.opcode = RG_OP_RC_ACK;
    s.psn = 9;
    s.becn = 1;
    uint64_t ab = feed(&g, &s, 4);
    roce_engine_finish(g.e);
    CU_ASSERT_EQUAL(g.v[ce].flags, ROCE_V_CE | ROCE_V_CE_UNANSWERED);
    CU_ASSERT_EQUAL(g.v[ab].flags, 0);
    CU_ASSERT_EQUAL(roce_engine_totals(g.e)->becn_packets, 0);
    CU_ASSERT_EQUAL(g.v[v2].flags, 0);
    CU_ASSERT_EQUAL(g.v[tc].flags, 0);
    CU_ASSERT_EQUAL(g.v[rb].flags, 0);
    CU_ASSERT_EQUAL(roce_engine_totals(g.e)->ce_marked, 1);
    roce_engine_free(g.e);
}

/* A bad VCRC: a verdict with both values, counted for the capture and the
 * flow; raw packets' VCRCs are counted too. */
static void test_bad_vcrc(void)
{
    struct eng g;
    struct rg_spec s;
    struct roce_flow_report r;
    eng_init(&g);
    req(&s, 5, 0);
    s.vcrc_xor = 0x0100;
    uint64_t b = feed(&g, &s, 0);
    ib_spec(&s, 0);
    s.kind = RG_KIND_IB_RAW;
    s.ib_ethertype = 0x86DD;
    s.payload_len = 40;
    s.vcrc_xor = 1;
    uint64_t raw = feed(&g, &s, 1);
    roce_engine_finish(g.e);
    CU_ASSERT_EQUAL(g.v[b].flags, ROCE_V_BAD_VCRC);
    CU_ASSERT_EQUAL(g.v[b].vcrc_wire ^ g.v[b].vcrc_calc, 0x0001); /* 0x0100 LSB first */
    CU_ASSERT_EQUAL(g.v[raw].flags, ROCE_V_BAD_VCRC);
    const struct roce_totals *t = roce_engine_totals(g.e);
    CU_ASSERT_EQUAL(t->vcrc_bad, 2);
    CU_ASSERT_EQUAL(t->ib_other[ROCE_IB_RAW], 1);
    CU_ASSERT_EQUAL(t->non_roce_packets, 1);
    CU_ASSERT_EQUAL_FATAL(roce_engine_flows(g.e, &r, 1), 1);
    CU_ASSERT_EQUAL(r.bad_vcrc, 1);
    CU_ASSERT_EQUAL(r.key.version, ROCE_VERSION_IB);
    CU_ASSERT_EQUAL(r.key.af, ROCE_AF_LID);
    roce_engine_free(g.e);
}

/* ---- addresses ---- */

static void test_lid_address(void)
{
    uint8_t a[ROCE_ADDR_LEN], v4[ROCE_ADDR_LEN];
    static const uint8_t ip[4] = {10, 0, 0, 18};
    roce_addr_set_lid(a, 0x0012);
    roce_addr_set_v4(v4, ip);
    CU_ASSERT_EQUAL(roce_addr_lid(a), 0x0012);
    CU_ASSERT_FALSE(roce_addr_is_v4(a));
    CU_ASSERT_NOT_EQUAL(memcmp(a, v4, ROCE_ADDR_LEN), 0);
    CU_ASSERT_EQUAL(a[0], 0); /* in ::/8, reserved: never an IPv6 source or a GID */
    roce_addr_set_lid(a, 0xFFFF);
    CU_ASSERT_EQUAL(roce_addr_lid(a), 0xFFFF);
}

/* ---- ERF records (analyzer/capture: erf.c, capture_frame.c) ---- */

/* An ERF record: type, flags 0x04, wlen, captured bytes of the frame. */
static size_t erf_rec(uint8_t *r, uint64_t ts, uint8_t type, const uint8_t *frame, size_t cap,
                      size_t wlen, size_t pad)
{
    size_t rlen = 16 + pad + cap;
    for (int i = 0; i < 8; i++)
        r[i] = (uint8_t)(ts >> (8 * i));
    r[8] = type;
    r[9] = 0x04;
    r[10] = (uint8_t)(rlen >> 8);
    r[11] = (uint8_t)rlen;
    r[12] = r[13] = 0;
    r[14] = (uint8_t)(wlen >> 8);
    r[15] = (uint8_t)wlen;
    memset(r + 16, 0, pad);
    memcpy(r + 16 + pad, frame, cap);
    return rlen;
}

/* The engine's frame of a capture frame of link type ERF holding record r
 * (cap captured bytes, time stamp ts_ns as the pcap record says). */
static struct roce_frame_in erf_in(const uint8_t *r, size_t cap, int64_t ts_ns)
{
    struct roce_capture_frame f = {ts_ns, (uint32_t)cap, (uint32_t)cap, r, ROCE_LINKTYPE_ERF};
    struct roce_frame_in in;
    roce_capture_frame_in(&f, 7, &in);
    CU_ASSERT_EQUAL(in.frame, 7);
    return in;
}

/* ERF records into engine frames (roce_capture_frame_in, roce_erf_frame). */
static void test_erf_records(void)
{
    uint8_t r[256], frame[64];
    struct roce_frame_in f;
    for (size_t i = 0; i < sizeof frame; i++)
        frame[i] = (uint8_t)i;
    /* 2^31 / 2^32 s = 0.5 s exactly; 1 / 2^32 s = 0.23 ns rounds to 0 */
    uint64_t ts = (uint64_t)1700000000 << 32 | 0x80000000u;
    size_t n = erf_rec(r, ts, 21, frame, 30, 30, 0);
    f = erf_in(r, n, 0);
    CU_ASSERT_EQUAL(f.linktype, ROCE_LINKTYPE_INFINIBAND);
    CU_ASSERT_EQUAL(f.ts_ns, 1700000000LL * ROCE_NS_PER_SEC + 500000000);
    CU_ASSERT_PTR_EQUAL(f.data, r + 16);
    CU_ASSERT_EQUAL(f.caplen, 30);
    CU_ASSERT_EQUAL(f.wirelen, 30);
    /* Wireshark's rounding: the fraction to the nearest nanosecond */
    erf_rec(r, (uint64_t)1 << 32 | 3, 21, frame, 8, 8, 0); /* 3 / 2^32 s = 0.698 ns */
    f = erf_in(r, 24, 0);
    CU_ASSERT_EQUAL(f.ts_ns, ROCE_NS_PER_SEC + 1);
    /* padding to 8 bytes and a wire length beyond what was kept */
    n = erf_rec(r, ts, 21, frame, 20, 100, 0);
    f = erf_in(r, n + 4, 0);
    CU_ASSERT_EQUAL(f.caplen, 24);
    CU_ASSERT_EQUAL(f.wirelen, 100);
    /* Ethernet: two bytes before the frame */
    n = erf_rec(r, ts, 2, frame, 60, 64, 2);
    f = erf_in(r, n, 0);
    CU_ASSERT_EQUAL(f.linktype, ROCE_LINKTYPE_ETHERNET);
    CU_ASSERT_PTR_EQUAL(f.data, r + 18);
    CU_ASSERT_EQUAL(f.caplen, 60);
    /* an extension header (type bit 7, then one header whose bit 7 is clear) */
    n = erf_rec(r, ts, 0x80 | 22, frame, 40, 32, 8);
    r[16] = 0x05;
    f = erf_in(r, n, 0);
    CU_ASSERT_EQUAL(f.linktype, ROCE_LINKTYPE_IPV4);
    CU_ASSERT_PTR_EQUAL(f.data, r + 24);
    CU_ASSERT_EQUAL(f.caplen, 32);
    /* not decoded (the record stays a frame of link type ERF, as captured):
     * metadata records, InfiniBand link records, headers cut */
    n = erf_rec(r, ts, 27, frame, 8, 8, 0);
    f = erf_in(r, n, 5);
    CU_ASSERT_EQUAL(f.linktype, ROCE_LINKTYPE_ERF);
    CU_ASSERT_EQUAL(f.ts_ns, 5);
    CU_ASSERT_PTR_EQUAL(f.data, r);
    CU_ASSERT_EQUAL(f.caplen, n);
    n = erf_rec(r, ts, 25, frame, 8, 8, 0);
    CU_ASSERT_EQUAL(erf_in(r, n, 0).linktype, ROCE_LINKTYPE_ERF);
    CU_ASSERT_EQUAL(erf_in(r, 15, 0).linktype, ROCE_LINKTYPE_ERF);
    n = erf_rec(r, ts, 0x80 | 21, frame, 0, 0, 0); /* an extension header announced, cut */
    CU_ASSERT_EQUAL(erf_in(r, n, 0).linktype, ROCE_LINKTYPE_ERF);
    /* frames of other link types pass as they are */
    struct roce_capture_frame g = {42, 20, 60, frame, ROCE_LINKTYPE_ETHERNET};
    roce_capture_frame_in(&g, 3, &f);
    CU_ASSERT(f.frame == 3 && f.ts_ns == 42 && f.linktype == ROCE_LINKTYPE_ETHERNET &&
              f.data == frame && f.caplen == 20 && f.wirelen == 60);
}

/* The first frame of the capture c as the engine takes it; the capture's
 * status in *st. */
static struct roce_frame_in next_in(struct roce_capture *c, enum roce_capture_status *st)
{
    struct roce_capture_frame f;
    struct roce_frame_in in;
    memset(&in, 0, sizeof in);
    *st = roce_capture_next(c, &f);
    if (*st == ROCE_CAPTURE_FRAME) {
        CU_ASSERT_EQUAL(f.linktype, ROCE_LINKTYPE_ERF); /* as captured */
        roce_capture_frame_in(&f, 1, &in);
    }
    return in;
}

/* Raw ERF files (the capture reader's last row): records back to back,
 * padding records skipped; anything that does not look like ERF refused. */
static void test_erf_files(void)
{
    char path[] = "/tmp/rocescope-test-erf-XXXXXX";
    uint8_t r[128], frame[32] = {0x10, 0x02};
    char err[128];
    enum roce_capture_status st;
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    FILE *o = fdopen(fd, "wb");
    CU_ASSERT_FATAL(o != NULL);
    uint64_t ts = (uint64_t)1700000000 << 32;
    fwrite(r, 1, erf_rec(r, ts, 21, frame, 32, 30, 0), o);
    fwrite(r, 1, erf_rec(r, ts, 48, frame, 8, 0, 0), o); /* padding */
    fwrite(r, 1, erf_rec(r, ts + 1, 21, frame, 16, 16, 0), o);
    fclose(o);
    struct roce_capture *c = roce_capture_open(path, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(roce_capture_linktype(c), ROCE_LINKTYPE_ERF);
    struct roce_frame_in f = next_in(c, &st);
    CU_ASSERT_EQUAL(st, ROCE_CAPTURE_FRAME);
    CU_ASSERT_EQUAL(f.linktype, ROCE_LINKTYPE_INFINIBAND);
    CU_ASSERT_EQUAL(f.caplen, 30);
    f = next_in(c, &st);
    CU_ASSERT_EQUAL(st, ROCE_CAPTURE_FRAME);
    CU_ASSERT_EQUAL(f.caplen, 16);
    next_in(c, &st);
    CU_ASSERT_EQUAL(st, ROCE_CAPTURE_END);
    roce_capture_close(c);

    o = fopen(path, "ab"); /* a record cut short at the end */
    fwrite(r, 1, 20, o);
    fclose(o);
    c = roce_capture_open(path, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    for (int i = 0; i < 2; i++) {
        next_in(c, &st);
        CU_ASSERT_EQUAL(st, ROCE_CAPTURE_FRAME);
    }
    next_in(c, &st);
    CU_ASSERT_EQUAL(st, ROCE_CAPTURE_ERROR);
    CU_ASSERT_STRING_EQUAL(roce_capture_error(c), "ERF record cut short");
    roce_capture_close(c);

    o = fopen(path, "wb"); /* text is not ERF: libpcap's reason stands */
    fputs("this is not a capture, only some text of no particular length\n", o);
    fclose(o);
    CU_ASSERT_PTR_NULL(roce_capture_open(path, err, sizeof err));
    CU_ASSERT_STRING_EQUAL(err, "unknown file format");
    remove(path);
}

static const struct tu_test tests[] = {
    {"vcrc_reference", test_vcrc_reference},
    {"crcs_of_packets", test_crcs_of_packets},
    {"icrc_variant_fields", test_icrc_variant_fields},
    {"icrc_global_is_rocev1", test_icrc_global_is_rocev1},
    {"lrh_local_by_hand", test_lrh_local_by_hand},
    {"lrh_global", test_lrh_global},
    {"non_transport", test_non_transport},
    {"malformed", test_malformed},
    {"cuts", test_cuts},
    {"lrh_edges", test_lrh_edges},
    {"mirror", test_mirror},
    {"fecn_answers", test_fecn_answers},
    {"fecn_unanswered", test_fecn_unanswered},
    {"marks_per_link", test_marks_per_link},
    {"bad_vcrc", test_bad_vcrc},
    {"lid_address", test_lid_address},
    {"erf_records", test_erf_records},
    {"erf_files", test_erf_files},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "ib", tests);
}
