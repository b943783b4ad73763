/*
 * roce_vantage_int.h - state shared by the vantage-point modules (not for
 * front ends: they use roce_vantage.h).
 *
 *   roce_vantage_sample.c  transmission records, split keys, the per-point samples
 *   roce_vantage_clock.c   clock offsets, error bounds and drift from the samples
 *   roce_vantage.c         the analysis object, flows, the matching window
 *   roce_vantage_settle.c  what a transmission shows once its window closed
 *   roce_vantage_result.c  orders, loss locations, segments, the results
 *
 * Ownership: struct roce_vantage owns everything below. Flows and window
 * slots are named by handles (index + 1, 0 = none) so their arrays may grow.
 */
#ifndef ROCE_VANTAGE_INT_H
#define ROCE_VANTAGE_INT_H

#include <stdint.h>

#include "roce_index.h"
#include "roce_vantage.h"

#define VBIT(p) (UINT32_C(1) << (p))

/* ---- samples (first reading) ---- */

/* A sampled transmission: its key hash, its time, how often the point saw it. */
struct vs_entry {
    uint64_t h; /* 0: empty slot */
    int64_t ts;
    uint32_t count;
    uint8_t src[ROCE_ADDR_LEN], dst[ROCE_ADDR_LEN];
};

struct roce_vsample {
    struct vs_entry *tab; /* open addressing, 2 x max_keys slots */
    uint32_t mask, n, max_keys;
    unsigned level; /* a key is kept when the low `level` bits of its sample hash are 0 */
    struct roce_flow_key *flows; /* request flows seen */
    struct roce_index flow_ix;
    uint32_t n_flows, max_flows;
    uint64_t count;
};

/* 64-bit hash of a transmission's identity (flow, PSN, opcode, length). */
uint64_t roce_vtx_hash(const struct roce_vtx *tx);
/* Hash and equality of flow keys (addresses, dest QP, version). */
uint32_t roce_vflow_hash(const struct roce_flow_key *k);
int roce_vflow_key_eq(const struct roce_flow_key *a, const struct roce_flow_key *b);
/* Nonzero when a key hash is kept at a sampling level. */
int roce_vsample_keeps(uint64_t h, unsigned level);
/* The entry of a key hash, or NULL. */
const struct vs_entry *roce_vsample_find(const struct roce_vsample *s, uint64_t h);

/* ---- the analysis ---- */

/* Counts and latency of one segment (after, before) of a flow. */
struct vpair {
    int8_t after, before; /* point, or ROCE_VANTAGE_END */
    uint64_t lost, ce;
    struct roce_lat lat;
};

struct vflow {
    struct roce_flow_key key;
    uint32_t hash;
    uint32_t presence; /* points that saw it */
    uint8_t locate;
    uint8_t n_order;
    uint8_t order[ROCE_VANTAGE_MAX_POINTS];
    int32_t *votes; /* [pair index of (i < j)]: > 0 when i was upstream of j more often */
    struct vpair *pairs;
    uint32_t n_pairs, cap_pairs;
    struct roce_vantage_segment *segs; /* results */
    size_t n_segs;
    uint64_t transmissions, matched;
};

/* One transmission in the matching window, with its sightings. */
struct vgroup {
    int64_t first_t; /* aligned time of the earliest sighting (or missing report) */
    uint64_t seq;    /* creation order: ties of first_t */
    uint64_t first_frame;
    uint32_t flow; /* handle */
    uint32_t psn, len;
    uint32_t seen;    /* points that saw it */
    uint32_t absent;  /* points whose gap says they missed it (an original) */
    uint32_t retx;    /* ... that called it a retransmission */
    uint32_t episode; /* ... that called it the first packet of an episode */
    uint32_t ce;      /* ... that saw it CE-marked */
    uint32_t next;    /* hash chain: slot handle */
    uint32_t heap_pos;
    uint8_t opcode;
    uint8_t flags; /* ROCE_VTX_REQUEST, ROCE_VTX_LOCATE of its records */
    uint8_t first_point;
    uint8_t live;
};

/* An original that not every point saw, or a resend that proves a loss:
 * found by (flow, PSN) when a later resend or gap refers to it. */
struct vix_entry {
    uint32_t flow; /* 0: dead (superseded) */
    uint32_t psn;
    int64_t time;
    int32_t event; /* its loss event, -1 when none (outside the common span or unlisted) */
    uint32_t next; /* hash chain: entry handle */
};

/* A loss candidate, resolved when the flows' orders are known. */
struct vloss {
    uint32_t flow;
    uint32_t psn;
    uint32_t seen;
    int64_t time;
    int first_point;
    uint64_t first_frame;
    uint8_t episode;
};

struct roce_vantage {
    struct roce_vantage_config cfg;
    unsigned n, n_sources;
    struct roce_vantage_point points[ROCE_VANTAGE_MAX_POINTS];
    struct roce_vantage_clock clock[ROCE_VANTAGE_MAX_POINTS];
    double slope[ROCE_VANTAGE_MAX_POINTS]; /* drift: offset change per reference ns */
    int64_t first_al[ROCE_VANTAGE_MAX_POINTS], last_al[ROCE_VANTAGE_MAX_POINTS];
    int started, finished;
    int64_t margin; /* largest aligned one-way delay seen in the samples (span edges) */
    int have_margin;

    /* sources */
    int64_t *wm;      /* latest raw time fed, per source */
    int64_t *max_off; /* largest offset of its points */
    uint8_t *ended, *fed;

    /* flows */
    struct vflow *flows;
    uint32_t n_flows, cap_flows;
    struct roce_index flow_ix;

    /* the matching window */
    struct vgroup *g;
    int64_t *gt; /* n times per slot */
    uint32_t cap_g, n_live, free_head;
    uint32_t *buckets, bmask;
    uint32_t *heap;
    uint64_t seq;

    /* originals not seen everywhere */
    struct vix_entry *ix;
    uint32_t ix_cap, ix_head, ix_n;
    uint32_t *ix_buckets, ix_bmask;

    /* events */
    struct vloss *loss;
    uint32_t n_loss, cap_loss;
    struct roce_vantage_event *ce;
    uint32_t n_ce, cap_ce;
    struct roce_vantage_event *loss_out;
    uint32_t n_loss_out;

    struct roce_lat *lat; /* n x n: consecutive sightings p -> q */

    struct roce_vantage_totals t;
    struct roce_vantage_pstats ps[ROCE_VANTAGE_MAX_POINTS];
    struct roce_vantage_segment *segs;
    size_t n_segs;
    struct roce_vantage_flow *flow_out; /* sorted by key */
    uint32_t n_flow_out;
};

/* roce_vantage.c */
struct vflow *roce_vflow(struct roce_vantage *v, uint32_t handle);
/* The flow of a key, created when absent (NULL when the table is full). */
uint32_t roce_vflow_get(struct roce_vantage *v, const struct roce_flow_key *key, int create);
/* A point's raw time in the reference clock. */
int64_t roce_vantage_align(const struct roce_vantage *v, unsigned point, int64_t ts);
/* Unlink and free a window slot. */
void roce_vgroup_release(struct roce_vantage *v, uint32_t slot);

/* roce_vantage_settle.c */
void roce_vantage_settle(struct roce_vantage *v, uint32_t slot);
/* Index of pair (i, j), i < j, in a flow's vote array. */
unsigned roce_vote_index(unsigned n, unsigned i, unsigned j);
/* The segment (after, before) of a flow, created when absent (NULL: out of memory). */
struct vpair *roce_vpair_get(struct roce_vantage *v, struct vflow *f, int after, int before);
void roce_vix_free(struct roce_vantage *v);

/* roce_vantage_result.c */
/* The order of a flow from its votes and its host pair's (fills f->order). */
void roce_vflow_order(struct roce_vantage *v, struct vflow *f);
/* Resolve a loss candidate against its flow's order: 1 and the location
 * when it is a loss, 0 when only capture misses. Counts capture misses. */
int roce_vloss_locate(struct roce_vantage *v, const struct vloss *l, int *after, int *before);
int roce_vantage_results(struct roce_vantage *v);
void roce_vantage_results_free(struct roce_vantage *v);

/* roce_vantage_clock.c */
int roce_vantage_clock_estimate(struct roce_vantage *v, unsigned point,
                                const struct roce_vsample *ref, const struct roce_vsample *s);

#endif
