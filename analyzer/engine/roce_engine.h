/*
 * roce_engine.h - the rocescope analysis engine: the one public interface
 * that the CLI, the live monitor and the Wireshark plugin are built on.
 *
 * Feed frames in capture order with roce_engine_frame(); each call decodes
 * the frame, updates the per-flow state machines (PSN gaps, retransmissions,
 * go-back-N episodes, NAKs, READ spans, ACK latency, ECN CE / CNP matching)
 * and returns the frame's decode and verdict as known at that moment.
 * Some verdicts are only settled later (a CE mark waits for its CNP during
 * the CNP window; a NAK learns in which frame the resend began): every frame
 * that carries a verdict is delivered once more, settled, through the
 * on_verdict callback, in frame order. roce_engine_finish() settles all that
 * is still open at the end of the capture.
 *
 * Definitions: ../shared/docs/ANALYSIS-DEFINITIONS.md, and README "Analysis".
 * The engine is C11 + libc only, allocates per flow (never per packet), and
 * never aborts on packet content. Memory is bounded by max_flows.
 */
#ifndef ROCE_ENGINE_H
#define ROCE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "roce_decode.h"
#include "roce_lat.h"
#include "roce_opcode.h"
#include "roce_time.h"

struct roce_engine;

/* Go-back-N episode triggers (ANALYSIS-DEFINITIONS, "Go-back-N episode"). */
enum roce_trigger {
    ROCE_TRIGGER_NAK = 0,
    ROCE_TRIGGER_RNR = 1,
    ROCE_TRIGGER_IMPLIED = 2,
    ROCE_TRIGGER_TIMEOUT = 3,
    ROCE_TRIGGER_COUNT = 4
};
/* "nak", "rnr", "implied", "timeout". */
const char *roce_trigger_name(unsigned t);

/* How the two flows of a connection were paired. */
enum roce_paired_by {
    ROCE_PAIRED_NONE = 0,
    ROCE_PAIRED_CM = 1,
    ROCE_PAIRED_PSN = 2,
    ROCE_PAIRED_CNP = 3
};
/* "none", "cm", "psn", "cnp". */
const char *roce_paired_by_name(unsigned p);

/* Per-frame verdict bits. */
enum roce_verdict_flag {
    ROCE_V_GAP = 1u << 0,            /* request PSN after expected: missing_psns lost */
    ROCE_V_RETRANSMISSION = 1u << 1, /* request PSN not after the highest used */
    ROCE_V_EPISODE_START = 1u << 2,  /* first packet of a go-back-N episode */
    ROCE_V_NAK = 1u << 3,            /* AETH NAK (nak_code) */
    ROCE_V_RNR = 1u << 4,            /* AETH RNR NAK (rnr_timer) */
    ROCE_V_CE = 1u << 5,             /* CE-marked request */
    ROCE_V_CE_ANSWERED = 1u << 6,    /* CE mark with a CNP (cnp_frame) */
    ROCE_V_CE_UNANSWERED = 1u << 7,  /* CE mark with no CNP within the window */
    ROCE_V_CNP = 1u << 8,            /* congestion notification packet */
    ROCE_V_CNP_MATCHED = 1u << 9,    /* CNP matched to a CE mark (cnp_for_frame) */
    ROCE_V_CNP_UNEXPLAINED = 1u << 10, /* CNP with no CE mark to match */
    ROCE_V_BAD_ICRC = 1u << 11,      /* ICRC does not match */
    ROCE_V_PSN_REUSE = 1u << 12,     /* request PSN inside an earlier READ's span (reuse_frame) */
    ROCE_V_RESP_GAP = 1u << 13,      /* READ response PSN after the expected one */
    ROCE_V_MALFORMED = 1u << 14,     /* RoCE by port/EtherType, but malformed */
    ROCE_V_NAK_RESENT = 1u << 15,    /* NAK/RNR NAK followed by a resend (retransmitted_in) */
    ROCE_V_DUP_RESPONSE = 1u << 16   /* READ response PSN before the expected one */
};
#define ROCE_V_COUNT 17
/* Identifier of one verdict bit (index 0..ROCE_V_COUNT-1): "gap", ... */
const char *roce_verdict_name(unsigned bit_index);

/* The address triple that names a flow: one direction of a queue pair. */
struct roce_flow_key {
    uint8_t src[ROCE_ADDR_LEN]; /* IPv4 as IPv4-mapped IPv6 */
    uint8_t dst[ROCE_ADDR_LEN];
    uint32_t dqpn;
    uint8_t version; /* 1 (GIDs) or 2 (IP) */
    uint8_t is_v6;   /* 0: IPv4 (the last 4 bytes of src/dst) */
    uint8_t pad_[2];
};

/* The analysis of one frame. Frame numbers are the caller's (Wireshark
 * numbering: every frame of the capture from 1); 0 means "none". */
struct roce_verdict {
    uint64_t frame;
    int64_t ts_ns;
    uint64_t flow_id;         /* the flow's id (struct roce_flow_report), when has_flow */
    struct roce_flow_key key; /* valid when has_flow */
    uint8_t has_flow;
    uint8_t transport; /* enum roce_transport of the flow */
    uint8_t opcode;
    uint8_t paired_by; /* enum roce_paired_by of the flow */
    uint32_t peer_dqpn; /* dest QP of the paired flow (this flow's source QP), when paired */
    uint32_t psn;
    uint32_t flags; /* enum roce_verdict_flag */

    uint8_t expected_valid; /* expected_psn is meaningful (sequence-checked request) */
    uint8_t trigger;        /* enum roce_trigger, on EPISODE_START */
    uint8_t nak_code;       /* on NAK: enum roce_nak_code (or a reserved code) */
    uint8_t rnr_timer;      /* on RNR: the 5-bit timer code */
    uint32_t expected_psn;
    uint32_t missing_psns; /* on GAP and RESP_GAP */
    uint64_t episode_frame; /* on RETRANSMISSION: the first frame of its episode */
    uint64_t nak_frame;     /* on EPISODE_START with trigger nak/rnr */
    int64_t nak_to_resend_ns;
    uint64_t retransmitted_in; /* on NAK_RESENT: the frame where the resend began */
    uint64_t cnp_frame;        /* on CE_ANSWERED */
    uint64_t cnp_for_frame;    /* on CNP_MATCHED: the CE-marked frame */
    int64_t cnp_latency_ns;    /* on CNP_MATCHED */
    uint64_t reuse_frame;      /* on PSN_REUSE: the READ request whose span is reused */
    uint32_t icrc_calc;        /* on BAD_ICRC */
    uint32_t icrc_wire;
};

/* What roce_engine_frame() returns for every frame. */
struct roce_frame_out {
    struct roce_pkt pkt;
    struct roce_verdict v; /* as known now; frames with flags are settled later */
};

/* Callback for settled verdicts (frames with flags != 0), in frame order.
 * The record is only valid during the call. */
typedef void (*roce_verdict_fn)(const struct roce_verdict *v, void *ctx);

struct roce_config {
    uint16_t udp_port;       /* RoCEv2 UDP destination port, default 4791 */
    uint16_t vxlan_port;     /* VXLAN UDP port unwrapped, default 4789 (0: none) */
    uint8_t check_icrc;      /* default 1 */
    int64_t cnp_window_ns;   /* CE/CNP window, default 100 us */
    uint32_t pmtu;           /* PMTU to assume until learned (0: unknown), default 0 */
    uint32_t max_flows;      /* tracked flows; least recently active evicted, default 65536 */
    uint32_t max_episodes;   /* episodes kept for the report (all are counted), default 65536 */
    uint32_t max_open_verdicts; /* verdicts waiting to settle, default 65536 */
    int64_t nak_horizon_ns;  /* a NAK triggers an episode at most this late, default 1 s */
    uint32_t link_speed_mbps; /* for PFC/PAUSE quanta, default 100000 (100G) */
    int64_t pfc_window_ns;   /* PFC storm window, default 1 s */
    uint32_t pfc_storm_pct;  /* paused share of a window that makes a storm, default 50 */
    roce_verdict_fn on_verdict;
    void *ctx;
};

/* Fill cfg with the defaults above. */
void roce_config_default(struct roce_config *cfg);

/*
 * The default capture filter for what the engine decodes under cfg (a BPF
 * expression, as pcap_compile() reads it): RoCEv2 (UDP to cfg->udp_port),
 * VXLAN (UDP to cfg->vxlan_port, unless 0), RoCEv1, MAC Control (PFC and
 * PAUSE) and GRE (ERSPAN, GRE-TEB, IP in GRE), untagged or behind one or two
 * VLAN tags. Writes it into buf (len bytes, NUL-terminated when len > 0)
 * and returns its length: the text was cut when that is >= len.
 * ROCE_CAPTURE_FILTER_LEN bytes always hold it.
 */
#define ROCE_CAPTURE_FILTER_LEN 512
size_t roce_capture_filter(const struct roce_config *cfg, char *buf, size_t len);

/* Create an engine (copies cfg). NULL when out of memory or cfg is invalid. */
struct roce_engine *roce_engine_new(const struct roce_config *cfg);
void roce_engine_free(struct roce_engine *e);

/* Input frame: bytes are only read during the call. The frame number is a
 * label: the engine only compares it for equality and hands it back in
 * verdicts and reports (front ends number frames from 1, as Wireshark). */
struct roce_frame_in {
    uint64_t frame; /* frame number, from 1 */
    int64_t ts_ns;  /* capture time, ns since the epoch (clamped to [0, 2^62]) */
    int linktype;   /* enum roce_linktype */
    const uint8_t *data;
    uint32_t caplen;
    uint32_t wirelen;
};

/*
 * Analyse one frame; out may be NULL. Returns 0, or -1 when the link type is
 * not supported (the frame is counted as non-RoCE). Packet content never
 * makes it fail. May call on_verdict for this and earlier frames.
 */
int roce_engine_frame(struct roce_engine *e, const struct roce_frame_in *in,
                      struct roce_frame_out *out);

/* Let capture time pass without a frame (a live monitor with idle links):
 * CE marks whose window ran out are settled, waiting verdicts delivered,
 * PFC paused time brought up to now. Times earlier than the latest frame's
 * are ignored. */
void roce_engine_advance(struct roce_engine *e, int64_t now_ns);

/* Retire the flows with no packet for longer than idle_ns before the latest
 * capture time (a long-running monitor calls this periodically). Returns how
 * many were retired; they are counted in flows_retired, their counts stay in
 * the totals. */
size_t roce_engine_retire_idle(struct roce_engine *e, int64_t idle_ns);

/* Settle everything still open (end of capture); on_verdict is called for
 * the remaining frames. Further frames may follow (then it acts as a flush). */
void roce_engine_finish(struct roce_engine *e);

/* ---- report ---- */

struct roce_nak_counts {
    uint64_t code[ROCE_NAK_CODES]; /* by enum roce_nak_code */
    uint64_t reserved_code;        /* NAK codes 5..31 */
    uint64_t rnr;
    uint64_t total; /* all NAKs including RNR */
};

/* PFC / PAUSE of one priority (or of the whole link for 802.3x PAUSE). */
struct roce_pfc_prio {
    uint64_t frames;  /* frames that carried a time for it */
    uint64_t xoff;    /* with a nonzero time */
    uint64_t xon;     /* with time zero (resume) */
    uint64_t quanta;  /* sum of the XOFF times, in quanta of 512 bit times */
    int64_t paused_ns; /* time paused (union of the pause intervals) */
    uint64_t storm_windows; /* windows paused for more than pfc_storm_pct percent */
};

struct roce_pfc_report {
    uint64_t pfc_frames;   /* 802.1Qbb PFC frames */
    uint64_t pause_frames; /* 802.3x PAUSE frames */
    uint64_t other_mac_control;
    struct roce_pfc_prio prio[ROCE_PFC_PRIORITIES];
    struct roce_pfc_prio pause; /* link-level PAUSE */
};

struct roce_totals {
    uint64_t packets, roce_packets, rocev1_packets, rocev2_packets, non_roce_packets;
    uint64_t malformed_packets, truncated_packets;
    uint64_t malformed_by_reason[ROCE_MAL_COUNT];
    uint64_t no_bth_packets; /* RoCE whose BTH was cut by the snaplen */
    uint64_t icrc_good, icrc_bad, icrc_unchecked;
    uint64_t bytes;
    uint64_t request_packets, response_packets, cnp_packets;
    struct roce_nak_counts naks;
    uint64_t aeth_reserved; /* AETH with the reserved type 10 */
    uint64_t episodes, retransmitted_packets;
    uint64_t by_trigger[ROCE_TRIGGER_COUNT];
    uint64_t gap_events, missing_psns;
    uint64_t psn_reuse;
    uint64_t read_response_gaps, read_response_missing;
    uint64_t ce_marked, ce_answered, ce_unanswered;
    uint64_t cnps_matched, cnps_unexplained;
    struct roce_lat_summary cnp_latency;
    struct roce_lat_summary ack_latency;
    uint64_t cm_messages, cm_connections;
    uint64_t flows_created, flows_evicted, flows_retired, flows_active, peak_flows;
    uint64_t connections; /* flow pairs currently paired */
    uint64_t episodes_unlisted;   /* episodes beyond max_episodes (counted, not listed) */
    uint64_t verdicts_forced;     /* verdicts settled early because max_open_verdicts was hit */
    uint64_t ce_tracking_overflow;/* CE marks settled early (tracking bound) */
    uint64_t alloc_failures;      /* allocations that failed: state not kept (reported, never silent) */
    uint64_t unsupported_linktype;
    uint64_t encap[ROCE_ENCAP_COUNT]; /* frames unwrapped, by outermost encapsulation */
    struct roce_pfc_report pfc;
    int64_t first_ts_ns, last_ts_ns;
};

/* Totals so far (valid until the next engine call). */
const struct roce_totals *roce_engine_totals(struct roce_engine *e);

struct roce_flow_report {
    uint64_t id; /* creation number, from 1; stable for the flow's life */
    struct roce_flow_key key;
    uint8_t transport; /* enum roce_transport */
    uint8_t paired_by;
    uint64_t peer_id; /* id of the paired flow, 0 when unpaired */
    uint32_t pmtu;    /* learned or configured, 0 when unknown */
    uint64_t first_frame, last_frame;
    int64_t first_ts_ns, last_ts_ns;
    uint64_t packets, bytes, payload_bytes;
    uint64_t request_packets, response_packets, cnp_packets;
    uint32_t op_counts[32]; /* by opcode bits 4:0 (the operation) */
    uint8_t have_psn;
    uint32_t first_psn, last_psn; /* first request PSN and highest PSN used */
    uint64_t retransmitted_packets, episodes, gap_events, missing_psns, psn_reuse;
    uint64_t by_trigger[ROCE_TRIGGER_COUNT];
    uint64_t read_response_gaps;
    struct roce_nak_counts naks; /* NAKs carried on this flow */
    uint64_t ce_marked, ce_answered, ce_unanswered;
    uint64_t cnps_matched;    /* CNPs matched to this flow's CE marks */
    uint64_t cnps_for_flow;   /* CNPs of this (request) flow's connection */
    uint64_t cnps_unexplained;/* of those, not matched to a CE mark */
    uint64_t bad_icrc;
    uint64_t cm_connections; /* times CM (re)started this flow's PSN history */
    struct roce_lat_summary ack_latency; /* requests on this flow to their first ACK */
    struct roce_lat_summary cnp_latency; /* CE marks on this flow to their CNP */
};

/* Number of flows currently tracked. */
size_t roce_engine_flow_count(const struct roce_engine *e);

/* The latency distributions themselves (not only their summaries), so that
 * reports made separately can be merged (roce_lat_merge) into the
 * percentiles of a joint analysis. */
enum roce_latency_kind {
    ROCE_LATENCY_ACK = 0, /* request with AckReq to its first ACK */
    ROCE_LATENCY_CNP = 1, /* CE mark to its CNP */
    ROCE_LATENCY_KINDS = 2
};
/* Over all flows. Valid until the next engine call that takes a frame. */
const struct roce_lat *roce_engine_latency(const struct roce_engine *e,
                                           enum roce_latency_kind which);
/* Of the tracked flow with this key (roce_flow_report.key), or NULL when no
 * such flow is tracked. Looked up by key (hashed, O(1)) rather than by id
 * (flows are not indexed by id). Valid until the next engine call that
 * takes a frame or retires flows. */
const struct roce_lat *roce_engine_flow_latency(const struct roce_engine *e,
                                                const struct roce_flow_key *key,
                                                enum roce_latency_kind which);
/* Flow reports for all tracked flows, ordered by id; returns how many were
 * written (at most cap). */
size_t roce_engine_flows(struct roce_engine *e, struct roce_flow_report *out, size_t cap);

/* The report of the flow with this key; 0, or -1 when it is not tracked. */
int roce_engine_flow_report(struct roce_engine *e, const struct roce_flow_key *key,
                            struct roce_flow_report *out);

struct roce_episode {
    uint64_t flow_id;
    uint64_t first_frame, last_frame;
    uint32_t first_psn, last_psn;
    uint64_t packets;
    uint8_t trigger;
    uint64_t nak_frame;       /* 0 for implied/timeout */
    int64_t nak_to_resend_ns; /* nak/rnr: NAK to first resent packet */
    int64_t first_ts_ns, last_ts_ns;
};

/* Episodes kept for the report, in the order they started. */
size_t roce_engine_episode_count(const struct roce_engine *e);
const struct roce_episode *roce_engine_episode(const struct roce_engine *e, size_t i);

#endif
