/*
 * rocegen_scen_link.c - encapsulation scenarios: IPv6 with VLAN tags, RoCEv1,
 * header-only frames, non-RoCE noise, malformed frames, a bad ICRC, and the
 * exchange used for the Linux cooked / raw IP link types.
 *
 * Frame numbers in the comments are the capture's (from 1).
 */
#include "rocegen_scen.h"

#include <string.h>

#define HOST_A     0xC0A8010Au /* 192.168.1.10 */
#define HOST_B     0xC0A80114u /* 192.168.1.20 */
#define HOST_WEB   0xC0A8011Eu /* 192.168.1.30 */
#define MDNS_GROUP 0xE00000FBu /* 224.0.0.251 */
#define V1_HOST_A  0xC0A80201u /* 192.168.2.1, as an IPv4-mapped GID */
#define V1_HOST_B  0xC0A80202u /* 192.168.2.2 */
#define QP_A       0x0000A1u
#define QP_B       0x0000B2u
#define V6_PREFIX  0xFD00u

#define MSG_64          64u
#define MSG_256         256u
#define LEN_1024        1024u
#define LEN_4096        4096u
#define WRITE_6000      6000u
#define READ_2048       2048u
#define RESEND_DELAY_NS (3 * ROCE_NS_PER_US)

#define VLAN_RDMA  100u
#define VLAN_OUTER 200u
#define PCP_ROCE   3u
#define FLOW_LABEL 0x2A5C1u
#define DSCP_ROCE  26u /* AF31 */

/* fd00:net::host */
static void v6addr(uint8_t out[RG_ADDR_LEN], uint16_t net, uint16_t host)
{
    memset(out, 0, RG_ADDR_LEN);
    out[0] = (uint8_t)(V6_PREFIX >> 8);
    out[1] = (uint8_t)V6_PREFIX;
    out[2] = (uint8_t)(net >> 8);
    out[3] = (uint8_t)net;
    out[RG_ADDR_LEN - 2] = (uint8_t)(host >> 8);
    out[RG_ADDR_LEN - 1] = (uint8_t)host;
}

/* One 802.1Q-tagged IPv6 connection and one QinQ-tagged one (PCP 3). */
void rg_scen_ipv6_vlan(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k1, k2;
    uint8_t a[RG_ADDR_LEN], b[RG_ADDR_LEN];
    const uint32_t p1 = 0x000100, p2 = 0x000200;

    rg_sc_base(c, &base);
    base.ip_version = 6;
    base.flow_label = FLOW_LABEL;
    base.dscp = DSCP_ROCE;
    base.n_vlans = 1;
    base.vlan[0].tpid = RG_TPID_8021Q;
    base.vlan[0].pcp = PCP_ROCE;
    base.vlan[0].vid = VLAN_RDMA;
    v6addr(a, 1, 0x10);
    v6addr(b, 1, 0x20);
    rg_conn_init6(&k1, &base, a, b, QP_A, QP_B);
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p1, MSG_256);                      /* 1 */
    rg_sc_ack(c, &k1, RG_B, p1, 1);                                                /* 2 */
    rg_sc_write(c, &k1, RG_A, RG_OP_RC_WRITE_FIRST, p1 + 1, LEN_4096, WRITE_6000); /* 3 */
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_WRITE_LAST, p1 + 2, WRITE_6000 - LEN_4096);   /* 4 */
    rg_sc_ack(c, &k1, RG_B, p1 + 2, 2);                                            /* 5 */

    base.n_vlans = 2;
    base.vlan[0].tpid = RG_TPID_8021AD;
    base.vlan[0].vid = VLAN_OUTER;
    base.vlan[1].tpid = RG_TPID_8021Q;
    base.vlan[1].pcp = PCP_ROCE;
    base.vlan[1].vid = VLAN_RDMA;
    v6addr(a, 2, 0x10);
    v6addr(b, 2, 0x20);
    rg_conn_init6(&k2, &base, a, b, QP_A + 2, QP_B + 2);
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, p2, MSG_256);     /* 6 */
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, p2 + 1, MSG_256); /* 7 */
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, p2 + 3, MSG_256); /* 8: gap 1 */
    rg_sc_nak(c, &k2, RG_B, p2 + 2, 2);                           /* 9 */
    rg_sc_wait(c, RESEND_DELAY_NS);
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, p2 + 2, MSG_256); /* 10 */
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, p2 + 3, MSG_256); /* 11 */
    rg_sc_ack(c, &k2, RG_B, p2 + 3, 4);                           /* 12 */
}

/* RoCEv1 (EtherType 0x8915, GRH with IPv4-mapped GIDs), captured at the
 * sender: 0x000701 is lost after the capture point; NAK; resend. */
void rg_scen_rocev1(struct rg_sc *c)
{
    struct rg_spec base, s;
    struct rg_conn k;
    const uint32_t p = 0x000700;

    rg_sc_base(c, &base);
    base.kind = RG_KIND_ROCEV1;
    rg_conn_init4(&k, &base, V1_HOST_A, V1_HOST_B, QP_A, QP_B);
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p, MSG_256);     /* 1 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 1, MSG_256); /* 2 */
    rg_sc_send_spec(&k, RG_A, p + 2, MSG_256,
                    &s); /* 3: GRH traffic class ECN bits 11: not a CE mark on RoCEv1 */
    s.ecn = RG_ECN_CE;
    rg_sc_emit(c, &s);
    rg_sc_nak(c, &k, RG_B, p + 1, 1); /* 4 */
    rg_sc_wait(c, RESEND_DELAY_NS);
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 1, MSG_256);               /* 5 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 2, MSG_256);               /* 6 */
    rg_sc_ack(c, &k, RG_B, p + 2, 3);                                         /* 7 */
    rg_sc_write(c, &k, RG_A, RG_OP_RC_WRITE_ONLY, p + 3, LEN_1024, LEN_1024); /* 8 */
    rg_sc_ack(c, &k, RG_B, p + 3, 4);                                         /* 9 */
}

/* Written with snaplen 64 (see the scenario table): header-only frames. */
void rg_scen_truncated(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k, k6;
    uint8_t a[RG_ADDR_LEN], b[RG_ADDR_LEN];
    const uint32_t p = 0x000800;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_write(c, &k, RG_A, RG_OP_RC_WRITE_FIRST, p, LEN_1024, 2 * LEN_1024 + MSG_256 * 2); /* 1 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_WRITE_MIDDLE, p + 1, LEN_1024);                          /* 2 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_WRITE_LAST, p + 2, 2 * MSG_256);                         /* 3 */
    rg_sc_ack(c, &k, RG_B, p + 2, 1);                                                        /* 4 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 3, MSG_256);                              /* 5 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 5, MSG_256); /* 6: gap 1 */
    rg_sc_nak(c, &k, RG_B, p + 4, 2);                           /* 7 */
    rg_sc_wait(c, RESEND_DELAY_NS);
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 4, MSG_256); /* 8 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 5, MSG_256); /* 9 */
    rg_sc_ack(c, &k, RG_B, p + 5, 4);                           /* 10 */
    rg_sc_read(c, &k, RG_A, p + 6, READ_2048);                  /* 11 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_FIRST, p + 6, LEN_1024,
               rg_aeth_ack(RG_AETH_CREDITS_INVALID), 4); /* 12 */
    rg_sc_resp(c, &k, RG_B, RG_OP_RC_READ_RESP_LAST, p + 7, LEN_1024,
               rg_aeth_ack(RG_AETH_CREDITS_INVALID), 5);        /* 13 */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 8, MSG_256); /* 14 */
    base.ip_version = 6;
    v6addr(a, 1, 0x10);
    v6addr(b, 1, 0x20);
    rg_conn_init6(&k6, &base, a, b, QP_A + 2, QP_B + 2);
    rg_sc_req(c, &k6, RG_A, RG_OP_RC_SEND_ONLY, 0x000900, MSG_256); /* 15: BTH cut */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 9, 0);           /* 16: whole */
}

#define PORT_MDNS      5353u
#define PORT_OTHER     50000u
#define PORT_ROCE_NEXT 4792u
#define PORT_TFTP      69u /* a RoCEv2 source port that Wireshark's UDP hands to TFTP */
#define TCP_SEQ        0x1000u
#define TCP_ACK_NUM    0x2000u
#define FRAG_OFF_1480  185u /* 1480 bytes in 8-byte units */
#define FRAG_ID        0x4242u
#define IPOPT_RA       0x94u /* IPv4 router alert, length 4 */
#define IPOPT_RA_LEN   4u

/* Non-RoCE traffic around a little RoCE; see captures/README.md. */
void rg_scen_noise(struct rg_sc *c)
{
    static const uint8_t bcast[RG_MAC_LEN] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    struct rg_spec base, s;
    struct rg_conn k;
    const uint32_t p = 0x000100;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);

    rg_conn_spec(&k, RG_A, &s); /* 1: ARP request, padded to 60 bytes */
    s.kind = RG_KIND_ARP;
    memcpy(s.eth_dst, bcast, RG_MAC_LEN);
    s.eth_pad_min = 1;
    rg_sc_emit(c, &s);
    rg_conn_spec(&k, RG_A, &s); /* 2: TCP to a web server */
    s.kind = RG_KIND_TCP;
    rg_addr_v4(s.dst, HOST_WEB);
    s.tcp_seq = TCP_SEQ;
    s.tcp_ack = TCP_ACK_NUM;
    s.payload_len = MSG_64;
    rg_sc_emit(c, &s);
    rg_conn_spec(&k, RG_A, &s); /* 3: mDNS */
    s.kind = RG_KIND_UDP;
    rg_addr_v4(s.dst, MDNS_GROUP);
    s.udp_sport = PORT_MDNS;
    s.udp_dport = PORT_MDNS;
    s.ttl = 1;
    s.payload_len = MSG_64;
    s.udp_csum = RG_UDP_CSUM_COMPUTE;
    rg_sc_emit(c, &s);
    rg_sc_send_spec(&k, RG_A, p, MSG_64, &s); /* 4: RoCE SEND with an IPv4 option */
    s.ip_opts_len = IPOPT_RA_LEN;
    s.ip_opts[0] = IPOPT_RA;
    s.ip_opts[1] = IPOPT_RA_LEN;
    rg_sc_emit(c, &s);
    rg_conn_spec(&k, RG_B, &s); /* 5: UDP from source port 4791 to 50000: not RoCE */
    s.kind = RG_KIND_UDP;
    s.udp_sport = RG_ROCEV2_PORT;
    s.udp_dport = PORT_OTHER;
    s.payload_len = MSG_64;
    rg_sc_emit(c, &s);
    rg_sc_ack(c, &k, RG_B, p, 1); /* 6 */
    rg_conn_spec(&k, RG_A, &s);   /* 7: first fragment of a datagram to 4791 */
    s.opcode = RG_OP_RC_SEND_ONLY;
    s.psn = p + 1;
    s.payload_len = LEN_1024;
    s.ip_df = 0;
    s.ip_mf = 1;
    s.ip_id = FRAG_ID;
    rg_sc_emit(c, &s);
    rg_conn_spec(&k, RG_A, &s); /* 8: a later fragment (UDP protocol, no UDP header) */
    s.kind = RG_KIND_IP_RAW;
    s.ip_df = 0;
    s.ip_id = FRAG_ID;
    s.ip_frag_off = FRAG_OFF_1480;
    s.payload_len = MSG_64;
    rg_sc_emit(c, &s);
    rg_conn_spec(&k, RG_A, &s); /* 9: IPv6 UDP to port 4792 */
    s.kind = RG_KIND_UDP;
    s.ip_version = 6;
    v6addr(s.src, 1, 0x10);
    v6addr(s.dst, 1, 0x20);
    s.udp_dport = PORT_ROCE_NEXT;
    s.payload_len = MSG_64;
    s.udp_csum = RG_UDP_CSUM_COMPUTE;
    rg_sc_emit(c, &s);
    rg_conn_spec(&k, RG_A, &s); /* 10: TCP to port 4791 */
    s.kind = RG_KIND_TCP;
    s.tcp_dport = RG_ROCEV2_PORT;
    s.payload_len = MSG_64;
    rg_sc_emit(c, &s);
    rg_sc_send_spec(&k, RG_A, p + 1, MSG_64, &s); /* 11: RoCE with UDP source port 0 */
    s.udp_sport = 0;
    rg_sc_emit(c, &s);
    rg_sc_ack(c, &k, RG_B, p + 1, 2);             /* 12 */
    rg_sc_send_spec(&k, RG_A, p + 2, MSG_64, &s); /* 13: RoCE from UDP source port 69 (TFTP) */
    s.udp_sport = PORT_TFTP;
    rg_sc_emit(c, &s);
    rg_sc_ack(c, &k, RG_B, p + 2, 3); /* 14 */
}
