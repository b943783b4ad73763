/*
 * roce_lat.h - bounded-memory latency distribution (min, p50, p99, max).
 *
 * The first ROCE_LAT_EXACT samples are kept as they are, so small captures
 * get exact nearest-rank percentiles; after that every sample goes into a
 * log-linear histogram with ROCE_LAT_SUB linear buckets per power of two
 * (a reported percentile is the middle of its bucket: within 1/(2 x
 * ROCE_LAT_SUB), about 3%, of the true value), clamped to the exact min and
 * max. Memory is fixed however many samples it takes: the struct (40
 * bytes), the exact samples (256 bytes, at the first sample) and, once they
 * overflow, 2.5 KB of counters.
 */
#ifndef ROCE_LAT_H
#define ROCE_LAT_H

#include <stddef.h>
#include <stdint.h>

#define ROCE_LAT_EXACT   32
#define ROCE_LAT_SUB     16
#define ROCE_LAT_OCTAVES 40 /* 1 ns .. 2^40 ns (about 18 minutes) */
#define ROCE_LAT_BUCKETS (ROCE_LAT_SUB * ROCE_LAT_OCTAVES)

struct roce_lat {
    uint64_t count;
    int64_t min, max;
    int64_t *exact; /* ROCE_LAT_EXACT samples, allocated at the first sample */
    uint32_t *hist; /* ROCE_LAT_BUCKETS counters, allocated when exact[] overflows */
};

/* Summary in nanoseconds; all zero when count == 0. */
struct roce_lat_summary {
    uint64_t count;
    int64_t min, p50, p99, max;
};

void roce_lat_init(struct roce_lat *l);
void roce_lat_free(struct roce_lat *l);
/* Add a sample (negative samples count as 0). Returns -1 when memory for it
 * could not be allocated (the sample then only moves min and max, and is
 * not counted). */
int roce_lat_add(struct roce_lat *l, int64_t ns);
/* Nearest-rank percentile pct (1..100) of the samples: the smallest sample
 * with at least pct% of all samples at or below it. */
int64_t roce_lat_percentile(const struct roce_lat *l, unsigned pct);
void roce_lat_summarize(const struct roce_lat *l, struct roce_lat_summary *s);

/* Merging (reports made separately, then combined): the result is the
 * distribution one roce_lat would hold after taking both sets of samples,
 * so merged percentiles equal those of a joint analysis. */
/* Deep copy; 0, or -1 when out of memory (dst is then empty). */
int roce_lat_copy(struct roce_lat *dst, const struct roce_lat *src);
/* Add src's samples to dst; 0, or -1 when out of memory. */
int roce_lat_merge(struct roce_lat *dst, const struct roce_lat *src);
/* The exact samples (hist == NULL): count of them, pointer in *samples. */
size_t roce_lat_exact(const struct roce_lat *l, const int64_t **samples);
/* Histogram mode: the count of bucket idx (0 <= idx < ROCE_LAT_BUCKETS). */
uint32_t roce_lat_bucket(const struct roce_lat *l, unsigned idx);
/* The value a histogram bucket stands for (its middle), in ns. */
int64_t roce_lat_bucket_value(unsigned idx);
/* Rebuild a distribution from its parts (a parsed report): count samples
 * in bucket idx (histogram mode), with the exact min and max. 0 or -1. */
int roce_lat_add_bucket(struct roce_lat *l, unsigned idx, uint32_t count, int64_t min,
                        int64_t max);

#endif
