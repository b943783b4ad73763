/*
 * roce_caploss.c - capture loss versus network loss (ANALYSIS.md
 * "Capture loss and network loss").
 *
 * A PSN gap of an RC or XRC request flow says that PSNs first..last did not
 * pass the capture point. When a later ACK of the paired flow covers them (an
 * ACK PSN at or after last) before any NAK or resend of them, the responder
 * received them: the capture missed them (ibdump and port mirrors drop
 * bursts silently). A NAK whose PSN is not after last, or a resend from such
 * a PSN, says the responder did not: they were lost in the network. A gap
 * that nothing settles within the NAK horizon, or whose flow goes away, is
 * network loss too; so are the gaps of UC flows, which have no ACKs.
 *
 * Pending gaps wait per flow (oldest first: an ACK settles the oldest, a NAK
 * or resend the newest) and in one ring in arrival order, for the horizon.
 * The gap frame's verdict waits with them and gains capture_loss.
 */
#include "roce_caploss.h"

#include <stdint.h>
#include <string.h>

#include "roce_evidence.h"
#include "roce_internal.h"
#include "roce_psn.h"
#include "roce_verdq.h"

#define GAPQ_INITIAL 256u
#define GAPQ_MAX     65536u

/* A pending gap in arrival order, for the horizon. */
struct gapq_entry {
    uint64_t flow_id;
    int64_t deadline;
    uint32_t flow; /* handle */
    uint32_t gap_id;
};

int roce_caploss_init(struct roce_engine *e)
{
    e->gapq_next = INT64_MAX;
    return roce_ring_init(&e->gapq, GAPQ_INITIAL, sizeof(struct gapq_entry));
}

/* Settle one gap: counted, its frame's verdict annotated and released. */
static void settle(struct roce_engine *e, struct roce_flow *f, const struct pending_gap *g,
                   int captured)
{
    struct roce_verdict *v = roce_vq_get(e, g->vq_seq, g->frame);
    if (captured) {
        f->report.capture_loss_gaps++;
        f->report.capture_loss_psns += g->missing;
        e->totals.capture_loss_events++;
        e->totals.capture_loss_psns += g->missing;
        if (v != NULL)
            v->flags |= ROCE_V_CAPTURE_LOSS;
    }
    roce_ev_note(e, f, captured ? ROCE_DIAG_CAPTURE_LOSS : ROCE_DIAG_PACKET_LOSS, g->frame);
    roce_vq_done(e, g->vq_seq, g->frame);
}

static struct pending_gap *oldest(struct flow_ev *x)
{
    return &x->gaps[x->gap_head];
}

static struct pending_gap *newest(struct flow_ev *x)
{
    return &x->gaps[(x->gap_head + x->gap_n - 1) % PENDING_GAPS];
}

static void pop_oldest(struct roce_engine *e, struct roce_flow *f, int captured)
{
    struct flow_ev *x = f->ev;
    settle(e, f, oldest(x), captured);
    x->gap_head = (uint8_t)((x->gap_head + 1) % PENDING_GAPS);
    x->gap_n--;
}

void roce_caploss_gap(struct roce_engine *e, struct roce_flow *f, struct roce_verdict *v,
                      uint32_t missing)
{
    struct flow_ev *x = roce_ev_of(e, f);
    struct pending_gap g = {v->frame,
                            e->cur_seq,
                            roce_psn_add(v->psn, (uint32_t)-missing),
                            roce_psn_add(v->psn, (uint32_t)-1),
                            missing,
                            0};
    int reliable = f->transport == ROCE_TRANSPORT_RC || f->transport == ROCE_TRANSPORT_XRC;

    if (x == NULL || !reliable) {
        roce_ev_note(e, f, ROCE_DIAG_PACKET_LOSS, v->frame); /* UC: no ACK will tell */
        return;
    }
    if (roce_ring_count(&e->gapq) == e->gapq.cap &&
        (e->gapq.cap >= GAPQ_MAX || roce_ring_grow(&e->gapq, sizeof(struct gapq_entry)) != 0)) {
        if (e->gapq.cap < GAPQ_MAX)
            e->alloc_failures++;
        e->totals.gap_tracking_overflow++;
        roce_ev_note(e, f, ROCE_DIAG_PACKET_LOSS, v->frame);
        return;
    }
    if (x->gap_n == PENDING_GAPS) {
        e->totals.gap_tracking_overflow++;
        pop_oldest(e, f, 0);
    }
    g.id = x->next_gap_id++;
    x->gaps[(x->gap_head + x->gap_n) % PENDING_GAPS] = g;
    x->gap_n++;
    struct gapq_entry *q = roce_ring_at(&e->gapq, sizeof *q, e->gapq.tail++);
    q->flow_id = f->id;
    q->flow = f->self;
    q->gap_id = g.id;
    q->deadline = v->ts_ns + e->cfg.nak_horizon_ns;
    if (e->gapq.tail - e->gapq.head == 1)
        e->gapq_next = q->deadline;
    roce_cur_expect(e, q->deadline);
}

void roce_caploss_ack(struct roce_engine *e, struct roce_flow *f, uint32_t psn)
{
    struct flow_ev *x = f->ev;
    while (x != NULL && x->gap_n > 0 && !roce_psn_after(oldest(x)->last, psn))
        pop_oldest(e, f, 1);
}

void roce_caploss_resend(struct roce_engine *e, struct roce_flow *f, uint32_t psn)
{
    struct flow_ev *x = f->ev;
    while (x != NULL && x->gap_n > 0 && !roce_psn_after(psn, newest(x)->last)) {
        settle(e, f, newest(x), 0);
        x->gap_n--;
    }
}

void roce_caploss_expire(struct roce_engine *e, int64_t now, int flush)
{
    e->gapq_next = INT64_MAX;
    while (e->gapq.head < e->gapq.tail) {
        const struct gapq_entry *q = roce_ring_at(&e->gapq, sizeof *q, e->gapq.head);
        if (!flush && q->deadline >= now) {
            e->gapq_next = q->deadline;
            break;
        }
        e->gapq.head++;
        struct roce_flow *f = roce_flow_at(&e->flows, q->flow);
        if (f->id == q->flow_id && f->ev != NULL && f->ev->gap_n > 0 &&
            oldest(f->ev)->id == q->gap_id)
            pop_oldest(e, f, 0);
    }
}

void roce_caploss_forget(struct roce_engine *e, struct roce_flow *f)
{
    while (f->ev != NULL && f->ev->gap_n > 0)
        pop_oldest(e, f, 0);
}

void roce_caploss_room(const struct roce_engine *e, uint32_t *room, uint32_t *max)
{
    *room = e->gapq.cap;
    *max = GAPQ_MAX;
}
