/*
 * test_seq.c - PSN analysis of the engine (roce_seq.c): gaps,
 * retransmissions, go-back-N episodes and their triggers, NAK classes, PSN
 * wrap, transports, pairing by PSN, ACK latency. READ spans are in
 * test_seq_read.c (same executable, second suite).
 *
 * Every expectation is the one analyzer/engine/ANALYSIS.md gives ("PSN
 * analysis": retransmitted packet, go-back-N episode, PSN gap; "NAKs and
 * ACKs"; "Flows and connections"). Frames are built with rocegen_build; requests go A->B to
 * TU_QB, responses B->A to TU_QA, one frame per microsecond unless a test
 * sets the time.
 */
#include "test_harness.h"
#include "test_seq.h"
#include "test_util.h"

#define PSN_MAX 0xFFFFFFu
#define ACK_OK  0x1F /* AETH ACK, credits "invalid" */

/* Two RC connections A->B whose request PSNs overlap: c1 100..110 (QP 0x201,
 * responses to 0x101), c2 105..115 (QP 0x202, responses to 0x102). */
static void tied_connections(struct tu_eng *t, struct tu_conn *c1, struct tu_conn *c2)
{
    tu_eng_init(t, NULL);
    tu_conn_init(c1, TU_IP_A, TU_IP_B, 0x101, 0x201);
    tu_conn_init(c2, TU_IP_A, TU_IP_B, 0x102, 0x202);
    tu_sends(t, c1, 100, 11);
    tu_sends(t, c2, 105, 11);
}

/* After the resend r: finish, its episode was triggered by NAK frame nak. */
static void check_nak_triggered(struct tu_eng *t, uint64_t r, uint64_t nak)
{
    roce_engine_finish(t->e);
    CU_ASSERT_EQUAL(tu_v(t, r)->trigger, ROCE_TRIGGER_NAK);
    CU_ASSERT_EQUAL(tu_v(t, r)->nak_frame, nak);
    CU_ASSERT_EQUAL(tu_v(t, nak)->retransmitted_in, r);
}

static void test_in_order_no_verdicts(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report r;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, 100, 9);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    CU_ASSERT_EQUAL(t.out.verdict.expected_valid, 1);
    CU_ASSERT_EQUAL(t.out.verdict.expected_psn, 108);
    tu_ack(&t, &c, 108, ACK_OK);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_settled_count(&t), 0);
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->request_packets, 9);
    CU_ASSERT_EQUAL(tt->response_packets, 1);
    CU_ASSERT_EQUAL(tt->gap_events, 0);
    CU_ASSERT_EQUAL(tt->retransmitted_packets, 0);
    CU_ASSERT_EQUAL(tt->episodes, 0);
    CU_ASSERT_EQUAL(tt->naks.total, 0);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &r));
    CU_ASSERT_EQUAL(r.first_psn, 100);
    CU_ASSERT_EQUAL(r.last_psn, 108);
    CU_ASSERT_EQUAL(r.transport, ROCE_TRANSPORT_RC);
    tu_eng_done(&t);
}

static void test_gap_missing_count(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report r;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, 100, 2);           /* 100, 101 */
    uint64_t g1 = tu_send(&t, &c, 105); /* 102..104 lost */
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_GAP);
    CU_ASSERT_EQUAL(t.out.verdict.missing_psns, 3);
    CU_ASSERT_EQUAL(t.out.verdict.expected_psn, 102);
    uint64_t ok = tu_send(&t, &c, 106);
    uint64_t g2 = tu_send(&t, &c, 108); /* 107 lost */
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_v(&t, g1)->flags, ROCE_V_GAP);
    CU_ASSERT_EQUAL(tu_v(&t, g1)->missing_psns, 3);
    CU_ASSERT_EQUAL(tu_sflags(&t, ok), 0);
    CU_ASSERT_EQUAL(tu_v(&t, g2)->missing_psns, 1);
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->gap_events, 2);
    CU_ASSERT_EQUAL(tt->missing_psns, 4);
    CU_ASSERT_EQUAL(tt->retransmitted_packets, 0);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &r));
    CU_ASSERT_EQUAL(r.gap_events, 2);
    CU_ASSERT_EQUAL(r.missing_psns, 4);
    tu_eng_done(&t);
}

/* 100..104, then 102, 103, 104 again with no NAK: one episode, trigger timeout. */
static void test_retransmission_timeout_episode(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, 100, 5);
    uint64_t r1 = tu_send(&t, &c, 102);
    uint64_t r2 = tu_send(&t, &c, 103);
    uint64_t r3 = tu_send(&t, &c, 104);
    uint64_t n1 = tu_send(&t, &c, 105);
    roce_engine_finish(t.e);
    const struct roce_verdict *v = tu_v(&t, r1);
    CU_ASSERT_EQUAL(v->flags, ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    CU_ASSERT_EQUAL(v->trigger, ROCE_TRIGGER_TIMEOUT);
    CU_ASSERT_EQUAL(v->episode_frame, r1);
    CU_ASSERT_EQUAL(v->nak_frame, 0);
    CU_ASSERT_EQUAL(tu_v(&t, r2)->flags, ROCE_V_RETRANSMISSION);
    CU_ASSERT_EQUAL(tu_v(&t, r2)->episode_frame, r1);
    CU_ASSERT_EQUAL(tu_v(&t, r3)->flags, ROCE_V_RETRANSMISSION);
    CU_ASSERT_EQUAL(tu_v(&t, r3)->episode_frame, r1);
    CU_ASSERT_EQUAL(tu_sflags(&t, n1), 0);
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->episodes, 1);
    CU_ASSERT_EQUAL(tt->retransmitted_packets, 3);
    CU_ASSERT_EQUAL(tt->by_trigger[ROCE_TRIGGER_TIMEOUT], 1);
    CU_ASSERT_EQUAL(tt->gap_events, 0);
    CU_ASSERT_EQUAL_FATAL(roce_engine_episode_count(t.e), 1);
    const struct roce_episode *ep = roce_engine_episode(t.e, 0);
    CU_ASSERT_EQUAL(ep->first_frame, r1);
    CU_ASSERT_EQUAL(ep->last_frame, r3);
    CU_ASSERT_EQUAL(ep->first_psn, 102);
    CU_ASSERT_EQUAL(ep->last_psn, 104);
    CU_ASSERT_EQUAL(ep->packets, 3);
    CU_ASSERT_EQUAL(ep->trigger, ROCE_TRIGGER_TIMEOUT);
    CU_ASSERT_EQUAL(ep->nak_frame, 0);
    CU_ASSERT_PTR_NULL(roce_engine_episode(t.e, 1));
    tu_eng_done(&t);
}

/* The PSN highest itself sent again is retransmitted ("not after the highest"). */
static void test_retransmission_of_highest(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, 100, 3);
    uint64_t r = tu_send(&t, &c, 102);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_v(&t, r)->flags, ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    tu_eng_done(&t);
}

/* 100..104; 102; 102 again: the second resend of the same PSN went back
 * again (its first resend was lost or unanswered too), a second episode. */
static void test_new_episode_when_same_psn_resent(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, 100, 5);
    uint64_t a = tu_send(&t, &c, 102);
    uint64_t b = tu_send(&t, &c, 102);
    uint64_t b2 = tu_send(&t, &c, 103);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, a), ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    CU_ASSERT_EQUAL(tu_sflags(&t, b), ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    CU_ASSERT_EQUAL(tu_v(&t, b)->episode_frame, b);
    CU_ASSERT_EQUAL(tu_sflags(&t, b2), ROCE_V_RETRANSMISSION);
    CU_ASSERT_EQUAL(tu_v(&t, b2)->episode_frame, b);
    CU_ASSERT_EQUAL(tu_totals(&t)->episodes, 2);
    CU_ASSERT_EQUAL_FATAL(roce_engine_episode_count(t.e), 2);
    CU_ASSERT_EQUAL(roce_engine_episode(t.e, 0)->packets, 1);
    CU_ASSERT_EQUAL(roce_engine_episode(t.e, 1)->first_psn, 102);
    CU_ASSERT_EQUAL(roce_engine_episode(t.e, 1)->packets, 2);
    tu_eng_done(&t);
}

/* 100..104; 102, 103; 101, 102: the PSN moved back twice, two episodes. */
static void test_new_episode_when_psn_moves_back(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, 100, 5);
    uint64_t a = tu_send(&t, &c, 102);
    uint64_t a2 = tu_send(&t, &c, 103);
    uint64_t b = tu_send(&t, &c, 101);
    uint64_t b2 = tu_send(&t, &c, 102);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, a), ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    CU_ASSERT_EQUAL(tu_sflags(&t, a2), ROCE_V_RETRANSMISSION);
    CU_ASSERT_EQUAL(tu_sflags(&t, b), ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    CU_ASSERT_EQUAL(tu_sflags(&t, b2), ROCE_V_RETRANSMISSION);
    CU_ASSERT_EQUAL(tu_v(&t, b2)->episode_frame, b);
    CU_ASSERT_EQUAL(tu_totals(&t)->episodes, 2);
    CU_ASSERT_EQUAL(tu_totals(&t)->retransmitted_packets, 4);
    CU_ASSERT_EQUAL_FATAL(roce_engine_episode_count(t.e), 2);
    CU_ASSERT_EQUAL(roce_engine_episode(t.e, 0)->packets, 2);
    CU_ASSERT_EQUAL(roce_engine_episode(t.e, 1)->first_psn, 101);
    CU_ASSERT_EQUAL(roce_engine_episode(t.e, 1)->last_psn, 102);
    tu_eng_done(&t);
}

/* 100, 101, [102 lost], 103, 104; NAK(PSN sequence error, 102); 102, 103, 104. */
static void test_nak_trigger(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report r;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, 100, 2);
    uint64_t gap = tu_send(&t, &c, 103);
    tu_send(&t, &c, 104);
    int64_t t_nak = t.now;
    uint64_t nak = tu_ack(&t, &c, 102, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_NAK);
    CU_ASSERT_PTR_NULL(tu_settled(&t, nak)); /* waits to learn where the resend begins */
    t.now += 7000;
    int64_t t_resend = t.now;
    uint64_t r1 = tu_send(&t, &c, 102);
    uint64_t r2 = tu_send(&t, &c, 103);
    tu_send(&t, &c, 104);
    roce_engine_finish(t.e);

    CU_ASSERT_EQUAL(tu_v(&t, gap)->missing_psns, 1);
    const struct roce_verdict *v = tu_v(&t, r1);
    CU_ASSERT_EQUAL(v->flags, ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    CU_ASSERT_EQUAL(v->trigger, ROCE_TRIGGER_NAK);
    CU_ASSERT_EQUAL(v->nak_frame, nak);
    CU_ASSERT_EQUAL(v->nak_to_resend_ns, t_resend - t_nak);
    CU_ASSERT_EQUAL(tu_v(&t, r2)->episode_frame, r1);
    const struct roce_verdict *n = tu_v(&t, nak);
    CU_ASSERT_EQUAL(n->flags, ROCE_V_NAK | ROCE_V_NAK_RESENT);
    CU_ASSERT_EQUAL(n->nak_code, ROCE_NAK_PSN_SEQUENCE_ERROR);
    CU_ASSERT_EQUAL(n->retransmitted_in, r1);
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->by_trigger[ROCE_TRIGGER_NAK], 1);
    CU_ASSERT_EQUAL(tt->episodes, 1);
    CU_ASSERT_EQUAL(tt->retransmitted_packets, 3);
    CU_ASSERT_EQUAL(tt->naks.code[ROCE_NAK_PSN_SEQUENCE_ERROR], 1);
    CU_ASSERT_EQUAL(tt->naks.total, 1);
    const struct roce_episode *ep = roce_engine_episode(t.e, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ep);
    CU_ASSERT_EQUAL(ep->trigger, ROCE_TRIGGER_NAK);
    CU_ASSERT_EQUAL(ep->nak_frame, nak);
    CU_ASSERT_EQUAL(ep->nak_to_resend_ns, t_resend - t_nak);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &r));
    CU_ASSERT_EQUAL(r.by_trigger[ROCE_TRIGGER_NAK], 1);
    tu_eng_done(&t);
}

/* A NAK is used by one episode only: the next go-back to the same PSN is a timeout. */
static void test_nak_used_once(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, 100, 5);
    tu_ack(&t, &c, 102, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    uint64_t e1 = tu_send(&t, &c, 102);
    tu_sends(&t, &c, 103, 3); /* 103, 104 resent, 105 new */
    uint64_t e2 = tu_send(&t, &c, 102);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_v(&t, e1)->trigger, ROCE_TRIGGER_NAK);
    CU_ASSERT_EQUAL(tu_sflags(&t, e2), ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    CU_ASSERT_EQUAL(tu_v(&t, e2)->trigger, ROCE_TRIGGER_TIMEOUT);
    CU_ASSERT_EQUAL(tu_v(&t, e2)->nak_frame, 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->by_trigger[ROCE_TRIGGER_NAK], 1);
    CU_ASSERT_EQUAL(tu_totals(&t)->by_trigger[ROCE_TRIGGER_TIMEOUT], 1);
    tu_eng_done(&t);
}

/* Two NAKs for the same PSN: nak_frame is the latest. */
static void test_nak_frame_is_latest(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, 100, 5);
    uint64_t n1 = tu_ack(&t, &c, 102, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    uint64_t n2 = tu_ack(&t, &c, 102, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    uint64_t r = tu_send(&t, &c, 102);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_v(&t, r)->trigger, ROCE_TRIGGER_NAK);
    CU_ASSERT_EQUAL(tu_v(&t, r)->nak_frame, n2);
    CU_ASSERT_EQUAL(tu_v(&t, n2)->retransmitted_in, r);
    CU_ASSERT_NOT_EQUAL(n1, n2);
    CU_ASSERT_EQUAL(tu_totals(&t)->naks.code[0], 2);
    tu_eng_done(&t);
}

/* Requests 100..104 on A->B, and on an unrelated connection C->D; then one
 * response with `syndrome` for nak_psn, on B->A or (other) on D->C; then 102
 * resent on A->B. Returns the trigger of the episode the resend starts. */
static unsigned trigger_of_resend(uint8_t syndrome, uint32_t nak_psn, int other)
{
    struct tu_eng t;
    struct tu_conn c, o;
    tu_setup(&t, &c, NULL);
    tu_conn_init(&o, 0x0A000003u, 0x0A000004u, TU_QA, TU_QB);
    tu_sends(&t, &c, 100, 5);
    tu_sends(&t, &o, 100, 5);
    tu_ack(&t, other ? &o : &c, nak_psn, syndrome);
    uint64_t r = tu_send(&t, &c, 102);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, r), ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    unsigned trig = tu_v(&t, r)->trigger;
    tu_eng_done(&t);
    return trig;
}

/* "nak"/"rnr" need a PSN-sequence-error / RNR NAK on the paired flow whose
 * PSN equals the episode's first PSN; anything else leaves "timeout". */
static void test_trigger_needs_matching_nak(void)
{
    const uint8_t seq_err = rg_aeth_nak(RG_NAK_PSN_SEQ_ERR);
    CU_ASSERT_EQUAL(trigger_of_resend(seq_err, 102, 0), ROCE_TRIGGER_NAK);
    CU_ASSERT_EQUAL(trigger_of_resend(rg_aeth_rnr(3), 102, 0), ROCE_TRIGGER_RNR);
    CU_ASSERT_EQUAL(trigger_of_resend(seq_err, 103, 0), ROCE_TRIGGER_TIMEOUT); /* other PSN */
    CU_ASSERT_EQUAL(trigger_of_resend(seq_err, 102, 1), ROCE_TRIGGER_TIMEOUT); /* other flow */
    CU_ASSERT_EQUAL(trigger_of_resend(rg_aeth_nak(RG_NAK_INVALID_REQ), 102, 0),
                    ROCE_TRIGGER_TIMEOUT);
    CU_ASSERT_EQUAL(trigger_of_resend(rg_aeth_nak(RG_NAK_REMOTE_OP), 102, 0), ROCE_TRIGGER_TIMEOUT);
    CU_ASSERT_EQUAL(trigger_of_resend(rg_aeth_ack(5), 102, 0), ROCE_TRIGGER_TIMEOUT);
}

/* The NAK must come before the episode. */
static void test_nak_after_resend_is_timeout(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, 100, 5);
    uint64_t r = tu_send(&t, &c, 102);
    uint64_t nak = tu_ack(&t, &c, 102, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_v(&t, r)->trigger, ROCE_TRIGGER_TIMEOUT);
    CU_ASSERT_EQUAL(tu_v(&t, nak)->flags, ROCE_V_NAK);
    tu_eng_done(&t);
}

/* SEND 100; RNR NAK for 100 (timer 14); 100 again: trigger rnr. */
static void test_rnr_trigger(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_send(&t, &c, 100);
    int64_t t_rnr = t.now;
    uint64_t rnr = tu_ack(&t, &c, 100, rg_aeth_rnr(14));
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_RNR);
    CU_ASSERT_EQUAL(t.out.verdict.rnr_timer, 14);
    t.now += 1280000; /* 1.28 ms later */
    int64_t t_resend = t.now;
    uint64_t r = tu_send(&t, &c, 100);
    roce_engine_finish(t.e);
    const struct roce_verdict *v = tu_v(&t, r);
    CU_ASSERT_EQUAL(v->flags, ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    CU_ASSERT_EQUAL(v->trigger, ROCE_TRIGGER_RNR);
    CU_ASSERT_EQUAL(v->nak_frame, rnr);
    CU_ASSERT_EQUAL(v->nak_to_resend_ns, t_resend - t_rnr);
    CU_ASSERT_EQUAL(tu_v(&t, rnr)->flags, ROCE_V_RNR | ROCE_V_NAK_RESENT);
    CU_ASSERT_EQUAL(tu_v(&t, rnr)->retransmitted_in, r);
    CU_ASSERT_EQUAL(tu_totals(&t)->by_trigger[ROCE_TRIGGER_RNR], 1);
    CU_ASSERT_EQUAL(tu_totals(&t)->naks.rnr, 1);
    CU_ASSERT_EQUAL(tu_totals(&t)->naks.total, 1);
    tu_eng_done(&t);
}

/* A PSN-sequence-error NAK and an RNR NAK for the same PSN: "nak" comes first. */
static void test_nak_before_rnr(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, 100, 5);
    uint64_t nak = tu_ack(&t, &c, 102, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    tu_ack(&t, &c, 102, rg_aeth_rnr(3));
    uint64_t r = tu_send(&t, &c, 102);
    check_nak_triggered(&t, r, nak);
    tu_eng_done(&t);
}

/* nak_horizon_ns: a NAK older than the configured horizon no longer triggers. */
static void test_nak_horizon(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, &(struct tu_opts){.nak_horizon_ns = 1000000}); /* 1 ms */
    tu_sends(&t, &c, 100, 5);
    uint64_t nak = tu_ack(&t, &c, 102, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    t.now += 2000000;
    uint64_t r = tu_send(&t, &c, 102);
    CU_ASSERT_PTR_NOT_NULL(tu_settled(&t, nak)); /* settled when its horizon passed */
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_v(&t, r)->trigger, ROCE_TRIGGER_TIMEOUT);
    CU_ASSERT_EQUAL(tu_v(&t, nak)->flags, ROCE_V_NAK);
    tu_eng_done(&t);
}

/* The horizon is inclusive: a resend exactly nak_horizon_ns after the NAK is still triggered by
 * it, one nanosecond later it is a timeout (ANALYSIS.md "Decisions", NAK horizon). */
static unsigned trigger_after(int64_t delay)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, &(struct tu_opts){.nak_horizon_ns = 1000000}); /* 1 ms */
    tu_sends(&t, &c, 100, 5);
    int64_t t_nak = t.now;
    uint64_t nak = tu_ack(&t, &c, 102, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    t.now = t_nak + delay;
    uint64_t r = tu_send(&t, &c, 102);
    roce_engine_finish(t.e);
    unsigned trig = tu_v(&t, r)->trigger;
    CU_ASSERT_EQUAL(tu_v(&t, nak)->flags,
                    trig == ROCE_TRIGGER_NAK ? ROCE_V_NAK | ROCE_V_NAK_RESENT : ROCE_V_NAK);
    if (trig == ROCE_TRIGGER_NAK)
        CU_ASSERT_EQUAL(tu_v(&t, r)->nak_to_resend_ns, delay);
    tu_eng_done(&t);
    return trig;
}

static void test_nak_horizon_boundary(void)
{
    CU_ASSERT_EQUAL(trigger_after(1000000), ROCE_TRIGGER_NAK);
    CU_ASSERT_EQUAL(trigger_after(1000001), ROCE_TRIGGER_TIMEOUT);
}

/* NAKs for different PSNs pending at once: 100..109 sent; NAKs for 102 (twice) and 105. The
 * go-back to 102 names the later NAK for 102 and spends both (ANALYSIS.md "Decisions"), not the
 * one for 105; that one triggers the later go-back to 105, after a new request ended the first
 * episode. */
static void test_naks_for_several_psns(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, 100, 10);
    uint64_t n102a = tu_ack(&t, &c, 102, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    uint64_t n105 = tu_ack(&t, &c, 105, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    uint64_t n102b = tu_ack(&t, &c, 102, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    uint64_t r1 = tu_send(&t, &c, 102);
    uint64_t last = tu_sends(&t, &c, 103, 4); /* 103..106: the same episode */
    tu_send(&t, &c, 110);                     /* a new request ends it */
    uint64_t r2 = tu_send(&t, &c, 105);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_v(&t, r1)->trigger, ROCE_TRIGGER_NAK);
    CU_ASSERT_EQUAL(tu_v(&t, r1)->nak_frame, n102b);
    CU_ASSERT_EQUAL(tu_v(&t, last)->flags, ROCE_V_RETRANSMISSION);
    CU_ASSERT_EQUAL(tu_v(&t, last)->episode_frame, r1);
    CU_ASSERT_EQUAL(tu_v(&t, n102a)->flags, ROCE_V_NAK | ROCE_V_NAK_RESENT);
    CU_ASSERT_EQUAL(tu_v(&t, n102a)->retransmitted_in, r1);
    CU_ASSERT_EQUAL(tu_v(&t, n102b)->retransmitted_in, r1);
    CU_ASSERT_EQUAL(tu_v(&t, r2)->flags, ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    CU_ASSERT_EQUAL(tu_v(&t, r2)->trigger, ROCE_TRIGGER_NAK);
    CU_ASSERT_EQUAL(tu_v(&t, r2)->nak_frame, n105);
    CU_ASSERT_EQUAL(tu_v(&t, n105)->flags, ROCE_V_NAK | ROCE_V_NAK_RESENT);
    CU_ASSERT_EQUAL(tu_v(&t, n105)->retransmitted_in, r2);
    CU_ASSERT_EQUAL(tu_totals(&t)->episodes, 2);
    CU_ASSERT_EQUAL(tu_totals(&t)->by_trigger[ROCE_TRIGGER_NAK], 2);
    tu_eng_done(&t);
}

/* The four most recent NAKs are kept per request flow (ANALYSIS.md "PSN analysis"): a
 * fifth pushes out the oldest, which is settled without a resend and triggers nothing; the
 * newest still does. */
static void test_nak_ring_overflow(void)
{
    struct tu_eng t;
    struct tu_conn c;
    uint64_t nak[5];
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, 100, 10);
    for (unsigned i = 0; i < 5; i++)
        nak[i] = tu_ack(&t, &c, 101 + i, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    tu_send(&t, &c, 110);
    CU_ASSERT_EQUAL(tu_sflags(&t, nak[0]), ROCE_V_NAK); /* settled once pushed out */
    CU_ASSERT_PTR_NULL(tu_settled(&t, nak[1]));
    uint64_t r1 = tu_send(&t, &c, 101);
    tu_sends(&t, &c, 102, 9); /* 102..110 again */
    tu_send(&t, &c, 111);
    uint64_t r2 = tu_send(&t, &c, 105);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_v(&t, r1)->trigger, ROCE_TRIGGER_TIMEOUT);
    CU_ASSERT_EQUAL(tu_v(&t, r1)->nak_frame, 0);
    CU_ASSERT_EQUAL(tu_v(&t, nak[0])->flags, ROCE_V_NAK);
    CU_ASSERT_EQUAL(tu_v(&t, r2)->trigger, ROCE_TRIGGER_NAK);
    CU_ASSERT_EQUAL(tu_v(&t, r2)->nak_frame, nak[4]);
    CU_ASSERT_EQUAL(tu_v(&t, nak[4])->retransmitted_in, r2);
    for (unsigned i = 1; i < 4; i++) /* never the first PSN of an episode */
        CU_ASSERT_EQUAL(tu_v(&t, nak[i])->flags, ROCE_V_NAK);
    tu_eng_done(&t);
}

/* The episode list keeps max_episodes episodes; later ones are counted (episodes_unlisted) and
 * still carry their verdicts. */
static void test_episode_list_cap(void)
{
    struct tu_eng t;
    struct tu_conn c;
    uint64_t r[3];
    tu_setup(&t, &c, &(struct tu_opts){.max_episodes = 2});
    tu_sends(&t, &c, 100, 3);
    for (unsigned i = 0; i < 3; i++) {
        r[i] = tu_send(&t, &c, 101); /* back to 101 */
        tu_send(&t, &c, 103 + i);    /* a new request ends the episode */
    }
    roce_engine_finish(t.e);
    for (unsigned i = 0; i < 3; i++)
        CU_ASSERT_EQUAL(tu_sflags(&t, r[i]), ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->episodes, 3);
    CU_ASSERT_EQUAL(tt->episodes_unlisted, 1);
    CU_ASSERT_EQUAL_FATAL(roce_engine_episode_count(t.e), 2);
    CU_ASSERT_EQUAL(roce_engine_episode(t.e, 0)->first_frame, r[0]);
    CU_ASSERT_EQUAL(roce_engine_episode(t.e, 1)->first_frame, r[1]);
    CU_ASSERT_PTR_NULL(roce_engine_episode(t.e, 2));
    tu_eng_done(&t);
}

/* ---- PSN wrap ---- */

static void test_wrap_in_order_and_gap(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, PSN_MAX - 2, 5); /* FFFFFD FFFFFE FFFFFF 0 1 */
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    CU_ASSERT_EQUAL(t.out.verdict.expected_psn, 1);
    uint64_t g = tu_send(&t, &c, 3);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_settled_count(&t), 1);
    CU_ASSERT_EQUAL(tu_v(&t, g)->flags, ROCE_V_GAP);
    CU_ASSERT_EQUAL(tu_v(&t, g)->missing_psns, 1);
    tu_eng_done(&t);

    /* a gap that spans the wrap: FFFFFE, then 1 (FFFFFF and 0 lost) */
    tu_setup(&t, &c, NULL);
    tu_send(&t, &c, PSN_MAX - 1);
    g = tu_send(&t, &c, 1);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_GAP);
    CU_ASSERT_EQUAL(t.out.verdict.missing_psns, 2);
    CU_ASSERT_EQUAL(t.out.verdict.expected_psn, PSN_MAX);
    tu_eng_done(&t);
}

static void test_wrap_retransmission(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, PSN_MAX - 2, 5); /* ... FFFFFF 0 1 */
    uint64_t r1 = tu_send(&t, &c, PSN_MAX);
    uint64_t r2 = tu_send(&t, &c, 0);
    uint64_t r3 = tu_send(&t, &c, 1);
    uint64_t n = tu_send(&t, &c, 2);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, r1), ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    CU_ASSERT_EQUAL(tu_sflags(&t, r2), ROCE_V_RETRANSMISSION); /* 0 follows FFFFFF: same episode */
    CU_ASSERT_EQUAL(tu_sflags(&t, r3), ROCE_V_RETRANSMISSION);
    CU_ASSERT_EQUAL(tu_sflags(&t, n), 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->episodes, 1);
    CU_ASSERT_EQUAL(roce_engine_episode(t.e, 0)->first_psn, PSN_MAX);
    CU_ASSERT_EQUAL(roce_engine_episode(t.e, 0)->last_psn, 1);
    tu_eng_done(&t);
}

static void test_wrap_nak(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, PSN_MAX - 1, 4); /* FFFFFE FFFFFF 0 1 */
    uint64_t nak = tu_ack(&t, &c, PSN_MAX, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    uint64_t r = tu_send(&t, &c, PSN_MAX);
    check_nak_triggered(&t, r, nak);
    tu_eng_done(&t);
}

/* ---- transports ---- */

/* UC: gaps only, never retransmissions; a missing PSN coming late is out
 * of order, an older one is ignored. */
static void test_uc_gaps_only(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_req(&t, &c, RG_OP_UC_SEND_ONLY, 10, 32);
    tu_req(&t, &c, RG_OP_UC_SEND_ONLY, 11, 32);
    uint64_t g = tu_req(&t, &c, RG_OP_UC_SEND_ONLY, 13, 32);
    uint64_t back = tu_req(&t, &c, RG_OP_UC_SEND_ONLY, 12, 32);
    uint64_t back2 = tu_req(&t, &c, RG_OP_UC_SEND_ONLY, 11, 32);
    uint64_t next = tu_req(&t, &c, RG_OP_UC_SEND_ONLY, 14, 32);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, g), ROCE_V_GAP);
    CU_ASSERT_EQUAL(tu_v(&t, g)->missing_psns, 1);
    CU_ASSERT_EQUAL(tu_sflags(&t, back), ROCE_V_REORDERED);
    CU_ASSERT_EQUAL(tu_sflags(&t, back2), 0);
    CU_ASSERT_EQUAL(tu_sflags(&t, next), 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->retransmitted_packets, 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->episodes, 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->gap_events, 1);
    tu_eng_done(&t);
}

/* UD: counted, not sequence-checked. */
static void test_ud_not_checked(void)
{
    static const uint32_t psns[] = {10, 20, 5, 5, 6};
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report r;
    tu_setup(&t, &c, NULL);
    c.req.deth_qkey = 0x11111111u;
    c.req.deth_srcqp = TU_QA;
    for (size_t i = 0; i < sizeof psns / sizeof psns[0]; i++) {
        tu_req(&t, &c, RG_OP_UD_SEND_ONLY, psns[i], 256);
        CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
        CU_ASSERT_EQUAL(t.out.verdict.expected_valid, 0);
    }
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_settled_count(&t), 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->request_packets, 5);
    CU_ASSERT_EQUAL(tu_totals(&t)->gap_events, 0);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &r));
    CU_ASSERT_EQUAL(r.transport, ROCE_TRANSPORT_UD);
    CU_ASSERT_EQUAL(r.packets, 5);
    tu_eng_done(&t);
}

/* XRC is sequence-checked like RC. */
static void test_xrc_checked(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_req(&t, &c, RG_OP_XRC_SEND_ONLY, 10, 8);
    uint64_t g = tu_req(&t, &c, RG_OP_XRC_SEND_ONLY, 12, 8);
    t.now += 2 * ROCE_NS_PER_MS; /* too late to be out of order */
    uint64_t r = tu_req(&t, &c, RG_OP_XRC_SEND_ONLY, 11, 8);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, g), ROCE_V_GAP);
    CU_ASSERT_EQUAL(tu_sflags(&t, r), ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    tu_eng_done(&t);
}

/* ---- NAK classes ---- */

static void test_nak_codes_counted(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report r;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, 100, 10);
    for (unsigned code = 0; code <= 4; code++) {
        tu_ack(&t, &c, 100 + code, rg_aeth_nak(code));
        CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_NAK);
        CU_ASSERT_EQUAL(t.out.verdict.nak_code, code);
    }
    tu_ack(&t, &c, 105, rg_aeth_nak(5)); /* reserved codes */
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_NAK);
    CU_ASSERT_EQUAL(t.out.verdict.nak_code, 5);
    tu_ack(&t, &c, 105, rg_aeth_nak(31));
    tu_ack(&t, &c, 106, rg_aeth_rnr(0)); /* RNR, twice */
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_RNR);
    tu_ack(&t, &c, 106, rg_aeth_rnr(31));
    CU_ASSERT_EQUAL(t.out.verdict.rnr_timer, 31);
    tu_ack(&t, &c, 107, rg_aeth_ack(5)); /* an ACK: no NAK */
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    tu_ack(&t, &c, 107, 0x40); /* AETH type 10, reserved: not a NAK */
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    /* a READ response carrying a NAK counts too */
    tu_rsp(&t, &c, RG_OP_RC_READ_RESP_ONLY, 108, rg_aeth_nak(RG_NAK_REMOTE_ACCESS), 0);
    CU_ASSERT(t.out.verdict.flags & ROCE_V_NAK);
    roce_engine_finish(t.e);
    const struct roce_nak_counts *n = &tu_totals(&t)->naks;
    CU_ASSERT_EQUAL(n->code[0], 1);
    CU_ASSERT_EQUAL(n->code[1], 1);
    CU_ASSERT_EQUAL(n->code[2], 2);
    CU_ASSERT_EQUAL(n->code[3], 1);
    CU_ASSERT_EQUAL(n->code[4], 1);
    CU_ASSERT_EQUAL(n->reserved_code, 2);
    CU_ASSERT_EQUAL(n->rnr, 2);
    CU_ASSERT_EQUAL(n->total, 10);
    CU_ASSERT_EQUAL(tu_totals(&t)->aeth_reserved, 1);
    CU_ASSERT_TRUE(
        tu_flow(&t, TU_IP_B, TU_IP_A, TU_QA, &r)); /* counted on the flow that carried them */
    CU_ASSERT_EQUAL(r.naks.total, 10);
    CU_ASSERT_EQUAL(r.naks.rnr, 2);
    tu_eng_done(&t);
}

/* ---- pairing by PSN ---- */

static void test_pairing_by_psn_one_candidate(void)
{
    struct tu_eng t;
    struct tu_conn c1, c2;
    struct roce_flow_report req1, rsp1, req2;
    tu_eng_init(&t, NULL);
    tu_conn_init(&c1, TU_IP_A, TU_IP_B, 0x101, 0x201);
    tu_conn_init(&c2, TU_IP_A, TU_IP_B, 0x102, 0x202);
    tu_sends(&t, &c1, 100, 5);
    tu_sends(&t, &c2, 5000, 5);
    tu_ack(&t, &c1, 102, ACK_OK);
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_PSN);
    CU_ASSERT_EQUAL(t.out.verdict.peer_dqpn, 0x201);
    tu_ack(&t, &c2, 5004, ACK_OK);
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_PSN);
    CU_ASSERT_EQUAL(t.out.verdict.peer_dqpn, 0x202);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, 0x201, &req1));
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_B, TU_IP_A, 0x101, &rsp1));
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, 0x202, &req2));
    CU_ASSERT_EQUAL(req1.peer_id, rsp1.id);
    CU_ASSERT_EQUAL(rsp1.peer_id, req1.id);
    CU_ASSERT_EQUAL(req1.paired_by, ROCE_PAIRED_PSN);
    CU_ASSERT_NOT_EQUAL(req2.peer_id, 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->connections, 2);
    tu_check_flow_table(&t);
    /* a request verdict now names its peer too */
    tu_send(&t, &c1, 105);
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_PSN);
    CU_ASSERT_EQUAL(t.out.verdict.peer_dqpn, 0x101);
    tu_eng_done(&t);
}

static void test_pairing_tie_stays_unpaired(void)
{
    struct tu_eng t;
    struct tu_conn c1, c2;
    struct roce_flow_report rsp;
    tied_connections(&t, &c1, &c2);
    tu_ack(&t, &c1, 107, ACK_OK); /* in both ranges */
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_NONE);
    CU_ASSERT_EQUAL(t.out.verdict.peer_dqpn, 0);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_B, TU_IP_A, 0x101, &rsp));
    CU_ASSERT_EQUAL(rsp.peer_id, 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->connections, 0);
    /* a NAK on the unpaired flow triggers nothing */
    tu_ack(&t, &c1, 108, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    /* later a PSN only c1 used: paired */
    tu_ack(&t, &c1, 101, ACK_OK);
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_PSN);
    CU_ASSERT_EQUAL(t.out.verdict.peer_dqpn, 0x201);
    tu_check_flow_table(&t);
    tu_eng_done(&t);
}

/* A NAK on the response flow while it was still unpaired (a tie) was "seen on
 * the paired flow" once that flow pairs: it triggers the resend's episode. */
static void test_nak_seen_before_pairing(void)
{
    struct tu_eng t;
    struct tu_conn c1, c2;
    tied_connections(&t, &c1, &c2);
    uint64_t nak = tu_ack(&t, &c1, 108, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR)); /* tie */
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_NONE);
    tu_ack(&t, &c1, 101, ACK_OK); /* pairs c1 */
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_PSN);
    uint64_t r = tu_send(&t, &c1, 108);
    check_nak_triggered(&t, r, nak);
    tu_eng_done(&t);
}

/* However many tied responses came first, the first response whose PSN only
 * one candidate used pairs the flows ("Connection"): here a NAK, whose
 * resend must then be triggered by it. */
static void test_pairing_after_many_ties(void)
{
    struct tu_eng t;
    struct tu_conn c1, c2;
    tied_connections(&t, &c1, &c2);
    for (int i = 0; i < 20; i++)
        tu_ack(&t, &c1, 107, ACK_OK); /* tied every time */
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_NONE);
    uint64_t nak = tu_ack(&t, &c1, 101, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_PSN);
    CU_ASSERT_EQUAL(t.out.verdict.peer_dqpn, 0x201);
    uint64_t r = tu_send(&t, &c1, 101);
    check_nak_triggered(&t, r, nak);
    tu_eng_done(&t);
}

/* A response whose PSN no request flow has used pairs with nothing. */
static void test_pairing_needs_psn_in_range(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, 100, 5);
    tu_ack(&t, &c, 200, ACK_OK);
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_NONE);
    tu_ack(&t, &c, 99, ACK_OK);
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_NONE);
    tu_ack(&t, &c, 104, ACK_OK);
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_PSN);
    tu_eng_done(&t);
}

/* ---- ACK latency ---- */

static void test_ack_latency(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report r;
    tu_setup(&t, &c, NULL);
    c.req.ackreq = 1;
    int64_t t0 = t.now;
    tu_send(&t, &c, 1); /* t0 */
    tu_send(&t, &c, 2); /* t0 + 1 us */
    t.now = t0 + 10000;
    tu_ack(&t, &c, 2, ACK_OK); /* acknowledges 1 and 2 */
    t.now = t0 + 20000;
    tu_send(&t, &c, 3); /* t0 + 20 us */
    t.now = t0 + 23000;
    tu_ack(&t, &c, 3, ACK_OK);
    tu_ack(&t, &c, 3, ACK_OK); /* a second ACK: no new sample */
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &r));
    CU_ASSERT_EQUAL(r.ack_latency.count, 3);
    CU_ASSERT_EQUAL(r.ack_latency.min, 3000);
    CU_ASSERT_EQUAL(r.ack_latency.p50, 9000);
    CU_ASSERT_EQUAL(r.ack_latency.max, 10000);
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->ack_latency.count, 3);
    CU_ASSERT_EQUAL(tt->ack_latency.min, 3000);
    CU_ASSERT_EQUAL(tt->ack_latency.max, 10000);
    tu_eng_done(&t);
}

/* Past its 32 exact samples a flow's ACK latencies go into its histogram a
 * batch at a time (roce_flow.h): whatever reads the flow's distribution
 * (its report, roce_engine_flow_latency) sees every sample so far, as the
 * totals' distribution, which takes each at once. */
static void test_ack_latency_batched(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report r;
    struct roce_flow_key k;
    tu_setup(&t, &c, NULL);
    c.req.ackreq = 1;
    for (uint32_t i = 1; i <= 50; i++) {
        int64_t sent = t.now;
        tu_send(&t, &c, i);
        t.now = sent + (int64_t)i * 1000; /* i us */
        tu_ack(&t, &c, i, ACK_OK);
        if (i == 1) {
            CU_ASSERT_TRUE_FATAL(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &r));
            k = r.key;
        }
        if (i == 45) { /* 33 added at once (the 33rd makes the histogram), 12 batched: 7
                          added, 5 waiting */
            const struct roce_lat *l = roce_engine_flow_latency(t.e, &k, 0, ROCE_LATENCY_ACK);
            CU_ASSERT_PTR_NOT_NULL_FATAL(l);
            CU_ASSERT_EQUAL(l->count, 45);
            CU_ASSERT_EQUAL(l->max, 45000);
        }
    }
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &r));
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(r.ack_latency.count, 50);
    CU_ASSERT_EQUAL(r.ack_latency.min, 1000);
    CU_ASSERT_EQUAL(r.ack_latency.max, 50000);
    CU_ASSERT_EQUAL(r.ack_latency.p50, tt->ack_latency.p50);
    CU_ASSERT_EQUAL(r.ack_latency.p99, tt->ack_latency.p99);
    CU_ASSERT_EQUAL(tt->ack_latency.count, 50);
    tu_eng_done(&t);
}

/* Karn's rule (ANALYSIS.md "NAKs and ACKs"): once a request is resent, the requests outstanding
 * give no sample (their ACK may answer either copy); requests sent after it do. */
static void test_ack_latency_karn(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report r;
    tu_setup(&t, &c, NULL);
    c.req.ackreq = 1;
    int64_t t0 = t.now;
    tu_send(&t, &c, 1);
    tu_send(&t, &c, 2);
    t.now = t0 + 10000;
    tu_send(&t, &c, 1); /* resent */
    tu_send(&t, &c, 2);
    t.now = t0 + 20000;
    tu_ack(&t, &c, 2, ACK_OK); /* no sample */
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &r));
    CU_ASSERT_EQUAL(r.ack_latency.count, 0);
    t.now = t0 + 30000;
    tu_send(&t, &c, 3);
    t.now = t0 + 35000;
    tu_ack(&t, &c, 3, ACK_OK); /* 5 us */
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &r));
    CU_ASSERT_EQUAL(r.ack_latency.count, 1);
    CU_ASSERT_EQUAL(r.ack_latency.min, 5000);
    CU_ASSERT_EQUAL(tu_totals(&t)->ack_latency.count, 1);
    tu_eng_done(&t);
}

/* At most 8 requests wait for their ACK per flow (ANALYSIS.md "NAKs and ACKs"): of 9 AckReq
 * requests acknowledged together the first 8 give samples; once answered, a new one does. */
static void test_ack_latency_eight_waiting(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report r;
    tu_setup(&t, &c, NULL);
    c.req.ackreq = 1;
    int64_t t0 = t.now;
    tu_sends(&t, &c, 1, 9); /* 1..9 at t0 .. t0 + 8 us */
    t.now = t0 + 100000;
    tu_ack(&t, &c, 9, ACK_OK);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &r));
    CU_ASSERT_EQUAL(r.ack_latency.count, 8);
    CU_ASSERT_EQUAL(r.ack_latency.max, 100000);
    CU_ASSERT_EQUAL(r.ack_latency.min, 93000); /* request 8; request 9 waited 92 us, unsampled */
    t.now = t0 + 200000;
    tu_send(&t, &c, 10);
    t.now = t0 + 202000;
    tu_ack(&t, &c, 10, ACK_OK);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &r));
    CU_ASSERT_EQUAL(r.ack_latency.count, 9);
    CU_ASSERT_EQUAL(r.ack_latency.min, 2000);
    tu_eng_done(&t);
}

static const struct tu_test seq_tests[] = {
    {"in_order_no_verdicts", test_in_order_no_verdicts},
    {"gap_missing_count", test_gap_missing_count},
    {"retransmission_timeout_episode", test_retransmission_timeout_episode},
    {"retransmission_of_highest", test_retransmission_of_highest},
    {"new_episode_when_psn_moves_back", test_new_episode_when_psn_moves_back},
    {"new_episode_when_same_psn_resent", test_new_episode_when_same_psn_resent},
    {"nak_trigger", test_nak_trigger},
    {"nak_used_once", test_nak_used_once},
    {"nak_frame_is_latest", test_nak_frame_is_latest},
    {"trigger_needs_matching_nak", test_trigger_needs_matching_nak},
    {"nak_after_resend_is_timeout", test_nak_after_resend_is_timeout},
    {"rnr_trigger", test_rnr_trigger},
    {"nak_before_rnr", test_nak_before_rnr},
    {"nak_horizon", test_nak_horizon},
    {"nak_horizon_boundary", test_nak_horizon_boundary},
    {"naks_for_several_psns", test_naks_for_several_psns},
    {"nak_ring_overflow", test_nak_ring_overflow},
    {"episode_list_cap", test_episode_list_cap},
    {"wrap_in_order_and_gap", test_wrap_in_order_and_gap},
    {"wrap_retransmission", test_wrap_retransmission},
    {"wrap_nak", test_wrap_nak},
    {"uc_gaps_only", test_uc_gaps_only},
    {"ud_not_checked", test_ud_not_checked},
    {"xrc_checked", test_xrc_checked},
    {"nak_codes_counted", test_nak_codes_counted},
    {"pairing_by_psn_one_candidate", test_pairing_by_psn_one_candidate},
    {"pairing_tie_stays_unpaired", test_pairing_tie_stays_unpaired},
    {"nak_seen_before_pairing", test_nak_seen_before_pairing},
    {"pairing_after_many_ties", test_pairing_after_many_ties},
    {"pairing_needs_psn_in_range", test_pairing_needs_psn_in_range},
    {"ack_latency", test_ack_latency},
    {"ack_latency_batched", test_ack_latency_batched},
    {"ack_latency_karn", test_ack_latency_karn},
    {"ack_latency_eight_waiting", test_ack_latency_eight_waiting},
    TU_END,
};

int main(int argc, char **argv)
{
    const struct tu_suite suites[] = {
        {"seq", seq_tests},
        {"seq_read", seq_read_tests},
        {NULL, NULL},
    };
    return tu_main(argc, argv, suites);
}
