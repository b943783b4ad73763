/*
 * roce_pkt.h - a decoded frame (struct roce_pkt): what roce_decode() found
 * in it, from the link layer down to the RoCE extension headers, and the
 * protocol constants that name it.
 *
 * A frame is one of three classes: non-RoCE, RoCE (possibly truncated by
 * the snaplen: then analysed as far as the captured headers allow) and
 * malformed (RoCE by EtherType or port, but the length its headers declare
 * cannot hold the BTH, the extension headers of its opcode, the pad and the
 * ICRC, or the opcode is not defined). Native InfiniBand packets that carry
 * the IBA transport (a BTH) are of the class RoCE too, with version
 * ROCE_VERSION_IB: the transport and its analysis are the same.
 */
#ifndef ROCE_PKT_H
#define ROCE_PKT_H

#include <stddef.h>
#include <stdint.h>

#include "roce_addr.h"
#include "roce_opcode.h"

#define ROCE_ETHERTYPE_ROCEV1      0x8915u
#define ROCE_ETHERTYPE_MAC_CONTROL 0x8808u /* PAUSE and PFC frames */
#define ROCE_IPPROTO_GRE           47u     /* mirror encapsulations: ERSPAN, GRE-TEB, IP in GRE */
#define ROCE_UDP_PORT_ROCEV2       4791
#define ROCE_UDP_PORT_VXLAN        4789
#define ROCE_ECN_CE                3u
#define ROCE_QPN_GSI               1u /* QP1: management datagrams (CM) */

/* The BTH layout (IBTA Vol. 1 9.2; drawn in roce_bth.h): offsets from its
 * first byte, and its bits. */
#define ROCE_BTH_OPCODE_OFF 0
#define ROCE_BTH_FLAGS_OFF  1
#define ROCE_BTH_SE_BIT     0x80u
#define ROCE_BTH_M_BIT      0x40u
#define ROCE_BTH_PAD_SHIFT  4
#define ROCE_BTH_PAD_MASK   0x3u
#define ROCE_BTH_TVER_MASK  0x0Fu
#define ROCE_BTH_PKEY_OFF   2
#define ROCE_BTH_FB_OFF     4
#define ROCE_BTH_FECN_BIT   0x80u
#define ROCE_BTH_BECN_BIT   0x40u
#define ROCE_BTH_DQPN_OFF   5
#define ROCE_BTH_ACKREQ_OFF 8
#define ROCE_BTH_ACKREQ_BIT 0x80u
#define ROCE_BTH_PSN_OFF    9

/* What carries the transport (struct roce_pkt.version, flow keys). */
enum roce_version {
    ROCE_VERSION_NONE = 0, /* not RoCE */
    ROCE_VERSION_1 = 1,    /* RoCEv1: Ethernet, GRH */
    ROCE_VERSION_2 = 2,    /* RoCEv2: IP, UDP */
    ROCE_VERSION_IB = 3    /* native InfiniBand: LRH (and GRH) */
};

enum roce_class { ROCE_CLASS_NON_ROCE = 0, ROCE_CLASS_ROCE = 1, ROCE_CLASS_MALFORMED = 2 };

/* Why a RoCE packet is malformed. */
enum roce_malformed {
    ROCE_MAL_NONE = 0,
    ROCE_MAL_UDP_LENGTH,  /* UDP length < 8 or beyond the IP payload */
    ROCE_MAL_GRH,         /* RoCEv1 GRH next header is not 0x1B */
    ROCE_MAL_SHORT_BTH,   /* declared length cannot hold a BTH */
    ROCE_MAL_OPCODE,      /* opcode not defined */
    ROCE_MAL_SHORT_HDRS,  /* declared length cannot hold the opcode's headers and the ICRC */
    ROCE_MAL_PAD,         /* pad count larger than the payload */
    ROCE_MAL_LRH_VERSION, /* InfiniBand LRH link version not 0 */
    ROCE_MAL_LRH_LENGTH,  /* InfiniBand LRH packet length cannot hold the LRH and GRH */
    ROCE_MAL_COUNT
};

/* Name of a malformed reason ("udp_length", ...). */
const char *roce_malformed_name(enum roce_malformed m);

enum roce_icrc_status {
    ROCE_ICRC_UNCHECKED = 0, /* not all of the packet was captured, or checking is off */
    ROCE_ICRC_GOOD = 1,
    ROCE_ICRC_BAD = 2
};

/* InfiniBand packets without the IBA transport (LRH next header, GRH next
 * header): counted, not analysed. */
enum roce_ib_other {
    ROCE_IB_TRANSPORT = 0, /* IBA transport, or not InfiniBand */
    ROCE_IB_RAW = 1,       /* LNH raw: a raw header (EtherType) and its payload */
    ROCE_IB_IPV6 = 2,      /* LNH IP non-IBA transport, or a GRH whose next header is not 0x1B */
    ROCE_IB_OTHER_COUNT
};

/* "raw", "ipv6" (ROCE_IB_TRANSPORT: "transport"). */
const char *roce_ib_other_name(enum roce_ib_other o);

/* InfiniBand Local Route Header (IBA Vol. 1 7.7). */
struct roce_lrh {
    uint8_t vl, lver, sl, lnh;
    uint16_t dlid, slid;
    uint16_t pktlen; /* 4-byte words from the LRH to the ICRC, inclusive */
};

/* Stacked 802.1Q/802.1ad tags the decoder walks (a frame with more is not
 * decoded), and of those the outer ones whose PCP and VID it records. */
#define ROCE_VLAN_MAX_TAGS 4
#define ROCE_MAX_VLANS     2

/* Decoder settings. */
struct roce_decode_cfg {
    uint16_t udp_port;   /* RoCEv2 UDP destination port (4791) */
    uint16_t vxlan_port; /* VXLAN UDP destination port (4789), 0: no VXLAN */
    uint8_t check_icrc;
};

/* Encapsulations of mirrored traffic that the decoder unwraps. */
enum roce_encap {
    ROCE_ENCAP_NONE = 0,
    ROCE_ENCAP_ERSPAN1,   /* GRE 0x88BE without sequence number: no ERSPAN header */
    ROCE_ENCAP_ERSPAN2,   /* GRE 0x88BE, ERSPAN type II header */
    ROCE_ENCAP_ERSPAN3,   /* GRE 0x22EB, ERSPAN type III header */
    ROCE_ENCAP_GRE_TEB,   /* GRE 0x6558, transparent Ethernet bridging */
    ROCE_ENCAP_GRE_IP,    /* GRE carrying IPv4/IPv6 */
    ROCE_ENCAP_VXLAN,     /* UDP 4789 */
    ROCE_ENCAP_IB_MIRROR, /* InfiniBand raw packet, EtherType 0x1123: a mirrored IB packet */
    ROCE_ENCAP_COUNT
};
#define ROCE_MAX_ENCAP 3       /* nested encapsulations unwrapped at most */
#define ROCE_INNER_IB  0xFFFFu /* inner_type of an InfiniBand packet (LRH first) */

/* "erspan2", ... */
const char *roce_encap_name(enum roce_encap e);

/* MAC Control frames (EtherType 0x8808, IEEE 802.3 Annex 31B/31D). */
enum roce_mac_ctrl {
    ROCE_MACCTRL_NONE = 0,
    ROCE_MACCTRL_PAUSE = 1, /* 802.3x PAUSE, opcode 0x0001 */
    ROCE_MACCTRL_PFC = 2,   /* 802.1Qbb priority flow control, opcode 0x0101 */
    ROCE_MACCTRL_OTHER = 3
};
#define ROCE_PFC_PRIORITIES 8

/* Every frame clears the first ROCE_PKT_FIXED_LEN bytes: they are laid out
 * without padding (mind it when adding a field). */
struct roce_pkt {
    uint8_t cls;       /* enum roce_class */
    uint8_t malformed; /* enum roce_malformed */
    uint8_t version;   /* enum roce_version: 1, 2 or IB for RoCE, 0 otherwise */
    uint8_t truncated; /* captured length < original length */
    uint8_t bth_captured;
    uint8_t icrc_status; /* enum roce_icrc_status (icrc_wire, icrc_calc below) */
    uint8_t af;          /* enum roce_af of src and dst: IPv4, IPv6 / GID, or LID */
    uint8_t n_vlans; /* tags walked (of the innermost frame); the first ROCE_MAX_VLANS recorded */
    uint8_t pcp[ROCE_MAX_VLANS];
    uint16_t vid[ROCE_MAX_VLANS];
    uint8_t ecn;  /* IP ECN (RoCEv2) or the GRH traffic class low bits (RoCEv1) */
    uint8_t dscp; /* IP DSCP / upper six bits of the GRH traffic class */
    uint16_t udp_sport;
    uint8_t encap;       /* enum roce_encap: the outermost one unwrapped */
    uint8_t encap_depth; /* encapsulations unwrapped (the innermost: inner_off, inner_type) */
    uint32_t encap_id;   /* ERSPAN session ID or VXLAN VNI of the outermost */
    uint32_t inner_off;  /* where the innermost mirrored frame starts (when encap_depth > 0) */
    uint16_t inner_type; /* that frame: 0 Ethernet, ROCE_INNER_IB an InfiniBand packet,
                            else its EtherType (IP in GRE) */
    uint8_t mac_ctrl;    /* enum roce_mac_ctrl (a non-RoCE frame) */
    uint8_t pfc_cev;     /* PFC class-enable vector (bit n: priority n) */
    uint16_t pause_quanta[ROCE_PFC_PRIORITIES]; /* PFC per priority; PAUSE in [0] */

    /* InfiniBand (version ROCE_VERSION_IB): the LRH at lrh_off, whether a
     * GRH follows it (at l3_off), what the packet carries, its VCRC. */
    struct roce_lrh lrh;
    uint16_t vcrc_wire, vcrc_calc; /* as Wireshark's infiniband.variant.crc shows them */
    uint8_t lrh_captured;
    uint8_t has_grh;
    uint8_t ib_other;            /* enum roce_ib_other */
    uint8_t vcrc_status;         /* enum roce_icrc_status, when lrh_captured */
    uint8_t icrc_rewrite;        /* a bad RoCEv2 ICRC explained: enum roce_rewrite_field */
    uint8_t understated;         /* captured short of its declared length, but truncated says not:
                                    the original length was written as the captured one */
    uint8_t encap_cos;           /* ERSPAN II/III: the mirrored frame's 802.1p priority (COS)
                                    + 1; 0: none (ANALYSIS.md "Priorities") */
    uint16_t icrc_rewrite_value; /* the value of that field the ICRC validates with */
    uint32_t lrh_off;

    /* Offsets in the frame. end_off is where the ICRC ends by the declared lengths. */
    uint32_t l3_off, l3_hdr_len, l4_off, bth_off, payload_off, end_off;

    uint8_t src[ROCE_ADDR_LEN]; /* IPv4 IPv4-mapped (roce_addr.h) */
    uint8_t dst[ROCE_ADDR_LEN];
    uint8_t encap_src_af;             /* enum roce_af of encap_src */
    uint8_t encap_src[ROCE_ADDR_LEN]; /* source address of the outermost tunnel's IP header,
                                         or LID of an InfiniBand mirror (the mirroring
                                         switch); valid when encap_depth > 0 */

    /* BTH (IBTA Vol. 1 9.2) */
    uint8_t opcode, se, mig, padcnt, tver, fecn, becn, ackreq;
    uint16_t pkey;
    uint32_t dqpn, psn;
    uint32_t payload_len;              /* declared payload, without pad and ICRC */
    const struct roce_opcode_info *op; /* NULL unless the opcode is defined */
    uint16_t hdrs;                     /* extension headers the opcode implies */
    uint16_t hdrs_captured;            /* those entirely captured */
    /* the captured and the computed ICRC, each as its four bytes in wire
     * order read big-endian (as Wireshark's infiniband.invariant.crc) */
    uint32_t icrc_wire, icrc_calc;

    /* Extension header fields: set only for the headers in hdrs_captured
     * (roce_pkt_has()); the others are left as they were. */
    uint32_t rdeth_eecnxt;
    uint32_t deth_qkey, deth_srcqp;
    uint32_t xrceth_srqn;
    uint32_t feth;
    uint64_t reth_va;
    uint32_t reth_rkey, reth_dma_len;
    uint64_t atomic_va, atomic_swap_add, atomic_cmp;
    uint32_t atomic_rkey;
    uint8_t aeth_syndrome;
    uint32_t aeth_msn;
    uint64_t atomicack_orig;
    uint32_t immdt;
    uint32_t ieth_rkey;
};

/* The part of struct roce_pkt that roce_decode() always sets. */
#define ROCE_PKT_FIXED_LEN offsetof(struct roce_pkt, rdeth_eecnxt)

/* Nonzero when the packet carries header h (enum roce_hdr) and it was captured. */
static inline int roce_pkt_has(const struct roce_pkt *pkt, unsigned h)
{
    return (pkt->hdrs_captured & h) != 0;
}

/* Nonzero when the packet carries a congestion mark: ECN CE in the IP
 * header of RoCEv2, FECN in the BTH of native InfiniBand (IBA Vol. 1 Annex
 * A10); the analysis treats both alike (ANALYSIS.md, "ECN and CNPs"). */
static inline int roce_pkt_congestion_marked(const struct roce_pkt *pkt)
{
    return pkt->version == ROCE_VERSION_2 ? pkt->ecn == ROCE_ECN_CE
                                          : pkt->version == ROCE_VERSION_IB && pkt->fecn;
}

/* Nonzero when the packet answers congestion marks without being a CNP:
 * an InfiniBand response with BECN set (the responder's ACK returning
 * the FECN it received, IBA Vol. 1 Annex A10). */
static inline int roce_pkt_becn_answer(const struct roce_pkt *pkt)
{
    return pkt->version == ROCE_VERSION_IB && pkt->becn && pkt->op != NULL &&
           pkt->op->kind == ROCE_KIND_RESPONSE;
}

/* AETH syndrome (IBTA Vol. 1 9.3.5 Table 42). */
#define ROCE_AETH_TYPE_SHIFT 5
#define ROCE_AETH_TYPE_MASK  0x3u
#define ROCE_AETH_VALUE_MASK 0x1Fu
enum roce_aeth_type {
    ROCE_AETH_ACK = 0,
    ROCE_AETH_RNR_NAK = 1,
    ROCE_AETH_RESERVED = 2,
    ROCE_AETH_NAK = 3
};
enum roce_nak_code {
    ROCE_NAK_PSN_SEQUENCE_ERROR = 0,
    ROCE_NAK_INVALID_REQUEST = 1,
    ROCE_NAK_REMOTE_ACCESS_ERROR = 2,
    ROCE_NAK_REMOTE_OPERATIONAL_ERROR = 3,
    ROCE_NAK_INVALID_RD_REQUEST = 4,
    ROCE_NAK_CODES = 5 /* codes 5..31 are reserved */
};

static inline unsigned roce_aeth_type(uint8_t syndrome)
{
    return (syndrome >> ROCE_AETH_TYPE_SHIFT) & ROCE_AETH_TYPE_MASK;
}

static inline unsigned roce_aeth_value(uint8_t syndrome)
{
    return syndrome & ROCE_AETH_VALUE_MASK;
}

/* "psn_sequence_error", ... or "reserved_code" (codes 5..31, as the counts name them). */
const char *roce_nak_code_name(unsigned code);
/* "PSN sequence error", ... for display. */
const char *roce_nak_code_text(unsigned code);
/* RNR timer code to microseconds x 100 (0.01 ms units: code 1 = 1, code 0 = 65536). */
uint32_t roce_rnr_timer_10us(unsigned code);

#endif
