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

#include "rocegen_ib.h"
#include "rocegen_spec.h"

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
    RG_FMT_PCAP = 0,   /* classic pcap, nanosecond magic 0xa1b23c4d, little-endian */
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
