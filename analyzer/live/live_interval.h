/*
 * live_interval.h - what one reporting interval of the live monitor saw:
 * the engine's counters for the interval and in total, the capture
 * statistics, the flows that had trouble in it (by retransmissions,
 * NAKs, PSN gaps, CE marks and CNPs), worst first, and the diagnoses: all
 * of them so far, and those raised in the interval. The writers (terminal
 * view, JSON Lines, Prometheus) read this and nothing else.
 */
#ifndef ROCE_LIVE_INTERVAL_H
#define ROCE_LIVE_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

#include "live_capture.h"
#include "roce_engine.h"

/* A flow's activity in one interval. */
struct roce_live_flow {
    uint64_t id;
    struct roce_flow_key key;
    uint8_t transport;
    uint64_t packets, retransmitted, naks, gaps, missing_psns, ce_marked, cnps;
};

/* A diagnosis raised in an interval: new, or its count grew. */
struct roce_live_diag {
    const struct roce_diagnosis *d; /* in roce_live_interval.diags */
    uint64_t added;                 /* its count grew by this in the interval */
};

struct roce_live_interval {
    uint64_t seq;      /* 1, 2, ... */
    int final;         /* the last one, taken after the capture stopped */
    int64_t wall_ns;   /* its end, CLOCK_REALTIME */
    int64_t length_ns; /* its length */
    int64_t uptime_ns; /* from the start of the capture to its end */
    const char *iface;
    const char *link_type;
    uint32_t link_speed_mbps; /* --link-speed: what a PFC/PAUSE quantum lasts */
    /* The counters of the interval: every count of the totals is the
     * difference over the interval; the gauges (flows_active, peak_flows,
     * connections), the latency summaries and the times are current. */
    struct roce_totals delta;
    const struct roce_totals *total; /* running totals (the engine's, valid until its next call) */
    struct roce_livecap_stats cap;   /* capture statistics so far */
    struct roce_livecap_stats cap_delta; /* in the interval */
    const struct roce_live_flow *top;    /* flows with trouble in the interval, worst first */
    size_t n_top;                        /* listed in top (at most the tracker's top) */
    size_t n_troubled;                   /* flows with trouble in the interval */
    size_t flows_visited;                /* flows active in the interval: those compared */
    const struct roce_diag_list *diags;  /* every diagnosis so far, worst first */
    size_t n_diags;
    const struct roce_live_diag *raised; /* those raised in the interval, worst first (with
                                          * more than 65536 flows: since they were last
                                          * computed, every flows / 65536 + 1 intervals) */
    size_t n_raised;
    const struct roce_hist *hist[ROCE_HIST_KINDS]; /* the engine's (as total) */
};

struct roce_live_tracker;

/* A tracker that lists at most top flows per interval and whose diagnoses
 * list at most subject_limit subjects each (0: all; the final report's
 * --final-flows). NULL when out of memory. */
struct roce_live_tracker *roce_live_tracker_new(size_t top, size_t subject_limit);
void roce_live_tracker_free(struct roce_live_tracker *t);

/* Close an interval: fill iv's counters (delta, total, cap, cap_delta, top),
 * diagnoses and histograms from the engine and the capture statistics so
 * far (iv->final set by the caller: the diagnoses are computed then, whatever
 * the table holds). Visits only the flows active in the interval
 * (flows_visited). iv->top, diags and raised point into the tracker (valid until the
 * next step). 0, or -1 when out of memory (the flow and diagnosis lists are
 * then empty; the counters are still filled). */
int roce_live_tracker_step(struct roce_live_tracker *t, struct roce_engine *e,
                           const struct roce_livecap_stats *cap, struct roce_live_interval *iv);

/* The diagnoses the final step computed (the engine's once it ended: the
 * final report's), or NULL when it could not. Valid until the tracker is
 * freed. */
const struct roce_diag_list *roce_live_tracker_final_diagnoses(const struct roce_live_tracker *t);

/* d = cur - prev for every count of the totals; gauges, latency summaries
 * and times are cur's. */
void roce_live_totals_delta(const struct roce_totals *cur, const struct roce_totals *prev,
                            struct roce_totals *d);

#endif
