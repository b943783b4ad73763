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
 * What every count and verdict means: ANALYSIS.md; the protocol facts it
 * relies on: PROTOCOL.md (both beside this header).
 * The engine is C11 + libc only, allocates per flow (never per packet), and
 * never aborts on packet content. Memory is bounded by max_flows; an
 * allocation that fails is counted (alloc_failures), never silent.
 *
 * This header includes the rest of the public interface: roce_config.h (the
 * set-up), roce_verdict.h (the analysis of a frame), roce_totals.h (what is
 * counted and reported), roce_diag.h (the diagnoses and their evidence),
 * roce_host_mac.h (source MACs: hosts or fabric), roce_hist.h (recovery
 * histograms),
 * roce_decode.h and roce_pkt.h (the decoded frame), roce_opcode.h,
 * roce_lat.h, roce_psn.h (24-bit PSN arithmetic, unwrapping) and roce_time.h.
 * Two more public headers build on it: roce_split.h (a split analysis, -T)
 * and roce_vantage.h (several vantage points, localize).
 */
#ifndef ROCE_ENGINE_H
#define ROCE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "roce_config.h"
#include "roce_decode.h"
#include "roce_diag.h"
#include "roce_frame.h"
#include "roce_hist.h"
#include "roce_host_mac.h"
#include "roce_lat.h"
#include "roce_opcode.h"
#include "roce_psn.h"
#include "roce_time.h"
#include "roce_totals.h"
#include "roce_verdict.h"

struct roce_engine;

/* What roce_engine_frame() returns for every frame. */
struct roce_frame_out {
    struct roce_pkt pkt;
    struct roce_verdict verdict; /* as known now; frames with flags are settled later */
};

/* The frame's source MAC (of the mirrored frame inside a mirror
 * encapsulation) as decoded into pkt, or NULL when it has none or it was
 * not captured whole (ANALYSIS.md "Host NIC MACs"). */
const uint8_t *roce_frame_src_mac(const struct roce_frame_in *in, const struct roce_pkt *pkt);

/* Create an engine (copies cfg). NULL when out of memory or cfg is invalid. */
struct roce_engine *roce_engine_new(const struct roce_config *cfg);
void roce_engine_free(struct roce_engine *e);

/*
 * Analyse one frame; out may be NULL. Returns 0, or -1 when the link type is
 * not supported (the frame is counted as non-RoCE). Packet content never
 * makes it fail. May call on_verdict for this and earlier frames.
 */
int roce_engine_frame(struct roce_engine *e, const struct roce_frame_in *in,
                      struct roce_frame_out *out);

/* A split analysis (several engines on one capture, each taking the frames
 * of its connections, merged into the one engine's result): roce_split.h. */

/* The input reached capture time now_ns (a frame another engine takes):
 * the next frame is analysed at that time or later, as one engine would. */
void roce_engine_note_time(struct roce_engine *e, int64_t now_ns);

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

/* The use of the engine-wide bounds so far, and the bounds: what a split
 * analysis checks before it takes its parts' results for one engine's
 * (roce_split_exact, roce_split.h). */
struct roce_engine_usage {
    uint32_t cm_pending_peak; /* CM REQs waiting for their REP at once, at most */
    uint32_t cm_pending_max;  /* how many can wait */
    uint32_t ce_ring_max;     /* CE marks waiting for a CNP that can be tracked */
    uint32_t cnp_ring_max;    /* CNPs waiting for their connection that can be tracked */
    uint32_t gap_ring_room, gap_ring_max;     /* PSN gaps waiting: room made, at most */
    uint32_t dcqcn_ring_room, dcqcn_ring_max; /* CNPs waiting for their after window */
    uint32_t macs, macs_max;                  /* source MACs in the table, at most */
    int64_t ce_wait_ns;  /* the longest a CE mark waits for its CNP (capture time) */
    int64_t cnp_wait_ns; /* the longest a CNP waits for its connection */
};
void roce_engine_usage(const struct roce_engine *e, struct roce_engine_usage *u);

/* ---- report ---- */

/* Totals so far (valid until the next engine call). */
const struct roce_totals *roce_engine_totals(struct roce_engine *e);

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
/* Of the tracked flow with this key (roce_flow_report.key) and id (0: the
 * flow the key names now; a key reused by a new connection names a new
 * flow, the old one stays tracked), or NULL when no such flow is tracked.
 * Looked up by key (hashed, O(1)), then back along the key's earlier
 * records. Valid until the next engine call that takes a frame or retires
 * flows. (Not const: the flow's batched ACK latency samples are added to
 * its distribution first.) */
const struct roce_lat *roce_engine_flow_latency(struct roce_engine *e,
                                                const struct roce_flow_key *key, uint64_t id,
                                                enum roce_latency_kind which);
/* Flow reports for all tracked flows, ordered by id; returns how many were
 * written (at most cap). */
size_t roce_engine_flows(struct roce_engine *e, struct roce_flow_report *out, size_t cap);

/* The flows' own reports, brought up to date and lent in place (no copy:
 * a table may hold millions), in table order, into out; returns how many
 * (at most cap). Valid until the next engine call that takes a frame or
 * retires flows. */
size_t roce_engine_flow_refs(struct roce_engine *e, const struct roce_flow_report **out,
                             size_t cap);
/* The key of the flow paired with the flow of this key and id into *peer:
 * 0, or -1 when that flow is not tracked or has no pair. */
int roce_engine_flow_peer_key(const struct roce_engine *e, const struct roce_flow_key *key,
                              uint64_t id, struct roce_flow_key *peer);

/* The report of the flow with this key and id (0: the flow the key names
 * now); 0, or -1 when it is not tracked. */
int roce_engine_flow_report(struct roce_engine *e, const struct roce_flow_key *key, uint64_t id,
                            struct roce_flow_report *out);

/* What a flow is now, for a front end that shows it on every frame of the
 * flow (the plugin's second pass): its transport and pairing as they are
 * at the end, not as they were when the frame was analysed. */
struct roce_flow_state {
    uint8_t transport;  /* enum roce_transport */
    uint8_t paired_by;  /* enum roce_paired_by */
    uint32_t peer_dqpn; /* dest QP of the paired flow (the flow's source QP), when paired */
};
/* The state of the flow with this key and id (0: the flow the key names
 * now); 0, or -1 when it is not tracked. */
int roce_engine_flow_state(const struct roce_engine *e, const struct roce_flow_key *key,
                           uint64_t id, struct roce_flow_state *out);

/* Episodes kept for the report, in the order they started. */
size_t roce_engine_episode_count(const struct roce_engine *e);
const struct roce_episode *roce_engine_episode(const struct roce_engine *e, size_t i);

/* ---- intervals (a live monitor) ---- */

/* A flow active in an interval: its counts now and their increase since
 * the previous interval that listed it (a new flow: since 0). */
struct roce_flow_interval {
    uint64_t id;
    struct roce_flow_key key;
    uint8_t transport;
    struct roce_flow_counts now, delta;
};

/* Close an interval: fn(ctx, flow) for every tracked flow active since the
 * previous call (a frame of its own, or a count changed by another flow's
 * frame or by time passing), in no particular order, each once; a flow not
 * listed counted nothing (its increase is zero). The first call lists every
 * flow and starts the tracking (until then the engine lists none: offline
 * analyses pay nothing). Costs the flows listed, not the table (except the
 * first call, and an interval whose list could not grow, which visit every
 * flow). Returns how many flows were listed. */
size_t roce_engine_interval_flows(struct roce_engine *e,
                                  void (*fn)(void *, const struct roce_flow_interval *), void *ctx);

/* ---- diagnoses (roce_diag.h) ---- */

/* The source MACs of RoCE and MAC Control frames so far, *n of them, in the
 * order they were first seen. Valid until the next engine call that takes
 * a frame. */
const struct roce_host_mac *roce_engine_macs(const struct roce_engine *e, size_t *n);

/* The evidence frames of the tracked flow with this key and id (0: the
 * flow the key names now), or NULL when it has none or is not tracked.
 * Valid until the next engine call that takes a frame or retires flows. */
const struct roce_evidence *roce_engine_flow_evidence(const struct roce_engine *e,
                                                      const struct roce_flow_key *key, uint64_t id);

/* The diagnoses of everything analysed so far (roce_diagnose over the
 * tracked flows, the MACs and the totals) into *out (roce_diag_list_free
 * frees it), each finding listing its worst subject_limit subjects (0:
 * all; roce_diag_input.subject_limit); 0, or -1 when out of memory. */
int roce_engine_diagnoses(struct roce_engine *e, size_t subject_limit, struct roce_diag_list *out);

/* A recovery-time or DCQCN-ratio histogram (the live monitor's metrics). */
const struct roce_hist *roce_engine_histogram(const struct roce_engine *e, enum roce_hist_kind k);

#endif
