/*
 * rocegen_build.h - build RoCE (and some non-RoCE) frames from a spec, and
 * write them to pcap / pcapng files. Test and benchmark support for
 * rocescope; not part of the analysis engine.
 *
 * Typical use:
 *
 *   struct rg_spec s;
 *   uint8_t frame[RG_MAX_FRAME];
 *   rg_spec_init(&s);                       (Ethernet, IPv4 10.0.0.1 -> 10.0.0.2,
 *                                            RoCEv2, RC SEND Only, empty payload)
 *   s.opcode = 0x06; s.dqpn = 0x12; s.psn = 100; s.payload_len = 4096;
 *   s.reth_dma_len = 8192;
 *   int n = rg_build(&s, frame, sizeof frame, NULL);   (n < 0: rg_strerror(n))
 *
 *   struct rg_writer *w = rg_writer_open("x.pcap", RG_FMT_PCAP, s.linktype, 0);
 *   rg_writer_write(w, 1700000000000000000LL, frame, (uint32_t)n);
 *   rg_writer_close(w);
 *
 * Conventions:
 * - rg_spec_init() gives sane defaults; after it every field is taken
 *   literally (a TTL of 0 is written as 0). Fields that are normally derived
 *   have an explicit override that defaults to RG_AUTO.
 * - Addresses are 16 bytes everywhere, as in the engine: an IPv4 address is
 *   stored IPv4-mapped (::ffff:a.b.c.d, the address in bytes 12..15), an
 *   IPv6 address or a RoCEv1 GID as is. Use rg_addr_v4() / rg_addr_v6().
 * - The extension headers written after the BTH are those the engine's
 *   opcode table (roce_opcode_lookup(opcode)->hdrs) lists, in wire order
 *   RDETH, DETH, XRCETH, FETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt,
 *   IETH, CNP reserved bytes; an unknown opcode gets none (or set s.hdrs).
 *   Field names follow struct roce_pkt.
 * - Multi-byte fields are written big-endian; the ICRC little-endian, as on
 *   the wire.
 *
 * The API is stable: fields and functions may be added, not changed.
 */
#ifndef ROCEGEN_BUILD_H
#define ROCEGEN_BUILD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* Fill s with defaults: Ethernet 02:00:00:00:00:01 -> 02:00:00:00:00:02, no
 * VLAN, RoCEv2 over IPv4 10.0.0.1 -> 10.0.0.2, DSCP 0, ECN ECT(0), TTL 64, DF,
 * UDP 0xC000 -> 4791 with a zero checksum, RC SEND Only, P_Key 0xFFFF,
 * dest QP 0x000011, PSN 0, no payload, correct ICRC, nothing overridden;
 * for the InfiniBand kinds LID 1 -> 2, VL 0, SL 0, no GRH, correct VCRC. */
void rg_spec_init(struct rg_spec *s);

/* Store IPv4 address a.b.c.d (host-order value 0xAABBCCDD) IPv4-mapped in out. */
void rg_addr_v4(uint8_t out[RG_ADDR_LEN], uint32_t addr);

/* Store an IPv6 address / GID given as 16 bytes in out (a plain copy). */
void rg_addr_v6(uint8_t out[RG_ADDR_LEN], const uint8_t addr[RG_ADDR_LEN]);

/* Swap source and destination: addresses, MACs, UDP/TCP ports (for replies). */
void rg_spec_reverse(struct rg_spec *s);

/*
 * The same traffic over native InfiniBand (rocescope's tests compare the
 * two): ib = s as a packet of kind RG_KIND_IB on link type 247 with the
 * same transport (BTH onwards, payload, time and ICRC corruption alike):
 * RoCEv2's IP addresses become LIDs (their last two bytes), RoCEv1's GIDs
 * stay GIDs in a GRH, ECN CE becomes FECN, the RoCEv2 CNP (0x81, 16
 * reserved bytes) the InfiniBand CNP (0x80), the first VLAN tag's PCP the
 * SL. Any other spec becomes a raw packet (RG_KIND_IB_RAW) of the same
 * payload length carrying its network layer's EtherType.
 */
void rg_spec_to_ib(const struct rg_spec *s, struct rg_spec *ib);

/* Errors returned (negative) by rg_build(). */
enum rg_error {
    RG_ERR_SPACE = -1,   /* the frame does not fit in cap bytes */
    RG_ERR_INVALID = -2, /* the spec is inconsistent (e.g. RoCEv1 on a raw-IP link type,
                            IPv6 on LINKTYPE_IPV4, more than 2 VLAN tags, bad option length) */
    RG_ERR_IO = -3,      /* writer: a write failed */
    RG_ERR_AS_IB = -4    /* --as-ib: the scenario cannot be written as native InfiniBand */
};

/* Text for an rg_error value. */
const char *rg_strerror(int err);

/*
 * Build the frame described by s into buf (cap bytes). Returns the frame
 * length, or a negative enum rg_error. When lay is not NULL it receives the
 * offsets of the frame's parts. Pure function of s: identical specs give
 * identical bytes. Does not allocate.
 */
int rg_build(const struct rg_spec *s, uint8_t *buf, size_t cap, struct rg_layout *lay);

/* ---- Communication Manager MADs (IBTA Vol. 1 13.4, 12.6) ---- */

/* CM attribute IDs (MAD header attribute ID). */
#define RG_CM_REQ  0x0010u
#define RG_CM_REP  0x0013u
#define RG_CM_RTU  0x0014u
#define RG_CM_DREQ 0x0015u
#define RG_CM_DREP 0x0016u

/* Transport service types of a REQ (byte 43 bits 2:1). */
#define RG_CM_TS_RC 0u
#define RG_CM_TS_UC 1u

/* Path MTU codes of a REQ (byte 50 bits 7:4). */
#define RG_MTU_256  1u
#define RG_MTU_512  2u
#define RG_MTU_1024 3u
#define RG_MTU_2048 4u
#define RG_MTU_4096 5u

/*
 * One CM message. Semantics, as on real Linux captures: the REQ's start_psn
 * is the PSN the *passive* side (the REP sender) will use for its requests;
 * the REP's start_psn is the PSN the *active* side (the REQ sender) uses for
 * its requests. local_qpn is the sender's own QP.
 */
struct rg_cm {
    uint16_t attr;                   /* RG_CM_REQ ... RG_CM_DREP */
    uint64_t tid;                    /* MAD transaction ID */
    uint32_t local_comm_id;          /* all messages */
    uint32_t remote_comm_id;         /* REP, RTU, DREQ, DREP */
    uint32_t local_qpn;              /* REQ, REP (24 bits); DREQ: the remote QPN field */
    uint32_t start_psn;              /* REQ, REP (24 bits) */
    uint8_t pmtu_code;               /* REQ: RG_MTU_* */
    uint8_t transport;               /* REQ: RG_CM_TS_* */
    uint32_t qkey;                   /* REQ/REP local Q_Key */
    uint64_t service_id;             /* REQ */
    uint8_t local_gid[RG_ADDR_LEN];  /* REQ primary path: the sender's GID (RoCE: its IP, */
    uint8_t remote_gid[RG_ADDR_LEN]; /* IPv4-mapped); all zero is allowed */
};

/* Write the 256-byte MAD of m into mad (base version 1, class 0x07, class
 * version 2, method 0x03 Send, the attribute, the message fields at their
 * offsets within the 232 bytes after the 24-byte MAD header). */
void rg_cm_mad(const struct rg_cm *m, uint8_t mad[RG_MAD_LEN]);

/* Turn s into a CM MAD carrier: UD SEND Only to QP1, DETH Q_Key 0x80010000,
 * source QP 1, payload = mad (RG_MAD_LEN bytes, must outlive the rg_build()
 * call). Addresses, link layer and PSN are left as they are. */
void rg_spec_cm(struct rg_spec *s, const uint8_t mad[RG_MAD_LEN]);

/* ---- pcap / pcapng writer ---- */

enum rg_format {
    RG_FMT_PCAP = 0,  /* classic pcap, nanosecond magic 0xa1b23c4d, little-endian */
    RG_FMT_PCAPNG = 1, /* pcapng: SHB, one IDB (if_tsresol 9), EPBs */
    RG_FMT_ERF = 2     /* raw ERF file: records back to back (link type RG_LINKTYPE_ERF) */
};

struct rg_writer;

/*
 * Open path for writing (truncates) and write the file header. snaplen 0
 * means unlimited (262144 is declared); otherwise frames are cut to snaplen
 * captured bytes while their original length is kept. Returns NULL on error
 * (errno set). The writer owns the FILE and buffers writes.
 * With linktype RG_LINKTYPE_ERF (pcap, pcapng) or the format RG_FMT_ERF,
 * every frame is written as an ERF record of type InfiniBand (the frames
 * are InfiniBand packets, LRH first), as ibdump writes them: header with
 * the time stamp, flags 0x04 (varying length), rlen (header and captured
 * bytes; padded to 8 bytes in ERF files), loss counter 0, wlen.
 */
struct rg_writer *rg_writer_open(const char *path, enum rg_format fmt, int linktype,
                                 uint32_t snaplen);

/* As rg_writer_open() on an already open stream; the writer does not close it. */
struct rg_writer *rg_writer_fopen(FILE *f, enum rg_format fmt, int linktype, uint32_t snaplen);

/* Append one frame of len bytes captured at ts_ns (ns since the epoch).
 * Returns 0 or RG_ERR_IO. */
int rg_writer_write(struct rg_writer *w, int64_t ts_ns, const uint8_t *frame, uint32_t len);

/* Append the first caplen bytes of a frame whose original length is len
 * (caplen <= len; the writer's snaplen still applies). Returns 0 or RG_ERR_IO. */
int rg_writer_write_cut(struct rg_writer *w, int64_t ts_ns, const uint8_t *frame, uint32_t caplen,
                        uint32_t len);

/* Frames written so far. */
uint64_t rg_writer_count(const struct rg_writer *w);

/* Flush, close (when opened by path) and free. Returns 0 or RG_ERR_IO
 * (some data may not have been written). NULL is accepted. */
int rg_writer_close(struct rg_writer *w);

#endif
