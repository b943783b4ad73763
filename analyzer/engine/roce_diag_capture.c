/*
 * roce_diag_capture.c - the capture judged first (ANALYSIS.md "The capture
 * first"): before anything is blamed on the network, what the capture
 * itself shows of its faults, each a subject of the one finding of kind
 * "capture", with the figures it rests on:
 *
 *   capture_loss     it kept less than 99 % of the request PSNs: gaps the
 *                    responder acknowledged, or that the requester sent on
 *                    past without a NAK or a resend
 *   truncation       frames captured short of their IP/UDP (or GRH) length
 *                    whose original length says they were not cut
 *   timestamps       time stamps coarser than 1 us, or in 1 us steps that
 *                    latencies measured fall under (read as 0)
 *   clock            responses captured before the requests they
 *                    acknowledge, RoCE frames earlier than the frame before
 *                    them in their flow
 *   rewritten_field  bad ICRCs that validate with another value of a header
 *                    field (the UDP source port, the IPv4 identification),
 *                    or every RoCEv2 frame carrying the RoCE port as its
 *                    source port with no good ICRC to show it was sent so
 *
 * From report data only (the totals and the flows), as the other findings.
 */
#include <string.h>

#include "roce_diag_int.h"

#define KEPT_PCT         99u /* below this share of request PSNs kept: capture loss */
#define NS_PER_US        1000u
#define NS_PER_MS        1000000u
#define SPORT_MIN_FRAMES 2u /* RoCEv2 frames all on the RoCE port as source port: at least */

static uint64_t rewritten(const struct roce_totals *t)
{
    uint64_t n = 0;
    for (unsigned f = ROCE_REWRITE_NONE + 1; f < ROCE_REWRITE_FIELDS; f++)
        n += t->icrc_rewritten[f];
    return n;
}

int roce_diag_icrc_all_bad(const struct roce_totals *t)
{
    return t != NULL && t->icrc_bad > 0 && t->icrc_good == 0 && rewritten(t) < t->icrc_bad;
}

/* Every RoCEv2 frame carries the RoCE port as its source port, and no good
 * ICRC shows that the sender used it. */
static int sport_all_dport(const struct roce_totals *t)
{
    return t->rocev2_packets >= SPORT_MIN_FRAMES && t->sport_is_dport == t->rocev2_packets &&
           t->icrc_good == 0;
}

void roce_diag_judge(const struct roce_diag_input *in, struct roce_capture_judgement *j)
{
    const struct roce_totals *t = in->t;
    memset(j, 0, sizeof *j);
    if (t == NULL)
        return;
    j->icrc_all_bad = roce_diag_icrc_all_bad(t);
    j->sport_rewritten = t->icrc_rewritten[ROCE_REWRITE_UDP_SPORT] > 0 || sport_all_dport(t);
}

/* A fault of the capture, with its evidence frames. */
static struct cand *fault(struct cands *cs, const struct roce_totals *t, unsigned which,
                          uint64_t count)
{
    struct cand *x = roce_diag_cand(cs, ROCE_DIAG_CAPTURE, ROCE_CAUSE_CAPTURE);
    if (x == NULL)
        return NULL;
    x->s.fault = (uint8_t)which;
    x->s.count = count;
    const struct roce_capture_evidence *ev = &t->capture_frames;
    roce_diag_take_frames(&x->s, ev->frame[which],
                          ev->n[which] < ROCE_EVIDENCE_MAX ? ev->n[which] : ROCE_EVIDENCE_MAX);
    return x;
}

/* The request PSNs the capture kept, against those it should have: over the
 * sequence-checked request flows, new requests seen, and the PSNs of the
 * gaps the capture missed (network-loss gaps were never there to keep;
 * undetermined ones are counted apart). */
static void loss_fault(struct cands *cs, const struct roce_diag_input *in)
{
    struct roce_diag_figures f;
    memset(&f, 0, sizeof f);
    for (size_t i = 0; i < in->n_flows; i++) {
        const struct roce_flow_report *r = in->flows[i].r;
        if (!r->have_psn ||
            (r->transport != ROCE_TRANSPORT_RC && r->transport != ROCE_TRANSPORT_XRC &&
             r->transport != ROCE_TRANSPORT_UC))
            continue;
        uint64_t seen = r->request_packets, gone = r->retransmitted_packets + r->psn_reuse;
        uint64_t missed =
            r->gap_class_psns[ROCE_GAP_CAPTURE_LOSS] + r->gap_class_psns[ROCE_GAP_CAPTURE_INFERRED];
        uint64_t gaps =
            r->gap_class_gaps[ROCE_GAP_CAPTURE_LOSS] + r->gap_class_gaps[ROCE_GAP_CAPTURE_INFERRED];
        f.psns_kept += seen > gone ? seen - gone : 0;
        f.psns_expected += (seen > gone ? seen - gone : 0) + missed;
        f.gaps += gaps;
        f.inferred_gaps += r->gap_class_gaps[ROCE_GAP_CAPTURE_INFERRED];
        f.undetermined_gaps += r->gap_class_gaps[ROCE_GAP_UNDETERMINED];
        if (gaps)
            f.flows++;
    }
    if (f.gaps == 0 || f.psns_kept * 100u >= f.psns_expected * KEPT_PCT)
        return;
    struct cand *x = fault(cs, in->t, ROCE_FAULT_LOSS, f.psns_expected - f.psns_kept);
    if (x != NULL)
        x->s.fig = f;
}

static void truncation_fault(struct cands *cs, const struct roce_totals *t)
{
    struct cand *x;
    if (t->understated_packets == 0 ||
        (x = fault(cs, t, ROCE_FAULT_TRUNCATION, t->understated_packets)) == NULL)
        return;
    x->s.fig.frames = t->understated_packets;
    x->s.fig.caplen_min = t->understated_caplen_min;
    x->s.fig.caplen_max = t->understated_caplen_max;
    x->s.fig.declared_min = t->understated_declared_min;
    x->s.fig.declared_max = t->understated_declared_max;
}

/* The step of the capture's time stamps in ns: 1 when some are not whole
 * microseconds, 0 when there are none. */
static uint64_t resolution(const struct roce_totals *t)
{
    return t->ts_steps[ROCE_TS_FINE] ? 1
           : t->ts_steps[ROCE_TS_US] ? NS_PER_US
           : t->ts_steps[ROCE_TS_MS] ? NS_PER_MS
                                     : 0;
}

/* The shortest latency measured (ACK or CNP), or UINT64_MAX when none. */
static uint64_t shortest_latency(const struct roce_totals *t)
{
    uint64_t m = UINT64_MAX;
    if (t->ack_latency.count && (uint64_t)t->ack_latency.min < m)
        m = (uint64_t)t->ack_latency.min;
    if (t->cnp_latency.count && (uint64_t)t->cnp_latency.min < m)
        m = (uint64_t)t->cnp_latency.min;
    return m;
}

/* Time stamps too coarse for what the capture measures: coarser than 1 us,
 * or a step that latencies measured fall under. */
static void timestamps_fault(struct cands *cs, const struct roce_totals *t)
{
    uint64_t res = resolution(t);
    struct cand *x;
    uint64_t shortest = shortest_latency(t);
    if (res <= 1 || (res <= NS_PER_US && shortest >= res) ||
        (x = fault(cs, t, ROCE_FAULT_TIMESTAMPS, t->ts_repeated ? t->ts_repeated : 1)) == NULL)
        return;
    x->s.fig.resolution_ns = res;
    x->s.fig.frames = t->ts_repeated;
    x->s.fig.of_frames = t->roce_packets;
    x->s.fig.latency_min_ns = shortest == UINT64_MAX ? 0 : shortest;
}

static void clock_fault(struct cands *cs, const struct roce_totals *t)
{
    struct cand *x;
    if (t->responses_early + t->time_backwards == 0 ||
        (x = fault(cs, t, ROCE_FAULT_CLOCK, t->responses_early + t->time_backwards)) == NULL)
        return;
    x->s.fig.responses_early = t->responses_early;
    x->s.fig.backwards = t->time_backwards;
}

static void rewrite_faults(struct cands *cs, const struct roce_totals *t, uint16_t port)
{
    struct cand *x;
    for (unsigned f = ROCE_REWRITE_NONE + 1; f < ROCE_REWRITE_FIELDS; f++) {
        if (t->icrc_rewritten[f] == 0 ||
            (x = fault(cs, t, ROCE_FAULT_REWRITE, t->icrc_rewritten[f])) == NULL)
            continue;
        x->s.field = (uint8_t)f;
        x->s.fig.frames = t->icrc_rewritten[f];
        x->s.fig.of_frames = t->icrc_bad;
    }
    if (t->icrc_rewritten[ROCE_REWRITE_UDP_SPORT] == 0 && sport_all_dport(t) &&
        (x = fault(cs, t, ROCE_FAULT_REWRITE, t->sport_is_dport)) != NULL) {
        /* no ICRC to prove it: every frame on the RoCE port as source port */
        x->s.field = ROCE_REWRITE_UDP_SPORT;
        x->s.udp_sport = port;
        x->s.fig.frames = t->sport_is_dport;
        x->s.fig.of_frames = t->rocev2_packets;
    }
}

void roce_diag_capture_findings(struct cands *cs, const struct roce_diag_input *in,
                                const struct roce_capture_judgement *j)
{
    const struct roce_totals *t = in->t;
    (void)j;
    if (t == NULL)
        return;
    loss_fault(cs, in);
    truncation_fault(cs, t);
    timestamps_fault(cs, t);
    clock_fault(cs, t);
    rewrite_faults(cs, t, in->cfg != NULL ? in->cfg->udp_port : 0);
}
