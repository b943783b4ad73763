/*
 * test_caploss.c - what each PSN gap was (roce_caploss.c): network loss,
 * capture loss (confirmed or inferred), reordered, undetermined; responses
 * captured before their requests; and the NAK generation time of the
 * recovery breakdown (roce_reqlog.c, roce_seq.c).
 *
 * ANALYSIS.md "Capture loss and network loss": an ACK at or after the gap's
 * last missing PSN, or a NAK after it, before any NAK or resend of them:
 * capture loss; a NAK or a go-back-N whose PSN is one of the missing PSNs:
 * network loss; one from an earlier PSN: undetermined (go_back); a missing
 * PSN captured late, once, before any NAK or resend, while the flow sends
 * new requests, within its NAK round trip: reordered; nothing within the
 * NAK horizon: capture loss inferred when the requester went on for longer
 * than its NAK round trip, else undetermined; UC: undetermined (no_acks).
 * No bound makes a gap network loss. nak_generation = NAK time - the time
 * of the earliest request of the run that led to the NAK (null when none).
 */
#include "roce_reqlog.h"
#include "roce_split.h"
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

/* The class of a settled gap frame. */
static unsigned gap_class(const struct tu_eng *t, uint64_t frame)
{
    const struct roce_verdict *v = tu_settled(t, frame);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT(v->flags & ROCE_V_GAP);
    return v->gap_class;
}

/* PSNs 2 and 3 missed, the ACK of 5 covers them: capture loss, decided by
 * that ACK. The gap's verdict waits for it. */
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
    uint64_t ack = tu_ack(&t, &c, 3, rg_aeth_ack(0)); /* at it: covers the gap */
    CU_ASSERT_EQUAL(tu_sflags(&t, gap), ROCE_V_GAP | ROCE_V_CAPTURE_LOSS);
    CU_ASSERT_EQUAL(gap_class(&t, gap), ROCE_GAP_CAPTURE_LOSS);
    CU_ASSERT_EQUAL(tu_v(&t, gap)->gap_decided_by, ack);
    CU_ASSERT_EQUAL(tu_v(&t, gap)->missing_psns, 2);
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->gap_events, 1);
    CU_ASSERT_EQUAL(tt->gap_class_events[ROCE_GAP_CAPTURE_LOSS], 1);
    CU_ASSERT_EQUAL(tt->gap_class_psns[ROCE_GAP_CAPTURE_LOSS], 2);
    CU_ASSERT_EQUAL(tt->capture_frames.frame[ROCE_FAULT_LOSS][0], gap);
    struct roce_flow_report r = req_flow(&t);
    CU_ASSERT_EQUAL(r.gap_class_gaps[ROCE_GAP_CAPTURE_LOSS], 1);
    CU_ASSERT_EQUAL(r.gap_class_psns[ROCE_GAP_CAPTURE_LOSS], 2);
    CU_ASSERT_EQUAL(r.gaps_pending, 0);
    const struct roce_evidence *ev = roce_engine_flow_evidence(t.e, &r.key, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
    CU_ASSERT_EQUAL(ev->n[ROCE_DIAG_CAPTURE_LOSS], 2); /* the gap and the ACK */
    CU_ASSERT_EQUAL(ev->frame[ROCE_DIAG_CAPTURE_LOSS][0], gap);
    CU_ASSERT_EQUAL(ev->frame[ROCE_DIAG_CAPTURE_LOSS][1], ack);
    CU_ASSERT_EQUAL(ev->n[ROCE_DIAG_PACKET_LOSS], 0);
    tu_eng_done(&t);
}

/* A NAK for a missing PSN comes first: network loss, whatever ACK follows;
 * the gap and the NAK are its evidence. */
static void test_nak_first(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, NULL);
    uint64_t gap = tu_send(&t, &c, 3);
    uint64_t nak = tu_ack(&t, &c, 2, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    CU_ASSERT_EQUAL(tu_sflags(&t, gap), ROCE_V_GAP);
    CU_ASSERT_EQUAL(gap_class(&t, gap), ROCE_GAP_NETWORK_LOSS);
    CU_ASSERT_EQUAL(tu_v(&t, gap)->gap_decided_by, nak);
    tu_send(&t, &c, 2);
    CU_ASSERT_EQUAL(t.out.verdict.flags & ROCE_V_RETRANSMISSION, ROCE_V_RETRANSMISSION);
    tu_send(&t, &c, 3);
    tu_ack(&t, &c, 3, rg_aeth_ack(0));
    CU_ASSERT_EQUAL(tu_totals(&t)->gap_class_events[ROCE_GAP_CAPTURE_LOSS], 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->gap_class_events[ROCE_GAP_NETWORK_LOSS], 1);
    const struct roce_flow_report r = req_flow(&t);
    const struct roce_evidence *ev = roce_engine_flow_evidence(t.e, &r.key, 0);
    CU_ASSERT_EQUAL(ev->frame[ROCE_DIAG_PACKET_LOSS][0], gap);
    CU_ASSERT_EQUAL(ev->frame[ROCE_DIAG_PACKET_LOSS][1], nak);
    tu_eng_done(&t);
}

/* A go-back-N from a missing PSN (a timeout: no NAK seen, later than a
 * reordering could be): network loss, decided by the resend. */
static void test_resend_of_missing(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, NULL);
    uint64_t gap = tu_send(&t, &c, 4); /* 2, 3 missing */
    t.now += 2 * ROCE_NS_PER_MS;       /* past the reorder window (1 ms) */
    uint64_t resend = tu_send(&t, &c, 2);
    CU_ASSERT(t.out.verdict.flags & ROCE_V_EPISODE_START);
    CU_ASSERT_EQUAL(t.out.verdict.trigger, ROCE_TRIGGER_TIMEOUT);
    CU_ASSERT_EQUAL(gap_class(&t, gap), ROCE_GAP_NETWORK_LOSS);
    CU_ASSERT_EQUAL(tu_v(&t, gap)->gap_decided_by, resend);
    tu_eng_done(&t);
}

/* A go-back-N from before the gap resends it whatever became of it: the
 * gap is undetermined (go_back), and an ACK after the resend proves
 * nothing of the first transmission. */
static void test_go_back_masks_gap(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, NULL);
    tu_send(&t, &c, 2);
    uint64_t gap = tu_send(&t, &c, 4);                                 /* 3 missing */
    uint64_t nak = tu_ack(&t, &c, 2, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR)); /* 2 was lost after us */
    CU_ASSERT_EQUAL(gap_class(&t, gap), ROCE_GAP_UNDETERMINED);
    CU_ASSERT_EQUAL(tu_v(&t, gap)->gap_reason, ROCE_GAP_REASON_GO_BACK);
    CU_ASSERT_EQUAL(tu_v(&t, gap)->gap_decided_by, nak);
    tu_send(&t, &c, 2);
    tu_send(&t, &c, 3); /* the resend run: a retransmission, not a late packet */
    CU_ASSERT(t.out.verdict.flags & ROCE_V_RETRANSMISSION);
    CU_ASSERT_EQUAL(t.out.verdict.flags & ROCE_V_REORDERED, 0);
    tu_ack(&t, &c, 4, rg_aeth_ack(0));
    CU_ASSERT_EQUAL(tu_totals(&t)->gap_class_events[ROCE_GAP_CAPTURE_LOSS], 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->gap_class_events[ROCE_GAP_NETWORK_LOSS], 0);
    tu_eng_done(&t);
}

/* A NAK acknowledges every PSN before it: the gaps before its PSN were
 * missed by the capture, the one that holds it was lost. */
static void test_nak_acknowledges_earlier(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, NULL);
    uint64_t gap = tu_send(&t, &c, 3); /* 2 missing */
    tu_send(&t, &c, 4);
    uint64_t gap2 = tu_send(&t, &c, 6); /* 5 missing */
    uint64_t nak = tu_ack(&t, &c, 5, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    CU_ASSERT_EQUAL(gap_class(&t, gap), ROCE_GAP_CAPTURE_LOSS);
    CU_ASSERT_EQUAL(tu_v(&t, gap)->gap_decided_by, nak);
    CU_ASSERT_EQUAL(gap_class(&t, gap2), ROCE_GAP_NETWORK_LOSS);
    tu_eng_done(&t);
}

/* An RNR NAK for a PSN means the responder got it and all before it; the
 * requester goes back to it, so what follows it is resent whatever its fate. */
static void test_rnr_acknowledges(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, NULL);
    uint64_t gap = tu_send(&t, &c, 4);  /* 2, 3 missing */
    uint64_t gap2 = tu_send(&t, &c, 7); /* 5, 6 missing */
    tu_ack(&t, &c, 3, rg_aeth_rnr(1));  /* 3 arrived: the first gap was the capture's */
    CU_ASSERT_EQUAL(gap_class(&t, gap), ROCE_GAP_CAPTURE_LOSS);
    CU_ASSERT_EQUAL(gap_class(&t, gap2), ROCE_GAP_UNDETERMINED);
    CU_ASSERT_EQUAL(tu_v(&t, gap2)->gap_reason, ROCE_GAP_REASON_GO_BACK);
    uint64_t gap3 = tu_send(&t, &c, 10); /* 8, 9 missing */
    tu_ack(&t, &c, 8, rg_aeth_rnr(1));   /* in the gap, not its last: 9 we cannot say */
    CU_ASSERT_EQUAL(req_flow(&t).gaps_pending, 0);
    roce_engine_finish(t.e); /* (delivered behind the RNR NAKs, which wait for a resend) */
    CU_ASSERT_EQUAL(gap_class(&t, gap3), ROCE_GAP_UNDETERMINED);
    tu_eng_done(&t);
}

/* Missing PSNs that arrive late, once, before any NAK or resend, while the
 * flow sends new requests: reordered, neither loss nor retransmission; the
 * gap is reordered when all its PSNs came. A second copy is a resend. */
static void test_reordered(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, NULL);
    int64_t tg = t.now;
    uint64_t gap = tu_send(&t, &c, 4); /* 2, 3 missing */
    tu_send(&t, &c, 5);
    uint64_t late = tu_send(&t, &c, 2);
    const struct roce_verdict *v = &t.out.verdict;
    CU_ASSERT_EQUAL(v->flags, ROCE_V_REORDERED);
    CU_ASSERT_EQUAL(v->reorder_psns, 3);
    CU_ASSERT_EQUAL(v->reorder_ns, t.now - TU_STEP_NS - tg);
    CU_ASSERT_EQUAL(v->reorder_gap_frame, gap);
    CU_ASSERT_PTR_NULL(tu_settled(&t, gap)); /* 3 still missing */
    tu_send(&t, &c, 6);
    uint64_t late2 = tu_send(&t, &c, 3);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_REORDERED);
    CU_ASSERT_EQUAL(gap_class(&t, gap), ROCE_GAP_REORDERED);
    CU_ASSERT_EQUAL(tu_v(&t, gap)->gap_decided_by, late2);
    struct roce_flow_report r = req_flow(&t);
    CU_ASSERT_EQUAL(r.reordered_packets, 2);
    CU_ASSERT_EQUAL(r.reorder_max_psns, 3); /* 2 behind 5, 3 behind 6 */
    CU_ASSERT_EQUAL(r.retransmitted_packets, 0);
    CU_ASSERT_EQUAL(r.episodes, 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->reordered_packets, 2);
    tu_send(&t, &c, 2); /* again: a resend */
    CU_ASSERT(t.out.verdict.flags & ROCE_V_RETRANSMISSION);
    (void)late;
    tu_eng_done(&t);
}

/* A missing PSN later than the reorder window (the flow's NAK round trip,
 * at least nak_rtt_ns) is a resend. */
static void test_late_beyond_window(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, &(struct tu_opts){.nak_rtt_ns = 10 * US});
    uint64_t gap = tu_send(&t, &c, 3); /* 2 missing */
    t.now += 10 * US;
    tu_send(&t, &c, 2);
    CU_ASSERT(t.out.verdict.flags & ROCE_V_RETRANSMISSION);
    CU_ASSERT_EQUAL(gap_class(&t, gap), ROCE_GAP_NETWORK_LOSS);
    tu_eng_done(&t);
}

/* Nothing within the NAK horizon: inferred capture loss when the requester
 * sent new PSNs for longer than its NAK round trip after the gap, with no
 * NAK or resend; undetermined when it did not (or the capture ended). */
static void test_horizon_inferred_or_not(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, &(struct tu_opts){.nak_horizon_ns = 100 * US, .nak_rtt_ns = 50 * US});
    int64_t T = t.now;
    uint64_t gap = tu_send(&t, &c, 3);
    t.now = T + 60 * US;
    uint64_t last = tu_send(&t, &c, 4); /* 60 us on: longer than the round trip */
    t.now = T + 100 * US;
    uint64_t r5 = tu_send(&t, &c, 5);
    CU_ASSERT_PTR_NULL(tu_settled(&t, gap));
    t.now = T + 100 * US + 1;
    uint64_t gap2 = tu_send(&t, &c, 7); /* 6 missing; the horizon of the first passed */
    CU_ASSERT_EQUAL(gap_class(&t, gap), ROCE_GAP_CAPTURE_INFERRED);
    CU_ASSERT_EQUAL(tu_sflags(&t, gap), ROCE_V_GAP | ROCE_V_CAPTURE_LOSS);
    CU_ASSERT_EQUAL(tu_v(&t, gap)->gap_decided_by, r5); /* the latest new request by then */
    (void)last;
    CU_ASSERT_EQUAL(req_flow(&t).gaps_pending, 1);
    roce_engine_finish(t.e); /* nothing after the second: the capture ended first */
    CU_ASSERT_EQUAL(gap_class(&t, gap2), ROCE_GAP_UNDETERMINED);
    CU_ASSERT_EQUAL(tu_v(&t, gap2)->gap_reason, ROCE_GAP_REASON_ENDED);
    CU_ASSERT_EQUAL(req_flow(&t).gaps_pending, 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->gap_class_events[ROCE_GAP_NETWORK_LOSS], 0);
    tu_eng_done(&t);
}

/* UC has no ACK or NAK to tell: undetermined (no_acks), never network loss. */
static void test_uc_gap(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_req(&t, &c, RG_OP_UC_SEND_ONLY, 1, 64);
    uint64_t gap = tu_req(&t, &c, RG_OP_UC_SEND_ONLY, 4, 64);
    CU_ASSERT_EQUAL(req_flow(&t).gaps_pending, 1);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, gap), ROCE_V_GAP);
    CU_ASSERT_EQUAL(gap_class(&t, gap), ROCE_GAP_UNDETERMINED);
    CU_ASSERT_EQUAL(tu_v(&t, gap)->gap_reason, ROCE_GAP_REASON_NO_ACKS);
    tu_eng_done(&t);
}

/* More open gaps than the ring holds: the oldest is settled early, by time
 * (here inferred: the requester went on for 65 ms), and counted; the others
 * wait for the ACK that covers them all. None is network loss. */
static void test_pending_bound(void)
{
    struct tu_eng t;
    struct tu_conn c;
    const uint32_t n = 65536 + 1;
    setup_paired(&t, &c, &(struct tu_opts){.max_open_verdicts = 1u << 18});
    uint64_t first = tu_send(&t, &c, 3);
    for (uint32_t i = 1; i < n; i++)
        tu_send(&t, &c, 3 + 2 * i);
    CU_ASSERT_EQUAL(tu_totals(&t)->gap_tracking_overflow, 1);
    CU_ASSERT_EQUAL(gap_class(&t, first), ROCE_GAP_CAPTURE_INFERRED);
    CU_ASSERT_EQUAL(req_flow(&t).gaps_pending, n - 1);
    tu_ack(&t, &c, 3 + 2 * (n - 1), rg_aeth_ack(0));
    CU_ASSERT_EQUAL(tu_totals(&t)->gap_class_events[ROCE_GAP_CAPTURE_LOSS], n - 1);
    CU_ASSERT_EQUAL(tu_totals(&t)->gap_class_events[ROCE_GAP_NETWORK_LOSS], 0);
    tu_eng_done(&t);
}

/* A response captured before the requests it acknowledges: counted once,
 * the requests name it; a gap it covers is the capture's. */
static void test_response_before_request(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup_paired(&t, &c, NULL);
    tu_send(&t, &c, 2);
    uint64_t ack = tu_ack(&t, &c, 4, rg_aeth_ack(0)); /* 3 and 4 not captured yet */
    uint64_t r3 = tu_send(&t, &c, 3);
    CU_ASSERT(t.out.verdict.flags & ROCE_V_AFTER_RESPONSE);
    CU_ASSERT_EQUAL(t.out.verdict.response_frame, ack);
    tu_send(&t, &c, 4);
    CU_ASSERT(t.out.verdict.flags & ROCE_V_AFTER_RESPONSE);
    tu_send(&t, &c, 5);
    CU_ASSERT_EQUAL(t.out.verdict.flags & ROCE_V_AFTER_RESPONSE, 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->responses_early, 1);
    CU_ASSERT_EQUAL(req_flow(&t).responses_early, 1);
    CU_ASSERT_EQUAL(tu_totals(&t)->capture_frames.frame[ROCE_FAULT_CLOCK][0], ack);
    CU_ASSERT_EQUAL(tu_totals(&t)->capture_frames.frame[ROCE_FAULT_CLOCK][1], r3);
    /* an ACK ahead of requests the capture then misses: the gap is the capture's */
    uint64_t ack8 = tu_ack(&t, &c, 8, rg_aeth_ack(0));
    uint64_t gap = tu_send(&t, &c, 9); /* 6..8 never captured */
    CU_ASSERT_EQUAL(gap_class(&t, gap), ROCE_GAP_CAPTURE_LOSS);
    CU_ASSERT_EQUAL(tu_v(&t, gap)->gap_decided_by, ack8);
    CU_ASSERT_EQUAL(tu_totals(&t)->responses_early, 1);
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
    uint8_t x[ROCE_ADDR_LEN] = {[10] = 0xFF, [11] = 0xFF},
            y[ROCE_ADDR_LEN] = {[10] = 0xFF, [11] = 0xFF};
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
    CU_ASSERT_EQUAL(gap_class(&t, gap), ROCE_GAP_NETWORK_LOSS);
    CU_ASSERT_EQUAL(tu_v(&t, gap)->gap_decided_by, nak);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_v(&t, nak)->has_nak_generation, 1);
    CU_ASSERT_EQUAL(tu_v(&t, nak)->nak_generation_ns, 2500);
    CU_ASSERT_EQUAL(tu_totals(&t)->gap_class_events[ROCE_GAP_CAPTURE_LOSS], 0);
    tu_eng_done(&t);
}

static const struct tu_test tests[] = {
    {"ack_covers_gap", test_ack_covers_gap},
    {"nak_first", test_nak_first},
    {"resend_of_missing", test_resend_of_missing},
    {"go_back_masks_gap", test_go_back_masks_gap},
    {"nak_acknowledges_earlier", test_nak_acknowledges_earlier},
    {"rnr_acknowledges", test_rnr_acknowledges},
    {"reordered", test_reordered},
    {"late_beyond_window", test_late_beyond_window},
    {"horizon_inferred_or_not", test_horizon_inferred_or_not},
    {"uc_gap", test_uc_gap},
    {"pending_bound", test_pending_bound},
    {"response_before_request", test_response_before_request},
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
