/*
 * test_ecn.c - CE marks and CNPs (roce_ecn.c).
 *
 * analyzer/engine/ANALYSIS.md "ECN and CNPs": a CE mark is IP ECN 11 on a
 * RoCEv2 request packet. CNP match: each CNP on B->A (dest QP qa) is matched
 * to the earliest CE-marked packet on the paired flow A->B that arrived after
 * the previous CNP of that connection and no more than the window (default
 * 100 us) before this CNP; latency = CNP time - that packet's time; a CNP with no such
 * packet is "unexplained". A CE-marked packet with no CNP of its connection
 * within the window before or after it is "unanswered". "Connection": a CNP
 * whose dest QP belongs to no paired connection goes to the only request
 * flow with reversed addresses, if there is exactly one.
 *
 * Times are set explicitly: T is the test's time origin, in ns.
 */
#include "test_harness.h"
#include "test_util.h"

#define US     1000
#define WINDOW (100 * US)

/* Feed the next frame at T + off_ns. */
static void at(struct tu_eng *t, int64_t base, int64_t off_ns)
{
    t->now = base + off_ns;
}

/* An engine and a connection paired by PSN (SEND 1, ACK 1) before the time
 * origin it returns (T, 1 ms later). */
static int64_t setup_paired(struct tu_eng *t, struct tu_conn *c, const struct tu_opts *o)
{
    tu_setup(t, c, o);
    int64_t T = t->now + 1000 * US;
    tu_send(t, c, 1);
    tu_ack(t, c, 1, 0x1F);
    CU_ASSERT_EQUAL(t->out.verdict.paired_by, ROCE_PAIRED_PSN);
    return T;
}

static void test_ce_answered_latency(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report x;
    int64_t T = setup_paired(&t, &c, NULL);
    at(&t, T, 0);
    uint64_t ce = tu_send_ce(&t, &c, 2);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_CE);
    CU_ASSERT_PTR_NULL(tu_settled(&t, ce)); /* waits for its CNP */
    at(&t, T, 30 * US);
    uint64_t cnp = tu_cnp(&t, &c);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_CNP | ROCE_V_CNP_MATCHED);
    CU_ASSERT_EQUAL(t.out.verdict.cnp_for_frame, ce);
    CU_ASSERT_EQUAL(t.out.verdict.cnp_latency_ns, 30 * US);
    const struct roce_verdict *v = tu_v(&t, ce); /* settled by the CNP */
    CU_ASSERT_EQUAL(v->flags, ROCE_V_CE | ROCE_V_CE_ANSWERED);
    CU_ASSERT_EQUAL(v->cnp_frame, cnp);
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->ce_marked, 1);
    CU_ASSERT_EQUAL(tt->ce_answered, 1);
    CU_ASSERT_EQUAL(tt->ce_unanswered, 0);
    CU_ASSERT_EQUAL(tt->cnp_packets, 1);
    CU_ASSERT_EQUAL(tt->cnps_matched, 1);
    CU_ASSERT_EQUAL(tt->cnps_unexplained, 0);
    CU_ASSERT_EQUAL(tt->cnp_latency.count, 1);
    CU_ASSERT_EQUAL(tt->cnp_latency.min, 30 * US);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &x));
    CU_ASSERT_EQUAL(x.ce_marked, 1);
    CU_ASSERT_EQUAL(x.ce_answered, 1);
    CU_ASSERT_EQUAL(x.cnps_matched, 1);
    CU_ASSERT_EQUAL(x.cnps_for_flow, 1);
    CU_ASSERT_EQUAL(x.cnp_latency.max, 30 * US);
    tu_eng_done(&t);
}

/* The distributions behind the summaries (roce_engine_latency,
 * roce_engine_flow_latency, for merging reports): the one CNP latency of
 * test_ce_answered_latency as an exact sample, overall and on the request
 * flow A->B, none on the responder flow; the setup's ACK as an ACK latency;
 * no distribution for a flow that is not tracked. */
static void test_latency_distributions(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report x, y;
    const int64_t *samples;
    int64_t T = setup_paired(&t, &c, NULL);
    at(&t, T, 0);
    tu_send_ce(&t, &c, 2);
    at(&t, T, 30 * US);
    tu_cnp(&t, &c);
    const struct roce_lat *all = roce_engine_latency(t.e, ROCE_LATENCY_CNP);
    CU_ASSERT_EQUAL(roce_lat_exact(all, &samples), 1);
    CU_ASSERT_EQUAL(samples[0], 30 * US);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &x));
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_B, TU_IP_A, TU_QA, &y));
    const struct roce_lat *fl = roce_engine_flow_latency(t.e, &x.key, 0, ROCE_LATENCY_CNP);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fl);
    CU_ASSERT_EQUAL(roce_lat_exact(fl, &samples), 1);
    CU_ASSERT_EQUAL(samples[0], 30 * US);
    CU_ASSERT_EQUAL(roce_engine_flow_latency(t.e, &y.key, 0, ROCE_LATENCY_CNP)->count, 0);
    CU_ASSERT_EQUAL(roce_engine_flow_latency(t.e, &x.key, 0, ROCE_LATENCY_ACK)->count,
                    x.ack_latency.count);
    CU_ASSERT_EQUAL(roce_engine_latency(t.e, ROCE_LATENCY_ACK)->count,
                    tu_totals(&t)->ack_latency.count);
    x.key.dqpn ^= 1; /* no such flow */
    CU_ASSERT_PTR_NULL(roce_engine_flow_latency(t.e, &x.key, 0, ROCE_LATENCY_ACK));
    tu_eng_done(&t);
}

/* CE at 0, 10, 20 us, CNP at 30 us: matched to the earliest; all three answered.
 * A CNP at 35 us finds no mark after CNP 1: unexplained. CE at 40 us, CNP at
 * 60 us: matched to the 40 us mark (the earliest after the previous CNP). */
static void test_earliest_after_previous_cnp(void)
{
    struct tu_eng t;
    struct tu_conn c;
    int64_t T = setup_paired(&t, &c, NULL);
    uint64_t ce[4];
    at(&t, T, 0);
    ce[0] = tu_send_ce(&t, &c, 2);
    at(&t, T, 10 * US);
    ce[1] = tu_send_ce(&t, &c, 3);
    at(&t, T, 20 * US);
    ce[2] = tu_send_ce(&t, &c, 4);
    at(&t, T, 30 * US);
    uint64_t cnp1 = tu_cnp(&t, &c);
    CU_ASSERT_EQUAL(t.out.verdict.cnp_for_frame, ce[0]);
    CU_ASSERT_EQUAL(t.out.verdict.cnp_latency_ns, 30 * US);
    at(&t, T, 35 * US); /* the marks before CNP 1 are not matched again */
    uint64_t cnp_none = tu_cnp(&t, &c);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_CNP | ROCE_V_CNP_UNEXPLAINED);
    at(&t, T, 40 * US);
    ce[3] = tu_send_ce(&t, &c, 5);
    at(&t, T, 60 * US);
    tu_cnp(&t, &c);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_CNP | ROCE_V_CNP_MATCHED);
    CU_ASSERT_EQUAL(t.out.verdict.cnp_for_frame, ce[3]);
    CU_ASSERT_EQUAL(t.out.verdict.cnp_latency_ns, 20 * US);
    roce_engine_finish(t.e);
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(tu_sflags(&t, ce[i]), ROCE_V_CE | ROCE_V_CE_ANSWERED);
        CU_ASSERT_EQUAL(tu_v(&t, ce[i])->cnp_frame, cnp1);
    }
    CU_ASSERT_EQUAL(tu_sflags(&t, ce[3]), ROCE_V_CE | ROCE_V_CE_ANSWERED);
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->ce_marked, 4);
    CU_ASSERT_EQUAL(tt->ce_answered, 4);
    CU_ASSERT_EQUAL(tt->cnps_matched, 2);
    CU_ASSERT_EQUAL(tt->cnps_unexplained, 1);
    CU_ASSERT_EQUAL(tu_sflags(&t, cnp_none), ROCE_V_CNP | ROCE_V_CNP_UNEXPLAINED);
    CU_ASSERT_EQUAL(tt->cnp_latency.min, 20 * US);
    CU_ASSERT_EQUAL(tt->cnp_latency.max, 30 * US);
    tu_eng_done(&t);
}

/* A CE mark that follows a CNP within the window is covered by it, though no
 * later CNP comes: answered, not unanswered. */
static void test_mark_after_cnp_covered(void)
{
    struct tu_eng t;
    struct tu_conn c;
    int64_t T = setup_paired(&t, &c, NULL);
    at(&t, T, 0);
    uint64_t cnp = tu_cnp(&t, &c); /* nothing to match */
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_CNP | ROCE_V_CNP_UNEXPLAINED);
    at(&t, T, 50 * US);
    uint64_t ce = tu_send_ce(&t, &c, 2);
    at(&t, T, WINDOW); /* exactly the window after the CNP: still covered */
    uint64_t ce2 = tu_send_ce(&t, &c, 3);
    at(&t, T, WINDOW + 1); /* just beyond */
    uint64_t ce3 = tu_send_ce(&t, &c, 4);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, ce), ROCE_V_CE | ROCE_V_CE_ANSWERED);
    CU_ASSERT_EQUAL(tu_v(&t, ce)->cnp_frame, cnp);
    CU_ASSERT_EQUAL(tu_sflags(&t, ce2), ROCE_V_CE | ROCE_V_CE_ANSWERED);
    CU_ASSERT_EQUAL(tu_sflags(&t, ce3), ROCE_V_CE | ROCE_V_CE_UNANSWERED);
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->ce_answered, 2);
    CU_ASSERT_EQUAL(tt->ce_unanswered, 1);
    CU_ASSERT_EQUAL(tt->cnps_unexplained, 1);
    tu_eng_done(&t);
}

/* An unanswered CE mark is settled only once the window after it has passed,
 * and the verdicts behind it wait and then follow in frame order. */
static void test_unanswered_settles_after_window(void)
{
    struct tu_eng t;
    struct tu_conn c, other;
    int64_t T = setup_paired(&t, &c, NULL);
    tu_conn_init(&other, 0x0A000003u, 0x0A000004u, 0x303, 0x404);
    at(&t, T, 0);
    uint64_t ce = tu_send_ce(&t, &c, 2);
    at(&t, T, 10 * US);
    /* a verdict behind the CE mark, with nothing to wait for itself */
    uint64_t retx = tu_send(&t, &c, 1);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    at(&t, T, WINDOW); /* the window has not passed yet */
    tu_send(&t, &other, 1);
    CU_ASSERT_EQUAL(tu_settled_count(&t), 0);
    at(&t, T, WINDOW + 1);
    tu_send(&t, &other, 2);
    CU_ASSERT_EQUAL(tu_settled_count(&t), 2);
    CU_ASSERT_EQUAL(tu_sflags(&t, ce), ROCE_V_CE | ROCE_V_CE_UNANSWERED);
    CU_ASSERT_EQUAL(tu_sflags(&t, retx), ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    CU_ASSERT_EQUAL(t.last_settled, retx); /* the CE mark first, then the resend */
    CU_ASSERT_EQUAL(tu_totals(&t)->ce_unanswered, 1);
    tu_eng_done(&t);
}

static void test_cnp_at_window_edge(void)
{
    struct tu_eng t;
    struct tu_conn c;
    int64_t T = setup_paired(&t, &c, NULL);
    at(&t, T, 0);
    uint64_t ce = tu_send_ce(&t, &c, 2);
    at(&t, T, WINDOW); /* exactly the window: matched */
    tu_cnp(&t, &c);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_CNP | ROCE_V_CNP_MATCHED);
    CU_ASSERT_EQUAL(t.out.verdict.cnp_latency_ns, WINDOW);
    CU_ASSERT_EQUAL(tu_sflags(&t, ce), ROCE_V_CE | ROCE_V_CE_ANSWERED);
    tu_eng_done(&t);

    T = setup_paired(&t, &c, NULL);
    at(&t, T, 0);
    ce = tu_send_ce(&t, &c, 2);
    at(&t, T, WINDOW + 1); /* one ns too late */
    tu_cnp(&t, &c);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_CNP | ROCE_V_CNP_UNEXPLAINED);
    CU_ASSERT_EQUAL(tu_sflags(&t, ce), ROCE_V_CE | ROCE_V_CE_UNANSWERED);
    tu_eng_done(&t);
}

static void test_unexplained_cnp(void)
{
    struct tu_eng t;
    struct tu_conn c, lone;
    struct roce_flow_report x;
    setup_paired(&t, &c, NULL);
    uint64_t cnp = tu_cnp(&t, &c);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_CNP | ROCE_V_CNP_UNEXPLAINED);
    /* a CNP between hosts that exchanged nothing else: it waits for its
     * connection, which never comes */
    tu_conn_init(&lone, 0x0A000009u, 0x0A00000Au, 0x999, 0x888);
    uint64_t lone_cnp = tu_cnp(&t, &lone);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_CNP);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, cnp), ROCE_V_CNP | ROCE_V_CNP_UNEXPLAINED);
    CU_ASSERT_EQUAL(tu_sflags(&t, lone_cnp), ROCE_V_CNP | ROCE_V_CNP_UNEXPLAINED);
    CU_ASSERT_EQUAL(tu_totals(&t)->cnps_unexplained, 2);
    CU_ASSERT_EQUAL(tu_totals(&t)->cnps_matched, 0);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &x));
    CU_ASSERT_EQUAL(x.cnps_for_flow, 1);
    CU_ASSERT_EQUAL(x.cnps_unexplained, 1);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_B, TU_IP_A, TU_QA, &x)); /* the flow that carried it */
    CU_ASSERT_EQUAL(x.cnps_carried_unexplained, 1);
    CU_ASSERT_TRUE(tu_flow(&t, 0x0A00000Au, 0x0A000009u, 0x999, &x));
    CU_ASSERT_EQUAL(x.cnps_carried_unexplained, 1);
    tu_eng_done(&t);
}

/* No ACK ever: when the window after it has passed, the CNP goes to the
 * only request flow A->B, which it pairs with. */
static void test_cnp_fallback_only_request_flow(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report x;
    tu_setup(&t, &c, NULL);
    int64_t T = t.now;
    uint64_t ce = tu_send_ce(&t, &c, 1);
    at(&t, T, 5 * US);
    uint64_t cnp = tu_cnp(&t, &c);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_CNP); /* waits for its connection */
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_NONE);
    CU_ASSERT_PTR_NULL(tu_settled(&t, ce));
    roce_engine_advance(t.e, T + 5 * US + WINDOW); /* not yet: the window is inclusive */
    CU_ASSERT_PTR_NULL(tu_settled(&t, cnp));
    roce_engine_advance(t.e, T + 5 * US + WINDOW + 1);
    CU_ASSERT_EQUAL(tu_sflags(&t, cnp), ROCE_V_CNP | ROCE_V_CNP_MATCHED);
    CU_ASSERT_EQUAL(tu_v(&t, cnp)->cnp_for_frame, ce);
    CU_ASSERT_EQUAL(tu_sflags(&t, ce), ROCE_V_CE | ROCE_V_CE_ANSWERED);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &x));
    CU_ASSERT_EQUAL(x.paired_by, ROCE_PAIRED_CNP);
    CU_ASSERT_EQUAL(x.cnps_for_flow, 1);
    tu_check_flow_table(&t);
    tu_eng_done(&t);
}

/* Two request flows A->B, no pairing: the CNP has no flow to go to. */
static void test_no_fallback_with_two_request_flows(void)
{
    struct tu_eng t;
    struct tu_conn c1, c2;
    tu_eng_init(&t, NULL);
    tu_conn_init(&c1, TU_IP_A, TU_IP_B, 0x101, 0x201);
    tu_conn_init(&c2, TU_IP_A, TU_IP_B, 0x102, 0x202);
    int64_t T = t.now;
    uint64_t ce1 = tu_send_ce(&t, &c1, 1);
    uint64_t ce2 = tu_send_ce(&t, &c2, 1);
    at(&t, T, 5 * US);
    uint64_t cnp = tu_cnp(&t, &c1);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_CNP);
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_NONE);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, cnp), ROCE_V_CNP | ROCE_V_CNP_UNEXPLAINED);
    CU_ASSERT_EQUAL(tu_sflags(&t, ce1), ROCE_V_CE | ROCE_V_CE_UNANSWERED);
    CU_ASSERT_EQUAL(tu_sflags(&t, ce2), ROCE_V_CE | ROCE_V_CE_UNANSWERED);
    CU_ASSERT_EQUAL(tu_totals(&t)->connections, 0);
    tu_eng_done(&t);
}

/* The CNP comes before the response that pairs its connection, with two
 * request flows between the hosts (no fallback): decided when the pair
 * forms, as if it had been known, whichever came first. run(ack_first)
 * returns the settled verdicts of the CE marks and the CNP. */
struct order_run {
    uint32_t ce1, ce2, ce_after, cnp;
    uint64_t cnp_for, ce_after_cnp;
    int64_t latency;
    uint8_t paired_by;
};

static void run_order(int ack_first, struct order_run *o)
{
    struct tu_eng t;
    struct tu_conn c1, c2;
    struct roce_flow_report x;
    tu_eng_init(&t, NULL);
    tu_conn_init(&c1, TU_IP_A, TU_IP_B, 0x101, 0x201);
    tu_conn_init(&c2, TU_IP_A, TU_IP_B, 0x102, 0x202);
    int64_t T = t.now;
    tu_send(&t, &c2, 500); /* a second request flow A->B */
    at(&t, T, 1 * US);
    uint64_t ce1 = tu_send_ce(&t, &c1, 10);
    at(&t, T, 2 * US);
    uint64_t ce2 = tu_send_ce(&t, &c1, 11);
    uint64_t cnp = 0; /* the CNP and the first ACK at the same time */
    if (ack_first) {
        at(&t, T, 8 * US);
        tu_ack(&t, &c1, 11, 0x1F);
    }
    at(&t, T, 8 * US);
    cnp = tu_cnp(&t, &c1);
    if (!ack_first) {
        at(&t, T, 8 * US);
        tu_ack(&t, &c1, 11, 0x1F);
    }
    at(&t, T, 20 * US); /* 12 us after the CNP: it answers this mark at once */
    uint64_t ce3 = tu_send_ce(&t, &c1, 12);
    roce_engine_finish(t.e);
    o->ce1 = tu_sflags(&t, ce1);
    o->ce2 = tu_sflags(&t, ce2);
    o->ce_after = tu_sflags(&t, ce3);
    o->cnp = tu_sflags(&t, cnp);
    o->cnp_for = tu_v(&t, cnp)->cnp_for_frame;
    o->ce_after_cnp = tu_v(&t, ce3)->cnp_frame == cnp;
    o->latency = tu_v(&t, cnp)->cnp_latency_ns;
    CU_ASSERT_EQUAL(tu_v(&t, ce1)->cnp_frame, cnp);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, 0x201, &x));
    o->paired_by = x.paired_by;
    CU_ASSERT_EQUAL(x.cnps_matched, 1);
    CU_ASSERT_EQUAL(x.ce_answered, 3);
    CU_ASSERT_EQUAL(x.cnp_latency.count, 1);
    o->cnp_for = o->cnp_for == ce1; /* frame numbers differ by the order: compare roles */
    tu_check_flow_table(&t);
    tu_eng_done(&t);
}

static void test_cnp_before_pairing_response(void)
{
    struct order_run before, after;
    run_order(1, &before);
    run_order(0, &after);
    CU_ASSERT_EQUAL(before.cnp, ROCE_V_CNP | ROCE_V_CNP_MATCHED);
    CU_ASSERT_EQUAL(before.ce1, ROCE_V_CE | ROCE_V_CE_ANSWERED);
    CU_ASSERT_EQUAL(before.ce_after, ROCE_V_CE | ROCE_V_CE_ANSWERED);
    CU_ASSERT_EQUAL(before.paired_by, ROCE_PAIRED_PSN);
    CU_ASSERT_TRUE(before.cnp_for);
    CU_ASSERT_TRUE(before.ce_after_cnp);
    CU_ASSERT_EQUAL(before.latency, 7 * US);
    CU_ASSERT_EQUAL(after.cnp, before.cnp);
    CU_ASSERT_EQUAL(after.ce1, before.ce1);
    CU_ASSERT_EQUAL(after.ce2, before.ce2);
    CU_ASSERT_EQUAL(after.ce_after, before.ce_after);
    CU_ASSERT_EQUAL(after.cnp_for, before.cnp_for);
    CU_ASSERT_EQUAL(after.ce_after_cnp, before.ce_after_cnp);
    CU_ASSERT_EQUAL(after.latency, before.latency);
    CU_ASSERT_EQUAL(after.paired_by, before.paired_by);
}

/* Two request flows A->B (c2 sends first), a CE mark on c1 at T and a CNP
 * of c1 at T + 90 us, before any response: returns T. */
static int64_t mark_then_waiting_cnp(struct tu_eng *t, struct tu_conn *c1, struct tu_conn *c2,
                                     uint64_t *ce, uint64_t *cnp)
{
    tu_eng_init(t, NULL);
    tu_conn_init(c1, TU_IP_A, TU_IP_B, 0x101, 0x201);
    tu_conn_init(c2, TU_IP_A, TU_IP_B, 0x102, 0x202);
    int64_t T = t->now;
    tu_send(t, c2, 500);
    at(t, T, 0);
    *ce = tu_send_ce(t, c1, 10);
    at(t, T, 90 * US);
    *cnp = tu_cnp(t, c1);
    return T;
}

/* A waiting CNP holds the CE marks it may answer past their own window, and
 * is decided (unexplained: two request flows) when its window passes. */
static void test_waiting_cnp_holds_marks(void)
{
    struct tu_eng t;
    struct tu_conn c1, c2;
    uint64_t ce, cnp;
    int64_t T = mark_then_waiting_cnp(&t, &c1, &c2, &ce, &cnp);
    roce_engine_advance(t.e, T + 150 * US); /* the mark's window passed, not the CNP's */
    CU_ASSERT_PTR_NULL(tu_settled(&t, ce));
    at(&t, T, 180 * US); /* the pair forms: the CNP answers the mark */
    tu_ack(&t, &c1, 10, 0x1F);
    CU_ASSERT_EQUAL(tu_sflags(&t, ce), ROCE_V_CE | ROCE_V_CE_ANSWERED);
    CU_ASSERT_EQUAL(tu_sflags(&t, cnp), ROCE_V_CNP | ROCE_V_CNP_MATCHED);
    CU_ASSERT_EQUAL(tu_v(&t, cnp)->cnp_latency_ns, 90 * US);
    tu_eng_done(&t);

    T = mark_then_waiting_cnp(&t, &c1, &c2, &ce, &cnp);
    at(&t, T, 191 * US); /* 101 us after the CNP: no pair, no fallback */
    tu_send(&t, &c2, 501);
    CU_ASSERT_EQUAL(tu_sflags(&t, cnp), ROCE_V_CNP | ROCE_V_CNP_UNEXPLAINED);
    CU_ASSERT_EQUAL(tu_sflags(&t, ce), ROCE_V_CE | ROCE_V_CE_UNANSWERED);
    at(&t, T, 200 * US);
    tu_ack(&t, &c1, 10, 0x1F); /* too late for the CNP */
    CU_ASSERT_EQUAL(tu_totals(&t)->cnps_unexplained, 1);
    CU_ASSERT_EQUAL(tu_totals(&t)->ce_unanswered, 1);
    tu_eng_done(&t);
}

/* A paired connection's CNP matches its own marks, not another connection's. */
static void test_cnp_of_other_connection(void)
{
    struct tu_eng t;
    struct tu_conn c1, c2;
    tu_eng_init(&t, NULL);
    tu_conn_init(&c1, TU_IP_A, TU_IP_B, 0x101, 0x201);
    tu_conn_init(&c2, TU_IP_A, TU_IP_B, 0x102, 0x202);
    tu_send(&t, &c1, 10);
    tu_ack(&t, &c1, 10, 0x1F);
    tu_send(&t, &c2, 5000);
    tu_ack(&t, &c2, 5000, 0x1F);
    int64_t T = t.now;
    uint64_t ce1 = tu_send_ce(&t, &c1, 11);
    at(&t, T, 5 * US);
    tu_cnp(&t, &c2); /* c2's QP slows down: but c2 had no CE mark */
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_CNP | ROCE_V_CNP_UNEXPLAINED);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, ce1), ROCE_V_CE | ROCE_V_CE_UNANSWERED);
    tu_eng_done(&t);
}

/* The CNP pacing at its three scopes (ANALYSIS.md "CNP pacing"): B sends
 * CNPs to A for two QPs, C (another responder) for a third; each CNP's gap
 * from the previous one of its QP, of its pair of hosts, of its
 * destination address. */
static void test_pacing_scopes(void)
{
    struct tu_eng t;
    struct tu_conn b1, b2, c3;
    struct roce_flow_report x;
    tu_eng_init(&t, NULL);
    tu_conn_init(&b1, TU_IP_A, TU_IP_B, 0x101, 0x201);
    tu_conn_init(&b2, TU_IP_A, TU_IP_B, 0x102, 0x202);
    tu_conn_init(&c3, TU_IP_A, TU_IP_C, 0x103, 0x203);
    tu_send(&t, &b1, 10);
    tu_send(&t, &b2, 20);
    tu_send(&t, &c3, 30);
    int64_t T = t.now + 1000 * US;
    at(&t, T, 0);
    tu_cnp(&t, &b1); /* B -> A QP 0x101 */
    at(&t, T, 10 * US);
    tu_cnp(&t, &b1); /* QP 10, pair 10, destination 10 */
    at(&t, T, 12 * US);
    tu_cnp(&t, &b2); /* QP none, pair 2, destination 2 */
    at(&t, T, 13 * US);
    tu_cnp(&t, &c3); /* C -> A: QP none, pair none, destination 1 */
    at(&t, T, 30 * US);
    tu_cnp(&t, &b1); /* QP 20, pair 18, destination 17 */
    /* per flow: QP gaps and least, pair gaps and least, destination gaps and least (us) */
    static const struct {
        uint32_t src, qp;
        uint64_t n[3];
        int64_t min_us[3];
    } want[] = {{TU_IP_B, 0x101, {2, 2, 2}, {10, 10, 10}},
                {TU_IP_B, 0x102, {0, 1, 1}, {0, 2, 2}},
                {TU_IP_C, 0x103, {0, 0, 1}, {0, 0, 1}}};
    for (unsigned i = 0; i < sizeof want / sizeof want[0]; i++) {
        CU_ASSERT_TRUE_FATAL(tu_flow(&t, want[i].src, TU_IP_A, want[i].qp, &x));
        const uint64_t n[3] = {x.cnp_gaps, x.cnp_pair_gaps, x.cnp_dst_gaps};
        const int64_t min[3] = {x.cnp_min_gap_ns, x.cnp_pair_min_gap_ns, x.cnp_dst_min_gap_ns};
        for (unsigned k = 0; k < 3; k++) {
            CU_ASSERT_EQUAL(n[k], want[i].n[k]);
            if (want[i].n[k])
                CU_ASSERT_EQUAL(min[k], want[i].min_us[k] * US);
        }
    }
    CU_ASSERT_EQUAL(tu_totals(&t)->cnp_dsts_evicted, 0);
    tu_eng_done(&t);
}

/* A CNP that arrived CE marked is counted on the flow that carried it and
 * in the totals, and is evidence of cnp_congested; an ECT(0) CNP is not. */
static void test_cnp_ce_marked(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report y;
    int64_t T = setup_paired(&t, &c, NULL);
    at(&t, T, 0);
    tu_cnp(&t, &c);
    struct tu_conn m = c;
    m.rsp.ecn = RG_ECN_CE;
    at(&t, T, 10 * US);
    uint64_t marked = tu_cnp(&t, &m);
    CU_ASSERT(t.out.verdict.flags & ROCE_V_CNP); /* a CNP all the same */
    CU_ASSERT_TRUE_FATAL(tu_flow(&t, TU_IP_B, TU_IP_A, TU_QA, &y));
    CU_ASSERT_EQUAL(y.cnp_packets, 2);
    CU_ASSERT_EQUAL(y.cnps_ce_marked, 1);
    CU_ASSERT_EQUAL(tu_totals(&t)->cnps_ce_marked, 1);
    const struct roce_evidence *ev = roce_engine_flow_evidence(t.e, &y.key, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
    CU_ASSERT_EQUAL_FATAL(ev->n[ROCE_DIAG_CNP_CONGESTED], 1);
    CU_ASSERT_EQUAL(ev->frame[ROCE_DIAG_CNP_CONGESTED][0], marked);
    tu_eng_done(&t);
}

static void test_window_configurable(void)
{
    struct tu_eng t;
    struct tu_conn c;
    int64_t T = setup_paired(&t, &c, &(struct tu_opts){.cnp_window_ns = 10 * US});
    at(&t, T, 0);
    uint64_t late = tu_send_ce(&t, &c, 2);
    at(&t, T, 20 * US); /* beyond 10 us */
    tu_cnp(&t, &c);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_CNP | ROCE_V_CNP_UNEXPLAINED);
    at(&t, T, 100 * US);
    uint64_t soon = tu_send_ce(&t, &c, 3);
    at(&t, T, 105 * US);
    tu_cnp(&t, &c);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_CNP | ROCE_V_CNP_MATCHED);
    CU_ASSERT_EQUAL(t.out.verdict.cnp_latency_ns, 5 * US);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, late), ROCE_V_CE | ROCE_V_CE_UNANSWERED);
    CU_ASSERT_EQUAL(tu_sflags(&t, soon), ROCE_V_CE | ROCE_V_CE_ANSWERED);
    tu_eng_done(&t);
}

/* Only RoCEv2 request packets carry CE marks: a CE-marked ACK, a CE-marked
 * CNP and a RoCEv1 request with ECN bits 11 in the GRH are not marks. */
static void test_ce_only_on_v2_requests(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, NULL);
    struct rg_spec s = c.rsp;
    s.opcode = RG_OP_RC_ACK;
    s.aeth_syndrome = 0x1F;
    s.psn = 1;
    s.ecn = RG_ECN_CE;
    tu_feed(&t, &s);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    s = c.req;
    s.kind = RG_KIND_ROCEV1;
    s.ecn = RG_ECN_CE;
    s.psn = 2;
    tu_feed(&t, &s);
    CU_ASSERT_EQUAL(t.out.verdict.flags & ROCE_V_CE, 0);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_totals(&t)->ce_marked, 0);
    tu_eng_done(&t);
}

/* Only ECN 11 is a CE mark: Not-ECT (00), ECT(1) (01) and ECT(0) (10) are not, over IPv4 and
 * IPv6 (traffic class) alike. */
static void test_only_ecn_11_is_ce(void)
{
    static const uint8_t v6_a[RG_ADDR_LEN] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
    static const uint8_t v6_b[RG_ADDR_LEN] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};
    for (unsigned ipv = 4; ipv <= 6; ipv += 2) {
        struct tu_eng t;
        struct tu_conn c;
        tu_setup(&t, &c, NULL);
        if (ipv == 6) {
            c.req.ip_version = c.rsp.ip_version = 6;
            rg_addr_v6(c.req.src, v6_a);
            rg_addr_v6(c.req.dst, v6_b);
        }
        const uint8_t ecn[4] = {RG_ECN_NOT_ECT, RG_ECN_ECT1, RG_ECN_ECT0, RG_ECN_CE};
        uint64_t frame[4];
        for (unsigned i = 0; i < 4; i++) {
            struct rg_spec s = c.req;
            s.opcode = RG_OP_RC_SEND_ONLY;
            s.psn = 1 + i;
            s.payload_len = 64;
            s.ecn = ecn[i];
            frame[i] = tu_feed(&t, &s);
            CU_ASSERT_EQUAL(t.out.pkt.af, ipv == 6 ? ROCE_AF_IPV6 : ROCE_AF_IPV4);
            CU_ASSERT_EQUAL(t.out.pkt.ecn, ecn[i]);
            CU_ASSERT_EQUAL(t.out.verdict.flags, ecn[i] == RG_ECN_CE ? ROCE_V_CE : 0);
        }
        roce_engine_finish(t.e);
        for (unsigned i = 0; i < 3; i++)
            CU_ASSERT_EQUAL(tu_sflags(&t, frame[i]), 0);
        CU_ASSERT_EQUAL(tu_sflags(&t, frame[3]), ROCE_V_CE | ROCE_V_CE_UNANSWERED);
        CU_ASSERT_EQUAL(tu_totals(&t)->ce_marked, 1);
        tu_eng_done(&t);
    }
}

/* At most 65536 CE marks wait for their window (ANALYSIS.md "Bounds and memory",
 * ce_tracking_overflow): one more within the window pushes out the oldest, which is counted as
 * untracked, neither answered nor unanswered, and keeps its verdict ce. */
static void test_ce_ring_overflow(void)
{
    enum { MARKS = 65536 + 1 };
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, &(struct tu_opts){.max_open_verdicts = 2 * MARKS});
    t.step = 1; /* all within 66 us: none leaves the window before the last comes */
    uint64_t first = tu_send_ce(&t, &c, 2);
    uint64_t second = tu_send_ce(&t, &c, 3);
    for (uint32_t i = 2; i < MARKS; i++)
        tu_send_ce(&t, &c, 2 + i);
    CU_ASSERT_EQUAL(tu_sflags(&t, first), ROCE_V_CE); /* settled when pushed out */
    CU_ASSERT_PTR_NULL(tu_settled(&t, second));
    roce_engine_finish(t.e);
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->ce_marked, MARKS);
    CU_ASSERT_EQUAL(tt->ce_tracking_overflow, 1);
    CU_ASSERT_EQUAL(tt->ce_unanswered, MARKS - 1);
    CU_ASSERT_EQUAL(tt->ce_answered, 0);
    CU_ASSERT_EQUAL(tt->verdicts_forced, 0);
    CU_ASSERT_EQUAL(tu_sflags(&t, first), ROCE_V_CE);
    CU_ASSERT_EQUAL(tu_sflags(&t, second), ROCE_V_CE | ROCE_V_CE_UNANSWERED);
    tu_eng_done(&t);
}

static const struct tu_test tests[] = {
    {"ce_answered_latency", test_ce_answered_latency},
    {"latency_distributions", test_latency_distributions},
    {"earliest_after_previous_cnp", test_earliest_after_previous_cnp},
    {"mark_after_cnp_covered", test_mark_after_cnp_covered},
    {"unanswered_settles_after_window", test_unanswered_settles_after_window},
    {"cnp_at_window_edge", test_cnp_at_window_edge},
    {"unexplained_cnp", test_unexplained_cnp},
    {"cnp_fallback_only_request_flow", test_cnp_fallback_only_request_flow},
    {"no_fallback_with_two_request_flows", test_no_fallback_with_two_request_flows},
    {"cnp_of_other_connection", test_cnp_of_other_connection},
    {"cnp_before_pairing_response", test_cnp_before_pairing_response},
    {"waiting_cnp_holds_marks", test_waiting_cnp_holds_marks},
    {"pacing_scopes", test_pacing_scopes},
    {"cnp_ce_marked", test_cnp_ce_marked},
    {"window_configurable", test_window_configurable},
    {"ce_only_on_v2_requests", test_ce_only_on_v2_requests},
    {"only_ecn_11_is_ce", test_only_ecn_11_is_ce},
    {"ce_ring_overflow", test_ce_ring_overflow},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "ecn", tests);
}
