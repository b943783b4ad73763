/*
 * test_split.c - a split analysis (roce_split.h): parts that take whole
 * classes of address pairs give, merged, the verdicts and flow ids of one
 * engine; and roce_split_exact() refuses a split whose result could differ
 * (rocescope(1), THREADS; ANALYSIS.md, "ECN and CNPs", for the waits):
 *   - frames out of time order;
 *   - more verdicts open at once than one engine keeps, counting a verdict
 *     open until the latest frame at which it or one before it was delivered;
 *   - as many CE marks as the ring holds within two CNP windows (a mark
 *     waits its own window, and the window of a CNP that waited for its
 *     connection), or CNPs within one window;
 *   - CNPs to one destination from address pairs of both parts (the CNP
 *     pacing per destination, ANALYSIS.md "CNP pacing").
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "roce_shard.h"
#include "roce_split.h"
#include "roce_verdq.h" /* one engine's open verdicts, for open_between */
#include "rocegen_build.h"
#include "test_util.h"

#define PAIRS    8
#define ROUNDS   10
#define GAP_PSN  3u /* not sent by every third pair: a PSN gap */
#define CE_ROUND 4  /* the round whose requests every other pair CE-marks */
#define QA       0x000101u
#define QB       0x000202u
#define STEP_NS  1000
#define T0_NS    1700000000000000000LL
#define MAX_V    16384 /* open_between's parts */
#define PARTS    2

/* A frame of the test stream. */
struct tframe {
    uint8_t b[256];
    uint32_t len;
    int64_t ts;
};

/* Settled verdicts, with the frame at which they were delivered. */
struct got {
    struct roce_verdict v[MAX_V];
    uint64_t delivered[MAX_V];
    size_t n;
    struct roce_split_part *part; /* NULL: one engine */
};

static void collect(const struct roce_verdict *v, void *ctx)
{
    struct got *g = ctx;
    CU_ASSERT_FATAL(g->n < MAX_V);
    g->v[g->n] = *v;
    g->delivered[g->n++] = g->part != NULL ? roce_split_delivered(g->part) : 0;
}

static void add(struct tframe *f, size_t *n, const struct rg_spec *s, int64_t ts)
{
    int len = rg_build(s, f[*n].b, sizeof f[*n].b, NULL);
    CU_ASSERT_FATAL(len > 0);
    f[*n].len = (uint32_t)len;
    f[*n].ts = ts;
    (*n)++;
}

/* Eight connections (10.0.0.i <-> 10.0.1.i) in rounds: a request A->B
 * (with a gap and CE marks), its ACK B->A, a CNP B->A after a CE mark. */
static size_t make_stream(struct tframe *f)
{
    size_t n = 0;
    int64_t ts = T0_NS;
    for (uint32_t r = 0; r < ROUNDS; r++)
        for (uint32_t i = 0; i < PAIRS; i++) {
            struct rg_spec s;
            int ce = r == CE_ROUND && i % 2 == 0;
            if (r == GAP_PSN && i % 3 == 0)
                continue;
            rg_spec_init(&s);
            rg_addr_v4(s.src, 0x0A000001u + i);
            rg_addr_v4(s.dst, 0x0A000101u + i);
            s.dqpn = QB;
            s.psn = r;
            s.ackreq = 1;
            s.ecn = ce ? RG_ECN_CE : RG_ECN_ECT0;
            add(f, &n, &s, ts += STEP_NS);
            rg_spec_init(&s);
            rg_addr_v4(s.src, 0x0A000101u + i);
            rg_addr_v4(s.dst, 0x0A000001u + i);
            s.dqpn = QA;
            s.opcode = RG_OP_RC_ACK;
            s.psn = r;
            s.aeth_syndrome = rg_aeth_ack(RG_AETH_CREDITS_INVALID);
            add(f, &n, &s, ts += STEP_NS);
            if (ce) {
                s.opcode = RG_OP_CNP;
                s.psn = 0;
                add(f, &n, &s, ts += STEP_NS);
            }
        }
    return n;
}

static struct roce_frame_in frame_in(const struct tframe *f, uint64_t number)
{
    return (struct roce_frame_in){number, f->ts, ROCE_LINKTYPE_ETHERNET, f->b, f->len, f->len};
}

/* The parts' verdicts merged in frame order (for roce_split_exact). */
struct merged {
    struct got *g;
    size_t at[PARTS];
    unsigned n;
    unsigned last; /* the part of the latest verdict given */
};

static int next_merged(void *ctx, struct roce_verdict *v, uint64_t *delivered)
{
    struct merged *m = ctx;
    int best = -1;
    for (unsigned i = 0; i < m->n; i++)
        if (m->at[i] < m->g[i].n &&
            (best < 0 || m->g[i].v[m->at[i]].frame < m->g[best].v[m->at[best]].frame))
            best = (int)i;
    if (best < 0)
        return 0;
    m->last = (unsigned)best;
    *v = m->g[best].v[m->at[best]];
    *delivered = m->g[best].delivered[m->at[best]++];
    return 1;
}

/* The stream through one engine and through the parts of a two-part split. */
struct run {
    struct tframe f[PAIRS * ROUNDS * 3 + 1];
    struct got one, g[PARTS];
    struct roce_split_part *parts[PARTS];
    size_t n;            /* frames of the stream (before a CNP added) */
    size_t taken[PARTS]; /* the frames each part analysed */
    struct merged m;     /* the parts' verdicts in frame order */
};

/* A CNP to 10.0.0.1 from a host of the other part than 10.0.1.1, whose
 * CNPs 10.0.0.1 also gets. */
static void cnp_from_other_part(struct tframe *f, size_t *n)
{
    uint8_t a[ROCE_ADDR_LEN] = {0}, b[ROCE_ADDR_LEN] = {0}, c[ROCE_ADDR_LEN] = {0};
    struct rg_spec s;
    rg_addr_v4(a, 0x0A000001u);
    rg_addr_v4(b, 0x0A000101u);
    unsigned part = roce_shard_part(roce_shard_class(roce_pair_key(a, b)), PARTS);
    uint32_t other = 0x0A000201u;
    for (;; other++) {
        rg_addr_v4(c, other);
        if (roce_shard_part(roce_shard_class(roce_pair_key(a, c)), PARTS) != part)
            break;
    }
    rg_spec_init(&s);
    rg_addr_v4(s.src, other);
    rg_addr_v4(s.dst, 0x0A000001u);
    s.dqpn = QA;
    s.opcode = RG_OP_CNP;
    s.psn = 0;
    add(f, n, &s, f[*n - 1].ts + STEP_NS);
}

/* How the parts get the frames: one reader finding each frame's part
 * (roce_split_walk_frame) and that part alone handed it (roce_split_frame),
 * as `rocescope -T` does and every test here but those that say otherwise;
 * or each part told every frame (roce_split_mine). */
enum way { MINE, WALK };
static enum way run_way = WALK;

/* Feed the stream (one frame moved back to the first's time when
 * out_of_order; a CNP from the other part to a destination of CNPs added
 * when shared_dst) to one engine and to the parts (run_way), and finish
 * them. */
static void run_both(struct run *r, int out_of_order, int shared_dst)
{
    struct roce_config cfg;
    memset(r, 0, sizeof *r);
    size_t nf = make_stream(r->f);
    r->n = nf;
    if (out_of_order) /* 1: the middle frame, 2: the one after it... */
        r->f[nf / 2 + (size_t)out_of_order - 1].ts = r->f[0].ts;
    if (shared_dst)
        cnp_from_other_part(r->f, &nf);
    roce_config_default(&cfg);
    cfg.on_verdict = collect;
    cfg.ctx = &r->one;
    struct roce_engine *e = roce_engine_new(&cfg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    for (unsigned i = 0; i < PARTS; i++) {
        cfg.ctx = &r->g[i];
        r->parts[i] = r->g[i].part = roce_split_part_new(&cfg, i, PARTS);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r->parts[i]);
    }
    struct roce_split_walk w;
    roce_split_walk_init(&w, &cfg, PARTS);
    for (size_t k = 0; k < nf; k++) {
        struct roce_frame_in in = frame_in(&r->f[k], k + 1);
        roce_engine_frame(e, &in, NULL);
        if (run_way == WALK) {
            int64_t now;
            unsigned part = roce_split_walk_frame(&w, &in, &now);
            CU_ASSERT_FATAL(part < PARTS);
            roce_split_frame(r->parts[part], &in, now);
            r->taken[part]++;
            continue;
        }
        for (unsigned i = 0; i < PARTS; i++)
            if (roce_split_mine(r->parts[i], &in)) {
                roce_engine_frame(roce_split_engine(r->parts[i]), &in, NULL);
                r->taken[i]++;
            }
    }
    roce_engine_finish(e);
    roce_engine_free(e);
    for (unsigned i = 0; i < PARTS; i++) {
        if (run_way == WALK && w.have_now)
            roce_split_input_time(r->parts[i], w.now_ns);
        roce_split_finish(r->parts[i]);
    }
    CU_ASSERT_EQUAL(r->taken[0] + r->taken[1], nf);
    r->m = (struct merged){r->g, {0}, PARTS, 0};
}

static void free_parts(struct run *r)
{
    for (unsigned i = 0; i < PARTS; i++)
        roce_split_part_free(r->parts[i]);
}

/* Both parts get frames, the split is exact, and the verdicts merged in
 * frame order with their flow ids renumbered are one engine's. */
static void test_equals_one_engine(void)
{
    static struct run r;
    run_both(&r, 0, 0);
    CU_ASSERT(r.g[0].n > 0 && r.g[1].n > 0);
    CU_ASSERT_EQUAL(r.g[0].n + r.g[1].n, r.one.n);
    CU_ASSERT_PTR_NULL(roce_split_exact(r.parts, PARTS, next_merged, &r.m));
    CU_ASSERT_EQUAL_FATAL(roce_split_number(r.parts, PARTS), 0);
    uint32_t seen = 0;
    struct roce_verdict v;
    uint64_t delivered;
    memset(r.m.at, 0, sizeof r.m.at);
    for (size_t k = 0; next_merged(&r.m, &v, &delivered) == 1; k++) {
        const struct roce_verdict *w = &r.one.v[k];
        CU_ASSERT_EQUAL(v.frame, w->frame);
        CU_ASSERT_EQUAL(v.flags, w->flags);
        CU_ASSERT_EQUAL(v.has_flow, w->has_flow);
        CU_ASSERT_EQUAL(roce_split_flow_id(r.parts[r.m.last], v.flow_id), w->flow_id);
        CU_ASSERT_EQUAL(v.expected_psn, w->expected_psn);
        CU_ASSERT_EQUAL(v.missing_psns, w->missing_psns);
        CU_ASSERT_EQUAL(v.cnp_frame, w->cnp_frame);
        CU_ASSERT_EQUAL(v.cnp_for_frame, w->cnp_for_frame);
        seen |= v.flags;
    }
    CU_ASSERT(seen & ROCE_V_GAP);
    CU_ASSERT(seen & ROCE_V_CE_ANSWERED);
    CU_ASSERT(seen & ROCE_V_CNP_MATCHED);
    free_parts(&r);
}

/* The same with one reader walking the frames (roce_split_walk_frame,
 * roce_split_frame): each frame analysed by its part alone; the parts
 * deliver the verdicts at the frames they do with every part told every
 * frame. */
static void test_walk_equals_mine(void)
{
    static struct run mine, walk;
    run_way = MINE;
    run_both(&mine, 0, 0);
    run_way = WALK;
    run_both(&walk, 0, 0);
    for (unsigned i = 0; i < PARTS; i++) {
        CU_ASSERT_EQUAL(walk.taken[i], mine.taken[i]);
        CU_ASSERT_EQUAL_FATAL(walk.g[i].n, mine.g[i].n);
        for (size_t k = 0; k < walk.g[i].n; k++) {
            CU_ASSERT_EQUAL(walk.g[i].v[k].frame, mine.g[i].v[k].frame);
            CU_ASSERT_EQUAL(walk.g[i].v[k].flags, mine.g[i].v[k].flags);
            CU_ASSERT_EQUAL(walk.g[i].delivered[k], mine.g[i].delivered[k]);
        }
    }
    free_parts(&mine);
    free_parts(&walk);
}

/* A frame earlier than the one before it, in either part, handed on by
 * the reader: the split could differ. */
static void test_walk_out_of_order(void)
{
    static struct run r;
    unsigned seen = 0; /* bit i: a frame of part i was moved */
    for (int at = 1; at <= 4; at++) {
        run_both(&r, at, 0);
        struct roce_split_walk w;
        struct roce_config cfg;
        int64_t now;
        roce_config_default(&cfg);
        roce_split_walk_init(&w, &cfg, PARTS);
        struct roce_frame_in in = frame_in(&r.f[r.n / 2 + (size_t)at - 1], 1);
        seen |= 1u << roce_split_walk_frame(&w, &in, &now);
        const char *why = roce_split_exact(r.parts, PARTS, next_merged, &r.m);
        CU_ASSERT(why != NULL && strstr(why, "time order") != NULL);
        free_parts(&r);
    }
    CU_ASSERT_EQUAL(seen, 3u);
}

/* A frame earlier than the one before it, every part told every frame
 * (roce_split_mine): the split could differ. */
static void test_out_of_order(void)
{
    static struct run r;
    run_way = MINE;
    run_both(&r, 1, 0);
    run_way = WALK;
    const char *why = roce_split_exact(r.parts, PARTS, next_merged, &r.m);
    CU_ASSERT_PTR_NOT_NULL(why);
    CU_ASSERT(why != NULL && strstr(why, "time order") != NULL);
    free_parts(&r);
}

/* CNPs to one address from pairs of both parts: its gaps per destination
 * would differ. */
static void test_cnp_destination_shared(void)
{
    static struct run r;
    run_both(&r, 0, 1);
    const char *why = roce_split_exact(r.parts, PARTS, next_merged, &r.m);
    CU_ASSERT(why != NULL && strstr(why, "CNPs to one destination in several parts") != NULL);
    free_parts(&r);
}

/* Verdicts made up for roce_split_exact: n of them, frames from 1, at
 * times t0 + k * step, with flags, each delivered at `delivered` (0: at
 * its own frame). */
struct made {
    uint64_t n, k, delivered;
    int64_t t0, step;
    uint32_t flags;
};

static int next_made(void *ctx, struct roce_verdict *v, uint64_t *delivered)
{
    struct made *m = ctx;
    if (m->k == m->n)
        return 0;
    memset(v, 0, sizeof *v);
    v->frame = ++m->k;
    v->ts_ns = m->t0 + (int64_t)(m->k - 1) * m->step;
    v->flags = m->flags;
    *delivered = m->delivered ? m->delivered : v->frame;
    return 1;
}

/* The checks on made-up verdicts with one part of cfg (no frames). */
static const char *exact_with(const struct roce_config *cfg, struct made *m)
{
    struct roce_split_part *p = roce_split_part_new(cfg, 0, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    roce_split_finish(p);
    const char *why = roce_split_exact(&p, 1, next_made, m);
    roce_split_part_free(p);
    return why;
}

/* max_open_verdicts 2: three verdicts each delivered only at frame 10 are
 * open at once; delivered at their own frame, one at a time. */
static void test_open_verdicts(void)
{
    struct roce_config cfg;
    roce_config_default(&cfg);
    cfg.max_open_verdicts = 2;
    struct made late = {3, 0, 10, T0_NS, STEP_NS, ROCE_V_GAP};
    struct made prompt = {3, 0, 0, T0_NS, STEP_NS, ROCE_V_GAP};
    CU_ASSERT_PTR_NOT_NULL(exact_with(&cfg, &late));
    CU_ASSERT_PTR_NULL(exact_with(&cfg, &prompt));
}

/* One CE mark more than the ring holds: refused within 1.5 CNP windows
 * (they wait up to two), accepted over 2.5 windows. CNPs wait one window:
 * one more than their ring holds over 1.5 windows is accepted, over half a
 * window refused. */
static void test_ce_and_cnp_waits(void)
{
    struct roce_config cfg;
    struct roce_engine_usage u;
    roce_config_default(&cfg);
    struct roce_split_part *p = roce_split_part_new(&cfg, 0, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    roce_engine_usage(roce_split_engine(p), &u);
    roce_split_part_free(p);
    const int64_t w = cfg.cnp_window_ns;
    uint64_t n = (uint64_t)u.ce_ring_max + 1;
    struct made ce15 = {n, 0, 0, T0_NS, 3 * w / 2 / (int64_t)n, ROCE_V_CE};
    struct made ce25 = {n, 0, 0, T0_NS, 5 * w / 2 / (int64_t)n + 1, ROCE_V_CE};
    CU_ASSERT_PTR_NOT_NULL(exact_with(&cfg, &ce15));
    CU_ASSERT_PTR_NULL(exact_with(&cfg, &ce25));
    n = (uint64_t)u.cnp_ring_max + 1;
    struct made cnp15 = {n, 0, 0, T0_NS, 3 * w / 2 / (int64_t)n + 1, ROCE_V_CNP};
    struct made cnp05 = {n, 0, 0, T0_NS, w / 2 / (int64_t)n, ROCE_V_CNP};
    CU_ASSERT_PTR_NULL(exact_with(&cfg, &cnp15));
    CU_ASSERT_PTR_NOT_NULL(exact_with(&cfg, &cnp05));
}

/* Parts beyond the classes get no frames: at most one part per class. */
/* A PFC frame (802.1Qbb) pausing priority 3 for 0xffff quanta. */
static void add_pause(struct tframe *f, size_t *n, int64_t ts)
{
    static const uint8_t pfc[] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00,
                                  0x00, 0x00, 0x01, 0x88, 0x08, 0x01, 0x01, 0x00, 0x08,
                                  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff};
    memset(f[*n].b, 0, sizeof f[*n].b);
    memcpy(f[*n].b, pfc, sizeof pfc);
    f[*n].len = 60;
    f[*n].ts = ts;
    (*n)++;
}

/* roce_split_doomed while the parts run (rocescope -T stops a doomed split
 * early): NULL for every part up to the frame that dooms the split (a frame
 * earlier than the one before it, a PFC pause), then, from that frame on,
 * the reason the proof gives at the end; NULL throughout a split that the
 * proof accepts. */
static void test_doomed(void)
{
    static struct tframe f[PAIRS * ROUNDS * 3 + 2];
    for (int kind = 0; kind < 3; kind++) { /* none, out of order, pause */
        struct roce_config cfg;
        static struct got g[PARTS];
        struct roce_split_part *parts[PARTS];
        struct roce_split_walk w;
        size_t nf = make_stream(f), at = nf / 2;
        if (kind == 1)
            f[at].ts = f[0].ts;
        if (kind == 2) {
            memmove(&f[at + 1], &f[at], (nf - at) * sizeof *f);
            nf++;
            add_pause(f, &at, f[at - 1].ts);
            at--;
        }
        memset(g, 0, sizeof g);
        roce_config_default(&cfg);
        cfg.on_verdict = collect;
        for (unsigned i = 0; i < PARTS; i++) {
            cfg.ctx = &g[i];
            parts[i] = g[i].part = roce_split_part_new(&cfg, i, PARTS);
            CU_ASSERT_PTR_NOT_NULL_FATAL(parts[i]);
        }
        roce_split_walk_init(&w, &cfg, PARTS);
        const char *why = NULL;
        unsigned doomed_at = 0;
        int was[PARTS] = {0};
        for (size_t k = 0; k < nf; k++) {
            struct roce_frame_in in = frame_in(&f[k], k + 1);
            int64_t now;
            unsigned part = roce_split_walk_frame(&w, &in, &now);
            roce_split_frame(parts[part], &in, now);
            for (unsigned i = 0; i < PARTS; i++) {
                const char *d = roce_split_doomed(parts[i]);
                CU_ASSERT(d != NULL || !was[i]); /* once doomed, always */
                was[i] |= d != NULL;
                if (d != NULL && why == NULL) {
                    why = d;
                    doomed_at = (unsigned)k;
                }
                CU_ASSERT(d == NULL || strcmp(d, why) == 0);
            }
        }
        for (unsigned i = 0; i < PARTS; i++) {
            roce_split_input_time(parts[i], w.now_ns);
            roce_split_finish(parts[i]);
        }
        struct merged m = {g, {0}, PARTS, 0};
        const char *proof = roce_split_exact(parts, PARTS, next_merged, &m);
        if (kind == 0) {
            CU_ASSERT_PTR_NULL(why);
            CU_ASSERT_PTR_NULL(proof);
        } else {
            CU_ASSERT_EQUAL(doomed_at, at);
            CU_ASSERT(why != NULL && strstr(why, kind == 1 ? "time order" : "PFC pauses"));
            CU_ASSERT(proof != NULL && why != NULL && strcmp(proof, why) == 0);
        }
        for (unsigned i = 0; i < PARTS; i++)
            roce_split_part_free(parts[i]);
    }
}

/* A NAK that no resend answers (it waits the NAK horizon, 1 s) holds every
 * verdict after it in one engine, whichever pair it is of; behind it, CE
 * marks of 31 other pairs in both parts, each waiting its two CNP windows
 * (2 us here: 200 frames). While the frames are fed in order, each part at
 * its last frame: the parts' counts over [the oldest waiting verdict of all,
 * the earliest frame of any part) (roce_split_between) never exceed what one
 * engine holds at that frame (the delivered verdicts of the NAK's epoch
 * before it are not counted), and come within the epochs of the delivered
 * counts (1024 frames a part at each end) of it; with max_open_verdicts
 * between the largest part's queue and one engine's, the sum reaches it
 * (roce_split_open_doomed), one engine forces verdicts out and the proof at
 * the end refuses, while no part reached the bound on its own. */
static void count_one(const struct roce_verdict *v, void *ctx)
{
    (void)v;
    ++*(uint64_t *)ctx;
}

#define OB_FRAMES 12000u
#define OB_PAIRS  32u
#define OB_STEP   10    /* ns between frames */
#define OB_NAK_AT 1537u /* the NAK's frame */
static void test_open_between(void)
{
    static struct tframe f[OB_FRAMES];
    static uint64_t one_open[OB_FRAMES + 1];
    static struct got g[PARTS];
    size_t nf = 0;
    struct rg_spec s;
    int64_t ts = T0_NS;
    /* CE-marked requests of pairs 1..31, the NAK of pair 0 in the middle of
     * the second epoch (frames 1536 and 1537: a request, its NAK), then more
     * CE-marked requests */
    for (uint32_t k = 0; nf < OB_FRAMES; k++) {
        rg_spec_init(&s);
        if (nf == OB_NAK_AT - 1) {
            rg_addr_v4(s.src, 0x0A000001u);
            rg_addr_v4(s.dst, 0x0A000101u);
            s.dqpn = QB;
            s.psn = 0;
            add(f, &nf, &s, ts += OB_STEP);
            rg_spec_init(&s);
            rg_addr_v4(s.src, 0x0A000101u);
            rg_addr_v4(s.dst, 0x0A000001u);
            s.dqpn = QA;
            s.opcode = RG_OP_RC_ACK;
            s.psn = 1;
            s.aeth_syndrome = rg_aeth_nak(RG_NAK_PSN_SEQ_ERR);
            add(f, &nf, &s, ts += OB_STEP);
            rg_spec_init(&s);
        }
        rg_addr_v4(s.src, 0x0A000001u + 1 + k % (OB_PAIRS - 1));
        rg_addr_v4(s.dst, 0x0A000101u + 1 + k % (OB_PAIRS - 1));
        s.dqpn = QB;
        s.psn = k / (OB_PAIRS - 1);
        s.ecn = RG_ECN_CE;
        add(f, &nf, &s, ts += OB_STEP);
    }
    for (int bounded = 0; bounded < 2; bounded++) {
        struct roce_config cfg;
        uint64_t delivered_one = 0;
        struct roce_split_part *parts[PARTS];
        struct roce_split_walk w;
        uint64_t peak_sum = 0, peak_one = 0, look_at = 0;
        int reached = 0;
        roce_config_default(&cfg);
        cfg.cnp_window_ns = 1000;
        if (bounded)
            cfg.max_open_verdicts = 7000; /* one engine reaches it, no part does */
        cfg.on_verdict = count_one;
        cfg.ctx = &delivered_one;
        struct roce_engine *e = roce_engine_new(&cfg);
        cfg.on_verdict = collect;
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        memset(g, 0, sizeof g);
        for (unsigned i = 0; i < PARTS; i++) {
            cfg.ctx = &g[i];
            parts[i] = g[i].part = roce_split_part_new(&cfg, i, PARTS);
            CU_ASSERT_PTR_NOT_NULL_FATAL(parts[i]);
        }
        roce_split_walk_init(&w, &cfg, PARTS);
        for (size_t k = 0; k < nf; k++) {
            struct roce_frame_in in = frame_in(&f[k], k + 1);
            int64_t now;
            uint64_t oldest, from = UINT64_MAX, to = UINT64_MAX, at, sum = 0;
            roce_engine_frame(e, &in, NULL);
            one_open[k + 1] = roce_vq_before(e, UINT64_MAX, &oldest);
            unsigned part = roce_split_walk_frame(&w, &in, &now);
            roce_split_frame(parts[part], &in, now);
            for (unsigned i = 0; i < PARTS; i++) {
                roce_split_glance(parts[i], 0, &at, &oldest);
                from = oldest < from ? oldest : from;
                to = at < to ? at : to;
            }
            for (unsigned i = 0; i < PARTS; i++)
                sum += roce_split_between(parts[i], from, to);
            /* the same with each part told it has seen every frame so far,
             * as a part reading the input itself is (threads.c): those with
             * no verdict waiting show frame k + 1 */
            uint64_t from_seen = UINT64_MAX, to_seen = UINT64_MAX, sum_seen = 0;
            for (unsigned i = 0; i < PARTS; i++) {
                roce_split_glance(parts[i], k + 1, &at, &oldest);
                from_seen = oldest < from_seen ? oldest : from_seen;
                to_seen = at < to_seen ? at : to_seen;
            }
            for (unsigned i = 0; i < PARTS; i++)
                sum_seen += roce_split_between(parts[i], from_seen, to_seen);
            CU_ASSERT(to_seen >= to || to == 0);
            if (to_seen != 0 && to_seen <= k + 1)
                CU_ASSERT(reached || one_open[k + 1] >= cfg.max_open_verdicts ||
                          sum_seen <= one_open[to_seen]);
            if (to == 0 || to > k + 1) /* a part without frames yet */
                continue;
            /* (until one engine forces its oldest verdict out: then it
             * holds fewer, and the proof refuses) */
            reached |= one_open[k + 1] >= cfg.max_open_verdicts;
            CU_ASSERT(reached || sum <= one_open[to]);
            if (!bounded && k + 1 == nf)
                CU_ASSERT(sum + 2 * 1024 * PARTS >= one_open[to]);
            peak_sum = sum > peak_sum ? sum : peak_sum;
            peak_one = one_open[to] > peak_one ? one_open[to] : peak_one;
            if (look_at == 0 && roce_split_open_doomed(&cfg, sum) != NULL)
                look_at = k + 1;
            for (unsigned i = 0; i < PARTS; i++) {
                CU_ASSERT_PTR_NULL(roce_split_doomed(parts[i]));
            }
        }
        roce_engine_finish(e);
        const uint64_t forced = roce_engine_totals(e)->verdicts_forced;
        roce_engine_free(e);
        for (unsigned i = 0; i < PARTS; i++) {
            roce_split_input_time(parts[i], w.now_ns);
            roce_split_finish(parts[i]);
        }
        struct merged m = {g, {0}, PARTS, 0};
        const char *proof = roce_split_exact(parts, PARTS, next_merged, &m);
        if (!bounded) { /* the NAK held one engine's verdicts: thousands waited */
            CU_ASSERT(peak_one > OB_FRAMES / 2);
            CU_ASSERT_EQUAL(look_at, 0);
            CU_ASSERT(peak_sum + 2 * 1024 * PARTS >= peak_one);
            CU_ASSERT_EQUAL(forced, 0);
            CU_ASSERT_PTR_NULL(proof);
        } else {
            CU_ASSERT(look_at > 7000 && look_at < OB_FRAMES - 1024 * PARTS);
            CU_ASSERT(forced > 0);
            CU_ASSERT(proof != NULL && strstr(proof, "open verdicts") != NULL);
        }
        for (unsigned i = 0; i < PARTS; i++)
            roce_split_part_free(parts[i]);
    }
}

static void test_parts(void)
{
    CU_ASSERT_EQUAL(roce_split_parts(1), 1);
    CU_ASSERT_EQUAL(roce_split_parts(4), 4);
    CU_ASSERT_EQUAL(roce_split_parts(ROCE_SHARD_CLASSES + 5), ROCE_SHARD_CLASSES);
}

static const struct tu_test tests[] = {
    {"equals_one_engine", test_equals_one_engine},
    {"out_of_order", test_out_of_order},
    {"walk_equals_mine", test_walk_equals_mine},
    {"walk_out_of_order", test_walk_out_of_order},
    {"cnp_destination_shared", test_cnp_destination_shared},
    {"open_verdicts", test_open_verdicts},
    {"ce_and_cnp_waits", test_ce_and_cnp_waits},
    {"doomed", test_doomed},
    {"open_between", test_open_between},
    {"parts", test_parts},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "split", tests);
}
