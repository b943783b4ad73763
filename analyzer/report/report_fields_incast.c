/*
 * report_fields_incast.c - the report's "incast" member (ANALYSIS.md
 * "Incast"; REPORT.md): the receivers whose fan-in reached
 * --incast-senders, their worst episode and fan-in over time, written and
 * read back exactly (the diagnoses are computed again from them). Times
 * in seconds since the epoch with 9 decimals, as first_time.
 */
#include "report_fields.h"

#include <stdlib.h>
#include <string.h>

#include "json_values.h"

#define WHERE_LEN    128
#define SEC_DECIMALS 9
#define US_DECIMALS  3

/* The receivers in the order they are written: their first episode, then
 * address (an engine's list and the merge of a split analysis's parts then
 * read the same). */
static int cmp_receiver(const void *pa, const void *pb)
{
    const struct roce_incast_receiver *a = *(const struct roce_incast_receiver *const *)pa;
    const struct roce_incast_receiver *b = *(const struct roce_incast_receiver *const *)pb;
    if (a->series_start_ns != b->series_start_ns)
        return a->series_start_ns < b->series_start_ns ? -1 : 1;
    return memcmp(a->addr, b->addr, ROCE_ADDR_LEN);
}

static json_object *receiver_json(const struct roce_incast_receiver *r)
{
    json_object *o = json_object_new_object(), *a = json_object_new_array();
    json_object_object_add(o, "address", roce_json_addr(r->addr, r->af));
    roce_json_put_u64(o, "version", r->version);
    roce_json_put_u64(o, "episodes", r->episodes);
    roce_json_put_u64(o, "flagged", r->flagged);
    roce_json_put_u64(o, "ce_marked", r->ce_marked);
    roce_json_put_u64(o, "paused", r->paused);
    roce_json_put_u64(o, "lost", r->lost);
    const struct roce_incast_episode *e = &r->worst;
    json_object *w = json_object_new_object();
    json_object_object_add(w, "flagged", json_object_new_boolean(e->flagged));
    roce_json_put_u64(w, "fanin", e->fanin);
    roce_json_put_u64(w, "senders", e->senders);
    for (unsigned i = 0; i < e->n_named && i < ROCE_INCAST_NAMED; i++)
        json_object_array_add(a, roce_json_addr(e->named[i], r->af));
    json_object_object_add(w, "named", a);
    json_object_object_add(w, "start", roce_json_seconds(e->start_ns));
    json_object_object_add(w, "end", roce_json_seconds(e->end_ns));
    roce_json_put_u64(w, "bytes", e->bytes);
    json_object_object_add(w, "frames", roce_json_frames(e->frames, e->n_frames));
    json_object_object_add(o, "worst", w);
    json_object *s = json_object_new_object(), *v = json_object_new_array();
    json_object_object_add(s, "start", roce_json_seconds(r->series_start_ns));
    json_object_object_add(s, "step_us", roce_json_us(r->series_step_ns));
    for (unsigned i = 0; i < r->n_points && i < ROCE_INCAST_POINTS; i++)
        json_object_array_add(v, json_object_new_int(r->series[i]));
    json_object_object_add(s, "values", v);
    json_object_object_add(o, "fanin_series", s);
    return o;
}

static void incast_write(json_object *o, const struct roce_field *f, const void *base,
                         const struct roce_fout *c)
{
    const struct roce_incast_report *l = (const void *)((const char *)base + f->off);
    const struct roce_incast_receiver *order[ROCE_INCAST_LISTED];
    json_object *a = json_object_new_array();
    unsigned n = l->n < ROCE_INCAST_LISTED ? l->n : ROCE_INCAST_LISTED;
    (void)c;
    for (unsigned i = 0; i < n; i++)
        order[i] = &l->r[i];
    qsort(order, n, sizeof order[0], cmp_receiver);
    for (unsigned i = 0; i < n; i++)
        json_object_array_add(a, receiver_json(order[i]));
    json_object_object_add(o, f->key, a);
}

static uint64_t get_max(struct roce_jget *g, json_object *o, const char *where, const char *key,
                        uint64_t max)
{
    uint64_t v = roce_jget_u64(g, o, where, key);
    if (v > max) {
        roce_jget_fail(g, where, key, "a value out of range");
        return 0;
    }
    return v;
}

static void worst_parse(struct roce_jget *g, json_object *w, const char *where,
                        struct roce_incast_episode *r)
{
    json_object *b = roce_jget_member(g, w, where, "flagged", json_type_boolean, 0);
    json_object *a = roce_jget_member(g, w, where, "named", json_type_array, 0);
    r->flagged = b != NULL && json_object_get_boolean(b);
    r->fanin = (uint32_t)get_max(g, w, where, "fanin", UINT32_MAX);
    r->senders = (uint32_t)get_max(g, w, where, "senders", UINT32_MAX);
    if (a != NULL && json_object_array_length(a) > ROCE_INCAST_NAMED)
        roce_jget_fail(g, where, "named", "too many senders");
    for (size_t i = 0; a != NULL && !g->failed && i < json_object_array_length(a); i++) {
        uint8_t af = 0;
        roce_jget_addr_at(g, a, i, where, "named", r->named[i], &af);
        r->n_named = (uint8_t)(i + 1);
    }
    roce_jget_ns(g, w, where, "start", SEC_DECIMALS, 0, &r->start_ns);
    roce_jget_ns(g, w, where, "end", SEC_DECIMALS, 0, &r->end_ns);
    r->bytes = roce_jget_u64(g, w, where, "bytes");
    r->n_frames = (uint8_t)roce_jget_frames(g, w, where, "frames", r->frames, ROCE_EVIDENCE_MAX);
}

static void series_parse(struct roce_jget *g, json_object *s, const char *where,
                         struct roce_incast_receiver *r)
{
    json_object *v = roce_jget_member(g, s, where, "values", json_type_array, 0);
    roce_jget_ns(g, s, where, "start", SEC_DECIMALS, 0, &r->series_start_ns);
    roce_jget_ns(g, s, where, "step_us", US_DECIMALS, 0, &r->series_step_ns);
    if (!g->failed && r->series_step_ns <= 0)
        roce_jget_fail(g, where, "step_us", "not a positive step");
    if (v != NULL && json_object_array_length(v) > ROCE_INCAST_POINTS)
        roce_jget_fail(g, where, "values", "too many points");
    for (size_t i = 0; v != NULL && !g->failed && i < json_object_array_length(v); i++) {
        json_object *x = json_object_array_get_idx(v, i);
        if (json_object_get_type(x) != json_type_int || json_object_get_int64(x) < 0 ||
            json_object_get_int64(x) > UINT16_MAX) {
            roce_jget_fail(g, where, "values", "not a list of fan-ins");
            return;
        }
        r->series[i] = (uint16_t)json_object_get_int64(x);
        r->n_points = (uint8_t)(i + 1);
    }
}

static void receiver_parse(struct roce_jget *g, json_object *o, const char *where,
                           struct roce_incast_receiver *r)
{
    char at[WHERE_LEN];
    memset(r, 0, sizeof *r);
    roce_jget_addr(g, o, where, "address", r->addr, &r->af);
    r->version = (uint8_t)get_max(g, o, where, "version", UINT8_MAX);
    r->episodes = roce_jget_u64(g, o, where, "episodes");
    r->flagged = roce_jget_u64(g, o, where, "flagged");
    r->ce_marked = roce_jget_u64(g, o, where, "ce_marked");
    r->paused = roce_jget_u64(g, o, where, "paused");
    r->lost = roce_jget_u64(g, o, where, "lost");
    json_object *w = roce_jget_member(g, o, where, "worst", json_type_object, 0);
    if (w != NULL)
        worst_parse(g, w, roce_jget_where(at, sizeof at, where, "worst"), &r->worst);
    json_object *s = roce_jget_member(g, o, where, "fanin_series", json_type_object, 0);
    if (s != NULL)
        series_parse(g, s, roce_jget_where(at, sizeof at, where, "fanin_series"), r);
}

static int incast_parse(struct roce_jget *g, json_object *o, const char *where,
                        const struct roce_field *f, void *base, const struct roce_fin *c)
{
    struct roce_incast_report *l = (void *)((char *)base + f->off);
    char at[WHERE_LEN];
    json_object *a = roce_jget_list(g, o, where, f->key, ROCE_INCAST_LISTED, "too many receivers",
                                    at, sizeof at);
    (void)c;
    if (a == NULL)
        return 0;
    l->n = 0;
    for (size_t i = 0; !g->failed && i < json_object_array_length(a); i++)
        receiver_parse(g, json_object_array_get_idx(a, i), at, &l->r[l->n++]);
    return 0;
}
const struct roce_fcall roce_fcall_incast = {incast_write, incast_parse, NULL};
