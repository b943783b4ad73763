/*
 * test_decode.c - frame bytes to struct roce_pkt (roce_decode.c, roce_ip.c): link
 * layers, VLAN tags, IPv4/IPv6, RoCEv1/v2, what is and is not RoCE,
 * malformed packets, truncation. The BTH and extension headers are the
 * second suite, in test_decode_bth.c.
 *
 * analyzer/engine/ANALYSIS.md "RoCE packet", "Classes" (malformed, truncated);
 * PROTOCOL.md "Encapsulation", "Mirrored traffic". Frames come from the frame
 * builder (rocegen_build), from real captures (test_frames.c), or are written
 * out by hand. Every frame is
 * also decoded cut at every length (caplen < wirelen), in a buffer of exactly
 * caplen bytes so a sanitizer build catches any read beyond it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_decode.h"
#include "test_frames.h"

const struct roce_decode_cfg td_cfg = {
    .udp_port = ROCE_UDP_PORT_ROCEV2, .vxlan_port = ROCE_UDP_PORT_VXLAN, .check_icrc = 1};

void td_dec(int linktype, const uint8_t *p, size_t caplen, size_t wirelen, struct roce_pkt *pkt)
{
    CU_ASSERT_EQUAL_FATAL(roce_decode(&td_cfg, linktype, p, caplen, wirelen, pkt), 0);
}

size_t td_build(const struct rg_spec *s, uint8_t *buf, struct rg_layout *lay)
{
    int n = rg_build(s, buf, RG_MAX_FRAME, lay);
    CU_ASSERT_FATAL(n > 0);
    return (size_t)n;
}

void td_put_be16(uint8_t *p, size_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* Header field values of h in a and b are equal. */
int td_same_hdr_fields(const struct roce_pkt *a, const struct roce_pkt *b, unsigned h)
{
    switch (h) {
    case ROCE_HDR_RDETH:
        return a->rdeth_eecnxt == b->rdeth_eecnxt;
    case ROCE_HDR_DETH:
        return a->deth_qkey == b->deth_qkey && a->deth_srcqp == b->deth_srcqp;
    case ROCE_HDR_XRCETH:
        return a->xrceth_srqn == b->xrceth_srqn;
    case ROCE_HDR_FETH:
        return a->feth == b->feth;
    case ROCE_HDR_RETH:
        return a->reth_va == b->reth_va && a->reth_rkey == b->reth_rkey &&
               a->reth_dma_len == b->reth_dma_len;
    case ROCE_HDR_ATOMICETH:
        return a->atomic_va == b->atomic_va && a->atomic_rkey == b->atomic_rkey &&
               a->atomic_swap_add == b->atomic_swap_add && a->atomic_cmp == b->atomic_cmp;
    case ROCE_HDR_AETH:
        return a->aeth_syndrome == b->aeth_syndrome && a->aeth_msn == b->aeth_msn;
    case ROCE_HDR_ATOMICACKETH:
        return a->atomicack_orig == b->atomicack_orig;
    case ROCE_HDR_IMMDT:
        return a->immdt == b->immdt;
    case ROCE_HDR_IETH:
        return a->ieth_rkey == b->ieth_rkey;
    default:
        return 1;
    }
}
/*
 * Decode f cut to every caplen from 0 to len (wirelen len). roce_from: the
 * shortest caplen at which the frame must already count as RoCE (the UDP
 * header or the RoCEv1 EtherType captured). Each cut is copied into a
 * buffer of exactly caplen bytes.
 */
void td_check_every_cut(int linktype, const uint8_t *f, size_t len, size_t roce_from)
{
    struct roce_pkt full, p;
    unsigned bad = 0;
    td_dec(linktype, f, len, len, &full);
    CU_ASSERT_EQUAL_FATAL(full.cls, ROCE_CLASS_ROCE);
    uint16_t prev = 0;
    for (size_t cap = 0; cap <= len; cap++) {
        uint8_t *copy = malloc(cap ? cap : 1);
        CU_ASSERT_FATAL(copy != NULL);
        memcpy(copy, f, cap);
        int rc = roce_decode(&td_cfg, linktype, copy, cap, len, &p);
        free(copy);
        int ok = rc == 0 && p.cls != ROCE_CLASS_MALFORMED && p.truncated == (cap < len);
        if (cap >= roce_from)
            ok = ok && p.cls == ROCE_CLASS_ROCE && p.version == full.version;
        ok = ok && p.bth_captured == (cap >= full.bth_off + BTH_LEN);
        if (p.bth_captured)
            ok = ok && p.opcode == full.opcode && p.psn == full.psn && p.dqpn == full.dqpn &&
                 p.pkey == full.pkey && p.hdrs == full.hdrs;
        else
            ok = ok && p.hdrs_captured == 0;
        /* each extension header exactly when all of it is captured, with its full values */
        for (unsigned h = 1; h < (1u << MAX_HDRS); h <<= 1) {
            if (!(full.hdrs & h))
                continue;
            size_t end = full.bth_off + BTH_LEN + roce_hdr_offset(full.hdrs, h) + roce_hdrs_len(h);
            ok = ok && roce_pkt_has(&p, h) == (cap >= end);
            if (roce_pkt_has(&p, h))
                ok = ok && td_same_hdr_fields(&p, &full, h);
        }
        ok = ok && (p.hdrs_captured & ~full.hdrs_captured) == 0 && (p.hdrs_captured & prev) == prev;
        ok = ok && p.icrc_status == (cap == len ? full.icrc_status : ROCE_ICRC_UNCHECKED);
        prev = p.hdrs_captured;
        if (!ok) {
            bad++;
            fprintf(stderr, "  cut at %zu of %zu: cls %u mal %u v%u bth %u hdrs 0x%x icrc %u\n",
                    cap, len, p.cls, p.malformed, p.version, p.bth_captured, p.hdrs_captured,
                    p.icrc_status);
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
}

/* ---- link types ---- */

/* Build s, decode it as its link type (or as `as`), check where RoCE starts. */
static void check_link(const struct rg_spec *s, int as)
{
    uint8_t f[RG_MAX_FRAME];
    struct rg_layout lay;
    struct roce_pkt p;
    size_t n = td_build(s, f, &lay);
    td_dec(as, f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(p.version, 2);
    CU_ASSERT_EQUAL(p.l3_off, lay.l3_off);
    CU_ASSERT_EQUAL(p.bth_off, lay.bth_off);
    CU_ASSERT_EQUAL(p.dqpn, s->dqpn);
    CU_ASSERT_EQUAL(p.psn, s->psn);
    CU_ASSERT_EQUAL(p.af, s->ip_version == 6 ? ROCE_AF_IPV6 : ROCE_AF_IPV4);
    CU_ASSERT_EQUAL(memcmp(p.src, s->src, ROCE_ADDR_LEN), 0);
    CU_ASSERT_EQUAL(memcmp(p.dst, s->dst, ROCE_ADDR_LEN), 0);
    CU_ASSERT_EQUAL(p.icrc_status, ROCE_ICRC_GOOD);
}

/* 2001:db8::1 and 2001:db8::2 */
static const uint8_t v6_a[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01};
static const uint8_t v6_b[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02};

static void spec_v6(struct rg_spec *s)
{
    s->ip_version = 6;
    rg_addr_v6(s->src, v6_a);
    rg_addr_v6(s->dst, v6_b);
}

static void test_linktypes(void)
{
    static const int links[] = {RG_LINKTYPE_ETHERNET, RG_LINKTYPE_LINUX_SLL, RG_LINKTYPE_LINUX_SLL2,
                                RG_LINKTYPE_RAW};
    struct rg_spec s;
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        for (int v6 = 0; v6 <= 1; v6++) {
            rg_spec_init(&s);
            s.linktype = links[i];
            s.psn = 0x123456;
            s.dqpn = 0x654321;
            if (v6)
                spec_v6(&s);
            check_link(&s, s.linktype);
            if (s.linktype == RG_LINKTYPE_RAW) {
                check_link(&s, ROCE_LINKTYPE_DLT_RAW);     /* DLT_RAW as 12 */
                check_link(&s, ROCE_LINKTYPE_DLT_RAW_ALT); /* and as 14 */
            }
        }
    }
    rg_spec_init(&s);
    s.linktype = RG_LINKTYPE_IPV4;
    check_link(&s, ROCE_LINKTYPE_IPV4);
    rg_spec_init(&s);
    s.linktype = RG_LINKTYPE_IPV6;
    spec_v6(&s);
    check_link(&s, ROCE_LINKTYPE_IPV6);
}

static void test_linktype_mismatch_and_unsupported(void)
{
    uint8_t f[RG_MAX_FRAME];
    struct rg_spec s;
    struct roce_pkt p;
    rg_spec_init(&s);
    s.linktype = RG_LINKTYPE_RAW;
    size_t n = td_build(&s, f, NULL);
    /* an IPv4 packet handed over as LINKTYPE_IPV6 is not RoCE */
    td_dec(ROCE_LINKTYPE_IPV6, f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_NON_ROCE);
    CU_ASSERT_EQUAL(p.version, 0);
    /* 105 (IEEE 802.11) is not supported */
    memset(&p, 0xAA, sizeof p);
    CU_ASSERT_EQUAL(roce_decode(&td_cfg, 105, f, n, n, &p), -1);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_NON_ROCE);
    CU_ASSERT_EQUAL(p.version, 0);
    CU_ASSERT_FALSE(roce_linktype_supported(105));
    CU_ASSERT_TRUE(roce_linktype_supported(ROCE_LINKTYPE_LINUX_SLL2));
    CU_ASSERT_TRUE(roce_linktype_supported(ROCE_LINKTYPE_DLT_RAW));
    /* ERF records carry frames of the types decoded: the engine does not
     * decode ERF itself, a capture of it is read (roce_linktype.h) */
    CU_ASSERT_FALSE(roce_linktype_supported(ROCE_LINKTYPE_ERF));
    CU_ASSERT_TRUE(roce_linktype_readable(ROCE_LINKTYPE_ERF));
    CU_ASSERT_TRUE(roce_linktype_readable(ROCE_LINKTYPE_INFINIBAND));
    CU_ASSERT_FALSE(roce_linktype_readable(105));
}

/* ERF record types (Wireshark's wiretap/erf_record.h) and the link types
 * of the frames they carry; every other type carries none the engine
 * decodes. */
static void test_erf_types(void)
{
    static const struct {
        unsigned type;
        int linktype;
    } map[] = {{2, ROCE_LINKTYPE_ETHERNET},    /* ERF_TYPE_ETH */
               {11, ROCE_LINKTYPE_ETHERNET},   /* ERF_TYPE_COLOR_ETH */
               {16, ROCE_LINKTYPE_ETHERNET},   /* ERF_TYPE_DSM_COLOR_ETH */
               {20, ROCE_LINKTYPE_ETHERNET},   /* ERF_TYPE_COLOR_HASH_ETH */
               {21, ROCE_LINKTYPE_INFINIBAND}, /* ERF_TYPE_INFINIBAND */
               {22, ROCE_LINKTYPE_IPV4},       /* ERF_TYPE_IPV4 */
               {23, ROCE_LINKTYPE_IPV6}};      /* ERF_TYPE_IPV6 */
    unsigned found = 0;
    for (unsigned t = 0; t <= ROCE_ERF_TYPE_MASK; t++) {
        int want = 0;
        for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
            if (map[i].type == t)
                want = map[i].linktype;
        CU_ASSERT_EQUAL(roce_erf_type_linktype(t), want);
        found += want != 0;
    }
    CU_ASSERT_EQUAL(found, sizeof map / sizeof map[0]);
    CU_ASSERT_EQUAL(roce_erf_type_linktype(48), 0); /* padding */
    CU_ASSERT_EQUAL(roce_erf_type_linktype(27), 0); /* metadata */
}

/* ---- VLAN ---- */

static void test_vlans(void)
{
    uint8_t f[RG_MAX_FRAME];
    struct rg_layout lay;
    struct rg_spec s;
    struct roce_pkt p;
    for (unsigned n_tags = 0; n_tags <= 2; n_tags++) {
        rg_spec_init(&s);
        s.n_vlans = n_tags;
        s.vlan[0] = (struct rg_vlan){n_tags == 2 ? RG_TPID_8021AD : RG_TPID_8021Q, 5, 1, 100};
        s.vlan[1] = (struct rg_vlan){RG_TPID_8021Q, 3, 0, 4095};
        size_t n = td_build(&s, f, &lay);
        td_dec(ROCE_LINKTYPE_ETHERNET, f, n, n, &p);
        CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
        CU_ASSERT_EQUAL(p.n_vlans, n_tags);
        CU_ASSERT_EQUAL(p.l3_off, ETH_LEN + 4 * n_tags);
        CU_ASSERT_EQUAL(p.bth_off, lay.bth_off);
        if (n_tags >= 1) {
            CU_ASSERT_EQUAL(p.pcp[0], 5);
            CU_ASSERT_EQUAL(p.vid[0], 100);
        }
        if (n_tags == 2) {
            CU_ASSERT_EQUAL(p.pcp[1], 3);
            CU_ASSERT_EQUAL(p.vid[1], 4095);
        }
        CU_ASSERT_EQUAL(p.icrc_status, ROCE_ICRC_GOOD);
    }
    /* a tag on Linux cooked capture v2 */
    rg_spec_init(&s);
    s.linktype = RG_LINKTYPE_LINUX_SLL2;
    s.n_vlans = 1;
    s.vlan[0] = (struct rg_vlan){RG_TPID_8021Q, 3, 0, 7};
    check_link(&s, ROCE_LINKTYPE_LINUX_SLL2);
}

/* Deeper stacks, written by hand: the decoder walks ROCE_VLAN_MAX_TAGS (4)
 * tags and records the outer ROCE_MAX_VLANS (2); a fifth tag ends the walk
 * (not RoCE). Tags are inserted after the MACs of an untagged RoCEv2 frame. */
static void test_vlan_stack_depth(void)
{
    uint8_t plain[RG_MAX_FRAME], f[RG_MAX_FRAME + 8 * 4];
    struct rg_layout lay;
    struct rg_spec s;
    struct roce_pkt p;
    rg_spec_init(&s);
    size_t n = td_build(&s, plain, &lay);
    for (unsigned tags = 3; tags <= ROCE_VLAN_MAX_TAGS + 1; tags++) {
        memcpy(f, plain, 12); /* destination and source MAC */
        for (unsigned i = 0; i < tags; i++) {
            td_put_be16(f + 12 + 4 * i, i == 0 ? 0x88A8 : 0x8100); /* 802.1ad outer, then 802.1Q */
            td_put_be16(f + 14 + 4 * i, (size_t)(i + 1) << 13 | (100 + i)); /* PCP i+1, VID 100+i */
        }
        memcpy(f + 12 + 4 * tags, plain + 12, n - 12); /* EtherType 0x0800 onwards */
        size_t len = n + 4 * tags;
        td_dec(ROCE_LINKTYPE_ETHERNET, f, len, len, &p);
        if (tags > ROCE_VLAN_MAX_TAGS) {
            CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_NON_ROCE);
            continue;
        }
        CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
        CU_ASSERT_EQUAL(p.n_vlans, tags);
        CU_ASSERT_EQUAL(p.l3_off, 14 + 4 * tags);
        CU_ASSERT_EQUAL(p.pcp[0], 1);
        CU_ASSERT_EQUAL(p.vid[0], 100);
        CU_ASSERT_EQUAL(p.pcp[1], 2);
        CU_ASSERT_EQUAL(p.vid[1], 101);
        CU_ASSERT_EQUAL(p.icrc_status, ROCE_ICRC_GOOD);
    }
}

/* ---- IPv4 ---- */

static void test_ipv4_options_ecn(void)
{
    uint8_t f[RG_MAX_FRAME];
    struct rg_layout lay;
    struct rg_spec s;
    struct roce_pkt p;
    rg_spec_init(&s);
    s.ip_opts_len = 8;
    /* router alert (94 04 00 00), NOP x3, end of list */
    memcpy(s.ip_opts, "\x94\x04\x00\x00\x01\x01\x01\x00", 8);
    s.dscp = 26;
    s.ecn = RG_ECN_CE;
    s.udp_sport = 0xD00D;
    size_t n = td_build(&s, f, &lay);
    td_dec(ROCE_LINKTYPE_ETHERNET, f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(p.l3_hdr_len, 28);
    CU_ASSERT_EQUAL(p.l4_off, ETH_LEN + 28);
    CU_ASSERT_EQUAL(p.bth_off, ETH_LEN + 28 + 8);
    CU_ASSERT_EQUAL(p.dscp, 26);
    CU_ASSERT_EQUAL(p.ecn, 3);
    CU_ASSERT_EQUAL(p.udp_sport, 0xD00D);
    CU_ASSERT_EQUAL(p.icrc_status, ROCE_ICRC_GOOD);
    /* IPv4-mapped addresses: ::ffff:10.0.0.1 */
    static const uint8_t mapped_a[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1};
    CU_ASSERT_EQUAL(memcmp(p.src, mapped_a, 16), 0);
}

/* s builds a frame the decoder must not take for RoCE. */
static void expect_non_roce(const struct rg_spec *s)
{
    uint8_t f[RG_MAX_FRAME];
    struct roce_pkt p;
    size_t n = td_build(s, f, NULL);
    td_dec(s->linktype, f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_NON_ROCE);
    CU_ASSERT_EQUAL(p.version, 0);
    CU_ASSERT_EQUAL(p.bth_captured, 0);
}

static void test_ipv4_fragments_not_roce(void)
{
    struct rg_spec s;
    rg_spec_init(&s);
    s.ip_df = 0;
    s.ip_mf = 1; /* first fragment */
    expect_non_roce(&s);
    s.ip_mf = 0;
    s.ip_frag_off = 3; /* a later fragment */
    expect_non_roce(&s);
}
/* ---- IPv6 extension headers (hand-written) ---- */

/*
 * Ethernet 02:00:00:00:00:01 -> 02:00:00:00:00:02, type 0x86DD
 * IPv6 traffic class 0x02 (ECT(0)), flow label 0, payload length (filled in),
 *      next header (filled in), hop limit 64, 2001:db8::1 -> 2001:db8::2
 */
/* clang-format off */
static const uint8_t v6_head[54] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x86, 0xdd, /* Eth */
    0x60, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40,                                     /* IPv6 */
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
};
/* clang-format on */
/* Hop-by-hop options: next header (filled in), length 0 (8 bytes), PadN with 4 bytes. */
static const uint8_t v6_hbh[8] = {0x00, 0x00, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00};
/* Fragment: next header 17, reserved, offset 0 / M 0 (filled in), id 0x12345678. */
static const uint8_t v6_frag[8] = {0x11, 0x00, 0x00, 0x00, 0x12, 0x34, 0x56, 0x78};
/*
 * UDP 0xC000 -> 4791, length 28, checksum 0
 * BTH RC SEND Only (0x04), P_Key 0xFFFF, dest QP 0x000011, PSN 0x000005
 * payload 01 02 03 04; ICRC 00 00 00 00 (not checked in these tests)
 */
/* clang-format off */
static const uint8_t v6_udp_roce[28] = {
    0xc0, 0x00, 0x12, 0xb7, 0x00, 0x1c, 0x00, 0x00,                         /* UDP */
    0x04, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x05, /* BTH */
    0x01, 0x02, 0x03, 0x04, 0x00, 0x00, 0x00, 0x00,                         /* payload, ICRC */
};
/* clang-format on */

/* IPv6 with a hop-by-hop header and, when frag_field >= 0, a fragment header
 * whose offset/M field is frag_field. Returns the frame length. */
static size_t build_v6_ext(uint8_t *f, int frag_field)
{
    size_t off = sizeof v6_head;
    memcpy(f, v6_head, off);
    f[20] = 0; /* next header: hop-by-hop */
    memcpy(f + off, v6_hbh, sizeof v6_hbh);
    f[off] = frag_field >= 0 ? 44 : 17;
    off += sizeof v6_hbh;
    if (frag_field >= 0) {
        memcpy(f + off, v6_frag, sizeof v6_frag);
        td_put_be16(f + off + 2, (size_t)frag_field);
        off += sizeof v6_frag;
    }
    memcpy(f + off, v6_udp_roce, sizeof v6_udp_roce);
    off += sizeof v6_udp_roce;
    td_put_be16(f + 18, off - sizeof v6_head);
    return off;
}

static void test_ipv6_extension_headers(void)
{
    const struct roce_decode_cfg nocheck = {
        .udp_port = ROCE_UDP_PORT_ROCEV2, .vxlan_port = ROCE_UDP_PORT_VXLAN, .check_icrc = 0};
    uint8_t f[256];
    struct roce_pkt p;

    size_t n = build_v6_ext(f, -1); /* hop-by-hop only */
    roce_decode(&nocheck, ROCE_LINKTYPE_ETHERNET, f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(p.af, ROCE_AF_IPV6);
    CU_ASSERT_EQUAL(p.l4_off, 54 + 8);
    CU_ASSERT_EQUAL(p.bth_off, 54 + 8 + 8);
    CU_ASSERT_EQUAL(p.psn, 5);
    CU_ASSERT_EQUAL(p.payload_len, 4);
    CU_ASSERT_EQUAL(p.ecn, 2);

    n = build_v6_ext(f, 0x0000); /* hop-by-hop, atomic fragment (offset 0, M 0) */
    roce_decode(&nocheck, ROCE_LINKTYPE_ETHERNET, f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(p.bth_off, 54 + 16 + 8);
    CU_ASSERT_EQUAL(p.dqpn, 0x11);

    n = build_v6_ext(f, 0x0008); /* a non-first fragment (offset 1) */
    roce_decode(&nocheck, ROCE_LINKTYPE_ETHERNET, f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_NON_ROCE);
    CU_ASSERT_EQUAL(p.version, 0);
}

/* AH (RFC 4302): next header 17 (UDP), payload length 4: (4 + 2) * 4 = 24 bytes (12 fixed,
 * a 12-byte ICV), reserved, SPI 0x00000100, sequence 1, ICV 0xAA... . Its length counts 4-byte
 * words minus 2, unlike the other extension headers (8-byte units minus 1). */
static const uint8_t v6_ah[24] = {0x11, 0x04, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
                                  0x00, 0x00, 0x00, 0x01, 0xaa, 0xaa, 0xaa, 0xaa,
                                  0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa};

/* IPv6 with a hop-by-hop header, then AH, then UDP to 4791: AH is skipped by its own length. */
static void test_ipv6_ah(void)
{
    const struct roce_decode_cfg nocheck = {
        .udp_port = ROCE_UDP_PORT_ROCEV2, .vxlan_port = ROCE_UDP_PORT_VXLAN, .check_icrc = 0};
    uint8_t f[256];
    struct roce_pkt p;
    size_t off = sizeof v6_head;

    memcpy(f, v6_head, off);
    f[20] = 0; /* next header: hop-by-hop */
    memcpy(f + off, v6_hbh, sizeof v6_hbh);
    f[off] = 51; /* then AH */
    off += sizeof v6_hbh;
    memcpy(f + off, v6_ah, sizeof v6_ah);
    off += sizeof v6_ah;
    memcpy(f + off, v6_udp_roce, sizeof v6_udp_roce);
    off += sizeof v6_udp_roce;
    td_put_be16(f + 18, off - sizeof v6_head);
    roce_decode(&nocheck, ROCE_LINKTYPE_ETHERNET, f, off, off, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(p.l4_off, 54 + 8 + 24);
    CU_ASSERT_EQUAL(p.bth_off, 54 + 8 + 24 + 8);
    CU_ASSERT_EQUAL(p.dqpn, 0x11);
    CU_ASSERT_EQUAL(p.psn, 5);
    CU_ASSERT_EQUAL(p.payload_len, 4);
}

/* ---- what is and is not RoCE ---- */

static void test_udp_source_port_only(void)
{
    uint8_t f[RG_MAX_FRAME];
    struct rg_spec s;
    struct roce_pkt p;
    /* RoCE headers, but 4791 is only the source port */
    rg_spec_init(&s);
    s.udp_sport = RG_ROCEV2_PORT;
    s.udp_dport = 4792;
    expect_non_roce(&s);
    /* the same frame is RoCE when 4792 is the configured port */
    const struct roce_decode_cfg other = {
        .udp_port = 4792, .vxlan_port = ROCE_UDP_PORT_VXLAN, .check_icrc = 1};
    size_t n = td_build(&s, f, NULL);
    roce_decode(&other, ROCE_LINKTYPE_ETHERNET, f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(p.udp_sport, RG_ROCEV2_PORT);
    /* plain UDP from 4791 to a high port */
    rg_spec_init(&s);
    s.kind = RG_KIND_UDP;
    s.udp_sport = RG_ROCEV2_PORT;
    s.udp_dport = 50000;
    s.payload_len = 40;
    expect_non_roce(&s);
}
static void test_other_non_roce(void)
{
    static const enum rg_kind kinds[] = {RG_KIND_TCP, RG_KIND_ARP, RG_KIND_IP_RAW};
    static const uint8_t eth_only[13] = {0}; /* 13 bytes: not even an EtherType */
    struct rg_spec s;
    struct roce_pkt p;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        rg_spec_init(&s);
        s.kind = kinds[i];
        s.tcp_dport = RG_ROCEV2_PORT; /* TCP to 4791 is not RoCE either */
        s.ip_proto = 47;
        s.payload_len = 30;
        expect_non_roce(&s);
    }
    /* a cut Ethernet header, and nothing at all */
    td_dec(ROCE_LINKTYPE_ETHERNET, eth_only, sizeof eth_only, 60, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_NON_ROCE);
    td_dec(ROCE_LINKTYPE_ETHERNET, eth_only, 0, 60, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_NON_ROCE);
    CU_ASSERT_EQUAL(p.truncated, 1);
}
static void test_rocev1(void)
{
    uint8_t f[RG_MAX_FRAME];
    struct rg_layout lay;
    struct rg_spec s;
    struct roce_pkt p;
    /* GIDs ::ffff:192.168.1.1 and ::ffff:192.168.1.2 */
    static const uint8_t gid_a[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 1};
    static const uint8_t gid_b[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 2};
    rg_spec_init(&s);
    s.kind = RG_KIND_ROCEV1;
    rg_addr_v6(s.src, gid_a);
    rg_addr_v6(s.dst, gid_b);
    s.dscp = 24;
    s.ecn = RG_ECN_ECT1;
    s.opcode = RG_OP_RC_WRITE_ONLY;
    s.reth_dma_len = 100;
    s.payload_len = 100;
    s.psn = 77;
    size_t n = td_build(&s, f, &lay);
    td_dec(ROCE_LINKTYPE_ETHERNET, f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(p.version, 1);
    CU_ASSERT_EQUAL(p.af, ROCE_AF_IPV6);
    CU_ASSERT_EQUAL(p.l3_off, ETH_LEN);
    CU_ASSERT_EQUAL(p.bth_off, ETH_LEN + 40);
    CU_ASSERT_EQUAL(memcmp(p.src, gid_a, 16), 0);
    CU_ASSERT_EQUAL(memcmp(p.dst, gid_b, 16), 0);
    CU_ASSERT_EQUAL(p.dscp, 24);
    CU_ASSERT_EQUAL(p.ecn, 1);
    CU_ASSERT_EQUAL(p.psn, 77);
    CU_ASSERT_EQUAL(p.reth_dma_len, 100);
    CU_ASSERT_EQUAL(p.payload_len, 100);
    CU_ASSERT_EQUAL(p.end_off, n);
}

static void test_ethernet_padding_ignored(void)
{
    uint8_t f[RG_MAX_FRAME];
    struct rg_spec s;
    struct roce_pkt p;
    rg_spec_init(&s); /* RC SEND Only, no payload: 58 bytes */
    s.eth_pad_min = 1;
    size_t n = td_build(&s, f, NULL);
    CU_ASSERT_EQUAL(n, 60);
    td_dec(ROCE_LINKTYPE_ETHERNET, f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(p.end_off, 58);
    CU_ASSERT_EQUAL(p.payload_len, 0);
    CU_ASSERT_EQUAL(p.icrc_status, ROCE_ICRC_GOOD);
}

/* ---- malformed ---- */

static void expect_malformed(const struct rg_spec *s, enum roce_malformed why)
{
    uint8_t f[RG_MAX_FRAME];
    struct roce_pkt p;
    size_t n = td_build(s, f, NULL);
    td_dec(s->linktype, f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_MALFORMED);
    CU_ASSERT_EQUAL(p.malformed, why);
    CU_ASSERT_EQUAL(p.version, s->kind == RG_KIND_ROCEV1 ? 1 : 2);
    if (p.malformed != why)
        fprintf(stderr, "  want malformed %s, got cls %u %s\n", roce_malformed_name(why), p.cls,
                roce_malformed_name(p.malformed));
}

static void test_malformed_udp_length(void)
{
    struct rg_spec s;
    rg_spec_init(&s);
    s.udp_len = 7; /* < 8 */
    expect_malformed(&s, ROCE_MAL_UDP_LENGTH);
    s.udp_len = 8 + 12 + 4 + 1; /* one byte beyond the IP datagram */
    expect_malformed(&s, ROCE_MAL_UDP_LENGTH);
    /* an IP total length that ends before the UDP header does */
    rg_spec_init(&s);
    s.ip_len = 20 + 4;
    expect_malformed(&s, ROCE_MAL_UDP_LENGTH);
}

static void test_malformed_short_bth(void)
{
    struct rg_spec s;
    rg_spec_init(&s);
    s.roce_cut = 0; /* UDP length 8: nothing after the UDP header */
    expect_malformed(&s, ROCE_MAL_SHORT_BTH);
    s.roce_cut = 11; /* one byte short of a BTH */
    expect_malformed(&s, ROCE_MAL_SHORT_BTH);
    rg_spec_init(&s);
    s.kind = RG_KIND_ROCEV1;
    s.roce_cut = 11; /* GRH payload length 11 */
    expect_malformed(&s, ROCE_MAL_SHORT_BTH);
}

static void test_malformed_opcode(void)
{
    /* RC 0x15 (RESYNC is RD only), RC 0x18, RC 0x1F, UC 0x2C (no READ on UC),
     * 0x80 (the native InfiniBand CNP: not on RoCE), XRC 0xB5, 0xFF */
    static const uint8_t unknown[] = {0x15, 0x18, 0x1F, 0x2C, 0x80, 0xB5, 0xFF};
    struct rg_spec s;
    for (size_t i = 0; i < sizeof unknown; i++) {
        rg_spec_init(&s);
        s.opcode = unknown[i];
        s.payload_len = 16;
        expect_malformed(&s, ROCE_MAL_OPCODE);
    }
}

static void test_malformed_short_headers(void)
{
    struct rg_spec s;
    rg_spec_init(&s);
    s.opcode = RG_OP_RC_WRITE_ONLY;
    s.roce_cut = 12 + 16; /* BTH and RETH, no room for the ICRC */
    expect_malformed(&s, ROCE_MAL_SHORT_HDRS);
    s.roce_cut = 12 + 8; /* half a RETH */
    expect_malformed(&s, ROCE_MAL_SHORT_HDRS);
    rg_spec_init(&s);
    s.opcode = RG_OP_RC_ACK;
    s.roce_cut = 12 + 3; /* BTH + 3 bytes */
    expect_malformed(&s, ROCE_MAL_SHORT_HDRS);
    /* exactly enough is fine: BTH, RETH, ICRC, no payload */
    rg_spec_init(&s);
    s.opcode = RG_OP_RC_WRITE_ONLY;
    uint8_t f[RG_MAX_FRAME];
    struct roce_pkt p;
    size_t n = td_build(&s, f, NULL);
    td_dec(ROCE_LINKTYPE_ETHERNET, f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(p.payload_len, 0);
}

static void test_malformed_pad(void)
{
    struct rg_spec s;
    rg_spec_init(&s);
    s.payload_len = 2;
    s.padcnt = 3;  /* pad count 3 ... */
    s.pad_len = 0; /* ... but only 2 bytes between the headers and the ICRC */
    expect_malformed(&s, ROCE_MAL_PAD);
    s.payload_len = 0;
    s.padcnt = 1;
    expect_malformed(&s, ROCE_MAL_PAD);
    /* pad count equal to what is there: 0 payload bytes, not malformed */
    uint8_t f[RG_MAX_FRAME];
    struct roce_pkt p;
    s.payload_len = 0;
    s.padcnt = 2;
    s.pad_len = 2;
    size_t n = td_build(&s, f, NULL);
    td_dec(ROCE_LINKTYPE_ETHERNET, f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(p.payload_len, 0);
}

static void test_malformed_grh_next_header(void)
{
    uint8_t f[RG_MAX_FRAME];
    struct rg_layout lay;
    struct rg_spec s;
    struct roce_pkt p;
    rg_spec_init(&s);
    s.kind = RG_KIND_ROCEV1;
    size_t n = td_build(&s, f, &lay);
    f[lay.l3_off + 6] = 17; /* GRH next header UDP instead of 0x1B */
    td_dec(ROCE_LINKTYPE_ETHERNET, f, n, n, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_MALFORMED);
    CU_ASSERT_EQUAL(p.malformed, ROCE_MAL_GRH);
    CU_ASSERT_EQUAL(p.version, 1);
}

/* ---- every cut ---- */

static void test_cuts_real(void)
{
    static uint8_t v6[TU_REAL_V6_LEN];
    td_check_every_cut(ROCE_LINKTYPE_ETHERNET, tu_real_ack, TU_REAL_ACK_LEN, V2_HEAD);
    td_check_every_cut(ROCE_LINKTYPE_ETHERNET, tu_real_cnp, TU_REAL_CNP_LEN, V2_HEAD);
    tu_real_v6_frame(v6);
    td_check_every_cut(ROCE_LINKTYPE_ETHERNET, v6, TU_REAL_V6_LEN, ETH_LEN + 40 + 8);
}

static void test_cuts_built(void)
{
    uint8_t f[RG_MAX_FRAME];
    struct rg_layout lay;
    struct rg_spec s;

    /* RoCEv1: RoCE as soon as the EtherType is captured */
    rg_spec_init(&s);
    s.kind = RG_KIND_ROCEV1;
    s.opcode = RG_OP_RC_READ_RESP_FIRST;
    s.payload_len = 32;
    size_t n = td_build(&s, f, &lay);
    td_check_every_cut(ROCE_LINKTYPE_ETHERNET, f, n, ETH_LEN);

    /* two VLAN tags, IPv6, a READ request */
    rg_spec_init(&s);
    spec_v6(&s);
    s.n_vlans = 2;
    s.vlan[0] = (struct rg_vlan){RG_TPID_8021AD, 1, 0, 10};
    s.vlan[1] = (struct rg_vlan){RG_TPID_8021Q, 3, 0, 20};
    s.opcode = RG_OP_RC_READ_REQ;
    s.reth_dma_len = 65536;
    n = td_build(&s, f, &lay);
    td_check_every_cut(ROCE_LINKTYPE_ETHERNET, f, n, lay.bth_off);

    /* Linux cooked v2, IPv4 with options, an RC WRITE First with a payload */
    rg_spec_init(&s);
    s.linktype = RG_LINKTYPE_LINUX_SLL2;
    s.ip_opts_len = 4;
    s.opcode = RG_OP_RC_WRITE_FIRST;
    s.payload_len = 20;
    n = td_build(&s, f, &lay);
    td_check_every_cut(ROCE_LINKTYPE_LINUX_SLL2, f, n, lay.bth_off);

    /* raw IPv4 and SLL */
    s.linktype = RG_LINKTYPE_RAW;
    n = td_build(&s, f, &lay);
    td_check_every_cut(ROCE_LINKTYPE_RAW, f, n, lay.bth_off);
    s.linktype = RG_LINKTYPE_LINUX_SLL;
    n = td_build(&s, f, &lay);
    td_check_every_cut(ROCE_LINKTYPE_LINUX_SLL, f, n, lay.bth_off);
}

static const struct tu_test tests[] = {
    {"linktypes", test_linktypes},
    {"linktype_mismatch_and_unsupported", test_linktype_mismatch_and_unsupported},
    {"erf_types", test_erf_types},
    {"vlans", test_vlans},
    {"vlan_stack_depth", test_vlan_stack_depth},
    {"ipv4_options_ecn", test_ipv4_options_ecn},
    {"ipv4_fragments_not_roce", test_ipv4_fragments_not_roce},
    {"ipv6_extension_headers", test_ipv6_extension_headers},
    {"ipv6_ah", test_ipv6_ah},
    {"udp_source_port_only", test_udp_source_port_only},
    {"other_non_roce", test_other_non_roce},
    {"rocev1", test_rocev1},
    {"ethernet_padding_ignored", test_ethernet_padding_ignored},
    {"malformed_udp_length", test_malformed_udp_length},
    {"malformed_short_bth", test_malformed_short_bth},
    {"malformed_opcode", test_malformed_opcode},
    {"malformed_short_headers", test_malformed_short_headers},
    {"malformed_pad", test_malformed_pad},
    {"malformed_grh_next_header", test_malformed_grh_next_header},
    {"cuts_real", test_cuts_real},
    {"cuts_built", test_cuts_built},
    TU_END,
};

int main(int argc, char **argv)
{
    const struct tu_suite suites[] = {
        {"decode", tests},
        {"decode_bth", decode_bth_tests},
        {NULL, NULL},
    };
    return tu_main(argc, argv, suites);
}
