/*
 * json_values.c - the json-c values the JSON writers share (see
 * json_values.h). Ownership: each function returns a new value for the
 * caller to add (json-c's *_add take it).
 */
#include "json_values.h"

#include <stdio.h>

#include "fmt.h"
#include "roce_time.h"

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
    roce_fmt_addr(k->src, k->is_v6, a, sizeof a);
    json_object_object_add(o, "src", json_object_new_string(a));
    roce_fmt_addr(k->dst, k->is_v6, a, sizeof a);
    json_object_object_add(o, "dst", json_object_new_string(a));
    roce_json_put_u64(o, "dest_qp", k->dqpn);
}
