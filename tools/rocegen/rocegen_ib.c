/*
 * rocegen_ib.c - native InfiniBand packets from a struct rg_spec (see
 * rocegen_build.h, RG_KIND_IB*): IBA Vol. 1 7.7 (LRH), 8.3 (GRH), 5.3
 * (raw packets), 7.8 (ICRC, VCRC).
 *
 *   LRH (8) | [GRH (40)] | BTH | extension headers | payload | pad | ICRC | VCRC
 *   LRH (8) | raw header: 0 (16), EtherType (16) | payload, zero-padded to 4 | VCRC
 *   LRH (8) | IPv6 header (40) | payload, zero-padded to 4 | VCRC
 *
 * PktLen counts the 4-byte words from the LRH to the ICRC (to the end of
 * the payload of raw and IPv6 packets); the ICRC comes from the engine's
 * roce_icrc_ib_compute() and the VCRC from roce_vcrc_compute(), both
 * written least significant byte first.
 */
#include <string.h>

#include "roce_ib.h"
#include "roce_icrc.h"
#include "rocegen_ib.h"
#include "rocegen_wire.h"

#define WORD 4u

static void put_le16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

/* The payload of raw and IPv6 packets at p: the spec's bytes, then zeros
 * up to padded bytes. */
static void ib_payload(const struct rg_spec *s, uint8_t *p, unsigned padded)
{
    if (s->payload != NULL)
        memcpy(p, s->payload, s->payload_len);
    else
        memset(p, s->payload_fill, s->payload_len);
    memset(p + s->payload_len, 0, padded - s->payload_len);
}

int rg_build_ib(const struct rg_spec *s, uint8_t *buf, size_t cap, struct rg_layout *lay)
{
    struct rg_plan pl;
    struct rg_layout l;
    unsigned lnh, full;

    if ((s->linktype != RG_LINKTYPE_INFINIBAND && s->linktype != RG_LINKTYPE_ERF) ||
        s->kind > RG_KIND_IB_IPV6 || s->payload_len > RG_MAX_FRAME)
        return RG_ERR_INVALID;
    memset(&pl, 0, sizeof pl);
    memset(&l, 0, sizeof l);
    switch (s->kind) {
    case RG_KIND_IB:
        if (rg_plan_roce(s, &pl) != 0)
            return RG_ERR_INVALID;
        lnh = s->ib_grh ? ROCE_LNH_GLOBAL : ROCE_LNH_LOCAL;
        pl.l3_len = s->ib_grh ? ROCE_IB_GRH_LEN : 0;
        full = pl.roce_full;
        break;
    case RG_KIND_IB_RAW:
        lnh = ROCE_LNH_RAW;
        pl.l3_len = ROCE_IB_RWH_LEN;
        pl.body_len = full = (s->payload_len + WORD - 1) & ~(WORD - 1);
        break;
    default: /* RG_KIND_IB_IPV6 */
        lnh = ROCE_LNH_IPV6;
        pl.l3_len = IPV6_HDR_LEN;
        pl.body_len = full = (s->payload_len + WORD - 1) & ~(WORD - 1);
        break;
    }
    size_t pkt = ROCE_LRH_LEN + pl.l3_len + pl.body_len, len = pkt + ROCE_VCRC_LEN;
    if (ROCE_LRH_LEN + pl.l3_len + full + ROCE_VCRC_LEN > cap || len > RG_MAX_FRAME)
        return RG_ERR_SPACE;

    buf[0] = (uint8_t)(s->ib_vl << ROCE_LRH_VL_SHIFT | (s->ib_lver & ROCE_LRH_LVER_MASK));
    buf[1] = (uint8_t)(s->ib_sl << ROCE_LRH_SL_SHIFT | lnh);
    put_be16(buf + ROCE_LRH_DLID_OFF, s->dlid);
    put_be16(buf + ROCE_LRH_PKTLEN_OFF,
             (s->ib_pktlen == RG_AUTO ? (uint32_t)(pkt / WORD) : (uint32_t)s->ib_pktlen) &
                 ROCE_LRH_PKTLEN_MASK);
    put_be16(buf + ROCE_LRH_SLID_OFF, s->slid);
    l.l3_off = ROCE_LRH_LEN;
    uint8_t *l3 = buf + ROCE_LRH_LEN, *body = l3 + pl.l3_len;
    switch (s->kind) {
    case RG_KIND_IB:
        if (s->ib_grh)
            rg_wire_ipv6(s, &pl, l3,
                         s->grh_next_hdr == RG_AUTO ? GRH_NEXT_HDR_IBA : (uint8_t)s->grh_next_hdr);
        rg_wire_roce(s, &pl, body);
        l.bth_off = l.l4_off = (uint32_t)(body - buf);
        l.payload_off = l.bth_off + ROCE_BTH_LEN + roce_hdrs_len(pl.hdrs);
        if (pl.body_len == pl.roce_full) {
            l.icrc_off = l.bth_off + pl.roce_full - ROCE_ICRC_LEN;
            if (!s->icrc_skip)
                l.icrc = roce_icrc_ib_compute(buf, s->ib_grh, l.icrc_off) ^ s->icrc_xor;
            put_le32(buf + l.icrc_off, l.icrc);
        }
        break;
    case RG_KIND_IB_RAW:
        put_be16(l3, 0);
        put_be16(l3 + ROCE_IB_RWH_TYPE_OFF, s->ib_ethertype);
        ib_payload(s, body, pl.body_len);
        l.payload_off = (uint32_t)(body - buf);
        break;
    default:
        rg_wire_ipv6(s, &pl, l3, s->ip_proto);
        ib_payload(s, body, pl.body_len);
        l.payload_off = (uint32_t)(body - buf);
        break;
    }
    put_le16(buf + pkt, (uint32_t)(roce_vcrc_compute(buf, pkt) ^ s->vcrc_xor));
    l.len = (uint32_t)len;
    if (lay != NULL)
        *lay = l;
    return (int)len;
}

/* The EtherType of what a non-RoCE spec carries. */
static uint16_t ethertype_of(const struct rg_spec *s)
{
    if (s->kind == RG_KIND_ARP)
        return ETHERTYPE_ARP;
    return s->ip_version == 6 ? ETHERTYPE_IPV6 : ETHERTYPE_IPV4;
}

/* The LID standing for a 16-byte address: its last two bytes. */
static uint16_t lid_of(const uint8_t addr[RG_ADDR_LEN])
{
    return (uint16_t)(addr[RG_ADDR_LEN - 2] << 8 | addr[RG_ADDR_LEN - 1]);
}

void rg_spec_to_ib(const struct rg_spec *s, struct rg_spec *ib)
{
    *ib = *s;
    ib->linktype = RG_LINKTYPE_INFINIBAND;
    ib->n_vlans = 0;
    ib->ib_sl = s->n_vlans ? s->vlan[0].pcp : 0;
    ib->slid = lid_of(s->src);
    ib->dlid = lid_of(s->dst);
    if (s->kind != RG_KIND_ROCEV2 && s->kind != RG_KIND_ROCEV1) {
        ib->kind = RG_KIND_IB_RAW;
        ib->ib_ethertype = ethertype_of(s);
        return;
    }
    ib->kind = RG_KIND_IB;
    ib->ib_grh = s->kind == RG_KIND_ROCEV1;
    ib->fecn = s->kind == RG_KIND_ROCEV2 ? s->ecn == RG_ECN_CE : s->fecn;
    ib->ecn = s->kind == RG_KIND_ROCEV2 ? RG_ECN_NOT_ECT : s->ecn;
    if (s->opcode == RG_OP_CNP) {
        ib->opcode = RG_OP_IB_CNP;
        ib->hdrs = RG_AUTO;
    }
}
