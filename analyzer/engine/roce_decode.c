/*
 * roce_decode.c - link layer, VLAN, IPv4/IPv6, UDP and GRH down to the BTH.
 *
 * Ethernet II (IEEE 802.3), 802.1Q / 802.1ad tags:
 *   +--------+--------+-------+ [+-------+-----+]...+-----------+
 *   | dst(6) | src(6) | type  |  | TPID  | TCI |    | EtherType |
 *   +--------+--------+-------+ [+-------+-----+]...+-----------+
 *   TCI = PCP(3) DEI(1) VID(12)
 * Linux cooked v1 (16 bytes, protocol at 14), v2 (20 bytes, protocol at 0).
 * IPv4 (RFC 791), IPv6 (RFC 8200) with hop-by-hop, routing, fragment,
 * destination-options and AH extension headers skipped, UDP (RFC 768).
 * RoCEv1 GRH (IBTA Vol. 1 8.3, IPv6 layout, next header 0x1B). Mirror
 * encapsulations (GRE, ERSPAN, VXLAN) and MAC Control: roce_encap.c.
 */
#include "roce_decode.h"

#include "roce_decode_int.h"

#include <string.h>

#include "roce_bth.h"
#include "roce_extract.h"
#include "roce_icrc.h"

#define ETH_HDR_LEN       14
#define ETH_TYPE_OFF      12
#define VLAN_TAG_LEN      4
#define VLAN_MAX_TAGS     4
#define VLAN_PCP_SHIFT    13
#define VLAN_VID_MASK     0x0FFFu
#define ETHERTYPE_IPV4    0x0800u
#define ETHERTYPE_IPV6    0x86DDu
#define ETHERTYPE_VLAN    0x8100u
#define ETHERTYPE_QINQ    0x88A8u
#define ETHERTYPE_QINQ_OLD 0x9100u
#define SLL_HDR_LEN       16
#define SLL_PROTO_OFF     14
#define SLL2_HDR_LEN      20
#define SLL2_PROTO_OFF    0

#define IPV4_MIN_HDR_LEN  20
#define IPV4_IHL_MASK     0x0Fu
#define IPV4_TOTLEN_OFF   2
#define IPV4_FRAG_OFF     6
#define IPV4_FRAG_MASK    0x3FFFu /* MF flag and fragment offset */
#define IPV4_PROTO_OFF    9
#define IPV4_SRC_OFF      12
#define IPV4_DST_OFF      16
#define IPV6_HDR_LEN      40
#define IPV6_PLEN_OFF     4
#define IPV6_NXT_OFF      6
#define IPV6_SRC_OFF      8
#define IPV6_DST_OFF      24
#define IPV6_TC_SHIFT     20
#define IPV6_MAX_EXT      8
#define IPPROTO_HOPOPTS_  0
#define IPPROTO_ROUTING_  43
#define IPPROTO_FRAGMENT_ 44
#define IPPROTO_AH_       51
#define IPPROTO_DSTOPTS_  60
#define IPPROTO_UDP_      17
#define IPV6_FRAG_HDR_LEN 8
#define IPV6_FRAG_OFFSET_MASK 0xFFF9u /* fragment offset and M flag */
#define IP_ECN_MASK       0x3u
#define IP_DSCP_SHIFT     2
#define UDP_HDR_LEN       8
#define UDP_DPORT_OFF     2
#define UDP_LEN_OFF       4
#define GRH_LEN           40
#define GRH_NEXT_HDR_IBA  0x1Bu

int roce_linktype_supported(int linktype)
{
    return roce_linktype_name(linktype) != NULL;
}

const char *roce_linktype_name(int linktype)
{
    switch (linktype) {
    case ROCE_LINKTYPE_ETHERNET:
        return "EN10MB";
    case ROCE_LINKTYPE_DLT_RAW:
    case ROCE_LINKTYPE_DLT_RAW_ALT:
    case ROCE_LINKTYPE_RAW:
        return "RAW";
    case ROCE_LINKTYPE_LINUX_SLL:
        return "LINUX_SLL";
    case ROCE_LINKTYPE_LINUX_SLL2:
        return "LINUX_SLL2";
    case ROCE_LINKTYPE_IPV4:
        return "IPV4";
    case ROCE_LINKTYPE_IPV6:
        return "IPV6";
    default:
        return NULL;
    }
}

static const char *const malformed_names[ROCE_MAL_COUNT] = {
    "none", "udp_length", "grh_next_header", "short_bth", "unknown_opcode", "short_headers",
    "pad_count",
};

const char *roce_malformed_name(enum roce_malformed m)
{
    return (unsigned)m < ROCE_MAL_COUNT ? malformed_names[m] : "unknown";
}

/* Fill the BTH-level part of pkt: from bth_off, with `declared` bytes from
 * the BTH to the end of the ICRC by the headers' lengths. */
static void decode_transport(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                             size_t declared, struct roce_pkt *pkt)
{
    pkt->cls = ROCE_CLASS_ROCE;
    if (declared < ROCE_BTH_LEN) {
        pkt->cls = ROCE_CLASS_MALFORMED;
        pkt->malformed = ROCE_MAL_SHORT_BTH;
        return;
    }
    pkt->end_off = (uint32_t)(pkt->bth_off + declared);
    if (!roce_fits(caplen, pkt->bth_off, ROCE_BTH_LEN))
        return; /* RoCE, but the snaplen cut the BTH */
    roce_bth_decode(p + pkt->bth_off, pkt);
    pkt->bth_captured = 1;
    if (pkt->op == NULL) {
        pkt->cls = ROCE_CLASS_MALFORMED;
        pkt->malformed = ROCE_MAL_OPCODE;
        return;
    }
    unsigned hlen = pkt->op->hdrs_len;
    if (declared < ROCE_BTH_LEN + hlen + ROCE_ICRC_LEN) {
        pkt->cls = ROCE_CLASS_MALFORMED;
        pkt->malformed = ROCE_MAL_SHORT_HDRS;
        return;
    }
    size_t body = declared - ROCE_BTH_LEN - hlen - ROCE_ICRC_LEN;
    if (pkt->padcnt > body) {
        pkt->cls = ROCE_CLASS_MALFORMED;
        pkt->malformed = ROCE_MAL_PAD;
        return;
    }
    pkt->payload_off = pkt->bth_off + ROCE_BTH_LEN + hlen;
    pkt->payload_len = (uint32_t)(body - pkt->padcnt);
    roce_ext_decode(p, caplen, pkt);

    if (cfg->check_icrc && pkt->end_off <= caplen) {
        size_t icrc_off = pkt->end_off - ROCE_ICRC_LEN;
        pkt->icrc_wire = roce_get_le32(p, icrc_off);
        pkt->icrc_calc = roce_icrc_compute(p + pkt->l3_off, pkt->l3_hdr_len, pkt->l3_v6,
                                           pkt->version == 2, p + pkt->l4_off,
                                           icrc_off - pkt->l4_off);
        pkt->icrc_status = pkt->icrc_wire == pkt->icrc_calc ? ROCE_ICRC_GOOD : ROCE_ICRC_BAD;
    }
}

/* UDP at off; ip_payload_end is where the IP datagram ends (declared). */
static void decode_udp(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                       size_t off, size_t ip_payload_end, struct roce_pkt *pkt)
{
    if (!roce_fits(caplen, off, UDP_HDR_LEN) || off > ip_payload_end)
        return; /* cannot see the port: not known to be RoCE */
    unsigned dport = roce_get_be16(p, off + UDP_DPORT_OFF);
    if (cfg->vxlan_port && dport == cfg->vxlan_port && dport != cfg->udp_port) {
        size_t ulen = roce_get_be16(p, off + UDP_LEN_OFF);
        if (pkt->encap_depth == 0) { /* pkt->src holds the tunnel's source for now */
            pkt->encap_src_v6 = pkt->l3_v6;
            memcpy(pkt->encap_src, pkt->src, ROCE_ADDR_LEN);
        }
        if (ulen >= UDP_HDR_LEN && ulen <= ip_payload_end - off)
            roce_decode_vxlan(cfg, p, caplen, off + UDP_HDR_LEN, off + ulen, pkt);
        return;
    }
    if (dport != cfg->udp_port)
        return;
    pkt->version = 2;
    pkt->udp_sport = roce_get_be16(p, off);
    pkt->l4_off = (uint32_t)off;
    pkt->bth_off = (uint32_t)(off + UDP_HDR_LEN);
    size_t ulen = roce_get_be16(p, off + UDP_LEN_OFF);
    if (ulen < UDP_HDR_LEN || ulen > ip_payload_end - off) {
        pkt->cls = ROCE_CLASS_MALFORMED;
        pkt->malformed = ROCE_MAL_UDP_LENGTH;
        return;
    }
    decode_transport(cfg, p, caplen, ulen - UDP_HDR_LEN, pkt);
}

static void decode_ipv4(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                        size_t off, struct roce_pkt *pkt)
{
    if (!roce_fits(caplen, off, IPV4_MIN_HDR_LEN) || (p[off] >> 4) != 4)
        return;
    size_t ihl = (size_t)(p[off] & IPV4_IHL_MASK) * 4;
    size_t totlen = roce_get_be16(p, off + IPV4_TOTLEN_OFF);
    if (ihl < IPV4_MIN_HDR_LEN || totlen < ihl || !roce_fits(caplen, off, ihl))
        return;
    if ((roce_get_be16(p, off + IPV4_FRAG_OFF) & IPV4_FRAG_MASK) != 0)
        return; /* a fragment: RoCE and mirrors are never fragmented */
    if (p[off + IPV4_PROTO_OFF] == ROCE_IPPROTO_GRE) {
        if (pkt->encap_depth == 0) { /* the outermost tunnel: who mirrored it */
            pkt->encap_src_v6 = 0;
            roce_addr_set_v4(pkt->encap_src, p + off + IPV4_SRC_OFF);
        }
        roce_decode_gre(cfg, p, caplen, off + ihl, off + totlen, pkt);
        return;
    }
    if (p[off + IPV4_PROTO_OFF] != IPPROTO_UDP_)
        return;
    pkt->l3_off = (uint32_t)off;
    pkt->l3_hdr_len = (uint32_t)ihl;
    pkt->l3_v6 = 0;
    pkt->ecn = p[off + 1] & IP_ECN_MASK;
    pkt->dscp = p[off + 1] >> IP_DSCP_SHIFT;
    roce_addr_set_v4(pkt->src, p + off + IPV4_SRC_OFF);
    roce_addr_set_v4(pkt->dst, p + off + IPV4_DST_OFF);
    decode_udp(cfg, p, caplen, off + ihl, off + totlen, pkt);
}

/* Copy addresses and traffic class of an IPv6 header or a GRH at off. */
static void take_v6_header(const uint8_t *p, size_t off, struct roce_pkt *pkt)
{
    uint8_t tc = (uint8_t)(roce_get_be32(p, off) >> IPV6_TC_SHIFT);
    pkt->l3_off = (uint32_t)off;
    pkt->l3_v6 = 1;
    pkt->ecn = tc & IP_ECN_MASK;
    pkt->dscp = tc >> IP_DSCP_SHIFT;
    memcpy(pkt->src, p + off + IPV6_SRC_OFF, ROCE_ADDR_LEN);
    memcpy(pkt->dst, p + off + IPV6_DST_OFF, ROCE_ADDR_LEN);
}

static void decode_ipv6(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                        size_t off, struct roce_pkt *pkt)
{
    if (!roce_fits(caplen, off, IPV6_HDR_LEN) || (p[off] >> 4) != 6)
        return;
    size_t end = off + IPV6_HDR_LEN + roce_get_be16(p, off + IPV6_PLEN_OFF);
    unsigned nxt = p[off + IPV6_NXT_OFF];
    size_t h = off + IPV6_HDR_LEN;
    for (int i = 0; i < IPV6_MAX_EXT && nxt != IPPROTO_UDP_ && nxt != ROCE_IPPROTO_GRE; i++) {
        size_t len;
        if (!roce_fits(caplen, h, 2))
            return;
        switch (nxt) {
        case IPPROTO_HOPOPTS_:
        case IPPROTO_ROUTING_:
        case IPPROTO_DSTOPTS_:
            len = ((size_t)p[h + 1] + 1) * 8;
            break;
        case IPPROTO_AH_:
            len = ((size_t)p[h + 1] + 2) * 4;
            break;
        case IPPROTO_FRAGMENT_:
            if (!roce_fits(caplen, h, IPV6_FRAG_HDR_LEN) ||
                (roce_get_be16(p, h + 2) & IPV6_FRAG_OFFSET_MASK) != 0)
                return; /* a real fragment: not analysed */
            len = IPV6_FRAG_HDR_LEN;
            break;
        default:
            return;
        }
        nxt = p[h];
        h += len;
    }
    if (nxt == ROCE_IPPROTO_GRE && h <= end) {
        if (pkt->encap_depth == 0) {
            pkt->encap_src_v6 = 1;
            memcpy(pkt->encap_src, p + off + IPV6_SRC_OFF, ROCE_ADDR_LEN);
        }
        roce_decode_gre(cfg, p, caplen, h, end, pkt);
        return;
    }
    if (nxt != IPPROTO_UDP_ || h > end || !roce_fits(caplen, off, h - off))
        return;
    take_v6_header(p, off, pkt);
    pkt->l3_hdr_len = (uint32_t)(h - off);
    decode_udp(cfg, p, caplen, h, end, pkt);
}

static void decode_rocev1(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                          size_t off, struct roce_pkt *pkt)
{
    pkt->version = 1;
    pkt->cls = ROCE_CLASS_ROCE;
    if (!roce_fits(caplen, off, GRH_LEN))
        return; /* RoCE by EtherType; the snaplen cut the GRH */
    take_v6_header(p, off, pkt);
    pkt->l3_hdr_len = GRH_LEN;
    pkt->l4_off = (uint32_t)(off + GRH_LEN);
    pkt->bth_off = (uint32_t)(off + GRH_LEN);
    if (p[off + IPV6_NXT_OFF] != GRH_NEXT_HDR_IBA) {
        pkt->cls = ROCE_CLASS_MALFORMED;
        pkt->malformed = ROCE_MAL_GRH;
        return;
    }
    decode_transport(cfg, p, caplen, roce_get_be16(p, off + IPV6_PLEN_OFF), pkt);
}

void roce_decode_ethertype(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                           unsigned type, size_t off, struct roce_pkt *pkt)
{
    for (int tags = 0;; tags++) {
        switch (type) {
        case ETHERTYPE_VLAN:
        case ETHERTYPE_QINQ:
        case ETHERTYPE_QINQ_OLD: {
            if (tags == VLAN_MAX_TAGS || !roce_fits(caplen, off, VLAN_TAG_LEN))
                return;
            unsigned tci = roce_get_be16(p, off);
            if (pkt->n_vlans < ROCE_MAX_VLANS) {
                pkt->pcp[pkt->n_vlans] = (uint8_t)(tci >> VLAN_PCP_SHIFT);
                pkt->vid[pkt->n_vlans] = (uint16_t)(tci & VLAN_VID_MASK);
            }
            pkt->n_vlans++;
            type = roce_get_be16(p, off + 2);
            off += VLAN_TAG_LEN;
            continue;
        }
        case ETHERTYPE_IPV4:
            decode_ipv4(cfg, p, caplen, off, pkt);
            return;
        case ETHERTYPE_IPV6:
            decode_ipv6(cfg, p, caplen, off, pkt);
            return;
        case ROCE_ETHERTYPE_ROCEV1:
            decode_rocev1(cfg, p, caplen, off, pkt);
            return;
        case ROCE_ETHERTYPE_MAC_CONTROL:
            roce_decode_mac_control(p, caplen, off, pkt);
            return;
        default:
            return;
        }
    }
}

void roce_decode_ether(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                       size_t off, struct roce_pkt *pkt)
{
    if (roce_fits(caplen, off, ETH_HDR_LEN))
        roce_decode_ethertype(cfg, p, caplen, roce_get_be16(p, off + ETH_TYPE_OFF),
                              off + ETH_HDR_LEN, pkt);
}

static void decode_raw_ip(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                          struct roce_pkt *pkt)
{
    if (caplen < 1)
        return;
    if ((p[0] >> 4) == 4)
        decode_ipv4(cfg, p, caplen, 0, pkt);
    else if ((p[0] >> 4) == 6)
        decode_ipv6(cfg, p, caplen, 0, pkt);
}

int roce_decode(const struct roce_decode_cfg *cfg, int linktype, const uint8_t *p, size_t caplen,
                size_t wirelen, struct roce_pkt *pkt)
{
    memset(pkt, 0, ROCE_PKT_FIXED_LEN); /* extension fields: see hdrs_captured */
    pkt->truncated = caplen < wirelen;
    switch (linktype) {
    case ROCE_LINKTYPE_ETHERNET:
        roce_decode_ether(cfg, p, caplen, 0, pkt);
        break;
    case ROCE_LINKTYPE_LINUX_SLL:
        if (caplen >= SLL_HDR_LEN)
            roce_decode_ethertype(cfg, p, caplen, roce_get_be16(p, SLL_PROTO_OFF), SLL_HDR_LEN,
                                  pkt);
        break;
    case ROCE_LINKTYPE_LINUX_SLL2:
        if (caplen >= SLL2_HDR_LEN)
            roce_decode_ethertype(cfg, p, caplen, roce_get_be16(p, SLL2_PROTO_OFF),
                                  SLL2_HDR_LEN, pkt);
        break;
    case ROCE_LINKTYPE_DLT_RAW:
    case ROCE_LINKTYPE_DLT_RAW_ALT:
    case ROCE_LINKTYPE_RAW:
        decode_raw_ip(cfg, p, caplen, pkt);
        break;
    case ROCE_LINKTYPE_IPV4:
        decode_ipv4(cfg, p, caplen, 0, pkt);
        break;
    case ROCE_LINKTYPE_IPV6:
        decode_ipv6(cfg, p, caplen, 0, pkt);
        break;
    default:
        return -1;
    }
    if (pkt->cls == ROCE_CLASS_NON_ROCE)
        pkt->version = 0;
    return 0;
}
