/*
 * roce_decode.c - the decoder's entry point and dispatcher: the link layer
 * and VLAN tags here, the network layer handed to roce_ip.c and MAC Control
 * to roce_encap.c, the walk continued into encapsulated frames
 * (roce_layer.h).
 *
 * Ethernet II (IEEE 802.3), 802.1Q / 802.1ad tags:
 *   +--------+--------+-------+ [+-------+-----+]...+-----------+
 *   | dst(6) | src(6) | type  |  | TPID  | TCI |    | EtherType |
 *   +--------+--------+-------+ [+-------+-----+]...+-----------+
 *   TCI = PCP(3) DEI(1) VID(12)
 * Linux cooked v1 (16 bytes, protocol at 14), v2 (20 bytes, protocol at 0).
 * Raw IP link types start with the IP header, InfiniBand (247) with the LRH
 * (roce_ib.c). A layer below that finds an encapsulated frame records where
 * it starts, and the walk goes into it.
 */
#include "roce_decode.h"

#include <string.h>

#include "roce_extract.h"
#include "roce_layer.h"

#define ETH_HDR_LEN        14
#define ETH_TYPE_OFF       12
#define VLAN_TAG_LEN       4
#define VLAN_PCP_SHIFT     13
#define VLAN_VID_MASK      0x0FFFu
#define ETHERTYPE_IPV4     0x0800u
#define ETHERTYPE_IPV6     0x86DDu
#define ETHERTYPE_VLAN     0x8100u
#define ETHERTYPE_QINQ     0x88A8u
#define ETHERTYPE_QINQ_OLD 0x9100u
#define SLL_HDR_LEN        16
#define SLL_PROTO_OFF      14
#define SLL2_HDR_LEN       20
#define SLL2_PROTO_OFF     0
#define IP_VERSION_SHIFT   4

static const char *const malformed_names[ROCE_MAL_COUNT] = {
    [ROCE_MAL_NONE] = "none",
    [ROCE_MAL_UDP_LENGTH] = "udp_length",
    [ROCE_MAL_GRH] = "grh_next_header",
    [ROCE_MAL_SHORT_BTH] = "short_bth",
    [ROCE_MAL_OPCODE] = "unknown_opcode",
    [ROCE_MAL_SHORT_HDRS] = "short_headers",
    [ROCE_MAL_PAD] = "pad_count",
    [ROCE_MAL_LRH_VERSION] = "lrh_version",
    [ROCE_MAL_LRH_LENGTH] = "lrh_length",
};

const char *roce_malformed_name(enum roce_malformed m)
{
    return (unsigned)m < ROCE_MAL_COUNT ? malformed_names[m] : "unknown";
}

/* What EtherType `type` carries, at off: VLAN tags (at most
 * ROCE_VLAN_MAX_TAGS), then the layer of the EtherType they lead to. */
static void ethertype(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                      unsigned type, size_t off, struct roce_pkt *pkt)
{
    for (int tags = 0;; tags++) {
        switch (type) {
        case ETHERTYPE_VLAN:
        case ETHERTYPE_QINQ:
        case ETHERTYPE_QINQ_OLD: {
            if (tags == ROCE_VLAN_MAX_TAGS || !roce_fits(caplen, off, VLAN_TAG_LEN))
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
            roce_decode_ipv4(cfg, p, caplen, off, pkt);
            return;
        case ETHERTYPE_IPV6:
            roce_decode_ipv6(cfg, p, caplen, off, pkt);
            return;
        case ROCE_ETHERTYPE_ROCEV1:
            roce_decode_grh(cfg, p, caplen, off, pkt);
            return;
        case ROCE_ETHERTYPE_MAC_CONTROL:
            roce_decode_mac_control(p, caplen, off, pkt);
            return;
        default:
            return;
        }
    }
}

/* An Ethernet frame at off (destination MAC first). */
static void ether(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen, size_t off,
                  struct roce_pkt *pkt)
{
    if (roce_fits(caplen, off, ETH_HDR_LEN))
        ethertype(cfg, p, caplen, roce_get_be16(p, off + ETH_TYPE_OFF), off + ETH_HDR_LEN, pkt);
}

/* A raw IP packet at the start of the frame: the version nibble says which. */
static void raw_ip(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                   struct roce_pkt *pkt)
{
    if (caplen < 1)
        return;
    if ((p[0] >> IP_VERSION_SHIFT) == 4)
        roce_decode_ipv4(cfg, p, caplen, 0, pkt);
    else if ((p[0] >> IP_VERSION_SHIFT) == 6)
        roce_decode_ipv6(cfg, p, caplen, 0, pkt);
}

/* A mirror encapsulation recorded the frame inside it: walk that frame, and
 * the frames inside it in turn (each nests deeper, at most ROCE_MAX_ENCAP). */
static void walk_inner(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                       struct roce_pkt *pkt)
{
    for (unsigned walked = 0; pkt->encap_depth != walked;) {
        walked = pkt->encap_depth;
        if (pkt->inner_type == ROCE_INNER_IB)
            roce_decode_lrh(cfg, p, caplen, pkt->inner_off, pkt);
        else if (pkt->inner_type)
            ethertype(cfg, p, caplen, pkt->inner_type, pkt->inner_off, pkt);
        else
            ether(cfg, p, caplen, pkt->inner_off, pkt);
    }
}

int roce_decode(const struct roce_decode_cfg *cfg, int linktype, const uint8_t *p, size_t caplen,
                size_t wirelen, struct roce_pkt *pkt)
{
    memset(pkt, 0, ROCE_PKT_FIXED_LEN); /* extension fields: see hdrs_captured */
    pkt->truncated = caplen < wirelen;
    switch (linktype) {
    case ROCE_LINKTYPE_ETHERNET:
        ether(cfg, p, caplen, 0, pkt);
        break;
    case ROCE_LINKTYPE_LINUX_SLL:
        if (caplen >= SLL_HDR_LEN)
            ethertype(cfg, p, caplen, roce_get_be16(p, SLL_PROTO_OFF), SLL_HDR_LEN, pkt);
        break;
    case ROCE_LINKTYPE_LINUX_SLL2:
        if (caplen >= SLL2_HDR_LEN)
            ethertype(cfg, p, caplen, roce_get_be16(p, SLL2_PROTO_OFF), SLL2_HDR_LEN, pkt);
        break;
    case ROCE_LINKTYPE_DLT_RAW:
    case ROCE_LINKTYPE_DLT_RAW_ALT:
    case ROCE_LINKTYPE_RAW:
        raw_ip(cfg, p, caplen, pkt);
        break;
    case ROCE_LINKTYPE_IPV4:
        roce_decode_ipv4(cfg, p, caplen, 0, pkt);
        break;
    case ROCE_LINKTYPE_IPV6:
        roce_decode_ipv6(cfg, p, caplen, 0, pkt);
        break;
    case ROCE_LINKTYPE_INFINIBAND:
        roce_decode_lrh(cfg, p, caplen, 0, pkt);
        break;
    default:
        return -1;
    }
    if (pkt->encap_depth)
        walk_inner(cfg, p, caplen, pkt);
    if (pkt->cls == ROCE_CLASS_NON_ROCE)
        pkt->version = 0;
    else if (!pkt->truncated && pkt->end_off > caplen) {
        /* cut short of what its headers declare, yet captured whole by its
         * original length: a sniffer wrote the captured length there */
        pkt->understated = 1;
        pkt->truncated = 1;
    }
    return 0;
}
