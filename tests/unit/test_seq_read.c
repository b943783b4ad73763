/*
 * test_seq_read.c - RDMA READ spans in the PSN analysis (roce_seq.c).
 *
 * analyzer/engine/ANALYSIS.md "RDMA READ": a READ request occupies
 * max(1, ceil(DMA length / PMTU)) PSNs; PMTU is learned from the payload of
 * READ response FIRST/MIDDLE packets or from the largest FIRST/MIDDLE request
 * payload of the connection; until it is known, a forward jump right after a
 * READ request is not a gap. "Go-back-N episode": trigger "implied" when the
 * episode re-issues a READ request after a gap in that READ's responses.
 * cfg.pmtu is the PMTU assumed until one is learned.
 */
#include "test_harness.h"
#include "test_seq.h"

#define PMTU_1K 1024u
#define ACK_OK  0x1F

static uint64_t rsp(struct tu_eng *t, const struct tu_conn *c, uint8_t op, uint32_t psn,
                    uint32_t len)
{
    return tu_rsp(t, c, op, psn, ACK_OK, len);
}

static void test_pmtu_from_read_response_first(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report r;

    /* READ 100 of 4 KiB; only its FIRST response (1 KiB) is seen: span 100..103 */
    tu_setup(&t, &c, NULL);
    tu_read(&t, &c, 100, 4096);
    rsp(&t, &c, RG_OP_RC_READ_RESP_FIRST, 100, PMTU_1K);
    tu_send(&t, &c, 104);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    CU_ASSERT_EQUAL(t.out.verdict.expected_psn, 104);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &r));
    CU_ASSERT_EQUAL(r.pmtu, PMTU_1K);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_B, TU_IP_A, TU_QA, &r));
    CU_ASSERT_EQUAL(r.pmtu, PMTU_1K);
    /* the PMTU now known, a new READ's span is known at once: 105, 106 */
    tu_read(&t, &c, 105, 2048);
    tu_send(&t, &c, 107);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    tu_read(&t, &c, 108, 2048); /* 108, 109 */
    tu_send(&t, &c, 111);       /* 110 lost */
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_GAP);
    CU_ASSERT_EQUAL(t.out.verdict.missing_psns, 1);
    CU_ASSERT_EQUAL(t.out.verdict.expected_psn, 110);
    tu_eng_done(&t);

    /* the same READ, then 105: 104 is missing */
    tu_setup(&t, &c, NULL);
    tu_read(&t, &c, 100, 4096);
    rsp(&t, &c, RG_OP_RC_READ_RESP_FIRST, 100, PMTU_1K);
    tu_send(&t, &c, 105);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_GAP);
    CU_ASSERT_EQUAL(t.out.verdict.missing_psns, 1);
    tu_eng_done(&t);
}

static void test_pmtu_from_read_response_middle(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_read(&t, &c, 100, 8192);
    rsp(&t, &c, RG_OP_RC_READ_RESP_MIDDLE, 101, 2048); /* FIRST not captured */
    tu_send(&t, &c, 105);                              /* 100..103 at 2 KiB: 104 lost */
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_GAP);
    CU_ASSERT_EQUAL(t.out.verdict.missing_psns, 1);
    tu_eng_done(&t);
}

static void test_pmtu_from_largest_request_payload(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report r;
    tu_setup(&t, &c, NULL);
    tu_req(&t, &c, RG_OP_RC_SEND_FIRST, 10, 1024);
    tu_req(&t, &c, RG_OP_RC_SEND_MIDDLE, 11, 1024);
    tu_req(&t, &c, RG_OP_RC_SEND_LAST, 12, 100);
    tu_req(&t, &c, RG_OP_RC_WRITE_FIRST, 13, 2048); /* the largest: 2 KiB */
    tu_req(&t, &c, RG_OP_RC_WRITE_LAST, 14, 10);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &r));
    CU_ASSERT_EQUAL(r.pmtu, 2048);
    tu_read(&t, &c, 15, 8192); /* 15..18 */
    tu_send(&t, &c, 19);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    tu_read(&t, &c, 20, 4097); /* ceil(4097 / 2048) = 3: 20..22 */
    tu_send(&t, &c, 24);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_GAP);
    CU_ASSERT_EQUAL(t.out.verdict.missing_psns, 1);
    tu_eng_done(&t);
}

static void test_pmtu_unknown_jump_not_gap(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_read(&t, &c, 100, 8192);
    tu_send(&t, &c, 150); /* right after the READ: its span, not a loss */
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    tu_send(&t, &c, 151);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    tu_send(&t, &c, 153); /* not right after a READ: a gap */
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_GAP);
    CU_ASSERT_EQUAL(t.out.verdict.missing_psns, 1);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_totals(&t)->gap_events, 1);
    tu_eng_done(&t);
}

static void test_pmtu_config_fallback(void)
{
    const struct tu_opts pmtu_1k = {.pmtu = PMTU_1K};
    struct tu_eng t;
    struct tu_conn c;

    tu_setup(&t, &c, &pmtu_1k);
    tu_read(&t, &c, 100, 4096); /* 100..103 */
    tu_send(&t, &c, 104);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    tu_eng_done(&t);

    tu_setup(&t, &c, &pmtu_1k);
    tu_read(&t, &c, 100, 4096);
    tu_send(&t, &c, 105);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_GAP);
    CU_ASSERT_EQUAL(t.out.verdict.missing_psns, 1);
    tu_eng_done(&t);

    /* without the configured PMTU the same jump is not a gap (PMTU unknown) */
    tu_setup(&t, &c, NULL);
    tu_read(&t, &c, 100, 4096);
    tu_send(&t, &c, 105);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    tu_eng_done(&t);
}

/* The configured PMTU is only assumed "until learned": a READ whose responses
 * show the real PMTU (4 KiB, configured 1 KiB) spans ceil(8192 / 4096) = 2
 * PSNs, so the next request at 102 is new, neither reused nor retransmitted. */
static void test_pmtu_learned_overrides_config(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, &(struct tu_opts){.pmtu = PMTU_1K});
    tu_read(&t, &c, 100, 8192);
    rsp(&t, &c, RG_OP_RC_READ_RESP_FIRST, 100, 4096);
    rsp(&t, &c, RG_OP_RC_READ_RESP_LAST, 101, 4096);
    uint64_t s = tu_send(&t, &c, 102);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    CU_ASSERT_EQUAL(t.out.verdict.expected_psn, 102);
    tu_send(&t, &c, 103);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, s), 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->psn_reuse, 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->retransmitted_packets, 0);
    tu_eng_done(&t);
}

static void test_read_responses_define_span(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_read(&t, &c, 100, 3000);
    rsp(&t, &c, RG_OP_RC_READ_RESP_FIRST, 100, 1024);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    tu_rsp(&t, &c, RG_OP_RC_READ_RESP_MIDDLE, 101, 0, 1024);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    rsp(&t, &c, RG_OP_RC_READ_RESP_LAST, 102, 952);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    tu_send(&t, &c, 103);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    tu_read(&t, &c, 104, 100); /* one PSN */
    rsp(&t, &c, RG_OP_RC_READ_RESP_ONLY, 104, 100);
    tu_send(&t, &c, 105);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_settled_count(&t), 0);
    tu_eng_done(&t);
}

/* While no PMTU is known a READ's span is unknown; a READ response ONLY (whose payload does not
 * teach the PMTU) settles it at one PSN, so a later jump is a gap again (ANALYSIS.md "RDMA READ":
 * a response LAST or ONLY settles the span of a READ whose span was guessed or unknown). */
static void test_only_response_settles_unknown_span(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_read(&t, &c, 100, 100);
    rsp(&t, &c, RG_OP_RC_READ_RESP_ONLY, 100, 100);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    tu_send(&t, &c, 102); /* 101 lost */
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_GAP);
    CU_ASSERT_EQUAL(t.out.verdict.missing_psns, 1);
    CU_ASSERT_EQUAL(t.out.verdict.expected_psn, 101);
    tu_eng_done(&t);
}

/* After a READ response gap the READ expects the PSN after the response that showed it: READ
 * 100..103, responses 100, 102 (101 lost), 103: only 102 has a verdict. */
static void test_response_after_gap(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, &(struct tu_opts){.pmtu = PMTU_1K});
    tu_read(&t, &c, 100, 4096);
    rsp(&t, &c, RG_OP_RC_READ_RESP_FIRST, 100, 1024);
    uint64_t g = tu_rsp(&t, &c, RG_OP_RC_READ_RESP_MIDDLE, 102, 0, 1024);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_RESP_GAP);
    CU_ASSERT_EQUAL(t.out.verdict.expected_psn, 101);
    uint64_t last = rsp(&t, &c, RG_OP_RC_READ_RESP_LAST, 103, 1024);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, g), ROCE_V_RESP_GAP);
    CU_ASSERT_EQUAL(tu_sflags(&t, last), 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->read_response_gaps, 1);
    CU_ASSERT_EQUAL(tu_totals(&t)->read_response_missing, 1);
    tu_eng_done(&t);
}

/* A zero-length READ still occupies one PSN. */
static void test_read_zero_length(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, &(struct tu_opts){.pmtu = PMTU_1K});
    tu_read(&t, &c, 100, 0);
    tu_send(&t, &c, 101);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    tu_eng_done(&t);
}

static void test_read_span_across_wrap(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, &(struct tu_opts){.pmtu = PMTU_1K});
    tu_read(&t, &c, 0xFFFFFE, 4096); /* FFFFFE FFFFFF 0 1 */
    tu_send(&t, &c, 2);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    uint64_t r = tu_send(&t, &c, 0); /* inside the READ's span */
    roce_engine_finish(t.e);
    CU_ASSERT(tu_sflags(&t, r) & ROCE_V_PSN_REUSE);
    tu_eng_done(&t);
}

/* The sanderw71 Soft-RoCE stall (PROVENANCE): after a 3-packet READ n..n+2
 * the requester sends its next SEND with PSN n+2. */
static void test_psn_reuse_inside_read_span(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report r;
    tu_setup(&t, &c, NULL);
    uint64_t rd = tu_read(&t, &c, 100, 3072);
    rsp(&t, &c, RG_OP_RC_READ_RESP_FIRST, 100, 1024);
    tu_rsp(&t, &c, RG_OP_RC_READ_RESP_MIDDLE, 101, 0, 1024);
    rsp(&t, &c, RG_OP_RC_READ_RESP_LAST, 102, 1024);
    uint64_t s = tu_send(&t, &c, 102);
    roce_engine_finish(t.e);
    const struct roce_verdict *v = tu_v(&t, s);
    CU_ASSERT(v->flags & ROCE_V_PSN_REUSE);
    CU_ASSERT_EQUAL(v->reuse_frame, rd);
    CU_ASSERT_EQUAL(tu_totals(&t)->psn_reuse, 1);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &r));
    CU_ASSERT_EQUAL(r.psn_reuse, 1);
    tu_eng_done(&t);
}

/* READ 100..102; responses 100 and 102 (101 lost); READ re-issued from 101: implied. */
static void test_implied_trigger(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_read(&t, &c, 100, 3072);
    rsp(&t, &c, RG_OP_RC_READ_RESP_FIRST, 100, 1024);
    uint64_t last = rsp(&t, &c, RG_OP_RC_READ_RESP_LAST, 102, 1024);
    CU_ASSERT(t.out.verdict.flags & ROCE_V_RESP_GAP);
    CU_ASSERT_EQUAL(t.out.verdict.missing_psns, 1);
    uint64_t re = tu_read(&t, &c, 101, 2048);
    roce_engine_finish(t.e);
    const struct roce_verdict *v = tu_v(&t, re);
    CU_ASSERT_EQUAL(v->flags, ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    CU_ASSERT_EQUAL(v->trigger, ROCE_TRIGGER_IMPLIED);
    CU_ASSERT_EQUAL(v->nak_frame, 0);
    CU_ASSERT_PTR_NOT_NULL(tu_settled(&t, last));
    CU_ASSERT_EQUAL(tu_totals(&t)->by_trigger[ROCE_TRIGGER_IMPLIED], 1);
    CU_ASSERT_EQUAL(tu_totals(&t)->read_response_gaps, 1);
    CU_ASSERT_EQUAL_FATAL(roce_engine_episode_count(t.e), 1);
    CU_ASSERT_EQUAL(roce_engine_episode(t.e, 0)->trigger, ROCE_TRIGGER_IMPLIED);
    tu_eng_done(&t);
}

/* A READ re-issued with no gap seen in its responses: timeout. */
static void test_reissue_without_gap_is_timeout(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_read(&t, &c, 100, 3072);
    rsp(&t, &c, RG_OP_RC_READ_RESP_FIRST, 100, 1024);
    uint64_t re = tu_read(&t, &c, 100, 3072);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, re), ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    CU_ASSERT_EQUAL(tu_v(&t, re)->trigger, ROCE_TRIGGER_TIMEOUT);
    tu_eng_done(&t);
}

/* The gap must be in that READ's responses, not in another READ's. */
static void test_implied_needs_gap_in_that_read(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_read(&t, &c, 100, 3072); /* 100..102, response 101 lost */
    rsp(&t, &c, RG_OP_RC_READ_RESP_FIRST, 100, 1024);
    rsp(&t, &c, RG_OP_RC_READ_RESP_LAST, 102, 1024);
    tu_read(&t, &c, 103, 1024); /* 103 */
    uint64_t re = tu_read(&t, &c, 103, 1024);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_v(&t, re)->trigger, ROCE_TRIGGER_TIMEOUT);
    tu_eng_done(&t);
}

/* Several READs outstanding (NICs allow 16 by default: max_rd_atomic): the
 * first READ's responses come after the later READs were sent, one is lost,
 * and the first READ is re-issued from the missing PSN: still "implied". */
static void check_implied_with_outstanding(uint32_t later_reads)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, &(struct tu_opts){.pmtu = PMTU_1K});
    tu_read(&t, &c, 100, 3072); /* 100..102 */
    for (uint32_t i = 0; i < later_reads; i++) {
        tu_read(&t, &c, 103 + i, 1024);
        CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    }
    rsp(&t, &c, RG_OP_RC_READ_RESP_FIRST, 100, 1024);
    rsp(&t, &c, RG_OP_RC_READ_RESP_LAST, 102, 1024); /* 101 lost */
    uint64_t re = tu_read(&t, &c, 101, 2048);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, re), ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    CU_ASSERT_EQUAL(tu_v(&t, re)->trigger, ROCE_TRIGGER_IMPLIED);
    tu_eng_done(&t);
}

/* The trigger order (ANALYSIS.md "PSN analysis": nak, rnr, implied, timeout): READ
 * 100..102, responses 100 and 102 (101 lost), and a PSN sequence error NAK for 101; the READ
 * re-issued from 101 could be "implied" or "nak": it is "nak", the NAK is spent. With the NAK for
 * another PSN it stays "implied". */
static void reissue_after_gap_and_nak(uint32_t nak_psn)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_read(&t, &c, 100, 3072);
    rsp(&t, &c, RG_OP_RC_READ_RESP_FIRST, 100, 1024);
    rsp(&t, &c, RG_OP_RC_READ_RESP_LAST, 102, 1024);
    CU_ASSERT(t.out.verdict.flags & ROCE_V_RESP_GAP);
    uint64_t nak = tu_ack(&t, &c, nak_psn, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    uint64_t re = tu_read(&t, &c, 101, 2048);
    roce_engine_finish(t.e);
    const struct roce_verdict *v = tu_v(&t, re);
    CU_ASSERT_EQUAL(v->flags, ROCE_V_RETRANSMISSION | ROCE_V_EPISODE_START);
    if (nak_psn == 101) {
        CU_ASSERT_EQUAL(v->trigger, ROCE_TRIGGER_NAK);
        CU_ASSERT_EQUAL(v->nak_frame, nak);
        CU_ASSERT_EQUAL(tu_v(&t, nak)->flags, ROCE_V_NAK | ROCE_V_NAK_RESENT);
        CU_ASSERT_EQUAL(tu_v(&t, nak)->retransmitted_in, re);
        CU_ASSERT_EQUAL(tu_totals(&t)->by_trigger[ROCE_TRIGGER_IMPLIED], 0);
    } else {
        CU_ASSERT_EQUAL(v->trigger, ROCE_TRIGGER_IMPLIED);
        CU_ASSERT_EQUAL(v->nak_frame, 0);
        CU_ASSERT_EQUAL(tu_v(&t, nak)->flags, ROCE_V_NAK);
    }
    tu_eng_done(&t);
}

static void test_nak_before_implied(void)
{
    reissue_after_gap_and_nak(101);
}

static void test_implied_with_nak_for_other_psn(void)
{
    reissue_after_gap_and_nak(102);
}

static void test_implied_with_4_reads_outstanding(void)
{
    check_implied_with_outstanding(3);
}

static void test_implied_with_5_reads_outstanding(void)
{
    check_implied_with_outstanding(4);
}

static void test_implied_with_16_reads_outstanding(void)
{
    check_implied_with_outstanding(15);
}

const struct tu_test seq_read_tests[] = {
    {"pmtu_from_read_response_first", test_pmtu_from_read_response_first},
    {"pmtu_from_read_response_middle", test_pmtu_from_read_response_middle},
    {"pmtu_from_largest_request_payload", test_pmtu_from_largest_request_payload},
    {"pmtu_unknown_jump_not_gap", test_pmtu_unknown_jump_not_gap},
    {"pmtu_config_fallback", test_pmtu_config_fallback},
    {"pmtu_learned_overrides_config", test_pmtu_learned_overrides_config},
    {"read_responses_define_span", test_read_responses_define_span},
    {"only_response_settles_unknown_span", test_only_response_settles_unknown_span},
    {"response_after_gap", test_response_after_gap},
    {"read_zero_length", test_read_zero_length},
    {"read_span_across_wrap", test_read_span_across_wrap},
    {"psn_reuse_inside_read_span", test_psn_reuse_inside_read_span},
    {"implied_trigger", test_implied_trigger},
    {"reissue_without_gap_is_timeout", test_reissue_without_gap_is_timeout},
    {"implied_needs_gap_in_that_read", test_implied_needs_gap_in_that_read},
    {"nak_before_implied", test_nak_before_implied},
    {"implied_with_nak_for_other_psn", test_implied_with_nak_for_other_psn},
    {"implied_with_4_reads_outstanding", test_implied_with_4_reads_outstanding},
    {"implied_with_5_reads_outstanding", test_implied_with_5_reads_outstanding},
    {"implied_with_16_reads_outstanding", test_implied_with_16_reads_outstanding},
    TU_END,
};
