/*
 * rocegen_spec.h - what a frame of the rocegen_build library is made of: the
 * constants, the BTH opcodes, struct rg_spec (the frame described field by
 * field), struct rg_layout (where its parts landed) and the errors. The data
 * model that the builder (rocegen_build.c), the header writers
 * (rocegen_wire.c) and the InfiniBand builder (rocegen_ib.c) share; users
 * include rocegen_build.h, which includes this.
 */
#ifndef ROCEGEN_SPEC_H
#define ROCEGEN_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "roce_addr.h"

/* ---- constants ---- */

#define RG_AUTO (-1) /* "derive this field" for the int32_t override fields */

#define RG_MAX_FRAME    16384 /* largest frame rg_build() produces */
#define RG_MAX_VLANS    2
#define RG_ADDR_LEN     ROCE_ADDR_LEN /* IPv4 addresses IPv4-mapped (roce_addr.h) */
#define RG_MAC_LEN      6
#define RG_IPV4_OPT_MAX 40

/* pcap LINKTYPE_* values (tcpdump.org/linktypes.html). */
#define RG_LINKTYPE_ETHERNET   1
#define RG_LINKTYPE_RAW        101 /* raw IPv4 or IPv6, version from the first nibble */
#define RG_LINKTYPE_LINUX_SLL  113
#define RG_LINKTYPE_IPV4       228
#define RG_LINKTYPE_IPV6       229
#define RG_LINKTYPE_LINUX_SLL2 276
#define RG_LINKTYPE_INFINIBAND 247 /* InfiniBand: LRH first, VCRC last */
#define RG_LINKTYPE_ERF        197 /* ERF records (the writer wraps each frame: rg_writer_open) */

/* VLAN tag protocol identifiers. */
#define RG_TPID_8021Q  0x8100u
#define RG_TPID_8021AD 0x88A8u

/* RoCE numbers the builder's users need. */
#define RG_ROCEV2_PORT  4791u
#define RG_PKEY_DEFAULT 0xFFFFu
#define RG_ECN_NOT_ECT  0u
#define RG_ECN_ECT1     1u
#define RG_ECN_ECT0     2u
#define RG_ECN_CE       3u
#define RG_CM_QPN       1u
#define RG_CM_QKEY      0x80010000u
#define RG_MAD_LEN      256u
#define RG_PSN_MASK     0xFFFFFFu
#define RG_QPN_MASK     0xFFFFFFu

/* BTH opcodes used by rocegen (any 8-bit value may be put in rg_spec.opcode). */
enum rg_opcode {
    RG_OP_RC_SEND_FIRST = 0x00,
    RG_OP_RC_SEND_MIDDLE = 0x01,
    RG_OP_RC_SEND_LAST = 0x02,
    RG_OP_RC_SEND_LAST_IMM = 0x03,
    RG_OP_RC_SEND_ONLY = 0x04,
    RG_OP_RC_SEND_ONLY_IMM = 0x05,
    RG_OP_RC_WRITE_FIRST = 0x06,
    RG_OP_RC_WRITE_MIDDLE = 0x07,
    RG_OP_RC_WRITE_LAST = 0x08,
    RG_OP_RC_WRITE_LAST_IMM = 0x09,
    RG_OP_RC_WRITE_ONLY = 0x0A,
    RG_OP_RC_WRITE_ONLY_IMM = 0x0B,
    RG_OP_RC_READ_REQ = 0x0C,
    RG_OP_RC_READ_RESP_FIRST = 0x0D,
    RG_OP_RC_READ_RESP_MIDDLE = 0x0E,
    RG_OP_RC_READ_RESP_LAST = 0x0F,
    RG_OP_RC_READ_RESP_ONLY = 0x10,
    RG_OP_RC_ACK = 0x11,
    RG_OP_RC_ATOMIC_ACK = 0x12,
    RG_OP_RC_CMP_SWAP = 0x13,
    RG_OP_RC_FETCH_ADD = 0x14,
    RG_OP_RC_SEND_LAST_INV = 0x16,
    RG_OP_RC_SEND_ONLY_INV = 0x17,
    RG_OP_RC_FLUSH = 0x1C,
    RG_OP_RC_ATOMIC_WRITE = 0x1D,
    RG_OP_UC_SEND_FIRST = 0x20,
    RG_OP_UC_SEND_MIDDLE = 0x21,
    RG_OP_UC_SEND_LAST = 0x22,
    RG_OP_UC_SEND_ONLY = 0x24,
    RG_OP_UC_WRITE_FIRST = 0x26,
    RG_OP_UC_WRITE_MIDDLE = 0x27,
    RG_OP_UC_WRITE_LAST = 0x28,
    RG_OP_UC_WRITE_ONLY = 0x2A,
    RG_OP_RD_SEND_ONLY = 0x44,
    RG_OP_UD_SEND_ONLY = 0x64,
    RG_OP_UD_SEND_ONLY_IMM = 0x65,
    RG_OP_IB_CNP = 0x80,
    RG_OP_CNP = 0x81,
    RG_OP_XRC_SEND_ONLY = 0xA4,
    RG_OP_XRC_WRITE_ONLY = 0xAA,
    RG_OP_XRC_READ_REQ = 0xAC,
    RG_OP_XRC_READ_RESP_ONLY = 0xB0,
    RG_OP_XRC_ACK = 0xB1
};

/* AETH syndrome byte (IBTA Vol. 1 9.3.5): bits 6:5 type, bits 4:0 value. */
#define RG_AETH_TYPE_SHIFT      5
#define RG_AETH_VALUE_MASK      0x1Fu
#define RG_AETH_TYPE_ACK        0u
#define RG_AETH_TYPE_RNR        1u
#define RG_AETH_TYPE_RESERVED   2u
#define RG_AETH_TYPE_NAK        3u
#define RG_AETH_CREDITS_INVALID 0x1Fu /* ACK credit count "unlimited" */
#define RG_NAK_PSN_SEQ_ERR      0u
#define RG_NAK_INVALID_REQ      1u
#define RG_NAK_REMOTE_ACCESS    2u
#define RG_NAK_REMOTE_OP        3u
#define RG_NAK_INVALID_RD       4u

/* Syndrome of an ACK with a credit count (0..31). */
static inline uint8_t rg_aeth_ack(unsigned credits)
{
    return (uint8_t)(RG_AETH_TYPE_ACK << RG_AETH_TYPE_SHIFT | (credits & RG_AETH_VALUE_MASK));
}

/* Syndrome of a NAK with a code (RG_NAK_*). */
static inline uint8_t rg_aeth_nak(unsigned code)
{
    return (uint8_t)(RG_AETH_TYPE_NAK << RG_AETH_TYPE_SHIFT | (code & RG_AETH_VALUE_MASK));
}

/* Syndrome of an RNR NAK with a timer code (0..31). */
static inline uint8_t rg_aeth_rnr(unsigned timer)
{
    return (uint8_t)(RG_AETH_TYPE_RNR << RG_AETH_TYPE_SHIFT | (timer & RG_AETH_VALUE_MASK));
}

/* ---- the frame spec ---- */

/* What the frame carries above the link layer. */
enum rg_kind {
    RG_KIND_ROCEV2 = 0, /* IP (s.ip_version), UDP to s.udp_dport (default 4791), BTH ... ICRC */
    RG_KIND_ROCEV1 = 1, /* EtherType 0x8915, GRH (src/dst are GIDs), BTH ... ICRC */
    RG_KIND_UDP = 2,    /* IP, UDP s.udp_sport -> s.udp_dport, payload */
    RG_KIND_TCP = 3,    /* IP, TCP s.tcp_sport -> s.tcp_dport (flags s.tcp_flags), payload */
    RG_KIND_ARP = 4,    /* ARP request: who has dst (IPv4) tell src */
    RG_KIND_IP_RAW = 5, /* IP header with protocol s.ip_proto, then the payload bytes */
    /* native InfiniBand (link type 247, or ERF: rocegen_ib.c): LRH (s.slid -> s.dlid, VL
       s.ib_vl, SL s.ib_sl), a GRH when s.ib_grh (src/dst are GIDs, traffic class from dscp and
       ecn, flow_label, hop limit ttl), BTH ... ICRC, then the VCRC */
    RG_KIND_IB = 6,
    RG_KIND_IB_RAW = 7, /* InfiniBand raw packet: LRH, raw header (EtherType s.ib_ethertype),
                           the payload (padded to 4 bytes), VCRC */
    RG_KIND_IB_IPV6 = 8 /* InfiniBand IP non-IBA transport: LRH, IPv6 header (protocol
                           s.ip_proto), the payload (padded to 4 bytes), VCRC */
};

struct rg_vlan {
    uint16_t tpid; /* RG_TPID_8021Q or RG_TPID_8021AD */
    uint8_t pcp;   /* 0..7 */
    uint8_t dei;   /* 0..1 */
    uint16_t vid;  /* 0..4095 */
};

/* UDP checksum handling for RoCEv2 and UDP frames. */
enum rg_udp_csum {
    RG_UDP_CSUM_ZERO = 0,   /* 0, as RoCE NICs commonly send (also on IPv6) */
    RG_UDP_CSUM_COMPUTE = 1 /* the real checksum */
};

struct rg_spec {
    /* link layer */
    int linktype;                /* RG_LINKTYPE_*, default Ethernet */
    uint8_t eth_dst[RG_MAC_LEN]; /* Ethernet; SLL/SLL2 carry eth_src as the link address */
    uint8_t eth_src[RG_MAC_LEN];
    unsigned n_vlans; /* 0..RG_MAX_VLANS tags (Ethernet, SLL, SLL2), outermost first */
    struct rg_vlan vlan[RG_MAX_VLANS];
    uint16_t sll_pkttype;  /* SLL/SLL2 packet type: 0 to us, 4 outgoing (default 0) */
    uint32_t sll2_ifindex; /* SLL2 interface index (default 1) */
    uint8_t eth_pad_min;   /* nonzero: pad Ethernet frames to 60 bytes like a real NIC */

    /* network layer */
    enum rg_kind kind;
    uint8_t ip_version;       /* 4 or 6 (RoCEv2, UDP, TCP, IP_RAW) */
    uint8_t src[RG_ADDR_LEN]; /* IP source (IPv4-mapped for IPv4) or RoCEv1 source GID */
    uint8_t dst[RG_ADDR_LEN];
    uint8_t dscp;         /* 0..63 (IPv4 TOS / IPv6 / GRH traffic class bits 7:2) */
    uint8_t ecn;          /* 0..3, RG_ECN_* */
    uint8_t ttl;          /* IPv4 TTL / IPv6 and GRH hop limit (default 64) */
    uint16_t ip_id;       /* IPv4 identification (default 0) */
    uint8_t ip_df;        /* IPv4 don't-fragment flag (default 1) */
    uint8_t ip_mf;        /* IPv4 more-fragments flag (default 0) */
    uint16_t ip_frag_off; /* IPv4 fragment offset in 8-byte units (default 0) */
    uint8_t ip_proto;     /* protocol of RG_KIND_IP_RAW (default 17) */
    uint8_t ip_opts_len;  /* IPv4 options length, a multiple of 4, <= 40 */
    uint8_t ip_opts[RG_IPV4_OPT_MAX];
    uint32_t flow_label; /* IPv6 / GRH flow label (20 bits) */
    int32_t ip_len;      /* RG_AUTO, or the IPv4 total length / IPv6 payload length / GRH
                            payload length to declare (the bytes are written as built) */

    /* UDP / TCP */
    uint16_t udp_sport; /* default 0xC000 */
    uint16_t udp_dport; /* default 4791 */
    int32_t udp_len;    /* RG_AUTO, or the UDP length to declare */
    enum rg_udp_csum udp_csum;
    uint16_t tcp_sport, tcp_dport; /* default 40000 -> 443 */
    uint32_t tcp_seq, tcp_ack;
    uint8_t tcp_flags; /* default 0x18 (PSH, ACK) */

    /* BTH (IBTA Vol. 1 9.2) */
    uint8_t opcode;  /* default RC SEND Only */
    uint8_t se, mig; /* solicited event, migration state (0/1) */
    int32_t padcnt;  /* RG_AUTO: (4 - payload_len % 4) % 4; else 0..3 written as the field */
    int32_t pad_len; /* RG_AUTO: as many pad bytes as the pad count; else this many (0..3) */
    uint8_t tver;    /* 0..15 (default 0) */
    uint16_t pkey;   /* default 0xFFFF */
    uint8_t fecn, becn;
    uint32_t dqpn; /* 24 bits */
    uint8_t ackreq;
    uint32_t psn; /* 24 bits */

    /* extension headers; which ones are written follows the opcode */
    int32_t hdrs; /* RG_AUTO: roce_opcode_lookup(opcode)->hdrs; else a roce_hdr mask */
    uint32_t rdeth_eecnxt;
    uint32_t deth_qkey, deth_srcqp;
    uint32_t xrceth_srqn;
    uint32_t feth;
    uint64_t reth_va;
    uint32_t reth_rkey, reth_dma_len;
    uint64_t atomic_va;
    uint32_t atomic_rkey;
    uint64_t atomic_swap_add, atomic_cmp;
    uint8_t aeth_syndrome; /* rg_aeth_ack() / rg_aeth_nak() / rg_aeth_rnr() */
    uint32_t aeth_msn;
    uint64_t atomicack_orig;
    uint32_t immdt;
    uint32_t ieth_rkey;

    /* payload (RoCE: after the extension headers; UDP/TCP/IP_RAW: after the L4 header) */
    uint32_t payload_len;
    uint8_t payload_fill;   /* byte value when payload is NULL (default 0) */
    const uint8_t *payload; /* payload_len bytes, or NULL to use payload_fill */

    /* ICRC */
    uint32_t icrc_xor; /* XORed into the correct ICRC: 0 = correct, anything else corrupts it */
    uint8_t
        icrc_skip; /* nonzero: do not compute, write zeros (fast; for frames the snaplen cuts) */

    /* RoCE length cut: RG_AUTO, or keep only this many bytes from the BTH on (the frame and
       the declared IP/UDP/GRH lengths end there). Builds malformed frames, e.g. an opcode
       whose extension headers do not fit. The ICRC (of the uncut packet) is lost with the cut. */
    int32_t roce_cut;

    /* RoCEv1 GRH next header: RG_AUTO (0x1B, IBA transport), or another value (malformed) */
    int32_t grh_next_hdr;

    /* InfiniBand (RG_KIND_IB*, IBA Vol. 1 7.7) */
    uint16_t slid, dlid;   /* LRH source and destination LIDs */
    uint8_t ib_vl, ib_sl;  /* virtual lane, service level (0..15) */
    uint8_t ib_lver;       /* LRH link version (default 0; others are malformed) */
    uint8_t ib_grh;        /* nonzero: a GRH follows the LRH (LNH IBA global) */
    uint16_t ib_ethertype; /* RG_KIND_IB_RAW: the raw header's EtherType */
    int32_t ib_pktlen;     /* RG_AUTO, or the LRH packet length (words) to declare */
    uint16_t vcrc_xor;     /* XORed into the correct VCRC: 0 = correct */
};

/* Where the parts of a built frame are (byte offsets in the frame). */
struct rg_layout {
    uint32_t len;     /* frame length */
    uint32_t l3_off;  /* IP header or GRH (0 for ARP) */
    uint32_t l4_off;  /* UDP/TCP header (RoCEv1: = bth_off) */
    uint32_t bth_off; /* 0 when not RoCE */
    uint32_t payload_off;
    uint32_t icrc_off; /* 0 when not RoCE or cut */
    uint32_t icrc;     /* the ICRC value written (as read little-endian) */
};

/* Errors returned (negative) by rg_build(). */
enum rg_error {
    RG_ERR_SPACE = -1,   /* the frame does not fit in cap bytes */
    RG_ERR_INVALID = -2, /* the spec is inconsistent (e.g. RoCEv1 on a raw-IP link type,
                            IPv6 on LINKTYPE_IPV4, more than 2 VLAN tags, bad option length) */
    RG_ERR_IO = -3,      /* writer: a write failed */
    RG_ERR_AS_IB = -4    /* --as-ib: the scenario cannot be written as native InfiniBand */
};

#endif
