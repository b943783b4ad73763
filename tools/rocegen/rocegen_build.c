/*
 * rocegen_build.c - one frame from a struct rg_spec (see rocegen_build.h).
 *
 * Layers, outermost first:
 *   link   Ethernet II [802.1Q/802.1ad tags], Linux SLL (16 bytes), Linux
 *          SLL2 (20 bytes) or nothing (raw IP link types)
 *   L3     IPv4 (RFC 791, options allowed), IPv6 (RFC 8200), RoCEv1 GRH
 *          (IBTA Vol. 1 8.3: IPv6 layout, next header 0x1B) or ARP (RFC 826)
 *   L4     UDP (RFC 768), TCP (RFC 9293, 20-byte header)
 *   RoCE   BTH | extension headers | payload | pad | ICRC   (IBTA Vol. 1 9.2, 9.3,
 *          Annex A16/A17); the ICRC comes from the engine's roce_icrc_compute().
 *
 * The frame is sized first, then written front to back; lengths, the IPv4
 * header checksum, the ICRC and finally the UDP/TCP checksum are filled in
 * last, in that order (the UDP checksum covers the ICRC, the ICRC masks the
 * UDP checksum).
 */
#include "rocegen_build.h"

#include <string.h>

#include "roce_icrc.h"
#include "rocegen_ib.h"
#include "rocegen_wire.h"

#define DEFAULT_TTL          64
#define DEFAULT_UDP_SPORT    0xC000u
#define DEFAULT_TCP_SPORT    40000u
#define DEFAULT_TCP_DPORT    443u
#define DEFAULT_TCP_FLAGS    0x18u /* PSH, ACK */
#define DEFAULT_DQPN         0x000011u
#define DEFAULT_SRC_V4       0x0A000001u /* 10.0.0.1 */
#define DEFAULT_DST_V4       0x0A000002u /* 10.0.0.2 */
#define DEFAULT_SLL2_IFINDEX 1u
#define DEFAULT_SLID         0x0001u
#define DEFAULT_DLID         0x0002u

static const uint8_t default_mac_src[RG_MAC_LEN] = {0x02, 0, 0, 0, 0, 0x01};
static const uint8_t default_mac_dst[RG_MAC_LEN] = {0x02, 0, 0, 0, 0, 0x02};

void rg_addr_v4(uint8_t out[RG_ADDR_LEN], uint32_t addr)
{
    uint8_t v4[ROCE_ADDR_V4_LEN];
    put_be32(v4, addr);
    roce_addr_set_v4(out, v4);
}

void rg_addr_v6(uint8_t out[RG_ADDR_LEN], const uint8_t addr[RG_ADDR_LEN])
{
    memcpy(out, addr, RG_ADDR_LEN);
}

void rg_spec_init(struct rg_spec *s)
{
    memset(s, 0, sizeof *s);
    s->linktype = RG_LINKTYPE_ETHERNET;
    memcpy(s->eth_src, default_mac_src, RG_MAC_LEN);
    memcpy(s->eth_dst, default_mac_dst, RG_MAC_LEN);
    s->sll2_ifindex = DEFAULT_SLL2_IFINDEX;
    s->kind = RG_KIND_ROCEV2;
    s->ip_version = 4;
    rg_addr_v4(s->src, DEFAULT_SRC_V4);
    rg_addr_v4(s->dst, DEFAULT_DST_V4);
    s->ecn = RG_ECN_ECT0;
    s->ttl = DEFAULT_TTL;
    s->ip_df = 1;
    s->ip_proto = IPPROTO_UDP_;
    s->ip_len = RG_AUTO;
    s->udp_sport = DEFAULT_UDP_SPORT;
    s->udp_dport = RG_ROCEV2_PORT;
    s->udp_len = RG_AUTO;
    s->tcp_sport = DEFAULT_TCP_SPORT;
    s->tcp_dport = DEFAULT_TCP_DPORT;
    s->tcp_flags = DEFAULT_TCP_FLAGS;
    s->opcode = RG_OP_RC_SEND_ONLY;
    s->padcnt = RG_AUTO;
    s->pad_len = RG_AUTO;
    s->pkey = RG_PKEY_DEFAULT;
    s->dqpn = DEFAULT_DQPN;
    s->hdrs = RG_AUTO;
    s->roce_cut = RG_AUTO;
    s->grh_next_hdr = RG_AUTO;
    s->ib_pktlen = RG_AUTO;
    s->slid = DEFAULT_SLID;
    s->dlid = DEFAULT_DLID;
}

void rg_spec_reverse(struct rg_spec *s)
{
    uint8_t a[RG_ADDR_LEN], m[RG_MAC_LEN];
    uint16_t port;

    memcpy(a, s->src, RG_ADDR_LEN);
    memcpy(s->src, s->dst, RG_ADDR_LEN);
    memcpy(s->dst, a, RG_ADDR_LEN);
    memcpy(m, s->eth_src, RG_MAC_LEN);
    memcpy(s->eth_src, s->eth_dst, RG_MAC_LEN);
    memcpy(s->eth_dst, m, RG_MAC_LEN);
    uint16_t lid = s->slid;
    s->slid = s->dlid;
    s->dlid = lid;
    if (s->kind != RG_KIND_ROCEV2) { /* RoCEv2 keeps 4791 as its destination */
        port = s->udp_sport;
        s->udp_sport = s->udp_dport;
        s->udp_dport = port;
    }
    port = s->tcp_sport;
    s->tcp_sport = s->tcp_dport;
    s->tcp_dport = port;
}

const char *rg_strerror(int err)
{
    switch (err) {
    case RG_ERR_SPACE:
        return "frame does not fit in the buffer";
    case RG_ERR_INVALID:
        return "inconsistent frame spec";
    case RG_ERR_IO:
        return "write error";
    case RG_ERR_AS_IB:
        return "not writable as InfiniBand (--as-ib): it mirrors or tunnels its frames, or two "
               "of its addresses end in the same two bytes (one LID)";
    default:
        return err >= 0 ? "success" : "unknown error";
    }
}

/* Nonzero when the link type carries an EtherType (and so VLAN tags). */
static int link_has_ethertype(int linktype)
{
    return linktype == RG_LINKTYPE_ETHERNET || linktype == RG_LINKTYPE_LINUX_SLL ||
           linktype == RG_LINKTYPE_LINUX_SLL2;
}

/* Check s and size the frame into *pl. Returns 0 or RG_ERR_INVALID. */
static int make_plan(const struct rg_spec *s, struct rg_plan *pl)
{
    memset(pl, 0, sizeof *pl);
    pl->is_roce = s->kind == RG_KIND_ROCEV2 || s->kind == RG_KIND_ROCEV1;
    pl->is_v6 = s->kind == RG_KIND_ROCEV1 || s->ip_version == 6;
    if (s->kind > RG_KIND_IP_RAW || s->n_vlans > RG_MAX_VLANS)
        return RG_ERR_INVALID;
    if (s->kind != RG_KIND_ROCEV1 && s->kind != RG_KIND_ARP && s->ip_version != 4 &&
        s->ip_version != 6)
        return RG_ERR_INVALID;
    if (s->ip_opts_len > RG_IPV4_OPT_MAX || s->ip_opts_len % IPV4_OPT_ALIGN != 0 ||
        s->dscp > IP_DSCP_MAX)
        return RG_ERR_INVALID;

    if (s->kind == RG_KIND_ROCEV1)
        pl->ethertype = ETHERTYPE_ROCEV1;
    else if (s->kind == RG_KIND_ARP)
        pl->ethertype = ETHERTYPE_ARP;
    else
        pl->ethertype = pl->is_v6 ? ETHERTYPE_IPV6 : ETHERTYPE_IPV4;

    switch (s->linktype) {
    case RG_LINKTYPE_ETHERNET:
        pl->link_len = ETH_HDR_LEN;
        break;
    case RG_LINKTYPE_LINUX_SLL:
        pl->link_len = SLL_HDR_LEN;
        break;
    case RG_LINKTYPE_LINUX_SLL2:
        pl->link_len = SLL2_HDR_LEN;
        break;
    case RG_LINKTYPE_RAW:
    case RG_LINKTYPE_IPV4:
    case RG_LINKTYPE_IPV6:
        if (s->kind == RG_KIND_ROCEV1 || s->kind == RG_KIND_ARP || s->n_vlans != 0 ||
            (s->linktype == RG_LINKTYPE_IPV4 && pl->is_v6) ||
            (s->linktype == RG_LINKTYPE_IPV6 && !pl->is_v6))
            return RG_ERR_INVALID;
        break;
    default:
        return RG_ERR_INVALID;
    }
    if (link_has_ethertype(s->linktype))
        pl->link_len += s->n_vlans * VLAN_TAG_LEN;

    if (s->kind == RG_KIND_ARP)
        pl->l3_len = ARP_LEN;
    else if (s->kind == RG_KIND_ROCEV1)
        pl->l3_len = GRH_LEN;
    else
        pl->l3_len = pl->is_v6 ? IPV6_HDR_LEN : IPV4_HDR_LEN + s->ip_opts_len;
    if (s->kind == RG_KIND_ROCEV2 || s->kind == RG_KIND_UDP)
        pl->l4_len = UDP_HDR_LEN;
    else if (s->kind == RG_KIND_TCP)
        pl->l4_len = TCP_HDR_LEN;

    if (!pl->is_roce) {
        pl->body_len = s->kind == RG_KIND_ARP ? 0 : s->payload_len;
        return 0;
    }
    return rg_plan_roce(s, pl);
}

int rg_build(const struct rg_spec *s, uint8_t *buf, size_t cap, struct rg_layout *lay)
{
    struct rg_plan pl;
    struct rg_layout l;
    if (s->kind >= RG_KIND_IB)
        return rg_build_ib(s, buf, cap, lay);
    int rc = make_plan(s, &pl);
    if (rc != 0)
        return rc;
    size_t len = (size_t)pl.link_len + pl.l3_len + pl.l4_len + pl.body_len;
    size_t padded = len;
    if (s->eth_pad_min && s->linktype == RG_LINKTYPE_ETHERNET && padded < ETH_MIN_FRAME)
        padded = ETH_MIN_FRAME;
    /* a cut RoCE region is built whole first: room for all of it */
    size_t need = padded;
    if (pl.is_roce && len - pl.body_len + pl.roce_full > need)
        need = len - pl.body_len + pl.roce_full;
    if (need > cap || need > RG_MAX_FRAME || (pl.is_roce && pl.l4_len + pl.roce_full > LEN16_MAX))
        return RG_ERR_SPACE;

    memset(&l, 0, sizeof l);
    l.len = (uint32_t)padded;
    l.l3_off = rg_wire_link(s, &pl, buf);
    l.l4_off = l.l3_off + pl.l3_len;
    uint8_t *l3 = buf + l.l3_off, *l4 = buf + l.l4_off;
    uint8_t *body = l4 + pl.l4_len;

    switch (s->kind) {
    case RG_KIND_ARP:
        rg_wire_arp(s, l3);
        l.l4_off = 0;
        break;
    case RG_KIND_ROCEV1:
        rg_wire_ipv6(s, &pl, l3,
                     s->grh_next_hdr == RG_AUTO ? GRH_NEXT_HDR_IBA : (uint8_t)s->grh_next_hdr);
        break;
    default:
        if (pl.is_v6)
            rg_wire_ipv6(s, &pl, l3, rg_wire_l4_proto(s));
        else
            rg_wire_ipv4(s, &pl, l3);
        break;
    }

    if (s->kind == RG_KIND_ROCEV2 || s->kind == RG_KIND_UDP) {
        put_be16(l4, s->udp_sport);
        put_be16(l4 + 2, s->udp_dport);
        put_be16(l4 + UDP_LEN_OFF,
                 s->udp_len == RG_AUTO ? UDP_HDR_LEN + pl.body_len : (uint32_t)s->udp_len);
        put_be16(l4 + UDP_CSUM_OFF, 0);
    } else if (s->kind == RG_KIND_TCP) {
        memset(l4, 0, TCP_HDR_LEN);
        put_be16(l4, s->tcp_sport);
        put_be16(l4 + 2, s->tcp_dport);
        put_be32(l4 + 4, s->tcp_seq);
        put_be32(l4 + 8, s->tcp_ack);
        l4[12] = TCP_DATA_OFF_5;
        l4[13] = s->tcp_flags;
        put_be16(l4 + 14, TCP_WINDOW);
    }

    if (pl.is_roce) {
        /* the RoCE region is built whole, then cut */
        uint8_t *bth = body;
        rg_wire_roce(s, &pl, bth);
        l.bth_off = (uint32_t)(bth - buf);
        l.payload_off = l.bth_off + ROCE_BTH_LEN + roce_hdrs_len(pl.hdrs);
        if (pl.body_len == pl.roce_full) {
            l.icrc_off = l.bth_off + pl.roce_full - ROCE_ICRC_LEN;
            if (!s->icrc_skip) {
                int v2 = s->kind == RG_KIND_ROCEV2;
                const uint8_t *rest = v2 ? l4 : bth;
                l.icrc = roce_icrc_compute(l3, pl.l3_len, pl.is_v6, v2, rest,
                                           (size_t)(buf + l.icrc_off - rest)) ^
                         s->icrc_xor;
            }
            put_le32(buf + l.icrc_off, l.icrc);
        }
    } else if (s->kind != RG_KIND_ARP) {
        l.payload_off = (uint32_t)(body - buf);
        if (s->payload != NULL)
            memcpy(body, s->payload, s->payload_len);
        else
            memset(body, s->payload_fill, s->payload_len);
    }

    if (s->kind != RG_KIND_ARP && s->kind != RG_KIND_ROCEV1 && !pl.is_v6)
        put_be16(l3 + IPV4_CSUM_OFF, rg_wire_csum_fold(rg_wire_csum_add(0, l3, pl.l3_len)));
    if ((s->kind == RG_KIND_ROCEV2 || s->kind == RG_KIND_UDP) && s->udp_csum == RG_UDP_CSUM_COMPUTE)
        put_be16(l4 + UDP_CSUM_OFF, rg_wire_l4_checksum(s, &pl, l4, pl.l4_len + pl.body_len));
    else if (s->kind == RG_KIND_TCP)
        put_be16(l4 + TCP_CSUM_OFF, rg_wire_l4_checksum(s, &pl, l4, pl.l4_len + pl.body_len));

    if (padded > len)
        memset(buf + len, 0, padded - len);
    if (lay != NULL)
        *lay = l;
    return (int)padded;
}
