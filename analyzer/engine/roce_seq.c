/*
 * roce_seq.c - PSN analysis: gaps, retransmissions, go-back-N episodes and
 * their triggers, NAKs, PSN reuse, ACK latency and PSN-based pairing (the
 * spans of RDMA READs, their responses and the PMTU: roce_read.c).
 *
 * Definitions: ANALYSIS.md ("PSN analysis": expected PSN, gap,
 * retransmission, go-back-N episode; "RDMA READ": span; "NAKs and ACKs").
 * PSN rules:
 * IBTA Vol. 1 9.7.1 (PSN), 9.7.5.1.5 (READ responses use one PSN each),
 * 9.7.5.2 (coalesced ACKs, NAK carries the expected PSN).
 *
 * State per request flow: the highest PSN used (the last PSN of the span of
 * the latest new request), recent READ spans, NAKs the paired flow sent for
 * these requests, and a sample of outstanding AckReq requests.
 */
#include "roce_seq.h"

#include <stdlib.h>
#include <string.h>

#include "roce_caploss.h"
#include "roce_internal.h"
#include "roce_psn.h"
#include "roce_read.h"
#include "roce_reqlog.h"
#include "roce_verdq.h"

#define PAIR_MAX_CANDIDATES 256u      /* unpaired request flows examined per response */
#define PAIR_READ_REACH     (1 << 20) /* PSNs a READ of unknown span may reach */

/* ---- helpers ---- */

/* A new entry in the episode log (*index_plus_one names it), or NULL when
 * the log is full or out of memory: the episode is then counted, not listed. */
static struct roce_episode *episode_new(struct roce_engine *e, uint32_t *index_plus_one)
{
    *index_plus_one = 0;
    if (e->n_episodes >= e->cfg.max_episodes) {
        e->totals.episodes_unlisted++;
        return NULL;
    }
    if (e->n_episodes == e->cap_episodes) {
        uint32_t n = e->cap_episodes ? e->cap_episodes * 2 : 256;
        if (n > e->cfg.max_episodes)
            n = e->cfg.max_episodes;
        struct roce_episode *ne = realloc(e->episodes, (size_t)n * sizeof *ne);
        if (ne == NULL) {
            e->alloc_failures++;
            e->totals.episodes_unlisted++;
            return NULL;
        }
        e->episodes = ne;
        e->cap_episodes = n;
    }
    struct roce_episode *ep = &e->episodes[e->n_episodes++];
    memset(ep, 0, sizeof *ep);
    *index_plus_one = e->n_episodes;
    return ep;
}

void roce_seq_drop_naks(struct roce_engine *e, struct nak_ring *ring)
{
    for (unsigned i = 0; i < ring->count; i++)
        if (!ring->recs[i].used)
            roce_vq_done(e, ring->recs[i].vq_seq, ring->recs[i].frame);
    memset(ring, 0, sizeof *ring);
}

void roce_seq_reset(struct roce_engine *e, struct roce_flow *f)
{
    struct roce_flow_cold *c = roce_flow_cold(f);
    struct read_ring *reads = c->req.reads;
    uint8_t dcqcn_open = f->req.dcqcn_open; /* roce_dcqcn.c's, not the PSN history */
    roce_seq_drop_naks(e, &c->req.naks);
    roce_caploss_forget(e, f);
    if (f->req.have) /* the report keeps the highest PSN used (see roce_seq_request) */
        c->report.last_psn = f->req.highest;
    memset(&f->req, 0, sizeof f->req);
    memset(&c->req, 0, sizeof c->req);
    f->log_last = 0;
    f->last_sport = 0;
    f->req.dcqcn_open = dcqcn_open;
    if (reads != NULL) {
        memset(reads, 0, sizeof *reads);
        c->req.reads = reads;
    }
}

/* Add a NAK to a ring; one pushed out unused will not be annotated. */
static void nak_push(struct roce_engine *e, struct nak_ring *ring, const struct nak_rec *n)
{
    struct nak_rec *slot = &ring->recs[ring->head];
    if (ring->count == NAK_RING && !slot->used)
        roce_vq_done(e, slot->vq_seq, slot->frame);
    *slot = *n;
    ring->head = (uint8_t)((ring->head + 1) % NAK_RING);
    if (ring->count < NAK_RING)
        ring->count++;
}

/* The recovery breakdown's first part (ANALYSIS.md "Recovery breakdown"):
 * from the out-of-sequence arrival that made the responder send NAK n (the
 * earliest request of x captured before it with a PSN after n's) to n.
 * Into n and, when given, its verdict v. */
static void nak_generation(struct roce_engine *e, const struct roce_flow *x, struct nak_rec *n,
                           struct roce_verdict *v)
{
    int64_t t;
    if (n->type != ROCE_TRIGGER_NAK || n->has_gen ||
        !roce_reqlog_first_after(e, x, n->psn, n->ts, &t))
        return;
    n->has_gen = 1;
    n->gen_ns = n->ts - t;
    roce_hist_add(&e->hist[ROCE_HIST_NAK_GENERATION], ROCE_HIST_NAK_GENERATION, n->gen_ns);
    if (v != NULL) {
        v->has_nak_generation = 1;
        v->nak_generation_ns = n->gen_ns;
    }
}

/* Move the unused NAKs of from (oldest first) into the NAKs of request flow
 * to, which they now concern. */
static void nak_move(struct roce_engine *e, struct nak_ring *from, struct roce_flow *to)
{
    for (unsigned i = from->count; i > 0; i--) {
        struct nak_rec *n = &from->recs[(from->head + NAK_RING - i) % NAK_RING];
        if (n->used)
            continue;
        nak_generation(e, to, n, roce_vq_get(e, n->vq_seq, n->frame));
        roce_caploss_nak(e, to, n->psn, n->frame, n->type == ROCE_TRIGGER_RNR);
        nak_push(e, &roce_flow_cold(to)->req.naks, n);
    }
    memset(from, 0, sizeof *from);
}

void roce_seq_adopt_naks(struct roce_engine *e, struct roce_flow *a, struct roce_flow *b)
{
    nak_move(e, &roce_flow_cold(b)->orphan_naks, a);
    nak_move(e, &roce_flow_cold(a)->orphan_naks, b);
}

/* ---- requests ---- */

static void new_request(struct roce_engine *e, struct roce_flow *f, const struct roce_pkt *pkt,
                        uint64_t frame, int64_t ts)
{
    struct req_hot *rq = &f->req;
    rq->in_episode = 0;
    rq->read_pending = 0;
    if (rq->read_frame) { /* the cold record only when there is something to clear */
        roce_flow_cold(f)->req.last_read_frame = 0;
        rq->read_frame = 0;
    }
    rq->highest = pkt->psn;
    e->cur_new = 1; /* its time and frame: the flow's latest (analyse) */
    if (pkt->op->flags & ROCE_OPF_READ_REQ)
        roce_read_push(e, f, pkt, frame, 1);
    if (pkt->ackreq && rq->ack_n < ACKREQ_RING) {
        struct req_state *rc = &roce_flow_cold(f)->req;
        struct ackreq_rec *a = &rc->ackreq[(rc->ack_head + rq->ack_n) % ACKREQ_RING];
        a->psn = pkt->psn;
        a->ts = ts;
        rq->ack_n++;
    }
}

/* The newest unused NAK of a type for psn, not older than the horizon. */
static struct nak_rec *find_nak(struct roce_engine *e, struct req_state *rc, uint32_t psn,
                                uint8_t type, int64_t ts)
{
    for (unsigned i = 1; i <= rc->naks.count; i++) {
        struct nak_rec *n = &rc->naks.recs[(rc->naks.head + NAK_RING - i) % NAK_RING];
        if (!n->used && n->type == type && n->psn == psn && ts - n->ts <= e->cfg.nak_horizon_ns)
            return n;
    }
    return NULL;
}

/* An episode began at frame: every unused NAK for its PSN is spent on it. */
static void consume_naks(struct roce_engine *e, struct req_state *rc, uint32_t psn, uint64_t frame)
{
    for (unsigned i = 0; i < rc->naks.count; i++) {
        struct nak_rec *n = &rc->naks.recs[i];
        if (n->used || n->psn != psn)
            continue;
        n->used = 1;
        struct roce_verdict *nv = roce_vq_get(e, n->vq_seq, n->frame);
        if (nv != NULL) {
            nv->flags |= ROCE_V_NAK_RESENT;
            nv->retransmitted_in = frame;
        }
        roce_vq_done(e, n->vq_seq, n->frame);
    }
}

static void start_episode(struct roce_engine *e, struct roce_flow *f, const struct roce_pkt *pkt,
                          struct roce_verdict *v)
{
    struct req_state *rc = &roce_flow_cold(f)->req;
    uint32_t psn = pkt->psn;
    unsigned trig = ROCE_TRIGGER_TIMEOUT;
    struct nak_rec *nak = find_nak(e, rc, psn, ROCE_TRIGGER_NAK, v->ts_ns);

    if (nak == NULL)
        nak = find_nak(e, rc, psn, ROCE_TRIGGER_RNR, v->ts_ns);
    roce_caploss_resend(e, f, psn, v->frame);
    if (nak != NULL) {
        trig = nak->type;
        v->nak_frame = nak->frame;
        v->nak_to_resend_ns = v->ts_ns - nak->ts;
        if (trig == ROCE_TRIGGER_NAK) /* a round trip of a NAK, from the arrival that made it */
            roce_caploss_note_rtt(e, f, v->nak_to_resend_ns + (nak->has_gen ? nak->gen_ns : 0));
        roce_hist_add(&e->hist[ROCE_HIST_NAK_TO_RESEND], ROCE_HIST_NAK_TO_RESEND,
                      v->nak_to_resend_ns);
        consume_naks(e, rc, psn, v->frame);
    } else if (pkt->op->flags & ROCE_OPF_READ_REQ) {
        struct read_span *r = roce_read_covering(f, psn);
        if (r != NULL && r->gap_seen)
            trig = ROCE_TRIGGER_IMPLIED;
    }
    v->flags |= ROCE_V_EPISODE_START;
    v->trigger = (uint8_t)trig;
    roce_flow_cold(f)->report.episodes++;
    roce_flow_cold(f)->report.by_trigger[trig]++;
    e->totals.episodes++;
    e->totals.by_trigger[trig]++;
    rc->episode_frame = v->frame;

    struct roce_episode *ep = episode_new(e, &rc->cur_episode);
    if (ep != NULL) {
        ep->flow_id = f->id;
        ep->first_frame = ep->last_frame = v->frame;
        ep->first_psn = ep->last_psn = psn;
        ep->first_ts_ns = ep->last_ts_ns = v->ts_ns;
        ep->trigger = (uint8_t)trig;
        ep->nak_frame = v->nak_frame;
        ep->nak_to_resend_ns = v->nak_to_resend_ns;
        if (nak != NULL && trig == ROCE_TRIGGER_NAK && nak->has_gen) {
            ep->has_nak_generation = 1;
            ep->nak_generation_ns = nak->gen_ns;
        }
    }
}

static void retransmission(struct roce_engine *e, struct roce_flow *f, const struct roce_pkt *pkt,
                           struct roce_verdict *v)
{
    struct req_hot *rq = &f->req;
    struct req_state *rc = &roce_flow_cold(f)->req;
    v->flags |= ROCE_V_RETRANSMISSION;
    roce_flow_cold(f)->report.retransmitted_packets++;
    e->totals.retransmitted_packets++;
    rq->ack_n = 0; /* Karn: outstanding requests are ambiguous now */

    if (!rq->in_episode || !roce_psn_after(pkt->psn, rc->last_retx_psn))
        start_episode(e, f, pkt, v); /* the PSN moved back (again) */
    v->episode_frame = rc->episode_frame;
    if (rc->cur_episode) {
        struct roce_episode *ep = &e->episodes[rc->cur_episode - 1];
        if (ep->first_frame != v->frame)
            ep->packets++;
        else
            ep->packets = 1;
        ep->last_frame = v->frame;
        ep->last_psn = pkt->psn;
        ep->last_ts_ns = v->ts_ns;
    }
    rq->in_episode = 1;
    rc->last_retx_psn = pkt->psn;
}

static void gap(struct roce_engine *e, struct roce_flow *f, struct roce_verdict *v,
                uint32_t missing)
{
    v->flags |= ROCE_V_GAP;
    v->missing_psns = missing;
    roce_flow_cold(f)->report.gap_events++;
    roce_flow_cold(f)->report.missing_psns += missing;
    e->totals.gap_events++;
    e->totals.missing_psns += missing;
    roce_caploss_gap(e, f, v, missing); /* network or capture loss: told later */
}

/* A new request that a response captured before it acknowledged. */
static void after_response(struct roce_engine *e, struct roce_flow *f, const struct roce_pkt *pkt,
                           struct roce_verdict *v)
{
    struct req_hot *rq = &f->req;
    struct req_state *rc = &roce_flow_cold(f)->req;
    if (roce_psn_after(pkt->psn, rc->ack_ahead_psn)) {
        rq->ack_ahead = 0; /* the requests have caught up */
        return;
    }
    v->flags |= ROCE_V_AFTER_RESPONSE;
    v->response_frame = rc->ack_ahead_by;
    if (rc->ack_ahead_frame != 0) { /* the response counts once */
        roce_flow_cold(f)->report.responses_early++;
        e->totals.responses_early++;
        roce_evidence_add_capture(&e->totals.capture_frames, ROCE_FAULT_CLOCK, rc->ack_ahead_frame);
        roce_evidence_add_capture(&e->totals.capture_frames, ROCE_FAULT_CLOCK, v->frame);
        rc->ack_ahead_frame = 0;
    }
    if (pkt->psn == rc->ack_ahead_psn)
        rq->ack_ahead = 0;
}

void roce_seq_request(struct roce_engine *e, struct roce_flow *f, const struct roce_pkt *pkt,
                      struct roce_verdict *v)
{
    struct req_hot *rq = &f->req;
    enum roce_transport tr = roce_opcode_transport(pkt->opcode);
    int full = tr == ROCE_TRANSPORT_RC || tr == ROCE_TRANSPORT_XRC;

    if (!full && tr != ROCE_TRANSPORT_UC)
        return; /* UD and RD: counted, not sequence-checked */
    if (pkt->op->flags & (ROCE_OPF_FIRST | ROCE_OPF_MIDDLE))
        roce_read_learn_pmtu(e, f, pkt->payload_len, 0);

    if (!rq->have) {
        struct roce_flow_cold *c = roce_flow_cold(f);
        struct req_state *rc = &c->req;
        rq->have = 1;
        rc->first_psn = pkt->psn;
        c->report.have_psn = 1;
        c->report.first_psn = pkt->psn;
        if (rc->cm_start_valid) {
            int32_t d = roce_psn_diff(pkt->psn, rc->cm_start_psn);
            v->expected_valid = 1;
            v->expected_psn = rc->cm_start_psn;
            if (d > 0)
                gap(e, f, v, (uint32_t)d);
        }
        new_request(e, f, pkt, v->frame, v->ts_ns);
        return;
    }

    uint32_t expected = roce_psn_add(rq->highest, 1);
    int32_t d = roce_psn_diff(pkt->psn, expected);
    v->expected_valid = 1;
    v->expected_psn = expected;
    if (d >= 0) {
        struct read_span *r = rq->read_pending ? roce_read_latest_new(f) : NULL;
        if (d > 0 && r != NULL) {
            /* the READ's span is not known: this jump is its span, not a loss */
            roce_read_set_span(f, r, (uint32_t)roce_psn_diff(pkt->psn, r->psn), ROCE_SPAN_KNOWN);
            v->expected_psn = pkt->psn;
        } else if (d > 0) {
            gap(e, f, v, (uint32_t)d);
            if (rq->ack_ahead) { /* a response before it already acknowledged them */
                const struct req_state *rc = &roce_flow_cold(f)->req;
                roce_caploss_ack(e, f, rc->ack_ahead_psn, rc->ack_ahead_by);
            }
        }
        if (rq->ack_ahead)
            after_response(e, f, pkt, v);
        new_request(e, f, pkt, v->frame, v->ts_ns);
        return;
    }

    if (roce_caploss_late(e, f, v))
        return; /* a missing PSN arriving late: neither new nor resent */
    struct read_span *r = roce_read_covering(f, pkt->psn);
    if (r != NULL && !(pkt->op->flags & ROCE_OPF_READ_REQ)) {
        /* a non-READ request on a PSN an earlier READ occupies */
        v->flags |= ROCE_V_PSN_REUSE;
        v->reuse_frame = r->frame;
        roce_flow_cold(f)->report.psn_reuse++;
        e->totals.psn_reuse++;
        return;
    }
    if (!full)
        return;
    retransmission(e, f, pkt, v);
    if (pkt->op->flags & ROCE_OPF_READ_REQ)
        roce_read_push(e, f, pkt, v->frame, 0); /* re-issued READ: responses restart at its PSN */
}

/* ---- responses ---- */

/* The other RoCE version whose flows between the same two hosts may be the
 * other end of a queue pair: a RoCEv1 GID of the IPv4-mapped form
 * ::ffff:a.b.c.d and the IPv4 address a.b.c.d of RoCEv2 name one host
 * (ANALYSIS.md "Flows and connections"); 0 when there is none. */
static uint8_t other_version(const struct roce_flow_key *k)
{
    if (!roce_addr_is_v4(k->src) || !roce_addr_is_v4(k->dst))
        return 0;
    return k->version == ROCE_VERSION_1   ? ROCE_VERSION_2
           : k->version == ROCE_VERSION_2 ? ROCE_VERSION_1
                                          : 0;
}

/* Pair response flow y with the only unpaired request flow in the reverse
 * direction whose PSN range holds psn (ANALYSIS.md, "Flows and connections"),
 * of y's RoCE version or, between IPv4 hosts, of the other one. Unpaired
 * request flows lead their address-pair list, so each scan stops at the
 * first paired one; at most PAIR_MAX_CANDIDATES are examined. */
static struct roce_flow *pair_by_psn(struct roce_engine *e, struct roce_flow *y, uint32_t psn)
{
    struct roce_flow *found = NULL;
    unsigned seen = 0;
    const uint8_t versions[2] = {y->key.version, other_version(&y->key)};

    const struct roce_flow_table *t = &e->flows;
    for (unsigned v = 0; v < 2 && versions[v] != 0; v++)
        for (struct roce_flow *x = roce_flow_pair_first(t, y->key.dst, y->key.src, versions[v]);
             x != NULL && !x->peer && seen < PAIR_MAX_CANDIDATES; x = roce_flow_pair_next(t, x)) {
            const struct req_hot *rq = &x->req;
            const struct req_state *rc = &roce_flow_cold(x)->req;
            seen++;
            if (x == y || !rq->have ||
                (x->transport != ROCE_TRANSPORT_RC && x->transport != ROCE_TRANSPORT_XRC))
                continue;
            int32_t reach = roce_psn_diff(rq->highest, rc->first_psn);
            int32_t pos = roce_psn_diff(psn, rc->first_psn);
            if (rq->read_pending)
                reach += PAIR_READ_REACH;
            if (pos >= 0 && pos <= reach) {
                if (found != NULL)
                    return NULL; /* a tie: stays unpaired */
                found = x;
            }
        }
    if (found != NULL)
        roce_flow_pair(&e->flows, found, y, ROCE_PAIRED_PSN);
    return found;
}

void roce_seq_ack_fold(struct roce_engine *e, struct roce_flow *f)
{
    struct roce_flow_cold *c = roce_flow_cold(f);
    for (unsigned i = 0; i < c->ack_batched; i++)
        if (roce_lat_add(&c->ack_lat, c->ack_batch[i]) != 0)
            e->alloc_failures++;
    c->ack_batched = 0;
}

static void ack_latency(struct roce_engine *e, struct roce_flow *x, uint32_t psn, int64_t ts,
                        uint64_t frame)
{
    struct req_hot *rq = &x->req;
    struct req_state *rc = &roce_flow_cold(x)->req;
    while (rq->ack_n > 0) {
        struct ackreq_rec *a = &rc->ackreq[rc->ack_head];
        if (roce_psn_after(a->psn, psn))
            break;
        if (ts == a->ts) /* a latency the clock cannot show */
            roce_evidence_add_capture(&e->totals.capture_frames, ROCE_FAULT_TIMESTAMPS, frame);
        /* once the flow's distribution is a histogram (no allocation can
         * fail any more), it takes its samples in batches: one line written
         * a sample instead of one of its 2.5 KB of counters */
        struct roce_flow_cold *c = roce_flow_cold(x);
        if (!rq->lat_batch && c->ack_lat.hist != NULL)
            rq->lat_batch = 1;
        if (rq->lat_batch) {
            c->ack_batch[c->ack_batched++] = ts - a->ts;
            if (c->ack_batched == ACK_BATCH)
                roce_seq_ack_fold(e, x);
        } else if (roce_lat_add(&c->ack_lat, ts - a->ts) != 0) {
            e->alloc_failures++;
        }
        if (roce_lat_add(&e->ack_lat, ts - a->ts) != 0)
            e->alloc_failures++;
        rc->ack_head = (uint8_t)((rc->ack_head + 1) % ACKREQ_RING);
        rq->ack_n--;
    }
}

/* An ACK for psn, which no request of x showed yet: the requests it
 * acknowledges may still come (a response captured before its request). */
static void ack_ahead(struct roce_flow *x, uint32_t psn, uint64_t frame)
{
    struct req_hot *rq = &x->req;
    struct req_state *rc = &roce_flow_cold(x)->req;
    if (!rq->have || rq->read_pending || !roce_psn_after(psn, rq->highest) ||
        (rq->ack_ahead && !roce_psn_after(psn, rc->ack_ahead_psn)))
        return;
    if (!rq->ack_ahead)
        rc->ack_ahead_frame = frame; /* the first response that ran ahead, until counted */
    rc->ack_ahead_by = frame;        /* the latest */
    rq->ack_ahead = 1;
    rc->ack_ahead_psn = psn;
}

/* A NAK for the requests of x, or, while y is unpaired, kept on y until it is. */
static void record_nak(struct roce_engine *e, struct roce_flow *x, struct roce_flow *y,
                       struct roce_verdict *v, uint32_t psn, uint8_t type)
{
    struct nak_rec n = {v->frame, e->cur_seq, v->ts_ns, psn, type, 0, 0, 0};
    if (x != NULL) {
        nak_generation(e, x, &n, v);
        roce_caploss_nak(e, x, psn, v->frame, type == ROCE_TRIGGER_RNR);
    }
    nak_push(e, x != NULL ? &roce_flow_cold(x)->req.naks : &roce_flow_cold(y)->orphan_naks, &n);
    roce_cur_expect(e, v->ts_ns + e->cfg.nak_horizon_ns);
}

static void count_nak(struct roce_engine *e, struct roce_flow *y, unsigned type, unsigned value)
{
    struct roce_nak_counts *fc = &roce_flow_cold(y)->report.naks, *tc = &e->totals.naks;
    if (type == ROCE_AETH_RNR_NAK) {
        fc->rnr++;
        tc->rnr++;
    } else if (value < ROCE_NAK_CODES) {
        fc->code[value]++;
        tc->code[value]++;
    } else {
        fc->reserved_code++;
        tc->reserved_code++;
    }
    fc->total++;
    tc->total++;
}

void roce_seq_response(struct roce_engine *e, struct roce_flow *y, const struct roce_pkt *pkt,
                       struct roce_verdict *v)
{
    enum roce_transport tr = roce_opcode_transport(pkt->opcode);
    int reliable = tr == ROCE_TRANSPORT_RC || tr == ROCE_TRANSPORT_XRC;
    struct roce_flow *x = NULL;

    if (reliable) {
        x = roce_flow_peer(&e->flows, y);
        if (x == NULL)
            x = pair_by_psn(e, y, pkt->psn);
    }
    if (roce_pkt_has(pkt, ROCE_HDR_AETH)) {
        unsigned type = roce_aeth_type(pkt->aeth_syndrome);
        unsigned value = roce_aeth_value(pkt->aeth_syndrome);
        switch (type) {
        case ROCE_AETH_NAK:
            v->flags |= ROCE_V_NAK;
            v->nak_code = (uint8_t)value;
            count_nak(e, y, type, value);
            if (reliable && value == ROCE_NAK_PSN_SEQUENCE_ERROR)
                record_nak(e, x, y, v, pkt->psn, ROCE_TRIGGER_NAK);
            break;
        case ROCE_AETH_RNR_NAK:
            v->flags |= ROCE_V_RNR;
            v->rnr_timer = (uint8_t)value;
            count_nak(e, y, type, value);
            if (reliable)
                record_nak(e, x, y, v, pkt->psn, ROCE_TRIGGER_RNR);
            break;
        case ROCE_AETH_RESERVED:
            e->totals.aeth_reserved++;
            break;
        default:
            if (x != NULL) {
                ack_latency(e, x, pkt->psn, v->ts_ns, v->frame);
                roce_caploss_ack(e, x, pkt->psn, v->frame);
                if (!(pkt->op->flags & ROCE_OPF_READ_RESP))
                    ack_ahead(x, pkt->psn, v->frame);
            }
            break;
        }
    }
    if (x != NULL && (pkt->op->flags & ROCE_OPF_READ_RESP))
        roce_read_response(e, x, y, pkt, v);
}
