/*
 * test_live_interval.c - closing the live monitor's intervals
 * (analyzer/live/live_interval.h) over a real engine: an interval visits the
 * flows active in it and no other (roce_engine_interval_flows), however
 * many the table holds; the flows with trouble it lists, worst first, and
 * their counts are those of walking every flow of the table and comparing
 * with the interval before (what the tracker did before it kept the list of
 * active flows), over random traffic with gaps, retransmissions, NAKs, CE
 * marks and CNPs, some decided later by time passing; an interval without
 * traffic visits nothing.
 */
#define _DEFAULT_SOURCE
#include <signal.h> /* live_capture.h's sigset_t */
#include <stdlib.h>
#include <string.h>

#include "live_interval.h"
#include "test_harness.h"
#include "test_util.h"

#define MANY_QPS  3000u /* connections of the large table */
#define RAND_QPS  64u   /* connections of the random traffic */
#define INTERVALS 40u
#define FRAMES    400u /* per interval */
#define TOP_ALL   100000u
#define FLOWS_MAX (4u * RAND_QPS + 16u)

static const struct roce_livecap_stats no_cap;

/* Connection i: 10.1.x.y -> 10.2.x.y, QPs from i. */
static void conn(struct tu_conn *c, uint32_t i)
{
    tu_conn_init(c, 0x0A010000u + i, 0x0A020000u + i, 0x100u + i, 0x200000u + i);
}

static void step(struct roce_live_tracker *tr, struct tu_eng *t, struct roce_live_interval *iv)
{
    memset(iv, 0, sizeof *iv);
    CU_ASSERT_EQUAL(roce_live_tracker_step(tr, t->e, &no_cap, iv), 0);
}

/* Of MANY_QPS connections, those with traffic in an interval are the only
 * ones visited; their differences are right (a gap, a CE mark, a NAK). */
static void test_idle_flows_not_visited(void)
{
    static struct tu_conn c[MANY_QPS];
    struct tu_eng t;
    struct roce_live_interval iv;
    struct roce_live_tracker *tr = roce_live_tracker_new(TOP_ALL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tr);
    tu_eng_init(&t, NULL);
    step(tr, &t, &iv); /* as the monitor does before capturing: nothing yet */
    CU_ASSERT_EQUAL(iv.flows_visited, 0);

    for (uint32_t i = 0; i < MANY_QPS; i++) {
        conn(&c[i], i);
        tu_sends(&t, &c[i], 1, 2);
    }
    step(tr, &t, &iv);
    CU_ASSERT_EQUAL(iv.flows_visited, MANY_QPS); /* every flow is new */
    CU_ASSERT_EQUAL(iv.n_troubled, 0);

    step(tr, &t, &iv); /* no traffic: nothing visited, nothing listed */
    CU_ASSERT_EQUAL(iv.flows_visited, 0);
    CU_ASSERT_EQUAL(iv.n_troubled, 0);

    tu_send(&t, &c[7], 3);
    tu_send(&t, &c[7], 6);         /* PSNs 4 and 5 missing: a gap of 2 */
    tu_send_ce(&t, &c[100], 3);    /* a CE mark */
    tu_ack(&t, &c[2000], 3, 0x60); /* a NAK (PSN sequence error), on the response flow */
    step(tr, &t, &iv);
    CU_ASSERT_EQUAL(iv.flows_visited, 3);
    CU_ASSERT_EQUAL_FATAL(iv.n_troubled, 3);
    /* worst first: gaps, then CE marks; the NAK is its response flow's */
    CU_ASSERT_EQUAL(iv.top[0].naks, 1);
    CU_ASSERT_EQUAL(iv.top[0].key.dqpn, 0x100u + 2000);
    CU_ASSERT_EQUAL(iv.top[1].gaps, 1);
    CU_ASSERT_EQUAL(iv.top[1].missing_psns, 2);
    CU_ASSERT_EQUAL(iv.top[1].packets, 2);
    CU_ASSERT_EQUAL(iv.top[1].key.dqpn, 0x200000u + 7);
    CU_ASSERT_EQUAL(iv.top[2].ce_marked, 1);
    CU_ASSERT_EQUAL(iv.top[2].packets, 1);

    step(tr, &t, &iv);
    CU_ASSERT_EQUAL(iv.flows_visited, 0);
    CU_ASSERT_EQUAL(iv.n_troubled, 0);
    roce_live_tracker_free(tr);
    tu_eng_done(&t);
}

/* The reference: every flow of the table against its counts at the previous
 * interval (by id; a flow not seen then starts from zero). */
struct ref {
    struct roce_flow_report now[FLOWS_MAX], prev[FLOWS_MAX];
    size_t n_prev;
};

static int has_trouble(const struct roce_live_flow *f)
{
    return f->retransmitted || f->naks || f->gaps || f->ce_marked || f->cnps;
}

/* The reference's flows with trouble (unordered) into out; how many. */
static size_t ref_step(struct ref *r, struct roce_engine *e, struct roce_live_flow *out)
{
    size_t n = roce_engine_flows(e, r->now, FLOWS_MAX), bad = 0, j = 0;
    CU_ASSERT_FATAL(n < FLOWS_MAX);
    for (size_t i = 0; i < n; i++) {
        const struct roce_flow_report *c = &r->now[i];
        while (j < r->n_prev && r->prev[j].id < c->id)
            j++;
        const struct roce_flow_report *p =
            j < r->n_prev && r->prev[j].id == c->id ? &r->prev[j] : NULL;
        struct roce_live_flow d = {c->id,
                                   c->key,
                                   c->transport,
                                   c->packets - (p ? p->packets : 0),
                                   c->retransmitted_packets - (p ? p->retransmitted_packets : 0),
                                   c->naks.total - (p ? p->naks.total : 0),
                                   c->gap_events - (p ? p->gap_events : 0),
                                   c->missing_psns - (p ? p->missing_psns : 0),
                                   c->ce_marked - (p ? p->ce_marked : 0),
                                   c->cnps_for_flow - (p ? p->cnps_for_flow : 0)};
        if (has_trouble(&d))
            out[bad++] = d;
    }
    memcpy(r->prev, r->now, n * sizeof *r->now);
    r->n_prev = n;
    return bad;
}

/* The same flow with the same counts. */
static int same(const struct roce_live_flow *a, const struct roce_live_flow *b)
{
    return a->id == b->id && memcmp(&a->key, &b->key, sizeof a->key) == 0 &&
           a->transport == b->transport && a->packets == b->packets &&
           a->retransmitted == b->retransmitted && a->naks == b->naks && a->gaps == b->gaps &&
           a->missing_psns == b->missing_psns && a->ce_marked == b->ce_marked && a->cnps == b->cnps;
}

static const struct roce_live_flow *find(const struct roce_live_flow *l, size_t n, uint64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (l[i].id == id)
            return &l[i];
    return NULL;
}

/* One random frame of connection c (next: its next new PSN). */
static void random_frame(struct tu_eng *t, struct tu_rng *g, const struct tu_conn *c,
                         uint32_t *next)
{
    switch (tu_rng_below(g, 10)) {
    case 0: /* a gap */
        *next += 1 + tu_rng_below(g, 3);
        tu_send(t, c, (*next)++);
        break;
    case 1: /* a resend */
        tu_send(t, c, *next > 2 ? *next - 2 : 1);
        break;
    case 2:
        tu_send_ce(t, c, (*next)++);
        break;
    case 3:
        tu_cnp(t, c);
        break;
    case 4: /* a NAK, or an ACK */
        tu_ack(t, c, *next - 1, tu_rng_below(g, 2) ? 0x60 : 0x1F);
        break;
    default:
        tu_send(t, c, (*next)++);
        break;
    }
}

/* Random traffic: the tracker lists what the walk of the whole table finds. */
static void test_equal_to_full_walk(void)
{
    static struct ref r;
    static struct roce_live_flow want[FLOWS_MAX];
    struct tu_eng t;
    struct tu_conn c[RAND_QPS];
    uint32_t next[RAND_QPS];
    struct tu_rng g;
    struct roce_live_interval iv;
    struct roce_live_tracker *tr = roce_live_tracker_new(TOP_ALL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tr);
    memset(&r, 0, sizeof r);
    tu_rng_seed(&g, 26);
    tu_eng_init(&t, NULL);
    for (uint32_t i = 0; i < RAND_QPS; i++) {
        conn(&c[i], i);
        next[i] = 1;
    }
    size_t listed = 0;
    for (unsigned k = 0; k < INTERVALS; k++) {
        /* some intervals touch few connections, some many */
        uint32_t span = 1 + tu_rng_below(&g, RAND_QPS);
        for (unsigned f = 0; f < FRAMES; f++) {
            uint32_t i = tu_rng_below(&g, span);
            random_frame(&t, &g, &c[i], &next[i]);
        }
        if (k % 3 == 0) { /* idle time passes: CE marks and CNPs settle by it */
            t.now += 50 * ROCE_NS_PER_MS;
            roce_engine_advance(t.e, t.now);
        }
        step(tr, &t, &iv);
        size_t n = ref_step(&r, t.e, want);
        CU_ASSERT_EQUAL(iv.n_troubled, n);
        CU_ASSERT(iv.flows_visited <= roce_engine_flow_count(t.e));
        for (size_t i = 0; i < iv.n_top; i++) {
            const struct roce_live_flow *w = find(want, n, iv.top[i].id);
            CU_ASSERT_PTR_NOT_NULL_FATAL(w);
            CU_ASSERT(same(w, &iv.top[i]));
            if (i > 0) /* worst first */
                CU_ASSERT(iv.top[i - 1].retransmitted >= iv.top[i].retransmitted);
        }
        listed += n;
    }
    CU_ASSERT(listed > INTERVALS); /* the traffic had trouble to list */
    roce_live_tracker_free(tr);
    tu_eng_done(&t);
}

static const struct tu_test tests[] = {{"idle_flows_not_visited", test_idle_flows_not_visited},
                                       {"equal_to_full_walk", test_equal_to_full_walk},
                                       TU_END};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "live_interval", tests);
}
