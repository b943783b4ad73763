/*
 * report_merge.c - one report from the reports of captures read one after
 * the other (see report.h; rocescope(1), MANY FILES).
 *
 * The merged report is what one engine reading all the captures in order
 * gives when no flow spans two captures: the frames of a capture are
 * numbered on after the packets of those before it, its flow ids after
 * their flows_created (every flow created counts, also those CM created
 * without packets), counts add up, and the latency distributions merge
 * (roce_lat_merge), so merged percentiles are those of the joint
 * distribution; the evidence frames of the diagnoses are numbered on, the
 * MAC tables fold by MAC, and the diagnoses are computed again from all
 * that (roce_report_diagnoses). The first time is the earliest of the
 * captures, the last time the latest; a capture that begins before the
 * latest time of those before it makes the merged report say that the
 * files overlap. How each field merges is said in its declaration
 * (report_fields.c); what cannot be exact (a flow table or verdict queue
 * that would have filled up jointly, PFC storm windows, which are counted
 * per capture) is listed in rocescope(1), MANY FILES.
 *
 * Nothing adds up past ROCE_REPORT_INT_MAX, the largest integer a report
 * holds: a merge that would (the totals' counts, a latency bucket, the
 * counts of a MAC both reports have) is refused before anything changes.
 * Frame numbers and flow ids numbered on cannot wrap: each, and each
 * offset (a sum of counts), is at most ROCE_REPORT_INT_MAX.
 */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fields.h"

#define MAC_TEXT 18 /* "aa:bb:cc:dd:ee:ff" */

/* A MAC of the merged report, by address, at its index. */
struct mac_at {
    uint8_t mac[ROCE_MAC_LEN];
    size_t at;
};

static int cmp_mac_at(const void *a, const void *b)
{
    return memcmp(((const struct mac_at *)a)->mac, ((const struct mac_at *)b)->mac, ROCE_MAC_LEN);
}

/* dst's MACs ordered by address, into *idx (to free). 0, or -1 when out of
 * memory. */
static int index_macs(const struct roce_report *dst, struct mac_at **idx)
{
    *idx = malloc((dst->n_macs ? dst->n_macs : 1) * sizeof **idx);
    if (*idx == NULL)
        return -1;
    for (size_t i = 0; i < dst->n_macs; i++) {
        memcpy((*idx)[i].mac, dst->macs[i].mac, ROCE_MAC_LEN);
        (*idx)[i].at = i;
    }
    qsort(*idx, dst->n_macs, sizeof **idx, cmp_mac_at);
    return 0;
}

/* The index in dst of the MAC of m, or SIZE_MAX (idx: dst's n MACs by
 * address; MACs added after it was made are not in it). */
static size_t find_mac(const struct mac_at *idx, size_t n, const struct roce_host_mac *m)
{
    struct mac_at key;
    memcpy(key.mac, m->mac, ROCE_MAC_LEN);
    const struct mac_at *hit = n ? bsearch(&key, idx, n, sizeof *idx, cmp_mac_at) : NULL;
    return hit != NULL ? hit->at : SIZE_MAX;
}

/* Nonzero when a + b would pass ROCE_REPORT_INT_MAX. */
static int too_big(uint64_t a, uint64_t b)
{
    return a > ROCE_REPORT_INT_MAX || b > ROCE_REPORT_INT_MAX - a;
}

/* Whether src adds to dst without passing ROCE_REPORT_INT_MAX, or what a
 * latency bucket holds (idx: dst's MACs by address): 0, or -1 with the
 * count that would in why and its bound in *bound. */
static int check_sums(const struct roce_report *dst, const struct roce_report *src,
                      const struct mac_at *idx, char *why, size_t len, uint64_t *bound)
{
    *bound = ROCE_REPORT_INT_MAX;
    if (roce_fields_check_sums(&dst->t, &src->t, ROCE_REPORT_INT_MAX, why, len) != 0)
        return -1;
    for (const struct roce_field *f = roce_report_fields.f;
         f < roce_report_fields.f + roce_report_fields.n; f++)
        for (unsigned b = 0; f->merge == ROCE_MERGE_SUMMARY && b < ROCE_LAT_BUCKETS; b++) {
            /* the exact samples of either become buckets too */
            uint64_t sum = (uint64_t)roce_lat_bucket(roce_report_lat_get(&dst->lat[f->arg]), b) +
                           roce_lat_bucket(roce_report_lat_get(&src->lat[f->arg]), b) +
                           2 * ROCE_LAT_EXACT;
            if (sum > UINT32_MAX) {
                *bound = UINT32_MAX;
                snprintf(why, len, "%s%s%s.distribution.buckets", f->path, f->path[0] ? "." : "",
                         f->key);
                return -1;
            }
        }
    for (size_t i = 0; i < src->n_macs; i++) {
        const struct roce_host_mac *s = &src->macs[i];
        size_t at = find_mac(idx, dst->n_macs, s);
        if (at == SIZE_MAX)
            continue;
        const struct roce_host_mac *d = &dst->macs[at];
        const char *over = too_big(d->checked_frames, s->checked_frames)     ? "checked_frames"
                           : too_big(d->unrouted_frames, s->unrouted_frames) ? "unrouted_frames"
                           : too_big(d->pfc_frames, s->pfc_frames)           ? "pfc_frames"
                           : too_big(d->pause_frames, s->pause_frames)       ? "pause_frames"
                                                                             : NULL;
        if (over != NULL) {
            char mac[MAC_TEXT];
            snprintf(mac, sizeof mac, "%02x:%02x:%02x:%02x:%02x:%02x", s->mac[0], s->mac[1],
                     s->mac[2], s->mac[3], s->mac[4], s->mac[5]);
            snprintf(why, len, "the MAC %s: %s", mac, over);
            return -1;
        }
    }
    return 0;
}

/* How the frames and flow ids of a report being merged are numbered in the
 * merged one: on after offsets (captures read one after the other), or
 * through map (the parts of a split analysis: frames as they are). */
struct renumber {
    uint64_t frame_off, id_off;
    uint64_t (*map)(uint64_t id, void *ctx);
    void *ctx;
};

static void renumber(const struct roce_fieldset *fs, void *base, const struct renumber *rn)
{
    if (rn->map != NULL)
        roce_fields_map_ids(fs, base, rn->map, rn->ctx);
    else
        roce_fields_renumber(fs, base, rn->frame_off, rn->id_off);
}

/* dst's own distribution plus src's. 0 or -1. */
static int merge_lat(struct roce_report_lat *dst, const struct roce_report_lat *src,
                     struct roce_lat_summary *summary)
{
    if (dst->ext != NULL) { /* a report built from an engine: take a copy first */
        if (roce_lat_copy(&dst->own, dst->ext) != 0)
            return -1;
        dst->ext = NULL;
    }
    if (roce_lat_merge(&dst->own, roce_report_lat_get(src)) != 0)
        return -1;
    roce_lat_summarize(&dst->own, summary);
    return 0;
}

/* src's flows after dst's, their ids and frames numbered on, their
 * distributions copied. 0 or -1. */
static int merge_flows(struct roce_report *dst, const struct roce_report *src,
                       const struct renumber *rn)
{
    for (size_t i = 0; i < src->n_flows; i++) {
        const struct roce_report_flow *sx = &src->flow_x[i];
        struct roce_flow_report *f = roce_report_add_flow(dst);
        if (f == NULL)
            return -1;
        struct roce_report_flow *x = &dst->flow_x[dst->n_flows - 1];
        *f = src->flows[i];
        renumber(&roce_flow_fields, f, rn);
        x->peer = sx->peer;
        x->has_peer = sx->has_peer;
        for (unsigned k = 0; k < ROCE_LATENCY_KINDS; k++)
            if (roce_lat_copy(&x->lat[k].own, roce_report_lat_get(&sx->lat[k])) != 0)
                return -1;
        if (sx->ev != NULL) {
            struct roce_evidence *ev = roce_report_flow_ev(dst, dst->n_flows - 1);
            if (ev == NULL)
                return -1;
            roce_evidence_merge(ev, sx->ev, rn->frame_off);
        }
    }
    return 0;
}

/* src's MACs folded into dst's (idx: dst's by address; src lists each MAC
 * once), its PFC storm frames after dst's, the frames that show the faults
 * of its capture with dst's, its incast receivers with dst's, its pauses
 * after dst's. 0 or -1. */
static int merge_macs(struct roce_report *dst, const struct roce_report *src, uint64_t frame_off,
                      const struct mac_at *idx)
{
    const size_t indexed = dst->n_macs;
    struct roce_pfc_storm_frames *d = &dst->t.storm_frames;
    const struct roce_pfc_storm_frames *s = &src->t.storm_frames;
    for (unsigned p = 0; p <= ROCE_PFC_PRIORITIES; p++)
        for (unsigned i = 0; i < s->n[p] && d->n[p] < ROCE_EVIDENCE_MAX; i++)
            d->frame[p][d->n[p]++] = s->frame[p][i] + frame_off;
    d = &dst->t.xoff_frames;
    s = &src->t.xoff_frames;
    for (unsigned p = 0; p <= ROCE_PFC_PRIORITIES; p++)
        for (unsigned i = 0; i < s->n[p] && d->n[p] < ROCE_EVIDENCE_MAX; i++)
            d->frame[p][d->n[p]++] = s->frame[p][i] + frame_off;
    roce_incast_merge(&dst->t, &src->t, frame_off);
    roce_pause_list_merge(&dst->t, &src->t, frame_off);
    for (unsigned k = 0; k < ROCE_FAULTS; k++)
        for (unsigned i = 0; i < src->t.capture_frames.n[k] && i < ROCE_EVIDENCE_MAX; i++)
            roce_evidence_add_capture(&dst->t.capture_frames, k,
                                      src->t.capture_frames.frame[k][i] + frame_off);
    for (size_t i = 0; i < src->n_macs; i++) {
        const struct roce_host_mac *m = &src->macs[i];
        size_t at = find_mac(idx, indexed, m);
        struct roce_host_mac *to = at != SIZE_MAX ? &dst->macs[at] : roce_report_add_mac(dst);
        if (to == NULL)
            return -1;
        if (at == SIZE_MAX)
            memcpy(to->mac, m->mac, sizeof m->mac);
        roce_host_mac_merge(to, m, frame_off);
    }
    return 0;
}

/* src's episodes after dst's, as long as the joint list has room
 * (limit); the others are counted as unlisted. */
static int merge_episodes(struct roce_report *dst, const struct roce_report *src,
                          const struct renumber *rn, size_t limit)
{
    for (size_t i = 0; i < src->n_episodes; i++) {
        if (dst->n_episodes >= limit) {
            dst->t.episodes_unlisted++;
            continue;
        }
        struct roce_episode *ep = roce_report_add_episode(dst);
        if (ep == NULL)
            return -1;
        *ep = src->episodes[i];
        renumber(&roce_episode_fields, ep, rn);
    }
    return 0;
}

/* What was read and what the totals and distributions of src add to dst. 0 or -1. */
static int merge_common(struct roce_report *dst, const struct roce_report *src, int first)
{
    if (first && src->cfg != NULL)
        dst->own.cfg = *src->cfg;
    if ((dst->link_type == NULL && roce_report_set_link_type(dst, src->link_type) != 0) ||
        (dst->error == NULL && roce_report_set_error(dst, src->error) != 0))
        return -1;
    roce_fields_merge_totals(&dst->t, &src->t);
    for (const struct roce_field *f = roce_report_fields.f;
         f < roce_report_fields.f + roce_report_fields.n; f++)
        if (f->merge == ROCE_MERGE_SUMMARY &&
            merge_lat(&dst->lat[f->arg], &src->lat[f->arg],
                      (struct roce_lat_summary *)(void *)((char *)&dst->t + f->off)) != 0)
            return -1;
    return 0;
}

/* src's connections after dst's, renumbered. 0 or -1. */
static int merge_conns(struct roce_report *dst, const struct roce_report *src,
                       const struct renumber *rn)
{
    for (size_t i = 0; i < src->n_conns; i++) {
        struct roce_report_conn *c = roce_report_add_conn(dst);
        if (c == NULL)
            return -1;
        *c = src->conns[i];
        renumber(&roce_conn_fields, c, rn);
    }
    return 0;
}

/* dst's MACs indexed, and the sums checked: 0 (*idx to free), 1 (a sum too
 * big, in why), or -1 when out of memory. */
static int prepare(const struct roce_report *dst, const struct roce_report *src,
                   struct mac_at **idx, char *why, size_t whylen)
{
    char name[ROCE_REPORT_WHY_LEN];
    uint64_t bound;
    if (index_macs(dst, idx) != 0)
        return -1;
    if (check_sums(dst, src, *idx, name, sizeof name, &bound) == 0)
        return 0;
    if (why != NULL)
        snprintf(why, whylen, "%s: the sum of the reports would be more than %llu", name,
                 (unsigned long long)bound);
    free(*idx);
    return 1;
}

int roce_report_merge_checked(struct roce_report *dst, const struct roce_report *src, char *why,
                              size_t whylen)
{
    const struct renumber rn = {dst->t.packets, dst->t.flows_created, NULL, NULL};
    const int first = dst->n_files == 0;
    struct mac_at *idx;
    int rc = prepare(dst, src, &idx, why, whylen);
    if (rc != 0)
        return rc;
    for (size_t i = 0; i < src->n_files && rc == 0; i++)
        rc = roce_report_add_file(dst, src->files[i]);
    /* the rule of the joint run (analysis.c): src begins before dst's latest time */
    if (src->files_overlap ||
        (dst->t.packets && src->t.packets && src->t.first_ts_ns < dst->t.last_ts_ns))
        dst->files_overlap = 1;
    if (rc != 0 || merge_common(dst, src, first) != 0 || merge_flows(dst, src, &rn) != 0 ||
        merge_episodes(dst, src, &rn, dst->cfg->max_episodes) != 0 ||
        merge_conns(dst, src, &rn) != 0 || merge_macs(dst, src, rn.frame_off, idx) != 0)
        rc = -1;
    free(idx);
    return rc;
}

int roce_report_merge(struct roce_report *dst, const struct roce_report *src)
{
    return roce_report_merge_checked(dst, src, NULL, 0) == 0 ? 0 : -1;
}

int roce_report_merge_part(struct roce_report *dst, const struct roce_report *src,
                           uint64_t (*map)(uint64_t id, void *ctx), void *ctx)
{
    const struct renumber rn = {0, 0, map, ctx};
    const int first = dst->n_files == 0;
    struct mac_at *idx;
    int rc = prepare(dst, src, &idx, NULL, 0);
    if (rc != 0)
        return -1;
    if (first) { /* what was read: the same in every part */
        for (size_t i = 0; i < src->n_files && rc == 0; i++)
            rc = roce_report_add_file(dst, src->files[i]);
        dst->files_overlap = src->files_overlap;
    }
    if (rc != 0 || merge_common(dst, src, first) != 0 || merge_flows(dst, src, &rn) != 0 ||
        merge_episodes(dst, src, &rn, SIZE_MAX) != 0 || merge_conns(dst, src, &rn) != 0 ||
        merge_macs(dst, src, 0, idx) != 0)
        rc = -1;
    free(idx);
    return rc;
}

/* A flow's place in the merged list. */
struct flow_order {
    uint64_t id;
    size_t at;
};

static int cmp_flow_order(const void *a, const void *b)
{
    const struct flow_order *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

static int cmp_episode(const void *a, const void *b)
{
    const struct roce_episode *x = a, *y = b;
    return (x->first_frame > y->first_frame) - (x->first_frame < y->first_frame);
}

static uint64_t conn_id(const struct roce_report_conn *c)
{
    return c->req_id < c->resp_id ? c->req_id : c->resp_id;
}

static int cmp_conn(const void *a, const void *b)
{
    uint64_t x = conn_id(a), y = conn_id(b);
    return (x > y) - (x < y);
}

static int cmp_mac(const void *a, const void *b)
{
    const struct roce_host_mac *x = a, *y = b;
    return (x->first_frame > y->first_frame) - (x->first_frame < y->first_frame);
}

int roce_report_merge_parts_done(struct roce_report *dst)
{
    size_t n = dst->n_flows;
    struct flow_order *order = malloc((n ? n : 1) * sizeof *order);
    struct roce_flow_report *flows = malloc((n ? n : 1) * sizeof *flows);
    struct roce_report_flow *x = malloc((n ? n : 1) * sizeof *x);
    if (order == NULL || flows == NULL || x == NULL) {
        free(order);
        free(flows);
        free(x);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = (struct flow_order){dst->flows[i].id, i};
    qsort(order, n, sizeof *order, cmp_flow_order);
    for (size_t i = 0; i < n; i++) {
        flows[i] = dst->flows[order[i].at];
        x[i] = dst->flow_x[order[i].at];
    }
    free(order);
    free(dst->flows);
    free(dst->flow_x);
    dst->flows = flows;
    dst->flow_x = x;
    dst->cap_flows = n ? n : 1;
    /* (an empty list may have no array: qsort takes none) */
    if (dst->n_conns > 1)
        qsort(dst->conns, dst->n_conns, sizeof *dst->conns, cmp_conn);
    /* one engine's MAC table: in the order of the frames that made the entries */
    if (dst->n_macs > 1)
        qsort(dst->macs, dst->n_macs, sizeof *dst->macs, cmp_mac);
    if (dst->n_episodes > 1)
        qsort(dst->episodes, dst->n_episodes, sizeof *dst->episodes, cmp_episode);
    if (dst->n_episodes > dst->cfg->max_episodes) {
        dst->t.episodes_unlisted += dst->n_episodes - dst->cfg->max_episodes;
        dst->n_episodes = dst->cfg->max_episodes;
    }
    return 0;
}
