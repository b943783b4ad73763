/*
 * roce_diag_ecmp.c - QPs hashed onto one ECMP path (ANALYSIS.md "UDP source
 * ports and ECMP"): RoCEv2 request flows with the same source and
 * destination address and UDP source port, active at the same time, are on
 * one path whatever the switches' hash.
 */
#include <stdlib.h>
#include <string.h>

#include "roce_diag_int.h"

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
    if (busy >= 2 &&
        (x = roce_diag_cand(cs, ROCE_DIAG_ECMP_COLLISION, ROCE_CAUSE_TRAFFIC)) != NULL) {
        x->s.flow = u[from].r->key;
        x->s.flow.dqpn = 0;
        x->s.udp_sport = u[from].sport;
        x->s.count = busy;
        memset(&firsts, 0, sizeof firsts);
        for (size_t i = 0; i < nq; i++) {
            if (!q[i].overlaps)
                continue;
            if (x->s.n_dest_qps < ROCE_DIAG_MAX_QPS)
                x->s.dest_qps[x->s.n_dest_qps++] = q[i].dqpn;
            roce_evidence_add(&firsts, 0, q[i].first_frame);
        }
        memcpy(x->s.frames, firsts.frame[0], sizeof x->s.frames);
        x->s.n_frames = firsts.n[0];
    }
    free(q);
}

void roce_diag_ecmp_findings(struct cands *cs, const struct roce_diag_input *in)
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
