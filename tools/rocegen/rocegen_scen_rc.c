/*
 * rocegen_scen_rc.c - RC scenarios: a clean connection, losses seen at the
 * sender and at the receiver, a timeout, an RNR NAK, the NAK codes.
 *
 * Frame numbers in the comments are the capture's (from 1); captures/README.md
 * lists the verdicts each frame must get.
 */
#include "rocegen_scen.h"

#define HOST_A  0xC0A8010Au /* 192.168.1.10 */
#define HOST_B  0xC0A80114u /* 192.168.1.20 */
#define QP_A    0x0000A1u
#define QP_B    0x0000B2u
#define QP_STEP 2u /* nak_codes: one connection per code */
#define COMM_ID 0x4D2A0001u

#define PMTU_1024       1024u
#define PMTU_4096       4096u
#define SMALL_MSG       64u
#define MSG_256         256u
#define MSG_512         512u
#define IMM_TAIL        100u
#define B_SEND_LEN      200u
#define WRITE_ONLY_LEN  300u
#define LEN_1024        1024u
#define WRITE_2560      2560u
#define READ_3072       3072u
#define RESEND_DELAY_NS (3 * ROCE_NS_PER_US)
#define ACK_TIMEOUT_NS                                                                             \
    (16 * ROCE_NS_PER_MS)        /* local ACK timeout 14: 4.096 us * 2^14 = 67 ms; shorter here */
#define RNR_TIMER_CODE     14u /* 1.28 ms */
#define RNR_WAIT_NS        (1280 * ROCE_NS_PER_US)
#define DISCONNECT_WAIT_NS (50 * ROCE_NS_PER_US)
#define NAK_RESERVED_CODE  5u
#define NAK_PSN_STEP       0x100u

/* CM-connected RC between A and B: SEND, multi-packet WRITE, a 3-packet
 * READ, a 2-packet SEND with immediate, a SEND from B, WRITE Only, then
 * DREQ/DREP. No verdicts. */
void rg_scen_clean_rc(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t pa = 0x001000, pb = 0x00A000;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_cm_connect(c, &k, COMM_ID, pa, pb, RG_MTU_1024);                          /* 1-3 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, pa, SMALL_MSG);                      /* 4 */
    rg_sc_ack(c, &k, RG_B, pa, 1);                                                  /* 5 */
    rg_sc_write(c, &k, RG_A, RG_OP_RC_WRITE_FIRST, pa + 1, LEN_1024, WRITE_2560);   /* 6 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_WRITE_MIDDLE, pa + 2, LEN_1024);                /* 7 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_WRITE_LAST, pa + 3, WRITE_2560 - 2 * LEN_1024); /* 8 */
    rg_sc_ack(c, &k, RG_B, pa + 3, 2);                                              /* 9 */
    rg_sc_read(c, &k, RG_A, pa + 4, READ_3072);                                     /* 10 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_FIRST, pa + 4, LEN_1024,
               rg_aeth_ack(RG_AETH_CREDITS_INVALID), 2);                        /* 11 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_MIDDLE, pa + 5, LEN_1024, 0, 0); /* 12 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_LAST, pa + 6, LEN_1024,
               rg_aeth_ack(RG_AETH_CREDITS_INVALID), 3);                                   /* 13 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_FIRST, pa + 7, LEN_1024);                         /* 14 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_LAST_IMM, pa + 8, IMM_TAIL);                      /* 15 */
    rg_sc_ack(c, &k, RG_B, pa + 8, 4);                                                     /* 16 */
    rg_sc_req(c, &k, RG_B, RG_OP_RC_SEND_ONLY, pb, B_SEND_LEN);                            /* 17 */
    rg_sc_ack(c, &k, RG_A, pb, 1);                                                         /* 18 */
    rg_sc_write(c, &k, RG_A, RG_OP_RC_WRITE_ONLY, pa + 9, WRITE_ONLY_LEN, WRITE_ONLY_LEN); /* 19 */
    rg_sc_ack(c, &k, RG_B, pa + 9, 5);                                                     /* 20 */
    rg_sc_wait(c, DISCONNECT_WAIT_NS);
    rg_sc_cm_disconnect(c, &k, COMM_ID); /* 21-22 */
}

/* Captured at the sender A: PSN 0x000103 leaves A (frame 4) and is lost
 * after the capture point; B ACKs 0x000102, NAKs 0x000103, A goes back. */
void rg_scen_loss_sender(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t p = 0x000100;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    for (uint32_t i = 0; i < 5; i++) /* 1-5: 0x000100..0x000104 */
        rg_sc_write(c, &k, RG_A, RG_OP_RC_WRITE_ONLY, p + i, LEN_1024, LEN_1024);
    rg_sc_ack(c, &k, RG_B, p + 2, 3);                                         /* 6 */
    rg_sc_write(c, &k, RG_A, RG_OP_RC_WRITE_ONLY, p + 5, LEN_1024, LEN_1024); /* 7 */
    rg_sc_nak(c, &k, RG_B, p + 3, 3);                                         /* 8 */
    rg_sc_wait(c, RESEND_DELAY_NS);
    for (uint32_t i = 3; i < 6; i++) /* 9-11: resend 0x000103..0x000105 */
        rg_sc_write(c, &k, RG_A, RG_OP_RC_WRITE_ONLY, p + i, LEN_1024, LEN_1024);
    rg_sc_write(c, &k, RG_A, RG_OP_RC_WRITE_ONLY, p + 6, LEN_1024, LEN_1024); /* 12 */
    rg_sc_ack(c, &k, RG_B, p + 6, 7);                                         /* 13 */
}

/* Captured at the receiver B, CM-connected: 0x002002 and 0x002003 are lost
 * before the capture point (gap), B NAKs 0x002002, A resends from there.
 * Then B's own first request 0x00B000 is lost too: the gap is measured from
 * the CM starting PSN. */
void rg_scen_loss_receiver(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t pa = 0x002000, pb = 0x00B000;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_cm_connect(c, &k, COMM_ID, pa, pb, RG_MTU_4096);       /* 1-3 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, pa, MSG_512);     /* 4 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, pa + 1, MSG_512); /* 5 */
    rg_sc_ack(c, &k, RG_B, pa + 1, 2);                           /* 6 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, pa + 4, MSG_512); /* 7: gap, 2 missing */
    rg_sc_nak(c, &k, RG_B, pa + 2, 2);                           /* 8 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, pa + 5, MSG_512); /* 9: in flight */
    rg_sc_wait(c, RESEND_DELAY_NS);
    for (uint32_t i = 2; i < 6; i++) /* 10-13: resend 0x002002..0x002005 */
        rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, pa + i, MSG_512);
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, pa + 6, MSG_512); /* 14 */
    rg_sc_ack(c, &k, RG_B, pa + 6, 7);                           /* 15 */
    rg_sc_req(c, &k, RG_B, RG_OP_RC_SEND_ONLY, pb + 1, MSG_256); /* 16: gap vs CM start */
    rg_sc_nak(c, &k, RG_A, pb, 0);                               /* 17 */
    rg_sc_wait(c, RESEND_DELAY_NS);
    rg_sc_req(c, &k, RG_B, RG_OP_RC_SEND_ONLY, pb, MSG_256);     /* 18 */
    rg_sc_req(c, &k, RG_B, RG_OP_RC_SEND_ONLY, pb + 1, MSG_256); /* 19 */
    rg_sc_ack(c, &k, RG_A, pb + 1, 2);                           /* 20 */
}

/* The ACK for 0x000302-0x000303 never comes: A resends after its ACK timeout.
 * Then a NAK that does not match the PSN A goes back to. */
void rg_scen_timeout(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t p = 0x000300;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    for (uint32_t i = 0; i < 4; i++) /* 1-4 */
        rg_sc_write(c, &k, RG_A, RG_OP_RC_WRITE_ONLY, p + i, LEN_1024, LEN_1024);
    rg_sc_ack(c, &k, RG_B, p + 1, 2); /* 5 */
    rg_sc_wait(c, ACK_TIMEOUT_NS);
    rg_sc_write(c, &k, RG_A, RG_OP_RC_WRITE_ONLY, p + 2, LEN_1024, LEN_1024); /* 6 */
    rg_sc_write(c, &k, RG_A, RG_OP_RC_WRITE_ONLY, p + 3, LEN_1024, LEN_1024); /* 7 */
    rg_sc_ack(c, &k, RG_B, p + 3, 4);                                         /* 8 */
    rg_sc_write(c, &k, RG_A, RG_OP_RC_WRITE_ONLY, p + 4, LEN_1024, LEN_1024); /* 9 */
    rg_sc_ack(c, &k, RG_B, p + 4, 5);                                         /* 10 */
    /* 0x000306 is lost after the capture point; B's NAK for it is lost on the
     * way back; A times out on 0x000305 (not yet ACKed) and goes back there:
     * the NAK's PSN is not the episode's first PSN, so the trigger is timeout. */
    for (uint32_t i = 5; i < 8; i++) /* 11-13: 0x000305..0x000307 */
        rg_sc_write(c, &k, RG_A, RG_OP_RC_WRITE_ONLY, p + i, LEN_1024, LEN_1024);
    rg_sc_nak(c, &k, RG_B, p + 6, 6); /* 14 */
    rg_sc_wait(c, ACK_TIMEOUT_NS);
    for (uint32_t i = 5; i < 8; i++) /* 15-17: 0x000305..0x000307 again */
        rg_sc_write(c, &k, RG_A, RG_OP_RC_WRITE_ONLY, p + i, LEN_1024, LEN_1024);
    rg_sc_ack(c, &k, RG_B, p + 7, 8); /* 18 */
}

/* B has no receive buffer: RNR NAK (timer 14, 1.28 ms), A resends after it. */
void rg_scen_rnr(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t p = 0x000400;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p, MSG_256);                      /* 1 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 1, MSG_256);                  /* 2 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_ACK, p, 0, rg_aeth_rnr(RNR_TIMER_CODE), 0); /* 3 */
    rg_sc_wait(c, RNR_WAIT_NS);
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p, MSG_256);     /* 4 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 1, MSG_256); /* 5 */
    rg_sc_ack(c, &k, RG_B, p + 1, 2);                           /* 6 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 2, MSG_256); /* 7 */
    rg_sc_ack(c, &k, RG_B, p + 2, 3);                           /* 8 */
}

/* Six connections between the same hosts, each request answered by a NAK
 * of another code (or an AETH of the reserved type 10). */
void rg_scen_nak_codes(struct rg_sc *c)
{
    const uint8_t syndromes[] = {
        rg_aeth_nak(RG_NAK_REMOTE_ACCESS),
        rg_aeth_nak(RG_NAK_INVALID_REQ),
        rg_aeth_nak(RG_NAK_REMOTE_OP),
        rg_aeth_nak(RG_NAK_INVALID_RD),
        rg_aeth_nak(NAK_RESERVED_CODE),
        (uint8_t)(RG_AETH_TYPE_RESERVED << RG_AETH_TYPE_SHIFT | RG_AETH_CREDITS_INVALID),
    };
    struct rg_spec base;
    rg_sc_base(c, &base);
    for (uint32_t i = 0; i < sizeof syndromes; i++) {
        struct rg_conn k;
        uint32_t psn = 0x000500 + i * NAK_PSN_STEP;
        rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A + i * QP_STEP, QP_B + i * QP_STEP);
        if (i == 0)
            rg_sc_write(c, &k, RG_A, RG_OP_RC_WRITE_ONLY, psn, SMALL_MSG, SMALL_MSG);
        else
            rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, psn, SMALL_MSG);
        rg_sc_resp(c, &k, RG_B, RG_OP_RC_ACK, psn, 0, syndromes[i], 0);
    }
}
