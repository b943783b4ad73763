/*
 * rocegen_scen_mirror.c - mirrored traffic: the linktype gap exchange inside
 * ERSPAN type I, II and III, GRE transparent Ethernet bridging and VXLAN,
 * a CE mark and its CNP inside VXLAN, PFC inside ERSPAN III, and a PFC /
 * PAUSE capture with a pause storm.
 *
 * Frame numbers in the comments are the capture's (from 1).
 */
#include <string.h>

#include "rocegen_scen.h"

#define HOST_A       0xC0A8010Au /* 192.168.1.10 */
#define HOST_B       0xC0A80114u /* 192.168.1.20 */
#define HOST_C       0xC0A8020Au /* 192.168.2.10 */
#define HOST_D       0xC0A80214u /* 192.168.2.20 */
#define TUNNEL_SRC   0x0A090001u /* 10.9.0.1: the switch that mirrors */
#define TUNNEL_DST   0x0A090002u /* 10.9.0.2: the collector */
#define QP_A         0x0000A1u
#define QP_B         0x0000B2u
#define QP_C         0x0000C1u
#define QP_D         0x0000D2u
#define SESSION_II   100u
#define SESSION_III  200u
#define VNI          5000u
#define ROCE_PCP     3u
#define ROCE_VID     100u
#define WRITE_LEN    1024u
#define CNP_DELAY_NS (20 * ROCE_NS_PER_US)
#define PFC_PRIO     3u
#define PFC_PRIO_B   4u
#define QUANTA_MAX   0xFFFFu
#define QUANTA_B     1000u
#define QUANTA_PAUSE 2000u
#define STORM_FRAMES 10
#define STORM_STEP_NS (300 * ROCE_NS_PER_US)

static const uint8_t switch_mac[RG_MAC_LEN] = {0x02, 0x00, 0x00, 0x00, 0x0F, 0xC0};

/* Emit a MAC Control frame (wrapped if the sink wraps). */
static void mac_control(struct rg_sc *c, unsigned opcode, uint8_t cev,
                        const uint16_t quanta[RG_PFC_PRIOS])
{
    uint8_t f[RG_MAX_FRAME];
    int n = rg_build_mac_control(opcode, cev, quanta, switch_mac, f, sizeof f);
    if (n < 0) {
        c->err = n;
        return;
    }
    rg_sc_raw(c, f, (size_t)n);
}

/* PFC for one priority. */
static void pfc(struct rg_sc *c, unsigned prio, uint16_t quanta)
{
    uint16_t q[RG_PFC_PRIOS] = {0};
    q[prio] = quanta;
    mac_control(c, RG_MACCTRL_PFC, (uint8_t)(1u << prio), q);
}

/* A and B exchanging behind one 802.1Q tag (PCP 3, VID 100), mirrored with ERSPAN II. */
void rg_scen_erspan2(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    struct rg_wrap w;

    rg_wrap_init(&w, RG_WRAP_ERSPAN2, TUNNEL_SRC, TUNNEL_DST);
    w.session = SESSION_II;
    c->wrap = &w;
    rg_sc_base(c, &base);
    base.n_vlans = 1;
    base.vlan[0].tpid = RG_TPID_8021Q;
    base.vlan[0].pcp = ROCE_PCP;
    base.vlan[0].vid = ROCE_VID;
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_gap_exchange(c, &k); /* 1-7 */
    c->wrap = NULL;
}

/* The exchange mirrored with ERSPAN III (with the platform subheader), then
 * a PFC frame mirrored the same way. */
void rg_scen_erspan3(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    struct rg_wrap w;

    rg_wrap_init(&w, RG_WRAP_ERSPAN3, TUNNEL_SRC, TUNNEL_DST);
    w.session = SESSION_III;
    w.subheader = 1;
    c->wrap = &w;
    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_gap_exchange(c, &k); /* 1-7 */
    pfc(c, PFC_PRIO, QUANTA_B); /* 8: PFC priority 3, 1000 quanta */
    c->wrap = NULL;
}

/* The exchange in VXLAN (VNI 5000), then a CE-marked WRITE answered by a CNP. */
void rg_scen_vxlan(struct rg_sc *c)
{
    struct rg_spec base, s;
    struct rg_conn k;
    struct rg_wrap w;

    rg_wrap_init(&w, RG_WRAP_VXLAN, TUNNEL_SRC, TUNNEL_DST);
    w.vni = VNI;
    c->wrap = &w;
    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_gap_exchange(c, &k); /* 1-7 */
    rg_conn_spec(&k, RG_A, &s);
    s.opcode = RG_OP_RC_WRITE_ONLY;
    s.psn = 0x000014;
    s.payload_len = WRITE_LEN;
    s.reth_dma_len = WRITE_LEN;
    s.ackreq = 1;
    s.ecn = RG_ECN_CE;
    rg_sc_emit(c, &s); /* 8: CE */
    rg_sc_wait(c, CNP_DELAY_NS);
    rg_sc_cnp(c, &k, RG_B);         /* 9: CNP, matched to 8 */
    rg_sc_ack(c, &k, RG_B, 0x000014, 5); /* 10 */
    c->wrap = NULL;
}

/* ERSPAN type I (A-B), then GRE transparent Ethernet bridging (C-D). */
void rg_scen_gre(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k1, k2;
    struct rg_wrap w1, w2;

    rg_sc_base(c, &base);
    rg_wrap_init(&w1, RG_WRAP_ERSPAN1, TUNNEL_SRC, TUNNEL_DST);
    c->wrap = &w1;
    rg_conn_init4(&k1, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_gap_exchange(c, &k1); /* 1-7 */
    rg_wrap_init(&w2, RG_WRAP_GRE_TEB, TUNNEL_SRC, TUNNEL_DST);
    c->wrap = &w2;
    rg_conn_init4(&k2, &base, HOST_C, HOST_D, QP_C, QP_D);
    rg_sc_gap_exchange(c, &k2); /* 8-14 */
    c->wrap = NULL;
}

/* A pause storm on priority 3: an XOFF of 65535 quanta (335.539 us at 100G)
 * every 300 us for 2.7 ms, then an XON; one XOFF on priority 4; one 802.3x
 * PAUSE; then a little RoCE. */
void rg_scen_pfc(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    uint16_t q[RG_PFC_PRIOS] = {QUANTA_PAUSE};

    for (int i = 0; i < STORM_FRAMES; i++) {
        rg_sc_at(c, i * STORM_STEP_NS);
        pfc(c, PFC_PRIO, QUANTA_MAX); /* 1-10 at 0, 0.3, ... 2.7 ms */
    }
    rg_sc_at(c, 3100 * ROCE_NS_PER_US);
    pfc(c, PFC_PRIO, 0); /* 11: XON at 3.1 ms (the last XOFF ran out at 3.035539 ms) */
    rg_sc_at(c, 3200 * ROCE_NS_PER_US);
    pfc(c, PFC_PRIO_B, QUANTA_B); /* 12: priority 4, 1000 quanta = 5.12 us */
    rg_sc_at(c, 3300 * ROCE_NS_PER_US);
    mac_control(c, RG_MACCTRL_PAUSE, 0, q); /* 13: PAUSE, 2000 quanta = 10.24 us */
    rg_sc_at(c, 3400 * ROCE_NS_PER_US);
    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST_A, HOST_B, QP_A, QP_B);
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, 0x000100, WRITE_LEN); /* 14 */
    rg_sc_ack(c, &k, RG_B, 0x000100, 1);                             /* 15 */
}
