/*
 * test_harness.c - the engine harness of the unit tests (see test_harness.h).
 */
#include "test_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#define TU_SEND_PAYLOAD 64u
#define TU_MAX_REPORTS  4096u

/* Make room for frame numbers up to frame. */
static void grow(struct tu_eng *t, uint64_t frame)
{
    if (frame < t->cap)
        return;
    uint64_t n = t->cap ? t->cap : 256;
    while (n <= frame)
        n *= 2;
    t->imm_flags = realloc(t->imm_flags, n * sizeof *t->imm_flags);
    t->n_settled = realloc(t->n_settled, n * sizeof *t->n_settled);
    t->settled = realloc(t->settled, n * sizeof *t->settled);
    CU_ASSERT_FATAL(t->imm_flags != NULL && t->n_settled != NULL && t->settled != NULL);
    memset(t->imm_flags + t->cap, 0, (n - t->cap) * sizeof *t->imm_flags);
    memset(t->n_settled + t->cap, 0, (n - t->cap) * sizeof *t->n_settled);
    memset(t->settled + t->cap, 0, (n - t->cap) * sizeof *t->settled);
    t->cap = n;
}

static void on_verdict(const struct roce_verdict *v, void *ctx)
{
    struct tu_eng *t = ctx;
    if (v->frame <= t->last_settled)
        t->order_errors++;
    t->last_settled = v->frame;
    grow(t, v->frame);
    if (t->n_settled[v->frame] < UINT8_MAX)
        t->n_settled[v->frame]++;
    t->settled[v->frame] = *v;
}

void tu_eng_init(struct tu_eng *t, const struct tu_opts *o)
{
    memset(t, 0, sizeof *t);
    roce_config_default(&t->cfg);
    if (o != NULL) {
        if (o->pmtu)
            t->cfg.pmtu = o->pmtu;
        if (o->max_flows)
            t->cfg.max_flows = o->max_flows;
        if (o->max_open_verdicts)
            t->cfg.max_open_verdicts = o->max_open_verdicts;
        if (o->cnp_window_ns)
            t->cfg.cnp_window_ns = o->cnp_window_ns;
        if (o->nak_horizon_ns)
            t->cfg.nak_horizon_ns = o->nak_horizon_ns;
        if (o->nak_rtt_ns)
            t->cfg.nak_rtt_ns = o->nak_rtt_ns;
        if (o->max_episodes)
            t->cfg.max_episodes = o->max_episodes;
        if (o->dcqcn_window_ns)
            t->cfg.dcqcn_window_ns = o->dcqcn_window_ns;
        if (o->dcqcn_delay_ns)
            t->cfg.dcqcn_delay_ns = o->dcqcn_delay_ns;
        if (o->incast_senders)
            t->cfg.incast_senders = o->incast_senders;
        if (o->incast_window_ns)
            t->cfg.incast_window_ns = o->incast_window_ns;
    }
    t->cfg.on_verdict = on_verdict;
    t->cfg.ctx = t;
    t->now = TU_T0_NS;
    t->step = TU_STEP_NS;
    t->e = roce_engine_new(&t->cfg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t->e);
}

void tu_eng_done(struct tu_eng *t)
{
    roce_engine_finish(t->e);
    CU_ASSERT_EQUAL(t->order_errors, 0);
    for (uint64_t f = 1; f <= t->frame; f++) {
        if (t->imm_flags[f] != 0) {
            CU_ASSERT_EQUAL(t->n_settled[f], 1);
            CU_ASSERT_EQUAL(t->settled[f].flags & t->imm_flags[f], t->imm_flags[f]);
        } else {
            CU_ASSERT_EQUAL(t->n_settled[f], 0);
        }
    }
    roce_engine_free(t->e);
    free(t->imm_flags);
    free(t->n_settled);
    free(t->settled);
    memset(t, 0, sizeof *t);
}

uint64_t tu_feed_bytes(struct tu_eng *t, int linktype, const uint8_t *p, uint32_t caplen,
                       uint32_t wirelen)
{
    struct roce_frame_in in = {
        .frame = ++t->frame,
        .ts_ns = t->now,
        .linktype = linktype,
        .data = p,
        .caplen = caplen,
        .wirelen = wirelen,
    };
    grow(t, in.frame);
    t->rc = roce_engine_frame(t->e, &in, &t->out);
    t->imm_flags[in.frame] = t->out.verdict.flags;
    t->now += t->step;
    return in.frame;
}

uint64_t tu_feed(struct tu_eng *t, const struct rg_spec *s)
{
    uint8_t buf[RG_MAX_FRAME];
    int n = rg_build(s, buf, sizeof buf, NULL);
    CU_ASSERT_FATAL(n > 0);
    return tu_feed_bytes(t, s->linktype, buf, (uint32_t)n, (uint32_t)n);
}

const struct roce_verdict *tu_settled(const struct tu_eng *t, uint64_t frame)
{
    return frame < t->cap && t->n_settled[frame] ? &t->settled[frame] : NULL;
}

const struct roce_verdict *tu_v(const struct tu_eng *t, uint64_t frame)
{
    const struct roce_verdict *v = tu_settled(t, frame);
    if (v == NULL)
        fprintf(stderr, "  frame %llu has no settled verdict\n", (unsigned long long)frame);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    return v;
}

uint32_t tu_sflags(const struct tu_eng *t, uint64_t frame)
{
    const struct roce_verdict *v = tu_settled(t, frame);
    return v != NULL ? v->flags : 0;
}

uint64_t tu_settled_count(const struct tu_eng *t)
{
    uint64_t n = 0;
    for (uint64_t f = 0; f < t->cap; f++)
        n += t->n_settled[f] != 0;
    return n;
}

const struct roce_totals *tu_totals(struct tu_eng *t)
{
    return roce_engine_totals(t->e);
}

size_t tu_flows(struct tu_eng *t, uint32_t src, uint32_t dst, uint32_t dqpn,
                struct roce_flow_report *r, size_t cap)
{
    static struct roce_flow_report all[TU_MAX_REPORTS];
    uint8_t s[RG_ADDR_LEN], d[RG_ADDR_LEN];
    size_t n = roce_engine_flows(t->e, all, TU_MAX_REPORTS), found = 0;

    rg_addr_v4(s, src);
    rg_addr_v4(d, dst);
    for (size_t i = 0; i < n; i++) {
        if (all[i].key.dqpn == dqpn && memcmp(all[i].key.src, s, sizeof s) == 0 &&
            memcmp(all[i].key.dst, d, sizeof d) == 0) {
            if (found < cap)
                r[found] = all[i];
            found++;
        }
    }
    return found;
}

int tu_flow(struct tu_eng *t, uint32_t src, uint32_t dst, uint32_t dqpn, struct roce_flow_report *r)
{
    if (tu_flows(t, src, dst, dqpn, r, 1) > 0)
        return 1;
    memset(r, 0, sizeof *r);
    return 0;
}

void tu_check_flow_table(struct tu_eng *t)
{
    static struct roce_flow_report all[TU_MAX_REPORTS];
    size_t n = roce_engine_flows(t->e, all, TU_MAX_REPORTS);
    uint64_t paired = 0;

    CU_ASSERT_EQUAL(n, roce_engine_flow_count(t->e));
    CU_ASSERT(n <= t->cfg.max_flows);
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            CU_ASSERT(all[i].id > all[i - 1].id);
        if (all[i].peer_id == 0) {
            CU_ASSERT_EQUAL(all[i].paired_by, ROCE_PAIRED_NONE);
            continue;
        }
        paired++;
        size_t j = 0;
        while (j < n && all[j].id != all[i].peer_id)
            j++;
        CU_ASSERT_FATAL(j < n); /* the peer is a tracked flow */
        CU_ASSERT_EQUAL(all[j].peer_id, all[i].id);
        CU_ASSERT_EQUAL(all[j].paired_by, all[i].paired_by);
        CU_ASSERT_NOT_EQUAL(all[i].paired_by, ROCE_PAIRED_NONE);
    }
    CU_ASSERT_EQUAL(paired % 2, 0);
    CU_ASSERT_EQUAL(roce_engine_totals(t->e)->connections, paired / 2);
}

/* ---- connections ---- */

void tu_conn_init(struct tu_conn *c, uint32_t a, uint32_t b, uint32_t qa, uint32_t qb)
{
    rg_spec_init(&c->req);
    rg_addr_v4(c->req.src, a);
    rg_addr_v4(c->req.dst, b);
    c->req.dqpn = qb;
    c->rsp = c->req;
    rg_spec_reverse(&c->rsp);
    c->rsp.dqpn = qa;
}

void tu_setup(struct tu_eng *t, struct tu_conn *c, const struct tu_opts *o)
{
    tu_eng_init(t, o);
    tu_conn_init(c, TU_IP_A, TU_IP_B, TU_QA, TU_QB);
}

/* A copy of template with an opcode, PSN and payload length. */
static struct rg_spec spec_of(const struct rg_spec *template, uint8_t opcode, uint32_t psn,
                              uint32_t payload_len)
{
    struct rg_spec s = *template;
    s.opcode = opcode;
    s.psn = psn;
    s.payload_len = payload_len;
    return s;
}

uint64_t tu_req(struct tu_eng *t, const struct tu_conn *c, uint8_t opcode, uint32_t psn,
                uint32_t payload_len)
{
    struct rg_spec s = spec_of(&c->req, opcode, psn, payload_len);
    return tu_feed(t, &s);
}

uint64_t tu_send(struct tu_eng *t, const struct tu_conn *c, uint32_t psn)
{
    return tu_req(t, c, RG_OP_RC_SEND_ONLY, psn, TU_SEND_PAYLOAD);
}

uint64_t tu_sends(struct tu_eng *t, const struct tu_conn *c, uint32_t first, uint32_t n)
{
    uint64_t f = 0;
    for (uint32_t i = 0; i < n; i++)
        f = tu_send(t, c, (first + i) & RG_PSN_MASK);
    return f;
}

uint64_t tu_send_ce(struct tu_eng *t, const struct tu_conn *c, uint32_t psn)
{
    struct rg_spec s = spec_of(&c->req, RG_OP_RC_SEND_ONLY, psn, TU_SEND_PAYLOAD);
    s.ecn = RG_ECN_CE;
    return tu_feed(t, &s);
}

uint64_t tu_read(struct tu_eng *t, const struct tu_conn *c, uint32_t psn, uint32_t dma_len)
{
    struct rg_spec s = spec_of(&c->req, RG_OP_RC_READ_REQ, psn, 0);
    s.reth_dma_len = dma_len;
    return tu_feed(t, &s);
}

uint64_t tu_rsp(struct tu_eng *t, const struct tu_conn *c, uint8_t opcode, uint32_t psn,
                uint8_t syndrome, uint32_t payload_len)
{
    struct rg_spec s = spec_of(&c->rsp, opcode, psn, payload_len);
    s.aeth_syndrome = syndrome;
    return tu_feed(t, &s);
}

uint64_t tu_ack(struct tu_eng *t, const struct tu_conn *c, uint32_t psn, uint8_t syndrome)
{
    return tu_rsp(t, c, RG_OP_RC_ACK, psn, syndrome, 0);
}

uint64_t tu_cnp(struct tu_eng *t, const struct tu_conn *c)
{
    struct rg_spec s = spec_of(&c->rsp, RG_OP_CNP, 0, 0);
    s.becn = 1;
    return tu_feed(t, &s);
}
