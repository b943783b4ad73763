/*
 * roce_hist.c - recovery-time and congestion-reaction histograms (see
 * roce_hist.h).
 */
#include "roce_hist.h"

/* Bucket bounds: recovery times in ns from 1 us to 1 s, the DCQCN ratio in
 * ppm around the verdict thresholds. */
static const int64_t time_bounds[ROCE_HIST_BUCKETS] = {1000,     2000,      5000,      10000,
                                                       20000,    50000,     100000,    1000000,
                                                       10000000, 100000000, 500000000, 1000000000};
static const int64_t ratio_bounds[ROCE_HIST_BUCKETS] = {100000, 250000,  500000,  600000,
                                                        700000, 800000,  850000,  900000,
                                                        950000, 1000000, 1250000, 2000000};

const int64_t *roce_hist_bounds(unsigned kind)
{
    return kind == ROCE_HIST_DCQCN_RATIO ? ratio_bounds : time_bounds;
}

void roce_hist_add(struct roce_hist *h, unsigned kind, int64_t v)
{
    const int64_t *b = roce_hist_bounds(kind);
    unsigned i = 0;
    if (v < 0)
        v = 0;
    while (i < ROCE_HIST_BUCKETS && v > b[i])
        i++;
    h->bucket[i]++;
    h->count++;
    h->sum = v > INT64_MAX - h->sum ? INT64_MAX : h->sum + v; /* both >= 0 */
}
