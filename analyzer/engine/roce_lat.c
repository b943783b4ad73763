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

int64_t roce_lat_bucket_value(unsigned idx)
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
            int64_t v = roce_lat_bucket_value(i);
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

int roce_lat_copy(struct roce_lat *dst, const struct roce_lat *src)
{
    roce_lat_init(dst);
    dst->count = src->count;
    dst->min = src->min;
    dst->max = src->max;
    if (src->exact != NULL) {
        dst->exact = malloc(ROCE_LAT_EXACT * sizeof *dst->exact);
        if (dst->exact == NULL)
            goto oom;
        memcpy(dst->exact, src->exact, ROCE_LAT_EXACT * sizeof *dst->exact);
    }
    if (src->hist != NULL) {
        dst->hist = malloc(ROCE_LAT_BUCKETS * sizeof *dst->hist);
        if (dst->hist == NULL)
            goto oom;
        memcpy(dst->hist, src->hist, ROCE_LAT_BUCKETS * sizeof *dst->hist);
    }
    return 0;
oom:
    roce_lat_free(dst);
    roce_lat_init(dst);
    return -1;
}

/* Switch l to histogram mode (its exact samples move into buckets). */
static int to_histogram(struct roce_lat *l)
{
    if (l->hist != NULL)
        return 0;
    l->hist = calloc(ROCE_LAT_BUCKETS, sizeof *l->hist);
    if (l->hist == NULL)
        return -1;
    for (uint64_t i = 0; l->exact != NULL && i < l->count; i++)
        l->hist[bucket_of((uint64_t)l->exact[i])]++;
    free(l->exact);
    l->exact = NULL;
    return 0;
}

int roce_lat_merge(struct roce_lat *dst, const struct roce_lat *src)
{
    if (src->count == 0)
        return 0;
    if (src->hist == NULL && dst->hist == NULL && dst->count + src->count <= ROCE_LAT_EXACT) {
        for (uint64_t i = 0; i < src->count; i++)
            if (roce_lat_add(dst, src->exact[i]) != 0)
                return -1;
        return 0;
    }
    if (to_histogram(dst) != 0)
        return -1;
    if (dst->count == 0 || src->min < dst->min)
        dst->min = src->min;
    if (dst->count == 0 || src->max > dst->max)
        dst->max = src->max;
    if (src->hist != NULL)
        for (unsigned i = 0; i < ROCE_LAT_BUCKETS; i++)
            dst->hist[i] += src->hist[i];
    else
        for (uint64_t i = 0; i < src->count; i++)
            dst->hist[bucket_of((uint64_t)src->exact[i])]++;
    dst->count += src->count;
    return 0;
}

size_t roce_lat_exact(const struct roce_lat *l, const int64_t **samples)
{
    *samples = l->exact;
    return l->hist == NULL && l->exact != NULL ? (size_t)l->count : 0;
}

uint32_t roce_lat_bucket(const struct roce_lat *l, unsigned idx)
{
    return l->hist != NULL && idx < ROCE_LAT_BUCKETS ? l->hist[idx] : 0;
}

int roce_lat_add_bucket(struct roce_lat *l, unsigned idx, uint32_t count, int64_t min,
                        int64_t max)
{
    if (idx >= ROCE_LAT_BUCKETS || to_histogram(l) != 0)
        return -1;
    if (l->count == 0 || min < l->min)
        l->min = min;
    if (l->count == 0 || max > l->max)
        l->max = max;
    l->hist[idx] += count;
    l->count += count;
    return 0;
}
