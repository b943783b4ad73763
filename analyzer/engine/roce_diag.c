/*
 * roce_diag.c - the list of findings (see roce_diag.h): subjects found in
 * report data only (the flows with their evidence, the MACs, the totals;
 * the capture's own faults: roce_diag_capture.c), joined when equal,
 * grouped into one finding per kind and cause, and ordered.
 *
 * ANALYSIS.md "Diagnoses": every kind has its severity, subject, condition
 * and count; the capture's finding comes first, then the findings it
 * explains, then the others by severity, count (descending) and first
 * evidence frame. The sentences: roce_diag_text.c.
 */
#include "roce_diag.h"

#include <stdlib.h>
#include <string.h>

#include "roce_diag_int.h"
#include "roce_keymap.h"
#include "roce_time.h"

#define PAUSED_MIN_NS ROCE_NS_PER_MS /* pauses shorter than this in all stall nothing long */

/* ---- subjects as they are found (their store: roce_diag_cand.c) ---- */

/* A subject about a flow (key) with its count and evidence frames, all
 * known before it is made: beyond a full bound it is only counted. */
static struct cand *flow_cand_frames(struct cands *cs, unsigned kind, unsigned cause,
                                     const struct roce_flow_key *key, uint64_t count,
                                     const uint64_t *frames, unsigned n)
{
    struct cand *x;
    if (roce_diag_cand_unlisted(cs, kind, cause, key, count, frames, n) ||
        (x = roce_diag_cand(cs, kind, cause)) == NULL)
        return NULL; /* beyond the bound: counted, no candidate (or out of memory) */
    x->s.flow = *key;
    x->s.count = count;
    roce_diag_take_frames(&x->s, frames, n);
    return x;
}

/* A subject about a flow (key), with the flow's evidence of kind. */
static struct cand *flow_cand(struct cands *cs, unsigned kind, unsigned cause,
                              const struct roce_flow_key *key, uint64_t count,
                              const struct roce_evidence *ev)
{
    if (ev == NULL)
        return flow_cand_frames(cs, kind, cause, key, count, NULL, 0);
    return flow_cand_frames(cs, kind, cause, key, count, ev->frame[kind],
                            ev->n[kind] < ROCE_EVIDENCE_MAX ? ev->n[kind] : ROCE_EVIDENCE_MAX);
}

/* The gaps of r of a class. */
static uint64_t gaps_of(const struct roce_flow_report *r, unsigned cls)
{
    return r->gap_class_gaps[cls];
}

/* Loss: network-loss gaps and the resends a NAK or a lost READ response
 * caused (packet_loss); gaps the capture missed (capture_loss, a note the
 * capture explains); resends after a timeout. */
static void loss_findings(struct cands *cs, const struct roce_diag_flow *df)
{
    const struct roce_flow_report *r = df->r;
    struct cand *x;
    uint64_t net = gaps_of(r, ROCE_GAP_NETWORK_LOSS);
    uint64_t nak_eps = r->by_trigger[ROCE_TRIGGER_NAK] + r->by_trigger[ROCE_TRIGGER_IMPLIED];
    if ((net || nak_eps) && (x = flow_cand(cs, ROCE_DIAG_PACKET_LOSS, ROCE_CAUSE_TRAFFIC, &r->key,
                                           net > nak_eps ? net : nak_eps, df->ev)) != NULL) {
        x->s.fig.gaps = net;
        x->s.fig.missing_psns = r->gap_class_psns[ROCE_GAP_NETWORK_LOSS];
        x->s.fig.nak_episodes = r->by_trigger[ROCE_TRIGGER_NAK];
        x->s.fig.implied_episodes = r->by_trigger[ROCE_TRIGGER_IMPLIED];
    }
    uint64_t missed = gaps_of(r, ROCE_GAP_CAPTURE_LOSS) + gaps_of(r, ROCE_GAP_CAPTURE_INFERRED);
    if (missed && (x = flow_cand(cs, ROCE_DIAG_CAPTURE_LOSS, ROCE_CAUSE_CAPTURE, &r->key, missed,
                                 df->ev)) != NULL) {
        x->s.fig.gaps = missed;
        x->s.fig.missing_psns =
            r->gap_class_psns[ROCE_GAP_CAPTURE_LOSS] + r->gap_class_psns[ROCE_GAP_CAPTURE_INFERRED];
        x->s.fig.inferred_gaps = gaps_of(r, ROCE_GAP_CAPTURE_INFERRED);
    }
    if (r->by_trigger[ROCE_TRIGGER_TIMEOUT] &&
        (x = flow_cand(cs, ROCE_DIAG_RETRANSMISSION_TIMEOUT, ROCE_CAUSE_TRAFFIC, &r->key,
                       r->by_trigger[ROCE_TRIGGER_TIMEOUT], df->ev)) != NULL)
        x->s.fig.timeout_episodes = r->by_trigger[ROCE_TRIGGER_TIMEOUT];
    if (r->reordered_packets && (x = flow_cand(cs, ROCE_DIAG_REORDERING, ROCE_CAUSE_TRAFFIC,
                                               &r->key, r->reordered_packets, df->ev)) != NULL) {
        x->s.fig.reordered = r->reordered_packets;
        x->s.fig.max_psns = r->reorder_max_psns;
        x->s.fig.max_ns = (uint64_t)(r->reorder_max_ns > 0 ? r->reorder_max_ns : 0);
    }
}

/* What the responder said: RNR NAKs and errors. NAKs travel B->A: their
 * request flow is the paired one (the NAK's own when unpaired). */
static void nak_findings(struct cands *cs, const struct roce_diag_flow *df)
{
    const struct roce_flow_report *r = df->r;
    const struct roce_flow_key *requester = df->peer != NULL ? df->peer : &r->key;
    struct cand *x;
    if (r->naks.rnr)
        flow_cand(cs, ROCE_DIAG_RNR, ROCE_CAUSE_TRAFFIC, requester, r->naks.rnr, df->ev);
    uint64_t errors = 0;
    for (unsigned c = ROCE_NAK_INVALID_REQUEST; c < ROCE_NAK_CODES; c++)
        errors += r->naks.code[c];
    if (errors && (x = flow_cand(cs, ROCE_DIAG_REMOTE_ERROR, ROCE_CAUSE_TRAFFIC, requester, errors,
                                 df->ev)) != NULL) {
        x->s.fig.invalid_request = r->naks.code[ROCE_NAK_INVALID_REQUEST];
        x->s.fig.remote_access_error = r->naks.code[ROCE_NAK_REMOTE_ACCESS_ERROR];
        x->s.fig.remote_other = r->naks.code[ROCE_NAK_REMOTE_OPERATIONAL_ERROR] +
                                r->naks.code[ROCE_NAK_INVALID_RD_REQUEST];
    }
}

/* Congestion: DCQCN ignored, CE marks without CNPs, CNPs without CE marks. */
static void ecn_findings(struct cands *cs, const struct roce_diag_flow *df,
                         const struct roce_config *cfg)
{
    const struct roce_flow_report *r = df->r;
    struct cand *x;
    if (r->dcqcn.tracked && r->dcqcn.verdict == ROCE_DCQCN_IGNORED &&
        (x = flow_cand(cs, ROCE_DIAG_CNP_IGNORED, ROCE_CAUSE_TRAFFIC, &r->key,
                       r->dcqcn.cnps_evaluated, df->ev)) != NULL) {
        x->s.fig.rate_before_mbps = r->dcqcn.rate_before_mbps;
        x->s.fig.rate_after_mbps = r->dcqcn.rate_after_mbps;
        x->s.fig.ratio_ppm = r->dcqcn.ratio_ppm;
    }
    if (r->ce_unanswered) {
        /* a NIC that answers none of at least ce_unanswered_min marks; else
         * marks left unanswered here and there (a finding once they add up
         * to ce_unanswered_min: min_total) */
        unsigned kind = r->ce_answered == 0 && r->ce_unanswered >= cfg->ce_unanswered_min
                            ? ROCE_DIAG_CE_UNANSWERED
                            : ROCE_DIAG_CE_SOME_UNANSWERED;
        if ((x = flow_cand(cs, kind, ROCE_CAUSE_TRAFFIC, &r->key,
                           kind == ROCE_DIAG_CE_UNANSWERED ? r->ce_marked : r->ce_unanswered,
                           df->ev)) != NULL) { /* frames: the marks (unanswered) */
            x->s.fig.ce_marked = r->ce_marked;
            x->s.fig.ce_answered = r->ce_answered;
            x->s.fig.ce_unanswered = r->ce_unanswered;
        }
    }
    if (r->cnps_carried_unexplained &&
        (x = flow_cand(cs, ROCE_DIAG_CNP_UNEXPLAINED, ROCE_CAUSE_TRAFFIC, &r->key,
                       r->cnps_carried_unexplained, df->ev)) != NULL) {
        x->s.fig.cnps = r->cnp_packets + r->becn_packets;
        x->s.fig.cnps_unexplained = r->cnps_carried_unexplained;
    }
    /* CNPs marked on their way (ANALYSIS.md "Priorities"): the marked CNPs */
    if (r->cnps_ce_marked && (x = flow_cand(cs, ROCE_DIAG_CNP_CONGESTED, ROCE_CAUSE_TRAFFIC,
                                            &r->key, r->cnps_ce_marked, df->ev)) != NULL) {
        x->s.fig.cnps = r->cnp_packets;
        x->s.fig.ce_marked = r->cnps_ce_marked;
    }
}

/* A connection whose two directions use different RoCE versions, named
 * once (from its request flow, or from the lower key when both carry
 * requests). */
static void gid_findings(struct cands *cs, const struct roce_diag_flow *df,
                         const struct roce_diag_flow *peer_df)
{
    const struct roce_flow_report *r = df->r;
    struct cand *x;
    if (df->peer == NULL || df->peer->version == r->key.version || r->request_packets == 0)
        return;
    if (peer_df != NULL && peer_df->r->request_packets != 0 &&
        memcmp(df->peer, &r->key, sizeof r->key) < 0)
        return; /* the peer names it */
    /* its evidence: its own, and the first frame of each end */
    uint64_t frames[ROCE_EVIDENCE_MAX] = {r->first_frame,
                                          peer_df != NULL ? peer_df->r->first_frame : 0};
    uint8_t n = roce_diag_join_frames(
        frames, 2, df->ev != NULL ? df->ev->frame[ROCE_DIAG_GID_TYPE_MISMATCH] : NULL,
        df->ev != NULL ? df->ev->n[ROCE_DIAG_GID_TYPE_MISMATCH] : 0);
    if ((x = flow_cand_frames(cs, ROCE_DIAG_GID_TYPE_MISMATCH, ROCE_CAUSE_TRAFFIC, &r->key, 1,
                              frames, n)) == NULL)
        return;
    x->s.peer = *df->peer;
    x->s.fig.request_version = r->key.version;
    x->s.fig.response_version = df->peer->version;
}

/* CNPs on a lower priority than the data of the request flow they throttle
 * (the flow they travel on is paired with it). Evidence: the frames the two
 * priorities were read from. */
static void cnp_priority_finding(struct cands *cs, const struct roce_diag_flow *df,
                                 const struct roce_diag_flow *req)
{
    const struct roce_flow_report *r = df->r;
    struct cand *x;
    if (r->cnp_priority_frame == 0 || req == NULL || req->r->priority_frame == 0 ||
        req->r->request_packets == 0 || r->cnp_priority >= req->r->priority)
        return;
    uint64_t frames[2] = {req->r->priority_frame, r->cnp_priority_frame};
    if ((x = flow_cand_frames(cs, ROCE_DIAG_CNP_PRIORITY, ROCE_CAUSE_TRAFFIC, &req->r->key,
                              r->cnp_packets, frames, 2)) == NULL)
        return;
    x->s.fig.cnps = r->cnp_packets;
    x->s.fig.priority = req->r->priority;
    x->s.fig.cnp_priority = r->cnp_priority;
}

/* A responder that answered every CE mark of a request flow with a CNP of
 * its own, at least ce_unanswered_min of them, two of them closer than
 * cnp_pacing_ns (ANALYSIS.md "CNP pacing"): df carries the CNPs, req is
 * the flow they throttle. Evidence: the CNPs that came too close. */
static void unpaced_finding(struct cands *cs, const struct roce_diag_flow *df,
                            const struct roce_diag_flow *req, const struct roce_config *cfg)
{
    const struct roce_flow_report *r = df->r;
    struct cand *x;
    if (r->cnp_gaps == 0 || r->cnp_min_gap_ns >= cfg->cnp_pacing_ns || req == NULL ||
        req->r->ce_marked < cfg->ce_unanswered_min || req->r->cnps_matched < req->r->ce_marked ||
        (x = flow_cand(cs, ROCE_DIAG_CNP_UNPACED, ROCE_CAUSE_TRAFFIC, &req->r->key, r->cnp_packets,
                       df->ev)) == NULL)
        return;
    x->s.fig.cnps = r->cnp_packets;
    x->s.fig.ce_marked = req->r->ce_marked;
    x->s.fig.min_gap_ns = (uint64_t)(r->cnp_min_gap_ns > 0 ? r->cnp_min_gap_ns : 0);
    x->s.fig.pair_min_gap_ns =
        (uint64_t)(r->cnp_pair_gaps && r->cnp_pair_min_gap_ns > 0 ? r->cnp_pair_min_gap_ns : 0);
}

/* A flow whose requests stopped with a host NIC's pause for another host
 * (ANALYSIS.md "Pause victims"): the XOFFs and the requests that resumed. */
static void victim_finding(struct cands *cs, const struct roce_diag_flow *df)
{
    const struct roce_flow_report *r = df->r;
    struct cand *x;
    if (r->hol_stalls == 0 || (x = flow_cand(cs, ROCE_DIAG_PAUSE_VICTIM, ROCE_CAUSE_TRAFFIC,
                                             &r->key, r->hol_stalls, df->ev)) == NULL)
        return;
    int64_t span = r->last_ts_ns - r->first_ts_ns;
    x->s.fig.stalls = r->hol_stalls;
    x->s.fig.stall_ns = (uint64_t)(r->hol_stall_ns > 0 ? r->hol_stall_ns : 0);
    x->s.fig.pause_stalls = r->pause_stalls;
    x->s.fig.pause_stall_ns = (uint64_t)(r->pause_stall_ns > 0 ? r->pause_stall_ns : 0);
    x->s.fig.span_ns = (uint64_t)(span > 0 ? span : 0);
}

static const struct roce_flow_key *diag_flow_key(const void *flows, size_t i)
{
    return &((const struct roce_diag_flow *)flows)[i].r->key;
}

/* The flow paired with df, found by key in an index of every flow made
 * when first needed: a table of a million flows without CNPs or mixed
 * versions never pays for it. NULL when unpaired (or out of memory:
 * cs->oom). */
struct peers {
    struct roce_keymap m;
    int made;
};

static const struct roce_diag_flow *peer_of(struct peers *p, struct cands *cs,
                                            const struct roce_diag_input *in,
                                            const struct roce_diag_flow *df)
{
    if (df->peer == NULL)
        return NULL;
    if (!p->made) {
        p->made = 1;
        if (roce_keymap_build(&p->m, in->flows, in->n_flows, diag_flow_key) != 0)
            cs->oom = 1;
    }
    size_t at = roce_keymap_find(&p->m, df->peer);
    return at != SIZE_MAX ? &in->flows[at] : NULL;
}

static void flow_findings(struct cands *cs, const struct roce_diag_input *in,
                          const struct roce_capture_judgement *j)
{
    struct peers peers = {{{NULL, 0, 0}, NULL, NULL}, 0};
    for (size_t i = 0; i < in->n_flows; i++) {
        const struct roce_diag_flow *df = &in->flows[i];
        const struct roce_flow_report *r = df->r;
        loss_findings(cs, df);
        nak_findings(cs, df);
        ecn_findings(cs, df, in->cfg);
        /* the findings that read the peer, when they may hold (each checks again) */
        const int mixed = df->peer != NULL && df->peer->version != r->key.version;
        const struct roce_diag_flow *peer_df =
            (mixed && r->request_packets) || r->cnp_priority_frame || r->cnp_gaps
                ? peer_of(&peers, cs, in, df)
                : NULL;
        gid_findings(cs, df, peer_df);
        cnp_priority_finding(cs, df, peer_df);
        unpaced_finding(cs, df, peer_df, in->cfg);
        uint64_t bad = r->bad_icrc -
                       (r->bad_icrc_rewritten < r->bad_icrc ? r->bad_icrc_rewritten : r->bad_icrc);
        if (bad)
            flow_cand(cs, ROCE_DIAG_ICRC_ERROR,
                      j->icrc_all_bad ? ROCE_CAUSE_CAPTURE : ROCE_CAUSE_TRAFFIC, &r->key, bad,
                      df->ev);
        if (r->psn_reuse)
            flow_cand(cs, ROCE_DIAG_PSN_REUSE, ROCE_CAUSE_TRAFFIC, &r->key, r->psn_reuse, df->ev);
        victim_finding(cs, df);
    }
    if (peers.made)
        roce_keymap_free(&peers.m);
}

static void mac_findings(struct cands *cs, const struct roce_diag_input *in)
{
    for (size_t i = 0; i < in->n_macs; i++) {
        const struct roce_host_mac *m = &in->macs[i];
        struct cand *x;
        if (m->pfc_frames + m->pause_frames == 0 || roce_host_mac_role(m) != ROCE_MAC_UNROUTED ||
            (x = roce_diag_cand(cs, ROCE_DIAG_SLOW_RECEIVER, ROCE_CAUSE_TRAFFIC)) == NULL)
            continue;
        memcpy(x->s.mac, m->mac, ROCE_MAC_LEN);
        memcpy(x->s.flow.src, m->addr, ROCE_ADDR_LEN);
        x->s.flow.version = m->version;
        x->s.flow.af = m->af;
        x->s.count = m->pfc_frames + m->pause_frames;
        roce_diag_take_frames(&x->s, m->frames,
                              m->n_frames < ROCE_EVIDENCE_MAX ? m->n_frames : ROCE_EVIDENCE_MAX);
        x->s.fig.pfc_frames = m->pfc_frames;
        x->s.fig.pause_frames = m->pause_frames;
        x->s.fig.ttl = m->ttl_max;
    }
}

/* Pause storms, and priorities paused a large share of the capture
 * without a storm window (a capture shorter than the storm window, or
 * pauses spread evenly). */
static void pfc_findings(struct cands *cs, const struct roce_totals *t,
                         const struct roce_config *cfg)
{
    int64_t span = t->last_ts_ns - t->first_ts_ns;
    for (unsigned p = 0; p <= ROCE_PFC_PRIORITIES; p++) {
        const struct roce_pfc_prio *q = p < ROCE_PFC_PRIORITIES ? &t->pfc.prio[p] : &t->pfc.pause;
        struct cand *x;
        unsigned kind;
        if (q->storm_windows)
            kind = ROCE_DIAG_PFC_STORM;
        else if (q->xoff && span > 0 && q->paused_ns >= PAUSED_MIN_NS &&
                 (uint64_t)q->paused_ns * 100u >= (uint64_t)span * cfg->pfc_paused_pct)
            kind = ROCE_DIAG_PFC_PAUSED;
        else
            continue;
        if ((x = roce_diag_cand(cs, kind, ROCE_CAUSE_TRAFFIC)) == NULL)
            continue;
        x->s.priority = (uint8_t)p;
        x->s.count = kind == ROCE_DIAG_PFC_STORM ? q->storm_windows : q->xoff;
        x->s.fig.paused_ns = (uint64_t)q->paused_ns;
        x->s.fig.span_ns = (uint64_t)(span > 0 ? span : 0);
        x->s.fig.pfc_frames = q->xoff;
        /* a storm's evidence: the XOFF frames of its windows; else the first XOFFs */
        const struct roce_pfc_storm_frames *ev =
            kind == ROCE_DIAG_PFC_STORM ? &t->storm_frames : &t->xoff_frames;
        roce_diag_take_frames(&x->s, ev->frame[p],
                              ev->n[p] < ROCE_EVIDENCE_MAX ? ev->n[p] : ROCE_EVIDENCE_MAX);
    }
}

/* The priority paused most (the most XOFF frames, the lowest first), or
 * ROCE_PFC_PRIORITIES when none was. */
static unsigned most_paused(const struct roce_totals *t)
{
    unsigned best = ROCE_PFC_PRIORITIES;
    for (unsigned p = 0; p < ROCE_PFC_PRIORITIES; p++)
        if (t->pfc.prio[p].xoff &&
            (best == ROCE_PFC_PRIORITIES || t->pfc.prio[p].xoff > t->pfc.prio[best].xoff))
            best = p;
    return best;
}

/* RoCE data on a priority that no PFC frame ever paused while another was
 * paused (ANALYSIS.md "Priorities"): a request flow's priority, its CM
 * datagrams (QP 1) left out. Evidence: the frame its priority was read
 * from, and the first XOFF of the paused priority. */
static void lossy_findings(struct cands *cs, const struct roce_diag_input *in)
{
    const struct roce_totals *t = in->t;
    unsigned paused = most_paused(t);
    if (paused == ROCE_PFC_PRIORITIES || t->pfc.pause.xoff != 0) /* link PAUSE stops them all */
        return;
    for (size_t i = 0; i < in->n_flows; i++) {
        const struct roce_flow_report *r = in->flows[i].r;
        struct cand *x;
        if (r->request_packets == 0 || r->priority_frame == 0 || r->key.dqpn == ROCE_QPN_GSI ||
            r->priority >= ROCE_PFC_PRIORITIES || t->pfc.prio[r->priority].xoff != 0 ||
            (x = roce_diag_cand(cs, ROCE_DIAG_LOSSY_PRIORITY, ROCE_CAUSE_TRAFFIC)) == NULL)
            continue;
        x->s.priority = r->priority;
        x->s.count = r->request_packets;
        x->s.fig.requests = r->request_packets;
        x->s.fig.flows = 1;
        x->s.fig.paused_priority = paused;
        uint64_t frames[2] = {r->priority_frame,
                              t->xoff_frames.n[paused] ? t->xoff_frames.frame[paused][0] : 0};
        roce_diag_take_frames(&x->s, frames, frames[1] ? 2 : 1);
    }
}

/* Receivers that had --incast-senders senders at once while their traffic
 * was CE marked, paused or lost (ANALYSIS.md "Incast"): the figures and
 * frames of each one's worst such episode, its count those episodes. */
static void incast_findings(struct cands *cs, const struct roce_totals *t,
                            const struct roce_config *cfg)
{
    for (unsigned i = 0; i < t->incast.n && i < ROCE_INCAST_LISTED; i++) {
        const struct roce_incast_receiver *r = &t->incast.r[i];
        struct cand *x;
        const struct roce_incast_episode *w = &r->worst;
        if (r->flagged == 0 || !w->flagged ||
            (x = roce_diag_cand(cs, ROCE_DIAG_INCAST, ROCE_CAUSE_TRAFFIC)) == NULL)
            continue;
        memcpy(x->s.flow.dst, r->addr, ROCE_ADDR_LEN);
        x->s.flow.af = r->af;
        x->s.flow.version = r->version;
        x->s.count = r->flagged;
        x->s.fig.fanin = w->fanin;
        x->s.fig.senders = w->senders;
        x->s.fig.ce_marked = r->ce_marked;
        x->s.fig.pauses = r->paused;
        x->s.fig.lost = r->lost;
        /* unsigned: a report read back may hold any two times */
        uint64_t span = w->end_ns > w->start_ns ? (uint64_t)w->end_ns - (uint64_t)w->start_ns : 0;
        x->s.fig.rate_mbps = span ? w->bytes * 8u * 1000u / span : 0; /* bits per ns x 1000: Mb/s */
        x->s.fig.link_speed_mbps = cfg->link_speed_mbps;
        x->s.n_senders = w->n_named < ROCE_DIAG_MAX_SENDERS ? w->n_named : ROCE_DIAG_MAX_SENDERS;
        memcpy(x->s.senders, w->named, (size_t)x->s.n_senders * ROCE_ADDR_LEN);
        roce_diag_take_frames(&x->s, w->frames,
                              w->n_frames < ROCE_EVIDENCE_MAX ? w->n_frames : ROCE_EVIDENCE_MAX);
    }
}

/* ---- joining, grouping, ordering ---- */

static int cmp_group(const void *pa, const void *pb)
{
    const struct cand *a = pa, *b = pb;
    int c = roce_diag_cmp_u(a->kind, b->kind);
    if (c == 0)
        c = roce_diag_cmp_u(a->cause, b->cause);
    if (c == 0)
        c = roce_diag_cmp_subject(&a->s, &b->s);
    return c;
}

/* Figures add up when one subject appears twice (a merged report may hold
 * a flow twice); rates, ratios and versions are kept from the first. */
static void add_figures(struct roce_diag_figures *d, const struct roce_diag_figures *s)
{
    d->gaps += s->gaps;
    d->missing_psns += s->missing_psns;
    d->inferred_gaps += s->inferred_gaps;
    d->undetermined_gaps += s->undetermined_gaps;
    d->nak_episodes += s->nak_episodes;
    d->implied_episodes += s->implied_episodes;
    d->timeout_episodes += s->timeout_episodes;
    d->invalid_request += s->invalid_request;
    d->remote_access_error += s->remote_access_error;
    d->remote_other += s->remote_other;
    d->ce_marked += s->ce_marked;
    d->ce_answered += s->ce_answered;
    d->ce_unanswered += s->ce_unanswered;
    d->cnps += s->cnps;
    d->cnps_unexplained += s->cnps_unexplained;
    d->pfc_frames += s->pfc_frames;
    d->pause_frames += s->pause_frames;
    d->reordered += s->reordered;
    d->requests += s->requests;
    d->stalls += s->stalls;
    d->stall_ns += s->stall_ns;
    d->pause_stalls += s->pause_stalls;
    d->pause_stall_ns += s->pause_stall_ns;
    d->flows += s->flows;
    if (s->max_psns > d->max_psns)
        d->max_psns = s->max_psns;
    if (s->max_ns > d->max_ns)
        d->max_ns = s->max_ns;
    d->pauses += s->pauses;
    d->lost += s->lost;
    if (s->fanin > d->fanin) /* an incast's worst episode: the one with the most senders */
        d->fanin = s->fanin;
}

/* The findings' order: the capture first, the findings it explains next,
 * then severity, count (descending), first frame, kind. */
static int rank(const struct roce_diagnosis *d)
{
    return d->kind == ROCE_DIAG_CAPTURE ? 0 : d->cause == ROCE_CAUSE_CAPTURE ? 1 : 2;
}

static int cmp_order(const void *pa, const void *pb)
{
    const struct roce_diagnosis *a = pa, *b = pb;
    int c = rank(a) - rank(b);
    if (c == 0)
        c = roce_diag_cmp_u(a->severity, b->severity);
    if (c == 0)
        c = -roce_diag_cmp_u(a->count, b->count);
    if (c == 0)
        c = roce_diag_cmp_u(roce_diag_first_frame(a->frames, a->n_frames),
                            roce_diag_first_frame(b->frames, b->n_frames));
    if (c == 0)
        c = roce_diag_cmp_u(a->kind, b->kind);
    if (c == 0)
        c = roce_diag_cmp_u(a->cause, b->cause);
    return c;
}

/* qsort's orders of candidate pointers: ties (equal subjects) in the order
 * found, the pointers' order, as a stable sort would leave them. */
static int cmp_ptr(const struct cand *a, const struct cand *b)
{
    return (a > b) - (a < b);
}

static int cmp_group_p(const void *pa, const void *pb)
{
    const struct cand *a = *(const struct cand *const *)pa, *b = *(const struct cand *const *)pb;
    int c = cmp_group(a, b);
    return c ? c : cmp_ptr(a, b);
}

static int cmp_worst_p(const void *pa, const void *pb)
{
    const struct cand *a = *(const struct cand *const *)pa, *b = *(const struct cand *const *)pb;
    int c = roce_diag_cmp_worst(a, b);
    return c ? c : cmp_ptr(a, b);
}

/* Equal subjects joined: counts and figures add, frames join; p holds a
 * pointer to each of cs's candidates and is left with the n joined
 * (pointers are sorted, not the candidates: a subject is hundreds of
 * bytes, and a large table has one per flow). */
static size_t join_equal(const struct cands *cs, struct cand **p)
{
    size_t n = 0;
    for (size_t i = 0; i < cs->n; i++)
        p[i] = &cs->c[i];
    if (cs->n > 1)
        qsort(p, cs->n, sizeof *p, cmp_group_p);
    for (size_t i = 0; i < cs->n; i++) {
        if (n > 0 && cmp_group(p[n - 1], p[i]) == 0) {
            struct roce_diag_subject *d = &p[n - 1]->s;
            d->count += p[i]->s.count;
            add_figures(&d->fig, &p[i]->s.fig);
            roce_diag_take_frames(d, p[i]->s.frames, p[i]->s.n_frames);
        } else {
            p[n++] = p[i];
        }
    }
    return n;
}

/* The least count a finding of kind needs, its subjects added: marks and
 * CNPs that miss their match here and there count once they add up. */
static uint64_t min_total(unsigned kind, const struct roce_config *cfg)
{
    switch (kind) {
    case ROCE_DIAG_CE_SOME_UNANSWERED:
        return cfg->ce_unanswered_min;
    case ROCE_DIAG_CNP_UNEXPLAINED:
        return cfg->cnp_unexplained_min;
    default:
        return 1;
    }
}

/* Drop the subjects of the findings whose total (with the subjects
 * counted beyond the bound) stays below min_total. */
static size_t drop_small(const struct cands *cs, struct cand **p, size_t n,
                         const struct roce_config *cfg)
{
    size_t kept = 0;
    for (size_t i = 0, end; i < n; i = end) {
        uint64_t total = cs->bound[p[i]->kind][p[i]->cause].unlisted_count;
        for (end = i; end < n && p[end]->kind == p[i]->kind && p[end]->cause == p[i]->cause; end++)
            total += p[end]->s.count;
        if (total < min_total(p[i]->kind, cfg))
            continue;
        memmove(&p[kept], &p[i], (end - i) * sizeof *p);
        kept += end - i;
    }
    return kept;
}

/* The subjects of p[0..n-1] (each a candidate of cs), in that order, in
 * the memory of cs's candidates, which they take (cs->c is NULL after):
 * each candidate moves once, into its place, then each subject moves down
 * over its candidate (a subject is the candidate without its kind and
 * cause): no second array of them, whose fresh pages a table of a million
 * troubled flows would pay for. NULL when out of memory (cs unchanged). */
static struct roce_diag_subject *subjects_in_place(struct cands *cs, struct cand *const *p,
                                                   size_t n)
{
    const size_t total = cs->n, done = SIZE_MAX;
    size_t *from = malloc((total ? total : 1) * sizeof *from); /* new[i] = old[from[i]] */
    uint8_t *taken = calloc(total ? total : 1, 1);
    struct cand *c = cs->c;
    if (from == NULL || taken == NULL) {
        free(from);
        free(taken);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        from[i] = (size_t)(p[i] - c);
        taken[from[i]] = 1;
    }
    for (size_t i = 0, k = n; i < total; i++) /* the dropped: after, in any order */
        if (!taken[i])
            from[k++] = i;
    free(taken);
    for (size_t i = 0; i < total; i++) { /* each cycle of the permutation */
        if (from[i] == done || from[i] == i)
            continue;
        struct cand tmp = c[i];
        for (size_t j = i;;) {
            size_t k = from[j];
            from[j] = done;
            if (k == i) {
                c[j] = tmp;
                break;
            }
            c[j] = c[k];
            j = k;
        }
    }
    free(from);
    struct roce_diag_subject *s = (struct roce_diag_subject *)(void *)c;
    for (size_t i = 0; i < n; i++) /* subject i ends before candidate i + 1 begins */
        memmove(&s[i], &c[i].s, sizeof *s);
    struct roce_diag_subject *shrunk = realloc(s, (n ? n : 1) * sizeof *s);
    cs->c = NULL;
    cs->n = cs->cap = 0;
    return shrunk != NULL ? shrunk : s;
}

/* The candidates p (joined) into findings: one per kind and cause. */
static int group(struct cands *cs, struct cand **p, size_t n, struct roce_diag_list *out,
                 const struct roce_config *cfg)
{
    size_t nd = 0;
    if (n > 1)
        qsort(p, n, sizeof *p, cmp_worst_p);
    n = drop_small(cs, p, n, cfg);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || p[i]->kind != p[i - 1]->kind || p[i]->cause != p[i - 1]->cause)
            nd++;
    out->d = calloc(nd ? nd : 1, sizeof *out->d);
    if (out->d == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        struct roce_diagnosis *d;
        if (i == 0 || p[i]->kind != p[i - 1]->kind || p[i]->cause != p[i - 1]->cause) {
            d = &out->d[out->n++];
            d->kind = p[i]->kind;
            d->cause = p[i]->cause;
            d->severity =
                (uint8_t)(d->cause == ROCE_CAUSE_CAPTURE ? ROCE_SEV_NOTE
                                                         : roce_diag_kind_severity(d->kind));
            d->first_subject = i;
            const struct cand_bound *b = &cs->bound[d->kind][d->cause];
            d->n_unlisted = b->unlisted;
            d->count = b->unlisted_count;
            d->n_frames = b->n_frames;
            memcpy(d->frames, b->frames, sizeof d->frames);
        }
        d = &out->d[out->n - 1];
        d->n_subjects++;
        d->count += p[i]->s.count;
        d->n_frames =
            roce_diag_join_frames(d->frames, d->n_frames, p[i]->s.frames, p[i]->s.n_frames);
    }
    out->n_subjects = n;
    if ((out->subjects = subjects_in_place(cs, p, n)) == NULL)
        return -1;
    if (out->n > 1) {
        /* findings move: their subjects stay where they are, named by index */
        qsort(out->d, out->n, sizeof *out->d, cmp_order);
    }
    return 0;
}

int roce_diag_same(const struct roce_diagnosis *a, const struct roce_diagnosis *b)
{
    return a->kind == b->kind && a->cause == b->cause;
}

void roce_diag_list_free(struct roce_diag_list *l)
{
    if (!l->borrowed) {
        free(l->d);
        free(l->subjects);
    }
    memset(l, 0, sizeof *l);
}

int roce_diagnose(const struct roce_diag_input *in, struct roce_diag_list *out)
{
    struct cands cs;
    struct roce_capture_judgement j;

    memset(&cs, 0, sizeof cs);
    cs.limit = in->subject_limit;
    memset(out, 0, sizeof *out);
    roce_diag_judge(in, &j);
    roce_diag_capture_findings(&cs, in, &j);
    flow_findings(&cs, in, &j);
    mac_findings(&cs, in);
    if (in->t != NULL) {
        pfc_findings(&cs, in->t, in->cfg);
        lossy_findings(&cs, in);
        incast_findings(&cs, in->t, in->cfg);
    }
    if (!j.sport_rewritten)
        roce_diag_ecmp_findings(&cs, in);
    roce_diag_cands_settle(&cs);
    struct cand **p = cs.oom ? NULL : malloc((cs.n ? cs.n : 1) * sizeof *p);
    if (p == NULL || group(&cs, p, join_equal(&cs, p), out, in->cfg) != 0) {
        free(p);
        roce_diag_cands_free(&cs);
        roce_diag_list_free(out);
        return -1;
    }
    free(p);
    roce_diag_cands_free(&cs);
    out->cfg = *in->cfg;
    roce_diag_text(out);
    return 0;
}
