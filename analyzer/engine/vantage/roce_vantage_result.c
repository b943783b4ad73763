/*
 * roce_vantage_result.c - the end of the analysis (see roce_vantage_result.h;
 * ANALYSIS.md, "Vantage points"): each flow's points in order, with its host
 * pair's votes where its own are silent (roce_vantage_flow.c), the loss
 * candidates located on that order, the CE marks and losses as events,
 * segments per flow and summed over the flows, everything sorted by flow
 * (source, destination, dest QP), then time.
 */
#include "roce_vantage_result.h"

#include <string.h>

#include "roce_vantage_flow.h"

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
    if (c == 0)
        c = (int)a->af - (int)b->af;
    return c;
}

/* Flow handles, by their flows' keys. */
struct vsorted {
    const struct roce_flow_key *key;
    uint32_t handle;
};

static int cmp_sorted(const void *a, const void *b)
{
    return cmp_key(((const struct vsorted *)a)->key, ((const struct vsorted *)b)->key);
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

/* v->sorted: the flow handles ordered by key. 0, or -1. */
static int sort_flows(struct roce_vantage *v)
{
    struct vsorted *s = calloc(v->n_flows ? v->n_flows : 1, sizeof *s);
    v->sorted = calloc(v->n_flows ? v->n_flows : 1, sizeof *v->sorted);
    if (s == NULL || v->sorted == NULL) {
        free(s);
        return -1;
    }
    for (uint32_t i = 0; i < v->n_flows; i++) {
        s[i].key = &v->flows[i].report.key;
        s[i].handle = i + 1;
    }
    qsort(s, v->n_flows, sizeof *s, cmp_sorted);
    for (uint32_t i = 0; i < v->n_flows; i++)
        v->sorted[i] = s[i].handle;
    v->n_sorted = v->n_flows;
    free(s);
    return 0;
}

/* ---- orders ---- */

/* Votes summed over the flows of one host pair in one direction. */
struct vhost {
    const uint8_t *src, *dst;
    int32_t *votes;
};

/* Host pairs: consecutive flows (sorted by key) with the same addresses. */
static struct vhost *host_votes(struct roce_vantage *v, size_t *n_hosts)
{
    size_t nv = (size_t)v->n_points * (v->n_points - 1) / 2, n = 0;
    struct vhost *h = calloc(v->n_flows ? v->n_flows : 1, sizeof *h);
    if (h == NULL)
        return NULL;
    for (uint32_t i = 0; i < v->n_sorted; i++) {
        const struct vflow *f = roce_vflow(v, v->sorted[i]);
        const struct roce_flow_key *k = &f->report.key;
        if (n == 0 || memcmp(h[n - 1].src, k->src, ROCE_ADDR_LEN) != 0 ||
            memcmp(h[n - 1].dst, k->dst, ROCE_ADDR_LEN) != 0) {
            h[n].src = k->src;
            h[n].dst = k->dst;
            h[n].votes = nv ? calloc(nv, sizeof *h[n].votes) : NULL;
            if (nv && h[n].votes == NULL)
                v->totals.alloc_failures++;
            n++;
        }
        for (size_t j = 0; f->votes != NULL && h[n - 1].votes != NULL && j < nv; j++)
            h[n - 1].votes[j] += f->votes[j];
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

/* Each flow's order, with its host pair's votes where its own are silent. */
static int order_flows(struct roce_vantage *v)
{
    size_t n_hosts = 0;
    struct vhost *hosts = host_votes(v, &n_hosts);
    if (hosts == NULL)
        return -1;
    for (uint32_t i = 0; i < v->n_flows; i++) {
        struct vflow *f = &v->flows[i];
        const struct roce_flow_key *k = &f->report.key;
        roce_vflow_order(v, f, host_find(hosts, n_hosts, k->src, k->dst),
                         host_find(hosts, n_hosts, k->dst, k->src));
    }
    for (size_t i = 0; i < n_hosts; i++)
        free(hosts[i].votes);
    free(hosts);
    return 0;
}

/* ---- events ---- */

static void event_out(struct roce_vantage *v, const struct vevent *c, int after, int before,
                      uint8_t evidence, struct roce_vantage_event *e)
{
    memset(e, 0, sizeof *e);
    e->key = roce_vflow(v, c->flow)->report.key;
    e->psn = c->psn;
    e->after = after;
    e->before = before;
    e->first_point = c->first_point;
    e->first_frame = c->first_frame;
    e->time_ns = c->time;
    e->evidence = evidence;
}

static int marks_out(struct roce_vantage *v)
{
    v->ce_marks = calloc(v->n_marks ? v->n_marks : 1, sizeof *v->ce_marks);
    if (v->ce_marks == NULL)
        return -1;
    for (uint32_t i = 0; i < v->n_marks; i++) {
        const struct vevent *m = &v->marks[i];
        event_out(v, m, m->after, m->before, ROCE_VEVIDENCE_MARKED, &v->ce_marks[i]);
    }
    v->n_ce_marks = v->n_marks;
    qsort(v->ce_marks, v->n_ce_marks, sizeof *v->ce_marks, cmp_event);
    return 0;
}

/* Locate the listed candidates; keep the losses. */
static int locate_losses(struct roce_vantage *v)
{
    v->losses = calloc(v->n_candidates ? v->n_candidates : 1, sizeof *v->losses);
    if (v->losses == NULL)
        return -1;
    for (uint32_t i = 0; i < v->n_candidates; i++) {
        const struct vevent *c = &v->candidates[i];
        int after, before;
        if (!roce_vflow_locate(v, c, &after, &before))
            continue;
        struct vpair *p = roce_vpair_get(v, roce_vflow(v, c->flow), after, before);
        if (p != NULL)
            p->lost++;
        v->totals.losses++;
        event_out(v, c, after, before,
                  c->seen == 0  ? ROCE_VEVIDENCE_GAPS
                  : before >= 0 ? ROCE_VEVIDENCE_MISSING
                                : ROCE_VEVIDENCE_RESENT,
                  &v->losses[v->n_losses++]);
    }
    qsort(v->losses, v->n_losses, sizeof *v->losses, cmp_event);
    return 0;
}

/* ---- segments ---- */

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

/* A flow's segments: its path in order, then the other pairs with something. */
static int flow_segments(struct vflow *f)
{
    struct roce_vantage_flow *r = &f->report;
    size_t n = 0;
    f->segments = calloc(r->n_order + 1u + f->n_pairs, sizeof *f->segments);
    if (f->segments == NULL)
        return -1;
    for (unsigned i = 0; r->n_order > 0 && i <= r->n_order; i++) {
        int a = i == 0 ? ROCE_VANTAGE_END : r->order[i - 1];
        int b = i == r->n_order ? ROCE_VANTAGE_END : r->order[i];
        fill_segment(&f->segments[n++], roce_vpair_find(f, a, b), a, b);
    }
    for (uint32_t k = 0; k < f->n_pairs; k++) {
        const struct vpair *p = &f->pairs[k];
        int on_path = 0;
        for (size_t i = 0; i < n; i++)
            on_path |= f->segments[i].after == p->after && f->segments[i].before == p->before;
        if (!on_path && (p->lost || p->ce || p->lat.count))
            fill_segment(&f->segments[n++], p, p->after, p->before);
    }
    r->segments = f->segments;
    r->n_segments = n;
    return 0;
}

/* Sum a flow's segments into the totals per segment. */
static int add_segments(struct roce_vantage *v, const struct roce_vantage_flow *f)
{
    for (size_t i = 0; i < f->n_segments; i++) {
        const struct roce_vantage_segment *s = &f->segments[i];
        size_t k = 0;
        while (k < v->n_segments &&
               (v->segments[k].after != s->after || v->segments[k].before != s->before))
            k++;
        if (k == v->n_segments) {
            struct roce_vantage_segment *ns =
                realloc(v->segments, (v->n_segments + 1) * sizeof *ns);
            if (ns == NULL)
                return -1;
            v->segments = ns;
            memset(&v->segments[k], 0, sizeof v->segments[k]);
            v->segments[k].after = s->after;
            v->segments[k].before = s->before;
            if (s->after >= 0 && s->before >= 0)
                roce_lat_summarize(&v->hop_lat[s->after * v->n_points + s->before],
                                   &v->segments[k].latency);
            v->n_segments++;
        }
        v->segments[k].lost += s->lost;
        v->segments[k].ce_marked += s->ce_marked;
    }
    return 0;
}

/* ---- results ---- */

int roce_vresults(struct roce_vantage *v)
{
    if (marks_out(v) != 0 || sort_flows(v) != 0 || order_flows(v) != 0 || locate_losses(v) != 0)
        return -1;
    for (uint32_t i = 0; i < v->n_flows; i++)
        if (flow_segments(&v->flows[i]) != 0)
            return -1;
    for (uint32_t i = 0; i < v->n_sorted; i++)
        if (add_segments(v, &roce_vflow(v, v->sorted[i])->report) != 0)
            return -1;
    return 0;
}

void roce_vresults_free(struct roce_vantage *v)
{
    free(v->segments);
    free(v->sorted);
    free(v->losses);
    free(v->ce_marks);
}
