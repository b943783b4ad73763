/*
 * report_model.c - the report model: filled from an engine, its arrays, its
 * lifetime (see report.h).
 */
#define _DEFAULT_SOURCE
#include "report.h"

#include <stdlib.h>
#include <string.h>

#define GROW_MIN 16

void roce_report_init(struct roce_report *r)
{
    memset(r, 0, sizeof *r);
    roce_config_default(&r->own.cfg);
    r->cfg = &r->own.cfg;
}

void roce_report_free(struct roce_report *r)
{
    for (size_t i = 0; i < r->own.n_files; i++)
        free(r->own.files[i]);
    free(r->own.files);
    free(r->own.link_type);
    free(r->own.error);
    for (unsigned k = 0; k < ROCE_LATENCY_KINDS; k++)
        roce_lat_free(&r->lat[k].own);
    for (size_t i = 0; i < r->n_flows; i++) {
        for (unsigned k = 0; k < ROCE_LATENCY_KINDS; k++)
            roce_lat_free(&r->flow_x[i].lat[k].own);
        if (!r->flow_x[i].ev_ext)
            free(r->flow_x[i].ev);
    }
    free(r->flows);
    free(r->macs);
    free(r->flow_x);
    free(r->conns);
    free(r->episodes);
    if (r->diag != NULL)
        roce_diag_list_free(r->diag);
    free(r->diag);
    memset(r, 0, sizeof *r);
}

const struct roce_lat *roce_report_lat_get(const struct roce_report_lat *l)
{
    return l->ext != NULL ? l->ext : &l->own;
}

/* Make room for one more element of size sz in *arr (n used, *cap
 * allocated). The new element, zeroed, or NULL when out of memory. */
static void *grow(void **arr, size_t *n, size_t *cap, size_t sz)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : GROW_MIN;
        void *p = realloc(*arr, c * sz);
        if (p == NULL)
            return NULL;
        *arr = p;
        *cap = c;
    }
    void *e = (char *)*arr + (*n)++ * sz;
    memset(e, 0, sz);
    return e;
}

struct roce_flow_report *roce_report_add_flow(struct roce_report *r)
{
    size_t n = r->n_flows, cap = r->cap_flows;
    /* flow_x first: both arrays have grown when flows has */
    if (grow((void **)&r->flow_x, &n, &cap, sizeof *r->flow_x) == NULL)
        return NULL;
    return grow((void **)&r->flows, &r->n_flows, &r->cap_flows, sizeof *r->flows);
}

struct roce_report_conn *roce_report_add_conn(struct roce_report *r)
{
    return grow((void **)&r->conns, &r->n_conns, &r->cap_conns, sizeof *r->conns);
}

struct roce_episode *roce_report_add_episode(struct roce_report *r)
{
    return grow((void **)&r->episodes, &r->n_episodes, &r->cap_episodes, sizeof *r->episodes);
}

struct roce_host_mac *roce_report_add_mac(struct roce_report *r)
{
    return grow((void **)&r->macs, &r->n_macs, &r->cap_macs, sizeof *r->macs);
}

struct roce_evidence *roce_report_flow_ev(struct roce_report *r, size_t i)
{
    struct roce_report_flow *x = &r->flow_x[i];
    if (x->ev_ext) { /* the engine's: a copy of the report's own to change */
        struct roce_evidence *own = malloc(sizeof *own);
        if (own == NULL)
            return NULL;
        *own = *x->ev;
        x->ev = own;
        x->ev_ext = 0;
    }
    if (x->ev == NULL)
        x->ev = calloc(1, sizeof *x->ev);
    return x->ev;
}

/* Replace an owned string by a copy of s (NULL allowed). 0 or -1. */
static int set_str(char **dst, const char *s)
{
    char *c = NULL;
    if (s != NULL && (c = strdup(s)) == NULL)
        return -1;
    free(*dst);
    *dst = c;
    return 0;
}

int roce_report_set_link_type(struct roce_report *r, const char *link_type)
{
    if (set_str(&r->own.link_type, link_type) != 0)
        return -1;
    r->link_type = r->own.link_type;
    return 0;
}

int roce_report_set_error(struct roce_report *r, const char *error)
{
    if (set_str(&r->own.error, error) != 0)
        return -1;
    r->error = r->own.error;
    return 0;
}

int roce_report_add_file(struct roce_report *r, const char *name)
{
    char **p = realloc(r->own.files, (r->own.n_files + 1) * sizeof *p);
    if (p == NULL)
        return -1;
    r->own.files = p;
    if ((p[r->own.n_files] = strdup(name)) == NULL)
        return -1;
    r->own.n_files++;
    r->files = (const char *const *)r->own.files;
    r->n_files = r->own.n_files;
    return 0;
}

/* The flow report with this id in an array ordered by id, or NULL. */
static const struct roce_flow_report *find_report(const struct roce_flow_report *a, size_t n,
                                                  uint64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && a[lo].id == id ? &a[lo] : NULL;
}

const struct roce_flow_report *roce_report_flow(const struct roce_report *r, uint64_t id)
{
    return find_report(r->flows, r->n_flows, id);
}

const struct roce_report_flow *roce_report_flow_x(const struct roce_report *r,
                                                  const struct roce_flow_report *f)
{
    return &r->flow_x[f - r->flows];
}

/* The connections of the engine's flows (also those without packets, which
 * CM created), each once, at the lower id of the pair. 0 or -1. */
static int build_conns(struct roce_report *r, const struct roce_flow_report *all, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct roce_flow_report *f = &all[i];
        const struct roce_flow_report *p = f->peer_id ? find_report(all, n, f->peer_id) : NULL;
        if (p == NULL || p->id < f->id)
            continue; /* unpaired, or listed with the lower id */
        const struct roce_flow_report *req = f, *resp = p;
        if ((p->request_packets && !f->request_packets) ||
            (p->request_packets && f->request_packets && p->first_frame < f->first_frame))
            req = p, resp = f;
        struct roce_report_conn *c = roce_report_add_conn(r);
        if (c == NULL)
            return -1;
        c->req = req->key;
        c->resp = resp->key;
        c->req_id = req->id;
        c->resp_id = resp->id;
        c->paired_by = f->paired_by;
    }
    return 0;
}

/* What the report adds to the engine's flows (all[0..n-1]): the peers' keys,
 * the (borrowed) distributions and evidence. Then only the
 * flows that carried packets are kept: all and x become the report's
 * arrays. 0, or -1 when out of memory. */
static int build_flows(struct roce_report *r, struct roce_engine *e, struct roce_flow_report *all,
                       struct roce_report_flow *x, size_t n, int partial)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        const struct roce_evidence *ev = roce_engine_flow_evidence(e, &all[i].key, all[i].id);
        if (ev != NULL && all[i].packets) { /* the engine's, as the latencies below */
            x[i].ev = (struct roce_evidence *)ev;
            x[i].ev_ext = 1;
        }
        const struct roce_flow_report *p =
            all[i].peer_id ? find_report(all, n, all[i].peer_id) : NULL;
        if (p != NULL) {
            x[i].peer = p->key;
            x[i].has_peer = 1;
        } else if (partial && all[i].peer_id) { /* a peer not listed: the engine's */
            x[i].has_peer = roce_engine_flow_peer_key(e, &all[i].key, all[i].id, &x[i].peer) == 0;
        }
        for (unsigned k = 0; k < ROCE_LATENCY_KINDS; k++)
            x[i].lat[k].ext =
                roce_engine_flow_latency(e, &all[i].key, all[i].id, (enum roce_latency_kind)k);
    }
    for (size_t i = 0; i < n; i++)
        if (all[i].packets) {
            all[kept] = all[i];
            x[kept++] = x[i];
        }
    r->flows = all;
    r->flow_x = x;
    r->n_flows = kept;
    r->cap_flows = n;
    return 0;
}

/* A copy of the engine's MAC table. 0, or -1 when out of memory. */
static int build_macs(struct roce_report *r, const struct roce_engine *e)
{
    size_t n;
    const struct roce_host_mac *m = roce_engine_macs(e, &n);
    for (size_t i = 0; i < n; i++) {
        struct roce_host_mac *c = roce_report_add_mac(r);
        if (c == NULL)
            return -1;
        *c = m[i];
    }
    return 0;
}

static int cmp_ref_id(const void *a, const void *b)
{
    const struct roce_flow_report *x = *(const struct roce_flow_report *const *)a;
    const struct roce_flow_report *y = *(const struct roce_flow_report *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

/* Into all (room for r->flow_limit), by id, copies of the r->flow_limit
 * first flows of the one ranking over the engine's own reports (read in
 * place: no copy of every report), with r->diag, the engine's diagnoses
 * over every flow (computed unless the caller lent them); the flows that
 * carried packets but are left out counted in r->t.flows_unlisted. How many
 * were copied, or -1 when out of memory. */
static long long ranked_flows(struct roce_report *r, struct roce_engine *e,
                              struct roce_flow_report *all, size_t n)
{
    const struct roce_flow_report **refs = malloc(n * sizeof *refs);
    const struct roce_flow_report **ranked = malloc(n * sizeof *ranked);
    long long rc = -1;
    if (refs == NULL || ranked == NULL)
        goto out;
    if (r->diag == NULL) {
        if ((r->diag = calloc(1, sizeof *r->diag)) == NULL ||
            roce_engine_diagnoses(e, r->flow_limit, r->diag) != 0)
            goto out;
    }
    size_t with = 0, m = roce_engine_flow_refs(e, refs, n);
    for (size_t i = 0; i < m; i++)
        if (refs[i]->packets)
            refs[with++] = refs[i];
    if (roce_report_rank_refs(refs, with, r->diag, NULL, 1, r->flow_limit, ranked) ==
        ROCE_RANK_NOMEM)
        goto out;
    size_t listed = with < r->flow_limit ? with : r->flow_limit;
    qsort(ranked, listed, sizeof *ranked, cmp_ref_id);
    for (size_t i = 0; i < listed; i++)
        all[i] = *ranked[i]; /* brought up to date by roce_engine_flow_refs */
    r->t.flows_unlisted = with - listed;
    rc = (long long)listed;
out:
    free(refs);
    free(ranked);
    return rc;
}

int roce_report_build(struct roce_report *r, struct roce_engine *e)
{
    size_t n = roce_engine_flow_count(e), n_ep = roce_engine_episode_count(e);
    const int partial = r->flow_limit != 0 && n > r->flow_limit;
    const size_t room = partial ? r->flow_limit : n;
    /* the engine's reports become the report's flows: no copy of them */
    struct roce_flow_report *all = calloc(room ? room : 1, sizeof *all);
    struct roce_report_flow *x = calloc(room ? room : 1, sizeof *x);

    if (all == NULL || x == NULL) {
        free(all);
        free(x);
        return -1;
    }
    r->t = *roce_engine_totals(e);
    for (unsigned k = 0; k < ROCE_LATENCY_KINDS; k++)
        r->lat[k].ext = roce_engine_latency(e, (enum roce_latency_kind)k);
    if (partial) {
        long long listed = ranked_flows(r, e, all, n);
        if (listed < 0) {
            free(all);
            free(x);
            return -1;
        }
        n = (size_t)listed;
    } else {
        n = roce_engine_flows(e, all, n);
    }
    int rc = build_conns(r, all, n);
    if (build_flows(r, e, all, x, n, partial) != 0 || build_macs(r, e) != 0)
        rc = -1;
    for (size_t i = 0; i < n_ep && rc == 0; i++) {
        struct roce_episode *ep = roce_report_add_episode(r);
        if (ep == NULL)
            rc = -1;
        else
            *ep = *roce_engine_episode(e, i);
    }
    return rc;
}
