/*
 * html_series.c - the series the HTML report plots, collected in bounded
 * memory from the engine's output of every frame and its settled verdicts
 * (see html.h, html_series.h).
 *
 * Per flow: ROCE_HTML_BUCKETS time buckets from the flow's first frame. The
 * first bucket is 16 ns wide; when a frame falls past the last bucket,
 * neighbouring buckets are merged two by two and the width doubles, so any
 * span fits in the same memory (the PFC/PAUSE timeline works the same way,
 * from the capture's first frame). Per flow also its frames with verdicts
 * (at most ROCE_HTML_MARKS_PER_FLOW, ROCE_HTML_MAX_MARKS in all).
 *
 * Which flows have series: every flow, from its first frame, up to
 * ROCE_HTML_MAX_SERIES flows in the capture. The page draws the flows the
 * report ranks worst (report_rank.c), which it knows only at the end; with
 * every flow's series kept, the drawn ones are complete whatever the ranking
 * turns out to be (the guarantee holds up to that bound, 8192 flows, which
 * is twice the engine's flows of a 2,000-QP capture with its CM and paired
 * flows). Past the bound, a new flow takes the place of the series with the
 * fewest frames with verdicts so far (gaps weighted by the PSNs they miss,
 * then the least recently active) among EVICT_SCAN examined from a
 * rotating hand: the flows with trouble are the last to go, but a flow whose
 * trouble comes late may have lost its start. The page then does not guess:
 * a drawn flow whose series does not span its first to its last frame, or
 * lost frames with verdicts, is marked partial on its graph
 * (roce_html_series_complete). Everything dropped is counted.
 *
 * PFC/PAUSE: the engine accounts paused time as the union of the pause
 * intervals, settled up to "now" whenever its totals are read. Sampled after
 * every MAC Control frame, the paused time added since the previous sample
 * of a priority lies at the start of the time between the two samples (no
 * frame came between them to restart or end a pause), which is where the
 * timeline puts it: its buckets add up to the report's paused_ns exactly.
 */
#include "html_series.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_SHIFT    4 /* the first buckets are 2^4 = 16 ns wide */
#define FIRST_WIDTH_NS (INT64_C(1) << FIRST_SHIFT)
#define SLOTS_MIN      64
#define LOAD_PCT       50 /* slots in use at most, percent */
#define PCT            100
#define MARKS_FIRST    16
#define HASH_MULT      0x9E3779B97F4A7C15ull
#define BUCKET_BITS    8   /* ROCE_HTML_BUCKETS < 2^8: a bucket index shifted by 8 is 0 */
#define HOT_ALIGN      128 /* the two cache lines of a flow's hot fields */
#define FLOW_SIZE      ((sizeof(struct roce_html_flow) + HOT_ALIGN - 1) / HOT_ALIGN * HOT_ALIGN)
#define EVICT_SCAN     64 /* series examined to choose the one to evict */

struct roce_html_series *roce_html_series_new(void)
{
    struct roce_html_series *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->n_slots = SLOTS_MIN;
    while (s->n_slots * LOAD_PCT / PCT < ROCE_HTML_MAX_SERIES)
        s->n_slots *= 2;
    s->slots = calloc(s->n_slots, sizeof *s->slots);
    s->loose = calloc(ROCE_HTML_MAX_LOOSE, sizeof *s->loose);
    if (s->slots == NULL || s->loose == NULL) {
        roce_html_series_free(s);
        return NULL;
    }
    return s;
}

void roce_html_series_free(struct roce_html_series *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; s->slots != NULL && i < s->n_slots; i++)
        if (s->slots[i].f != NULL) {
            free(s->slots[i].f->marks);
            free(s->slots[i].f);
        }
    free(s->slots);
    free(s->loose);
    free(s->pfc);
    free(s);
}

/* ---- the flows: a table by id, with their latest activity ---- */

static size_t home(const struct roce_html_series *s, uint64_t id)
{
    return (size_t)((id * HASH_MULT) >> 32) & (s->n_slots - 1);
}

static size_t find_slot(const struct roce_html_series *s, uint64_t id)
{
    size_t i = home(s, id);
    while (s->slots[i].f != NULL && s->slots[i].id != id)
        i = (i + 1) & (s->n_slots - 1);
    return i;
}

const struct roce_html_flow *roce_html_series_flow(const struct roce_html_series *s, uint64_t id)
{
    return s->slots[find_slot(s, id)].f;
}

/* Remove the flow in slot i (linear probing: the entries after it that
 * would no longer be found move back). */
static void remove_slot(struct roce_html_series *s, size_t i)
{
    const size_t mask = s->n_slots - 1;
    struct roce_html_flow *f = s->slots[i].f;
    s->n_marks -= f->n_marks;
    s->n_flows--;
    s->last = NULL;
    free(f->marks);
    free(f);
    s->slots[i].f = NULL;
    for (size_t j = (i + 1) & mask; s->slots[j].f != NULL; j = (j + 1) & mask) {
        size_t h = home(s, s->slots[j].id);
        /* the entry at j stays when its home lies cyclically in (i, j] */
        if ((j > i && h > i && h <= j) || (j < i && (h > i || h <= j)))
            continue;
        s->slots[i] = s->slots[j];
        s->slots[j].f = NULL;
        i = j;
    }
}

/* The slot of the series to evict (the table is not empty): among the next
 * EVICT_SCAN series from the hand, the one with the least trouble so far,
 * then the least recently active. Bounded work per eviction; the hand moves
 * on so that every series is examined in turn. */
static size_t victim_slot(struct roce_html_series *s)
{
    const size_t mask = s->n_slots - 1;
    size_t best = s->n_slots, seen = 0, i = s->hand & mask;
    for (size_t n = 0; n < s->n_slots && seen < EVICT_SCAN; n++, i = (i + 1) & mask) {
        const struct roce_html_slot *c = &s->slots[i];
        if (c->f == NULL)
            continue;
        seen++;
        if (best == s->n_slots || c->trouble < s->slots[best].trouble ||
            (c->trouble == s->slots[best].trouble && c->last_ts_ns < s->slots[best].last_ts_ns))
            best = i;
    }
    s->hand = i;
    return best;
}

/* The slot of the flow's series, made when new (evicting one at the bound:
 * victim_slot), its activity brought up to ts; NULL when out of memory. */
static struct roce_html_slot *get_slot(struct roce_html_series *s, uint64_t id, int64_t ts)
{
    struct roce_html_slot *sl = s->last;
    if (sl == NULL || sl->id != id || sl->f == NULL) {
        size_t i = find_slot(s, id);
        if (s->slots[i].f == NULL) {
            struct roce_html_flow *f = aligned_alloc(HOT_ALIGN, FLOW_SIZE);
            if (f == NULL) {
                s->alloc_failures++;
                return NULL;
            }
            if (s->n_flows >= ROCE_HTML_MAX_SERIES) {
                remove_slot(s, victim_slot(s));
                s->flows_evicted++;
                i = find_slot(s, id);
            }
            memset(f, 0, FLOW_SIZE);
            f->id = id;
            f->origin_ns = ts;
            f->first_ts_ns = f->last_ts_ns = ts;
            f->shift = FIRST_SHIFT;
            f->width_ns = FIRST_WIDTH_NS;
            s->slots[i] = (struct roce_html_slot){id, ts, 0, f};
            s->n_flows++;
        }
        sl = s->last = &s->slots[i];
    }
    if (ts > sl->last_ts_ns)
        sl->last_ts_ns = ts;
    return sl;
}

static struct roce_html_flow *get_flow(struct roce_html_series *s, uint64_t id, int64_t ts)
{
    struct roce_html_slot *sl = get_slot(s, id, ts);
    return sl != NULL ? sl->f : NULL;
}

/* ---- buckets ---- */

static void merge_bucket(struct roce_html_bucket *d, const struct roce_html_bucket *x)
{
    if (x->req_new) {
        if (!d->req_new || x->req_lo < d->req_lo)
            d->req_lo = x->req_lo;
        if (!d->req_new || x->req_hi > d->req_hi)
            d->req_hi = x->req_hi;
    }
    if (x->resp && (!d->resp || x->resp_hi > d->resp_hi))
        d->resp_hi = x->resp_hi;
    d->bytes += x->bytes;
    d->packets += x->packets;
    d->req_new += x->req_new;
    d->resp += x->resp;
}

/* The bucket being filled goes into b[]. */
static void flush(struct roce_html_flow *f)
{
    merge_bucket(&f->b[f->cur_k], &f->cur);
    memset(&f->cur, 0, sizeof f->cur);
}

/* The bucket that takes time t (cur, made the bucket of t): when t lies
 * past the last bucket, the width doubles as often as needed, in one pass
 * (bucket j goes into j >> times). Widths are powers of two (a shift, not a
 * division, per frame); most frames fall in the bucket of the frame before. */
static struct roce_html_bucket *flow_bucket(struct roce_html_flow *f, int64_t t)
{
    uint64_t d = t > f->origin_ns ? (uint64_t)(t - f->origin_ns) : 0;
    unsigned times = 0;
    if ((d >> f->shift) == f->cur_k)
        return &f->cur;
    flush(f);
    while ((d >> (f->shift + times)) >= ROCE_HTML_BUCKETS)
        times++;
    for (unsigned j = 1; times > 0 && j < ROCE_HTML_BUCKETS; j++) {
        unsigned to = times < BUCKET_BITS ? j >> times : 0;
        if (to != j && (f->b[j].packets || f->b[j].resp)) {
            merge_bucket(&f->b[to], &f->b[j]);
            memset(&f->b[j], 0, sizeof f->b[j]);
        }
    }
    f->shift += times;
    f->width_ns <<= times;
    f->cur_k = (uint32_t)(d >> f->shift);
    return &f->cur;
}

unsigned roce_html_bucket_of(const struct roce_html_flow *f, int64_t t)
{
    int64_t d = t > f->origin_ns ? (t - f->origin_ns) / f->width_ns : 0;
    return d < ROCE_HTML_BUCKETS ? (unsigned)d : ROCE_HTML_BUCKETS - 1;
}

/* Unwrap psn in a sequence, starting it when new. */
static int64_t seq_unwrap(struct roce_html_seq *q, uint32_t psn)
{
    if (!q->have) {
        q->have = 1;
        q->first = psn;
        q->last = psn;
    }
    q->last = roce_psn_unwrap(q->last, psn);
    return q->last;
}

static uint8_t kind_of(uint8_t opcode, int has_bth)
{
    const struct roce_opcode_info *op = has_bth ? roce_opcode_lookup(opcode) : NULL;
    if (op == NULL)
        return ROCE_HTML_MARK_OTHER;
    switch (op->kind) {
    case ROCE_KIND_REQUEST:
        return ROCE_HTML_MARK_REQUEST;
    case ROCE_KIND_RESPONSE:
        return ROCE_HTML_MARK_RESPONSE;
    case ROCE_KIND_CNP:
        return ROCE_HTML_MARK_CNP;
    default:
        return ROCE_HTML_MARK_OTHER;
    }
}

/* ---- PFC/PAUSE ---- */

/* Halve the timeline's resolution until t fits. */
static void pfc_fit(struct roce_html_pfc *p, int64_t t)
{
    while ((t - p->origin_ns) / p->width_ns >= ROCE_HTML_PFC_BUCKETS) {
        for (unsigned r = 0; r < ROCE_HTML_PFC_SLOTS; r++) {
            for (unsigned k = 0; k < ROCE_HTML_PFC_BUCKETS / 2; k++) {
                p->paused[r][k] = p->paused[r][2 * k] + p->paused[r][2 * k + 1];
                p->xoff[r][k] = p->xoff[r][2 * k] + p->xoff[r][2 * k + 1];
                p->xon[r][k] = p->xon[r][2 * k] + p->xon[r][2 * k + 1];
            }
            for (unsigned k = ROCE_HTML_PFC_BUCKETS / 2; k < ROCE_HTML_PFC_BUCKETS; k++)
                p->paused[r][k] = p->xoff[r][k] = p->xon[r][k] = 0;
        }
        p->width_ns *= 2;
    }
}

static unsigned pfc_bucket(struct roce_html_pfc *p, int64_t t)
{
    if (t < p->origin_ns)
        t = p->origin_ns;
    pfc_fit(p, t);
    return (unsigned)((t - p->origin_ns) / p->width_ns);
}

/* Spread amount (ns) evenly over [from, to) in a row of the timeline (all
 * of it at from when to <= from). */
static void pfc_spread(struct roce_html_pfc *p, unsigned row, int64_t from, int64_t to,
                       int64_t amount)
{
    if (from < p->origin_ns)
        from = p->origin_ns;
    if (to <= from) {
        p->paused[row][pfc_bucket(p, from)] += amount;
        return;
    }
    pfc_fit(p, to - 1);
    if (to > p->end_ns)
        p->end_ns = to;
    int64_t span = to - from, given = 0;
    for (int64_t t = from; t < to;) {
        unsigned k = pfc_bucket(p, t);
        int64_t bend = roce_html_bucket_start(p->origin_ns, p->width_ns, k + 1);
        int64_t upto = bend < to ? bend : to;
        /* the share of this part, computed from the running total so that
         * the parts add up to amount exactly */
        int64_t upto_share = (int64_t)((__int128)amount * (upto - from) / span);
        p->paused[row][k] += upto_share - given;
        given = upto_share;
        t = upto;
    }
}

/* Sample the engine's PFC/PAUSE totals at now. */
static void pfc_sample(struct roce_html_series *s, struct roce_engine *e, int64_t now)
{
    if (s->pfc == NULL) {
        s->pfc = calloc(1, sizeof *s->pfc);
        if (s->pfc == NULL) {
            s->alloc_failures++;
            return;
        }
        s->pfc->origin_ns = s->have_first ? s->first_ts_ns : now;
        s->pfc->width_ns = FIRST_WIDTH_NS;
        s->pfc->end_ns = s->pfc->origin_ns;
    }
    const struct roce_pfc_report *r = &roce_engine_totals(e)->pfc;
    for (unsigned i = 0; i < ROCE_HTML_PFC_SLOTS; i++) {
        const struct roce_pfc_prio *p = i < ROCE_PFC_PRIORITIES ? &r->prio[i] : &r->pause;
        struct roce_html_pfc_sample *l = &s->pfc_last[i];
        int64_t dpaused = p->paused_ns - l->paused_ns;
        if (dpaused > 0)
            pfc_spread(s->pfc, i, l->ts_ns, l->ts_ns + dpaused, dpaused);
        unsigned k = pfc_bucket(s->pfc, now);
        s->pfc->xoff[i][k] += (uint32_t)(p->xoff - l->xoff);
        s->pfc->xon[i][k] += (uint32_t)(p->xon - l->xon);
        l->ts_ns = now;
        l->paused_ns = p->paused_ns;
        l->xoff = p->xoff;
        l->xon = p->xon;
    }
}

/* ---- the capture's timeline ---- */

/* Halve the timeline's resolution until t fits; the bucket of t. */
static unsigned tl_bucket(struct roce_html_timeline *tl, int64_t t)
{
    if (t < tl->origin_ns)
        t = tl->origin_ns;
    /* the width is 2^shift: a shift, not a division, for every frame */
    while (((uint64_t)(t - tl->origin_ns) >> tl->shift) >= ROCE_HTML_TL_BUCKETS) {
        for (unsigned k = 0; k < ROCE_HTML_TL_BUCKETS / 2; k++) {
            tl->bytes[k] = tl->bytes[2 * k] + tl->bytes[2 * k + 1];
            tl->packets[k] = tl->packets[2 * k] + tl->packets[2 * k + 1];
            tl->ce[k] = tl->ce[2 * k] + tl->ce[2 * k + 1];
            tl->cnp[k] = tl->cnp[2 * k] + tl->cnp[2 * k + 1];
        }
        for (unsigned k = ROCE_HTML_TL_BUCKETS / 2; k < ROCE_HTML_TL_BUCKETS; k++)
            tl->bytes[k] = tl->packets[k] = tl->ce[k] = tl->cnp[k] = 0;
        tl->width_ns *= 2;
        tl->shift++;
    }
    if (t > tl->end_ns)
        tl->end_ns = t;
    return (unsigned)((uint64_t)(t - tl->origin_ns) >> tl->shift);
}

/* Count a frame (or a bucket of another timeline) at t. */
static void tl_add(struct roce_html_timeline *tl, int64_t t, uint64_t bytes, uint32_t packets,
                   uint32_t ce, uint32_t cnp)
{
    if (!tl->have) {
        tl->have = 1;
        tl->origin_ns = tl->end_ns = t;
        tl->width_ns = FIRST_WIDTH_NS;
        tl->shift = FIRST_SHIFT;
    }
    unsigned k = tl_bucket(tl, t);
    tl->bytes[k] += bytes;
    tl->packets[k] += packets;
    tl->ce[k] += ce;
    tl->cnp[k] += cnp;
}

/* ---- what front ends call ---- */

void roce_html_series_frame(void *ctx, struct roce_engine *e, const struct roce_frame_in *in,
                            const struct roce_frame_out *out)
{
    struct roce_html_series *s = ctx;
    const struct roce_verdict *v = &out->verdict;
    if (!s->have_first) {
        s->have_first = 1;
        s->first_ts_ns = v->ts_ns;
    }
    if (out->pkt.mac_ctrl != ROCE_MACCTRL_NONE)
        pfc_sample(s, e, v->ts_ns);
    uint8_t kind = kind_of(out->pkt.opcode, out->pkt.bth_captured);
    tl_add(&s->tl, v->ts_ns, in->wirelen, 1, (v->flags & ROCE_V_CE) != 0,
           v->has_flow && kind == ROCE_HTML_MARK_CNP);
    if (!v->has_flow)
        return;
    struct roce_html_flow *f = get_flow(s, v->flow_id, v->ts_ns);
    if (f == NULL)
        return;
    struct roce_html_bucket *b = flow_bucket(f, v->ts_ns);
    b->packets++;
    b->bytes += in->wirelen;
    if (kind == ROCE_HTML_MARK_REQUEST) {
        int64_t a = seq_unwrap(&f->req, out->pkt.psn);
        if (v->flags & ROCE_V_RETRANSMISSION)
            return;
        if (!b->req_new || a < b->req_lo)
            b->req_lo = a;
        if (!b->req_new || a > b->req_hi)
            b->req_hi = a;
        b->req_new++;
    } else if (kind == ROCE_HTML_MARK_RESPONSE) {
        int64_t a = seq_unwrap(&f->resp, out->pkt.psn);
        if (!b->resp || a > b->resp_hi)
            b->resp_hi = a;
        b->resp++;
    }
}

/* Keep one more mark in f; NULL (counted) beyond the bounds. */
static struct roce_html_mark *add_mark(struct roce_html_series *s, struct roce_html_flow *f)
{
    if (f->n_marks >= ROCE_HTML_MARKS_PER_FLOW || s->n_marks >= ROCE_HTML_MAX_MARKS)
        goto dropped;
    if (f->n_marks == f->cap_marks) {
        uint32_t cap = f->cap_marks ? f->cap_marks * 2 : MARKS_FIRST;
        if (cap > ROCE_HTML_MARKS_PER_FLOW)
            cap = ROCE_HTML_MARKS_PER_FLOW;
        struct roce_html_mark *m = realloc(f->marks, cap * sizeof *m);
        if (m == NULL) {
            s->alloc_failures++;
            goto dropped;
        }
        f->marks = m;
        f->cap_marks = cap;
    }
    s->n_marks++;
    return &f->marks[f->n_marks++];
dropped:
    f->marks_dropped++;
    s->marks_dropped++;
    return NULL;
}

void roce_html_series_verdict(const struct roce_verdict *v, void *ctx)
{
    struct roce_html_series *s = ctx;
    struct roce_html_mark *m;
    struct roce_html_flow *f = NULL;
    if (v->has_flow) {
        struct roce_html_slot *sl = get_slot(s, v->flow_id, v->ts_ns);
        if (sl == NULL) {
            s->marks_dropped++;
            return;
        }
        f = sl->f;
        sl->trouble += 1 + ((v->flags & (ROCE_V_GAP | ROCE_V_RESP_GAP)) ? v->missing_psns : 0);
        m = add_mark(s, f);
    } else if (s->n_loose < ROCE_HTML_MAX_LOOSE) {
        m = &s->loose[s->n_loose++];
    } else {
        s->loose_dropped++;
        return;
    }
    if (m == NULL)
        return;
    memset(m, 0, sizeof *m);
    m->frame = v->frame;
    m->ts_ns = v->ts_ns;
    m->psn = v->psn;
    m->flags = v->flags;
    if (v->flags & (ROCE_V_GAP | ROCE_V_RESP_GAP))
        m->missing = v->missing_psns;
    if (v->flags & ROCE_V_GAP)
        m->gap_class = v->gap_class;
    m->kind = v->has_flow ? kind_of(v->opcode, 1) : ROCE_HTML_MARK_OTHER;
    if (f != NULL && m->kind == ROCE_HTML_MARK_REQUEST)
        m->psn_abs = seq_unwrap(&f->req, v->psn);
    else if (f != NULL && m->kind == ROCE_HTML_MARK_RESPONSE)
        m->psn_abs = seq_unwrap(&f->resp, v->psn);
}

void roce_html_series_finish(struct roce_html_series *s, struct roce_engine *e)
{
    for (size_t i = 0; i < s->n_slots; i++)
        if (s->slots[i].f != NULL) {
            flush(s->slots[i].f);
            s->slots[i].f->last_ts_ns = s->slots[i].last_ts_ns;
        }
    if (s->pfc != NULL)
        pfc_sample(s, e, s->pfc_last[0].ts_ns);
}

/* ---- reading ---- */

int roce_html_series_complete(const struct roce_html_flow *f, int64_t first_ns, int64_t last_ns)
{
    return f != NULL && f->first_ts_ns <= first_ns && f->last_ts_ns >= last_ns &&
           f->marks_dropped == 0;
}

const struct roce_html_seq *roce_html_flow_seq(const struct roce_html_flow *f)
{
    return f->req.have ? &f->req : f->resp.have ? &f->resp : NULL;
}

/* The unwrapped PSN the flow's graph had reached around bucket k. */
static int64_t reference(const struct roce_html_flow *f, const struct roce_html_seq *q, unsigned k)
{
    int req = q == &f->req;
    for (unsigned d = 0; d < ROCE_HTML_BUCKETS; d++) {
        const struct roce_html_bucket *lo = d <= k ? &f->b[k - d] : NULL;
        const struct roce_html_bucket *hi = k + d < ROCE_HTML_BUCKETS ? &f->b[k + d] : NULL;
        if (lo != NULL && (req ? lo->req_new != 0 : lo->resp != 0))
            return req ? lo->req_hi : lo->resp_hi;
        if (hi != NULL && (req ? hi->req_new != 0 : hi->resp != 0))
            return req ? hi->req_lo : hi->resp_hi;
    }
    return q->last;
}

int64_t roce_html_flow_psn(const struct roce_html_flow *f, int64_t t, uint32_t psn)
{
    const struct roce_html_seq *q = roce_html_flow_seq(f);
    if (q == NULL)
        return 0;
    return roce_psn_unwrap(reference(f, q, roce_html_bucket_of(f, t)), psn) - (int64_t)q->first;
}

/* ---- -j ---- */

int roce_html_series_absorb(struct roce_html_series *dst, struct roce_html_series *src,
                            uint64_t frame_offset, uint64_t id_offset)
{
    int rc = 0;
    for (size_t i = 0; i < src->n_slots; i++) {
        struct roce_html_flow *g = src->slots[i].f;
        if (g == NULL)
            continue;
        struct roce_html_slot *sl = get_slot(dst, g->id + id_offset, src->slots[i].last_ts_ns);
        if (sl == NULL) {
            dst->flows_evicted++;
            rc = -1;
            continue;
        }
        /* the new series is g's, renumbered; g's place in src is emptied */
        free(sl->f->marks);
        free(sl->f);
        g->id = sl->id;
        for (uint32_t k = 0; k < g->n_marks; k++)
            g->marks[k].frame += frame_offset;
        dst->n_marks += g->n_marks;
        src->n_marks -= g->n_marks;
        sl->f = g;
        sl->trouble += src->slots[i].trouble;
        src->slots[i].f = NULL;
    }
    src->n_flows = 0;
    src->last = NULL;
    for (size_t k = 0; k < src->n_loose; k++) {
        if (dst->n_loose == ROCE_HTML_MAX_LOOSE) {
            dst->loose_dropped += src->n_loose - k;
            break;
        }
        dst->loose[dst->n_loose] = src->loose[k];
        dst->loose[dst->n_loose++].frame += frame_offset;
    }
    src->n_loose = 0;
    if (src->pfc != NULL) {
        const struct roce_html_pfc *p = src->pfc;
        if (dst->pfc == NULL && (dst->pfc = calloc(1, sizeof *dst->pfc)) != NULL) {
            dst->pfc->origin_ns = dst->have_first ? dst->first_ts_ns : p->origin_ns;
            dst->pfc->width_ns = FIRST_WIDTH_NS;
            dst->pfc->end_ns = dst->pfc->origin_ns;
        }
        if (dst->pfc == NULL) {
            dst->alloc_failures++;
            rc = -1;
        }
        for (unsigned r = 0; dst->pfc != NULL && r < ROCE_HTML_PFC_SLOTS; r++)
            for (unsigned k = 0; k < ROCE_HTML_PFC_BUCKETS; k++) {
                int64_t t = roce_html_bucket_start(p->origin_ns, p->width_ns, k);
                if (p->paused[r][k])
                    pfc_spread(dst->pfc, r, t,
                               roce_html_bucket_start(p->origin_ns, p->width_ns, k + 1),
                               p->paused[r][k]);
                if (p->xoff[r][k] || p->xon[r][k]) {
                    unsigned b = pfc_bucket(dst->pfc, t);
                    dst->pfc->xoff[r][b] += p->xoff[r][k];
                    dst->pfc->xon[r][b] += p->xon[r][k];
                }
            }
    }
    for (unsigned k = 0; src->tl.have && k < ROCE_HTML_TL_BUCKETS; k++)
        if (src->tl.packets[k])
            tl_add(&dst->tl, roce_html_bucket_start(src->tl.origin_ns, src->tl.width_ns, k),
                   src->tl.bytes[k], src->tl.packets[k], src->tl.ce[k], src->tl.cnp[k]);
    if (src->tl.have)
        (void)tl_bucket(&dst->tl, src->tl.end_ns);
    if (!dst->have_first && src->have_first) {
        dst->have_first = 1;
        dst->first_ts_ns = src->first_ts_ns;
    }
    dst->flows_evicted += src->flows_evicted;
    dst->marks_dropped += src->marks_dropped;
    dst->loose_dropped += src->loose_dropped;
    dst->alloc_failures += src->alloc_failures;
    src->flows_evicted = src->marks_dropped = src->loose_dropped = src->alloc_failures = 0;
    return rc;
}
