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
 */
#include "report.h"

#include "report_fields.h"

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
static int merge_flows(struct roce_report *dst, const struct roce_report *src, uint64_t frame_off,
                       uint64_t id_off)
{
    for (size_t i = 0; i < src->n_flows; i++) {
        const struct roce_report_flow *sx = &src->flow_x[i];
        struct roce_flow_report *f = roce_report_add_flow(dst);
        if (f == NULL)
            return -1;
        struct roce_report_flow *x = &dst->flow_x[dst->n_flows - 1];
        *f = src->flows[i];
        roce_fields_renumber(&roce_flow_fields, f, frame_off, id_off);
        x->peer = sx->peer;
        x->has_peer = sx->has_peer;
        for (unsigned k = 0; k < ROCE_LATENCY_KINDS; k++)
            if (roce_lat_copy(&x->lat[k].own, roce_report_lat_get(&sx->lat[k])) != 0)
                return -1;
        if (sx->ev != NULL) {
            struct roce_evidence *ev = roce_report_flow_ev(dst, dst->n_flows - 1);
            if (ev == NULL)
                return -1;
            roce_evidence_merge(ev, sx->ev, frame_off);
        }
    }
    return 0;
}

/* src's MACs folded into dst's, and its PFC storm frames after dst's. 0 or -1. */
static int merge_macs(struct roce_report *dst, const struct roce_report *src, uint64_t frame_off)
{
    struct roce_pfc_storm_frames *d = &dst->t.storm_frames;
    const struct roce_pfc_storm_frames *s = &src->t.storm_frames;
    for (unsigned p = 0; p <= ROCE_PFC_PRIORITIES; p++)
        for (unsigned i = 0; i < s->n[p] && d->n[p] < ROCE_EVIDENCE_MAX; i++)
            d->frame[p][d->n[p]++] = s->frame[p][i] + frame_off;
    for (size_t i = 0; i < src->n_macs; i++)
        if (roce_report_merge_mac(dst, &src->macs[i], frame_off) != 0)
            return -1;
    return 0;
}

/* src's episodes after dst's, as long as the joint list has room
 * (cfg.max_episodes); the others are counted as unlisted. */
static int merge_episodes(struct roce_report *dst, const struct roce_report *src,
                          uint64_t frame_off, uint64_t id_off)
{
    for (size_t i = 0; i < src->n_episodes; i++) {
        if (dst->n_episodes >= dst->cfg->max_episodes) {
            dst->t.episodes_unlisted++;
            continue;
        }
        struct roce_episode *ep = roce_report_add_episode(dst);
        if (ep == NULL)
            return -1;
        *ep = src->episodes[i];
        roce_fields_renumber(&roce_episode_fields, ep, frame_off, id_off);
    }
    return 0;
}

int roce_report_merge(struct roce_report *dst, const struct roce_report *src)
{
    const uint64_t frame_off = dst->t.packets, id_off = dst->t.flows_created;

    if (dst->n_files == 0 && src->cfg != NULL)
        dst->own.cfg = *src->cfg;
    for (size_t i = 0; i < src->n_files; i++)
        if (roce_report_add_file(dst, src->files[i]) != 0)
            return -1;
    if ((dst->link_type == NULL && roce_report_set_link_type(dst, src->link_type) != 0) ||
        (dst->error == NULL && roce_report_set_error(dst, src->error) != 0))
        return -1;
    /* the rule of the joint run (analysis.c): src begins before dst's latest time */
    if (src->files_overlap ||
        (dst->t.packets && src->t.packets && src->t.first_ts_ns < dst->t.last_ts_ns))
        dst->files_overlap = 1;
    roce_fields_merge_totals(&dst->t, &src->t);
    for (const struct roce_field *f = roce_report_fields.f;
         f < roce_report_fields.f + roce_report_fields.n; f++)
        if (f->merge == ROCE_MERGE_SUMMARY &&
            merge_lat(&dst->lat[f->arg], &src->lat[f->arg],
                      (struct roce_lat_summary *)(void *)((char *)&dst->t + f->off)) != 0)
            return -1;
    if (merge_flows(dst, src, frame_off, id_off) != 0 ||
        merge_episodes(dst, src, frame_off, id_off) != 0 || merge_macs(dst, src, frame_off) != 0)
        return -1;
    for (size_t i = 0; i < src->n_conns; i++) {
        struct roce_report_conn *c = roce_report_add_conn(dst);
        if (c == NULL)
            return -1;
        *c = src->conns[i];
        roce_fields_renumber(&roce_conn_fields, c, frame_off, id_off);
    }
    return 0;
}
