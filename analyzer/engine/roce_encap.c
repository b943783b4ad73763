/*
 * roce_encap.c - mirrored-traffic encapsulations and MAC Control frames.
 *
 * GRE (RFC 2784, RFC 2890 key and sequence number):
 *   |C|R|K|S|s|Recur| Flags | Ver |   Protocol Type   |
 *   [checksum, reserved (C)] [key (K)] [sequence number (S)]
 * ERSPAN (draft-foschiano-erspan-03):
 *   type I   GRE 0x88BE without sequence number: the mirrored frame follows.
 *   type II  GRE 0x88BE, 8-byte header:
 *            | Ver=1 (4) | VLAN (12) | COS (3) | En (2) | T | Session ID (10) |
 *            | Reserved (12) | Index (20) |
 *   type III GRE 0x22EB, 12-byte header (+8 when O is set):
 *            | Ver=2 (4) | VLAN (12) | COS (3) | BSO (2) | T | Session ID (10) |
 *            | Timestamp (32) | SGT (16) | P | FT (5) | HW ID (6) | D | Gra (2) | O |
 * GRE 0x6558: transparent Ethernet bridging; GRE 0x0800 / 0x86DD: IP in GRE.
 * VXLAN (RFC 7348), UDP 4789: | Flags (8, I = 0x08) | Reserved (24) | VNI (24) | Reserved (8) |
 * InfiniBand mirror (what ibdump's --decap removes, Mellanox/ibdump ibdump.c):
 *   LRH (LNH raw) | raw header: reserved (16), EtherType 0x1123 | prefix (4) |
 *   the mirrored packet, LRH to VCRC | the mirror's VCRC
 * MAC Control (EtherType 0x8808): IEEE 802.3 Annex 31B PAUSE (opcode 0x0001,
 *   pause_time (16)), IEEE 802.1Qbb PFC (opcode 0x0101, class-enable vector
 *   (16, priorities in bits 7..0), time[0..7] (16 each)).
 *
 * The mirrored frame inside is decoded like any other: these decoders only
 * return where it is (struct roce_inner), roce_decode.c goes on from there. The
 * encapsulation is recorded in the packet (the outermost one), nesting at
 * most ROCE_MAX_ENCAP.
 */
#include "roce_extract.h"
#include "roce_layer.h"

#define GRE_BASE_LEN         4
#define GRE_OPT_LEN          4
#define GRE_FLAG_C           0x8000u
#define GRE_FLAG_R           0x4000u
#define GRE_FLAG_K           0x2000u
#define GRE_FLAG_S           0x1000u
#define GRE_VERSION_MASK     0x0007u
#define GRE_PROTO_ERSPAN2    0x88BEu
#define GRE_PROTO_ERSPAN3    0x22EBu
#define GRE_PROTO_TEB        0x6558u
#define GRE_PROTO_IPV4       0x0800u
#define GRE_PROTO_IPV6       0x86DDu
#define ERSPAN2_LEN          8
#define ERSPAN3_LEN          12
#define ERSPAN3_SUBHDR_LEN   8
#define ERSPAN_VER_SHIFT     12
#define ERSPAN_VER_II        1u
#define ERSPAN_VER_III       2u
#define ERSPAN_SESSION_MASK  0x03FFu
#define ERSPAN_COS_SHIFT     13 /* in the header's second 16 bits */
#define ERSPAN_COS_MASK      0x7u
#define ERSPAN3_FT_OFF       10 /* byte holding P and FT */
#define ERSPAN3_FT_SHIFT     2
#define ERSPAN3_FT_MASK      0x1Fu
#define ERSPAN3_FT_ETHERNET  0u
#define ERSPAN3_O_OFF        11
#define ERSPAN3_O_BIT        0x01u
#define IB_MIRROR_PREFIX_LEN 4
#define VXLAN_LEN            8
#define VXLAN_VNI_OFF        4
#define MACCTRL_OPCODE_PAUSE 0x0001u
#define MACCTRL_OPCODE_PFC   0x0101u
#define PFC_CEV_MASK         0x00FFu

const char *roce_encap_name(enum roce_encap e)
{
    static const char *const names[ROCE_ENCAP_COUNT] = {
        [ROCE_ENCAP_NONE] = "none",       [ROCE_ENCAP_ERSPAN1] = "erspan1",
        [ROCE_ENCAP_ERSPAN2] = "erspan2", [ROCE_ENCAP_ERSPAN3] = "erspan3",
        [ROCE_ENCAP_GRE_TEB] = "gre_teb", [ROCE_ENCAP_GRE_IP] = "gre_ip",
        [ROCE_ENCAP_VXLAN] = "vxlan",     [ROCE_ENCAP_IB_MIRROR] = "ib_mirror",
    };
    return (unsigned)e < ROCE_ENCAP_COUNT ? names[e] : "unknown";
}

/* The frame inside is an Ethernet frame at off (or, when type is not 0, what
 * EtherType `type` carries): record it for the walk, unless too deep. */
static void inner(struct roce_pkt *pkt, enum roce_encap e, uint32_t id, unsigned type, size_t off)
{
    if (pkt->encap_depth >= ROCE_MAX_ENCAP)
        return;
    if (pkt->encap_depth++ == 0) {
        pkt->encap = (uint8_t)e;
        pkt->encap_id = id;
    }
    pkt->n_vlans = 0; /* the mirrored frame's own tags count */
    pkt->inner_off = (uint32_t)off;
    pkt->inner_type = (uint16_t)type;
}

/* The COS of an ERSPAN II/III header at off (captured): the mirrored
 * frame's priority, kept from the outermost. */
static void erspan_cos(const uint8_t *p, size_t off, struct roce_pkt *pkt)
{
    if (pkt->encap_cos == 0)
        pkt->encap_cos =
            (uint8_t)(((roce_get_be16(p, off + 2) >> ERSPAN_COS_SHIFT) & ERSPAN_COS_MASK) + 1);
}

/* The mirrored Ethernet frame of an ERSPAN packet whose header starts at off. */
static void erspan(const uint8_t *p, size_t caplen, size_t off, unsigned proto,
                   struct roce_pkt *pkt)
{
    if (proto == GRE_PROTO_ERSPAN2) {
        if (!roce_fits(caplen, off, ERSPAN2_LEN) ||
            (roce_get_be16(p, off) >> ERSPAN_VER_SHIFT) != ERSPAN_VER_II)
            return;
        erspan_cos(p, off, pkt);
        inner(pkt, ROCE_ENCAP_ERSPAN2, roce_get_be16(p, off + 2) & ERSPAN_SESSION_MASK, 0,
              off + ERSPAN2_LEN);
        return;
    }
    if (!roce_fits(caplen, off, ERSPAN3_LEN) ||
        (roce_get_be16(p, off) >> ERSPAN_VER_SHIFT) != ERSPAN_VER_III ||
        ((p[off + ERSPAN3_FT_OFF] >> ERSPAN3_FT_SHIFT) & ERSPAN3_FT_MASK) != ERSPAN3_FT_ETHERNET)
        return;
    size_t frame = off + ERSPAN3_LEN;
    erspan_cos(p, off, pkt);
    if (p[off + ERSPAN3_O_OFF] & ERSPAN3_O_BIT)
        frame += ERSPAN3_SUBHDR_LEN;
    inner(pkt, ROCE_ENCAP_ERSPAN3, roce_get_be16(p, off + 2) & ERSPAN_SESSION_MASK, 0, frame);
}

void roce_decode_gre(const uint8_t *p, size_t caplen, size_t off, size_t end, struct roce_pkt *pkt)
{
    if (!roce_fits(caplen, off, GRE_BASE_LEN) || off > end)
        return;
    unsigned flags = roce_get_be16(p, off), proto = roce_get_be16(p, off + 2);
    if ((flags & GRE_VERSION_MASK) != 0 || (flags & GRE_FLAG_R))
        return; /* enhanced GRE (PPTP) or source routing: not a mirror */
    size_t h = off + GRE_BASE_LEN;
    h += (flags & GRE_FLAG_C) ? GRE_OPT_LEN : 0;
    h += (flags & GRE_FLAG_K) ? GRE_OPT_LEN : 0;
    h += (flags & GRE_FLAG_S) ? GRE_OPT_LEN : 0;
    switch (proto) {
    case GRE_PROTO_ERSPAN2:
    case GRE_PROTO_ERSPAN3:
        if (proto == GRE_PROTO_ERSPAN2 && !(flags & GRE_FLAG_S))
            inner(pkt, ROCE_ENCAP_ERSPAN1, 0, 0, h); /* type I: no ERSPAN header */
        else
            erspan(p, caplen, h, proto, pkt);
        break;
    case GRE_PROTO_TEB:
        inner(pkt, ROCE_ENCAP_GRE_TEB, 0, 0, h);
        break;
    case GRE_PROTO_IPV4:
    case GRE_PROTO_IPV6:
        inner(pkt, ROCE_ENCAP_GRE_IP, 0, proto, h); /* GRE names it by its EtherType */
        break;
    default:
        break;
    }
}

void roce_decode_vxlan(const uint8_t *p, size_t caplen, size_t off, size_t end,
                       struct roce_pkt *pkt)
{
    if (!roce_fits(caplen, off, VXLAN_LEN) || off + VXLAN_LEN > end)
        return;
    inner(pkt, ROCE_ENCAP_VXLAN, roce_get_be24(p, off + VXLAN_VNI_OFF), 0, off + VXLAN_LEN);
}

void roce_decode_ib_mirror(const uint8_t *p, size_t caplen, size_t off, uint16_t slid,
                           struct roce_pkt *pkt)
{
    (void)p; /* the prefix is not interpreted */
    if (!roce_fits(caplen, off, IB_MIRROR_PREFIX_LEN))
        return;
    if (pkt->encap_depth == 0) { /* who mirrored it: the raw packet's source */
        pkt->encap_src_af = ROCE_AF_LID;
        roce_addr_set_lid(pkt->encap_src, slid);
    }
    inner(pkt, ROCE_ENCAP_IB_MIRROR, 0, ROCE_INNER_IB, off + IB_MIRROR_PREFIX_LEN);
}

void roce_decode_mac_control(const uint8_t *p, size_t caplen, size_t off, struct roce_pkt *pkt)
{
    if (!roce_fits(caplen, off, 2))
        return;
    unsigned opcode = roce_get_be16(p, off);
    pkt->mac_ctrl = ROCE_MACCTRL_OTHER;
    if (opcode == MACCTRL_OPCODE_PAUSE && roce_fits(caplen, off, 4)) {
        pkt->mac_ctrl = ROCE_MACCTRL_PAUSE;
        pkt->pause_quanta[0] = roce_get_be16(p, off + 2);
    } else if (opcode == MACCTRL_OPCODE_PFC &&
               roce_fits(caplen, off, 4 + 2 * ROCE_PFC_PRIORITIES)) {
        pkt->mac_ctrl = ROCE_MACCTRL_PFC;
        pkt->pfc_cev = (uint8_t)(roce_get_be16(p, off + 2) & PFC_CEV_MASK);
        for (unsigned i = 0; i < ROCE_PFC_PRIORITIES; i++)
            pkt->pause_quanta[i] = roce_get_be16(p, off + 4 + 2 * i);
    }
}
