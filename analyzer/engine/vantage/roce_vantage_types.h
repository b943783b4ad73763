/*
 * roce_vantage_types.h - the data of the vantage-point analysis: what it is
 * told (configuration, the points) and what it finds (clock offsets, totals,
 * flows, segments, located losses and CE marks). Front ends get these
 * through roce_vantage.h; the analysis modules use them without the API.
 *
 * Times are int64_t nanoseconds (roce_time.h); "aligned" times are in the
 * reference clock, point 0's.
 */
#ifndef ROCE_VANTAGE_TYPES_H
#define ROCE_VANTAGE_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "roce_lat.h"
#include "roce_verdict.h"

/* Points of one analysis (bit masks of uint32_t). */
#define ROCE_VANTAGE_MAX_POINTS 32
/* An open end of a segment: before the first point or after the last. */
#define ROCE_VANTAGE_END (-1)

/* ---- what the analysis is told ---- */

struct roce_vantage_config {
    int64_t path_delay_ns; /* two sightings of one transmission are at most this far apart
                              (aligned), default 1 ms */
    uint32_t max_flows;    /* flows tracked, default 65536 */
    uint32_t max_open;     /* transmissions waiting in the matching window, default 1 << 18 */
    uint32_t max_listed;   /* losses listed and CE marks listed (each), default 1 << 20 */
    uint32_t max_gap_psns; /* missing PSNs of one gap that are located, default 1024 */
    int64_t horizon_ns;    /* how long a lost original explains a later resend, default 1 s */
};

/* What the caller knows of a point before the analysis. */
struct roce_vantage_point {
    unsigned source;                 /* the input its records come from (0 .. sources-1) */
    int64_t first_ts_ns, last_ts_ns; /* its capture span, its own clock */
    unsigned tie_rank;               /* order among points when the traffic does not tell */
};

/* ---- clock offsets ---- */

enum roce_vclock_status {
    ROCE_VCLOCK_REFERENCE = 0, /* point 0 */
    ROCE_VCLOCK_ESTIMATED = 1,
    ROCE_VCLOCK_GIVEN = 2,
    ROCE_VCLOCK_NO_COMMON = 3,   /* no transmission seen both here and at point 0 */
    ROCE_VCLOCK_ONE_WAY = 4,     /* common transmissions, but no host pair in both directions */
    ROCE_VCLOCK_INCONSISTENT = 5 /* they do not agree on one offset, nor on a drift */
};

struct roce_vantage_clock {
    uint8_t status;         /* enum roce_vclock_status */
    uint8_t consistent;     /* the host pairs' bounds agree (else drift or a clock step) */
    uint8_t drift_known;    /* estimates at the start and the end of the overlap exist */
    uint8_t drift_detected; /* they differ by more than their error bounds: aligned linearly */
    int64_t offset_ns;      /* this point's clock minus point 0's */
    int64_t error_bound_ns; /* |true offset - offset_ns| <= this, if no one-way delay is negative */
    uint64_t samples;       /* matched transmissions it was estimated from (before: found) */
    uint32_t host_pairs;    /* host pairs with both directions among them */
    int64_t start_offset_ns, start_bound_ns, end_offset_ns, end_bound_ns;
    int64_t start_ts_ns, end_ts_ns; /* reference-clock times the two estimates stand for */
    int64_t drift_ns;               /* end_offset_ns - start_offset_ns */
};

/* ---- results ---- */

struct roce_vantage_totals {
    int64_t common_first_ns, common_last_ns; /* time every point captured (reference clock) */
    uint64_t transmissions;                  /* records fed */
    uint64_t groups;                         /* distinct transmissions */
    uint64_t matched;                        /* ... seen at two or more points */
    uint64_t losses, losses_unlisted; /* located lost request PSNs; those beyond max_listed */
    uint64_t ce_marks, ce_unlisted;
    uint64_t capture_misses;     /* originals a point missed while a point downstream saw them */
    uint64_t outside_span;       /* transmissions not seen everywhere, outside the common span:
                                    not evidence of loss */
    uint64_t outside_ce;         /* CE-marked transmissions outside the common span */
    uint64_t gap_psns_unlocated; /* missing PSNs beyond max_gap_psns of one gap */
    uint64_t forced;             /* transmissions settled early: the window was full */
    uint64_t flows_dropped;      /* records of flows beyond max_flows (not matched) */
    uint64_t alloc_failures;
};

/* Per point. */
struct roce_vantage_pstats {
    uint64_t transmissions; /* records fed */
    uint64_t matched;       /* ... matched with a transmission at another point */
    uint64_t capture_misses;
    uint64_t gap_psns;         /* missing PSNs its engine reported */
    int64_t first_ns, last_ns; /* its capture span, reference clock */
};

/* A segment of a flow's path: between two points, or an open end. */
struct roce_vantage_segment {
    int after;  /* point index, or ROCE_VANTAGE_END (before the first point) */
    int before; /* point index, or ROCE_VANTAGE_END (after the last point) */
    uint64_t lost, ce_marked;
    struct roce_lat_summary latency; /* one-way, aligned; count 0 for open ends */
};

struct roce_vantage_flow {
    struct roce_flow_key key;
    uint32_t presence; /* points that saw the flow (bit per point) */
    uint8_t locate;    /* a request flow whose losses are located */
    uint8_t n_order;
    uint8_t order[ROCE_VANTAGE_MAX_POINTS]; /* upstream to downstream */
    uint64_t transmissions, matched;
    size_t n_segments;
    const struct roce_vantage_segment *segments; /* its path in order, then other pairs */
};

/* What shows a loss. */
enum roce_vevidence {
    ROCE_VEVIDENCE_GAPS = 0,    /* no point saw it: the PSN gaps of the points say it is missing */
    ROCE_VEVIDENCE_MISSING = 1, /* seen upstream, missing downstream */
    ROCE_VEVIDENCE_RESENT = 2,  /* the last point saw it; a go-back-N episode resent it */
    ROCE_VEVIDENCE_MARKED = 3   /* (a CE mark) */
};

/* A located loss or CE mark. */
struct roce_vantage_event {
    struct roce_flow_key key;
    uint32_t psn;
    int after, before;    /* point index or ROCE_VANTAGE_END */
    int first_point;      /* the point that saw it first, -1 when none did */
    uint64_t first_frame; /* its frame there (0 when none); for RESENT: the resend's */
    int64_t time_ns;      /* reference clock: that sighting, or when a gap showed it missing */
    uint8_t evidence;     /* enum roce_vevidence */
};

#endif
