/*
 * roce_hist.h - recovery-time and congestion-reaction histograms, fixed
 * buckets for the live monitor's metrics (roce_hist.c). Part of the public
 * interface (roce_engine.h: roce_engine_histogram).
 */
#ifndef ROCE_HIST_H
#define ROCE_HIST_H

#include <stdint.h>

#define ROCE_HIST_BUCKETS 12
/* Cumulative-free bucket counts: bucket i holds the samples <= bound[i]
 * (and above bound[i - 1]); the last bucket everything above. */
struct roce_hist {
    uint64_t bucket[ROCE_HIST_BUCKETS + 1];
    uint64_t count;
    int64_t sum; /* ns, or ppm for the ratio; stays at INT64_MAX once the samples
                    add up to more (times of hostile captures reach 2^62 ns) */
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
