/*
 * test_vantage.c - several vantage points (analyzer/engine/vantage/roce_vantage*.c;
 * analyzer/engine/ANALYSIS.md, "Vantage points").
 *
 * Most tests build transmission records directly: host A (10.0.0.1, QP
 * 0x101) sends requests to B (10.0.0.2, QP 0x202) and B answers, tap P0 on
 * A's link, tap P1 on B's, the fabric between them D_AB / D_BA long, P1's
 * clock OFFSET ahead. sim_run() feeds them through both readings the way
 * the CLI does (samples, estimate, start, the source roce_vantage_need asks
 * for, one record at a time) and finishes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce_decode.h"
#include "roce_engine.h"
#include "roce_vantage.h"
#include "roce_vantage_int.h"
#include "rocegen_encap.h"
#include "test_util.h"

#define T0            1700000000000000000LL
#define US            1000LL
#define MS            1000000LL
#define OFFSET        777777LL
#define D_AB          (5 * US)
#define D_BA          (5 * US)
#define WLEN          1056u /* WRITE Only 1024 B: BTH + RETH + payload + ICRC */
#define ALEN          20u   /* ACK: BTH + AETH + ICRC */
#define OP_WRITE_ONLY 0x0A
#define OP_ACK        0x11
#define IP_A          0x0A000001u
#define IP_B          0x0A000002u
#define QA            0x000101u
#define QB            0x000202u
#define MAXREC        4096
#define NPTS          3
#define NOT_GIVEN     INT64_MIN

/* ---- a tiny simulation ---- */

struct sim {
    struct roce_vtx rec[NPTS][MAXREC];
    size_t n[NPTS];
    unsigned points;
    unsigned pa, pb;      /* the taps on A's and B's links (exchange()) */
    int whole_sources;    /* feed each source whole, the last first (not as need() asks) */
    int64_t offset[NPTS]; /* added to the point's clock */
    struct roce_vantage_config cfg;
    struct roce_vantage *v;
};

static void key_of(struct roce_flow_key *k, int from_a, uint32_t dqpn)
{
    memset(k, 0, sizeof *k);
    k->src[10] = k->src[11] = k->dst[10] = k->dst[11] = 0xFF;
    uint32_t s = from_a ? IP_A : IP_B, d = from_a ? IP_B : IP_A;
    for (int i = 0; i < 4; i++) {
        k->src[12 + i] = (uint8_t)(s >> (24 - 8 * i));
        k->dst[12 + i] = (uint8_t)(d >> (24 - 8 * i));
    }
    k->dqpn = dqpn;
    k->version = 2;
}

static void sim_init(struct sim *s, unsigned points)
{
    memset(s, 0, sizeof *s);
    s->points = points;
    s->pb = 1;
    roce_vantage_config_default(&s->cfg);
}

/* A sighting at point p at true time t (ns after T0). */
static struct roce_vtx *see(struct sim *s, unsigned p, int from_a, int64_t t, uint32_t psn,
                            uint8_t opcode, uint8_t flags)
{
    struct roce_vtx *x = &s->rec[p][s->n[p]++];
    memset(x, 0, sizeof *x);
    key_of(&x->key, from_a, from_a ? QB : QA);
    x->ts_ns = T0 + t + s->offset[p];
    x->frame = s->n[p];
    x->psn = psn;
    x->opcode = opcode;
    x->len = opcode == OP_ACK ? ALEN : WLEN;
    x->flags = flags;
    if (opcode == OP_WRITE_ONLY)
        x->flags |= ROCE_VTX_REQUEST | ROCE_VTX_LOCATE;
    return x;
}

#define REQ(s, p, t, psn, fl) see(s, p, 1, t, psn, OP_WRITE_ONLY, fl)
#define ACKB(s, p, t, psn)    see(s, p, 0, t, psn, OP_ACK, 0)

/* A request A->B at time t seen at A's tap, then at B's (after D_AB); an
 * ACK back from B 1 us after B's tap saw it. */
static void exchange(struct sim *s, int64_t t, uint32_t psn)
{
    REQ(s, s->pa, t, psn, 0);
    REQ(s, s->pb, t + D_AB, psn, 0);
    ACKB(s, s->pb, t + D_AB + US, psn);
    ACKB(s, s->pa, t + D_AB + US + D_BA, psn);
}

static int cmp_rec(const void *a, const void *b)
{
    const struct roce_vtx *x = a, *y = b;
    return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

/* Both readings (given: offsets to set, NOT_GIVEN to estimate); returns 0
 * when the analysis ran to its end, else what roce_vantage_start said. */
static int sim_run(struct sim *s, const int64_t *given)
{
    struct roce_vantage_point pts[NPTS];
    struct roce_vsample *samples[NPTS];
    size_t next[NPTS] = {0};
    int rc = 0, src;

    for (unsigned p = 0; p < s->points; p++) {
        qsort(s->rec[p], s->n[p], sizeof s->rec[p][0], cmp_rec);
        for (size_t i = 0; i < s->n[p]; i++)
            s->rec[p][i].frame = i + 1;
        samples[p] = roce_vsample_new(1024, 64);
        CU_ASSERT_PTR_NOT_NULL_FATAL(samples[p]);
        for (size_t i = 0; i < s->n[p]; i++)
            roce_vsample_add(samples[p], &s->rec[p][i]);
        pts[p].source = p;
        pts[p].first_ts_ns = s->n[p] ? s->rec[p][0].ts_ns : 0;
        pts[p].last_ts_ns = s->n[p] ? s->rec[p][s->n[p] - 1].ts_ns : 0;
        pts[p].tie_rank = p;
    }
    s->v = roce_vantage_new(&s->cfg, s->points, pts, s->points);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s->v);
    for (unsigned p = 1; given != NULL && p < s->points; p++)
        if (given[p] != NOT_GIVEN)
            CU_ASSERT_EQUAL(roce_vantage_set_offset(s->v, p, given[p]), 0);
    CU_ASSERT_EQUAL(roce_vantage_estimate(s->v, samples), 0);
    for (unsigned p = 0; p < s->points; p++)
        roce_vsample_free(samples[p]);
    if ((rc = roce_vantage_start(s->v)) != 0)
        return rc;
    for (unsigned p = s->points; s->whole_sources && p-- > 0;) /* as big batches would */
        for (size_t i = 0; i < s->n[p]; i++)
            roce_vantage_feed(s->v, p, &s->rec[p][i]);
    for (unsigned p = 0; s->whole_sources && p < s->points; p++)
        roce_vantage_end(s->v, p);
    while ((src = roce_vantage_need(s->v)) >= 0) {
        if (next[src] == s->n[src])
            roce_vantage_end(s->v, (unsigned)src);
        else
            roce_vantage_feed(s->v, (unsigned)src, &s->rec[src][next[src]++]);
    }
    roce_vantage_finish(s->v);
    return 0;
}

static void sim_free(struct sim *s)
{
    roce_vantage_free(s->v);
    s->v = NULL;
}

/* The loss of psn on flow A->B is located (after, before); how many such. */
static int loss_at(const struct roce_vantage *v, int from_a, uint32_t psn, int after, int before)
{
    int n = 0;
    for (size_t i = 0; i < roce_vantage_loss_count(v); i++) {
        const struct roce_vantage_event *e = roce_vantage_loss(v, i);
        int a = e->key.src[15] == (uint8_t)IP_A;
        if (a == from_a && e->psn == psn && e->after == after && e->before == before)
            n++;
    }
    return n;
}

/* ---- records, split keys, samples ---- */

static void test_vtx_from_frame(void)
{
    struct roce_config cfg;
    struct roce_frame_out out;
    struct roce_vtx tx;
    struct rg_spec s;
    struct rg_wrap w;
    uint8_t inner[RG_MAX_FRAME], buf[RG_MAX_FRAME];
    roce_config_default(&cfg);
    struct roce_engine *e = roce_engine_new(&cfg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);

    /* RDMA WRITE Only 1024 B, CE, mirrored by ERSPAN II session 300 from 10.9.0.7 */
    rg_spec_init(&s);
    s.opcode = OP_WRITE_ONLY;
    s.payload_len = 1024;
    s.reth_dma_len = 1024;
    s.psn = 0x000123;
    s.ecn = RG_ECN_CE;
    int n = rg_build(&s, inner, sizeof inner, NULL);
    CU_ASSERT_FATAL(n > 0);
    rg_wrap_init(&w, RG_WRAP_ERSPAN2, 0x0A090007u, 0x0A090063u);
    w.session = 300;
    int m = rg_wrap_build(&w, inner, (size_t)n, buf, sizeof buf);
    CU_ASSERT_FATAL(m > n);
    struct roce_frame_in in = {1, T0, ROCE_LINKTYPE_ETHERNET, buf, (uint32_t)m, (uint32_t)m};
    roce_engine_frame(e, &in, &out);
    CU_ASSERT_EQUAL_FATAL(roce_vtx_from_frame(&out, &tx), 1);
    CU_ASSERT_EQUAL(tx.psn, 0x000123);
    CU_ASSERT_EQUAL(tx.len, WLEN); /* the RoCE packet's length, not the mirrored frame's */
    CU_ASSERT_EQUAL(tx.opcode, OP_WRITE_ONLY);
    CU_ASSERT_EQUAL(tx.flags, ROCE_VTX_REQUEST | ROCE_VTX_LOCATE | ROCE_VTX_CE);
    CU_ASSERT_EQUAL(tx.frame, 1);

    struct roce_split_key k;
    roce_vantage_split_key(&out.pkt, ROCE_SPLIT_ERSPAN_SESSION, &k);
    CU_ASSERT(k.has && k.session == 300);
    roce_vantage_split_key(&out.pkt, ROCE_SPLIT_OUTER_SOURCE, &k);
    CU_ASSERT(k.has && k.af == ROCE_AF_IPV4 && k.addr[12] == 10 && k.addr[13] == 9 &&
              k.addr[14] == 0 && k.addr[15] == 7);
    /* the same packet unwrapped: same record, no split key */
    in.data = inner;
    in.caplen = in.wirelen = (uint32_t)n;
    in.frame = 2;
    roce_engine_frame(e, &in, &out);
    CU_ASSERT_EQUAL_FATAL(roce_vtx_from_frame(&out, &tx), 1);
    CU_ASSERT_EQUAL(tx.len, WLEN);
    CU_ASSERT(tx.flags & ROCE_VTX_RETX); /* the engine saw PSN 0x123 twice */
    roce_vantage_split_key(&out.pkt, ROCE_SPLIT_OUTER_SOURCE, &k);
    CU_ASSERT_EQUAL(k.has, 0);

    /* a CNP is no transmission to match */
    rg_spec_init(&s);
    s.opcode = 0x81;
    s.becn = 1;
    n = rg_build(&s, inner, sizeof inner, NULL);
    in.frame = 3;
    roce_engine_frame(e, &in, &out);
    CU_ASSERT_EQUAL(roce_vtx_from_frame(&out, &tx), 0);
    roce_engine_free(e);
}

/* VXLAN: the outer source is the tunnel's, and survives the inner IP header. */
static void test_split_vxlan(void)
{
    static const struct roce_decode_cfg dc = {ROCE_UDP_PORT_ROCEV2, ROCE_UDP_PORT_VXLAN, 0};
    struct rg_spec s;
    struct rg_wrap w;
    struct roce_pkt pkt;
    struct roce_split_key k;
    uint8_t inner[RG_MAX_FRAME], buf[RG_MAX_FRAME];
    rg_spec_init(&s);
    int n = rg_build(&s, inner, sizeof inner, NULL);
    rg_wrap_init(&w, RG_WRAP_VXLAN, 0x0A090005u, 0x0A090063u);
    int m = rg_wrap_build(&w, inner, (size_t)n, buf, sizeof buf);
    CU_ASSERT_FATAL(m > 0);
    roce_decode(&dc, ROCE_LINKTYPE_ETHERNET, buf, (size_t)m, (size_t)m, &pkt);
    CU_ASSERT_EQUAL(pkt.cls, ROCE_CLASS_ROCE);
    roce_vantage_split_key(&pkt, ROCE_SPLIT_OUTER_SOURCE, &k);
    CU_ASSERT(k.has && k.addr[15] == 5);
    CU_ASSERT(pkt.src[15] == 1); /* the inner source: 10.0.0.1 */
    roce_vantage_split_key(&pkt, ROCE_SPLIT_ERSPAN_SESSION, &k);
    CU_ASSERT_EQUAL(k.has, 0); /* VXLAN has no ERSPAN session */
}

/* Samples taken apart keep the same transmissions at the same level. */
static void test_sample_consistent(void)
{
    struct roce_vsample *a = roce_vsample_new(64, 4), *b = roce_vsample_new(64, 4);
    struct roce_vtx tx;
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    memset(&tx, 0, sizeof tx);
    key_of(&tx.key, 1, QB);
    tx.opcode = OP_WRITE_ONLY;
    tx.len = WLEN;
    for (uint32_t i = 0; i < 5000; i++) { /* a sees everything, b every third */
        tx.psn = i;
        tx.ts_ns = T0 + i;
        roce_vsample_add(a, &tx);
        if (i % 3 == 0)
            roce_vsample_add(b, &tx);
    }
    CU_ASSERT(a->n <= 64 && b->n <= 64);
    CU_ASSERT(a->level > 0);
    unsigned level = a->level > b->level ? a->level : b->level, common = 0;
    for (uint32_t i = 0; i <= b->mask; i++) {
        const struct vs_entry *e = &b->tab[i];
        if (e->h == 0 || !roce_vsample_keeps(e->h, level))
            continue;
        CU_ASSERT_PTR_NOT_NULL(roce_vsample_find(a, e->h)); /* a kept it too */
        common++;
    }
    CU_ASSERT(common > 0);
    CU_ASSERT_EQUAL(roce_vsample_count(a), 5000);
    roce_vsample_free(a);
    roce_vsample_free(b);
}

/* ---- clock offsets ---- */

static void offset_case(int64_t d_ab, int64_t d_ba, int64_t offset)
{
    struct sim *s = calloc(1, sizeof *s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    sim_init(s, 2);
    s->offset[1] = offset;
    for (uint32_t i = 0; i < 100; i++) {
        int64_t t = i * 20 * US;
        REQ(s, 0, t, i, 0);
        REQ(s, 1, t + d_ab + (i % 7) * 100, i, 0); /* queueing adds 0..600 ns */
        ACKB(s, 1, t + d_ab + 2 * US, i);
        ACKB(s, 0, t + d_ab + 2 * US + d_ba + (i % 5) * 100, i);
    }
    CU_ASSERT_EQUAL_FATAL(sim_run(s, NULL), 0);
    const struct roce_vantage_clock *c = roce_vantage_clock(s->v, 1);
    CU_ASSERT_EQUAL(c->status, ROCE_VCLOCK_ESTIMATED);
    /* the definition: (min one-way delay A->B - min one-way delay B->A) / 2 */
    CU_ASSERT_EQUAL(c->offset_ns, offset + (d_ab - d_ba) / 2);
    CU_ASSERT_EQUAL(c->error_bound_ns, (d_ab + d_ba) / 2);
    int64_t err = c->offset_ns - offset;
    CU_ASSERT(err <= c->error_bound_ns && -err <= c->error_bound_ns);
    CU_ASSERT(c->consistent && c->drift_known && !c->drift_detected);
    CU_ASSERT_EQUAL(c->host_pairs, 1);
    CU_ASSERT_EQUAL(c->samples, 200);
    CU_ASSERT_EQUAL(roce_vantage_totals(s->v)->matched, 200);
    CU_ASSERT_EQUAL(roce_vantage_loss_count(s->v), 0);
    sim_free(s);
    free(s);
}

static void test_offset(void)
{
    offset_case(D_AB, D_BA, OFFSET);         /* symmetric: exact */
    offset_case(D_AB, D_BA, -5 * 1000 * MS); /* the other clock 5 s behind */
    offset_case(3 * US, 7 * US, OFFSET);     /* asymmetric: off by 2 us, inside the bound */
}

/* An odd width of the offset's interval: its half is rounded up, so the bound still holds
 * (min delays 3 us and 4.001 us: width 7001 ns, bound 3501 ns). */
static void test_offset_bound_rounded_up(void)
{
    struct sim *s = calloc(1, sizeof *s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    sim_init(s, 2);
    s->offset[1] = OFFSET;
    for (uint32_t i = 0; i < 100; i++) {
        int64_t t = i * 20 * US;
        REQ(s, 0, t, i, 0);
        REQ(s, 1, t + 3 * US, i, 0);
        ACKB(s, 1, t + 5 * US, i);
        ACKB(s, 0, t + 5 * US + 4 * US + 1, i);
    }
    CU_ASSERT_EQUAL_FATAL(sim_run(s, NULL), 0);
    const struct roce_vantage_clock *c = roce_vantage_clock(s->v, 1);
    CU_ASSERT_EQUAL(c->status, ROCE_VCLOCK_ESTIMATED);
    CU_ASSERT_EQUAL(c->error_bound_ns, 3501);
    int64_t err = c->offset_ns - OFFSET;
    CU_ASSERT(err <= c->error_bound_ns && -err <= c->error_bound_ns);
    sim_free(s);
    free(s);
}

/* A clock 100 ppm fast: detected, and the alignment follows it. */
static void test_drift(void)
{
    struct sim *s = calloc(1, sizeof *s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    sim_init(s, 2);
    for (uint32_t i = 0; i < 200; i++) {
        int64_t t = i * 5 * MS; /* one second */
        s->offset[1] = OFFSET + t / 10000;
        exchange(s, t, i);
    }
    CU_ASSERT_EQUAL_FATAL(sim_run(s, NULL), 0);
    const struct roce_vantage_clock *c = roce_vantage_clock(s->v, 1);
    CU_ASSERT_EQUAL(c->status, ROCE_VCLOCK_ESTIMATED);
    CU_ASSERT(c->drift_known && c->drift_detected);
    CU_ASSERT(c->drift_ns > 40 * US && c->drift_ns < 60 * US); /* 100 ppm over ~0.5 s */
    CU_ASSERT(!c->consistent); /* one offset cannot explain the whole second */
    CU_ASSERT_EQUAL(roce_vantage_totals(s->v)->matched, 400);
    CU_ASSERT_EQUAL(roce_vantage_totals(s->v)->losses, 0);
    sim_free(s);
    free(s);
}

/* A few transmissions that only look alike (a reused QP's PSNs seen at
 * different times) are left out of the estimate: it stays exact. */
static void test_offset_outliers(void)
{
    struct sim *s = calloc(1, sizeof *s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    sim_init(s, 2);
    s->offset[1] = OFFSET;
    for (uint32_t i = 0; i < 50; i++)
        exchange(s, i * 20 * US, i);
    for (uint32_t i = 0; i < 3; i++) { /* 3 keys seen at P0 early and at P1 7 ms later */
        REQ(s, 0, 1100 * US + i * US, 900 + i, 0);
        REQ(s, 1, 8100 * US + i * US, 900 + i, 0);
    }
    CU_ASSERT_EQUAL_FATAL(sim_run(s, NULL), 0);
    const struct roce_vantage_clock *c = roce_vantage_clock(s->v, 1);
    CU_ASSERT_EQUAL(c->status, ROCE_VCLOCK_ESTIMATED);
    CU_ASSERT_EQUAL(c->offset_ns, OFFSET);
    CU_ASSERT_EQUAL(c->error_bound_ns, (D_AB + D_BA) / 2);
    CU_ASSERT_EQUAL(c->samples, 100);
    sim_free(s);
    free(s);
}

static void test_offset_fails(void)
{
    struct sim *s = calloc(1, sizeof *s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    /* nothing in common */
    sim_init(s, 2);
    REQ(s, 0, 0, 1, 0);
    REQ(s, 1, 0, 2, 0);
    CU_ASSERT_EQUAL(sim_run(s, NULL), -1);
    CU_ASSERT_EQUAL(roce_vantage_clock(s->v, 1)->status, ROCE_VCLOCK_NO_COMMON);
    sim_free(s);
    /* one way only */
    sim_init(s, 2);
    REQ(s, 0, 0, 1, 0);
    REQ(s, 1, D_AB, 1, 0);
    CU_ASSERT_EQUAL(sim_run(s, NULL), -1);
    CU_ASSERT_EQUAL(roce_vantage_clock(s->v, 1)->status, ROCE_VCLOCK_ONE_WAY);
    sim_free(s);
    /* ... unless given */
    sim_init(s, 2);
    s->offset[1] = OFFSET;
    for (uint32_t i = 0; i < 2; i++) {
        REQ(s, 0, i * 10 * US, i, 0);
        REQ(s, 1, i * 10 * US + D_AB, i, 0);
    }
    int64_t given[2] = {0, OFFSET};
    CU_ASSERT_EQUAL(sim_run(s, given), 0);
    CU_ASSERT_EQUAL(roce_vantage_clock(s->v, 1)->status, ROCE_VCLOCK_GIVEN);
    CU_ASSERT_EQUAL(roce_vantage_totals(s->v)->matched, 2);
    CU_ASSERT_EQUAL(roce_vantage_set_offset(s->v, 0, 1), -1); /* the reference */
    sim_free(s);
    /* a clock step of 50 us half-way: no one offset, and far too fast for a drift */
    sim_init(s, 2);
    for (uint32_t i = 0; i < 40; i++) {
        s->offset[1] = OFFSET + (i < 20 ? 0 : 50 * US);
        exchange(s, i * 10 * US, i);
    }
    CU_ASSERT_EQUAL(sim_run(s, NULL), -1);
    CU_ASSERT_EQUAL(roce_vantage_clock(s->v, 1)->status, ROCE_VCLOCK_INCONSISTENT);
    CU_ASSERT_EQUAL(roce_vantage_clock(s->v, 1)->drift_detected, 0);
    sim_free(s);
    /* given, but the aligned spans do not meet */
    sim_init(s, 2);
    REQ(s, 0, 0, 1, 0);
    REQ(s, 1, 10 * MS, 2, 0);
    CU_ASSERT_EQUAL(sim_run(s, (int64_t[2]){0, 0}), -2);
    sim_free(s);
    free(s);
}

/* ---- locations ---- */

/* Every kind of loss and a CE mark on flow A->B, a loss on B->A. */
static void losses_case(int swap, int whole_sources)
{
    struct sim *s = calloc(1, sizeof *s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    unsigned pa = swap ? 1 : 0, pb = swap ? 0 : 1;
    sim_init(s, 2);
    s->whole_sources = whole_sources;
    s->pa = pa;
    s->pb = pb;
    s->offset[pb] = OFFSET;
    for (uint32_t i = 0; i < 10; i++)
        exchange(s, i * 10 * US, i);
    /* PSN 10 lost in A's NIC: both taps see 11 with a gap */
    struct roce_vtx *g = REQ(s, pa, 100 * US, 11, ROCE_VTX_GAP);
    g->gap_first = 10;
    g->gap_count = 1;
    g = REQ(s, pb, 100 * US + D_AB, 11, ROCE_VTX_GAP);
    g->gap_first = 10;
    g->gap_count = 1;
    /* resent at once: A resends before B's tap even saw the gap */
    REQ(s, pa, 102 * US, 10, ROCE_VTX_RETX | ROCE_VTX_EPISODE);
    REQ(s, pb, 102 * US + D_AB, 10, ROCE_VTX_RETX | ROCE_VTX_EPISODE);
    REQ(s, pa, 103 * US, 11, ROCE_VTX_RETX);
    REQ(s, pb, 103 * US + D_AB, 11, ROCE_VTX_RETX);
    /* PSN 12 lost in the fabric; the resend comes back fast (8 us: within the bound) */
    REQ(s, pa, 120 * US, 12, 0);
    REQ(s, pa, 121 * US, 13, 0);
    g = REQ(s, pb, 121 * US + D_AB, 13, ROCE_VTX_GAP);
    g->gap_first = 12;
    g->gap_count = 1;
    REQ(s, pa, 128 * US, 12, ROCE_VTX_RETX | ROCE_VTX_EPISODE);
    REQ(s, pb, 128 * US + D_AB, 12, ROCE_VTX_RETX | ROCE_VTX_EPISODE);
    REQ(s, pa, 129 * US, 13, ROCE_VTX_RETX);
    REQ(s, pb, 129 * US + D_AB, 13, ROCE_VTX_RETX);
    /* PSN 14 dropped by B's NIC: both taps saw it, then the resend */
    REQ(s, pa, 140 * US, 14, 0);
    REQ(s, pb, 140 * US + D_AB, 14, 0);
    REQ(s, pa, 148 * US, 14, ROCE_VTX_RETX | ROCE_VTX_EPISODE);
    REQ(s, pb, 148 * US + D_AB, 14, ROCE_VTX_RETX | ROCE_VTX_EPISODE);
    /* PSN 15 marked between the taps */
    REQ(s, pa, 160 * US, 15, 0);
    REQ(s, pb, 160 * US + D_AB, 15, ROCE_VTX_CE);
    /* B's request 0x500 lost between the taps (B->A: P1 upstream) */
    see(s, pb, 0, 170 * US, 0x500, OP_WRITE_ONLY, 0);
    g = see(s, pb, 0, 171 * US, 0x501, OP_WRITE_ONLY, 0);
    g = see(s, pa, 0, 171 * US + D_BA, 0x501, OP_WRITE_ONLY, ROCE_VTX_GAP);
    g->gap_first = 0x500;
    g->gap_count = 1;
    for (uint32_t i = 20; i < 30; i++)
        exchange(s, i * 10 * US, 0x100 + i);
    CU_ASSERT_EQUAL_FATAL(sim_run(s, NULL), 0);

    const struct roce_vantage *v = s->v;
    CU_ASSERT_EQUAL(roce_vantage_clock(v, 1)->offset_ns, swap ? -OFFSET : OFFSET);
    CU_ASSERT_EQUAL(roce_vantage_loss_count(v), 4);
    CU_ASSERT_EQUAL(loss_at(v, 1, 10, ROCE_VANTAGE_END, (int)pa), 1);
    CU_ASSERT_EQUAL(loss_at(v, 1, 12, (int)pa, (int)pb), 1);
    CU_ASSERT_EQUAL(loss_at(v, 1, 14, (int)pb, ROCE_VANTAGE_END), 1);
    CU_ASSERT_EQUAL(loss_at(v, 0, 0x500, (int)pb, (int)pa), 1);
    CU_ASSERT_EQUAL_FATAL(roce_vantage_ce_count(v), 1);
    const struct roce_vantage_event *ce = roce_vantage_ce(v, 0);
    CU_ASSERT(ce->psn == 15 && ce->after == (int)pa && ce->before == (int)pb);
    const struct roce_vantage_event *l = roce_vantage_loss(v, 0); /* sorted: A->B first */
    CU_ASSERT(l->psn == 10 && l->evidence == ROCE_VEVIDENCE_GAPS && l->first_point == -1);
    /* the fabric-lost original was not paired with its resend downstream */
    for (size_t i = 0; i < roce_vantage_loss_count(v); i++) {
        const struct roce_vantage_event *e = roce_vantage_loss(v, i);
        if (e->psn == 12)
            CU_ASSERT(e->evidence == ROCE_VEVIDENCE_MISSING && e->first_point == (int)pa);
        if (e->psn == 14)
            CU_ASSERT(e->evidence == ROCE_VEVIDENCE_RESENT);
    }
    /* flows and their order */
    CU_ASSERT_EQUAL_FATAL(roce_vantage_flow_count(v), 2);
    const struct roce_vantage_flow *f = roce_vantage_flow(v, 0); /* 10.0.0.1 -> 10.0.0.2 */
    CU_ASSERT(f->n_order == 2 && f->order[0] == pa && f->order[1] == pb);
    f = roce_vantage_flow(v, 1);
    CU_ASSERT(f->n_order == 2 && f->order[0] == pb && f->order[1] == pa);
    /* segments summed: (END, pa) 1, (pa, pb) 1 + CE 1, (pb, END) 1, (pb, pa) 1 */
    uint64_t lost = 0, ce_n = 0;
    for (size_t i = 0; i < roce_vantage_segment_count(v); i++) {
        const struct roce_vantage_segment *sg = roce_vantage_segment(v, i);
        lost += sg->lost;
        ce_n += sg->ce_marked;
        if (sg->after == (int)pa && sg->before == (int)pb) {
            CU_ASSERT_EQUAL(sg->lost, 1);
            CU_ASSERT_EQUAL(sg->ce_marked, 1);
            CU_ASSERT_EQUAL(sg->latency.min, D_AB);
            CU_ASSERT_EQUAL(sg->latency.max, D_AB);
        }
    }
    CU_ASSERT_EQUAL(lost, 4);
    CU_ASSERT_EQUAL(ce_n, 1);
    sim_free(s);
    free(s);
}

static void test_losses(void)
{
    losses_case(0, 0);
}

/* The same captures given the other way round: the same locations. */
static void test_order_independent(void)
{
    losses_case(1, 0);
}

/* Whatever order the sources come in (here B's tap wholly before A's):
 * the same transmissions, matched and located the same way. */
static void test_feed_order(void)
{
    losses_case(0, 1);
    losses_case(1, 1);
}

/* Only the common span is evidence: a transmission P1 could not have seen. */
static void test_common_span(void)
{
    struct sim *s = calloc(1, sizeof *s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    sim_init(s, 2);
    REQ(s, 0, 0, 1, 0); /* before P1 started */
    REQ(s, 0, US, 2, ROCE_VTX_CE);
    for (uint32_t i = 3; i < 20; i++)
        exchange(s, i * 10 * US, i);
    REQ(s, 1, 300 * US, 30, 0); /* after P0 stopped */
    CU_ASSERT_EQUAL_FATAL(sim_run(s, NULL), 0);
    const struct roce_vantage_totals *t = roce_vantage_totals(s->v);
    CU_ASSERT_EQUAL(roce_vantage_loss_count(s->v), 0);
    CU_ASSERT_EQUAL(t->outside_span, 3); /* PSNs 1, 2 (P0 only) and 30 (P1 only) */
    CU_ASSERT_EQUAL(t->outside_ce, 1);   /* 2 */
    CU_ASSERT_EQUAL(roce_vantage_ce_count(s->v), 0);
    CU_ASSERT_EQUAL(t->capture_misses, 0);
    sim_free(s);
    free(s);
}

/* The common span has the largest one-way delay (D_AB) as a margin at both ends (ANALYSIS.md
 * "Vantage points"): a request only P0 saw, 2 us after P1's first frame or 3 us before its
 * last, is outside it (P1 may not have been capturing when it would have passed); the same
 * request in the middle is a located loss. */
static void test_span_margin(void)
{
    struct sim *s = calloc(1, sizeof *s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    sim_init(s, 2);
    exchange(s, 0, 1);       /* P1's first frame at 5 us */
    REQ(s, 0, 7 * US, 2, 0); /* inside [5 us, ...], not by the margin */
    for (uint32_t i = 3; i < 20; i++)
        exchange(s, i * 10 * US, i);
    REQ(s, 0, 105 * US, 40, 0); /* in the middle: located */
    REQ(s, 0, 193 * US, 41, 0); /* P1's last frame at 196 us: 3 us before it */
    CU_ASSERT_EQUAL_FATAL(sim_run(s, NULL), 0);
    CU_ASSERT_EQUAL(roce_vantage_totals(s->v)->outside_span, 2);
    CU_ASSERT_EQUAL(roce_vantage_loss_count(s->v), 1);
    CU_ASSERT_EQUAL(loss_at(s->v, 1, 40, 0, 1), 1);
    sim_free(s);
    free(s);
}

/* A reused QP: the PSN lost before is resent after a new original went
 * everywhere; that resend is a new loss, not the old one's. */
static void test_qp_reuse(void)
{
    struct sim *s = calloc(1, sizeof *s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    sim_init(s, 2);
    s->offset[1] = OFFSET;
    exchange(s, 0, 4);
    REQ(s, 0, 10 * US, 5, 0); /* connection 1: 5 lost in the fabric */
    REQ(s, 0, 11 * US, 6, 0);
    struct roce_vtx *g = REQ(s, 1, 11 * US + D_AB, 6, ROCE_VTX_GAP);
    g->gap_first = 5;
    g->gap_count = 1;
    REQ(s, 0, 20 * US, 5, ROCE_VTX_RETX | ROCE_VTX_EPISODE);
    REQ(s, 1, 20 * US + D_AB, 5, ROCE_VTX_RETX | ROCE_VTX_EPISODE);
    exchange(s, 40 * US, 7);
    for (uint32_t i = 0; i < 4; i++) /* connection 2, 3 ms later, the same PSNs */
        exchange(s, 3 * MS + i * 10 * US, 1 + i);
    REQ(s, 0, 3 * MS + 60 * US, 5, 0); /* 5 reaches B's tap, B's NIC drops it */
    REQ(s, 1, 3 * MS + 60 * US + D_AB, 5, 0);
    REQ(s, 0, 3 * MS + 70 * US, 5, ROCE_VTX_RETX | ROCE_VTX_EPISODE);
    REQ(s, 1, 3 * MS + 70 * US + D_AB, 5, ROCE_VTX_RETX | ROCE_VTX_EPISODE);
    exchange(s, 3 * MS + 100 * US, 6);
    CU_ASSERT_EQUAL_FATAL(sim_run(s, NULL), 0);
    CU_ASSERT_EQUAL(roce_vantage_loss_count(s->v), 2);
    CU_ASSERT_EQUAL(loss_at(s->v, 1, 5, 0, 1), 1);
    CU_ASSERT_EQUAL(loss_at(s->v, 1, 5, 1, ROCE_VANTAGE_END), 1);
    sim_free(s);
    free(s);
}

/* Three points: A's tap, a spine mirror, B's tap. The mirror's clock is
 * given (as a user would give it); B's is estimated. */
static void test_three_points(void)
{
    struct sim *s = calloc(1, sizeof *s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    sim_init(s, 3);
    s->offset[1] = -OFFSET; /* the mirror */
    s->offset[2] = OFFSET;  /* B's tap */
    for (uint32_t i = 0; i < 20; i++) {
        int64_t t = i * 10 * US, ack = t + D_AB + US;
        REQ(s, 0, t, i, 0);
        REQ(s, 1, t + 2 * US, i, i == 12 ? ROCE_VTX_CE : 0);
        if (i != 7) { /* 7 lost between the mirror and B's tap */
            struct roce_vtx *x = REQ(s, 2, t + D_AB, i, i == 12 ? ROCE_VTX_CE : 0);
            if (i == 8) {
                x->flags |= ROCE_VTX_GAP;
                x->gap_first = 7;
                x->gap_count = 1;
            }
        }
        ACKB(s, 2, ack, i);
        ACKB(s, 1, ack + 3 * US, i);
        ACKB(s, 0, ack + D_BA, i);
    }
    CU_ASSERT_EQUAL_FATAL(sim_run(s, (int64_t[3]){0, -OFFSET, NOT_GIVEN}), 0);
    const struct roce_vantage *v = s->v;
    CU_ASSERT_EQUAL(roce_vantage_clock(v, 2)->offset_ns, OFFSET);
    const struct roce_vantage_flow *f = roce_vantage_flow(v, 0);
    CU_ASSERT_EQUAL_FATAL(f->n_order, 3);
    CU_ASSERT(f->order[0] == 0 && f->order[1] == 1 && f->order[2] == 2);
    f = roce_vantage_flow(v, 1);
    CU_ASSERT_EQUAL_FATAL(f->n_order, 3);
    CU_ASSERT(f->order[0] == 2 && f->order[1] == 1 && f->order[2] == 0);
    CU_ASSERT_EQUAL(roce_vantage_loss_count(v), 1);
    CU_ASSERT_EQUAL(loss_at(v, 1, 7, 1, 2), 1);
    CU_ASSERT_EQUAL_FATAL(roce_vantage_ce_count(v), 1);
    CU_ASSERT(roce_vantage_ce(v, 0)->after == 0 && roce_vantage_ce(v, 0)->before == 1);
    sim_free(s);
    free(s);
}

/* The matching window holds about twice the path-delay bound of traffic,
 * however long the capture: 100 000 exchanges over 2 s. */
static void test_window_bounded(void)
{
    struct roce_vantage_config cfg;
    struct roce_vantage_point pts[2] = {{0, T0, T0 + 2000 * MS, 0}, {1, T0, T0 + 2000 * MS, 1}};
    struct roce_vtx a, b;
    roce_vantage_config_default(&cfg);
    struct roce_vantage *v = roce_vantage_new(&cfg, 2, pts, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_EQUAL(roce_vantage_set_offset(v, 1, 0), 0);
    CU_ASSERT_EQUAL_FATAL(roce_vantage_start(v), 0);
    memset(&a, 0, sizeof a);
    key_of(&a.key, 1, QB);
    a.opcode = OP_WRITE_ONLY;
    a.len = WLEN;
    a.flags = ROCE_VTX_REQUEST | ROCE_VTX_LOCATE;
    b = a;
    for (uint32_t i = 0; i < 100000; i++) {
        a.psn = b.psn = i & 0xFFFFFF;
        a.ts_ns = T0 + (int64_t)i * 20 * US;
        b.ts_ns = a.ts_ns + D_AB;
        roce_vantage_feed(v, 0, &a);
        roce_vantage_feed(v, 1, &b);
    }
    CU_ASSERT(v->cap_g <= 1024); /* 2 ms of traffic is 100 transmissions */
    roce_vantage_end(v, 0);
    roce_vantage_end(v, 1);
    roce_vantage_finish(v);
    CU_ASSERT_EQUAL(roce_vantage_totals(v)->matched, 100000);
    CU_ASSERT_EQUAL(roce_vantage_totals(v)->forced, 0);
    CU_ASSERT_EQUAL(roce_vantage_loss_count(v), 0);
    roce_vantage_free(v);
}

static void test_bad_arguments(void)
{
    struct roce_vantage_config cfg;
    struct roce_vantage_point pts[2] = {{0, 0, 0, 0}, {1, 0, 0, 1}};
    roce_vantage_config_default(&cfg);
    CU_ASSERT_PTR_NULL(roce_vantage_new(&cfg, 0, pts, 1));
    CU_ASSERT_PTR_NULL(roce_vantage_new(&cfg, ROCE_VANTAGE_MAX_POINTS + 1, pts, 1));
    CU_ASSERT_PTR_NULL(roce_vantage_new(&cfg, 2, pts, 1)); /* point 1's source does not exist */
    cfg.path_delay_ns = 0;
    CU_ASSERT_PTR_NULL(roce_vantage_new(&cfg, 2, pts, 2));
    roce_vantage_config_default(&cfg);
    struct roce_vantage *v = roce_vantage_new(&cfg, 2, pts, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_EQUAL(roce_vantage_set_offset(v, 2, 0), -1);
    CU_ASSERT_EQUAL(roce_vantage_start(v), -1); /* point 1 has no offset yet */
    CU_ASSERT_EQUAL(roce_vantage_need(v), 0);
    roce_vantage_finish(v); /* not started: nothing happens */
    CU_ASSERT_EQUAL(roce_vantage_flow_count(v), 0);
    roce_vantage_free(v);
    roce_vantage_free(NULL);
}

/* ---- PFC pauses across the points (roce_vantage_pause.c) ---- */

#define PAUSE_Q 1000u /* 5.12 us at 100 Gb/s */
#define PAUSE_D 5120LL

static void mac_n(uint8_t m[6], unsigned n)
{
    memset(m, 0, 6);
    m[0] = 0x02;
    m[5] = (uint8_t)n;
}

/* A PFC frame from MAC n for priority prio (quanta; 0: XON), or with
 * prio ROCE_VPAUSE_LINK an 802.3x PAUSE. */
static void pfc_frame(struct roce_vpauses *p, unsigned n, unsigned prio, uint16_t quanta,
                      uint64_t frame, int64_t t)
{
    struct roce_pkt pkt;
    uint8_t m[6];
    memset(&pkt, 0, sizeof pkt);
    mac_n(m, n);
    if (prio == ROCE_VPAUSE_LINK) {
        pkt.mac_ctrl = ROCE_MACCTRL_PAUSE;
        pkt.pause_quanta[0] = quanta;
    } else {
        pkt.mac_ctrl = ROCE_MACCTRL_PFC;
        pkt.pfc_cev = (uint8_t)(1u << prio);
        pkt.pause_quanta[prio] = quanta;
    }
    roce_vpauses_frame(p, &pkt, m, frame, t);
}

/* A data frame from MAC n. */
static void data_frame(struct roce_vpauses *p, unsigned n)
{
    struct roce_pkt pkt;
    uint8_t m[6];
    memset(&pkt, 0, sizeof pkt);
    mac_n(m, n);
    roce_vpauses_frame(p, &pkt, m, 1, T0);
}

static void test_pause_episodes(void)
{
    struct roce_vpauses *p = roce_vpauses_new(100000);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    pfc_frame(p, 1, 3, 0, 1, T0);                              /* XON of nothing: no episode */
    pfc_frame(p, 1, 3, PAUSE_Q, 2, T0 + US);                   /* starts */
    pfc_frame(p, 1, 3, PAUSE_Q, 3, T0 + 3 * US);               /* renews: ends at +3 us + 5.12 */
    pfc_frame(p, 2, 3, PAUSE_Q, 4, T0 + 4 * US);               /* another MAC: its own */
    pfc_frame(p, 1, 4, PAUSE_Q, 5, T0 + 4 * US);               /* another priority: its own */
    pfc_frame(p, 1, 3, 0, 6, T0 + 5 * US);                     /* XON: ends it */
    pfc_frame(p, 1, 3, PAUSE_Q, 7, T0 + 6 * US);               /* a new one */
    pfc_frame(p, 2, 3, PAUSE_Q, 8, T0 + 4 * US + PAUSE_D + 1); /* ran out: a new one */
    CU_ASSERT_EQUAL_FATAL(p->n, 5);
    CU_ASSERT_EQUAL(p->ep[0].start_ns, T0 + US);
    CU_ASSERT_EQUAL(p->ep[0].end_ns, T0 + 5 * US);
    CU_ASSERT_EQUAL(p->ep[0].first_frame, 2);
    CU_ASSERT_EQUAL(p->ep[0].last_frame, 6);
    CU_ASSERT_EQUAL(p->ep[0].frames, 3);
    CU_ASSERT_EQUAL(p->ep[1].end_ns, T0 + 4 * US + PAUSE_D);
    CU_ASSERT_EQUAL(p->ep[2].prio, 4);
    CU_ASSERT_EQUAL(p->ep[3].first_frame, 7);
    CU_ASSERT_EQUAL(p->ep[4].first_frame, 8);
    /* senders: data frames only, bounded and counted */
    data_frame(p, 9);
    CU_ASSERT_TRUE(roce_vpauses_sent(p, (uint8_t[6]){0x02, 0, 0, 0, 0, 9}));
    CU_ASSERT_FALSE(roce_vpauses_sent(p, (uint8_t[6]){0x02, 0, 0, 0, 0, 1}));
    for (unsigned i = 0; i < 2 * ROCE_VPAUSE_MAX_SENDERS; i++)
        data_frame(p, 0x100 + i); /* the last byte wraps: 256 distinct MACs at most */
    CU_ASSERT_TRUE(p->n_senders < ROCE_VPAUSE_MAX_SENDERS);
    CU_ASSERT_TRUE(p->senders_dropped > 0);
    /* episodes: bounded and counted */
    for (unsigned i = 0; i < ROCE_VPAUSE_MAX_EPISODES; i++)
        pfc_frame(p, 5, 1, PAUSE_Q, 100 + i, T0 + (int64_t)(i + 10) * 10 * US);
    CU_ASSERT_EQUAL(p->n, ROCE_VPAUSE_MAX_EPISODES);
    CU_ASSERT_EQUAL(p->episodes_dropped, 5);
    roce_vpauses_free(p);
    roce_vpauses_free(NULL);
}

/* Three points on given offsets (point p's clock ahead by offs[p]). */
static struct roce_vantage *pause_points(const int64_t *offs, int64_t window_cfg)
{
    struct roce_vantage_config cfg;
    struct roce_vantage_point pts[NPTS];
    roce_vantage_config_default(&cfg);
    cfg.path_delay_ns = window_cfg;
    for (unsigned p = 0; p < NPTS; p++) {
        pts[p].source = p;
        pts[p].first_ts_ns = T0 + offs[p];
        pts[p].last_ts_ns = T0 + offs[p] + MS;
        pts[p].tie_rank = p;
    }
    struct roce_vantage *v = roce_vantage_new(&cfg, NPTS, pts, NPTS);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    for (unsigned p = 1; p < NPTS; p++)
        CU_ASSERT_EQUAL(roce_vantage_set_offset(v, p, offs[p]), 0);
    CU_ASSERT_EQUAL_FATAL(roce_vantage_start(v), 0);
    return v;
}

/* The points of a chain's or cycle's steps, as a number (point + 1 digits). */
static unsigned step_points(const struct roce_vantage *v, uint32_t first, uint32_t n)
{
    unsigned x = 0;
    for (uint32_t k = 0; k < n; k++)
        x = x * 10 + roce_vantage_pause_step(v, first + k)->point + 1;
    return x;
}

/* The upstream case: MAC 0x12 pauses at point 0 (0x03 sends there), 0x03 at
 * point 1 (0x02 sends there), 0x02 at point 2; point 2's clock is 1 ms
 * behind, so its raw times come first. tie: whether the senders are noted. */
static void upstream_case(int tie, int64_t window, int chained)
{
    const int64_t offs[NPTS] = {0, 300 * US, -MS};
    struct roce_vpauses *pp[NPTS];
    struct roce_vantage *v = pause_points(offs, 2 * US);
    for (unsigned p = 0; p < NPTS; p++)
        pp[p] = roce_vpauses_new(100000);
    if (tie) {
        data_frame(pp[0], 0x03);
        data_frame(pp[0], 0x12);
        data_frame(pp[1], 0x02);
    }
    pfc_frame(pp[0], 0x12, 3, PAUSE_Q, 10, T0 + 10 * US);
    pfc_frame(pp[1], 0x03, 3, PAUSE_Q, 11, T0 + offs[1] + 13 * US);
    pfc_frame(pp[2], 0x02, 3, PAUSE_Q, 12, T0 + offs[2] + 16 * US);
    pfc_frame(pp[2], 0x07, 5, PAUSE_Q, 13, T0 + offs[2] + 17 * US); /* another priority */
    CU_ASSERT_EQUAL(roce_vantage_pauses(v, pp, window), 0);
    const struct roce_vpause_totals *t = roce_vantage_pause_totals(v);
    CU_ASSERT_EQUAL(t->episodes, 4);
    CU_ASSERT_EQUAL(roce_vantage_pause_cycle_count(v), 0);
    if (!chained) {
        CU_ASSERT_EQUAL(roce_vantage_pause_chain_count(v), 0);
        CU_ASSERT_EQUAL(t->spread, 0);
    } else {
        CU_ASSERT_EQUAL_FATAL(roce_vantage_pause_chain_count(v), 1);
        const struct roce_vpause_chain *c = roce_vantage_pause_chain(v, 0);
        CU_ASSERT_EQUAL(c->n_steps, 3);
        CU_ASSERT_EQUAL(c->prio, 3);
        CU_ASSERT_EQUAL(step_points(v, c->first_step, c->n_steps), 123);
        const struct roce_vpause_ep *e = roce_vantage_pause_step(v, c->first_step + 2);
        CU_ASSERT_EQUAL(e->start_ns, T0 + 16 * US); /* aligned */
        CU_ASSERT_EQUAL(e->first_frame, 12);
        CU_ASSERT_EQUAL(e->evidence, tie ? ROCE_VPAUSE_MAC : ROCE_VPAUSE_ORDER);
        CU_ASSERT_EQUAL(roce_vantage_pause_episode(v, (size_t)e->parent)->point, tie ? 1 : 1);
        CU_ASSERT_EQUAL(t->spread, 2);
        CU_ASSERT_EQUAL(t->spread_mac, tie ? 2 : 0);
    }
    for (unsigned p = 0; p < NPTS; p++)
        roce_vpauses_free(pp[p]);
    roce_vantage_free(v);
}

static void test_pause_upstream(void)
{
    upstream_case(1, 0, 1);      /* auto: 5.12 us + 2 us covers the 3 us steps */
    upstream_case(0, 0, 1);      /* no MAC tie: time order only */
    upstream_case(1, 2 * US, 0); /* a window shorter than the steps */
    upstream_case(1, 4 * US, 1);
}

/* A ring: point 0 is S1-S2 (S2 pauses), point 2 S3-S1 (S1), point 1 S2-S3
 * (S3); each pauser sent data at the point before it. mac_last: whether the
 * closing tie (S2 sent at point 1) is there. */
static void cycle_case(int mac_last, unsigned last_prio)
{
    const int64_t offs[NPTS] = {0, 5 * US, -7 * US};
    struct roce_vpauses *pp[NPTS];
    struct roce_vantage *v = pause_points(offs, 2 * US);
    for (unsigned p = 0; p < NPTS; p++)
        pp[p] = roce_vpauses_new(100000);
    data_frame(pp[0], 0x01);
    data_frame(pp[0], 0x02);
    data_frame(pp[2], 0x03);
    if (mac_last)
        data_frame(pp[1], 0x02);
    pfc_frame(pp[0], 0x02, 3, PAUSE_Q, 20, T0 + 10 * US);
    pfc_frame(pp[2], 0x01, 3, PAUSE_Q, 21, T0 + offs[2] + 13 * US);
    pfc_frame(pp[0], 0x02, 3, 0, 22, T0 + 14 * US);
    pfc_frame(pp[1], 0x03, 3, PAUSE_Q, 23, T0 + offs[1] + 16 * US);
    pfc_frame(pp[0], 0x02, last_prio, PAUSE_Q, 24, T0 + 19 * US);
    CU_ASSERT_EQUAL(roce_vantage_pauses(v, pp, 0), 0);
    CU_ASSERT_EQUAL(roce_vantage_pause_chain_count(v), 1);
    if (!mac_last) {
        CU_ASSERT_EQUAL(roce_vantage_pause_cycle_count(v), 0);
    } else {
        CU_ASSERT_EQUAL_FATAL(roce_vantage_pause_cycle_count(v), 1);
        const struct roce_vpause_cycle *c = roce_vantage_pause_cycle(v, 0);
        CU_ASSERT_EQUAL(c->n_links, 3);
        CU_ASSERT_EQUAL(c->n_steps, 4);
        CU_ASSERT_EQUAL(c->count, 1);
        CU_ASSERT_EQUAL(step_points(v, c->first_step, c->n_steps), 1321);
        CU_ASSERT_EQUAL(roce_vantage_pause_step(v, c->first_step + 3)->first_frame, 24);
    }
    for (unsigned p = 0; p < NPTS; p++)
        roce_vpauses_free(pp[p]);
    roce_vantage_free(v);
}

static void test_pause_cycle(void)
{
    cycle_case(1, 3);
    cycle_case(0, 3);                /* the last link tied by time only: no cycle */
    cycle_case(1, ROCE_VPAUSE_LINK); /* a link PAUSE closes it as well */
}

static const struct tu_test tests[] = {
    {"vtx_from_frame", test_vtx_from_frame},
    {"split_vxlan", test_split_vxlan},
    {"sample_consistent", test_sample_consistent},
    {"offset", test_offset},
    {"offset_outliers", test_offset_outliers},
    {"drift", test_drift},
    {"offset_fails", test_offset_fails},
    {"losses", test_losses},
    {"order_independent", test_order_independent},
    {"feed_order", test_feed_order},
    {"common_span", test_common_span},
    {"span_margin", test_span_margin},
    {"qp_reuse", test_qp_reuse},
    {"offset_bound_rounded_up", test_offset_bound_rounded_up},
    {"three_points", test_three_points},
    {"window_bounded", test_window_bounded},
    {"bad_arguments", test_bad_arguments},
    {"pause_episodes", test_pause_episodes},
    {"pause_upstream", test_pause_upstream},
    {"pause_cycle", test_pause_cycle},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "vantage", tests);
}
