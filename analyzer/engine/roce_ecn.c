/*
 * roce_ecn.c - ECN CE marks and their CNPs.
 *
 * ANALYSIS.md, "ECN and CNPs" (CE mark, CNP match); PROTOCOL.md, "CNP". A CNP
 * travels B->A with the dest QP of the data sender (qa): it belongs to the
 * connection whose request flow A->B (dest QP qb) carried the CE marks. It
 * is matched to the earliest CE mark of that flow that arrived after the
 * connection's previous CNP and at most the window before it. A CE mark
 * with no CNP of its connection within the window before or after it is
 * unanswered; that is settled when the window after it has passed.
 *
 * A CNP whose flow is not paired yet waits: NICs send the CNP a few
 * microseconds after the marked packet, often before the first response
 * that pairs the connection. It is decided when its flow is paired (as if
 * the pair had been known when it arrived), or when the window after it has
 * passed (then the fallback: the only request flow the other way); so the
 * verdicts do not depend on which of the two came first. CE marks that such
 * a CNP could still answer wait for it.
 *
 * CE marks wait in one ring in arrival order (settled from the oldest as
 * time passes) and are linked per request flow (settled together by a CNP);
 * waiting CNPs likewise, linked per CNP flow. The rings are bounded; marks
 * pushed out early are counted in ce_tracking_overflow, CNPs decided early
 * in cnp_tracking_overflow.
 */
#include "roce_ecn.h"

#include <string.h>

#include "roce_dcqcn.h"
#include "roce_evidence.h"
#include "roce_internal.h"
#include "roce_verdq.h"

#define CE_RING_INITIAL  1024u
#define CE_RING_MAX      65536u
#define CNP_RING_INITIAL 64u
#define CNP_RING_MAX     65536u

/* A CE mark waiting to be settled by a CNP or by the window running out. */
struct ce_entry {
    uint64_t frame;
    uint64_t vq_seq;
    uint64_t flow_id;
    uint64_t next; /* next CE of the same flow: sequence + 1, 0 = none */
    int64_t ts;
    uint32_t flow;    /* handle */
    uint8_t answered; /* covered by the previous CNP */
    uint8_t live;
};

/* A CNP waiting for its connection: its flow to be paired, or the window
 * after it to pass. */
struct cnp_entry {
    uint64_t frame;
    uint64_t vq_seq;
    uint64_t flow_id;
    uint64_t next;    /* next waiting CNP of the same flow: sequence + 1, 0 = none */
    uint64_t ce_tail; /* CE marks with a lower sequence arrived before it */
    uint64_t last_id; /* flows with a higher id were created after it */
    int64_t ts;
    uint32_t flow; /* handle of the CNP's flow */
    uint8_t live;
};

static struct ce_entry *ce_at(struct roce_engine *e, uint64_t seq)
{
    return roce_ring_at(&e->ce, sizeof(struct ce_entry), seq);
}

static struct cnp_entry *cnp_at(struct roce_engine *e, uint64_t seq)
{
    return roce_ring_at(&e->cnp_wait, sizeof(struct cnp_entry), seq);
}

int roce_ecn_init(struct roce_engine *e)
{
    if (roce_ring_init(&e->ce, CE_RING_INITIAL, sizeof(struct ce_entry)) != 0)
        return -1;
    return roce_ring_init(&e->cnp_wait, CNP_RING_INITIAL, sizeof(struct cnp_entry));
}

/* Nonzero when ring r (entries of size bytes) is full and cannot grow to
 * max entries: its oldest entry has to go (a growth that failed is counted). */
static int ring_full(struct roce_engine *e, struct roce_ring *r, size_t size, uint32_t max)
{
    if (roce_ring_count(r) < r->cap)
        return 0;
    if (r->cap < max) {
        if (roce_ring_grow(r, size) == 0)
            return 0;
        e->alloc_failures++;
    }
    return 1;
}

void roce_ecn_bounds(uint32_t *ce_max, uint32_t *cnp_max)
{
    *ce_max = CE_RING_MAX;
    *cnp_max = CNP_RING_MAX;
}

int roce_ecn_busy(const struct roce_engine *e)
{
    return e->ce.head != e->ce.tail || e->cnp_wait.head != e->cnp_wait.tail;
}

/* The flow a CE entry belongs to, or NULL when it went away. */
static struct roce_flow *ce_flow(struct roce_engine *e, const struct ce_entry *c)
{
    struct roce_flow *f = roce_flow_at(&e->flows, c->flow);
    return f->id == c->flow_id ? f : NULL;
}

enum settle { SETTLE_WINDOW, SETTLE_DROPPED };

/* Settle one CE mark: answered or unanswered, or dropped by the bounds. */
static void ce_settle(struct roce_engine *e, struct ce_entry *c, struct roce_flow *f,
                      enum settle how)
{
    struct roce_verdict *rv = roce_vq_get(e, c->vq_seq, c->frame);
    if (how == SETTLE_DROPPED) {
        e->totals.ce_tracking_overflow++;
    } else if (c->answered) {
        e->totals.ce_answered++;
        if (f != NULL)
            roce_flow_cold(f)->report.ce_answered++;
    } else {
        e->totals.ce_unanswered++;
        if (f != NULL) {
            roce_flow_cold(f)->report.ce_unanswered++;
            roce_ev_note(e, f, ROCE_DIAG_CE_SOME_UNANSWERED, c->frame);
        }
        if (rv != NULL)
            rv->flags |= ROCE_V_CE_UNANSWERED;
    }
    roce_vq_done(e, c->vq_seq, c->frame);
    c->live = 0;
}

/* Settle the oldest CE entry and unlink it from its flow (it is its first). */
static void ce_pop(struct roce_engine *e, enum settle how)
{
    uint64_t seq = e->ce.head++;
    struct ce_entry *c = ce_at(e, seq);
    if (!c->live)
        return;
    struct roce_flow *f = ce_flow(e, c);
    if (f != NULL) {
        struct roce_flow_cold *fc = roce_flow_cold(f);
        fc->ce_first = c->next;
        if (fc->ce_last == seq + 1)
            fc->ce_last = 0;
    }
    ce_settle(e, c, f, how);
}

void roce_ecn_ce(struct roce_engine *e, struct roce_flow *f, struct roce_verdict *v)
{
    struct roce_flow_cold *fc = roce_flow_cold(f);
    v->flags |= ROCE_V_CE;
    fc->report.ce_marked++;
    e->totals.ce_marked++;

    if (ring_full(e, &e->ce, sizeof(struct ce_entry), CE_RING_MAX))
        ce_pop(e, SETTLE_DROPPED);

    uint64_t seq = e->ce.tail++;
    struct ce_entry *c = ce_at(e, seq);
    memset(c, 0, sizeof *c);
    c->frame = v->frame;
    c->vq_seq = e->cur_seq;
    c->flow_id = f->id;
    c->flow = f->self;
    c->ts = v->ts_ns;
    c->live = 1;
    if (fc->have_cnp && v->ts_ns - fc->last_cnp_ts <= e->cfg.cnp_window_ns) {
        c->answered = 1; /* covered by the previous CNP */
        v->flags |= ROCE_V_CE_ANSWERED;
        v->cnp_frame = fc->last_cnp_frame;
    }
    if (fc->ce_last)
        ce_at(e, fc->ce_last - 1)->next = seq + 1;
    else
        fc->ce_first = seq + 1;
    fc->ce_last = seq + 1;
    /* settled by a CNP, by the window passing, or at the latest when a CNP
     * of the window after it that waited for its connection is decided */
    roce_cur_expect(e, v->ts_ns + roce_ecn_ce_wait(&e->cfg));
}

/* The only request flow with k's addresses reversed (the CNP fallback), if
 * it existed when the CNP arrived (its id at most last_id), or NULL. */
static struct roce_flow *cnp_fallback(struct roce_engine *e, const struct roce_flow *k,
                                      uint64_t last_id)
{
    struct roce_flow *x = roce_flow_only_request(&e->flows, k->key.dst, k->key.src, k->key.version);
    return x == k || (x != NULL && x->id > last_id) ? NULL : x;
}

/*
 * Decide a CNP (frame, time t) of flow k (NULL when it went away) for the
 * request flow x (NULL: none): match it, answer and settle x's CE marks
 * that arrived before it (CE sequence below ce_tail), answer at once the
 * later ones no more than the window after it (a CNP decided late), and
 * count. v is the CNP's verdict, NULL when it was delivered already.
 */
static void cnp_decide(struct roce_engine *e, struct roce_flow *k, struct roce_flow *x,
                       struct roce_verdict *v, uint64_t frame, int64_t t, uint64_t ce_tail)
{
    struct ce_entry *matched = NULL;
    const int64_t w = e->cfg.cnp_window_ns;
    uint64_t s;

    if (x == NULL) {
        if (v != NULL)
            v->flags |= ROCE_V_CNP_UNEXPLAINED;
        if (k != NULL) {
            roce_flow_cold(k)->report.cnps_carried_unexplained++;
            roce_ev_note(e, k, ROCE_DIAG_CNP_UNEXPLAINED, frame);
        }
        e->totals.cnps_unexplained++;
        return;
    }
    roce_flow_touch(&e->flows, x); /* perhaps not the frame's flow, or no frame */
    struct roce_flow_cold *xc = roce_flow_cold(x);
    xc->report.cnps_for_flow++;
    for (s = xc->ce_first; s != 0 && s - 1 < ce_tail;) {
        struct ce_entry *c = ce_at(e, s - 1);
        struct roce_verdict *rv = roce_vq_get(e, c->vq_seq, c->frame);
        int64_t age = t - c->ts;
        s = c->next;
        if (age <= w && (matched == NULL || !c->answered)) {
            if (matched == NULL)
                matched = c;
            c->answered = 1;
            if (rv != NULL) {
                rv->flags |= ROCE_V_CE_ANSWERED;
                rv->cnp_frame = frame;
            }
        }
        ce_settle(e, c, x, SETTLE_WINDOW);
    }
    xc->ce_first = s;
    if (s == 0)
        xc->ce_last = 0;
    for (; s != 0; s = ce_at(e, s - 1)->next) { /* marks after a CNP decided late */
        struct ce_entry *c = ce_at(e, s - 1);
        struct roce_verdict *rv = roce_vq_get(e, c->vq_seq, c->frame);
        if (c->ts - t > w || c->answered)
            continue;
        c->answered = 1;
        if (rv != NULL) {
            rv->flags |= ROCE_V_CE_ANSWERED;
            rv->cnp_frame = frame;
        }
    }
    xc->have_cnp = 1;
    xc->last_cnp_ts = t;
    xc->last_cnp_frame = frame;

    if (matched == NULL) {
        if (v != NULL)
            v->flags |= ROCE_V_CNP_UNEXPLAINED;
        if (k != NULL) {
            roce_flow_cold(k)->report.cnps_carried_unexplained++;
            roce_ev_note(e, k, ROCE_DIAG_CNP_UNEXPLAINED, frame);
        }
        xc->report.cnps_unexplained++;
        e->totals.cnps_unexplained++;
        return;
    }
    int64_t latency = t - matched->ts;
    if (v != NULL) {
        v->flags |= ROCE_V_CNP_MATCHED;
        v->cnp_for_frame = matched->frame;
        v->cnp_latency_ns = latency;
    }
    xc->report.cnps_matched++;
    e->totals.cnps_matched++;
    if (roce_lat_add(&xc->cnp_lat, latency) != 0)
        e->alloc_failures++;
    if (roce_lat_add(&e->cnp_lat, latency) != 0)
        e->alloc_failures++;
}

/* How a waiting CNP is decided. */
enum cnp_when {
    CNP_PAIRED,   /* its flow was just paired: the request flow is the peer */
    CNP_DEADLINE, /* the window after it passed: the fallback, which pairs */
    CNP_LEAVING   /* its flow goes away, or the ring is full: the fallback alone */
};

/* Decide the oldest waiting CNP of its flow (it is the head of the flow's
 * list), and take it off the list. */
static void cnp_wait_decide(struct roce_engine *e, struct cnp_entry *n, enum cnp_when when)
{
    struct roce_flow *k = roce_flow_at(&e->flows, n->flow), *x;

    if (k->id != n->flow_id)
        k = NULL;
    else
        roce_flow_cold(k)->cnp_wait_first = n->next;
    if (k != NULL && roce_flow_cold(k)->cnp_wait_first == 0)
        roce_flow_cold(k)->cnp_wait_last = 0;
    n->live = 0;
    if (k == NULL)
        x = NULL;
    else if (when == CNP_PAIRED)
        x = roce_flow_peer(&e->flows, k);
    else
        x = cnp_fallback(e, k, n->last_id);
    cnp_decide(e, k, x, roce_vq_get(e, n->vq_seq, n->frame), n->frame, n->ts, n->ce_tail);
    if (x != NULL) /* the CNP is for x's requests: their rate before and after it */
        roce_dcqcn_cnp(e, x, n->frame, n->vq_seq, n->ts, 0);
    roce_vq_done(e, n->vq_seq, n->frame);
    /* last: pairing decides k's next waiting CNPs (the hook) */
    if (when == CNP_DEADLINE && x != NULL && !x->peer)
        roce_flow_pair(&e->flows, x, k, ROCE_PAIRED_CNP);
}

/* Decide the oldest waiting CNP of the ring, as its window passed. */
static void cnp_pop(struct roce_engine *e, enum cnp_when when)
{
    struct cnp_entry *n = cnp_at(e, e->cnp_wait.head);
    if (n->live)
        cnp_wait_decide(e, n, when);
    e->cnp_wait.head++;
}

/* The CNP of verdict v on k waits for its connection. */
static void cnp_wait(struct roce_engine *e, struct roce_flow *k, struct roce_verdict *v)
{
    if (ring_full(e, &e->cnp_wait, sizeof(struct cnp_entry), CNP_RING_MAX)) {
        e->totals.cnp_tracking_overflow++;
        cnp_pop(e, CNP_LEAVING);
    }
    uint64_t seq = e->cnp_wait.tail++;
    struct cnp_entry *n = cnp_at(e, seq);
    memset(n, 0, sizeof *n);
    n->frame = v->frame;
    n->vq_seq = e->cur_seq;
    n->flow_id = k->id;
    n->flow = k->self;
    n->ce_tail = e->ce.tail;
    n->last_id = e->flows.next_id;
    n->ts = v->ts_ns;
    n->live = 1;
    if (roce_flow_cold(k)->cnp_wait_last)
        cnp_at(e, roce_flow_cold(k)->cnp_wait_last - 1)->next = seq + 1;
    else
        roce_flow_cold(k)->cnp_wait_first = seq + 1;
    roce_flow_cold(k)->cnp_wait_last = seq + 1;
    roce_cur_expect(e, v->ts_ns + roce_ecn_cnp_wait(&e->cfg));
}

/* The least of a minimum so far (none when n is 0) and a new gap. */
static void least(int64_t *min, uint64_t *n, int64_t gap)
{
    if ((*n)++ == 0 || gap < *min)
        *min = gap;
}

void roce_ecn_pacing(struct roce_engine *e, struct roce_flow *k, uint64_t frame, int64_t ts)
{
    struct roce_flow_cold *kc = roce_flow_cold(k);
    struct roce_flow_report *r = &kc->report;
    if (kc->carried_cnp_frame != 0) {
        int64_t gap = ts - kc->carried_cnp_ts;
        least(&r->cnp_min_gap_ns, &r->cnp_gaps, gap);
        if (gap < e->cfg.cnp_pacing_ns) { /* closer than a NIC paces them */
            roce_ev_note(e, k, ROCE_DIAG_CNP_UNPACED, kc->carried_cnp_frame);
            roce_ev_note(e, k, ROCE_DIAG_CNP_UNPACED, frame);
        }
    }
    kc->carried_cnp_ts = ts;
    kc->carried_cnp_frame = frame;
    int64_t dst_gap = roce_cnpdst_gap(e, k->key.dst, k->key.version, ts);
    if (dst_gap >= 0)
        least(&r->cnp_dst_min_gap_ns, &r->cnp_dst_gaps, dst_gap);
    /* the request flows it throttles: from its destination to its source */
    struct pair_entry *p = roce_flow_pair_of(&e->flows, k->key.dst, k->key.src, k->key.version);
    if (p == NULL)
        return;
    if (p->last_cnp_frame != 0)
        least(&r->cnp_pair_min_gap_ns, &r->cnp_pair_gaps, ts - p->last_cnp_ts);
    p->last_cnp_ts = ts;
    p->last_cnp_frame = frame;
}

void roce_ecn_cnp(struct roce_engine *e, struct roce_flow *k, struct roce_verdict *v)
{
    struct roce_flow *x = roce_flow_peer(&e->flows, k);

    v->flags |= ROCE_V_CNP;
    if (x == NULL || roce_flow_cold(k)->cnp_wait_first != 0) {
        cnp_wait(e, k, v);
        return;
    }
    cnp_decide(e, k, x, v, v->frame, v->ts_ns, e->ce.tail);
    roce_dcqcn_cnp(e, x, v->frame, e->cur_seq, v->ts_ns, 1);
}

void roce_ecn_paired(struct roce_engine *e, struct roce_flow *a, struct roce_flow *b)
{
    while (roce_flow_cold(a)->cnp_wait_first)
        cnp_wait_decide(e, cnp_at(e, roce_flow_cold(a)->cnp_wait_first - 1), CNP_PAIRED);
    while (roce_flow_cold(b)->cnp_wait_first)
        cnp_wait_decide(e, cnp_at(e, roce_flow_cold(b)->cnp_wait_first - 1), CNP_PAIRED);
}

void roce_ecn_expire(struct roce_engine *e, int64_t now, int flush)
{
    const int64_t w = e->cfg.cnp_window_ns;
    for (;;) {
        while (e->cnp_wait.head < e->cnp_wait.tail && !cnp_at(e, e->cnp_wait.head)->live)
            e->cnp_wait.head++;
        const struct cnp_entry *n =
            e->cnp_wait.head < e->cnp_wait.tail ? cnp_at(e, e->cnp_wait.head) : NULL;
        if (n != NULL && (flush || now - n->ts > roce_ecn_cnp_wait(&e->cfg))) {
            cnp_pop(e, CNP_DEADLINE);
            continue;
        }
        if (e->ce.head == e->ce.tail)
            break;
        const struct ce_entry *c = ce_at(e, e->ce.head);
        /* a waiting CNP may still answer the mark: it waits for its decision */
        if (c->live && !flush && (now - c->ts <= w || (n != NULL && n->ts - c->ts <= w)))
            break;
        ce_pop(e, SETTLE_WINDOW);
    }
}

void roce_ecn_forget_flow(struct roce_engine *e, struct roce_flow *f)
{
    while (roce_flow_cold(f)->cnp_wait_first)
        cnp_wait_decide(e, cnp_at(e, roce_flow_cold(f)->cnp_wait_first - 1), CNP_LEAVING);
    for (uint64_t s = roce_flow_cold(f)->ce_first; s != 0;) {
        struct ce_entry *c = ce_at(e, s - 1);
        s = c->next;
        ce_settle(e, c, NULL, SETTLE_DROPPED);
    }
    roce_flow_cold(f)->ce_first = roce_flow_cold(f)->ce_last = 0;
}
