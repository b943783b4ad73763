/*
 * rocegen_flood.c - `rocegen flood`: millions of distinct queue pairs with
 * constant memory (see rocegen_adversarial.h). Frame 2j is request j, to
 * queue pair q = j % qps in round j / qps; frame 2j + 1 is its ACK.
 *
 * Queue pair q lives between the hosts of pair h = q % hosts (256 by
 * default), 10.128.h.1 (A, requester) and 10.128.h.2 (B), with QPs
 * QPN_BASE + q / hosts on both sides; its PSNs start at a value drawn from
 * the seed and q. Frames are 100 ns apart. With one host pair, every
 * response has all the unpaired request flows as pairing candidates.
 *
 * With gaps: R = packets / qps - 1 rounds of requests first (frame n is
 * queue pair n % qps in round n / qps), each round's PSN two past the
 * last, so that every request after a queue pair's first follows a gap of
 * one PSN the capture "missed"; then one ACK per queue pair of its last
 * PSN, which acknowledges every gap of it (the open-gap table's stress
 * test: R - 1 gaps per queue pair wait for that ACK).
 */
#include "rocegen_adversarial.h"

#include <string.h>

#define HOST_NET       0x0A800000u /* 10.128.0.0 */
#define HOST_SHIFT     8
#define HOST_A_LOW     1u
#define HOST_B_LOW     2u
#define QPN_BASE       0x000100u
#define BASE_NS        1700000000000000000LL
#define STEP_NS        100
#define ACK_OK         0x1Fu
#define STRAY_OFFSET   0x800000u /* half the 24-bit PSN space */
#define SPLITMIX_GAMMA 0x9E3779B97F4A7C15ULL
#define SPLITMIX_MUL1  0xBF58476D1CE4E5B9ULL
#define SPLITMIX_MUL2  0x94D049BB133111EBULL
#define RAND_BITS_DROP 11
#define RAND_SCALE     (1.0 / 9007199254740992.0) /* 2^-53 */

/* splitmix64 of x: the start PSNs and CE marks. */
static uint64_t mix(uint64_t x)
{
    uint64_t z = x + SPLITMIX_GAMMA;
    z = (z ^ (z >> 30)) * SPLITMIX_MUL1;
    z = (z ^ (z >> 27)) * SPLITMIX_MUL2;
    return z ^ (z >> 31);
}

/* The spec of a frame of queue pair q in round r: the request, or its ACK. */
static void flood_spec(const struct rg_flood_opts *o, uint32_t q, uint64_t r, int ack,
                       struct rg_spec *s)
{
    uint32_t hosts = o->hosts ? o->hosts : RG_FLOOD_MAX_HOSTS;
    uint32_t h = q % hosts, qpn = QPN_BASE + q / hosts;
    uint32_t a = HOST_NET | h << HOST_SHIFT | HOST_A_LOW,
             b = HOST_NET | h << HOST_SHIFT | HOST_B_LOW;
    rg_spec_init(s);
    rg_addr_v4(s->src, ack ? b : a);
    rg_addr_v4(s->dst, ack ? a : b);
    s->dqpn = qpn & RG_QPN_MASK;
    uint64_t step = o->gaps ? 2 : 1; /* with gaps, every round skips a PSN */
    s->psn = (uint32_t)(mix(o->seed ^ q) + step * r + (ack && o->stray_acks ? STRAY_OFFSET : 0)) &
             RG_PSN_MASK;
    s->icrc_skip = o->snaplen != 0;
    if (ack) {
        s->opcode = RG_OP_RC_ACK;
        s->aeth_syndrome = ACK_OK;
        s->aeth_msn = (uint32_t)(r + 1) & RG_PSN_MASK;
    } else {
        s->opcode = RG_OP_RC_WRITE_ONLY;
        s->ackreq = 1;
    }
}

int rg_flood_run(struct rg_writer *w, const struct rg_flood_opts *o, struct rg_flood_stats *st)
{
    struct rg_flood_stats local;
    uint8_t buf[RG_MAX_FRAME];
    struct rg_spec s;

    if (st == NULL)
        st = &local;
    memset(st, 0, sizeof *st);
    uint32_t hosts = o->hosts ? o->hosts : RG_FLOOD_MAX_HOSTS;
    /* every queue pair must get its own QP number: (qps - 1) / hosts + QPN_BASE fits 24 bits */
    if (o->qps == 0 || o->qps > RG_FLOOD_MAX_QPS || hosts > RG_FLOOD_MAX_HOSTS ||
        (o->qps - 1) / hosts + QPN_BASE > RG_QPN_MASK || !(o->ce >= 0 && o->ce <= 1))
        return RG_ERR_INVALID;
    uint64_t rounds = o->gaps ? o->packets / o->qps : 0; /* with gaps: requests, then ACKs */
    if (o->gaps && rounds < 2)
        return RG_ERR_INVALID;
    uint64_t requests = o->gaps ? (rounds - 1) * o->qps : 0;
    uint64_t total = o->gaps ? rounds * o->qps : o->packets;
    for (uint64_t n = 0; n < total; n++) {
        uint64_t j = n / 2;
        uint32_t q = (uint32_t)(j % o->qps);
        int ack = (int)(n & 1);
        uint64_t r = j / o->qps;
        if (o->gaps) {
            ack = n >= requests;
            q = (uint32_t)(n % o->qps);
            r = ack ? rounds - 2 : n / o->qps;
            j = n;
            if (!ack && r > 0)
                st->gaps++;
        }
        flood_spec(o, q, r, ack, &s);
        if (!ack && o->ce > 0 &&
            (double)(mix(o->seed ^ ~j) >> RAND_BITS_DROP) * RAND_SCALE < o->ce) {
            s.ecn = RG_ECN_CE;
            st->ce_marks++;
        }
        int len = rg_build(&s, buf, sizeof buf, NULL);
        if (len < 0)
            return len;
        if (rg_writer_write(w, BASE_NS + (int64_t)n * STEP_NS, buf, (uint32_t)len) != 0)
            return RG_ERR_IO;
        st->frames++;
        if (ack)
            st->acks++;
        else
            st->requests++;
    }
    st->flows =
        (st->requests < o->qps ? st->requests : o->qps) + (st->acks < o->qps ? st->acks : o->qps);
    return 0;
}
