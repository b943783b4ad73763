/*
 * live_interval.c - closing a reporting interval of the live monitor (see
 * live_interval.h): counters as differences of the engine's running
 * totals, and per-flow differences of the flows active in the interval
 * only (roce_engine_interval_flows: a flow idle in it counted nothing), so
 * that an interval costs its traffic, not the size of the flow table.
 * Flows retired or evicted in between are not listed; new ones start from
 * zero.
 */
#define _DEFAULT_SOURCE
#include "live_interval.h"

#include <stdlib.h>
#include <string.h>

#include "report_fields.h"

#define MIN_FLOWS 16
/* The diagnoses are computed over every flow of the table (some of their
 * findings weigh all flows together: capture loss, ECMP collisions): every
 * interval up to this many flows, beyond it every (flows / DIAG_FLOWS + 1)
 * intervals, so that an interval spends on them the time of this many
 * flows on average, whatever the table holds (and always in the final one) */
#define DIAG_FLOWS 65536u

struct roce_live_tracker {
    size_t top;
    size_t subject_limit; /* of each diagnosis (0: all) */
    /* the diagnoses of this step and of the one before */
    struct roce_diag_list diags, prev_diags;
    struct roce_live_diag *raised;
    struct roce_totals prev;
    struct roce_livecap_stats prev_cap;
    struct roce_live_flow *troubled; /* the flows with trouble in the interval */
    size_t n_troubled, cap;
    size_t visited; /* flows active in the interval, compared */
    int oom;
    size_t diag_wait; /* intervals before the diagnoses are computed again */
    int diags_final;  /* diags are the final step's: the engine's when it ended */
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

struct roce_live_tracker *roce_live_tracker_new(size_t top, size_t subject_limit)
{
    struct roce_live_tracker *t = calloc(1, sizeof *t);
    if (t != NULL) {
        t->top = top;
        t->subject_limit = subject_limit;
    }
    return t;
}

void roce_live_tracker_free(struct roce_live_tracker *t)
{
    if (t == NULL)
        return;
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
    if (roce_engine_diagnoses(e, t->subject_limit, &l) != 0)
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

/* One flow active in the interval (roce_engine_interval_flows): listed in
 * t->troubled when it had trouble. */
static void on_flow(void *ctx, const struct roce_flow_interval *x)
{
    struct roce_live_tracker *t = ctx;
    const struct roce_flow_counts *d = &x->delta;
    if (!(d->retransmitted_packets || d->naks || d->gap_events || d->ce_marked || d->cnps_for_flow))
        return;
    if (t->n_troubled == t->cap) {
        size_t cap = t->cap + t->cap / 2 + MIN_FLOWS;
        struct roce_live_flow *fresh = realloc(t->troubled, cap * sizeof *fresh);
        if (fresh == NULL) {
            t->oom = 1;
            return;
        }
        t->troubled = fresh;
        t->cap = cap;
    }
    t->troubled[t->n_troubled++] = (struct roce_live_flow){
        x->id,   x->key,        x->transport,    d->packets,   d->retransmitted_packets,
        d->naks, d->gap_events, d->missing_psns, d->ce_marked, d->cnps_for_flow};
}

/* The flows that had trouble since the previous interval, worst first in
 * t->troubled: only the flows active in it are visited. 0, or -1 when out
 * of memory (the list is then empty). */
static int flow_deltas(struct roce_live_tracker *t, struct roce_engine *e)
{
    t->n_troubled = 0;
    t->oom = 0;
    t->visited = roce_engine_interval_flows(e, on_flow, t);
    if (t->oom) {
        t->n_troubled = 0;
        return -1;
    }
    if (t->n_troubled > 1)
        qsort(t->troubled, t->n_troubled, sizeof *t->troubled, cmp_worst);
    return 0;
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

    int rc = flow_deltas(t, e);
    iv->n_troubled = t->n_troubled;
    iv->flows_visited = t->visited;
    iv->top = t->troubled;
    iv->n_top = iv->n_troubled < t->top ? iv->n_troubled : t->top;
    size_t flows = roce_engine_flow_count(e);
    iv->n_raised = 0;
    if (iv->final || flows <= DIAG_FLOWS || t->diag_wait == 0) {
        int have = diagnoses(t, e) == 0;
        if (!have) {
            rc = -1;
            roce_diag_list_free(&t->diags); /* the next interval raises them all again */
        }
        iv->n_raised = have ? raised_since(t) : 0;
        t->diag_wait = flows / DIAG_FLOWS;
        t->diags_final = iv->final && have;
    } else {
        t->diag_wait--; /* the list as it was; raised when next computed */
    }
    iv->diags = &t->diags;
    iv->n_diags = t->diags.n;
    iv->raised = t->raised;
    for (unsigned k = 0; k < ROCE_HIST_KINDS; k++)
        iv->hist[k] = roce_engine_histogram(e, (enum roce_hist_kind)k);
    /* the engine's totals again: the engine's calls may have moved nothing,
     * but the pointer is only promised until the next engine call */
    iv->total = roce_engine_totals(e);
    return rc;
}

const struct roce_diag_list *roce_live_tracker_final_diagnoses(const struct roce_live_tracker *t)
{
    return t->diags_final ? &t->diags : NULL;
}
