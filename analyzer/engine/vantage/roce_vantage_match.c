/*
 * roce_vantage_match.c - the matching window of the second reading (see
 * roce_vantage_match.h; ANALYSIS.md, "Vantage points").
 *
 * Matching: a record joins the earliest open transmission of the same flow,
 * PSN, opcode and length that has no sighting at its point yet and whose
 * first sighting is within the path-delay bound (aligned times). Two
 * sightings of which only one is a retransmission by its point's engine must
 * have the retransmission first: where a point saw the original, every
 * point downstream of it saw that transmission as new (so an original
 * upstream never pairs with a resend downstream that its own point called a
 * retransmission). A gap reported by a point is a "missing" sighting of each
 * PSN it skipped: it joins that PSN's original the same way, or stands alone
 * when no point saw it.
 *
 * The window: open transmissions are settled (roce_vantage_settle.c) in
 * time order once every source has passed their first sighting by twice
 * the bound. The caller feeds the source that is furthest behind
 * (roce_vmatch_need), so the window holds about that much traffic; when it
 * holds max_open transmissions the earliest is settled early (counted).
 * Slots live in one array with a free list, hash chains by (flow, PSN) and a
 * heap by first sighting.
 */
#include "roce_vantage_match.h"

#include <string.h>

#include "roce_psn.h"
#include "roce_vantage_clock.h"
#include "roce_vantage_flow.h"
#include "roce_vantage_settle.h"

#define GROUPS_START     1024u
#define BUCKETS_PER_SLOT 2u

/* ---- sources ---- */

/* Where a source is, in aligned time: nothing earlier is still to come. */
static int64_t source_mark(const struct roce_vantage *v, unsigned s)
{
    if (v->ended[s])
        return INT64_MAX;
    if (!v->fed[s])
        return INT64_MIN;
    return v->source_ts[s] - v->max_offset[s];
}

int roce_vmatch_need(const struct roce_vantage *v)
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
    const struct vgroup *x = &v->groups[a - 1], *y = &v->groups[b - 1];
    return x->first_t < y->first_t || (x->first_t == y->first_t && x->seq < y->seq);
}

static void heap_set(struct roce_vantage *v, uint32_t pos, uint32_t slot)
{
    v->heap[pos] = slot;
    v->groups[slot - 1].heap_pos = pos;
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
    return (h ^ (h >> 15)) & v->bucket_mask;
}

/* Grow the window's arrays (slot handles stay valid). 0, or -1. */
static int grow_window(struct roce_vantage *v)
{
    uint32_t n = v->cap_g ? v->cap_g * 2 : GROUPS_START;
    if (n > v->cfg.max_open)
        n = v->cfg.max_open;
    if (n <= v->cap_g)
        return -1;
    struct vgroup *ng = realloc(v->groups, (size_t)n * sizeof *ng);
    if (ng == NULL)
        return -1;
    v->groups = ng;
    int64_t *nt = realloc(v->sighting_ts, (size_t)n * v->n_points * sizeof *nt);
    if (nt == NULL)
        return -1;
    v->sighting_ts = nt;
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
    v->bucket_mask = nb - 1;
    for (uint32_t i = v->cap_g; i < n; i++) { /* new slots onto the free list */
        v->groups[i].live = 0;
        v->groups[i].next = i + 1 < n ? i + 2 : v->free_head;
    }
    v->free_head = v->cap_g + 1;
    for (uint32_t i = 0; i < v->cap_g; i++) /* re-chain the live ones */
        if (v->groups[i].live) {
            uint32_t b = bucket_of(v, v->groups[i].flow, v->groups[i].psn);
            v->groups[i].next = v->buckets[b];
            v->buckets[b] = i + 1;
        }
    v->cap_g = n;
    return 0;
}

int roce_vmatch_init(struct roce_vantage *v)
{
    return v->cap_g == 0 ? grow_window(v) : 0;
}

void roce_vmatch_free(struct roce_vantage *v)
{
    free(v->groups);
    free(v->sighting_ts);
    free(v->buckets);
    free(v->heap);
}

/* Unlink and free a window slot. */
static void group_release(struct roce_vantage *v, uint32_t slot)
{
    struct vgroup *g = &v->groups[slot - 1];
    uint32_t *link = &v->buckets[bucket_of(v, g->flow, g->psn)];
    while (*link != slot)
        link = &v->groups[*link - 1].next;
    *link = g->next;
    uint32_t pos = g->heap_pos, last = v->heap[--v->n_live];
    if (pos < v->n_live) {
        heap_set(v, pos, last);
        heap_down(v, pos);
        heap_up(v, v->groups[last - 1].heap_pos);
    }
    g->live = 0;
    g->next = v->free_head;
    v->free_head = slot;
}

/* Settle the earliest open transmission. */
static void settle_first(struct roce_vantage *v)
{
    uint32_t slot = v->heap[0];
    roce_vsettle(v, slot);
    group_release(v, slot);
}

/* A new open transmission; 0 when it could not be kept. */
static uint32_t group_new(struct roce_vantage *v, uint32_t flow, uint32_t psn, int64_t t)
{
    if (v->free_head == 0 && grow_window(v) != 0) {
        if (v->n_live == 0) {
            v->totals.alloc_failures++;
            return 0;
        }
        v->totals.forced++;
        settle_first(v);
    }
    uint32_t slot = v->free_head;
    struct vgroup *g = &v->groups[slot - 1];
    v->free_head = g->next;
    memset(g, 0, sizeof *g);
    g->live = 1;
    g->flow = flow;
    g->psn = psn;
    g->first_t = t;
    g->seq = v->next_seq++;
    uint32_t b = bucket_of(v, flow, psn);
    g->next = v->buckets[b];
    v->buckets[b] = slot;
    heap_set(v, v->n_live++, slot);
    heap_up(v, v->n_live - 1);
    return slot;
}

/* May a record (retransmission flag retx, time t) join g? Of two sightings
 * of one transmission where only one point called it a retransmission, that
 * point is the upstream one: its sighting comes first. */
static int flags_agree(const struct roce_vantage *v, uint32_t slot, int retx, int64_t t)
{
    const struct vgroup *g = &v->groups[slot - 1];
    const int64_t *gt = &v->sighting_ts[(size_t)(slot - 1) * v->n_points];
    for (unsigned p = 0; p < v->n_points; p++) {
        if (!(g->seen & VBIT(p)) || ((g->retx >> p) & 1u) == (unsigned)retx)
            continue;
        if (retx ? t > gt[p] : t < gt[p])
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
    int retx = (tx->flags & ROCE_VTX_RETX) != 0;
    for (uint32_t s = v->buckets[bucket_of(v, flow, psn)]; s != 0; s = v->groups[s - 1].next) {
        const struct vgroup *g = &v->groups[s - 1];
        int64_t d = t - g->first_t;
        if (g->flow != flow || g->psn != psn || ((g->seen | g->absent) & VBIT(point)) ||
            d > v->cfg.path_delay_ns || d < -v->cfg.path_delay_ns)
            continue;
        if (absent || g->seen == 0) {
            /* a missing report, or a transmission nobody saw yet: originals only */
            if (g->retx != 0 || (!absent && retx))
                continue;
        } else if (g->opcode != tx->opcode || g->len != tx->len || !flags_agree(v, s, retx, t)) {
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
    v->point_stats[point].gap_psns += n;
    if (n > v->cfg.max_gap_psns) {
        v->totals.gap_psns_unlocated += n - v->cfg.max_gap_psns;
        n = v->cfg.max_gap_psns;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint32_t psn = roce_psn_add(tx->gap_first, k);
        uint32_t s = find_group(v, point, flow, tx, psn, t, 1);
        if (s == 0 && (s = group_new(v, flow, psn, t)) != 0)
            v->groups[s - 1].flags = ROCE_VTX_REQUEST | ROCE_VTX_LOCATE;
        if (s == 0)
            continue;
        struct vgroup *g = &v->groups[s - 1];
        g->absent |= VBIT(point);
        if (t < g->first_t) { /* the earliest evidence dates it: settled before its resend */
            g->first_t = t;
            heap_up(v, g->heap_pos);
        }
    }
}

void roce_vmatch_settle_passed(struct roce_vantage *v)
{
    int64_t mark = INT64_MAX;
    for (unsigned s = 0; s < v->n_sources; s++) {
        int64_t m = source_mark(v, s);
        if (m < mark)
            mark = m;
    }
    if (mark == INT64_MIN)
        return; /* a source has not begun */
    while (v->n_live > 0 && (mark == INT64_MAX ||
                             v->groups[v->heap[0] - 1].first_t < mark - 2 * v->cfg.path_delay_ns))
        settle_first(v);
}

void roce_vmatch_feed(struct roce_vantage *v, unsigned point, const struct roce_vtx *tx)
{
    unsigned src = v->points[point].source;
    if (!v->fed[src] || tx->ts_ns > v->source_ts[src])
        v->source_ts[src] = tx->ts_ns;
    v->fed[src] = 1;
    v->totals.transmissions++;
    v->point_stats[point].transmissions++;
    uint32_t flow = roce_vflow_get(v, &tx->key, 1);
    if (flow == 0) {
        v->totals.flows_dropped++;
        return;
    }
    struct vflow *f = roce_vflow(v, flow);
    f->report.presence |= VBIT(point);
    if (tx->flags & ROCE_VTX_LOCATE)
        f->report.locate = 1;
    int64_t t = roce_vclock_align(&v->clock[point], v->slope[point], tx->ts_ns);
    if ((tx->flags & (ROCE_VTX_GAP | ROCE_VTX_LOCATE)) == (ROCE_VTX_GAP | ROCE_VTX_LOCATE))
        missing(v, point, flow, tx, t);
    uint32_t s = find_group(v, point, flow, tx, tx->psn, t, 0);
    if (s == 0)
        s = group_new(v, flow, tx->psn, t);
    if (s != 0) {
        struct vgroup *g = &v->groups[s - 1];
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
        v->sighting_ts[(size_t)(s - 1) * v->n_points + point] = t;
    }
    roce_vmatch_settle_passed(v);
}
