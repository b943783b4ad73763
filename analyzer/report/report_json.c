/*
 * report_json.c - the report as one JSON document (json-c), its members
 * written from the table of the report's fields (report_fields.c): the
 * summary, then the connections and the flows (each with its episodes) one
 * element at a time, so that memory does not grow with the number of flows.
 *
 * Ownership: json_object_object_add / json_object_array_add take ownership
 * of the value; each tree is put once written. Key names are part of the
 * interface (REPORT.md, "JSON report").
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_fields.h"

#define JSON_FLAGS (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Write s with indent before its first line and after every newline. */
static int write_indented(FILE *out, const char *s, const char *indent)
{
    if (fputs(indent, out) < 0)
        return -1;
    for (const char *nl; (nl = strchr(s, '\n')) != NULL; s = nl + 1)
        if (fwrite(s, 1, (size_t)(nl - s) + 1, out) != (size_t)(nl - s) + 1 || fputs(indent, out) < 0)
            return -1;
    return fputs(s, out) < 0 ? -1 : 0;
}

/* Write one element of a top-level array (json-c's pretty layout) and put it. */
static int write_element(FILE *out, json_object *o, int first)
{
    int rc = fputs(first ? "\n" : ",\n", out) < 0 ||
             write_indented(out, json_object_to_json_string_ext(o, JSON_FLAGS), "    ") != 0;
    json_object_put(o);
    return rc ? -1 : 0;
}

/* The paired flows, each connection once. */
static int write_connections(FILE *out, const struct roce_report *r)
{
    if (fputs(",\n  \"connections\": [", out) < 0)
        return -1;
    const struct roce_fout c = {r, NULL, NULL, 0};
    for (size_t i = 0; i < r->n_conns; i++) {
        json_object *o = json_object_new_object();
        roce_fields_json(o, &roce_conn_fields, &r->conns[i], &c);
        if (write_element(out, o, i == 0) != 0)
            return -1;
    }
    return fputs("\n  ]", out) < 0 ? -1 : 0;
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

/* The flows that carried packets, in id order, each with its episodes. */
static int write_flows(FILE *out, const struct roce_report *r)
{
    size_t n_ep = r->n_episodes, k = 0;
    struct ep_ref *eps = calloc(n_ep ? n_ep : 1, sizeof *eps);
    int first = 1, rc = 0;
    if (eps == NULL)
        return -1;
    for (size_t i = 0; i < n_ep; i++)
        eps[i] = (struct ep_ref){r->episodes[i].flow_id, i};
    qsort(eps, n_ep, sizeof *eps, cmp_ep_ref);
    rc = fputs(",\n  \"flows\": [", out) < 0;
    for (size_t i = 0; i < r->n_flows && !rc; i++) {
        const struct roce_flow_report *f = &r->flows[i];
        while (k < n_ep && eps[k].flow_id < f->id)
            k++; /* episodes of evicted flows: counted in the totals only */
        const struct roce_report_flow *fx = roce_report_flow_x(r, f);
        const struct roce_fout c = {r, fx->lat, fx, r->t.first_ts_ns};
        json_object *o = json_object_new_object(), *list;
        roce_fields_json(o, &roce_flow_fields, f, &c);
        list = json_object_object_get(o, "episodes");
        for (; k < n_ep && eps[k].flow_id == f->id; k++) {
            json_object *e = json_object_new_object();
            roce_fields_json(e, &roce_episode_fields, &r->episodes[eps[k].index], &c);
            json_object_array_add(list, e);
        }
        rc = write_element(out, o, first) != 0;
        first = 0;
    }
    free(eps);
    return rc || fputs("\n  ]\n}\n", out) < 0 ? -1 : 0;
}

int roce_report_json(const struct roce_report *r, FILE *out)
{
    const struct roce_fout c = {r, r->lat, NULL, 0};
    json_object *root = json_object_new_object();

    json_object_object_add(root, "tool", json_object_new_string("rocescope"));
    roce_fields_json(root, &roce_report_fields, &r->t, &c);

    /* the summary, without its closing "\n}", then the long arrays one
     * element at a time: memory does not grow with the number of flows */
    const char *s = json_object_to_json_string_ext(root, JSON_FLAGS);
    size_t len = strlen(s);
    int rc = len < 2 || fwrite(s, 1, len - 2, out) != len - 2;
    json_object_put(root);
    if (rc || write_connections(out, r) != 0 || write_flows(out, r) != 0)
        return -1;
    return 0;
}
