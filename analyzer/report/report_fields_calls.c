/*
 * report_fields_calls.c - the composite members of the report: the CALL
 * fields of report_fields.c, written and read back at their place (the
 * latency objects are in report_fields_latency.c). Each pair says which
 * record it reads (the field's base) or what of the report (the context).
 */
#include "report_fields.h"

#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "json_values.h"
#include "jsonw.h"

#define US_DECIMALS       3 /* microseconds with three decimals: exact nanoseconds */
#define SEC_DECIMALS      9 /* seconds with nine decimals: exact nanoseconds */
#define PSN_MAX           0xFFFFFFu
#define OPS_PER_TRANSPORT 32u
#define WHERE_LEN         128

static void add_str(json_object *o, const char *k, const char *v)
{
    json_object_object_add(o, k, json_object_new_string(v));
}

/* ---- what was read (the report, not the totals) ---- */

/* "file": the first file's name, "" without one. Not read back. */
static void file_write(json_object *o, const struct roce_field *f, const void *base,
                       const struct roce_fout *c)
{
    (void)base;
    add_str(o, f->key, c->r->n_files ? c->r->files[0] : "");
}
const struct roce_fcall roce_fcall_file = {file_write, NULL, NULL};

/* "files": the capture files in reading order. */
static void files_write(json_object *o, const struct roce_field *f, const void *base,
                        const struct roce_fout *c)
{
    json_object *files = json_object_new_array();
    (void)base;
    for (size_t i = 0; i < c->r->n_files; i++)
        json_object_array_add(files, json_object_new_string(c->r->files[i]));
    json_object_object_add(o, f->key, files);
}

static int files_parse(struct roce_jget *g, json_object *o, const char *where,
                       const struct roce_field *f, void *base, const struct roce_fin *c)
{
    json_object *files = roce_jget_member(g, o, where, f->key, json_type_array, 0);
    (void)base;
    for (size_t i = 0; files != NULL && i < json_object_array_length(files); i++) {
        json_object *name = json_object_array_get_idx(files, i);
        if (json_object_get_type(name) != json_type_string)
            roce_jget_fail(g, where, f->key, "not a list of names");
        else if (roce_report_add_file(c->r, json_object_get_string(name)) != 0)
            return -1;
    }
    return 0;
}
const struct roce_fcall roce_fcall_files = {files_write, files_parse, NULL};

/* "link_type": of the first file, "unknown" when no file could be opened. */
static void link_type_write(json_object *o, const struct roce_field *f, const void *base,
                            const struct roce_fout *c)
{
    (void)base;
    add_str(o, f->key, c->r->link_type ? c->r->link_type : "unknown");
}

static int link_type_parse(struct roce_jget *g, json_object *o, const char *where,
                           const struct roce_field *f, void *base, const struct roce_fin *c)
{
    (void)base;
    return roce_report_set_link_type(c->r, roce_jget_str(g, o, where, f->key));
}
const struct roce_fcall roce_fcall_link_type = {link_type_write, link_type_parse, NULL};

/* "complete": false when reading stopped early; then "error" (the next
 * field) says why, and is read back with it. */
static void complete_write(json_object *o, const struct roce_field *f, const void *base,
                           const struct roce_fout *c)
{
    (void)base;
    json_object_object_add(o, f->key, json_object_new_boolean(c->r->error == NULL));
}

static int complete_parse(struct roce_jget *g, json_object *o, const char *where,
                          const struct roce_field *f, void *base, const struct roce_fin *c)
{
    json_object *complete = roce_jget_member(g, o, where, f->key, json_type_boolean, 0);
    (void)base;
    if (complete == NULL || json_object_get_boolean(complete))
        return 0;
    return roce_report_set_error(c->r, roce_jget_str(g, o, where, "error"));
}
const struct roce_fcall roce_fcall_complete = {complete_write, complete_parse, NULL};

static void error_write(json_object *o, const struct roce_field *f, const void *base,
                        const struct roce_fout *c)
{
    (void)base;
    if (c->r->error != NULL)
        add_str(o, f->key, c->r->error);
}
const struct roce_fcall roce_fcall_error = {error_write, NULL, NULL};

/* "files_overlap": a file began before the latest time of the files read
 * before it (given out of time order, or overlapping): the report says so. */
static void files_overlap_write(json_object *o, const struct roce_field *f, const void *base,
                                const struct roce_fout *c)
{
    (void)base;
    json_object_object_add(o, f->key, json_object_new_boolean(c->r->files_overlap));
}

static int files_overlap_parse(struct roce_jget *g, json_object *o, const char *where,
                               const struct roce_field *f, void *base, const struct roce_fin *c)
{
    json_object *b = roce_jget_member(g, o, where, f->key, json_type_boolean, 0);
    (void)base;
    c->r->files_overlap = b != NULL && json_object_get_boolean(b);
    return 0;
}
const struct roce_fcall roce_fcall_files_overlap = {files_overlap_write, files_overlap_parse, NULL};

/* "live": the interface and capture statistics of a live capture. Not read back. */
static void live_write(json_object *o, const struct roce_field *f, const void *base,
                       const struct roce_fout *c)
{
    const struct roce_report_live *l = c->r->live;
    (void)base;
    if (l == NULL)
        return;
    json_object *live = json_object_new_object();
    add_str(live, "interface", l->iface);
    roce_json_put_u64(live, "received", l->received);
    roce_json_put_u64(live, "dropped", l->dropped);
    roce_json_put_u64(live, "if_dropped", l->if_dropped);
    roce_json_put_u64(live, "analysis_dropped", l->analysis_dropped);
    json_object_object_add(o, f->key, live);
}
const struct roce_fcall roce_fcall_live = {live_write, NULL, NULL};

/* "options": the analysis options (roce_option_fields). */
static void options_write(json_object *o, const struct roce_field *f, const void *base,
                          const struct roce_fout *c)
{
    json_object *opts = json_object_new_object();
    (void)base;
    roce_fields_json(opts, &roce_option_fields, c->r->cfg, c);
    json_object_object_add(o, f->key, opts);
}

static int options_parse(struct roce_jget *g, json_object *o, const char *where,
                         const struct roce_field *f, void *base, const struct roce_fin *c)
{
    char at[WHERE_LEN];
    (void)base;
    return roce_fields_parse(g, roce_jget_member(g, o, where, f->key, json_type_object, 0),
                             roce_jget_where(at, sizeof at, where, f->key), &roce_option_fields,
                             &c->r->own.cfg, c);
}
const struct roce_fcall roce_fcall_options = {options_write, options_parse, NULL};

/* ---- times of the totals and of an episode ---- */

/* "duration_s" of the totals (member last_ts_ns): from the first to the last
 * packet (0 without packets); read back after first_time. */
static void duration_s_write(json_object *o, const struct roce_field *f, const void *base,
                             const struct roce_fout *c)
{
    const struct roce_totals *t = base;
    (void)c;
    json_object_object_add(o, f->key,
                           roce_json_seconds(t->packets ? t->last_ts_ns - t->first_ts_ns : 0));
}

static int duration_s_parse(struct roce_jget *g, json_object *o, const char *where,
                            const struct roce_field *f, void *base, const struct roce_fin *c)
{
    struct roce_totals *t = base;
    int64_t duration;
    (void)c;
    roce_jget_ns(g, o, where, f->key, SEC_DECIMALS, 0, &duration);
    if (duration < 0 || t->first_ts_ns < 0 || duration > INT64_MAX - t->first_ts_ns) {
        roce_jget_fail(g, where, f->key,
                       duration < 0 ? "a negative time" : "first_time + duration_s out of range");
        duration = 0;
    }
    t->last_ts_ns = t->first_ts_ns + duration;
    return 0;
}
const struct roce_fcall roce_fcall_duration_s = {duration_s_write, duration_s_parse, NULL};

/* "duration_us" of an episode (member last_ts_ns): only the duration is
 * written, so an episode read back starts at time 0. */
static void duration_us_stream(struct roce_jw *w, const struct roce_field *f, const void *base,
                               const struct roce_fout *c)
{
    const struct roce_episode *ep = base;
    (void)c;
    roce_jw_key(w, f->key);
    roce_jw_us(w, ep->last_ts_ns - ep->first_ts_ns);
}

static int duration_us_parse(struct roce_jget *g, json_object *o, const char *where,
                             const struct roce_field *f, void *base, const struct roce_fin *c)
{
    struct roce_episode *ep = base;
    (void)c;
    ep->first_ts_ns = 0;
    roce_jget_ns(g, o, where, f->key, US_DECIMALS, 0, &ep->last_ts_ns);
    return 0;
}
const struct roce_fcall roce_fcall_duration_us = {NULL, duration_us_parse, duration_us_stream};

/* ---- PFC ---- */

/* "priorities" (member pfc.prio): the 8 PFC priorities, each with its number. */
static void priorities_write(json_object *o, const struct roce_field *f, const void *base,
                             const struct roce_fout *c)
{
    const struct roce_pfc_prio *prio = (const void *)((const char *)base + f->off);
    json_object *a = json_object_new_array();
    for (unsigned i = 0; i < ROCE_PFC_PRIORITIES; i++) {
        json_object *q = json_object_new_object();
        roce_fields_json(q, &roce_pfc_prio_fields, &prio[i], c);
        json_object_object_add(q, "priority", json_object_new_int((int)i));
        json_object_array_add(a, q);
    }
    json_object_object_add(o, f->key, a);
}

static int priorities_parse(struct roce_jget *g, json_object *o, const char *where,
                            const struct roce_field *f, void *base, const struct roce_fin *c)
{
    struct roce_pfc_prio *prio = (void *)((char *)base + f->off);
    json_object *a = roce_jget_member(g, o, where, f->key, json_type_array, 0);
    char at[WHERE_LEN];
    roce_jget_where(at, sizeof at, where, f->key);
    if (a != NULL && json_object_array_length(a) != ROCE_PFC_PRIORITIES)
        roce_jget_fail(g, where, f->key, "not 8 priorities");
    for (unsigned i = 0; a != NULL && !g->failed && i < ROCE_PFC_PRIORITIES; i++)
        roce_fields_parse(g, json_object_array_get_idx(a, i), at, &roce_pfc_prio_fields, &prio[i],
                          c);
    return 0;
}
const struct roce_fcall roce_fcall_priorities = {priorities_write, priorities_parse, NULL};

/* ---- flows and connections ---- */

/* The members src, dst, dest_qp of a flow (member: its key) in the flow's
 * own object. */
static void endpoint_stream(struct roce_jw *w, const struct roce_field *f, const void *base,
                            const struct roce_fout *c)
{
    (void)c;
    roce_jw_endpoint(w, (const struct roce_flow_key *)((const char *)base + f->off));
}

static int endpoint_parse(struct roce_jget *g, json_object *o, const char *where,
                          const struct roce_field *f, void *base, const struct roce_fin *c)
{
    (void)c;
    roce_jget_endpoint(g, o, where, (struct roce_flow_key *)((char *)base + f->off));
    return 0;
}
const struct roce_fcall roce_fcall_endpoint = {NULL, endpoint_parse, endpoint_stream};

/* An endpoint {src, dst, dest_qp} under the field's key (member: a flow key). */
static void endpoint_object_stream(struct roce_jw *w, const struct roce_field *f, const void *base,
                                   const struct roce_fout *c)
{
    (void)c;
    roce_jw_key(w, f->key);
    roce_jw_open(w, '{');
    roce_jw_endpoint(w, (const struct roce_flow_key *)((const char *)base + f->off));
    roce_jw_close(w, '}');
}

static int endpoint_object_parse(struct roce_jget *g, json_object *o, const char *where,
                                 const struct roce_field *f, void *base, const struct roce_fin *c)
{
    char at[WHERE_LEN];
    (void)c;
    roce_jget_endpoint(g, roce_jget_member(g, o, where, f->key, json_type_object, 0),
                       roce_jget_where(at, sizeof at, where, f->key),
                       (struct roce_flow_key *)((char *)base + f->off));
    return 0;
}
const struct roce_fcall roce_fcall_endpoint_object = {NULL, endpoint_object_parse,
                                                      endpoint_object_stream};

/* "paired_with": the endpoint of the paired flow and its RoCE version (the
 * other end of a queue pair may use another GID type), or null. */
static void paired_with_stream(struct roce_jw *w, const struct roce_field *f, const void *base,
                               const struct roce_fout *c)
{
    (void)base;
    roce_jw_key(w, f->key);
    if (!c->fx->has_peer) {
        roce_jw_null(w);
        return;
    }
    roce_jw_open(w, '{');
    roce_jw_endpoint(w, &c->fx->peer);
    roce_jw_key_u64(w, "version", c->fx->peer.version);
    roce_jw_close(w, '}');
}

static int paired_with_parse(struct roce_jget *g, json_object *o, const char *where,
                             const struct roce_field *f, void *base, const struct roce_fin *c)
{
    const struct roce_flow_report *fr = base;
    char at[WHERE_LEN];
    json_object *e = roce_jget_member(g, o, where, f->key, json_type_object, 1);
    if (e == NULL)
        return 0;
    roce_jget_endpoint(g, e, roce_jget_where(at, sizeof at, where, f->key), &c->fx->peer);
    c->fx->peer.version = fr->key.version; /* reports before the version was written */
    if (json_object_object_get_ex(e, "version", NULL)) {
        uint64_t v = roce_jget_u64(g, e, at, "version");
        if (v < ROCE_VERSION_1 || v > ROCE_VERSION_IB)
            roce_jget_fail(g, at, "version", "not 1, 2 or 3");
        else
            c->fx->peer.version = (uint8_t)v;
    }
    c->fx->has_peer = 1;
    return 0;
}
const struct roce_fcall roce_fcall_paired_with = {NULL, paired_with_parse, paired_with_stream};

/* "opcodes" of a flow (member op_counts): {identifier: count} of its
 * transport's opcodes, and "CNP" (the flow's cnp_packets, not read back). */
static void opcodes_stream(struct roce_jw *w, const struct roce_field *f, const void *base,
                           const struct roce_fout *c)
{
    const struct roce_flow_report *fr = base;
    unsigned transport = (unsigned)fr->transport << ROCE_OPCODE_TRANSPORT_SHIFT;
    (void)c;
    roce_jw_key(w, f->key);
    roce_jw_open(w, '{');
    for (unsigned op = 0; op < OPS_PER_TRANSPORT; op++) {
        if (!fr->op_counts[op])
            continue;
        char name[ROCE_FMT_OPCODE_LEN];
        roce_fmt_opcode((uint8_t)(transport | op), name, sizeof name);
        roce_jw_key_u64(w, name, fr->op_counts[op]);
    }
    if (fr->cnp_packets)
        roce_jw_key_u64(w, "CNP", fr->cnp_packets);
    roce_jw_close(w, '}');
}

/* Read after "transport": the names are those of the flow's transport. */
static int opcodes_parse(struct roce_jget *g, json_object *o, const char *where,
                         const struct roce_field *f, void *base, const struct roce_fin *c)
{
    struct roce_flow_report *fr = base;
    json_object *ops = roce_jget_member(g, o, where, f->key, json_type_object, 0);
    unsigned transport = (unsigned)fr->transport << ROCE_OPCODE_TRANSPORT_SHIFT;
    char at[WHERE_LEN];
    (void)c;
    if (ops == NULL)
        return 0;
    roce_jget_where(at, sizeof at, where, f->key);
    json_object_object_foreach(ops, key, val)
    {
        char name[ROCE_FMT_OPCODE_LEN];
        unsigned op = 0;
        (void)val;
        if (strcmp(key, "CNP") == 0)
            continue;
        for (; op < OPS_PER_TRANSPORT; op++) {
            roce_fmt_opcode((uint8_t)(transport | op), name, sizeof name);
            if (strcmp(name, key) == 0)
                break;
        }
        uint64_t n = roce_jget_u64(g, ops, at, key);
        if (op == OPS_PER_TRANSPORT || n > UINT32_MAX)
            roce_jget_fail(g, at, key, "not an opcode of the flow's transport");
        else
            fr->op_counts[op] = (uint32_t)n;
    }
    return 0;
}
const struct roce_fcall roce_fcall_opcodes = {NULL, opcodes_parse, opcodes_stream};

/* "first_psn" and "last_psn" of a flow: its first request PSN and the
 * highest used, both null when it carried no PSN (have_psn). */
static void psn_range_stream(struct roce_jw *w, const struct roce_field *f, const void *base,
                             const struct roce_fout *c)
{
    const struct roce_flow_report *fr = base;
    (void)c;
    roce_jw_key(w, f->key);
    fr->have_psn ? roce_jw_u64(w, fr->first_psn) : roce_jw_null(w);
    roce_jw_key(w, "last_psn");
    fr->have_psn ? roce_jw_u64(w, fr->last_psn) : roce_jw_null(w);
}

/* A 24-bit PSN member. */
static uint32_t get_psn(struct roce_jget *g, json_object *o, const char *where, const char *key)
{
    uint64_t v = roce_jget_u64(g, o, where, key);
    if (v > PSN_MAX)
        roce_jget_fail(g, where, key, "not a 24-bit PSN");
    return (uint32_t)v;
}

static int psn_range_parse(struct roce_jget *g, json_object *o, const char *where,
                           const struct roce_field *f, void *base, const struct roce_fin *c)
{
    struct roce_flow_report *fr = base;
    (void)c;
    fr->have_psn = roce_jget_member(g, o, where, f->key, json_type_int, 1) != NULL;
    if (fr->have_psn) {
        fr->first_psn = get_psn(g, o, where, f->key);
        fr->last_psn = get_psn(g, o, where, "last_psn");
    }
    return 0;
}
const struct roce_fcall roce_fcall_psn_range = {NULL, psn_range_parse, psn_range_stream};

/* "episodes" of a flow: the flow's episodes the JSON writer gives
 * (c->episodes, report_json.c); read back, each element is appended to the
 * report's episodes (in flow order: the parser puts them back in start
 * order). */
static int episodes_parse(struct roce_jget *g, json_object *o, const char *where,
                          const struct roce_field *f, void *base, const struct roce_fin *c)
{
    const struct roce_flow_report *fr = base;
    json_object *list = roce_jget_member(g, o, where, f->key, json_type_array, 0);
    char at[WHERE_LEN];
    roce_jget_where(at, sizeof at, where, f->key);
    for (size_t i = 0; list != NULL && i < json_object_array_length(list); i++) {
        struct roce_episode *ep = roce_report_add_episode(c->r);
        if (ep == NULL || roce_fields_parse(g, json_object_array_get_idx(list, i), at,
                                            &roce_episode_fields, ep, c) != 0)
            return -1;
        ep->flow_id = fr->id;
    }
    return 0;
}
static void episodes_stream(struct roce_jw *w, const struct roce_field *f, const void *base,
                            const struct roce_fout *c)
{
    (void)base;
    roce_jw_key(w, f->key);
    roce_jw_open(w, '[');
    for (size_t i = 0; i < c->n_episodes; i++) {
        roce_jw_item(w);
        roce_fields_stream(w, &roce_episode_fields, &c->r->episodes[c->episodes[i]], c);
    }
    roce_jw_close(w, ']');
}
const struct roce_fcall roce_fcall_episodes = {NULL, episodes_parse, episodes_stream};
