/*
 * roce_dcqcn.c - DCQCN reaction (ANALYSIS.md "DCQCN reaction").
 *
 * For each CNP at time t of the connection of a RoCEv2 request flow (or of
 * a native InfiniBand one: its congestion control, IBA Annex A10, lowers
 * the rate on a CNP or BECN as DCQCN does), the
 * flow's own request packets in the window before it, [t - W, t), and in the
 * window after it, [t + D, t + D + W). The before window is summed at once
 * from the flow's recent requests (roce_reqlog.c); the after window as its
 * packets arrive. A CNP is evaluated when each window holds at least
 * dcqcn_min_packets packets and a frame later than the after window's end
 * was captured (the window ended before the last packet); its ratio is the
 * rate after over the rate before. The flow's medians and verdict come from
 * the evaluated CNPs (roce_lat keeps them: exact up to 32 CNPs).
 *
 * Bounds: a CNP whose before window the engine's ring of recent requests
 * (REQLOG_ENTRIES of all flows) no longer reaches, or that finds
 * DCQCN_PENDING CNPs of its flow (or 65536 in all) still open, is not
 * evaluated and is counted in dcqcn_untracked. The CNP's verdict waits
 * for its evaluation and gains dcqcn with the two rates and the ratio.
 */
#include "roce_dcqcn.h"

#include <stdlib.h>
#include <string.h>

#include "roce_diag.h"
#include "roce_evidence.h"
#include "roce_internal.h"
#include "roce_reqlog.h"
#include "roce_verdq.h"

#define DCQ_INITIAL   256u
#define DCQ_MAX       65536u
#define PPM           1000000u
#define MBPS_PER_BPNS 1000u /* bits per ns are Gb/s: x 1000 for Mb/s */
#define BITS_PER_BYTE 8u
#define PCT_TO_PPM    10000u
#define MEDIAN_PCT    50u

/* An open CNP in arrival order (all windows have the same length: their
 * ends come in the same order). */
struct dcq_entry {
    uint64_t flow_id;
    int64_t end;
    uint32_t flow; /* handle */
};

int roce_dcqcn_init(struct roce_engine *e)
{
    e->dcq_next = INT64_MAX;
    return roce_ring_init(&e->dcq, DCQ_INITIAL, sizeof(struct dcq_entry));
}

static struct dcqcn_state *state_of(struct roce_engine *e, struct roce_flow *x)
{
    struct roce_flow_cold *c = roce_flow_cold(x);
    if (c->dcqcn == NULL) {
        c->dcqcn = calloc(1, sizeof *c->dcqcn);
        if (c->dcqcn == NULL) {
            e->alloc_failures++;
            return NULL;
        }
        roce_lat_init(&c->dcqcn->before);
        roce_lat_init(&c->dcqcn->after);
        roce_lat_init(&c->dcqcn->ratio);
    }
    return c->dcqcn;
}

/* Bytes in a window of W ns as Mb/s (saturating). */
static uint32_t mbps(const struct roce_engine *e, uint64_t bytes)
{
    uint64_t w = (uint64_t)e->cfg.dcqcn_window_ns;
    if (bytes > UINT64_MAX / (BITS_PER_BYTE * MBPS_PER_BPNS))
        return UINT32_MAX;
    uint64_t r = bytes * BITS_PER_BYTE * MBPS_PER_BPNS / w;
    return r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}

void roce_dcqcn_cnp(struct roce_engine *e, struct roce_flow *x, uint64_t frame, uint64_t vq_seq,
                    int64_t t, int current)
{
    const int64_t w = e->cfg.dcqcn_window_ns, d = e->cfg.dcqcn_delay_ns;
    /* RoCEv2's DCQCN, and InfiniBand's congestion control (IBA Annex A10),
     * which lowers the rate on a CNP or BECN alike */
    if ((x->key.version != ROCE_VERSION_2 && x->key.version != ROCE_VERSION_IB) ||
        roce_flow_requests(x) == 0)
        return;
    struct dcqcn_state *s = state_of(e, x);
    if (s == NULL)
        return;
    struct dcqcn_eval ev = {frame, vq_seq, t, 0, 0, 0, 0};
    /* a CNP decided late: its after window may have begun (the requests
     * since are kept); the later ones are added as they come */
    int lost = roce_reqlog_window(e, x, t - w, t, &ev.before_bytes, &ev.before_packets) ||
               roce_reqlog_window(e, x, t + d, t + d + w, &ev.after_bytes, &ev.after_packets);
    if (lost || s->count == DCQCN_PENDING) {
        e->totals.dcqcn_untracked++;
        return;
    }
    if (ev.before_packets < e->cfg.dcqcn_min_packets)
        return; /* not evaluated, by the definition: nothing to wait for */
    if (roce_ring_count(&e->dcq) == e->dcq.cap &&
        (e->dcq.cap >= DCQ_MAX || roce_ring_grow(&e->dcq, sizeof(struct dcq_entry)) != 0)) {
        if (e->dcq.cap < DCQ_MAX)
            e->alloc_failures++;
        e->totals.dcqcn_untracked++;
        return;
    }
    s->pend[(s->head + s->count) % DCQCN_PENDING] = ev;
    s->count++;
    x->req.dcqcn_open = s->count;
    struct dcq_entry *q = roce_ring_at(&e->dcq, sizeof *q, e->dcq.tail++);
    q->flow_id = x->id;
    q->flow = x->self;
    q->end = t + d + w;
    if (e->dcq.tail - e->dcq.head == 1)
        e->dcq_next = q->end;
    if (current)
        roce_cur_expect(e, q->end);
    else
        roce_vq_hold(e, vq_seq, frame, q->end);
}

void roce_dcqcn_request(const struct roce_engine *e, struct roce_flow *f, int64_t ts, uint32_t len)
{
    struct dcqcn_state *s = roce_flow_cold(f)->dcqcn;
    const int64_t d = e->cfg.dcqcn_delay_ns, w = e->cfg.dcqcn_window_ns;
    for (unsigned i = 0; s != NULL && i < s->count; i++) {
        struct dcqcn_eval *ev = &s->pend[(s->head + i) % DCQCN_PENDING];
        if (ts >= ev->ts + d && ts < ev->ts + d + w) {
            ev->after_bytes += len;
            ev->after_packets++;
        }
    }
}

/* The after window of f's oldest open CNP has ended: evaluate it. */
static void evaluate(struct roce_engine *e, struct roce_flow *f)
{
    struct dcqcn_state *s = roce_flow_cold(f)->dcqcn;
    const struct dcqcn_eval *ev = &s->pend[s->head];
    struct roce_verdict *v = roce_vq_get(e, ev->vq_seq, ev->frame);
    s->head = (uint8_t)((s->head + 1) % DCQCN_PENDING);
    s->count--;
    f->req.dcqcn_open = s->count;
    if (ev->after_packets >= e->cfg.dcqcn_min_packets && ev->before_bytes > 0) {
        uint32_t before = mbps(e, ev->before_bytes), after = mbps(e, ev->after_bytes);
        uint64_t ratio = ev->after_bytes > UINT64_MAX / PPM
                             ? UINT32_MAX
                             : ev->after_bytes * PPM / ev->before_bytes;
        if (ratio > UINT32_MAX)
            ratio = UINT32_MAX;
        if (roce_lat_add(&s->before, before) != 0 || roce_lat_add(&s->after, after) != 0 ||
            roce_lat_add(&s->ratio, (int64_t)ratio) != 0)
            e->alloc_failures++;
        s->evaluated++;
        e->totals.dcqcn_cnps_evaluated++;
        roce_hist_add(&e->hist[ROCE_HIST_DCQCN_RATIO], ROCE_HIST_DCQCN_RATIO, (int64_t)ratio);
        roce_ev_note(e, f, ROCE_DIAG_CNP_IGNORED, ev->frame);
        if (v != NULL) {
            v->flags |= ROCE_V_DCQCN;
            v->dcqcn_before_mbps = before;
            v->dcqcn_after_mbps = after;
            v->dcqcn_ratio_ppm = (uint32_t)ratio;
        }
    }
    roce_vq_done(e, ev->vq_seq, ev->frame);
}

void roce_dcqcn_expire(struct roce_engine *e, int64_t now, int flush)
{
    e->dcq_next = INT64_MAX;
    while (e->dcq.head < e->dcq.tail) {
        const struct dcq_entry *q = roce_ring_at(&e->dcq, sizeof *q, e->dcq.head);
        if (!flush && q->end >= now) {
            e->dcq_next = q->end;
            break;
        }
        e->dcq.head++;
        struct roce_flow *f = roce_flow_at(&e->flows, q->flow);
        if (f->id != q->flow_id || roce_flow_cold(f)->dcqcn == NULL ||
            roce_flow_cold(f)->dcqcn->count == 0)
            continue;
        if (flush && q->end >= now) {
            /* the capture ended inside its after window: not evaluated */
            struct dcqcn_state *s = roce_flow_cold(f)->dcqcn;
            roce_vq_done(e, s->pend[s->head].vq_seq, s->pend[s->head].frame);
            s->head = (uint8_t)((s->head + 1) % DCQCN_PENDING);
            s->count--;
            f->req.dcqcn_open = s->count;
        } else {
            evaluate(e, f);
        }
    }
}

void roce_dcqcn_forget(struct roce_engine *e, struct roce_flow *f)
{
    struct dcqcn_state *s = roce_flow_cold(f)->dcqcn;
    for (; s != NULL && s->count > 0; s->count--) {
        const struct dcqcn_eval *ev = &s->pend[s->head];
        roce_vq_done(e, ev->vq_seq, ev->frame);
        s->head = (uint8_t)((s->head + 1) % DCQCN_PENDING);
    }
    f->req.dcqcn_open = 0;
}

void roce_dcqcn_report(const struct roce_engine *e, const struct roce_flow *f,
                       struct roce_flow_report *r)
{
    const struct dcqcn_state *s = roce_flow_cold(f)->dcqcn;
    struct roce_dcqcn_report *d = &r->dcqcn;
    memset(d, 0, sizeof *d);
    if (s == NULL)
        return;
    d->tracked = 1;
    d->cnps_evaluated = s->evaluated;
    if (s->evaluated > 0) {
        d->rate_before_mbps = (uint32_t)roce_lat_percentile(&s->before, MEDIAN_PCT);
        d->rate_after_mbps = (uint32_t)roce_lat_percentile(&s->after, MEDIAN_PCT);
        d->ratio_ppm = (uint32_t)roce_lat_percentile(&s->ratio, MEDIAN_PCT);
    }
    d->verdict = (uint8_t)roce_dcqcn_verdict_of(&e->cfg, d->cnps_evaluated, d->ratio_ppm);
}

static const char *const dcqcn_names[ROCE_DCQCN_VERDICTS] = {
    [ROCE_DCQCN_UNDETERMINED] = "undetermined",
    [ROCE_DCQCN_REACTED] = "reacted",
    [ROCE_DCQCN_IGNORED] = "ignored",
};

const char *roce_dcqcn_verdict_name(unsigned v)
{
    return v < ROCE_DCQCN_VERDICTS ? dcqcn_names[v] : "unknown";
}

unsigned roce_dcqcn_verdict_of(const struct roce_config *cfg, uint64_t cnps_evaluated,
                               uint32_t ratio_ppm)
{
    if (cnps_evaluated < cfg->dcqcn_min_cnps)
        return ROCE_DCQCN_UNDETERMINED;
    if (ratio_ppm <= (uint64_t)cfg->dcqcn_reacted_pct * PCT_TO_PPM)
        return ROCE_DCQCN_REACTED;
    if (ratio_ppm >= (uint64_t)cfg->dcqcn_ignored_pct * PCT_TO_PPM)
        return ROCE_DCQCN_IGNORED;
    return ROCE_DCQCN_UNDETERMINED;
}

void roce_dcqcn_free(struct roce_flow *f)
{
    struct roce_flow_cold *c = roce_flow_cold(f);
    if (c->dcqcn == NULL)
        return;
    roce_lat_free(&c->dcqcn->before);
    roce_lat_free(&c->dcqcn->after);
    roce_lat_free(&c->dcqcn->ratio);
    free(c->dcqcn);
    c->dcqcn = NULL;
}

void roce_dcqcn_room(const struct roce_engine *e, uint32_t *room, uint32_t *max)
{
    *room = e->dcq.cap;
    *max = DCQ_MAX;
}
