/*
 * rocegen_scen_psn.c - PSN-space scenarios: a lost READ response, READ spans
 * with and without a known PMTU, PSN reuse after a READ, the 24-bit wrap,
 * and two CM connections reusing one QP pair.
 *
 * Frame numbers in the comments are the capture's (from 1).
 */
#include "rocegen_scen.h"

#define HOST_A   0xC0A8010Au /* 192.168.1.10 */
#define HOST_B   0xC0A80114u /* 192.168.1.20 */
#define HOST_C   0xC0A8B217u /* 192.168.178.23, as in the real stall capture */
#define HOST_D   0xC0A8B219u /* 192.168.178.25 */
#define QP_A     0x0000A1u
#define QP_B     0x0000B2u
#define QP_A2    0x0000A3u
#define QP_B2    0x0000B4u
#define QP_STALL 0x000019u /* both sides used QP 0x19 in the real capture */
#define COMM_1   0x4D2A0001u
#define COMM_2   0x4D2A0101u

#define LEN_1024          1024u
#define LEN_2048          2048u
#define MSG_16            16u
#define MSG_64            64u
#define MSG_256           256u
#define READ_2048         2048u
#define READ_2400         2400u
#define READ_3072         3072u
#define READ_4096         4096u
#define READ_8192         8192u
#define WRITE_4096        4096u
#define ACK_OK            0x1Fu     /* ACK, credits invalid */
#define PSN_ALL_ONES      0xFFFFFFu /* the stalled responder's ACK PSN */
#define REISSUE_DELAY_NS  (2 * ROCE_NS_PER_US)
#define MIRROR_DUP_NS     100
#define RESEND_DELAY_NS   (3 * ROCE_NS_PER_US)
#define RECONNECT_WAIT_NS (10 * ROCE_NS_PER_MS)

/* Captured at the requester A (no CM; PMTU learned from the responses):
 * READ response 0x000502 is lost, A re-issues the READ from there. Then a
 * READ response captured twice. */
void rg_scen_read_loss(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t p = 0x000500;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_read(c, &k, RG_A, p, READ_4096);                                        /* 1 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_FIRST, p, LEN_1024, ACK_OK, 0);    /* 2 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_MIDDLE, p + 1, LEN_1024, 0, 0);    /* 3 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_LAST, p + 3, LEN_1024, ACK_OK, 1); /* 4 */
    rg_sc_wait(c, REISSUE_DELAY_NS);
    rg_sc_read(c, &k, RG_A, p + 2, READ_4096 - 2 * LEN_1024);                      /* 5 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_FIRST, p + 2, LEN_1024, ACK_OK, 1); /* 6 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_LAST, p + 3, LEN_1024, ACK_OK, 1);  /* 7 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 4, MSG_64);                     /* 8 */
    rg_sc_ack(c, &k, RG_B, p + 4, 2);                                              /* 9 */
    /* a second READ whose last response the capture holds twice (a mirror duplicate) */
    rg_sc_read(c, &k, RG_A, p + 5, READ_2048);                                     /* 10 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_FIRST, p + 5, LEN_1024, ACK_OK, 2); /* 11 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_LAST, p + 6, LEN_1024, ACK_OK, 3);  /* 12 */
    c->ts -= RG_SC_STEP_NS - MIRROR_DUP_NS; /* the copy follows 100 ns later */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_LAST, p + 6, LEN_1024, ACK_OK, 3); /* 13 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 7, MSG_64);                    /* 14 */
    rg_sc_ack(c, &k, RG_B, p + 7, 4);                                             /* 15 */
}

/* Only A's direction is captured and no PMTU is known at first: the jump
 * after a READ is its span, not a gap. Later WRITE First/Last of 2048 bytes
 * set the PMTU to 2048, so the next READ's span is known in advance. */
void rg_scen_read_span(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t p = 0x000700;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_read(c, &k, RG_A, p, READ_8192);                                        /* 1 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 8, MSG_64);                    /* 2 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 9, MSG_64);                    /* 3 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 11, MSG_64);                   /* 4: gap 1 */
    rg_sc_write(c, &k, RG_A, RG_OP_RC_WRITE_FIRST, p + 12, LEN_2048, WRITE_4096); /* 5 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_WRITE_LAST, p + 13, LEN_2048);                /* 6 */
    rg_sc_read(c, &k, RG_A, p + 14, READ_8192);                                   /* 7: span 4 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 20, MSG_64);                   /* 8: gap 2 */
}

/* After a 3-packet READ (PSNs n..n+2) the requester's next SEND reuses n+2
 * (Soft-RoCE bug seen in sanderw71 Roce_PacketSize_2400_stall); the
 * responder answers with PSN 0xFFFFFF and the connection stalls. */
void rg_scen_psn_reuse(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t pa = 0x0F0000, pb = 0x72437F;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_C, HOST_D, QP_STALL, QP_STALL);
    rg_sc_cm_connect(c, &k, COMM_1, pa, pb, RG_MTU_1024);                       /* 1-3 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, pa, MSG_16);                     /* 4 */
    rg_sc_ack(c, &k, RG_B, pa, 1);                                              /* 5 */
    rg_sc_read(c, &k, RG_B, pb, READ_2400);                                     /* 6 */
    rg_sc_resp(c, &k, RG_A, RG_OP_RC_READ_RESP_FIRST, pb, LEN_1024, ACK_OK, 0); /* 7 */
    rg_sc_resp(c, &k, RG_A, RG_OP_RC_READ_RESP_MIDDLE, pb + 1, LEN_1024, 0, 0); /* 8 */
    rg_sc_resp(c, &k, RG_A, RG_OP_RC_READ_RESP_LAST, pb + 2, READ_2400 - 2 * LEN_1024, ACK_OK,
               1);                                              /* 9 */
    rg_sc_req(c, &k, RG_B, RG_OP_RC_SEND_ONLY, pb + 2, MSG_16); /* 10 */
    rg_sc_ack(c, &k, RG_A, PSN_ALL_ONES, 1);                    /* 11 */
}

/* PSNs cross 0xFFFFFF -> 0: a READ just before the wrap, a gap across it
 * (0xFFFFFF and 0x000000 lost before the capture point), NAK, resend. */
void rg_scen_psn_wrap(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t pa = 0xFFFFFA, pb = 0x000010;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_cm_connect(c, &k, COMM_1, pa, pb, RG_MTU_1024);                           /* 1-3 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, pa, MSG_64);                         /* 4 */
    rg_sc_read(c, &k, RG_A, pa + 1, READ_3072);                                     /* 5 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_FIRST, pa + 1, LEN_1024, ACK_OK, 1); /* 6 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_MIDDLE, pa + 2, LEN_1024, 0, 0);     /* 7 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_LAST, pa + 3, LEN_1024, ACK_OK, 2);  /* 8 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, pa + 4, MSG_64);                 /* 9: 0xFFFFFE */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, (pa + 7) & RG_PSN_MASK, MSG_64); /* 10: 0x000001 */
    rg_sc_nak(c, &k, RG_B, pa + 5, 3);                                          /* 11: 0xFFFFFF */
    rg_sc_wait(c, RESEND_DELAY_NS);
    for (uint32_t i = 5; i < 8; i++) /* 12-14: 0xFFFFFF, 0x000000, 0x000001 */
        rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, (pa + i) & RG_PSN_MASK, MSG_64);
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, (pa + 8) & RG_PSN_MASK, MSG_64); /* 15 */
    rg_sc_ack(c, &k, RG_B, (pa + 8) & RG_PSN_MASK, 7);                          /* 16 */
}

/* Two CM connections in a row on the same QP pair. The second starts A at a
 * lower PSN (a false retransmission without CM) and B at a higher one (a
 * false gap without CM). No verdicts. */
void rg_scen_cm_reuse(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t pa1 = 0x003000, pb1 = 0x005000, pa2 = 0x001000, pb2 = 0x007000;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_cm_connect(c, &k, COMM_1, pa1, pb1, RG_MTU_1024); /* 1-3 */
    for (uint32_t i = 0; i < 3; i++)                        /* 4-6 */
        rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, pa1 + i, MSG_256);
    rg_sc_ack(c, &k, RG_B, pa1 + 2, 3);                           /* 7 */
    rg_sc_req(c, &k, RG_B, RG_OP_RC_SEND_ONLY, pb1, MSG_256);     /* 8 */
    rg_sc_req(c, &k, RG_B, RG_OP_RC_SEND_ONLY, pb1 + 1, MSG_256); /* 9 */
    rg_sc_ack(c, &k, RG_A, pb1 + 1, 2);                           /* 10 */
    rg_sc_cm_disconnect(c, &k, COMM_1);                           /* 11-12 */
    rg_sc_wait(c, RECONNECT_WAIT_NS);
    rg_sc_cm_connect(c, &k, COMM_2, pa2, pb2, RG_MTU_1024);       /* 13-15 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, pa2, MSG_256);     /* 16 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, pa2 + 1, MSG_256); /* 17 */
    rg_sc_ack(c, &k, RG_B, pa2 + 1, 2);                           /* 18 */
    rg_sc_req(c, &k, RG_B, RG_OP_RC_SEND_ONLY, pb2, MSG_256);     /* 19 */
    rg_sc_ack(c, &k, RG_A, pb2, 1);                               /* 20 */
}

/* Two QPs from A to B whose PSN ranges overlap, so a response cannot pair by
 * PSN while both ranges hold its PSN: the NAK for 0x000103 (frame 8) arrives
 * unpaired; the ACK of frame 9 pairs QP 0xa1's responses with QP 0xb2's
 * requests, and the resend (frame 10) is still triggered by that NAK. */
void rg_scen_nak_unpaired(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k1, k2;
    const uint32_t p = 0x000100;

    rg_sc_base(c, &base);
    rg_conn_init4(&k1, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_conn_init4(&k2, &base, HOST_A, HOST_B, QP_A2, QP_B2);
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p, MSG_64);     /* 1 */
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p + 1, MSG_64); /* 2 */
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, p + 2, MSG_64); /* 3 */
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p + 2, MSG_64); /* 4 */
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, p + 3, MSG_64); /* 5 */
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p + 4, MSG_64); /* 6: gap, p + 3 lost */
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, p + 4, MSG_64); /* 7 */
    rg_sc_nak(c, &k1, RG_B, p + 3, 3);                          /* 8: unpaired NAK */
    rg_sc_ack(c, &k1, RG_B, p, 1);                              /* 9: pairs k1 by PSN */
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p + 3, MSG_64); /* 10: resend, trigger nak */
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p + 4, MSG_64); /* 11 */
    rg_sc_ack(c, &k1, RG_B, p + 4, 5);                          /* 12 */
    rg_sc_ack(c, &k2, RG_B, p + 4, 3);                          /* 13: pairs k2 by PSN */
}
