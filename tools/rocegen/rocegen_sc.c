/*
 * rocegen_sc.c - the scenario frame sink and connection helpers (see
 * rocegen_scen.h).
 */
#include "rocegen_scen.h"

#include <string.h>

#include "roce_opcode.h"
#include "rocegen_wire.h"

#define MAC_OUI_LOCAL        0x02u /* locally administered unicast */
#define SPORT_ENTROPY_BASE   0xC000u
#define SPORT_ENTROPY_MASK   0x3FFFu
#define CNP_DSCP             48u
#define SLL_PKTTYPE_HOST     0u
#define SLL_PKTTYPE_OUTGOING 4u
#define CM_TID_BASE          0x0000000100000000ULL
#define CM_SERVICE_ID        0x0000000001064801ULL /* RDMA CM port space TCP, port 18515 */
#define CM_PSN_BASE          0x000100u             /* PSNs of the MADs themselves (UD, unchecked) */
#define MAC_ADDR_TAIL        2                     /* MAC bytes 2..5 carry the address tail */

void rg_sc_init(struct rg_sc *c, struct rg_writer *w, int linktype)
{
    memset(c, 0, sizeof *c);
    c->w = w;
    c->ts = RG_SC_BASE_NS;
    c->linktype = linktype;
}

/* Write the n bytes in c->buf (a build result, or an error when negative). */
static uint64_t sc_write(struct rg_sc *c, int n)
{
    if (n < 0) {
        c->err = n;
        return 0;
    }
    uint32_t len = (uint32_t)n;
    if (c->understate != 0 && len > c->understate)
        len = c->understate; /* cut, and said not to be */
    if (rg_writer_write_cut(c->w, c->ts, c->buf, len, len) != 0) {
        c->err = RG_ERR_IO;
        return 0;
    }
    c->ts += RG_SC_STEP_NS;
    return ++c->frames;
}

/* --as-ib: the LID of addr must stand for no other address. 0, or
 * RG_ERR_AS_IB. */
static int lid_unique(struct rg_sc *c, const uint8_t addr[RG_ADDR_LEN])
{
    const size_t tail = RG_ADDR_LEN - sizeof(uint16_t);
    for (unsigned i = 0; i < c->n_lids; i++) {
        if (memcmp(c->lid_addr[i] + tail, addr + tail, RG_ADDR_LEN - tail) != 0)
            continue;
        return memcmp(c->lid_addr[i], addr, RG_ADDR_LEN) == 0 ? 0 : RG_ERR_AS_IB;
    }
    if (c->n_lids == RG_SC_MAX_LIDS)
        return RG_ERR_AS_IB;
    memcpy(c->lid_addr[c->n_lids++], addr, RG_ADDR_LEN);
    return 0;
}

/* --as-ib: an Ethernet frame given as bytes (MAC Control) as a raw packet
 * carrying its EtherType and what follows. */
static uint64_t raw_as_ib(struct rg_sc *c, const uint8_t *frame, size_t len)
{
    struct rg_spec s;
    if (len < ETH_HDR_LEN)
        return sc_write(c, RG_ERR_INVALID);
    rg_spec_init(&s);
    s.linktype = RG_LINKTYPE_INFINIBAND;
    s.kind = RG_KIND_IB_RAW;
    s.ib_ethertype = (uint16_t)(frame[ETH_HDR_LEN - 2] << 8 | frame[ETH_HDR_LEN - 1]);
    s.payload = frame + ETH_HDR_LEN;
    s.payload_len = (uint32_t)(len - ETH_HDR_LEN);
    return sc_write(c, rg_build(&s, c->buf, sizeof c->buf, NULL));
}

uint64_t rg_sc_raw(struct rg_sc *c, const uint8_t *frame, size_t len)
{
    if (c->err != 0)
        return 0;
    if (c->as_ib)
        return c->wrap != NULL ? sc_write(c, RG_ERR_AS_IB) : raw_as_ib(c, frame, len);
    if (c->wrap != NULL)
        return sc_write(c, rg_wrap_build(c->wrap, frame, len, c->buf, sizeof c->buf));
    if (len > sizeof c->buf)
        return sc_write(c, RG_ERR_SPACE);
    memcpy(c->buf, frame, len);
    return sc_write(c, (int)len);
}

uint64_t rg_sc_emit(struct rg_sc *c, const struct rg_spec *s)
{
    if (c->err != 0)
        return 0;
    if (c->as_ib && s->kind < RG_KIND_IB) {
        struct rg_spec ib;
        if (c->wrap != NULL || lid_unique(c, s->src) != 0 || lid_unique(c, s->dst) != 0)
            return sc_write(c, RG_ERR_AS_IB);
        rg_spec_to_ib(s, &ib);
        return sc_write(c, rg_build(&ib, c->buf, sizeof c->buf, NULL));
    }
    if (c->wrap == NULL)
        return sc_write(c, rg_build(s, c->buf, sizeof c->buf, NULL));
    int n = rg_build(s, c->inner, sizeof c->inner, NULL);
    if (n < 0)
        return sc_write(c, n);
    return rg_sc_raw(c, c->inner, (size_t)n);
}

void rg_sc_wait(struct rg_sc *c, int64_t ns)
{
    c->ts += ns;
}

void rg_sc_again(struct rg_sc *c)
{
    if (c->frames > 0)
        c->ts -= RG_SC_STEP_NS;
}

void rg_sc_at(struct rg_sc *c, int64_t ns)
{
    if (RG_SC_BASE_NS + ns > c->ts)
        c->ts = RG_SC_BASE_NS + ns;
}

void rg_sc_base(const struct rg_sc *c, struct rg_spec *s)
{
    rg_spec_init(s);
    s->linktype = c->linktype;
    if (!c->as_ib && (c->linktype == RG_LINKTYPE_INFINIBAND || c->linktype == RG_LINKTYPE_ERF))
        s->kind = RG_KIND_IB;
}

/* MAC of a host: 02:00 + the last four address bytes. */
static void mac_of(uint8_t mac[RG_MAC_LEN], const uint8_t addr[RG_ADDR_LEN])
{
    mac[0] = MAC_OUI_LOCAL;
    mac[1] = 0;
    memcpy(mac + MAC_ADDR_TAIL, roce_addr_v4(addr), RG_MAC_LEN - MAC_ADDR_TAIL);
}

void rg_conn_init6(struct rg_conn *k, const struct rg_spec *base, const uint8_t a[RG_ADDR_LEN],
                   const uint8_t b[RG_ADDR_LEN], uint32_t qa, uint32_t qb)
{
    memset(k, 0, sizeof *k);
    if (base != NULL)
        k->base = *base;
    else
        rg_spec_init(&k->base);
    memcpy(k->addr[RG_A], a, RG_ADDR_LEN);
    memcpy(k->addr[RG_B], b, RG_ADDR_LEN);
    mac_of(k->mac[RG_A], a);
    mac_of(k->mac[RG_B], b);
    k->qpn[RG_A] = qa;
    k->qpn[RG_B] = qb;
    /* Linux derives the entropy port from the QP numbers */
    k->sport[RG_A] = (uint16_t)(SPORT_ENTROPY_BASE | ((qa ^ qb) & SPORT_ENTROPY_MASK));
    k->sport[RG_B] = (uint16_t)(SPORT_ENTROPY_BASE | ((qa ^ qb ^ 1u) & SPORT_ENTROPY_MASK));
    /* a cooked capture is taken on A's host */
    k->sll_pkttype[RG_A] = SLL_PKTTYPE_OUTGOING;
    k->sll_pkttype[RG_B] = SLL_PKTTYPE_HOST;
}

void rg_conn_init4(struct rg_conn *k, const struct rg_spec *base, uint32_t a, uint32_t b,
                   uint32_t qa, uint32_t qb)
{
    uint8_t aa[RG_ADDR_LEN], bb[RG_ADDR_LEN];
    rg_addr_v4(aa, a);
    rg_addr_v4(bb, b);
    rg_conn_init6(k, base, aa, bb, qa, qb);
}

void rg_conn_init_ib(struct rg_conn *k, const struct rg_spec *base, uint16_t la, uint16_t lb,
                     const uint8_t *ga, const uint8_t *gb, uint32_t qa, uint32_t qb)
{
    uint8_t aa[RG_ADDR_LEN], bb[RG_ADDR_LEN];
    roce_addr_set_lid(aa, la);
    roce_addr_set_lid(bb, lb);
    rg_conn_init6(k, base, ga != NULL ? ga : aa, gb != NULL ? gb : bb, qa, qb);
    k->base.ib_grh = ga != NULL && gb != NULL;
    k->lid[RG_A] = la;
    k->lid[RG_B] = lb;
}

void rg_conn_spec(const struct rg_conn *k, enum rg_side from, struct rg_spec *s)
{
    enum rg_side to = from == RG_A ? RG_B : RG_A;
    *s = k->base;
    memcpy(s->src, k->addr[from], RG_ADDR_LEN);
    memcpy(s->dst, k->addr[to], RG_ADDR_LEN);
    memcpy(s->eth_src, k->mac[from], RG_MAC_LEN);
    memcpy(s->eth_dst, k->mac[to], RG_MAC_LEN);
    s->udp_sport = k->sport[from];
    s->sll_pkttype = k->sll_pkttype[from];
    s->dqpn = k->qpn[to];
    s->slid = k->lid[from];
    s->dlid = k->lid[to];
}

/* Nonzero when the opcode ends a message (LAST or ONLY). */
static int ends_message(uint8_t opcode)
{
    const struct roce_opcode_info *op = roce_opcode_lookup(opcode);
    return op != NULL && (op->flags & (ROCE_OPF_LAST | ROCE_OPF_ONLY)) != 0;
}

/* A packet of k from side `from`: its opcode, PSN and payload (filled with
 * the PSN's low byte). */
static void packet_spec(const struct rg_conn *k, enum rg_side from, uint8_t opcode, uint32_t psn,
                        uint32_t len, struct rg_spec *s)
{
    rg_conn_spec(k, from, s);
    s->opcode = opcode;
    s->psn = psn & RG_PSN_MASK;
    s->payload_len = len;
    s->payload_fill = (uint8_t)psn;
}

uint64_t rg_sc_req(struct rg_sc *c, const struct rg_conn *k, enum rg_side from, uint8_t opcode,
                   uint32_t psn, uint32_t len)
{
    struct rg_spec s;
    packet_spec(k, from, opcode, psn, len, &s);
    s.ackreq = (uint8_t)ends_message(opcode);
    return rg_sc_emit(c, &s);
}

void rg_sc_send_spec(const struct rg_conn *k, enum rg_side from, uint32_t psn, uint32_t len,
                     struct rg_spec *s)
{
    rg_conn_spec(k, from, s);
    s->opcode = RG_OP_RC_SEND_ONLY;
    s->psn = psn & RG_PSN_MASK;
    s->ackreq = 1;
    s->payload_len = len;
}

/* Remote address of the requests of a scenario (any fixed value will do). */
#define SC_REMOTE_VA 0x00007F0000100000ULL
#define SC_RKEY      0x00001234u

static void remote_buffer(struct rg_spec *s, uint32_t dma_len)
{
    s->reth_va = SC_REMOTE_VA;
    s->reth_rkey = SC_RKEY;
    s->reth_dma_len = dma_len;
}

uint64_t rg_sc_write(struct rg_sc *c, const struct rg_conn *k, enum rg_side from, uint8_t opcode,
                     uint32_t psn, uint32_t len, uint32_t dma_len)
{
    struct rg_spec s;
    packet_spec(k, from, opcode, psn, len, &s);
    s.ackreq = (uint8_t)ends_message(opcode);
    remote_buffer(&s, dma_len);
    return rg_sc_emit(c, &s);
}

uint64_t rg_sc_read(struct rg_sc *c, const struct rg_conn *k, enum rg_side from, uint32_t psn,
                    uint32_t dma_len)
{
    struct rg_spec s;
    rg_conn_spec(k, from, &s);
    s.opcode = RG_OP_RC_READ_REQ;
    s.psn = psn & RG_PSN_MASK;
    s.ackreq = 1;
    remote_buffer(&s, dma_len);
    return rg_sc_emit(c, &s);
}

uint64_t rg_sc_resp(struct rg_sc *c, const struct rg_conn *k, enum rg_side from, uint8_t opcode,
                    uint32_t psn, uint32_t len, uint8_t syndrome, uint32_t msn)
{
    struct rg_spec s;
    packet_spec(k, from, opcode, psn, len, &s);
    s.aeth_syndrome = syndrome;
    s.aeth_msn = msn;
    return rg_sc_emit(c, &s);
}

uint64_t rg_sc_ack(struct rg_sc *c, const struct rg_conn *k, enum rg_side from, uint32_t psn,
                   uint32_t msn)
{
    return rg_sc_resp(c, k, from, RG_OP_RC_ACK, psn, 0, rg_aeth_ack(RG_AETH_CREDITS_INVALID), msn);
}

uint64_t rg_sc_nak(struct rg_sc *c, const struct rg_conn *k, enum rg_side from, uint32_t psn,
                   uint32_t msn)
{
    return rg_sc_resp(c, k, from, RG_OP_RC_ACK, psn, 0, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR), msn);
}

uint64_t rg_sc_cnp(struct rg_sc *c, const struct rg_conn *k, enum rg_side from)
{
    return rg_sc_cnp_ecn(c, k, from, RG_ECN_ECT0);
}

uint64_t rg_sc_cnp_ecn(struct rg_sc *c, const struct rg_conn *k, enum rg_side from, uint8_t ecn)
{
    struct rg_spec s;
    rg_conn_spec(k, from, &s);
    s.opcode = s.kind == RG_KIND_IB ? RG_OP_IB_CNP : RG_OP_CNP;
    s.becn = 1;
    s.pkey = RG_PKEY_DEFAULT;
    s.psn = 0;
    s.dscp = CNP_DSCP;
    s.ecn = ecn;
    s.udp_sport = 0;
    return rg_sc_emit(c, &s);
}

/* One CM MAD from side `from`. */
static void cm_send(struct rg_sc *c, const struct rg_conn *k, enum rg_side from,
                    const struct rg_cm *m)
{
    uint8_t mad[RG_MAD_LEN];
    struct rg_spec s;
    rg_cm_mad(m, mad);
    rg_conn_spec(k, from, &s);
    rg_spec_cm(&s, mad);
    s.psn = CM_PSN_BASE + (uint32_t)c->frames;
    rg_sc_emit(c, &s);
}

void rg_sc_cm_connect(struct rg_sc *c, const struct rg_conn *k, uint32_t comm, uint32_t psn_a,
                      uint32_t psn_b, uint8_t pmtu_code)
{
    struct rg_cm m;
    memset(&m, 0, sizeof m);
    m.attr = RG_CM_REQ;
    m.tid = CM_TID_BASE | comm;
    m.local_comm_id = comm;
    m.local_qpn = k->qpn[RG_A];
    m.start_psn = psn_b; /* the PSN the passive side will start its requests at */
    m.pmtu_code = pmtu_code;
    m.transport = RG_CM_TS_RC;
    m.service_id = CM_SERVICE_ID;
    memcpy(m.local_gid, k->addr[RG_A], RG_ADDR_LEN);
    memcpy(m.remote_gid, k->addr[RG_B], RG_ADDR_LEN);
    cm_send(c, k, RG_A, &m);

    memset(&m, 0, sizeof m);
    m.attr = RG_CM_REP;
    m.tid = CM_TID_BASE | comm;
    m.local_comm_id = comm + 1;
    m.remote_comm_id = comm;
    m.local_qpn = k->qpn[RG_B];
    m.start_psn = psn_a; /* the PSN the active side will start its requests at */
    cm_send(c, k, RG_B, &m);

    memset(&m, 0, sizeof m);
    m.attr = RG_CM_RTU;
    m.tid = CM_TID_BASE | comm;
    m.local_comm_id = comm;
    m.remote_comm_id = comm + 1;
    cm_send(c, k, RG_A, &m);
}

void rg_sc_cm_disconnect(struct rg_sc *c, const struct rg_conn *k, uint32_t comm)
{
    struct rg_cm m;
    memset(&m, 0, sizeof m);
    m.attr = RG_CM_DREQ;
    m.tid = CM_TID_BASE | (comm + 2);
    m.local_comm_id = comm;
    m.remote_comm_id = comm + 1;
    m.local_qpn = k->qpn[RG_B];
    cm_send(c, k, RG_A, &m);

    memset(&m, 0, sizeof m);
    m.attr = RG_CM_DREP;
    m.tid = CM_TID_BASE | (comm + 2);
    m.local_comm_id = comm + 1;
    m.remote_comm_id = comm;
    cm_send(c, k, RG_B, &m);
}

void rg_sc_pfc(struct rg_sc *c, const uint8_t src[RG_MAC_LEN], unsigned prio, uint16_t quanta)
{
    uint16_t q[RG_PFC_PRIOS] = {0};
    uint8_t f[RG_MAX_FRAME];
    q[prio] = quanta;
    int n = rg_build_mac_control(RG_MACCTRL_PFC, 1u << prio, q, src, f, sizeof f);
    if (n < 0) {
        c->err = n;
        return;
    }
    rg_sc_raw(c, f, (size_t)n);
}
