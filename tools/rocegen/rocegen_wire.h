/*
 * rocegen_wire.h - internal to the rocegen_build library: the frame plan and
 * the writers of each header (rocegen_wire.c), shared with rg_build().
 */
#ifndef ROCEGEN_WIRE_H
#define ROCEGEN_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "roce_opcode.h"
#include "rocegen_spec.h"

#define ETH_HDR_LEN        14
#define ETH_MIN_FRAME      60 /* without FCS */
#define VLAN_TAG_LEN       4
#define VLAN_PCP_SHIFT     13
#define VLAN_DEI_SHIFT     12
#define VLAN_PCP_MAX       7u
#define VLAN_VID_MASK      0x0FFFu
#define ETHERTYPE_IPV4     0x0800u
#define ETHERTYPE_ARP      0x0806u
#define ETHERTYPE_IPV6     0x86DDu
#define ETHERTYPE_ROCEV1   0x8915u
#define SLL_HDR_LEN        16
#define SLL2_HDR_LEN       20
#define SLL_ADDR_FIELD_LEN 8
#define ARPHRD_ETHER_      1u

#define IPV4_HDR_LEN       20
#define IPV4_VERSION_IHL   0x40u
#define IPV4_FLAG_DF       0x4000u
#define IPV4_FLAG_MF       0x2000u
#define IPV4_FRAG_OFF_MASK 0x1FFFu
#define IPV4_CSUM_OFF      10
#define IPV4_OPT_ALIGN     4
#define IPV6_HDR_LEN       40
#define IPV6_VERSION_WORD  0x60000000u
#define IPV6_TC_SHIFT      20
#define IPV6_FLOW_MASK     0xFFFFFu
#define IPV6_PLEN_OFF      4
#define GRH_LEN            40
#define GRH_NEXT_HDR_IBA   0x1Bu
#define IP_DSCP_SHIFT      2
#define IP_DSCP_MAX        63u
#define IP_ECN_MASK        3u
#define IPPROTO_TCP_       6u
#define IPPROTO_UDP_       17u
#define IPV4_ADDR_LEN      4
#define UDP_HDR_LEN        8
#define UDP_LEN_OFF        4
#define UDP_CSUM_OFF       6
#define TCP_HDR_LEN        20
#define TCP_DATA_OFF_5     0x50u
#define TCP_WINDOW         0xFFFFu
#define TCP_CSUM_OFF       16
#define ARP_LEN            28
#define ARP_HTYPE_ETHER    1u
#define ARP_OP_REQUEST     1u
#define LEN16_MAX          0xFFFFu

#define BTH_SE_BIT     0x80u
#define BTH_M_BIT      0x40u
#define BTH_PAD_SHIFT  4
#define BTH_PAD_MASK   3u
#define BTH_TVER_MASK  0x0Fu
#define BTH_FECN_BIT   0x80u
#define BTH_BECN_BIT   0x40u
#define BTH_ACKREQ_BIT 0x80u
#define BTH_PAD_ALIGN  4u
#define ROCE_HDR_ALL   ((1u << ROCE_HDR_COUNT) - 1u)

/* Big- and little-endian stores. */
static inline void put_be16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void put_be24(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 16);
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)v;
}

static inline void put_be32(uint8_t *p, uint32_t v)
{
    put_be16(p, v >> 16);
    put_be16(p + 2, v);
}

static inline void put_be64(uint8_t *p, uint64_t v)
{
    put_be32(p, (uint32_t)(v >> 32));
    put_be32(p + 4, (uint32_t)v);
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Sizes of the parts of the frame, computed before anything is written. */
struct rg_plan {
    unsigned link_len;  /* link header incl. VLAN tags and the EtherType */
    unsigned l3_len;    /* IP header incl. options, GRH, or ARP */
    unsigned l4_len;    /* UDP or TCP header */
    unsigned hdrs;      /* RoCE extension headers */
    unsigned padcnt;    /* the BTH field */
    unsigned pad_len;   /* pad bytes written */
    unsigned roce_full; /* BTH .. ICRC before the cut */
    unsigned body_len;  /* what follows the L4 header (RoCE region after the cut) */
    uint16_t ethertype;
    uint8_t is_roce, is_v6;
};

/* The RoCE part of the plan of s (from the BTH on): extension headers, pad,
 * the region before and after a cut. 0 or RG_ERR_INVALID. */
int rg_plan_roce(const struct rg_spec *s, struct rg_plan *pl);

/* Link header (Ethernet, SLL, SLL2) and VLAN tags at buf; returns the bytes written. */
unsigned rg_wire_link(const struct rg_spec *s, const struct rg_plan *pl, uint8_t *buf);
/* L4 protocol number of the spec (TCP, UDP, or ip_proto for RG_KIND_IP_RAW). */
uint8_t rg_wire_l4_proto(const struct rg_spec *s);
/* IPv4 header incl. options, checksum 0. */
void rg_wire_ipv4(const struct rg_spec *s, const struct rg_plan *pl, uint8_t *p);
/* IPv6 header or RoCEv1 GRH with next header nxt. */
void rg_wire_ipv6(const struct rg_spec *s, const struct rg_plan *pl, uint8_t *p, uint8_t nxt);
/* ARP request. */
void rg_wire_arp(const struct rg_spec *s, uint8_t *p);
/* BTH, extension headers, payload, pad and a zero ICRC (the whole, uncut RoCE region). */
void rg_wire_roce(const struct rg_spec *s, const struct rg_plan *pl, uint8_t *p);
/* One's-complement sum of n bytes added to sum; fold and complement. */
uint32_t rg_wire_csum_add(uint32_t sum, const uint8_t *p, size_t n);
uint16_t rg_wire_csum_fold(uint32_t sum);
/* UDP/TCP checksum over the pseudo header and l4_len bytes at l4. */
uint16_t rg_wire_l4_checksum(const struct rg_spec *s, const struct rg_plan *pl, const uint8_t *l4,
                             size_t l4_len);

#endif
