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
 * CE marks wait in one ring in arrival order (settled from the oldest as
 * time passes) and are linked per request flow (settled together by a CNP).
 * The ring is bounded; marks pushed out early are counted in
 * ce_tracking_overflow.
 */
#include "roce_ecn.h"

#include <string.h>

#include "roce_internal.h"
#include "roce_verdq.h"

#define CE_RING_INITIAL 1024u
#define CE_RING_MAX     65536u

/* A CE mark waiting to be settled by a CNP or by the window running out. */
struct ce_entry {
    uint64_t frame;
    uint64_t vq_seq;
    uint64_t flow_id;
    uint64_t next; /* next CE of the same flow: sequence + 1, 0 = none */
    int64_t ts;
    uint32_t flow; /* handle */
    uint8_t answered; /* covered by the previous CNP */
    uint8_t live;
};

static struct ce_entry *ce_at(struct roce_engine *e, uint64_t seq)
{
    return roce_ring_at(&e->ce, sizeof(struct ce_entry), seq);
}

int roce_ecn_init(struct roce_engine *e)
{
    return roce_ring_init(&e->ce, CE_RING_INITIAL, sizeof(struct ce_entry));
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
            f->report.ce_answered++;
    } else {
        e->totals.ce_unanswered++;
        if (f != NULL)
            f->report.ce_unanswered++;
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
        f->ce_first = c->next;
        if (f->ce_last == seq + 1)
            f->ce_last = 0;
    }
    ce_settle(e, c, f, how);
}

void roce_ecn_expire(struct roce_engine *e, int64_t now, int flush)
{
    while (e->ce.head < e->ce.tail) {
        const struct ce_entry *c = ce_at(e, e->ce.head);
        if (c->live && !flush && now - c->ts <= e->cfg.cnp_window_ns)
            break;
        ce_pop(e, SETTLE_WINDOW);
    }
}

void roce_ecn_ce(struct roce_engine *e, struct roce_flow *f, struct roce_verdict *v)
{
    v->flags |= ROCE_V_CE;
    f->report.ce_marked++;
    e->totals.ce_marked++;

    if (roce_ring_count(&e->ce) == e->ce.cap) {
        if (e->ce.cap >= CE_RING_MAX)
            ce_pop(e, SETTLE_DROPPED);
        else if (roce_ring_grow(&e->ce, sizeof(struct ce_entry)) != 0) {
            e->alloc_failures++;
            ce_pop(e, SETTLE_DROPPED);
        }
    }

    uint64_t seq = e->ce.tail++;
    struct ce_entry *c = ce_at(e, seq);
    memset(c, 0, sizeof *c);
    c->frame = v->frame;
    c->vq_seq = e->cur_seq;
    c->flow_id = f->id;
    c->flow = f->self;
    c->ts = v->ts_ns;
    c->live = 1;
    if (f->have_cnp && v->ts_ns - f->last_cnp_ts <= e->cfg.cnp_window_ns) {
        c->answered = 1; /* covered by the previous CNP */
        v->flags |= ROCE_V_CE_ANSWERED;
        v->cnp_frame = f->last_cnp_frame;
    }
    if (f->ce_last)
        ce_at(e, f->ce_last - 1)->next = seq + 1;
    else
        f->ce_first = seq + 1;
    f->ce_last = seq + 1;
    roce_cur_expect(e, v->ts_ns + e->cfg.cnp_window_ns);
}

/* The request flow whose CE marks a CNP on cnp_flow answers, or NULL. */
static struct roce_flow *cnp_target(struct roce_engine *e, struct roce_flow *k)
{
    struct roce_flow *x = roce_flow_peer(&e->flows, k);
    if (x != NULL)
        return x;
    /* fallback: the only request flow with the CNP's addresses reversed */
    x = roce_flow_only_request(&e->flows, k->key.dst, k->key.src, k->key.version);
    if (x == NULL || x == k)
        return NULL;
    if (!x->peer)
        roce_flow_pair(&e->flows, x, k, ROCE_PAIRED_CNP);
    return x;
}

void roce_ecn_cnp(struct roce_engine *e, struct roce_flow *k, struct roce_verdict *v)
{
    struct roce_flow *x = cnp_target(e, k);
    struct ce_entry *matched = NULL;
    int64_t t = v->ts_ns, w = e->cfg.cnp_window_ns;

    v->flags |= ROCE_V_CNP;
    if (x == NULL) {
        v->flags |= ROCE_V_CNP_UNEXPLAINED;
        e->totals.cnps_unexplained++;
        return;
    }
    x->report.cnps_for_flow++;
    for (uint64_t s = x->ce_first; s != 0;) {
        struct ce_entry *c = ce_at(e, s - 1);
        struct roce_verdict *rv = roce_vq_get(e, c->vq_seq, c->frame);
        int64_t age = t - c->ts;
        s = c->next;
        if (matched == NULL && age <= w) {
            matched = c;
            c->answered = 1;
            if (rv != NULL) {
                rv->flags |= ROCE_V_CE_ANSWERED;
                rv->cnp_frame = v->frame;
            }
        } else if (age <= w && !c->answered) {
            c->answered = 1;
            if (rv != NULL) {
                rv->flags |= ROCE_V_CE_ANSWERED;
                rv->cnp_frame = v->frame;
            }
        }
        ce_settle(e, c, x, SETTLE_WINDOW);
    }
    x->ce_first = x->ce_last = 0;
    x->have_cnp = 1;
    x->last_cnp_ts = t;
    x->last_cnp_frame = v->frame;

    if (matched == NULL) {
        v->flags |= ROCE_V_CNP_UNEXPLAINED;
        x->report.cnps_unexplained++;
        e->totals.cnps_unexplained++;
        return;
    }
    v->flags |= ROCE_V_CNP_MATCHED;
    v->cnp_for_frame = matched->frame;
    v->cnp_latency_ns = t - matched->ts;
    x->report.cnps_matched++;
    e->totals.cnps_matched++;
    if (roce_lat_add(&x->cnp_lat, v->cnp_latency_ns) != 0)
        e->alloc_failures++;
    if (roce_lat_add(&e->cnp_lat, v->cnp_latency_ns) != 0)
        e->alloc_failures++;
}

void roce_ecn_forget_flow(struct roce_engine *e, struct roce_flow *f)
{
    for (uint64_t s = f->ce_first; s != 0;) {
        struct ce_entry *c = ce_at(e, s - 1);
        s = c->next;
        ce_settle(e, c, NULL, SETTLE_DROPPED);
    }
    f->ce_first = f->ce_last = 0;
}
