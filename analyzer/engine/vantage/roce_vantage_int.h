/*
 * roce_vantage_int.h - the state of one vantage-point analysis, shared by
 * its modules (not for front ends: they use roce_vantage.h). Each module
 * calls only the ones below it:
 *
 *   roce_vantage.c         the API: set-up, the two readings, the results' accessors
 *   roce_vantage_result.c  at the end: orders, loss locations, segments, sorting
 *   roce_vantage_match.c   the matching window of the second reading
 *   roce_vantage_settle.c  what a transmission shows once its window closed
 *   roce_vantage_flow.c    the flows: table, segments, votes, order, location
 *   roce_vantage_clock.c   clock offsets, error bounds and drift (from the samples)
 *   roce_vantage_sample.c  transmission records, split keys, the per-point samples
 *   roce_vantage_pause.c   PFC pauses across the points (on its own, after the clocks)
 *
 * Ownership: struct roce_vantage owns everything below; each module frees
 * what it allocated. Flows and window slots are named by handles (index + 1,
 * 0 = none) so their arrays may grow.
 */
#ifndef ROCE_VANTAGE_INT_H
#define ROCE_VANTAGE_INT_H

#include <stdint.h>
#include <stdlib.h>

#include "roce_index.h"
#include "roce_lat.h"
#include "roce_ring.h"
#include "roce_vantage_sample.h"
#include "roce_vantage_types.h"

#define VBIT(p) (UINT32_C(1) << (p))

/* Counts and latency of one segment (after, before) of a flow. */
struct vpair {
    int8_t after, before; /* point, or ROCE_VANTAGE_END */
    uint64_t lost, ce;
    struct roce_lat lat;
};

struct vflow {
    struct roce_vantage_flow report; /* key, presence, order, counts; segments at the end */
    int32_t *votes; /* [pair index of (i < j)]: > 0 when i was upstream of j more often */
    struct vpair *pairs;
    uint32_t n_pairs, cap_pairs;
    struct roce_vantage_segment *segments; /* owned (report.segments) */
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
struct voriginal {
    uint32_t flow; /* handle */
    uint32_t psn;
    int64_t time;
    int32_t candidate; /* its loss candidate, -1 when none (outside the common span or unlisted) */
    uint32_t next;     /* hash chain: slot handle */
};

/* A loss candidate or a CE mark, kept compact until the results turn it
 * into a struct roce_vantage_event (a CE mark is located when it is found,
 * a loss once the flows' orders are final). */
struct vevent {
    uint32_t flow; /* handle */
    uint32_t psn;
    uint32_t seen; /* points that saw the original (losses) */
    int64_t time;  /* aligned: the first sighting, or the first missing report */
    uint64_t first_frame;
    int32_t first_point;  /* -1 when no point saw it */
    int8_t after, before; /* CE marks: where */
    uint8_t episode;      /* losses: an episode resent it */
};

struct roce_vantage {
    struct roce_vantage_config cfg;
    unsigned n_points, n_sources;
    struct roce_vantage_point points[ROCE_VANTAGE_MAX_POINTS];
    struct roce_vantage_clock clock[ROCE_VANTAGE_MAX_POINTS];
    double slope[ROCE_VANTAGE_MAX_POINTS]; /* drift (roce_vantage_clock.h) */
    int64_t first_aligned[ROCE_VANTAGE_MAX_POINTS], last_aligned[ROCE_VANTAGE_MAX_POINTS];
    int started, finished;
    int64_t margin; /* largest aligned one-way delay seen in the samples (span edges) */
    int have_margin;

    /* sources: the inputs of the second reading */
    int64_t *source_ts;  /* latest raw time fed, per source */
    int64_t *max_offset; /* largest offset of its points */
    uint8_t *ended, *fed;

    /* flows */
    struct vflow *flows;
    uint32_t n_flows, cap_flows;
    struct roce_index flow_index;

    /* the matching window */
    struct vgroup *groups;
    int64_t *sighting_ts; /* n_points aligned times per slot */
    uint32_t cap_g;       /* slots in groups */
    uint32_t n_live, free_head;
    uint32_t *buckets, bucket_mask;
    uint32_t *heap;
    uint64_t next_seq;

    /* originals not seen everywhere, oldest first */
    struct roce_ring originals; /* struct voriginal */
    uint32_t *orig_buckets, orig_bucket_mask;

    /* found while settling */
    struct vevent *candidates; /* loss candidates */
    uint32_t n_candidates, cap_candidates;
    struct vevent *marks; /* CE marks */
    uint32_t n_marks, cap_marks;
    struct roce_lat *hop_lat; /* n_points x n_points: consecutive sightings p -> q */

    /* results */
    struct roce_vantage_totals totals;
    struct roce_vantage_pstats point_stats[ROCE_VANTAGE_MAX_POINTS];
    struct roce_vantage_segment *segments; /* summed over the flows */
    size_t n_segments;
    uint32_t *sorted; /* flow handles ordered by key */
    uint32_t n_sorted;
    struct roce_vantage_event *losses, *ce_marks;
    uint32_t n_losses, n_ce_marks;
    struct vpause_res *pause; /* roce_vantage_pause.c, NULL until roce_vantage_pauses */
};

struct vpause_res;
void roce_vpause_res_free(struct vpause_res *r);

/* Room for one more item in an array of *cap items of `size` bytes holding
 * n: the array itself, or the array grown to twice (first when empty) with
 * *cap updated. NULL when out of memory (the array is then unchanged). */
static inline void *roce_vreserve(void *items, uint32_t n, uint32_t *cap, size_t size,
                                  uint32_t first)
{
    if (n < *cap)
        return items;
    uint32_t c = *cap ? *cap * 2 : first;
    void *grown = realloc(items, (size_t)c * size);
    if (grown != NULL)
        *cap = c;
    return grown;
}

#endif
