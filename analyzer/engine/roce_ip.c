/*
 * roce_ip.c - the network layer: IPv4, IPv6, UDP, and the RoCEv1 GRH, down
 * to the transport (roce_bth.c).
 *
 * IPv4 (RFC 791), IPv6 (RFC 8200) with hop-by-hop, routing, fragment,
 * destination-options and AH extension headers skipped, UDP (RFC 768):
 * RoCEv2 is UDP to the configured port (4791), VXLAN UDP to its port (4789);
 * IP protocol 47 is GRE (both handed to roce_encap.c, which records where
 * the frame inside starts). Fragments are not analysed (RoCE and mirrors are
 * never fragmented). IPv4 addresses are kept IPv4-mapped (roce_addr.h).
 * RoCEv1 GRH (IBTA Vol. 1 8.3): the IPv6 layout, next header 0x1B.
 *
 *   IPv4  | Ver IHL | TOS(DSCP ECN) | Total length | ... | Protocol | ... | Src | Dst |
 *   IPv6  | Ver | Traffic class(DSCP ECN) | Flow label | Payload len | Next | Hops | Src | Dst |
 *   UDP   | Src port | Dst port | Length | Checksum |
 */
#include <string.h>

#include "roce_bth.h"
#include "roce_extract.h"
#include "roce_layer.h"

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
            pkt->encap_src_af = pkt->af;
            memcpy(pkt->encap_src, pkt->src, ROCE_ADDR_LEN);
        }
        if (ulen >= UDP_HDR_LEN && ulen <= ip_payload_end - off)
            roce_decode_vxlan(p, caplen, off + UDP_HDR_LEN, off + ulen, pkt);
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
    roce_transport_decode(cfg, p, caplen, ulen - UDP_HDR_LEN, pkt);
}

void roce_decode_ipv4(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
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
            pkt->encap_src_af = ROCE_AF_IPV4;
            roce_addr_set_v4(pkt->encap_src, p + off + IPV4_SRC_OFF);
        }
        roce_decode_gre(p, caplen, off + ihl, off + totlen, pkt);
        return;
    }
    if (p[off + IPV4_PROTO_OFF] != IPPROTO_UDP_)
        return;
    pkt->l3_off = (uint32_t)off;
    pkt->l3_hdr_len = (uint32_t)ihl;
    pkt->af = ROCE_AF_IPV4;
    pkt->ecn = p[off + 1] & IP_ECN_MASK;
    pkt->dscp = p[off + 1] >> IP_DSCP_SHIFT;
    roce_addr_set_v4(pkt->src, p + off + IPV4_SRC_OFF);
    roce_addr_set_v4(pkt->dst, p + off + IPV4_DST_OFF);
    decode_udp(cfg, p, caplen, off + ihl, off + totlen, pkt);
}

void roce_take_v6_header(const uint8_t *p, size_t off, struct roce_pkt *pkt)
{
    uint8_t tc = (uint8_t)(roce_get_be32(p, off) >> IPV6_TC_SHIFT);
    pkt->l3_off = (uint32_t)off;
    pkt->af = ROCE_AF_IPV6;
    pkt->ecn = tc & IP_ECN_MASK;
    pkt->dscp = tc >> IP_DSCP_SHIFT;
    memcpy(pkt->src, p + off + IPV6_SRC_OFF, ROCE_ADDR_LEN);
    memcpy(pkt->dst, p + off + IPV6_DST_OFF, ROCE_ADDR_LEN);
}

void roce_decode_ipv6(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
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
            pkt->encap_src_af = ROCE_AF_IPV6;
            memcpy(pkt->encap_src, p + off + IPV6_SRC_OFF, ROCE_ADDR_LEN);
        }
        roce_decode_gre(p, caplen, h, end, pkt);
        return;
    }
    if (nxt != IPPROTO_UDP_ || h > end || !roce_fits(caplen, off, h - off))
        return;
    roce_take_v6_header(p, off, pkt);
    pkt->l3_hdr_len = (uint32_t)(h - off);
    decode_udp(cfg, p, caplen, h, end, pkt);
}

void roce_decode_grh(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                     size_t off, struct roce_pkt *pkt)
{
    pkt->version = 1;
    pkt->cls = ROCE_CLASS_ROCE;
    if (!roce_fits(caplen, off, GRH_LEN))
        return; /* RoCE by EtherType; the snaplen cut the GRH */
    roce_take_v6_header(p, off, pkt);
    pkt->l3_hdr_len = GRH_LEN;
    pkt->l4_off = (uint32_t)(off + GRH_LEN);
    pkt->bth_off = (uint32_t)(off + GRH_LEN);
    if (p[off + IPV6_NXT_OFF] != GRH_NEXT_HDR_IBA) {
        pkt->cls = ROCE_CLASS_MALFORMED;
        pkt->malformed = ROCE_MAL_GRH;
        return;
    }
    roce_transport_decode(cfg, p, caplen, roce_get_be16(p, off + IPV6_PLEN_OFF), pkt);
}
