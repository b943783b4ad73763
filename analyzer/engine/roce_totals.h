/*
 * roce_totals.h - what the engine counts and reports: the totals of a
 * capture, the report of each flow and the go-back-N episodes (see
 * roce_engine.h for how to get them).
 */
#ifndef ROCE_TOTALS_H
#define ROCE_TOTALS_H

#include <stdint.h>

#include "roce_lat.h"
#include "roce_pkt.h"
#include "roce_verdict.h"

/* Evidence frames kept per diagnosis kind and subject (ANALYSIS.md
 * "Diagnoses", "The list": the first 10). */
#define ROCE_EVIDENCE_MAX 10

/* Bytes of a MAC address. */
#define ROCE_MAC_LEN 6

/* Distinct UDP source ports recorded per request flow. */
#define ROCE_UDP_SPORTS_MAX 8

struct roce_nak_counts {
    uint64_t code[ROCE_NAK_CODES]; /* by enum roce_nak_code */
    uint64_t reserved_code;        /* NAK codes 5..31 */
    uint64_t rnr;
    uint64_t total; /* all NAKs including RNR */
};

/* PFC / PAUSE of one priority (or of the whole link for 802.3x PAUSE). */
struct roce_pfc_prio {
    uint64_t frames;        /* frames that carried a time for it */
    uint64_t xoff;          /* with a nonzero time */
    uint64_t xon;           /* with time zero (resume) */
    uint64_t quanta;        /* sum of the XOFF times, in quanta of 512 bit times */
    int64_t paused_ns;      /* time paused (union of the pause intervals) */
    uint64_t storm_windows; /* windows paused for more than pfc_storm_pct percent */
};

struct roce_pfc_report {
    uint64_t pfc_frames;   /* 802.1Qbb PFC frames */
    uint64_t pause_frames; /* 802.3x PAUSE frames */
    uint64_t other_mac_control;
    struct roce_pfc_prio prio[ROCE_PFC_PRIORITIES];
    struct roce_pfc_prio pause; /* link-level PAUSE */
};

/* The XOFF frames of the storm windows, per PFC priority and (last) for the
 * link PAUSE: the evidence of a pfc_storm diagnosis. */
struct roce_pfc_storm_frames {
    uint64_t frame[ROCE_PFC_PRIORITIES + 1][ROCE_EVIDENCE_MAX];
    uint8_t n[ROCE_PFC_PRIORITIES + 1];
};

/* The faults of a capture (ANALYSIS.md "The capture first"): the subjects
 * of the diagnosis of kind "capture". */
enum roce_capture_fault {
    ROCE_FAULT_LOSS = 0,   /* it kept less than 99 % of the request PSNs */
    ROCE_FAULT_TRUNCATION, /* frames cut short although their original length says not */
    ROCE_FAULT_TIMESTAMPS, /* coarse or repeated time stamps */
    ROCE_FAULT_CLOCK,      /* responses before their requests, times going backwards */
    ROCE_FAULT_REWRITE,    /* a header field the ICRC covers rewritten on the way */
    ROCE_FAULTS
};

/* The first frames that show each fault of the capture. */
struct roce_capture_evidence {
    uint64_t frame[ROCE_FAULTS][ROCE_EVIDENCE_MAX];
    uint8_t n[ROCE_FAULTS];
};

/* How fine the time stamps of RoCE frames are: counted by the coarsest
 * step their time is a multiple of. */
enum roce_ts_step {
    ROCE_TS_FINE = 0, /* not a multiple of 1 us: nanosecond (or 100 ns...) stamps */
    ROCE_TS_US = 1,   /* a multiple of 1 us, not of 1 ms */
    ROCE_TS_MS = 2,   /* a multiple of 1 ms */
    ROCE_TS_STEPS = 3
};
/* "finer_than_us", "us", "ms". */
const char *roce_ts_step_name(unsigned s);

/* Incast (ANALYSIS.md "Incast"): receivers listed, senders named per
 * receiver, points of a receiver's fan-in series. */
#define ROCE_INCAST_LISTED 16
#define ROCE_INCAST_NAMED  8
#define ROCE_INCAST_POINTS 32

/* An episode of a receiver: from the request that brought its fan-in to
 * --incast-senders while it stayed there. */
struct roce_incast_episode {
    uint8_t flagged; /* its receiver's traffic was CE marked, paused or lost meanwhile */
    uint8_t n_named, n_frames;
    uint32_t fanin;           /* most senders at once */
    uint32_t senders;         /* its distinct senders (the first ROCE_INCAST_NAMED named) */
    uint64_t bytes;           /* wire bytes of its requests after the first */
    int64_t start_ns, end_ns; /* its first and latest request */
    uint8_t named[ROCE_INCAST_NAMED][ROCE_ADDR_LEN];
    uint64_t frames[ROCE_EVIDENCE_MAX]; /* its evidence (kept when flagged) */
};

/* A receiver whose fan-in reached --incast-senders: its episodes, the worst
 * of them (flagged first, then the most senders at once, the first of
 * equals) and its fan-in over time. */
struct roce_incast_receiver {
    uint8_t addr[ROCE_ADDR_LEN];
    uint8_t af, version, n_points;
    uint64_t episodes; /* times its fan-in reached --incast-senders */
    uint64_t flagged;  /* of them, those whose traffic was CE marked, paused or lost */
    uint64_t ce_marked, paused, lost; /* evidence over the flagged episodes */
    struct roce_incast_episode worst;
    /* fan-in over time from its first episode: point i is the most senders
     * at once in [start + i step, start + (i + 1) step) */
    int64_t series_start_ns, series_step_ns;
    uint16_t series[ROCE_INCAST_POINTS];
};

struct roce_incast_report {
    uint32_t n; /* receivers listed, in the order of their first episode */
    struct roce_incast_receiver r[ROCE_INCAST_LISTED];
};

/* Pause episodes (ANALYSIS.md "Pause victims"): the first ones listed,
 * and the victims named per episode (the first ones). */
#define ROCE_PAUSES_LISTED 32
#define ROCE_PAUSE_VICTIMS 8

/* A victim of a pause episode: a request flow whose requests stopped with it. */
struct roce_pause_victim {
    struct roce_flow_key key; /* the request flow */
    int64_t stall_ns;         /* its last request before the pause to its first after */
    uint64_t resume_frame;    /* that first request after */
    uint8_t innocent;         /* a host NIC's pause, the flow going to another host */
};

/* A pause: one MAC keeping one priority (or the link) paused, from its
 * first XOFF until its XON or until its last XOFF's time ran out. */
struct roce_pause_episode {
    uint8_t mac[ROCE_MAC_LEN]; /* the sender's source MAC */
    uint8_t has_mac;           /* 0: beyond the MAC table, unknown */
    uint8_t prio;              /* 0..7, ROCE_PFC_PRIORITIES: link PAUSE */
    uint8_t xon;               /* ended by an XON (else its time ran out) */
    uint8_t n_named;           /* victims named in v */
    int64_t start_ns, end_ns;
    uint64_t frame;    /* its first XOFF */
    uint64_t xoffs;    /* its XOFF frames: the first and those that renewed it */
    uint64_t victims;  /* its victims (the first ROCE_PAUSE_VICTIMS named) */
    uint64_t innocent; /* of them, innocent (head-of-line blocked) */
    int64_t stall_ns;  /* its victims' stalls, added */
    struct roce_pause_victim v[ROCE_PAUSE_VICTIMS];
};

struct roce_pause_report {
    uint32_t n; /* episodes listed, in the order they began */
    struct roce_pause_episode p[ROCE_PAUSES_LISTED];
};

struct roce_totals {
    uint64_t packets, roce_packets, rocev1_packets, rocev2_packets, ib_packets, non_roce_packets;
    uint64_t ib_other[ROCE_IB_OTHER_COUNT]; /* InfiniBand without the transport (non-RoCE) */
    uint64_t malformed_packets, truncated_packets;
    uint64_t malformed_by_reason[ROCE_MAL_COUNT];
    uint64_t no_bth_packets; /* RoCE whose BTH was cut by the snaplen */
    uint64_t icrc_good, icrc_bad, icrc_unchecked;
    uint64_t vcrc_good, vcrc_bad, vcrc_unchecked; /* InfiniBand packets whose LRH was captured */
    uint64_t bytes;
    uint64_t request_packets, response_packets, cnp_packets;
    uint64_t becn_packets; /* InfiniBand responses carrying BECN: congestion notifications too */
    struct roce_nak_counts naks;
    uint64_t aeth_reserved; /* AETH with the reserved type 10 */
    uint64_t episodes, retransmitted_packets;
    uint64_t by_trigger[ROCE_TRIGGER_COUNT];
    uint64_t gap_events, missing_psns;
    uint64_t gap_class_events[ROCE_GAP_CLASSES]; /* settled gaps by class */
    uint64_t gap_class_psns[ROCE_GAP_CLASSES];   /* and their missing PSNs */
    uint64_t reordered_packets; /* missing PSNs that arrived late (ROCE_V_REORDERED) */
    uint64_t psn_reuse;
    uint64_t read_response_gaps, read_response_missing;
    uint64_t ce_marked, ce_answered, ce_unanswered;
    uint64_t cnps_matched, cnps_unexplained;
    uint64_t cnps_ce_marked; /* CNPs that arrived CE (FECN) marked */
    struct roce_lat_summary cnp_latency;
    struct roce_lat_summary ack_latency;
    uint64_t cm_messages, cm_connections;
    uint64_t flows_created, flows_evicted, flows_retired, flows_active, peak_flows;
    uint64_t connections;           /* flow pairs currently paired */
    uint64_t episodes_unlisted;     /* episodes beyond max_episodes (counted, not listed) */
    uint64_t flows_unlisted;        /* flows a report's flow_limit left out (report_model.c) */
    uint64_t verdicts_forced;       /* verdicts settled early because max_open_verdicts was hit */
    uint64_t ce_tracking_overflow;  /* CE marks settled early (tracking bound) */
    uint64_t cnp_tracking_overflow; /* CNPs decided before their connection was known (bound) */
    uint64_t alloc_failures; /* allocations that failed: state not kept (reported, never silent) */
    uint64_t dcqcn_cnps_evaluated;  /* CNPs whose DCQCN reaction was evaluated */
    uint64_t dcqcn_untracked;       /* CNPs not evaluated because a bound was hit */
    uint64_t gap_tracking_overflow; /* PSN gaps settled early (bound): inferred or undetermined */
    uint64_t macs_untracked;        /* frames from source MACs beyond the MAC table */
    uint64_t udp_sports_untracked;  /* request packets whose new source port was not kept */
    uint64_t unsupported_linktype;
    uint64_t encap[ROCE_ENCAP_COUNT]; /* frames unwrapped, by outermost encapsulation */
    /* what the capture itself shows (ANALYSIS.md "The capture first") */
    uint64_t ts_steps[ROCE_TS_STEPS]; /* RoCE frames by the step of their time stamp */
    uint64_t ts_repeated;         /* RoCE frames with the time of the frame before in their flow */
    uint64_t time_backwards;      /* RoCE frames earlier than the frame before them in their flow */
    uint64_t responses_early;     /* responses captured before the request they acknowledge */
    uint64_t understated_packets; /* captured short of their IP/UDP length, original length too */
    uint64_t understated_caplen_min, understated_caplen_max;     /* their captured lengths */
    uint64_t understated_declared_min, understated_declared_max; /* and declared frame lengths */
    uint64_t icrc_rewritten[ROCE_REWRITE_FIELDS]; /* bad ICRCs valid with another field value */
    uint64_t sport_is_dport; /* RoCEv2 frames whose UDP source port is the RoCE port (4791) */
    struct roce_capture_evidence capture_frames;
    struct roce_pfc_report pfc;
    struct roce_pfc_storm_frames storm_frames;
    struct roce_pfc_storm_frames xoff_frames; /* the first XOFF frames of each priority */
    int64_t first_ts_ns, last_ts_ns;          /* the earliest and the latest frame time */
    uint64_t pauses; /* pauses: a priority paused by one MAC (ANALYSIS.md "Pause victims") */
    uint64_t victims_untracked;          /* request gaps whose pauses had left the ring (bound) */
    struct roce_pause_report pause_list; /* the first pauses, with their victims */
    uint64_t pauses_unlisted;            /* pauses beyond them (counted, not listed) */
    struct roce_incast_report incast;
    uint64_t incast_receivers_evicted;  /* receivers dropped from the incast table (bound) */
    uint64_t incast_receivers_unlisted; /* receivers that reached the fan-in, not listed */
    uint64_t incast_senders_untracked;  /* requests of senders beyond a receiver's slots */
    uint64_t cnp_dsts_evicted;          /* CNP destinations dropped from their table (bound) */
};

/* The DCQCN reaction of a RoCEv2 request flow whose connection received
 * CNPs (ANALYSIS.md "DCQCN reaction"). */
struct roce_dcqcn_report {
    uint8_t tracked; /* a RoCEv2 request flow whose connection received CNPs */
    uint8_t verdict; /* enum roce_dcqcn_verdict (roce_diag.h) */
    uint64_t cnps_evaluated;
    uint32_t rate_before_mbps, rate_after_mbps; /* medians over the evaluated CNPs */
    uint32_t ratio_ppm;                         /* median of the ratios, x 10^6 */
};

/* The counts of a flow that the live monitor compares from one interval to
 * the next (its flows with trouble): running counts, as in the flow's report. */
struct roce_flow_counts {
    uint64_t packets, retransmitted_packets, naks, gap_events, missing_psns, ce_marked,
        cnps_for_flow;
};

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
    uint64_t gap_class_gaps[ROCE_GAP_CLASSES]; /* settled gaps by class */
    uint64_t gap_class_psns[ROCE_GAP_CLASSES]; /* their missing PSNs */
    uint64_t gaps_pending;       /* gaps not classified yet (0 after roce_engine_finish) */
    uint64_t reordered_packets;  /* missing PSNs that arrived late */
    uint64_t reorder_max_psns;   /* the farthest behind one came (PSNs) */
    int64_t reorder_max_ns;      /* the latest one came after its gap */
    uint64_t responses_early;    /* responses of the paired flow captured before the request */
    uint64_t bad_icrc_rewritten; /* of bad_icrc: explained by a rewritten header field */
    uint64_t by_trigger[ROCE_TRIGGER_COUNT];
    uint64_t read_response_gaps;
    struct roce_nak_counts naks; /* NAKs carried on this flow */
    uint64_t ce_marked, ce_answered, ce_unanswered;
    uint64_t cnps_matched;             /* CNPs matched to this flow's CE marks */
    uint64_t cnps_for_flow;            /* CNPs of this (request) flow's connection */
    uint64_t cnps_unexplained;         /* of those, not matched to a CE mark */
    uint64_t cnps_carried_unexplained; /* CNPs this flow carried that were unexplained */
    uint64_t cnps_ce_marked;           /* CNPs this flow carried that arrived CE (FECN) marked */
    uint64_t bad_icrc, bad_vcrc;
    uint64_t becn_packets;   /* InfiniBand responses carried with BECN (notifications) */
    uint64_t cm_connections; /* times CM (re)started this flow's PSN history */
    struct roce_lat_summary ack_latency;      /* requests on this flow to their first ACK */
    struct roce_lat_summary cnp_latency;      /* CE marks on this flow to their CNP */
    uint16_t udp_sports[ROCE_UDP_SPORTS_MAX]; /* RoCEv2 requests' source ports, ascending */
    uint8_t n_udp_sports;
    struct roce_dcqcn_report dcqcn;
    /* the priority of its first request or response and of its first CNP
     * (ANALYSIS.md "Priorities": the VLAN PCP, else the DSCP's), and the
     * frames they were read from (0: none, the priority is then 0) */
    uint8_t priority, cnp_priority;
    uint64_t priority_frame, cnp_priority_frame;
    /* pauses its requests stopped with, and the time they stalled; of those,
     * pauses a host NIC sent for another destination (ANALYSIS.md "Pause victims") */
    uint64_t pause_stalls, hol_stalls;
    int64_t pause_stall_ns, hol_stall_ns;
    /* the pacing of the CNPs it carried (ANALYSIS.md "CNP pacing"): the gaps
     * measured from its previous CNP (same destination QP), from the
     * previous CNP between the same two hosts (any QP) and from the previous
     * CNP to the same destination address (any source), and the least of each */
    uint64_t cnp_gaps, cnp_pair_gaps, cnp_dst_gaps;
    int64_t cnp_min_gap_ns, cnp_pair_min_gap_ns, cnp_dst_min_gap_ns;
};

struct roce_episode {
    uint64_t flow_id;
    uint64_t first_frame, last_frame;
    uint32_t first_psn, last_psn;
    uint64_t packets;
    uint8_t trigger;
    uint64_t nak_frame;          /* 0 for implied/timeout */
    int64_t nak_to_resend_ns;    /* nak/rnr: NAK to first resent packet */
    uint64_t has_nak_generation; /* nak: the out-of-sequence arrival was captured */
    int64_t nak_generation_ns;   /* nak: that arrival to the NAK */
    int64_t first_ts_ns, last_ts_ns;
};

#endif
