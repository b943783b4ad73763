/*
 * rocegen_scen_misc.c - malformed RoCE frames, a bad ICRC, and the exchange
 * written for each Linux cooked / raw IP link type.
 *
 * Frame numbers in the comments are the capture's (from 1).
 */
#include "rocegen_scen.h"

#include <string.h>

#define HOST_A    0xC0A8010Au /* 192.168.1.10 */
#define HOST_B    0xC0A80114u /* 192.168.1.20 */
#define V1_HOST_A 0xC0A80201u /* 192.168.2.1 */
#define V1_HOST_B 0xC0A80202u /* 192.168.2.2 */
#define QP_A      0x0000A1u
#define QP_B      0x0000B2u
#define V6_NET    0xFD000000u /* fd00:: */

#define MSG_64           64u
#define MSG_256          256u
#define LEN_1024         1024u
#define CUT_SHORT_BTH    6u    /* bytes after the UDP header: less than a BTH */
#define UDP_LEN_TINY     4u    /* below the UDP header itself */
#define UDP_LEN_EXCESS   100u  /* bytes the UDP length claims beyond the IP payload */
#define OPCODE_UNDEFINED 0x1Fu /* RC opcode 0x1F is reserved */
#define PAD_MAX          3
#define BTH_LEN          12u
#define RETH_HALF        8u
#define AETH_LEN         4u
#define GRH_NXT_UDP      0x11u
#define GRH_PLEN_TINY    8u
#define ICRC_CORRUPT     0xDEADBEEFu
#define DSCP_EF          46u
#define ODD_TTL          3u
#define MALFORMED_PSN    0x000150u /* would be a gap if these frames were analysed */
#define RESEND_DELAY_NS  (3 * ROCE_NS_PER_US)

/* A SEND Only from A carrying MALFORMED_PSN, for the malformed variants. */
static void bad_send(const struct rg_conn *k, struct rg_spec *s)
{
    rg_conn_spec(k, RG_A, s);
    s->opcode = RG_OP_RC_SEND_ONLY;
    s->psn = MALFORMED_PSN;
    s->payload_len = MSG_64;
}

/* One frame for each malformed reason between two good SENDs. */
void rg_scen_malformed(struct rg_sc *c)
{
    struct rg_spec base, s;
    struct rg_conn k, k1;
    const uint32_t p = 0x000100;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p, MSG_64); /* 1 */
    bad_send(&k, &s); /* 2: UDP length 14: 6 bytes cannot hold a BTH */
    s.roce_cut = CUT_SHORT_BTH;
    rg_sc_emit(c, &s);
    bad_send(&k, &s); /* 3: UDP length 4 */
    s.udp_len = UDP_LEN_TINY;
    rg_sc_emit(c, &s);
    bad_send(&k, &s); /* 4: UDP length beyond the IP payload */
    s.udp_len = (int32_t)(8 + BTH_LEN + MSG_64 + 4 + UDP_LEN_EXCESS);
    rg_sc_emit(c, &s);
    bad_send(&k, &s); /* 5: undefined opcode */
    s.opcode = OPCODE_UNDEFINED;
    rg_sc_emit(c, &s);
    bad_send(&k, &s); /* 6: pad count 3 with no payload and no pad bytes */
    s.payload_len = 0;
    s.padcnt = PAD_MAX;
    s.pad_len = 0;
    rg_sc_emit(c, &s);
    bad_send(&k, &s); /* 7: WRITE First whose declared length ends inside the RETH */
    s.opcode = RG_OP_RC_WRITE_FIRST;
    s.reth_dma_len = LEN_1024;
    s.roce_cut = (int32_t)(BTH_LEN + RETH_HALF);
    rg_sc_emit(c, &s);
    rg_conn_spec(&k, RG_B, &s); /* 8: READ Response First: BTH + AETH, no room for the ICRC */
    s.opcode = RG_OP_RC_READ_RESP_FIRST;
    s.psn = MALFORMED_PSN;
    s.roce_cut = (int32_t)(BTH_LEN + AETH_LEN);
    rg_sc_emit(c, &s);

    rg_sc_base(c, &base);
    base.kind = RG_KIND_ROCEV1;
    rg_conn_init4(&k1, &base, V1_HOST_A, V1_HOST_B, QP_A, QP_B);
    bad_send(&k1, &s); /* 9: RoCEv1 GRH next header 0x11 */
    s.grh_next_hdr = GRH_NXT_UDP;
    rg_sc_emit(c, &s);
    bad_send(&k1, &s); /* 10: RoCEv1 GRH payload length 8 */
    s.ip_len = GRH_PLEN_TINY;
    rg_sc_emit(c, &s);

    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 1, MSG_64); /* 11 */
    rg_sc_ack(c, &k, RG_B, p + 1, 2);                          /* 12 */
}

/* One frame with a wrong ICRC; one whose variant fields (ECN, DSCP, TTL,
 * FECN, UDP checksum) differ, which the ICRC does not cover. */
void rg_scen_bad_icrc(struct rg_sc *c)
{
    struct rg_spec base, s;
    struct rg_conn k;
    const uint32_t p = 0x000100;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p, MSG_256); /* 1 */
    rg_sc_ack(c, &k, RG_B, p, 1);                           /* 2 */
    rg_sc_send_spec(&k, RG_A, p + 1, MSG_256, &s);          /* 3: wrong ICRC */
    s.icrc_xor = ICRC_CORRUPT;
    rg_sc_emit(c, &s);
    rg_sc_send_spec(&k, RG_A, p + 2, MSG_256, &s); /* 4: masked fields differ */
    s.ecn = RG_ECN_ECT1;
    s.dscp = DSCP_EF;
    s.ttl = ODD_TTL;
    s.fecn = 1;
    s.udp_csum = RG_UDP_CSUM_COMPUTE;
    rg_sc_emit(c, &s);
    rg_sc_ack(c, &k, RG_B, p + 2, 3); /* 5 */
}

void rg_sc_gap_exchange(struct rg_sc *c, const struct rg_conn *k)
{
    const uint32_t p = 0x000010;
    rg_sc_req(c, k, RG_A, RG_OP_RC_SEND_ONLY, p, MSG_256);     /* 1 */
    rg_sc_req(c, k, RG_A, RG_OP_RC_SEND_ONLY, p + 1, MSG_256); /* 2 */
    rg_sc_req(c, k, RG_A, RG_OP_RC_SEND_ONLY, p + 3, MSG_256); /* 3: gap 1 */
    rg_sc_nak(c, k, RG_B, p + 2, 2);                           /* 4 */
    rg_sc_wait(c, RESEND_DELAY_NS);
    rg_sc_req(c, k, RG_A, RG_OP_RC_SEND_ONLY, p + 2, MSG_256); /* 5 */
    rg_sc_req(c, k, RG_A, RG_OP_RC_SEND_ONLY, p + 3, MSG_256); /* 6 */
    rg_sc_ack(c, k, RG_B, p + 3, 4);                           /* 7 */
}

/* The linktype exchange between A and B over IPv4 (SLL, SLL2, raw IP, raw IPv4). */
void rg_scen_linktype(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_gap_exchange(c, &k);
}

/* The linktype exchange between fd00::10 and fd00::20 (raw IPv6). */
void rg_scen_linktype_v6(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    uint8_t a[RG_ADDR_LEN], b[RG_ADDR_LEN];
    rg_sc_base(c, &base);
    base.ip_version = 6;
    memset(a, 0, sizeof a);
    a[0] = (uint8_t)(V6_NET >> 24);
    memcpy(b, a, sizeof b);
    a[RG_ADDR_LEN - 1] = 0x10;
    b[RG_ADDR_LEN - 1] = 0x20;
    rg_conn_init6(&k, &base, a, b, QP_A, QP_B);
    rg_sc_gap_exchange(c, &k);
}
