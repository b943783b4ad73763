/*
 * test_live_queue.c - the queue between the live monitor's capture and
 * analysis threads (analyzer/live/live_queue.h).
 *
 * Records come out in the order they went in, whole, across the wrap of the
 * ring; a record that does not fit is refused (the monitor counts the frame
 * as dropped by the analysis) and the queue takes records again once the
 * consumer has made room; records are seen only once committed; a consumer
 * in another thread sees every record of a producer that never waits.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "live_queue.h"
#include "test_util.h"

#define RING 4096u

/* Put a record of len bytes, each byte tag; 0, or -1 when refused. */
static int put(struct roce_lq *q, size_t len, uint8_t tag)
{
    uint8_t *p = roce_lq_reserve(q, len);
    if (p == NULL)
        return -1;
    memset(p, tag, len);
    return 0;
}

/* Take the next record: its length, all bytes checked to be tag; 0 when none. */
static size_t take(struct roce_lq *q, uint8_t tag, int *bad)
{
    size_t len;
    const uint8_t *p = roce_lq_next(q, 0, &len);
    if (p == NULL)
        return 0;
    for (size_t i = 0; i < len; i++)
        *bad += p[i] != tag;
    roce_lq_pop(q);
    return len;
}

static void test_order_and_commit(void)
{
    struct roce_lq *q = roce_lq_new(RING);
    int bad = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    CU_ASSERT_EQUAL(put(q, 100, 1), 0);
    CU_ASSERT_EQUAL(put(q, 7, 2), 0);
    CU_ASSERT_EQUAL(take(q, 1, &bad), 0); /* not committed yet */
    roce_lq_commit(q);
    CU_ASSERT_EQUAL(take(q, 1, &bad), 100);
    CU_ASSERT_EQUAL(take(q, 2, &bad), 7);
    CU_ASSERT_EQUAL(take(q, 3, &bad), 0);
    CU_ASSERT_EQUAL(bad, 0);
    roce_lq_free(q);
}

static void test_full_then_room(void)
{
    struct roce_lq *q = roce_lq_new(RING);
    int bad = 0, n = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    while (put(q, 200, (uint8_t)n) == 0)
        n++;
    /* 208 bytes each with their 8-byte length: 19 fit in 4096 */
    CU_ASSERT_EQUAL(n, 19);
    CU_ASSERT_EQUAL(put(q, 8, 0), 0); /* what is left still takes a small one */
    CU_ASSERT_NOT_EQUAL(put(q, 200, 0), 0);
    CU_ASSERT_PTR_NULL(roce_lq_reserve(q, RING)); /* never more than half the ring */
    roce_lq_commit(q);
    CU_ASSERT_EQUAL(take(q, 0, &bad), 200);
    CU_ASSERT_EQUAL(put(q, 200, 99), 0); /* room again, across the end of the ring */
    roce_lq_commit(q);
    for (int i = 1; i < n; i++)
        CU_ASSERT_EQUAL(take(q, (uint8_t)i, &bad), 200);
    CU_ASSERT_EQUAL(take(q, 0, &bad), 8);
    CU_ASSERT_EQUAL(take(q, 99, &bad), 200);
    CU_ASSERT_EQUAL(take(q, 0, &bad), 0);
    CU_ASSERT_EQUAL(bad, 0);
    roce_lq_free(q);
}

#define THREAD_RECORDS 200000u

struct producer {
    struct roce_lq *q;
    unsigned refused;
};

/* Records 0..THREAD_RECORDS-1, each carrying its number, of 8 to 300
 * bytes; refused ones are tried again. */
static void *produce(void *arg)
{
    struct producer *pr = arg;
    for (uint32_t i = 0; i < THREAD_RECORDS;) {
        size_t len = 8 + (i * 37u) % 293u;
        uint8_t *p = roce_lq_reserve(pr->q, len);
        if (p == NULL) {
            pr->refused++;
            roce_lq_commit(pr->q);
            continue;
        }
        memset(p, (uint8_t)i, len);
        memcpy(p, &i, sizeof i);
        if (++i % 16 == 0)
            roce_lq_commit(pr->q);
    }
    roce_lq_commit(pr->q);
    return NULL;
}

static void test_threads(void)
{
    struct producer pr = {roce_lq_new(RING), 0};
    pthread_t t;
    unsigned bad = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(pr.q);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, produce, &pr), 0);
    for (uint32_t want = 0; want < THREAD_RECORDS;) {
        size_t len;
        const uint8_t *p = roce_lq_next(pr.q, 1000, &len);
        if (p == NULL)
            break; /* the producer stalled for a second: a lost wake-up */
        uint32_t got;
        memcpy(&got, p, sizeof got);
        bad += got != want || len != 8 + (want * 37u) % 293u ||
               p[len - 1] != (uint8_t)want;
        roce_lq_pop(pr.q);
        want++;
        if (want == THREAD_RECORDS)
            bad += roce_lq_next(pr.q, 0, &len) != NULL;
    }
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL(bad, 0);
    roce_lq_free(pr.q);
}

static const struct tu_test tests[] = {
    {"order_and_commit", test_order_and_commit},
    {"full_then_room", test_full_then_room},
    {"threads", test_threads},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "live_queue", tests);
}
