/*
 * test_psn.c - 24-bit PSN serial arithmetic (roce_psn.h).
 *
 * analyzer/engine/ANALYSIS.md "PSN arithmetic": a is "after" b when
 * 0 < (a - b) mod 2^24 < 2^23. PROTOCOL.md "PSN": 24 bits, wraps at 2^24,
 * 2^23 window. The expected values below are worked out from that definition, edge by edge: 0,
 * 0xFFFFFF (the wrap), 0x800000 (half way, "not after" either way).
 */
#include "roce_psn.h"
#include "test_util.h"

#define MAX_PSN 0xFFFFFFu
#define HALF    0x800000u

/* The definition, written out on 64-bit integers. */
static int ref_after(uint32_t a, uint32_t b)
{
    uint64_t d = ((uint64_t)a + (1u << 24) - b) % (1u << 24);
    return d > 0 && d < HALF;
}

static void test_add(void)
{
    CU_ASSERT_EQUAL(roce_psn_add(0, 0), 0);
    CU_ASSERT_EQUAL(roce_psn_add(5, 3), 8);
    CU_ASSERT_EQUAL(roce_psn_add(MAX_PSN, 1), 0);
    CU_ASSERT_EQUAL(roce_psn_add(MAX_PSN, 2), 1);
    CU_ASSERT_EQUAL(roce_psn_add(MAX_PSN - 1, 3), 1);
    CU_ASSERT_EQUAL(roce_psn_add(HALF, HALF), 0);
    CU_ASSERT_EQUAL(roce_psn_add(0, MAX_PSN), MAX_PSN);
    CU_ASSERT_EQUAL(roce_psn_add(1, MAX_PSN), 0);
    /* n is taken modulo 2^24 too */
    CU_ASSERT_EQUAL(roce_psn_add(10, 1u << 24), 10);
}

static void test_diff_small(void)
{
    CU_ASSERT_EQUAL(roce_psn_diff(0, 0), 0);
    CU_ASSERT_EQUAL(roce_psn_diff(7, 7), 0);
    CU_ASSERT_EQUAL(roce_psn_diff(MAX_PSN, MAX_PSN), 0);
    CU_ASSERT_EQUAL(roce_psn_diff(10, 3), 7);
    CU_ASSERT_EQUAL(roce_psn_diff(3, 10), -7);
}

static void test_diff_wrap(void)
{
    /* across 0xFFFFFF -> 0 */
    CU_ASSERT_EQUAL(roce_psn_diff(0, MAX_PSN), 1);
    CU_ASSERT_EQUAL(roce_psn_diff(MAX_PSN, 0), -1);
    CU_ASSERT_EQUAL(roce_psn_diff(2, MAX_PSN - 1), 4);
    CU_ASSERT_EQUAL(roce_psn_diff(MAX_PSN - 1, 2), -4);
    CU_ASSERT_EQUAL(roce_psn_diff(0, 1), -1);
}

static void test_diff_half(void)
{
    /* largest forward distance is 2^23 - 1; exactly 2^23 is "not after" */
    CU_ASSERT_EQUAL(roce_psn_diff(HALF - 1, 0), (int32_t)HALF - 1);
    CU_ASSERT_EQUAL(roce_psn_diff(HALF, 0), -(int32_t)HALF);
    CU_ASSERT_EQUAL(roce_psn_diff(0, HALF), -(int32_t)HALF);
    CU_ASSERT_EQUAL(roce_psn_diff(HALF + 1, 0), -(int32_t)HALF + 1);
    CU_ASSERT_EQUAL(roce_psn_diff(0, HALF + 1), (int32_t)HALF - 1);
    CU_ASSERT_EQUAL(roce_psn_diff(0, HALF - 1), -(int32_t)HALF + 1);
    CU_ASSERT_EQUAL(roce_psn_diff(MAX_PSN, HALF), (int32_t)HALF - 1);
    CU_ASSERT_EQUAL(roce_psn_diff(HALF - 1, MAX_PSN), -(int32_t)HALF);
}

static void test_after_edges(void)
{
    CU_ASSERT_FALSE(roce_psn_after(0, 0));
    CU_ASSERT_FALSE(roce_psn_after(MAX_PSN, MAX_PSN));
    CU_ASSERT_TRUE(roce_psn_after(1, 0));
    CU_ASSERT_FALSE(roce_psn_after(0, 1));
    CU_ASSERT_TRUE(roce_psn_after(0, MAX_PSN));
    CU_ASSERT_FALSE(roce_psn_after(MAX_PSN, 0));
    CU_ASSERT_TRUE(roce_psn_after(HALF - 1, 0));
    CU_ASSERT_FALSE(roce_psn_after(HALF, 0)); /* half way: neither is after */
    CU_ASSERT_FALSE(roce_psn_after(0, HALF));
    CU_ASSERT_TRUE(roce_psn_after(0, HALF + 1));
    CU_ASSERT_FALSE(roce_psn_after(HALF + 1, 0));
    CU_ASSERT_TRUE(roce_psn_after(HALF - 2, MAX_PSN));  /* 0x7FFFFF ahead across the wrap */
    CU_ASSERT_FALSE(roce_psn_after(HALF - 1, MAX_PSN)); /* exactly half way across the wrap */
    CU_ASSERT_FALSE(roce_psn_after(HALF, MAX_PSN));     /* 0x800001 ahead: behind */
    CU_ASSERT_TRUE(roce_psn_after(MAX_PSN, HALF));      /* 0x7FFFFF ahead */
    CU_ASSERT_FALSE(roce_psn_after(MAX_PSN, HALF - 1));
}

/* after() against the definition at every distance around the edges, from several bases. */
static void test_after_matches_definition(void)
{
    static const uint32_t bases[] = {0, 1, 2, HALF - 1, HALF, HALF + 1, MAX_PSN - 1, MAX_PSN};
    static const uint32_t dists[] = {0,    1,        2,        HALF - 2,    HALF - 1,
                                     HALF, HALF + 1, HALF + 2, MAX_PSN - 1, MAX_PSN};
    unsigned mismatches = 0;
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        for (size_t j = 0; j < sizeof dists / sizeof dists[0]; j++) {
            uint32_t b = bases[i], a = (bases[i] + dists[j]) & MAX_PSN;
            if (roce_psn_after(a, b) != ref_after(a, b))
                mismatches++;
            /* diff is the signed form of the same distance */
            int32_t d = roce_psn_diff(a, b);
            if ((d > 0) != ref_after(a, b) || roce_psn_add(b, (uint32_t)d & MAX_PSN) != a)
                mismatches++;
        }
    }
    CU_ASSERT_EQUAL(mismatches, 0);
}

/* Antisymmetry: a after b and b after a never both hold. */
static void test_after_antisymmetric(void)
{
    struct tu_rng r;
    unsigned both = 0, neither = 0;
    tu_rng_seed(&r, 42);
    for (int i = 0; i < 100000; i++) {
        uint32_t a = tu_rng_next(&r) & MAX_PSN, b = tu_rng_next(&r) & MAX_PSN;
        int ab = roce_psn_after(a, b), ba = roce_psn_after(b, a);
        both += ab && ba;
        /* neither: only when equal or exactly half way apart */
        neither += !ab && !ba && a != b && ((a - b) & MAX_PSN) != HALF;
        if (ab != ref_after(a, b))
            both++;
    }
    CU_ASSERT_EQUAL(both, 0);
    CU_ASSERT_EQUAL(neither, 0);
}

static void test_in_span(void)
{
    CU_ASSERT_TRUE(roce_psn_in_span(100, 100, 1));
    CU_ASSERT_FALSE(roce_psn_in_span(101, 100, 1));
    CU_ASSERT_FALSE(roce_psn_in_span(99, 100, 1));
    CU_ASSERT_TRUE(roce_psn_in_span(102, 100, 3));
    CU_ASSERT_FALSE(roce_psn_in_span(103, 100, 3));
    /* a span across the wrap: MAX_PSN - 1, MAX_PSN, 0, 1 */
    CU_ASSERT_TRUE(roce_psn_in_span(MAX_PSN - 1, MAX_PSN - 1, 4));
    CU_ASSERT_TRUE(roce_psn_in_span(MAX_PSN, MAX_PSN - 1, 4));
    CU_ASSERT_TRUE(roce_psn_in_span(0, MAX_PSN - 1, 4));
    CU_ASSERT_TRUE(roce_psn_in_span(1, MAX_PSN - 1, 4));
    CU_ASSERT_FALSE(roce_psn_in_span(2, MAX_PSN - 1, 4));
    CU_ASSERT_FALSE(roce_psn_in_span(MAX_PSN - 2, MAX_PSN - 1, 4));
    /* a span starting at 0 and the whole upper half */
    CU_ASSERT_TRUE(roce_psn_in_span(0, 0, 1));
    CU_ASSERT_FALSE(roce_psn_in_span(MAX_PSN, 0, 1));
    CU_ASSERT_TRUE(roce_psn_in_span(MAX_PSN, HALF, HALF));
    CU_ASSERT_FALSE(roce_psn_in_span(0, HALF, HALF));
    CU_ASSERT_FALSE(roce_psn_in_span(HALF - 1, HALF, HALF));
}

/* Unwrapping: a sequence walked across several wraps keeps counting; values
 * behind the reference (retransmissions), before a negative reference, and the
 * half-way distance, which counts as behind as roce_psn_diff says. */
static void test_unwrap(void)
{
    const int64_t wrap = (int64_t)MAX_PSN + 1;
    CU_ASSERT_EQUAL(roce_psn_unwrap(0, 5), 5);
    CU_ASSERT_EQUAL(roce_psn_unwrap(MAX_PSN, 0), wrap);          /* across the wrap */
    CU_ASSERT_EQUAL(roce_psn_unwrap(wrap, MAX_PSN), wrap - 1);   /* back across it */
    CU_ASSERT_EQUAL(roce_psn_unwrap(3 * wrap + 10, 4), 3 * wrap + 4);
    CU_ASSERT_EQUAL(roce_psn_unwrap(-1, MAX_PSN - 2), -3);       /* a negative reference */
    CU_ASSERT_EQUAL(roce_psn_unwrap(-1, 1), 1);
    CU_ASSERT_EQUAL(roce_psn_unwrap(0, HALF - 1), HALF - 1);
    CU_ASSERT_EQUAL(roce_psn_unwrap(0, HALF), -(int64_t)HALF); /* half way: behind */
    /* a sequence of steps of 0x10000 from 0xFF0000 over 10 wraps counts on */
    int64_t ref = 0xFF0000, mism = 0;
    for (int64_t i = 1; i <= 10 * 256; i++) {
        int64_t want = 0xFF0000 + i * 0x10000;
        ref = roce_psn_unwrap(ref, (uint32_t)(want & MAX_PSN));
        mism += ref != want;
    }
    CU_ASSERT_EQUAL(mism, 0);
}

static const struct tu_test tests[] = {
    {"add", test_add},
    {"diff_small", test_diff_small},
    {"diff_wrap", test_diff_wrap},
    {"diff_half", test_diff_half},
    {"after_edges", test_after_edges},
    {"after_matches_definition", test_after_matches_definition},
    {"after_antisymmetric", test_after_antisymmetric},
    {"in_span", test_in_span},
    {"unwrap", test_unwrap},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "psn", tests);
}
