/*
 * roce_vantage_result.c - the end of the analysis: each flow's points in
 * order, the loss candidates located, segments summed, results sorted.
 *
 * Order (ANALYSIS-DEFINITIONS, "Vantage points": upstream to downstream by
 * the aligned times of matched packets): every settled transmission seen at
 * two points voted which of them it passed first. A point is placed by the
 * number of points it precedes (its Copeland score). Where a flow has no
 * vote between two points, the votes of the other flows of the same host
 * pair in the same direction count, then those of the opposite direction,
 * reversed; then the caller's tie rank.
 *
 * Location ("Loss location"): after = the last point in the flow's order
 * that saw the original, before = the next point (null after the last).
 * A candidate whose original the last point did see is no loss, unless an
 * episode resent it (it died downstream of every point); the points before
 * that missed it only missed it in their capture (capture_misses).
 */
#include <stdlib.h>
#include <string.h>

#include "roce_vantage_int.h"

/* Votes summed over the flows of one host pair in one direction. */
struct vhost {
    const uint8_t *src, *dst;
    int32_t *votes;
};

/* > 0 when a was upstream of b more often than not. */
static int32_t vote(const struct roce_vantage *v, const int32_t *votes, unsigned a, unsigned b)
{
    if (votes == NULL || a == b)
        return 0;
    int32_t x = votes[roce_vote_index(v->n, a < b ? a : b, a < b ? b : a)];
    return a < b ? x : -x;
}

static void order_with(struct roce_vantage *v, struct vflow *f, const int32_t *same,
                       const int32_t *reverse)
{
    uint32_t members = f->presence;
    unsigned wins[ROCE_VANTAGE_MAX_POINTS] = {0};
    for (unsigned a = 0; a < v->n; a++)
        for (unsigned b = 0; b < v->n; b++)
            if (vote(v, f->votes, a, b) != 0)
                members |= VBIT(a) | VBIT(b);
    for (unsigned a = 0; a < v->n; a++)
        for (unsigned b = 0; b < v->n; b++) {
            if (!(members & VBIT(a)) || !(members & VBIT(b)) || a == b)
                continue;
            int32_t x = vote(v, f->votes, a, b);
            if (x == 0)
                x = vote(v, same, a, b);
            if (x == 0)
                x = -vote(v, reverse, a, b);
            wins[a] += x > 0;
        }
    f->n_order = 0;
    for (unsigned p = 0; p < v->n; p++) { /* insertion by wins, then tie rank */
        if (!(members & VBIT(p)))
            continue;
        unsigned i = f->n_order++;
        while (i > 0) {
            unsigned q = f->order[i - 1];
            if (wins[q] > wins[p] ||
                (wins[q] == wins[p] && v->points[q].tie_rank <= v->points[p].tie_rank))
                break;
            f->order[i] = f->order[i - 1];
            i--;
        }
        f->order[i] = (uint8_t)p;
    }
}

void roce_vflow_order(struct roce_vantage *v, struct vflow *f)
{
    order_with(v, f, NULL, NULL);
}

int roce_vloss_locate(struct roce_vantage *v, const struct vloss *l, int *after, int *before)
{
    const struct vflow *f = &v->flows[l->flow - 1];
    int idx = -1;
    for (unsigned i = 0; i < f->n_order; i++)
        if (l->seen & VBIT(f->order[i]))
            idx = (int)i;
    if (f->n_order == 0)
        return 0;
    if (idx < 0) { /* no point saw it: lost before the first */
        *after = ROCE_VANTAGE_END;
        *before = f->order[0];
        return 1;
    }
    for (int i = 0; i < idx; i++)
        if (!(l->seen & VBIT(f->order[i]))) {
            v->ps[f->order[i]].capture_misses++;
            v->t.capture_misses++;
        }
    *after = f->order[idx];
    if ((unsigned)idx + 1 < f->n_order) {
        *before = f->order[idx + 1];
        return 1;
    }
    *before = ROCE_VANTAGE_END;
    return l->episode;
}

/* ---- sorting ---- */

static int cmp_key(const struct roce_flow_key *a, const struct roce_flow_key *b)
{
    int c = memcmp(a->src, b->src, ROCE_ADDR_LEN);
    if (c == 0)
        c = memcmp(a->dst, b->dst, ROCE_ADDR_LEN);
    if (c == 0)
        c = (a->dqpn > b->dqpn) - (a->dqpn < b->dqpn);
    if (c == 0)
        c = (int)a->version - (int)b->version;
    return c;
}

/* A flow named by its key, for sorting. */
struct vsorted {
    const struct roce_flow_key *key;
    uint32_t handle;
};

static int cmp_sorted(const void *a, const void *b)
{
    return cmp_key(((const struct vsorted *)a)->key, ((const struct vsorted *)b)->key);
}

static int cmp_flow_out(const void *a, const void *b)
{
    return cmp_key(&((const struct roce_vantage_flow *)a)->key,
                   &((const struct roce_vantage_flow *)b)->key);
}

static int cmp_event(const void *a, const void *b)
{
    const struct roce_vantage_event *x = a, *y = b;
    int c = cmp_key(&x->key, &y->key);
    if (c == 0)
        c = (x->time_ns > y->time_ns) - (x->time_ns < y->time_ns);
    if (c == 0)
        c = (x->psn > y->psn) - (x->psn < y->psn);
    return c;
}

/* ---- results ---- */

/* Host pairs: consecutive flows (sorted by key) with the same addresses. */
static struct vhost *host_votes(struct roce_vantage *v, const struct vsorted *sorted,
                                size_t *n_hosts)
{
    size_t nv = (size_t)v->n * (v->n - 1) / 2, n = 0;
    struct vhost *h = calloc(v->n_flows ? v->n_flows : 1, sizeof *h);
    if (h == NULL)
        return NULL;
    for (uint32_t i = 0; i < v->n_flows; i++) {
        const struct vflow *f = &v->flows[sorted[i].handle - 1];
        if (n == 0 || memcmp(h[n - 1].src, f->key.src, ROCE_ADDR_LEN) != 0 ||
            memcmp(h[n - 1].dst, f->key.dst, ROCE_ADDR_LEN) != 0) {
            h[n].src = f->key.src;
            h[n].dst = f->key.dst;
            h[n].votes = nv ? calloc(nv, sizeof *h[n].votes) : NULL;
            if (nv && h[n].votes == NULL)
                v->t.alloc_failures++;
            n++;
        }
        for (size_t k = 0; f->votes != NULL && h[n - 1].votes != NULL && k < nv; k++)
            h[n - 1].votes[k] += f->votes[k];
    }
    *n_hosts = n;
    return h;
}

static const int32_t *host_find(const struct vhost *h, size_t n, const uint8_t *src,
                                const uint8_t *dst)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = memcmp(h[mid].src, src, ROCE_ADDR_LEN);
        if (c == 0)
            c = memcmp(h[mid].dst, dst, ROCE_ADDR_LEN);
        if (c == 0)
            return h[mid].votes;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static void fill_segment(struct roce_vantage_segment *s, const struct vpair *p, int after,
                         int before)
{
    memset(s, 0, sizeof *s);
    s->after = after;
    s->before = before;
    if (p == NULL)
        return;
    s->lost = p->lost;
    s->ce_marked = p->ce;
    roce_lat_summarize(&p->lat, &s->latency);
}

static const struct vpair *pair_find(const struct vflow *f, int after, int before)
{
    for (uint32_t k = 0; k < f->n_pairs; k++)
        if (f->pairs[k].after == after && f->pairs[k].before == before)
            return &f->pairs[k];
    return NULL;
}

/* A flow's segments: its path in order, then the other pairs with something. */
static int flow_segments(struct vflow *f)
{
    f->segs = calloc(f->n_order + 1u + f->n_pairs, sizeof *f->segs);
    if (f->segs == NULL)
        return -1;
    f->n_segs = 0;
    for (unsigned i = 0; f->n_order > 0 && i <= f->n_order; i++) {
        int a = i == 0 ? ROCE_VANTAGE_END : f->order[i - 1];
        int b = i == f->n_order ? ROCE_VANTAGE_END : f->order[i];
        fill_segment(&f->segs[f->n_segs++], pair_find(f, a, b), a, b);
    }
    for (uint32_t k = 0; k < f->n_pairs; k++) {
        const struct vpair *p = &f->pairs[k];
        int on_path = 0;
        for (size_t i = 0; i < f->n_segs; i++)
            on_path |= f->segs[i].after == p->after && f->segs[i].before == p->before;
        if (!on_path && (p->lost || p->ce || p->lat.count))
            fill_segment(&f->segs[f->n_segs++], p, p->after, p->before);
    }
    return 0;
}

/* Sum a flow's segments into the totals per segment. */
static int add_segments(struct roce_vantage *v, const struct roce_vantage_flow *f)
{
    for (size_t i = 0; i < f->n_segments; i++) {
        const struct roce_vantage_segment *s = &f->segments[i];
        size_t k = 0;
        while (k < v->n_segs && (v->segs[k].after != s->after || v->segs[k].before != s->before))
            k++;
        if (k == v->n_segs) {
            struct roce_vantage_segment *ns = realloc(v->segs, (v->n_segs + 1) * sizeof *ns);
            if (ns == NULL)
                return -1;
            v->segs = ns;
            memset(&v->segs[k], 0, sizeof v->segs[k]);
            v->segs[k].after = s->after;
            v->segs[k].before = s->before;
            if (s->after >= 0 && s->before >= 0)
                roce_lat_summarize(&v->lat[s->after * v->n + s->before], &v->segs[k].latency);
            v->n_segs++;
        }
        v->segs[k].lost += s->lost;
        v->segs[k].ce_marked += s->ce_marked;
    }
    return 0;
}

/* Locate the listed candidates; keep the losses. */
static int locate_losses(struct roce_vantage *v)
{
    v->loss_out = calloc(v->n_loss ? v->n_loss : 1, sizeof *v->loss_out);
    if (v->loss_out == NULL)
        return -1;
    for (uint32_t i = 0; i < v->n_loss; i++) {
        const struct vloss *l = &v->loss[i];
        struct vflow *f = &v->flows[l->flow - 1];
        int after, before;
        if (!roce_vloss_locate(v, l, &after, &before))
            continue;
        struct vpair *p = roce_vpair_get(v, f, after, before);
        if (p != NULL)
            p->lost++;
        v->t.losses++;
        struct roce_vantage_event *e = &v->loss_out[v->n_loss_out++];
        e->key = f->key;
        e->psn = l->psn;
        e->after = after;
        e->before = before;
        e->first_point = l->first_point;
        e->first_frame = l->first_frame;
        e->time_ns = l->time;
        e->evidence = l->seen == 0  ? ROCE_VEVIDENCE_GAPS
                      : before >= 0 ? ROCE_VEVIDENCE_MISSING
                                    : ROCE_VEVIDENCE_RESENT;
    }
    return 0;
}

const char *roce_vevidence_name(unsigned e)
{
    static const char *const names[] = {"gaps", "missing", "resent", "marked"};
    return e < sizeof names / sizeof names[0] ? names[e] : "unknown";
}

/* Each flow's order, with its host pair's votes where its own are silent. */
static int order_flows(struct roce_vantage *v)
{
    size_t n_hosts = 0;
    struct vsorted *sorted = calloc(v->n_flows ? v->n_flows : 1, sizeof *sorted);
    struct vhost *hosts = NULL;
    if (sorted == NULL)
        return -1;
    for (uint32_t i = 0; i < v->n_flows; i++) {
        sorted[i].key = &v->flows[i].key;
        sorted[i].handle = i + 1;
    }
    qsort(sorted, v->n_flows, sizeof *sorted, cmp_sorted);
    hosts = host_votes(v, sorted, &n_hosts);
    free(sorted);
    if (hosts == NULL)
        return -1;
    for (uint32_t i = 0; i < v->n_flows; i++) {
        struct vflow *f = &v->flows[i];
        order_with(v, f, host_find(hosts, n_hosts, f->key.src, f->key.dst),
                   host_find(hosts, n_hosts, f->key.dst, f->key.src));
    }
    for (size_t i = 0; i < n_hosts; i++)
        free(hosts[i].votes);
    free(hosts);
    return 0;
}

int roce_vantage_results(struct roce_vantage *v)
{
    if (order_flows(v) != 0 || locate_losses(v) != 0)
        return -1;
    qsort(v->loss_out, v->n_loss_out, sizeof *v->loss_out, cmp_event);
    if (v->n_ce > 0)
        qsort(v->ce, v->n_ce, sizeof *v->ce, cmp_event);
    v->flow_out = calloc(v->n_flows ? v->n_flows : 1, sizeof *v->flow_out);
    if (v->flow_out == NULL)
        return -1;
    for (uint32_t i = 0; i < v->n_flows; i++) {
        struct vflow *f = &v->flows[i];
        struct roce_vantage_flow *o = &v->flow_out[i];
        if (flow_segments(f) != 0)
            return -1;
        o->key = f->key;
        o->presence = f->presence;
        o->locate = f->locate;
        o->n_order = f->n_order;
        memcpy(o->order, f->order, sizeof o->order);
        o->transmissions = f->transmissions;
        o->matched = f->matched;
        o->n_segments = f->n_segs;
        o->segments = f->segs;
    }
    qsort(v->flow_out, v->n_flows, sizeof *v->flow_out, cmp_flow_out);
    v->n_flow_out = v->n_flows;
    for (uint32_t i = 0; i < v->n_flows; i++)
        if (add_segments(v, &v->flow_out[i]) != 0)
            return -1;
    return 0;
}

void roce_vantage_results_free(struct roce_vantage *v)
{
    for (uint32_t i = 0; i < v->n_flows; i++) {
        free(v->flows[i].segs);
        v->flows[i].segs = NULL;
    }
    free(v->segs);
    free(v->flow_out);
    free(v->loss_out);
    v->segs = NULL;
    v->flow_out = NULL;
    v->loss_out = NULL;
    v->n_flow_out = 0;
}

/* ---- accessors ---- */

const struct roce_vantage_totals *roce_vantage_totals(const struct roce_vantage *v)
{
    return &v->t;
}

const struct roce_vantage_pstats *roce_vantage_point_stats(const struct roce_vantage *v,
                                                           unsigned point)
{
    return point < v->n ? &v->ps[point] : NULL;
}

size_t roce_vantage_flow_count(const struct roce_vantage *v)
{
    return v->n_flow_out;
}

const struct roce_vantage_flow *roce_vantage_flow(const struct roce_vantage *v, size_t i)
{
    return i < v->n_flow_out ? &v->flow_out[i] : NULL;
}

size_t roce_vantage_segment_count(const struct roce_vantage *v)
{
    return v->n_segs;
}

const struct roce_vantage_segment *roce_vantage_segment(const struct roce_vantage *v, size_t i)
{
    return i < v->n_segs ? &v->segs[i] : NULL;
}

size_t roce_vantage_loss_count(const struct roce_vantage *v)
{
    return v->n_loss_out;
}

const struct roce_vantage_event *roce_vantage_loss(const struct roce_vantage *v, size_t i)
{
    return i < v->n_loss_out ? &v->loss_out[i] : NULL;
}

size_t roce_vantage_ce_count(const struct roce_vantage *v)
{
    return v->finished ? v->n_ce : 0;
}

const struct roce_vantage_event *roce_vantage_ce(const struct roce_vantage *v, size_t i)
{
    return v->finished && i < v->n_ce ? &v->ce[i] : NULL;
}
