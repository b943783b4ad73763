/*
 * rocegen_scen_causes.c - scenarios for the causes behind the symptoms
 * (analyzer/engine/ANALYSIS.md "Priorities"): RoCE data on a priority that
 * PFC never pauses while another is paused, and CNPs on a lower priority
 * than the data they throttle, the victims of a host NIC's pause, and CNP
 * pacing.
 * captures/README.md says what each must show.
 *
 * Times are microseconds after RG_SC_BASE_NS; frame numbers are the
 * capture's (from 1).
 */
#include <string.h>

#include "rocegen_scen.h"

#define HOST(a, b)    (0x0A000000u | (a) << 8 | (b)) /* 10.0.a.b */
#define MSG_1024      1024u
#define LEN_4096      4096u
#define WRITE_12K     12288u
#define DSCP_LOSSLESS 26u /* AF31: priority 3 by the default map (DSCP / 8) */
#define PRIO_LOSSLESS 3u
#define PRIO_CNP_LOW  0u
#define PRIO_CNP      6u /* where NICs send CNPs by default (DSCP 48, PCP 6) */
#define VLAN_RDMA     100u
#define PFC_QUANTA    2000u /* 10.24 us at 100G */

static const uint8_t switch_mac[RG_MAC_LEN] = {0x02, 0x00, 0x00, 0x00, 0x0F, 0xD1};

/*
 * Untagged frames, priorities by DSCP. Connection 1 (10.0.12.1 ->
 * 10.0.12.2) sends with DSCP 26 (priority 3), connection 2 (10.0.12.3 ->
 * 10.0.12.4) with DSCP 0 (priority 0). The switch pauses priority 3 (XOFF,
 * XON); no PFC frame ever names priority 0: connection 2's RoCE runs on a
 * lossy class.
 */
void rg_scen_lossy_priority(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k1, k2;
    const uint32_t p = 0x000100, q = 0x000200;

    rg_sc_base(c, &base);
    base.dscp = DSCP_LOSSLESS;
    rg_conn_init4(&k1, &base, HOST(12, 1), HOST(12, 2), 0x0000A1, 0x0000B2);
    base.dscp = 0;
    rg_conn_init4(&k2, &base, HOST(12, 3), HOST(12, 4), 0x0000C1, 0x0000D2);
    for (uint32_t i = 0; i < 3; i++) /* 1-3 @0-2 */
        rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p + i, MSG_1024);
    rg_sc_ack(c, &k1, RG_B, p + 2, 3); /* 4 @3 */
    for (uint32_t i = 0; i < 3; i++)   /* 5-7 @4-6 */
        rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, q + i, MSG_1024);
    rg_sc_ack(c, &k2, RG_B, q + 2, 3);                            /* 8 @7 */
    rg_sc_pfc(c, switch_mac, PRIO_LOSSLESS, PFC_QUANTA);          /* 9 @8: XOFF priority 3 */
    rg_sc_pfc(c, switch_mac, PRIO_LOSSLESS, 0);                   /* 10 @9: XON */
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p + 3, MSG_1024); /* 11 @10 */
    rg_sc_ack(c, &k1, RG_B, p + 3, 4);                            /* 12 @11 */
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, q + 3, MSG_1024); /* 13 @12 */
    rg_sc_ack(c, &k2, RG_B, q + 3, 4);                            /* 14 @13 */
}

/* A WRITE of 12 KB in three packets from A, the last two CE marked. */
static void marked_write(struct rg_sc *c, const struct rg_conn *k, uint32_t psn)
{
    static const uint8_t ops[3] = {RG_OP_RC_WRITE_FIRST, RG_OP_RC_WRITE_MIDDLE,
                                   RG_OP_RC_WRITE_LAST};
    for (uint32_t i = 0; i < 3; i++) {
        struct rg_spec s;
        rg_conn_spec(k, RG_A, &s);
        s.opcode = ops[i];
        s.psn = (psn + i) & RG_PSN_MASK;
        s.payload_len = LEN_4096;
        s.payload_fill = (uint8_t)(psn + i);
        s.ecn = i == 0 ? RG_ECN_ECT0 : RG_ECN_CE;
        s.ackreq = i == 2;
        s.reth_dma_len = i == 0 ? WRITE_12K : 0;
        rg_sc_emit(c, &s);
    }
}

/* B's CNP for k's requests, with the 802.1Q priority pcp. */
static void cnp_pcp(struct rg_sc *c, struct rg_conn *k, uint8_t pcp)
{
    uint8_t data_pcp = k->base.vlan[0].pcp;
    k->base.vlan[0].pcp = pcp;
    rg_sc_cnp(c, k, RG_B);
    k->base.vlan[0].pcp = data_pcp;
}

/*
 * VLAN 100, priorities by PCP. Connection 1 (10.0.13.1 -> 10.0.13.2) sends
 * its data with PCP 3; its responder's CNPs go out with PCP 0 (DSCP 48, as
 * CNPs usually are, but the PCP decides on a tagged link). Connection 2
 * (10.0.13.3 -> 10.0.13.4), PCP 3 too, gets its CNP with PCP 6: no finding.
 */
void rg_scen_cnp_priority(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k1, k2;
    const uint32_t p = 0x000100, q = 0x000200;

    rg_sc_base(c, &base);
    base.dscp = DSCP_LOSSLESS;
    base.n_vlans = 1;
    base.vlan[0].tpid = RG_TPID_8021Q;
    base.vlan[0].pcp = PRIO_LOSSLESS;
    base.vlan[0].vid = VLAN_RDMA;
    rg_conn_init4(&k1, &base, HOST(13, 1), HOST(13, 2), 0x0000A1, 0x0000B2);
    rg_conn_init4(&k2, &base, HOST(13, 3), HOST(13, 4), 0x0000C1, 0x0000D2);
    marked_write(c, &k1, p);           /* 1-3 @0-2: 2 and 3 CE */
    rg_sc_ack(c, &k1, RG_B, p + 2, 1); /* 4 @3 */
    cnp_pcp(c, &k1, PRIO_CNP_LOW);     /* 5 @4: CNP on priority 0 */
    marked_write(c, &k2, q);           /* 6-8 @5-7: 7 and 8 CE */
    rg_sc_ack(c, &k2, RG_B, q + 2, 1); /* 9 @8 */
    cnp_pcp(c, &k2, PRIO_CNP);         /* 10 @9: CNP on priority 6 */
    marked_write(c, &k1, p + 3);       /* 11-13 @10-12: 12 and 13 CE */
    rg_sc_ack(c, &k1, RG_B, p + 5, 2); /* 14 @13 */
    cnp_pcp(c, &k1, PRIO_CNP_LOW);     /* 15 @14: CNP on priority 0 */
}

/* ---- pause victims ---- */

#define US(x)         ((int64_t)(x)*ROCE_NS_PER_US)
#define VICTIM_QUANTA 10000u /* 51.2 us at 100G */

/*
 * A mirror of a switch's ports, all RoCE on DSCP 26 (priority 3). Host A
 * (10.0.14.1) sends to host H (10.0.14.2) and to host C (10.0.14.3); D
 * (10.0.14.4) sends to E (10.0.14.5). H's NIC pauses priority 3 (XOFF at 7
 * us, XON at 43 us): A's requests to H and to C stop with it and resume
 * after it; D's go on during the pause. A -> C is an innocent victim
 * (head-of-line blocking); A -> H stalled for its own destination; D -> E
 * is no victim.
 */
void rg_scen_pause_victims(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn ah, ac, de;

    rg_sc_base(c, &base);
    base.dscp = DSCP_LOSSLESS;
    rg_conn_init4(&ah, &base, HOST(14, 1), HOST(14, 2), 0x0000A1, 0x0000B2);
    rg_conn_init4(&ac, &base, HOST(14, 1), HOST(14, 3), 0x0000A2, 0x0000C2);
    rg_conn_init4(&de, &base, HOST(14, 4), HOST(14, 5), 0x0000D1, 0x0000E2);
    rg_sc_req(c, &ah, RG_A, RG_OP_RC_SEND_ONLY, 0x000100, MSG_1024); /* 1 @0 */
    rg_sc_req(c, &ac, RG_A, RG_OP_RC_SEND_ONLY, 0x000200, MSG_1024); /* 2 @1 */
    rg_sc_req(c, &de, RG_A, RG_OP_RC_SEND_ONLY, 0x000300, MSG_1024); /* 3 @2 */
    rg_sc_ack(c, &ah, RG_B, 0x000100, 1); /* 4 @3: H's ACK, TTL 64 from its NIC */
    rg_sc_req(c, &ah, RG_A, RG_OP_RC_SEND_ONLY, 0x000101, MSG_1024); /* 5 @4 */
    rg_sc_req(c, &ac, RG_A, RG_OP_RC_SEND_ONLY, 0x000201, MSG_1024); /* 6 @5 */
    rg_sc_req(c, &de, RG_A, RG_OP_RC_SEND_ONLY, 0x000301, MSG_1024); /* 7 @6 */
    rg_sc_pfc(c, ah.mac[RG_B], PRIO_LOSSLESS, VICTIM_QUANTA); /* 8 @7: H's NIC: XOFF priority 3 */
    rg_sc_at(c, US(13));
    rg_sc_req(c, &de, RG_A, RG_OP_RC_SEND_ONLY, 0x000302, MSG_1024); /* 9 @13 */
    rg_sc_at(c, US(33));
    rg_sc_req(c, &de, RG_A, RG_OP_RC_SEND_ONLY, 0x000303, MSG_1024); /* 10 @33 */
    rg_sc_at(c, US(43));
    rg_sc_pfc(c, ah.mac[RG_B], PRIO_LOSSLESS, 0);                    /* 11 @43: XON */
    rg_sc_req(c, &ah, RG_A, RG_OP_RC_SEND_ONLY, 0x000102, MSG_1024); /* 12 @44: stalled 40 us */
    rg_sc_req(c, &ac, RG_A, RG_OP_RC_SEND_ONLY, 0x000202, MSG_1024); /* 13 @45: stalled 40 us */
    rg_sc_ack(c, &ah, RG_B, 0x000102, 3);                            /* 14 @46 */
    rg_sc_ack(c, &ac, RG_B, 0x000202, 3);                            /* 15 @47 */
    rg_sc_ack(c, &de, RG_B, 0x000303, 4);                            /* 16 @48 */
}

/* ---- CNP pacing ---- */

/* A SEND Only of 1024 bytes from A with the ECN field ecn. */
static void send_marked(struct rg_sc *c, const struct rg_conn *k, uint32_t psn, uint8_t ecn)
{
    struct rg_spec s;
    rg_conn_spec(k, RG_A, &s);
    s.opcode = RG_OP_RC_SEND_ONLY;
    s.psn = psn & RG_PSN_MASK;
    s.payload_len = MSG_1024;
    s.payload_fill = (uint8_t)psn;
    s.ecn = ecn;
    s.ackreq = 1;
    rg_sc_emit(c, &s);
}

/*
 * Two responder NICs. B (10.0.15.2) answers each CE mark of A's QP
 * (10.0.15.1 -> 10.0.15.2) with a CNP of its own, 2 us apart: no pacing.
 * D (10.0.15.4) paces per QP: C (10.0.15.3) sends to it on two QPs, and D's
 * CNPs for one QP are 52 us apart, for the two QPs 1 us apart. E
 * (10.0.15.5), C's second responder, sends C one CNP 6 us after D's last:
 * the gap per destination address, from another responder; that CNP
 * arrives CE marked (it met congestion on its way back: cnp_congested).
 */
void rg_scen_cnp_pacing(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn ab, cd1, cd2, ce;
    const uint32_t p = 0x000100, q = 0x000200, r = 0x000300, s = 0x000400;

    rg_sc_base(c, &base);
    rg_conn_init4(&ab, &base, HOST(15, 1), HOST(15, 2), 0x0000A1, 0x0000B2);
    rg_conn_init4(&ce, &base, HOST(15, 3), HOST(15, 5), 0x0000C5, 0x0000E6);
    rg_conn_init4(&cd1, &base, HOST(15, 3), HOST(15, 4), 0x0000C1, 0x0000D2);
    rg_conn_init4(&cd2, &base, HOST(15, 3), HOST(15, 4), 0x0000C3, 0x0000D4);
    send_marked(c, &ab, p, RG_ECN_ECT0); /* 1 @0 */
    rg_sc_ack(c, &ab, RG_B, p, 1);       /* 2 @1 */
    for (uint32_t i = 1; i <= 3; i++) {  /* 3-8 @2-7: a mark, its CNP */
        send_marked(c, &ab, p + i, RG_ECN_CE);
        rg_sc_cnp(c, &ab, RG_B);
    }
    rg_sc_ack(c, &ab, RG_B, p + 3, 4); /* 9 @8 */
    rg_sc_at(c, US(10));
    send_marked(c, &cd1, q, RG_ECN_ECT0); /* 10 @10 */
    send_marked(c, &cd2, r, RG_ECN_ECT0); /* 11 @11 */
    rg_sc_ack(c, &cd1, RG_B, q, 1);       /* 12 @12 */
    rg_sc_ack(c, &cd2, RG_B, r, 1);       /* 13 @13 */
    for (uint32_t i = 1; i <= 2; i++) {   /* 14-17 @14-17, 18-21 @66-69 */
        send_marked(c, &cd1, q + i, RG_ECN_CE);
        send_marked(c, &cd2, r + i, RG_ECN_CE);
        rg_sc_cnp(c, &cd1, RG_B);
        rg_sc_cnp(c, &cd2, RG_B);
        rg_sc_at(c, US(66));
    }
    rg_sc_ack(c, &cd1, RG_B, q + 2, 3); /* 22 @70 */
    rg_sc_ack(c, &cd2, RG_B, r + 2, 3); /* 23 @71 */
    /* a second responder for C: E's CNP comes 6 us after D's last to C */
    send_marked(c, &ce, s, RG_ECN_ECT0);    /* 24 @72 */
    rg_sc_ack(c, &ce, RG_B, s, 1);          /* 25 @73 */
    send_marked(c, &ce, s + 1, RG_ECN_CE);  /* 26 @74 */
    rg_sc_cnp_ecn(c, &ce, RG_B, RG_ECN_CE); /* 27 @75: marked on its way */
    rg_sc_ack(c, &ce, RG_B, s + 1, 2);      /* 28 @76 */
}
