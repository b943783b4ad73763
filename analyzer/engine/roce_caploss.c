/*
 * roce_caploss.c - what each PSN gap was (ANALYSIS.md "Capture loss and
 * network loss"): lost in the network, missed by the capture, late, or
 * undecided, each with the frame that decided it.
 *
 * A gap of a sequence-checked request flow (RC, XRC, UC) says that PSNs
 * first..last did not pass the capture point before the request after
 * them. What comes next tells what they were:
 *
 *   an ACK of the paired flow at or after last, or a PSN-sequence-error
 *   NAK or RNR NAK after last (a NAK acknowledges every PSN before it), before
 *   any NAK or resend of them        -> capture_loss (the responder got them)
 *   a NAK whose PSN is first..last, or a go-back-N whose first PSN is
 *   first..last                       -> network_loss (the responder did not)
 *   a NAK or go-back-N from an earlier PSN
 *                                     -> undetermined (go_back: resent whatever
 *                                        became of them)
 *   a missing PSN captured late, once, before any NAK or resend of it, while
 *   the flow sends new requests, within its NAK round trip (at least
 *   nak_rtt_ns) after the gap       -> counted as reordered; the gap is
 *                                        reordered when all its PSNs came so
 *   none of these within the NAK horizon, and the requester sent new PSNs
 *   for longer than its NAK round trip after the gap
 *                                     -> capture_loss_inferred
 *   otherwise                         -> undetermined (capture_ended; no_acks
 *                                        for UC, which has no ACK or NAK)
 *
 * The NAK round trip of a flow is the largest of its ACK latency p99 and the
 * NAK-driven recoveries it showed (NAK generation + NAK to resend), or
 * nak_rtt_ns when none was measured. No bound turns a gap into network
 * loss: gaps pushed out of the bounded ring are settled by time as at the
 * end (inferred or undetermined, tracking_bound) and counted in
 * gap_tracking_overflow.
 *
 * Open gaps wait in one ring in arrival order (for the horizon and the
 * bound), chained per flow in PSN order (what a response settles). The gap
 * frame's verdict waits with them and gets its class.
 */
#include "roce_caploss.h"

#include <stdint.h>
#include <string.h>

#include "roce_evidence.h"
#include "roce_internal.h"
#include "roce_psn.h"
#include "roce_seq.h"
#include "roce_verdq.h"

#define GAPQ_INITIAL  256u
#define GAPQ_MAX      65536u
#define LATE_BITS     64u /* missing PSNs of a gap whose late arrival is told apart */
#define RTT_PCT       99u
#define LATE_SCAN_MAX 64u /* open gaps of a flow a late packet is looked for in */

/* An open gap (entry of e->gapq, by sequence number). */
struct gap_entry {
    uint64_t flow_id;
    uint64_t frame, vq_seq;
    uint64_t next; /* the flow's next open gap: its sequence + 1, 0 none */
    uint64_t late; /* bit i: PSN first + i arrived late */
    int64_t ts, deadline;
    uint32_t flow; /* handle */
    uint32_t first, last, missing;
    uint32_t late_n;
    uint8_t open;
};

int roce_caploss_init(struct roce_engine *e)
{
    e->gapq_next = INT64_MAX;
    return roce_ring_init(&e->gapq, GAPQ_INITIAL, sizeof(struct gap_entry));
}

static struct gap_entry *entry(const struct roce_engine *e, uint64_t seq)
{
    return roce_ring_at(&e->gapq, sizeof(struct gap_entry), seq);
}

/* The NAK round trip of f: measured, or the configured one. */
static int64_t nak_rtt(struct roce_engine *e, struct roce_flow *f)
{
    struct roce_flow_cold *c = roce_flow_cold(f);
    struct flow_ev *x = c->ev;
    int64_t rtt = 0;
    if (x != NULL) {
        roce_seq_ack_fold(e, f);
        if (c->ack_lat.count && c->ack_lat.count != x->rtt_samples) {
            x->rtt_ack_p99 = roce_lat_percentile(&c->ack_lat, RTT_PCT);
            x->rtt_samples = c->ack_lat.count;
        }
        rtt = x->rtt_ack_p99 > x->rtt_nak ? x->rtt_ack_p99 : x->rtt_nak;
    }
    return rtt > 0 ? rtt : e->cfg.nak_rtt_ns;
}

void roce_caploss_note_rtt(struct roce_engine *e, struct roce_flow *f, int64_t ns)
{
    struct flow_ev *x = roce_ev_of(e, f);
    if (x != NULL && ns > x->rtt_nak)
        x->rtt_nak = ns;
}

/* Take gap g (the flow's head when prev is 0, else after prev) out of f's
 * chain. */
static void unlink_gap(struct roce_engine *e, struct flow_ev *x, uint64_t prev, uint64_t seq,
                       struct gap_entry *g)
{
    if (prev == 0)
        x->gap_head = g->next;
    else
        entry(e, prev - 1)->next = g->next;
    if (x->gap_tail == seq + 1)
        x->gap_tail = prev;
    x->gap_n--;
}

/* Settle gap g of f as cls, decided by frame `by` (0: by time). */
static void settle(struct roce_engine *e, struct roce_flow *f, struct gap_entry *g, unsigned cls,
                   unsigned reason, uint64_t by)
{
    struct roce_verdict *v = roce_vq_get(e, g->vq_seq, g->frame);
    g->open = 0;
    roce_flow_cold(f)->report.gap_class_gaps[cls]++;
    roce_flow_cold(f)->report.gap_class_psns[cls] += g->missing;
    e->totals.gap_class_events[cls]++;
    e->totals.gap_class_psns[cls] += g->missing;
    if (v != NULL) {
        v->gap_class = (uint8_t)cls;
        v->gap_reason = (uint8_t)reason;
        v->gap_decided_by = by;
        if (cls == ROCE_GAP_CAPTURE_LOSS || cls == ROCE_GAP_CAPTURE_INFERRED)
            v->flags |= ROCE_V_CAPTURE_LOSS;
    }
    switch (cls) {
    case ROCE_GAP_NETWORK_LOSS:
        roce_ev_note(e, f, ROCE_DIAG_PACKET_LOSS, g->frame);
        roce_ev_note(e, f, ROCE_DIAG_PACKET_LOSS, by);
        roce_incast_evidence(e, f->key.dst, 1, g->frame, by, g->ts);
        break;
    case ROCE_GAP_CAPTURE_LOSS:
    case ROCE_GAP_CAPTURE_INFERRED:
        roce_ev_note(e, f, ROCE_DIAG_CAPTURE_LOSS, g->frame);
        roce_ev_note(e, f, ROCE_DIAG_CAPTURE_LOSS, by);
        roce_evidence_add_capture(&e->totals.capture_frames, ROCE_FAULT_LOSS, g->frame);
        break;
    case ROCE_GAP_REORDERED:
        roce_ev_note(e, f, ROCE_DIAG_REORDERING, g->frame);
        break;
    default:
        break;
    }
    roce_vq_done(e, g->vq_seq, g->frame);
}

/* Settle g by time: the requester went on for longer than its NAK round
 * trip after it (inferred), or nothing could tell (undetermined). */
static void settle_by_time(struct roce_engine *e, struct roce_flow *f, struct gap_entry *g,
                           unsigned reason)
{
    int reliable = f->transport == ROCE_TRANSPORT_RC || f->transport == ROCE_TRANSPORT_XRC;
    uint64_t last_frame;
    if (!reliable)
        settle(e, f, g, ROCE_GAP_UNDETERMINED, ROCE_GAP_REASON_NO_ACKS, 0);
    else if (f->req.have && roce_flow_last_new(e, f, &last_frame) - g->ts > nak_rtt(e, f))
        settle(e, f, g, ROCE_GAP_CAPTURE_INFERRED, ROCE_GAP_REASON_NONE, last_frame);
    else
        settle(e, f, g, ROCE_GAP_UNDETERMINED, reason, 0);
}

/* Settle every open gap of f by time (the flow goes away or starts afresh). */
static void settle_all_by_time(struct roce_engine *e, struct roce_flow *f, unsigned reason)
{
    struct flow_ev *x = roce_flow_cold(f)->ev;
    while (x != NULL && x->gap_head != 0) {
        uint64_t seq = x->gap_head - 1;
        struct gap_entry *g = entry(e, seq);
        unlink_gap(e, x, 0, seq, g);
        settle_by_time(e, f, g, reason);
    }
}

/* The flow of an open gap, or NULL when it is gone (the entry is stale). */
static struct roce_flow *flow_of(struct roce_engine *e, const struct gap_entry *g)
{
    struct roce_flow *f = roce_flow_at(&e->flows, g->flow);
    return f->id == g->flow_id && roce_flow_cold(f)->ev != NULL ? f : NULL;
}

/* The oldest entry of the ring leaves it: settled by time when still open. */
static void pop_oldest(struct roce_engine *e, unsigned reason)
{
    uint64_t seq = e->gapq.head++;
    struct gap_entry *g = entry(e, seq);
    struct roce_flow *f;
    if (!g->open || (f = flow_of(e, g)) == NULL)
        return;
    /* the oldest open gap of the ring is its flow's oldest too */
    unlink_gap(e, roce_flow_cold(f)->ev, 0, seq, g);
    settle_by_time(e, f, g, reason);
}

void roce_caploss_gap(struct roce_engine *e, struct roce_flow *f, struct roce_verdict *v,
                      uint32_t missing)
{
    struct flow_ev *x = roce_ev_of(e, f);
    if (x == NULL) { /* out of memory (counted): nothing will tell */
        v->gap_class = ROCE_GAP_UNDETERMINED;
        v->gap_reason = ROCE_GAP_REASON_BOUND;
        struct roce_flow_report *r = &roce_flow_cold(f)->report;
        r->gap_class_gaps[ROCE_GAP_UNDETERMINED]++;
        r->gap_class_psns[ROCE_GAP_UNDETERMINED] += missing;
        e->totals.gap_class_events[ROCE_GAP_UNDETERMINED]++;
        e->totals.gap_class_psns[ROCE_GAP_UNDETERMINED] += missing;
        return;
    }
    if (roce_ring_count(&e->gapq) == e->gapq.cap &&
        (e->gapq.cap >= GAPQ_MAX || roce_ring_grow(&e->gapq, sizeof(struct gap_entry)) != 0)) {
        if (e->gapq.cap < GAPQ_MAX)
            e->alloc_failures++;
        e->totals.gap_tracking_overflow++;
        pop_oldest(e, ROCE_GAP_REASON_BOUND);
    }
    uint64_t seq = e->gapq.tail++;
    struct gap_entry *g = entry(e, seq);
    memset(g, 0, sizeof *g);
    g->flow_id = f->id;
    g->flow = f->self;
    g->frame = v->frame;
    g->vq_seq = e->cur_seq;
    g->ts = v->ts_ns;
    g->deadline = v->ts_ns + e->cfg.nak_horizon_ns;
    g->first = roce_psn_add(v->psn, (uint32_t)-missing);
    g->last = roce_psn_add(v->psn, (uint32_t)-1);
    g->missing = missing;
    g->open = 1;
    if (x->gap_tail != 0)
        entry(e, x->gap_tail - 1)->next = seq + 1;
    else
        x->gap_head = seq + 1;
    x->gap_tail = seq + 1;
    x->gap_n++;
    if (g->deadline < e->gapq_next)
        e->gapq_next = g->deadline;
    roce_cur_expect(e, g->deadline);
}

void roce_caploss_ack(struct roce_engine *e, struct roce_flow *f, uint32_t psn, uint64_t frame)
{
    struct flow_ev *x = roce_flow_cold(f)->ev;
    while (x != NULL && x->gap_head != 0) {
        uint64_t seq = x->gap_head - 1;
        struct gap_entry *g = entry(e, seq);
        if (roce_psn_after(g->last, psn))
            break; /* gaps are chained in PSN order */
        unlink_gap(e, x, 0, seq, g);
        settle(e, f, g, ROCE_GAP_CAPTURE_LOSS, ROCE_GAP_REASON_NONE, frame);
    }
}

/* Every open gap of f, against a NAK or go-back-N at psn (frame by): those
 * before psn stay open (go-back) or are acknowledged (a NAK), the one that
 * holds psn was lost, those after it were resent whatever their fate. */
static void responder_or_resend(struct roce_engine *e, struct roce_flow *f, uint32_t psn,
                                uint64_t by, int nak, int rnr)
{
    struct flow_ev *x = roce_flow_cold(f)->ev;
    uint64_t prev = 0, cur = x != NULL ? x->gap_head : 0;
    while (cur != 0) {
        uint64_t seq = cur - 1;
        struct gap_entry *g = entry(e, seq);
        uint64_t next = g->next;
        int before = roce_psn_after(psn, g->last);             /* last < psn */
        int holds = !before && !roce_psn_after(g->first, psn); /* first <= psn <= last */
        unsigned cls = ROCE_GAP_CLASSES, reason = ROCE_GAP_REASON_NONE;
        /* a NAK acknowledges every PSN before its own; an RNR NAK's own PSN
         * reached the responder (it had no buffer for it) */
        if ((before && nak) || (holds && rnr && psn == g->last))
            cls = ROCE_GAP_CAPTURE_LOSS;
        else if (holds && !rnr)
            cls = ROCE_GAP_NETWORK_LOSS;
        else if (!before) {
            cls = ROCE_GAP_UNDETERMINED;
            reason = ROCE_GAP_REASON_GO_BACK;
        }
        if (cls == ROCE_GAP_CLASSES) {
            prev = cur;
        } else {
            unlink_gap(e, x, prev, seq, g);
            settle(e, f, g, cls, reason, by);
        }
        cur = next;
    }
}

void roce_caploss_nak(struct roce_engine *e, struct roce_flow *f, uint32_t psn, uint64_t frame,
                      int rnr)
{
    responder_or_resend(e, f, psn, frame, 1, rnr);
}

void roce_caploss_resend(struct roce_engine *e, struct roce_flow *f, uint32_t psn, uint64_t frame)
{
    responder_or_resend(e, f, psn, frame, 0, 0);
}

int roce_caploss_late(struct roce_engine *e, struct roce_flow *f, struct roce_verdict *v)
{
    struct flow_ev *x = roce_flow_cold(f)->ev;
    uint64_t prev = 0, cur;
    unsigned scanned = 0;
    int64_t window;
    if (x == NULL || x->gap_n == 0 || f->req.in_episode)
        return 0;
    window = nak_rtt(e, f);
    if (window < e->cfg.nak_rtt_ns)
        window = e->cfg.nak_rtt_ns;
    for (cur = x->gap_head; cur != 0 && scanned < LATE_SCAN_MAX; scanned++) {
        uint64_t seq = cur - 1;
        struct gap_entry *g = entry(e, seq);
        uint32_t at = (uint32_t)roce_psn_diff(v->psn, g->first);
        if (roce_psn_after(g->first, v->psn) || roce_psn_after(v->psn, g->last) ||
            at >= LATE_BITS) {
            prev = cur;
            cur = g->next;
            continue;
        }
        if ((g->late >> at & 1u) || v->ts_ns - g->ts > window)
            return 0; /* seen before, or too late to be out of order: a resend */
        g->late |= UINT64_C(1) << at;
        g->late_n++;
        v->flags |= ROCE_V_REORDERED;
        v->reorder_psns = (uint32_t)roce_psn_diff(f->req.highest, v->psn);
        v->reorder_ns = v->ts_ns - g->ts;
        v->reorder_gap_frame = g->frame;
        struct roce_flow_report *r = &roce_flow_cold(f)->report;
        r->reordered_packets++;
        e->totals.reordered_packets++;
        if (v->reorder_psns > r->reorder_max_psns)
            r->reorder_max_psns = v->reorder_psns;
        if (v->reorder_ns > r->reorder_max_ns)
            r->reorder_max_ns = v->reorder_ns;
        roce_ev_note(e, f, ROCE_DIAG_REORDERING, v->frame);
        if (g->late_n == g->missing) {
            unlink_gap(e, x, prev, seq, g);
            settle(e, f, g, ROCE_GAP_REORDERED, ROCE_GAP_REASON_NONE, v->frame);
        }
        return 1;
    }
    return 0;
}

void roce_caploss_expire(struct roce_engine *e, int64_t now, int flush)
{
    e->gapq_next = INT64_MAX;
    while (e->gapq.head < e->gapq.tail) {
        const struct gap_entry *g = entry(e, e->gapq.head);
        if (g->open && !flush && g->deadline >= now) {
            e->gapq_next = g->deadline;
            break;
        }
        pop_oldest(e, ROCE_GAP_REASON_ENDED);
    }
}

void roce_caploss_forget(struct roce_engine *e, struct roce_flow *f)
{
    settle_all_by_time(e, f, ROCE_GAP_REASON_ENDED);
}

uint64_t roce_caploss_open(const struct roce_flow *f)
{
    const struct flow_ev *x = roce_flow_cold(f)->ev;
    return x != NULL ? x->gap_n : 0;
}

void roce_caploss_room(const struct roce_engine *e, uint32_t *room, uint32_t *max)
{
    *room = e->gapq.cap;
    *max = GAPQ_MAX;
}
