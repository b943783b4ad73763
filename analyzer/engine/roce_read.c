/*
 * roce_read.c - RDMA READ spans, READ responses and the PMTU.
 *
 * ANALYSIS.md, "RDMA READ" (span); IBTA Vol. 1 9.7.5.1.5: an
 * RDMA READ request with PSN n is answered by response packets n, n+1, ...,
 * one per PMTU of data, so it occupies max(1, ceil(DMA length / PMTU)) PSNs.
 *
 * A span is
 *  - known:   from a learned PMTU (CM REQ, READ response FIRST/MIDDLE payload,
 *             largest FIRST/MIDDLE request payload) or from the responses
 *             themselves (the LAST/ONLY response's PSN ends it);
 *  - guessed: from the --pmtu fallback, until a PMTU is learned or the
 *             responses show the real span, which then replace it;
 *  - unknown: no PMTU at all: a forward jump right after the READ is taken
 *             as its span (not as a gap).
 * When the READ is still the flow's latest new request, changing its span
 * moves the flow's highest PSN with it.
 *
 * The last READ_RING READs of a flow are kept (enough for the 16 READs a
 * NIC lets a QP have outstanding), allocated the first time a flow READs.
 */
#include "roce_read.h"

#include <stdlib.h>
#include <string.h>

#include "roce_internal.h"
#include "roce_psn.h"

#define PMTU_MIN           256u
#define PMTU_MAX           4096u
#define READ_SPAN_MAX      (1u << 22) /* keep spans well inside the 2^23 PSN window */
#define UNKNOWN_SPAN_REACH (1 << 22)

static int is_valid_pmtu(uint32_t v)
{
    return v >= PMTU_MIN && v <= PMTU_MAX && (v & (v - 1)) == 0;
}

/* PSN span of a READ: max(1, ceil(dma_len / pmtu)), capped. */
static uint32_t span_of(uint32_t dma_len, uint32_t pmtu)
{
    uint64_t s = ((uint64_t)dma_len + pmtu - 1) / pmtu;
    if (s == 0)
        s = 1;
    return s > READ_SPAN_MAX ? READ_SPAN_MAX : (uint32_t)s;
}

struct read_span *roce_read_latest_new(const struct roce_flow *f)
{
    const struct req_state *rc = &roce_flow_cold(f)->req;
    const struct read_ring *rr = rc->reads;
    if (rr == NULL || !rc->last_read_frame)
        return NULL;
    for (unsigned i = 1; i <= rr->count; i++) {
        const struct read_span *r = &rr->spans[(rr->head + READ_RING - i) % READ_RING];
        if (r->frame == rc->last_read_frame)
            return (struct read_span *)r;
    }
    return NULL;
}

struct read_span *roce_read_covering(const struct roce_flow *f, uint32_t psn)
{
    const struct read_ring *rr = roce_flow_cold(f)->req.reads;
    if (rr == NULL)
        return NULL;
    for (unsigned i = 1; i <= rr->count; i++) {
        const struct read_span *r = &rr->spans[(rr->head + READ_RING - i) % READ_RING];
        int32_t d = roce_psn_diff(psn, r->psn);
        if (r->span_state != ROCE_SPAN_UNKNOWN ? roce_psn_in_span(psn, r->psn, r->span)
                                               : (d >= 0 && d < UNKNOWN_SPAN_REACH))
            return (struct read_span *)r;
    }
    return NULL;
}

void roce_read_set_span(struct roce_flow *f, struct read_span *r, uint32_t span,
                        enum roce_span_state state)
{
    struct req_hot *rq = &f->req;
    struct req_state *rc = &roce_flow_cold(f)->req;
    r->span = span ? span : 1;
    r->span_state = (uint8_t)state;
    if (r->frame == rc->last_read_frame) {
        rq->highest = roce_psn_add(r->psn, r->span - 1);
        rq->read_pending = 0;
    }
}

/* Span of r from the flow's PMTU, when there is one. */
static void span_from_pmtu(struct roce_flow *f, struct read_span *r)
{
    const struct roce_flow_cold *c = roce_flow_cold(f);
    if (!r->dma_known || !c->pmtu)
        return;
    roce_read_set_span(f, r, span_of(r->dma_len, c->pmtu),
                       c->pmtu_learned ? ROCE_SPAN_KNOWN : ROCE_SPAN_GUESS);
}

struct read_span *roce_read_push(struct roce_engine *e, struct roce_flow *f,
                                 const struct roce_pkt *pkt, uint64_t frame, int is_new)
{
    struct req_hot *rq = &f->req;
    struct req_state *rc = &roce_flow_cold(f)->req;
    if (rc->reads == NULL && (rc->reads = calloc(1, sizeof *rc->reads)) == NULL) {
        e->alloc_failures++; /* this READ's span is not tracked */
        return NULL;
    }
    struct read_ring *rr = rc->reads;
    struct read_span *r = &rr->spans[rr->head];
    rr->head = (uint8_t)((rr->head + 1) % READ_RING);
    if (rr->count < READ_RING)
        rr->count++;
    memset(r, 0, sizeof *r);
    r->frame = frame;
    r->psn = pkt->psn;
    r->next_resp = pkt->psn;
    r->dma_known = roce_pkt_has(pkt, ROCE_HDR_RETH);
    r->dma_len = r->dma_known ? pkt->reth_dma_len : 0;
    r->span = 1;
    if (is_new) {
        rc->last_read_frame = frame;
        rq->read_frame = frame != 0;
        rq->read_pending = 1;
    }
    span_from_pmtu(f, r);
    return r;
}

/* A PMTU was learned for f: spans that were unknown or guessed follow it. */
static void respan(struct roce_flow *f)
{
    struct read_ring *rr = roce_flow_cold(f)->req.reads;
    if (rr == NULL)
        return;
    for (unsigned i = 0; i < rr->count; i++)
        if (rr->spans[i].span_state != ROCE_SPAN_KNOWN)
            span_from_pmtu(f, &rr->spans[i]);
}

static void set_pmtu(struct roce_flow *f, uint32_t pmtu)
{
    struct roce_flow_cold *c = roce_flow_cold(f);
    if (c->pmtu_learned && c->pmtu == pmtu)
        return;
    c->pmtu = pmtu;
    c->pmtu_learned = 1;
    roce_flow_pmtu_changed(f);
    respan(f);
}

void roce_read_learn_pmtu(struct roce_engine *e, struct roce_flow *f, uint32_t pmtu, int exact)
{
    /* known already (requests only show a lower bound: keep the largest);
     * the hot record's copy first */
    uint32_t hint = roce_flow_pmtu_hint(f);
    if (hint != 0 && (exact ? hint == pmtu : hint >= pmtu))
        return;
    const struct roce_flow_cold *c = roce_flow_cold(f);
    if (c->pmtu_learned && (exact ? c->pmtu == pmtu : c->pmtu >= pmtu))
        return;
    if (!is_valid_pmtu(pmtu))
        return;
    struct roce_flow *p = roce_flow_peer(&e->flows, f);
    set_pmtu(f, pmtu);
    if (p != NULL)
        set_pmtu(p, pmtu);
}

void roce_read_share_pmtu(struct roce_flow *a, struct roce_flow *b)
{
    const struct roce_flow_cold *ac = roce_flow_cold(a), *bc = roce_flow_cold(b);
    if (ac->pmtu_learned && !bc->pmtu_learned)
        set_pmtu(b, ac->pmtu);
    else if (bc->pmtu_learned && !ac->pmtu_learned)
        set_pmtu(a, bc->pmtu);
}

void roce_read_response(struct roce_engine *e, struct roce_flow *x, struct roce_flow *y,
                        const struct roce_pkt *pkt, struct roce_verdict *v)
{
    if (pkt->op->flags & (ROCE_OPF_FIRST | ROCE_OPF_MIDDLE))
        roce_read_learn_pmtu(e, x, pkt->payload_len, 1);
    struct read_span *r = roce_read_covering(x, pkt->psn);
    if (r == NULL)
        return;
    int32_t d = roce_psn_diff(pkt->psn, r->next_resp);
    v->expected_valid = 1;
    v->expected_psn = r->next_resp;
    if (d > 0) {
        v->flags |= ROCE_V_RESP_GAP;
        v->missing_psns = (uint32_t)d;
        r->gap_seen = 1;
        roce_flow_cold(y)->report.read_response_gaps++;
        e->totals.read_response_gaps++;
        e->totals.read_response_missing += (uint32_t)d;
    } else if (d < 0) {
        v->flags |= ROCE_V_DUP_RESPONSE;
    }
    if (d >= 0)
        r->next_resp = roce_psn_add(pkt->psn, 1);
    if ((pkt->op->flags & (ROCE_OPF_LAST | ROCE_OPF_ONLY)) && r->span_state != ROCE_SPAN_KNOWN)
        roce_read_set_span(x, r, (uint32_t)roce_psn_diff(pkt->psn, r->psn) + 1, ROCE_SPAN_KNOWN);
}

void roce_read_free(struct roce_flow *f)
{
    struct req_state *rc = &roce_flow_cold(f)->req;
    free(rc->reads);
    rc->reads = NULL;
}
