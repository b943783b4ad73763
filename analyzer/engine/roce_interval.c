/*
 * roce_interval.c - the flows active in an interval (see roce_engine.h,
 * roce_engine_interval_flows): what a live monitor compares from one
 * interval to the next, at a cost proportional to the flows active in the
 * interval, never to the table.
 *
 * The table lists every flow it finds or creates, once per interval
 * (roce_flow_touch, roce_flow.c), and the analysis lists a flow whose counts
 * it changes from another flow's frame or from a timer (a CNP decided for
 * its request flow). A flow keeps its counts as the last interval listed it
 * (interval_mark): a flow not listed since counted nothing, so its increase
 * is zero and it need not be visited.
 */
#include "roce_engine.h"
#include "roce_internal.h"

/* A flow's counts now. */
static void counts_of(const struct roce_flow *f, struct roce_flow_counts *c)
{
    const struct roce_flow_report *r = &roce_flow_cold(f)->report;
    c->packets = f->packets;
    c->retransmitted_packets = r->retransmitted_packets;
    c->naks = r->naks.total;
    c->gap_events = r->gap_events;
    c->missing_psns = r->missing_psns;
    c->ce_marked = r->ce_marked;
    c->cnps_for_flow = r->cnps_for_flow;
}

/* Hand f's counts and their increase since it was last listed to fn, and
 * take them as its new mark. */
static void visit(struct roce_flow *f, void (*fn)(void *, const struct roce_flow_interval *),
                  void *ctx)
{
    struct roce_flow_interval x;
    const struct roce_flow_counts *m = &roce_flow_cold(f)->interval_mark;
    x.id = f->id;
    x.key = f->key;
    x.transport = f->transport;
    counts_of(f, &x.now);
    x.delta.packets = x.now.packets - m->packets;
    x.delta.retransmitted_packets = x.now.retransmitted_packets - m->retransmitted_packets;
    x.delta.naks = x.now.naks - m->naks;
    x.delta.gap_events = x.now.gap_events - m->gap_events;
    x.delta.missing_psns = x.now.missing_psns - m->missing_psns;
    x.delta.ce_marked = x.now.ce_marked - m->ce_marked;
    x.delta.cnps_for_flow = x.now.cnps_for_flow - m->cnps_for_flow;
    roce_flow_cold(f)->interval_mark = x.now;
    fn(ctx, &x);
}

size_t roce_engine_interval_flows(struct roce_engine *e,
                                  void (*fn)(void *, const struct roce_flow_interval *), void *ctx)
{
    struct roce_flow_table *t = &e->flows;
    size_t n = 0;
    if (t->step == 0 || t->active_lost) {
        /* the first interval (the list starts now), or a list that could
         * not grow: every flow, those that counted nothing with a zero increase */
        uint32_t h = 0;
        for (struct roce_flow *f; (f = roce_flow_next(t, &h)) != NULL; n++)
            visit(f, fn, ctx);
    } else {
        for (uint32_t i = 0; i < t->n_active; i++) {
            struct roce_flow *f = roce_flow_at(t, t->active[i]);
            /* released since (free slot), or listed already (a slot reused
             * by a new flow in the interval is listed twice) */
            if (f->id == 0 || f->interval_step != t->step)
                continue;
            f->interval_step = 0;
            visit(f, fn, ctx);
            n++;
        }
    }
    roce_flow_next_interval(t);
    return n;
}
