/*
 * roce_diag.h - from counters to diagnoses: the evidence the engine keeps
 * for them (frames per flow, host NIC MACs, PFC storm frames, recovery
 * histograms) and the list of findings a person acts on (roce_diagnose).
 *
 * Definitions: ANALYSIS.md ("Diagnoses", "The list", "Host NIC MACs",
 * "DCQCN reaction"); what each kind means and the project's decisions:
 * ANALYSIS.md "Diagnoses".
 *
 * roce_diagnose() is a pure function of report data (flow reports, their
 * evidence, the MAC table, the totals, the options), so that every front end
 * computes the same list: the engine's own state (roce_engine_diagnoses, for
 * the plugin and the live monitor), a report built from it, read back from
 * JSON, or merged from several reports (rocescope merge, -j).
 */
#ifndef ROCE_DIAG_H
#define ROCE_DIAG_H

#include <stddef.h>
#include <stdint.h>

#include "roce_config.h"
#include "roce_totals.h"

/* The kinds, in the order of the definitions' table. */
enum roce_diag_kind {
    ROCE_DIAG_PACKET_LOSS = 0,
    ROCE_DIAG_CAPTURE_LOSS,
    ROCE_DIAG_RETRANSMISSION_TIMEOUT,
    ROCE_DIAG_RNR,
    ROCE_DIAG_REMOTE_ERROR,
    ROCE_DIAG_CNP_IGNORED,
    ROCE_DIAG_CE_UNANSWERED,
    ROCE_DIAG_SLOW_RECEIVER,
    ROCE_DIAG_PFC_STORM,
    ROCE_DIAG_ECMP_COLLISION,
    ROCE_DIAG_ICRC_ERROR,
    ROCE_DIAG_PSN_REUSE,
    ROCE_DIAG_KINDS
};
/* "packet_loss", ... */
const char *roce_diag_kind_name(unsigned kind);

/* Severities, worst first (the list's first sort key). */
enum roce_diag_severity { ROCE_SEV_ERROR = 0, ROCE_SEV_WARNING = 1, ROCE_SEV_NOTE = 2 };
/* "error", "warning", "note". */
const char *roce_diag_severity_name(unsigned sev);
/* The severity of a kind (the definitions' table). */
unsigned roce_diag_kind_severity(unsigned kind);

/* The first evidence frames of one flow, per kind (only the kinds whose
 * subject is a flow are used). Frame numbers ascending; 0 never appears. */
struct roce_evidence {
    uint64_t frame[ROCE_DIAG_KINDS][ROCE_EVIDENCE_MAX];
    uint8_t n[ROCE_DIAG_KINDS];
};
/* Add frame to the evidence of kind, keeping the ROCE_EVIDENCE_MAX lowest
 * frame numbers (a frame already listed is not added twice). */
void roce_evidence_add(struct roce_evidence *ev, unsigned kind, uint64_t frame);
/* dst's frames of every kind plus src's (renumbered by frame_off). */
void roce_evidence_merge(struct roce_evidence *dst, const struct roce_evidence *src,
                         uint64_t frame_off);

/* A source MAC address of RoCE or MAC Control (PFC, PAUSE) frames.
 * ANALYSIS.md "Host NIC MACs": the source MAC of RoCE frames from
 * exactly one address names that host; the TTL / hop limit of those frames
 * tells an unrouted frame (the MAC is its sender's) from a routed one (the
 * MAC is the last router's): roce_host_mac_role(). */
#define ROCE_MAC_LEN 6
struct roce_host_mac {
    uint8_t mac[ROCE_MAC_LEN];
    uint8_t addresses; /* addresses behind it: 0 (no RoCE), 1, or 2 for two or more */
    uint8_t version;   /* of the RoCE frames (1 GIDs, 2 IP), when addresses > 0 */
    uint8_t af;        /* enum roce_af of addr */
    uint8_t ttl_min, ttl_max;    /* TTL / hop limit of its RoCE frames (addresses > 0) */
    uint8_t addr[ROCE_ADDR_LEN]; /* the address behind it (the first one seen) */
    uint64_t checked_frames;     /* RoCE frames whose MAC and TTL were looked at: the first of
                                    each of its flows, then one in 64 */
    uint64_t unrouted_frames;    /* of those, RoCEv1, or a TTL / hop limit of 64, 128 or 255 */
    uint64_t pfc_frames, pause_frames;  /* MAC Control frames it sent */
    uint64_t frames[ROCE_EVIDENCE_MAX]; /* its first PFC / PAUSE frames */
    uint8_t n_frames;
    /* the frame that made the entry and the one whose address is addr (0:
     * unknown, as in a report read back): the order and the first address of
     * one engine when the reports of a split analysis merge */
    uint64_t first_frame, addr_frame;
};

/* Why a MAC is, or is not, a host NIC's. */
enum roce_mac_basis {
    ROCE_MAC_UNROUTED = 0, /* host: one address, its frames arrive unrouted */
    ROCE_MAC_ROUTED,       /* fabric: one address, but every frame was routed (TTL decremented) */
    ROCE_MAC_SEVERAL,      /* fabric: RoCE frames of several addresses */
    ROCE_MAC_NO_ROCE,      /* fabric: MAC Control frames only */
    ROCE_MAC_BASIS_COUNT
};
/* "unrouted", "routed", "several_addresses", "no_roce". */
const char *roce_mac_basis_name(unsigned basis);
/* The basis of m; a host NIC MAC exactly when it is ROCE_MAC_UNROUTED. */
unsigned roce_host_mac_role(const struct roce_host_mac *m);
/* Nonzero when a RoCE frame from src with this TTL (hop limit) reached the
 * capture unrouted: RoCEv1, an initial TTL (what hosts send with), or a
 * link-local source (fe80::/10, 169.254/16), which no router forwards
 * (hosts send link-local RoCE with hop limit 1). */
int roce_frame_unrouted(unsigned ttl, unsigned version, const uint8_t src[ROCE_ADDR_LEN]);
/* Fold src (a capture read after dst's, or another part of a split
 * analysis of the same frames: frame_off 0) into dst, the same MAC. */
void roce_host_mac_merge(struct roce_host_mac *dst, const struct roce_host_mac *src,
                         uint64_t frame_off);

/* DCQCN verdicts of a request flow (ANALYSIS.md "DCQCN reaction"). */
enum roce_dcqcn_verdict {
    ROCE_DCQCN_UNDETERMINED = 0,
    ROCE_DCQCN_REACTED = 1,
    ROCE_DCQCN_IGNORED = 2,
    ROCE_DCQCN_VERDICTS = 3
};
/* "undetermined", "reacted", "ignored". */
const char *roce_dcqcn_verdict_name(unsigned v);
/* The verdict for cnps_evaluated CNPs with the median ratio ratio_ppm. */
unsigned roce_dcqcn_verdict_of(const struct roce_config *cfg, uint64_t cnps_evaluated,
                               uint32_t ratio_ppm);

/* ---- the diagnoses ---- */

#define ROCE_DIAG_SUMMARY_LEN 320
#define ROCE_DIAG_MAX_QPS     8 /* dest QPs named in an ECMP collision's subject */

struct roce_diagnosis {
    uint8_t kind;     /* enum roce_diag_kind */
    uint8_t severity; /* enum roce_diag_severity */
    /* subject: a flow key (flow kinds); src, dst and version of an ECMP
     * collision; nothing else for the others */
    struct roce_flow_key flow;
    uint8_t mac[ROCE_MAC_LEN]; /* slow_receiver: the host's MAC, its address in flow.src */
    uint8_t priority;          /* pfc_storm: 0..7, or ROCE_PFC_PRIORITIES for link PAUSE */
    uint16_t udp_sport;        /* ecmp_collision */
    uint32_t dest_qps[ROCE_DIAG_MAX_QPS]; /* ecmp_collision, ascending */
    uint8_t n_dest_qps;                   /* listed (count may be larger) */
    uint64_t count;
    uint64_t frames[ROCE_EVIDENCE_MAX];
    uint8_t n_frames;
    char summary[ROCE_DIAG_SUMMARY_LEN];
};

/* One flow as roce_diagnose reads it: its report, its evidence (NULL when
 * it has none) and the key of the flow it is paired with. */
struct roce_diag_flow {
    const struct roce_flow_report *r;
    const struct roce_evidence *ev;
    const struct roce_flow_key *peer; /* NULL when unpaired */
};

struct roce_diag_input {
    const struct roce_diag_flow *flows;
    size_t n_flows;
    const struct roce_host_mac *macs;
    size_t n_macs;
    const struct roce_totals *t;
    const struct roce_config *cfg; /* thresholds, the PFC window */
};

/* Nonzero when a and b are findings of the same kind about the same subject
 * (the same finding at two moments: its count may have grown). */
int roce_diag_same(const struct roce_diagnosis *a, const struct roce_diagnosis *b);
/* The subject of d as text ("10.0.0.1 -> 10.0.0.2 QP 0x00000b", "host
 * 10.0.0.7 MAC 02:00:...", "priority 3", "link PAUSE", "10.0.0.1 -> 10.0.0.2
 * UDP source port 49408"), as snprintf. */
size_t roce_diag_subject(const struct roce_diagnosis *d, char *buf, size_t len);

/* Nonzero when every ICRC checked was bad (at least one): the capture path
 * probably altered the frames (ANALYSIS.md "The list"), not a link. */
int roce_diag_icrc_all_bad(const struct roce_totals *t);

/* The diagnoses of in, ordered as defined (severity, count descending, first
 * frame), at most cap written to out (out may be NULL when cap is 0).
 * Returns how many there are, or -1 when out of memory. */
long roce_diagnose(const struct roce_diag_input *in, struct roce_diagnosis *out, size_t cap);

/* ---- recovery and congestion-reaction histograms (the live monitor's) ---- */

#define ROCE_HIST_BUCKETS 12
/* Cumulative-free bucket counts: bucket i holds the samples <= bound[i]
 * (and above bound[i - 1]); the last bucket everything above. */
struct roce_hist {
    uint64_t bucket[ROCE_HIST_BUCKETS + 1];
    uint64_t count;
    int64_t sum; /* ns, or ppm for the ratio */
};
enum roce_hist_kind {
    ROCE_HIST_NAK_GENERATION = 0, /* out-of-sequence arrival to its NAK, ns */
    ROCE_HIST_NAK_TO_RESEND = 1,  /* NAK to the first resent packet, ns */
    ROCE_HIST_DCQCN_RATIO = 2,    /* rate after / before of each evaluated CNP, ppm */
    ROCE_HIST_KINDS = 3
};
/* The upper bounds of a kind's buckets (ns, or ppm). */
const int64_t *roce_hist_bounds(unsigned kind);
void roce_hist_add(struct roce_hist *h, unsigned kind, int64_t v);

#endif
