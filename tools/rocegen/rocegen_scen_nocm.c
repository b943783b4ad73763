/*
 * rocegen_scen_nocm.c - scenarios without CM: the flows pair by PSN (or by
 * CNP), so every verdict rests on the BTH and its extension headers alone.
 * Cut to a header-only snaplen (64 bytes for loss_nocm, 96 for read_nocm and
 * ecn_nocm), they must give the same analysis as whole: the golden test
 * checks that (tests/integration/golden.py), which it cannot do on the
 * captures whose CM MADs need 137 bytes.
 *
 * Frame numbers in the comments are the capture's (from 1); times are
 * microseconds after RG_SC_BASE_NS. captures/README.md describes each frame.
 */
#include "rocegen_scen.h"

#define HOST_A  0xC0A8010Au         /* 192.168.1.10 */
#define HOST_B  0xC0A80114u         /* 192.168.1.20 */
#define HOST(n) (0x0A020000u | (n)) /* 10.2.0.n */
#define QP_A    0x0000A1u
#define QP_B    0x0000B2u
#define QP_A2   0x0000A3u
#define QP_B2   0x0000B4u

#define MSG_64           64u
#define MSG_512          512u
#define LEN_1024         1024u
#define READ_2048        2048u
#define READ_3072        3072u
#define ACK_OK           0x1Fu /* ACK, credits invalid */
#define RNR_TIMER_CODE   14u   /* 1.28 ms */
#define RNR_WAIT_NS      (1280 * ROCE_NS_PER_US)
#define RESEND_DELAY_NS  (3 * ROCE_NS_PER_US)
#define ACK_TIMEOUT_NS   (500 * ROCE_NS_PER_US)
#define REISSUE_DELAY_NS (2 * ROCE_NS_PER_US)
#define US(x)            ((int64_t)(x)*ROCE_NS_PER_US)

/* Captured at the receiver B; A's PSNs cross 0xFFFFFF -> 0. A gap of two
 * PSNs across the wrap answered by a NAK and a go-back-N, an RNR NAK and its
 * resend, then a resend after an ACK timeout. */
void rg_scen_loss_nocm(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t p = 0xFFFFFD;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p, MSG_512);     /* 1 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 1, MSG_512); /* 2 */
    rg_sc_ack(c, &k, RG_B, p + 1, 2);                           /* 3: pairs by PSN */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, (p + 4) & RG_PSN_MASK, MSG_512); /* 4: gap 2 */
    rg_sc_nak(c, &k, RG_B, p + 2, 2);                                           /* 5 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, (p + 5) & RG_PSN_MASK, MSG_512); /* 6 */
    rg_sc_wait(c, RESEND_DELAY_NS);
    for (uint32_t i = 2; i < 6; i++) /* 7-10: resend 0xFFFFFF..0x000002 */
        rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, (p + i) & RG_PSN_MASK, MSG_512);
    rg_sc_ack(c, &k, RG_B, (p + 5) & RG_PSN_MASK, 6);                           /* 11 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, (p + 6) & RG_PSN_MASK, MSG_512); /* 12 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_ACK, (p + 6) & RG_PSN_MASK, 0, rg_aeth_rnr(RNR_TIMER_CODE),
               6); /* 13: RNR NAK */
    rg_sc_wait(c, RNR_WAIT_NS);
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, (p + 6) & RG_PSN_MASK, MSG_512); /* 14 */
    rg_sc_ack(c, &k, RG_B, (p + 6) & RG_PSN_MASK, 7);                           /* 15 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, (p + 7) & RG_PSN_MASK, MSG_512); /* 16 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, (p + 8) & RG_PSN_MASK, MSG_512); /* 17 */
    rg_sc_wait(c, ACK_TIMEOUT_NS);
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, (p + 7) & RG_PSN_MASK, MSG_512); /* 18 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, (p + 8) & RG_PSN_MASK, MSG_512); /* 19 */
    rg_sc_ack(c, &k, RG_B, (p + 8) & RG_PSN_MASK, 9);                           /* 20 */
}

/* Captured at the requester A: a READ whose middle response is lost before
 * the capture point, re-issued from the missing PSN (trigger implied); then
 * a READ of three PSNs whose last PSN the next SEND reuses. */
void rg_scen_read_nocm(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t p = 0x000100;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p, MSG_64);                         /* 1 */
    rg_sc_ack(c, &k, RG_B, p, 1);                                                  /* 2 */
    rg_sc_read(c, &k, RG_A, p + 1, READ_3072);                                     /* 3 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_FIRST, p + 1, LEN_1024, ACK_OK, 1); /* 4 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_LAST, p + 3, LEN_1024, ACK_OK, 2);  /* 5 */
    rg_sc_wait(c, REISSUE_DELAY_NS);
    rg_sc_read(c, &k, RG_A, p + 2, READ_2048);                                     /* 6 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_FIRST, p + 2, LEN_1024, ACK_OK, 2); /* 7 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_LAST, p + 3, LEN_1024, ACK_OK, 3);  /* 8 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 4, MSG_64);                     /* 9 */
    rg_sc_ack(c, &k, RG_B, p + 4, 4);                                              /* 10 */
    rg_sc_read(c, &k, RG_A, p + 5, READ_3072);                                     /* 11 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_FIRST, p + 5, LEN_1024, ACK_OK, 4); /* 12 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_MIDDLE, p + 6, LEN_1024, 0, 0);     /* 13 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_LAST, p + 7, LEN_1024, ACK_OK, 5);  /* 14 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 7, MSG_64);                     /* 15 */
}

/* A SEND Only with a given IP ECN field. */
static void send_ecn(struct rg_sc *c, const struct rg_conn *k, uint32_t psn, uint8_t ecn)
{
    struct rg_spec s;
    rg_sc_send_spec(k, RG_A, psn, MSG_64, &s);
    s.ecn = ecn;
    rg_sc_emit(c, &s);
}

/* CE marks and CNPs on two connections without CM, paired by PSN: one with
 * a CNP answering two marks, an unanswered mark, an unexplained CNP; one
 * whose CNP comes before any response (it waits for the pairing); an ECT(1)
 * packet, which is no CE mark. */
void rg_scen_ecn_nocm(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k1, k2;
    const uint32_t p1 = 0x001000, p2 = 0x002000;

    rg_sc_base(c, &base);
    rg_conn_init4(&k1, &base, HOST(1), HOST(2), QP_A, QP_B);
    rg_conn_init4(&k2, &base, HOST(3), HOST(4), QP_A2, QP_B2);
    send_ecn(c, &k1, p1, RG_ECN_ECT0); /* 1 @0 */
    rg_sc_ack(c, &k1, RG_B, p1, 1);    /* 2 @1: pairs by PSN */
    rg_sc_at(c, US(10));
    send_ecn(c, &k1, p1 + 1, RG_ECN_CE); /* 3 @10 */
    send_ecn(c, &k1, p1 + 2, RG_ECN_CE); /* 4 @11 */
    rg_sc_at(c, US(30));
    rg_sc_cnp(c, &k1, RG_B);            /* 5 @30 */
    rg_sc_ack(c, &k1, RG_B, p1 + 2, 3); /* 6 @31 */
    rg_sc_at(c, US(500));
    send_ecn(c, &k1, p1 + 3, RG_ECN_CE); /* 7 @500 */
    rg_sc_at(c, US(700));
    rg_sc_cnp(c, &k1, RG_B);            /* 8 @700 */
    rg_sc_ack(c, &k1, RG_B, p1 + 3, 4); /* 9 @701 */
    rg_sc_at(c, US(1000));
    send_ecn(c, &k2, p2, RG_ECN_CE); /* 10 @1000 */
    rg_sc_at(c, US(1050));
    rg_sc_cnp(c, &k2, RG_B);        /* 11 @1050: pairs by CNP */
    rg_sc_ack(c, &k2, RG_B, p2, 1); /* 12 @1051 */
    rg_sc_at(c, US(1100));
    send_ecn(c, &k2, p2 + 1, RG_ECN_ECT1); /* 13 @1100 */
    rg_sc_ack(c, &k2, RG_B, p2 + 1, 2);    /* 14 @1101 */
}
