/*
 * report_json.c - the report as one JSON document (json-c).
 *
 * Ownership: json_object_object_add / json_object_array_add take ownership
 * of the value; the root is put once at the end. Key names are part of the
 * interface (README "JSON report").
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "json_values.h"
#include "report.h"

#define JSON_FLAGS (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

static void add_str(json_object *o, const char *k, const char *v)
{
    json_object_object_add(o, k, json_object_new_string(v));
}


static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The distribution itself, so that reports can be merged: {"exact_ns":
 * [samples, ascending]} while it holds exact samples, else {"buckets":
 * [[index, count], ...]} (the nonzero buckets, ascending). */
static json_object *new_distribution(const struct roce_lat *l)
{
    json_object *o = json_object_new_object(), *a = json_object_new_array();
    const int64_t *samples;
    size_t n = roce_lat_exact(l, &samples);
    if (l->count == 0 || n > 0) {
        int64_t sorted[ROCE_LAT_EXACT];
        if (n > 0) {
            memcpy(sorted, samples, n * sizeof sorted[0]);
            qsort(sorted, n, sizeof sorted[0], cmp_i64);
        }
        for (size_t i = 0; i < n; i++)
            json_object_array_add(a, json_object_new_int64(sorted[i]));
        json_object_object_add(o, "exact_ns", a);
        return o;
    }
    for (unsigned i = 0; i < ROCE_LAT_BUCKETS; i++) {
        uint32_t c = roce_lat_bucket(l, i);
        if (!c)
            continue;
        json_object *pair = json_object_new_array();
        json_object_array_add(pair, json_object_new_int((int)i));
        json_object_array_add(pair, json_object_new_uint64(c));
        json_object_array_add(a, pair);
    }
    json_object_object_add(o, "buckets", a);
    return o;
}

static json_object *new_latency(const struct roce_lat_summary *s, const struct roce_report_lat *l)
{
    json_object *o = json_object_new_object();
    roce_json_put_u64(o, "count", s->count);
    json_object_object_add(o, "min", s->count ? roce_json_us(s->min) : NULL);
    json_object_object_add(o, "p50", s->count ? roce_json_us(s->p50) : NULL);
    json_object_object_add(o, "p99", s->count ? roce_json_us(s->p99) : NULL);
    json_object_object_add(o, "max", s->count ? roce_json_us(s->max) : NULL);
    json_object_object_add(o, "distribution", new_distribution(roce_report_lat_get(l)));
    return o;
}

/* {src, dst, dest_qp} of a flow key. */
static json_object *new_endpoint(const struct roce_flow_key *k)
{
    char a[ROCE_FMT_ADDR_LEN];
    json_object *o = json_object_new_object();
    roce_fmt_addr(k->src, k->is_v6, a, sizeof a);
    add_str(o, "src", a);
    roce_fmt_addr(k->dst, k->is_v6, a, sizeof a);
    add_str(o, "dst", a);
    roce_json_put_u64(o, "dest_qp", k->dqpn);
    return o;
}

static json_object *capture_object(const struct roce_report *r)
{
    const struct roce_totals *t = &r->t;
    json_object *o = json_object_new_object(), *files = json_object_new_array();
    add_str(o, "file", r->n_files ? r->files[0] : "");
    for (size_t i = 0; i < r->n_files; i++)
        json_object_array_add(files, json_object_new_string(r->files[i]));
    json_object_object_add(o, "files", files);
    add_str(o, "link_type", r->link_type ? r->link_type : "unknown");
    roce_json_put_u64(o, "packets", t->packets);
    roce_json_put_u64(o, "roce_packets", t->roce_packets);
    roce_json_put_u64(o, "rocev1_packets", t->rocev1_packets);
    roce_json_put_u64(o, "rocev2_packets", t->rocev2_packets);
    roce_json_put_u64(o, "non_roce_packets", t->non_roce_packets);
    roce_json_put_u64(o, "malformed_packets", t->malformed_packets);
    roce_json_put_u64(o, "truncated_packets", t->truncated_packets);
    roce_json_put_u64(o, "no_bth_packets", t->no_bth_packets);
    json_object_object_add(o, "malformed_by_reason", roce_json_malformed(t));
    roce_json_put_u64(o, "bytes", t->bytes);
    roce_json_put_u64(o, "request_packets", t->request_packets);
    roce_json_put_u64(o, "response_packets", t->response_packets);
    roce_json_put_u64(o, "cnp_packets", t->cnp_packets);
    json_object_object_add(o, "first_time", t->packets ? roce_json_seconds(t->first_ts_ns) : NULL);
    json_object_object_add(o, "duration_s",
                           roce_json_seconds(t->packets ? t->last_ts_ns - t->first_ts_ns : 0));
    json_object *icrc = json_object_new_object();
    roce_json_put_u64(icrc, "good", t->icrc_good);
    roce_json_put_u64(icrc, "bad", t->icrc_bad);
    roce_json_put_u64(icrc, "unchecked", t->icrc_unchecked);
    json_object_object_add(o, "icrc", icrc);
    json_object_object_add(o, "complete", json_object_new_boolean(r->error == NULL));
    if (r->error != NULL)
        add_str(o, "error", r->error);
    if (r->live != NULL) {
        json_object *live = json_object_new_object();
        add_str(live, "interface", r->live->iface);
        roce_json_put_u64(live, "received", r->live->received);
        roce_json_put_u64(live, "dropped", r->live->dropped);
        roce_json_put_u64(live, "if_dropped", r->live->if_dropped);
        json_object_object_add(o, "live", live);
    }
    return o;
}

static json_object *pfc_object(const struct roce_report *r)
{
    const struct roce_pfc_report *p = &r->t.pfc;
    json_object *o = json_object_new_object(), *prios = json_object_new_array();
    roce_json_put_u64(o, "pfc_frames", p->pfc_frames);
    roce_json_put_u64(o, "pause_frames", p->pause_frames);
    roce_json_put_u64(o, "other_mac_control", p->other_mac_control);
    for (unsigned i = 0; i < ROCE_PFC_PRIORITIES; i++) {
        json_object *q = roce_json_pfc_prio(&p->prio[i]);
        json_object_object_add(q, "priority", json_object_new_int((int)i));
        json_object_array_add(prios, q);
    }
    json_object_object_add(o, "priorities", prios);
    json_object_object_add(o, "pause", roce_json_pfc_prio(&p->pause));
    return o;
}

static json_object *options_object(const struct roce_config *c)
{
    json_object *o = json_object_new_object();
    roce_json_put_u64(o, "udp_port", c->udp_port);
    json_object_object_add(o, "cnp_window_us", roce_json_us(c->cnp_window_ns));
    roce_json_put_u64(o, "pmtu", c->pmtu);
    roce_json_put_u64(o, "max_flows", c->max_flows);
    json_object_object_add(o, "icrc_check", json_object_new_boolean(c->check_icrc));
    roce_json_put_u64(o, "vxlan_port", c->vxlan_port);
    roce_json_put_u64(o, "link_speed_mbps", c->link_speed_mbps);
    json_object_object_add(o, "interval_us", roce_json_us(c->pfc_window_ns));
    roce_json_put_u64(o, "storm_share_pct", c->pfc_storm_pct);
    return o;
}

static json_object *limits_object(const struct roce_totals *t)
{
    json_object *o = json_object_new_object();
    roce_json_put_u64(o, "flows_created", t->flows_created);
    roce_json_put_u64(o, "flows_evicted", t->flows_evicted);
    roce_json_put_u64(o, "flows_retired", t->flows_retired);
    roce_json_put_u64(o, "flows_active", t->flows_active);
    roce_json_put_u64(o, "peak_flows", t->peak_flows);
    roce_json_put_u64(o, "episodes_unlisted", t->episodes_unlisted);
    roce_json_put_u64(o, "verdicts_forced", t->verdicts_forced);
    roce_json_put_u64(o, "ce_tracking_overflow", t->ce_tracking_overflow);
    return o;
}

static json_object *ecn_object(const struct roce_report *r)
{
    const struct roce_totals *t = &r->t;
    json_object *o = json_object_new_object();
    roce_json_put_u64(o, "ce_marked", t->ce_marked);
    roce_json_put_u64(o, "cnps", t->cnp_packets);
    roce_json_put_u64(o, "cnps_matched", t->cnps_matched);
    roce_json_put_u64(o, "cnps_unexplained", t->cnps_unexplained);
    roce_json_put_u64(o, "ce_answered", t->ce_answered);
    roce_json_put_u64(o, "ce_unanswered", t->ce_unanswered);
    json_object_object_add(o, "cnp_latency_us",
                           new_latency(&t->cnp_latency, &r->lat[ROCE_LATENCY_CNP]));
    return o;
}

static json_object *episode_object(const struct roce_episode *ep)
{
    json_object *o = json_object_new_object();
    roce_json_put_u64(o, "first_frame", ep->first_frame);
    roce_json_put_u64(o, "last_frame", ep->last_frame);
    roce_json_put_u64(o, "first_psn", ep->first_psn);
    roce_json_put_u64(o, "last_psn", ep->last_psn);
    roce_json_put_u64(o, "packets", ep->packets);
    add_str(o, "trigger", roce_trigger_name(ep->trigger));
    json_object_object_add(o, "nak_frame", ep->nak_frame ? json_object_new_uint64(ep->nak_frame) : NULL);
    json_object_object_add(o, "nak_to_resend_us",
                           ep->nak_frame ? roce_json_us(ep->nak_to_resend_ns) : NULL);
    json_object_object_add(o, "duration_us", roce_json_us(ep->last_ts_ns - ep->first_ts_ns));
    return o;
}

static json_object *opcodes_object(const struct roce_flow_report *f)
{
    json_object *o = json_object_new_object();
    unsigned base = (unsigned)f->transport << ROCE_OPCODE_TRANSPORT_SHIFT;
    for (unsigned op = 0; op < 32; op++) {
        if (!f->op_counts[op])
            continue;
        char name[ROCE_FMT_OPCODE_LEN];
        roce_fmt_opcode((uint8_t)(base | op), name, sizeof name);
        roce_json_put_u64(o, name, f->op_counts[op]);
    }
    if (f->cnp_packets)
        roce_json_put_u64(o, "CNP", f->cnp_packets);
    return o;
}

static json_object *flow_object(const struct roce_report *r, const struct roce_flow_report *f)
{
    const struct roce_report_flow *rf = roce_report_flow_x(r, f);
    json_object *o = new_endpoint(&f->key);
    const int64_t t0 = r->t.first_ts_ns;
    roce_json_put_u64(o, "id", f->id);
    roce_json_put_u64(o, "version", f->key.version);
    add_str(o, "transport", roce_transport_name((enum roce_transport)f->transport));
    json_object_object_add(o, "paired_with", rf->has_peer ? new_endpoint(&rf->peer) : NULL);
    add_str(o, "paired_by", roce_paired_by_name(f->paired_by));
    roce_json_put_u64(o, "packets", f->packets);
    roce_json_put_u64(o, "bytes", f->bytes);
    roce_json_put_u64(o, "payload_bytes", f->payload_bytes);
    roce_json_put_u64(o, "request_packets", f->request_packets);
    roce_json_put_u64(o, "response_packets", f->response_packets);
    roce_json_put_u64(o, "cnp_packets", f->cnp_packets);
    json_object_object_add(o, "opcodes", opcodes_object(f));
    json_object_object_add(o, "first_psn", f->have_psn ? json_object_new_uint64(f->first_psn) : NULL);
    json_object_object_add(o, "last_psn", f->have_psn ? json_object_new_uint64(f->last_psn) : NULL);
    roce_json_put_u64(o, "first_frame", f->first_frame);
    roce_json_put_u64(o, "last_frame", f->last_frame);
    json_object_object_add(o, "first_time", roce_json_seconds(f->first_ts_ns - t0));
    json_object_object_add(o, "last_time", roce_json_seconds(f->last_ts_ns - t0));
    roce_json_put_u64(o, "pmtu", f->pmtu);
    roce_json_put_u64(o, "retransmitted_packets", f->retransmitted_packets);
    roce_json_put_u64(o, "psn_gaps", f->gap_events);
    roce_json_put_u64(o, "missing_psns", f->missing_psns);
    roce_json_put_u64(o, "psn_reuse", f->psn_reuse);
    roce_json_put_u64(o, "read_response_gaps", f->read_response_gaps);
    roce_json_put_u64(o, "episode_count", f->episodes);
    json_object_object_add(o, "episodes_by_trigger", roce_json_triggers(f->by_trigger));
    roce_json_put_u64(o, "ce_marked", f->ce_marked);
    roce_json_put_u64(o, "ce_answered", f->ce_answered);
    roce_json_put_u64(o, "ce_unanswered", f->ce_unanswered);
    roce_json_put_u64(o, "cnps", f->cnp_packets);
    roce_json_put_u64(o, "cnps_for_flow", f->cnps_for_flow);
    roce_json_put_u64(o, "cnps_matched", f->cnps_matched);
    roce_json_put_u64(o, "cnps_unexplained", f->cnps_unexplained);
    roce_json_put_u64(o, "bad_icrc", f->bad_icrc);
    roce_json_put_u64(o, "cm_connections", f->cm_connections);
    json_object_object_add(o, "naks", roce_json_naks(&f->naks));
    json_object_object_add(o, "ack_latency_us",
                           new_latency(&f->ack_latency, &rf->lat[ROCE_LATENCY_ACK]));
    json_object_object_add(o, "cnp_latency_us",
                           new_latency(&f->cnp_latency, &rf->lat[ROCE_LATENCY_CNP]));
    json_object_object_add(o, "episodes", json_object_new_array());
    return o;
}

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
    for (size_t i = 0; i < r->n_conns; i++) {
        const struct roce_report_conn *rc = &r->conns[i];
        json_object *c = json_object_new_object();
        json_object_object_add(c, "requester", new_endpoint(&rc->req));
        json_object_object_add(c, "responder", new_endpoint(&rc->resp));
        add_str(c, "paired_by", roce_paired_by_name(rc->paired_by));
        if (write_element(out, c, i == 0) != 0)
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
        json_object *o = flow_object(r, f);
        json_object *list = json_object_object_get(o, "episodes");
        for (; k < n_ep && eps[k].flow_id == f->id; k++)
            json_object_array_add(list, episode_object(&r->episodes[eps[k].index]));
        rc = write_element(out, o, first) != 0;
        first = 0;
    }
    free(eps);
    return rc || fputs("\n  ]\n}\n", out) < 0 ? -1 : 0;
}

int roce_report_json(const struct roce_report *r, FILE *out)
{
    const struct roce_totals *t = &r->t;
    json_object *root = json_object_new_object(), *o;

    add_str(root, "tool", "rocescope");
    json_object_object_add(root, "capture", capture_object(r));
    json_object_object_add(root, "options", options_object(r->cfg));
    json_object_object_add(root, "naks", roce_json_naks(&t->naks));
    o = json_object_new_object();
    roce_json_put_u64(o, "episodes", t->episodes);
    roce_json_put_u64(o, "packets", t->retransmitted_packets);
    json_object_object_add(o, "by_trigger", roce_json_triggers(t->by_trigger));
    json_object_object_add(root, "retransmission", o);
    o = json_object_new_object();
    roce_json_put_u64(o, "events", t->gap_events);
    roce_json_put_u64(o, "missing_psns", t->missing_psns);
    json_object_object_add(root, "psn_gaps", o);
    roce_json_put_u64(root, "psn_reuse", t->psn_reuse);
    o = json_object_new_object();
    roce_json_put_u64(o, "events", t->read_response_gaps);
    roce_json_put_u64(o, "missing_psns", t->read_response_missing);
    json_object_object_add(root, "read_response_gaps", o);
    roce_json_put_u64(root, "aeth_reserved", t->aeth_reserved);
    json_object_object_add(root, "ecn", ecn_object(r));
    json_object_object_add(root, "ack_latency_us",
                           new_latency(&t->ack_latency, &r->lat[ROCE_LATENCY_ACK]));
    o = json_object_new_object();
    roce_json_put_u64(o, "messages", t->cm_messages);
    roce_json_put_u64(o, "connections", t->cm_connections);
    json_object_object_add(root, "cm", o);
    json_object_object_add(root, "pfc", pfc_object(r));
    json_object_object_add(root, "encapsulation", roce_json_encap(t));
    json_object_object_add(root, "limits", limits_object(t));

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
