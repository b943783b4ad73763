/*
 * fuzz_engine.c - libFuzzer target: arbitrary frame sequences through the
 * decoder and the whole analysis engine (roce_engine.h).
 *
 * The input (fuzz_format.h) picks a link type and a configuration with
 * small bounds (4..64 flows, 1..16 open verdicts, 1..16 listed episodes),
 * so that eviction and forced verdicts happen, and PFC settings, then
 * carries frames with time steps (forwards and backwards, and jumps to the
 * ends of the clock), snaplen cuts and impossible original lengths. Every frame goes through
 * roce_engine_frame(); some inputs flush the engine in the middle, retire idle flows and take
 * report snapshots; the end is roce_engine_finish() and the whole report
 * API.
 *
 * Besides the sanitizers, the target checks the engine's documented
 * contracts and aborts when one is broken (a finding like a crash):
 * - packets = roce + malformed + non-RoCE; RoCE = v1 + v2 + InfiniBand =
 *   ICRC good + bad + unchecked; InfiniBand raw and IPv6 packets are among
 *   the non-RoCE ones; one VCRC status per InfiniBand LRH captured; every
 *   frame fed is counted;
 * - flows: active <= peak <= max_flows, created - evicted - retired =
 *   active, every tracked flow is listed (up to the cap), ordered by id,
 *   a flow's frames were fed in order; episodes: listed <= max_episodes, all
 *   counted (listed + unlisted);
 * - settled verdicts (on_verdict) arrive in strictly increasing frame order,
 *   only for frames already fed, each with flags, exactly once per frame
 *   returned with flags and with at least the flags it was returned with.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_format.h"
#include "fuzz_target.h"
#include "roce_engine.h"
#include "roce_time.h"

#define T0_NS       1700000000000000000LL
#define MAX_REPORTS 64 /* flow reports taken per snapshot */

struct fz_run {
    struct roce_config cfg;
    uint64_t frame;           /* frames fed */
    uint64_t last_settled;    /* frame of the latest settled verdict */
    uint32_t *returned_flags; /* by frame number: flags roce_engine_frame() returned */
    uint32_t *settled_flags;  /* by frame number: flags of the settled verdict */
    uint8_t *settled;         /* by frame number: times settled */
    uint64_t cap;             /* entries in both arrays */
};

/* Abort with a message: a broken contract is a finding. */
static void fz_fail(const char *what, uint64_t a, uint64_t b)
{
    fprintf(stderr, "fuzz_engine: contract broken: %s (%llu, %llu)\n", what, (unsigned long long)a,
            (unsigned long long)b);
    abort();
}

/* on_verdict: the settled-verdict contract of roce_engine.h. */
static void fz_on_verdict(const struct roce_verdict *v, void *ctx)
{
    struct fz_run *r = ctx;
    if (v->frame <= r->last_settled || v->frame > r->frame)
        fz_fail("settled verdicts out of frame order", v->frame, r->last_settled);
    if (v->flags == 0)
        fz_fail("settled verdict without flags", v->frame, 0);
    r->last_settled = v->frame;
    if (v->frame < r->cap) {
        r->settled_flags[v->frame] = v->flags;
        r->settled[v->frame]++;
    }
}

/* The configuration the header bytes h select. */
static void fz_config(const uint8_t h[FZ_HEADER_LEN], struct fz_run *r)
{
    static const uint32_t pmtus[] = FZ_PMTUS;
    static const int64_t windows[] = FZ_WINDOWS;
    static const uint32_t speeds[] = FZ_SPEEDS;
    static const int64_t pfc_windows[] = FZ_PFC_WINDOWS;
    struct roce_config *c = &r->cfg;
    roce_config_default(c);
    c->check_icrc = !(h[1] & FZ_F_NO_ICRC);
    if (h[1] & FZ_F_NO_VXLAN)
        c->vxlan_port = 0;
    if (h[1] & FZ_F_ALT_PORT)
        c->udp_port = FZ_ALT_UDP_PORT;
    c->pmtu = pmtus[(h[1] >> FZ_F_PMTU_SHIFT) & FZ_F_PMTU_MASK];
    c->cnp_window_ns = windows[(h[1] >> FZ_F_WINDOW_SHIFT) & FZ_F_WINDOW_MASK];
    c->max_flows = FZ_FLOWS_MIN + h[2] % FZ_FLOWS_SPAN;
    c->max_open_verdicts = 1u + (h[3] & FZ_BOUND_MASK);
    c->max_episodes = 1u + (h[3] >> FZ_EPISODES_SHIFT);
    c->link_speed_mbps = speeds[h[4] & FZ_P_SPEED_MASK];
    c->pfc_window_ns = pfc_windows[(h[4] >> FZ_P_WINDOW_SHIFT) & FZ_P_WINDOW_MASK];
    c->pfc_storm_pct = (h[4] >> FZ_P_SHARE_SHIFT) * FZ_P_SHARE_STEP;
    c->on_verdict = fz_on_verdict;
    c->ctx = r;
}

/* Time step of a record's time byte, ns (negative: backwards). */
static int64_t fz_step(uint8_t t)
{
    int64_t mag = t & FZ_T_MAG_MASK;
    switch (t >> FZ_T_UNIT_SHIFT) {
    case FZ_T_NS:
        return mag;
    case FZ_T_US:
        return mag * ROCE_NS_PER_US;
    case FZ_T_MS:
        return mag * ROCE_NS_PER_MS;
    default:
        return -mag * ROCE_NS_PER_US;
    }
}

/* ts moved by step, saturated at the ends of int64_t. */
static int64_t fz_advance(int64_t ts, int64_t step)
{
    if (step > 0 && ts > INT64_MAX - step)
        return INT64_MAX;
    if (step < 0 && ts < INT64_MIN - step)
        return INT64_MIN;
    return ts + step;
}

/* Read the whole report API and check the totals' contracts. */
static void fz_report(struct roce_engine *e, const struct fz_run *r)
{
    static struct roce_flow_report flows[MAX_REPORTS];
    const struct roce_totals *t = roce_engine_totals(e);

    if (t->packets != r->frame)
        fz_fail("packets != frames fed", t->packets, r->frame);
    if (t->packets != t->roce_packets + t->malformed_packets + t->non_roce_packets)
        fz_fail("packets != roce + malformed + non_roce", t->packets, t->roce_packets);
    if (t->roce_packets != t->rocev1_packets + t->rocev2_packets + t->ib_packets)
        fz_fail("roce != v1 + v2 + InfiniBand", t->roce_packets, t->ib_packets);
    uint64_t ib_lrh = 0; /* InfiniBand packets whose LRH was captured, by what they carry */
    for (unsigned i = 0; i < ROCE_IB_OTHER_COUNT; i++)
        ib_lrh += t->ib_other[i];
    if (ib_lrh - t->ib_other[ROCE_IB_TRANSPORT] > t->non_roce_packets)
        fz_fail("InfiniBand raw + IPv6 > non_roce", ib_lrh, t->non_roce_packets);
    if (t->vcrc_good + t->vcrc_bad + t->vcrc_unchecked != ib_lrh)
        fz_fail("VCRCs != InfiniBand packets with an LRH", t->vcrc_bad, ib_lrh);
    if (t->roce_packets != t->icrc_good + t->icrc_bad + t->icrc_unchecked)
        fz_fail("roce != icrc good + bad + unchecked", t->roce_packets, t->icrc_bad);
    if (t->flows_active > t->peak_flows || t->peak_flows > r->cfg.max_flows)
        fz_fail("flows beyond max_flows", t->peak_flows, r->cfg.max_flows);
    if (t->flows_created - t->flows_evicted - t->flows_retired != t->flows_active)
        fz_fail("created - evicted - retired != active", t->flows_created, t->flows_active);
    size_t n_ep = roce_engine_episode_count(e);
    if (n_ep > r->cfg.max_episodes || n_ep + t->episodes_unlisted != t->episodes)
        fz_fail("episodes listed + unlisted != episodes", n_ep, t->episodes);
    for (size_t i = 0; i < n_ep; i++) {
        const struct roce_episode *ep = roce_engine_episode(e, i);
        if (ep == NULL || ep->first_frame > ep->last_frame || ep->last_frame > r->frame)
            fz_fail("episode frames", i, ep ? ep->last_frame : 0);
    }
    if (roce_engine_episode(e, n_ep) != NULL)
        fz_fail("episode beyond the count", n_ep, 0);

    size_t n_flows = roce_engine_flow_count(e);
    if (n_flows != t->flows_active)
        fz_fail("flow count != flows_active", n_flows, t->flows_active);
    size_t got = roce_engine_flows(e, flows, MAX_REPORTS);
    if (got != (n_flows < MAX_REPORTS ? n_flows : MAX_REPORTS))
        fz_fail("flow reports != min(flow count, cap)", got, n_flows);
    uint64_t flow_packets = 0;
    for (size_t i = 0; i < got; i++) {
        if (i > 0 && flows[i].id <= flows[i - 1].id)
            fz_fail("flow reports not ordered by id", flows[i - 1].id, flows[i].id);
        if (flows[i].packets > 0 &&
            (flows[i].first_frame > flows[i].last_frame || flows[i].last_frame > r->frame))
            fz_fail("flow frames", flows[i].first_frame, flows[i].last_frame);
        flow_packets += flows[i].packets;
    }
    if (flow_packets > t->roce_packets + t->malformed_packets)
        fz_fail("flows carry more packets than RoCE + malformed", flow_packets, t->roce_packets);
}

/* Set up the per-frame bookkeeping for at most max_frames frames. */
static int fz_alloc(struct fz_run *r, uint64_t max_frames)
{
    r->cap = max_frames + 1;
    r->returned_flags = calloc(r->cap, sizeof *r->returned_flags);
    r->settled_flags = calloc(r->cap, sizeof *r->settled_flags);
    r->settled = calloc(r->cap, sizeof *r->settled);
    return r->returned_flags != NULL && r->settled_flags != NULL && r->settled != NULL ? 0 : -1;
}

/* Every frame returned with flags was settled exactly once, no other was,
 * and keeps the flags it was returned with. (A frame may be settled during
 * its own roce_engine_frame() call, so this is checked at the end.) */
static void fz_check_settled(const struct fz_run *r)
{
    for (uint64_t f = 1; f <= r->frame && f < r->cap; f++) {
        uint32_t ret = r->returned_flags[f];
        if (r->settled[f] != (ret != 0))
            fz_fail("frame settled a wrong number of times", f, r->settled[f]);
        if ((r->settled_flags[f] & ret) != ret)
            fz_fail("settled verdict lost flags", f, ret);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int linktypes[] = FZ_LINKTYPES;
    uint8_t h[FZ_HEADER_LEN] = {0};
    struct fz_run r;
    struct roce_frame_out out;

    memset(&r, 0, sizeof r);
    memcpy(h, data, size < FZ_HEADER_LEN ? size : FZ_HEADER_LEN);
    size_t off = size < FZ_HEADER_LEN ? size : FZ_HEADER_LEN;
    fz_config(h, &r);
    int linktype = linktypes[h[0] % FZ_N_LINKTYPES];
    struct roce_engine *e = roce_engine_new(&r.cfg);
    /* invalid configurations (PMTU indices 6, 7, storm share > 100) may be
     * refused, never crash */
    if (e == NULL || fz_alloc(&r, (size - off) / FZ_RECORD_LEN + 1) != 0)
        goto out;

    int64_t ts = T0_NS;
    while (off < size) {
        uint8_t rec[FZ_RECORD_LEN] = {0};
        size_t head = size - off < FZ_RECORD_LEN ? size - off : FZ_RECORD_LEN;
        memcpy(rec, data + off, head);
        off += head;
        uint32_t caplen = (uint32_t)rec[2] | (uint32_t)rec[3] << 8;
        uint32_t extra = (uint32_t)rec[4] | (uint32_t)rec[5] << 8;
        if (caplen > size - off)
            caplen = (uint32_t)(size - off);
        if (rec[1] & FZ_C_EXTREME)
            ts = rec[0] & 1 ? INT64_MAX : INT64_MIN;
        ts = fz_advance(ts, fz_step(rec[0]));
        if (rec[1] & FZ_C_FINISH)
            roce_engine_finish(e);
        struct roce_frame_in in = {++r.frame, ts,
                                   linktype,  data + off,
                                   caplen,    extra == FZ_WIRE_MAX ? UINT32_MAX : caplen + extra};
        off += caplen;
        int rc = roce_engine_frame(e, &in, &out);
        if ((rc != 0) != !roce_linktype_supported(linktype))
            fz_fail("return value disagrees with roce_linktype_supported", (uint64_t)rc,
                    (uint64_t)linktype);
        if (out.verdict.frame != r.frame)
            fz_fail("returned verdict of another frame", out.verdict.frame, r.frame);
        if (r.frame < r.cap)
            r.returned_flags[r.frame] = out.verdict.flags;
        if (rec[1] & FZ_C_RETIRE)
            roce_engine_retire_idle(e, (int64_t)(rec[0] & FZ_T_MAG_MASK) * ROCE_NS_PER_US);
        if (rec[1] & FZ_C_REPORT)
            fz_report(e, &r);
    }
    roce_engine_finish(e);
    fz_report(e, &r);
    fz_check_settled(&r);
out:
    roce_engine_free(e);
    free(r.returned_flags);
    free(r.settled_flags);
    free(r.settled);
    return 0;
}
