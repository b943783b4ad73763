/*
 * test_diag.c - the list of diagnoses (roce_diag.c) from report data, the
 * evidence lists, and the engine's address text (roce_addr.c).
 *
 * ANALYSIS.md "Diagnoses", "The list": each kind has its severity,
 * subject, condition and count; "request flow" is the flow A->B whose
 * requests are concerned (for NAKs the paired request flow, the NAK's own
 * flow when unpaired); frames are the first 10 evidence frames; the list is
 * ordered by severity (error, warning, note), count (descending), first
 * frame. ANALYSIS.md "Diagnoses" has the decisions tested here too: equal
 * findings join, ECMP collisions need flows active at the same time, QP1 is
 * not counted.
 */
#define _DEFAULT_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "roce_engine.h"
#include "test_util.h"

#define MAXF 8

struct fixture {
    struct roce_flow_report r[MAXF];
    struct roce_evidence ev[MAXF];
    struct roce_flow_key peer[MAXF];
    struct roce_diag_flow f[MAXF];
    size_t n;
    struct roce_totals t;
    struct roce_config cfg;
    struct roce_host_mac macs[2];
    size_t n_macs;
};

static void fx_init(struct fixture *x)
{
    memset(x, 0, sizeof *x);
    roce_config_default(&x->cfg);
}

static void key(struct roce_flow_key *k, uint8_t src, uint8_t dst, uint32_t dqpn)
{
    uint8_t a[4] = {10, 0, 0, src}, b[4] = {10, 0, 0, dst};
    memset(k, 0, sizeof *k);
    roce_addr_set_v4(k->src, a);
    roce_addr_set_v4(k->dst, b);
    k->dqpn = dqpn;
    k->version = 2;
}

/* A flow src -> dst QP dqpn; its report, evidence and peer are the
 * caller's to fill. */
static struct roce_flow_report *flow(struct fixture *x, uint8_t src, uint8_t dst, uint32_t dqpn)
{
    size_t i = x->n++;
    key(&x->r[i].key, src, dst, dqpn);
    x->r[i].id = i + 1;
    x->f[i].r = &x->r[i];
    x->f[i].ev = &x->ev[i];
    return &x->r[i];
}

static long run(struct fixture *x, struct roce_diagnosis *d, size_t cap)
{
    struct roce_diag_input in = {x->f, x->n, x->macs, x->n_macs, &x->t, &x->cfg};
    return roce_diagnose(&in, d, cap);
}

/* Severity first, then count (descending), then the first frame. */
static void test_order(void)
{
    struct fixture x;
    struct roce_diagnosis d[8];
    fx_init(&x);
    struct roce_flow_report *a = flow(&x, 1, 2, 0x10);
    a->psn_reuse = 1;
    roce_evidence_add(&x.ev[0], ROCE_DIAG_PSN_REUSE, 50);
    a->gap_events = 3;
    a->missing_psns = 4;
    roce_evidence_add(&x.ev[0], ROCE_DIAG_PACKET_LOSS, 40);
    struct roce_flow_report *b = flow(&x, 3, 4, 0x20);
    b->bad_icrc = 1;
    roce_evidence_add(&x.ev[1], ROCE_DIAG_ICRC_ERROR, 90);
    b->by_trigger[ROCE_TRIGGER_TIMEOUT] = 1;
    roce_evidence_add(&x.ev[1], ROCE_DIAG_RETRANSMISSION_TIMEOUT, 30);
    x.t.pfc.prio[3].storm_windows = 1;
    x.t.icrc_good = 5;
    x.t.icrc_bad = 1;
    CU_ASSERT_EQUAL_FATAL(run(&x, d, 8), 5);
    CU_ASSERT_EQUAL(d[0].kind, ROCE_DIAG_ICRC_ERROR);  /* error, count 1, frame 90 */
    CU_ASSERT_EQUAL(d[1].kind, ROCE_DIAG_PFC_STORM);   /* error, count 1, no frame */
    CU_ASSERT_EQUAL(d[2].kind, ROCE_DIAG_PACKET_LOSS); /* warning, count 3 */
    CU_ASSERT_EQUAL(d[2].count, 3);
    CU_ASSERT_EQUAL(d[3].kind, ROCE_DIAG_RETRANSMISSION_TIMEOUT); /* warning 1, frame 30 */
    CU_ASSERT_EQUAL(d[4].kind, ROCE_DIAG_PSN_REUSE);              /* warning 1, frame 50 */
    CU_ASSERT_EQUAL(d[1].priority, 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(d[0].summary, "corrupted on the way"));
    CU_ASSERT_EQUAL(run(&x, d, 2), 5); /* the count whatever the room */
}

/* packet_loss counts the larger of the network gaps and the NAK-driven or
 * implied episodes; capture-loss gaps and gaps still open are not network
 * loss; capture_loss has its own finding. */
static void test_loss_counts(void)
{
    struct fixture x;
    struct roce_diagnosis d[4];
    fx_init(&x);
    struct roce_flow_report *a = flow(&x, 1, 2, 0x10);
    a->gap_events = 5;
    a->capture_loss_gaps = 3;
    a->capture_loss_psns = 7;
    a->gaps_pending = 1;
    a->by_trigger[ROCE_TRIGGER_NAK] = 1;
    a->by_trigger[ROCE_TRIGGER_IMPLIED] = 1;
    CU_ASSERT_EQUAL_FATAL(run(&x, d, 4), 2);
    CU_ASSERT_EQUAL(d[0].kind, ROCE_DIAG_CAPTURE_LOSS);
    CU_ASSERT_EQUAL(d[0].count, 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(d[0].summary, "missed 3 bursts (7 PSNs)"));
    CU_ASSERT_EQUAL(d[1].kind, ROCE_DIAG_PACKET_LOSS);
    CU_ASSERT_EQUAL(d[1].count, 2);
    a->capture_loss_gaps = 5;
    a->gaps_pending = 0;
    a->by_trigger[ROCE_TRIGGER_NAK] = a->by_trigger[ROCE_TRIGGER_IMPLIED] = 0;
    CU_ASSERT_EQUAL_FATAL(run(&x, d, 4), 1); /* capture loss only: never network loss */
    CU_ASSERT_EQUAL(d[0].kind, ROCE_DIAG_CAPTURE_LOSS);
}

/* NAKs travel B->A: an RNR or remote error names the paired request flow,
 * or the NAK's own flow while unpaired. */
static void test_nak_subjects(void)
{
    struct fixture x;
    struct roce_diagnosis d[4];
    fx_init(&x);
    struct roce_flow_report *y = flow(&x, 2, 1, 0x11);
    y->naks.rnr = 2;
    y->naks.code[ROCE_NAK_REMOTE_ACCESS_ERROR] = 1;
    key(&x.peer[0], 1, 2, 0x22);
    x.f[0].peer = &x.peer[0];
    roce_evidence_add(&x.ev[0], ROCE_DIAG_RNR, 8);
    CU_ASSERT_EQUAL_FATAL(run(&x, d, 4), 2);
    CU_ASSERT_EQUAL(d[0].kind, ROCE_DIAG_REMOTE_ERROR);
    CU_ASSERT_EQUAL(d[0].flow.dqpn, 0x22);
    CU_ASSERT_PTR_NOT_NULL(strstr(d[0].summary, "10.0.0.1 -> 10.0.0.2 QP 0x000022"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d[0].summary, "remote access error 1"));
    CU_ASSERT_EQUAL(d[1].kind, ROCE_DIAG_RNR);
    CU_ASSERT_EQUAL(d[1].count, 2);
    CU_ASSERT_EQUAL(d[1].frames[0], 8);
    x.f[0].peer = NULL;
    CU_ASSERT_EQUAL_FATAL(run(&x, d, 4), 2);
    CU_ASSERT_EQUAL(d[1].flow.dqpn, 0x11);
}

/* ce_unanswered: at least ce_unanswered_min unanswered CE marks and none
 * answered. */
static void test_ce_threshold(void)
{
    struct fixture x;
    fx_init(&x);
    struct roce_flow_report *a = flow(&x, 1, 2, 0x10);
    a->ce_marked = a->ce_unanswered = 2;
    CU_ASSERT_EQUAL(run(&x, NULL, 0), 0);
    a->ce_marked = a->ce_unanswered = 3;
    CU_ASSERT_EQUAL(run(&x, NULL, 0), 1);
    a->ce_marked = 4;
    a->ce_answered = 1;
    CU_ASSERT_EQUAL(run(&x, NULL, 0), 0);
    a->ce_answered = 0;
    x.cfg.ce_unanswered_min = 4;
    CU_ASSERT_EQUAL(run(&x, NULL, 0), 0);
}

/* Two findings of one kind and subject (a merged report's two flows of one
 * key) are one: counts add, the lowest frames are kept. */
static void test_join(void)
{
    struct fixture x;
    struct roce_diagnosis d[2];
    fx_init(&x);
    for (unsigned i = 0; i < 2; i++) {
        struct roce_flow_report *a = flow(&x, 1, 2, 0x10);
        a->psn_reuse = 6;
        for (uint64_t k = 0; k < 6; k++)
            roce_evidence_add(&x.ev[i], ROCE_DIAG_PSN_REUSE, 100 * i + 10 + k);
    }
    CU_ASSERT_EQUAL_FATAL(run(&x, d, 2), 1);
    CU_ASSERT_EQUAL(d[0].count, 12);
    CU_ASSERT_EQUAL(d[0].n_frames, 10);
    CU_ASSERT_EQUAL(d[0].frames[0], 10);
    CU_ASSERT_EQUAL(d[0].frames[9], 113);
}

/* ECMP: RoCEv2 request flows of one address pair on one source port, with
 * different dest QPs active at the same time. */
static void test_ecmp(void)
{
    struct fixture x;
    struct roce_diagnosis d[2];
    fx_init(&x);
    for (uint32_t q = 0; q < 3; q++) {
        struct roce_flow_report *a = flow(&x, 1, 2, 0x10 + q);
        a->udp_sports[a->n_udp_sports++] = 0xC100;
        a->first_ts_ns = 100 * q;
        a->last_ts_ns = 100 * q + 150;
        a->first_frame = 9 - q;
    }
    struct roce_flow_report *other = flow(&x, 3, 4, 0x10); /* other hosts, same port */
    other->udp_sports[other->n_udp_sports++] = 0xC100;
    other->last_ts_ns = 1000;
    CU_ASSERT_EQUAL_FATAL(run(&x, d, 2), 1);
    CU_ASSERT_EQUAL(d[0].kind, ROCE_DIAG_ECMP_COLLISION);
    CU_ASSERT_EQUAL(d[0].severity, ROCE_SEV_NOTE);
    CU_ASSERT_EQUAL(d[0].count, 3);
    CU_ASSERT_EQUAL(d[0].udp_sport, 0xC100);
    CU_ASSERT_EQUAL(d[0].n_dest_qps, 3);
    CU_ASSERT_EQUAL(d[0].dest_qps[0], 0x10);
    CU_ASSERT_EQUAL(d[0].dest_qps[2], 0x12);
    CU_ASSERT_EQUAL(d[0].frames[0], 7);
    /* 0x12 no longer overlaps 0x11 (which ended at 250): two QPs */
    x.r[2].first_ts_ns = 251;
    CU_ASSERT_EQUAL_FATAL(run(&x, d, 2), 1);
    CU_ASSERT_EQUAL(d[0].count, 2);
    /* none overlap: no collision */
    x.r[1].first_ts_ns = 151;
    CU_ASSERT_EQUAL(run(&x, d, 2), 0);
}

/* A host NIC's PFC/PAUSE frames; a router's are not a host's. */
static void test_slow_receiver(void)
{
    struct fixture x;
    struct roce_diagnosis d[2];
    fx_init(&x);
    struct roce_host_mac *m = &x.macs[x.n_macs++];
    m->mac[0] = 2;
    m->addresses = 1;
    m->version = 2;
    m->addr[10] = m->addr[11] = 0xFF;
    m->addr[12] = 10;
    m->addr[15] = 7;
    m->checked_frames = 4;
    m->unrouted_frames = 4;
    m->ttl_min = m->ttl_max = 64;
    m->pause_frames = 2;
    m->frames[m->n_frames++] = 11;
    m->frames[m->n_frames++] = 12;
    CU_ASSERT_EQUAL_FATAL(run(&x, d, 2), 1);
    CU_ASSERT_EQUAL(d[0].kind, ROCE_DIAG_SLOW_RECEIVER);
    CU_ASSERT_EQUAL(d[0].count, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(d[0].summary, "host 10.0.0.7 (NIC MAC 02:00:00:00:00:00"));
    m->unrouted_frames = 0; /* every frame routed: a router */
    CU_ASSERT_EQUAL(run(&x, d, 2), 0);
}

/* Every checked ICRC bad: the capture path, not a link. */
static void test_icrc_all_bad(void)
{
    struct fixture x;
    struct roce_diagnosis d[1];
    fx_init(&x);
    flow(&x, 1, 2, 0x10)->bad_icrc = 2;
    x.t.icrc_bad = 2;
    CU_ASSERT_EQUAL_FATAL(run(&x, d, 1), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(d[0].summary, "the capture path probably altered the frames"));
}

/* Evidence keeps the lowest frames, each once. */
static void test_evidence(void)
{
    struct roce_evidence ev, other;
    memset(&ev, 0, sizeof ev);
    memset(&other, 0, sizeof other);
    for (uint64_t f = 20; f > 5; f--)
        roce_evidence_add(&ev, ROCE_DIAG_RNR, f);
    roce_evidence_add(&ev, ROCE_DIAG_RNR, 8);
    roce_evidence_add(&ev, ROCE_DIAG_RNR, 0);
    roce_evidence_add(&ev, ROCE_DIAG_KINDS, 1);
    CU_ASSERT_EQUAL(ev.n[ROCE_DIAG_RNR], 10);
    CU_ASSERT_EQUAL(ev.frame[ROCE_DIAG_RNR][0], 6);
    CU_ASSERT_EQUAL(ev.frame[ROCE_DIAG_RNR][9], 15);
    roce_evidence_add(&other, ROCE_DIAG_RNR, 1);
    roce_evidence_merge(&other, &ev, 100);
    CU_ASSERT_EQUAL(other.frame[ROCE_DIAG_RNR][0], 1);
    CU_ASSERT_EQUAL(other.frame[ROCE_DIAG_RNR][1], 106);
    CU_ASSERT_EQUAL(other.n[ROCE_DIAG_RNR], 10);
}

/* Every kind, severity, basis and verdict has its name. */
static void test_names(void)
{
    for (unsigned k = 0; k < ROCE_DIAG_KINDS; k++)
        CU_ASSERT_STRING_NOT_EQUAL(roce_diag_kind_name(k), "unknown");
    CU_ASSERT_STRING_EQUAL(roce_diag_kind_name(ROCE_DIAG_KINDS), "unknown");
    CU_ASSERT_STRING_EQUAL(roce_diag_kind_name(0), "packet_loss");
    CU_ASSERT_STRING_EQUAL(roce_diag_kind_name(ROCE_DIAG_PSN_REUSE), "psn_reuse");
    CU_ASSERT_STRING_EQUAL(roce_diag_severity_name(ROCE_SEV_ERROR), "error");
    CU_ASSERT_STRING_EQUAL(roce_diag_severity_name(ROCE_SEV_NOTE), "note");
    CU_ASSERT_EQUAL(roce_diag_kind_severity(ROCE_DIAG_ECMP_COLLISION), ROCE_SEV_NOTE);
    CU_ASSERT_EQUAL(roce_diag_kind_severity(ROCE_DIAG_REMOTE_ERROR), ROCE_SEV_ERROR);
    CU_ASSERT_STRING_EQUAL(roce_mac_basis_name(ROCE_MAC_ROUTED), "routed");
    CU_ASSERT_STRING_EQUAL(roce_dcqcn_verdict_name(ROCE_DCQCN_IGNORED), "ignored");
}

/* The engine's address text is inet_ntop's. */
static void test_addr_text(void)
{
    struct tu_rng g;
    tu_rng_seed(&g, 42);
    for (unsigned i = 0; i < 5000; i++) {
        uint8_t a[16];
        char mine[ROCE_ADDR_TEXT_LEN], libc[INET6_ADDRSTRLEN];
        for (unsigned k = 0; k < 16; k++) /* many zero words, to exercise "::" */
            a[k] = tu_rng_below(&g, 3) ? 0 : (uint8_t)tu_rng_next(&g);
        if (i % 7 == 0)
            memcpy(a, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12);
        roce_addr_format(a, 1, mine, sizeof mine);
        inet_ntop(AF_INET6, a, libc, sizeof libc);
        CU_ASSERT_STRING_EQUAL(mine, libc);
        roce_addr_format(a, 0, mine, sizeof mine);
        inet_ntop(AF_INET, a + 12, libc, sizeof libc);
        CU_ASSERT_STRING_EQUAL(mine, libc);
    }
    char small[4];
    CU_ASSERT_EQUAL(roce_addr_format((const uint8_t *)"\0\0\0\0\0\0\0\0\0\0\xff\xff\x0a\0\0\x01", 0,
                                     small, sizeof small),
                    8);
    CU_ASSERT_STRING_EQUAL(small, "10.");
}

static const struct tu_test tests[] = {
    {"order", test_order},
    {"loss_counts", test_loss_counts},
    {"nak_subjects", test_nak_subjects},
    {"ce_threshold", test_ce_threshold},
    {"join", test_join},
    {"ecmp", test_ecmp},
    {"slow_receiver", test_slow_receiver},
    {"icrc_all_bad", test_icrc_all_bad},
    {"evidence", test_evidence},
    {"names", test_names},
    {"addr_text", test_addr_text},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "diag", tests);
}
