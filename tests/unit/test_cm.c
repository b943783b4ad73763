/*
 * test_cm.c - Communication Manager pairing (roce_cm.c).
 *
 * analyzer/engine/ANALYSIS.md "Flows and connections": pairing comes from CM
 * REQ/REP when captured. PROTOCOL.md "CM": CM MADs are UD SENDs to QP1; the REQ's
 * starting PSN is the one the passive side (the REP sender) uses for its
 * requests, the REP's the one the active side uses. A REP that answers a
 * captured REQ pairs the two flows and starts their PSN history afresh, so a
 * QP reused by a new connection gives no false retransmissions.
 *
 * A (10.0.0.1, QP TU_QA) is the active side, B (10.0.0.2, QP TU_QB) the
 * passive one.
 */
#include "test_harness.h"
#include "test_util.h"

#define A_START 500u  /* A's first request PSN (in the REP) */
#define B_START 7000u /* B's first request PSN (in the REQ) */
#define COMM_A  0x1111u
#define COMM_B  0x2222u

/* A CM message sent from `from` (a spec with its addresses) to QP1. */
static uint64_t cm_send(struct tu_eng *t, const struct rg_spec *from, const struct rg_cm *m)
{
    uint8_t mad[RG_MAD_LEN];
    struct rg_spec s = *from;
    rg_cm_mad(m, mad);
    rg_spec_cm(&s, mad);
    return tu_feed(t, &s);
}

/* REQ A->B and REP B->A for the connection TU_QA <-> TU_QB. */
static void cm_connect(struct tu_eng *t, const struct tu_conn *c, uint32_t a_start,
                       uint32_t b_start, uint32_t comm)
{
    const struct rg_cm req = {.attr = RG_CM_REQ,
                              .tid = comm,
                              .local_comm_id = comm,
                              .local_qpn = TU_QA,
                              .start_psn = b_start,
                              .pmtu_code = RG_MTU_1024,
                              .transport = RG_CM_TS_RC};
    const struct rg_cm rep = {.attr = RG_CM_REP,
                              .tid = comm,
                              .local_comm_id = COMM_B,
                              .remote_comm_id = comm,
                              .local_qpn = TU_QB,
                              .start_psn = a_start};
    cm_send(t, &c->req, &req);
    cm_send(t, &c->rsp, &rep);
}

static void test_req_rep_pairs(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report x, y;
    tu_setup(&t, &c, NULL);
    cm_connect(&t, &c, A_START, B_START, COMM_A);
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->cm_messages, 2);
    CU_ASSERT_EQUAL(tt->cm_connections, 1);
    CU_ASSERT_EQUAL(tt->connections, 1);
    CU_ASSERT_TRUE_FATAL(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &x));
    CU_ASSERT_TRUE_FATAL(tu_flow(&t, TU_IP_B, TU_IP_A, TU_QA, &y));
    CU_ASSERT_EQUAL(x.paired_by, ROCE_PAIRED_CM);
    CU_ASSERT_EQUAL(x.peer_id, y.id);
    CU_ASSERT_EQUAL(y.peer_id, x.id);
    tu_check_flow_table(&t);

    /* both sides start where CM said: no verdicts */
    tu_send(&t, &c, A_START);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    CU_ASSERT_EQUAL(t.out.verdict.expected_valid, 1);
    CU_ASSERT_EQUAL(t.out.verdict.expected_psn, A_START);
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_CM);
    CU_ASSERT_EQUAL(t.out.verdict.peer_dqpn, TU_QA);
    struct tu_conn back;
    tu_conn_init(&back, TU_IP_B, TU_IP_A, TU_QB, TU_QA); /* B's requests to QA */
    tu_send(&t, &back, B_START);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    CU_ASSERT_EQUAL(t.out.verdict.expected_psn, B_START);
    tu_ack(&t, &c, A_START, 0x1F);
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_CM);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_settled_count(&t), 0);
    tu_eng_done(&t);
}

/* The first request after CM is checked against the starting PSN. */
static void test_first_request_gap_after_cm(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    cm_connect(&t, &c, A_START, B_START, COMM_A);
    tu_send(&t, &c, A_START + 3);
    CU_ASSERT_EQUAL(t.out.verdict.flags, ROCE_V_GAP);
    CU_ASSERT_EQUAL(t.out.verdict.missing_psns, 3);
    CU_ASSERT_EQUAL(t.out.verdict.expected_psn, A_START);
    tu_eng_done(&t);
}

/* A REP whose REQ was not captured pairs nothing. */
static void test_rep_without_req(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report x;
    const struct rg_cm rep = {.attr = RG_CM_REP,
                              .local_comm_id = COMM_B,
                              .remote_comm_id = COMM_A,
                              .local_qpn = TU_QB,
                              .start_psn = 1};
    tu_setup(&t, &c, NULL);
    cm_send(&t, &c.rsp, &rep);
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->cm_messages, 1);
    CU_ASSERT_EQUAL(tt->cm_connections, 0);
    CU_ASSERT_EQUAL(tt->connections, 0);
    CU_ASSERT_FALSE(tu_flow(&t, TU_IP_A, TU_IP_B, TU_QB, &x));
    tu_eng_done(&t);
}

/* A REP answering another communication ID, or from the wrong host, pairs nothing. */
static void test_rep_must_answer_the_req(void)
{
    struct tu_eng t;
    struct tu_conn c;
    const struct rg_cm req = {
        .attr = RG_CM_REQ, .local_comm_id = COMM_A, .local_qpn = TU_QA, .start_psn = B_START};
    const struct rg_cm rep = {.attr = RG_CM_REP,
                              .local_comm_id = COMM_B,
                              .remote_comm_id = COMM_A + 1,
                              .local_qpn = TU_QB,
                              .start_psn = A_START};
    tu_setup(&t, &c, NULL);
    cm_send(&t, &c.req, &req);
    cm_send(&t, &c.rsp, &rep);
    CU_ASSERT_EQUAL(tu_totals(&t)->cm_connections, 0);
    tu_eng_done(&t);
}

/* QP numbers reused by a new connection: the new connection gets flow
 * records of its own (fresh PSN history), the earlier ones stay listed and
 * paired with each other, each with its own frames, PSNs and counts. */
static void test_qp_reuse_fresh_history(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report x[3], y[3], r;
    tu_setup(&t, &c, NULL);
    cm_connect(&t, &c, 1000, B_START, COMM_A);
    uint64_t last = tu_sends(&t, &c, 1000, 10); /* 1000..1009 */
    uint64_t old_id = t.out.verdict.flow_id;
    uint64_t ack = tu_ack(&t, &c, 1009, 0x1F);
    /* disconnected (not captured), then the same QPs connect again, starting lower */
    cm_connect(&t, &c, 10, B_START + 50, COMM_A + 1);
    uint64_t f1 = tu_send(&t, &c, 10);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    CU_ASSERT_EQUAL(t.out.verdict.expected_psn, 10);
    CU_ASSERT_NOT_EQUAL(t.out.verdict.flow_id, old_id); /* the frame names the new flow */
    uint64_t f2 = tu_send(&t, &c, 11);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, f1), 0);
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->retransmitted_packets, 0);
    CU_ASSERT_EQUAL(tt->episodes, 0);
    CU_ASSERT_EQUAL(tt->psn_reuse, 0);
    CU_ASSERT_EQUAL(tt->cm_connections, 2);
    CU_ASSERT_EQUAL(tt->connections, 2);
    CU_ASSERT_EQUAL_FATAL(tu_flows(&t, TU_IP_A, TU_IP_B, TU_QB, x, 3), 2);
    CU_ASSERT_EQUAL_FATAL(tu_flows(&t, TU_IP_B, TU_IP_A, TU_QA, y, 3), 2);
    /* the first connection's flows */
    CU_ASSERT_EQUAL(x[0].id, old_id);
    CU_ASSERT_EQUAL(x[0].cm_connections, 1);
    CU_ASSERT_EQUAL(x[0].packets, 10);
    CU_ASSERT_EQUAL(x[0].first_frame, last - 9); /* its own first packet, not the CM REP */
    CU_ASSERT_EQUAL(x[0].last_frame, last);
    CU_ASSERT_EQUAL(x[0].first_psn, 1000);
    CU_ASSERT_EQUAL(x[0].last_psn, 1009);
    CU_ASSERT_EQUAL(x[0].peer_id, y[0].id);
    CU_ASSERT_EQUAL(y[0].peer_id, x[0].id);
    CU_ASSERT_EQUAL(y[0].paired_by, ROCE_PAIRED_CM);
    CU_ASSERT_EQUAL(y[0].first_frame, ack);
    CU_ASSERT_EQUAL(y[0].packets, 1);
    /* the second's */
    CU_ASSERT_EQUAL(x[1].cm_connections, 1);
    CU_ASSERT_EQUAL(x[1].packets, 2);
    CU_ASSERT_EQUAL(x[1].first_frame, f1);
    CU_ASSERT_EQUAL(x[1].last_frame, f2);
    CU_ASSERT_EQUAL(x[1].first_psn, 10);
    CU_ASSERT_EQUAL(x[1].last_psn, 11);
    CU_ASSERT_EQUAL(x[1].peer_id, y[1].id);
    CU_ASSERT_EQUAL(y[1].peer_id, x[1].id);
    CU_ASSERT_EQUAL(y[1].packets, 0); /* announced by CM, no packet yet */
    CU_ASSERT_EQUAL(y[1].first_frame, 0);
    /* by key: the current record; by key and id: either */
    CU_ASSERT_EQUAL_FATAL(roce_engine_flow_report(t.e, &x[0].key, 0, &r), 0);
    CU_ASSERT_EQUAL(r.id, x[1].id);
    CU_ASSERT_EQUAL_FATAL(roce_engine_flow_report(t.e, &x[0].key, x[0].id, &r), 0);
    CU_ASSERT_EQUAL(r.last_psn, 1009);
    CU_ASSERT_EQUAL(roce_engine_flow_report(t.e, &x[0].key, x[1].id + 100, &r), -1);
    tu_check_flow_table(&t);
    /* a live monitor's idle retirement: the first connection's flows went idle first */
    CU_ASSERT_EQUAL(roce_engine_retire_idle(t.e, x[1].last_ts_ns - y[0].last_ts_ns - 1), 2);
    CU_ASSERT_EQUAL(roce_engine_flow_report(t.e, &x[0].key, x[0].id, &r), -1);
    CU_ASSERT_EQUAL_FATAL(roce_engine_flow_report(t.e, &x[0].key, 0, &r), 0);
    CU_ASSERT_EQUAL(r.id, x[1].id);
    CU_ASSERT_EQUAL(tu_totals(&t)->connections, 1);
    CU_ASSERT_EQUAL(tu_totals(&t)->flows_retired, 2);
    tu_check_flow_table(&t);
    tu_eng_done(&t);
}

/* The same CM exchange seen twice with nothing between (a REQ and its REP
 * resent): one connection, no new records. */
static void test_cm_exchange_repeated(void)
{
    struct tu_eng t;
    struct tu_conn c;
    struct roce_flow_report x[2];
    tu_setup(&t, &c, NULL);
    cm_connect(&t, &c, A_START, B_START, COMM_A);
    cm_connect(&t, &c, A_START, B_START, COMM_A);
    CU_ASSERT_EQUAL(tu_flows(&t, TU_IP_A, TU_IP_B, TU_QB, x, 2), 1);
    CU_ASSERT_EQUAL(tu_totals(&t)->connections, 1);
    tu_send(&t, &c, A_START);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    CU_ASSERT_EQUAL(t.out.verdict.expected_psn, A_START);
    tu_eng_done(&t);
}

/* Without CM the same reuse is (by the definitions) a retransmission: the
 * reset above is what CM adds. */
static void test_qp_reuse_without_cm(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, 1000, 10); /* 1000..1009 */
    uint64_t f = tu_send(&t, &c, 10);
    roce_engine_finish(t.e);
    CU_ASSERT(tu_sflags(&t, f) & ROCE_V_RETRANSMISSION);
    tu_eng_done(&t);
}

/* A NAK pending when CM restarts the flow is never taken as resent. */
static void test_reset_settles_pending_nak(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    cm_connect(&t, &c, 100, B_START, COMM_A);
    tu_sends(&t, &c, 100, 5); /* 100..104 */
    uint64_t nak = tu_ack(&t, &c, 102, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    cm_connect(&t, &c, 10, B_START, COMM_A + 1);
    tu_send(&t, &c, 10);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, nak), ROCE_V_NAK); /* its PSN belongs to the old connection */
    tu_eng_done(&t);
}

static const struct tu_test tests[] = {
    {"req_rep_pairs", test_req_rep_pairs},
    {"first_request_gap_after_cm", test_first_request_gap_after_cm},
    {"rep_without_req", test_rep_without_req},
    {"rep_must_answer_the_req", test_rep_must_answer_the_req},
    {"qp_reuse_fresh_history", test_qp_reuse_fresh_history},
    {"cm_exchange_repeated", test_cm_exchange_repeated},
    {"qp_reuse_without_cm", test_qp_reuse_without_cm},
    {"reset_settles_pending_nak", test_reset_settles_pending_nak},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "cm", tests);
}
