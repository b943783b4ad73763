/*
 * roce_vantage.c - the vantage-point analysis: set-up, the flows, and the
 * matching window of the second reading (see roce_vantage.h).
 *
 * Matching (ANALYSIS-DEFINITIONS, "Vantage points"): a record joins the
 * earliest open transmission of the same flow, PSN, opcode and length that
 * has no sighting at its point yet and whose first sighting is within the
 * path-delay bound (aligned times). Two sightings of which only one is a
 * retransmission by its point's engine must have the retransmission first:
 * where a point saw the original, every point downstream of it saw that
 * transmission as new (so an original upstream never pairs with a resend
 * downstream that its own point called a retransmission). A gap reported by
 * a point is a "missing" sighting of each PSN it skipped: it joins that PSN's
 * original the same way, or stands alone when no point saw it.
 *
 * The window: open transmissions are settled (roce_vantage_settle.c) in
 * time order once every source has passed their first sighting by twice
 * the bound. The caller feeds the source that is furthest behind
 * (roce_vantage_need), so the window holds about that much traffic; when
 * it holds max_open transmissions the earliest is settled early (counted).
 */
#include <stdlib.h>
#include <string.h>

#include "roce_vantage_int.h"

#define DEFAULT_PATH_DELAY_NS 1000000
#define DEFAULT_MAX_FLOWS     65536u
#define DEFAULT_MAX_OPEN      (1u << 18)
#define DEFAULT_MAX_LISTED    (1u << 20)
#define DEFAULT_MAX_GAP_PSNS  1024u
#define DEFAULT_HORIZON_NS    1000000000
#define MAX_WINDOW_NS         (1LL << 50) /* keeps time arithmetic far from overflow */
#define GROUPS_START          1024u
#define FLOWS_START           256u
#define BUCKETS_PER_SLOT      2u

void roce_vantage_config_default(struct roce_vantage_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->path_delay_ns = DEFAULT_PATH_DELAY_NS;
    cfg->max_flows = DEFAULT_MAX_FLOWS;
    cfg->max_open = DEFAULT_MAX_OPEN;
    cfg->max_listed = DEFAULT_MAX_LISTED;
    cfg->max_gap_psns = DEFAULT_MAX_GAP_PSNS;
    cfg->horizon_ns = DEFAULT_HORIZON_NS;
}

struct roce_vantage *roce_vantage_new(const struct roce_vantage_config *cfg, unsigned n_points,
                                      const struct roce_vantage_point *points, unsigned n_sources)
{
    if (n_points == 0 || n_points > ROCE_VANTAGE_MAX_POINTS || n_sources == 0 ||
        n_sources > n_points || cfg->path_delay_ns <= 0 || cfg->path_delay_ns > MAX_WINDOW_NS ||
        cfg->horizon_ns < 0 || cfg->horizon_ns > MAX_WINDOW_NS || cfg->max_flows == 0 ||
        cfg->max_open == 0)
        return NULL;
    for (unsigned p = 0; p < n_points; p++)
        if (points[p].source >= n_sources)
            return NULL;
    struct roce_vantage *v = calloc(1, sizeof *v);
    if (v == NULL)
        return NULL;
    v->cfg = *cfg;
    v->n = n_points;
    v->n_sources = n_sources;
    memcpy(v->points, points, n_points * sizeof *points);
    v->clock[0].status = ROCE_VCLOCK_REFERENCE;
    v->clock[0].consistent = 1;
    for (unsigned p = 1; p < n_points; p++) /* until estimated or given */
        v->clock[p].status = ROCE_VCLOCK_NO_COMMON;
    v->wm = calloc(n_sources, sizeof *v->wm);
    v->max_off = calloc(n_sources, sizeof *v->max_off);
    v->ended = calloc(n_sources, 1);
    v->fed = calloc(n_sources, 1);
    v->lat = calloc((size_t)n_points * n_points, sizeof *v->lat);
    if (v->wm == NULL || v->max_off == NULL || v->ended == NULL || v->fed == NULL ||
        v->lat == NULL || roce_index_init(&v->flow_ix, FLOWS_START) != 0) {
        roce_vantage_free(v);
        return NULL;
    }
    return v;
}

void roce_vantage_free(struct roce_vantage *v)
{
    if (v == NULL)
        return;
    roce_vantage_results_free(v);
    for (uint32_t i = 0; i < v->n_flows; i++) {
        struct vflow *f = &v->flows[i];
        for (uint32_t k = 0; k < f->n_pairs; k++)
            roce_lat_free(&f->pairs[k].lat);
        free(f->pairs);
        free(f->votes);
    }
    free(v->flows);
    roce_index_free(&v->flow_ix);
    for (size_t i = 0; v->lat != NULL && i < (size_t)v->n * v->n; i++)
        roce_lat_free(&v->lat[i]);
    free(v->lat);
    free(v->g);
    free(v->gt);
    free(v->buckets);
    free(v->heap);
    roce_vix_free(v);
    free(v->loss);
    free(v->ce);
    free(v->wm);
    free(v->max_off);
    free(v->ended);
    free(v->fed);
    free(v);
}

int roce_vantage_set_offset(struct roce_vantage *v, unsigned point, int64_t offset_ns)
{
    if (point == 0 || point >= v->n || offset_ns > MAX_WINDOW_NS || offset_ns < -MAX_WINDOW_NS)
        return -1;
    struct roce_vantage_clock *c = &v->clock[point];
    memset(c, 0, sizeof *c);
    c->status = ROCE_VCLOCK_GIVEN;
    c->consistent = 1;
    c->offset_ns = offset_ns;
    v->slope[point] = 0;
    return 0;
}

/* ---- flows ---- */

struct vflow *roce_vflow(struct roce_vantage *v, uint32_t handle)
{
    return &v->flows[handle - 1];
}

static int flow_eq(uint32_t val, const void *key, const void *ctx)
{
    const struct roce_vantage *v = ctx;
    return roce_vflow_key_eq(&v->flows[val - 1].key, key);
}

uint32_t roce_vflow_get(struct roce_vantage *v, const struct roce_flow_key *key, int create)
{
    uint32_t h = roce_vflow_hash(key);
    uint32_t found = roce_index_find(&v->flow_ix, h, flow_eq, key, v);
    if (found != 0 || !create)
        return found;
    if (v->n_flows >= v->cfg.max_flows)
        return 0;
    if (v->n_flows == v->cap_flows) {
        uint32_t n = v->cap_flows ? v->cap_flows * 2 : FLOWS_START;
        struct vflow *nf = realloc(v->flows, (size_t)n * sizeof *nf);
        if (nf == NULL) {
            v->t.alloc_failures++;
            return 0;
        }
        v->flows = nf;
        v->cap_flows = n;
    }
    struct vflow *f = &v->flows[v->n_flows];
    memset(f, 0, sizeof *f);
    f->key = *key;
    f->hash = h;
    if (roce_index_insert(&v->flow_ix, h, v->n_flows + 1) != 0) {
        v->t.alloc_failures++;
        return 0;
    }
    return ++v->n_flows;
}

int roce_vantage_estimate(struct roce_vantage *v, struct roce_vsample *const *samples)
{
    for (unsigned p = 0; p < v->n; p++) {
        const struct roce_vsample *s = samples[p];
        for (uint32_t i = 0; i < s->n_flows; i++) {
            uint32_t h = roce_vflow_get(v, &s->flows[i], 1);
            if (h == 0)
                continue;
            struct vflow *f = roce_vflow(v, h);
            f->presence |= VBIT(p);
            f->locate = 1;
        }
        if (p > 0 && roce_vantage_clock_estimate(v, p, samples[0], s) != 0)
            return -1;
    }
    if (!v->have_margin)
        v->margin = v->cfg.path_delay_ns;
    return 0;
}

const struct roce_vantage_clock *roce_vantage_clock(const struct roce_vantage *v, unsigned point)
{
    return point < v->n ? &v->clock[point] : NULL;
}

int64_t roce_vantage_align(const struct roce_vantage *v, unsigned point, int64_t ts)
{
    const struct roce_vantage_clock *c = &v->clock[point];
    if (!c->drift_detected)
        return ts - c->offset_ns;
    double off = (double)c->start_offset_ns +
                 v->slope[point] * (double)(ts - c->start_offset_ns - c->start_ts_ns);
    return ts - (int64_t)(off >= 0 ? off + 0.5 : off - 0.5);
}

/* ---- the second reading ---- */

static int grow_window(struct roce_vantage *v);

int roce_vantage_start(struct roce_vantage *v)
{
    int64_t cf = INT64_MIN, cl = INT64_MAX;
    for (unsigned p = 0; p < v->n; p++) {
        uint8_t st = v->clock[p].status;
        if (st != ROCE_VCLOCK_REFERENCE && st != ROCE_VCLOCK_ESTIMATED && st != ROCE_VCLOCK_GIVEN)
            return -1;
    }
    for (unsigned s = 0; s < v->n_sources; s++)
        v->max_off[s] = INT64_MIN;
    for (unsigned p = 0; p < v->n; p++) {
        const struct roce_vantage_point *pt = &v->points[p];
        v->first_al[p] = roce_vantage_align(v, p, pt->first_ts_ns);
        v->last_al[p] = roce_vantage_align(v, p, pt->last_ts_ns);
        v->ps[p].first_ns = v->first_al[p];
        v->ps[p].last_ns = v->last_al[p];
        if (v->first_al[p] > cf)
            cf = v->first_al[p];
        if (v->last_al[p] < cl)
            cl = v->last_al[p];
        /* the largest offset over the span (drift makes it move) */
        int64_t o1 = pt->first_ts_ns - v->first_al[p], o2 = pt->last_ts_ns - v->last_al[p];
        int64_t o = o1 > o2 ? o1 : o2;
        if (o > v->max_off[pt->source])
            v->max_off[pt->source] = o;
    }
    v->t.common_first_ns = cf;
    v->t.common_last_ns = cl;
    if (cf > cl)
        return -2;
    if (!v->have_margin)
        v->margin = v->cfg.path_delay_ns;
    if (v->cap_g == 0 && grow_window(v) != 0)
        return -3;
    v->started = 1;
    return 0;
}

/* Where a source is, in aligned time: nothing earlier is still to come. */
static int64_t source_mark(const struct roce_vantage *v, unsigned s)
{
    if (v->ended[s])
        return INT64_MAX;
    if (!v->fed[s])
        return INT64_MIN;
    return v->wm[s] - v->max_off[s];
}

int roce_vantage_need(const struct roce_vantage *v)
{
    int best = -1;
    int64_t mark = INT64_MAX;
    for (unsigned s = 0; s < v->n_sources; s++)
        if (!v->ended[s] && (best < 0 || source_mark(v, s) < mark)) {
            best = (int)s;
            mark = source_mark(v, s);
        }
    return best;
}

/* ---- the window: slots, hash chains, a heap by first sighting ---- */

static int heap_less(const struct roce_vantage *v, uint32_t a, uint32_t b)
{
    const struct vgroup *x = &v->g[a - 1], *y = &v->g[b - 1];
    return x->first_t < y->first_t || (x->first_t == y->first_t && x->seq < y->seq);
}

static void heap_set(struct roce_vantage *v, uint32_t pos, uint32_t slot)
{
    v->heap[pos] = slot;
    v->g[slot - 1].heap_pos = pos;
}

static void heap_up(struct roce_vantage *v, uint32_t pos)
{
    uint32_t slot = v->heap[pos];
    while (pos > 0 && heap_less(v, slot, v->heap[(pos - 1) / 2])) {
        heap_set(v, pos, v->heap[(pos - 1) / 2]);
        pos = (pos - 1) / 2;
    }
    heap_set(v, pos, slot);
}

static void heap_down(struct roce_vantage *v, uint32_t pos)
{
    uint32_t slot = v->heap[pos];
    for (;;) {
        uint32_t c = 2 * pos + 1;
        if (c >= v->n_live)
            break;
        if (c + 1 < v->n_live && heap_less(v, v->heap[c + 1], v->heap[c]))
            c++;
        if (!heap_less(v, v->heap[c], slot))
            break;
        heap_set(v, pos, v->heap[c]);
        pos = c;
    }
    heap_set(v, pos, slot);
}

static uint32_t bucket_of(const struct roce_vantage *v, uint32_t flow, uint32_t psn)
{
    uint32_t h = (flow * 0x9E3779B1u) ^ (psn * 0x85EBCA77u);
    return (h ^ (h >> 15)) & v->bmask;
}

/* Grow the window's arrays (slot handles stay valid). 0, or -1. */
static int grow_window(struct roce_vantage *v)
{
    uint32_t n = v->cap_g ? v->cap_g * 2 : GROUPS_START;
    if (n > v->cfg.max_open)
        n = v->cfg.max_open;
    if (n <= v->cap_g)
        return -1;
    struct vgroup *ng = realloc(v->g, (size_t)n * sizeof *ng);
    if (ng == NULL)
        return -1;
    v->g = ng;
    int64_t *nt = realloc(v->gt, (size_t)n * v->n * sizeof *nt);
    if (nt == NULL)
        return -1;
    v->gt = nt;
    uint32_t *nh = realloc(v->heap, (size_t)n * sizeof *nh);
    if (nh == NULL)
        return -1;
    v->heap = nh;
    uint32_t nb = 1;
    while (nb < n * BUCKETS_PER_SLOT)
        nb <<= 1;
    uint32_t *bk = calloc(nb, sizeof *bk);
    if (bk == NULL)
        return -1;
    free(v->buckets);
    v->buckets = bk;
    v->bmask = nb - 1;
    for (uint32_t i = v->cap_g; i < n; i++) { /* new slots onto the free list */
        v->g[i].live = 0;
        v->g[i].next = i + 1 < n ? i + 2 : v->free_head;
    }
    v->free_head = v->cap_g + 1;
    for (uint32_t i = 0; i < v->cap_g; i++) /* re-chain the live ones */
        if (v->g[i].live) {
            uint32_t b = bucket_of(v, v->g[i].flow, v->g[i].psn);
            v->g[i].next = v->buckets[b];
            v->buckets[b] = i + 1;
        }
    v->cap_g = n;
    return 0;
}

void roce_vgroup_release(struct roce_vantage *v, uint32_t slot)
{
    struct vgroup *g = &v->g[slot - 1];
    uint32_t *link = &v->buckets[bucket_of(v, g->flow, g->psn)];
    while (*link != slot)
        link = &v->g[*link - 1].next;
    *link = g->next;
    uint32_t pos = g->heap_pos, last = v->heap[--v->n_live];
    if (pos < v->n_live) {
        heap_set(v, pos, last);
        heap_down(v, pos);
        heap_up(v, v->g[last - 1].heap_pos);
    }
    g->live = 0;
    g->next = v->free_head;
    v->free_head = slot;
}

/* Settle the earliest open transmission. */
static void settle_first(struct roce_vantage *v)
{
    uint32_t slot = v->heap[0];
    roce_vantage_settle(v, slot);
    roce_vgroup_release(v, slot);
}

/* A new open transmission; 0 when it could not be kept. */
static uint32_t group_new(struct roce_vantage *v, uint32_t flow, uint32_t psn, int64_t t)
{
    if (v->free_head == 0 && grow_window(v) != 0) {
        if (v->n_live == 0) {
            v->t.alloc_failures++;
            return 0;
        }
        v->t.forced++;
        settle_first(v);
    }
    uint32_t slot = v->free_head;
    struct vgroup *g = &v->g[slot - 1];
    v->free_head = g->next;
    memset(g, 0, sizeof *g);
    g->live = 1;
    g->flow = flow;
    g->psn = psn;
    g->first_t = t;
    g->seq = v->seq++;
    uint32_t b = bucket_of(v, flow, psn);
    g->next = v->buckets[b];
    v->buckets[b] = slot;
    heap_set(v, v->n_live++, slot);
    heap_up(v, v->n_live - 1);
    return slot;
}

/* May a record (retransmission flag r, time t) join g? Of two sightings of
 * one transmission where only one point called it a retransmission, that
 * point is the upstream one: its sighting comes first. */
static int flags_agree(const struct roce_vantage *v, uint32_t slot, int r, int64_t t)
{
    const struct vgroup *g = &v->g[slot - 1];
    const int64_t *gt = &v->gt[(size_t)(slot - 1) * v->n];
    for (unsigned p = 0; p < v->n; p++) {
        if (!(g->seen & VBIT(p)) || ((g->retx >> p) & 1u) == (unsigned)r)
            continue;
        if (r ? t > gt[p] : t < gt[p])
            return 0;
    }
    return 1;
}

/* The earliest open transmission a sighting may join (0: none). absent: a
 * gap's missing report, which joins only an original. */
static uint32_t find_group(const struct roce_vantage *v, unsigned point, uint32_t flow,
                           const struct roce_vtx *tx, uint32_t psn, int64_t t, int absent)
{
    uint32_t best = 0;
    int r = (tx->flags & ROCE_VTX_RETX) != 0;
    for (uint32_t s = v->buckets[bucket_of(v, flow, psn)]; s != 0; s = v->g[s - 1].next) {
        const struct vgroup *g = &v->g[s - 1];
        int64_t d = t - g->first_t;
        if (g->flow != flow || g->psn != psn || ((g->seen | g->absent) & VBIT(point)) ||
            d > v->cfg.path_delay_ns || d < -v->cfg.path_delay_ns)
            continue;
        if (absent || g->seen == 0) {
            /* a missing report, or a transmission nobody saw yet: originals only */
            if (g->retx != 0 || (!absent && r))
                continue;
        } else if (g->opcode != tx->opcode || g->len != tx->len || !flags_agree(v, s, r, t)) {
            continue;
        }
        if (best == 0 || heap_less(v, s, best))
            best = s;
    }
    return best;
}

/* A point's gap: each missing PSN is a missing sighting of its original. */
static void missing(struct roce_vantage *v, unsigned point, uint32_t flow,
                    const struct roce_vtx *tx, int64_t t)
{
    uint32_t n = tx->gap_count;
    v->ps[point].gap_psns += n;
    if (n > v->cfg.max_gap_psns) {
        v->t.gap_psns_unlocated += n - v->cfg.max_gap_psns;
        n = v->cfg.max_gap_psns;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint32_t psn = (tx->gap_first + k) & 0xFFFFFFu;
        uint32_t s = find_group(v, point, flow, tx, psn, t, 1);
        if (s == 0 && (s = group_new(v, flow, psn, t)) != 0)
            v->g[s - 1].flags = ROCE_VTX_REQUEST | ROCE_VTX_LOCATE;
        if (s == 0)
            continue;
        struct vgroup *g = &v->g[s - 1];
        g->absent |= VBIT(point);
        if (t < g->first_t) { /* the earliest evidence dates it: settled before its resend */
            g->first_t = t;
            heap_up(v, g->heap_pos);
        }
    }
}

/* Settle what every source has passed by twice the bound. */
static void settle_passed(struct roce_vantage *v)
{
    int64_t mark = INT64_MAX;
    for (unsigned s = 0; s < v->n_sources; s++) {
        int64_t m = source_mark(v, s);
        if (m < mark)
            mark = m;
    }
    if (mark == INT64_MIN)
        return; /* a source has not begun */
    while (v->n_live > 0 &&
           (mark == INT64_MAX || v->g[v->heap[0] - 1].first_t < mark - 2 * v->cfg.path_delay_ns))
        settle_first(v);
}

void roce_vantage_feed(struct roce_vantage *v, unsigned point, const struct roce_vtx *tx)
{
    if (!v->started || v->finished || point >= v->n)
        return;
    unsigned src = v->points[point].source;
    if (!v->fed[src] || tx->ts_ns > v->wm[src])
        v->wm[src] = tx->ts_ns;
    v->fed[src] = 1;
    v->t.transmissions++;
    v->ps[point].transmissions++;
    uint32_t flow = roce_vflow_get(v, &tx->key, 1);
    if (flow == 0) {
        v->t.flows_dropped++;
        return;
    }
    struct vflow *f = roce_vflow(v, flow);
    f->presence |= VBIT(point);
    if (tx->flags & ROCE_VTX_LOCATE)
        f->locate = 1;
    int64_t t = roce_vantage_align(v, point, tx->ts_ns);
    if ((tx->flags & (ROCE_VTX_GAP | ROCE_VTX_LOCATE)) == (ROCE_VTX_GAP | ROCE_VTX_LOCATE))
        missing(v, point, flow, tx, t);
    uint32_t s = find_group(v, point, flow, tx, tx->psn, t, 0);
    if (s == 0)
        s = group_new(v, flow, tx->psn, t);
    if (s != 0) {
        struct vgroup *g = &v->g[s - 1];
        if (g->seen == 0) { /* the first real sighting names it */
            g->opcode = tx->opcode;
            g->len = tx->len;
            g->flags = tx->flags & (ROCE_VTX_REQUEST | ROCE_VTX_LOCATE);
        }
        if (g->seen == 0 || t < g->first_t) {
            g->first_point = (uint8_t)point;
            g->first_frame = tx->frame;
        }
        if (t < g->first_t) { /* an earlier sighting moves it forward in the heap */
            g->first_t = t;
            heap_up(v, g->heap_pos);
        }
        g->seen |= VBIT(point);
        if (tx->flags & ROCE_VTX_RETX)
            g->retx |= VBIT(point);
        if (tx->flags & ROCE_VTX_EPISODE)
            g->episode |= VBIT(point);
        if (tx->flags & ROCE_VTX_CE)
            g->ce |= VBIT(point);
        v->gt[(size_t)(s - 1) * v->n + point] = t;
    }
    settle_passed(v);
}

void roce_vantage_end(struct roce_vantage *v, unsigned source)
{
    if (source >= v->n_sources)
        return;
    v->ended[source] = 1;
    if (v->started && !v->finished)
        settle_passed(v);
}

void roce_vantage_finish(struct roce_vantage *v)
{
    if (!v->started || v->finished)
        return;
    for (unsigned s = 0; s < v->n_sources; s++)
        v->ended[s] = 1;
    settle_passed(v);
    v->finished = 1;
    if (roce_vantage_results(v) != 0)
        v->t.alloc_failures++;
}
