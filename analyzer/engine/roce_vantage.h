/*
 * roce_vantage.h - several captures of the same traffic (vantage points):
 * clock offsets, transmissions matched across points, the points ordered per
 * flow, every lost request PSN and every CE mark located between two points.
 *
 * Definitions: ../shared/docs/ANALYSIS-DEFINITIONS.md, Revision 2, "Vantage
 * points" and "Loss location"; the front end's documentation is
 * analyzer/cli/LOCALIZE.md.
 *
 * A front end reads every capture twice, each point through an engine of its
 * own, and turns each frame's engine output into a transmission record
 * (roce_vtx_from_frame):
 *
 *   1. first reading: each point's records go into a sample of its own
 *      (roce_vsample_add; one per point, so points can be read in parallel
 *      threads). roce_vantage_estimate() then matches the samples against
 *      the first point's and estimates every clock offset (with an error
 *      bound and a drift check) and which points saw which request flows.
 *   2. second reading: roce_vantage_need() says which input (source) the
 *      matcher wants records from next, so that all sources advance together
 *      in aligned time; roce_vantage_feed() takes them, roce_vantage_end()
 *      marks a source finished, roce_vantage_finish() settles the rest.
 *
 * Memory is bounded: a sample holds at most max_keys transmissions (chosen by
 * hash, the same at every point), the matcher keeps the transmissions of the
 * last few path-delay bounds (at most max_open), at most max_flows flows and
 * at most max_listed losses and CE marks each. What does not fit is counted.
 * C11 + libc only; a struct roce_vantage is used by one thread at a time.
 */
#ifndef ROCE_VANTAGE_H
#define ROCE_VANTAGE_H

#include <stddef.h>
#include <stdint.h>

#include "roce_engine.h"
#include "roce_lat.h"

#define ROCE_VANTAGE_MAX_POINTS 32 /* points of one analysis (bit masks of uint32_t) */
#define ROCE_VANTAGE_END                                                                           \
    (-1) /* an open end of a segment: before the first point or after the last */

/* ---- transmission records ---- */

enum roce_vtx_flag {
    ROCE_VTX_REQUEST = 1u << 0, /* a request packet (else a response) */
    ROCE_VTX_LOCATE = 1u << 1,  /* a request of a sequence-checked flow (RC, UC, XRC) */
    ROCE_VTX_RETX = 1u << 2,    /* the point's engine: retransmission */
    ROCE_VTX_EPISODE = 1u << 3, /* ... first packet of a go-back-N episode (trigger not implied) */
    ROCE_VTX_CE = 1u << 4,      /* IP ECN CE on a RoCEv2 request */
    ROCE_VTX_GAP = 1u << 5      /* gap_count PSNs from gap_first were missing at the point */
};

/* One packet transmission as one point saw it. */
struct roce_vtx {
    struct roce_flow_key key;
    int64_t ts_ns;  /* capture time, the point's own clock */
    uint64_t frame; /* frame number in its capture */
    uint32_t psn;
    uint32_t len; /* the packet's "original length": BTH to the end of the ICRC, as its
                     IP/UDP (or GRH) headers declare it, so tags, mirror headers, padding
                     and the snaplen of a capture do not change it */
    uint32_t gap_first;
    uint32_t gap_count;
    uint8_t opcode;
    uint8_t flags; /* enum roce_vtx_flag */
    uint8_t pad_[6];
};

/* Fill tx from the engine output of one frame. Returns 1 when the frame is a
 * transmission to match (a decoded request or response of a tracked flow;
 * not a CNP, not malformed, not cut before the BTH), else 0. */
int roce_vtx_from_frame(const struct roce_frame_out *o, struct roce_vtx *tx);

/* ---- splitting one capture into several points (mirror collectors) ---- */

enum roce_vantage_split {
    ROCE_SPLIT_NONE = 0,
    ROCE_SPLIT_ERSPAN_SESSION = 1, /* ERSPAN type II/III session ID */
    ROCE_SPLIT_OUTER_SOURCE = 2    /* source address of the outermost tunnel (GRE, ERSPAN, VXLAN) */
};

struct roce_split_key {
    uint8_t has;   /* 0: the frame was not mirrored that way (it belongs to the file itself) */
    uint8_t is_v6; /* outer source: IPv6 (else IPv4 in the last 4 bytes) */
    uint16_t session;
    uint8_t addr[ROCE_ADDR_LEN];
};

/* The split key of a decoded frame (roce_decode() output). */
void roce_vantage_split_key(const struct roce_pkt *pkt, enum roce_vantage_split by,
                            struct roce_split_key *k);

/* ---- first reading: samples ---- */

struct roce_vsample;

/* A point's sample: at most max_keys transmissions (the hash decides which,
 * identically at every point) and the request flows it saw (at most
 * max_flows). NULL when out of memory. */
struct roce_vsample *roce_vsample_new(uint32_t max_keys, uint32_t max_flows);
void roce_vsample_free(struct roce_vsample *s);
void roce_vsample_add(struct roce_vsample *s, const struct roce_vtx *tx);
/* Transmissions added. */
uint64_t roce_vsample_count(const struct roce_vsample *s);

/* ---- the analysis ---- */

struct roce_vantage_config {
    int64_t path_delay_ns; /* two sightings of one transmission are at most this far apart
                              (aligned), default 1 ms */
    uint32_t max_flows;    /* flows tracked, default 65536 */
    uint32_t max_open;     /* transmissions waiting in the matching window, default 1 << 20 */
    uint32_t max_listed;   /* losses listed and CE marks listed (each), default 1 << 20 */
    uint32_t max_gap_psns; /* missing PSNs of one gap that are located, default 1024 */
    int64_t horizon_ns;    /* how long a lost original explains a later resend, default 1 s */
};

void roce_vantage_config_default(struct roce_vantage_config *cfg);

/* What the caller knows of a point before the analysis. */
struct roce_vantage_point {
    unsigned source;                 /* the input its records come from (0 .. sources-1) */
    int64_t first_ts_ns, last_ts_ns; /* its capture span, its own clock */
    unsigned tie_rank;               /* order among points when the traffic does not tell */
};

struct roce_vantage;

/* n_points points (1 .. ROCE_VANTAGE_MAX_POINTS) fed from n_sources inputs;
 * point 0 is the reference clock. Copies what it is given. NULL when out of
 * memory or the arguments are invalid. */
struct roce_vantage *roce_vantage_new(const struct roce_vantage_config *cfg, unsigned n_points,
                                      const struct roce_vantage_point *points, unsigned n_sources);
void roce_vantage_free(struct roce_vantage *v);

/* The offset of a point (point clock minus reference clock) as given by the
 * user; 0, or -1 for point 0 or an unknown point. */
int roce_vantage_set_offset(struct roce_vantage *v, unsigned point, int64_t offset_ns);

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

/* Estimate the offsets that were not given, from samples[0 .. n_points-1],
 * and learn from them which points saw which request flows. 0, or -1 when
 * out of memory. A point that could not be estimated has status NO_COMMON
 * ONE_WAY or INCONSISTENT; the caller decides (roce_vantage_start refuses it). */
int roce_vantage_estimate(struct roce_vantage *v, struct roce_vsample *const *samples);
const struct roce_vantage_clock *roce_vantage_clock(const struct roce_vantage *v, unsigned point);

/* Ready for the second reading. 0; -1 when a point has no offset (status
 * NO_COMMON, ONE_WAY or INCONSISTENT); -2 when the aligned capture spans have no time in
 * common; -3 when out of memory. */
int roce_vantage_start(struct roce_vantage *v);

/* The source whose next records are needed (the one furthest behind in
 * aligned time), or -1 when every source has ended. */
int roce_vantage_need(const struct roce_vantage *v);
/* A record of point `point`; the records of each source come in the order
 * of its capture. */
void roce_vantage_feed(struct roce_vantage *v, unsigned point, const struct roce_vtx *tx);
/* The source has no more records. */
void roce_vantage_end(struct roce_vantage *v, unsigned source);
/* Settle everything (after every source ended): orders, locations, segments. */
void roce_vantage_finish(struct roce_vantage *v);

/* ---- results (valid after roce_vantage_finish) ---- */

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

/* "gaps", "missing", "resent", "marked". */
const char *roce_vevidence_name(unsigned e);

const struct roce_vantage_totals *roce_vantage_totals(const struct roce_vantage *v);
const struct roce_vantage_pstats *roce_vantage_point_stats(const struct roce_vantage *v,
                                                           unsigned point);
/* Flows ordered by key (source, destination, dest QP). */
size_t roce_vantage_flow_count(const struct roce_vantage *v);
const struct roce_vantage_flow *roce_vantage_flow(const struct roce_vantage *v, size_t i);
/* Segments of all flows summed, in the order the sorted flows' paths give. */
size_t roce_vantage_segment_count(const struct roce_vantage *v);
const struct roce_vantage_segment *roce_vantage_segment(const struct roce_vantage *v, size_t i);
/* Listed losses and CE marks, ordered by flow, then time. */
size_t roce_vantage_loss_count(const struct roce_vantage *v);
const struct roce_vantage_event *roce_vantage_loss(const struct roce_vantage *v, size_t i);
size_t roce_vantage_ce_count(const struct roce_vantage *v);
const struct roce_vantage_event *roce_vantage_ce(const struct roce_vantage *v, size_t i);

#endif
