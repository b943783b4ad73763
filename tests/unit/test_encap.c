/*
 * test_encap.c - mirror encapsulations (analyzer/engine/roce_encap.c):
 * ERSPAN type I, II and III (with and without the platform subheader),
 * GRE transparent Ethernet bridging, IP in GRE and VXLAN around a RoCEv2 frame decode
 * to the inner packet with the encapsulation recorded; nesting stops at
 * ROCE_MAX_ENCAP; every cut of a wrapped frame decodes without reading past
 * the captured bytes and is never called malformed.
 */
#include <stdlib.h>
#include <string.h>

#include "roce_decode.h"
#include "rocegen_encap.h"
#include "test_util.h"

#define TUNNEL_A   0x0A090001u
#define TUNNEL_B   0x0A090002u
#define INNER_DQPN 0x0000B2u
#define INNER_PSN  0x000123u
#define SESSION    321u
#define VNI        0xABCDEu

static const struct roce_decode_cfg cfg = {.udp_port = ROCE_UDP_PORT_ROCEV2,
                                           .vxlan_port = ROCE_UDP_PORT_VXLAN,
                                           .check_icrc = 1};

/* The inner frame: an RC SEND Only with CE set, 64 bytes of payload. */
static int inner_frame(uint8_t *buf, size_t cap)
{
    struct rg_spec s;
    rg_spec_init(&s);
    s.dqpn = INNER_DQPN;
    s.psn = INNER_PSN;
    s.payload_len = 64;
    s.ecn = RG_ECN_CE;
    return rg_build(&s, buf, cap, NULL);
}

static int wrapped(enum rg_wrap_kind kind, int subheader, uint8_t *out, size_t cap)
{
    uint8_t in[RG_MAX_FRAME];
    struct rg_wrap w;
    int n = inner_frame(in, sizeof in);
    CU_ASSERT_FATAL(n > 0);
    rg_wrap_init(&w, kind, TUNNEL_A, TUNNEL_B);
    w.session = SESSION;
    w.vni = VNI;
    w.subheader = (uint8_t)subheader;
    return rg_wrap_build(&w, in, (size_t)n, out, cap);
}

static void check_kind(enum rg_wrap_kind kind, int subheader, enum roce_encap want, uint32_t id)
{
    uint8_t f[RG_MAX_FRAME];
    struct roce_pkt pkt;
    int n = wrapped(kind, subheader, f, sizeof f);
    CU_ASSERT_FATAL(n > 0);
    CU_ASSERT_EQUAL(roce_decode(&cfg, ROCE_LINKTYPE_ETHERNET, f, (size_t)n, (size_t)n, &pkt), 0);
    CU_ASSERT_EQUAL(pkt.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(pkt.encap, want);
    CU_ASSERT_EQUAL(pkt.encap_depth, 1);
    CU_ASSERT_EQUAL(pkt.encap_id, id);
    /* ERSPAN II and III keep the mirrored frame's priority (rocegen writes COS 3): + 1 */
    CU_ASSERT_EQUAL(pkt.encap_cos,
                    want == ROCE_ENCAP_ERSPAN2 || want == ROCE_ENCAP_ERSPAN3 ? 3 + 1 : 0);
    CU_ASSERT_EQUAL(pkt.dqpn, INNER_DQPN);
    CU_ASSERT_EQUAL(pkt.psn, INNER_PSN);
    CU_ASSERT_EQUAL(pkt.ecn, ROCE_ECN_CE); /* the inner IP header's, not the tunnel's */
    CU_ASSERT_EQUAL(pkt.icrc_status, ROCE_ICRC_GOOD);
    CU_ASSERT_EQUAL(pkt.dst[15], 2); /* 10.0.0.2, the inner destination */
    /* where the mirrored frame starts: the inner frame, to its last byte */
    uint8_t in[RG_MAX_FRAME];
    int n_in = inner_frame(in, sizeof in);
    CU_ASSERT_EQUAL(pkt.inner_type, 0); /* an Ethernet frame */
    CU_ASSERT_EQUAL_FATAL(pkt.inner_off + (unsigned)n_in, (unsigned)n);
    CU_ASSERT_EQUAL(memcmp(f + pkt.inner_off, in, (size_t)n_in), 0);

    /* every cut: no read past caplen (ASan), never malformed, BTH fields only when captured */
    for (int cut = 0; cut <= n; cut++) {
        uint8_t *c = malloc(cut ? (size_t)cut : 1);
        CU_ASSERT_FATAL(c != NULL);
        memcpy(c, f, (size_t)cut);
        CU_ASSERT_EQUAL(roce_decode(&cfg, ROCE_LINKTYPE_ETHERNET, c, (size_t)cut, (size_t)n, &pkt), 0);
        CU_ASSERT_NOT_EQUAL(pkt.cls, ROCE_CLASS_MALFORMED);
        if (pkt.bth_captured)
            CU_ASSERT_EQUAL(pkt.psn, INNER_PSN);
        free(c);
    }
}

static void test_erspan1(void)
{
    check_kind(RG_WRAP_ERSPAN1, 0, ROCE_ENCAP_ERSPAN1, 0);
}

static void test_erspan2(void)
{
    check_kind(RG_WRAP_ERSPAN2, 0, ROCE_ENCAP_ERSPAN2, SESSION);
}

static void test_erspan3(void)
{
    check_kind(RG_WRAP_ERSPAN3, 0, ROCE_ENCAP_ERSPAN3, SESSION);
    check_kind(RG_WRAP_ERSPAN3, 1, ROCE_ENCAP_ERSPAN3, SESSION);
}

static void test_gre_teb(void)
{
    check_kind(RG_WRAP_GRE_TEB, 0, ROCE_ENCAP_GRE_TEB, 0);
}

static void test_vxlan(void)
{
    check_kind(RG_WRAP_VXLAN, 0, ROCE_ENCAP_VXLAN, VNI);
}

/* IP in GRE (protocol 0x0800 / 0x86DD): no Ethernet header inside, the
 * walk goes on from the EtherType GRE names. Outer IPv4 and IPv6, inner
 * IPv4 and IPv6, written as
 *   Ethernet | IP (protocol 47) | GRE (flags 0, protocol) | inner IP | UDP 4791 | BTH ... ICRC */
static void check_gre_ip(int outer_v6, int inner_v6)
{
    static const uint8_t gid_a[16] = {0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    static const uint8_t gid_b[16] = {0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
    uint8_t in[RG_MAX_FRAME], payload[RG_MAX_FRAME], f[RG_MAX_FRAME];
    struct rg_spec s;
    struct roce_pkt pkt;
    unsigned type = inner_v6 ? 0x86DD : 0x0800;

    rg_spec_init(&s); /* the inner RoCEv2 packet */
    s.dqpn = INNER_DQPN;
    s.psn = INNER_PSN;
    s.payload_len = 64;
    if (inner_v6) {
        s.ip_version = 6;
        rg_addr_v6(s.src, gid_a);
        rg_addr_v6(s.dst, gid_b);
    }
    int n_in = rg_build(&s, in, sizeof in, NULL);
    CU_ASSERT_FATAL(n_in > 14);
    payload[0] = payload[1] = 0; /* GRE: no flags, version 0 */
    payload[2] = (uint8_t)(type >> 8);
    payload[3] = (uint8_t)type;
    memcpy(payload + 4, in + 14, (size_t)n_in - 14); /* without its Ethernet header */

    rg_spec_init(&s); /* the tunnel */
    s.kind = RG_KIND_IP_RAW;
    s.ip_proto = 47;
    rg_addr_v4(s.src, TUNNEL_A);
    rg_addr_v4(s.dst, TUNNEL_B);
    if (outer_v6) {
        s.ip_version = 6;
        rg_addr_v6(s.src, gid_b);
        rg_addr_v6(s.dst, gid_a);
    }
    s.payload = payload;
    s.payload_len = (uint32_t)(4 + n_in - 14);
    int n = rg_build(&s, f, sizeof f, NULL);
    CU_ASSERT_FATAL(n > 0);

    CU_ASSERT_EQUAL(roce_decode(&cfg, ROCE_LINKTYPE_ETHERNET, f, (size_t)n, (size_t)n, &pkt), 0);
    CU_ASSERT_EQUAL(pkt.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(pkt.encap, ROCE_ENCAP_GRE_IP);
    CU_ASSERT_EQUAL(pkt.encap_depth, 1);
    CU_ASSERT_EQUAL(pkt.inner_type, type);
    CU_ASSERT_EQUAL(pkt.inner_off + (unsigned)(n_in - 14), (unsigned)n);
    CU_ASSERT_EQUAL(pkt.l3_off, pkt.inner_off);
    CU_ASSERT_EQUAL(pkt.af, inner_v6 ? ROCE_AF_IPV6 : ROCE_AF_IPV4);
    CU_ASSERT_EQUAL(pkt.dqpn, INNER_DQPN);
    CU_ASSERT_EQUAL(pkt.psn, INNER_PSN);
    CU_ASSERT_EQUAL(pkt.icrc_status, ROCE_ICRC_GOOD);
}

static void test_gre_ip(void)
{
    check_gre_ip(0, 0);
    check_gre_ip(0, 1);
    check_gre_ip(1, 0);
    check_gre_ip(1, 1);
}

/* VXLAN in VXLAN in ... : unwrapped ROCE_MAX_ENCAP deep, no further. */
static void test_nesting_limit(void)
{
    uint8_t a[RG_MAX_FRAME], b[RG_MAX_FRAME];
    struct roce_pkt pkt;
    int n = inner_frame(a, sizeof a);
    for (int depth = 1; depth <= ROCE_MAX_ENCAP + 1; depth++) {
        struct rg_wrap w;
        rg_wrap_init(&w, RG_WRAP_VXLAN, TUNNEL_A, TUNNEL_B);
        n = rg_wrap_build(&w, a, (size_t)n, b, sizeof b);
        CU_ASSERT_FATAL(n > 0);
        memcpy(a, b, (size_t)n);
        roce_decode(&cfg, ROCE_LINKTYPE_ETHERNET, a, (size_t)n, (size_t)n, &pkt);
        if (depth <= ROCE_MAX_ENCAP) {
            CU_ASSERT_EQUAL(pkt.cls, ROCE_CLASS_ROCE);
            CU_ASSERT_EQUAL(pkt.encap_depth, depth);
        } else {
            CU_ASSERT_EQUAL(pkt.cls, ROCE_CLASS_NON_ROCE);
        }
    }
}

/* With VXLAN switched off (port 0), UDP 4789 is plain UDP. */
static void test_vxlan_off(void)
{
    uint8_t f[RG_MAX_FRAME];
    struct roce_pkt pkt;
    struct roce_decode_cfg off = cfg;
    off.vxlan_port = 0;
    int n = wrapped(RG_WRAP_VXLAN, 0, f, sizeof f);
    roce_decode(&off, ROCE_LINKTYPE_ETHERNET, f, (size_t)n, (size_t)n, &pkt);
    CU_ASSERT_EQUAL(pkt.cls, ROCE_CLASS_NON_ROCE);
    CU_ASSERT_EQUAL(pkt.encap_depth, 0);
}

static const struct tu_test tests[] = {
    {"erspan1", test_erspan1},   {"erspan2", test_erspan2},
    {"erspan3", test_erspan3},   {"gre_teb", test_gre_teb},
    {"vxlan", test_vxlan},
    {"gre_ip", test_gre_ip},       {"nesting_limit", test_nesting_limit},
    {"vxlan_off", test_vxlan_off}, TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "encap", tests);
}
