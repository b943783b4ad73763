/*
 * rocegen_hostile.c - `rocegen hostile`: a capture whose PSNs, lengths,
 * opcodes and header values are all hostile, for the robustness tests
 * (tests/robustness/). Not one of the golden scenarios of captures/: what
 * it must show is only that the analysis survives it with a sane report
 * (tests/robustness/hostile.py checks the counts it can promise).
 *
 * Parts, in frame order:
 *  1. PSN edges: every 24-bit wrap edge (0xFFFFFE..0x000001), the largest
 *     forward jump (2^23 - 1), a jump of exactly 2^23 (neither after nor
 *     before), the 0x7FFFFF -> 0x800000 edge, a step back by 2^23 - 1.
 *  2. Lengths: empty and maximal payloads, RETH DMA lengths 0 and 2^32-1
 *     (a READ whose span is the whole PSN space), declared IP / UDP / GRH
 *     lengths of 0 and 0xFFFF, frames cut at every byte of their headers,
 *     with and without the original length.
 *  3. Header values: pad counts larger than the payload, TVer 1 and 15,
 *     every AETH reserved type and NAK code, RNR timers 0 and 31, every
 *     one of the 256 opcodes, QPs 0 and 0xFFFFFF, P_Key 0.
 *  4. Replies to nothing: NAKs for PSNs never sent, READ responses and
 *     ATOMIC ACKs with no request, CNPs with no flow (v2, v1, IPv6).
 *  5. CM: more REQs than the engine keeps pending, PMTU codes 0 and 15,
 *     REPs without REQ, MADs cut short.
 *  6. Time: a jump a year ahead and back, two frames with the same time.
 *  7. MAC Control: PFC and PAUSE with the longest pauses on every priority,
 *     an empty class-enable vector, an unknown opcode, frames cut inside;
 *     a RoCE frame in mirror encapsulations nested deeper than the engine
 *     unwraps, whole and cut at every 7th byte.
 * Deterministic, like every scenario.
 */
#include "rocegen_adversarial.h"

#include <string.h>

#include "rocegen_encap.h"

#include "roce_opcode.h"

#define HOST_A  0x0A0A0001u /* 10.10.0.1 */
#define HOST_B  0x0A0A0002u /* 10.10.0.2 */
#define HOST_NO 0x0A0AFF00u /* 10.10.255.x: hosts with no traffic at all */
#define QP_A    0x0000A1u
#define QP_B    0x0000B2u
#define QP_MAX  0xFFFFFFu

#define PSN_MAX        0xFFFFFFu
#define PSN_HALF       0x800000u /* 2^23: neither after nor before */
#define ACK_OK         0x1Fu
#define MSN_MAX        0xFFFFFFu
#define MSG_16         16u
#define MSG_64         64u
#define DMA_MAX        0xFFFFFFFFu
#define LEN_MAX16      0xFFFF
#define ETH_IP_UDP     42u /* Ethernet + IPv4 + UDP header bytes */
#define MAX_PAYLOAD    (RG_MAX_FRAME - 256u)
#define PAD_MAX        3
#define TVER_MAX       15u
#define OPCODES        256u
#define AETH_VALUES    32u
#define NAK_CODES_USED 5u
#define RNR_TIMER_MAX  31u
#define NO_FLOW_CNPS   40u
#define NAK_BURST      9u  /* more NAKs for one PSN than a flow remembers */
#define CM_REQS        80u /* more than the REQs the engine keeps waiting for a REP */
#define CM_COMM        0x7E570000u
#define PMTU_CODE_BAD  15u
#define MAD_CUT        40 /* MAD bytes kept in a cut CM message */
#define YEAR_NS        (365LL * 24 * 3600 * 1000000000LL)
#define V6_PREFIX      0xFDu
#define QUANTA_MAX     0xFFFFu
#define CEV_ALL        0xFFu
#define MACCTRL_BOGUS  0x0202u
#define MACCTRL_CUTS                                                                               \
    {                                                                                              \
        14, 15, 16, 17, 20                                                                         \
    }
#define WRAP_DEPTH    5
#define WRAP_CUT_STEP 7u
#define TUNNEL_SRC    0x0A0B0001u /* 10.11.0.1 */
#define TUNNEL_DST    0x0A0B0002u /* 10.11.0.2 */

/* A spec for a request from A on connection k. */
static void req_spec(const struct rg_conn *k, struct rg_spec *s, uint8_t opcode, uint32_t psn)
{
    rg_conn_spec(k, RG_A, s);
    s->opcode = opcode;
    s->psn = psn & RG_PSN_MASK;
    s->payload_len = MSG_16;
}

/* Part 1: PSN edges on an RC connection, each answered by an ACK. */
static void psn_edges(struct rg_sc *c, const struct rg_conn *k)
{
    static const uint32_t psns[] = {
        0xFFFFFD, 0xFFFFFE, 0xFFFFFF, 0x000000, 0x000001, /* the wrap */
        0x800000,                                         /* +2^23 - 1: the largest gap */
        0x000000,                                         /* +2^23: ambiguous */
        0x7FFFFE, 0x7FFFFF, 0x800000, 0x800001,           /* the half-space edge */
        0x000002,                                         /* back by 2^23 - 1 */
        0xFFFFFF, 0x7FFFFF, 0x800000                      /* more of both */
    };
    for (size_t i = 0; i < sizeof psns / sizeof psns[0]; i++) {
        rg_sc_req(c, k, RG_A, RG_OP_RC_SEND_ONLY, psns[i], MSG_16);
        rg_sc_ack(c, k, RG_B, psns[i], (uint32_t)i);
    }
    rg_sc_ack(c, k, RG_B, PSN_MAX, MSN_MAX);
}

/* Write frame (len bytes) cut to every length from cut_from below cut_end,
 * each with its original length (as a snaplen cuts) and without it (a
 * frame too short). */
static void cut_everywhere(struct rg_sc *c, const uint8_t *frame, uint32_t len, uint32_t cut_end,
                           uint32_t cut_from)
{
    for (uint32_t cap = cut_from; cap < cut_end && cap < len && c->err == 0; cap++) {
        if (rg_writer_write_cut(c->w, c->ts, frame, cap, len) != 0 ||
            rg_writer_write_cut(c->w, c->ts, frame, cap, cap) != 0)
            c->err = RG_ERR_IO;
        c->frames += 2;
        c->ts += RG_SC_STEP_NS;
    }
}

/* Part 2: zero and maximal lengths. */
static void lengths(struct rg_sc *c, const struct rg_conn *k, const struct rg_conn *k1)
{
    struct rg_spec s;
    struct rg_layout lay;
    const uint32_t p = 0x000100;

    req_spec(k, &s, RG_OP_RC_SEND_ONLY, p); /* empty payload */
    s.payload_len = 0;
    rg_sc_emit(c, &s);
    req_spec(k, &s, RG_OP_RC_SEND_ONLY, p + 1); /* the largest frame the builder makes */
    s.payload_len = MAX_PAYLOAD;
    rg_sc_emit(c, &s);
    req_spec(k, &s, RG_OP_RC_WRITE_ONLY, p + 2); /* DMA length 0 */
    s.payload_len = 0;
    s.reth_dma_len = 0;
    rg_sc_emit(c, &s);
    req_spec(k, &s, RG_OP_RC_WRITE_FIRST, p + 3); /* DMA length 2^32 - 1 */
    s.reth_dma_len = DMA_MAX;
    rg_sc_emit(c, &s);
    rg_sc_read(c, k, RG_A, p + 4, 0);                         /* READ of 0 bytes */
    rg_sc_read(c, k, RG_A, p + 5, DMA_MAX);                   /* a span of the whole PSN space */
    rg_sc_req(c, k, RG_A, RG_OP_RC_SEND_ONLY, p + 6, MSG_16); /* inside that span */
    rg_sc_resp(c, k, RG_B, RG_OP_RC_READ_RESP_LAST, p + 4, MSG_16, ACK_OK, 1);
    rg_sc_resp(c, k, RG_B, RG_OP_RC_READ_RESP_FIRST, p + 5, MSG_16, ACK_OK, 1);
    rg_sc_resp(c, k, RG_B, RG_OP_RC_READ_RESP_LAST, p + 4, MSG_16, ACK_OK, 2);
    rg_sc_read(c, k, RG_A, p + 5, DMA_MAX); /* re-issued */

    static const int32_t declared[] = {0, 1, 8, 19, 20, 28, 29, LEN_MAX16};
    for (size_t i = 0; i < sizeof declared / sizeof declared[0]; i++) {
        req_spec(k, &s, RG_OP_RC_SEND_ONLY, p + 7); /* IP total length */
        s.ip_len = declared[i];
        rg_sc_emit(c, &s);
        req_spec(k, &s, RG_OP_RC_SEND_ONLY, p + 7); /* UDP length */
        s.udp_len = declared[i];
        rg_sc_emit(c, &s);
        rg_conn_spec(k1, RG_A, &s); /* RoCEv1 GRH payload length */
        s.opcode = RG_OP_RC_SEND_ONLY;
        s.ip_len = declared[i];
        rg_sc_emit(c, &s);
    }

    /* a WRITE First over IPv4 with 40 bytes of options, cut at every byte up to the payload */
    uint8_t frame[RG_MAX_FRAME];
    req_spec(k, &s, RG_OP_RC_WRITE_FIRST, p + 8);
    s.ip_opts_len = RG_IPV4_OPT_MAX;
    memset(s.ip_opts, 1, sizeof s.ip_opts); /* NOPs */
    int n = rg_build(&s, frame, sizeof frame, &lay);
    if (n > 0)
        cut_everywhere(c, frame, (uint32_t)n, lay.payload_off + 1, 0);
    else
        c->err = n;
}

/* Part 3: header values no good sender writes. */
static void header_values(struct rg_sc *c, const struct rg_conn *k)
{
    struct rg_spec s;
    const uint32_t p = 0x000200;

    for (uint32_t len = 0; len < PAD_MAX; len++) { /* pad count 3 > payload + pad bytes */
        req_spec(k, &s, RG_OP_RC_SEND_ONLY, p);
        s.payload_len = len;
        s.padcnt = PAD_MAX;
        s.pad_len = 0;
        rg_sc_emit(c, &s);
    }
    req_spec(k, &s, RG_OP_RC_SEND_ONLY, p); /* TVer 1 and 15, every BTH flag, P_Key 0 */
    s.tver = 1;
    rg_sc_emit(c, &s);
    req_spec(k, &s, RG_OP_RC_SEND_ONLY, p + 1);
    s.tver = TVER_MAX;
    s.se = s.mig = s.fecn = s.becn = s.ackreq = 1;
    s.pkey = 0;
    rg_sc_emit(c, &s);
    for (uint32_t v = 0; v < AETH_VALUES; v++) { /* reserved type, reserved NAK codes */
        rg_sc_resp(c, k, RG_B, RG_OP_RC_ACK, p + 1, 0,
                   (uint8_t)(RG_AETH_TYPE_RESERVED << RG_AETH_TYPE_SHIFT | v), v);
        if (v >= NAK_CODES_USED)
            rg_sc_resp(c, k, RG_B, RG_OP_RC_ACK, p + 1, 0, rg_aeth_nak(v), v);
    }
    rg_sc_resp(c, k, RG_B, RG_OP_RC_ACK, p + 1, 0, rg_aeth_rnr(0), 1);
    rg_sc_resp(c, k, RG_B, RG_OP_RC_ACK, p + 1, 0, rg_aeth_rnr(RNR_TIMER_MAX), 1);
    rg_sc_resp(c, k, RG_B, RG_OP_RC_ATOMIC_ACK, p + 1, 0, rg_aeth_nak(RG_NAK_INVALID_REQ), 1);
    for (uint32_t op = 0; op < OPCODES; op++) { /* every opcode, defined or not */
        req_spec(k, &s, (uint8_t)op, p + 2 + op);
        s.reth_dma_len = DMA_MAX;
        rg_sc_emit(c, &s);
    }
    static const uint32_t qps[] = {0, RG_CM_QPN, QP_MAX};
    for (size_t i = 0; i < sizeof qps / sizeof qps[0]; i++) { /* QP 0, QP1 without a MAD, max */
        req_spec(k, &s, RG_OP_RC_SEND_ONLY, p);
        s.dqpn = qps[i];
        rg_sc_emit(c, &s);
        s.opcode = RG_OP_UD_SEND_ONLY;
        rg_sc_emit(c, &s);
    }
}

/* Part 4: responses, NAKs and CNPs that answer nothing. */
static void replies_to_nothing(struct rg_sc *c, const struct rg_conn *k, const struct rg_conn *k6,
                               const struct rg_conn *k1)
{
    struct rg_conn lone;
    const uint32_t p = 0x000400;

    rg_conn_init4(&lone, &k->base, HOST_NO + 1, HOST_NO + 2, QP_A, QP_B);
    rg_sc_nak(c, &lone, RG_B, p, 0); /* NAK on a flow pair that never carried a request */
    rg_sc_resp(c, &lone, RG_B, RG_OP_RC_ACK, p, 0, rg_aeth_rnr(1), 0);
    rg_sc_resp(c, &lone, RG_B, RG_OP_RC_READ_RESP_ONLY, PSN_MAX, MSG_16, ACK_OK, 0);
    rg_sc_resp(c, &lone, RG_B, RG_OP_RC_READ_RESP_MIDDLE, 0, MSG_16, 0, 0);
    rg_sc_resp(c, &lone, RG_B, RG_OP_RC_ATOMIC_ACK, p, 0, ACK_OK, 0);
    rg_sc_req(c, k, RG_A, RG_OP_RC_SEND_ONLY, p, MSG_16);
    for (uint32_t i = 0; i < NAK_BURST; i++) /* NAKs for PSNs never sent, then one many times */
        rg_sc_nak(c, k, RG_B, i < NAK_BURST / 2 ? p + PSN_HALF + i : p + 1, i);
    rg_sc_req(c, k, RG_A, RG_OP_RC_SEND_ONLY, p + 1, MSG_16);
    rg_sc_req(c, k, RG_A, RG_OP_RC_SEND_ONLY, p + 1, MSG_16);
    for (uint32_t i = 0; i < NO_FLOW_CNPS; i++) { /* CNPs with no flow */
        rg_conn_init4(&lone, &k->base, HOST_NO + 16 + i, HOST_NO + 128 + i, i * i, QP_MAX - i);
        rg_sc_cnp(c, &lone, (enum rg_side)(i & 1));
    }
    rg_sc_cnp(c, k6, RG_B);
    rg_sc_cnp(c, k1, RG_B);
}

/* Part 5: CM messages that go nowhere or make no sense. */
static void cm_abuse(struct rg_sc *c, const struct rg_conn *k)
{
    uint8_t mad[RG_MAD_LEN];
    struct rg_cm m;
    struct rg_spec s;

    for (uint32_t i = 0; i < CM_REQS; i++) { /* REQs never answered; odd PMTU codes */
        memset(&m, 0, sizeof m);
        m.attr = RG_CM_REQ;
        m.tid = i;
        m.local_comm_id = CM_COMM + i;
        m.local_qpn = i % 2 ? QP_MAX : 0;
        m.start_psn = PSN_MAX - i;
        m.pmtu_code = (uint8_t)(i % (PMTU_CODE_BAD + 1));
        m.transport = (uint8_t)(i % 4);
        rg_cm_mad(&m, mad);
        rg_conn_spec(k, RG_A, &s);
        rg_spec_cm(&s, mad);
        rg_sc_emit(c, &s);
    }
    memset(&m, 0, sizeof m); /* a REP answering no REQ, then one cut short */
    m.attr = RG_CM_REP;
    m.local_comm_id = CM_COMM + CM_REQS;
    m.remote_comm_id = CM_COMM + CM_REQS + 1;
    m.local_qpn = QP_B;
    m.start_psn = PSN_MAX;
    rg_cm_mad(&m, mad);
    rg_conn_spec(k, RG_B, &s);
    rg_spec_cm(&s, mad);
    rg_sc_emit(c, &s);
    s.payload_len = MAD_CUT;
    rg_sc_emit(c, &s);
    m.attr = RG_CM_REQ; /* a REQ that ends inside its fields */
    rg_cm_mad(&m, mad);
    rg_conn_spec(k, RG_A, &s);
    rg_spec_cm(&s, mad);
    s.payload_len = MAD_CUT;
    rg_sc_emit(c, &s);
}

/* Part 6: time a year ahead, then back, then standing still. */
static void time_jumps(struct rg_sc *c, const struct rg_conn *k)
{
    const uint32_t p = 0x000600;
    c->ts += YEAR_NS;
    rg_sc_req(c, k, RG_A, RG_OP_RC_SEND_ONLY, p, MSG_16);
    c->ts -= YEAR_NS;
    rg_sc_req(c, k, RG_A, RG_OP_RC_SEND_ONLY, p + 1, MSG_16);
    c->ts -= RG_SC_STEP_NS;
    rg_sc_ack(c, k, RG_B, p + 1, 1);
}

/* Part 7a: MAC Control frames with extreme values, whole and cut. */
static void mac_control_abuse(struct rg_sc *c, const struct rg_conn *k)
{
    static const unsigned cuts[] = MACCTRL_CUTS;
    uint16_t q[RG_PFC_PRIOS];
    uint8_t f[RG_MAX_FRAME];
    struct {
        unsigned opcode;
        uint8_t cev;
        uint16_t quanta;
    } const frames[] = {
        {RG_MACCTRL_PFC, CEV_ALL, QUANTA_MAX}, /* every priority, the longest pause */
        {RG_MACCTRL_PFC, CEV_ALL, QUANTA_MAX}, /* again: restarts every timer */
        {RG_MACCTRL_PFC, 0, QUANTA_MAX},       /* no priority enabled */
        {RG_MACCTRL_PAUSE, 0, QUANTA_MAX},     {RG_MACCTRL_PFC, CEV_ALL, 0}, /* XON everywhere */
        {MACCTRL_BOGUS, CEV_ALL, QUANTA_MAX},
    };
    for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
        for (unsigned p = 0; p < RG_PFC_PRIOS; p++)
            q[p] = frames[i].quanta;
        int n = rg_build_mac_control(frames[i].opcode, frames[i].cev, q, k->mac[RG_A], f, sizeof f);
        if (n < 0) {
            c->err = n;
            return;
        }
        rg_sc_raw(c, f, (size_t)n);
        if (i == 0)
            for (size_t j = 0; j < sizeof cuts / sizeof cuts[0]; j++)
                cut_everywhere(c, f, (uint32_t)n, cuts[j] + 1, cuts[j]);
    }
}

/* Part 7b: a RoCE SEND in WRAP_DEPTH nested mirror encapsulations, each
 * depth written whole, the deepest also cut at every WRAP_CUT_STEP bytes. */
static void nested_mirrors(struct rg_sc *c, const struct rg_conn *k)
{
    static const enum rg_wrap_kind kinds[WRAP_DEPTH] = {
        RG_WRAP_ERSPAN2, RG_WRAP_VXLAN, RG_WRAP_GRE_TEB, RG_WRAP_ERSPAN3, RG_WRAP_ERSPAN1};
    uint8_t a[RG_MAX_FRAME], b[RG_MAX_FRAME];
    uint8_t *cur = a, *next = b;
    struct rg_spec s;
    struct rg_wrap w;

    req_spec(k, &s, RG_OP_RC_SEND_ONLY, 0x000700);
    int n = rg_build(&s, cur, sizeof a, NULL);
    for (unsigned d = 0; d < WRAP_DEPTH && n > 0; d++) {
        rg_wrap_init(&w, kinds[d], TUNNEL_SRC + d, TUNNEL_DST + d);
        n = rg_wrap_build(&w, cur, (size_t)n, next, sizeof a);
        uint8_t *t = cur;
        cur = next;
        next = t;
        if (n > 0)
            rg_sc_raw(c, cur, (size_t)n);
    }
    if (n < 0) {
        c->err = n;
        return;
    }
    for (uint32_t cap = 0; cap < (uint32_t)n; cap += WRAP_CUT_STEP)
        cut_everywhere(c, cur, (uint32_t)n, cap + 1, cap);
}

void rg_scen_hostile(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k, k1, k6;
    uint8_t a6[RG_ADDR_LEN] = {V6_PREFIX}, b6[RG_ADDR_LEN] = {V6_PREFIX};

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    base.kind = RG_KIND_ROCEV1;
    base.n_vlans = RG_MAX_VLANS;
    base.vlan[0].tpid = RG_TPID_8021AD;
    base.vlan[1].tpid = RG_TPID_8021Q;
    rg_conn_init4(&k1, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_base(c, &base);
    base.ip_version = 6;
    base.ttl = 0;
    base.flow_label = 0xFFFFF;
    a6[RG_ADDR_LEN - 1] = 1;
    b6[RG_ADDR_LEN - 1] = 2;
    rg_conn_init6(&k6, &base, a6, b6, QP_A, QP_B);

    psn_edges(c, &k);
    lengths(c, &k, &k1);
    header_values(c, &k);
    replies_to_nothing(c, &k, &k6, &k1);
    cm_abuse(c, &k);
    time_jumps(c, &k);
    mac_control_abuse(c, &k);
    nested_mirrors(c, &k);
}
