/*
 * roce_engine.c - the engine's entry points (see roce_engine.h): set-up,
 * per-frame dispatch to the decoder and the analysis modules, the flow
 * table's hooks (what the analysis does when a flow is created, paired,
 * released), and the report.
 */
#include "roce_engine.h"

#include <stdlib.h>
#include <string.h>

#include "roce_caploss.h"
#include "roce_cm.h"
#include "roce_dcqcn.h"
#include "roce_ecn.h"
#include "roce_evidence.h"
#include "roce_flow.h"
#include "roce_hosts.h"
#include "roce_internal.h"
#include "roce_pfc.h"
#include "roce_read.h"
#include "roce_reqlog.h"
#include "roce_seq.h"
#include "roce_shard.h"
#include "roce_verdq.h"

_Static_assert(REQLOG_CLASSES == ROCE_SHARD_CLASSES, "a part of a split takes whole rings");
_Static_assert(ROCE_SHARD_CLASSES <= 32, "a split part keeps its classes in a 32-bit mask");

/* ---- the flow table's hooks ---- */

/* f was created, by its first packet or by a CM exchange (frame): its first
 * frame and time are those of its first packet (analyse), its last time
 * starts at its creation so that a flow without packets also grows idle. */
static void flow_created(void *ctx, struct roce_flow *f, uint64_t frame, int64_t ts)
{
    const struct roce_engine *e = ctx;
    if (e->cfg.on_flow != NULL)
        e->cfg.on_flow(f->id, frame, e->cfg.ctx);
    f->transport = ROCE_TRANSPORT_NONE;
    f->req.log_class = (uint8_t)roce_shard_class(roce_pair_key(f->key.src, f->key.dst));
    roce_flow_cold(f)->pmtu = e->cfg.pmtu;
    f->last_ts_ns = ts;
    roce_lat_init(&roce_flow_cold(f)->ack_lat);
    roce_lat_init(&roce_flow_cold(f)->cnp_lat);
}

static void flow_paired(void *ctx, struct roce_flow *a, struct roce_flow *b)
{
    roce_seq_adopt_naks(ctx, a, b);
    roce_read_share_pmtu(a, b);
    roce_ecn_paired(ctx, a, b);
}

/* The flow goes away: what waits on it (CE marks, NAKs) is settled now. */
static void flow_released(void *ctx, struct roce_flow *f)
{
    struct roce_engine *e = ctx;
    roce_ecn_forget_flow(e, f);
    roce_seq_drop_naks(e, &roce_flow_cold(f)->req.naks);
    roce_seq_drop_naks(e, &roce_flow_cold(f)->orphan_naks);
    roce_caploss_forget(e, f);
    roce_dcqcn_forget(e, f);
}

static void flow_freed(void *ctx, struct roce_flow *f)
{
    (void)ctx; /* a hook: the table passes its owner */
    roce_lat_free(&roce_flow_cold(f)->ack_lat);
    roce_lat_free(&roce_flow_cold(f)->cnp_lat);
    roce_read_free(f);
    roce_ev_free(f);
    roce_dcqcn_free(f);
}

/* ---- set-up ---- */

struct roce_engine *roce_engine_new(const struct roce_config *cfg)
{
    if (!roce_config_valid(cfg))
        return NULL;
    struct roce_engine *e = calloc(1, sizeof *e);
    if (e == NULL)
        return NULL;
    e->cfg = *cfg;
    e->dcfg.udp_port = cfg->udp_port;
    e->dcfg.vxlan_port = cfg->vxlan_port;
    e->dcfg.check_icrc = cfg->check_icrc;
    roce_lat_init(&e->cnp_lat);
    roce_lat_init(&e->ack_lat);
    roce_pfc_init(e);
    const struct roce_flow_hooks hooks = {flow_created, flow_paired, flow_released, flow_freed, e};
    if (roce_flow_table_init(&e->flows, cfg->max_flows, &hooks) != 0 || roce_ecn_init(e) != 0 ||
        roce_vq_init(e) != 0 || roce_caploss_init(e) != 0 || roce_dcqcn_init(e) != 0 ||
        roce_hosts_init(e) != 0) {
        roce_engine_free(e);
        return NULL;
    }
    return e;
}

void roce_engine_free(struct roce_engine *e)
{
    if (e == NULL)
        return;
    roce_flow_table_free(&e->flows);
    roce_reqlog_done(e);
    roce_lat_free(&e->cnp_lat);
    roce_lat_free(&e->ack_lat);
    free(e->episodes);
    roce_ring_free(&e->ce);
    roce_ring_free(&e->cnp_wait);
    roce_ring_free(&e->vq);
    roce_ring_free(&e->gapq);
    roce_ring_free(&e->dcq);
    roce_hosts_free(e);
    roce_incast_free(e);
    roce_cnpdst_free(e);
    free(e);
}

/* Count a CRC check (ICRC or VCRC, enum roce_icrc_status) in its counter;
 * nonzero when the CRC was bad. */
static int count_crc(uint8_t status, uint64_t *good, uint64_t *bad, uint64_t *unchecked)
{
    ++*(status == ROCE_ICRC_GOOD ? good : status == ROCE_ICRC_BAD ? bad : unchecked);
    return status == ROCE_ICRC_BAD;
}

/* A frame captured short of its declared length whose original length was
 * written as the captured one (ANALYSIS.md "The capture first"). */
static void count_understated(struct roce_totals *t, const struct roce_pkt *pkt, uint32_t caplen,
                              struct roce_verdict *v)
{
    v->flags |= ROCE_V_UNDERSTATED;
    if (t->understated_packets++ == 0) {
        t->understated_caplen_min = t->understated_caplen_max = caplen;
        t->understated_declared_min = t->understated_declared_max = pkt->end_off;
    }
    if (caplen < t->understated_caplen_min)
        t->understated_caplen_min = caplen;
    if (caplen > t->understated_caplen_max)
        t->understated_caplen_max = caplen;
    if (pkt->end_off < t->understated_declared_min)
        t->understated_declared_min = pkt->end_off;
    if (pkt->end_off > t->understated_declared_max)
        t->understated_declared_max = pkt->end_off;
    roce_evidence_add_capture(&t->capture_frames, ROCE_FAULT_TRUNCATION, v->frame);
}

/* Count the frame by class; returns nonzero when analysis goes on. */
static int count_class(struct roce_engine *e, const struct roce_frame_in *in,
                       const struct roce_pkt *pkt, struct roce_verdict *v)
{
    struct roce_totals *t = &e->totals;
    if (pkt->cls == ROCE_CLASS_NON_ROCE) {
        t->non_roce_packets++;
        return 0;
    }
    if (pkt->truncated)
        t->truncated_packets++;
    if (pkt->understated)
        count_understated(t, pkt, in->caplen, v);
    if (pkt->cls == ROCE_CLASS_MALFORMED) {
        t->malformed_packets++;
        t->malformed_by_reason[pkt->malformed]++;
        v->flags |= ROCE_V_MALFORMED;
        v->malformed = pkt->malformed;
        return 0;
    }
    t->roce_packets++;
    if (pkt->version == ROCE_VERSION_1)
        t->rocev1_packets++;
    else if (pkt->version == ROCE_VERSION_IB)
        t->ib_packets++;
    else
        t->rocev2_packets++;
    if (count_crc(pkt->icrc_status, &t->icrc_good, &t->icrc_bad, &t->icrc_unchecked)) {
        v->flags |= ROCE_V_BAD_ICRC;
        v->icrc_calc = pkt->icrc_calc;
        v->icrc_wire = pkt->icrc_wire;
        if (pkt->icrc_rewrite != ROCE_REWRITE_NONE) {
            v->icrc_rewrite = pkt->icrc_rewrite;
            v->icrc_rewrite_value = pkt->icrc_rewrite_value;
            t->icrc_rewritten[pkt->icrc_rewrite]++;
            roce_evidence_add_capture(&t->capture_frames, ROCE_FAULT_REWRITE, v->frame);
        }
    }
    if (pkt->version == ROCE_VERSION_2 && pkt->udp_sport == e->cfg.udp_port)
        t->sport_is_dport++;
    t->ts_steps[v->ts_ns % ROCE_NS_PER_US != 0   ? ROCE_TS_FINE
                : v->ts_ns % ROCE_NS_PER_MS != 0 ? ROCE_TS_US
                                                 : ROCE_TS_MS]++;
    if (!pkt->bth_captured) {
        t->no_bth_packets++;
        return 0;
    }
    return 1;
}

/* An InfiniBand packet whose LRH was captured: its VCRC, and what it
 * carries when that is not the transport. */
static void count_ib(struct roce_engine *e, const struct roce_pkt *pkt, struct roce_verdict *v)
{
    struct roce_totals *t = &e->totals;
    t->ib_other[pkt->ib_other]++;
    if (count_crc(pkt->vcrc_status, &t->vcrc_good, &t->vcrc_bad, &t->vcrc_unchecked)) {
        v->flags |= ROCE_V_BAD_VCRC;
        v->vcrc_calc = pkt->vcrc_calc;
        v->vcrc_wire = pkt->vcrc_wire;
    }
}

static void flow_key_of(const struct roce_pkt *pkt, struct roce_flow_key *k)
{
    memset(k, 0, sizeof *k);
    memcpy(k->src, pkt->src, ROCE_ADDR_LEN);
    memcpy(k->dst, pkt->dst, ROCE_ADDR_LEN);
    k->dqpn = pkt->dqpn;
    k->version = pkt->version;
    k->af = pkt->af;
}

/* A request's own source port, among the flow's (ascending; a new one
 * beyond ROCE_UDP_SPORTS_MAX is counted, not kept). */
static void note_sport(struct roce_engine *e, struct roce_flow_report *r, uint16_t sport)
{
    unsigned n = r->n_udp_sports, at = 0;
    while (at < n && r->udp_sports[at] < sport)
        at++;
    if (at < n && r->udp_sports[at] == sport)
        return;
    if (n == ROCE_UDP_SPORTS_MAX) {
        e->totals.udp_sports_untracked++;
        return;
    }
    memmove(&r->udp_sports[at + 1], &r->udp_sports[at], (n - at) * sizeof r->udp_sports[0]);
    r->udp_sports[at] = sport;
    r->n_udp_sports = (uint8_t)(n + 1);
}

/* What the diagnoses keep of a request: its place in the flow's recent
 * requests, its DCQCN windows, its source port, its evidence. */
static void request_diag(struct roce_engine *e, struct roce_flow *f, const struct roce_frame_in *in,
                         const struct roce_pkt *pkt, const struct roce_verdict *v)
{
    roce_reqlog_add(e, f, in->ts_ns, pkt->psn, in->wirelen);
    if (f->req.dcqcn_open) /* CNPs whose after window is open */
        roce_dcqcn_request(e, f, in->ts_ns, in->wirelen);
    /* the ECMP paths of the data: QP1's few CM datagrams do not count */
    if (pkt->version == 2 && pkt->dqpn != ROCE_QPN_GSI &&
        (pkt->udp_sport != f->last_sport || (f->requests_lo == 1 && roce_flow_requests(f) == 1))) {
        f->last_sport = pkt->udp_sport;
        note_sport(e, &roce_flow_cold(f)->report, pkt->udp_sport);
    }
    /* an RNR episode's evidence is its RNR NAK (on the responder's flow) */
    if ((v->flags & ROCE_V_EPISODE_START) && v->trigger != ROCE_TRIGGER_RNR)
        roce_ev_note(e, f,
                     v->trigger == ROCE_TRIGGER_TIMEOUT ? ROCE_DIAG_RETRANSMISSION_TIMEOUT
                                                        : ROCE_DIAG_PACKET_LOSS,
                     in->frame);
    if (v->flags & ROCE_V_PSN_REUSE)
        roce_ev_note(e, f, ROCE_DIAG_PSN_REUSE, in->frame);
}

/* The priority of a flow's first data packet, or of its first CNP
 * (ANALYSIS.md "Priorities"): what lossy_priority and cnp_priority compare. */
static void note_priority(const struct roce_engine *e, struct roce_flow *f, uint64_t frame,
                          const struct roce_pkt *pkt, unsigned kind)
{
    unsigned p = roce_pfc_priority(&e->cfg, pkt);
    if (p == ROCE_PRIORITY_NONE)
        return;
    struct roce_flow_report *r = &roce_flow_cold(f)->report;
    if (kind == ROCE_KIND_CNP) {
        r->cnp_priority = (uint8_t)p;
        r->cnp_priority_frame = frame;
        f->cnp_priority_known = frame != 0;
    } else {
        r->priority = (uint8_t)p;
        r->priority_frame = frame;
        f->priority_known = frame != 0;
    }
}

/* The frame is f's latest: its time and frame written in. The latest new
 * request's and the latest request's stay those of the flow's latest
 * packet while it is one, and are copied to the cold record when a packet
 * that is not one follows (req_hot.new_last, req_last). */
static void set_latest(struct roce_engine *e, struct roce_flow *f, const struct roce_frame_in *in,
                       int request)
{
    int is_new = e->cur_new;
    if (f->req.new_last && !is_new) {
        struct req_state *rc = &roce_flow_cold(f)->req;
        rc->last_new_ts = f->last_ts_ns;
        rc->last_new_frame = f->last_frame;
    }
    if (f->req.req_last && !request)
        roce_flow_cold(f)->req.last_req_ts = f->last_ts_ns;
    f->req.new_last = is_new != 0;
    f->req.req_last = request != 0;
    f->last_frame = in->frame;
    f->last_ts_ns = in->ts_ns;
    e->cur_flow = NULL;
    e->cur_new = 0;
}

static void analyse(struct roce_engine *e, const struct roce_frame_in *in,
                    const struct roce_pkt *pkt, struct roce_verdict *v)
{
    struct roce_flow_key key;
    struct roce_flow *f;
    unsigned kind = pkt->op->kind;

    v->opcode = pkt->opcode;
    v->psn = pkt->psn;
    flow_key_of(pkt, &key);
    f = roce_flow_get(&e->flows, &key, in->frame, in->ts_ns);
    if (f == NULL)
        return; /* out of memory (counted): the frame is in the totals, not in a flow */
    v->has_flow = 1;
    v->flow_id = f->id;
    v->key = key;
    if (f->packets != 0 && in->ts_ns <= f->last_ts_ns) {
        if (in->ts_ns == f->last_ts_ns) { /* a clock too coarse to tell them apart */
            e->totals.ts_repeated++;
            roce_evidence_add_capture(&e->totals.capture_frames, ROCE_FAULT_TIMESTAMPS, in->frame);
        } else { /* its flow's time ran backwards */
            e->totals.time_backwards++;
            roce_evidence_add_capture(&e->totals.capture_frames, ROCE_FAULT_CLOCK, in->frame);
        }
    }
    if (f->packets++ == 0) {
        roce_flow_cold(f)->report.first_frame = in->frame;
        roce_flow_cold(f)->report.first_ts_ns = in->ts_ns;
    }
    if (roce_flow_add32(&f->bytes_lo, in->wirelen))
        roce_flow_cold(f)->bytes_hi++;
    if (roce_flow_add32(&f->payload_lo, pkt->payload_len))
        roce_flow_cold(f)->payload_hi++;
    e->cur_flow = f; /* until set_latest() writes its time in */
    if (v->flags & ROCE_V_BAD_ICRC) {
        struct roce_flow_report *r = &roce_flow_cold(f)->report;
        r->bad_icrc++;
        if (v->icrc_rewrite != ROCE_REWRITE_NONE)
            r->bad_icrc_rewritten++; /* the capture path's doing, not the flow's */
        else
            roce_ev_note(e, f, ROCE_DIAG_ICRC_ERROR, in->frame);
    }
    if (v->flags & ROCE_V_BAD_VCRC)
        roce_flow_cold(f)->report.bad_vcrc++;
    roce_hosts_roce(e, f, in, pkt);
    if (kind == ROCE_KIND_CNP) {
        if (f->transport == ROCE_TRANSPORT_NONE)
            f->transport = ROCE_TRANSPORT_CNP;
    } else {
        roce_flow_count_op(f, pkt->opcode & ROCE_OPCODE_OP_MASK);
        if (f->transport == ROCE_TRANSPORT_NONE || f->transport == ROCE_TRANSPORT_CNP)
            f->transport = (uint8_t)roce_opcode_transport(pkt->opcode);
    }

    if (kind == ROCE_KIND_CNP ? !f->cnp_priority_known
                              : !f->priority_known && kind != ROCE_KIND_OTHER)
        note_priority(e, f, in->frame, pkt, kind);
    switch (kind) {
    case ROCE_KIND_REQUEST:
        e->totals.request_packets++;
        if (roce_flow_add32(&f->requests_lo, 1))
            roce_flow_cold(f)->requests_hi++;
        roce_flow_mark_request(&e->flows, f);
        if (e->totals.pauses != 0 && f->priority_known)
            roce_victims_request(e, f, in->frame, in->ts_ns);
        roce_seq_request(e, f, pkt, v);
        request_diag(e, f, in, pkt, v);
        if (f->key.dqpn != ROCE_QPN_GSI) /* not the CM's datagrams */
            roce_incast_request(e, &f->key, in->frame, in->wirelen, roce_pkt_congestion_marked(pkt),
                                in->ts_ns);
        if (roce_pkt_congestion_marked(pkt)) {
            roce_ecn_ce(e, f, v);
            roce_ev_note(e, f, ROCE_DIAG_CE_UNANSWERED, in->frame);
        }
        break;
    case ROCE_KIND_RESPONSE:
        e->totals.response_packets++;
        if (roce_flow_add32(&f->responses_lo, 1))
            roce_flow_cold(f)->responses_hi++;
        roce_seq_response(e, f, pkt, v);
        if (v->flags & ROCE_V_RNR)
            roce_ev_note(e, f, ROCE_DIAG_RNR, in->frame);
        if ((v->flags & ROCE_V_NAK) && v->nak_code >= ROCE_NAK_INVALID_REQUEST &&
            v->nak_code < ROCE_NAK_CODES)
            roce_ev_note(e, f, ROCE_DIAG_REMOTE_ERROR, in->frame);
        if (roce_pkt_becn_answer(pkt)) {
            e->totals.becn_packets++;
            roce_flow_cold(f)->report.becn_packets++;
            roce_ecn_cnp(e, f, v);
        }
        break;
    case ROCE_KIND_CNP: {
        e->totals.cnp_packets++;
        roce_flow_cold(f)->report.cnp_packets++;
        roce_ecn_pacing(e, f, in->frame, in->ts_ns);
        if (roce_pkt_congestion_marked(pkt)) { /* it met congestion on its way */
            e->totals.cnps_ce_marked++;
            roce_flow_cold(f)->report.cnps_ce_marked++;
            roce_ev_note(e, f, ROCE_DIAG_CNP_CONGESTED, in->frame);
        }
        roce_ecn_cnp(e, f, v); /* and the DCQCN reaction, once its request flow is known */
        break;
    }
    default:
        break;
    }
    v->transport = f->transport;
    v->paired_by = f->paired_by;
    v->peer_dqpn = f->peer_dqpn;
    set_latest(e, f, in, kind == ROCE_KIND_REQUEST);
    /* last: CM may create and evict flows */
    roce_cm_packet(e, pkt, in->data, in->caplen, in->frame, in->ts_ns);
}

/* Capture times the engine works with: [0, 2^62] ns (to the year 2116), so
 * that differences of two times and a time plus a window never overflow.
 * Times outside (only a corrupt capture has them) are clamped. */
#define TS_MAX_NS (1LL << 62)

static int64_t clamp_ts(int64_t ts)
{
    return ts < 0 ? 0 : ts > TS_MAX_NS ? TS_MAX_NS : ts;
}

int roce_engine_frame(struct roce_engine *e, const struct roce_frame_in *in_raw,
                      struct roce_frame_out *out)
{
    /* field by field: a copy of the whole struct reads words that the caller
     * has just written in smaller parts, which the store buffer cannot
     * forward (the load then waits for every earlier store to reach the
     * cache, the misses of the frame before included) */
    struct roce_frame_in clamped;
    clamped.frame = in_raw->frame;
    clamped.ts_ns = clamp_ts(in_raw->ts_ns);
    clamped.linktype = in_raw->linktype;
    clamped.data = in_raw->data;
    clamped.caplen = in_raw->caplen;
    clamped.wirelen = in_raw->wirelen;
    const struct roce_frame_in *in = &clamped;
    int rc = 0;

    if (out == NULL)
        out = &e->scratch; /* beside the counters it updates, not on the stack */
    if (!e->have_now || in->ts_ns > e->now) {
        e->now = in->ts_ns;
        e->have_now = 1;
    }
    if (roce_ecn_busy(e))
        roce_ecn_expire(e, e->now, 0);
    if (e->now > e->gapq_next)
        roce_caploss_expire(e, e->now, 0);
    if (e->now > e->dcq_next)
        roce_dcqcn_expire(e, e->now, 0);

    struct roce_totals *t = &e->totals;
    /* the earliest and the latest time: frames may come out of time order */
    if (t->packets == 0 || in->ts_ns < t->first_ts_ns)
        t->first_ts_ns = in->ts_ns;
    if (t->packets == 0 || in->ts_ns > t->last_ts_ns)
        t->last_ts_ns = in->ts_ns;
    t->packets++;
    t->bytes += in->wirelen;

    memset(&out->verdict, 0, sizeof out->verdict);
    out->verdict.frame = in->frame;
    out->verdict.ts_ns = in->ts_ns;
    if (roce_decode(&e->dcfg, in->linktype, in->data, in->caplen, in->wirelen, &out->pkt) != 0) {
        t->unsupported_linktype++;
        rc = -1;
    }
    if (out->pkt.encap_depth)
        t->encap[out->pkt.encap]++;
    if (out->pkt.mac_ctrl)
        roce_pfc_frame(e, &out->pkt, in->frame, in->ts_ns,
                       roce_hosts_mac_control(e, in, &out->pkt));
    if (out->pkt.lrh_captured)
        count_ib(e, &out->pkt, &out->verdict);
    e->cur_seq = e->vq.tail;
    e->cur_pending = 0;
    e->cur_deadline = in->ts_ns;
    e->cur_v = &out->verdict;
    if (out->pkt.understated && out->pkt.end_off > clamped.wirelen) {
        /* what its headers declare went on the wire */
        t->bytes += out->pkt.end_off - clamped.wirelen;
        clamped.wirelen = out->pkt.end_off;
    }
    if (count_class(e, in, &out->pkt, &out->verdict))
        analyse(e, in, &out->pkt, &out->verdict);
    e->cur_v = NULL;
    if (out->verdict.flags != 0)
        roce_vq_push(e, &out->verdict, e->cur_pending, e->cur_deadline);
    if (e->vq.head != e->vq.tail)
        roce_vq_release(e, e->now, 0);
    return rc;
}

void roce_engine_note_time(struct roce_engine *e, int64_t now_ns)
{
    now_ns = clamp_ts(now_ns);
    if (!e->have_now || now_ns > e->now) {
        e->now = now_ns;
        e->have_now = 1;
    }
}

void roce_engine_advance(struct roce_engine *e, int64_t now_ns)
{
    now_ns = clamp_ts(now_ns);
    if (!e->have_now || now_ns <= e->now)
        return;
    e->now = now_ns;
    roce_ecn_expire(e, e->now, 0);
    roce_caploss_expire(e, e->now, 0);
    roce_vq_release(e, e->now, 0);
    roce_pfc_settle(e, e->now, 0);
}

size_t roce_engine_retire_idle(struct roce_engine *e, int64_t idle_ns)
{
    size_t n = 0;
    struct roce_flow *f;
    /* the least recently active flow first */
    while ((f = roce_flow_oldest(&e->flows)) != NULL && e->now - f->last_ts_ns > idle_ns) {
        roce_flow_remove(&e->flows, f);
        e->totals.flows_retired++;
        n++;
    }
    return n;
}

void roce_engine_finish(struct roce_engine *e)
{
    roce_pfc_settle(e, e->now, 1);
    roce_ecn_expire(e, e->now, 1);
    roce_caploss_expire(e, e->now, 1);
    roce_dcqcn_expire(e, e->now, 1);
    roce_vq_release(e, e->now, 1);
}

const struct roce_totals *roce_engine_totals(struct roce_engine *e)
{
    const struct roce_flow_stats *fs = &e->flows.stats;
    e->totals.flows_active = e->flows.n_flows;
    e->totals.flows_created = fs->created;
    e->totals.flows_evicted = fs->evicted;
    e->totals.peak_flows = fs->peak;
    e->totals.connections = fs->connections;
    e->totals.alloc_failures = e->alloc_failures + fs->alloc_failures;
    roce_pfc_settle(e, e->now, 0);
    roce_incast_settle(e);
    roce_lat_summarize(&e->cnp_lat, &e->totals.cnp_latency);
    roce_lat_summarize(&e->ack_lat, &e->totals.ack_latency);
    return &e->totals;
}

void roce_engine_usage(const struct roce_engine *e, struct roce_engine_usage *u)
{
    u->cm_pending_peak = e->cm_peak;
    u->cm_pending_max = CM_PENDING;
    roce_ecn_bounds(&u->ce_ring_max, &u->cnp_ring_max);
    roce_caploss_room(e, &u->gap_ring_room, &u->gap_ring_max);
    roce_dcqcn_room(e, &u->dcqcn_ring_room, &u->dcqcn_ring_max);
    u->macs = e->n_macs;
    u->macs_max = ROCE_MACS_MAX;
    u->ce_wait_ns = roce_ecn_ce_wait(&e->cfg);
    u->cnp_wait_ns = roce_ecn_cnp_wait(&e->cfg);
}

size_t roce_engine_flow_count(const struct roce_engine *e)
{
    return e->flows.n_flows;
}

const struct roce_lat *roce_engine_latency(const struct roce_engine *e,
                                           enum roce_latency_kind which)
{
    return which == ROCE_LATENCY_CNP ? &e->cnp_lat : &e->ack_lat;
}

const struct roce_lat *roce_engine_flow_latency(struct roce_engine *e,
                                                const struct roce_flow_key *key, uint64_t id,
                                                enum roce_latency_kind which)
{
    struct roce_flow *f = roce_flow_find(&e->flows, key, id);
    if (f == NULL)
        return NULL;
    roce_seq_ack_fold(e, f); /* its batched samples first */
    return which == ROCE_LATENCY_CNP ? &roce_flow_cold(f)->cnp_lat : &roce_flow_cold(f)->ack_lat;
}

static int cmp_report_id(const void *a, const void *b)
{
    const struct roce_flow_report *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* Bring r, a copy of f's report (or f's own), up to date: the counters kept
 * outside it and what is only assembled on request. */
static void complete_report(struct roce_engine *e, struct roce_flow *f, struct roce_flow_report *r)
{
    roce_seq_ack_fold(e, f);
    r->id = f->id;
    r->packets = f->packets;
    r->bytes = roce_flow_bytes(f);
    r->payload_bytes = roce_flow_payload_bytes(f);
    r->request_packets = roce_flow_requests(f);
    r->response_packets = roce_flow_responses(f);
    r->last_frame = f->last_frame;
    r->last_ts_ns = f->last_ts_ns;
    memcpy(r->op_counts, roce_flow_cold(f)->op_counts, sizeof r->op_counts);
    r->op_counts[f->op_last] += f->op_run; /* the opcode counted in the hot record */
    if (f->req.have)                       /* the highest PSN used, kept in the hot record */
        r->last_psn = f->req.highest;
    r->key = f->key;
    r->transport = f->transport;
    r->paired_by = f->paired_by;
    r->peer_id = roce_flow_cold(f)->peer_id;
    r->pmtu = roce_flow_cold(f)->pmtu;
    roce_lat_summarize(&roce_flow_cold(f)->ack_lat, &r->ack_latency);
    roce_lat_summarize(&roce_flow_cold(f)->cnp_lat, &r->cnp_latency);
    r->gaps_pending = roce_caploss_open(f);
    roce_dcqcn_report(e, f, r);
}

/* A flow's report: its counters plus what is only assembled on request. */
static void fill_report(struct roce_engine *e, struct roce_flow *f, struct roce_flow_report *r)
{
    *r = roce_flow_cold(f)->report;
    complete_report(e, f, r);
}

static int cmp_flow_id(const void *a, const void *b)
{
    const struct roce_flow *x = *(const struct roce_flow *const *)a;
    const struct roce_flow *y = *(const struct roce_flow *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

size_t roce_engine_flows(struct roce_engine *e, struct roce_flow_report *out, size_t cap)
{
    size_t n = 0;
    uint32_t h = 0;
    /* the flows ordered by id first, then their reports filled in that
     * order: a report is about a kilobyte, a table may hold millions */
    struct roce_flow **by_id = malloc((cap ? cap : 1) * sizeof *by_id);
    if (by_id == NULL) { /* out of memory: filled in table order, then sorted */
        for (struct roce_flow *f; n < cap && (f = roce_flow_next(&e->flows, &h)) != NULL;)
            fill_report(e, f, &out[n++]);
        if (n > 1)
            qsort(out, n, sizeof *out, cmp_report_id);
        return n;
    }
    for (struct roce_flow *f; n < cap && (f = roce_flow_next(&e->flows, &h)) != NULL;)
        by_id[n++] = f;
    if (n > 1)
        qsort(by_id, n, sizeof *by_id, cmp_flow_id);
    for (size_t i = 0; i < n; i++)
        fill_report(e, by_id[i], &out[i]);
    free(by_id);
    return n;
}

size_t roce_engine_flow_refs(struct roce_engine *e, const struct roce_flow_report **out, size_t cap)
{
    size_t n = 0;
    uint32_t h = 0;
    for (struct roce_flow *f; n < cap && (f = roce_flow_next(&e->flows, &h)) != NULL;) {
        complete_report(e, f, &roce_flow_cold(f)->report);
        out[n++] = &roce_flow_cold(f)->report;
    }
    return n;
}

int roce_engine_flow_peer_key(const struct roce_engine *e, const struct roce_flow_key *key,
                              uint64_t id, struct roce_flow_key *peer)
{
    const struct roce_flow *f = roce_flow_find(&e->flows, key, id);
    if (f == NULL || !f->peer)
        return -1;
    *peer = roce_flow_at(&e->flows, f->peer)->key;
    return 0;
}

int roce_engine_flow_report(struct roce_engine *e, const struct roce_flow_key *key, uint64_t id,
                            struct roce_flow_report *out)
{
    struct roce_flow *f = roce_flow_find(&e->flows, key, id);
    if (f == NULL)
        return -1;
    fill_report(e, f, out);
    return 0;
}

int roce_engine_flow_state(const struct roce_engine *e, const struct roce_flow_key *key,
                           uint64_t id, struct roce_flow_state *out)
{
    const struct roce_flow *f = roce_flow_find(&e->flows, key, id);
    if (f == NULL)
        return -1;
    out->transport = f->transport;
    out->paired_by = f->paired_by;
    out->peer_dqpn = f->peer_dqpn;
    return 0;
}

size_t roce_engine_episode_count(const struct roce_engine *e)
{
    return e->n_episodes;
}

const struct roce_episode *roce_engine_episode(const struct roce_engine *e, size_t i)
{
    return i < e->n_episodes ? &e->episodes[i] : NULL;
}

const struct roce_host_mac *roce_engine_macs(const struct roce_engine *e, size_t *n)
{
    *n = e->n_macs;
    return e->macs;
}

const struct roce_evidence *roce_engine_flow_evidence(const struct roce_engine *e,
                                                      const struct roce_flow_key *key, uint64_t id)
{
    const struct roce_flow *f = roce_flow_find(&e->flows, key, id);
    return f != NULL && roce_flow_cold(f)->ev != NULL ? &roce_flow_cold(f)->ev->ev : NULL;
}

int roce_engine_diagnoses(struct roce_engine *e, size_t subject_limit, struct roce_diag_list *out)
{
    size_t n = e->flows.n_flows;
    struct roce_diag_flow *flows = calloc(n ? n : 1, sizeof *flows);
    int rc = -1;

    memset(out, 0, sizeof *out);
    if (flows != NULL) {
        uint32_t h = 0;
        size_t i = 0;
        /* each flow's own report brought up to date and read in place: no
         * copy of every report (800 bytes a flow) at every call */
        for (struct roce_flow *f; i < n && (f = roce_flow_next(&e->flows, &h)) != NULL; i++) {
            complete_report(e, f, &roce_flow_cold(f)->report);
            flows[i].r = &roce_flow_cold(f)->report;
            flows[i].ev = roce_flow_cold(f)->ev != NULL ? &roce_flow_cold(f)->ev->ev : NULL;
            flows[i].peer = f->peer ? &roce_flow_at(&e->flows, f->peer)->key : NULL;
        }
        struct roce_diag_input in = {
            flows, i, e->macs, e->n_macs, roce_engine_totals(e), &e->cfg, subject_limit};
        rc = roce_diagnose(&in, out);
    }
    free(flows);
    return rc;
}

const struct roce_hist *roce_engine_histogram(const struct roce_engine *e, enum roce_hist_kind k)
{
    return &e->hist[k < ROCE_HIST_KINDS ? k : 0];
}
