/*
 * test_ring.c - the growable ring addressed by sequence number (roce_ring.h).
 *
 * An entry keeps its sequence number as its name through growth and through
 * the wrap of the slots: the CE marks and the open verdicts are found again
 * by that number (roce_ecn.c, roce_verdq.c).
 */
#include <stdint.h>

#include "roce_ring.h"
#include "test_util.h"

struct entry {
    uint64_t seq;
    uint32_t tag;
};

static void push(struct roce_ring *r, uint32_t tag)
{
    struct entry *e = roce_ring_at(r, sizeof *e, r->tail);
    e->seq = r->tail++;
    e->tag = tag;
}

/* Entries head..tail-1 hold their own sequence number; returns how many do not. */
static unsigned misplaced(const struct roce_ring *r)
{
    unsigned bad = 0;
    for (uint64_t s = r->head; s < r->tail; s++)
        bad += ((const struct entry *)roce_ring_at(r, sizeof(struct entry), s))->seq != s;
    return bad;
}

static void test_init_empty(void)
{
    struct roce_ring r;
    CU_ASSERT_EQUAL_FATAL(roce_ring_init(&r, 8, sizeof(struct entry)), 0);
    CU_ASSERT_EQUAL(r.cap, 8);
    CU_ASSERT_EQUAL(roce_ring_count(&r), 0);
    const struct entry *e = roce_ring_at(&r, sizeof *e, 5);
    CU_ASSERT_EQUAL(e->seq, 0); /* zeroed */
    CU_ASSERT_EQUAL(e->tag, 0);
    roce_ring_free(&r);
    CU_ASSERT_PTR_NULL(r.slots);
}

/* Grow while the live entries wrap around the end of the slots. */
static void test_grow_keeps_sequence(void)
{
    struct roce_ring r;
    CU_ASSERT_EQUAL_FATAL(roce_ring_init(&r, 4, sizeof(struct entry)), 0);
    for (uint32_t i = 0; i < 4; i++)
        push(&r, 100 + i);
    r.head = 3; /* retire 0..2, then wrap: 3 in slot 3, 4..6 in slots 0..2 */
    for (uint32_t i = 4; i < 7; i++)
        push(&r, 100 + i);
    CU_ASSERT_EQUAL(roce_ring_count(&r), 4);
    CU_ASSERT_EQUAL(misplaced(&r), 0);
    CU_ASSERT_EQUAL_FATAL(roce_ring_grow(&r, sizeof(struct entry)), 0);
    CU_ASSERT_EQUAL(r.cap, 8);
    CU_ASSERT_EQUAL(r.head, 3);
    CU_ASSERT_EQUAL(r.tail, 7);
    CU_ASSERT_EQUAL(misplaced(&r), 0);
    for (uint64_t s = 3; s < 7; s++)
        CU_ASSERT_EQUAL(((struct entry *)roce_ring_at(&r, sizeof(struct entry), s))->tag, 100 + s);
    /* with 8 slots, 7 and 8 take free slots: 3 stays where it is */
    push(&r, 107);
    push(&r, 108);
    CU_ASSERT_EQUAL(misplaced(&r), 0);
    CU_ASSERT_EQUAL(((struct entry *)roce_ring_at(&r, sizeof(struct entry), 3))->tag, 103);
    roce_ring_free(&r);
}

/* Many rounds of growth from one slot, with entries retired on the way. */
static void test_grow_repeatedly(void)
{
    struct roce_ring r;
    CU_ASSERT_EQUAL_FATAL(roce_ring_init(&r, 1, sizeof(struct entry)), 0);
    for (uint32_t i = 0; i < 5000; i++) {
        if (roce_ring_count(&r) == r.cap)
            CU_ASSERT_EQUAL_FATAL(roce_ring_grow(&r, sizeof(struct entry)), 0);
        push(&r, i);
        if (i % 3 == 0)
            r.head++;
    }
    CU_ASSERT_EQUAL(roce_ring_count(&r), 5000 - 1667);
    CU_ASSERT_EQUAL(r.cap, 4096);
    CU_ASSERT_EQUAL(misplaced(&r), 0);
    roce_ring_free(&r);
}

static const struct tu_test tests[] = {
    {"init_empty", test_init_empty},
    {"grow_keeps_sequence", test_grow_keeps_sequence},
    {"grow_repeatedly", test_grow_repeatedly},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "ring", tests);
}
