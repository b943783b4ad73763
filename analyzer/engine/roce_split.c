/*
 * roce_split.c - a split analysis: its parts, the frames each takes, the
 * proof that the parts' results are the one engine's, and the flow ids one
 * engine gives (see roce_split.h; the key of a frame: roce_shard.h).
 *
 * Why the checks of roce_split_exact() suffice. One engine's results depend
 * on the other connections only through engine-wide bounds and the time of
 * the latest frame; a part is told the latest time of the frames it does not
 * take, so in a capture in time order every engine sees the time one engine
 * sees between two of its frames. What remains are the bounds:
 *   - flows: one engine evicts only beyond max_flows: the parts created at
 *     most that many in all;
 *   - open verdicts: one engine delivers a verdict once it is settled and
 *     all before it are; a part delivers it no earlier than it is settled,
 *     so the latest frame at which a part delivered it or any verdict before
 *     it bounds when one engine delivers it; the verdicts open at once by
 *     that bound stay below max_open_verdicts;
 *   - CE marks and waiting CNPs (roce_ecn.c): a mark waits at most
 *     ce_wait_ns, a CNP cnp_wait_ns; fewer in any such span than their rings
 *     hold;
 *   - CM REQs waiting at once, summed over the parts, within their table;
 *   - the diagnoses' rings (PSN gaps waiting, CNPs waiting for their DCQCN
 *     window): the room the parts made, summed, within the bound; source
 *     MACs, summed, within the MAC table;
 *   (the diagnoses' recent requests need no check: they are kept by class of
 *   address pairs, and a part takes whole classes, so it keeps for its flows
 *   exactly the requests one engine keeps);
 *   - no allocation failed, no bound was reached in a part itself.
 * One state is refused outright: pauses (roce_victims.c). The PFC frames go
 * to one part, the flows they stall to all, so once an XOFF was seen the
 * capture is analysed by one engine.
 * Incast (roce_incast.c) counts the senders of one receiver, whose address
 * pairs may be in several parts: a receiver tracked by several parts whose
 * peak fan-ins there add up to --incast-senders could have reached it in
 * one engine, and is refused; any other receiver reached it in no part and
 * in no engine (its fan-in at any time is at most the sum of the parts').
 * The CNP pacing per destination (roce_cnpdst.c) measures the gap from the
 * previous CNP to the same address from any source, whose address pairs
 * may be in several parts: a destination kept by several parts is refused;
 * one kept by one part got all its CNPs there. Destinations leave the
 * table only when a full set evicts one (refused too), so a part's
 * occupancy of a set only grows: when the parts' occupancies of each set
 * add up to at most its ways, one engine never evicted either.
 */
#include "roce_split.h"

#include <stdlib.h>

#include "roce_cnpdst.h"
#include "roce_incast.h"
#include "roce_internal.h"
#include "roce_verdq.h"

#define CREATED_INITIAL 1024u
#define WAIT_INITIAL    1024u
#define EPOCH_SHIFT     10u   /* the delivered verdicts counted by epochs of 1024 frames */
#define HIST_EPOCHS     1024u /* of the last 1024 epochs (a million frames) */

struct roce_split_part {
    struct roce_engine *engine; /* owned */
    struct roce_config cfg;     /* the caller's (callbacks and their ctx) */
    uint32_t classes;           /* bit c: the part takes key class c */
    uint64_t frame;             /* the frame the engine analyses */
    int64_t now_ns;             /* the latest time of the input */
    int have_now;
    int out_of_order; /* a frame came earlier than the latest before it */
    int finishing;
    int oom;           /* a record of created flows could not grow */
    uint64_t *created; /* the frame that created each flow, by id - 1 */
    size_t n_created, cap_created;
    uint64_t *map; /* id - 1 -> the id one engine gives */
    /* the verdicts delivered, and by epoch of frames (roce_split_between):
     * before[e % HIST_EPOCHS] is how many have frames before epoch e, for
     * e up to hist_last and above hist_last - HIST_EPOCHS */
    uint64_t delivered, hist_last;
    uint64_t before[HIST_EPOCHS];
};

unsigned roce_split_parts(unsigned wanted)
{
    if (wanted < 1)
        return 1;
    return wanted < ROCE_SHARD_CLASSES ? wanted : ROCE_SHARD_CLASSES;
}

/* on_verdict of a part's engine: counted by epoch (a part delivers in
 * frame order), then the caller's. */
static void part_verdict(const struct roce_verdict *v, void *ctx)
{
    struct roce_split_part *p = ctx;
    uint64_t epoch = v->frame >> EPOCH_SHIFT;
    while (p->hist_last < epoch)
        p->before[++p->hist_last % HIST_EPOCHS] = p->delivered;
    p->delivered++;
    p->cfg.on_verdict(v, p->cfg.ctx);
}

/* on_flow of a part's engine: the creating frame noted (ids count up from
 * 1: the next entry), then the caller's. */
static void part_flow(uint64_t id, uint64_t frame, void *ctx)
{
    struct roce_split_part *p = ctx;
    if (p->n_created == p->cap_created) {
        size_t cap = p->cap_created ? p->cap_created * 2 : CREATED_INITIAL;
        uint64_t *c = realloc(p->created, cap * sizeof *c);
        if (c == NULL) {
            p->oom = 1;
        } else {
            p->created = c;
            p->cap_created = cap;
        }
    }
    if (p->n_created < p->cap_created)
        p->created[p->n_created++] = frame;
    if (p->cfg.on_flow != NULL)
        p->cfg.on_flow(id, frame, p->cfg.ctx);
}

struct roce_split_part *roce_split_part_new(const struct roce_config *cfg, unsigned part,
                                            unsigned n)
{
    struct roce_split_part *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->cfg = *cfg;
    for (unsigned c = 0; c < ROCE_SHARD_CLASSES; c++)
        if (roce_shard_part(c, n) == part)
            p->classes |= 1u << c;
    struct roce_config ecfg = *cfg;
    ecfg.on_verdict = cfg->on_verdict != NULL ? part_verdict : NULL;
    ecfg.on_flow = part_flow;
    ecfg.ctx = p;
    p->engine = roce_engine_new(&ecfg);
    if (p->engine == NULL) {
        free(p);
        return NULL;
    }
    return p;
}

void roce_split_part_free(struct roce_split_part *p)
{
    if (p == NULL)
        return;
    roce_engine_free(p->engine);
    free(p->created);
    free(p->map);
    free(p);
}

struct roce_engine *roce_split_engine(struct roce_split_part *p)
{
    return p->engine;
}

/* The input's latest time after a frame at ts: 1 when the frame came
 * earlier than the latest before it (the time stays), else 0. */
static int input_time(int64_t *now_ns, int *have_now, int64_t ts)
{
    if (*have_now && ts < *now_ns)
        return 1;
    *now_ns = ts;
    *have_now = 1;
    return 0;
}

int roce_split_mine(struct roce_split_part *p, const struct roce_frame_in *in)
{
    if (input_time(&p->now_ns, &p->have_now, in->ts_ns))
        p->out_of_order = 1;
    if (!(p->classes >> roce_shard_class(roce_shard_key(&p->cfg, in)) & 1u))
        return 0;
    p->frame = in->frame;
    roce_engine_note_time(p->engine, p->now_ns);
    return 1;
}

void roce_split_walk_init(struct roce_split_walk *w, const struct roce_config *cfg, unsigned n)
{
    w->cfg = cfg;
    for (unsigned c = 0; c < ROCE_SHARD_CLASSES; c++)
        w->part[c] = (uint8_t)roce_shard_part(c, n);
    w->now_ns = 0;
    w->have_now = 0;
}

unsigned roce_split_walk_frame(struct roce_split_walk *w, const struct roce_frame_in *in,
                               int64_t *now_ns)
{
    input_time(&w->now_ns, &w->have_now, in->ts_ns);
    *now_ns = w->now_ns;
    return w->part[roce_shard_class(roce_shard_key(w->cfg, in))];
}

void roce_split_frame(struct roce_split_part *p, const struct roce_frame_in *in, int64_t now_ns)
{
    /* now_ns is the latest time up to this frame: the frame came earlier
     * than the latest before it exactly when it is earlier than now_ns (the
     * part that takes it notes it: every frame is some part's) */
    if (in->ts_ns < now_ns)
        p->out_of_order = 1;
    p->now_ns = now_ns;
    p->have_now = 1;
    p->frame = in->frame;
    roce_engine_note_time(p->engine, now_ns);
    roce_engine_frame(p->engine, in, NULL);
}

void roce_split_input_time(struct roce_split_part *p, int64_t now_ns)
{
    p->now_ns = now_ns;
    p->have_now = 1;
}

void roce_split_finish(struct roce_split_part *p)
{
    if (p->have_now)
        roce_engine_note_time(p->engine, p->now_ns);
    p->finishing = 1;
    roce_engine_finish(p->engine);
}

uint64_t roce_split_delivered(const struct roce_split_part *p)
{
    return p->finishing ? UINT64_MAX : p->frame;
}

/* ---- the proof ---- */

/* The values (frames, times) of a span, oldest first. */
struct span {
    uint64_t *v;
    size_t head, n, cap;
};

static int span_push(struct span *q, uint64_t x)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : WAIT_INITIAL;
        uint64_t *v = malloc(cap * sizeof *v);
        if (v == NULL)
            return -1;
        for (size_t i = 0; i < q->n; i++)
            v[i] = q->v[(q->head + i) % q->cap];
        free(q->v);
        q->v = v;
        q->head = 0;
        q->cap = cap;
    }
    q->v[(q->head + q->n++) % q->cap] = x;
    return 0;
}

/* Drop the values before `from` (all when none is left). */
static void span_drop_before(struct span *q, uint64_t from)
{
    while (q->n && q->v[q->head] < from) {
        q->head = (q->head + 1) % q->cap;
        q->n--;
    }
}

/* The time a span of `wait` before ts begins (0 when it reaches before 0). */
static uint64_t span_start(int64_t ts, int64_t wait)
{
    return ts > wait ? (uint64_t)(ts - wait) : 0;
}

/* The checks on the verdicts, in frame order: nonzero when one engine
 * would not have reached the bounds of the open verdicts, the CE marks and
 * the waiting CNPs. */
static int verdicts_within_bounds(const struct roce_config *cfg, const struct roce_engine_usage *u,
                                  roce_split_next_fn next, void *ctx)
{
    struct span open = {0}, ce = {0}, cnp = {0};
    struct roce_verdict v;
    uint64_t bound = 0, delivered;
    int ok = 1, rc = 0;
    while (ok && (rc = next(ctx, &v, &delivered)) == 1) {
        if (delivered > bound)
            bound = delivered;
        span_drop_before(&open, v.frame);
        ok = open.n < cfg->max_open_verdicts && span_push(&open, bound) == 0;
        if (ok && (v.flags & ROCE_V_CE)) {
            span_drop_before(&ce, span_start(v.ts_ns, u->ce_wait_ns));
            ok = ce.n < u->ce_ring_max && span_push(&ce, (uint64_t)v.ts_ns) == 0;
        }
        if (ok && (v.flags & ROCE_V_CNP)) {
            span_drop_before(&cnp, span_start(v.ts_ns, u->cnp_wait_ns));
            ok = cnp.n < u->cnp_ring_max && span_push(&cnp, (uint64_t)v.ts_ns) == 0;
        }
    }
    free(open.v);
    free(ce.v);
    free(cnp.v);
    return ok && rc == 0;
}

/* The flows the parts created, summed. */
static uint64_t created_in_parts(struct roce_split_part *const *parts, unsigned n)
{
    uint64_t sum = 0;
    for (unsigned i = 0; i < n; i++)
        sum += parts[i]->n_created;
    return sum;
}

/* A receiver tracked in several parts with fan-ins adding up to the
 * threshold: found by incast_shared over the receivers of each part. */
struct shared_check {
    struct roce_split_part *const *parts;
    unsigned n, self;
    uint32_t threshold;
    int shared;
};

static void incast_shared(const uint8_t addr[ROCE_ADDR_LEN], uint32_t peak, void *ctx)
{
    struct shared_check *c = ctx;
    unsigned in = 1;
    uint64_t sum = peak;
    for (unsigned i = 0; i < c->n && !c->shared; i++) {
        uint32_t p;
        if (i != c->self && roce_incast_peak(c->parts[i]->engine, addr, &p)) {
            in++;
            sum += p;
        }
    }
    if (in > 1 && sum >= c->threshold)
        c->shared = 1;
}

/* A CNP destination kept by another part than self: found by dst_shared. */
struct dst_check {
    struct roce_split_part *const *parts;
    unsigned n, self;
    int shared;
};

static void dst_shared(const uint8_t dst[ROCE_ADDR_LEN], uint8_t version, void *ctx)
{
    struct dst_check *c = ctx;
    for (unsigned i = 0; i < c->n && !c->shared; i++)
        if (i != c->self && roce_cnpdst_has(c->parts[i]->engine, dst, version))
            c->shared = 1;
}

/* Why the parts' CNP destinations are not one engine's, or NULL. */
static const char *cnpdst_exact(struct roce_split_part *const *parts, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        struct dst_check dc = {parts, n, i, 0};
        roce_cnpdst_each(parts[i]->engine, dst_shared, &dc);
        if (dc.shared)
            return "CNP pacing: CNPs to one destination in several parts";
    }
    for (unsigned s = 0; s < ROCE_CNPDST_SETS; s++) {
        unsigned use = 0;
        for (unsigned i = 0; i < n; i++)
            use += roce_cnpdst_set_use(parts[i]->engine, s);
        if (use > ROCE_CNPDST_WAYS)
            return "more CNP destinations than one engine keeps";
    }
    return NULL;
}

/* The checks of one part that only go one way while it runs: its flags and
 * counters are never reset, so once one of them refuses, the proof at the
 * end refuses for the same reason (roce_split_doomed). alloc_failures and
 * flows_evicted as roce_engine_totals adds them up. */
static const char *part_refused(const struct roce_split_part *p, const struct roce_totals *t,
                                uint64_t alloc_failures, uint64_t flows_evicted)
{
    if (p->oom)
        return "out of memory";
    if (p->out_of_order)
        return "frames out of time order";
    if (alloc_failures || t->verdicts_forced || t->ce_tracking_overflow ||
        t->cnp_tracking_overflow || flows_evicted || t->macs_untracked)
        return "a bound reached in a part";
    if (t->pauses)
        return "PFC pauses: their victims are found across address pairs";
    if (t->incast_receivers_evicted || t->incast_receivers_unlisted ||
        t->incast_senders_untracked || t->cnp_dsts_evicted)
        return "a bound reached in a part";
    return NULL;
}

const char *roce_split_doomed(const struct roce_split_part *p)
{
    const struct roce_engine *e = p->engine;
    return part_refused(p, &e->totals, e->alloc_failures + e->flows.stats.alloc_failures,
                        e->flows.stats.evicted);
}

void roce_split_glance(const struct roce_split_part *p, uint64_t seen, uint64_t *frame,
                       uint64_t *oldest)
{
    *frame = p->frame;
    (void)roce_vq_before(p->engine, 0, oldest);
    if (*oldest == UINT64_MAX && seen > *frame)
        *frame = seen; /* (roce_split.h) */
}

uint64_t roce_split_between(const struct roce_split_part *p, uint64_t from, uint64_t to)
{
    uint64_t oldest;
    if (from >= to)
        return 0;
    /* open: the queue is in frame order */
    uint64_t n = roce_vq_before(p->engine, to, &oldest) - roce_vq_before(p->engine, from, &oldest);
    /* delivered: the whole epochs in [from, to) the counts still hold */
    uint64_t e1 = (from >> EPOCH_SHIFT) + ((from & ((1u << EPOCH_SHIFT) - 1)) != 0);
    uint64_t e2 = to >> EPOCH_SHIFT;
    if (p->hist_last >= HIST_EPOCHS && e1 <= p->hist_last - HIST_EPOCHS)
        e1 = p->hist_last - HIST_EPOCHS + 1;
    if (e1 < e2 && e1 <= p->hist_last)
        n += (e2 <= p->hist_last ? p->before[e2 % HIST_EPOCHS] : p->delivered) -
             p->before[e1 % HIST_EPOCHS];
    return n;
}

const char *roce_split_open_doomed(const struct roce_config *cfg, uint64_t verdicts)
{
    return verdicts >= cfg->max_open_verdicts ? "open verdicts past their bound (seen while "
                                                "the parts ran)"
                                              : NULL;
}

const char *roce_split_exact(struct roce_split_part *const *parts, unsigned n,
                             roce_split_next_fn next, void *ctx)
{
    struct roce_engine_usage u = {0};
    uint64_t cm_peak = 0, gaps = 0, cnps = 0, macs = 0, listed = 0;
    for (unsigned i = 0; i < n; i++) {
        struct roce_split_part *p = parts[i];
        const struct roce_totals *t = roce_engine_totals(p->engine);
        const char *why = part_refused(p, t, t->alloc_failures, t->flows_evicted);
        if (why != NULL)
            return why;
        struct shared_check sc = {parts, n, i, parts[0]->cfg.incast_senders, 0};
        roce_incast_each(p->engine, incast_shared, &sc);
        if (sc.shared)
            return "incast: a receiver's senders in several parts";
        listed += t->incast.n;
        roce_engine_usage(p->engine, &u);
        cm_peak += u.cm_pending_peak;
        gaps += u.gap_ring_room;
        cnps += u.dcqcn_ring_room;
        macs += u.macs;
    }
    if (created_in_parts(parts, n) > parts[0]->cfg.max_flows)
        return "more flows than --max-flows";
    if (cm_peak > u.cm_pending_max)
        return "CM REQs waiting";
    if (gaps > u.gap_ring_max || cnps > u.dcqcn_ring_max)
        return "PSN gaps or CNPs waiting for their DCQCN window near their bounds";
    if (listed > ROCE_INCAST_LISTED)
        return "more incast receivers than one engine lists";
    if (macs > u.macs_max)
        return "more source MACs than one engine keeps";
    const char *why = cnpdst_exact(parts, n);
    if (why != NULL)
        return why;
    if (!verdicts_within_bounds(&parts[0]->cfg, &u, next, ctx))
        return "open verdicts, CE marks or CNPs near their bounds";
    return NULL;
}

/* ---- flow ids ---- */

int roce_split_number(struct roce_split_part *const *parts, unsigned n)
{
    size_t *at = calloc(n ? n : 1, sizeof *at);
    if (at == NULL)
        return -1;
    for (unsigned i = 0; i < n; i++) {
        struct roce_split_part *p = parts[i];
        free(p->map);
        p->map = malloc((p->n_created ? p->n_created : 1) * sizeof *p->map);
        if (p->map == NULL) {
            free(at);
            return -1;
        }
    }
    for (uint64_t id = 1;; id++) {
        struct roce_split_part *best = NULL;
        unsigned bi = 0;
        for (unsigned i = 0; i < n; i++) {
            const struct roce_split_part *p = parts[i];
            if (at[i] < p->n_created &&
                (best == NULL || p->created[at[i]] < best->created[at[bi]])) {
                best = parts[i];
                bi = i;
            }
        }
        if (best == NULL)
            break;
        best->map[at[bi]++] = id;
    }
    free(at);
    return 0;
}

uint64_t roce_split_flow_id(const struct roce_split_part *p, uint64_t id)
{
    return id >= 1 && id <= p->n_created && p->map != NULL ? p->map[id - 1] : id;
}
