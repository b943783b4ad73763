/*
 * rocegen_bulk.c - many-packet RoCEv2 traffic for benchmarks (see
 * rocegen_bulk.h for the traffic model).
 *
 * Time runs in picoseconds on the A->B link: each request frame occupies it
 * for (length + 24) bytes at 100 Gb/s (preamble, FCS, inter-frame gap).
 * Responses (ACK, NAK, CNP) travel B->A; they are queued as events with
 * their send time and written when the A->B clock passes it, so the file is
 * in time order. State per QP is fixed (a ring of recent messages for
 * go-back-N); the event queue is a binary heap sized by the QP count.
 */
#include "rocegen_bulk.h"

#include <stdlib.h>
#include <string.h>

#define BASE_NS       1700000000000000000LL
#define PS_PER_NS     1000LL
#define PS_PER_BYTE   80LL /* 100 Gb/s */
#define WIRE_OVERHEAD 24u
#define CM_SPACING_PS (300 * PS_PER_NS)

#define PMTU          4096u
#define MAX_MSG_PKTS  16u
#define SMALL_MSG_MAX 1024u
#define SMALL_MSG_PCT 25u
#define PERCENT       100u
#define MSG_RING      32u
#define MAX_INFLIGHT  16u /* packets sent after a loss before the sender waits for the NAK */

#define ACK_DELAY_MIN_NS 1000
#define ACK_DELAY_MAX_NS 4000
#define NAK_DELAY_MIN_NS 1000
#define NAK_DELAY_MAX_NS 3000
#define NAK_TRAVEL_NS    1000
#define CNP_DELAY_MIN_NS 10000
#define CNP_DELAY_MAX_NS 50000
#define CNP_INTERVAL_NS  50000
#define CNP_DSCP         48u

#define NHOSTS                 16u
#define HOST_A_NET             0x0A000001u /* 10.0.0.1 + host */
#define HOST_B_NET             0x0A000101u /* 10.0.1.1 + host */
#define QPN_A_BASE             0x000100u
#define QPN_B_BASE             0x010100u
#define SPORT_BASE             0xC000u
#define SPORT_MASK             0x3FFFu
#define MAC_LOCAL              0x02u
#define EVENTS_PER_QP          16u
#define EVENTS_MIN             4096u
#define EVENTS_RESERVED_PER_QP 4u /* NAK and CNPs a QP can have queued */
#define CM_COMM_BASE           0x10000000u
#define REMOTE_VA              0x00007F0000000000ULL
#define RKEY                   0x00002000u
#define RAND_DOUBLE_BITS       11
#define RAND_DOUBLE_SCALE      (1.0 / 9007199254740992.0) /* 2^-53 */
#define ACK_OK                 0x1Fu
#define B_PSN_OFFSET           0x400000u
#define BAD_ICRC_XOR           0x1u                  /* one bit off */
#define ICRC_STREAM            0x1C4C1C4C1C4C1C4CULL /* --bad-icrc's seed, from --seed */

enum qp_state { QP_NORMAL = 0, QP_LOST = 1, QP_RESEND = 2 };
enum ev_type { EV_ACK = 0, EV_NAK = 1, EV_CNP = 2 };

struct msg {
    uint32_t psn;
    uint32_t len;
    uint16_t npkts;
};

struct qp {
    uint32_t next_psn; /* next new PSN */
    uint32_t expected; /* responder: next PSN it accepts */
    uint32_t msn;
    uint64_t msg_seq; /* messages started; the newest is msg_seq - 1 */
    uint16_t cur_pkt; /* next packet of the newest message */
    uint8_t state;
    uint8_t nak_sent;
    uint8_t have_cnp;
    uint32_t lost_psn, resend_psn, resend_end, inflight;
    int64_t resend_at_ps;
    int64_t last_cnp_mark_ps;
    struct msg ring[MSG_RING];
};

struct event {
    int64_t t_ps;
    uint64_t seq;
    uint32_t qp, psn, msn;
    uint8_t type;
};

struct bulk {
    const struct rg_bulk_opts *o;
    struct rg_bulk_stats st;
    struct rg_writer *w;
    struct qp *qps;
    struct event *heap;
    uint32_t nheap, capheap, reserve;
    uint64_t ev_seq;
    uint64_t rng;
    uint64_t rng_icrc; /* --bad-icrc's own stream: the rest of the traffic is unchanged */
    int bad_icrc;      /* the frame in buf has a wrong ICRC */
    int64_t now_ps;
    int err;
    uint8_t buf[RG_MAX_FRAME];
};

/* splitmix64 on the state at *state: the generator's randomness, seeded by --seed. */
static uint64_t splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* The traffic's random numbers. */
static uint64_t rnd(struct bulk *b)
{
    return splitmix(&b->rng);
}

/* Uniform in [0, 1) from the stream at *state. */
static double uniform(uint64_t *state)
{
    return (double)(splitmix(state) >> RAND_DOUBLE_BITS) * RAND_DOUBLE_SCALE;
}

/* Uniform in [0, 1). */
static double rnd01(struct bulk *b)
{
    return uniform(&b->rng);
}

/* Uniform in [lo, hi] nanoseconds, returned in picoseconds. */
static int64_t rnd_delay_ps(struct bulk *b, int64_t lo_ns, int64_t hi_ns)
{
    return (lo_ns + (int64_t)(rnd(b) % (uint64_t)(hi_ns - lo_ns + 1))) * PS_PER_NS;
}

/* ---- event heap (min by time, then insertion order) ---- */

/* Event order: time, then insertion. */
static int ev_less(const struct event *x, const struct event *y)
{
    return x->t_ps < y->t_ps || (x->t_ps == y->t_ps && x->seq < y->seq);
}

/* Queue an event; returns 0, or -1 when the queue is full. Droppable
 * events (ACKs) may not use the reserve kept for NAKs and CNPs. */
static int ev_push(struct bulk *b, int64_t t_ps, uint8_t type, uint32_t qp, uint32_t psn,
                   uint32_t msn, int droppable)
{
    if (b->nheap == b->capheap || (droppable && b->nheap + b->reserve >= b->capheap))
        return -1;
    uint32_t i = b->nheap++;
    struct event e = {t_ps, b->ev_seq++, qp, psn, msn, type};
    while (i > 0 && ev_less(&e, &b->heap[(i - 1) / 2])) {
        b->heap[i] = b->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    b->heap[i] = e;
    return 0;
}

/* Remove the earliest event into *out (the heap is not empty). */
static void ev_pop(struct bulk *b, struct event *out)
{
    *out = b->heap[0];
    struct event last = b->heap[--b->nheap];
    uint32_t i = 0, n = b->nheap;
    for (;;) {
        uint32_t l = 2 * i + 1, m = i;
        const struct event *best = &last;
        if (l < n && ev_less(&b->heap[l], best)) {
            m = l;
            best = &b->heap[l];
        }
        if (l + 1 < n && ev_less(&b->heap[l + 1], best))
            m = l + 1;
        if (m == i)
            break;
        b->heap[i] = b->heap[m];
        i = m;
    }
    if (n > 0)
        b->heap[i] = last;
}

/* ---- frames ---- */

/* Fill s for a packet of QP q, from A (a_to_b) or from B. */
static void qp_spec(uint32_t q, int a_to_b, struct rg_spec *s)
{
    uint32_t h = q % NHOSTS;
    uint32_t qa = QPN_A_BASE + q, qb = QPN_B_BASE + q;
    rg_spec_init(s);
    rg_addr_v4(a_to_b ? s->src : s->dst, HOST_A_NET + h);
    rg_addr_v4(a_to_b ? s->dst : s->src, HOST_B_NET + h);
    memset(s->eth_src, 0, RG_MAC_LEN);
    memset(s->eth_dst, 0, RG_MAC_LEN);
    s->eth_src[0] = s->eth_dst[0] = MAC_LOCAL;
    memcpy(s->eth_src + 2, s->src + 12, 4);
    memcpy(s->eth_dst + 2, s->dst + 12, 4);
    s->dqpn = a_to_b ? qb : qa;
    s->udp_sport = (uint16_t)(SPORT_BASE | ((qa ^ qb ^ (a_to_b ? 0u : 1u)) & SPORT_MASK));
}

/* Build s into b->buf; returns the frame length or a negative rg_error.
 * ICRCs the snaplen would cut are not computed. */
static int build_frame(struct bulk *b, struct rg_spec *s)
{
    s->icrc_skip = b->o->snaplen != 0; /* first without the ICRC: most frames are cut */
    int n = rg_build(s, b->buf, sizeof b->buf, NULL);
    if (n > 0 && s->icrc_skip && (uint32_t)n <= b->o->snaplen) {
        s->icrc_skip = 0; /* captured whole: the ICRC must be right */
        n = rg_build(s, b->buf, sizeof b->buf, NULL);
    }
    b->bad_icrc = 0;
    if (n > 0 && !s->icrc_skip && b->o->bad_icrc > 0 && uniform(&b->rng_icrc) < b->o->bad_icrc) {
        s->icrc_xor = BAD_ICRC_XOR;
        b->bad_icrc = 1;
        n = rg_build(s, b->buf, sizeof b->buf, NULL);
    }
    return n;
}

/* Write the n bytes in b->buf at time t_ps. */
static void write_frame(struct bulk *b, int n, int64_t t_ps)
{
    if (b->err != 0 || b->st.frames >= b->o->packets)
        return;
    if (n < 0) {
        b->err = n;
        return;
    }
    int64_t ts = BASE_NS + t_ps / PS_PER_NS;
    if (rg_writer_write(b->w, ts, b->buf, (uint32_t)n) != 0) {
        b->err = RG_ERR_IO;
        return;
    }
    b->st.bad_icrcs += b->bad_icrc; /* of the frame written (a lost one is built, not written) */
    if (b->st.frames++ == 0)
        b->st.first_ts_ns = ts;
    b->st.last_ts_ns = ts;
}

/* Build and write s at time t_ps. */
static void put_frame(struct bulk *b, struct rg_spec *s, int64_t t_ps)
{
    if (b->err != 0 || b->st.frames >= b->o->packets)
        return;
    write_frame(b, build_frame(b, s), t_ps);
}

/* Write the queued responses due by t_ps. */
static void flush_events(struct bulk *b, int64_t t_ps)
{
    struct event e;
    struct rg_spec s;
    while (b->nheap > 0 && b->heap[0].t_ps <= t_ps && b->err == 0 && b->st.frames < b->o->packets) {
        ev_pop(b, &e);
        qp_spec(e.qp, 0, &s);
        if (e.type == EV_CNP) {
            s.opcode = RG_OP_CNP;
            s.becn = 1;
            s.psn = 0;
            s.dscp = CNP_DSCP;
            s.udp_sport = 0;
            b->st.cnps++;
        } else {
            s.opcode = RG_OP_RC_ACK;
            s.psn = e.psn;
            s.aeth_msn = e.msn;
            s.aeth_syndrome = e.type == EV_NAK ? rg_aeth_nak(RG_NAK_PSN_SEQ_ERR) : ACK_OK;
            if (e.type == EV_NAK)
                b->st.naks++;
            else
                b->st.acks++;
        }
        put_frame(b, &s, e.t_ps);
    }
}

/* CM REQ, REP and RTU for every QP, 300 ns apart. */
static void cm_setup(struct bulk *b)
{
    uint8_t mad[RG_MAD_LEN];
    for (uint32_t q = 0; q < b->o->qps && b->err == 0 && b->st.frames < b->o->packets; q++) {
        struct qp *p = &b->qps[q];
        struct rg_cm m;
        struct rg_spec s;
        for (unsigned step = 0; step < 3; step++) {
            memset(&m, 0, sizeof m);
            m.tid = CM_COMM_BASE + q;
            m.local_comm_id = CM_COMM_BASE + 2 * q + (step == 1);
            m.remote_comm_id = CM_COMM_BASE + 2 * q + (step != 1);
            m.attr = step == 0 ? RG_CM_REQ : step == 1 ? RG_CM_REP : RG_CM_RTU;
            m.local_qpn = step == 1 ? QPN_B_BASE + q : QPN_A_BASE + q;
            /* REQ: B's first request PSN (B sends none); REP: A's first request PSN */
            m.start_psn = step == 0 ? (p->next_psn + B_PSN_OFFSET) & RG_PSN_MASK : p->next_psn;
            m.pmtu_code = RG_MTU_4096;
            rg_cm_mad(&m, mad);
            qp_spec(q, step != 1, &s);
            rg_spec_cm(&s, mad);
            s.psn = q;
            if (b->st.frames < b->o->packets)
                b->st.cm_frames++;
            put_frame(b, &s, b->now_ps);
            b->now_ps += CM_SPACING_PS;
        }
    }
}

/* Start a new message on p: 1..16 packets of PMTU, or a small one. */
static void new_message(struct bulk *b, struct qp *p)
{
    struct msg *m = &p->ring[p->msg_seq % MSG_RING];
    m->psn = p->next_psn;
    if (rnd(b) % PERCENT < SMALL_MSG_PCT) {
        m->npkts = 1;
        m->len = 1 + (uint32_t)(rnd(b) % SMALL_MSG_MAX);
    } else {
        m->npkts = (uint16_t)(1 + rnd(b) % MAX_MSG_PKTS);
        m->len = (m->npkts - 1u) * PMTU + 1 + (uint32_t)(rnd(b) % PMTU);
    }
    p->msg_seq++;
    p->cur_pkt = 0;
}

/* The message of p that holds psn, or NULL when it left the ring. */
static const struct msg *find_message(const struct qp *p, uint32_t psn)
{
    for (uint64_t i = 1; i <= MSG_RING && i <= p->msg_seq; i++) {
        const struct msg *m = &p->ring[(p->msg_seq - i) % MSG_RING];
        if (((psn - m->psn) & RG_PSN_MASK) < m->npkts)
            return m;
    }
    return NULL;
}

/* Send packet idx of message m (PSN m->psn + idx) of QP q; lost: not written. */
static void send_packet(struct bulk *b, uint32_t q, const struct msg *m, uint32_t idx, int lost)
{
    struct qp *p = &b->qps[q];
    struct rg_spec s;
    int first = idx == 0, last = idx + 1 == m->npkts;

    qp_spec(q, 1, &s);
    s.psn = (m->psn + idx) & RG_PSN_MASK;
    s.opcode = m->npkts == 1 ? RG_OP_RC_WRITE_ONLY
               : first       ? RG_OP_RC_WRITE_FIRST
               : last        ? RG_OP_RC_WRITE_LAST
                             : RG_OP_RC_WRITE_MIDDLE;
    s.payload_len = last ? m->len - (m->npkts - 1u) * PMTU : PMTU;
    s.ackreq = (uint8_t)last;
    s.reth_va = REMOTE_VA + (uint64_t)q * PMTU * MAX_MSG_PKTS;
    s.reth_rkey = RKEY;
    s.reth_dma_len = m->len;
    int ce = b->o->ce > 0 && rnd01(b) < b->o->ce;
    s.ecn = ce ? RG_ECN_CE : RG_ECN_ECT0;

    int64_t t = b->now_ps;
    flush_events(b, t);
    int n = build_frame(b, &s);
    b->now_ps += (n > 0 ? n + (int64_t)WIRE_OVERHEAD : 0) * PS_PER_BYTE;
    if (lost)
        return;
    write_frame(b, n, t);
    if (ce) {
        b->st.ce_marks++;
        if (!p->have_cnp || t - p->last_cnp_mark_ps >= CNP_INTERVAL_NS * PS_PER_NS) {
            p->have_cnp = 1;
            p->last_cnp_mark_ps = t;
            ev_push(b, t + rnd_delay_ps(b, CNP_DELAY_MIN_NS, CNP_DELAY_MAX_NS), EV_CNP, q, 0, 0, 0);
        }
    }
    if (s.psn == p->expected) {
        p->expected = (p->expected + 1) & RG_PSN_MASK;
        if (last) {
            p->msn = (p->msn + 1) & RG_PSN_MASK;
            if (ev_push(b, t + rnd_delay_ps(b, ACK_DELAY_MIN_NS, ACK_DELAY_MAX_NS), EV_ACK, q,
                        s.psn, p->msn, 1) != 0)
                b->st.acks_dropped++;
        }
    } else if (p->state == QP_LOST && !p->nak_sent) {
        int64_t at = t + rnd_delay_ps(b, NAK_DELAY_MIN_NS, NAK_DELAY_MAX_NS);
        ev_push(b, at, EV_NAK, q, p->expected, p->msn, 0);
        p->nak_sent = 1;
        p->resend_at_ps = at + NAK_TRAVEL_NS * PS_PER_NS;
    }
}

/* Send the next packet of QP q: a resend, or a new packet (maybe lost). */
static void qp_step(struct bulk *b, uint32_t q)
{
    struct qp *p = &b->qps[q];

    if (p->state == QP_LOST && p->nak_sent &&
        (b->now_ps >= p->resend_at_ps || p->inflight >= MAX_INFLIGHT)) {
        if (b->now_ps < p->resend_at_ps)
            b->now_ps = p->resend_at_ps; /* the sender idles until the NAK arrives */
        p->state = QP_RESEND;
        p->resend_psn = p->lost_psn;
        p->resend_end = p->next_psn;
        b->st.episodes++;
    }
    if (p->state == QP_RESEND) {
        const struct msg *m = find_message(p, p->resend_psn);
        if (m != NULL) {
            send_packet(b, q, m, (p->resend_psn - m->psn) & RG_PSN_MASK, 0);
            b->st.retransmitted++;
        }
        p->resend_psn = (p->resend_psn + 1) & RG_PSN_MASK;
        if (p->resend_psn == p->resend_end) {
            p->state = QP_NORMAL;
            p->nak_sent = 0;
        }
        return;
    }

    if (p->msg_seq == 0 || p->cur_pkt == p->ring[(p->msg_seq - 1) % MSG_RING].npkts)
        new_message(b, p);
    const struct msg *m = &p->ring[(p->msg_seq - 1) % MSG_RING];
    int lost = p->state == QP_NORMAL && b->o->loss > 0 && rnd01(b) < b->o->loss;
    if (lost) {
        p->state = QP_LOST;
        p->lost_psn = p->next_psn;
        p->nak_sent = 0;
        p->inflight = 0;
        b->st.lost++;
    } else {
        b->st.requests++;
        if (p->state == QP_LOST)
            p->inflight++;
    }
    send_packet(b, q, m, p->cur_pkt, lost);
    p->cur_pkt++;
    p->next_psn = (p->next_psn + 1) & RG_PSN_MASK;
}

int rg_bulk_run(struct rg_writer *w, const struct rg_bulk_opts *opts, struct rg_bulk_stats *stats)
{
    struct bulk *b;
    int rc;

    if (opts->qps == 0 || opts->qps > RG_BULK_MAX_QPS || opts->loss < 0 || opts->loss >= 1 ||
        opts->ce < 0 || opts->ce > 1 || opts->bad_icrc < 0 || opts->bad_icrc > 1)
        return RG_ERR_INVALID;
    b = calloc(1, sizeof *b);
    if (b == NULL)
        return RG_ERR_SPACE;
    b->o = opts;
    b->w = w;
    b->rng = opts->seed;
    b->rng_icrc = opts->seed ^ ICRC_STREAM;
    b->capheap = opts->qps * EVENTS_PER_QP + EVENTS_MIN;
    b->reserve = opts->qps * EVENTS_RESERVED_PER_QP + EVENTS_MIN / 2;
    b->qps = calloc(opts->qps, sizeof *b->qps);
    b->heap = calloc(b->capheap, sizeof *b->heap);
    if (b->qps == NULL || b->heap == NULL) {
        rc = RG_ERR_SPACE;
        goto out_free;
    }
    for (uint32_t q = 0; q < opts->qps; q++) {
        b->qps[q].next_psn = (uint32_t)rnd(b) & RG_PSN_MASK;
        b->qps[q].expected = b->qps[q].next_psn;
    }
    cm_setup(b);
    while (b->err == 0 && b->st.frames < opts->packets)
        qp_step(b, (uint32_t)(rnd(b) % opts->qps));
    rc = b->err;
    if (stats != NULL)
        *stats = b->st;
out_free:
    free(b->heap);
    free(b->qps);
    free(b);
    return rc;
}
