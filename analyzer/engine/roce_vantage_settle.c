/*
 * roce_vantage_settle.c - what one transmission shows once its matching
 * window has closed (ANALYSIS-DEFINITIONS, "Vantage points", "Loss
 * location"):
 *
 * - its sightings in time order vote for the order of the points on its
 *   flow, and give one-way latencies between consecutive points;
 * - a CE-marked request is located at once: after the last point that saw
 *   it unmarked (none: the first sighting was marked), before the first that
 *   saw it marked;
 * - a request of a sequence-checked flow is a loss candidate when it is
 *   (a) an original not every point of its flow saw, (b) a PSN no point saw
 *   whose gap a point reported, or (c) the first packet of a go-back-N
 *   episode whose original every point saw (it died downstream of them
 *   all). Candidates are located when the flows' orders are final
 *   (roce_vantage_result.c). Only the common capture span counts: a
 *   candidate whose time is not inside it (with the largest one-way delay as
 *   a margin at both ends) is counted as outside and not located.
 *
 * The index remembers, for the horizon, the originals that (a) or (b) made
 * candidates, so that the episode that resends them, or a late gap report,
 * is not taken for another loss; an original every point saw supersedes
 * what the index says about its PSN (a reused QP starting over).
 */
#include <stdlib.h>
#include <string.h>

#include "roce_vantage_int.h"

#define IX_MIN       1024u
#define EVENTS_START 64u

unsigned roce_vote_index(unsigned n, unsigned i, unsigned j)
{
    return i * (2 * n - i - 1) / 2 + (j - i - 1);
}

struct vpair *roce_vpair_get(struct roce_vantage *v, struct vflow *f, int after, int before)
{
    for (uint32_t k = 0; k < f->n_pairs; k++)
        if (f->pairs[k].after == after && f->pairs[k].before == before)
            return &f->pairs[k];
    if (f->n_pairs == f->cap_pairs) {
        uint32_t n = f->cap_pairs ? f->cap_pairs * 2 : 4;
        struct vpair *np = realloc(f->pairs, n * sizeof *np);
        if (np == NULL) {
            v->t.alloc_failures++;
            return NULL;
        }
        f->pairs = np;
        f->cap_pairs = n;
    }
    struct vpair *p = &f->pairs[f->n_pairs++];
    memset(p, 0, sizeof *p);
    p->after = (int8_t)after;
    p->before = (int8_t)before;
    roce_lat_init(&p->lat);
    return p;
}

/* ---- the index of originals not seen everywhere ---- */

static uint32_t ix_bucket(const struct roce_vantage *v, uint32_t flow, uint32_t psn)
{
    uint32_t h = (flow * 0x85EBCA77u) ^ (psn * 0xC2B2AE3Du);
    return (h ^ (h >> 16)) & v->ix_bmask;
}

/* The index at cap entries (the oldest first, chains rebuilt). 0, or -1. */
static int ix_resize(struct roce_vantage *v, uint32_t cap)
{
    uint32_t nb = 1;
    while (nb < 2 * (uint64_t)cap && nb < (UINT32_C(1) << 31))
        nb <<= 1;
    struct vix_entry *ne = calloc(cap, sizeof *ne);
    uint32_t *bk = calloc(nb, sizeof *bk);
    if (ne == NULL || bk == NULL) {
        free(ne);
        free(bk);
        return -1;
    }
    for (uint32_t i = 0; i < v->ix_n; i++)
        ne[i] = v->ix[(v->ix_head + i) % v->ix_cap];
    free(v->ix);
    free(v->ix_buckets);
    v->ix = ne;
    v->ix_buckets = bk;
    v->ix_cap = cap;
    v->ix_bmask = nb - 1;
    v->ix_head = 0;
    for (uint32_t i = 0; i < v->ix_n; i++) { /* newest ends first in its chain */
        uint32_t b = ix_bucket(v, ne[i].flow, ne[i].psn);
        ne[i].next = bk[b];
        bk[b] = i + 1;
    }
    return 0;
}

void roce_vix_free(struct roce_vantage *v)
{
    free(v->ix);
    free(v->ix_buckets);
    v->ix = NULL;
    v->ix_buckets = NULL;
    v->ix_cap = 0;
}

/* Drop the oldest entry. */
static void ix_drop_head(struct roce_vantage *v)
{
    struct vix_entry *e = &v->ix[v->ix_head];
    uint32_t h = v->ix_head + 1;
    uint32_t *link = &v->ix_buckets[ix_bucket(v, e->flow, e->psn)];
    while (*link != 0 && *link != h)
        link = &v->ix[*link - 1].next;
    if (*link == h)
        *link = e->next;
    v->ix_head = (v->ix_head + 1) % v->ix_cap;
    v->ix_n--;
}

/* The newest live entry of (flow, psn) within the horizon before now. */
static struct vix_entry *ix_find(struct roce_vantage *v, uint32_t flow, uint32_t psn, int64_t now)
{
    if (v->ix == NULL)
        return NULL;
    for (uint32_t h = v->ix_buckets[ix_bucket(v, flow, psn)]; h != 0; h = v->ix[h - 1].next) {
        struct vix_entry *e = &v->ix[h - 1];
        if (e->flow == flow && e->psn == psn && now - e->time <= v->cfg.horizon_ns)
            return e;
    }
    return NULL;
}

static void ix_add(struct roce_vantage *v, uint32_t flow, uint32_t psn, int64_t now, int32_t event)
{
    uint32_t max = v->cfg.max_listed < IX_MIN ? IX_MIN : v->cfg.max_listed;
    while (v->ix_n > 0 && now - v->ix[v->ix_head].time > v->cfg.horizon_ns)
        ix_drop_head(v); /* beyond the horizon */
    if (v->ix_n == v->ix_cap && v->ix_cap < max &&
        ix_resize(v, v->ix_cap == 0 ? IX_MIN : v->ix_cap > max / 2 ? max : 2 * v->ix_cap) != 0)
        v->t.alloc_failures++;
    if (v->ix_cap == 0)
        return;
    if (v->ix_n == v->ix_cap)
        ix_drop_head(v); /* full: the oldest goes */
    uint32_t at = (v->ix_head + v->ix_n) % v->ix_cap, b = ix_bucket(v, flow, psn);
    struct vix_entry *e = &v->ix[at];
    e->flow = flow; /* the bucket keys on the values as added; a dead entry keeps them below */
    e->psn = psn;
    e->time = now;
    e->event = event;
    e->next = v->ix_buckets[b];
    v->ix_buckets[b] = at + 1;
    v->ix_n++;
}

/* An original every point saw: what the index said of its PSN is history. */
static void ix_supersede(struct roce_vantage *v, uint32_t flow, uint32_t psn)
{
    if (v->ix == NULL)
        return;
    for (uint32_t h = v->ix_buckets[ix_bucket(v, flow, psn)]; h != 0; h = v->ix[h - 1].next) {
        struct vix_entry *e = &v->ix[h - 1];
        if (e->flow == flow && e->psn == psn)
            e->time = INT64_MIN / 2; /* beyond any horizon, still unlinked by its bucket */
    }
}

/* ---- settling ---- */

/* Is t inside the time every point of the flow captured (with the margin)? */
static int in_span(const struct roce_vantage *v, const struct vflow *f, int64_t t)
{
    uint32_t pres = f->presence;
    for (unsigned p = 0; p < v->n; p++)
        if ((pres & VBIT(p)) && (t - v->margin < v->first_al[p] || t + v->margin > v->last_al[p]))
            return 0;
    return 1;
}

/* Record a loss candidate; its index in v->loss, or -1 when it was not
 * listed (beyond max_listed: then located at once with the order so far). */
static int32_t loss_add(struct roce_vantage *v, const struct vgroup *g, uint32_t seen, int episode)
{
    struct vloss l = {g->flow,
                      g->psn,
                      seen,
                      g->first_t,
                      g->seen ? g->first_point : -1,
                      g->seen ? g->first_frame : 0,
                      (uint8_t)episode};
    if (v->n_loss >= v->cfg.max_listed) {
        int after, before;
        struct vflow *f = roce_vflow(v, g->flow);
        roce_vflow_order(v, f);
        if (roce_vloss_locate(v, &l, &after, &before)) {
            struct vpair *pr = roce_vpair_get(v, f, after, before);
            if (pr != NULL)
                pr->lost++;
            v->t.losses++;
            v->t.losses_unlisted++;
        }
        return -1;
    }
    if (v->n_loss == v->cap_loss) {
        uint32_t n = v->cap_loss ? v->cap_loss * 2 : EVENTS_START;
        struct vloss *nl = realloc(v->loss, (size_t)n * sizeof *nl);
        if (nl == NULL) {
            v->t.alloc_failures++;
            return -1;
        }
        v->loss = nl;
        v->cap_loss = n;
    }
    v->loss[v->n_loss] = l;
    return (int32_t)v->n_loss++;
}

static void ce_add(struct roce_vantage *v, const struct vgroup *g, int after, int before)
{
    struct vflow *f = roce_vflow(v, g->flow);
    struct vpair *pr = roce_vpair_get(v, f, after, before);
    if (pr != NULL)
        pr->ce++;
    v->t.ce_marks++;
    if (v->n_ce >= v->cfg.max_listed) {
        v->t.ce_unlisted++;
        return;
    }
    if (v->n_ce == v->cap_ce) {
        uint32_t n = v->cap_ce ? v->cap_ce * 2 : EVENTS_START;
        struct roce_vantage_event *ne = realloc(v->ce, (size_t)n * sizeof *ne);
        if (ne == NULL) {
            v->t.alloc_failures++;
            return;
        }
        v->ce = ne;
        v->cap_ce = n;
    }
    struct roce_vantage_event *e = &v->ce[v->n_ce++];
    memset(e, 0, sizeof *e);
    e->key = f->key;
    e->psn = g->psn;
    e->after = after;
    e->before = before;
    e->first_point = g->first_point;
    e->first_frame = g->first_frame;
    e->time_ns = g->first_t;
    e->evidence = ROCE_VEVIDENCE_MARKED;
}

/* Votes and latencies of the sightings, in time order (pt[0..k-1]). */
static void sightings(struct roce_vantage *v, struct vflow *f, const unsigned *pt, const int64_t *t,
                      unsigned k)
{
    if (k < 2)
        return;
    v->t.matched++;
    f->matched++;
    if (f->votes == NULL && v->n > 1) {
        f->votes = calloc((size_t)v->n * (v->n - 1) / 2, sizeof *f->votes);
        if (f->votes == NULL)
            v->t.alloc_failures++;
    }
    for (unsigned a = 0; a < k; a++) {
        v->ps[pt[a]].matched++;
        for (unsigned b = a + 1; b < k && f->votes != NULL; b++) {
            unsigned i = pt[a] < pt[b] ? pt[a] : pt[b], j = pt[a] < pt[b] ? pt[b] : pt[a];
            f->votes[roce_vote_index(v->n, i, j)] += pt[a] < pt[b] ? 1 : -1;
        }
        if (a + 1 < k) {
            int64_t d = t[a + 1] - t[a];
            struct vpair *pr = roce_vpair_get(v, f, (int)pt[a], (int)pt[a + 1]);
            if (roce_lat_add(&v->lat[pt[a] * v->n + pt[a + 1]], d) != 0 ||
                (pr != NULL && roce_lat_add(&pr->lat, d) != 0))
                v->t.alloc_failures++;
        }
    }
}

/* Loss candidates (a), (b) and (c) of the header comment. */
static void losses(struct roce_vantage *v, const struct vgroup *g, struct vflow *f, int span)
{
    uint32_t all = f->presence;
    struct vix_entry *e;
    int32_t ev = -1;

    if (g->seen == 0) { /* (b): missing reports only */
        if (ix_find(v, g->flow, g->psn, g->first_t) != NULL)
            return;            /* a point saw it after all: already a candidate */
    } else if (g->retx == 0) { /* (a) */
        if ((g->seen & all) == all) {
            ix_supersede(v, g->flow, g->psn);
            return;
        }
    } else { /* (c) */
        if (!(g->episode & VBIT(g->first_point)))
            return;
        if ((e = ix_find(v, g->flow, g->psn, g->first_t)) != NULL) {
            if (e->event >= 0)
                v->loss[e->event].episode = 1; /* the resend of a loss already found */
            return;
        }
    }
    if (span)
        ev = loss_add(v, g, g->retx ? all : g->seen, g->retx != 0);
    else
        v->t.outside_span++;
    ix_add(v, g->flow, g->psn, g->first_t, ev);
}

void roce_vantage_settle(struct roce_vantage *v, uint32_t slot)
{
    const struct vgroup *g = &v->g[slot - 1];
    const int64_t *gt = &v->gt[(size_t)(slot - 1) * v->n];
    struct vflow *f = roce_vflow(v, g->flow);
    unsigned pt[ROCE_VANTAGE_MAX_POINTS], k = 0;
    int64_t t[ROCE_VANTAGE_MAX_POINTS];

    for (unsigned p = 0; p < v->n; p++) { /* insertion sort by time */
        if (!(g->seen & VBIT(p)))
            continue;
        unsigned i = k++;
        while (i > 0 && t[i - 1] > gt[p]) {
            t[i] = t[i - 1];
            pt[i] = pt[i - 1];
            i--;
        }
        t[i] = gt[p];
        pt[i] = p;
    }
    v->t.groups++;
    f->transmissions++;
    sightings(v, f, pt, t, k);
    int span = in_span(v, f, g->first_t);
    if ((g->flags & ROCE_VTX_REQUEST) && g->ce != 0) {
        unsigned i = 0;
        while (i < k && !(g->ce & VBIT(pt[i]))) /* a mark is always a sighting's */
            i++;
        if (i < k && span)
            ce_add(v, g, i > 0 ? (int)pt[i - 1] : ROCE_VANTAGE_END, (int)pt[i]);
        else if (i < k)
            v->t.outside_ce++;
    }
    if (g->flags & ROCE_VTX_LOCATE)
        losses(v, g, f, span);
}
