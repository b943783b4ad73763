/*
 * rocegen_wire.c - the header writers of the rocegen_build library (see
 * rocegen_wire.h): link layer and VLAN tags, IPv4, IPv6 / GRH, ARP, BTH and
 * extension headers, checksums. Each writes at a position rg_build() has
 * sized; none checks room again.
 *
 *   Ethernet II  | dst(6) | src(6) | [TPID(2) TCI(2)]... | type(2) |
 *   Linux SLL    | pkttype(2) ARPHRD(2) addr_len(2) addr(8) protocol(2) |
 *   Linux SLL2   | protocol(2) resv(2) ifindex(4) ARPHRD(2) pkttype(1) addr_len(1) addr(8) |
 *   BTH          | OpCode(8) | SE M Pad(2) TVer(4) | P_Key(16) | F B resv6 | DestQP(24) |
 *                | A resv7 | PSN(24) |     (IBTA Vol. 1 9.2; extension headers 9.3)
 */
#include "rocegen_wire.h"

#include <string.h>

/* The RoCE part of the plan of s (rocegen_wire.h): extension headers, pad, the
 * region before and after a cut. */
int rg_plan_roce(const struct rg_spec *s, struct rg_plan *pl)
{
    if (s->hdrs == RG_AUTO) {
        const struct roce_opcode_info *op = roce_opcode_lookup(s->opcode);
        pl->hdrs = op != NULL ? op->hdrs : 0;
    } else {
        pl->hdrs = (unsigned)s->hdrs & ROCE_HDR_ALL;
    }
    pl->padcnt = s->padcnt == RG_AUTO
                     ? (BTH_PAD_ALIGN - s->payload_len % BTH_PAD_ALIGN) % BTH_PAD_ALIGN
                     : (unsigned)s->padcnt & BTH_PAD_MASK;
    pl->pad_len = s->pad_len == RG_AUTO ? pl->padcnt : (unsigned)s->pad_len & BTH_PAD_MASK;
    if (s->payload_len > RG_MAX_FRAME)
        return RG_ERR_INVALID;
    pl->roce_full =
        ROCE_BTH_LEN + roce_hdrs_len(pl->hdrs) + s->payload_len + pl->pad_len + ROCE_ICRC_LEN;
    pl->body_len = pl->roce_full;
    if (s->roce_cut != RG_AUTO) {
        if (s->roce_cut < 0)
            return RG_ERR_INVALID;
        if ((unsigned)s->roce_cut < pl->body_len)
            pl->body_len = (unsigned)s->roce_cut;
    }
    return 0;
}

/* Link header and VLAN tags at buf; returns the bytes written. */
unsigned rg_wire_link(const struct rg_spec *s, const struct rg_plan *pl, uint8_t *buf)
{
    unsigned off = 0;

    switch (s->linktype) {
    case RG_LINKTYPE_ETHERNET:
        memcpy(buf, s->eth_dst, RG_MAC_LEN);
        memcpy(buf + RG_MAC_LEN, s->eth_src, RG_MAC_LEN);
        off = 2 * RG_MAC_LEN;
        break;
    case RG_LINKTYPE_LINUX_SLL:
        /* pkttype(2) ARPHRD(2) addr_len(2) addr(8) protocol(2) */
        put_be16(buf, s->sll_pkttype);
        put_be16(buf + 2, ARPHRD_ETHER_);
        put_be16(buf + 4, RG_MAC_LEN);
        memset(buf + 6, 0, SLL_ADDR_FIELD_LEN);
        memcpy(buf + 6, s->eth_src, RG_MAC_LEN);
        off = SLL_HDR_LEN - 2;
        break;
    case RG_LINKTYPE_LINUX_SLL2:
        /* protocol(2) reserved(2) ifindex(4) ARPHRD(2) pkttype(1) addr_len(1) addr(8);
           the protocol is written below, after the tags are known */
        memset(buf, 0, SLL2_HDR_LEN);
        put_be32(buf + 4, s->sll2_ifindex);
        put_be16(buf + 8, ARPHRD_ETHER_);
        buf[10] = (uint8_t)s->sll_pkttype;
        buf[11] = RG_MAC_LEN;
        memcpy(buf + 12, s->eth_src, RG_MAC_LEN);
        off = SLL2_HDR_LEN;
        break;
    default:
        return 0; /* raw IP */
    }

    /* The first type field names the first tag's TPID, each tag the next type. */
    uint8_t *type_field = s->linktype == RG_LINKTYPE_LINUX_SLL2 ? buf : buf + off;
    if (s->linktype != RG_LINKTYPE_LINUX_SLL2)
        off += 2;
    for (unsigned i = 0; i < s->n_vlans; i++) {
        const struct rg_vlan *v = &s->vlan[i];
        put_be16(type_field, v->tpid);
        put_be16(buf + off, (uint32_t)(v->pcp & VLAN_PCP_MAX) << VLAN_PCP_SHIFT |
                                (uint32_t)(v->dei & 1u) << VLAN_DEI_SHIFT |
                                (v->vid & VLAN_VID_MASK));
        type_field = buf + off + 2;
        off += VLAN_TAG_LEN;
    }
    put_be16(type_field, pl->ethertype);
    return off;
}

/* Traffic class byte: DSCP and ECN. */
static uint8_t traffic_class(const struct rg_spec *s)
{
    return (uint8_t)(s->dscp << IP_DSCP_SHIFT | (s->ecn & IP_ECN_MASK));
}

/* L4 protocol number of the spec. */
uint8_t rg_wire_l4_proto(const struct rg_spec *s)
{
    if (s->kind == RG_KIND_TCP)
        return IPPROTO_TCP_;
    if (s->kind == RG_KIND_IP_RAW)
        return s->ip_proto;
    return IPPROTO_UDP_;
}

/* IPv4 header (the checksum is filled in by rg_build()). */
void rg_wire_ipv4(const struct rg_spec *s, const struct rg_plan *pl, uint8_t *p)
{
    unsigned hl = pl->l3_len;
    uint32_t tot = hl + pl->l4_len + pl->body_len;
    uint32_t frag = (s->ip_df ? IPV4_FLAG_DF : 0) | (s->ip_mf ? IPV4_FLAG_MF : 0) |
                    (s->ip_frag_off & IPV4_FRAG_OFF_MASK);

    p[0] = (uint8_t)(IPV4_VERSION_IHL | hl / IPV4_OPT_ALIGN);
    p[1] = traffic_class(s);
    put_be16(p + 2, s->ip_len == RG_AUTO ? tot : (uint32_t)s->ip_len);
    put_be16(p + 4, s->ip_id);
    put_be16(p + 6, frag);
    p[8] = s->ttl;
    p[9] = rg_wire_l4_proto(s);
    put_be16(p + IPV4_CSUM_OFF, 0);
    memcpy(p + 12, roce_addr_v4(s->src), IPV4_ADDR_LEN);
    memcpy(p + 16, roce_addr_v4(s->dst), IPV4_ADDR_LEN);
    memcpy(p + IPV4_HDR_LEN, s->ip_opts, s->ip_opts_len);
}

/* IPv6 header or RoCEv1 GRH (same layout; next header nxt). */
void rg_wire_ipv6(const struct rg_spec *s, const struct rg_plan *pl, uint8_t *p, uint8_t nxt)
{
    uint32_t plen = pl->l4_len + pl->body_len;

    put_be32(p, IPV6_VERSION_WORD | (uint32_t)traffic_class(s) << IPV6_TC_SHIFT |
                    (s->flow_label & IPV6_FLOW_MASK));
    put_be16(p + IPV6_PLEN_OFF, s->ip_len == RG_AUTO ? plen : (uint32_t)s->ip_len);
    p[6] = nxt;
    p[7] = s->ttl;
    memcpy(p + 8, s->src, RG_ADDR_LEN);
    memcpy(p + 24, s->dst, RG_ADDR_LEN);
}

/* ARP request: who has dst, tell src (IPv4 addresses from the mapped form). */
void rg_wire_arp(const struct rg_spec *s, uint8_t *p)
{
    put_be16(p, ARP_HTYPE_ETHER);
    put_be16(p + 2, ETHERTYPE_IPV4);
    p[4] = RG_MAC_LEN;
    p[5] = IPV4_ADDR_LEN;
    put_be16(p + 6, ARP_OP_REQUEST);
    memcpy(p + 8, s->eth_src, RG_MAC_LEN);
    memcpy(p + 14, roce_addr_v4(s->src), IPV4_ADDR_LEN);
    memset(p + 18, 0, RG_MAC_LEN);
    memcpy(p + 24, roce_addr_v4(s->dst), IPV4_ADDR_LEN);
}

/* One extension header (one roce_hdr bit) at p; returns its length. */
static unsigned write_ext(const struct rg_spec *s, unsigned h, uint8_t *p)
{
    switch (h) {
    case ROCE_HDR_RDETH: /* resv(8) EE context(24) */
        p[0] = 0;
        put_be24(p + 1, s->rdeth_eecnxt);
        break;
    case ROCE_HDR_DETH: /* Q_Key(32) resv(8) source QP(24) */
        put_be32(p, s->deth_qkey);
        p[4] = 0;
        put_be24(p + 5, s->deth_srcqp);
        break;
    case ROCE_HDR_XRCETH: /* resv(8) XRC SRQ(24) */
        p[0] = 0;
        put_be24(p + 1, s->xrceth_srqn);
        break;
    case ROCE_HDR_FETH:
        put_be32(p, s->feth);
        break;
    case ROCE_HDR_RETH: /* VA(64) R_Key(32) DMA length(32) */
        put_be64(p, s->reth_va);
        put_be32(p + 8, s->reth_rkey);
        put_be32(p + 12, s->reth_dma_len);
        break;
    case ROCE_HDR_ATOMICETH: /* VA(64) R_Key(32) swap/add(64) compare(64) */
        put_be64(p, s->atomic_va);
        put_be32(p + 8, s->atomic_rkey);
        put_be64(p + 12, s->atomic_swap_add);
        put_be64(p + 20, s->atomic_cmp);
        break;
    case ROCE_HDR_AETH: /* syndrome(8) MSN(24) */
        p[0] = s->aeth_syndrome;
        put_be24(p + 1, s->aeth_msn);
        break;
    case ROCE_HDR_ATOMICACKETH:
        put_be64(p, s->atomicack_orig);
        break;
    case ROCE_HDR_IMMDT:
        put_be32(p, s->immdt);
        break;
    case ROCE_HDR_IETH:
        put_be32(p, s->ieth_rkey);
        break;
    default: /* ROCE_HDR_CNP_RSVD */
        memset(p, 0, ROCE_CNP_RSVD_LEN);
        break;
    }
    return roce_hdrs_len(h);
}

/* BTH, extension headers, payload, pad (the ICRC is filled in later). */
void rg_wire_roce(const struct rg_spec *s, const struct rg_plan *pl, uint8_t *p)
{
    p[0] = s->opcode;
    p[1] = (uint8_t)((s->se ? BTH_SE_BIT : 0) | (s->mig ? BTH_M_BIT : 0) |
                     pl->padcnt << BTH_PAD_SHIFT | (s->tver & BTH_TVER_MASK));
    put_be16(p + 2, s->pkey);
    p[4] = (uint8_t)((s->fecn ? BTH_FECN_BIT : 0) | (s->becn ? BTH_BECN_BIT : 0));
    put_be24(p + 5, s->dqpn);
    p[8] = s->ackreq ? BTH_ACKREQ_BIT : 0;
    put_be24(p + 9, s->psn);

    unsigned off = ROCE_BTH_LEN;
    for (unsigned h = 1; h <= ROCE_HDR_ALL; h <<= 1)
        if (pl->hdrs & h)
            off += write_ext(s, h, p + off);
    if (s->payload != NULL)
        memcpy(p + off, s->payload, s->payload_len);
    else
        memset(p + off, s->payload_fill, s->payload_len);
    off += s->payload_len;
    memset(p + off, 0, pl->pad_len + ROCE_ICRC_LEN);
}

/* One's-complement sum of n bytes, continuing sum. */
uint32_t rg_wire_csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        sum += (uint32_t)p[i] << 8 | p[i + 1];
    if (n & 1u)
        sum += (uint32_t)p[n - 1] << 8;
    return sum;
}

/* Fold and complement a one's-complement sum. */
uint16_t rg_wire_csum_fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & LEN16_MAX) + (sum >> 16);
    return (uint16_t)~sum;
}

/* UDP/TCP checksum over the pseudo header and l4_len bytes at l4. */
uint16_t rg_wire_l4_checksum(const struct rg_spec *s, const struct rg_plan *pl, const uint8_t *l4,
                             size_t l4_len)
{
    uint32_t sum = 0;
    if (pl->is_v6) {
        sum = rg_wire_csum_add(sum, s->src, RG_ADDR_LEN);
        sum = rg_wire_csum_add(sum, s->dst, RG_ADDR_LEN);
        sum += (uint32_t)(l4_len >> 16) + (uint32_t)(l4_len & LEN16_MAX);
    } else {
        sum = rg_wire_csum_add(sum, roce_addr_v4(s->src), IPV4_ADDR_LEN);
        sum = rg_wire_csum_add(sum, roce_addr_v4(s->dst), IPV4_ADDR_LEN);
        sum += (uint32_t)(l4_len & LEN16_MAX);
    }
    sum += rg_wire_l4_proto(s);
    sum = rg_wire_csum_add(sum, l4, l4_len);
    uint16_t c = rg_wire_csum_fold(sum);
    return c == 0 ? (uint16_t)LEN16_MAX : c; /* 0 means "no checksum" in UDP */
}
