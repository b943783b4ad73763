/*
 * rocegen_scen_ecn.c - ECN CE marks and CNPs; UC, XRC, UD and atomics.
 *
 * Frame numbers in the comments are the capture's (from 1); times are
 * microseconds after RG_SC_BASE_NS.
 */
#include "rocegen_scen.h"

#define HOST(n) (0x0A010000u | (n)) /* 10.1.0.n */
#define HOST_A  0xC0A8010Au         /* 192.168.1.10 */
#define HOST_B  0xC0A80114u         /* 192.168.1.20 */
#define QP_A    0x0000A1u
#define QP_B    0x0000B2u
#define COMM_ID 0x4D2A0001u

#define LEN_1024  1024u
#define LEN_4096  4096u
#define WRITE_16K 16384u
#define MSG_64    64u
#define MSG_256   256u
#define US(x)     ((int64_t)(x)*ROCE_NS_PER_US)
#define EDGE_NS   1 /* one nanosecond past the window */

/* A RoCEv2 request with a given ECN field. */
static uint64_t req_ecn(struct rg_sc *c, const struct rg_conn *k, uint8_t opcode, uint32_t psn,
                        uint32_t len, uint32_t dma_len, uint8_t ecn)
{
    struct rg_spec s;
    rg_conn_spec(k, RG_A, &s);
    s.opcode = opcode;
    s.psn = psn;
    s.payload_len = len;
    s.payload_fill = (uint8_t)psn;
    s.ecn = ecn;
    s.ackreq = opcode == RG_OP_RC_WRITE_LAST || opcode == RG_OP_RC_WRITE_ONLY;
    s.reth_dma_len = dma_len;
    return rg_sc_emit(c, &s);
}

/* CE marks and CNPs on four connections; see captures/README.md. */
void rg_scen_ecn_cnp(struct rg_sc *c)
{
    struct rg_spec base, s;
    struct rg_conn k1, k2, k3a, k3b, k4;
    const uint32_t p1 = 0x010000, p1b = 0x020000, p2 = 0x030000, p3 = 0x040000, p3b = 0x050000,
                   p4 = 0x060000;

    rg_sc_base(c, &base);
    /* 1: CM-paired, ACKs captured */
    rg_conn_init4(&k1, &base, HOST(1), HOST(2), QP_A, QP_B);
    rg_sc_cm_connect(c, &k1, COMM_ID, p1, p1b, RG_MTU_4096); /* 1-3 */
    rg_sc_at(c, US(10));
    req_ecn(c, &k1, RG_OP_RC_WRITE_FIRST, p1, LEN_4096, WRITE_16K, RG_ECN_ECT0); /* 4 @10 */
    req_ecn(c, &k1, RG_OP_RC_WRITE_MIDDLE, p1 + 1, LEN_4096, 0, RG_ECN_CE);      /* 5 @11 */
    req_ecn(c, &k1, RG_OP_RC_WRITE_MIDDLE, p1 + 2, LEN_4096, 0, RG_ECN_CE);      /* 6 @12 */
    req_ecn(c, &k1, RG_OP_RC_WRITE_LAST, p1 + 3, LEN_4096, 0, RG_ECN_CE);        /* 7 @13 */
    rg_sc_at(c, US(15));
    rg_conn_spec(&k1, RG_B, &s); /* 8 @15: ACK, itself CE-marked: not a CE mark (response) */
    s.opcode = RG_OP_RC_ACK;
    s.psn = p1 + 3;
    s.aeth_syndrome = rg_aeth_ack(RG_AETH_CREDITS_INVALID);
    s.aeth_msn = 1;
    s.ecn = RG_ECN_CE;
    rg_sc_emit(c, &s);
    rg_sc_at(c, US(35));
    rg_sc_cnp(c, &k1, RG_B); /* 9 @35 */
    rg_sc_at(c, US(60));
    req_ecn(c, &k1, RG_OP_RC_WRITE_ONLY, p1 + 4, LEN_1024, LEN_1024, RG_ECN_CE); /* 10 @60 */
    rg_sc_ack(c, &k1, RG_B, p1 + 4, 2);                                          /* 11 @61 */
    rg_sc_at(c, US(500));
    req_ecn(c, &k1, RG_OP_RC_WRITE_ONLY, p1 + 5, LEN_1024, LEN_1024, RG_ECN_CE); /* 12 @500 */
    rg_sc_at(c, US(502));
    rg_sc_ack(c, &k1, RG_B, p1 + 5, 3); /* 13 @502 */
    rg_sc_at(c, US(1000));
    rg_sc_cnp(c, &k1, RG_B);                                                       /* 14 @1000 */
    req_ecn(c, &k1, RG_OP_RC_WRITE_ONLY, p1 + 6, LEN_1024, LEN_1024, RG_ECN_ECT0); /* 15 @1001 */
    rg_sc_at(c, US(1003));
    rg_sc_ack(c, &k1, RG_B, p1 + 6, 4); /* 16 @1003 */

    /* 2: no responses captured: the CNP finds the connection by the fallback */
    rg_conn_init4(&k2, &base, HOST(3), HOST(4), QP_A + 2, QP_B + 2);
    rg_sc_at(c, US(2000));
    req_ecn(c, &k2, RG_OP_RC_WRITE_ONLY, p2, LEN_1024, LEN_1024, RG_ECN_CE);       /* 17 @2000 */
    req_ecn(c, &k2, RG_OP_RC_WRITE_ONLY, p2 + 1, LEN_1024, LEN_1024, RG_ECN_CE);   /* 18 @2001 */
    req_ecn(c, &k2, RG_OP_RC_WRITE_ONLY, p2 + 2, LEN_1024, LEN_1024, RG_ECN_ECT0); /* 19 @2002 */
    rg_sc_at(c, US(2040));
    rg_sc_cnp(c, &k2, RG_B); /* 20 @2040 */
    rg_sc_at(c, US(2100));
    req_ecn(c, &k2, RG_OP_RC_WRITE_ONLY, p2 + 3, LEN_1024, LEN_1024, RG_ECN_ECT0); /* 21 @2100 */

    /* 3: two QPs between the same hosts, no responses: the fallback is ambiguous */
    rg_conn_init4(&k3a, &base, HOST(5), HOST(6), QP_A + 4, QP_B + 4);
    rg_conn_init4(&k3b, &base, HOST(5), HOST(6), QP_A + 6, QP_B + 6);
    rg_sc_at(c, US(3000));
    req_ecn(c, &k3a, RG_OP_RC_WRITE_ONLY, p3, LEN_1024, LEN_1024, RG_ECN_CE);  /* 22 @3000 */
    req_ecn(c, &k3b, RG_OP_RC_WRITE_ONLY, p3b, LEN_1024, LEN_1024, RG_ECN_CE); /* 23 @3001 */
    rg_sc_at(c, US(3030));
    rg_sc_cnp(c, &k3a, RG_B); /* 24 @3030 */
    rg_sc_at(c, US(3200));
    req_ecn(c, &k3a, RG_OP_RC_WRITE_ONLY, p3 + 1, LEN_1024, LEN_1024, RG_ECN_ECT0); /* 25 @3200 */

    /* 4: the window's edges (100 us, inclusive) */
    rg_conn_init4(&k4, &base, HOST(7), HOST(8), QP_A + 8, QP_B + 8);
    rg_sc_at(c, US(4000));
    req_ecn(c, &k4, RG_OP_RC_WRITE_ONLY, p4, LEN_1024, LEN_1024, RG_ECN_CE); /* 26 @4000 */
    rg_sc_at(c, US(4100));
    rg_sc_cnp(c, &k4, RG_B); /* 27 @4100 */
    rg_sc_at(c, US(4200));
    req_ecn(c, &k4, RG_OP_RC_WRITE_ONLY, p4 + 1, LEN_1024, LEN_1024, RG_ECN_CE); /* 28 @4200 */
    rg_sc_at(c, US(4300) + EDGE_NS);
    rg_sc_cnp(c, &k4, RG_B); /* 29 @4300.001 */
}

/* A CNP and the ACK that pairs its connection, at the same moment, in the
 * order asked (CNP first when cnp_first). */
static void cnp_and_ack(struct rg_sc *c, const struct rg_conn *k, uint32_t psn, uint32_t msn,
                        int cnp_first)
{
    if (cnp_first)
        rg_sc_cnp(c, k, RG_B);
    else
        rg_sc_ack(c, k, RG_B, psn, msn);
    rg_sc_again(c);
    if (cnp_first)
        rg_sc_ack(c, k, RG_B, psn, msn);
    else
        rg_sc_cnp(c, k, RG_B);
}

/* CNPs sent before (or after) the first ACK of their connection, no CM; see
 * captures/README.md, cnp_before_pairing.pcap. */
static void cnp_pairing(struct rg_sc *c, int cnp_first)
{
    struct rg_spec base;
    struct rg_conn k1, k2, k3;
    const uint32_t p1 = 0x001000, p2 = 0x002000, p3 = 0x003000;

    rg_sc_base(c, &base);
    /* two connections between the same hosts: the CNP fallback cannot choose */
    rg_conn_init4(&k1, &base, HOST(0x101), HOST(0x102), QP_A, QP_B);
    rg_conn_init4(&k2, &base, HOST(0x101), HOST(0x102), QP_A + 1, QP_B + 1);
    req_ecn(c, &k1, RG_OP_RC_WRITE_ONLY, p1, LEN_1024, LEN_1024, RG_ECN_ECT0); /* 1 @0 */
    req_ecn(c, &k2, RG_OP_RC_WRITE_ONLY, p2, LEN_1024, LEN_1024, RG_ECN_ECT0); /* 2 @1 */
    rg_sc_at(c, US(10));
    req_ecn(c, &k1, RG_OP_RC_WRITE_ONLY, p1 + 1, LEN_1024, LEN_1024, RG_ECN_CE); /* 3 @10 */
    req_ecn(c, &k1, RG_OP_RC_WRITE_ONLY, p1 + 2, LEN_1024, LEN_1024, RG_ECN_CE); /* 4 @11 */
    rg_sc_at(c, US(16));
    cnp_and_ack(c, &k1, p1 + 2, 3, cnp_first); /* 5, 6 @16 */
    rg_sc_at(c, US(20));
    req_ecn(c, &k1, RG_OP_RC_WRITE_ONLY, p1 + 3, LEN_1024, LEN_1024, RG_ECN_CE); /* 7 @20 */
    rg_sc_ack(c, &k1, RG_B, p1 + 3, 4);                                          /* 8 @21 */
    rg_sc_at(c, US(30));
    req_ecn(c, &k2, RG_OP_RC_WRITE_ONLY, p2 + 1, LEN_1024, LEN_1024, RG_ECN_CE); /* 9 @30 */
    rg_sc_at(c, US(40));
    rg_sc_cnp(c, &k2, RG_B); /* 10 @40: its connection is paired too late */
    rg_sc_at(c, US(160));
    rg_sc_ack(c, &k2, RG_B, p2 + 1, 2); /* 11 @160 */

    /* one connection: the CNP fallback could choose, the ACK pairs first */
    rg_conn_init4(&k3, &base, HOST(0x103), HOST(0x104), QP_A + 2, QP_B + 2);
    rg_sc_at(c, US(300));
    req_ecn(c, &k3, RG_OP_RC_WRITE_ONLY, p3, LEN_1024, LEN_1024, RG_ECN_CE); /* 12 @300 */
    rg_sc_at(c, US(305));
    cnp_and_ack(c, &k3, p3, 1, cnp_first); /* 13, 14 @305 */
}

void rg_scen_cnp_before_pairing(struct rg_sc *c)
{
    cnp_pairing(c, 1);
}

void rg_scen_cnp_after_pairing(struct rg_sc *c)
{
    cnp_pairing(c, 0);
}

/* UC: gaps only; a late (reordered) old PSN is no verdict. */
void rg_scen_uc(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t p = 0x003000;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_req(c, &k, RG_A, RG_OP_UC_SEND_ONLY, p, MSG_256);                        /* 1 */
    rg_sc_req(c, &k, RG_A, RG_OP_UC_SEND_ONLY, p + 1, MSG_256);                    /* 2 */
    rg_sc_req(c, &k, RG_A, RG_OP_UC_SEND_ONLY, p + 4, MSG_256);                    /* 3: gap 2 */
    rg_sc_req(c, &k, RG_A, RG_OP_UC_SEND_ONLY, p + 5, MSG_256);                    /* 4 */
    rg_sc_req(c, &k, RG_A, RG_OP_UC_SEND_ONLY, p + 2, MSG_256);                    /* 5: late */
    rg_sc_write(c, &k, RG_A, RG_OP_UC_WRITE_FIRST, p + 6, LEN_1024, 2 * LEN_1024); /* 6 */
    rg_sc_req(c, &k, RG_A, RG_OP_UC_WRITE_LAST, p + 7, LEN_1024);                  /* 7 */
    rg_sc_write(c, &k, RG_A, RG_OP_UC_WRITE_ONLY, p + 9, MSG_64, MSG_64);          /* 8: gap 1 */
}

#define XRC_SRQN 0x000321u

/* An XRC request with an XRCETH. */
static uint64_t xrc_req(struct rg_sc *c, const struct rg_conn *k, uint8_t opcode, uint32_t psn,
                        uint32_t len)
{
    struct rg_spec s;
    rg_conn_spec(k, RG_A, &s);
    s.opcode = opcode;
    s.psn = psn;
    s.payload_len = len;
    s.ackreq = 1;
    s.xrceth_srqn = XRC_SRQN;
    s.reth_dma_len = len;
    return rg_sc_emit(c, &s);
}

/* XRC: a gap, a NAK and a go-back-N resend, as on RC. */
void rg_scen_xrc(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t p = 0x00C000;
    const uint8_t ok = rg_aeth_ack(RG_AETH_CREDITS_INVALID);

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    xrc_req(c, &k, RG_OP_XRC_SEND_ONLY, p, MSG_256);                                      /* 1 */
    xrc_req(c, &k, RG_OP_XRC_SEND_ONLY, p + 1, MSG_256);                                  /* 2 */
    xrc_req(c, &k, RG_OP_XRC_SEND_ONLY, p + 3, MSG_256);                                  /* 3 */
    rg_sc_resp(c, &k, RG_B, RG_OP_XRC_ACK, p + 2, 0, rg_aeth_nak(RG_NAK_PSN_SEQ_ERR), 2); /* 4 */
    xrc_req(c, &k, RG_OP_XRC_SEND_ONLY, p + 2, MSG_256);                                  /* 5 */
    xrc_req(c, &k, RG_OP_XRC_SEND_ONLY, p + 3, MSG_256);                                  /* 6 */
    rg_sc_resp(c, &k, RG_B, RG_OP_XRC_ACK, p + 3, 0, ok, 4);                              /* 7 */
    xrc_req(c, &k, RG_OP_XRC_WRITE_ONLY, p + 4, MSG_64);                                  /* 8 */
    rg_sc_resp(c, &k, RG_B, RG_OP_XRC_ACK, p + 4, 0, ok, 5);                              /* 9 */
}

#define UD_QP_A         0x000123u
#define UD_QP_B         0x000321u
#define UD_QKEY         0x11111111u
#define ATOMIC_VA       0x00007F0000200000ULL
#define ATOMIC_RKEY     0x00005678u
#define ATOMIC_OLD      41u
#define ATOMIC_SWAP     100u
#define INV_RKEY        0x00009ABCu
#define IMM_VALUE       0xC0FFEE00u
#define ATOMIC_RETRY_NS (8 * ROCE_NS_PER_MS)

/* A UD SEND (Only or Only with Immediate) from `from`. */
static void ud_send(struct rg_sc *c, const struct rg_conn *k, enum rg_side from, uint8_t opcode,
                    uint32_t psn)
{
    struct rg_spec s;
    rg_conn_spec(k, from, &s);
    s.opcode = opcode;
    s.psn = psn;
    s.payload_len = MSG_256;
    s.deth_qkey = UD_QKEY;
    s.deth_srcqp = k->qpn[from];
    s.immdt = IMM_VALUE;
    rg_sc_emit(c, &s);
}

/* An atomic request (FetchAdd or CmpSwap) or its ATOMIC ACKNOWLEDGE. */
static void atomic(struct rg_sc *c, const struct rg_conn *k, enum rg_side from, uint8_t opcode,
                   uint32_t psn, uint64_t swap_add, uint64_t cmp_orig, uint32_t msn)
{
    struct rg_spec s;
    rg_conn_spec(k, from, &s);
    s.opcode = opcode;
    s.psn = psn;
    s.ackreq = 1;
    s.atomic_va = ATOMIC_VA;
    s.atomic_rkey = ATOMIC_RKEY;
    s.atomic_swap_add = swap_add;
    s.atomic_cmp = cmp_orig;
    s.aeth_syndrome = rg_aeth_ack(RG_AETH_CREDITS_INVALID);
    s.aeth_msn = msn;
    s.atomicack_orig = cmp_orig;
    rg_sc_emit(c, &s);
}

/* UD SENDs (not sequence-checked) and RC atomics, SEND with Invalidate,
 * WRITE with Immediate; an atomic resent after its ATOMIC ACK was lost. */
void rg_scen_ud_atomic(struct rg_sc *c)
{
    struct rg_spec base, s;
    struct rg_conn ud, k;
    const uint32_t p = 0x000200;

    rg_sc_base(c, &base);
    rg_conn_init4(&ud, &base, HOST_A, HOST_B, UD_QP_A, UD_QP_B);
    ud_send(c, &ud, RG_A, RG_OP_UD_SEND_ONLY, 0x000010);     /* 1 */
    ud_send(c, &ud, RG_A, RG_OP_UD_SEND_ONLY, 0x000011);     /* 2 */
    ud_send(c, &ud, RG_A, RG_OP_UD_SEND_ONLY_IMM, 0x000015); /* 3: jump */
    ud_send(c, &ud, RG_A, RG_OP_UD_SEND_ONLY, 0x000012);     /* 4: back */
    ud_send(c, &ud, RG_B, RG_OP_UD_SEND_ONLY, 0x000500);     /* 5 */

    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    atomic(c, &k, RG_A, RG_OP_RC_FETCH_ADD, p, 1, 0, 0);                           /* 6 */
    atomic(c, &k, RG_B, RG_OP_RC_ATOMIC_ACK, p, 0, ATOMIC_OLD, 1);                 /* 7 */
    atomic(c, &k, RG_A, RG_OP_RC_CMP_SWAP, p + 1, ATOMIC_SWAP, ATOMIC_OLD + 1, 0); /* 8 */
    atomic(c, &k, RG_B, RG_OP_RC_ATOMIC_ACK, p + 1, 0, ATOMIC_OLD + 1, 2);         /* 9 */
    rg_conn_spec(&k, RG_A, &s);                                                    /* 10 */
    s.opcode = RG_OP_RC_SEND_ONLY_INV;
    s.psn = p + 2;
    s.payload_len = MSG_64;
    s.ieth_rkey = INV_RKEY;
    rg_sc_emit(c, &s);
    rg_conn_spec(&k, RG_A, &s); /* 11 */
    s.opcode = RG_OP_RC_WRITE_ONLY_IMM;
    s.psn = p + 3;
    s.ackreq = 1;
    s.payload_len = MSG_64;
    s.reth_va = ATOMIC_VA;
    s.reth_rkey = ATOMIC_RKEY;
    s.reth_dma_len = MSG_64;
    s.immdt = IMM_VALUE;
    rg_sc_emit(c, &s);
    rg_sc_ack(c, &k, RG_B, p + 3, 4);                        /* 12 */
    atomic(c, &k, RG_A, RG_OP_RC_FETCH_ADD, p + 4, 1, 0, 0); /* 13 */
    rg_sc_wait(c, ATOMIC_RETRY_NS);
    atomic(c, &k, RG_A, RG_OP_RC_FETCH_ADD, p + 4, 1, 0, 0);               /* 14 */
    atomic(c, &k, RG_B, RG_OP_RC_ATOMIC_ACK, p + 4, 0, ATOMIC_OLD + 2, 5); /* 15 */
}
