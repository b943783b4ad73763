/*
 * test_html_series.c - the HTML report's series (analyzer/html/html_series.c):
 * time buckets that double their width and keep every packet and byte, PSNs
 * unwrapped across the wrap, retransmissions kept out of the "sent new"
 * bars, frames with verdicts placed by kind and capped (per flow and outside
 * any flow), at the bound the series with the least trouble evicted, `-j`'s
 * renumbering, a PFC/PAUSE timeline that adds up to the engine's paused
 * time, and the capture's timeline (every frame, byte and CE mark). Frames come from rocegen_build
 * through a real engine, or, for the bounds, are written out by hand.
 */
#include <string.h>

#include "html_series.h"
#include "rocegen_build.h"
#include "rocegen_encap.h"
#include "test_harness.h"
#include "test_util.h"

#define US 1000LL

struct run {
    struct roce_engine *e;
    struct roce_html_series *s;
    uint64_t frame;
};

static void run_init(struct run *r)
{
    struct roce_config cfg;
    roce_config_default(&cfg);
    r->s = roce_html_series_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->s);
    cfg.on_verdict = roce_html_series_verdict;
    cfg.ctx = r->s;
    r->e = roce_engine_new(&cfg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->e);
    r->frame = 0;
}

static void run_done(struct run *r)
{
    roce_engine_free(r->e);
    roce_html_series_free(r->s);
}

/* Feed bytes at t (ns after TU_T0_NS) to the engine and the series. */
static void feed_bytes(struct run *r, const uint8_t *f, int n, int64_t t)
{
    CU_ASSERT_FATAL(n > 0);
    struct roce_frame_in in = {++r->frame, TU_T0_NS + t, ROCE_LINKTYPE_ETHERNET,
                               f,          (uint32_t)n,  (uint32_t)n};
    struct roce_frame_out out;
    roce_engine_frame(r->e, &in, &out);
    roce_html_series_frame(r->s, r->e, &in, &out);
}

static void feed(struct run *r, const struct rg_spec *tpl, uint8_t opcode, uint32_t psn,
                 uint8_t syndrome, int ce, int64_t t)
{
    struct rg_spec s = *tpl;
    uint8_t f[RG_MAX_FRAME];
    s.opcode = opcode;
    s.psn = psn & RG_PSN_MASK;
    s.payload_len = opcode == RG_OP_RC_SEND_ONLY ? 64 : 0;
    s.aeth_syndrome = syndrome;
    if (ce)
        s.ecn = RG_ECN_CE;
    feed_bytes(r, f, rg_build(&s, f, sizeof f, NULL), t);
}

static void finish(struct run *r)
{
    roce_engine_finish(r->e);
    roce_html_series_finish(r->s, r->e);
}

static const struct roce_html_flow *flow_of(struct run *r, uint32_t src, uint32_t dst,
                                            uint32_t dqpn, struct roce_flow_report *rep)
{
    struct roce_flow_key k;
    memset(&k, 0, sizeof k);
    rg_addr_v4(k.src, src);
    rg_addr_v4(k.dst, dst);
    k.dqpn = dqpn;
    k.version = 2;
    CU_ASSERT_FATAL(roce_engine_flow_report(r->e, &k, 0, rep) == 0);
    return roce_html_series_flow(r->s, rep->id);
}

/* 5000 requests over 10 s (ever sparser), PSNs from 0xFFFF00 across the
 * wrap: every packet and byte is in a bucket, the width is 16 ns doubled as
 * often as the span needs, the PSNs count on from 0 to 4999. */
static void test_buckets_keep_totals(void)
{
    struct run r;
    struct tu_conn c;
    struct roce_flow_report rep;
    const unsigned n = 5000;
    run_init(&r);
    tu_conn_init(&c, TU_IP_A, TU_IP_B, TU_QA, TU_QB);
    for (unsigned i = 0; i < n; i++)
        feed(&r, &c.req, RG_OP_RC_SEND_ONLY, 0xFFFF00u + i, 0, 0, (int64_t)i * i * 400);
    finish(&r);
    const struct roce_html_flow *f = flow_of(&r, TU_IP_A, TU_IP_B, TU_QB, &rep);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    uint64_t packets = 0, bytes = 0, sent = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (unsigned k = 0; k < ROCE_HTML_BUCKETS; k++) {
        packets += f->b[k].packets;
        bytes += f->b[k].bytes;
        sent += f->b[k].req_new;
        if (f->b[k].req_new) {
            lo = f->b[k].req_lo < lo ? f->b[k].req_lo : lo;
            hi = f->b[k].req_hi > hi ? f->b[k].req_hi : hi;
        }
    }
    CU_ASSERT_EQUAL(packets, n);
    CU_ASSERT_EQUAL(packets, rep.packets);
    CU_ASSERT_EQUAL(bytes, rep.bytes);
    CU_ASSERT_EQUAL(sent, n);
    CU_ASSERT_EQUAL(f->req.first, 0xFFFF00u);
    CU_ASSERT_EQUAL(lo - (int64_t)f->req.first, 0);
    CU_ASSERT_EQUAL(hi - (int64_t)f->req.first, n - 1);
    /* 16 ns doubled: the smallest such width that holds the span */
    int64_t span = (int64_t)(n - 1) * (n - 1) * 400, w = 16;
    while (span / w >= ROCE_HTML_BUCKETS)
        w *= 2;
    CU_ASSERT_EQUAL(f->width_ns, w);
    CU_ASSERT_TRUE(f->b[span / w].packets > 0); /* the last packet in the bucket of its time */
    /* a PSN placed at a time lands next to what was sent then */
    CU_ASSERT_EQUAL(roce_html_flow_psn(f, TU_T0_NS + span, (0xFFFF00u + n - 1) & RG_PSN_MASK),
                    n - 1);
    run_done(&r);
}

/* Go-back-N: 0..9 sent, 3 and 4 lost, a NAK, 3..9 resent. The bars hold
 * the 8 packets sent new, the resends are marks at their PSNs; the NAK is a
 * response mark of the paired flow, placed in the requests' graph at 3. */
static void test_retransmissions_and_marks(void)
{
    struct run r;
    struct tu_conn c;
    struct roce_flow_report req, rsp;
    run_init(&r);
    tu_conn_init(&c, TU_IP_A, TU_IP_B, TU_QA, TU_QB);
    int64_t t = 0;
    for (uint32_t p = 0; p < 10; p++)
        if (p != 3 && p != 4)
            feed(&r, &c.req, RG_OP_RC_SEND_ONLY, 100 + p, 0, 0, t += US);
    feed(&r, &c.rsp, RG_OP_RC_ACK, 103, rg_aeth_nak(0), 0, t += US);
    for (uint32_t p = 3; p < 10; p++)
        feed(&r, &c.req, RG_OP_RC_SEND_ONLY, 100 + p, 0, 0, t += US);
    finish(&r);
    const struct roce_html_flow *f = flow_of(&r, TU_IP_A, TU_IP_B, TU_QB, &req);
    const struct roce_html_flow *g = flow_of(&r, TU_IP_B, TU_IP_A, TU_QA, &rsp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    uint64_t sent = 0;
    for (unsigned k = 0; k < ROCE_HTML_BUCKETS; k++)
        sent += f->b[k].req_new;
    CU_ASSERT_EQUAL(sent, 8);
    CU_ASSERT_EQUAL(req.retransmitted_packets, 7);
    /* marks: the gap (frame 4, PSN 105, 2 missing) and the 7 resends */
    CU_ASSERT_EQUAL_FATAL(f->n_marks, 8);
    CU_ASSERT_EQUAL(f->marks[0].frame, 4);
    CU_ASSERT_TRUE(f->marks[0].flags & ROCE_V_GAP);
    CU_ASSERT_EQUAL(f->marks[0].missing, 2);
    CU_ASSERT_EQUAL(f->marks[0].psn_abs - (int64_t)f->req.first, 5);
    for (unsigned i = 1; i < 8; i++) {
        CU_ASSERT_TRUE(f->marks[i].flags & ROCE_V_RETRANSMISSION);
        CU_ASSERT_EQUAL(f->marks[i].kind, ROCE_HTML_MARK_REQUEST);
        CU_ASSERT_EQUAL(f->marks[i].psn_abs - (int64_t)f->req.first, 2 + i);
    }
    CU_ASSERT_EQUAL_FATAL(g->n_marks, 1);
    CU_ASSERT_TRUE(g->marks[0].flags & ROCE_V_NAK);
    CU_ASSERT_EQUAL(g->marks[0].kind, ROCE_HTML_MARK_RESPONSE);
    CU_ASSERT_EQUAL(roce_html_flow_psn(f, g->marks[0].ts_ns, g->marks[0].psn), 3);
    CU_ASSERT_EQUAL(r.s->marks_dropped, 0);
    run_done(&r);
}

/* More CE marks than a flow keeps: the first ROCE_HTML_MARKS_PER_FLOW are
 * kept, the others counted; frames outside any flow likewise. */
static void test_marks_bounded(void)
{
    struct run r;
    struct tu_conn c;
    struct roce_flow_report rep;
    const unsigned extra = 10;
    run_init(&r);
    tu_conn_init(&c, TU_IP_A, TU_IP_B, TU_QA, TU_QB);
    for (unsigned i = 0; i < ROCE_HTML_MARKS_PER_FLOW + extra; i++)
        feed(&r, &c.req, RG_OP_RC_SEND_ONLY, i, 0, 1, (int64_t)i * US);
    finish(&r);
    const struct roce_html_flow *f = flow_of(&r, TU_IP_A, TU_IP_B, TU_QB, &rep);
    CU_ASSERT_EQUAL(rep.ce_marked, ROCE_HTML_MARKS_PER_FLOW + extra);
    CU_ASSERT_EQUAL(f->n_marks, ROCE_HTML_MARKS_PER_FLOW);
    CU_ASSERT_EQUAL(f->marks_dropped, extra);
    CU_ASSERT_EQUAL(r.s->marks_dropped, extra);
    CU_ASSERT_EQUAL(f->marks[ROCE_HTML_MARKS_PER_FLOW - 1].frame, ROCE_HTML_MARKS_PER_FLOW);
    struct roce_verdict v;
    memset(&v, 0, sizeof v);
    v.flags = ROCE_V_MALFORMED;
    for (unsigned i = 0; i < ROCE_HTML_MAX_LOOSE + extra; i++) {
        v.frame = 100000 + i;
        roce_html_series_verdict(&v, r.s);
    }
    CU_ASSERT_EQUAL(r.s->n_loose, ROCE_HTML_MAX_LOOSE);
    CU_ASSERT_EQUAL(r.s->loose_dropped, extra);
    CU_ASSERT_EQUAL(r.s->loose[ROCE_HTML_MAX_LOOSE - 1].frame, 100000 + ROCE_HTML_MAX_LOOSE - 1);
    run_done(&r);
}

/* A frame of flow id at t, written out by hand (no engine needed). */
static void frame_of(struct roce_html_series *s, uint64_t id, int64_t t)
{
    struct roce_frame_out out;
    struct roce_frame_in in = {id, t, ROCE_LINKTYPE_ETHERNET, NULL, 0, 100};
    memset(&out, 0, sizeof out);
    out.pkt.bth_captured = 1;
    out.pkt.opcode = RG_OP_RC_SEND_ONLY;
    out.pkt.psn = (uint32_t)id;
    out.verdict.has_flow = 1;
    out.verdict.flow_id = id;
    out.verdict.ts_ns = t;
    out.verdict.frame = id;
    roce_html_series_frame(s, NULL, &in, &out);
}

/* A frame with a verdict (a retransmission) of flow id at t. */
static void verdict_of(struct roce_html_series *s, uint64_t id, uint64_t frame, int64_t t)
{
    struct roce_verdict v;
    memset(&v, 0, sizeof v);
    v.has_flow = 1;
    v.flow_id = id;
    v.frame = frame;
    v.ts_ns = t;
    v.opcode = RG_OP_RC_SEND_ONLY;
    v.flags = ROCE_V_RETRANSMISSION;
    roce_html_series_verdict(&v, s);
}

/* More flows than have series: series are evicted and counted, never those
 * of the flows with trouble while series without any remain (flows 1..10
 * have a frame with a verdict each, then 100 flows more than the bound
 * come); the table still finds every other (probing across removals); a
 * flow's series that lost its start is not complete, one from its first to
 * its last frame is; `-j` moves series with their ids and frames
 * renumbered. */
static void test_flows_evicted_and_absorbed(void)
{
    struct roce_html_series *s = roce_html_series_new(), *d = roce_html_series_new();
    const uint64_t more = 100, troubled = 10;
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    for (uint64_t id = 1; id <= ROCE_HTML_MAX_SERIES + more; id++) {
        frame_of(s, id, (int64_t)id * US);
        if (id <= troubled)
            verdict_of(s, id, id, (int64_t)id * US);
    }
    CU_ASSERT_EQUAL(s->n_flows, ROCE_HTML_MAX_SERIES);
    CU_ASSERT_EQUAL(s->flows_evicted, more);
    unsigned present = 0;
    for (uint64_t id = 1; id <= ROCE_HTML_MAX_SERIES + more; id++)
        present += roce_html_series_flow(s, id) != NULL;
    CU_ASSERT_EQUAL(present, ROCE_HTML_MAX_SERIES);
    for (uint64_t id = 1; id <= troubled; id++)
        CU_ASSERT_PTR_NOT_NULL(roce_html_series_flow(s, id));
    /* an evicted flow comes back: its series starts late, not complete */
    uint64_t gone = 0;
    for (uint64_t id = troubled + 1; gone == 0 && id <= ROCE_HTML_MAX_SERIES; id++)
        if (roce_html_series_flow(s, id) == NULL)
            gone = id;
    CU_ASSERT_FATAL(gone != 0);
    int64_t back = (int64_t)(ROCE_HTML_MAX_SERIES + more + 1) * US;
    frame_of(s, gone, back);
    /* a mark, then everything into d after 1000 frames and 10 flows */
    verdict_of(s, 5, 500, 5 * US);
    roce_html_series_finish(s, NULL);
    const struct roce_html_flow *g = roce_html_series_flow(s, gone);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_FALSE(roce_html_series_complete(g, (int64_t)gone * US, back));
    CU_ASSERT_TRUE(roce_html_series_complete(g, back, back));
    CU_ASSERT_TRUE(roce_html_series_complete(roce_html_series_flow(s, 5), 5 * US, 5 * US));
    CU_ASSERT_FALSE(roce_html_series_complete(NULL, 0, 0));
    CU_ASSERT_EQUAL(roce_html_series_absorb(d, s, 1000, 10), 0);
    CU_ASSERT_EQUAL(s->n_flows, 0);
    CU_ASSERT_EQUAL(d->n_flows, ROCE_HTML_MAX_SERIES);
    CU_ASSERT_PTR_NOT_NULL(roce_html_series_flow(d, gone + 10));
    const struct roce_html_flow *f = roce_html_series_flow(d, 15);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(f->n_marks, 2);
    CU_ASSERT_EQUAL(f->marks[1].frame, 1500);
    CU_ASSERT_EQUAL(d->n_marks, troubled + 1);
    CU_ASSERT_EQUAL(d->flows_evicted, more + 1);
    roce_html_series_free(s);
    roce_html_series_free(d);
}

/* PFC XOFF/XON on priorities 3 and 5 and a link PAUSE over 40 ms, a pause
 * still running at the last frame: per priority the timeline's buckets add
 * up to the engine's paused time and XOFF/XON counts. */
static void test_pfc_timeline_adds_up(void)
{
    static const uint8_t mac[RG_MAC_LEN] = {2, 0, 0, 0, 0, 9};
    static const struct {
        unsigned opcode;
        uint8_t cev;
        uint16_t quanta;
        int64_t t;
    } frames[] = {
        {RG_MACCTRL_PFC, 1u << 3, 0xFFFF, 0},
        {RG_MACCTRL_PFC, 1u << 3, 0xFFFF, 100 * US},
        {RG_MACCTRL_PFC, 1u << 3, 0, 300 * US},
        {RG_MACCTRL_PFC, 1u << 5, 1000, 500 * US},
        {RG_MACCTRL_PFC, 1u << 5 | 1u << 3, 0xFFFF, 20000 * US},
        {RG_MACCTRL_PAUSE, 0, 2000, 30000 * US},
        {RG_MACCTRL_PFC, 1u << 3, 0xFFFF, 40000 * US},
    };
    struct run r;
    uint8_t f[RG_MAX_FRAME];
    uint16_t q[RG_PFC_PRIOS];
    run_init(&r);
    for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
        for (unsigned k = 0; k < RG_PFC_PRIOS; k++)
            q[k] = frames[i].quanta;
        feed_bytes(&r, f,
                   rg_build_mac_control(frames[i].opcode, frames[i].cev, q, mac, f, sizeof f),
                   frames[i].t);
    }
    finish(&r);
    const struct roce_pfc_report *p = &roce_engine_totals(r.e)->pfc;
    const struct roce_html_pfc *tl = r.s->pfc;
    CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
    for (unsigned slot = 0; slot < ROCE_HTML_PFC_SLOTS; slot++) {
        const struct roce_pfc_prio *pp = slot < ROCE_PFC_PRIORITIES ? &p->prio[slot] : &p->pause;
        int64_t paused = 0;
        uint64_t xoff = 0, xon = 0;
        for (unsigned k = 0; k < ROCE_HTML_PFC_BUCKETS; k++) {
            paused += tl->paused[slot][k];
            xoff += tl->xoff[slot][k];
            xon += tl->xon[slot][k];
            CU_ASSERT_TRUE(tl->paused[slot][k] <= tl->width_ns);
        }
        CU_ASSERT_EQUAL(paused, pp->paused_ns);
        CU_ASSERT_EQUAL(xoff, pp->xoff);
        CU_ASSERT_EQUAL(xon, pp->xon);
    }
    CU_ASSERT_TRUE(p->prio[3].paused_ns > 0);
    CU_ASSERT_TRUE(p->prio[5].paused_ns > 0);
    CU_ASSERT_TRUE(p->pause.paused_ns > 0);
    /* the last XOFF runs out after the last frame: the timeline reaches past it */
    CU_ASSERT_TRUE(tl->end_ns > TU_T0_NS + 40000 * US);
    run_done(&r);
}

/* Capture times as far apart as the engine allows (0 and 2^62 ns, what a
 * corrupt capture gives after clamping): the width doubles 50-odd times in
 * one step and every bucket start is still a time (no shift or product out
 * of range: the sanitizer build runs this too). */
static void test_extreme_times(void)
{
    struct roce_html_series *s = roce_html_series_new();
    const int64_t far = INT64_C(1) << 62;
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    frame_of(s, 7, 1);
    frame_of(s, 7, far);
    roce_html_series_finish(s, NULL);
    const struct roce_html_flow *f = roce_html_series_flow(s, 7);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(f->b[0].packets, 1);
    unsigned k = roce_html_bucket_of(f, far);
    CU_ASSERT_EQUAL(f->b[k].packets, 1);
    CU_ASSERT_TRUE(far - f->origin_ns < (int64_t)ROCE_HTML_BUCKETS * f->width_ns);
    CU_ASSERT_TRUE(roce_html_bucket_start(f->origin_ns, f->width_ns, k) <= far);
    CU_ASSERT_TRUE(roce_html_bucket_start(f->origin_ns, f->width_ns, ROCE_HTML_BUCKETS) > far);
    roce_html_series_free(s);
}

/* The capture's timeline: 3000 requests over 3 s (ever sparser), every
 * 10th CE-marked, in two series absorbed into one (-j): every frame, byte
 * and CE mark is in a bucket, at the bucket of its time, the width 16 ns
 * doubled as often as the span needs. */
static void test_timeline_adds_up(void)
{
    struct run r[2];
    struct tu_conn c;
    struct roce_flow_report rep;
    const unsigned n = 3000;
    uint64_t bytes = 0;
    tu_conn_init(&c, TU_IP_A, TU_IP_B, TU_QA, TU_QB);
    for (int j = 0; j < 2; j++) {
        run_init(&r[j]);
        for (unsigned i = j * n / 2; i < (j + 1) * n / 2; i++)
            feed(&r[j], &c.req, RG_OP_RC_SEND_ONLY, i, 0, i % 10 == 0, (int64_t)i * i * 333);
        finish(&r[j]);
        (void)flow_of(&r[j], TU_IP_A, TU_IP_B, TU_QB, &rep);
        bytes += rep.bytes;
    }
    /* the first half alone: every frame in the bucket of its time */
    const struct roce_html_timeline *tl = &r[0].s->tl;
    uint32_t want[ROCE_HTML_TL_BUCKETS] = {0};
    for (unsigned i = 0; i < n / 2; i++)
        want[(int64_t)i * i * 333 / tl->width_ns]++;
    CU_ASSERT_EQUAL(memcmp(want, tl->packets, sizeof want), 0);
    CU_ASSERT_EQUAL(tl->width_ns, INT64_C(1) << tl->shift);
    /* both: every frame, byte and CE mark */
    CU_ASSERT_EQUAL(roce_html_series_absorb(r[0].s, r[1].s, n / 2, 1), 0);
    uint64_t packets = 0, b = 0, ce = 0, cnp = 0;
    for (unsigned k = 0; k < ROCE_HTML_TL_BUCKETS; k++) {
        packets += tl->packets[k];
        b += tl->bytes[k];
        ce += tl->ce[k];
        cnp += tl->cnp[k];
    }
    CU_ASSERT_TRUE(tl->have);
    CU_ASSERT_EQUAL(packets, n);
    CU_ASSERT_EQUAL(b, bytes);
    CU_ASSERT_EQUAL(ce, n / 10);
    CU_ASSERT_EQUAL(cnp, 0);
    int64_t span = (int64_t)(n - 1) * (n - 1) * 333, w = 16;
    while (span / w >= ROCE_HTML_TL_BUCKETS)
        w *= 2;
    CU_ASSERT_EQUAL(tl->origin_ns, TU_T0_NS);
    CU_ASSERT_EQUAL(tl->end_ns, TU_T0_NS + span);
    CU_ASSERT_EQUAL(tl->width_ns, w);
    CU_ASSERT_EQUAL(tl->width_ns, INT64_C(1) << tl->shift);
    /* the second file's buckets are added at their start: within one bucket */
    CU_ASSERT_TRUE(tl->packets[span / w] + tl->packets[span / w - 1] > 0);
    run_done(&r[0]);
    run_done(&r[1]);
}

static const struct tu_test tests[] = {
    {"buckets_keep_totals", test_buckets_keep_totals},
    {"retransmissions_and_marks", test_retransmissions_and_marks},
    {"marks_bounded", test_marks_bounded},
    {"flows_evicted_and_absorbed", test_flows_evicted_and_absorbed},
    {"pfc_timeline_adds_up", test_pfc_timeline_adds_up},
    {"extreme_times", test_extreme_times},
    {"timeline_adds_up", test_timeline_adds_up},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "html_series", tests);
}
