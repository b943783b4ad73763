/*
 * report_parse_flow.c - the parts of a JSON report that repeat: latency
 * objects with their distributions, NAK and trigger counts, flows with
 * their episodes (see report_parse.h; the keys are report_json.c's).
 */
#include "report_parse.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"

#define US_DECIMALS       3 /* latencies and durations: microseconds, three decimals */
#define SEC_DECIMALS      9 /* times: seconds, nine decimals */
#define PSN_MAX           0xFFFFFFu
#define OPS_PER_TRANSPORT 32u
#define FLOW_PMTU_MAX     4096u

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
 * min and max written (w). */
static void buckets(struct roce_jget *g, json_object *a, const char *where, struct roce_lat *l,
                    const struct roce_lat_summary *w)
{
    for (size_t i = 0; i < json_object_array_length(a); i++) {
        json_object *pair = json_object_array_get_idx(a, i), *idx, *count;
        if (json_object_get_type(pair) != json_type_array || json_object_array_length(pair) != 2 ||
            json_object_get_type(idx = json_object_array_get_idx(pair, 0)) != json_type_int ||
            json_object_get_type(count = json_object_array_get_idx(pair, 1)) != json_type_int ||
            json_object_get_int64(idx) < 0 || json_object_get_int64(idx) >= ROCE_LAT_BUCKETS ||
            json_object_get_int64(count) <= 0 || json_object_get_int64(count) > UINT32_MAX) {
            roce_jget_fail(g, where, "distribution.buckets", "not a list of [index, count]");
            return;
        }
        if (roce_lat_add_bucket(l, (unsigned)json_object_get_int64(idx),
                                (uint32_t)json_object_get_int64(count), w->min, w->max) != 0) {
            roce_jget_fail(g, where, "distribution", "out of memory");
            return;
        }
    }
}

void roce_parse_latency(struct roce_jget *g, json_object *o, const char *where, struct roce_lat *l,
                        struct roce_lat_summary *s)
{
    struct roce_lat_summary w = {0};
    json_object *d, *a;
    o = roce_jget_path(g, o, where);
    w.count = roce_jget_u64(g, o, where, "count");
    roce_jget_ns(g, o, where, "min", US_DECIMALS, 1, &w.min);
    roce_jget_ns(g, o, where, "p50", US_DECIMALS, 1, &w.p50);
    roce_jget_ns(g, o, where, "p99", US_DECIMALS, 1, &w.p99);
    roce_jget_ns(g, o, where, "max", US_DECIMALS, 1, &w.max);
    d = roce_jget_member(g, o, where, "distribution", json_type_object, 0);
    if (d != NULL && json_object_object_get_ex(d, "exact_ns", &a) &&
        json_object_get_type(a) == json_type_array)
        exact_samples(g, a, where, l);
    else if (d != NULL && json_object_object_get_ex(d, "buckets", &a) &&
             json_object_get_type(a) == json_type_array)
        buckets(g, a, where, l, &w);
    else if (d != NULL)
        roce_jget_fail(g, where, "distribution", "neither exact_ns nor buckets");
    roce_lat_summarize(l, s);
    if (!g->failed && (s->count != w.count || s->min != w.min || s->p50 != w.p50 ||
                       s->p99 != w.p99 || s->max != w.max))
        roce_jget_fail(g, where, "distribution", "does not give the count and percentiles written");
}

void roce_parse_naks(struct roce_jget *g, json_object *o, const char *where,
                     struct roce_nak_counts *n)
{
    o = roce_jget_path(g, o, where);
    for (unsigned c = 0; c < ROCE_NAK_CODES; c++)
        n->code[c] = roce_jget_u64(g, o, where, roce_nak_code_name(c));
    n->reserved_code = roce_jget_u64(g, o, where, "reserved_code");
    n->rnr = roce_jget_u64(g, o, where, "rnr");
    n->total = roce_jget_u64(g, o, where, "total");
}

void roce_parse_triggers(struct roce_jget *g, json_object *o, const char *where,
                         uint64_t by[ROCE_TRIGGER_COUNT])
{
    o = roce_jget_path(g, o, where);
    for (unsigned i = 0; i < ROCE_TRIGGER_COUNT; i++)
        by[i] = roce_jget_u64(g, o, where, roce_trigger_name(i));
}

/* A PSN member (24 bits). */
static uint32_t get_psn(struct roce_jget *g, json_object *o, const char *where, const char *key)
{
    uint64_t v = roce_jget_u64(g, o, where, key);
    if (v > PSN_MAX)
        roce_jget_fail(g, where, key, "not a 24-bit PSN");
    return (uint32_t)v;
}

/* clang-format off */
#define EP_FIELD(key, member) {"", key, offsetof(struct roce_episode, member)}
/* clang-format on */
static const struct roce_jget_field episode_fields[] = {
    EP_FIELD("first_frame", first_frame),
    EP_FIELD("last_frame", last_frame),
    EP_FIELD("packets", packets),
    {NULL, NULL, 0},
};

/* The episodes of flow id, appended to r. 0, or -1 when out of memory. */
static int parse_episodes(struct roce_jget *g, json_object *o, uint64_t id, struct roce_report *r)
{
    json_object *list = roce_jget_member(g, o, "", "episodes", json_type_array, 0);
    for (size_t i = 0; list != NULL && i < json_object_array_length(list); i++) {
        json_object *e = json_object_array_get_idx(list, i);
        struct roce_episode *ep = roce_report_add_episode(r);
        if (ep == NULL)
            return -1;
        ep->flow_id = id;
        roce_jget_fields(g, e, episode_fields, ep);
        ep->first_psn = get_psn(g, e, "episodes", "first_psn");
        ep->last_psn = get_psn(g, e, "episodes", "last_psn");
        ep->trigger = (uint8_t)roce_jget_name(g, e, "episodes", "trigger", roce_trigger_name,
                                              ROCE_TRIGGER_COUNT);
        json_object *nak = roce_jget_member(g, e, "episodes", "nak_frame", json_type_int, 1);
        ep->nak_frame = nak != NULL ? roce_jget_u64(g, e, "episodes", "nak_frame") : 0;
        roce_jget_ns(g, e, "episodes", "nak_to_resend_us", US_DECIMALS, 1, &ep->nak_to_resend_ns);
        /* only the duration is written: the episode is placed at time 0 */
        ep->first_ts_ns = 0;
        roce_jget_ns(g, e, "episodes", "duration_us", US_DECIMALS, 0, &ep->last_ts_ns);
    }
    return 0;
}

/* Transport names, with "none" for ROCE_TRANSPORT_NONE (6 has no name). */
static const char *transport_name(unsigned t)
{
    return t == ROCE_TRANSPORT_NONE - 1 ? "(unused)" : roce_transport_name((enum roce_transport)t);
}

/* {identifier: count} of the flow's transport, into op_counts. */
static void parse_opcodes(struct roce_jget *g, json_object *o, struct roce_flow_report *f)
{
    json_object *ops = roce_jget_member(g, o, "", "opcodes", json_type_object, 0);
    unsigned base = (unsigned)f->transport << ROCE_OPCODE_TRANSPORT_SHIFT;
    if (ops == NULL)
        return;
    json_object_object_foreach(ops, key, val)
    {
        char name[ROCE_FMT_OPCODE_LEN];
        unsigned op = 0;
        (void)val;
        if (strcmp(key, "CNP") == 0)
            continue; /* the flow's cnp_packets */
        for (; op < OPS_PER_TRANSPORT; op++) {
            roce_fmt_opcode((uint8_t)(base | op), name, sizeof name);
            if (strcmp(name, key) == 0)
                break;
        }
        uint64_t n = roce_jget_u64(g, ops, "opcodes", key);
        if (op == OPS_PER_TRANSPORT || n > UINT32_MAX)
            roce_jget_fail(g, "opcodes", key, "not an opcode of the flow's transport");
        else
            f->op_counts[op] = (uint32_t)n;
    }
}

/* clang-format off */
#define FLOW_FIELD(key, member) {"", key, offsetof(struct roce_flow_report, member)}
/* clang-format on */
static const struct roce_jget_field flow_fields[] = {
    FLOW_FIELD("id", id),
    FLOW_FIELD("packets", packets),
    FLOW_FIELD("bytes", bytes),
    FLOW_FIELD("payload_bytes", payload_bytes),
    FLOW_FIELD("request_packets", request_packets),
    FLOW_FIELD("response_packets", response_packets),
    FLOW_FIELD("cnp_packets", cnp_packets),
    FLOW_FIELD("first_frame", first_frame),
    FLOW_FIELD("last_frame", last_frame),
    FLOW_FIELD("retransmitted_packets", retransmitted_packets),
    FLOW_FIELD("psn_gaps", gap_events),
    FLOW_FIELD("missing_psns", missing_psns),
    FLOW_FIELD("psn_reuse", psn_reuse),
    FLOW_FIELD("read_response_gaps", read_response_gaps),
    FLOW_FIELD("episode_count", episodes),
    FLOW_FIELD("ce_marked", ce_marked),
    FLOW_FIELD("ce_answered", ce_answered),
    FLOW_FIELD("ce_unanswered", ce_unanswered),
    FLOW_FIELD("cnps_for_flow", cnps_for_flow),
    FLOW_FIELD("cnps_matched", cnps_matched),
    FLOW_FIELD("cnps_unexplained", cnps_unexplained),
    FLOW_FIELD("bad_icrc", bad_icrc),
    FLOW_FIELD("cm_connections", cm_connections),
    {NULL, NULL, 0},
};

int roce_parse_flow(struct roce_jget *g, json_object *o, struct roce_report *r)
{
    struct roce_flow_report *f = roce_report_add_flow(r);
    if (f == NULL)
        return -1;
    struct roce_report_flow *rf = &r->flow_x[r->n_flows - 1];
    snprintf(g->ctx, sizeof g->ctx, "flows[%zu]", r->n_flows - 1);
    roce_jget_endpoint(g, o, "", &f->key);
    uint64_t version = roce_jget_u64(g, o, "", "version");
    if (version != 1 && version != 2)
        roce_jget_fail(g, "", "version", "not 1 or 2");
    f->key.version = (uint8_t)version;
    roce_jget_fields(g, o, flow_fields, f);
    f->transport =
        (uint8_t)roce_jget_name(g, o, "", "transport", transport_name, ROCE_TRANSPORT_NONE + 1);
    if (roce_jget_member(g, o, "", "paired_with", json_type_object, 1) != NULL) {
        roce_jget_endpoint(g, roce_jget_path(g, o, "paired_with"), "paired_with", &rf->peer);
        rf->peer.version = f->key.version;
        rf->has_peer = 1;
    }
    f->paired_by =
        (uint8_t)roce_jget_name(g, o, "", "paired_by", roce_paired_by_name, ROCE_PAIRED_CNP + 1);
    parse_opcodes(g, o, f);
    f->have_psn = roce_jget_member(g, o, "", "first_psn", json_type_int, 1) != NULL;
    if (f->have_psn) {
        f->first_psn = get_psn(g, o, "", "first_psn");
        f->last_psn = get_psn(g, o, "", "last_psn");
    }
    roce_jget_ns(g, o, "", "first_time", SEC_DECIMALS, 0, &f->first_ts_ns);
    roce_jget_ns(g, o, "", "last_time", SEC_DECIMALS, 0, &f->last_ts_ns);
    uint64_t pmtu = roce_jget_u64(g, o, "", "pmtu");
    if (pmtu > FLOW_PMTU_MAX)
        roce_jget_fail(g, "", "pmtu", "larger than 4096");
    f->pmtu = (uint32_t)pmtu;
    roce_parse_naks(g, o, "naks", &f->naks);
    roce_parse_triggers(g, o, "episodes_by_trigger", f->by_trigger);
    roce_parse_latency(g, o, "ack_latency_us", &rf->lat[ROCE_LATENCY_ACK].own, &f->ack_latency);
    roce_parse_latency(g, o, "cnp_latency_us", &rf->lat[ROCE_LATENCY_CNP].own, &f->cnp_latency);
    int rc = parse_episodes(g, o, f->id, r);
    if (!g->failed)
        g->ctx[0] = '\0';
    return rc;
}
