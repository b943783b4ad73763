/*
 * test_engine_alloc.c - allocation failures are counted, never silent
 * (roce_engine.h: totals.alloc_failures), and the engine goes on.
 *
 * The suite's executable is linked with -Wl,--wrap=malloc,calloc,realloc,aligned_alloc
 * (tests/unit/CMakeLists.txt): every allocation of the engine (a static
 * library) goes through the wrappers below, which refuse the ones a test
 * asks for. Each test checks that every refused allocation was counted
 * exactly once, and what the engine kept and gave up. The harness
 * allocates its own arrays at the first frame and at frames 256, 512, ...:
 * failures are armed between those.
 */
#include <stddef.h>
#include <stdint.h>

#include "test_engine.h"
#include "test_harness.h"
#include "test_util.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__real_aligned_alloc(size_t align, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
void *__wrap_aligned_alloc(size_t align, size_t size);

static struct {
    unsigned skip;    /* allocations still to let through before refusing */
    unsigned refuse;  /* allocations still to refuse after that */
    unsigned refused; /* allocations refused since the last arm() */
} fail;

/* Let `skip` allocations through, then refuse `refuse` of them. */
static void arm(unsigned skip, unsigned refuse)
{
    fail.skip = skip;
    fail.refuse = refuse;
    fail.refused = 0;
}

static int refuse_this(void)
{
    if (fail.refuse == 0)
        return 0;
    if (fail.skip > 0) {
        fail.skip--;
        return 0;
    }
    fail.refuse--;
    fail.refused++;
    return 1;
}

void *__wrap_malloc(size_t size)
{
    return refuse_this() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return refuse_this() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
    return refuse_this() ? NULL : __real_realloc(p, size);
}

void *__wrap_aligned_alloc(size_t align, size_t size)
{
    return refuse_this() ? NULL : __real_aligned_alloc(align, size);
}

#define ALL (~0u) /* refuse every allocation until disarmed */

static void disarm(void)
{
    fail.skip = 0;
    fail.refuse = 0;
}

/* Every allocation refused was counted once. */
static void check_counted(struct tu_eng *t, unsigned expected)
{
    CU_ASSERT_EQUAL(fail.refused, expected);
    CU_ASSERT_EQUAL(tu_totals(t)->alloc_failures, expected);
}

/* The wrappers see the engine's allocations (else every test here passes
 * for the wrong reason). */
static void test_wrappers_see_the_engine(void)
{
    struct roce_config cfg;
    roce_config_default(&cfg);
    arm(0, ALL);
    CU_ASSERT_PTR_NULL(roce_engine_new(&cfg));
    CU_ASSERT(fail.refused >= 1);
    disarm();
    struct roce_engine *e = roce_engine_new(&cfg);
    CU_ASSERT_PTR_NOT_NULL(e);
    roce_engine_free(e);
}

/* No memory for a new flow: the frame is counted in the totals, not in a
 * flow; the next frame creates it. */
static void test_flow_not_created(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct rg_spec tcp;
    tu_setup(&t, &c, NULL);
    tcp = c.req;
    tcp.kind = RG_KIND_TCP;
    tu_feed(&t, &tcp); /* the harness's arrays */
    arm(0, ALL);
    tu_send(&t, &c, 1);
    disarm();
    CU_ASSERT_EQUAL(t.out.verdict.has_flow, 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->roce_packets, 1);
    CU_ASSERT_EQUAL(tu_totals(&t)->flows_created, 0);
    check_counted(&t, 1); /* the first chunk of flows */
    tu_send(&t, &c, 2);
    CU_ASSERT_EQUAL(t.out.verdict.has_flow, 1);
    CU_ASSERT_EQUAL(tu_totals(&t)->flows_created, 1);
    check_counted(&t, 1);
    tu_eng_done(&t);
}

/* The flow index cannot grow (at 513 flows): that flow is not created. */
static void test_flow_index_full(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    for (uint32_t qp = 1; qp <= 512; qp++) {
        c.req.dqpn = qp;
        tu_send(&t, &c, 1);
    }
    arm(0, ALL);
    c.req.dqpn = 513;
    tu_send(&t, &c, 1);
    disarm();
    CU_ASSERT_EQUAL(t.out.verdict.has_flow, 0);
    CU_ASSERT_EQUAL(roce_engine_flow_count(t.e), 512);
    check_counted(&t, 1);
    tu_send(&t, &c, 2);
    CU_ASSERT_EQUAL(roce_engine_flow_count(t.e), 513);
    tu_check_flow_table(&t);
    tu_eng_done(&t);
}

/* No memory for the list of request flows of an address pair: the flow is
 * analysed all the same, and listed at its next request (then found by
 * PSN pairing). Nor for the engine's ring of recent requests (roce_reqlog.c,
 * at the first request): a second refusal; the next request logs. Nor for
 * the incast table (roce_incast.c, at the first request): a third; the next
 * request makes it. */
static void test_request_flow_not_listed(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_ack(&t, &c, 0, rg_aeth_ack(0)); /* the flow B -> A: the first chunk of flows */
    arm(0, ALL);
    tu_send(&t, &c, 1);
    disarm();
    CU_ASSERT_EQUAL(t.out.verdict.has_flow, 1);
    check_counted(&t, 3);
    tu_ack(&t, &c, 1, rg_aeth_ack(0));
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_NONE); /* A -> B is not listed */
    tu_send(&t, &c, 3);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_GAP); /* sequence analysis went on */
    tu_ack(&t, &c, 3, rg_aeth_ack(0));
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_PSN);
    check_counted(&t, 3);
    tu_eng_done(&t);
}

/* The index of address pairs cannot grow (at the 129th pair): that request
 * flow is not listed; its next request lists it. */
static void test_pair_index_full(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_eng_init(&t, NULL);
    for (uint32_t i = 0; i < 128; i++) {
        tu_conn_init(&c, TU_IP_A, TU_IP_B + i, TU_QA, TU_QB);
        tu_send(&t, &c, 1);
    }
    tu_conn_init(&c, TU_IP_A, TU_IP_B + 128, TU_QA, TU_QB);
    arm(0, ALL);
    tu_send(&t, &c, 1);
    disarm();
    check_counted(&t, 1);
    tu_ack(&t, &c, 1, rg_aeth_ack(0));
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_NONE);
    tu_send(&t, &c, 2);
    tu_ack(&t, &c, 2, rg_aeth_ack(0));
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_PSN);
    check_counted(&t, 1);
    tu_check_flow_table(&t);
    tu_eng_done(&t);
}

/* No memory for a flow's READs: the READ's span is not tracked, so the
 * jump after it is a gap. */
static void test_read_not_tracked(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_send(&t, &c, 1);
    arm(0, ALL);
    tu_read(&t, &c, 2, 4096);
    disarm();
    check_counted(&t, 1);
    tu_send(&t, &c, 6);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_GAP);
    CU_ASSERT_EQUAL(t.out.verdict.missing_psns, 3);
    tu_eng_done(&t);
}

/* No memory for latency samples: the flow's and the totals' sample are
 * each counted as a failure, and missing from the distributions. */
static void test_latency_sample_lost(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report r;
    tu_setup(&t, &c, NULL);
    c.req.ackreq = 1;
    tu_send(&t, &c, 1);
    arm(0, ALL);
    tu_ack(&t, &c, 1, rg_aeth_ack(0));
    disarm();
    check_counted(&t, 2);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &r));
    CU_ASSERT_EQUAL(r.ack_latency.count, 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->ack_latency.count, 0);
    tu_send(&t, &c, 2);
    tu_ack(&t, &c, 2, rg_aeth_ack(0));
    CU_ASSERT_EQUAL(tu_totals(&t)->ack_latency.count, 1);
    check_counted(&t, 2);
    tu_eng_done(&t);
}

/* No memory for the episode log: the episode is counted, not listed; nor
 * for the flow's evidence block, whose first frame the episode was: a
 * second refusal (the diagnosis still counts the episode). */
static void test_episode_not_listed(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, 1, 3);
    arm(0, ALL);
    tu_send(&t, &c, 2);
    disarm();
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->episodes, 1);
    CU_ASSERT_EQUAL(tt->episodes_unlisted, 1);
    CU_ASSERT_EQUAL(roce_engine_episode_count(t.e), 0);
    check_counted(&t, 2);
    tu_eng_done(&t);
}

/* 1025 CE marks waiting for a CNP, and as many open verdicts: both rings
 * would grow. Refused, the oldest CE mark is settled early (ce_tracking_
 * overflow) and the oldest verdict delivered early (verdicts_forced). */
static void check_ring_growth(unsigned skip, unsigned refuse, uint64_t ce_dropped, uint64_t forced)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, &(struct tu_opts){.cnp_window_ns = 10 * ROCE_NS_PER_MS});
    for (uint32_t psn = 1; psn <= 1024; psn++)
        tu_send_ce(&t, &c, psn);
    arm(skip, refuse);
    tu_send_ce(&t, &c, 1025);
    disarm();
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->ce_tracking_overflow, ce_dropped);
    CU_ASSERT_EQUAL(tt->verdicts_forced, forced);
    CU_ASSERT_EQUAL(tt->ce_marked, 1025);
    check_counted(&t, refuse);
    tu_eng_done(&t);
}

static void test_ring_growth(void)
{
    check_ring_growth(0, 2, 1, 1); /* neither ring grows */
    check_ring_growth(0, 1, 1, 0); /* the CE marks' ring (grown first) does not */
    check_ring_growth(1, 1, 0, 1); /* the open verdicts' ring does not */
}

/* No memory for a CNP latency sample (flow and totals), nor for the DCQCN
 * state of the flow (its first CNP: not evaluated), nor for the table of
 * CNP destinations (roce_cnpdst.c: no gap per destination). */
static void test_cnp_latency_lost(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_send(&t, &c, 0);
    tu_ack(&t, &c, 0, 0x1F); /* paired: the CNP is decided at once */
    uint64_t ce = tu_send_ce(&t, &c, 1);
    arm(0, ALL);
    uint64_t cnp = tu_cnp(&t, &c);
    disarm();
    check_counted(&t, 4);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_v(&t, cnp)->cnp_for_frame, ce); /* matched all the same */
    CU_ASSERT_EQUAL(tu_totals(&t)->cnps_matched, 1);
    CU_ASSERT_EQUAL(tu_totals(&t)->cnp_latency.count, 0);
    tu_eng_done(&t);
}

const struct tu_test engine_alloc_tests[] = {
    {"wrappers_see_the_engine", test_wrappers_see_the_engine},
    {"flow_not_created", test_flow_not_created},
    {"flow_index_full", test_flow_index_full},
    {"request_flow_not_listed", test_request_flow_not_listed},
    {"pair_index_full", test_pair_index_full},
    {"read_not_tracked", test_read_not_tracked},
    {"latency_sample_lost", test_latency_sample_lost},
    {"episode_not_listed", test_episode_not_listed},
    {"ring_growth", test_ring_growth},
    {"cnp_latency_lost", test_cnp_latency_lost},
    TU_END,
};
