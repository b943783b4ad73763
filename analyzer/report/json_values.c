/*
 * json_values.c - the json-c values the JSON writers share (see
 * json_values.h). Ownership: each function returns a new value for the
 * caller to add (json-c's *_add take it).
 */
#include "json_values.h"

#include <stdio.h>
#include <string.h>

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

/* units of 10^-decimals as text into buf; the scale. */
static uint64_t decimal_text(uint64_t units, unsigned decimals, char buf[DECIMAL_BUF])
{
    uint64_t scale = 1;
    for (unsigned i = 0; i < decimals && i < MAX_DECIMALS; i++)
        scale *= 10;
    snprintf(buf, DECIMAL_BUF, "%llu.%0*llu", (unsigned long long)(units / scale), (int)decimals,
             (unsigned long long)(units % scale));
    return scale;
}

json_object *roce_json_decimal(uint64_t units, unsigned decimals)
{
    char buf[DECIMAL_BUF];
    uint64_t scale = decimal_text(units, decimals, buf);
    return json_object_new_double_s((double)units / (double)scale, buf);
}

void roce_jw_decimal(struct roce_jw *w, uint64_t units, unsigned decimals)
{
    char buf[DECIMAL_BUF];
    decimal_text(units, decimals, buf);
    roce_jw_raw(w, buf, strlen(buf));
}

void roce_jw_endpoint(struct roce_jw *w, const struct roce_flow_key *k)
{
    char a[ROCE_FMT_ADDR_LEN];
    roce_fmt_addr(k->src, k->af, a, sizeof a);
    roce_jw_key_str(w, "src", a);
    roce_fmt_addr(k->dst, k->af, a, sizeof a);
    roce_jw_key_str(w, "dst", a);
    roce_jw_key_u64(w, "dest_qp", k->dqpn);
}

void roce_jw_frames(struct roce_jw *w, const uint64_t *frames, unsigned n)
{
    roce_jw_open(w, '[');
    for (unsigned i = 0; i < n; i++) {
        roce_jw_item(w);
        roce_jw_u64(w, frames[i]);
    }
    roce_jw_close(w, ']');
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

/* The subject of a diagnosis of kind, by the kind's subject. */
static json_object *subject(unsigned kind, const struct roce_diag_subject *s)
{
    json_object *o = json_object_new_object(), *qps;
    switch (roce_diag_kind(kind)->subject) {
    case ROCE_SUBJ_HOST:
        json_object_object_add(o, "mac", roce_json_mac(s->mac));
        json_object_object_add(o, "address", roce_json_addr(s->flow.src, s->flow.af));
        break;
    case ROCE_SUBJ_PRIORITY:
        if (s->priority < ROCE_PFC_PRIORITIES)
            roce_json_put_u64(o, "priority", s->priority);
        else
            json_object_object_add(o, "pause", json_object_new_boolean(1));
        break;
    case ROCE_SUBJ_PATH:
        json_object_object_add(o, "src", roce_json_addr(s->flow.src, s->flow.af));
        json_object_object_add(o, "dst", roce_json_addr(s->flow.dst, s->flow.af));
        roce_json_put_u64(o, "udp_sport", s->udp_sport);
        qps = json_object_new_array();
        for (unsigned i = 0; i < s->n_dest_qps; i++)
            json_object_array_add(qps, json_object_new_uint64(s->dest_qps[i]));
        json_object_object_add(o, "dest_qps", qps);
        break;
    case ROCE_SUBJ_RECEIVER:
        json_object_object_add(o, "receiver", roce_json_addr(s->flow.dst, s->flow.af));
        qps = json_object_new_array();
        for (unsigned i = 0; i < s->n_senders; i++)
            json_object_array_add(qps, roce_json_addr(s->senders[i], s->flow.af));
        json_object_object_add(o, "senders", qps);
        break;
    case ROCE_SUBJ_FAULT:
        json_object_object_add(o, "fault",
                               json_object_new_string(roce_capture_fault_name(s->fault)));
        if (s->fault == ROCE_FAULT_REWRITE)
            json_object_object_add(o, "field",
                                   json_object_new_string(roce_rewrite_field_name(s->field)));
        break;
    case ROCE_SUBJ_CONNECTION:
        roce_json_endpoint(o, &s->flow);
        roce_json_put_u64(o, "version", s->flow.version);
        json_object *peer = json_object_new_object();
        roce_json_endpoint(peer, &s->peer);
        roce_json_put_u64(peer, "version", s->peer.version);
        json_object_object_add(o, "responses", peer);
        break;
    default:
        roce_json_endpoint(o, &s->flow);
        break;
    }
    return o;
}

/* The figures of a subject, by the kind's row. */
static json_object *figures(unsigned kind, const struct roce_diag_subject *s)
{
    json_object *o = json_object_new_object();
    for (const struct roce_diag_figure *f = roce_diag_figures_of(kind, s); f->key != NULL; f++) {
        uint64_t v;
        memcpy(&v, (const char *)&s->fig + f->off, sizeof v);
        roce_json_put_u64(o, f->key, v);
    }
    return o;
}

/* Subject i of finding d of list l: {subject, count, figures, summary, frames}. */
static json_object *diag_subject(const struct roce_diag_list *l, const struct roce_diagnosis *d,
                                 size_t i)
{
    const struct roce_diag_subject *s = roce_diag_subject_at(l, d, i);
    json_object *x = json_object_new_object();
    char phrase[ROCE_DIAG_PHRASE_LEN];
    json_object_object_add(x, "subject", subject(d->kind, s));
    roce_json_put_u64(x, "count", s->count);
    json_object_object_add(x, "figures", figures(d->kind, s));
    roce_diag_subject_phrase(l, d, i, phrase, sizeof phrase);
    json_object_object_add(x, "summary", json_object_new_string(phrase));
    json_object_object_add(x, "frames", roce_json_frames(s->frames, s->n_frames));
    return x;
}

/* The members of finding d before its subjects, added to o. */
static void diag_head(json_object *o, const struct roce_diagnosis *d)
{
    json_object_object_add(o, "kind", json_object_new_string(roce_diag_kind_name(d->kind)));
    json_object_object_add(o, "severity",
                           json_object_new_string(roce_diag_severity_name(d->severity)));
    json_object_object_add(o, "cause", json_object_new_string(roce_diag_cause_name(d->cause)));
    roce_json_put_u64(o, "count", d->count);
    json_object_object_add(o, "summary", json_object_new_string(d->summary));
    json_object_object_add(o, "frames", roce_json_frames(d->frames, d->n_frames));
}

json_object *roce_json_diagnosis(const struct roce_diag_list *l, const struct roce_diagnosis *d,
                                 size_t max_subjects)
{
    json_object *o = json_object_new_object(), *subjects = json_object_new_array();
    size_t n = d->n_subjects < max_subjects ? d->n_subjects : max_subjects;
    diag_head(o, d);
    for (size_t i = 0; i < n; i++)
        json_object_array_add(subjects, diag_subject(l, d, i));
    json_object_object_add(o, "subjects", subjects);
    roce_json_put_u64(o, "subjects_unlisted", roce_diag_subjects(d) - n);
    return o;
}

void roce_jw_diagnoses(struct roce_jw *w, const struct roce_diag_list *l)
{
    roce_jw_open(w, '[');
    for (size_t k = 0; k < l->n; k++) {
        const struct roce_diagnosis *d = &l->d[k];
        json_object *head = json_object_new_object();
        diag_head(head, d);
        roce_jw_item(w);
        roce_jw_open(w, '{');
        json_object_object_foreach(head, key, val)
        {
            roce_jw_key(w, key);
            roce_jw_json(w, val);
        }
        json_object_put(head);
        /* a subject at a time: a finding of a large table has thousands */
        roce_jw_key(w, "subjects");
        roce_jw_open(w, '[');
        for (size_t i = 0; i < d->n_subjects; i++) {
            json_object *x = diag_subject(l, d, i);
            roce_jw_item(w);
            roce_jw_json(w, x);
            json_object_put(x);
        }
        roce_jw_close(w, ']');
        roce_jw_key(w, "subjects_unlisted"); /* beyond the bound of a live report */
        roce_jw_u64(w, d->n_unlisted);
        roce_jw_close(w, '}');
    }
    roce_jw_close(w, ']');
}
