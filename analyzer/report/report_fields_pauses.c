/*
 * report_fields_pauses.c - the report's "pause_episodes" member (ANALYSIS.md
 * "Pause victims"; REPORT.md): the first pauses of the capture, each with
 * who sent it, its priority, when it began, how long it lasted and its
 * victims with their stalls, written and read back exactly. Who sent it
 * (`sender`: a host NIC or the fabric, and the host's address) is the MAC
 * table's word on its MAC, as host_macs and fabric_macs say: written from
 * the report's MACs, not read back. Times in seconds since the epoch with 9
 * decimals, as first_time.
 */
#include "report_fields.h"

#include <string.h>

#include "json_values.h"
#include "jsonw.h"

#define WHERE_LEN    128
#define SEC_DECIMALS 9
#define US_DECIMALS  3
#define PCT_TENTHS   1000 /* a share in tenths of a percent */

const struct roce_host_mac *roce_pause_sender(const struct roce_report *r,
                                              const struct roce_pause_episode *p)
{
    for (size_t i = 0; r != NULL && p->has_mac && i < r->n_macs; i++)
        if (memcmp(r->macs[i].mac, p->mac, ROCE_MAC_LEN) == 0)
            return &r->macs[i];
    return NULL;
}

int64_t roce_report_pause_share(const struct roce_flow_report *f)
{
    if (f->pause_stalls == 0 || f->pause_stall_ns <= 0 || f->last_ts_ns <= f->first_ts_ns)
        return -1;
    uint64_t part = (uint64_t)f->pause_stall_ns;
    uint64_t whole = (uint64_t)f->last_ts_ns - (uint64_t)f->first_ts_ns;
    if (part > whole)
        part = whole; /* a report read back may hold any two times */
    if (part <= UINT64_MAX / PCT_TENTHS)
        return (int64_t)(part * PCT_TENTHS / whole);
    return (int64_t)(part / (whole / PCT_TENTHS));
}

/* A flow's "pause_share_pct": that share with one decimal, null without
 * (derived from the flow's other members: not read back). */
static void share_stream(struct roce_jw *w, const struct roce_field *f, const void *base,
                         const struct roce_fout *c)
{
    int64_t s = roce_report_pause_share(base);
    (void)c;
    roce_jw_key(w, f->key);
    if (s < 0)
        roce_jw_null(w);
    else
        roce_jw_decimal(w, (uint64_t)s, 1);
}
const struct roce_fcall roce_fcall_pause_share = {NULL, NULL, share_stream};

static json_object *victim_json(const struct roce_pause_victim *v)
{
    json_object *o = json_object_new_object();
    roce_json_endpoint(o, &v->key);
    json_object_object_add(o, "stall_us", roce_json_us(v->stall_ns));
    roce_json_put_u64(o, "resume_frame", v->resume_frame);
    json_object_object_add(o, "innocent", json_object_new_boolean(v->innocent));
    return o;
}

static json_object *episode_json(const struct roce_report *r, const struct roce_pause_episode *p)
{
    json_object *o = json_object_new_object(), *a = json_object_new_array();
    const struct roce_host_mac *m = roce_pause_sender(r, p);
    const int host = m != NULL && roce_host_mac_role(m) == ROCE_MAC_UNROUTED;
    json_object_object_add(o, "mac", p->has_mac ? roce_json_mac(p->mac) : NULL);
    json_object_object_add(o, "sender",
                           m == NULL ? NULL : json_object_new_string(host ? "host" : "fabric"));
    json_object_object_add(o, "address", host ? roce_json_addr(m->addr, m->af) : NULL);
    json_object_object_add(o, "priority",
                           p->prio < ROCE_PFC_PRIORITIES ? json_object_new_int(p->prio) : NULL);
    json_object_object_add(o, "start", roce_json_seconds(p->start_ns));
    json_object_object_add(o, "duration_us", roce_json_us(p->end_ns - p->start_ns));
    json_object_object_add(o, "ended_by", json_object_new_string(p->xon ? "xon" : "expiry"));
    roce_json_put_u64(o, "frame", p->frame);
    roce_json_put_u64(o, "xoffs", p->xoffs);
    roce_json_put_u64(o, "victims", p->victims);
    roce_json_put_u64(o, "innocent", p->innocent);
    json_object_object_add(o, "stall_us", roce_json_us(p->stall_ns));
    for (unsigned i = 0; i < p->n_named && i < ROCE_PAUSE_VICTIMS; i++)
        json_object_array_add(a, victim_json(&p->v[i]));
    json_object_object_add(o, "named", a);
    return o;
}

static void pauses_write(json_object *o, const struct roce_field *f, const void *base,
                         const struct roce_fout *c)
{
    const struct roce_pause_report *l = (const void *)((const char *)base + f->off);
    json_object *a = json_object_new_array();
    for (unsigned i = 0; i < l->n && i < ROCE_PAUSES_LISTED; i++)
        json_object_array_add(a, episode_json(c != NULL ? c->r : NULL, &l->p[i]));
    json_object_object_add(o, f->key, a);
}

static int bounded(struct roce_jget *g, json_object *o, const char *where, const char *key,
                   uint64_t max, uint64_t *out)
{
    *out = roce_jget_u64(g, o, where, key);
    if (*out > max) {
        roce_jget_fail(g, where, key, "a value out of range");
        return 0;
    }
    return 1;
}

static void victim_parse(struct roce_jget *g, json_object *o, const char *where,
                         struct roce_pause_victim *v)
{
    json_object *b = roce_jget_member(g, o, where, "innocent", json_type_boolean, 0);
    uint64_t qp = 0;
    memset(v, 0, sizeof *v);
    roce_jget_addr(g, o, where, "src", v->key.src, &v->key.af);
    roce_jget_addr(g, o, where, "dst", v->key.dst, &v->key.af);
    if (bounded(g, o, where, "dest_qp", UINT32_MAX, &qp))
        v->key.dqpn = (uint32_t)qp;
    roce_jget_ns(g, o, where, "stall_us", US_DECIMALS, 0, &v->stall_ns);
    v->resume_frame = roce_jget_u64(g, o, where, "resume_frame");
    v->innocent = b != NULL && json_object_get_boolean(b);
}

static const char *ended_name(unsigned i)
{
    return i ? "xon" : "expiry";
}

static void episode_parse(struct roce_jget *g, json_object *o, const char *where,
                          struct roce_pause_episode *p)
{
    json_object *m = roce_jget_member(g, o, where, "mac", json_type_string, 1);
    json_object *pr = roce_jget_member(g, o, where, "priority", json_type_int, 1);
    char at[WHERE_LEN];
    json_object *a =
        roce_jget_list(g, o, where, "named", ROCE_PAUSE_VICTIMS, "too many victims", at, sizeof at);
    int64_t dur = 0;
    uint64_t prio = ROCE_PFC_PRIORITIES;
    memset(p, 0, sizeof *p);
    if (m != NULL) {
        roce_jget_mac(g, o, where, "mac", p->mac);
        p->has_mac = 1;
    }
    if (pr != NULL && bounded(g, o, where, "priority", ROCE_PFC_PRIORITIES - 1, &prio))
        p->prio = (uint8_t)prio;
    else
        p->prio = ROCE_PFC_PRIORITIES;
    roce_jget_ns(g, o, where, "start", SEC_DECIMALS, 0, &p->start_ns);
    roce_jget_ns(g, o, where, "duration_us", US_DECIMALS, 0, &dur);
    if (!g->failed && p->start_ns < 0)
        roce_jget_fail(g, where, "start", "a negative time");
    if (!g->failed && (dur < 0 || dur > INT64_MAX - p->start_ns))
        roce_jget_fail(g, where, "duration_us", "out of range");
    p->end_ns = g->failed ? p->start_ns : p->start_ns + dur;
    p->xon = (uint8_t)roce_jget_name(g, o, where, "ended_by", ended_name, 2);
    p->frame = roce_jget_u64(g, o, where, "frame");
    p->xoffs = roce_jget_u64(g, o, where, "xoffs");
    p->victims = roce_jget_u64(g, o, where, "victims");
    p->innocent = roce_jget_u64(g, o, where, "innocent");
    roce_jget_ns(g, o, where, "stall_us", US_DECIMALS, 0, &p->stall_ns);
    for (size_t i = 0; a != NULL && !g->failed && i < json_object_array_length(a); i++) {
        json_object *v = json_object_array_get_idx(a, i);
        if (json_object_get_type(v) != json_type_object) {
            roce_jget_fail(g, at, "", "not a list of victims");
            return;
        }
        victim_parse(g, v, at, &p->v[i]);
        p->n_named = (uint8_t)(i + 1);
    }
}

static int pauses_parse(struct roce_jget *g, json_object *o, const char *where,
                        const struct roce_field *f, void *base, const struct roce_fin *c)
{
    struct roce_pause_report *l = (void *)((char *)base + f->off);
    char at[WHERE_LEN];
    json_object *a =
        roce_jget_list(g, o, where, f->key, ROCE_PAUSES_LISTED, "too many pauses", at, sizeof at);
    (void)c;
    if (a == NULL)
        return 0;
    l->n = 0;
    for (size_t i = 0; !g->failed && i < json_object_array_length(a); i++) {
        json_object *e = json_object_array_get_idx(a, i);
        if (json_object_get_type(e) != json_type_object) {
            roce_jget_fail(g, at, "", "not a list of pauses");
            return 0;
        }
        episode_parse(g, e, at, &l->p[l->n++]);
    }
    return 0;
}
const struct roce_fcall roce_fcall_pauses = {pauses_write, pauses_parse, NULL};

void roce_pause_list_merge(struct roce_totals *dst, const struct roce_totals *src,
                           uint64_t frame_off)
{
    for (unsigned i = 0; i < src->pause_list.n && i < ROCE_PAUSES_LISTED; i++) {
        if (dst->pause_list.n >= ROCE_PAUSES_LISTED) {
            dst->pauses_unlisted++;
            continue;
        }
        struct roce_pause_episode *d = &dst->pause_list.p[dst->pause_list.n++];
        *d = src->pause_list.p[i];
        d->frame += frame_off;
        for (unsigned k = 0; k < d->n_named && k < ROCE_PAUSE_VICTIMS; k++)
            d->v[k].resume_frame += frame_off;
    }
}
