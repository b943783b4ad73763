/*
 * report_fields_diag.c - the members of the report that the diagnoses
 * come from or are: the CALL fields of report_fields.c for the diagnoses
 * list, the MAC tables, the PFC storm frames, and per flow its UDP source
 * ports, DCQCN reaction and evidence frames, per episode its NAK generation
 * time. Each is read back exactly (the merge computes the diagnoses again
 * from them).
 */
#include "report_fields.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_values.h"

#define RATE_DECIMALS  3 /* Mb/s as Gb/s */
#define RATIO_DECIMALS 6 /* ppm as a ratio */
#define US_DECIMALS    3
#define WHERE_LEN      128
#define PAUSE_KEY      "pause"
#define PRIO_KEY_LEN   8

/* ---- the diagnoses (written only: computed again when read) ---- */

static void diagnoses_write(json_object *o, const struct roce_field *f, const void *base,
                            const struct roce_fout *c)
{
    struct roce_diag_list l;
    json_object *a = json_object_new_array();
    (void)base;
    if (c->stream_diagnoses) {
        json_object_put(a);
        json_object_object_add(o, f->key, NULL);
        return;
    }
    if (c->r != NULL && roce_report_diagnoses(c->r, &l) == 0) {
        for (size_t i = 0; i < l.n; i++)
            json_object_array_add(a, roce_json_diagnosis(&l, &l.d[i]));
        roce_diag_list_free(&l);
    }
    json_object_object_add(o, f->key, a);
}
const struct roce_fcall roce_fcall_diagnoses = {diagnoses_write, NULL, NULL};

/* ---- the MAC tables: "host_macs" (arg 1) and "fabric_macs" (arg 0) ---- */

static void mac_write(json_object *a, const struct roce_host_mac *m)
{
    json_object *o = json_object_new_object(), *ttl = NULL;
    json_object_object_add(o, "mac", roce_json_mac(m->mac));
    json_object_object_add(o, "address", m->addresses ? roce_json_addr(m->addr, m->af) : NULL);
    json_object_object_add(o, "version", m->addresses ? json_object_new_int(m->version) : NULL);
    roce_json_put_u64(o, "addresses", m->addresses);
    json_object_object_add(o, "basis",
                           json_object_new_string(roce_mac_basis_name(roce_host_mac_role(m))));
    if (m->addresses) {
        ttl = json_object_new_array();
        json_object_array_add(ttl, json_object_new_int(m->ttl_min));
        json_object_array_add(ttl, json_object_new_int(m->ttl_max));
    }
    json_object_object_add(o, "ttl", ttl);
    roce_json_put_u64(o, "checked_frames", m->checked_frames);
    roce_json_put_u64(o, "unrouted_frames", m->unrouted_frames);
    roce_json_put_u64(o, "pfc_frames", m->pfc_frames);
    roce_json_put_u64(o, "pause_frames", m->pause_frames);
    json_object_object_add(o, "frames", roce_json_frames(m->frames, m->n_frames));
    json_object_array_add(a, o);
}

static void macs_write(json_object *o, const struct roce_field *f, const void *base,
                       const struct roce_fout *c)
{
    json_object *a = json_object_new_array();
    (void)base;
    for (size_t i = 0; c->r != NULL && i < c->r->n_macs; i++)
        if ((roce_host_mac_role(&c->r->macs[i]) == ROCE_MAC_UNROUTED) == (f->arg == 1))
            mac_write(a, &c->r->macs[i]);
    json_object_object_add(o, f->key, a);
}

/* A TTL of the "ttl" pair. */
static uint8_t get_ttl(struct roce_jget *g, json_object *a, size_t i, const char *where)
{
    json_object *v = json_object_array_get_idx(a, i);
    if (json_object_get_type(v) != json_type_int || json_object_get_int64(v) < 0 ||
        json_object_get_int64(v) > UINT8_MAX) {
        roce_jget_fail(g, where, "ttl", "not a pair of TTLs");
        return 0;
    }
    return (uint8_t)json_object_get_int64(v);
}

static void mac_parse(struct roce_jget *g, json_object *o, const char *where,
                      struct roce_host_mac *m, int host)
{
    roce_jget_mac(g, o, where, "mac", m->mac);
    uint64_t n = roce_jget_u64(g, o, where, "addresses");
    if (n > 2)
        roce_jget_fail(g, where, "addresses", "not 0, 1 or 2");
    m->addresses = (uint8_t)n;
    if (m->addresses) {
        json_object *ttl = roce_jget_member(g, o, where, "ttl", json_type_array, 0);
        roce_jget_addr(g, o, where, "address", m->addr, &m->af);
        uint64_t v = roce_jget_u64(g, o, where, "version");
        if (v < 1 || v > 2)
            roce_jget_fail(g, where, "version", "not 1 or 2");
        m->version = (uint8_t)v;
        if (ttl != NULL && json_object_array_length(ttl) != 2)
            roce_jget_fail(g, where, "ttl", "not a pair of TTLs");
        else if (ttl != NULL) {
            m->ttl_min = get_ttl(g, ttl, 0, where);
            m->ttl_max = get_ttl(g, ttl, 1, where);
        }
    }
    m->checked_frames = roce_jget_u64(g, o, where, "checked_frames");
    m->unrouted_frames = roce_jget_u64(g, o, where, "unrouted_frames");
    m->pfc_frames = roce_jget_u64(g, o, where, "pfc_frames");
    m->pause_frames = roce_jget_u64(g, o, where, "pause_frames");
    m->n_frames = (uint8_t)roce_jget_frames(g, o, where, "frames", m->frames, ROCE_EVIDENCE_MAX);
    if (!g->failed && (roce_host_mac_role(m) == ROCE_MAC_UNROUTED) != host)
        roce_jget_fail(g, where, "addresses", "not a MAC of this list");
}

int roce_fields_parse_mac(struct roce_jget *g, json_object *o, const char *where,
                          struct roce_report *r, int host)
{
    struct roce_host_mac *m = roce_report_add_mac(r);
    if (m == NULL)
        return -1;
    mac_parse(g, o, where, m, host);
    return 0;
}

static int macs_parse(struct roce_jget *g, json_object *o, const char *where,
                      const struct roce_field *f, void *base, const struct roce_fin *c)
{
    json_object *a = roce_jget_member(g, o, where, f->key, json_type_array, 0);
    char at[WHERE_LEN];
    (void)base;
    roce_jget_where(at, sizeof at, where, f->key);
    for (size_t i = 0; a != NULL && !g->failed && i < json_object_array_length(a); i++)
        if (roce_fields_parse_mac(g, json_object_array_get_idx(a, i), at, c->r, f->arg == 1) != 0)
            return -1;
    return 0;
}
const struct roce_fcall roce_fcall_macs = {macs_write, macs_parse, NULL};

/* ---- PFC storm frames: {"3": [...], "pause": [...]} of the priorities that have some ---- */

static void prio_key(unsigned p, char key[PRIO_KEY_LEN])
{
    if (p < ROCE_PFC_PRIORITIES)
        snprintf(key, PRIO_KEY_LEN, "%u", p);
    else
        snprintf(key, PRIO_KEY_LEN, "%s", PAUSE_KEY);
}

static void storm_frames_write(json_object *o, const struct roce_field *f, const void *base,
                               const struct roce_fout *c)
{
    const struct roce_pfc_storm_frames *sf = (const void *)((const char *)base + f->off);
    json_object *s = json_object_new_object();
    (void)c;
    for (unsigned p = 0; p <= ROCE_PFC_PRIORITIES; p++) {
        char key[PRIO_KEY_LEN];
        if (sf->n[p] == 0)
            continue;
        prio_key(p, key);
        json_object_object_add(s, key, roce_json_frames(sf->frame[p], sf->n[p]));
    }
    json_object_object_add(o, f->key, s);
}

static int storm_frames_parse(struct roce_jget *g, json_object *o, const char *where,
                              const struct roce_field *f, void *base, const struct roce_fin *c)
{
    struct roce_pfc_storm_frames *sf = (void *)((char *)base + f->off);
    json_object *s = roce_jget_member(g, o, where, f->key, json_type_object, 0);
    char at[WHERE_LEN];
    (void)c;
    if (s == NULL)
        return 0;
    roce_jget_where(at, sizeof at, where, f->key);
    json_object_object_foreach(s, key, val)
    {
        unsigned p = 0;
        char k[PRIO_KEY_LEN];
        (void)val;
        for (; p <= ROCE_PFC_PRIORITIES; p++) {
            prio_key(p, k);
            if (strcmp(k, key) == 0)
                break;
        }
        if (p > ROCE_PFC_PRIORITIES) {
            roce_jget_fail(g, at, key, "not a priority");
            return 0;
        }
        sf->n[p] = (uint8_t)roce_jget_frames(g, s, at, key, sf->frame[p], ROCE_EVIDENCE_MAX);
    }
    return 0;
}
const struct roce_fcall roce_fcall_storm_frames = {storm_frames_write, storm_frames_parse, NULL};

/* "fault_frames" (member capture_frames): {fault: [frames]} of the faults
 * of the capture that frames show. */
static void capture_frames_write(json_object *o, const struct roce_field *f, const void *base,
                                 const struct roce_fout *c)
{
    const struct roce_capture_evidence *ev = (const void *)((const char *)base + f->off);
    json_object *x = json_object_new_object();
    (void)c;
    for (unsigned k = 0; k < ROCE_FAULTS; k++)
        if (ev->n[k])
            json_object_object_add(x, roce_capture_fault_name(k),
                                   roce_json_frames(ev->frame[k], ev->n[k]));
    json_object_object_add(o, f->key, x);
}

static int capture_frames_parse(struct roce_jget *g, json_object *o, const char *where,
                                const struct roce_field *f, void *base, const struct roce_fin *c)
{
    struct roce_capture_evidence *ev = (void *)((char *)base + f->off);
    json_object *x = roce_jget_member(g, o, where, f->key, json_type_object, 0);
    char at[WHERE_LEN];
    (void)c;
    if (x == NULL)
        return 0;
    roce_jget_where(at, sizeof at, where, f->key);
    json_object_object_foreach(x, key, val)
    {
        unsigned k = 0;
        (void)val;
        while (k < ROCE_FAULTS && strcmp(roce_capture_fault_name(k), key) != 0)
            k++;
        if (k == ROCE_FAULTS) {
            roce_jget_fail(g, at, key, "not a fault of the capture");
            return 0;
        }
        ev->n[k] = (uint8_t)roce_jget_frames(g, x, at, key, ev->frame[k], ROCE_EVIDENCE_MAX);
    }
    return 0;
}
const struct roce_fcall roce_fcall_capture_frames = {capture_frames_write, capture_frames_parse,
                                                     NULL};

/* ---- per flow ---- */

/* "udp_sports" (member udp_sports): the RoCEv2 requests' source ports, ascending. */
static void udp_sports_stream(struct roce_jw *w, const struct roce_field *f, const void *base,
                              const struct roce_fout *c)
{
    const struct roce_flow_report *fr = base;
    (void)c;
    roce_jw_key(w, f->key);
    roce_jw_open(w, '[');
    for (unsigned i = 0; i < fr->n_udp_sports && i < ROCE_UDP_SPORTS_MAX; i++) {
        roce_jw_item(w);
        roce_jw_u64(w, fr->udp_sports[i]);
    }
    roce_jw_close(w, ']');
}

static int udp_sports_parse(struct roce_jget *g, json_object *o, const char *where,
                            const struct roce_field *f, void *base, const struct roce_fin *c)
{
    struct roce_flow_report *fr = base;
    json_object *a = roce_jget_member(g, o, where, f->key, json_type_array, 0);
    (void)c;
    if (a != NULL && json_object_array_length(a) > ROCE_UDP_SPORTS_MAX)
        roce_jget_fail(g, where, f->key, "too many ports");
    for (size_t i = 0; a != NULL && !g->failed && i < json_object_array_length(a); i++) {
        json_object *v = json_object_array_get_idx(a, i);
        int64_t p = json_object_get_int64(v);
        if (json_object_get_type(v) != json_type_int || p < 0 || p > UINT16_MAX ||
            (i > 0 && p <= fr->udp_sports[i - 1]))
            roce_jget_fail(g, where, f->key, "not ascending UDP ports");
        else
            fr->udp_sports[fr->n_udp_sports++] = (uint16_t)p;
    }
    return 0;
}
const struct roce_fcall roce_fcall_udp_sports = {NULL, udp_sports_parse, udp_sports_stream};

/* "dcqcn" (member dcqcn): null unless the flow is a RoCEv2 (or InfiniBand) request flow
 * whose connection received CNPs; the medians null until a CNP was evaluated. */
/* key: the decimal, or null when not any. */
static void key_decimal(struct roce_jw *w, const char *key, int any, uint64_t units,
                        unsigned decimals)
{
    roce_jw_key(w, key);
    any ? roce_jw_decimal(w, units, decimals) : roce_jw_null(w);
}

static void dcqcn_stream(struct roce_jw *w, const struct roce_field *f, const void *base,
                         const struct roce_fout *c)
{
    const struct roce_flow_report *fr = base;
    const struct roce_dcqcn_report *d = &fr->dcqcn;
    int any = d->cnps_evaluated > 0;
    (void)c;
    roce_jw_key(w, f->key);
    if (!d->tracked) {
        roce_jw_null(w);
        return;
    }
    roce_jw_open(w, '{');
    roce_jw_key_u64(w, "cnps_evaluated", d->cnps_evaluated);
    key_decimal(w, "rate_before_gbps", any, d->rate_before_mbps, RATE_DECIMALS);
    key_decimal(w, "rate_after_gbps", any, d->rate_after_mbps, RATE_DECIMALS);
    key_decimal(w, "rate_ratio_p50", any, d->ratio_ppm, RATIO_DECIMALS);
    roce_jw_key_str(w, "verdict", roce_dcqcn_verdict_name(d->verdict));
    roce_jw_close(w, '}');
}

/* A nullable exact decimal into a uint32_t (0 when null). */
static uint32_t get_decimal32(struct roce_jget *g, json_object *o, const char *where,
                              const char *key, unsigned decimals)
{
    int64_t v;
    if (!roce_jget_ns(g, o, where, key, decimals, 1, &v))
        return 0;
    if (v < 0 || v > UINT32_MAX)
        roce_jget_fail(g, where, key, "a value out of range");
    return (uint32_t)v;
}

static int dcqcn_parse(struct roce_jget *g, json_object *o, const char *where,
                       const struct roce_field *f, void *base, const struct roce_fin *c)
{
    struct roce_flow_report *fr = base;
    struct roce_dcqcn_report *d = &fr->dcqcn;
    json_object *x = roce_jget_member(g, o, where, f->key, json_type_object, 1);
    char at[WHERE_LEN];
    (void)c;
    memset(d, 0, sizeof *d);
    if (x == NULL)
        return 0;
    roce_jget_where(at, sizeof at, where, f->key);
    d->tracked = 1;
    d->cnps_evaluated = roce_jget_u64(g, x, at, "cnps_evaluated");
    d->rate_before_mbps = get_decimal32(g, x, at, "rate_before_gbps", RATE_DECIMALS);
    d->rate_after_mbps = get_decimal32(g, x, at, "rate_after_gbps", RATE_DECIMALS);
    d->ratio_ppm = get_decimal32(g, x, at, "rate_ratio_p50", RATIO_DECIMALS);
    d->verdict =
        (uint8_t)roce_jget_name(g, x, at, "verdict", roce_dcqcn_verdict_name, ROCE_DCQCN_VERDICTS);
    return 0;
}
const struct roce_fcall roce_fcall_dcqcn = {NULL, dcqcn_parse, dcqcn_stream};

/* "evidence": {kind: [frames]} of the kinds the flow has evidence of. */
static void evidence_stream(struct roce_jw *w, const struct roce_field *f, const void *base,
                            const struct roce_fout *c)
{
    const struct roce_evidence *ev = c->fx != NULL ? c->fx->ev : NULL;
    (void)base;
    roce_jw_key(w, f->key);
    roce_jw_open(w, '{');
    for (unsigned k = 0; ev != NULL && k < ROCE_DIAG_KINDS; k++)
        if (ev->n[k]) {
            roce_jw_key(w, roce_diag_kind_name(k));
            roce_jw_frames(w, ev->frame[k], ev->n[k]);
        }
    roce_jw_close(w, '}');
}

static int evidence_parse(struct roce_jget *g, json_object *o, const char *where,
                          const struct roce_field *f, void *base, const struct roce_fin *c)
{
    json_object *x = roce_jget_member(g, o, where, f->key, json_type_object, 0);
    char at[WHERE_LEN];
    (void)base;
    if (x == NULL || json_object_object_length(x) == 0)
        return 0;
    roce_jget_where(at, sizeof at, where, f->key);
    struct roce_evidence *ev = roce_report_flow_ev(c->r, (size_t)(c->fx - c->r->flow_x));
    if (ev == NULL)
        return -1;
    json_object_object_foreach(x, key, val)
    {
        unsigned k = 0;
        (void)val;
        while (k < ROCE_DIAG_KINDS && strcmp(roce_diag_kind_name(k), key) != 0)
            k++;
        if (k == ROCE_DIAG_KINDS) {
            roce_jget_fail(g, at, key, "not a diagnosis kind");
            return 0;
        }
        ev->n[k] = (uint8_t)roce_jget_frames(g, x, at, key, ev->frame[k], ROCE_EVIDENCE_MAX);
    }
    return 0;
}
const struct roce_fcall roce_fcall_evidence = {NULL, evidence_parse, evidence_stream};

/* ---- per episode ---- */

/* "nak_generation_us": null unless the episode's NAK's out-of-sequence
 * arrival was captured (has_nak_generation). */
static void nak_generation_stream(struct roce_jw *w, const struct roce_field *f, const void *base,
                                  const struct roce_fout *c)
{
    const struct roce_episode *ep = base;
    (void)c;
    roce_jw_key(w, f->key);
    ep->has_nak_generation ? roce_jw_us(w, ep->nak_generation_ns) : roce_jw_null(w);
}

static int nak_generation_parse(struct roce_jget *g, json_object *o, const char *where,
                                const struct roce_field *f, void *base, const struct roce_fin *c)
{
    struct roce_episode *ep = base;
    (void)c;
    ep->has_nak_generation =
        (uint64_t)roce_jget_ns(g, o, where, f->key, US_DECIMALS, 1, &ep->nak_generation_ns);
    return 0;
}
const struct roce_fcall roce_fcall_nak_generation = {NULL, nak_generation_parse,
                                                     nak_generation_stream};
