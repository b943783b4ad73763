/*
 * test_engine.c - the engine's entry points (roce_engine.c): how each frame
 * is classified and counted, what reaches the analysis, the names.
 *
 * analyzer/engine/ANALYSIS.md "Classes: RoCE, malformed, non-RoCE": packets =
 * roce_packets + malformed_packets + non_roce_packets; malformed packets are RoCE by EtherType or
 * port but not analysed; a truncated packet is still analysed as far as its captured headers allow.
 */
#include <string.h>

#include "test_engine.h"
#include "test_harness.h"
#include "test_util.h"

#define ETH_IPV4_UDP_BTH 54 /* Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 */

/* Build s and feed its first caplen bytes (0: all). */
static uint64_t feed_cut(struct tu_eng *t, const struct rg_spec *s, uint32_t caplen,
                         uint32_t *wirelen)
{
    uint8_t buf[RG_MAX_FRAME];
    int n = rg_build(s, buf, sizeof buf, NULL);
    CU_ASSERT_FATAL(n > 0);
    *wirelen = (uint32_t)n;
    return tu_feed_bytes(t, s->linktype, buf, caplen ? caplen : (uint32_t)n, (uint32_t)n);
}

static void test_classes_and_totals(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct rg_spec s;
    uint32_t len, bytes = 0;
    tu_setup(&t, &c, NULL);
    int64_t first = t.now;

    s = c.req; /* 1: RoCEv2 SEND, ICRC good */
    s.psn = 1;
    feed_cut(&t, &s, 0, &len);
    bytes += len;
    s.kind = RG_KIND_ROCEV1; /* 2: RoCEv1 */
    feed_cut(&t, &s, 0, &len);
    bytes += len;
    s = c.req; /* 3: malformed, unknown opcode */
    s.opcode = 0x1F;
    uint64_t mal1 = feed_cut(&t, &s, 0, &len);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_MALFORMED);
    CU_ASSERT_EQUAL(t.out.verdict.has_flow, 0);
    bytes += len;
    s = c.req; /* 4: malformed, WRITE Only without room for its RETH */
    s.opcode = RG_OP_RC_WRITE_ONLY;
    s.roce_cut = 20;
    uint64_t mal2 = feed_cut(&t, &s, 0, &len);
    bytes += len;
    s = c.req; /* 5: TCP */
    s.kind = RG_KIND_TCP;
    feed_cut(&t, &s, 0, &len);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    bytes += len;
    s = c.req; /* 6: an unsupported link type */
    uint8_t buf[RG_MAX_FRAME];
    int n = rg_build(&s, buf, sizeof buf, NULL);
    tu_feed_bytes(&t, 147, buf, (uint32_t)n, (uint32_t)n);
    CU_ASSERT_EQUAL(t.rc, -1);
    CU_ASSERT_EQUAL(t.out.pkt.cls, ROCE_CLASS_NON_ROCE);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    bytes += (uint32_t)n;
    s = c.req; /* 7: cut right after the BTH (header-only capture) */
    s.psn = 2;
    s.payload_len = 1000;
    feed_cut(&t, &s, ETH_IPV4_UDP_BTH, &len);
    bytes += len;
    s.psn = 3; /* 8: cut inside the BTH */
    feed_cut(&t, &s, ETH_IPV4_UDP_BTH - 4, &len);
    bytes += len;
    s = c.req; /* 9: ICRC damaged */
    s.psn = 3;
    s.icrc_xor = 0x00010000u;
    uint64_t bad = feed_cut(&t, &s, 0, &len);
    bytes += len;
    int64_t last = t.now - t.step;
    roce_engine_finish(t.e);

    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->packets, 9);
    CU_ASSERT_EQUAL(tt->roce_packets, 5);
    CU_ASSERT_EQUAL(tt->rocev1_packets, 1);
    CU_ASSERT_EQUAL(tt->rocev2_packets, 4);
    CU_ASSERT_EQUAL(tt->malformed_packets, 2);
    CU_ASSERT_EQUAL(tt->malformed_by_reason[ROCE_MAL_OPCODE], 1);
    CU_ASSERT_EQUAL(tt->malformed_by_reason[ROCE_MAL_SHORT_HDRS], 1);
    CU_ASSERT_EQUAL(tt->non_roce_packets, 2);
    CU_ASSERT_EQUAL(tt->packets, tt->roce_packets + tt->malformed_packets + tt->non_roce_packets);
    CU_ASSERT_EQUAL(tt->unsupported_linktype, 1);
    CU_ASSERT_EQUAL(tt->truncated_packets, 2);
    CU_ASSERT_EQUAL(tt->no_bth_packets, 1);
    CU_ASSERT_EQUAL(tt->icrc_good, 2);
    CU_ASSERT_EQUAL(tt->icrc_bad, 1);
    CU_ASSERT_EQUAL(tt->icrc_unchecked, 2);
    CU_ASSERT_EQUAL(tt->request_packets, 4); /* 1, 2, 7, 9: not the malformed, not the cut BTH */
    CU_ASSERT_EQUAL(tt->bytes, bytes);
    CU_ASSERT_EQUAL(tt->first_ts_ns, first);
    CU_ASSERT_EQUAL(tt->last_ts_ns, last);
    CU_ASSERT_EQUAL(tu_sflags(&t, mal1), ROCE_V_MALFORMED);
    CU_ASSERT_EQUAL(tu_sflags(&t, mal2), ROCE_V_MALFORMED);
    const struct roce_verdict *v = tu_v(&t, bad);
    CU_ASSERT_EQUAL(v->flags, ROCE_V_BAD_ICRC);
    CU_ASSERT_EQUAL(v->icrc_wire ^ v->icrc_calc,
                    0x00000100u); /* icrc_xor hit the third byte sent */
    struct roce_flow_report r;
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &r));
    CU_ASSERT_EQUAL(r.bad_icrc, 1);
    tu_eng_done(&t);
}

/* Header-only frames: the sequence analysis works on what the BTH says. */
static void test_truncated_frames_analysed(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report r;
    struct rg_spec s;
    uint32_t len;
    static const uint32_t psns[] = {1, 2, 4, 3};
    tu_setup(&t, &c, NULL);
    s = c.req;
    s.payload_len = 1024;
    for (size_t i = 0; i < 4; i++) {
        s.psn = psns[i];
        feed_cut(&t, &s, ETH_IPV4_UDP_BTH, &len);
        CU_ASSERT_EQUAL(t.out.pkt.truncated, 1);
        CU_ASSERT_EQUAL(t.out.pkt.icrc_status, ROCE_ICRC_UNCHECKED);
        CU_ASSERT_EQUAL(t.out.pkt.payload_len, 1024); /* from the declared lengths */
    }
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, 3), ROCE_V_GAP);
    CU_ASSERT_EQUAL(tu_v(&t, 3)->gap_class, ROCE_GAP_REORDERED);
    CU_ASSERT_EQUAL(tu_sflags(&t, 4), ROCE_V_REORDERED); /* 3 came late, not resent */
    CU_ASSERT_EQUAL(tu_totals(&t)->truncated_packets, 4);
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &r));
    CU_ASSERT_EQUAL(r.packets, 4);
    CU_ASSERT_EQUAL(r.bytes, 4 * len);
    CU_ASSERT_EQUAL(r.payload_bytes, 4 * 1024);
    tu_eng_done(&t);
}

/* A malformed packet does not move the flow's PSN history. */
static void test_malformed_not_analysed(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct rg_spec s;
    uint32_t len;
    tu_setup(&t, &c, NULL);
    tu_send(&t, &c, 1);
    tu_send(&t, &c, 2);
    s = c.req;
    s.psn = 10;
    s.payload_len = 2;
    s.padcnt = 3;
    s.pad_len = 0; /* pad count beyond the payload */
    feed_cut(&t, &s, 0, &len);
    CU_ASSERT_EQUAL(t.out.pkt.malformed, ROCE_MAL_PAD);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_MALFORMED);
    tu_send(&t, &c, 3);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    CU_ASSERT_EQUAL(t.out.verdict.expected_psn, 3);
    tu_eng_done(&t);
}

/* Which verdicts show the PSN that was expected (ROCE_V_EXPECTED_PSN_FLAGS,
 * used by rocescope --events and the plugin): a gap does, an in-order
 * request checked against the same expected PSN does not, nor a CE mark. */
static void test_expected_psn_shown(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_send(&t, &c, 1);
    tu_send(&t, &c, 2);
    CU_ASSERT_EQUAL(t.out.verdict.expected_valid, 1);
    CU_ASSERT_FALSE(roce_verdict_shows_expected(&t.out.verdict));
    uint64_t gap = tu_send(&t, &c, 5);
    uint64_t ce = tu_send_ce(&t, &c, 6);
    CU_ASSERT_TRUE(t.out.verdict.expected_valid);
    roce_engine_finish(t.e);
    CU_ASSERT_TRUE(roce_verdict_shows_expected(tu_v(&t, gap)));
    CU_ASSERT_EQUAL(tu_v(&t, gap)->expected_psn, 3);
    CU_ASSERT_FALSE(roce_verdict_shows_expected(tu_v(&t, ce)));
    tu_eng_done(&t);
}

static void test_names(void)
{
    unsigned dup = 0;
    for (unsigned i = 0; i < ROCE_V_COUNT; i++) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(roce_verdict_name(i)); /* no hole in the table */
        CU_ASSERT_STRING_NOT_EQUAL(roce_verdict_name(i), "unknown");
        for (unsigned j = 0; j < i; j++)
            dup += strcmp(roce_verdict_name(i), roce_verdict_name(j)) == 0;
    }
    CU_ASSERT_EQUAL(dup, 0);
    CU_ASSERT_STRING_EQUAL(roce_verdict_name(ROCE_V_COUNT), "unknown");
    CU_ASSERT_EQUAL(1u << (ROCE_V_COUNT - 1), ROCE_V_UNDERSTATED);
    CU_ASSERT_STRING_EQUAL(roce_verdict_name(0), "gap");
    CU_ASSERT_STRING_EQUAL(roce_verdict_name(1), "retransmission");
    CU_ASSERT_STRING_EQUAL(roce_verdict_name(ROCE_VBIT_RESP_GAP), "read_response_gap");
    CU_ASSERT_STRING_EQUAL(roce_verdict_name(ROCE_VBIT_DUP_RESPONSE), "duplicate_read_response");
    CU_ASSERT_STRING_EQUAL(roce_trigger_name(ROCE_TRIGGER_COUNT), "unknown");
    CU_ASSERT_STRING_EQUAL(roce_trigger_name(ROCE_TRIGGER_NAK), "nak");
    CU_ASSERT_STRING_EQUAL(roce_trigger_name(ROCE_TRIGGER_RNR), "rnr");
    CU_ASSERT_STRING_EQUAL(roce_trigger_name(ROCE_TRIGGER_IMPLIED), "implied");
    CU_ASSERT_STRING_EQUAL(roce_trigger_name(ROCE_TRIGGER_TIMEOUT), "timeout");
    CU_ASSERT_STRING_EQUAL(roce_paired_by_name(ROCE_PAIRED_NONE), "none");
    CU_ASSERT_STRING_EQUAL(roce_paired_by_name(ROCE_PAIRED_CM), "cm");
    CU_ASSERT_STRING_EQUAL(roce_paired_by_name(ROCE_PAIRED_PSN), "psn");
    CU_ASSERT_STRING_EQUAL(roce_paired_by_name(ROCE_PAIRED_CNP), "cnp");
    CU_ASSERT_STRING_EQUAL(roce_paired_by_name(99), "unknown");
    for (unsigned m = 0; m < ROCE_MAL_COUNT; m++)
        CU_ASSERT_STRING_NOT_EQUAL(roce_malformed_name((enum roce_malformed)m), "unknown");
    CU_ASSERT_STRING_EQUAL(roce_linktype_name(ROCE_LINKTYPE_ETHERNET), "EN10MB");
    CU_ASSERT_PTR_NULL(roce_linktype_name(147));
}

static const struct tu_test tests[] = {
    {"classes_and_totals", test_classes_and_totals},
    {"truncated_frames_analysed", test_truncated_frames_analysed},
    {"malformed_not_analysed", test_malformed_not_analysed},
    {"expected_psn_shown", test_expected_psn_shown},
    {"names", test_names},
    TU_END,
};

int main(int argc, char **argv)
{
    const struct tu_suite suites[] = {
        {"engine", tests},
        {"engine_alloc", engine_alloc_tests},
        {NULL, NULL},
    };
    return tu_main(argc, argv, suites);
}
