/*
 * test_flow.c - the bounded flow table (roce_flow.c).
 *
 * analyzer/engine/ANALYSIS.md "Flows and connections": a flow is one
 * direction of a queue pair, keyed by (source address, destination address,
 * BTH destination QP); the UDP source port is entropy and is not part of it.
 * roce_engine.h: at most max_flows flows are tracked, the least recently
 * active is evicted and counted in flows_evicted. What an evicted flow was
 * paired with, or left waiting (CE marks, NAKs), must not dangle:
 * tu_check_flow_table() checks the pairs after every frame here, and the
 * suite is meant to run in the sanitizer build too.
 */
#include <stdint.h>
#include <string.h>

#include "roce_flow.h"
#include "test_harness.h"
#include "test_util.h"

#define SMALL_TABLE 4u

static const struct tu_opts small_table = {.max_flows = SMALL_TABLE};

/* One SEND to dest QP qp (A -> B). */
static uint64_t send_to(struct tu_eng *t, uint32_t qp, uint32_t psn)
{
    struct tu_conn c;
    tu_conn_init(&c, TU_IP_A, TU_IP_B, TU_QA, qp);
    return tu_send(t, &c, psn);
}

static int has_flow_to(struct tu_eng *t, uint32_t qp)
{
    struct roce_flow_report r;
    return tu_flow(t, TU_IP_A, TU_IP_B, qp, &r);
}

static void test_max_flows_bound(void)
{
    struct tu_eng t;
    tu_eng_init(&t, &small_table);
    for (uint32_t qp = 1; qp <= 10; qp++) {
        send_to(&t, qp, 1);
        CU_ASSERT(roce_engine_flow_count(t.e) <= SMALL_TABLE);
        tu_check_flow_table(&t);
    }
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(roce_engine_flow_count(t.e), SMALL_TABLE);
    CU_ASSERT_EQUAL(tt->flows_created, 10);
    CU_ASSERT_EQUAL(tt->flows_evicted, 6);
    CU_ASSERT_EQUAL(tt->flows_active, SMALL_TABLE);
    CU_ASSERT_EQUAL(tt->peak_flows, SMALL_TABLE);
    for (uint32_t qp = 1; qp <= 10; qp++)
        CU_ASSERT_EQUAL(has_flow_to(&t, qp), qp > 6);
    CU_ASSERT_EQUAL(tt->packets, 10);
    CU_ASSERT_EQUAL(tt->request_packets, 10);
    tu_eng_done(&t);
}

static void test_least_recently_active_evicted(void)
{
    struct tu_eng t;
    tu_eng_init(&t, &small_table);
    for (uint32_t qp = 1; qp <= 4; qp++)
        send_to(&t, qp, 1);
    send_to(&t, 1, 2); /* 1 active again: 2 is now the least recent */
    send_to(&t, 5, 1);
    CU_ASSERT_TRUE(has_flow_to(&t, 1));
    CU_ASSERT_FALSE(has_flow_to(&t, 2));
    CU_ASSERT_TRUE(has_flow_to(&t, 3));
    CU_ASSERT_TRUE(has_flow_to(&t, 4));
    CU_ASSERT_TRUE(has_flow_to(&t, 5));
    send_to(&t, 3, 2); /* order now 4, 1, 5, 3 */
    send_to(&t, 6, 1);
    CU_ASSERT_FALSE(has_flow_to(&t, 4));
    CU_ASSERT_TRUE(has_flow_to(&t, 3));
    send_to(&t, 7, 1); /* evicts 1 */
    CU_ASSERT_FALSE(has_flow_to(&t, 1));
    CU_ASSERT_TRUE(has_flow_to(&t, 5));
    CU_ASSERT_EQUAL(tu_totals(&t)->flows_evicted, 3);
    tu_eng_done(&t);
}

/* The report of one flow by its key (roce_engine_flow_report, used by the
 * plugin's flow table) is that flow's row of roce_engine_flows, until the
 * flow is evicted. */
static void test_flow_report_by_key(void)
{
    struct tu_eng t;
    struct roce_flow_report all, one;
    tu_eng_init(&t, &small_table);
    send_to(&t, 1, 1);
    send_to(&t, 1, 3);
    send_to(&t, 2, 1);
    CU_ASSERT_TRUE_FATAL(has_flow_to(&t, 1));
    CU_ASSERT_TRUE(tu_flow(&t, TU_IP_A, TU_IP_B, 1, &all));
    CU_ASSERT_EQUAL_FATAL(roce_engine_flow_report(t.e, &all.key, 0, &one), 0);
    CU_ASSERT_EQUAL(one.id, all.id);
    CU_ASSERT_EQUAL(one.packets, 2);
    CU_ASSERT_EQUAL(one.gap_events, 1);
    CU_ASSERT_EQUAL(one.bytes, all.bytes);
    CU_ASSERT_EQUAL(one.first_frame, all.first_frame);
    CU_ASSERT_EQUAL(one.last_frame, all.last_frame);
    CU_ASSERT_EQUAL(memcmp(&one.key, &all.key, sizeof one.key), 0);
    for (uint32_t qp = 3; qp <= 6; qp++) /* evicts QPs 1 and 2 */
        send_to(&t, qp, 1);
    CU_ASSERT_EQUAL(roce_engine_flow_report(t.e, &all.key, 0, &one), -1);
    tu_eng_done(&t);
}

/* The UDP source port is not part of the flow key. */
static void test_udp_source_port_not_in_key(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    for (uint16_t p = 0; p < 5; p++) {
        c.req.udp_sport = (uint16_t)(0xC000 + p * 77);
        tu_send(&t, &c, 10 + p);
        CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    }
    CU_ASSERT_EQUAL(roce_engine_flow_count(t.e), 1);
    /* the other direction and another dest QP are other flows */
    tu_ack(&t, &c, 14, 0x1F);
    send_to(&t, TU_QB + 1, 1);
    CU_ASSERT_EQUAL(roce_engine_flow_count(t.e), 3);
    tu_eng_done(&t);
}

/* A paired request flow is evicted: its peer is unpaired, not left pointing
 * at the slot, which a new unrelated flow then takes. */
static void test_evicted_peer_does_not_dangle(void)
{
    struct tu_eng t;
    struct tu_conn c, x;
    struct roce_flow_report rsp;
    tu_setup(&t, &c, &small_table);
    tu_conn_init(&x, 0x0A000007u, 0x0A000008u, 0x700, 0x800);
    tu_send(&t, &c, 10);
    tu_ack(&t, &c, 10, 0x1F); /* paired by PSN */
    CU_ASSERT_EQUAL(tu_totals(&t)->connections, 1);
    tu_send(&t, &x, 1); /* flows 3 and 4 */
    tu_ack(&t, &x, 1, 0x1F);
    tu_ack(&t, &c, 10, 0x1F); /* the response flow active again */
    struct tu_conn y;
    tu_conn_init(&y, 0x0A000009u, 0x0A00000Au, 0x900, 0xA00);
    tu_send(&t, &y, 1); /* evicts the request flow A->B */
    tu_check_flow_table(&t);
    CU_ASSERT_FALSE(has_flow_to(&t, TU_QB));
    CU_ASSERT_TRUE_FATAL(tu_flow(&t, TU_IP_B, TU_IP_A, TU_QA, &rsp));
    CU_ASSERT_EQUAL(rsp.peer_id, 0);
    CU_ASSERT_EQUAL(rsp.paired_by, ROCE_PAIRED_NONE);
    /* the response flow's next frames pair with nothing stale */
    tu_ack(&t, &c, 10, 0x1F);
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_NONE);
    CU_ASSERT_EQUAL(t.out.verdict.peer_dqpn, 0);
    tu_check_flow_table(&t);
    /* the request flow comes back as a new flow and pairs again */
    tu_send(&t, &c, 20);
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0); /* fresh history: no retransmission, no gap */
    tu_ack(&t, &c, 20, 0x1F);
    CU_ASSERT_EQUAL(t.out.verdict.paired_by, ROCE_PAIRED_PSN);
    CU_ASSERT_EQUAL(t.out.verdict.peer_dqpn, TU_QB);
    tu_check_flow_table(&t);
    tu_eng_done(&t);
}

/* A flow evicted while a CE mark and a NAK wait on it: both verdicts are
 * still delivered once (tu_eng_done checks), and every CE mark is accounted for. */
static void test_evicted_flow_with_pending_state(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, &small_table);
    tu_sends(&t, &c, 100, 5); /* 100..104 */
    uint64_t nak = tu_ack(&t, &c, 102, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    uint64_t ce = tu_send_ce(&t, &c, 105);
    for (uint32_t qp = 1; qp <= 4; qp++) /* within the CNP window: evicts both flows */
        send_to(&t, 0x5000 + qp, 1);
    CU_ASSERT_FALSE(has_flow_to(&t, TU_QB));
    tu_check_flow_table(&t);
    uint64_t cnp = tu_cnp(&t, &c); /* the connection is gone: nothing to match */
    tu_send(&t, &c, 102);          /* new flow: no stale episode or NAK */
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    roce_engine_finish(t.e);
    /* (the new request flow came after the CNP: not its connection) */
    CU_ASSERT_EQUAL(tu_sflags(&t, cnp), ROCE_V_CNP | ROCE_V_CNP_UNEXPLAINED);
    CU_ASSERT_PTR_NOT_NULL(tu_settled(&t, nak));
    CU_ASSERT_EQUAL(tu_sflags(&t, nak) & ROCE_V_NAK_RESENT, 0);
    CU_ASSERT_PTR_NOT_NULL(tu_settled(&t, ce));
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->ce_marked, tt->ce_answered + tt->ce_unanswered + tt->ce_tracking_overflow);
    tu_eng_done(&t);
}

/* ---- idle flows retired (roce_engine_retire_idle, the live monitor's --idle-timeout) ---- */

/* Flows idle for longer than idle_ns before the latest frame are retired, oldest first, and
 * counted (flows_retired); a flow idle exactly idle_ns stays. Their counts stay in the totals,
 * the waiting NAK of a retired flow is settled once (tu_eng_done checks), its waiting CE mark
 * too, counted in ce_tracking_overflow (ANALYSIS.md "Bounds and memory"), its peer is unpaired, and
 * a later packet of the same queue pair starts a new flow with a fresh PSN history. */
static void test_idle_flows_retired(void)
{
    struct tu_eng t;
    struct tu_conn c;
    tu_setup(&t, &c, NULL);
    tu_sends(&t, &c, 100, 5); /* 100..104 */
    uint64_t nak = tu_ack(&t, &c, 102, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR));
    uint64_t ce = tu_send_ce(&t, &c, 105);
    int64_t t_ce = t.now - t.step; /* A -> B's last packet */
    t.now = t_ce + 50000;          /* 50 us later: the CE mark still waits */
    send_to(&t, 0x777, 1);         /* another flow, the latest frame */
    CU_ASSERT_EQUAL(roce_engine_retire_idle(t.e, 50000), 1); /* B -> A (idle 51 us) */
    CU_ASSERT_TRUE(has_flow_to(&t, TU_QB));                  /* idle exactly 50 us */
    tu_check_flow_table(&t);
    CU_ASSERT_EQUAL(roce_engine_retire_idle(t.e, 49999), 1); /* A -> B */
    CU_ASSERT_FALSE(has_flow_to(&t, TU_QB));
    CU_ASSERT_EQUAL(roce_engine_flow_count(t.e), 1);
    CU_ASSERT_EQUAL(roce_engine_retire_idle(t.e, 0), 0); /* the latest frame's flow is not idle */
    tu_check_flow_table(&t);
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->flows_retired, 2);
    CU_ASSERT_EQUAL(tt->flows_created, 3);
    CU_ASSERT_EQUAL(tt->flows_active, 1);
    CU_ASSERT_EQUAL(tt->request_packets, 7);
    CU_ASSERT_EQUAL(tt->naks.total, 1);
    uint64_t again = tu_send(&t, &c, 102); /* a new flow: no retransmission, no gap */
    CU_ASSERT_EQUAL(t.out.verdict.flags, 0);
    CU_ASSERT_EQUAL(tu_totals(&t)->flows_created, 4);
    roce_engine_finish(t.e);
    CU_ASSERT_EQUAL(tu_sflags(&t, nak), ROCE_V_NAK);
    CU_ASSERT_EQUAL(tu_sflags(&t, ce), ROCE_V_CE);
    CU_ASSERT_EQUAL(tu_sflags(&t, again), 0);
    tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->ce_marked, 1);
    CU_ASSERT_EQUAL(tt->ce_tracking_overflow, 1);
    CU_ASSERT_EQUAL(tt->ce_unanswered, 0);
    CU_ASSERT_EQUAL(tt->retransmitted_packets, 0);
    tu_eng_done(&t);
}

/* ---- random traffic over a small table ---- */

#define N_HOSTS 4u
#define N_QPS   3u

struct sim_conn {
    struct tu_conn c;
    uint32_t next_psn;
};

static void sim_frame(struct tu_eng *t, struct sim_conn *s, struct tu_rng *r)
{
    uint32_t psn = s->next_psn;
    switch (tu_rng_below(r, 9)) {
    case 0:
    case 1:
        tu_send(t, &s->c, psn);
        s->next_psn = (psn + 1) & 0xFFFFFF;
        break;
    case 2:
        tu_send_ce(t, &s->c, psn);
        s->next_psn = (psn + 1) & 0xFFFFFF;
        break;
    case 3: /* go back a few */
        s->next_psn = (psn - tu_rng_below(r, 4)) & 0xFFFFFF;
        tu_send(t, &s->c, s->next_psn);
        break;
    case 4: /* lose a few */
        s->next_psn = (psn + 1 + tu_rng_below(r, 3)) & 0xFFFFFF;
        tu_send(t, &s->c, s->next_psn);
        break;
    case 5:
        tu_ack(t, &s->c, (psn - 1) & 0xFFFFFF, 0x1F);
        break;
    case 6:
        tu_ack(t, &s->c, psn, tu_rng_below(r, 2) ? rg_aeth_nak(0) : rg_aeth_rnr(3));
        break;
    case 7:
        tu_cnp(t, &s->c);
        break;
    default:
        tu_read(t, &s->c, psn, 1024u << tu_rng_below(r, 3));
        s->next_psn = (psn + 1) & 0xFFFFFF;
        break;
    }
}

static void test_random_traffic_small_table(void)
{
    static struct sim_conn conns[N_HOSTS * N_HOSTS * N_QPS];
    struct tu_eng t;
    struct tu_rng r;
    size_t n = 0;

    for (uint32_t a = 0; a < N_HOSTS; a++)
        for (uint32_t b = 0; b < N_HOSTS; b++)
            for (uint32_t q = 0; q < N_QPS && a != b; q++, n++) {
                tu_conn_init(&conns[n].c, 0x0A000100u + a, 0x0A000100u + b, 0x100 + q, 0x200 + q);
                conns[n].next_psn = 0xFFFFF0u + q; /* close to the wrap */
            }
    tu_eng_init(&t, &(struct tu_opts){.max_flows = 6, .max_open_verdicts = 1024});
    tu_rng_seed(&r, 2024);
    for (int i = 0; i < 6000; i++) {
        t.step = tu_rng_below(&r, 30000);
        sim_frame(&t, &conns[tu_rng_below(&r, (uint32_t)n)], &r);
        if (i % 7 == 0)
            tu_check_flow_table(&t);
        CU_ASSERT_FATAL(roce_engine_flow_count(t.e) <= 6);
    }
    tu_check_flow_table(&t);
    const struct roce_totals *tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->flows_created - tt->flows_evicted, roce_engine_flow_count(t.e));
    CU_ASSERT(tt->flows_evicted > 100);
    CU_ASSERT_EQUAL(tt->packets, 6000);
    CU_ASSERT_EQUAL(tt->packets, tt->roce_packets + tt->malformed_packets + tt->non_roce_packets);
    roce_engine_finish(t.e);
    tt = tu_totals(&t);
    CU_ASSERT_EQUAL(tt->ce_marked, tt->ce_answered + tt->ce_unanswered + tt->ce_tracking_overflow);
    tu_eng_done(&t);
}

/* ---- the two records of a flow (roce_flow.h), through the table alone ---- */

static void no_created(void *ctx, struct roce_flow *f, uint64_t frame, int64_t ts)
{
    (void)ctx, (void)f, (void)frame, (void)ts;
}
static void no_paired(void *ctx, struct roce_flow *a, struct roce_flow *b)
{
    (void)ctx, (void)a, (void)b;
}
static void no_flow(void *ctx, struct roce_flow *f)
{
    (void)ctx, (void)f;
}

static const struct roce_flow_hooks bare_hooks = {no_created, no_paired, no_flow, no_flow, NULL};

static struct roce_flow *flow_of_qp(struct roce_flow_table *t, uint32_t qp)
{
    struct roce_flow_key k;
    memset(&k, 0, sizeof k);
    k.dqpn = qp;
    k.version = ROCE_VERSION_2;
    return roce_flow_get(t, &k, qp, 0);
}

/* Every flow's cold record is its own, 64-byte aligned, after the hot
 * records of its chunk, and stays where it is: over two chunks. */
static void test_cold_records_apart(void)
{
    enum { N = ROCE_FLOW_CHUNK + 3 };
    static struct roce_flow *f[N];
    struct roce_flow_table t;
    CU_ASSERT_EQUAL_FATAL(roce_flow_table_init(&t, N, &bare_hooks), 0);
    CU_ASSERT_EQUAL(sizeof(struct roce_flow), 128u);
    for (uint32_t i = 0; i < N; i++) {
        f[i] = flow_of_qp(&t, i + 1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f[i]);
        roce_flow_cold(f[i])->older = i + 1; /* a mark of its own */
    }
    for (uint32_t i = 0; i < N; i++) {
        const char *hot = (const char *)f[i];
        const char *cold = (const char *)roce_flow_cold(f[i]);
        CU_ASSERT_EQUAL((uintptr_t)cold % ROCE_FLOW_ALIGN, 0);
        CU_ASSERT(cold >=
                  hot + (ROCE_FLOW_CHUNK - (i % ROCE_FLOW_CHUNK)) * sizeof(struct roce_flow));
        CU_ASSERT_EQUAL(roce_flow_cold(f[i])->older, i + 1);
        CU_ASSERT_EQUAL(f[i]->key.dqpn, i + 1); /* no cold record wrote over a hot one */
        CU_ASSERT_PTR_EQUAL(flow_of_qp(&t, i + 1), f[i]);
    }
    roce_flow_table_free(&t);
}

/* The hot 32-bit counters carry into the cold record: the whole count is
 * exact past 2^32; an opcode's run folds into the cold counts when the
 * opcode changes and when the run is full. */
static void test_hot_counters_carry(void)
{
    struct roce_flow_table t;
    CU_ASSERT_EQUAL_FATAL(roce_flow_table_init(&t, 8, &bare_hooks), 0);
    struct roce_flow *f = flow_of_qp(&t, 7);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    uint64_t want = 0;
    const uint32_t steps[] = {UINT32_MAX, 1, 65535, UINT32_MAX - 3, 9000, UINT32_MAX};
    for (unsigned i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        if (roce_flow_add32(&f->bytes_lo, steps[i]))
            roce_flow_cold(f)->bytes_hi++;
        want += steps[i];
        CU_ASSERT_EQUAL(roce_flow_bytes(f), want);
    }
    CU_ASSERT_EQUAL(roce_flow_cold(f)->bytes_hi, want >> 32);

    for (unsigned i = 0; i < 70000; i++) /* longer than a run holds */
        roce_flow_count_op(f, 6);
    roce_flow_count_op(f, 7);
    roce_flow_count_op(f, 6);
    const struct roce_flow_cold *c = roce_flow_cold(f);
    CU_ASSERT_EQUAL(c->op_counts[6], 70000);
    CU_ASSERT_EQUAL(c->op_counts[7], 1);
    CU_ASSERT_EQUAL(f->op_last, 6);
    CU_ASSERT_EQUAL(f->op_run, 1); /* the last, still in the hot record */
    roce_flow_table_free(&t);
}

static const struct tu_test tests[] = {
    {"max_flows_bound", test_max_flows_bound},
    {"least_recently_active_evicted", test_least_recently_active_evicted},
    {"udp_source_port_not_in_key", test_udp_source_port_not_in_key},
    {"flow_report_by_key", test_flow_report_by_key},
    {"evicted_peer_does_not_dangle", test_evicted_peer_does_not_dangle},
    {"evicted_flow_with_pending_state", test_evicted_flow_with_pending_state},
    {"idle_flows_retired", test_idle_flows_retired},
    {"random_traffic_small_table", test_random_traffic_small_table},
    {"cold_records_apart", test_cold_records_apart},
    {"hot_counters_carry", test_hot_counters_carry},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "flow", tests);
}
