/*
 * test_lat.c - the bounded latency distribution (roce_lat.h).
 *
 * Percentiles are nearest rank: the smallest sample with at least pct% of
 * all samples at or below it, i.e. the ceil(pct/100 x n)-th smallest. Up to
 * ROCE_LAT_EXACT (32) samples they are exact; beyond, a histogram whose
 * reported value is within 1/(2 x ROCE_LAT_SUB) = 1/32 of the true one
 * (values below 16 ns exactly), clamped to the exact min and max.
 * And the live monitor's fixed-bucket histograms (roce_hist.h).
 */
#include <stdlib.h>
#include <string.h>

#include "roce_hist.h"
#include "roce_lat.h"
#include "test_util.h"

#define MAX_SAMPLES 5000

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of n samples, from a sorted copy. */
static int64_t ref_percentile(const int64_t *samples, size_t n, unsigned pct)
{
    static int64_t s[MAX_SAMPLES];
    memcpy(s, samples, n * sizeof s[0]);
    qsort(s, n, sizeof s[0], cmp_i64);
    size_t rank = (n * pct + 99) / 100;
    return s[rank < 1 ? 0 : rank - 1];
}

/* The reported value is within the documented error of the true one. */
static int within_error(int64_t got, int64_t want)
{
    if (want < ROCE_LAT_SUB)
        return got == want;
    int64_t d = got > want ? got - want : want - got;
    return d * 2 * ROCE_LAT_SUB <= want;
}

/* The summary of l is exactly {count, min, p50, p99, max}. */
static void check_summary(const struct roce_lat *l, uint64_t count, int64_t min, int64_t p50,
                          int64_t p99, int64_t max)
{
    struct roce_lat_summary s;
    roce_lat_summarize(l, &s);
    CU_ASSERT_EQUAL(s.count, count);
    CU_ASSERT_EQUAL(s.min, min);
    CU_ASSERT_EQUAL(s.p50, p50);
    CU_ASSERT_EQUAL(s.p99, p99);
    CU_ASSERT_EQUAL(s.max, max);
}

static void test_empty(void)
{
    struct roce_lat l;
    roce_lat_init(&l);
    CU_ASSERT_EQUAL(roce_lat_percentile(&l, 50), 0);
    check_summary(&l, 0, 0, 0, 0, 0);
    roce_lat_free(&l);
}

static void test_one_sample(void)
{
    struct roce_lat l;
    roce_lat_init(&l);
    CU_ASSERT_EQUAL(roce_lat_add(&l, 12345), 0);
    check_summary(&l, 1, 12345, 12345, 12345, 12345);
    roce_lat_free(&l);
}

static void test_small_exact(void)
{
    struct roce_lat l;
    roce_lat_init(&l);
    /* 50 10 40 20 30, unordered: sorted 10 20 30 40 50 */
    static const int64_t v[] = {50, 10, 40, 20, 30};
    for (size_t i = 0; i < 5; i++)
        roce_lat_add(&l, v[i]);
    CU_ASSERT_EQUAL(roce_lat_percentile(&l, 1), 10);  /* rank ceil(0.05) = 1 */
    CU_ASSERT_EQUAL(roce_lat_percentile(&l, 20), 10); /* rank 1 */
    CU_ASSERT_EQUAL(roce_lat_percentile(&l, 21), 20); /* rank ceil(1.05) = 2 */
    CU_ASSERT_EQUAL(roce_lat_percentile(&l, 40), 20); /* rank 2 */
    CU_ASSERT_EQUAL(roce_lat_percentile(&l, 50), 30); /* rank ceil(2.5) = 3 */
    CU_ASSERT_EQUAL(roce_lat_percentile(&l, 60), 30); /* rank 3 */
    CU_ASSERT_EQUAL(roce_lat_percentile(&l, 80), 40); /* rank 4 */
    CU_ASSERT_EQUAL(roce_lat_percentile(&l, 81), 50); /* rank ceil(4.05) = 5 */
    CU_ASSERT_EQUAL(roce_lat_percentile(&l, 99), 50);
    CU_ASSERT_EQUAL(roce_lat_percentile(&l, 100), 50);
    check_summary(&l, 5, 10, 30, 50, 50);
    roce_lat_free(&l);
}

static void test_two_samples(void)
{
    struct roce_lat l;
    roce_lat_init(&l);
    roce_lat_add(&l, 200);
    roce_lat_add(&l, 100);
    CU_ASSERT_EQUAL(roce_lat_percentile(&l, 50), 100); /* rank 1: p50 of two is the lower */
    CU_ASSERT_EQUAL(roce_lat_percentile(&l, 51), 200);
    CU_ASSERT_EQUAL(roce_lat_percentile(&l, 99), 200);
    roce_lat_free(&l);
}

static void test_negative_counts_as_zero(void)
{
    struct roce_lat l;
    roce_lat_init(&l);
    roce_lat_add(&l, -5);
    roce_lat_add(&l, 7);
    CU_ASSERT_EQUAL(l.min, 0);
    CU_ASSERT_EQUAL(roce_lat_percentile(&l, 50), 0);
    CU_ASSERT_EQUAL(roce_lat_percentile(&l, 100), 7);
    roce_lat_free(&l);
}

/* 1..32 exact samples of random values: every percentile equals the reference. */
static void test_exact_random(void)
{
    struct tu_rng r;
    unsigned wrong = 0;
    tu_rng_seed(&r, 3);
    for (size_t n = 1; n <= ROCE_LAT_EXACT; n++) {
        struct roce_lat l;
        int64_t v[ROCE_LAT_EXACT];
        roce_lat_init(&l);
        for (size_t i = 0; i < n; i++) {
            v[i] = tu_rng_below(&r, 1000000);
            roce_lat_add(&l, v[i]);
        }
        for (unsigned pct = 1; pct <= 100; pct++)
            wrong += roce_lat_percentile(&l, pct) != ref_percentile(v, n, pct);
        CU_ASSERT_PTR_NULL(l.hist); /* still exact */
        roce_lat_free(&l);
    }
    CU_ASSERT_EQUAL(wrong, 0);
}

/* 33 samples and more: min and max stay exact, percentiles within the error. */
static void test_histogram_error_bound(void)
{
    static int64_t v[MAX_SAMPLES];
    static const size_t sizes[] = {ROCE_LAT_EXACT + 1, 100, 1000, MAX_SAMPLES};
    struct tu_rng r;
    unsigned wrong = 0;
    tu_rng_seed(&r, 11);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct roce_lat l;
        struct roce_lat_summary s;
        int64_t lo = INT64_MAX, hi = 0;
        roce_lat_init(&l);
        for (size_t i = 0; i < sizes[k]; i++) {
            /* spread over many octaves: 1 ns .. ~1 s */
            v[i] = (int64_t)(tu_rng_below(&r, 1000) + 1) << tu_rng_below(&r, 20);
            lo = v[i] < lo ? v[i] : lo;
            hi = v[i] > hi ? v[i] : hi;
            CU_ASSERT_EQUAL(roce_lat_add(&l, v[i]), 0);
        }
        for (unsigned pct = 1; pct <= 100; pct++)
            wrong += !within_error(roce_lat_percentile(&l, pct), ref_percentile(v, sizes[k], pct));
        roce_lat_summarize(&l, &s);
        CU_ASSERT_EQUAL(s.count, sizes[k]);
        CU_ASSERT_EQUAL(s.min, lo);
        CU_ASSERT_EQUAL(s.max, hi);
        CU_ASSERT_TRUE(within_error(s.p50, ref_percentile(v, sizes[k], 50)));
        CU_ASSERT_TRUE(within_error(s.p99, ref_percentile(v, sizes[k], 99)));
        CU_ASSERT(s.p50 >= s.min && s.p50 <= s.max && s.p99 <= s.max);
        roce_lat_free(&l);
    }
    CU_ASSERT_EQUAL(wrong, 0);
}

/* A tight distribution: 1000 samples of 1 us .. 1 ms in 1 us steps. */
static void test_histogram_uniform(void)
{
    struct roce_lat l;
    roce_lat_init(&l);
    for (int64_t i = 1; i <= 1000; i++)
        roce_lat_add(&l, i * 1000);
    CU_ASSERT_PTR_NOT_NULL(l.hist);
    CU_ASSERT_EQUAL(l.count, 1000);
    CU_ASSERT_TRUE(within_error(roce_lat_percentile(&l, 50), 500000));
    CU_ASSERT_TRUE(within_error(roce_lat_percentile(&l, 99), 990000));
    CU_ASSERT_TRUE(within_error(roce_lat_percentile(&l, 1), 10000));
    CU_ASSERT_TRUE(within_error(roce_lat_percentile(&l, 100), 1000000));
    CU_ASSERT(roce_lat_percentile(&l, 100) <= 1000000); /* never beyond the exact max */
    CU_ASSERT_EQUAL(l.max, 1000000);
    CU_ASSERT_EQUAL(l.min, 1000);
    roce_lat_free(&l);
}

/* Small values (below ROCE_LAT_SUB ns) keep exact buckets in the histogram. */
static void test_histogram_small_values_exact(void)
{
    struct roce_lat l;
    roce_lat_init(&l);
    for (int i = 0; i < 40; i++)
        roce_lat_add(&l, i % 2 ? 7 : 3);
    CU_ASSERT_PTR_NOT_NULL(l.hist);
    CU_ASSERT_EQUAL(roce_lat_percentile(&l, 50), 3);
    CU_ASSERT_EQUAL(roce_lat_percentile(&l, 51), 7);
    CU_ASSERT_EQUAL(roce_lat_percentile(&l, 99), 7);
    roce_lat_free(&l);
}

/* All samples equal: every percentile is that value, also in the histogram. */
static void test_histogram_constant(void)
{
    struct roce_lat l;
    roce_lat_init(&l);
    for (int i = 0; i < 100; i++)
        roce_lat_add(&l, 123456789);
    for (unsigned pct = 1; pct <= 100; pct += 33)
        CU_ASSERT_EQUAL(roce_lat_percentile(&l, pct), 123456789);
    roce_lat_free(&l);
}

/* Two separately filled distributions merged must equal one that took all
 * the samples: count, min, max, every percentile and every bucket. */
static void check_merge(unsigned n1, unsigned n2, uint64_t seed)
{
    struct roce_lat a, b, joint, copy;
    struct tu_rng rng;
    tu_rng_seed(&rng, seed);
    roce_lat_init(&a);
    roce_lat_init(&b);
    roce_lat_init(&joint);
    for (unsigned i = 0; i < n1 + n2; i++) {
        int64_t v = (int64_t)(tu_rng_next(&rng) % 5000000);
        roce_lat_add(i < n1 ? &a : &b, v);
        roce_lat_add(&joint, v);
    }
    CU_ASSERT_EQUAL_FATAL(roce_lat_copy(&copy, &a), 0);
    CU_ASSERT_EQUAL(roce_lat_merge(&copy, &b), 0);
    CU_ASSERT_EQUAL(copy.count, joint.count);
    CU_ASSERT_EQUAL(copy.min, joint.min);
    CU_ASSERT_EQUAL(copy.max, joint.max);
    for (unsigned pct = 1; pct <= 100; pct++)
        CU_ASSERT_EQUAL(roce_lat_percentile(&copy, pct), roce_lat_percentile(&joint, pct));
    for (unsigned i = 0; i < ROCE_LAT_BUCKETS; i++)
        CU_ASSERT_EQUAL(roce_lat_bucket(&copy, i), roce_lat_bucket(&joint, i));
    roce_lat_free(&a);
    roce_lat_free(&b);
    roce_lat_free(&joint);
    roce_lat_free(&copy);
}

static void test_merge_exact(void)
{
    check_merge(0, 0, 1);
    check_merge(10, 0, 2);
    check_merge(0, 10, 3);
    check_merge(12, 20, 4); /* exactly ROCE_LAT_EXACT together: stays exact */
}

static void test_merge_into_histogram(void)
{
    check_merge(20, 13, 5);   /* two exact sets that overflow together */
    check_merge(100, 7, 6);   /* histogram + exact */
    check_merge(7, 100, 7);   /* exact + histogram */
    check_merge(500, 900, 8); /* histogram + histogram */
}

/* A distribution rebuilt from its buckets gives the same percentiles. */
static void test_rebuild_from_buckets(void)
{
    struct roce_lat l, r;
    roce_lat_init(&l);
    roce_lat_init(&r);
    for (int64_t v = 1; v <= 1000; v++)
        roce_lat_add(&l, v * 997);
    for (unsigned i = 0; i < ROCE_LAT_BUCKETS; i++)
        if (roce_lat_bucket(&l, i))
            CU_ASSERT_EQUAL(roce_lat_add_bucket(&r, i, roce_lat_bucket(&l, i), l.min, l.max), 0);
    CU_ASSERT_EQUAL(r.count, l.count);
    for (unsigned pct = 1; pct <= 100; pct++)
        CU_ASSERT_EQUAL(roce_lat_percentile(&r, pct), roce_lat_percentile(&l, pct));
    CU_ASSERT_EQUAL(roce_lat_add_bucket(&r, ROCE_LAT_BUCKETS, 1, 0, 0), -1);
    roce_lat_free(&l);
    roce_lat_free(&r);
}

/* A fixed-bucket histogram's sum stays at INT64_MAX once its samples add
 * up to more (a hostile capture's times reach 2^62 ns: fuzz_engine found
 * the overflow), its counts go on; negative samples count as 0. */
static void test_hist_sum_saturates(void)
{
    struct roce_hist h;
    memset(&h, 0, sizeof h);
    roce_hist_add(&h, ROCE_HIST_NAK_TO_RESEND, INT64_C(1) << 62);
    roce_hist_add(&h, ROCE_HIST_NAK_TO_RESEND, 1000);
    CU_ASSERT_EQUAL(h.sum, (INT64_C(1) << 62) + 1000);
    roce_hist_add(&h, ROCE_HIST_NAK_TO_RESEND, INT64_C(1) << 62); /* 2^63 + 1000 in all */
    CU_ASSERT_EQUAL(h.sum, INT64_MAX);
    roce_hist_add(&h, ROCE_HIST_NAK_TO_RESEND, INT64_MAX);
    roce_hist_add(&h, ROCE_HIST_NAK_TO_RESEND, -5);
    CU_ASSERT_EQUAL(h.sum, INT64_MAX);
    CU_ASSERT_EQUAL(h.count, 5);
    CU_ASSERT_EQUAL(h.bucket[ROCE_HIST_BUCKETS], 3); /* above the last bound */
    CU_ASSERT_EQUAL(h.bucket[0], 2);                 /* 1000 ns, and the negative one as 0 */
}

static const struct tu_test tests[] = {
    {"empty", test_empty},
    {"one_sample", test_one_sample},
    {"small_exact", test_small_exact},
    {"two_samples", test_two_samples},
    {"negative_counts_as_zero", test_negative_counts_as_zero},
    {"exact_random", test_exact_random},
    {"histogram_error_bound", test_histogram_error_bound},
    {"histogram_uniform", test_histogram_uniform},
    {"histogram_small_values_exact", test_histogram_small_values_exact},
    {"histogram_constant", test_histogram_constant},
    {"merge_exact", test_merge_exact},
    {"merge_into_histogram", test_merge_into_histogram},
    {"rebuild_from_buckets", test_rebuild_from_buckets},
    {"hist_sum_saturates", test_hist_sum_saturates},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "lat", tests);
}
