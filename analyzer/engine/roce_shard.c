/*
 * roce_shard.c - the key that says which part of a split analysis a frame
 * belongs to (see roce_shard.h, roce_shard_key; the parts: roce_split.c).
 *
 * Everything the engine keeps about a connection (its two flows, their CM
 * exchange, its CNPs, the pairing of responses with requests) lives between
 * one pair of addresses, so frames split by the unordered pair of their
 * packet's addresses analyse apart as they do together. The common frame is
 * read at fixed offsets:
 *
 *   Ethernet | [802.1Q/802.1ad tag]... | IPv4 (no fragment) or IPv6 | UDP dst = udp_port
 *
 * giving the addresses the decoder would give (IPv4 IPv4-mapped, roce_addr.h);
 * anything else goes through the decoder itself (mirror encapsulations:
 * the inner packet's addresses; RoCEv1: the GIDs). Frames without a RoCE
 * packet (MAC Control, other traffic) get 0.
 */
#include "roce_shard.h"

#include <string.h>

#include "roce_decode.h"
#include "roce_extract.h"
#include "roce_index.h"

#define ETH_HDR_LEN      14
#define ETH_TYPE_OFF     12
#define VLAN_TAG_LEN     4
#define ETHERTYPE_IPV4   0x0800u
#define ETHERTYPE_IPV6   0x86DDu
#define ETHERTYPE_VLAN   0x8100u
#define ETHERTYPE_QINQ   0x88A8u
#define ETHERTYPE_QINQ_O 0x9100u
#define IPV4_MIN_LEN     20
#define IPV4_IHL_MASK    0x0Fu
#define IPV4_FRAG_OFF    6
#define IPV4_FRAG_MASK   0x3FFFu /* more fragments and the offset */
#define IPV4_PROTO_OFF   9
#define IPV4_SRC_OFF     12
#define IPV6_HDR_LEN     40
#define IPV6_NEXT_OFF    6
#define IPV6_SRC_OFF     8
#define IPPROTO_UDP      17u
#define UDP_DPORT_OFF    2
#define UDP_HDR_LEN      8

#if defined(__GNUC__)
#define KEPT_APART __attribute__((noinline))
#else
#define KEPT_APART
#endif

/* The key of an address pair from the addresses' 64-bit halves as memcpy
 * reads them, the same in both directions (never 0): their sums, mixed
 * (two multiplications: every part computes it for every frame). */
static uint32_t pair_key_words(uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1)
{
    uint64_t h = roce_hash_mix(roce_hash_mix(ROCE_HASH_SEED, x0 + y0), x1 + y1);
    uint32_t k = (uint32_t)(h ^ (h >> 32));
    return k ? k : 1;
}

uint32_t roce_pair_key(const uint8_t a[ROCE_ADDR_LEN], const uint8_t b[ROCE_ADDR_LEN])
{
    uint64_t x[2], y[2];
    memcpy(x, a, sizeof x);
    memcpy(y, b, sizeof y);
    return pair_key_words(x[0], x[1], y[0], y[1]);
}

/* The second half of the IPv4-mapped address of v4 (roce_addr_set_v4) as
 * memcpy reads it, built in a register: the frame's bytes are read once,
 * and no word is read back from smaller stores. */
static uint64_t v4_half(const uint8_t *v4)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t a;
    memcpy(&a, v4, sizeof a);
    return (uint64_t)a << 32 | (uint64_t)ROCE_ADDR_V4_MAP << 24 | (uint64_t)ROCE_ADDR_V4_MAP << 16;
#else
    uint8_t addr[ROCE_ADDR_LEN];
    uint64_t w;
    roce_addr_set_v4(addr, v4);
    memcpy(&w, addr + sizeof w, sizeof w);
    return w;
#endif
}

/* Nonzero when a UDP header at udp was captured and goes to the RoCEv2
 * port (and not to the VXLAN port, which the decoder looks into). */
static int udp_roce(const struct roce_config *cfg, const uint8_t *p, size_t caplen, size_t udp)
{
    if (!roce_fits(caplen, udp, UDP_HDR_LEN))
        return 0;
    unsigned dport = roce_get_be16(p, udp + UDP_DPORT_OFF);
    return dport == cfg->udp_port && dport != cfg->vxlan_port;
}

/* The fixed-offset frame: 1 with *key set, or 0 when it is not one. */
static int fast_key(const struct roce_config *cfg, const uint8_t *p, size_t caplen, uint32_t *key)
{
    if (caplen < ETH_HDR_LEN)
        return 0;
    size_t off = ETH_HDR_LEN;
    unsigned type = roce_get_be16(p, ETH_TYPE_OFF);
    for (int tags = 0; type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ || type == ETHERTYPE_QINQ_O;
         tags++) {
        if (tags == ROCE_VLAN_MAX_TAGS || !roce_fits(caplen, off, VLAN_TAG_LEN))
            return 0;
        type = roce_get_be16(p, off + 2);
        off += VLAN_TAG_LEN;
    }
    if (type == ETHERTYPE_IPV4) {
        if (!roce_fits(caplen, off, IPV4_MIN_LEN))
            return 0;
        size_t ihl = (size_t)(p[off] & IPV4_IHL_MASK) * 4;
        if (ihl < IPV4_MIN_LEN || p[off + IPV4_PROTO_OFF] != IPPROTO_UDP ||
            (roce_get_be16(p, off + IPV4_FRAG_OFF) & IPV4_FRAG_MASK) != 0 ||
            !udp_roce(cfg, p, caplen, off + ihl))
            return 0;
        *key = pair_key_words(0, v4_half(p + off + IPV4_SRC_OFF), 0,
                              v4_half(p + off + IPV4_SRC_OFF + ROCE_ADDR_V4_LEN));
        return 1;
    }
    if (type == ETHERTYPE_IPV6) {
        if (!roce_fits(caplen, off, IPV6_HDR_LEN) || p[off + IPV6_NEXT_OFF] != IPPROTO_UDP ||
            !udp_roce(cfg, p, caplen, off + IPV6_HDR_LEN))
            return 0;
        uint64_t w[4]; /* source and destination, read in place */
        memcpy(w, p + off + IPV6_SRC_OFF, sizeof w);
        *key = pair_key_words(w[0], w[1], w[2], w[3]);
        return 1;
    }
    return 0;
}

/* Any other frame, through the decoder (apart: the common frame's path
 * then keeps no decoded packet on its stack). */
static KEPT_APART uint32_t decoded_key(const struct roce_config *cfg,
                                       const struct roce_frame_in *in)
{
    const struct roce_decode_cfg dcfg = {cfg->udp_port, cfg->vxlan_port, 0};
    struct roce_pkt pkt;
    if (roce_decode(&dcfg, in->linktype, in->data, in->caplen, in->wirelen, &pkt) != 0 ||
        pkt.cls != ROCE_CLASS_ROCE)
        return 0;
    return roce_pair_key(pkt.src, pkt.dst);
}

uint32_t roce_shard_key(const struct roce_config *cfg, const struct roce_frame_in *in)
{
    uint32_t key;
    if (in->linktype == ROCE_LINKTYPE_ETHERNET && fast_key(cfg, in->data, in->caplen, &key))
        return key;
    return decoded_key(cfg, in);
}
