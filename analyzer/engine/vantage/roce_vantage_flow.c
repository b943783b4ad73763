/*
 * roce_vantage_flow.c - the flows of a vantage-point analysis (see
 * roce_vantage_flow.h; ANALYSIS.md, "Vantage points").
 *
 * Order: every settled transmission seen at two points voted which of them
 * it passed first. A point is placed by the number of points it precedes
 * (its Copeland score); where a flow has no vote between two points, the
 * votes of the other flows of the same host pair in the same direction
 * count, then those of the opposite direction, reversed; then the caller's
 * tie rank.
 *
 * Location: after = the last point in the flow's order that saw the
 * original, before = the next point (none after the last). A candidate whose
 * original the last point did see is no loss, unless an episode resent it
 * (it died downstream of every point); the points before that missed it
 * only missed it in their capture (capture_misses).
 */
#include "roce_vantage_flow.h"

#include <string.h>

#define FLOWS_START 256u
#define PAIRS_START 4u

int roce_vflows_init(struct roce_vantage *v)
{
    return roce_index_init(&v->flow_index, FLOWS_START);
}

void roce_vflows_free(struct roce_vantage *v)
{
    for (uint32_t i = 0; i < v->n_flows; i++) {
        struct vflow *f = &v->flows[i];
        for (uint32_t k = 0; k < f->n_pairs; k++)
            roce_lat_free(&f->pairs[k].lat);
        free(f->pairs);
        free(f->votes);
        free(f->segments);
    }
    free(v->flows);
    roce_index_free(&v->flow_index);
}

static int flow_eq(uint32_t handle, const void *key, const void *ctx)
{
    const struct roce_vantage *v = ctx;
    return roce_vflow_key_eq(&v->flows[handle - 1].report.key, key);
}

uint32_t roce_vflow_get(struct roce_vantage *v, const struct roce_flow_key *key, int create)
{
    uint32_t h = roce_vflow_key_hash(key);
    uint32_t found = roce_index_find(&v->flow_index, h, flow_eq, key, v);
    if (found != 0 || !create || v->n_flows >= v->cfg.max_flows)
        return found;
    struct vflow *flows =
        roce_vreserve(v->flows, v->n_flows, &v->cap_flows, sizeof *flows, FLOWS_START);
    if (flows == NULL) {
        v->totals.alloc_failures++;
        return 0;
    }
    v->flows = flows;
    struct vflow *f = &v->flows[v->n_flows];
    memset(f, 0, sizeof *f);
    f->report.key = *key;
    if (roce_index_insert(&v->flow_index, h, v->n_flows + 1) != 0) {
        v->totals.alloc_failures++;
        return 0;
    }
    return ++v->n_flows;
}

/* The index of segment (after, before) in f->pairs; n_pairs when absent. */
static uint32_t pair_index(const struct vflow *f, int after, int before)
{
    uint32_t k = 0;
    while (k < f->n_pairs && (f->pairs[k].after != after || f->pairs[k].before != before))
        k++;
    return k;
}

const struct vpair *roce_vpair_find(const struct vflow *f, int after, int before)
{
    uint32_t k = pair_index(f, after, before);
    return k < f->n_pairs ? &f->pairs[k] : NULL;
}

struct vpair *roce_vpair_get(struct roce_vantage *v, struct vflow *f, int after, int before)
{
    uint32_t k = pair_index(f, after, before);
    if (k < f->n_pairs)
        return &f->pairs[k];
    struct vpair *pairs =
        roce_vreserve(f->pairs, f->n_pairs, &f->cap_pairs, sizeof *pairs, PAIRS_START);
    if (pairs == NULL) {
        v->totals.alloc_failures++;
        return NULL;
    }
    f->pairs = pairs;
    struct vpair *p = &f->pairs[f->n_pairs++];
    memset(p, 0, sizeof *p);
    p->after = (int8_t)after;
    p->before = (int8_t)before;
    roce_lat_init(&p->lat);
    return p;
}

int32_t *roce_vflow_votes(struct roce_vantage *v, struct vflow *f)
{
    if (f->votes == NULL && v->n_points > 1) {
        f->votes = calloc((size_t)v->n_points * (v->n_points - 1) / 2, sizeof *f->votes);
        if (f->votes == NULL)
            v->totals.alloc_failures++;
    }
    return f->votes;
}

void roce_vflow_order(struct roce_vantage *v, struct vflow *f, const int32_t *same,
                      const int32_t *reverse)
{
    struct roce_vantage_flow *r = &f->report;
    unsigned n = v->n_points;
    uint32_t members = r->presence;
    unsigned wins[ROCE_VANTAGE_MAX_POINTS] = {0};
    for (unsigned a = 0; a < n; a++)
        for (unsigned b = 0; b < n; b++)
            if (roce_vote(f->votes, n, a, b) != 0)
                members |= VBIT(a) | VBIT(b);
    for (unsigned a = 0; a < n; a++)
        for (unsigned b = 0; b < n; b++) {
            if (!(members & VBIT(a)) || !(members & VBIT(b)) || a == b)
                continue;
            int32_t x = roce_vote(f->votes, n, a, b);
            if (x == 0)
                x = roce_vote(same, n, a, b);
            if (x == 0)
                x = -roce_vote(reverse, n, a, b);
            wins[a] += x > 0;
        }
    r->n_order = 0;
    for (unsigned p = 0; p < n; p++) { /* insertion by wins, then tie rank */
        if (!(members & VBIT(p)))
            continue;
        unsigned i = r->n_order++;
        while (i > 0) {
            unsigned q = r->order[i - 1];
            if (wins[q] > wins[p] ||
                (wins[q] == wins[p] && v->points[q].tie_rank <= v->points[p].tie_rank))
                break;
            r->order[i] = r->order[i - 1];
            i--;
        }
        r->order[i] = (uint8_t)p;
    }
}

int roce_vflow_locate(struct roce_vantage *v, const struct vevent *c, int *after, int *before)
{
    const struct roce_vantage_flow *r = &roce_vflow(v, c->flow)->report;
    int last = -1; /* the last point in order that saw it */
    for (unsigned i = 0; i < r->n_order; i++)
        if (c->seen & VBIT(r->order[i]))
            last = (int)i;
    if (r->n_order == 0)
        return 0;
    if (last < 0) { /* no point saw it: lost before the first */
        *after = ROCE_VANTAGE_END;
        *before = r->order[0];
        return 1;
    }
    for (int i = 0; i < last; i++)
        if (!(c->seen & VBIT(r->order[i]))) {
            v->point_stats[r->order[i]].capture_misses++;
            v->totals.capture_misses++;
        }
    *after = r->order[last];
    if ((unsigned)last + 1 < r->n_order) {
        *before = r->order[last + 1];
        return 1;
    }
    *before = ROCE_VANTAGE_END;
    return c->episode;
}
