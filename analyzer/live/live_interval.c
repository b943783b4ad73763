/*
 * live_interval.c - closing a reporting interval of the live monitor (see
 * live_interval.h): counters as differences of the engine's running
 * totals, and per-flow differences found by walking the previous and the
 * current flow lists (both in id order) side by side. Flows retired or
 * evicted in between are simply absent from the current list; new ones
 * start from zero.
 */
#define _DEFAULT_SOURCE
#include "live_interval.h"

#include <stdlib.h>
#include <string.h>

#include "report_fields.h"

#define MIN_FLOWS 16

struct roce_live_tracker {
    size_t top;
    /* the diagnoses of this step and of the one before */
    struct roce_diag_list diags, prev_diags;
    struct roce_live_diag *raised;
    struct roce_totals prev;
    struct roce_livecap_stats prev_cap;
    struct roce_flow_report *reports; /* the engine's flow list (reused) */
    struct roce_live_flow *prev_flows, *cur_flows, *troubled;
    size_t n_prev;
    size_t cap; /* room in each of the arrays above */
};

void roce_live_totals_delta(const struct roce_totals *cur, const struct roce_totals *prev,
                            struct roce_totals *d)
{
    const struct roce_fieldset *fs = &roce_report_fields;
    *d = *cur; /* current values, then the counts' differences (report_fields.c says which) */
    for (const struct roce_field *f = fs->f; f < fs->f + fs->n; f++)
        if (roce_field_is_count(f))
            roce_field_add(f, d, prev, 1);
}

struct roce_live_tracker *roce_live_tracker_new(size_t top)
{
    struct roce_live_tracker *t = calloc(1, sizeof *t);
    if (t != NULL)
        t->top = top;
    return t;
}

void roce_live_tracker_free(struct roce_live_tracker *t)
{
    if (t == NULL)
        return;
    free(t->reports);
    free(t->prev_flows);
    free(t->cur_flows);
    free(t->troubled);
    roce_diag_list_free(&t->diags);
    roce_diag_list_free(&t->prev_diags);
    free(t->raised);
    free(t);
}

/* The engine's diagnoses now, and which of them were raised since the
 * previous step (new, or with a larger count). 0, or -1 when out of memory. */
static int diagnoses(struct roce_live_tracker *t, struct roce_engine *e)
{
    struct roce_diag_list l;
    struct roce_live_diag *raised;
    if (roce_engine_diagnoses(e, &l) != 0)
        return -1;
    if ((raised = calloc(l.n ? l.n : 1, sizeof *raised)) == NULL) {
        roce_diag_list_free(&l);
        return -1;
    }
    roce_diag_list_free(&t->prev_diags);
    free(t->raised);
    t->prev_diags = t->diags;
    t->diags = l;
    t->raised = raised;
    return 0;
}

/* The diagnoses whose count grew since the previous step, in list order. */
static size_t raised_since(struct roce_live_tracker *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->diags.n; i++) {
        const struct roce_diagnosis *d = &t->diags.d[i];
        uint64_t before = 0;
        for (size_t j = 0; j < t->prev_diags.n; j++)
            if (roce_diag_same(d, &t->prev_diags.d[j])) {
                before = t->prev_diags.d[j].count;
                break;
            }
        if (d->count > before)
            t->raised[n++] = (struct roce_live_diag){d, d->count - before};
    }
    return n;
}

/* Make *p an array of cap elements of size bytes. 0, or -1 (*p unchanged). */
static int resize(void *p, size_t cap, size_t size)
{
    void *old, *fresh;
    memcpy(&old, p, sizeof old);
    fresh = realloc(old, cap * size);
    if (fresh == NULL)
        return -1;
    memcpy(p, &fresh, sizeof fresh);
    return 0;
}

/* Room for n flows in every array (the previous list is kept). 0, or -1. */
static int reserve(struct roce_live_tracker *t, size_t n)
{
    if (n <= t->cap && t->cap > 0)
        return 0; /* never NULL arrays: the engine sorts what it is given */
    size_t cap = n + n / 2 + MIN_FLOWS;
    if (resize(&t->reports, cap, sizeof *t->reports) != 0 ||
        resize(&t->prev_flows, cap, sizeof *t->prev_flows) != 0 ||
        resize(&t->cur_flows, cap, sizeof *t->cur_flows) != 0 ||
        resize(&t->troubled, cap, sizeof *t->troubled) != 0)
        return -1;
    t->cap = cap;
    return 0;
}

/* A flow's running counts, as the interval lists them. */
static void flow_counts(const struct roce_flow_report *r, struct roce_live_flow *f)
{
    f->id = r->id;
    f->key = r->key;
    f->transport = r->transport;
    f->packets = r->packets;
    f->retransmitted = r->retransmitted_packets;
    f->naks = r->naks.total;
    f->gaps = r->gap_events;
    f->missing_psns = r->missing_psns;
    f->ce_marked = r->ce_marked;
    f->cnps = r->cnps_for_flow;
}

/* d = cur - prev for the counts of one flow; 1 when it had trouble. */
static int flow_delta(const struct roce_live_flow *cur, const struct roce_live_flow *prev,
                      struct roce_live_flow *d)
{
    *d = *cur;
    if (prev != NULL) {
        d->packets -= prev->packets;
        d->retransmitted -= prev->retransmitted;
        d->naks -= prev->naks;
        d->gaps -= prev->gaps;
        d->missing_psns -= prev->missing_psns;
        d->ce_marked -= prev->ce_marked;
        d->cnps -= prev->cnps;
    }
    return d->retransmitted || d->naks || d->gaps || d->ce_marked || d->cnps;
}

/* Worst first: retransmissions, then NAKs, gaps, CE marks, CNPs; then id. */
static int cmp_worst(const void *a, const void *b)
{
    const struct roce_live_flow *x = a, *y = b;
    const uint64_t kx[] = {x->retransmitted, x->naks, x->gaps, x->ce_marked, x->cnps};
    const uint64_t ky[] = {y->retransmitted, y->naks, y->gaps, y->ce_marked, y->cnps};
    for (size_t i = 0; i < sizeof kx / sizeof kx[0]; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? 1 : -1;
    return (x->id > y->id) - (x->id < y->id);
}

/* The flows' differences since the previous interval, worst first in
 * t->troubled; returns how many had trouble. */
static size_t flow_deltas(struct roce_live_tracker *t, struct roce_engine *e)
{
    size_t n = roce_engine_flows(e, t->reports, t->cap), j = 0, bad = 0;
    for (size_t i = 0; i < n; i++) {
        struct roce_live_flow *cur = &t->cur_flows[i];
        flow_counts(&t->reports[i], cur);
        while (j < t->n_prev && t->prev_flows[j].id < cur->id)
            j++; /* retired or evicted since */
        const struct roce_live_flow *prev =
            j < t->n_prev && t->prev_flows[j].id == cur->id ? &t->prev_flows[j] : NULL;
        if (flow_delta(cur, prev, &t->troubled[bad]))
            bad++;
    }
    if (bad > 1)
        qsort(t->troubled, bad, sizeof *t->troubled, cmp_worst);
    struct roce_live_flow *swap = t->prev_flows;
    t->prev_flows = t->cur_flows;
    t->cur_flows = swap;
    t->n_prev = n;
    return bad;
}

int roce_live_tracker_step(struct roce_live_tracker *t, struct roce_engine *e,
                           const struct roce_livecap_stats *cap, struct roce_live_interval *iv)
{
    const struct roce_totals *total = roce_engine_totals(e);
    roce_live_totals_delta(total, &t->prev, &iv->delta);
    t->prev = *total;
    iv->cap = *cap;
    iv->cap_delta.received = cap->received - t->prev_cap.received;
    iv->cap_delta.dropped = cap->dropped - t->prev_cap.dropped;
    iv->cap_delta.if_dropped = cap->if_dropped - t->prev_cap.if_dropped;
    iv->cap_delta.analysis_dropped = cap->analysis_dropped - t->prev_cap.analysis_dropped;
    t->prev_cap = *cap;

    int rc = reserve(t, roce_engine_flow_count(e));
    iv->n_troubled = rc == 0 ? flow_deltas(t, e) : 0;
    if (rc != 0)
        t->n_prev = 0; /* the next interval starts the flows from scratch */
    iv->top = t->troubled;
    iv->n_top = iv->n_troubled < t->top ? iv->n_troubled : t->top;
    int have = diagnoses(t, e) == 0;
    if (!have) {
        rc = -1;
        roce_diag_list_free(&t->diags); /* the next interval raises them all again */
    }
    iv->diags = &t->diags;
    iv->n_diags = t->diags.n;
    iv->n_raised = have ? raised_since(t) : 0;
    iv->raised = t->raised;
    for (unsigned k = 0; k < ROCE_HIST_KINDS; k++)
        iv->hist[k] = roce_engine_histogram(e, (enum roce_hist_kind)k);
    /* the engine's totals again: roce_engine_flows may have moved nothing,
     * but the pointer is only promised until the next engine call */
    iv->total = roce_engine_totals(e);
    return rc;
}
