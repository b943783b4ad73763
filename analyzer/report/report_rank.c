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

const struct roce_flow_report *roce_report_by_key(const struct roce_flow_report *const *by_key,
                                                  size_t n, const struct roce_flow_key *k)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (roce_report_cmp_key(&by_key[mid]->key, k) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct roce_flow_report *f = NULL;
    for (; lo < n && roce_report_cmp_key(&by_key[lo]->key, k) == 0; lo++)
        f = by_key[lo];
    return f;
}

static const struct roce_flow_key *named_key(const void *keys, size_t i)
{
    return ((const struct roce_flow_key *const *)keys)[i];
}

/* Into out, after its k, the flows the diagnoses name, in their order, each
 * list worst first (of a key named twice the first place; of flows of one
 * key the latest, roce_report_by_key's rule), up to upto: each flow looked
 * up among the keys named, not each name among every flow. The new k, or
 * ROCE_RANK_NOMEM. */
static size_t place_named(const struct roce_flow_report *const *flows, size_t n,
                          const struct roce_diag_list *diag, uint8_t *placed, size_t upto,
                          const struct roce_flow_report **out)
{
    size_t m = 0, k = 0;
    for (size_t i = 0; diag != NULL && i < diag->n; i++)
        m += roce_diag_kind_names_flow(diag->d[i].kind) ? diag->d[i].n_subjects : 0;
    if (m == 0)
        return 0;
    const struct roce_flow_key **named = malloc(m * sizeof *named);
    size_t *best = malloc(m * sizeof *best);
    struct roce_keymap map;
    if (named == NULL || best == NULL) {
        free(named);
        free(best);
        return ROCE_RANK_NOMEM;
    }
    m = 0;
    for (size_t i = 0; i < diag->n; i++)
        for (size_t j = 0; roce_diag_kind_names_flow(diag->d[i].kind) && j < diag->d[i].n_subjects;
             j++)
            named[m++] = &roce_diag_subject_at(diag, &diag->d[i], j)->flow;
    if (roce_keymap_build(&map, named, m, named_key) != 0) {
        free(named);
        free(best);
        return ROCE_RANK_NOMEM;
    }
    for (size_t j = 0; j < m; j++)
        best[j] = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        size_t j = roce_keymap_find(&map, &flows[i]->key);
        if (j != SIZE_MAX && (best[j] == SIZE_MAX || flows[i]->id > flows[best[j]]->id))
            best[j] = i;
    }
    for (size_t j = 0; j < m && k < upto; j++)
        if (best[j] != SIZE_MAX && !placed[best[j]]) {
            placed[best[j]] = 1;
            out[k++] = flows[best[j]];
        }
    roce_keymap_free(&map);
    free(named);
    free(best);
    return k;
}

/* The heap of order_first: the one ranked last on top. */
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
    uint8_t *placed = calloc(n ? n : 1, 1);
    size_t k, n_ranked;
    if (upto == 0 || upto > n)
        upto = n;
    /* the flows the diagnoses name, in their order, each list worst first */
    if (placed == NULL || (k = place_named(flows, n, diag, placed, upto, out)) == ROCE_RANK_NOMEM) {
        free(placed);
        return ROCE_RANK_NOMEM;
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
