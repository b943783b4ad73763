/*
 * roce_ib.c - native InfiniBand below the transport (see roce_ib.h): the
 * LRH, the GRH of global packets, raw and IPv6 packets (counted, not
 * analysed), InfiniBand mirrors (handed to roce_encap.c), and the VCRC.
 *
 * Flows of local packets are keyed by LIDs (roce_addr.h), of global ones by
 * GIDs. The transport (BTH onwards, ICRC) is decoded by roce_bth.c like
 * RoCE's, with the length the LRH declares. The VCRC is checked where that
 * length puts it, whenever the packet and its VCRC were captured, whatever
 * the packet carries (not when the length cannot hold the LRH and GRH:
 * then nothing says where it is); the mirror's own VCRC is overwritten by
 * that of the packet inside it.
 */
#include "roce_ib.h"

#include "roce_bth.h"
#include "roce_extract.h"
#include "roce_layer.h"

#include "roce_crc16_table.inc"

#define GRH_NEXT_HDR_OFF    6
#define GRH_NEXT_HDR_IBA    0x1Bu
#define IB_MIRROR_ETHERTYPE 0x1123u /* raw packets carrying a mirrored packet (ibdump --decap) */

uint16_t roce_vcrc_compute(const uint8_t *p, size_t n)
{
    uint16_t crc = 0xFFFFu;
    while (n--)
        crc = (uint16_t)(crc16_tab[(crc ^ *p++) & 0xFFu] ^ (crc >> 8));
    return (uint16_t)~crc;
}

const char *roce_ib_other_name(enum roce_ib_other o)
{
    static const char *const names[ROCE_IB_OTHER_COUNT] = {
        [ROCE_IB_TRANSPORT] = "transport", [ROCE_IB_RAW] = "raw", [ROCE_IB_IPV6] = "ipv6"};
    return (unsigned)o < ROCE_IB_OTHER_COUNT ? names[o] : "unknown";
}

/* Check the VCRC of the packet at off, len bytes long by its LRH, when it
 * and its VCRC were captured (and checking is on). */
static void vcrc(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen, size_t off,
                 size_t len, struct roce_pkt *pkt)
{
    if (!cfg->check_icrc || !roce_fits(caplen, off, len + ROCE_VCRC_LEN))
        return;
    uint16_t calc = roce_vcrc_compute(p + off, len);
    /* both as Wireshark shows the field: the bytes in wire order, big-endian */
    pkt->vcrc_wire = roce_get_be16(p, off + len);
    pkt->vcrc_calc = (uint16_t)(calc << 8 | calc >> 8);
    pkt->vcrc_status = pkt->vcrc_wire == pkt->vcrc_calc ? ROCE_ICRC_GOOD : ROCE_ICRC_BAD;
}

/* A packet without the IBA transport: counted by its kind, not analysed. */
static void other(struct roce_pkt *pkt, enum roce_ib_other kind)
{
    pkt->cls = ROCE_CLASS_NON_ROCE;
    pkt->ib_other = (uint8_t)kind;
}

static void malformed(struct roce_pkt *pkt, enum roce_malformed why)
{
    pkt->cls = ROCE_CLASS_MALFORMED;
    pkt->malformed = (uint8_t)why;
}

/* A raw packet (its raw header at off): a mirror, or counted as raw. */
static void raw(const uint8_t *p, size_t caplen, size_t off, struct roce_pkt *pkt)
{
    other(pkt, ROCE_IB_RAW);
    if (roce_fits(caplen, off, ROCE_IB_RWH_LEN) &&
        roce_get_be16(p, off + ROCE_IB_RWH_TYPE_OFF) == IB_MIRROR_ETHERTYPE) {
        pkt->ib_other = ROCE_IB_TRANSPORT; /* what counts is the packet inside */
        roce_decode_ib_mirror(p, caplen, off + ROCE_IB_RWH_LEN, pkt->lrh.slid, pkt);
    }
}

void roce_decode_lrh(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                     size_t off, struct roce_pkt *pkt)
{
    struct roce_lrh *l = &pkt->lrh;

    pkt->version = ROCE_VERSION_IB;
    pkt->cls = ROCE_CLASS_ROCE; /* InfiniBand by link type or encapsulation */
    pkt->lrh_off = (uint32_t)off;
    pkt->lrh_captured = 0;
    pkt->has_grh = 0;
    pkt->vcrc_status = ROCE_ICRC_UNCHECKED;
    if (!roce_fits(caplen, off, ROCE_LRH_LEN))
        return; /* the snaplen cut the LRH */
    pkt->lrh_captured = 1;
    l->vl = p[off] >> ROCE_LRH_VL_SHIFT;
    l->lver = p[off] & ROCE_LRH_LVER_MASK;
    l->sl = p[off + 1] >> ROCE_LRH_SL_SHIFT;
    l->lnh = p[off + 1] & ROCE_LRH_LNH_MASK;
    l->dlid = roce_get_be16(p, off + ROCE_LRH_DLID_OFF);
    l->pktlen = roce_get_be16(p, off + ROCE_LRH_PKTLEN_OFF) & ROCE_LRH_PKTLEN_MASK;
    l->slid = roce_get_be16(p, off + ROCE_LRH_SLID_OFF);
    size_t len = (size_t)l->pktlen * ROCE_LRH_WORD;
    /* what the packet length must hold: the LRH, and the GRH of a global packet */
    size_t need = ROCE_LRH_LEN + (l->lnh == ROCE_LNH_GLOBAL ? ROCE_IB_GRH_LEN : 0);
    if (len >= need)
        vcrc(cfg, p, caplen, off, len, pkt);
    if (l->lver != 0) {
        malformed(pkt, ROCE_MAL_LRH_VERSION);
        return;
    }
    switch (l->lnh) {
    case ROCE_LNH_RAW:
        raw(p, caplen, off + ROCE_LRH_LEN, pkt);
        return;
    case ROCE_LNH_IPV6:
        other(pkt, ROCE_IB_IPV6);
        return;
    case ROCE_LNH_LOCAL:
        if (len < need) {
            malformed(pkt, ROCE_MAL_LRH_LENGTH);
            return;
        }
        pkt->af = ROCE_AF_LID;
        roce_addr_set_lid(pkt->src, l->slid);
        roce_addr_set_lid(pkt->dst, l->dlid);
        pkt->bth_off = pkt->l4_off = (uint32_t)(off + ROCE_LRH_LEN);
        roce_transport_decode(cfg, p, caplen, len - ROCE_LRH_LEN, pkt);
        return;
    default: /* ROCE_LNH_GLOBAL */
        if (len < need) {
            malformed(pkt, ROCE_MAL_LRH_LENGTH);
            return;
        }
        pkt->has_grh = 1;
        if (!roce_fits(caplen, off + ROCE_LRH_LEN, ROCE_IB_GRH_LEN))
            return; /* the snaplen cut the GRH */
        if (p[off + ROCE_LRH_LEN + GRH_NEXT_HDR_OFF] != GRH_NEXT_HDR_IBA) {
            other(pkt, ROCE_IB_IPV6);
            return;
        }
        roce_take_v6_header(p, off + ROCE_LRH_LEN, pkt);
        pkt->l3_hdr_len = ROCE_IB_GRH_LEN;
        pkt->bth_off = pkt->l4_off = (uint32_t)(off + ROCE_LRH_LEN + ROCE_IB_GRH_LEN);
        roce_transport_decode(cfg, p, caplen, len - ROCE_LRH_LEN - ROCE_IB_GRH_LEN, pkt);
        return;
    }
}
