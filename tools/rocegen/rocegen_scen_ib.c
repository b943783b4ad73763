/*
 * rocegen_scen_ib.c - native InfiniBand: an RC connection set up by CM with
 * a multi-packet WRITE, a READ, a loss recovered by go-back-N and an RNR
 * NAK; FECN marks and their answers (InfiniBand CNPs, BECN on ACKs);
 * global packets (GRH) with what the LRH may carry besides the transport
 * and packets with bad CRCs; a switch's mirror of InfiniBand packets.
 *
 * Frame numbers in the comments are the capture's (from 1); times are
 * microseconds after RG_SC_BASE_NS. captures/README.md says what each
 * frame must show.
 */
#include <string.h>

#include "rocegen_scen.h"

#define LID_A     0x0011u
#define LID_B     0x0022u
#define LID_C     0x0031u
#define LID_D     0x0032u
#define LID_E     0x0033u
#define LID_F     0x0034u
#define LID_SW    0x00FEu /* the mirroring switch */
#define LID_COLL  0x00FFu /* the port collecting its mirror */
#define QP_A      0x0000A1u
#define QP_B      0x0000B2u
#define QP_UD_A   0x000C01u
#define QP_UD_B   0x000C02u
#define COMM_ID   0x1B000001u
#define QKEY_UD   0x11111111u
#define SL_DATA   3u
#define VL_DATA   1u
#define TIMER_14  14u /* RNR timer code 14: 1.28 ms */
#define RNR_WAIT  (1280 * ROCE_NS_PER_US)
#define LEN_4096  4096u
#define WRITE_12K 12288u
#define READ_12K  12288u
#define MSG_64    64u
#define MSG_256   256u
#define RAW_LEN   60u
#define ACK_OK    0x1Fu
#define IPPROTO_UDP_NUM  17u
#define GRH_NEXT_UDP     0x11u /* a GRH whose next header is not the IBA transport */
#define VCRC_FLIP        0x0001u
#define ICRC_FLIP        0x00000001u
#define LVER_UNKNOWN     1u
#define PKTLEN_TOO_SHORT 10u /* words: less than LRH + GRH */
#define US(x)            ((int64_t)(x)*ROCE_NS_PER_US)

/* GID fe80::2:c903:0:n (a ConnectX port GUID under the default subnet prefix). */
static void gid(uint8_t out[RG_ADDR_LEN], uint16_t n)
{
    static const uint8_t base[RG_ADDR_LEN] = {0xFE, 0x80, 0, 0, 0, 0, 0, 0,
                                              0x00, 0x02, 0xC9, 0x03, 0, 0, 0, 0};
    memcpy(out, base, RG_ADDR_LEN);
    out[RG_ADDR_LEN - 2] = (uint8_t)(n >> 8);
    out[RG_ADDR_LEN - 1] = (uint8_t)n;
}

/* An RC request of k from A, with FECN as asked. */
static uint64_t req_fecn(struct rg_sc *c, const struct rg_conn *k, uint8_t opcode, uint32_t psn,
                         uint32_t len, int fecn)
{
    struct rg_spec s;
    rg_conn_spec(k, RG_A, &s);
    s.opcode = opcode;
    s.psn = psn;
    s.payload_len = len;
    s.payload_fill = (uint8_t)psn;
    s.ackreq = 1;
    s.reth_dma_len = len;
    s.fecn = (uint8_t)fecn;
    return rg_sc_emit(c, &s);
}

/* An ACK of k from B, with BECN as asked. */
static uint64_t ack_becn(struct rg_sc *c, const struct rg_conn *k, uint32_t psn, uint32_t msn,
                         int becn)
{
    struct rg_spec s;
    rg_conn_spec(k, RG_B, &s);
    s.opcode = RG_OP_RC_ACK;
    s.psn = psn;
    s.aeth_syndrome = rg_aeth_ack(RG_AETH_CREDITS_INVALID);
    s.aeth_msn = msn;
    s.becn = (uint8_t)becn;
    return rg_sc_emit(c, &s);
}

/* Captured at B's port, LIDs only: CM, a 3-packet WRITE, a 3-packet READ,
 * a SEND lost before the capture point (gap, NAK, go-back-N), an RNR NAK
 * and the resend after its timer, DREQ/DREP. */
void rg_scen_ib_rc(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t pa = 0x001000, pb = 0x002000;

    rg_sc_base(c, &base);
    base.ib_sl = SL_DATA;
    base.ib_vl = VL_DATA;
    rg_conn_init_ib(&k, &base, LID_A, LID_B, NULL, NULL, QP_A, QP_B);
    rg_sc_cm_connect(c, &k, COMM_ID, pa, pb, RG_MTU_4096);                           /* 1-3 */
    rg_sc_write(c, &k, RG_A, RG_OP_RC_WRITE_FIRST, pa, LEN_4096, WRITE_12K);         /* 4 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_WRITE_MIDDLE, pa + 1, LEN_4096);                 /* 5 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_WRITE_LAST, pa + 2, LEN_4096);                   /* 6 */
    rg_sc_ack(c, &k, RG_B, pa + 2, 1);                                               /* 7 */
    rg_sc_read(c, &k, RG_A, pa + 3, READ_12K);                                       /* 8 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_FIRST, pa + 3, LEN_4096, ACK_OK, 1);  /* 9 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_MIDDLE, pa + 4, LEN_4096, 0, 0);      /* 10 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_LAST, pa + 5, LEN_4096, ACK_OK, 2);   /* 11 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, pa + 6, MSG_256);                     /* 12 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, pa + 8, MSG_256); /* 13: pa + 7 lost */
    rg_sc_nak(c, &k, RG_B, pa + 7, 3);                                               /* 14 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, pa + 7, MSG_256);                     /* 15 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, pa + 8, MSG_256);                     /* 16 */
    rg_sc_ack(c, &k, RG_B, pa + 8, 5);                                               /* 17 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, pa + 9, MSG_256);                     /* 18 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_ACK, pa + 9, 0, rg_aeth_rnr(TIMER_14), 5);      /* 19 */
    rg_sc_wait(c, RNR_WAIT);
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, pa + 9, MSG_256); /* 20 */
    rg_sc_ack(c, &k, RG_B, pa + 9, 6);                           /* 21 */
    rg_sc_cm_disconnect(c, &k, COMM_ID);                         /* 22-23 */
}

/* FECN marks on an RC connection (paired by its ACKs) and a UD flow. */
void rg_scen_ib_congestion(struct rg_sc *c)
{
    struct rg_spec base, s;
    struct rg_conn k, u;
    const uint32_t p = 0x003000;

    rg_sc_base(c, &base);
    rg_conn_init_ib(&k, &base, LID_C, LID_D, NULL, NULL, QP_A, QP_B);
    rg_sc_at(c, US(10));
    req_fecn(c, &k, RG_OP_RC_WRITE_ONLY, p, LEN_4096, 1); /* 1 @10: FECN */
    ack_becn(c, &k, p, 1, 1);                             /* 2 @11: ACK with BECN answers it */
    rg_sc_at(c, US(20));
    req_fecn(c, &k, RG_OP_RC_WRITE_ONLY, p + 1, LEN_4096, 1); /* 3 @20: FECN */
    ack_becn(c, &k, p + 1, 2, 0);                             /* 4 @21 */
    rg_sc_at(c, US(45));
    rg_sc_cnp(c, &k, RG_B); /* 5 @45: InfiniBand CNP, 25 us after its mark */
    rg_sc_at(c, US(50));
    req_fecn(c, &k, RG_OP_RC_WRITE_ONLY, p + 2, LEN_4096, 0); /* 6 @50 */
    ack_becn(c, &k, p + 2, 3, 0);                             /* 7 @51 */
    rg_sc_at(c, US(300));
    req_fecn(c, &k, RG_OP_RC_WRITE_ONLY, p + 3, LEN_4096, 1); /* 8 @300: FECN, unanswered */
    req_fecn(c, &k, RG_OP_RC_WRITE_ONLY, p + 4, LEN_4096, 1); /* 9 @301: FECN, unanswered */
    req_fecn(c, &k, RG_OP_RC_WRITE_ONLY, p + 5, LEN_4096, 1); /* 10 @302: FECN, unanswered */
    ack_becn(c, &k, p + 5, 6, 0);                             /* 11 @303 */
    rg_sc_at(c, US(600));
    rg_sc_cnp(c, &k, RG_B); /* 12 @600: CNP with no mark to answer */

    /* UD: the CNP finds the only request flow the other way */
    rg_conn_init_ib(&u, &base, LID_E, LID_F, NULL, NULL, QP_UD_A, QP_UD_B);
    rg_sc_at(c, US(1000));
    rg_conn_spec(&u, RG_A, &s); /* 13 @1000: UD SEND Only with FECN */
    s.opcode = RG_OP_UD_SEND_ONLY;
    s.psn = 1;
    s.payload_len = MSG_256;
    s.deth_qkey = QKEY_UD;
    s.deth_srcqp = QP_UD_A;
    s.fecn = 1;
    rg_sc_emit(c, &s);
    rg_sc_at(c, US(1030));
    rg_sc_cnp(c, &u, RG_B); /* 14 @1030 */
}

/* Global packets (GRH with GIDs), as ibdump writes them (ERF records in
 * pcap), then what else the LRH may carry, malformed LRHs, bad CRCs. */
void rg_scen_ib_global(struct rg_sc *c)
{
    struct rg_spec base, s;
    struct rg_conn k;
    uint8_t ga[RG_ADDR_LEN], gb[RG_ADDR_LEN];
    const uint32_t q = 0x004000;

    rg_sc_base(c, &base);
    gid(ga, LID_A);
    gid(gb, LID_B);
    rg_conn_init_ib(&k, &base, LID_A, LID_B, ga, gb, QP_A, QP_B);
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, q, MSG_256); /* 1 */
    rg_sc_ack(c, &k, RG_B, q, 1);                           /* 2 */
    req_fecn(c, &k, RG_OP_RC_WRITE_ONLY, q + 1, LEN_4096, 1); /* 3: FECN */
    rg_sc_cnp(c, &k, RG_B);                                   /* 4: CNP, GIDs swapped */
    rg_sc_ack(c, &k, RG_B, q + 1, 2);                         /* 5 */

    rg_conn_spec(&k, RG_A, &s); /* 6: raw packet carrying an EtherType (IPv4) */
    s.kind = RG_KIND_IB_RAW;
    s.ib_ethertype = 0x0800u;
    s.payload_len = RAW_LEN;
    rg_sc_emit(c, &s);
    rg_conn_spec(&k, RG_A, &s); /* 7: LNH IP non-IBA transport: an IPv6 header */
    s.kind = RG_KIND_IB_IPV6;
    s.ip_proto = IPPROTO_UDP_NUM;
    s.payload_len = RAW_LEN;
    rg_sc_emit(c, &s);
    rg_conn_spec(&k, RG_A, &s); /* 8: a GRH whose next header is not the transport */
    s.opcode = RG_OP_RC_SEND_ONLY;
    s.psn = q + 2;
    s.grh_next_hdr = GRH_NEXT_UDP;
    rg_sc_emit(c, &s);

    rg_conn_spec(&k, RG_A, &s); /* 9: bad VCRC (ICRC good) */
    s.opcode = RG_OP_RC_SEND_ONLY;
    s.psn = q + 2;
    s.payload_len = MSG_64;
    s.ackreq = 1;
    s.vcrc_xor = VCRC_FLIP;
    rg_sc_emit(c, &s);
    rg_sc_ack(c, &k, RG_B, q + 2, 3); /* 10 */
    rg_conn_spec(&k, RG_A, &s);       /* 11: bad ICRC (VCRC good) */
    s.opcode = RG_OP_RC_SEND_ONLY;
    s.psn = q + 3;
    s.payload_len = MSG_64;
    s.ackreq = 1;
    s.icrc_xor = ICRC_FLIP;
    rg_sc_emit(c, &s);
    rg_sc_ack(c, &k, RG_B, q + 3, 4); /* 12 */
    rg_conn_spec(&k, RG_A, &s);       /* 13: LRH link version 1 */
    s.psn = q + 4;
    s.ib_lver = LVER_UNKNOWN;
    rg_sc_emit(c, &s);
    rg_conn_spec(&k, RG_A, &s); /* 14: packet length too short for the LRH and GRH */
    s.psn = q + 4;
    s.ib_pktlen = PKTLEN_TOO_SHORT;
    rg_sc_emit(c, &s);
}

/* A switch's mirror of an exchange, sent to a collector port in raw
 * packets (EtherType 0x1123), as ibdump captures it without --decap. */
void rg_scen_ib_mirror(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    struct rg_wrap w;
    const uint32_t p = 0x005000;

    rg_wrap_init(&w, RG_WRAP_IB_MIRROR, 0, 0);
    w.outer.slid = LID_SW;
    w.outer.dlid = LID_COLL;
    c->wrap = &w;
    rg_sc_base(c, &base);
    rg_conn_init_ib(&k, &base, LID_A, LID_B, NULL, NULL, QP_A, QP_B);
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p, MSG_256); /* 1 */
    rg_sc_ack(c, &k, RG_B, p, 1);                           /* 2 */
    rg_sc_at(c, US(10));
    req_fecn(c, &k, RG_OP_RC_WRITE_ONLY, p + 1, LEN_4096, 1); /* 3 @10: FECN */
    rg_sc_at(c, US(20));
    rg_sc_cnp(c, &k, RG_B);           /* 4 @20: CNP */
    rg_sc_ack(c, &k, RG_B, p + 1, 2); /* 5 @21 */
    c->wrap = NULL;
}
