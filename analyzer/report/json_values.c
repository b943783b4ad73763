/*
 * json_values.c - the json-c values the JSON writers share (see
 * json_values.h). Ownership: each function returns a new value for the
 * caller to add (json-c's *_add take it).
 */
#include "json_values.h"

#include <stdio.h>

#include "fmt.h"
#include "roce_time.h"

#define DECIMAL_BUF  48
#define MAX_DECIMALS 18

void roce_json_put_u64(json_object *o, const char *k, uint64_t v)
{
    json_object_object_add(o, k, json_object_new_uint64(v));
}

json_object *roce_json_us(int64_t ns)
{
    char buf[ROCE_FMT_US_LEN];
    return json_object_new_double_s(roce_fmt_us(ns), roce_fmt_us_text(ns, buf));
}

json_object *roce_json_seconds(int64_t ns)
{
    char buf[ROCE_FMT_TIME_LEN];
    roce_fmt_seconds(ns, buf, sizeof buf);
    return json_object_new_double_s((double)ns / (double)ROCE_NS_PER_SEC, buf);
}

void roce_json_endpoint(json_object *o, const struct roce_flow_key *k)
{
    char a[ROCE_FMT_ADDR_LEN];
    roce_fmt_addr(k->src, k->af, a, sizeof a);
    json_object_object_add(o, "src", json_object_new_string(a));
    roce_fmt_addr(k->dst, k->af, a, sizeof a);
    json_object_object_add(o, "dst", json_object_new_string(a));
    roce_json_put_u64(o, "dest_qp", k->dqpn);
}

json_object *roce_json_decimal(uint64_t units, unsigned decimals)
{
    char buf[DECIMAL_BUF];
    uint64_t scale = 1;
    for (unsigned i = 0; i < decimals && i < MAX_DECIMALS; i++)
        scale *= 10;
    snprintf(buf, sizeof buf, "%llu.%0*llu", (unsigned long long)(units / scale), (int)decimals,
             (unsigned long long)(units % scale));
    return json_object_new_double_s((double)units / (double)scale, buf);
}

json_object *roce_json_frames(const uint64_t *frames, unsigned n)
{
    json_object *a = json_object_new_array();
    for (unsigned i = 0; i < n; i++)
        json_object_array_add(a, json_object_new_uint64(frames[i]));
    return a;
}

json_object *roce_json_addr(const uint8_t addr[ROCE_ADDR_LEN], int af)
{
    char a[ROCE_FMT_ADDR_LEN];
    roce_fmt_addr(addr, af, a, sizeof a);
    return json_object_new_string(a);
}

json_object *roce_json_mac(const uint8_t mac[ROCE_MAC_LEN])
{
    char m[ROCE_MAC_TEXT_LEN];
    roce_mac_format(mac, m, sizeof m);
    return json_object_new_string(m);
}

/* The subject of a diagnosis, by its kind. */
static json_object *subject(const struct roce_diagnosis *d)
{
    json_object *o = json_object_new_object(), *qps;
    switch (d->kind) {
    case ROCE_DIAG_SLOW_RECEIVER:
        json_object_object_add(o, "mac", roce_json_mac(d->mac));
        json_object_object_add(o, "address", roce_json_addr(d->flow.src, d->flow.af));
        break;
    case ROCE_DIAG_PFC_STORM:
        if (d->priority < ROCE_PFC_PRIORITIES)
            roce_json_put_u64(o, "priority", d->priority);
        else
            json_object_object_add(o, "pause", json_object_new_boolean(1));
        break;
    case ROCE_DIAG_ECMP_COLLISION:
        json_object_object_add(o, "src", roce_json_addr(d->flow.src, d->flow.af));
        json_object_object_add(o, "dst", roce_json_addr(d->flow.dst, d->flow.af));
        roce_json_put_u64(o, "udp_sport", d->udp_sport);
        qps = json_object_new_array();
        for (unsigned i = 0; i < d->n_dest_qps; i++)
            json_object_array_add(qps, json_object_new_uint64(d->dest_qps[i]));
        json_object_object_add(o, "dest_qps", qps);
        break;
    default:
        roce_json_endpoint(o, &d->flow);
        break;
    }
    return o;
}

json_object *roce_json_diagnosis(const struct roce_diagnosis *d)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "kind", json_object_new_string(roce_diag_kind_name(d->kind)));
    json_object_object_add(o, "severity",
                           json_object_new_string(roce_diag_severity_name(d->severity)));
    json_object_object_add(o, "subject", subject(d));
    roce_json_put_u64(o, "count", d->count);
    json_object_object_add(o, "summary", json_object_new_string(d->summary));
    json_object_object_add(o, "frames", roce_json_frames(d->frames, d->n_frames));
    return o;
}
