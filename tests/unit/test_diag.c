/*
 * test_diag.c - the list of diagnoses (roce_diag*.c) from report data, the
 * evidence lists, and the engine's address text (roce_addr.c).
 *
 * ANALYSIS.md "Diagnoses": each kind has its severity, subject, condition
 * and count; "request flow" is the flow A->B whose requests are concerned
 * (for NAKs the paired request flow, the NAK's own flow when unpaired);
 * frames are the first 10 evidence frames. One finding per kind and cause,
 * its subjects worst first; the capture's finding first, then the findings
 * the capture explains (notes), then severity (error, warning, note), count
 * (descending), first frame. "The capture first": faults of the capture,
 * each from the figures it rests on; no finding rests on a rewritten field.
 * Decisions tested here too: equal subjects join, ECMP collisions need flows
 * active at the same time.
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
    size_t subject_limit;
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

/* The diagnoses of x into l (the previous list freed); how many findings. */
static size_t run(struct fixture *x, struct roce_diag_list *l)
{
    struct roce_diag_input in = {x->f, x->n, x->macs, x->n_macs, &x->t, &x->cfg, x->subject_limit};
    roce_diag_list_free(l);
    CU_ASSERT_EQUAL_FATAL(roce_diagnose(&in, l), 0);
    return l->n;
}

/* The i-th subject of finding k of l. */
static const struct roce_diag_subject *subj(const struct roce_diag_list *l, size_t k, size_t i)
{
    return roce_diag_subject_at(l, &l->d[k], i);
}

/* Severity first, then count (descending), then the first frame. */
static void test_order(void)
{
    struct fixture x;
    struct roce_diag_list l = {0};
    fx_init(&x);
    struct roce_flow_report *a = flow(&x, 1, 2, 0x10);
    a->psn_reuse = 1; /* error */
    roce_evidence_add(&x.ev[0], ROCE_DIAG_PSN_REUSE, 50);
    a->gap_events = 3;
    a->missing_psns = 4;
    a->gap_class_gaps[ROCE_GAP_NETWORK_LOSS] = 3;
    a->gap_class_psns[ROCE_GAP_NETWORK_LOSS] = 4;
    roce_evidence_add(&x.ev[0], ROCE_DIAG_PACKET_LOSS, 40);
    struct roce_flow_report *b = flow(&x, 3, 4, 0x20);
    b->bad_icrc = 1;
    roce_evidence_add(&x.ev[1], ROCE_DIAG_ICRC_ERROR, 90);
    b->by_trigger[ROCE_TRIGGER_TIMEOUT] = 1;
    roce_evidence_add(&x.ev[1], ROCE_DIAG_RETRANSMISSION_TIMEOUT, 30);
    x.t.pfc.prio[3].storm_windows = 1;
    x.t.icrc_good = 5;
    x.t.icrc_bad = 1;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 5);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_PSN_REUSE);   /* error, count 1, frame 50 */
    CU_ASSERT_EQUAL(l.d[1].kind, ROCE_DIAG_ICRC_ERROR);  /* error, count 1, frame 90 */
    CU_ASSERT_EQUAL(l.d[2].kind, ROCE_DIAG_PACKET_LOSS); /* warning, count 3 */
    CU_ASSERT_EQUAL(l.d[2].count, 3);
    CU_ASSERT_EQUAL(l.d[3].kind, ROCE_DIAG_RETRANSMISSION_TIMEOUT); /* warning 1, frame 30 */
    CU_ASSERT_EQUAL(l.d[4].kind, ROCE_DIAG_PFC_STORM);              /* warning 1, no frame */
    CU_ASSERT_EQUAL(subj(&l, 4, 0)->priority, 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.d[1].summary, "corrupted on the way"));
    roce_diag_list_free(&l);
}

/* packet_loss counts the larger of the network-loss gaps and the NAK-driven
 * or implied episodes; capture-loss gaps (confirmed or inferred) are their
 * own finding, a note the capture explains; undetermined gaps, and gaps
 * still open, are no finding at all. */
static void test_loss_counts(void)
{
    struct fixture x;
    struct roce_diag_list l = {0};
    fx_init(&x);
    struct roce_flow_report *a = flow(&x, 1, 2, 0x10);
    a->gap_events = 6;
    a->gap_class_gaps[ROCE_GAP_CAPTURE_LOSS] = 2;
    a->gap_class_psns[ROCE_GAP_CAPTURE_LOSS] = 5;
    a->gap_class_gaps[ROCE_GAP_CAPTURE_INFERRED] = 1;
    a->gap_class_psns[ROCE_GAP_CAPTURE_INFERRED] = 2;
    a->gap_class_gaps[ROCE_GAP_UNDETERMINED] = 2;
    a->gaps_pending = 1;
    a->by_trigger[ROCE_TRIGGER_NAK] = 1;
    a->by_trigger[ROCE_TRIGGER_IMPLIED] = 1;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 2);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_CAPTURE_LOSS); /* the capture's, first */
    CU_ASSERT_EQUAL(l.d[0].severity, ROCE_SEV_NOTE);
    CU_ASSERT_EQUAL(l.d[0].cause, ROCE_CAUSE_CAPTURE);
    CU_ASSERT_EQUAL(l.d[0].count, 3);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->fig.inferred_gaps, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.d[0].summary, "(3 bursts, 7 PSNs; 2 acknowledged by the "
                                                  "responder; 1 sent past by the requester"));
    CU_ASSERT_EQUAL(l.d[1].kind, ROCE_DIAG_PACKET_LOSS);
    CU_ASSERT_EQUAL(l.d[1].count, 2); /* the episodes: no network-loss gap */
    CU_ASSERT_EQUAL(subj(&l, 1, 0)->fig.gaps, 0);
    a->gap_class_gaps[ROCE_GAP_CAPTURE_LOSS] = a->gap_class_gaps[ROCE_GAP_CAPTURE_INFERRED] = 0;
    a->by_trigger[ROCE_TRIGGER_NAK] = a->by_trigger[ROCE_TRIGGER_IMPLIED] = 0;
    CU_ASSERT_EQUAL(run(&x, &l), 0); /* undetermined gaps: never network loss */
    a->gap_class_gaps[ROCE_GAP_NETWORK_LOSS] = 3;
    a->gap_class_psns[ROCE_GAP_NETWORK_LOSS] = 4;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_PACKET_LOSS);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.d[0].summary, "(3 PSN gaps, 4 PSNs missing)"));
    roce_diag_list_free(&l);
}

/* NAKs travel B->A: an RNR or remote error names the paired request flow,
 * or the NAK's own flow while unpaired. */
static void test_nak_subjects(void)
{
    struct fixture x;
    struct roce_diag_list l = {0};
    fx_init(&x);
    struct roce_flow_report *y = flow(&x, 2, 1, 0x11);
    y->naks.rnr = 2;
    y->naks.code[ROCE_NAK_REMOTE_ACCESS_ERROR] = 1;
    key(&x.peer[0], 1, 2, 0x22);
    x.f[0].peer = &x.peer[0];
    roce_evidence_add(&x.ev[0], ROCE_DIAG_RNR, 8);
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 2);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_REMOTE_ERROR);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->flow.dqpn, 0x22);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.d[0].summary, "10.0.0.1 -> 10.0.0.2 QP 0x000022"));
    CU_ASSERT_PTR_NOT_NULL(strstr(l.d[0].summary, "remote access error 1"));
    CU_ASSERT_EQUAL(l.d[1].kind, ROCE_DIAG_RNR);
    CU_ASSERT_EQUAL(l.d[1].count, 2);
    CU_ASSERT_EQUAL(l.d[1].frames[0], 8);
    x.f[0].peer = NULL;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 2);
    CU_ASSERT_EQUAL(subj(&l, 1, 0)->flow.dqpn, 0x11);
    roce_diag_list_free(&l);
}

/* ce_unanswered: a flow with at least ce_unanswered_min unanswered CE marks
 * and none answered; marks left unanswered elsewhere are ce_some_unanswered
 * once they add up to ce_unanswered_min over the flows. */
static void test_ce_threshold(void)
{
    struct fixture x;
    struct roce_diag_list l = {0};
    fx_init(&x);
    struct roce_flow_report *a = flow(&x, 1, 2, 0x10);
    a->ce_marked = a->ce_unanswered = 2;
    CU_ASSERT_EQUAL(run(&x, &l), 0);
    a->ce_marked = a->ce_unanswered = 3;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_CE_UNANSWERED);
    CU_ASSERT_EQUAL(l.d[0].severity, ROCE_SEV_WARNING);
    a->ce_marked = 4;
    a->ce_answered = 1;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1); /* 3 left unanswered while one was answered */
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_CE_SOME_UNANSWERED);
    CU_ASSERT_EQUAL(l.d[0].severity, ROCE_SEV_NOTE);
    CU_ASSERT_EQUAL(l.d[0].count, 3);
    a->ce_unanswered = 1;
    CU_ASSERT_EQUAL(run(&x, &l), 0);
    struct roce_flow_report *b = flow(&x, 3, 4, 0x10), *c = flow(&x, 5, 6, 0x10);
    b->ce_marked = b->ce_unanswered = 1; /* none answered, but one is too few to say so */
    c->ce_marked = 2;
    c->ce_unanswered = 1;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1); /* 1 + 1 + 1 across three flows */
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_CE_SOME_UNANSWERED);
    CU_ASSERT_EQUAL(l.d[0].n_subjects, 3);
    x.cfg.ce_unanswered_min = 4;
    CU_ASSERT_EQUAL(run(&x, &l), 0);
    roce_diag_list_free(&l);
}

/* CNPs with no CE mark: a note once they add up to cnp_unexplained_min. */
static void test_cnp_unexplained(void)
{
    struct fixture x;
    struct roce_diag_list l = {0};
    fx_init(&x);
    struct roce_flow_report *a = flow(&x, 2, 1, 0x10), *b = flow(&x, 4, 3, 0x10);
    a->cnp_packets = 2;
    a->cnps_carried_unexplained = 1;
    b->cnp_packets = b->cnps_carried_unexplained = 1;
    CU_ASSERT_EQUAL(run(&x, &l), 0);
    b->cnp_packets = b->cnps_carried_unexplained = 2;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_CNP_UNEXPLAINED);
    CU_ASSERT_EQUAL(l.d[0].severity, ROCE_SEV_NOTE);
    CU_ASSERT_EQUAL(l.d[0].count, 3);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->flow.dqpn, 0x10); /* worst first: b's 2 */
    char phrase[ROCE_DIAG_PHRASE_LEN];
    roce_diag_subject_phrase(&l, &l.d[0], 0, phrase, sizeof phrase);
    CU_ASSERT_PTR_NOT_NULL(strstr(phrase, "(2 of 2 CNPs)"));
    roce_diag_list_free(&l);
}

/* One cause on many QPs is one finding: every subject kept, worst first, the
 * sentence names the worst ROCE_DIAG_WORST and says how many more. */
static void test_grouped(void)
{
    struct fixture x;
    struct roce_diag_list l = {0};
    fx_init(&x);
    for (uint8_t i = 0; i < 5; i++) {
        struct roce_flow_report *a = flow(&x, (uint8_t)(1 + 2 * i), (uint8_t)(2 + 2 * i), 0x10);
        a->gap_class_gaps[ROCE_GAP_NETWORK_LOSS] = 1u + i % 3;
        a->gap_class_psns[ROCE_GAP_NETWORK_LOSS] = 2u + i;
        roce_evidence_add(&x.ev[i], ROCE_DIAG_PACKET_LOSS, 100 - i);
    }
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    const struct roce_diagnosis *d = &l.d[0];
    CU_ASSERT_EQUAL(d->n_subjects, 5);
    CU_ASSERT_EQUAL(d->count, 1 + 2 + 3 + 1 + 2);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->count, 3); /* flow 3 (i = 2) */
    CU_ASSERT_EQUAL(subj(&l, 0, 1)->count, 2); /* i = 4 (frame 96) before i = 1 (99) */
    CU_ASSERT_EQUAL(subj(&l, 0, 1)->frames[0], 96);
    CU_ASSERT_EQUAL(subj(&l, 0, 2)->frames[0], 99);
    CU_ASSERT_EQUAL(d->n_frames, 5);
    CU_ASSERT_EQUAL(d->frames[0], 96);
    CU_ASSERT_PTR_NOT_NULL(strstr(d->summary, "5 QPs lost packets in the network, worst first: "
                                              "10.0.0.5 -> 10.0.0.6 QP 0x000010 (3 PSN gaps"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d->summary, ", and 2 more: check"));
    /* one subject's sentence, as its evidence frames show it: that QP alone */
    char one[sizeof d->summary];
    roce_diag_subject_sentence(&l, d, 1, one, sizeof one);
    CU_ASSERT_STRING_EQUAL(one, "10.0.0.9 -> 10.0.0.10 QP 0x000010 lost packets in the network "
                                "(2 PSN gaps, 6 PSNs missing): check the drop and error counters "
                                "of the switch ports on the path");
    roce_diag_list_free(&l);
}

/* A bound on the subjects (the live monitor's large tables): each finding
 * lists its worst subject_limit subjects, the ones listed without a bound,
 * whatever order the flows come in, and counts the others; its count, its
 * frames and its sentence are those of every subject. A finding of few
 * subjects each below its threshold still adds them all up. */
static void test_bound(void)
{
    struct fixture x;
    struct roce_diag_list whole = {0}, l = {0};
    fx_init(&x);
    for (uint8_t i = 0; i < MAXF; i++) {
        struct roce_flow_report *a = flow(&x, (uint8_t)(1 + 2 * i), (uint8_t)(2 + 2 * i), 0x10);
        a->gap_class_gaps[ROCE_GAP_NETWORK_LOSS] = 1u + (i * 5u) % 7u; /* 1 6 4 2 7 5 3 1 */
        a->gap_class_psns[ROCE_GAP_NETWORK_LOSS] = a->gap_class_gaps[ROCE_GAP_NETWORK_LOSS];
        roce_evidence_add(&x.ev[i], ROCE_DIAG_PACKET_LOSS, 200u - 10u * i);
    }
    CU_ASSERT_EQUAL_FATAL(run(&x, &whole), 1);
    CU_ASSERT_EQUAL_FATAL(whole.d[0].n_subjects, MAXF);
    CU_ASSERT_EQUAL(whole.d[0].n_unlisted, 0);
    for (int reversed = 0; reversed < 2; reversed++) {
        if (reversed) /* the flows in the other order: the same worst three */
            for (size_t i = 0; i < MAXF / 2; i++) {
                struct roce_diag_flow t = x.f[i];
                x.f[i] = x.f[MAXF - 1 - i];
                x.f[MAXF - 1 - i] = t;
            }
        x.subject_limit = 3;
        CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
        const struct roce_diagnosis *d = &l.d[0], *w = &whole.d[0];
        CU_ASSERT_EQUAL(d->n_subjects, 3);
        CU_ASSERT_EQUAL(d->n_unlisted, MAXF - 3);
        CU_ASSERT_EQUAL(roce_diag_subjects(d), MAXF);
        CU_ASSERT_EQUAL(d->count, w->count);
        CU_ASSERT_EQUAL(d->count, 1 + 6 + 4 + 2 + 7 + 5 + 3 + 1);
        CU_ASSERT_EQUAL(d->n_frames, w->n_frames);
        CU_ASSERT_EQUAL(memcmp(d->frames, w->frames, sizeof d->frames), 0);
        CU_ASSERT_EQUAL(subj(&l, 0, 0)->count, 7);
        CU_ASSERT_EQUAL(subj(&l, 0, 2)->count, 5);
        for (size_t i = 0; i < 3; i++)
            CU_ASSERT_EQUAL(memcmp(subj(&l, 0, i), subj(&whole, 0, i), sizeof *subj(&l, 0, i)), 0);
        CU_ASSERT_STRING_EQUAL(d->summary, w->summary); /* "8 QPs ..., and 5 more" */
        CU_ASSERT_PTR_NOT_NULL(strstr(d->summary, "8 QPs lost packets"));
    }
    /* CNPs without a CE mark: 1 + 1 + 1 reach cnp_unexplained_min (3) with one listed */
    fx_init(&x);
    for (uint8_t i = 0; i < 3; i++) {
        struct roce_flow_report *a = flow(&x, (uint8_t)(2 + 2 * i), (uint8_t)(1 + 2 * i), 0x10);
        a->cnp_packets = a->cnps_carried_unexplained = 1;
    }
    x.subject_limit = 1;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_CNP_UNEXPLAINED);
    CU_ASSERT_EQUAL(l.d[0].count, 3);
    CU_ASSERT_EQUAL(l.d[0].n_subjects, 1);
    CU_ASSERT_EQUAL(l.d[0].n_unlisted, 2);
    roce_diag_list_free(&whole);
    roce_diag_list_free(&l);
}

/* Two findings of one kind and subject (a merged report's two flows of one
 * key) are one: counts add, the lowest frames are kept. */
static void test_join(void)
{
    struct fixture x;
    struct roce_diag_list l = {0};
    fx_init(&x);
    for (unsigned i = 0; i < 2; i++) {
        struct roce_flow_report *a = flow(&x, 1, 2, 0x10);
        a->psn_reuse = 6;
        for (uint64_t k = 0; k < 6; k++)
            roce_evidence_add(&x.ev[i], ROCE_DIAG_PSN_REUSE, 100 * i + 10 + k);
    }
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].count, 12);
    CU_ASSERT_EQUAL(l.d[0].n_subjects, 1);
    CU_ASSERT_EQUAL(l.d[0].n_frames, 10);
    CU_ASSERT_EQUAL(l.d[0].frames[0], 10);
    CU_ASSERT_EQUAL(l.d[0].frames[9], 113);
    roce_diag_list_free(&l);
}

/* ECMP: RoCEv2 request flows of one address pair on one source port, with
 * different dest QPs active at the same time. */
static void test_ecmp(void)
{
    struct fixture x;
    struct roce_diag_list l = {0};
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
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    const struct roce_diag_subject *s = subj(&l, 0, 0);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_ECMP_COLLISION);
    CU_ASSERT_EQUAL(l.d[0].severity, ROCE_SEV_NOTE);
    CU_ASSERT_EQUAL(l.d[0].count, 3);
    CU_ASSERT_EQUAL(s->udp_sport, 0xC100);
    CU_ASSERT_EQUAL(s->n_dest_qps, 3);
    CU_ASSERT_EQUAL(s->dest_qps[0], 0x10);
    CU_ASSERT_EQUAL(s->dest_qps[2], 0x12);
    CU_ASSERT_EQUAL(s->frames[0], 7);
    /* the source port shown rewritten by the capture path: nothing rests on it */
    x.t.icrc_bad = 3;
    x.t.icrc_rewritten[ROCE_REWRITE_UDP_SPORT] = 3;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_CAPTURE);
    x.t.icrc_bad = x.t.icrc_rewritten[ROCE_REWRITE_UDP_SPORT] = 0;
    /* 0x12 no longer overlaps 0x11 (which ended at 250): two QPs */
    x.r[2].first_ts_ns = 251;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].count, 2);
    /* none overlap: no collision */
    x.r[1].first_ts_ns = 151;
    CU_ASSERT_EQUAL(run(&x, &l), 0);
    roce_diag_list_free(&l);
}

/* A host NIC's PFC/PAUSE frames; a router's are not a host's. */
static void test_slow_receiver(void)
{
    struct fixture x;
    struct roce_diag_list l = {0};
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
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_SLOW_RECEIVER);
    CU_ASSERT_EQUAL(l.d[0].count, 2);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(l.d[0].summary,
               "host 10.0.0.7 sent PFC/PAUSE frames (2 frames; NIC MAC 02:00:00:00:00:00"));
    m->unrouted_frames = 0; /* every frame routed: a router */
    CU_ASSERT_EQUAL(run(&x, &l), 0);
    roce_diag_list_free(&l);
}

/* A priority paused a large share of the capture without a storm window:
 * at least paused_pct of it and 1 ms. */
static void test_pfc_paused(void)
{
    struct fixture x;
    struct roce_diag_list l = {0};
    fx_init(&x);
    x.t.first_ts_ns = 0;
    x.t.last_ts_ns = 10 * ROCE_NS_PER_MS;
    x.t.pfc.prio[3].xoff = 4;
    x.t.pfc.prio[3].paused_ns = ROCE_NS_PER_MS; /* 10 % */
    CU_ASSERT_EQUAL(run(&x, &l), 0);
    x.t.pfc.prio[3].paused_ns = 2 * ROCE_NS_PER_MS; /* 20 % */
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_PFC_PAUSED);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->priority, 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.d[0].summary, "(20.0 % of 10.000 ms, 4 XOFF frames)"));
    x.t.last_ts_ns = ROCE_NS_PER_MS / 2; /* a short capture: under 1 ms paused */
    x.t.pfc.prio[3].paused_ns = ROCE_NS_PER_MS / 2;
    CU_ASSERT_EQUAL(run(&x, &l), 0);
    x.t.pfc.prio[3].storm_windows = 1; /* a storm is pfc_storm */
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_PFC_STORM);
    roce_diag_list_free(&l);
}

/* RoCE data on a priority that no PFC frame paused while another was
 * paused: a warning per priority (CM's QP 1 and link PAUSE aside); its
 * evidence is the frame the priority was read from and the first XOFF. */
static void test_lossy_priority(void)
{
    struct fixture x;
    struct roce_diag_list l = {0};
    fx_init(&x);
    struct roce_flow_report *a = flow(&x, 1, 2, 0x10); /* priority 3: paused */
    a->request_packets = 5;
    a->priority = 3;
    a->priority_frame = 1;
    struct roce_flow_report *b = flow(&x, 3, 4, 0x20); /* priority 0: never paused */
    b->request_packets = 4;
    b->priority = 0;
    b->priority_frame = 5;
    struct roce_flow_report *cm = flow(&x, 3, 4, ROCE_QPN_GSI); /* CM: left out */
    cm->request_packets = 2;
    cm->priority_frame = 2;
    CU_ASSERT_EQUAL(run(&x, &l), 0); /* no PFC at all: nothing to compare with */
    x.t.pfc.prio[3].xoff = 2;
    x.t.xoff_frames.frame[3][0] = 9;
    x.t.xoff_frames.n[3] = 1;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_LOSSY_PRIORITY);
    CU_ASSERT_EQUAL(l.d[0].severity, ROCE_SEV_WARNING);
    CU_ASSERT_EQUAL(l.d[0].count, 4);
    CU_ASSERT_EQUAL_FATAL(l.d[0].n_subjects, 1);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->priority, 0);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->fig.paused_priority, 3);
    CU_ASSERT_EQUAL_FATAL(l.d[0].n_frames, 2);
    CU_ASSERT_EQUAL(l.d[0].frames[0], 5);
    CU_ASSERT_EQUAL(l.d[0].frames[1], 9);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.d[0].summary, "priority 0 carries RoCE data but no PFC frame "
                                                  "paused it, while another priority was paused "
                                                  "(4 requests of 1 flow; priority 3 paused)"));
    struct roce_flow_report *c = flow(&x, 5, 6, 0x30); /* a second flow on priority 0 joins */
    c->request_packets = 1;
    c->priority_frame = 7;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].count, 5);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->fig.flows, 2);
    x.subject_limit = 1; /* a priority found once per flow still joins under a bound */
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].n_subjects, 1);
    CU_ASSERT_EQUAL(l.d[0].n_unlisted, 0);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->fig.flows, 2);
    x.subject_limit = 0;
    x.t.pfc.pause.xoff = 1; /* a link PAUSE stops every priority */
    CU_ASSERT_EQUAL(run(&x, &l), 0);
    x.t.pfc.pause.xoff = 0;
    x.t.pfc.prio[0].xoff = 1; /* priority 0 paused too */
    CU_ASSERT_EQUAL(run(&x, &l), 0);
    roce_diag_list_free(&l);
}

/* CNPs on a lower priority than the data of the request flow they belong
 * to (the flow that carries them is paired with it). */
static void test_cnp_priority(void)
{
    struct fixture x;
    struct roce_diag_list l = {0};
    fx_init(&x);
    struct roce_flow_report *a = flow(&x, 1, 2, 0x10);
    a->request_packets = 6;
    a->priority = 3;
    a->priority_frame = 1;
    struct roce_flow_report *b = flow(&x, 2, 1, 0x11);
    b->response_packets = 2;
    b->cnp_packets = 2;
    b->priority = 3;
    b->priority_frame = 4;
    b->cnp_priority = 6;
    b->cnp_priority_frame = 5;
    x.f[1].peer = &a->key;
    x.f[0].peer = &b->key;
    CU_ASSERT_EQUAL(run(&x, &l), 0); /* CNPs on 6, data on 3 */
    b->cnp_priority = 3;
    CU_ASSERT_EQUAL(run(&x, &l), 0); /* the same priority */
    b->cnp_priority = 0;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_CNP_PRIORITY);
    CU_ASSERT_EQUAL(l.d[0].count, 2);
    CU_ASSERT(memcmp(&subj(&l, 0, 0)->flow, &a->key, sizeof a->key) == 0);
    CU_ASSERT_EQUAL_FATAL(l.d[0].n_frames, 2);
    CU_ASSERT_EQUAL(l.d[0].frames[0], 1);
    CU_ASSERT_EQUAL(l.d[0].frames[1], 5);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.d[0].summary, "(2 CNPs on priority 0, data on priority 3)"));
    x.f[1].peer = NULL; /* unpaired: the data they throttle is not known */
    CU_ASSERT_EQUAL(run(&x, &l), 0);
    roce_diag_list_free(&l);
}

/* A flow blocked behind a host NIC's pause for another host: a warning on
 * the flow, its count the stalls, its figures the stall time and its life;
 * stalls that were not innocent raise nothing. */
static void test_pause_victim(void)
{
    struct fixture x;
    struct roce_diag_list l = {0};
    fx_init(&x);
    struct roce_flow_report *a = flow(&x, 1, 3, 0x10);
    a->request_packets = 10;
    a->first_ts_ns = 0;
    a->last_ts_ns = 44000;
    a->pause_stalls = 2;
    a->pause_stall_ns = 50000;
    CU_ASSERT_EQUAL(run(&x, &l), 0); /* stalled, but not for another host */
    a->hol_stalls = 1;
    a->hol_stall_ns = 40000;
    roce_evidence_add(&x.ev[0], ROCE_DIAG_PAUSE_VICTIM, 8);
    roce_evidence_add(&x.ev[0], ROCE_DIAG_PAUSE_VICTIM, 13);
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_PAUSE_VICTIM);
    CU_ASSERT_EQUAL(l.d[0].severity, ROCE_SEV_WARNING);
    CU_ASSERT_EQUAL(l.d[0].count, 1);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->fig.stall_ns, 40000);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->fig.pause_stalls, 2);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->fig.span_ns, 44000);
    CU_ASSERT_EQUAL_FATAL(l.d[0].n_frames, 2);
    CU_ASSERT_EQUAL(l.d[0].frames[1], 13);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.d[0].summary, "(1 stall, 40.000 us, 90.9 % of its life)"));
    roce_diag_list_free(&l);
}

/* A responder that answered every CE mark (at least ce_unanswered_min) with
 * a CNP of its own, two of them closer than cnp_pacing_ns: a note on the
 * request flow; CNPs paced at the interval, or marks left to one CNP, are
 * none. */
static void test_cnp_unpaced(void)
{
    struct fixture x;
    struct roce_diag_list l = {0};
    fx_init(&x);
    struct roce_flow_report *a = flow(&x, 1, 2, 0x10);
    a->request_packets = 6;
    a->ce_marked = 3;
    a->cnps_matched = 3;
    struct roce_flow_report *b = flow(&x, 2, 1, 0x11);
    b->cnp_packets = 3;
    b->cnp_gaps = 2;
    b->cnp_min_gap_ns = 4000; /* at the interval: paced */
    x.f[1].peer = &a->key;
    x.f[0].peer = &b->key;
    roce_evidence_add(&x.ev[1], ROCE_DIAG_CNP_UNPACED, 4);
    roce_evidence_add(&x.ev[1], ROCE_DIAG_CNP_UNPACED, 6);
    CU_ASSERT_EQUAL(run(&x, &l), 0);
    b->cnp_min_gap_ns = 2000;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_CNP_UNPACED);
    CU_ASSERT_EQUAL(l.d[0].severity, ROCE_SEV_NOTE);
    CU_ASSERT_EQUAL(l.d[0].count, 3);
    CU_ASSERT(memcmp(&subj(&l, 0, 0)->flow, &a->key, sizeof a->key) == 0);
    CU_ASSERT_EQUAL_FATAL(l.d[0].n_frames, 2);
    CU_ASSERT_EQUAL(l.d[0].frames[0], 4);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.d[0].summary, "(3 CNPs for 3 marks, as close as 2.000 us)"));
    a->cnps_matched = 2; /* a mark answered by another's CNP: paced */
    CU_ASSERT_EQUAL(run(&x, &l), 0);
    a->cnps_matched = 3;
    a->ce_marked = a->cnps_matched = 2; /* fewer marks than --ce-unanswered */
    CU_ASSERT_EQUAL(run(&x, &l), 0);
    roce_diag_list_free(&l);
}

/* CNPs that arrived CE marked: a warning on the flow that carried them,
 * its count the marked CNPs, its evidence those CNPs; unmarked CNPs raise
 * nothing. */
static void test_cnp_congested(void)
{
    struct fixture x;
    struct roce_diag_list l = {0};
    fx_init(&x);
    struct roce_flow_report *b = flow(&x, 2, 1, 0x11);
    b->cnp_packets = 4;
    CU_ASSERT_EQUAL(run(&x, &l), 0); /* CNPs, none marked */
    b->cnps_ce_marked = 2;
    roce_evidence_add(&x.ev[0], ROCE_DIAG_CNP_CONGESTED, 7);
    roce_evidence_add(&x.ev[0], ROCE_DIAG_CNP_CONGESTED, 9);
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_CNP_CONGESTED);
    CU_ASSERT_EQUAL(l.d[0].severity, ROCE_SEV_WARNING);
    CU_ASSERT_EQUAL(l.d[0].count, 2);
    CU_ASSERT(memcmp(&subj(&l, 0, 0)->flow, &b->key, sizeof b->key) == 0);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->fig.cnps, 4);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->fig.ce_marked, 2);
    CU_ASSERT_EQUAL_FATAL(l.d[0].n_frames, 2);
    CU_ASSERT_EQUAL(l.d[0].frames[0], 7);
    CU_ASSERT_EQUAL(l.d[0].frames[1], 9);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(l.d[0].summary, "arrived congestion marked (2 of 4 CNPs marked)"));
    roce_diag_list_free(&l);
}

/* Every checked ICRC bad and no rewritten field explains them: the capture
 * path, not a link (a note the capture explains); bad ICRCs a rewritten
 * field explains are no icrc_error at all. */
static void test_icrc_all_bad(void)
{
    struct fixture x;
    struct roce_diag_list l = {0};
    fx_init(&x);
    struct roce_flow_report *a = flow(&x, 1, 2, 0x10);
    a->bad_icrc = 2;
    x.t.icrc_bad = 2;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].cause, ROCE_CAUSE_CAPTURE);
    CU_ASSERT_EQUAL(l.d[0].severity, ROCE_SEV_NOTE);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.d[0].summary, "the capture path probably altered the frames"));
    a->bad_icrc_rewritten = 2;
    x.t.icrc_rewritten[ROCE_REWRITE_UDP_SPORT] = 2;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_CAPTURE);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->fault, ROCE_FAULT_REWRITE);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->field, ROCE_REWRITE_UDP_SPORT);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.d[0].summary, "the UDP source port was rewritten on the way: "
                                                  "recomputing the ICRC with the value sent "
                                                  "validates 2 of 2 bad ICRCs"));
    x.t.icrc_good = 5; /* another bad ICRC, not explained, among good ones: corruption */
    x.t.icrc_bad = 3;
    a->bad_icrc = 3;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 2);
    CU_ASSERT_EQUAL(l.d[1].kind, ROCE_DIAG_ICRC_ERROR);
    CU_ASSERT_EQUAL(l.d[1].severity, ROCE_SEV_ERROR);
    CU_ASSERT_EQUAL(l.d[1].count, 1);
    roce_diag_list_free(&l);
}

/* The capture judged first, fault by fault, from the figures it rests on. */
static void test_capture_faults(void)
{
    struct fixture x;
    struct roce_diag_list l = {0};
    fx_init(&x);
    struct roce_flow_report *a = flow(&x, 1, 2, 0x10);
    a->transport = ROCE_TRANSPORT_RC;
    a->have_psn = 1;
    a->request_packets = 99;
    a->gap_class_gaps[ROCE_GAP_CAPTURE_LOSS] = 1;
    a->gap_class_psns[ROCE_GAP_CAPTURE_LOSS] = 1; /* 99 of 100 kept: no fault */
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_CAPTURE_LOSS);
    a->gap_class_psns[ROCE_GAP_CAPTURE_LOSS] = 2; /* 99 of 101 */
    a->gap_class_gaps[ROCE_GAP_UNDETERMINED] = 4;
    x.t.capture_frames.frame[ROCE_FAULT_LOSS][0] = 7;
    x.t.capture_frames.n[ROCE_FAULT_LOSS] = 1;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 2);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_CAPTURE);
    CU_ASSERT_EQUAL(l.d[0].frames[0], 7);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->fig.psns_kept, 99);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->fig.psns_expected, 101);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.d[0].summary, "it kept 98.0 % of the request PSNs (1 gap the "
                                                  "capture missed, on 1 QP; 4 more gaps "
                                                  "undetermined)"));
    CU_ASSERT_EQUAL(l.d[1].kind, ROCE_DIAG_CAPTURE_LOSS); /* right after it */
    /* truncation hidden by the original length */
    memset(a->gap_class_gaps, 0, sizeof a->gap_class_gaps);
    x.t.understated_packets = 489;
    x.t.understated_caplen_min = x.t.understated_caplen_max = 243;
    x.t.understated_declared_min = 4140;
    x.t.understated_declared_max = 4156;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->fault, ROCE_FAULT_TRUNCATION);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.d[0].summary, "489 frames captured at 243 bytes although their "
                                                  "IP/UDP lengths make them 4140-4156 bytes"));
    x.t.understated_packets = 0;
    /* time stamps: 1 us steps matter only where a latency falls under one */
    x.t.roce_packets = 100;
    x.t.ts_steps[ROCE_TS_US] = 100;
    x.t.ts_repeated = 35;
    x.t.ack_latency.count = 10;
    x.t.ack_latency.min = 2000;
    CU_ASSERT_EQUAL(run(&x, &l), 0);
    x.t.ack_latency.min = 0;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->fault, ROCE_FAULT_TIMESTAMPS);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.d[0].summary, "time stamps in 1 us steps: latencies shorter "
                                                  "than a step are not measured"));
    CU_ASSERT_PTR_NOT_NULL(strstr(l.d[0].summary, "35.0 % of the RoCE frames"));
    x.t.ts_steps[ROCE_TS_FINE] = 1; /* finer stamps: fine */
    CU_ASSERT_EQUAL(run(&x, &l), 0);
    /* responses before their requests */
    x.t.responses_early = 2;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->fault, ROCE_FAULT_CLOCK);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.d[0].summary, "2 responses captured before the requests they "
                                                  "acknowledge"));
    x.t.responses_early = 0;
    /* every RoCEv2 frame on the RoCE port as source port, no ICRC to show it */
    x.t.rocev2_packets = x.t.sport_is_dport = 40;
    x.t.icrc_unchecked = 40;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->field, ROCE_REWRITE_UDP_SPORT);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->udp_sport, 4791);
    x.t.icrc_good = 1; /* one good ICRC with it: sent so */
    CU_ASSERT_EQUAL(run(&x, &l), 0);
    roce_diag_list_free(&l);
}

/* A connection whose two ends use different RoCE versions: one finding,
 * named from its request flow. */
static void test_gid_type_mismatch(void)
{
    struct fixture x;
    struct roce_diag_list l = {0};
    fx_init(&x);
    struct roce_flow_report *a = flow(&x, 1, 2, 0x10), *b = flow(&x, 2, 1, 0x20);
    a->key.version = 1;
    a->key.af = ROCE_AF_IPV6;
    a->request_packets = 5;
    b->response_packets = 5;
    x.f[0].peer = &x.r[1].key;
    x.f[1].peer = &x.r[0].key;
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].kind, ROCE_DIAG_GID_TYPE_MISMATCH);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->flow.dqpn, 0x10);
    CU_ASSERT_EQUAL(subj(&l, 0, 0)->peer.dqpn, 0x20);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.d[0].summary, "requests RoCEv1 from ::ffff:10.0.0.1, responses "
                                                  "RoCEv2 from 10.0.0.2"));
    b->request_packets = 3; /* both ends send requests: still one subject */
    CU_ASSERT_EQUAL_FATAL(run(&x, &l), 1);
    CU_ASSERT_EQUAL(l.d[0].n_subjects, 1);
    b->key.version = 1;
    CU_ASSERT_EQUAL(run(&x, &l), 0);
    roce_diag_list_free(&l);
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

/* Every kind has its row: a name, a severity, a title, a unit; every
 * severity, cause, fault, basis and verdict its name. */
static void test_names(void)
{
    for (unsigned k = 0; k < ROCE_DIAG_KINDS; k++) {
        const struct roce_diag_kind_info *r = roce_diag_kind(k);
        CU_ASSERT_STRING_NOT_EQUAL(r->name, "unknown");
        CU_ASSERT_PTR_NOT_NULL(r->title);
        CU_ASSERT_PTR_NOT_NULL(r->unit);
        CU_ASSERT(r->severity <= ROCE_SEV_NOTE);
        for (unsigned j = 0; j < k; j++)
            CU_ASSERT_STRING_NOT_EQUAL(r->name, roce_diag_kind_name(j));
    }
    CU_ASSERT_STRING_EQUAL(roce_diag_kind_name(ROCE_DIAG_KINDS), "unknown");
    CU_ASSERT_STRING_EQUAL(roce_diag_kind_name(0), "capture");
    CU_ASSERT_STRING_EQUAL(roce_diag_kind_name(ROCE_DIAG_PACKET_LOSS), "packet_loss");
    for (unsigned f = 0; f < ROCE_FAULTS; f++)
        CU_ASSERT_STRING_NOT_EQUAL(roce_capture_fault_name(f), "unknown");
    CU_ASSERT_STRING_EQUAL(roce_diag_cause_name(ROCE_CAUSE_CAPTURE), "capture");
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
        /* cut as snprintf cuts: the first size - 1 characters, the whole
         * length returned */
        for (int af = 0; af < 2 && i % 50 == 0; af++) {
            size_t whole = roce_addr_format(a, af, mine, sizeof mine);
            for (size_t size = 1; size <= whole + 1; size++) {
                char cut[ROCE_ADDR_TEXT_LEN];
                CU_ASSERT_EQUAL(roce_addr_format(a, af, cut, size), whole);
                CU_ASSERT(strlen(cut) == size - 1 && memcmp(cut, mine, size - 1) == 0);
            }
        }
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
    {"cnp_unexplained", test_cnp_unexplained},
    {"grouped", test_grouped},
    {"join", test_join},
    {"bound", test_bound},
    {"ecmp", test_ecmp},
    {"slow_receiver", test_slow_receiver},
    {"pfc_paused", test_pfc_paused},
    {"lossy_priority", test_lossy_priority},
    {"cnp_priority", test_cnp_priority},
    {"pause_victim", test_pause_victim},
    {"cnp_unpaced", test_cnp_unpaced},
    {"cnp_congested", test_cnp_congested},
    {"icrc_all_bad", test_icrc_all_bad},
    {"capture_faults", test_capture_faults},
    {"gid_type_mismatch", test_gid_type_mismatch},
    {"evidence", test_evidence},
    {"names", test_names},
    {"addr_text", test_addr_text},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "diag", tests);
}
