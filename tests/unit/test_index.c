/*
 * test_index.c - the open-addressing hash index (roce_index.h).
 *
 * Linear probing, at most half full, backward-shift deletion. Keys are the
 * handles themselves here (the equality callback compares the handle with
 * the key), hashes are chosen by the test to collide, to cluster at the end
 * of the table (probe runs that wrap to slot 0) and at random; every
 * operation is checked against a plain array of what should be present.
 */
#include <stdint.h>
#include <string.h>

#include "roce_index.h"
#include "test_util.h"

#define N_VALS 4000u

static int eq_handle(uint32_t val, const void *key, const void *ctx)
{
    (void)ctx;
    return val == *(const uint32_t *)key;
}

static uint32_t find(const struct roce_index *ix, uint32_t hash, uint32_t val)
{
    return roce_index_find(ix, hash, eq_handle, &val, NULL);
}

/* Every occupied slot is reachable from its home slot without an empty slot
 * in between (what backward-shift deletion must keep true). */
static unsigned probe_run_holes(const struct roce_index *ix)
{
    unsigned holes = 0;
    for (uint32_t i = 0; i <= ix->mask; i++) {
        if (ix->slots[i].val == 0)
            continue;
        for (uint32_t j = ix->slots[i].hash & ix->mask; j != i; j = (j + 1) & ix->mask)
            holes += ix->slots[j].val == 0;
    }
    return holes;
}

static void test_insert_find_remove(void)
{
    struct roce_index ix;
    CU_ASSERT_EQUAL_FATAL(roce_index_init(&ix, 16), 0);
    CU_ASSERT_EQUAL(ix.mask + 1, 64); /* the minimum size */
    CU_ASSERT_EQUAL(find(&ix, 5, 1), 0);
    CU_ASSERT_EQUAL(roce_index_insert(&ix, 5, 1), 0);
    CU_ASSERT_EQUAL(roce_index_insert(&ix, 6, 2), 0);
    CU_ASSERT_EQUAL(find(&ix, 5, 1), 1);
    CU_ASSERT_EQUAL(find(&ix, 6, 2), 2);
    CU_ASSERT_EQUAL(find(&ix, 5, 2), 0); /* right slot, wrong key */
    CU_ASSERT_EQUAL(find(&ix, 7, 1), 0); /* right key, wrong hash */
    roce_index_remove(&ix, 5, 1);
    CU_ASSERT_EQUAL(find(&ix, 5, 1), 0);
    CU_ASSERT_EQUAL(find(&ix, 6, 2), 2);
    CU_ASSERT_EQUAL(ix.count, 1);
    roce_index_remove(&ix, 5, 1); /* absent: no-op */
    roce_index_remove(&ix, 99, 77);
    CU_ASSERT_EQUAL(ix.count, 1);
    roce_index_free(&ix);
    CU_ASSERT_PTR_NULL(ix.slots);
}

static void test_colliding_hashes(void)
{
    struct roce_index ix;
    CU_ASSERT_EQUAL_FATAL(roce_index_init(&ix, 64), 0);
    /* ten handles with the same hash, and two that hash into their run */
    for (uint32_t v = 1; v <= 10; v++)
        CU_ASSERT_EQUAL(roce_index_insert(&ix, 0xABCD0003u, v), 0);
    CU_ASSERT_EQUAL(roce_index_insert(&ix, 0x00000004u, 11), 0);
    CU_ASSERT_EQUAL(roce_index_insert(&ix, 0x00000005u, 12), 0);
    for (uint32_t v = 1; v <= 10; v++)
        CU_ASSERT_EQUAL(find(&ix, 0xABCD0003u, v), v);
    /* remove from the middle of the run, then the head */
    roce_index_remove(&ix, 0xABCD0003u, 5);
    roce_index_remove(&ix, 0xABCD0003u, 1);
    CU_ASSERT_EQUAL(probe_run_holes(&ix), 0);
    for (uint32_t v = 1; v <= 10; v++)
        CU_ASSERT_EQUAL(find(&ix, 0xABCD0003u, v), v == 1 || v == 5 ? 0 : v);
    CU_ASSERT_EQUAL(find(&ix, 4, 11), 11);
    CU_ASSERT_EQUAL(find(&ix, 5, 12), 12);
    CU_ASSERT_EQUAL(ix.count, 10);
    roce_index_free(&ix);
}

static void test_wrapping_run(void)
{
    struct roce_index ix;
    CU_ASSERT_EQUAL_FATAL(roce_index_init(&ix, 64), 0);
    /* homes 62, 63, 63, 0, 62: the run wraps from slot 63 to slot 0 */
    static const uint32_t hashes[] = {62, 63, 63, 0, 62, 1};
    for (uint32_t i = 0; i < 6; i++)
        CU_ASSERT_EQUAL(roce_index_insert(&ix, hashes[i], i + 1), 0);
    roce_index_remove(&ix, 62, 1);
    CU_ASSERT_EQUAL(probe_run_holes(&ix), 0);
    for (uint32_t i = 1; i < 6; i++)
        CU_ASSERT_EQUAL(find(&ix, hashes[i], i + 1), i + 1);
    roce_index_remove(&ix, 63, 2);
    roce_index_remove(&ix, 0, 4);
    CU_ASSERT_EQUAL(probe_run_holes(&ix), 0);
    CU_ASSERT_EQUAL(find(&ix, 63, 3), 3);
    CU_ASSERT_EQUAL(find(&ix, 62, 5), 5);
    CU_ASSERT_EQUAL(find(&ix, 1, 6), 6);
    roce_index_free(&ix);
}

static void test_growth(void)
{
    struct roce_index ix;
    unsigned missing = 0;
    CU_ASSERT_EQUAL_FATAL(roce_index_init(&ix, 64), 0);
    for (uint32_t v = 1; v <= N_VALS; v++)
        CU_ASSERT_EQUAL(roce_index_insert(&ix, roce_hash_bytes(&v, sizeof v), v), 0);
    CU_ASSERT_EQUAL(ix.count, N_VALS);
    CU_ASSERT(ix.count * 2 <= ix.mask + 1); /* at most half full */
    for (uint32_t v = 1; v <= N_VALS; v++)
        missing += find(&ix, roce_hash_bytes(&v, sizeof v), v) != v;
    CU_ASSERT_EQUAL(missing, 0);
    CU_ASSERT_EQUAL(probe_run_holes(&ix), 0);
    roce_index_free(&ix);
}

/* Random inserts and removals against a reference, hashes drawn from a
 * small range (long runs, many collisions) and from a wide one. */
static void random_ops(uint32_t hash_range, uint64_t seed)
{
    static uint32_t hash_of[N_VALS + 1];
    static uint8_t present[N_VALS + 1];
    struct roce_index ix;
    struct tu_rng r;
    unsigned wrong = 0, holes = 0;
    uint32_t count = 0;

    memset(present, 0, sizeof present);
    tu_rng_seed(&r, seed);
    CU_ASSERT_EQUAL_FATAL(roce_index_init(&ix, 64), 0);
    for (int op = 0; op < 20000; op++) {
        uint32_t v = 1 + tu_rng_below(&r, N_VALS);
        if (!present[v]) {
            hash_of[v] = tu_rng_below(&r, hash_range);
            CU_ASSERT_EQUAL_FATAL(roce_index_insert(&ix, hash_of[v], v), 0);
            present[v] = 1;
            count++;
        } else {
            roce_index_remove(&ix, hash_of[v], v);
            present[v] = 0;
            count--;
        }
        if (op % 1000 == 999) {
            for (uint32_t w = 1; w <= N_VALS; w++)
                wrong += find(&ix, hash_of[w], w) != (present[w] ? w : 0);
            holes += probe_run_holes(&ix);
        }
    }
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(holes, 0);
    CU_ASSERT_EQUAL(ix.count, count);
    roce_index_free(&ix);
}

static void test_random_clustered(void)
{
    random_ops(64, 1);
}

static void test_random_wide(void)
{
    random_ops(UINT32_MAX, 2);
}

static void test_hash_bytes(void)
{
    static const uint8_t a[19] = "abcdefghijklmnopqr";
    uint8_t b[19];
    memcpy(b, a, sizeof b);
    CU_ASSERT_EQUAL(roce_hash_bytes(a, 19), roce_hash_bytes(b, 19)); /* deterministic */
    b[18] ^= 1;                                                      /* last, tail byte */
    CU_ASSERT_NOT_EQUAL(roce_hash_bytes(a, 19), roce_hash_bytes(b, 19));
    CU_ASSERT_NOT_EQUAL(roce_hash_bytes(a, 8), roce_hash_bytes(a, 9));
    CU_ASSERT_NOT_EQUAL(roce_hash_bytes(a, 0), roce_hash_bytes(a, 1));
    /* 4000 consecutive integers: few collisions in the low bits a table uses */
    static uint8_t used[4096];
    unsigned distinct = 0;
    memset(used, 0, sizeof used);
    for (uint32_t v = 0; v < 4000; v++) {
        uint32_t h = roce_hash_bytes(&v, sizeof v) & 4095u;
        distinct += !used[h];
        used[h] = 1;
    }
    CU_ASSERT(distinct > 2000);
}

static const struct tu_test tests[] = {
    {"insert_find_remove", test_insert_find_remove},
    {"colliding_hashes", test_colliding_hashes},
    {"wrapping_run", test_wrapping_run},
    {"growth", test_growth},
    {"random_clustered", test_random_clustered},
    {"random_wide", test_random_wide},
    {"hash_bytes", test_hash_bytes},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "index", tests);
}
