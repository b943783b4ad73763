/*
 * report_fields_latency.c - the latency objects of the report (the CALL
 * fields "ack_latency_us" and "cnp_latency_us" of report_fields.c):
 * {count, min, p50, p99, max, distribution}, with the distribution itself so
 * that reports can be merged, read back and checked against the summary
 * written. The field's member is the struct roce_lat_summary; its arg, the
 * enum roce_latency_kind of the record's distribution.
 */
#include "report_fields.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_values.h"
#include "jsonw.h"

#define US_DECIMALS 3 /* microseconds with three decimals: exact nanoseconds */
#define WHERE_LEN   128

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The distribution itself: {"exact_ns": [samples, ascending]} while it
 * holds exact samples, else {"buckets": [[index, count], ...]} (the nonzero
 * buckets, ascending). */
static void distribution(struct roce_jw *w, const struct roce_lat *l)
{
    const int64_t *samples;
    size_t n = roce_lat_exact(l, &samples);
    roce_jw_open(w, '{');
    if (l->count == 0 || n > 0) {
        int64_t sorted[ROCE_LAT_EXACT];
        if (n > 0) {
            memcpy(sorted, samples, n * sizeof sorted[0]);
            qsort(sorted, n, sizeof sorted[0], cmp_i64);
        }
        roce_jw_key(w, "exact_ns");
        roce_jw_open(w, '[');
        for (size_t i = 0; i < n; i++) {
            roce_jw_item(w);
            roce_jw_i64(w, sorted[i]);
        }
    } else {
        roce_jw_key(w, "buckets");
        roce_jw_open(w, '[');
        for (unsigned i = 0; i < ROCE_LAT_BUCKETS; i++) {
            uint32_t c = roce_lat_bucket(l, i);
            if (!c)
                continue;
            roce_jw_item(w);
            roce_jw_open(w, '[');
            roce_jw_item(w);
            roce_jw_u64(w, i);
            roce_jw_item(w);
            roce_jw_u64(w, c);
            roce_jw_close(w, ']');
        }
    }
    roce_jw_close(w, ']');
    roce_jw_close(w, '}');
}

/* A percentile of the summary, or null without samples. */
static void percentile(struct roce_jw *w, const char *k, const struct roce_lat_summary *s,
                       int64_t ns)
{
    roce_jw_key(w, k);
    s->count ? roce_jw_us(w, ns) : roce_jw_null(w);
}

static void latency_stream(struct roce_jw *w, const struct roce_field *f, const void *base,
                           const struct roce_fout *c)
{
    const struct roce_lat_summary *s =
        (const struct roce_lat_summary *)((const char *)base + f->off);
    roce_jw_key(w, f->key);
    roce_jw_open(w, '{');
    roce_jw_key_u64(w, "count", s->count);
    percentile(w, "min", s, s->min);
    percentile(w, "p50", s, s->p50);
    percentile(w, "p99", s, s->p99);
    percentile(w, "max", s, s->max);
    roce_jw_key(w, "distribution");
    distribution(w, roce_report_lat_get(&c->lat[f->arg]));
    roce_jw_close(w, '}');
}

/* {"exact_ns": [...]}: the samples added to l (at most ROCE_LAT_EXACT). */
static void exact_samples(struct roce_jget *g, json_object *a, const char *where,
                          struct roce_lat *l)
{
    size_t n = json_object_array_length(a);
    if (n > ROCE_LAT_EXACT) {
        roce_jget_fail(g, where, "distribution.exact_ns", "more samples than kept exactly");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *v = json_object_array_get_idx(a, i);
        if (json_object_get_type(v) != json_type_int || json_object_get_int64(v) < 0) {
            roce_jget_fail(g, where, "distribution.exact_ns", "not a list of nanoseconds");
            return;
        }
        if (roce_lat_add(l, json_object_get_int64(v)) != 0) {
            roce_jget_fail(g, where, "distribution", "out of memory");
            return;
        }
    }
}

/* {"buckets": [[index, count], ...]}: the counts added to l, with the exact
 * min and max written (w). Each bucket once, in ascending order (as
 * written), so that no count adds up past what a bucket holds. */
static void buckets(struct roce_jget *g, json_object *a, const char *where, struct roce_lat *l,
                    const struct roce_lat_summary *w)
{
    int64_t last = -1;
    for (size_t i = 0; i < json_object_array_length(a); i++) {
        json_object *pair = json_object_array_get_idx(a, i), *idx, *count;
        if (json_object_get_type(pair) != json_type_array || json_object_array_length(pair) != 2 ||
            json_object_get_type(idx = json_object_array_get_idx(pair, 0)) != json_type_int ||
            json_object_get_type(count = json_object_array_get_idx(pair, 1)) != json_type_int ||
            json_object_get_int64(idx) <= last || json_object_get_int64(idx) >= ROCE_LAT_BUCKETS ||
            json_object_get_int64(count) <= 0 || json_object_get_int64(count) > UINT32_MAX) {
            roce_jget_fail(g, where, "distribution.buckets",
                           "not a list of [index, count], ascending by index");
            return;
        }
        last = json_object_get_int64(idx);
        if (roce_lat_add_bucket(l, (unsigned)json_object_get_int64(idx),
                                (uint32_t)json_object_get_int64(count), w->min, w->max) != 0) {
            roce_jget_fail(g, where, "distribution", "out of memory");
            return;
        }
    }
}

/* The distribution into the record's (empty before), its summary into the
 * member: the summary the distribution gives must be the one written. */
static int latency_parse(struct roce_jget *g, json_object *o, const char *where,
                         const struct roce_field *f, void *base, const struct roce_fin *c)
{
    struct roce_lat_summary w = {0}, *s = (struct roce_lat_summary *)((char *)base + f->off);
    struct roce_lat *l = &c->lat[f->arg].own;
    char at[WHERE_LEN];
    json_object *d, *a;
    roce_jget_where(at, sizeof at, where, f->key);
    o = roce_jget_member(g, o, where, f->key, json_type_object, 0);
    w.count = roce_jget_u64(g, o, at, "count");
    roce_jget_ns(g, o, at, "min", US_DECIMALS, 1, &w.min);
    roce_jget_ns(g, o, at, "p50", US_DECIMALS, 1, &w.p50);
    roce_jget_ns(g, o, at, "p99", US_DECIMALS, 1, &w.p99);
    roce_jget_ns(g, o, at, "max", US_DECIMALS, 1, &w.max);
    d = roce_jget_member(g, o, at, "distribution", json_type_object, 0);
    if (d != NULL && json_object_object_get_ex(d, "exact_ns", &a) &&
        json_object_get_type(a) == json_type_array)
        exact_samples(g, a, at, l);
    else if (d != NULL && json_object_object_get_ex(d, "buckets", &a) &&
             json_object_get_type(a) == json_type_array)
        buckets(g, a, at, l, &w);
    else if (d != NULL)
        roce_jget_fail(g, at, "distribution", "neither exact_ns nor buckets");
    roce_lat_summarize(l, s);
    if (!g->failed && (s->count != w.count || s->min != w.min || s->p50 != w.p50 ||
                       s->p99 != w.p99 || s->max != w.max))
        roce_jget_fail(g, at, "distribution", "does not give the count and percentiles written");
    return 0;
}

const struct roce_fcall roce_fcall_latency = {NULL, latency_parse, latency_stream};
