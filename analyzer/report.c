/*
 * report.c - report snapshot shared by the writers (see report.h).
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

int roce_report_build(struct roce_report *r, struct roce_engine *e)
{
    size_t n = roce_engine_flow_count(e);
    r->engine = e;
    r->t = roce_engine_totals(e);
    r->flows = calloc(n ? n : 1, sizeof *r->flows);
    if (r->flows == NULL)
        return -1;
    r->n_flows = roce_engine_flows(e, r->flows, n);
    return 0;
}

void roce_report_free(struct roce_report *r)
{
    free(r->flows);
    r->flows = NULL;
    r->n_flows = 0;
}

const struct roce_flow_report *roce_report_flow(const struct roce_report *r, uint64_t id)
{
    size_t lo = 0, hi = r->n_flows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->flows[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->n_flows && r->flows[lo].id == id ? &r->flows[lo] : NULL;
}
