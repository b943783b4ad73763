/*
 * report_json.c - the report as one JSON document, its members written
 * from the table of the report's fields (report_fields.c): the summary (a
 * json-c tree), then the connections and the flows (each with its episodes)
 * streamed as they are made (jsonw.h: no tree, json-c's layout), so that
 * neither memory nor the time a flow takes grows with the report.
 *
 * Ownership: json_object_object_add / json_object_array_add take ownership
 * of the value; each tree is put once written. Key names are part of the
 * interface (REPORT.md, "JSON report").
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_values.h"
#include "jsonw.h"
#include "report.h"
#include "report_fields.h"

#define JSON_FLAGS                                                                                 \
    (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

/* The paired flows, each connection once. */
static void write_connections(struct roce_jw *w, const struct roce_report *r)
{
    const struct roce_fout c = {.r = r};
    roce_jw_key(w, "connections");
    roce_jw_open(w, '[');
    for (size_t i = 0; i < r->n_conns; i++) {
        roce_jw_item(w);
        roce_fields_stream(w, &roce_conn_fields, &r->conns[i], &c);
    }
    roce_jw_close(w, ']');
}

struct ep_ref {
    uint64_t flow_id;
    size_t index;
};

static int cmp_ep_ref(const void *a, const void *b)
{
    const struct ep_ref *x = a, *y = b;
    if (x->flow_id != y->flow_id)
        return x->flow_id < y->flow_id ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* The flows that carried packets, in id order, each with its episodes
 * (the "episodes" field streams c.episodes), each written as it is made. */
static int write_flows(struct roce_jw *w, const struct roce_report *r)
{
    size_t n_ep = r->n_episodes, k = 0;
    struct ep_ref *refs = calloc(n_ep ? n_ep : 1, sizeof *refs);
    size_t *eps = calloc(n_ep ? n_ep : 1, sizeof *eps);
    if (refs == NULL || eps == NULL) {
        free(refs);
        free(eps);
        return -1;
    }
    for (size_t i = 0; i < n_ep; i++)
        refs[i] = (struct ep_ref){r->episodes[i].flow_id, i};
    qsort(refs, n_ep, sizeof *refs, cmp_ep_ref);
    for (size_t i = 0; i < n_ep; i++)
        eps[i] = refs[i].index;
    roce_jw_key(w, "flows");
    roce_jw_open(w, '[');
    for (size_t i = 0; i < r->n_flows && !w->err; i++) {
        const struct roce_flow_report *f = &r->flows[i];
        while (k < n_ep && refs[k].flow_id < f->id)
            k++; /* episodes of evicted flows: counted in the totals only */
        size_t first = k;
        while (k < n_ep && refs[k].flow_id == f->id)
            k++;
        const struct roce_report_flow *fx = roce_report_flow_x(r, f);
        const struct roce_fout c = {r, fx->lat, fx, r->t.first_ts_ns, eps + first, k - first, 0};
        roce_jw_item(w);
        roce_fields_stream(w, &roce_flow_fields, f, &c);
    }
    free(refs);
    free(eps);
    roce_jw_close(w, ']');
    return 0;
}

/* The report's diagnoses, streamed: a finding of a large table has a
 * subject for each of thousands of flows. */
static void stream_diagnoses(struct roce_jw *w, const struct roce_report *r)
{
    struct roce_diag_list l;
    if (roce_report_diagnoses(r, &l) != 0)
        memset(&l, 0, sizeof l); /* out of memory: none, as the tree had */
    roce_jw_diagnoses(w, &l);
    roce_diag_list_free(&l);
}

int roce_report_json(const struct roce_report *r, FILE *out)
{
    const struct roce_fout c = {.r = r, .lat = r->lat, .stream_diagnoses = 1};
    struct roce_jw *w = malloc(sizeof *w);
    json_object *root = json_object_new_object();
    int rc = 0;
    if (w == NULL) {
        json_object_put(root);
        return -1;
    }
    /* the summary (a tree: it is small), then the long arrays streamed */
    json_object_object_add(root, "tool", json_object_new_string("rocescope"));
    roce_fields_json(root, &roce_report_fields, &r->t, &c);
    roce_jw_init(w, out, 0);
    roce_jw_open(w, '{');
    json_object_object_foreach(root, key, val)
    {
        roce_jw_key(w, key);
        if (val == NULL && strcmp(key, "diagnoses") == 0)
            stream_diagnoses(w, r);
        else
            roce_jw_json(w, val);
    }
    json_object_put(root);
    write_connections(w, r);
    rc = write_flows(w, r);
    roce_jw_close(w, '}');
    roce_jw_raw(w, "\n", 1);
    rc = roce_jw_flush(w) != 0 || rc != 0 ? -1 : 0;
    free(w);
    return rc;
}
