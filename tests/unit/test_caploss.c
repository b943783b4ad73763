/*
 * test_caploss.c - PSN gaps told apart as network or capture loss
 * (roce_caploss.c), and the NAK generation time of the recovery breakdown
 * (roce_reqlog.c, roce_seq.c).
 *
 * ANALYSIS.md "Capture loss and network loss", "Recovery breakdown":
 * capture_loss is a PSN gap of an RC/XRC flow whose missing PSNs a later
 * ACK of the paired flow covers (an ACK PSN at or after the gap's last
 * missing PSN) before any NAK or resend of them;
 * nak_generation = NAK time - the time of the earliest request of the flow
 * captured before the NAK whose PSN is after the NAK's PSN (null when none).
 * ANALYSIS.md "Diagnoses" has the decisions: a gap that nothing settles
 * within the NAK horizon, whose flow goes away, or of UC, is network loss;
 * the out-of-sequence arrival is looked for in the run of requests since the
 * flow last sent the NAK's PSN or an earlier one.
 */
#include "roce_reqlog.h"
#include "test_harness.h"
#include "test_util.h"

#define US 1000

/* The connection of tu_setup paired by PSN (SEND 1, ACK 1). */
static void setup_paired(struct tu_eng *t, struct tu_conn *c, const struct tu_opts *o)
{
    tu_setup(t, c, o);
    tu_send(t, c, 1);
    tu_ack(t, c, 1, rg_aeth_ack(0));
    CU_ASSERT_EQUAL(t->out.verdict.paired_by, ROCE_PAIRED_PSN);
}

static struct roce_flow_report req_flow(struct tu_eng *t)
{
    struct roce_flow_report r;
    CU_ASSERT_FATAL(tu_flow(t, TU_IP_A, TU_IP_B, TU_QB, &r));
    return r;
}

/* PSNs 2 and 3 missed, the ACK of 5 covers them: capture loss. The gap's
 * verdict waits for it. */
static void test_ack_covers_gap(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, NULL);
    uint64_t gap = tu_send(&t, &c, 4);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_GAP);
    CU_ASSERT_PTR_NULL(tu_settled(&t, gap));
    CU_ASSERT_EQUAL(req_flow(&t).gaps_pending, 1);
    tu_send(&t, &c, 5);
    tu_ack(&t, &c, 2, rg_aeth_ack(0)); /* before the gap's last missing PSN: nothing yet */
    CU_ASSERT_PTR_NULL(tu_settled(&t, gap));
    tu_ack(&t, &c, 3, rg_aeth_ack(0)); /* at it: covers the gap */
    CU_ASSERT_EQUAL(tu_sflags(&t, gap), ROCE_V_GAP | ROCE_V_CAPTURE_LOSS);
    CU_ASSERT_EQUAL(tu_v(&t, gap)->missing_psns, 2);
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->gap_events, 1);
    CU_ASSERT_EQUAL(tt->capture_loss_events, 1);
    CU_ASSERT_EQUAL(tt->capture_loss_psns, 2);
    struct roce_flow_report r = req_flow(&t);
    CU_ASSERT_EQUAL(r.capture_loss_gaps, 1);
    CU_ASSERT_EQUAL(r.capture_loss_psns, 2);
    CU_ASSERT_EQUAL(r.gaps_pending, 0);
    const struct roce_evidence *ev = roce_engine_flow_evidence(t.e, &r.key, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
    CU_ASSERT_EQUAL(ev->n[ROCE_DIAG_CAPTURE_LOSS], 1);
    CU_ASSERT_EQUAL(ev->frame[ROCE_DIAG_CAPTURE_LOSS][0], gap);
    CU_ASSERT_EQUAL(ev->n[ROCE_DIAG_PACKET_LOSS], 0);
    tu_eng_done(&t);
}

/* A NAK for a missing PSN comes first: network loss, whatever ACK follows. */
static void test_nak_first(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, NULL);
    uint64_t gap = tu_send(&t, &c, 3);
    tu_ack(&t, &c, 2, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    CU_ASSERT_EQUAL(tu_sflags(&t, gap), ROCE_V_GAP);
    tu_send(&t, &c, 2);
    tu_send(&t, &c, 3);
    tu_ack(&t, &c, 3, rg_aeth_ack(0));
    CU_ASSERT_EQUAL(tu_totals(&t)->capture_loss_events, 0);
    const struct roce_flow_report r = req_flow(&t);
    CU_ASSERT_EQUAL(roce_engine_flow_evidence(t.e, &r.key, 0)->frame[ROCE_DIAG_PACKET_LOSS][0],
                    gap);
    tu_eng_done(&t);
}

/* A resend from before the gap (a timeout) comes first: network loss. */
static void test_resend_first(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, NULL);
    uint64_t gap = tu_send(&t, &c, 4);
    tu_send(&t, &c, 2); /* goes back: the missing PSNs will be resent */
    CU_ASSERT_EQUAL(tu_sflags(&t, gap), ROCE_V_GAP);
    tu_eng_done(&t);
}

/* A resend of a later PSN, or a NAK after the gap, leaves it open: the
 * ACK then settles it as capture loss. */
static void test_later_nak_keeps_gap(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, NULL);
    uint64_t gap = tu_send(&t, &c, 3); /* 2 missing */
    tu_send(&t, &c, 4);
    tu_send(&t, &c, 6); /* 5 missing */
    uint64_t gap2 = t.frame;
    tu_ack(&t, &c, 5, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR)); /* the second is lost */
    CU_ASSERT_PTR_NULL(tu_settled(&t, gap));            /* (the second waits behind it) */
    CU_ASSERT_EQUAL(tu_totals(&t)->capture_loss_events, 0);
    tu_ack(&t, &c, 4, rg_aeth_ack(0));
    CU_ASSERT_EQUAL(tu_sflags(&t, gap), ROCE_V_GAP | ROCE_V_CAPTURE_LOSS);
    CU_ASSERT_EQUAL(tu_sflags(&t, gap2), ROCE_V_GAP);
    CU_ASSERT_EQUAL(tu_totals(&t)->capture_loss_events, 1);
    tu_eng_done(&t);
}

/* Nothing settles a gap within the NAK horizon: network loss then; at the
 * end of the capture too. */
static void test_horizon_and_finish(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, &(struct tu_opts){.nak_horizon_ns = 100 * US});
    int64_t T = t.now;
    uint64_t gap = tu_send(&t, &c, 3);
    t.now = T + 100 * US;
    tu_send(&t, &c, 4);
    CU_ASSERT_PTR_NULL(tu_settled(&t, gap));
    t.now = T + 100 * US + 1;
    tu_send(&t, &c, 5);
    CU_ASSERT_EQUAL(tu_sflags(&t, gap), ROCE_V_GAP);
    CU_ASSERT_EQUAL(req_flow(&t).gaps_pending, 0);
    uint64_t gap2 = tu_send(&t, &c, 9);
    CU_ASSERT_EQUAL(req_flow(&t).gaps_pending, 1);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, gap2), ROCE_V_GAP);
    CU_ASSERT_EQUAL(req_flow(&t).gaps_pending, 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->capture_loss_events, 0);
    tu_eng_done(&t);
}

/* UC has no ACK to tell: its gaps are network loss at once. */
static void test_uc_gap(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_req(&t, &c, RG_OP_UC_SEND_ONLY, 1, 64);
    uint64_t gap = tu_req(&t, &c, RG_OP_UC_SEND_ONLY, 4, 64);
    CU_ASSERT_EQUAL(tu_sflags(&t, gap), ROCE_V_GAP);
    CU_ASSERT_EQUAL(req_flow(&t).gaps_pending, 0);
    tu_eng_done(&t);
}

/* More pending gaps than a flow keeps: the oldest is settled early, as
 * network loss, and counted. */
static void test_pending_bound(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, NULL);
    uint64_t first = tu_send(&t, &c, 3);
    for (uint32_t i = 1; i < 17; i++)
        tu_send(&t, &c, 3 + 2 * i);
    CU_ASSERT_EQUAL(tu_totals(&t)->gap_tracking_overflow, 1);
    CU_ASSERT_EQUAL(tu_sflags(&t, first), ROCE_V_GAP);
    CU_ASSERT_EQUAL(req_flow(&t).gaps_pending, 16);
    tu_ack(&t, &c, 3 + 2 * 16, rg_aeth_ack(0));
    CU_ASSERT_EQUAL(tu_totals(&t)->capture_loss_events, 16);
    tu_eng_done(&t);
}

/* Captured upstream of the loss: PSN 3 was seen and lost later; the
 * responder NAKs it after 4 arrived out of sequence (the NAK's generation
 * time is counted from 4), the episode carries it. */
static void test_nak_generation_upstream(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, NULL);
    tu_send(&t, &c, 2);
    tu_send(&t, &c, 3);
    int64_t t4 = t.now;
    tu_send(&t, &c, 4);
    tu_send(&t, &c, 5);
    t.now = t4 + 3500;
    uint64_t nak = tu_ack(&t, &c, 3, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    CU_ASSERT_EQUAL(t.out.verdict.has_nak_generation, 1);
    CU_ASSERT_EQUAL(t.out.verdict.nak_generation_ns, 3500);
    tu_send(&t, &c, 3);
    CU_ASSERT_EQUAL(t.out.verdict.trigger, ROCE_TRIGGER_NAK);
    CU_ASSERT_EQUAL(tu_v(&t, nak)->nak_generation_ns, 3500);
    CU_ASSERT_EQUAL_FATAL(roce_engine_episode_count(t.e), 1);
    const struct roce_episode *ep = roce_engine_episode(t.e, 0);
    CU_ASSERT_EQUAL(ep->has_nak_generation, 1);
    CU_ASSERT_EQUAL(ep->nak_generation_ns, 3500);
    tu_eng_done(&t);
}

/* Captured downstream of the loss: the gap's frame is the out-of-sequence
 * arrival. A second loss after the resend counts from the resent run, not
 * from the first transmission. */
static void test_nak_generation_gap_and_rerun(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, NULL);
    int64_t tg = t.now;
    tu_send(&t, &c, 3); /* gap: 2 missing */
    t.now = tg + 2000;
    tu_ack(&t, &c, 2, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    CU_ASSERT_EQUAL(t.out.verdict.nak_generation_ns, 2000);
    tu_send(&t, &c, 2); /* resend */
    int64_t t4 = t.now;
    tu_send(&t, &c, 4); /* 3 lost again, beyond the capture point */
    tu_send(&t, &c, 5);
    t.now = t4 + 1500;
    tu_ack(&t, &c, 3, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    CU_ASSERT_EQUAL(t.out.verdict.has_nak_generation, 1);
    CU_ASSERT_EQUAL(t.out.verdict.nak_generation_ns, 1500);
    tu_eng_done(&t);
}

/* No request after the NAK's PSN was captured: no generation time; nor for
 * an RNR NAK. */
static void test_nak_generation_unknown(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, NULL);
    tu_send(&t, &c, 2);
    tu_ack(&t, &c, 3, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    CU_ASSERT_EQUAL(t.out.verdict.has_nak_generation, 0);
    tu_send(&t, &c, 3);
    tu_send(&t, &c, 4);
    tu_ack(&t, &c, 3, rg_aeth_rnr(1));
    CU_ASSERT_EQUAL(t.out.verdict.has_nak_generation, 0);
    tu_eng_done(&t);
}

/* The class of the address pair a <-> b (IPv4, host order), as the engine
 * keeps its recent requests (roce_reqlog.h). */
static unsigned pair_class(uint32_t a, uint32_t b)
{
    uint8_t x[ROCE_ADDR_LEN] = {[10] = 0xFF, [11] = 0xFF}, y[ROCE_ADDR_LEN] = {[10] = 0xFF, [11] = 0xFF};
    for (int i = 0; i < 4; i++) {
        x[12 + i] = (uint8_t)(a >> (24 - 8 * i));
        y[12 + i] = (uint8_t)(b >> (24 - 8 * i));
    }
    return roce_shard_class(roce_pair_key(x, y));
}

/* The out-of-sequence run started before the ring of recent requests of
 * its address pair's class (REQLOG_ENTRIES): the time is unknown rather
 * than wrong; a run within the ring is found among another flow's requests. */
static void test_nak_generation_beyond_ring(void)
{
    struct tu_eng t;
    struct tu_conn c, other;
    setup_paired(&t, &c, NULL);
    tu_conn_init(&other, TU_IP_A, TU_IP_B, TU_QA + 10, TU_QB + 10); /* same pair: same ring */
    tu_send(&t, &c, 2);
    tu_send(&t, &c, 3);
    for (uint32_t i = 0; i < REQLOG_ENTRIES + 10; i++)
        tu_send(&t, &other, i);
    tu_send(&t, &c, 4);
    tu_ack(&t, &c, 2, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR)); /* 3 was pushed out of the ring */
    CU_ASSERT_EQUAL(t.out.verdict.has_nak_generation, 0);
    int64_t t5 = t.now;
    tu_send(&t, &c, 5);
    for (uint32_t i = 0; i < 1000; i++)
        tu_send(&t, &other, REQLOG_ENTRIES + 10 + i);
    tu_send(&t, &c, 6);
    t.now = t5 + 2 * ROCE_NS_PER_MS;
    tu_ack(&t, &c, 4, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR)); /* 5 is in the ring */
    CU_ASSERT_EQUAL(t.out.verdict.has_nak_generation, 1);
    CU_ASSERT_EQUAL(t.out.verdict.nak_generation_ns, 2 * ROCE_NS_PER_MS);
    tu_eng_done(&t);
}

/* The requests of an address pair of another class go to another ring:
 * however many there are, they push none of this pair's out (so a split
 * analysis, whose parts take whole classes, keeps what one engine keeps). */
static void test_nak_generation_other_class(void)
{
    struct tu_eng t;
    struct tu_conn c, other;
    uint32_t a = TU_IP_A + 16, b = TU_IP_B + 16;
    while (pair_class(a, b) == pair_class(TU_IP_A, TU_IP_B)) {
        a += 16;
        b += 16;
    }
    setup_paired(&t, &c, NULL);
    tu_conn_init(&other, a, b, TU_QA, TU_QB);
    tu_send(&t, &c, 2);
    int64_t t3 = t.now;
    tu_send(&t, &c, 3);
    for (uint32_t i = 0; i < 4 * REQLOG_ENTRIES; i++)
        tu_send(&t, &other, i);
    tu_send(&t, &c, 4);
    int64_t at = t.now;
    tu_ack(&t, &c, 2, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR)); /* 3 is still in its ring */
    CU_ASSERT_EQUAL(t.out.verdict.has_nak_generation, 1);
    CU_ASSERT_EQUAL(t.out.verdict.nak_generation_ns, at - t3);
    tu_eng_done(&t);
}

/* A NAK seen before its flows were paired (its PSN fits two request flows)
 * gets its generation time when it is adopted, and settles the gap it
 * names as network loss. */
static void test_orphan_nak(void)
{
    struct tu_eng t;
    struct tu_conn c, c2;
    tu_setup(&t, &c, NULL);
    tu_conn_init(&c2, TU_IP_A, TU_IP_B, TU_QA + 1, TU_QB + 1);
    tu_send(&t, &c2, 2);
    tu_send(&t, &c2, 3);
    tu_send(&t, &c, 1);
    int64_t t3 = t.now;
    uint64_t gap = tu_send(&t, &c, 3); /* 2 missing */
    t.now = t3 + 2500;
    uint64_t nak = tu_ack(&t, &c, 2, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR)); /* fits c and c2 */
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_NONE);
    CU_ASSERT_EQUAL(t.out.verdict.has_nak_generation, 0);
    CU_ASSERT_PTR_NULL(tu_settled(&t, gap));
    tu_ack(&t, &c, 1, rg_aeth_ack(0)); /* only c holds PSN 1: paired, the NAK adopted */
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_PSN);
    CU_ASSERT_EQUAL(tu_sflags(&t, gap), ROCE_V_GAP); /* the NAK said: lost */
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_v(&t, nak)->has_nak_generation, 1);
    CU_ASSERT_EQUAL(tu_v(&t, nak)->nak_generation_ns, 2500);
    CU_ASSERT_EQUAL(tu_totals(&t)->capture_loss_events, 0);
    tu_eng_done(&t);
}

static const struct tu_test tests[] = {
    {"ack_covers_gap", test_ack_covers_gap},
    {"nak_first", test_nak_first},
    {"resend_first", test_resend_first},
    {"later_nak_keeps_gap", test_later_nak_keeps_gap},
    {"horizon_and_finish", test_horizon_and_finish},
    {"uc_gap", test_uc_gap},
    {"pending_bound", test_pending_bound},
    {"nak_generation_upstream", test_nak_generation_upstream},
    {"nak_generation_gap_and_rerun", test_nak_generation_gap_and_rerun},
    {"nak_generation_unknown", test_nak_generation_unknown},
    {"nak_generation_beyond_ring", test_nak_generation_beyond_ring},
    {"nak_generation_other_class", test_nak_generation_other_class},
    {"orphan_nak", test_orphan_nak},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "caploss", tests);
}
