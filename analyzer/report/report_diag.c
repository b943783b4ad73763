/*
 * report_diag.c - the diagnoses of a report (see report.h): the engine's
 * roce_diagnose over what the report holds, so that a report built from an
 * engine, read back from JSON or merged from several gives the list one
 * engine would.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

int roce_report_diagnoses(const struct roce_report *r, struct roce_diag_list *out)
{
    if (r->diag != NULL) { /* the kept list, lent: it lives as long as the report */
        *out = *r->diag;
        out->borrowed = 1;
        return 0;
    }
    struct roce_diag_flow *flows = calloc(r->n_flows ? r->n_flows : 1, sizeof *flows);
    int rc;
    memset(out, 0, sizeof *out);
    if (flows == NULL)
        return -1;
    for (size_t i = 0; i < r->n_flows; i++) {
        const struct roce_report_flow *x = &r->flow_x[i];
        flows[i].r = &r->flows[i];
        flows[i].ev = x->ev;
        flows[i].peer = x->has_peer ? &x->peer : NULL;
    }
    struct roce_diag_input in = {flows, r->n_flows, r->macs, r->n_macs, &r->t, r->cfg, 0};
    rc = roce_diagnose(&in, out);
    free(flows);
    return rc;
}

int roce_report_keep_diagnoses(struct roce_report *r)
{
    struct roce_diag_list *l = malloc(sizeof *l);
    if (l == NULL || roce_report_diagnoses(r, l) != 0) {
        free(l);
        return -1;
    }
    r->diag = l;
    return 0;
}
