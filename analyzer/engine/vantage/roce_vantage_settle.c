/*
 * roce_vantage_settle.c - what one transmission shows once its matching
 * window has closed (see roce_vantage_settle.h; ANALYSIS.md, "Vantage
 * points"):
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
 * The index of originals remembers, for the horizon, the originals that (a)
 * or (b) made candidates, so that the episode that resends them, or a late
 * gap report, is not taken for another loss; an original every point saw
 * supersedes what the index says about its PSN (a reused QP starting over).
 * It is a ring (oldest first) with hash chains by (flow, PSN), newest first.
 */
#include "roce_vantage_settle.h"

#include <string.h>

#include "roce_vantage_flow.h"

#define ORIGINALS_MIN 1024u
#define EVENTS_START  64u

/* ---- the index of originals not seen everywhere ---- */

/* The entry of sequence number seq. */
static struct voriginal *orig_at(const struct roce_vantage *v, uint64_t seq)
{
    return roce_ring_at(&v->originals, sizeof(struct voriginal), seq);
}

/* The entry of a slot handle (the chains link slots). */
static struct voriginal *orig_slot(const struct roce_vantage *v, uint32_t handle)
{
    return (struct voriginal *)v->originals.slots + (handle - 1);
}

/* The slot handle (slot + 1) of sequence number seq. */
static uint32_t orig_handle(const struct roce_vantage *v, uint64_t seq)
{
    return (uint32_t)(seq & (v->originals.cap - 1)) + 1;
}

static uint32_t orig_bucket(const struct roce_vantage *v, uint32_t flow, uint32_t psn)
{
    uint32_t h = (flow * 0x85EBCA77u) ^ (psn * 0xC2B2AE3Du);
    return (h ^ (h >> 16)) & v->orig_bucket_mask;
}

/* Twice the slots (ORIGINALS_MIN at first), chains rebuilt. 0, or -1 when
 * out of memory (the index is then unchanged). */
static int orig_grow(struct roce_vantage *v)
{
    struct roce_ring *r = &v->originals;
    uint32_t cap = r->cap ? r->cap * 2 : ORIGINALS_MIN, nb = 1;
    while (nb < 2 * (uint64_t)cap && nb < (UINT32_C(1) << 31))
        nb <<= 1;
    uint32_t *buckets = calloc(nb, sizeof *buckets);
    if (buckets == NULL)
        return -1;
    if ((r->cap == 0 ? roce_ring_init(r, cap, sizeof(struct voriginal))
                     : roce_ring_grow(r, sizeof(struct voriginal))) != 0) {
        free(buckets);
        return -1;
    }
    free(v->orig_buckets);
    v->orig_buckets = buckets;
    v->orig_bucket_mask = nb - 1;
    for (uint64_t seq = r->head; seq < r->tail; seq++) { /* newest ends first in its chain */
        struct voriginal *o = orig_at(v, seq);
        uint32_t b = orig_bucket(v, o->flow, o->psn);
        o->next = buckets[b];
        buckets[b] = orig_handle(v, seq);
    }
    return 0;
}

/* Drop the oldest entry. */
static void orig_drop_oldest(struct roce_vantage *v)
{
    struct roce_ring *r = &v->originals;
    const struct voriginal *o = orig_at(v, r->head);
    uint32_t h = orig_handle(v, r->head);
    uint32_t *link = &v->orig_buckets[orig_bucket(v, o->flow, o->psn)];
    while (*link != 0 && *link != h)
        link = &orig_slot(v, *link)->next;
    if (*link == h)
        *link = o->next;
    r->head++;
}

/* The newest live entry of (flow, psn) within the horizon before now. */
static struct voriginal *orig_find(struct roce_vantage *v, uint32_t flow, uint32_t psn, int64_t now)
{
    if (v->originals.cap == 0)
        return NULL;
    for (uint32_t h = v->orig_buckets[orig_bucket(v, flow, psn)]; h != 0;) {
        struct voriginal *o = orig_slot(v, h);
        if (o->flow == flow && o->psn == psn && now - o->time <= v->cfg.horizon_ns)
            return o;
        h = o->next;
    }
    return NULL;
}

static void orig_add(struct roce_vantage *v, uint32_t flow, uint32_t psn, int64_t now,
                     int32_t candidate)
{
    struct roce_ring *r = &v->originals;
    uint32_t max = v->cfg.max_listed < ORIGINALS_MIN ? ORIGINALS_MIN : v->cfg.max_listed;
    while (roce_ring_count(r) > 0 && now - orig_at(v, r->head)->time > v->cfg.horizon_ns)
        orig_drop_oldest(v); /* beyond the horizon */
    if (roce_ring_count(r) == r->cap && r->cap < max && orig_grow(v) != 0)
        v->totals.alloc_failures++;
    if (r->cap == 0)
        return;
    if (roce_ring_count(r) == r->cap || roce_ring_count(r) >= max)
        orig_drop_oldest(v); /* full: the oldest goes */
    uint64_t seq = r->tail++;
    struct voriginal *o = orig_at(v, seq);
    uint32_t b = orig_bucket(v, flow, psn);
    o->flow = flow; /* the bucket keys on the values as added; a dead entry keeps them below */
    o->psn = psn;
    o->time = now;
    o->candidate = candidate;
    o->next = v->orig_buckets[b];
    v->orig_buckets[b] = orig_handle(v, seq);
}

/* An original every point saw: what the index said of its PSN is history. */
static void orig_supersede(struct roce_vantage *v, uint32_t flow, uint32_t psn)
{
    if (v->originals.cap == 0)
        return;
    for (uint32_t h = v->orig_buckets[orig_bucket(v, flow, psn)]; h != 0;) {
        struct voriginal *o = orig_slot(v, h);
        if (o->flow == flow && o->psn == psn)
            o->time = INT64_MIN / 2; /* beyond any horizon, still unlinked by its bucket */
        h = o->next;
    }
}

void roce_vsettle_free(struct roce_vantage *v)
{
    roce_ring_free(&v->originals);
    free(v->orig_buckets);
    free(v->candidates);
    free(v->marks);
}

/* ---- settling ---- */

/* Is t inside the time every point of the flow captured (with the margin)? */
static int in_span(const struct roce_vantage *v, const struct vflow *f, int64_t t)
{
    uint32_t presence = f->report.presence;
    for (unsigned p = 0; p < v->n_points; p++)
        if ((presence & VBIT(p)) &&
            (t - v->margin < v->first_aligned[p] || t + v->margin > v->last_aligned[p]))
            return 0;
    return 1;
}

/* The event of a settled transmission: its flow, PSN, first sighting. */
static struct vevent event_of(const struct vgroup *g)
{
    struct vevent e;
    memset(&e, 0, sizeof e);
    e.flow = g->flow;
    e.psn = g->psn;
    e.time = g->first_t;
    e.first_point = g->seen ? g->first_point : -1;
    e.first_frame = g->seen ? g->first_frame : 0;
    return e;
}

/* Record a loss candidate; its index in v->candidates, or -1 when it was not
 * listed (beyond max_listed: then located at once with the order so far). */
static int32_t candidate_add(struct roce_vantage *v, const struct vgroup *g, uint32_t seen,
                             int episode)
{
    struct vevent c = event_of(g);
    c.seen = seen;
    c.episode = (uint8_t)episode;
    if (v->n_candidates >= v->cfg.max_listed) {
        int after, before;
        struct vflow *f = roce_vflow(v, g->flow);
        roce_vflow_order(v, f, NULL, NULL);
        if (roce_vflow_locate(v, &c, &after, &before)) {
            struct vpair *pr = roce_vpair_get(v, f, after, before);
            if (pr != NULL)
                pr->lost++;
            v->totals.losses++;
            v->totals.losses_unlisted++;
        }
        return -1;
    }
    struct vevent *list = roce_vreserve(v->candidates, v->n_candidates, &v->cap_candidates,
                                        sizeof *list, EVENTS_START);
    if (list == NULL) {
        v->totals.alloc_failures++;
        return -1;
    }
    v->candidates = list;
    v->candidates[v->n_candidates] = c;
    return (int32_t)v->n_candidates++;
}

static void mark_add(struct roce_vantage *v, const struct vgroup *g, int after, int before)
{
    struct vpair *pr = roce_vpair_get(v, roce_vflow(v, g->flow), after, before);
    if (pr != NULL)
        pr->ce++;
    v->totals.ce_marks++;
    if (v->n_marks >= v->cfg.max_listed) {
        v->totals.ce_unlisted++;
        return;
    }
    struct vevent *list =
        roce_vreserve(v->marks, v->n_marks, &v->cap_marks, sizeof *list, EVENTS_START);
    if (list == NULL) {
        v->totals.alloc_failures++;
        return;
    }
    v->marks = list;
    struct vevent *e = &v->marks[v->n_marks++];
    *e = event_of(g);
    e->after = (int8_t)after;
    e->before = (int8_t)before;
}

/* Votes and latencies of the sightings, in time order (pt[0..k-1]). */
static void sightings(struct roce_vantage *v, struct vflow *f, const unsigned *pt, const int64_t *t,
                      unsigned k)
{
    unsigned n = v->n_points;
    if (k < 2)
        return;
    v->totals.matched++;
    f->report.matched++;
    int32_t *votes = roce_vflow_votes(v, f);
    for (unsigned a = 0; a < k; a++) {
        v->point_stats[pt[a]].matched++;
        for (unsigned b = a + 1; b < k && votes != NULL; b++)
            roce_vote_add(votes, n, pt[a], pt[b]);
        if (a + 1 < k) {
            int64_t d = t[a + 1] - t[a];
            struct vpair *pr = roce_vpair_get(v, f, (int)pt[a], (int)pt[a + 1]);
            if (roce_lat_add(&v->hop_lat[pt[a] * n + pt[a + 1]], d) != 0 ||
                (pr != NULL && roce_lat_add(&pr->lat, d) != 0))
                v->totals.alloc_failures++;
        }
    }
}

/* Loss candidates (a), (b) and (c) of the header comment. */
static void losses(struct roce_vantage *v, const struct vgroup *g, const struct vflow *f, int span)
{
    uint32_t all = f->report.presence;
    struct voriginal *o;
    int32_t candidate = -1;

    if (g->seen == 0) { /* (b): missing reports only */
        if (orig_find(v, g->flow, g->psn, g->first_t) != NULL)
            return;            /* a point saw it after all: already a candidate */
    } else if (g->retx == 0) { /* (a) */
        if ((g->seen & all) == all) {
            orig_supersede(v, g->flow, g->psn);
            return;
        }
    } else { /* (c) */
        if (!(g->episode & VBIT(g->first_point)))
            return;
        if ((o = orig_find(v, g->flow, g->psn, g->first_t)) != NULL) {
            if (o->candidate >= 0)
                v->candidates[o->candidate].episode = 1; /* the resend of a loss already found */
            return;
        }
    }
    if (span)
        candidate = candidate_add(v, g, g->retx ? all : g->seen, g->retx != 0);
    else
        v->totals.outside_span++;
    orig_add(v, g->flow, g->psn, g->first_t, candidate);
}

void roce_vsettle(struct roce_vantage *v, uint32_t slot)
{
    const struct vgroup *g = &v->groups[slot - 1];
    const int64_t *gt = &v->sighting_ts[(size_t)(slot - 1) * v->n_points];
    struct vflow *f = roce_vflow(v, g->flow);
    unsigned pt[ROCE_VANTAGE_MAX_POINTS], k = 0;
    int64_t t[ROCE_VANTAGE_MAX_POINTS];

    for (unsigned p = 0; p < v->n_points; p++) { /* insertion sort by time */
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
    v->totals.groups++;
    f->report.transmissions++;
    sightings(v, f, pt, t, k);
    int span = in_span(v, f, g->first_t);
    if ((g->flags & ROCE_VTX_REQUEST) && g->ce != 0) {
        unsigned i = 0;
        while (i < k && !(g->ce & VBIT(pt[i]))) /* a mark is always a sighting's */
            i++;
        if (i < k && span)
            mark_add(v, g, i > 0 ? (int)pt[i - 1] : ROCE_VANTAGE_END, (int)pt[i]);
        else if (i < k)
            v->totals.outside_ce++;
    }
    if (g->flags & ROCE_VTX_LOCATE)
        losses(v, g, f, span);
}
