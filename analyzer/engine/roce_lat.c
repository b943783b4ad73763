/*
 * roce_lat.c - bounded latency distribution (see roce_lat.h).
 */
#include "roce_lat.h"

#include <stdlib.h>
#include <string.h>

void roce_lat_init(struct roce_lat *l)
{
    memset(l, 0, sizeof *l);
}

void roce_lat_free(struct roce_lat *l)
{
    free(l->exact);
    free(l->hist);
    l->exact = NULL;
    l->hist = NULL;
}

/* Bucket of a value: octave = floor(log2(v)), then ROCE_LAT_SUB linear steps. */
static unsigned bucket_of(uint64_t v)
{
    if (v < ROCE_LAT_SUB)
        return (unsigned)v; /* the first octaves are exact */
    unsigned msb = 63u - (unsigned)__builtin_clzll(v);
    unsigned shift = msb - 4; /* ROCE_LAT_SUB == 2^4 */
    unsigned idx = (shift + 1) * ROCE_LAT_SUB + (unsigned)((v >> shift) - ROCE_LAT_SUB);
    return idx < ROCE_LAT_BUCKETS ? idx : ROCE_LAT_BUCKETS - 1;
}

/* Midpoint of a bucket. */
static int64_t bucket_value(unsigned idx)
{
    if (idx < ROCE_LAT_SUB)
        return idx;
    unsigned shift = idx / ROCE_LAT_SUB - 1;
    uint64_t lo = ((uint64_t)ROCE_LAT_SUB + idx % ROCE_LAT_SUB) << shift;
    return (int64_t)(lo + ((1ull << shift) >> 1));
}

int roce_lat_add(struct roce_lat *l, int64_t ns)
{
    if (ns < 0)
        ns = 0;
    if (l->count == 0 || ns < l->min)
        l->min = ns;
    if (l->count == 0 || ns > l->max)
        l->max = ns;
    if (l->count < ROCE_LAT_EXACT) {
        if (l->exact == NULL && (l->exact = malloc(ROCE_LAT_EXACT * sizeof *l->exact)) == NULL)
            return -1; /* out of memory: only min and max saw it */
        l->exact[l->count++] = ns;
        return 0;
    }
    if (l->hist == NULL) {
        l->hist = calloc(ROCE_LAT_BUCKETS, sizeof *l->hist);
        if (l->hist == NULL)
            return -1; /* out of memory: only min and max saw it */
        if (l->exact != NULL) /* the exact samples move into the histogram */
            for (unsigned i = 0; i < ROCE_LAT_EXACT; i++)
                l->hist[bucket_of((uint64_t)l->exact[i])]++;
        free(l->exact);
        l->exact = NULL;
    }
    l->hist[bucket_of((uint64_t)ns)]++;
    l->count++;
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int64_t roce_lat_percentile(const struct roce_lat *l, unsigned pct)
{
    if (l->count == 0)
        return 0;
    uint64_t rank = (l->count * pct + 99) / 100; /* ceil(pct% of count) */
    if (rank < 1)
        rank = 1;
    if (rank > l->count)
        rank = l->count;
    if (l->hist == NULL) {
        int64_t s[ROCE_LAT_EXACT];
        memcpy(s, l->exact, l->count * sizeof s[0]);
        qsort(s, l->count, sizeof s[0], cmp_i64);
        return s[rank - 1];
    }
    uint64_t seen = 0;
    for (unsigned i = 0; i < ROCE_LAT_BUCKETS; i++) {
        seen += l->hist[i];
        if (seen >= rank) {
            int64_t v = bucket_value(i);
            return v < l->min ? l->min : v > l->max ? l->max : v;
        }
    }
    return l->max;
}

void roce_lat_summarize(const struct roce_lat *l, struct roce_lat_summary *s)
{
    memset(s, 0, sizeof *s);
    if (l->count == 0)
        return;
    s->count = l->count;
    s->min = l->min;
    s->max = l->max;
    s->p50 = roce_lat_percentile(l, 50);
    s->p99 = roce_lat_percentile(l, 99);
}
