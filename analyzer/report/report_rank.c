/*
 * report_rank.c - which flows had trouble, and the one ranking of the
 * flows: the order of the text summary, of the HTML report and of
 * Wireshark's RoCE Flows (see report.h; REPORT.md "One ranking").
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "roce_keymap.h"

uint64_t roce_report_trouble(const struct roce_flow_report *f)
{
    /* a bad ICRC a rewritten header field explains is the capture path's */
    uint64_t bad_icrc =
        f->bad_icrc - (f->bad_icrc_rewritten < f->bad_icrc ? f->bad_icrc_rewritten : f->bad_icrc);
    return f->retransmitted_packets + f->missing_psns + f->naks.total + f->psn_reuse +
           f->ce_unanswered + f->cnps_unexplained + f->cnps_carried_unexplained + bad_icrc +
           f->bad_vcrc + f->read_response_gaps + f->reordered_packets + f->responses_early;
}

int roce_report_is_troubled(const struct roce_flow_report *f)
{
    return roce_report_trouble(f) || f->ce_marked || f->cnp_packets || f->becn_packets ||
           f->cnps_for_flow;
}

int roce_report_cmp_worst(const void *a, const void *b)
{
    const struct roce_flow_report *x = *(const struct roce_flow_report *const *)a;
    const struct roce_flow_report *y = *(const struct roce_flow_report *const *)b;
    uint64_t tx = roce_report_trouble(x), ty = roce_report_trouble(y);
    if (tx != ty)
        return tx < ty ? 1 : -1;
    if (x->ce_marked != y->ce_marked)
        return x->ce_marked < y->ce_marked ? 1 : -1;
    return (x->id > y->id) - (x->id < y->id);
}

/* ---- the one ranking ---- */

int roce_report_cmp_key(const struct roce_flow_key *a, const struct roce_flow_key *b)
{
    int c = memcmp(a->src, b->src, ROCE_ADDR_LEN);
    if (c == 0)
        c = memcmp(a->dst, b->dst, ROCE_ADDR_LEN);
    if (c == 0 && a->dqpn != b->dqpn)
        c = a->dqpn < b->dqpn ? -1 : 1;
    if (c == 0)
        c = (int)a->version - (int)b->version;
    if (c == 0)
        c = (int)a->af - (int)b->af;
    return c;
}

int roce_report_cmp_by_key(const void *a, const void *b)
{
    const struct roce_flow_report *x = *(const struct roce_flow_report *const *)a;
    const struct roce_flow_report *y = *(const struct roce_flow_report *const *)b;
    int c = roce_report_cmp_key(&x->key, &y->key);
    return c != 0 ? c : (x->id > y->id) - (x->id < y->id);
}

/* The place in by_key (n, by key then id) of the latest flow of key k, or
 * n when there is none. */
static size_t by_key_at(const struct roce_flow_report *const *by_key, size_t n,
                        const struct roce_flow_key *k)
{
    size_t lo = 0, hi = n, at = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (roce_report_cmp_key(&by_key[mid]->key, k) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n && roce_report_cmp_key(&by_key[lo]->key, k) == 0; lo++)
        at = lo;
    return at;
}

const struct roce_flow_report *roce_report_by_key(const struct roce_flow_report *const *by_key,
                                                  size_t n, const struct roce_flow_key *k)
{
    size_t at = by_key_at(by_key, n, k);
    return at < n ? by_key[at] : NULL;
}

static const struct roce_flow_key *ref_key(const void *flows, size_t i)
{
    return &((const struct roce_flow_report *const *)flows)[i]->key;
}

/* roce_report_by_key's rule: of flows of one key, the latest. */
static int ref_later(const void *flows, size_t a, size_t b)
{
    const struct roce_flow_report *const *f = flows;
    return f[b]->id > f[a]->id;
}

/* The heap of select_worst: the one ranked last on top. */
static void sift_down(const struct roce_flow_report **h, size_t n, size_t i)
{
    for (;;) {
        size_t top = i, l = 2 * i + 1, r = l + 1;
        if (l < n && roce_report_cmp_worst(&h[l], &h[top]) > 0)
            top = l;
        if (r < n && roce_report_cmp_worst(&h[r], &h[top]) > 0)
            top = r;
        if (top == i)
            return;
        const struct roce_flow_report *t = h[i];
        h[i] = h[top];
        h[top] = t;
        i = top;
    }
}

/* a[0..m-1] become the first m of a's n flows by roce_report_cmp_worst, in
 * that order (the others after them, in no order): a heap of m, so that a
 * report listing m flows of millions does not sort them all. */
static void order_first(const struct roce_flow_report **a, size_t n, size_t m)
{
    if (m >= n) {
        qsort(a, n, sizeof *a, roce_report_cmp_worst);
        return;
    }
    for (size_t i = m / 2; i-- > 0;)
        sift_down(a, m, i);
    for (size_t i = m; i < n && m > 0; i++)
        if (roce_report_cmp_worst(&a[i], &a[0]) < 0) {
            const struct roce_flow_report *t = a[0];
            a[0] = a[i];
            a[i] = t;
            sift_down(a, m, 0);
        }
    qsort(a, m, sizeof *a, roce_report_cmp_worst);
}

size_t roce_report_rank_refs(const struct roce_flow_report *const *flows, size_t n,
                             const struct roce_diag_list *diag, const uint8_t *extra, int all,
                             size_t upto, const struct roce_flow_report **out)
{
    struct roce_keymap keys; /* a subject's flow found by key: one probe each */
    uint8_t *placed = calloc(n ? n : 1, 1);
    size_t k = 0, n_ranked;
    if (placed == NULL || roce_keymap_build(&keys, flows, n, ref_key, ref_later) != 0) {
        free(placed);
        return ROCE_RANK_NOMEM;
    }
    if (upto == 0 || upto > n)
        upto = n;
    /* the flows the diagnoses name, in their order, each list worst first */
    for (size_t i = 0; diag != NULL && i < diag->n && k < upto; i++) {
        const struct roce_diagnosis *d = &diag->d[i];
        unsigned sk = roce_diag_kind(d->kind)->subject;
        if (sk != ROCE_SUBJ_FLOW && sk != ROCE_SUBJ_CONNECTION)
            continue;
        for (size_t j = 0; j < d->n_subjects && k < upto; j++) {
            size_t at = roce_keymap_find(&keys, &roce_diag_subject_at(diag, d, j)->flow);
            if (at != SIZE_MAX && !placed[at]) {
                placed[at] = 1;
                out[k++] = flows[at];
            }
        }
    }
    /* then the other flows with trouble (and the caller's), worst first */
    size_t first = k;
    for (size_t i = 0; i < n && first < upto; i++)
        if (!placed[i] && (roce_report_is_troubled(flows[i]) || (extra != NULL && extra[i]))) {
            placed[i] = 1;
            out[k++] = flows[i];
        }
    order_first(out + first, k - first, upto - first);
    n_ranked = k = k < upto ? k : upto;
    /* and the rest, by id (none of them has trouble) */
    if (all && k < upto) {
        for (size_t i = 0; i < n; i++)
            if (!placed[i])
                out[k++] = flows[i];
        order_first(out + n_ranked, k - n_ranked, upto - n_ranked);
    }
    roce_keymap_free(&keys);
    free(placed);
    return n_ranked;
}

size_t roce_report_rank(const struct roce_flow_report *flows, size_t n,
                        const struct roce_diag_list *diag, const uint8_t *extra, int all,
                        const struct roce_flow_report **out)
{
    const struct roce_flow_report **refs = malloc((n ? n : 1) * sizeof *refs);
    if (refs == NULL)
        return ROCE_RANK_NOMEM;
    for (size_t i = 0; i < n; i++)
        refs[i] = &flows[i];
    size_t r = roce_report_rank_refs(refs, n, diag, extra, all, 0, out);
    free(refs);
    return r;
}
