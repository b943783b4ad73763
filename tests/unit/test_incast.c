/*
 * test_incast.c - incast (roce_incast.c, ANALYSIS.md "Incast"): the
 * fan-in threshold, the window's edges, the evidence that flags an
 * episode, the finding, and the merge of two reports' receivers.
 *
 * Senders 10.0.1.1.. send RC SENDs to the receiver 10.0.1.100, one
 * connection each; times are set per frame.
 */
#include <string.h>

#include "roce_diag.h"
#include "roce_engine.h"
#include "roce_incast.h"
#include "rocegen_encap.h"
#include "test_harness.h"
#include "test_util.h"

#define RX        0x0A000164u /* 10.0.1.100 */
#define SENDER(i) (0x0A000101u + (i))
#define MAX_S     8u
#define US        1000      /* ns */
#define WINDOW    (10 * US) /* the default --incast-window */

struct run {
    struct tu_eng t;
    struct tu_conn c[MAX_S];
};

static void run_init(struct run *r, const struct tu_opts *o)
{
    tu_eng_init(&r->t, o);
    for (unsigned i = 0; i < MAX_S; i++)
        tu_conn_init(&r->c[i], SENDER(i), RX, 0x000100 + i, 0x000200 + i);
}

/* Sender i's request PSN psn at t ns after the start, CE marked or not. */
static uint64_t send_at(struct run *r, unsigned i, uint32_t psn, int64_t t, int ce)
{
    r->t.now = TU_T0_NS + t;
    return ce ? tu_send_ce(&r->t, &r->c[i], psn) : tu_send(&r->t, &r->c[i], psn);
}

/* The receiver's record (NULL when it has none). */
static const struct roce_incast_receiver *record(struct run *r)
{
    const struct roce_totals *t = tu_totals(&r->t);
    for (unsigned i = 0; i < t->incast.n; i++)
        if (t->incast.r[i].addr[15] == (RX & 0xFF))
            return &t->incast.r[i];
    return NULL;
}

/* The incast finding's subject (count, figures), or 0 when there is none. */
static int finding(struct run *r, struct roce_diag_subject *out)
{
    struct roce_diag_list l;
    int found = 0;
    CU_ASSERT_FATAL(roce_engine_diagnoses(r->t.e, 0, &l) == 0);
    for (size_t i = 0; i < l.n; i++)
        if (l.d[i].kind == ROCE_DIAG_INCAST) {
            CU_ASSERT_EQUAL(l.d[i].n_subjects, 1);
            *out = *roce_diag_subject_at(&l, &l.d[i], 0);
            found = 1;
        }
    roce_diag_list_free(&l);
    return found;
}

/* n senders 1 us apart, then the same n again, CE marked when ce. */
static void two_rounds(struct run *r, unsigned n, int ce)
{
    for (unsigned i = 0; i < n; i++)
        send_at(r, i, 1, (int64_t)i * US, 0);
    for (unsigned i = 0; i < n; i++)
        send_at(r, i, 2, (int64_t)(n + i) * US, ce);
}

/* Three senders with CE marks: below the threshold of 4, no record, no
 * finding; four: an episode, flagged, and the finding with its figures. */
static void test_threshold(void)
{
    struct run r;
    struct roce_diag_subject s;
    run_init(&r, NULL);
    two_rounds(&r, 3, 1);
    CU_ASSERT_PTR_NULL(record(&r));
    CU_ASSERT_FALSE(finding(&r, &s));
    tu_eng_done(&r.t);

    run_init(&r, NULL);
    two_rounds(&r, 4, 1); /* frames 1-4 @0-3 us, 5-8 @4-7 us CE */
    const struct roce_incast_receiver *x = record(&r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_EQUAL(x->episodes, 1);
    CU_ASSERT_EQUAL(x->flagged, 1);
    CU_ASSERT_EQUAL(x->ce_marked, 4);
    CU_ASSERT_EQUAL(x->worst.fanin, 4);
    CU_ASSERT_EQUAL(x->worst.senders, 4);
    CU_ASSERT_EQUAL(x->worst.start_ns, TU_T0_NS + 3 * US); /* the 4th sender's first request */
    CU_ASSERT_EQUAL(x->worst.end_ns, TU_T0_NS + 7 * US);
    CU_ASSERT_TRUE_FATAL(finding(&r, &s));
    CU_ASSERT_EQUAL(s.count, 1);
    CU_ASSERT_EQUAL(s.fig.fanin, 4);
    CU_ASSERT_EQUAL(s.n_senders, 4);
    CU_ASSERT_EQUAL(s.fig.link_speed_mbps, 100000);
    CU_ASSERT(s.fig.rate_mbps > 0);
    /* the first request of each sender, then the CE marks */
    CU_ASSERT_EQUAL(s.n_frames, 8);
    CU_ASSERT_EQUAL(s.frames[0], 1);
    CU_ASSERT_EQUAL(s.frames[7], 8);
    tu_eng_done(&r.t);

    /* --incast-senders 5: the same traffic is no incast */
    run_init(&r, &(struct tu_opts){.incast_senders = 5});
    two_rounds(&r, 4, 1);
    CU_ASSERT_PTR_NULL(record(&r));
    CU_ASSERT_FALSE(finding(&r, &s));
    tu_eng_done(&r.t);
}

/* Eight senders at once, no CE, pause or loss: listed, never a finding. */
static void test_no_evidence(void)
{
    struct run r;
    struct roce_diag_subject s;
    run_init(&r, NULL);
    two_rounds(&r, MAX_S, 0);
    const struct roce_incast_receiver *x = record(&r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_EQUAL(x->worst.fanin, 8);
    CU_ASSERT_EQUAL(x->flagged, 0);
    CU_ASSERT_EQUAL(x->worst.n_frames, 0);
    CU_ASSERT_FALSE(finding(&r, &s));
    tu_eng_done(&r.t);
}

/* A sender counts while its latest request is at most the window old:
 * exactly the window, yes; one nanosecond more, no. */
static void test_window_edges(void)
{
    struct run r;
    run_init(&r, NULL);
    send_at(&r, 0, 1, 0, 0);
    send_at(&r, 1, 1, 1 * US, 0);
    send_at(&r, 2, 1, 2 * US, 0);
    send_at(&r, 3, 1, WINDOW, 0); /* sender 0 exactly the window before: 4 at once */
    CU_ASSERT_PTR_NOT_NULL(record(&r));
    tu_eng_done(&r.t);

    run_init(&r, NULL);
    send_at(&r, 0, 1, 0, 0);
    send_at(&r, 1, 1, 1 * US, 0);
    send_at(&r, 2, 1, 2 * US, 0);
    send_at(&r, 3, 1, WINDOW + 1, 0); /* sender 0 1 ns too old: 3 at once */
    CU_ASSERT_PTR_NULL(record(&r));
    tu_eng_done(&r.t);

    /* --incast-window 20 us: the second case is 4 at once */
    run_init(&r, &(struct tu_opts){.incast_window_ns = 2 * WINDOW});
    send_at(&r, 0, 1, 0, 0);
    send_at(&r, 1, 1, 1 * US, 0);
    send_at(&r, 2, 1, 2 * US, 0);
    send_at(&r, 3, 1, WINDOW + 1, 0);
    CU_ASSERT_PTR_NOT_NULL(record(&r));
    tu_eng_done(&r.t);
}

/* A CE mark before the fan-in reached the threshold, or after the episode
 * ended, flags nothing; a new episode counts again. */
static void test_evidence_in_episode(void)
{
    struct run r;
    struct roce_diag_subject s;
    run_init(&r, NULL);
    send_at(&r, 0, 1, 0, 1); /* CE, 1 sender */
    send_at(&r, 1, 1, 1 * US, 1);
    send_at(&r, 2, 1, 2 * US, 1);
    send_at(&r, 3, 1, 3 * US, 0); /* 4 at once: the episode begins */
    send_at(&r, 3, 2, 4 * US, 0);
    /* 30 us later: sender 3 alone, marked; the episode is over */
    send_at(&r, 3, 3, 34 * US, 1);
    const struct roce_incast_receiver *x = record(&r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_EQUAL(x->episodes, 1);
    CU_ASSERT_EQUAL(x->flagged, 0);
    CU_ASSERT_EQUAL(x->ce_marked, 0);
    CU_ASSERT_FALSE(finding(&r, &s));
    /* a second episode, marked: the finding counts it; its series spans both */
    for (unsigned i = 0; i < 4; i++)
        send_at(&r, i, 10, (60 + (int64_t)i) * US, i == 3);
    x = record(&r);
    CU_ASSERT_EQUAL(x->episodes, 2);
    CU_ASSERT_EQUAL(x->flagged, 1);
    CU_ASSERT_EQUAL(x->ce_marked, 1);
    CU_ASSERT_TRUE(x->n_points >= 6); /* 3 us .. 63 us in 10 us steps */
    CU_ASSERT_EQUAL(x->series[0], 4);
    CU_ASSERT_TRUE(finding(&r, &s));
    tu_eng_done(&r.t);
}

/* Loss flags an episode only as network loss: sender 0's PSN 3 arrives
 * without 2 while four senders send at once; the receiver's NAK makes the
 * gap network loss (flagged, lost 1, evidence the gap and the NAK), its ACK
 * of 3 makes it the capture's (nothing flagged). */
static void lossy_round(struct run *r, int nak, uint64_t *gap, uint64_t *answer)
{
    send_at(r, 0, 1, 0, 0);
    r->t.now = TU_T0_NS + US / 2;
    tu_ack(&r->t, &r->c[0], 1, rg_aeth_ack(0)); /* paired */
    for (unsigned i = 1; i < 4; i++)
        send_at(r, i, 1, (int64_t)i * US, 0); /* 4 at once at 3 us */
    *gap = send_at(r, 0, 3, 4 * US, 0);
    r->t.now = TU_T0_NS + 5 * US;
    *answer = nak ? tu_ack(&r->t, &r->c[0], 2, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR))
                  : tu_ack(&r->t, &r->c[0], 3, rg_aeth_ack(0));
}

static void test_loss(void)
{
    struct run r;
    struct roce_diag_subject s;
    uint64_t gap, answer;
    run_init(&r, NULL);
    lossy_round(&r, 1, &gap, &answer);
    CU_ASSERT_EQUAL(tu_totals(&r.t)->gap_class_events[ROCE_GAP_NETWORK_LOSS], 1);
    const struct roce_incast_receiver *x = record(&r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_EQUAL(x->flagged, 1);
    CU_ASSERT_EQUAL(x->lost, 1);
    CU_ASSERT_EQUAL(x->ce_marked, 0);
    CU_ASSERT_TRUE_FATAL(finding(&r, &s));
    CU_ASSERT_EQUAL(s.fig.lost, 1);
    CU_ASSERT_EQUAL(s.frames[s.n_frames - 2], gap);
    CU_ASSERT_EQUAL(s.frames[s.n_frames - 1], answer);
    tu_eng_done(&r.t);

    run_init(&r, NULL);
    lossy_round(&r, 0, &gap, &answer);
    roce_engine_finish(r.t.e);
    CU_ASSERT_EQUAL(tu_totals(&r.t)->gap_class_events[ROCE_GAP_CAPTURE_LOSS], 1);
    x = record(&r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_EQUAL(x->flagged, 0);
    CU_ASSERT_EQUAL(x->lost, 0);
    CU_ASSERT_FALSE(finding(&r, &s));
    tu_eng_done(&r.t);
}

/* A pause of priority 0 (the flows' DSCP 0) from a switch port, 3.5 us to
 * 5.548 us: sender 0's requests stop with it (a victim) while four send at
 * once: flagged, paused 1, evidence the XOFF and the request that resumed. */
static void test_pause(void)
{
    static const uint8_t port[RG_MAC_LEN] = {2, 0, 0, 0, 0, 0x99};
    uint16_t q[RG_PFC_PRIOS] = {400}; /* 400 quanta: 2.048 us at 100G */
    uint8_t f[RG_MAX_FRAME];
    struct run r;
    struct roce_diag_subject s;
    run_init(&r, NULL);
    for (unsigned i = 0; i < 4; i++)
        send_at(&r, i, 1, (int64_t)i * US, 0); /* 4 at once at 3 us */
    int n = rg_build_mac_control(RG_MACCTRL_PFC, 1u, q, port, f, sizeof f);
    CU_ASSERT_FATAL(n > 0);
    r.t.now = TU_T0_NS + 3 * US + US / 2;
    uint64_t xoff = tu_feed_bytes(&r.t, ROCE_LINKTYPE_ETHERNET, f, (uint32_t)n, (uint32_t)n);
    uint64_t resumed = send_at(&r, 0, 2, 6 * US, 0);
    const struct roce_incast_receiver *x = record(&r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_EQUAL(x->flagged, 1);
    CU_ASSERT_EQUAL(x->paused, 1);
    CU_ASSERT_TRUE_FATAL(finding(&r, &s));
    CU_ASSERT_EQUAL(s.fig.pauses, 1);
    CU_ASSERT_EQUAL(s.frames[s.n_frames - 2], xoff);
    CU_ASSERT_EQUAL(s.frames[s.n_frames - 1], resumed);
    tu_eng_done(&r.t);
}

/* Two reports' receivers: counts add, the worse worst episode stays with
 * its frames numbered on, a new receiver is appended. */
static void test_merge(void)
{
    static struct roce_totals a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.incast.n = 1;
    a.incast.r[0].addr[15] = 1;
    a.incast.r[0].episodes = 2;
    a.incast.r[0].worst.fanin = 5;
    b.incast.n = 2;
    b.incast.r[0] = a.incast.r[0];
    b.incast.r[0].flagged = 1;
    b.incast.r[0].worst.flagged = 1;
    b.incast.r[0].worst.fanin = 4;
    b.incast.r[0].ce_marked = 3;
    b.incast.r[0].worst.n_frames = 2;
    b.incast.r[0].worst.frames[0] = 7;
    b.incast.r[0].worst.frames[1] = 9;
    b.incast.r[1].addr[15] = 2;
    b.incast.r[1].episodes = 1;
    roce_incast_merge(&a, &b, 100);
    CU_ASSERT_EQUAL(a.incast.n, 2);
    CU_ASSERT_EQUAL(a.incast.r[0].episodes, 4);
    CU_ASSERT_EQUAL(a.incast.r[0].flagged, 1);
    CU_ASSERT_EQUAL(a.incast.r[0].ce_marked, 3);
    CU_ASSERT_EQUAL(a.incast.r[0].worst.fanin, 4); /* flagged beats more senders */
    CU_ASSERT_EQUAL(a.incast.r[0].worst.n_frames, 2);
    CU_ASSERT_EQUAL(a.incast.r[0].worst.frames[0], 107);
    CU_ASSERT_EQUAL(a.incast.r[1].addr[15], 2);
    CU_ASSERT_EQUAL(a.incast.r[1].episodes, 1);
    /* a full list: the next receiver is counted, not listed */
    a.incast.n = ROCE_INCAST_LISTED;
    b.incast.r[1].addr[15] = 3;
    roce_incast_merge(&a, &b, 0);
    CU_ASSERT_EQUAL(a.incast_receivers_unlisted, 1);
}

/* More receivers than the table holds (ROCE_INCAST_SETS x ROCE_INCAST_WAYS),
 * each with 3 senders of its own, in rounds: a receiver is found by its
 * address whichever entry held it before (the memo of where an address was
 * found is checked against the entry): none ever reaches the threshold of
 * 4, where a lookup that took another receiver's entry would give it that
 * receiver's senders too; the receivers that did not fit are counted. */
#define MANY_RX 300u
static void test_many_receivers(void)
{
    static struct tu_conn c[MANY_RX][3];
    struct tu_eng t;
    tu_eng_init(&t, NULL);
    for (uint32_t r = 0; r < MANY_RX; r++)
        for (uint32_t s = 0; s < 3; s++)
            tu_conn_init(&c[r][s], 0x0B000000u | r << 8 | (s + 1), 0x0A020000u | r, 0x1000 + s,
                         0x2000 + r);
    for (uint32_t round = 0; round < 3; round++)
        for (uint32_t s = 0; s < 3; s++)
            for (uint32_t r = 0; r < MANY_RX; r++) {
                t.now = TU_T0_NS + (int64_t)round * 100 * WINDOW + (int64_t)(s * MANY_RX + r);
                tu_send_ce(&t, &c[r][s], round + 1);
            }
    const struct roce_totals *tot = tu_totals(&t);
    CU_ASSERT_EQUAL(tot->incast.n, 0);
    CU_ASSERT(tot->incast_receivers_evicted >= MANY_RX - ROCE_INCAST_SETS * ROCE_INCAST_WAYS);
    CU_ASSERT_EQUAL(tot->incast_senders_untracked, 0);
    tu_eng_done(&t);
}

static const struct tu_test tests[] = {
    {"many_receivers", test_many_receivers},
    {"threshold", test_threshold},
    {"no_evidence", test_no_evidence},
    {"window_edges", test_window_edges},
    {"evidence_in_episode", test_evidence_in_episode},
    {"loss", test_loss},
    {"pause", test_pause},
    {"merge", test_merge},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "incast", tests);
}
