/*
 * json_values.c - the json-c values the JSON writers share (see
 * json_values.h). Ownership: each function returns a new value for the
 * caller to add (json-c's *_add take it).
 */
#include "json_values.h"

#include <stdio.h>

#include "fmt.h"

#define US_DECIMALS_BUF 48
#define NS_PER_US       1000u
#define NS_PER_SEC      1e9

void roce_json_put_u64(json_object *o, const char *k, uint64_t v)
{
    json_object_object_add(o, k, json_object_new_uint64(v));
}

json_object *roce_json_us(int64_t ns)
{
    char buf[US_DECIMALS_BUF];
    uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, sizeof buf, "%s%llu.%03llu", ns < 0 ? "-" : "",
             (unsigned long long)(u / NS_PER_US), (unsigned long long)(u % NS_PER_US));
    return json_object_new_double_s(roce_fmt_us(ns), buf);
}

json_object *roce_json_seconds(int64_t ns)
{
    char buf[ROCE_FMT_TIME_LEN];
    roce_fmt_seconds(ns, buf, sizeof buf);
    return json_object_new_double_s((double)ns / NS_PER_SEC, buf);
}

json_object *roce_json_malformed(const struct roce_totals *t)
{
    json_object *o = json_object_new_object();
    for (unsigned m = 1; m < ROCE_MAL_COUNT; m++)
        roce_json_put_u64(o, roce_malformed_name((enum roce_malformed)m),
                          t->malformed_by_reason[m]);
    return o;
}

json_object *roce_json_naks(const struct roce_nak_counts *n)
{
    json_object *o = json_object_new_object();
    for (unsigned c = 0; c < ROCE_NAK_CODES; c++)
        roce_json_put_u64(o, roce_nak_code_name(c), n->code[c]);
    roce_json_put_u64(o, "reserved_code", n->reserved_code);
    roce_json_put_u64(o, "rnr", n->rnr);
    roce_json_put_u64(o, "total", n->total);
    return o;
}

json_object *roce_json_triggers(const uint64_t by[ROCE_TRIGGER_COUNT])
{
    json_object *o = json_object_new_object();
    for (unsigned i = 0; i < ROCE_TRIGGER_COUNT; i++)
        roce_json_put_u64(o, roce_trigger_name(i), by[i]);
    return o;
}

json_object *roce_json_pfc_prio(const struct roce_pfc_prio *p)
{
    json_object *o = json_object_new_object();
    roce_json_put_u64(o, "frames", p->frames);
    roce_json_put_u64(o, "xoff", p->xoff);
    roce_json_put_u64(o, "xon", p->xon);
    roce_json_put_u64(o, "quanta", p->quanta);
    json_object_object_add(o, "paused_us", roce_json_us(p->paused_ns));
    roce_json_put_u64(o, "storm_windows", p->storm_windows);
    return o;
}

json_object *roce_json_encap(const struct roce_totals *t)
{
    json_object *o = json_object_new_object();
    for (unsigned i = 1; i < ROCE_ENCAP_COUNT; i++)
        roce_json_put_u64(o, roce_encap_name((enum roce_encap)i), t->encap[i]);
    return o;
}
