/*
 * test_verdq.c - the verdict queue (roce_verdq.c), seen through on_verdict.
 *
 * roce_engine.h: every frame that carries a verdict is delivered once more,
 * settled, through on_verdict, in frame order; roce_engine_finish() settles
 * all that is still open. max_open_verdicts bounds the verdicts waiting to
 * settle: when it is hit the oldest is delivered early and counted in
 * verdicts_forced. (tu_eng_done() checks order and "exactly once" for every
 * engine test of the unit suites; this suite pins the queue's own rules.)
 */
#include "test_harness.h"
#include "test_util.h"

#define US     1000
#define WINDOW (100 * US)

/* A resend verdict behind a CE mark waits for the mark to settle. */
static void test_held_behind_open_verdict(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    int64_t T = t.now;
    uint64_t ce = tu_send_ce(&t, &c, 1);
    uint64_t retx = tu_send(&t, &c, 1);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    CU_ASSERT_PTR_NULL(tu_settled(&t, retx));
    t.now = T + WINDOW + 1;
    tu_send(&t, &c, 2);
    CU_ASSERT_PTR_NOT_NULL(tu_settled(&t, ce));
    CU_ASSERT_PTR_NOT_NULL(tu_settled(&t, retx));
    tu_eng_done(&t);
}

/* A verdict with nothing to wait for is delivered during its own frame: a
 * gap of UC (no ACK can tell capture loss from network loss). */
static void test_immediate_delivery(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_send(&t, &c, 1);
    tu_send(&t, &c, 2);
    t.now += 2 * ROCE_NS_PER_MS;
    uint64_t retx = tu_send(&t, &c, 1); /* a timeout resend: nothing to wait for */
    const struct roce_verdict *v = tu_v(&t, retx);
    CU_ASSERT_EQUAL(v->frame, retx);
    CU_ASSERT_EQUAL(v->ts_ns, t.now - t.step);
    CU_ASSERT_EQUAL(v->has_flow, 1);
    CU_ASSERT_EQUAL(v->key.dqpn, TU_QB);
    CU_ASSERT_EQUAL(v->key.version, 2);
    CU_ASSERT_EQUAL(v->opcode, RG_OP_RC_SEND_ONLY);
    CU_ASSERT_EQUAL(v->psn, 1);
    CU_ASSERT_EQUAL(v->transport, ROCE_TRANSPORT_RC);
    CU_ASSERT_EQUAL(v->expected_psn, 3);
    CU_ASSERT_EQUAL(v->trigger, ROCE_TRIGGER_TIMEOUT);
    tu_eng_done(&t);
}

/* CE marks within one window keep every verdict open; with a bound of n,
 * count - n of them must be delivered early, oldest first. */
static void check_bound(uint32_t bound, uint32_t count)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, &(struct tu_opts){.max_open_verdicts = bound});
    t.step = (WINDOW / 2) / count; /* all within half a window */
    for (uint32_t i = 0; i < count; i++)
        tu_send_ce(&t, &c, i);
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->verdicts_forced, count - bound);
    CU_ASSERT_EQUAL(tu_settled_count(&t), count - bound);
    unsigned early = 0;
    for (uint64_t f = 1; f <= count - bound; f++)
        early += tu_sflags(&t, f) == ROCE_V_CE; /* delivered before the window told */
    CU_ASSERT_EQUAL(early, count - bound);
    CU_ASSERT_PTR_NULL(tu_settled(&t, count - bound + 1));
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_settled_count(&t), count);
    CU_ASSERT_EQUAL(tu_totals(&t)->ce_unanswered, count); /* still counted */
    CU_ASSERT_EQUAL(tu_sflags(&t, count), ROCE_V_CE | ROCE_V_CE_UNANSWERED);
    tu_eng_done(&t);
}

static void test_bound_small(void)
{
    check_bound(8, 21);
}

static void test_bound_1024(void)
{
    check_bound(1024, 1030);
}

static void test_bound_not_power_of_two(void)
{
    check_bound(1500, 1510);
}

/* finish() settles what still waits: a NAK never followed by its resend, a CE mark. */
static void test_finish_settles_everything(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, 1, 3);
    uint64_t nak = tu_ack(&t, &c, 2, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    uint64_t ce = tu_send_ce(&t, &c, 4);
    CU_ASSERT_PTR_NULL(tu_settled(&t, nak));
    CU_ASSERT_PTR_NULL(tu_settled(&t, ce));
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, nak), ROCE_V_NAK);
    CU_ASSERT_EQUAL(tu_sflags(&t, ce), ROCE_V_CE | ROCE_V_CE_UNANSWERED);
    /* frames may follow a finish: it acted as a flush */
    uint64_t retx = tu_send(&t, &c, 1);
    CU_ASSERT_PTR_NOT_NULL(tu_settled(&t, retx));
    tu_eng_done(&t);
}

/* A NAK waits for its resend at most nak_horizon_ns. */
static void test_nak_settles_at_horizon(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, &(struct tu_opts){.nak_horizon_ns = 1000 * US});
    tu_sends(&t, &c, 1, 3);
    int64_t T = t.now;
    uint64_t nak = tu_ack(&t, &c, 2, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    t.now = T + 1000 * US;
    tu_send(&t, &c, 4);
    CU_ASSERT_PTR_NULL(tu_settled(&t, nak));
    t.now = T + 1000 * US + 1;
    tu_send(&t, &c, 5);
    CU_ASSERT_EQUAL(tu_sflags(&t, nak), ROCE_V_NAK);
    tu_eng_done(&t);
}

/* Without a callback the engine works the same (nothing to deliver to). */
static void test_no_callback(void)
{
    struct roce_config cfg;
    struct roce_frame_out out;
    uint8_t f[RG_MAX_FRAME];
    struct tu_conn c;
    roce_config_default(&cfg);
    struct roce_engine *e = roce_engine_new(&cfg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    tu_conn_init(&c, TU_IP_A, TU_IP_B, TU_QA, TU_QB);
    for (uint32_t i = 0; i < 50; i++) {
        struct rg_spec s = c.req;
        s.psn = i * 2; /* a gap every time */
        s.ecn = i % 3 ? RG_ECN_ECT0 : RG_ECN_CE;
        int n = rg_build(&s, f, sizeof f, NULL);
        struct roce_frame_in in = {i + 1, TU_T0_NS + i, RG_LINKTYPE_ETHERNET,
                                   f,     (uint32_t)n,  (uint32_t)n};
        CU_ASSERT_EQUAL(roce_engine_frame(e, &in, &out), 0);
    }
    roce_engine_finish(e);
    CU_ASSERT_EQUAL(roce_engine_totals(e)->gap_events, 49);
    roce_engine_free(e);
}

/* Invalid configurations are refused. */
static void test_config_validation(void)
{
    struct roce_config cfg;
    roce_config_default(&cfg);
    CU_ASSERT_EQUAL(cfg.udp_port, 4791);
    CU_ASSERT_EQUAL(cfg.cnp_window_ns, WINDOW);
    CU_ASSERT_EQUAL(cfg.pmtu, 0);
    cfg.max_open_verdicts = 0;
    CU_ASSERT_PTR_NULL(roce_engine_new(&cfg));
    roce_config_default(&cfg);
    cfg.cnp_window_ns = -1;
    CU_ASSERT_PTR_NULL(roce_engine_new(&cfg));
    roce_config_default(&cfg);
    cfg.max_flows = 0;
    CU_ASSERT_PTR_NULL(roce_engine_new(&cfg));
}

static const struct tu_test tests[] = {
    {"held_behind_open_verdict", test_held_behind_open_verdict},
    {"immediate_delivery", test_immediate_delivery},
    {"bound_small", test_bound_small},
    {"bound_1024", test_bound_1024},
    {"bound_not_power_of_two", test_bound_not_power_of_two},
    {"finish_settles_everything", test_finish_settles_everything},
    {"nak_settles_at_horizon", test_nak_settles_at_horizon},
    {"no_callback", test_no_callback},
    {"config_validation", test_config_validation},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "verdq", tests);
}
