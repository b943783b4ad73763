/*
 * report_rank.c - which flows had trouble, and the worst first: the order
 * of the text summary and of the HTML report (see report.h).
 */
#include <stdlib.h>

#include "report.h"

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

int roce_report_cmp_rank(const void *a, const void *b)
{
    const struct roce_flow_report *x = *(const struct roce_flow_report *const *)a;
    const struct roce_flow_report *y = *(const struct roce_flow_report *const *)b;
    int tx = roce_report_is_troubled(x) != 0, ty = roce_report_is_troubled(y) != 0;
    if (tx != ty)
        return ty - tx;
    return roce_report_cmp_worst(a, b);
}

size_t roce_report_troubled(const struct roce_report *r, const struct roce_flow_report **out)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_flows; i++)
        if (roce_report_is_troubled(&r->flows[i]))
            out[n++] = &r->flows[i];
    qsort(out, n, sizeof *out, roce_report_cmp_worst);
    return n;
}
