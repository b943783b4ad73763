/*
 * test_dcqcn.c - the DCQCN reaction of request flows to their CNPs
 * (roce_dcqcn.c, with the flow's recent requests of roce_reqlog.c).
 *
 * ANALYSIS.md "DCQCN reaction": for each CNP at t of the
 * connection of a RoCEv2 request flow, the before window [t - W, t) and the
 * after window [t + D, t + D + W) (W = 20 us, D = 4 us); only the flow's own
 * requests count; a CNP is evaluated when each window holds at least 5 and
 * the after window ends before the last packet of the capture; ratio = rate
 * after / rate before. Per flow: cnps_evaluated, the lower medians of the
 * rates and of the ratios; reacted when >= 3 evaluated and ratio_p50 <=
 * 0.85, ignored when >= 3 and >= 0.95, else undetermined.
 *
 * The requests here are SEND Only of 64 bytes: 122-byte frames; one every
 * 1 us is 0.976 Gb/s over a window.
 */
#include "test_harness.h"
#include "test_util.h"

#define US        1000
#define FRAME_LEN 122u
#define MBPS_1US  976u /* 20 frames of 122 bytes in 20 us */
#define CYCLE_US  61

/* The connection paired by PSN; the next frame at its returned time T. */
static int64_t setup_paired(struct tu_eng *t, struct tu_conn *c, const struct tu_opts *o)
{
    tu_setup(t, c, o);
    tu_send(t, c, 1);
    tu_ack(t, c, 1, rg_aeth_ack(0));
    return t->now + 100 * US;
}

/* Requests of c every `gap` ns in [from, to) (ns after T); returns the next PSN. */
static uint32_t sends(struct tu_eng *t, struct tu_conn *c, int64_t T, int64_t from, int64_t to,
                      int64_t gap, uint32_t psn)
{
    for (int64_t x = from; x < to; x += gap) {
        t->now = T + x;
        tu_send(t, c, psn++);
    }
    return psn;
}

/* n cycles of CYCLE_US: a request every 1 us, a CNP at 30.5 us, then one
 * every `slow` us for 30 us; one more plain cycle after.
 * The CNP frames go into cnps. Returns the next PSN. */
static uint32_t cycles(struct tu_eng *t, struct tu_conn *c, int64_t T, unsigned n, int64_t slow,
                       uint64_t *cnps)
{
    uint32_t psn = 2;
    for (unsigned i = 0; i < n; i++) {
        int64_t base = (int64_t)i * CYCLE_US * US;
        psn = sends(t, c, T, base, base + 31 * US, US, psn);
        t->now = T + base + 30 * US + US / 2;
        cnps[i] = tu_cnp(t, c);
        psn = sends(t, c, T, base + 31 * US, base + CYCLE_US * US, slow, psn);
    }
    return sends(t, c, T, (int64_t)n * CYCLE_US * US, (int64_t)(n + 1) * CYCLE_US * US, US, psn);
}

static struct roce_flow_report req_flow(struct tu_eng *t)
{
    struct roce_flow_report r;
    CU_ASSERT_FATAL(tu_flow(t, TU_IP_A, TU_IP_B, TU_QB, &r));
    return r;
}

/* Halving the rate after each CNP: ratio 0.5 each time, reacted. The CNP's
 * verdict waits for its after window and carries its numbers. */
static void test_reacted(void)
{
    struct tu_eng t;
    struct tu_conn c;
    uint64_t cnp[3];
    int64_t T = setup_paired(&t, &c, NULL);
    cycles(&t, &c, T, 3, 2 * US, cnp);
    const struct roce_verdict *v = tu_v(&t, cnp[0]);
    CU_ASSERT(v->flags & ROCE_V_DCQCN);
    CU_ASSERT_EQUAL(v->dcqcn_before_mbps, MBPS_1US);    /* 20 requests in [10.5, 30.5) */
    CU_ASSERT_EQUAL(v->dcqcn_after_mbps, MBPS_1US / 2); /* 10 in [34.5, 54.5) */
    CU_ASSERT_EQUAL(v->dcqcn_ratio_ppm, 500000);
    struct roce_flow_report r = req_flow(&t);
    CU_ASSERT_EQUAL(r.dcqcn.tracked, 1);
    CU_ASSERT_EQUAL(r.dcqcn.cnps_evaluated, 3);
    CU_ASSERT_EQUAL(r.dcqcn.rate_before_mbps, MBPS_1US);
    CU_ASSERT_EQUAL(r.dcqcn.rate_after_mbps, MBPS_1US / 2);
    CU_ASSERT_EQUAL(r.dcqcn.ratio_ppm, 500000);
    CU_ASSERT_EQUAL(r.dcqcn.verdict, ROCE_DCQCN_REACTED);
    CU_ASSERT_EQUAL(tu_totals(&t)->dcqcn_cnps_evaluated, 3);
    struct roce_diag_list l;
    CU_ASSERT_EQUAL(roce_engine_diagnoses(t.e, 0, &l), 0);
    /* the CNPs of these tests come without CE marks: that alone is said */
    CU_ASSERT_EQUAL_FATAL(l.n, 1);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_CNP_UNEXPLAINED);
    roce_diag_list_free(&l);
    tu_eng_done(&t);
}

/* The same rate after every CNP: ignored, and the cnp_ignored diagnosis
 * names the flow, the evaluated CNPs and the rates. */
static void test_ignored(void)
{
    struct tu_eng t;
    struct tu_conn c;
    uint64_t cnp[3];
    int64_t T = setup_paired(&t, &c, NULL);
    cycles(&t, &c, T, 3, US, cnp);
    struct roce_flow_report r = req_flow(&t);
    CU_ASSERT_EQUAL(r.dcqcn.ratio_ppm, 1000000);
    CU_ASSERT_EQUAL(r.dcqcn.verdict, ROCE_DCQCN_IGNORED);
    struct roce_diag_list l;
    CU_ASSERT_EQUAL_FATAL(roce_engine_diagnoses(t.e, 0, &l), 0);
    CU_ASSERT_EQUAL_FATAL(l.n, 2); /* and the CNPs without CE marks, a note */
    CU_ASSERT_EQUAL(l.d[1].kind, ROCE_DIAG_CNP_UNEXPLAINED);
    const struct roce_diagnosis *d = &l.d[0];
    const struct roce_diag_subject *s = roce_diag_subject_at(&l, d, 0);
    CU_ASSERT_EQUAL(d->kind, ROCE_DIAG_CNP_IGNORED);
    CU_ASSERT_EQUAL(d->severity, ROCE_SEV_WARNING);
    CU_ASSERT_EQUAL(d->count, 3);
    CU_ASSERT_EQUAL(d->n_subjects, 1);
    CU_ASSERT_EQUAL(s->flow.dqpn, TU_QB);
    CU_ASSERT_EQUAL(s->n_frames, 3);
    CU_ASSERT_EQUAL(s->frames[0], cnp[0]);
    CU_ASSERT_EQUAL(s->frames[2], cnp[2]);
    CU_ASSERT_EQUAL(s->fig.ratio_ppm, 1000000);
    CU_ASSERT_PTR_NOT_NULL(strstr(d->summary, "kept sending at its rate after CNPs (0.9 Gb/s "
                                              "after 3 CNPs"));
    roce_diag_list_free(&l);
    tu_eng_done(&t);
}

/* Two evaluated CNPs are too few for a verdict; the thresholds are
 * inclusive. */
static void test_undetermined(void)
{
    struct tu_eng t;
    struct tu_conn c;
    uint64_t cnp[4];
    int64_t T = setup_paired(&t, &c, NULL);
    cycles(&t, &c, T, 2, 2 * US, cnp);
    CU_ASSERT_EQUAL(req_flow(&t).dcqcn.cnps_evaluated, 2);
    CU_ASSERT_EQUAL(req_flow(&t).dcqcn.verdict, ROCE_DCQCN_UNDETERMINED);
    tu_eng_done(&t);

    struct roce_config cfg;
    roce_config_default(&cfg);
    CU_ASSERT_EQUAL(roce_dcqcn_verdict_of(&cfg, 3, 850000), ROCE_DCQCN_REACTED);
    CU_ASSERT_EQUAL(roce_dcqcn_verdict_of(&cfg, 3, 850001), ROCE_DCQCN_UNDETERMINED);
    CU_ASSERT_EQUAL(roce_dcqcn_verdict_of(&cfg, 3, 949999), ROCE_DCQCN_UNDETERMINED);
    CU_ASSERT_EQUAL(roce_dcqcn_verdict_of(&cfg, 3, 950000), ROCE_DCQCN_IGNORED);
    CU_ASSERT_EQUAL(roce_dcqcn_verdict_of(&cfg, 2, 100000), ROCE_DCQCN_UNDETERMINED);
}

/* Four requests in a window are too few; the CNP is not evaluated (and not
 * counted as a bound hit). */
static void test_too_few_packets(void)
{
    struct tu_eng t;
    struct tu_conn c;
    int64_t T = setup_paired(&t, &c, NULL);
    uint32_t psn = sends(&t, &c, T, 0, 20 * US, 5 * US, 2); /* 4 in the before window */
    t.now = T + 20 * US;
    uint64_t cnp = tu_cnp(&t, &c);
    sends(&t, &c, T, 21 * US, 60 * US, US, psn);
    CU_ASSERT_FALSE(tu_v(&t, cnp)->flags & ROCE_V_DCQCN);
    CU_ASSERT_EQUAL(req_flow(&t).dcqcn.cnps_evaluated, 0);
    CU_ASSERT_EQUAL(req_flow(&t).dcqcn.tracked, 1);
    CU_ASSERT_EQUAL(tu_totals(&t)->dcqcn_untracked, 0);
    tu_eng_done(&t);
}

/* The after window must end before the last packet of the capture. */
static void test_capture_ends_in_window(void)
{
    struct tu_eng t;
    struct tu_conn c;
    int64_t T = setup_paired(&t, &c, NULL);
    uint32_t psn = sends(&t, &c, T, 0, 21 * US, US, 2);
    t.now = T + 20 * US + US / 2;
    uint64_t cnp = tu_cnp(&t, &c);
    sends(&t, &c, T, 21 * US, 44 * US + US / 2, US, psn); /* the window ends at 44.5 us */
    CU_ASSERT_PTR_NULL(tu_settled(&t, cnp));
    roce_engine_finish(t.e);
    CU_ASSERT_FALSE(tu_v(&t, cnp)->flags & ROCE_V_DCQCN);
    CU_ASSERT_EQUAL(req_flow(&t).dcqcn.cnps_evaluated, 0);
    tu_eng_done(&t);
}

/* W and D are options. A CNP whose before window the engine's ring of
 * recent requests (REQLOG_ENTRIES, all flows) no longer reaches is not
 * evaluated, and counted. */
static void test_ring_and_options(void)
{
    struct tu_eng t;
    struct tu_conn c;
    int64_t T = setup_paired(
        &t, &c, &(struct tu_opts){.dcqcn_window_ns = 10 * US, .dcqcn_delay_ns = 2 * US});
    uint32_t psn = sends(&t, &c, T, 0, 40 * US, US / 4, 2); /* 40 requests per 10 us */
    t.now = T + 40 * US;
    uint64_t first = tu_cnp(&t, &c);
    psn = sends(&t, &c, T, 40 * US + 100, 60 * US, US / 4, psn);
    const struct roce_verdict *v = tu_v(&t, first);
    CU_ASSERT(v->flags & ROCE_V_DCQCN);
    CU_ASSERT_EQUAL(v->dcqcn_before_mbps, 40 * FRAME_LEN * 8 * 1000 / (10 * US));
    CU_ASSERT_EQUAL(v->dcqcn_ratio_ppm, 1000000);
    t.step = 0; /* 70000 requests at one instant: more than the ring holds */
    t.now = T + 70 * US;
    for (uint32_t i = 0; i < 70000; i++)
        tu_send(&t, &c, psn++);
    t.now = T + 70 * US + 1;
    uint64_t second = tu_cnp(&t, &c);
    t.step = US;
    sends(&t, &c, T, 71 * US, 90 * US, US / 4, psn);
    CU_ASSERT_EQUAL(tu_totals(&t)->dcqcn_untracked, 1);
    CU_ASSERT_FALSE(tu_v(&t, second)->flags & ROCE_V_DCQCN);
    tu_eng_done(&t);
}

/* A CNP that arrives before its connection is paired waits for it (ECN
 * and CNPs); decided when the ACK pairs the flows, 9.5 us later, its
 * reaction is the same as had it been decided at once: the before window
 * from the kept requests, the after window from those kept since it began
 * and the ones that follow. */
static void test_decided_late(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    int64_t T = t.now + 100 * US;
    uint32_t psn = sends(&t, &c, T, 0, 31 * US, US, 1);
    t.now = T + 30 * US + US / 2;
    uint64_t cnp = tu_cnp(&t, &c); /* its flow is not paired yet: it waits */
    psn = sends(&t, &c, T, 31 * US, 40 * US, 2 * US, psn); /* half the rate: 31, 33, ... 39 */
    t.now = T + 40 * US;
    tu_ack(&t, &c, psn - 1, rg_aeth_ack(0)); /* pairs the flows: the CNP is decided */
    sends(&t, &c, T, 41 * US, 80 * US, 2 * US, psn);
    roce_engine_finish(t.e);
    const struct roce_verdict *v = tu_v(&t, cnp);
    CU_ASSERT(v->flags & ROCE_V_DCQCN);
    CU_ASSERT_EQUAL(v->dcqcn_before_mbps, MBPS_1US);    /* 20 requests in [10.5, 30.5) */
    CU_ASSERT_EQUAL(v->dcqcn_after_mbps, MBPS_1US / 2); /* 35, 37, 39 then 41 ... 53 */
    CU_ASSERT_EQUAL(v->dcqcn_ratio_ppm, 500000);
    CU_ASSERT_EQUAL(req_flow(&t).dcqcn.cnps_evaluated, 1);
    tu_eng_done(&t);
}

/* Every edge of both windows, for a CNP at t decided at once and for one
 * decided late (both windows then come from the kept requests): requests
 * at t - W and t + D count, requests at t - W - 1 ns, at t (sent just
 * before the CNP), at t + D - 1 ns and at t + D + W do not. Five requests
 * in each window, 244 Mb/s, ratio 1.0. */
static void window_edges(int late)
{
    struct tu_eng t;
    struct tu_conn c;
    int64_t T;
    uint32_t psn = 1;
    if (late) {
        tu_setup(&t, &c, NULL);
        T = t.now + 100 * US;
    } else {
        T = setup_paired(&t, &c, NULL);
        psn = 2;
    }
    const int64_t at[] = {20 * US - 1, 20 * US, 24 * US, 28 * US, 32 * US, 36 * US, 40 * US};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        t.now = T + at[i];
        tu_send(&t, &c, psn++);
    }
    t.now = T + 40 * US; /* t */
    uint64_t cnp = tu_cnp(&t, &c);
    const int64_t after[] = {44 * US - 1, 44 * US, 48 * US, 52 * US, 56 * US, 60 * US, 64 * US};
    for (size_t i = 0; i < sizeof after / sizeof after[0]; i++) {
        t.now = T + after[i];
        tu_send(&t, &c, psn++);
    }
    if (late) {
        t.now = T + 66 * US;
        tu_ack(&t, &c, psn - 1, rg_aeth_ack(0)); /* pairs the flows: the CNP is decided */
    }
    t.now = T + 70 * US;
    tu_send(&t, &c, psn++); /* after the after window: it has ended */
    roce_engine_finish(t.e);
    const struct roce_verdict *v = tu_v(&t, cnp);
    CU_ASSERT_FATAL(v->flags & ROCE_V_DCQCN);
    CU_ASSERT_EQUAL(v->dcqcn_before_mbps, 5 * FRAME_LEN * 8 * 1000 / (20 * US));
    CU_ASSERT_EQUAL(v->dcqcn_after_mbps, 5 * FRAME_LEN * 8 * 1000 / (20 * US));
    CU_ASSERT_EQUAL(v->dcqcn_ratio_ppm, 1000000);
    tu_eng_done(&t);
}

static void test_window_edges(void)
{
    window_edges(0);
}

static void test_window_edges_decided_late(void)
{
    window_edges(1);
}

/* A RoCEv1 connection, or CNPs without requests, are not tracked. */
static void test_not_tracked(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_ack(&t, &c, 1, rg_aeth_ack(0));
    tu_cnp(&t, &c);
    struct roce_flow_report r;
    CU_ASSERT_FALSE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &r) && r.dcqcn.tracked);
    tu_eng_done(&t);
}

static const struct tu_test tests[] = {
    {"reacted", test_reacted},
    {"ignored", test_ignored},
    {"undetermined", test_undetermined},
    {"too_few_packets", test_too_few_packets},
    {"capture_ends_in_window", test_capture_ends_in_window},
    {"ring_and_options", test_ring_and_options},
    {"decided_late", test_decided_late},
    {"window_edges", test_window_edges},
    {"window_edges_decided_late", test_window_edges_decided_late},
    {"not_tracked", test_not_tracked},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "dcqcn", tests);
}
