/*
 * rocegen_encap.c - mirror encapsulations and MAC Control frames (see
 * rocegen_encap.h). The tunnel's IP (and UDP for VXLAN) is built by
 * rg_build() around a payload made here: GRE header, ERSPAN header, frame.
 *
 * Layouts (written independently of the engine's decoder, from the specs):
 * GRE RFC 2784/2890; ERSPAN draft-foschiano-erspan-03 (type II: Ver=1,
 * VLAN, COS, En, T, Session ID, Reserved, Index; type III: Ver=2, VLAN, COS,
 * BSO, T, Session ID, Timestamp, SGT, P, FT, HW ID, D, Gra, O); VXLAN RFC
 * 7348; PAUSE IEEE 802.3 Annex 31B; PFC IEEE 802.1Qbb.
 */
#include "rocegen_encap.h"

#include <string.h>

#include "rocegen_wire.h"

#define GRE_FLAG_S          0x1000u
#define GRE_PROTO_ERSPAN2   0x88BEu
#define GRE_PROTO_ERSPAN3   0x22EBu
#define GRE_PROTO_TEB       0x6558u
#define IPPROTO_GRE_        47u
#define GRE_LEN             4
#define GRE_SEQ_LEN         4
#define ERSPAN2_LEN         8
#define ERSPAN3_LEN         12
#define ERSPAN3_SUB_LEN     8
#define ERSPAN_VER2_WORD    0x1000u /* version 1 (type II) in bits 15:12 */
#define ERSPAN_VER3_WORD    0x2000u /* version 2 (type III) */
#define ERSPAN_SESSION_MASK 0x03FFu
#define ERSPAN_COS_SHIFT    13
#define ERSPAN_COS_ROCE     3u /* the mirrored RoCE class of service */
#define ERSPAN3_TIMESTAMP   0x12345678u
#define ERSPAN3_O_BIT       0x01u
#define VXLAN_LEN           8
#define VXLAN_FLAG_I        0x08u
#define VXLAN_PORT          4789u
#define VXLAN_SPORT         0xD000u
#define MACCTRL_ETHERTYPE   0x8808u
#define MAX_WRAPPED         (RG_MAX_FRAME - 128)
#define IB_MIRROR_PREFIX_LEN 4
#define IB_MIRROR_ETHERTYPE 0x1123u

static const uint8_t macctrl_dst[RG_MAC_LEN] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};

void rg_wrap_init(struct rg_wrap *w, enum rg_wrap_kind kind, uint32_t src, uint32_t dst)
{
    memset(w, 0, sizeof *w);
    w->kind = kind;
    rg_spec_init(&w->outer);
    rg_addr_v4(w->outer.src, src);
    rg_addr_v4(w->outer.dst, dst);
    w->outer.ecn = RG_ECN_NOT_ECT;
}

/* The GRE header (and ERSPAN header) for w into p; returns its length. */
static size_t gre_headers(const struct rg_wrap *w, uint8_t *p)
{
    size_t n = 0;
    unsigned proto = w->kind == RG_WRAP_ERSPAN3 ? GRE_PROTO_ERSPAN3
                     : w->kind == RG_WRAP_GRE_TEB ? GRE_PROTO_TEB
                                                  : GRE_PROTO_ERSPAN2;
    int seq = w->kind == RG_WRAP_ERSPAN2 || w->kind == RG_WRAP_ERSPAN3;
    put_be16(p, seq ? GRE_FLAG_S : 0);
    put_be16(p + 2, proto);
    n = GRE_LEN;
    if (seq) {
        put_be32(p + n, w->seq);
        n += GRE_SEQ_LEN;
    }
    uint16_t word2 = (uint16_t)(ERSPAN_COS_ROCE << ERSPAN_COS_SHIFT | (w->session & ERSPAN_SESSION_MASK));
    if (w->kind == RG_WRAP_ERSPAN2) {
        memset(p + n, 0, ERSPAN2_LEN);
        put_be16(p + n, ERSPAN_VER2_WORD);
        put_be16(p + n + 2, word2);
        n += ERSPAN2_LEN;
    } else if (w->kind == RG_WRAP_ERSPAN3) {
        memset(p + n, 0, ERSPAN3_LEN);
        put_be16(p + n, ERSPAN_VER3_WORD);
        put_be16(p + n + 2, word2);
        put_be32(p + n + 4, ERSPAN3_TIMESTAMP);
        /* SGT 0, P 0, FT 0 (Ethernet), HW ID 0, D 0, Gra 0, O */
        p[n + 11] = w->subheader ? ERSPAN3_O_BIT : 0;
        n += ERSPAN3_LEN;
        if (w->subheader) {
            memset(p + n, 0, ERSPAN3_SUB_LEN);
            n += ERSPAN3_SUB_LEN;
        }
    }
    return n;
}

int rg_wrap_build(struct rg_wrap *w, const uint8_t *inner, size_t inner_len, uint8_t *buf,
                  size_t cap)
{
    uint8_t payload[RG_MAX_FRAME];
    struct rg_spec s = w->outer;
    size_t n;

    if (inner_len > MAX_WRAPPED)
        return RG_ERR_SPACE;
    if (w->kind == RG_WRAP_IB_MIRROR) {
        memset(payload, 0, IB_MIRROR_PREFIX_LEN);
        n = IB_MIRROR_PREFIX_LEN;
        s.linktype = RG_LINKTYPE_INFINIBAND;
        s.kind = RG_KIND_IB_RAW;
        s.ib_ethertype = IB_MIRROR_ETHERTYPE;
    } else if (w->kind == RG_WRAP_VXLAN) {
        memset(payload, 0, VXLAN_LEN);
        payload[0] = VXLAN_FLAG_I;
        put_be24(payload + 4, w->vni);
        n = VXLAN_LEN;
        s.kind = RG_KIND_UDP;
        s.udp_sport = VXLAN_SPORT;
        s.udp_dport = VXLAN_PORT;
    } else {
        n = gre_headers(w, payload);
        s.kind = RG_KIND_IP_RAW;
        s.ip_proto = IPPROTO_GRE_;
        w->seq++;
    }
    memcpy(payload + n, inner, inner_len);
    s.payload = payload;
    s.payload_len = (uint32_t)(n + inner_len);
    return rg_build(&s, buf, cap, NULL);
}

int rg_build_mac_control(unsigned opcode, uint8_t cev, const uint16_t quanta[RG_PFC_PRIOS],
                         const uint8_t src_mac[RG_MAC_LEN], uint8_t *buf, size_t cap)
{
    if (cap < ETH_MIN_FRAME)
        return RG_ERR_SPACE;
    memset(buf, 0, ETH_MIN_FRAME);
    memcpy(buf, macctrl_dst, RG_MAC_LEN);
    memcpy(buf + RG_MAC_LEN, src_mac, RG_MAC_LEN);
    put_be16(buf + 2 * RG_MAC_LEN, MACCTRL_ETHERTYPE);
    uint8_t *p = buf + ETH_HDR_LEN;
    put_be16(p, opcode);
    if (opcode == RG_MACCTRL_PAUSE) {
        put_be16(p + 2, quanta[0]);
    } else {
        put_be16(p + 2, cev);
        for (unsigned i = 0; i < RG_PFC_PRIOS; i++)
            put_be16(p + 4 + 2 * i, quanta[i]);
    }
    return ETH_MIN_FRAME;
}
