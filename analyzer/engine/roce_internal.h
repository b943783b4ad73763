/*
 * roce_internal.h - the engine's state (struct roce_engine), shared by the
 * analysis modules (not for front ends: they use roce_engine.h). Each
 * module's functions are declared in its own header (roce_seq.h, ...).
 *
 * Ownership: struct roce_engine owns everything below: the flow table and
 * its records (roce_flow.h), the episode log, the CE-mark and open-verdict
 * rings, the latency distributions.
 */
#ifndef ROCE_INTERNAL_H
#define ROCE_INTERNAL_H

#include <stdint.h>

#include "roce_config.h"
#include "roce_engine.h"
#include "roce_diag.h"
#include "roce_hist.h"
#include "roce_reqlog.h"
#include "roce_index.h"
#include "roce_flow.h"
#include "roce_lat.h"
#include "roce_pkt.h"
#include "roce_ring.h"
#include "roce_totals.h"
#include "roce_incast.h"
#include "roce_victims.h"
#include "roce_cnpdst.h"

#define CM_PENDING 64 /* CM REQs waiting for their REP */

/* PFC pause state of one priority (roce_pfc.c). */
struct pfc_state {
    uint8_t paused;
    int64_t start, end; /* accounted up to start; paused until end */
    int64_t window;     /* index of the current storm window, -1 none */
    int64_t window_paused;
    /* the first XOFF frames of the latest two windows that had one: the
     * evidence of the one that closes as a storm */
    int64_t ev_window[2]; /* [0] the latest, -1 none */
    uint64_t ev_frame[2][ROCE_EVIDENCE_MAX];
    uint8_t ev_n[2];
};

/* A pause of one priority by one MAC (roce_victims.c); frame 0: a free slot. */
struct pause_rec {
    int64_t start, end; /* from its first XOFF until its XON or its time ran out */
    uint64_t frame;     /* its first XOFF */
    uint32_t mac;       /* the sender's MAC table entry + 1, 0: untracked */
    uint8_t prio;       /* 0..7, ROCE_PFC_PRIORITIES: link PAUSE */
    uint32_t listed;    /* its place in totals.pause_list + 1, 0: not listed */
};

/* A CM REQ waiting for its REP (roce_cm.c). */
struct cm_req {
    uint32_t comm_id;
    uint8_t src[ROCE_ADDR_LEN], dst[ROCE_ADDR_LEN];
    uint8_t version, af, valid; /* af: enum roce_af */
    uint64_t seq;               /* order of arrival (the engine's count of REQs) */
    uint32_t qpn;               /* requester (active side) QPN */
    uint32_t start_psn;         /* REQ starting PSN */
    uint32_t pmtu;
};

struct roce_engine {
    struct roce_config cfg;
    struct roce_decode_cfg dcfg;
    struct roce_totals totals;
    struct roce_frame_out
        scratch;             /* the frame's decode and verdict when the caller wants neither */
    uint64_t alloc_failures; /* of the analysis; the flow table counts its own */
    int64_t now;             /* latest capture time seen */
    uint8_t have_now;

    struct roce_flow_table flows;

    /* episodes */
    struct roce_episode *episodes;
    uint32_t n_episodes, cap_episodes;

    /* CE marks in arrival order (struct ce_entry, roce_ecn.c) */
    struct roce_ring ce;
    /* CNPs waiting for their connection, in arrival order (struct cnp_entry, roce_ecn.c) */
    struct roce_ring cnp_wait;

    /* open verdicts (struct vq_entry, roce_verdq.c), at most cfg.max_open_verdicts */
    struct roce_ring vq;

    struct roce_lat cnp_lat;
    struct roce_lat ack_lat;

    /* the frame being analysed: where its verdict will go if it has one,
     * how many late annotations it waits for, and until when */
    uint64_t cur_seq;
    unsigned cur_pending;
    int64_t cur_deadline;
    struct roce_verdict *cur_v; /* its verdict while it is analysed (NULL between frames) */
    /* its flow until its time is written in (roce_flow_last_new), and
     * whether it was a new request there (roce_seq.c) */
    const struct roce_flow *cur_flow;
    uint8_t cur_new;

    struct cm_req cm[CM_PENDING];
    uint64_t cm_reqs;             /* REQs seen */
    uint32_t cm_waiting, cm_peak; /* REQs waiting now, at most */

    struct pfc_state pfc[ROCE_PFC_PRIORITIES + 1]; /* the last one: 802.3x PAUSE */
    int64_t pfc_origin;                            /* start of the first storm window */
    uint8_t pfc_have_origin;
    /* the latest pauses (roce_victims.c), the next slot, whether one was
     * overwritten, and when the latest began per priority (and link PAUSE) */
    struct pause_rec pauses[ROCE_PAUSES_KEPT];
    unsigned pauses_next;
    uint8_t pauses_wrapped;
    int64_t pause_last_start[ROCE_PFC_PRIORITIES + 1];

    /* PSN gaps waiting to be classified (struct gapq_entry, roce_caploss.c),
     * and when the oldest of them times out (INT64_MAX: none) */
    struct roce_ring gapq;
    int64_t gapq_next;
    /* CNPs whose after window is open (struct dcq_entry, roce_dcqcn.c), and
     * when the oldest window ends (INT64_MAX: none) */
    struct roce_ring dcq;
    int64_t dcq_next;
    /* source MACs (roce_hosts.c): entries, and their index by MAC */
    struct roce_host_mac *macs;
    uint32_t n_macs, cap_macs;
    struct roce_index mac_index;
    /* recovery times and DCQCN ratios (roce_diag.h) */
    struct roce_hist hist[ROCE_HIST_KINDS];
    /* the recent requests of all flows, by class of address pair
     * (roce_reqlog.c) */
    struct reqlog_ring reqlog[REQLOG_CLASSES];
    /* receivers and their senders (roce_incast.c), NULL until the first request */
    struct roce_incast *incast;
    /* the latest CNP to each destination (roce_cnpdst.c), NULL until the first CNP */
    struct roce_cnpdst *cnpdst;
};

/* The current frame will wait for one more annotation, until deadline. */
static inline void roce_cur_expect(struct roce_engine *e, int64_t deadline)
{
    e->cur_pending++;
    if (deadline > e->cur_deadline)
        e->cur_deadline = deadline;
}

/* The time of the latest new request of f (returned) and its frame
 * (*frame); the frame being analysed when it is one, until analyse()
 * writes its time into its flow (req_hot.new_last). */
static inline int64_t roce_flow_last_new(const struct roce_engine *e, const struct roce_flow *f,
                                         uint64_t *frame)
{
    if (f == e->cur_flow && e->cur_new) {
        *frame = e->cur_v->frame;
        return e->cur_v->ts_ns;
    }
    if (f->req.new_last) {
        *frame = f->last_frame;
        return f->last_ts_ns;
    }
    *frame = roce_flow_cold(f)->req.last_new_frame;
    return roce_flow_cold(f)->req.last_new_ts;
}

#endif
