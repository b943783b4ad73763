/*
 * html_series.h - the series' layout, for the page's writers (html_*.c);
 * front ends use html.h only.
 */
#ifndef ROCE_HTML_SERIES_H
#define ROCE_HTML_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "html.h"

/* One time bucket of a flow. PSNs are unwrapped (roce_psn_unwrap), in the
 * sequence of their kind: requests in the flow's own, responses in the one
 * of the requests they answer (the paired flow's). */
struct roce_html_bucket {
    int64_t req_lo, req_hi; /* PSNs of the requests sent new (valid when req_new) */
    int64_t resp_hi;        /* the highest response PSN (valid when resp) */
    uint64_t bytes;         /* frame lengths on the wire (as the flow's bytes) */
    uint32_t packets;
    uint32_t req_new; /* requests that were not retransmissions */
    uint32_t resp;    /* responses */
    uint32_t pad_;
};

/* An unwrapped PSN sequence: the first raw PSN, and the latest unwrapped. */
struct roce_html_seq {
    int64_t last;
    uint32_t first;
    uint8_t have;
};

/* Where a frame with verdicts is plotted: the kind of its opcode. */
enum roce_html_mark_kind {
    ROCE_HTML_MARK_REQUEST = 0,  /* at its PSN, on its own flow's graph */
    ROCE_HTML_MARK_RESPONSE = 1, /* at its PSN, on the paired flow's graph */
    ROCE_HTML_MARK_CNP = 2,      /* in the CNP strip of the paired flow's graph */
    ROCE_HTML_MARK_OTHER = 3     /* no BTH or no known opcode: in the strip of its own */
};

/* A frame with verdicts. */
struct roce_html_mark {
    uint64_t frame;
    int64_t ts_ns;
    int64_t psn_abs;   /* unwrapped in the sequence of its kind */
    uint32_t psn;      /* as on the wire */
    uint32_t flags;    /* enum roce_verdict_flag */
    uint32_t missing;  /* on GAP and RESP_GAP: PSNs missing before it */
    uint8_t kind;      /* enum roce_html_mark_kind */
    uint8_t gap_class; /* on GAP: enum roce_gap_class */
    uint8_t pad_[2];
};

/* A flow's series. What every frame reads and writes comes first, in two
 * cache lines (the struct is aligned to them): where the buckets start and
 * how wide they are, the sequences, and the bucket being filled (cur), which
 * goes into b[] when a frame falls in another bucket and at
 * roce_html_series_finish(). */
struct roce_html_flow {
    int64_t origin_ns; /* bucket i covers origin + [i, i+1) x width */
    uint32_t shift;    /* the width is 2^shift ns */
    uint32_t cur_k;    /* the bucket cur is for */
    struct roce_html_seq req, resp;
    struct roce_html_bucket cur;
    /* the rest */
    uint64_t id;
    int64_t width_ns;
    int64_t first_ts_ns, last_ts_ns; /* the first and last frame the series holds */
    struct roce_html_mark *marks;
    uint32_t n_marks, cap_marks;
    uint64_t marks_dropped; /* beyond ROCE_HTML_MARKS_PER_FLOW or ROCE_HTML_MAX_MARKS */
    struct roce_html_bucket b[ROCE_HTML_BUCKETS];
};

/* What the engine said of PFC/PAUSE at the latest sample, per slot. */
struct roce_html_pfc_sample {
    int64_t ts_ns, paused_ns;
    uint64_t xoff, xon;
};

/* The PFC/PAUSE timeline: paused time and XOFF/XON frames per bucket. */
struct roce_html_pfc {
    int64_t origin_ns, width_ns;
    int64_t paused[ROCE_HTML_PFC_SLOTS][ROCE_HTML_PFC_BUCKETS];
    uint32_t xoff[ROCE_HTML_PFC_SLOTS][ROCE_HTML_PFC_BUCKETS];
    uint32_t xon[ROCE_HTML_PFC_SLOTS][ROCE_HTML_PFC_BUCKETS];
    int64_t end_ns; /* the latest time with paused time in it */
};

/* The capture's timeline: every frame's bytes on the wire, CE marks and
 * CNPs per time bucket, from the capture's first frame (one series for the
 * whole capture, whatever the number of flows). With -j, each file's
 * buckets are added at their start time (within one of its buckets). */
struct roce_html_timeline {
    int64_t origin_ns, width_ns; /* origin: the first frame's time (valid when have) */
    int64_t end_ns;              /* the latest frame's time */
    uint32_t shift;              /* width_ns is 2^shift */
    uint64_t bytes[ROCE_HTML_TL_BUCKETS];
    uint32_t packets[ROCE_HTML_TL_BUCKETS];
    uint32_t ce[ROCE_HTML_TL_BUCKETS];  /* frames with a CE (or FECN) mark */
    uint32_t cnp[ROCE_HTML_TL_BUCKETS]; /* CNPs */
    int have;
};

/* A flow's place in the table: its id, latest activity and trouble so far
 * beside it, so that choosing the series to evict reads one array. */
struct roce_html_slot {
    uint64_t id;
    int64_t last_ts_ns;
    uint64_t trouble;         /* frames with verdicts so far (a gap counts its missing PSNs too) */
    struct roce_html_flow *f; /* NULL: free */
};

struct roce_html_series {
    struct roce_html_slot *slots; /* open addressing by id (linear probing) */
    size_t n_slots, n_flows;
    struct roce_html_slot *last; /* the slot of the previous frame (most frames follow one) */
    size_t hand;                 /* where the next search for a series to evict starts */
    uint64_t n_marks;
    struct roce_html_mark *loose; /* frames with verdicts outside any flow */
    size_t n_loose;
    struct roce_html_pfc *pfc; /* NULL until the first MAC Control frame */
    struct roce_html_timeline tl;
    struct roce_html_pfc_sample pfc_last[ROCE_HTML_PFC_SLOTS];
    int have_first;
    int64_t first_ts_ns; /* the first frame's time (origin of the PFC timeline) */
    /* bounds reached */
    uint64_t flows_evicted;  /* series dropped for other flows (ROCE_HTML_MAX_SERIES) */
    uint64_t marks_dropped;  /* frames with verdicts not kept (per-flow or total cap) */
    uint64_t loose_dropped;  /* ... outside any flow, beyond ROCE_HTML_MAX_LOOSE */
    uint64_t alloc_failures; /* series or marks that could not be allocated */
};

/* Where bucket k of a timeline starts (origin + k x width; k may be the
 * number of buckets: where the last ends). Capture times are at most 2^62
 * ns and a width is at most twice the span over the buckets, so this never
 * passes 2^63 and is worked out without overflow, saturated for safety. */
static inline int64_t roce_html_bucket_start(int64_t origin_ns, int64_t width_ns, unsigned k)
{
    uint64_t t = (uint64_t)origin_ns + (uint64_t)k * (uint64_t)width_ns;
    return t > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)t;
}

/* The series of a flow, or NULL. */
const struct roce_html_flow *roce_html_series_flow(const struct roce_html_series *s, uint64_t id);
/* Whether a flow's series covers the whole flow (its first and last frame
 * at first_ns and last_ns, as the report has them) with every frame with
 * verdicts: 1, else 0 (the graph says it is partial). */
int roce_html_series_complete(const struct roce_html_flow *f, int64_t first_ns, int64_t last_ns);
/* Index of the bucket that holds time t (clamped to the buckets). */
unsigned roce_html_bucket_of(const struct roce_html_flow *f, int64_t t);
/* The sequence a flow's graph is drawn in (its requests', else its
 * responses'), or NULL when it has neither. */
const struct roce_html_seq *roce_html_flow_seq(const struct roce_html_flow *f);
/* psn placed in a flow's graph at time t: unwrapped next to what the flow
 * sent (or answered) around t, relative to the first PSN of its sequence. */
int64_t roce_html_flow_psn(const struct roce_html_flow *f, int64_t t, uint32_t psn);

#endif
