/*
 * live_json.c - the live monitor's JSON Lines (see live_json.h).
 *
 * The counters objects of an interval line ("interval" and "totals") have
 * the keys of the offline report's sections (naks, retransmission, ecn,
 * pfc...): the fields of the report that the lines carry (live_fields.h).
 * Ownership: json-c's *_add take the value; the root is put once after
 * writing.
 */
#define _GNU_SOURCE
#include "live_json.h"

#include <json-c/json.h>
#include <string.h>

#include "json_values.h"
#include "live_fields.h"

#define LINE_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
#define LINE_SUBJECTS                                                                              \
    10 /* subjects of a raised diagnosis in a line: the worst, as the view's flows */

/* The counters of t: an interval's (running: 0) or the running totals (1:
 * with the gauges). */
static json_object *counters(const struct roce_totals *t, int running)
{
    const struct roce_field *fields[ROCE_REPORT_FIELDS_MAX];
    const struct roce_fout c = {.r = NULL};
    size_t n = roce_live_fields(fields, ROCE_REPORT_FIELDS_MAX);
    json_object *o = json_object_new_object();
    for (size_t i = 0; i < n; i++)
        if (running || !(fields[i]->flags & ROCE_FF_GAUGE))
            roce_field_json(roce_fields_holder(o, roce_live_path(fields[i])), fields[i], t, &c);
    return o;
}

static json_object *capture_stats(const struct roce_livecap_stats *s)
{
    json_object *o = json_object_new_object();
    roce_json_put_u64(o, "received", s->received);
    roce_json_put_u64(o, "dropped", s->dropped);
    roce_json_put_u64(o, "if_dropped", s->if_dropped);
    roce_json_put_u64(o, "analysis_dropped", s->analysis_dropped);
    return o;
}

static json_object *top_flow(const struct roce_live_flow *f)
{
    json_object *o = json_object_new_object();
    roce_json_endpoint(o, &f->key);
    roce_json_put_u64(o, "id", f->id);
    json_object_object_add(
        o, "transport",
        json_object_new_string(roce_transport_name((enum roce_transport)f->transport)));
    roce_json_put_u64(o, "packets", f->packets);
    roce_json_put_u64(o, "retransmitted_packets", f->retransmitted);
    roce_json_put_u64(o, "naks", f->naks);
    roce_json_put_u64(o, "psn_gaps", f->gaps);
    roce_json_put_u64(o, "missing_psns", f->missing_psns);
    roce_json_put_u64(o, "ce_marked", f->ce_marked);
    roce_json_put_u64(o, "cnps", f->cnps);
    return o;
}

int roce_live_json_interval(FILE *out, const struct roce_live_interval *iv)
{
    json_object *root = json_object_new_object(), *top = json_object_new_array();
    json_object_object_add(root, "type", json_object_new_string("interval"));
    roce_json_put_u64(root, "seq", iv->seq);
    json_object_object_add(root, "final", json_object_new_boolean(iv->final));
    json_object_object_add(root, "interface", json_object_new_string(iv->iface));
    json_object_object_add(root, "time", roce_json_seconds(iv->wall_ns));
    json_object_object_add(root, "interval_s", roce_json_seconds(iv->length_ns));
    json_object_object_add(root, "uptime_s", roce_json_seconds(iv->uptime_ns));
    json_object_object_add(root, "interval", counters(&iv->delta, 0));
    json_object_object_add(root, "totals", counters(iv->total, 1));
    json_object *cap = capture_stats(&iv->cap);
    json_object_object_add(cap, "interval", capture_stats(&iv->cap_delta));
    json_object_object_add(root, "capture", cap);
    roce_json_put_u64(root, "flows_with_trouble", iv->n_troubled);
    for (size_t i = 0; i < iv->n_top; i++)
        json_object_array_add(top, top_flow(&iv->top[i]));
    json_object_object_add(root, "top_flows", top);
    json_object *raised = json_object_new_array();
    for (size_t i = 0; i < iv->n_raised; i++) {
        json_object *d = roce_json_diagnosis(iv->diags, iv->raised[i].d, LINE_SUBJECTS);
        roce_json_put_u64(d, "interval_count", iv->raised[i].added);
        json_object_array_add(raised, d);
    }
    roce_json_put_u64(root, "active_diagnoses", iv->n_diags);
    json_object_object_add(root, "diagnoses", raised);
    int rc = fputs(json_object_to_json_string_ext(root, LINE_FLAGS), out) < 0 ||
             fputc('\n', out) == EOF || fflush(out) != 0;
    json_object_put(root);
    return rc ? -1 : 0;
}

/* A stream filter for the pretty report: json-c puts newlines only between
 * tokens (inside strings they are escaped), and indentation only right
 * after them; dropping both leaves the same document on one line. */
struct one_line {
    FILE *out;
    int at_line_start;
};

static ssize_t one_line_write(void *cookie, const char *buf, size_t size)
{
    struct one_line *ol = cookie;
    size_t from = 0; /* the run of characters kept, written at once */
    for (size_t i = 0; i < size; i++) {
        char ch = buf[i];
        int drop = ch == '\n' || (ol->at_line_start && ch == ' ');
        if (drop && i > from && fwrite(buf + from, 1, i - from, ol->out) != i - from)
            return -1;
        if (drop)
            from = i + 1;
        ol->at_line_start = ch == '\n' || (ol->at_line_start && ch == ' ');
    }
    if (size > from && fwrite(buf + from, 1, size - from, ol->out) != size - from)
        return -1;
    return (ssize_t)size;
}

int roce_live_json_document(FILE *out, const struct roce_writer_run *r,
                            const struct roce_writer_doc *d)
{
    struct one_line ol = {out, 0};
    cookie_io_functions_t io = {NULL, one_line_write, NULL, NULL};
    FILE *f = fopencookie(&ol, "w", io);
    if (f == NULL)
        return -1;
    int rc = r->w->ops->report(r, f, d);
    if (fclose(f) != 0)
        rc = -1;
    if (fputc('\n', out) == EOF || fflush(out) != 0)
        rc = -1;
    return rc;
}
