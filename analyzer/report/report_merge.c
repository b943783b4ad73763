/*
 * report_merge.c - one report from the reports of captures read one after
 * the other (see report.h, README "Many files").
 *
 * The merged report is what one engine reading all the captures in order
 * gives when no flow spans two captures: the frames of a capture are
 * numbered on after the packets of those before it, its flow ids after
 * their flows_created (every flow created counts, also those CM created
 * without packets), counts add up, and the latency distributions merge
 * (roce_lat_merge), so merged percentiles are those of the joint
 * distribution. The first capture gives the first time, the last one the
 * last time. What cannot be exact (a flow table or verdict queue that
 * would have filled up jointly, PFC storm windows, which are counted per
 * capture) is listed in the README.
 */
#include "report.h"

#include <stddef.h>
#include <string.h>

/* The totals that add up are two runs of 8-byte counters: from packets to
 * cnps_unexplained, and from cm_messages to the end of the PFC report
 * (whose paused_ns, an int64_t, adds up the same way). The summaries and
 * the times in between are merged apart. */
#define SUM_RUN1_FIRST offsetof(struct roce_totals, packets)
#define SUM_RUN1_END   offsetof(struct roce_totals, cnp_latency)
#define SUM_RUN2_FIRST offsetof(struct roce_totals, cm_messages)
#define SUM_RUN2_END   offsetof(struct roce_totals, first_ts_ns)
_Static_assert(offsetof(struct roce_totals, cnps_unexplained) + sizeof(uint64_t) == SUM_RUN1_END,
               "run 1 ends with cnps_unexplained");
_Static_assert(offsetof(struct roce_totals, ack_latency) + sizeof(struct roce_lat_summary) ==
                   SUM_RUN2_FIRST,
               "run 2 starts after the summaries");
_Static_assert(offsetof(struct roce_totals, pfc) + sizeof(struct roce_pfc_report) == SUM_RUN2_END,
               "run 2 ends with the PFC report");
_Static_assert(sizeof(struct roce_pfc_report) % sizeof(uint64_t) == 0 &&
                   sizeof(struct roce_pfc_prio) == 6 * sizeof(uint64_t),
               "the PFC report is made of 8-byte counters");

/* Add the 8-byte counters of src in [first, end) to dst's. */
static void sum_run(struct roce_totals *dst, const struct roce_totals *src, size_t first,
                    size_t end)
{
    for (size_t off = first; off < end; off += sizeof(uint64_t)) {
        uint64_t a, b;
        memcpy(&a, (const char *)dst + off, sizeof a);
        memcpy(&b, (const char *)src + off, sizeof b);
        a += b;
        memcpy((char *)dst + off, &a, sizeof a);
    }
}

/* dst's totals plus src's: the counts add up, the first time is the first
 * capture's, the last time the last capture's (with packets). */
static void merge_totals(struct roce_totals *dst, const struct roce_totals *src)
{
    if (dst->packets == 0)
        dst->first_ts_ns = src->first_ts_ns;
    if (src->packets != 0)
        dst->last_ts_ns = src->last_ts_ns;
    sum_run(dst, src, SUM_RUN1_FIRST, SUM_RUN1_END);
    sum_run(dst, src, SUM_RUN2_FIRST, SUM_RUN2_END);
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

/* A frame number (0: none) numbered on after offset frames. */
static void shift_frame(uint64_t *frame, uint64_t offset)
{
    if (*frame)
        *frame += offset;
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
        f->id += id_off;
        if (f->peer_id)
            f->peer_id += id_off;
        shift_frame(&f->first_frame, frame_off);
        shift_frame(&f->last_frame, frame_off);
        x->peer = sx->peer;
        x->has_peer = sx->has_peer;
        for (unsigned k = 0; k < ROCE_LATENCY_KINDS; k++)
            if (roce_lat_copy(&x->lat[k].own, roce_report_lat_get(&sx->lat[k])) != 0)
                return -1;
    }
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
        ep->flow_id += id_off;
        shift_frame(&ep->first_frame, frame_off);
        shift_frame(&ep->last_frame, frame_off);
        shift_frame(&ep->nak_frame, frame_off);
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
    merge_totals(&dst->t, &src->t);
    if (merge_lat(&dst->lat[ROCE_LATENCY_ACK], &src->lat[ROCE_LATENCY_ACK], &dst->t.ack_latency) ||
        merge_lat(&dst->lat[ROCE_LATENCY_CNP], &src->lat[ROCE_LATENCY_CNP], &dst->t.cnp_latency))
        return -1;
    if (merge_flows(dst, src, frame_off, id_off) != 0 ||
        merge_episodes(dst, src, frame_off, id_off) != 0)
        return -1;
    for (size_t i = 0; i < src->n_conns; i++) {
        struct roce_report_conn *c = roce_report_add_conn(dst);
        if (c == NULL)
            return -1;
        *c = src->conns[i];
    }
    return 0;
}
