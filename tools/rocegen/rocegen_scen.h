/*
 * rocegen_scen.h - scenario support for rocegen: a frame sink with a clock,
 * two-sided RoCE connections, and the table of scenarios.
 *
 * A scenario writes a few to a few dozen frames through rg_sc_emit(); every
 * frame is stamped with the sink's clock, which then advances by
 * RG_SC_STEP_NS (rg_sc_wait() adds more). Everything is deterministic: the
 * clock starts at RG_SC_BASE_NS and no randomness is used.
 *
 * A connection (struct rg_conn) has side A (index RG_A, usually the active /
 * requesting side) and side B (RG_B). rg_conn_spec(k, RG_A, &s) fills a spec
 * for a packet A -> B: A's addresses as source, B's QP as BTH dest QP.
 */
#ifndef ROCEGEN_SCEN_H
#define ROCEGEN_SCEN_H

#include <stdint.h>

#include "rocegen_build.h"
#include "rocegen_encap.h"
#include "roce_time.h"

#define RG_SC_BASE_NS  1700000000000000000LL /* 2023-11-14 22:13:20 UTC */
#define RG_SC_STEP_NS  1000                  /* 1 us between frames by default */
#define RG_SC_MAX_LIDS 64                    /* addresses a scenario may use with --as-ib */

/* The frame sink of a scenario. */
struct rg_sc {
    struct rg_writer *w;
    int64_t ts;           /* time stamp of the next frame */
    uint64_t frames;      /* frames written; the last frame's number */
    int err;              /* first error (enum rg_error), 0 when none */
    int linktype;         /* link type of the file (the scenario's) */
    struct rg_wrap *wrap; /* when set, every frame is wrapped in this mirror encapsulation */
    uint8_t as_ib;        /* every frame as native InfiniBand (rg_spec_to_ib; --as-ib) */
    uint32_t understate;  /* when set, frames are cut to this many bytes and their original
                             length written as the captured one (a sniffer that does so) */
    unsigned n_lids;      /* the addresses --as-ib gave LIDs, to refuse two on one LID */
    uint8_t lid_addr[RG_SC_MAX_LIDS][RG_ADDR_LEN];
    uint8_t buf[RG_MAX_FRAME];
    uint8_t inner[RG_MAX_FRAME];
};

enum rg_side { RG_A = 0, RG_B = 1 };

struct rg_conn {
    struct rg_spec base;          /* link layer, kind, IP version, VLANs */
    uint8_t addr[2][RG_ADDR_LEN]; /* IP addresses or GIDs of A and B */
    uint8_t mac[2][RG_MAC_LEN];
    uint32_t qpn[2];        /* the QP of each side */
    uint16_t sport[2];      /* UDP source port each side uses */
    uint8_t sll_pkttype[2]; /* Linux cooked captures: packet type per side */
    uint16_t lid[2];        /* InfiniBand: the LID of each side */
};

/* Start a sink on writer w (not owned) for a file of the given link type. */
void rg_sc_init(struct rg_sc *c, struct rg_writer *w, int linktype);

/* Build s and write it at the sink's time; advance the clock by one step.
 * Returns the frame number (from 1), or 0 after an error (kept in c->err). */
uint64_t rg_sc_emit(struct rg_sc *c, const struct rg_spec *s);

/* Write len raw bytes as the next frame (wrapped when c->wrap is set);
 * returns the frame number, or 0 after an error. */
uint64_t rg_sc_raw(struct rg_sc *c, const uint8_t *frame, size_t len);

/* A PFC frame from src pausing (quanta > 0) or resuming (0) priority prio,
 * written as the next frame; an error is kept in c->err. */
void rg_sc_pfc(struct rg_sc *c, const uint8_t src[RG_MAC_LEN], unsigned prio, uint16_t quanta);

/* The exchange of the linktype_* captures between k's sides: SEND, SEND,
 * a SEND after a lost PSN (gap), NAK, resend of two, ACK (7 frames). */
void rg_sc_gap_exchange(struct rg_sc *c, const struct rg_conn *k);

/* Advance the clock by ns (in addition to the per-frame step). */
void rg_sc_wait(struct rg_sc *c, int64_t ns);

/* The next frame gets the time of the previous one (two frames at the same
 * moment, as a capture of two ports may show them in either order). */
void rg_sc_again(struct rg_sc *c);

/* Set the clock to RG_SC_BASE_NS + ns (only forward; earlier values are ignored). */
void rg_sc_at(struct rg_sc *c, int64_t ns);

/* rg_spec_init() defaults with the sink's link type. */
void rg_sc_base(const struct rg_sc *c, struct rg_spec *s);

/* Connection between IPv4 hosts a and b (host-order values) with QPs qa, qb,
 * on top of base (NULL: rg_spec_init() defaults). MACs and UDP source ports
 * are derived from the addresses and QPs. */
void rg_conn_init4(struct rg_conn *k, const struct rg_spec *base, uint32_t a, uint32_t b,
                   uint32_t qa, uint32_t qb);

/* The same with 16-byte addresses (IPv6 or RoCEv1 GIDs). */
void rg_conn_init6(struct rg_conn *k, const struct rg_spec *base, const uint8_t a[RG_ADDR_LEN],
                   const uint8_t b[RG_ADDR_LEN], uint32_t qa, uint32_t qb);

/* Connection between InfiniBand ports with LIDs la and lb and QPs qa, qb on
 * top of base (its kind RG_KIND_IB); when ga and gb are not NULL the
 * packets carry a GRH with those GIDs. */
void rg_conn_init_ib(struct rg_conn *k, const struct rg_spec *base, uint16_t la, uint16_t lb,
                     const uint8_t *ga, const uint8_t *gb, uint32_t qa, uint32_t qb);

/* A spec for a packet from side `from` to the other side, dest QP = the
 * other side's QP. */
void rg_conn_spec(const struct rg_conn *k, enum rg_side from, struct rg_spec *s);

/* A request without RETH fields: SEND / WRITE Middle/Last / UC / XRC ...,
 * payload of len bytes; AckReq set on LAST and ONLY opcodes. */
uint64_t rg_sc_req(struct rg_sc *c, const struct rg_conn *k, enum rg_side from, uint8_t opcode,
                   uint32_t psn, uint32_t len);

/* Fill s for an RC SEND Only with AckReq from side `from`, PSN psn, len bytes
 * of payload (fill 0), to be changed further and written with rg_sc_emit(). */
void rg_sc_send_spec(const struct rg_conn *k, enum rg_side from, uint32_t psn, uint32_t len,
                     struct rg_spec *s);

/* An RDMA WRITE First/Only (RETH with dma_len) carrying len bytes. */
uint64_t rg_sc_write(struct rg_sc *c, const struct rg_conn *k, enum rg_side from, uint8_t opcode,
                     uint32_t psn, uint32_t len, uint32_t dma_len);

/* An RDMA READ Request for dma_len bytes. */
uint64_t rg_sc_read(struct rg_sc *c, const struct rg_conn *k, enum rg_side from, uint32_t psn,
                    uint32_t dma_len);

/* A response (ACK, READ response, ...) with an AETH when the opcode has one. */
uint64_t rg_sc_resp(struct rg_sc *c, const struct rg_conn *k, enum rg_side from, uint8_t opcode,
                    uint32_t psn, uint32_t len, uint8_t syndrome, uint32_t msn);

/* An ACKNOWLEDGE with credit count "invalid" (0x1F). */
uint64_t rg_sc_ack(struct rg_sc *c, const struct rg_conn *k, enum rg_side from, uint32_t psn,
                   uint32_t msn);

/* A PSN sequence error NAK carrying the expected PSN. */
uint64_t rg_sc_nak(struct rg_sc *c, const struct rg_conn *k, enum rg_side from, uint32_t psn,
                   uint32_t msn);

/* A RoCEv2 CNP from side `from` to the other side's QP (BECN, P_Key 0xFFFF,
 * PSN 0, DSCP 48, ECT(0), UDP source port 0, as a ConnectX-4 Lx sends it);
 * on an InfiniBand connection the InfiniBand CNP (opcode 0x80, BECN, PSN 0,
 * no payload, as Linux hfi1's return_cnp() builds it). */
uint64_t rg_sc_cnp(struct rg_sc *c, const struct rg_conn *k, enum rg_side from);
/* The same with another IP ECN field (RG_ECN_CE: a CNP that met congestion). */
uint64_t rg_sc_cnp_ecn(struct rg_sc *c, const struct rg_conn *k, enum rg_side from, uint8_t ecn);

/* CM REQ (A->B), REP (B->A), RTU (A->B): A's first request PSN is psn_a
 * (carried in the REP), B's is psn_b (carried in the REQ). comm is A's
 * communication ID (B uses comm + 1). pmtu_code: RG_MTU_*. */
void rg_sc_cm_connect(struct rg_sc *c, const struct rg_conn *k, uint32_t comm, uint32_t psn_a,
                      uint32_t psn_b, uint8_t pmtu_code);

/* CM DREQ (A->B) and DREP (B->A) for the connection set up with comm. */
void rg_sc_cm_disconnect(struct rg_sc *c, const struct rg_conn *k, uint32_t comm);

/* ---- the scenario table ---- */

typedef void (*rg_scenario_fn)(struct rg_sc *c);

struct rg_scenario {
    const char *name;
    const char *summary;
    int linktype;     /* RG_LINKTYPE_* of the file */
    uint32_t snaplen; /* default snaplen, 0 = whole frames */
    rg_scenario_fn run;
};

/* The scenarios, terminated by an entry with name NULL. */
extern const struct rg_scenario rg_scenarios[];

/* The scenario called name, or NULL. */
const struct rg_scenario *rg_scenario_find(const char *name);

/* Scenario functions (rocegen_scen_*.c). */
void rg_scen_clean_rc(struct rg_sc *c);
void rg_scen_loss_sender(struct rg_sc *c);
void rg_scen_loss_receiver(struct rg_sc *c);
void rg_scen_timeout(struct rg_sc *c);
void rg_scen_rnr(struct rg_sc *c);
void rg_scen_nak_codes(struct rg_sc *c);
void rg_scen_read_loss(struct rg_sc *c);
void rg_scen_read_span(struct rg_sc *c);
void rg_scen_psn_reuse(struct rg_sc *c);
void rg_scen_psn_wrap(struct rg_sc *c);
void rg_scen_nak_unpaired(struct rg_sc *c);
void rg_scen_cm_reuse(struct rg_sc *c);
void rg_scen_ecn_cnp(struct rg_sc *c);
void rg_scen_cnp_before_pairing(struct rg_sc *c);
void rg_scen_cnp_after_pairing(struct rg_sc *c);
void rg_scen_uc(struct rg_sc *c);
void rg_scen_xrc(struct rg_sc *c);
void rg_scen_ud_atomic(struct rg_sc *c);
void rg_scen_ipv6_vlan(struct rg_sc *c);
void rg_scen_rocev1(struct rg_sc *c);
void rg_scen_truncated(struct rg_sc *c);
void rg_scen_noise(struct rg_sc *c);
void rg_scen_malformed(struct rg_sc *c);
void rg_scen_bad_icrc(struct rg_sc *c);
void rg_scen_linktype(struct rg_sc *c); /* shared by the linktype_* scenarios */
void rg_scen_linktype_v6(struct rg_sc *c);
void rg_scen_erspan2(struct rg_sc *c);
void rg_scen_erspan3(struct rg_sc *c);
void rg_scen_vxlan(struct rg_sc *c);
void rg_scen_gre(struct rg_sc *c);
void rg_scen_pfc(struct rg_sc *c);
void rg_scen_loss_nocm(struct rg_sc *c); /* rocegen_scen_nocm.c */
void rg_scen_read_nocm(struct rg_sc *c);
void rg_scen_ecn_nocm(struct rg_sc *c);
void rg_scen_capture_loss(struct rg_sc *c);
void rg_scen_nak_generation(struct rg_sc *c);
void rg_scen_dcqcn(struct rg_sc *c);
void rg_scen_clean_fabric(struct rg_sc *c);
void rg_scen_ce_unanswered(struct rg_sc *c);
void rg_scen_pfc_hosts(struct rg_sc *c);
void rg_scen_ecmp(struct rg_sc *c);
void rg_scen_lossy_priority(struct rg_sc *c);
void rg_scen_cnp_priority(struct rg_sc *c);
void rg_scen_pause_victims(struct rg_sc *c);
void rg_scen_incast(struct rg_sc *c);
void rg_scen_cnp_pacing(struct rg_sc *c);
void rg_scen_icrc_rewritten(struct rg_sc *c);
void rg_scen_capture_drops(struct rg_sc *c); /* rocegen_scen_trust.c */
void rg_scen_gap_at_end(struct rg_sc *c);
void rg_scen_rocev1_rocev2(struct rg_sc *c);
void rg_scen_sport_rewritten(struct rg_sc *c);
void rg_scen_length_understated(struct rg_sc *c);
void rg_scen_us_timestamps(struct rg_sc *c);
void rg_scen_reorder_resend(struct rg_sc *c);
void rg_scen_responses_early(struct rg_sc *c);
void rg_scen_ib_rc(struct rg_sc *c); /* rocegen_scen_ib.c */
void rg_scen_ib_congestion(struct rg_sc *c);
void rg_scen_ib_global(struct rg_sc *c);
void rg_scen_ib_mirror(struct rg_sc *c);

#endif
