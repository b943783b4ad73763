/*
 * roce_diag.c - the diagnoses (see roce_diag.h): one list of findings,
 * computed from report data only, so that the engine, a report read back
 * and a merged report give the same list.
 *
 * ANALYSIS.md "Diagnoses", "The list": every kind has its severity,
 * subject, condition and count; the list is ordered by severity, count
 * (descending) and first evidence frame. Two findings of the same kind and
 * subject (a merged report may hold one flow key twice) are one finding:
 * counts add, frames join. Each gets one sentence with its numbers.
 */
#include "roce_diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce_time.h"

#define PPM         1000000u
#define KBPS_PER_GB 1000u
#define CANDS_MIN   16u
#define MAX_QP_TEXT 80

static const char *const kind_names[ROCE_DIAG_KINDS] = {
    [ROCE_DIAG_PACKET_LOSS] = "packet_loss",
    [ROCE_DIAG_CAPTURE_LOSS] = "capture_loss",
    [ROCE_DIAG_RETRANSMISSION_TIMEOUT] = "retransmission_timeout",
    [ROCE_DIAG_RNR] = "rnr",
    [ROCE_DIAG_REMOTE_ERROR] = "remote_error",
    [ROCE_DIAG_CNP_IGNORED] = "cnp_ignored",
    [ROCE_DIAG_CE_UNANSWERED] = "ce_unanswered",
    [ROCE_DIAG_SLOW_RECEIVER] = "slow_receiver",
    [ROCE_DIAG_PFC_STORM] = "pfc_storm",
    [ROCE_DIAG_ECMP_COLLISION] = "ecmp_collision",
    [ROCE_DIAG_ICRC_ERROR] = "icrc_error",
    [ROCE_DIAG_PSN_REUSE] = "psn_reuse",
};

static const uint8_t kind_severity[ROCE_DIAG_KINDS] = {
    [ROCE_DIAG_PACKET_LOSS] = ROCE_SEV_WARNING,
    [ROCE_DIAG_CAPTURE_LOSS] = ROCE_SEV_WARNING,
    [ROCE_DIAG_RETRANSMISSION_TIMEOUT] = ROCE_SEV_WARNING,
    [ROCE_DIAG_RNR] = ROCE_SEV_WARNING,
    [ROCE_DIAG_REMOTE_ERROR] = ROCE_SEV_ERROR,
    [ROCE_DIAG_CNP_IGNORED] = ROCE_SEV_WARNING,
    [ROCE_DIAG_CE_UNANSWERED] = ROCE_SEV_WARNING,
    [ROCE_DIAG_SLOW_RECEIVER] = ROCE_SEV_WARNING,
    [ROCE_DIAG_PFC_STORM] = ROCE_SEV_ERROR,
    [ROCE_DIAG_ECMP_COLLISION] = ROCE_SEV_NOTE,
    [ROCE_DIAG_ICRC_ERROR] = ROCE_SEV_ERROR,
    [ROCE_DIAG_PSN_REUSE] = ROCE_SEV_WARNING,
};

static const char *const severity_names[] = {"error", "warning", "note"};

static const char *const basis_names[ROCE_MAC_BASIS_COUNT] = {
    [ROCE_MAC_UNROUTED] = "unrouted",
    [ROCE_MAC_ROUTED] = "routed",
    [ROCE_MAC_SEVERAL] = "several_addresses",
    [ROCE_MAC_NO_ROCE] = "no_roce",
};

static const char *const dcqcn_names[ROCE_DCQCN_VERDICTS] = {
    [ROCE_DCQCN_UNDETERMINED] = "undetermined",
    [ROCE_DCQCN_REACTED] = "reacted",
    [ROCE_DCQCN_IGNORED] = "ignored",
};

const char *roce_diag_kind_name(unsigned kind)
{
    return kind < ROCE_DIAG_KINDS ? kind_names[kind] : "unknown";
}

const char *roce_diag_severity_name(unsigned sev)
{
    return sev <= ROCE_SEV_NOTE ? severity_names[sev] : "unknown";
}

unsigned roce_diag_kind_severity(unsigned kind)
{
    return kind < ROCE_DIAG_KINDS ? kind_severity[kind] : ROCE_SEV_NOTE;
}

const char *roce_mac_basis_name(unsigned basis)
{
    return basis < ROCE_MAC_BASIS_COUNT ? basis_names[basis] : "unknown";
}

const char *roce_dcqcn_verdict_name(unsigned v)
{
    return v < ROCE_DCQCN_VERDICTS ? dcqcn_names[v] : "unknown";
}

/* ---- MACs ---- */

/* The TTLs (hop limits) hosts send with: RoCE NICs use 64 (Linux) or 255
 * (perftest, NCCL), Windows stacks 128; a router decrements it. RoCEv1 is
 * never routed, nor is a link-local source. */
#define LINK_LOCAL_V6_0    0xFEu
#define LINK_LOCAL_V6_1    0x80u
#define LINK_LOCAL_V6_MASK 0xC0u
#define LINK_LOCAL_V4_0    169u
#define LINK_LOCAL_V4_1    254u

int roce_frame_unrouted(unsigned ttl, unsigned version, const uint8_t src[ROCE_ADDR_LEN])
{
    if (version == 1 || ttl == 64 || ttl == 128 || ttl == 255)
        return 1;
    if (roce_addr_is_v4(src)) {
        const uint8_t *v4 = roce_addr_v4(src);
        return v4[0] == LINK_LOCAL_V4_0 && v4[1] == LINK_LOCAL_V4_1;
    }
    return src[0] == LINK_LOCAL_V6_0 && (src[1] & LINK_LOCAL_V6_MASK) == LINK_LOCAL_V6_1;
}

unsigned roce_host_mac_role(const struct roce_host_mac *m)
{
    if (m->addresses == 0)
        return ROCE_MAC_NO_ROCE;
    if (m->addresses > 1)
        return ROCE_MAC_SEVERAL;
    return m->unrouted_frames > 0 ? ROCE_MAC_UNROUTED : ROCE_MAC_ROUTED;
}

void roce_host_mac_merge(struct roce_host_mac *dst, const struct roce_host_mac *src,
                         uint64_t frame_off)
{
    if (src->addresses > 0) {
        if (dst->addresses == 0) {
            dst->addresses = src->addresses;
            dst->version = src->version;
            dst->af = src->af;
            memcpy(dst->addr, src->addr, ROCE_ADDR_LEN);
            dst->addr_frame = src->addr_frame ? src->addr_frame + frame_off : 0;
            dst->ttl_min = src->ttl_min;
            dst->ttl_max = src->ttl_max;
        } else {
            if (src->addresses > 1 || memcmp(dst->addr, src->addr, ROCE_ADDR_LEN) != 0)
                dst->addresses = 2;
            if (src->addr_frame != 0 && src->addr_frame + frame_off < dst->addr_frame) {
                /* src saw its address first (another part of a split analysis) */
                dst->version = src->version;
                dst->af = src->af;
                memcpy(dst->addr, src->addr, ROCE_ADDR_LEN);
                dst->addr_frame = src->addr_frame + frame_off;
            }
            if (src->ttl_min < dst->ttl_min)
                dst->ttl_min = src->ttl_min;
            if (src->ttl_max > dst->ttl_max)
                dst->ttl_max = src->ttl_max;
        }
    }
    if (src->first_frame != 0 &&
        (dst->first_frame == 0 || src->first_frame + frame_off < dst->first_frame))
        dst->first_frame = src->first_frame + frame_off;
    dst->checked_frames += src->checked_frames;
    dst->unrouted_frames += src->unrouted_frames;
    dst->pfc_frames += src->pfc_frames;
    dst->pause_frames += src->pause_frames;
    for (unsigned i = 0; i < src->n_frames && dst->n_frames < ROCE_EVIDENCE_MAX; i++)
        dst->frames[dst->n_frames++] = src->frames[i] + frame_off;
}

/* ---- recovery histograms ---- */

/* Bucket bounds: recovery times in ns from 1 us to 1 s, the DCQCN ratio in
 * ppm around the verdict thresholds. */
static const int64_t time_bounds[ROCE_HIST_BUCKETS] = {1000,     2000,      5000,      10000,
                                                       20000,    50000,     100000,    1000000,
                                                       10000000, 100000000, 500000000, 1000000000};
static const int64_t ratio_bounds[ROCE_HIST_BUCKETS] = {100000, 250000,  500000,  600000,
                                                        700000, 800000,  850000,  900000,
                                                        950000, 1000000, 1250000, 2000000};

const int64_t *roce_hist_bounds(unsigned kind)
{
    return kind == ROCE_HIST_DCQCN_RATIO ? ratio_bounds : time_bounds;
}

void roce_hist_add(struct roce_hist *h, unsigned kind, int64_t v)
{
    const int64_t *b = roce_hist_bounds(kind);
    unsigned i = 0;
    if (v < 0)
        v = 0;
    while (i < ROCE_HIST_BUCKETS && v > b[i])
        i++;
    h->bucket[i]++;
    h->count++;
    h->sum += v;
}

/* ---- the list ---- */

/* A finding while the list is made, with the numbers its sentence needs. */
struct cand {
    struct roce_diagnosis d;
    uint64_t a, b, c, e; /* kind-specific numbers (see summarize) */
    uint32_t before_mbps, after_mbps, ratio_ppm;
    uint8_t ttl;
    uint8_t icrc_all_bad;
};

struct cands {
    struct cand *c;
    size_t n, cap;
    int oom;
};

static struct cand *add(struct cands *cs, unsigned kind)
{
    if (cs->n == cs->cap) {
        size_t cap = cs->cap ? cs->cap * 2 : CANDS_MIN;
        struct cand *c = realloc(cs->c, cap * sizeof *c);
        if (c == NULL) {
            cs->oom = 1;
            return NULL;
        }
        cs->c = c;
        cs->cap = cap;
    }
    struct cand *x = &cs->c[cs->n++];
    memset(x, 0, sizeof *x);
    x->d.kind = (uint8_t)kind;
    x->d.severity = (uint8_t)roce_diag_kind_severity(kind);
    return x;
}

static void take_frames(struct roce_diagnosis *d, const struct roce_evidence *ev, unsigned kind)
{
    if (ev == NULL)
        return;
    for (unsigned i = 0; i < ev->n[kind] && i < ROCE_EVIDENCE_MAX; i++)
        d->frames[d->n_frames++] = ev->frame[kind][i];
}

/* A finding about a flow (subject key). */
static struct cand *flow_cand(struct cands *cs, unsigned kind, const struct roce_flow_key *key,
                              uint64_t count, const struct roce_evidence *ev)
{
    struct cand *x = add(cs, kind);
    if (x == NULL)
        return NULL;
    x->d.flow = *key;
    x->d.count = count;
    take_frames(&x->d, ev, kind);
    return x;
}

static void flow_findings(struct cands *cs, const struct roce_diag_flow *df,
                          const struct roce_config *cfg, int icrc_all_bad)
{
    const struct roce_flow_report *r = df->r;
    const struct roce_evidence *ev = df->ev;
    const struct roce_flow_key *requester = df->peer != NULL ? df->peer : &r->key;
    struct cand *x;

    uint64_t classified = r->capture_loss_gaps + r->gaps_pending;
    uint64_t net_gaps = r->gap_events > classified ? r->gap_events - classified : 0;
    uint64_t nak_eps = r->by_trigger[ROCE_TRIGGER_NAK] + r->by_trigger[ROCE_TRIGGER_IMPLIED];
    if ((net_gaps || nak_eps) &&
        (x = flow_cand(cs, ROCE_DIAG_PACKET_LOSS, &r->key, net_gaps > nak_eps ? net_gaps : nak_eps,
                       ev)) != NULL) {
        x->a = net_gaps;
        x->b = net_gaps ? r->missing_psns - r->capture_loss_psns : 0;
        x->c = r->by_trigger[ROCE_TRIGGER_NAK];
        x->e = r->by_trigger[ROCE_TRIGGER_IMPLIED];
    }
    if (r->capture_loss_gaps &&
        (x = flow_cand(cs, ROCE_DIAG_CAPTURE_LOSS, &r->key, r->capture_loss_gaps, ev)) != NULL)
        x->b = r->capture_loss_psns;
    if (r->by_trigger[ROCE_TRIGGER_TIMEOUT])
        flow_cand(cs, ROCE_DIAG_RETRANSMISSION_TIMEOUT, &r->key,
                  r->by_trigger[ROCE_TRIGGER_TIMEOUT], ev);
    /* NAKs travel B->A: their request flow is the paired one */
    if (r->naks.rnr)
        flow_cand(cs, ROCE_DIAG_RNR, requester, r->naks.rnr, ev);
    uint64_t errors = 0;
    for (unsigned c = ROCE_NAK_INVALID_REQUEST; c < ROCE_NAK_CODES; c++)
        errors += r->naks.code[c];
    if (errors && (x = flow_cand(cs, ROCE_DIAG_REMOTE_ERROR, requester, errors, ev)) != NULL) {
        x->a = r->naks.code[ROCE_NAK_INVALID_REQUEST];
        x->b = r->naks.code[ROCE_NAK_REMOTE_ACCESS_ERROR];
        x->c = r->naks.code[ROCE_NAK_REMOTE_OPERATIONAL_ERROR] +
               r->naks.code[ROCE_NAK_INVALID_RD_REQUEST];
    }
    if (r->dcqcn.tracked && r->dcqcn.verdict == ROCE_DCQCN_IGNORED &&
        (x = flow_cand(cs, ROCE_DIAG_CNP_IGNORED, &r->key, r->dcqcn.cnps_evaluated, ev)) != NULL) {
        x->before_mbps = r->dcqcn.rate_before_mbps;
        x->after_mbps = r->dcqcn.rate_after_mbps;
        x->ratio_ppm = r->dcqcn.ratio_ppm;
    }
    if (r->ce_unanswered >= cfg->ce_unanswered_min && r->ce_answered == 0)
        flow_cand(cs, ROCE_DIAG_CE_UNANSWERED, &r->key, r->ce_marked, ev);
    if (r->bad_icrc && (x = flow_cand(cs, ROCE_DIAG_ICRC_ERROR, &r->key, r->bad_icrc, ev)) != NULL)
        x->icrc_all_bad = (uint8_t)icrc_all_bad;
    if (r->psn_reuse)
        flow_cand(cs, ROCE_DIAG_PSN_REUSE, &r->key, r->psn_reuse, ev);
}

static void mac_findings(struct cands *cs, const struct roce_diag_input *in)
{
    for (size_t i = 0; i < in->n_macs; i++) {
        const struct roce_host_mac *m = &in->macs[i];
        struct cand *x;
        if (m->pfc_frames + m->pause_frames == 0 || roce_host_mac_role(m) != ROCE_MAC_UNROUTED ||
            (x = add(cs, ROCE_DIAG_SLOW_RECEIVER)) == NULL)
            continue;
        memcpy(x->d.mac, m->mac, ROCE_MAC_LEN);
        memcpy(x->d.flow.src, m->addr, ROCE_ADDR_LEN);
        x->d.flow.version = m->version;
        x->d.flow.af = m->af;
        x->d.count = m->pfc_frames + m->pause_frames;
        for (unsigned k = 0; k < m->n_frames && k < ROCE_EVIDENCE_MAX; k++)
            x->d.frames[x->d.n_frames++] = m->frames[k];
        x->a = m->pfc_frames;
        x->b = m->pause_frames;
        x->ttl = m->ttl_max;
    }
}

static void storm_findings(struct cands *cs, const struct roce_totals *t)
{
    for (unsigned p = 0; p <= ROCE_PFC_PRIORITIES; p++) {
        const struct roce_pfc_prio *q = p < ROCE_PFC_PRIORITIES ? &t->pfc.prio[p] : &t->pfc.pause;
        struct cand *x;
        if (!q->storm_windows || (x = add(cs, ROCE_DIAG_PFC_STORM)) == NULL)
            continue;
        x->d.priority = (uint8_t)p;
        x->d.count = q->storm_windows;
        for (unsigned k = 0; k < t->storm_frames.n[p] && k < ROCE_EVIDENCE_MAX; k++)
            x->d.frames[x->d.n_frames++] = t->storm_frames.frame[p][k];
    }
}

/* ---- ECMP collisions ---- */

/* One source port of one RoCEv2 request flow. */
struct port_use {
    const struct roce_flow_report *r;
    uint16_t sport;
};

static int addr_pair_cmp(const struct roce_flow_key *a, const struct roce_flow_key *b)
{
    int c = memcmp(a->src, b->src, ROCE_ADDR_LEN);
    if (c == 0)
        c = memcmp(a->dst, b->dst, ROCE_ADDR_LEN);
    if (c == 0)
        c = (a->version > b->version) - (a->version < b->version);
    return c;
}

static int cmp_use(const void *pa, const void *pb)
{
    const struct port_use *a = pa, *b = pb;
    int c = addr_pair_cmp(&a->r->key, &b->r->key);
    if (c == 0)
        c = (a->sport > b->sport) - (a->sport < b->sport);
    if (c == 0)
        c = (a->r->key.dqpn > b->r->key.dqpn) - (a->r->key.dqpn < b->r->key.dqpn);
    if (c == 0)
        c = (a->r->first_frame > b->r->first_frame) - (a->r->first_frame < b->r->first_frame);
    return c;
}

/* A dest QP of a group of port uses: when its flows were active. */
struct qp_span {
    uint32_t dqpn;
    int64_t first, last;
    uint64_t first_frame;
    uint8_t overlaps;
};

/* The group of uses [from, to) (same addresses and port) as a finding when
 * two dest QPs or more of it were active at the same time (flows that never
 * overlapped never competed for the path: ANALYSIS.md "Decisions"). */
static void ecmp_group(struct cands *cs, const struct port_use *u, size_t from, size_t to)
{
    struct qp_span *q = malloc((to - from) * sizeof *q);
    struct roce_evidence firsts; /* kind 0: the lowest first frames of the flows */
    size_t nq = 0, busy = 0;
    struct cand *x = NULL;
    if (q == NULL) {
        cs->oom = 1;
        return;
    }
    for (size_t i = from; i < to; i++) { /* sorted by dest QP: one span per QP */
        const struct roce_flow_report *r = u[i].r;
        if (nq == 0 || q[nq - 1].dqpn != r->key.dqpn) {
            q[nq++] =
                (struct qp_span){r->key.dqpn, r->first_ts_ns, r->last_ts_ns, r->first_frame, 0};
            continue;
        }
        struct qp_span *p = &q[nq - 1];
        if (r->first_ts_ns < p->first)
            p->first = r->first_ts_ns;
        if (r->last_ts_ns > p->last)
            p->last = r->last_ts_ns;
        if (r->first_frame && (p->first_frame == 0 || r->first_frame < p->first_frame))
            p->first_frame = r->first_frame;
    }
    for (size_t i = 0; i < nq; i++)
        for (size_t j = i + 1; j < nq; j++)
            if (q[i].first <= q[j].last && q[j].first <= q[i].last)
                q[i].overlaps = q[j].overlaps = 1;
    for (size_t i = 0; i < nq; i++)
        busy += q[i].overlaps;
    if (busy >= 2 && (x = add(cs, ROCE_DIAG_ECMP_COLLISION)) != NULL) {
        x->d.flow = u[from].r->key;
        x->d.flow.dqpn = 0;
        x->d.udp_sport = u[from].sport;
        x->d.count = busy;
        memset(&firsts, 0, sizeof firsts);
        for (size_t i = 0; i < nq; i++) {
            if (!q[i].overlaps)
                continue;
            if (x->d.n_dest_qps < ROCE_DIAG_MAX_QPS)
                x->d.dest_qps[x->d.n_dest_qps++] = q[i].dqpn;
            roce_evidence_add(&firsts, 0, q[i].first_frame);
        }
        memcpy(x->d.frames, firsts.frame[0], sizeof x->d.frames);
        x->d.n_frames = firsts.n[0];
    }
    free(q);
}

static void ecmp_findings(struct cands *cs, const struct roce_diag_input *in)
{
    size_t n = 0;
    for (size_t i = 0; i < in->n_flows; i++)
        n += in->flows[i].r->n_udp_sports;
    if (n < 2)
        return;
    struct port_use *u = malloc(n * sizeof *u);
    if (u == NULL) {
        cs->oom = 1;
        return;
    }
    n = 0;
    for (size_t i = 0; i < in->n_flows; i++) {
        const struct roce_flow_report *r = in->flows[i].r;
        for (unsigned k = 0; k < r->n_udp_sports && k < ROCE_UDP_SPORTS_MAX; k++) {
            u[n].r = r;
            u[n++].sport = r->udp_sports[k];
        }
    }
    qsort(u, n, sizeof *u, cmp_use);
    for (size_t from = 0, i = 1; i <= n; i++)
        if (i == n || addr_pair_cmp(&u[i].r->key, &u[from].r->key) != 0 ||
            u[i].sport != u[from].sport) {
            ecmp_group(cs, u, from, i);
            from = i;
        }
    free(u);
}

/* ---- merging equal findings, ordering ---- */

/* The subject of a finding, for grouping and the last ordering key. */
static int cmp_subject(const struct roce_diagnosis *a, const struct roce_diagnosis *b)
{
    int c = memcmp(&a->flow, &b->flow, sizeof a->flow);
    if (c == 0)
        c = memcmp(a->mac, b->mac, sizeof a->mac);
    if (c == 0)
        c = (a->priority > b->priority) - (a->priority < b->priority);
    if (c == 0)
        c = (a->udp_sport > b->udp_sport) - (a->udp_sport < b->udp_sport);
    return c;
}

int roce_diag_same(const struct roce_diagnosis *a, const struct roce_diagnosis *b)
{
    return a->kind == b->kind && cmp_subject(a, b) == 0;
}

static int cmp_group(const void *pa, const void *pb)
{
    const struct cand *a = pa, *b = pb;
    if (a->d.kind != b->d.kind)
        return a->d.kind < b->d.kind ? -1 : 1;
    return cmp_subject(&a->d, &b->d);
}

static uint64_t first_frame(const struct roce_diagnosis *d)
{
    return d->n_frames ? d->frames[0] : UINT64_MAX;
}

static int cmp_order(const void *pa, const void *pb)
{
    const struct roce_diagnosis *a = &((const struct cand *)pa)->d;
    const struct roce_diagnosis *b = &((const struct cand *)pb)->d;
    if (a->severity != b->severity)
        return a->severity < b->severity ? -1 : 1;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    if (first_frame(a) != first_frame(b))
        return first_frame(a) < first_frame(b) ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    return cmp_subject(a, b);
}

/* dst += src: counts and numbers add, frames join (the lowest kept). */
static void join(struct cand *dst, const struct cand *src)
{
    struct roce_evidence ev;
    dst->d.count += src->d.count;
    dst->a += src->a;
    dst->b += src->b;
    dst->c += src->c;
    dst->e += src->e;
    memset(&ev, 0, sizeof ev);
    for (unsigned i = 0; i < dst->d.n_frames; i++)
        roce_evidence_add(&ev, 0, dst->d.frames[i]);
    for (unsigned i = 0; i < src->d.n_frames; i++)
        roce_evidence_add(&ev, 0, src->d.frames[i]);
    memcpy(dst->d.frames, ev.frame[0], sizeof dst->d.frames);
    dst->d.n_frames = ev.n[0];
}

/* ---- the sentences ---- */

/* Append to the summary s (cut at ROCE_DIAG_SUMMARY_LEN - 1 characters, as
 * meant: the return value is looked at, so GCC does not warn of the cut). */
#define SAY(...)                                                                                   \
    do {                                                                                           \
        size_t at_ = strlen(s);                                                                    \
        if (at_ < ROCE_DIAG_SUMMARY_LEN &&                                                         \
            snprintf(s + at_, ROCE_DIAG_SUMMARY_LEN - at_, __VA_ARGS__) < 0)                       \
            s[at_] = '\0'; /* an encoding error: what was there stays */                           \
    } while (0)

static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

/* "SRC -> DST QP 0x00002c" */
static void flow_text(const struct roce_flow_key *k, char *buf, size_t len)
{
    char s[ROCE_ADDR_TEXT_LEN], d[ROCE_ADDR_TEXT_LEN];
    roce_addr_format(k->src, k->af, s, sizeof s);
    roce_addr_format(k->dst, k->af, d, sizeof d);
    (void)snprintf(buf, len, "%s -> %s QP 0x%06x", s, d, (unsigned)k->dqpn);
}

/* Gb/s with one decimal from Mb/s. */
static void gbps(uint32_t mbps, char *buf, size_t len)
{
    (void)snprintf(buf, len, "%u.%u", mbps / KBPS_PER_GB, (mbps % KBPS_PER_GB) / 100);
}

/* A duration such as "1 s", "500 ms", "250 us" or "1500 ns". */
static void duration(int64_t ns, char *buf, size_t len)
{
    if (ns % ROCE_NS_PER_SEC == 0)
        (void)snprintf(buf, len, "%lld s", (long long)(ns / ROCE_NS_PER_SEC));
    else if (ns % ROCE_NS_PER_MS == 0)
        (void)snprintf(buf, len, "%lld ms", (long long)(ns / ROCE_NS_PER_MS));
    else if (ns % ROCE_NS_PER_US == 0)
        (void)snprintf(buf, len, "%lld us", (long long)(ns / ROCE_NS_PER_US));
    else
        (void)snprintf(buf, len, "%lld ns", (long long)ns);
}

static void summarize(struct cand *x, const struct roce_config *cfg)
{
    struct roce_diagnosis *d = &x->d;
    char *s = d->summary, f[ROCE_ADDR_TEXT_LEN * 2 + 32], a[ROCE_ADDR_TEXT_LEN],
         b[ROCE_ADDR_TEXT_LEN], m[ROCE_MAC_TEXT_LEN];
    uint64_t n = d->count;

    s[0] = '\0';
    flow_text(&d->flow, f, sizeof f);
    switch (d->kind) {
    case ROCE_DIAG_PACKET_LOSS: {
        const char *sep = "";
        SAY("%s lost packets in the network (", f);
        if (x->a) {
            SAY("%llu PSN gap%s, %llu PSN%s missing", (unsigned long long)x->a, plural(x->a),
                (unsigned long long)x->b, plural(x->b));
            sep = "; ";
        }
        if (x->c) {
            SAY("%s%llu resend%s after a NAK", sep, (unsigned long long)x->c, plural(x->c));
            sep = "; ";
        }
        if (x->e)
            SAY("%s%llu READ%s re-issued after lost responses", sep, (unsigned long long)x->e,
                plural(x->e));
        SAY("): check the drop and error counters of the switch ports on its path");
        break;
    }
    case ROCE_DIAG_CAPTURE_LOSS:
        SAY("%s: the capture missed %llu burst%s (%llu PSN%s) that the responder acknowledged, so "
            "the network delivered them: the capture dropped them, give it a larger buffer or a "
            "hardware tap",
            f, (unsigned long long)n, plural(n), (unsigned long long)x->b, plural(x->b));
        break;
    case ROCE_DIAG_RETRANSMISSION_TIMEOUT:
        SAY("%s resent %llu time%s after a timeout with no NAK seen: requests or their ACKs were "
            "lost where this capture does not see, or the responder stalled",
            f, (unsigned long long)n, plural(n));
        break;
    case ROCE_DIAG_RNR:
        SAY("%s got %llu RNR NAK%s: the responder had no receive buffer posted; post receives "
            "ahead of the sender or raise its RNR retry count",
            f, (unsigned long long)n, plural(n));
        break;
    case ROCE_DIAG_REMOTE_ERROR:
        SAY("%s: the responder rejected %llu request%s (", f, (unsigned long long)n, plural(n));
        if (x->b)
            SAY("remote access error %llu%s", (unsigned long long)x->b, x->a || x->c ? ", " : "");
        if (x->a)
            SAY("invalid request %llu%s", (unsigned long long)x->a, x->c ? ", " : "");
        if (x->c)
            SAY("remote operational or invalid RD request %llu", (unsigned long long)x->c);
        SAY("): check the memory region's rkey, bounds and access rights; the QP is now in the "
            "error state");
        break;
    case ROCE_DIAG_CNP_IGNORED:
        gbps(x->after_mbps, a, sizeof a);
        gbps(x->before_mbps, b, sizeof b);
        SAY("%s kept sending at %s Gb/s after %llu CNP%s (%s Gb/s before, median ratio "
            "%u.%02u): %s",
            f, a, (unsigned long long)n, plural(n), b, x->ratio_ppm / PPM,
            (x->ratio_ppm % PPM) / (PPM / 100),
            d->flow.version == ROCE_VERSION_IB
                ? "congestion control is not slowing this sender, check that it is enabled on "
                  "its HCA and in the subnet manager"
                : "DCQCN is not slowing this sender, check that congestion control is enabled "
                  "on its NIC");
        break;
    case ROCE_DIAG_CE_UNANSWERED:
        if (d->flow.version == ROCE_VERSION_IB)
            SAY("%s: %llu FECN-marked packet%s and no CNP or BECN for %s: the receiver's HCA "
                "returns no congestion notification (congestion control off) or it takes a path "
                "this capture does not see",
                f, (unsigned long long)n, plural(n), n == 1 ? "it" : "any of them");
        else
            SAY("%s: %llu CE-marked packet%s and no CNP for %s: the receiver's NIC sends no CNPs "
                "(ECN notification off) or they take a path this capture does not see",
                f, (unsigned long long)n, plural(n), n == 1 ? "it" : "any of them");
        break;
    case ROCE_DIAG_SLOW_RECEIVER:
        roce_addr_format(d->flow.src, d->flow.af, a, sizeof a);
        roce_mac_format(d->mac, m, sizeof m);
        SAY("host %s (NIC MAC %s, the source of its RoCE frames, which arrive unrouted with ", a,
            m);
        if (d->flow.version == 1)
            SAY("RoCEv1");
        else
            SAY("TTL %u", x->ttl);
        SAY(") sent %llu PFC/PAUSE frame%s: this receiver cannot keep up and pauses the fabric",
            (unsigned long long)n, plural(n));
        break;
    case ROCE_DIAG_PFC_STORM:
        duration(cfg->pfc_window_ns, a, sizeof a);
        if (d->priority < ROCE_PFC_PRIORITIES)
            SAY("priority %u", d->priority);
        else
            SAY("the link (802.3x PAUSE)");
        SAY(" was paused for more than %u%% of %llu window%s of %s: a pause storm, find the port "
            "that keeps sending XOFF (a stuck or slow receiver)",
            (unsigned)cfg->pfc_storm_pct, (unsigned long long)n, plural(n), a);
        break;
    case ROCE_DIAG_ECMP_COLLISION: {
        char qps[MAX_QP_TEXT] = "";
        for (unsigned i = 0; i < d->n_dest_qps; i++) {
            size_t at = strlen(qps);
            (void)snprintf(qps + at, sizeof qps - at, "%s0x%06x", i ? ", " : "",
                           (unsigned)d->dest_qps[i]);
        }
        roce_addr_format(d->flow.src, d->flow.af, a, sizeof a);
        roce_addr_format(d->flow.dst, d->flow.af, b, sizeof b);
        SAY("%llu QPs from %s to %s (%s%s) share UDP source port %u: every ECMP hash puts them on "
            "one path; give each QP its own source port",
            (unsigned long long)n, a, b, qps, n > d->n_dest_qps ? ", ..." : "", d->udp_sport);
        break;
    }
    case ROCE_DIAG_ICRC_ERROR:
        if (x->icrc_all_bad)
            SAY("%s: %llu frame%s with a bad ICRC, like every ICRC checked in this capture: the "
                "capture path probably altered the frames (a header-rewriting sniffer or mirror), "
                "not a link",
                f, (unsigned long long)n, plural(n));
        else
            SAY("%s: %llu frame%s with a bad ICRC, corrupted on the way: check the CRC and FEC "
                "error counters of the links on its path",
                f, (unsigned long long)n, plural(n));
        break;
    case ROCE_DIAG_PSN_REUSE:
        SAY("%s: %llu request%s reuse%s a PSN of an earlier RDMA READ's span, a requester bug "
            "that stalls the connection: fix the requester's PSN accounting",
            f, (unsigned long long)n, plural(n), n == 1 ? "s" : "");
        break;
    default:
        break;
    }
}

size_t roce_diag_subject(const struct roce_diagnosis *d, char *buf, size_t len)
{
    char a[ROCE_ADDR_TEXT_LEN], b[ROCE_ADDR_TEXT_LEN], m[ROCE_MAC_TEXT_LEN];
    int n;
    roce_addr_format(d->flow.src, d->flow.af, a, sizeof a);
    roce_addr_format(d->flow.dst, d->flow.af, b, sizeof b);
    switch (d->kind) {
    case ROCE_DIAG_SLOW_RECEIVER:
        roce_mac_format(d->mac, m, sizeof m);
        n = snprintf(buf, len, "host %s MAC %s", a, m);
        break;
    case ROCE_DIAG_PFC_STORM:
        n = d->priority < ROCE_PFC_PRIORITIES ? snprintf(buf, len, "priority %u", d->priority)
                                              : snprintf(buf, len, "link PAUSE");
        break;
    case ROCE_DIAG_ECMP_COLLISION:
        n = snprintf(buf, len, "%s -> %s UDP source port %u", a, b, d->udp_sport);
        break;
    default:
        n = snprintf(buf, len, "%s -> %s QP 0x%06x", a, b, (unsigned)d->flow.dqpn);
        break;
    }
    return n > 0 ? (size_t)n : 0;
}

int roce_diag_icrc_all_bad(const struct roce_totals *t)
{
    return t != NULL && t->icrc_bad > 0 && t->icrc_good == 0;
}

long roce_diagnose(const struct roce_diag_input *in, struct roce_diagnosis *out, size_t cap)
{
    struct cands cs = {NULL, 0, 0, 0};
    const struct roce_totals *t = in->t;
    int all_bad = roce_diag_icrc_all_bad(t);

    for (size_t i = 0; i < in->n_flows; i++)
        flow_findings(&cs, &in->flows[i], in->cfg, all_bad);
    mac_findings(&cs, in);
    if (t != NULL)
        storm_findings(&cs, t);
    ecmp_findings(&cs, in);
    if (cs.oom) {
        free(cs.c);
        return -1;
    }
    size_t n = 0;
    if (cs.n > 1)
        qsort(cs.c, cs.n, sizeof *cs.c, cmp_group);
    for (size_t i = 0; i < cs.n; i++) {
        if (n > 0 && cmp_group(&cs.c[n - 1], &cs.c[i]) == 0)
            join(&cs.c[n - 1], &cs.c[i]);
        else
            cs.c[n++] = cs.c[i];
    }
    if (n > 1)
        qsort(cs.c, n, sizeof *cs.c, cmp_order);
    for (size_t i = 0; i < n && i < cap; i++) {
        summarize(&cs.c[i], in->cfg);
        out[i] = cs.c[i].d;
    }
    free(cs.c);
    return (long)n;
}
