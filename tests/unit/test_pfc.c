/*
 * test_pfc.c - PFC / PAUSE accounting (analyzer/engine/roce_pfc.c):
 * XOFF/XON counts, quanta, time paused as the union of pause intervals at
 * the configured link speed, and storm windows, against values worked out
 * by hand here. Frames come from rocegen's MAC Control builder.
 */
#include <stdlib.h>
#include <string.h>

#include "roce_engine.h"
#include "rocegen_build.h"
#include "rocegen_encap.h"
#include "test_util.h"

#define T0    1700000000000000000LL
#define US    1000LL
#define MS    1000000LL
#define PRIO  3u
#define Q_MAX 0xFFFFu
/* 65535 quanta x 512 bits at 100 Gb/s = 335539.2 ns, kept to the nanosecond below */
#define Q_MAX_NS_100G 335539LL

static const uint8_t mac[RG_MAC_LEN] = {2, 0, 0, 0, 0, 9};

struct pfc_run {
    struct roce_engine *e;
    uint64_t frame;
};

static void run_init(struct pfc_run *r, uint32_t link_mbps, int64_t window_ns, uint32_t pct)
{
    struct roce_config cfg;
    roce_config_default(&cfg);
    if (link_mbps)
        cfg.link_speed_mbps = link_mbps;
    if (window_ns)
        cfg.pfc_window_ns = window_ns;
    if (pct)
        cfg.pfc_storm_pct = pct;
    r->e = roce_engine_new(&cfg);
    r->frame = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->e);
}

/* Feed a PFC frame (cev, one time for every enabled priority) or a PAUSE at t. */
static void feed(struct pfc_run *r, unsigned opcode, uint8_t cev, uint16_t quanta, int64_t t)
{
    uint16_t q[RG_PFC_PRIOS];
    uint8_t f[RG_MAX_FRAME];
    for (unsigned i = 0; i < RG_PFC_PRIOS; i++)
        q[i] = quanta;
    int n = rg_build_mac_control(opcode, cev, q, mac, f, sizeof f);
    CU_ASSERT_FATAL(n > 0);
    struct roce_frame_in in = {++r->frame, T0 + t,      ROCE_LINKTYPE_ETHERNET,
                               f,          (uint32_t)n, (uint32_t)n};
    struct roce_frame_out out;
    CU_ASSERT_EQUAL(roce_engine_frame(r->e, &in, &out), 0);
    CU_ASSERT_EQUAL(out.pkt.cls, ROCE_CLASS_NON_ROCE);
}

static const struct roce_pfc_report *finish(struct pfc_run *r)
{
    roce_engine_finish(r->e);
    return &roce_engine_totals(r->e)->pfc;
}

/* One XOFF: paused for its whole timer (65535 quanta at 100G). */
static void test_one_xoff(void)
{
    struct pfc_run r;
    run_init(&r, 0, 0, 0);
    feed(&r, RG_MACCTRL_PFC, 1u << PRIO, Q_MAX, 0);
    const struct roce_pfc_report *p = finish(&r);
    CU_ASSERT_EQUAL(p->pfc_frames, 1);
    CU_ASSERT_EQUAL(p->prio[PRIO].frames, 1);
    CU_ASSERT_EQUAL(p->prio[PRIO].xoff, 1);
    CU_ASSERT_EQUAL(p->prio[PRIO].quanta, Q_MAX);
    CU_ASSERT_EQUAL(p->prio[PRIO].paused_ns, Q_MAX_NS_100G);
    CU_ASSERT_EQUAL(p->prio[PRIO].storm_windows, 0);
    for (unsigned i = 0; i < ROCE_PFC_PRIORITIES; i++)
        if (i != PRIO)
            CU_ASSERT_EQUAL(p->prio[i].frames, 0);
    roce_engine_free(r.e);
}

/* A refresh while paused restarts the timer; an XON ends the pause at once. */
static void test_refresh_and_xon(void)
{
    struct pfc_run r;
    run_init(&r, 0, 0, 0);
    feed(&r, RG_MACCTRL_PFC, 1u << PRIO, Q_MAX, 0);        /* paused 0 .. 335.539 us */
    feed(&r, RG_MACCTRL_PFC, 1u << PRIO, Q_MAX, 100 * US); /* refreshed: .. 435.539 us */
    feed(&r, RG_MACCTRL_PFC, 1u << PRIO, 0, 200 * US);     /* XON at 200 us */
    feed(&r, RG_MACCTRL_PFC, 1u << PRIO, 1000, 300 * US);  /* 5.12 us */
    const struct roce_pfc_report *p = finish(&r);
    CU_ASSERT_EQUAL(p->prio[PRIO].xoff, 3);
    CU_ASSERT_EQUAL(p->prio[PRIO].xon, 1);
    CU_ASSERT_EQUAL(p->prio[PRIO].quanta, 2 * Q_MAX + 1000);
    CU_ASSERT_EQUAL(p->prio[PRIO].paused_ns, 200 * US + 5120);
    roce_engine_free(r.e);
}

/* Link speed scales a quantum: 1000 quanta are 20.48 us at 25G, 1.28 us at 400G. */
static void test_link_speed(void)
{
    static const struct {
        uint32_t mbps;
        int64_t ns;
    } cases[] = {{25000, 20480}, {400000, 1280}, {100000, 5120}};
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct pfc_run r;
        run_init(&r, cases[i].mbps, 0, 0);
        feed(&r, RG_MACCTRL_PAUSE, 0, 1000, 0);
        const struct roce_pfc_report *p = finish(&r);
        CU_ASSERT_EQUAL(p->pause_frames, 1);
        CU_ASSERT_EQUAL(p->pause.paused_ns, cases[i].ns);
        roce_engine_free(r.e);
    }
}

/* A chain of XOFFs every 300 us for 2.7 ms keeps the priority paused from 0
 * to 3035.539 us: with 1 ms windows, three windows are storms; with 100 us,
 * thirty (the window [3000, 3100) is paused 35.539 us only); at a 100 %
 * share none is. */
static void test_storm_windows(void)
{
    static const struct {
        int64_t window;
        uint32_t pct;
        uint64_t storms;
    } cases[] = {{MS, 50, 3}, {100 * US, 50, 30}, {100 * US, 100, 0}, {7 * US, 50, 434}};
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct pfc_run r;
        run_init(&r, 0, cases[c].window, cases[c].pct);
        for (int i = 0; i < 10; i++)
            feed(&r, RG_MACCTRL_PFC, 1u << PRIO, Q_MAX, i * 300 * US);
        const struct roce_pfc_report *p = finish(&r);
        CU_ASSERT_EQUAL(p->prio[PRIO].paused_ns, 2700 * US + Q_MAX_NS_100G);
        CU_ASSERT_EQUAL(p->prio[PRIO].storm_windows, cases[c].storms);
        roce_engine_free(r.e);
    }
}

/* A pause far longer than the window (1 Mb/s: a quantum is 512 us) over
 * one-microsecond windows: counted at once, not window by window. */
static void test_long_pause_small_windows(void)
{
    struct pfc_run r;
    run_init(&r, 1, US, 0);
    for (int i = 0; i < 20; i++)
        feed(&r, RG_MACCTRL_PFC, 0xFF, Q_MAX, (int64_t)i * 60 * 1000 * MS);
    const struct roce_pfc_report *p = finish(&r);
    /* each XOFF pauses 65535 x 512 us = 33.55392 s (512000 ns a quantum), all eight
     * priorities, 60 s apart: every 1 us window of it is a storm */
    for (unsigned i = 0; i < ROCE_PFC_PRIORITIES; i++) {
        CU_ASSERT_EQUAL(p->prio[i].paused_ns, 20 * (int64_t)Q_MAX * 512000LL);
        CU_ASSERT_EQUAL(p->prio[i].storm_windows, 20 * (uint64_t)Q_MAX * 512);
    }
    roce_engine_free(r.e);
}

/* Other MAC Control opcodes are counted, not taken for pauses. */
static void test_other_opcode(void)
{
    struct pfc_run r;
    run_init(&r, 0, 0, 0);
    feed(&r, 0x0002, 0, 100, 0); /* GATE (EPON) */
    const struct roce_pfc_report *p = finish(&r);
    CU_ASSERT_EQUAL(p->other_mac_control, 1);
    CU_ASSERT_EQUAL(p->pfc_frames + p->pause_frames, 0);
    CU_ASSERT_EQUAL(p->pause.frames, 0);
    roce_engine_free(r.e);
}

/* ---- pause victims (roce_victims.c, ANALYSIS.md "Pause victims") ---- */

#define HOST_A   0x0A000001u /* 10.0.0.1: the requester */
#define HOST_H   0x0A000002u /* 10.0.0.2: the host whose NIC pauses */
#define HOST_C   0x0A000003u /* 10.0.0.3: another destination */
#define DSCP_P3  26u         /* priority 3 by the default map */
#define Q_10US   1953u       /* 1953 quanta = 9.999 us at 100G */
#define HOST_MAC 0x20u       /* a MAC's last byte: 02:00:00:00:00:20 */

/* A SEND Only from src (its NIC's MAC ends in mac_tail) to dst, QP dqpn, DSCP 26, at t. */
static void send_at(struct pfc_run *r, uint32_t src, uint32_t dst, uint32_t dqpn, uint8_t opcode,
                    uint8_t mac_tail, int64_t t)
{
    struct rg_spec s;
    uint8_t f[RG_MAX_FRAME];
    rg_spec_init(&s);
    rg_addr_v4(s.src, src);
    rg_addr_v4(s.dst, dst);
    s.eth_src[RG_MAC_LEN - 1] = mac_tail;
    s.dscp = DSCP_P3;
    s.opcode = opcode;
    s.dqpn = dqpn;
    s.psn = (uint32_t)r->frame;
    s.payload_len = opcode == RG_OP_RC_ACK ? 0 : 256;
    int n = rg_build(&s, f, sizeof f, NULL);
    CU_ASSERT_FATAL(n > 0);
    struct roce_frame_in in = {++r->frame, T0 + t,      ROCE_LINKTYPE_ETHERNET,
                               f,          (uint32_t)n, (uint32_t)n};
    CU_ASSERT_EQUAL(roce_engine_frame(r->e, &in, NULL), 0);
}

/* A PFC frame for priority 3 from the MAC ending in mac_tail at t. */
static void pause_from(struct pfc_run *r, uint8_t mac_tail, uint16_t quanta, int64_t t)
{
    uint16_t q[RG_PFC_PRIOS] = {0};
    uint8_t m[RG_MAC_LEN], f[RG_MAX_FRAME];
    memcpy(m, mac, RG_MAC_LEN);
    m[RG_MAC_LEN - 1] = mac_tail;
    q[PRIO] = quanta;
    int n = rg_build_mac_control(RG_MACCTRL_PFC, 1u << PRIO, q, m, f, sizeof f);
    CU_ASSERT_FATAL(n > 0);
    struct roce_frame_in in = {++r->frame, T0 + t,      ROCE_LINKTYPE_ETHERNET,
                               f,          (uint32_t)n, (uint32_t)n};
    CU_ASSERT_EQUAL(roce_engine_frame(r->e, &in, NULL), 0);
}

/* The report of flow src -> dst, QP dqpn (NULL when none). */
static const struct roce_flow_report *report_of(struct pfc_run *r, uint32_t dst, uint32_t dqpn,
                                                struct roce_flow_report *out)
{
    size_t n = roce_engine_flow_count(r->e);
    struct roce_flow_report *all = calloc(n ? n : 1, sizeof *all);
    CU_ASSERT_FATAL(all != NULL);
    n = roce_engine_flows(r->e, all, n);
    const struct roce_flow_report *found = NULL;
    for (size_t i = 0; i < n; i++)
        if (all[i].key.dqpn == dqpn && all[i].key.dst[15] == (uint8_t)dst) {
            *out = all[i];
            found = out;
        }
    free(all);
    return found;
}

/* A host NIC's pause: a flow to it and a flow to another host stop with it
 * and resume after it (victims; the second innocent); a request during the
 * pause, one long before it or one resuming long after it is no victim; the
 * pauser's own requests are none of its victims. */
static void test_victims(void)
{
    struct pfc_run r;
    struct roce_flow_report a_h, a_c, h_c;
    run_init(&r, 0, 0, 0);
    send_at(&r, HOST_H, HOST_A, 0xA1, RG_OP_RC_ACK, HOST_MAC, 0); /* H's NIC: a host MAC */
    send_at(&r, HOST_A, HOST_H, 0xB2, RG_OP_RC_SEND_ONLY, 1, 1 * US);
    send_at(&r, HOST_A, HOST_C, 0xC2, RG_OP_RC_SEND_ONLY, 1, 2 * US);
    send_at(&r, HOST_H, HOST_C, 0xD2, RG_OP_RC_SEND_ONLY, HOST_MAC, 3 * US);
    send_at(&r, HOST_A, HOST_C, 0xE2, RG_OP_RC_SEND_ONLY, 1, 4 * US);
    pause_from(&r, HOST_MAC, Q_10US, 5 * US);                                /* until 15 us */
    send_at(&r, HOST_H, HOST_C, 0xD2, RG_OP_RC_SEND_ONLY, HOST_MAC, 6 * US); /* its own */
    send_at(&r, HOST_A, HOST_H, 0xB2, RG_OP_RC_SEND_ONLY, 1, 16 * US);       /* stalled 15 us */
    send_at(&r, HOST_A, HOST_C, 0xC2, RG_OP_RC_SEND_ONLY, 1, 17 * US);       /* stalled 15 us */
    send_at(&r, HOST_A, HOST_C, 0xE2, RG_OP_RC_SEND_ONLY, 1, 30 * US);       /* 15 us after: no */
    pause_from(&r, HOST_MAC, Q_10US, 20 * US);                         /* until 30 us; XON at 27 */
    send_at(&r, HOST_A, HOST_C, 0xC2, RG_OP_RC_SEND_ONLY, 1, 25 * US); /* sent during it */
    pause_from(&r, HOST_MAC, 0, 27 * US);
    send_at(&r, HOST_A, HOST_C, 0xC2, RG_OP_RC_SEND_ONLY, 1, 28 * US);
    pause_from(&r, HOST_MAC, Q_10US, 60 * US); /* 32 us after A's last: beyond the window */
    send_at(&r, HOST_A, HOST_C, 0xC2, RG_OP_RC_SEND_ONLY, 1, 80 * US);
    roce_engine_finish(r.e);
    CU_ASSERT_EQUAL(roce_engine_totals(r.e)->pauses, 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(report_of(&r, HOST_H, 0xB2, &a_h));
    CU_ASSERT_EQUAL(a_h.pause_stalls, 1);
    CU_ASSERT_EQUAL(a_h.pause_stall_ns, 15 * US);
    CU_ASSERT_EQUAL(a_h.hol_stalls, 0); /* it waited for its own destination */
    CU_ASSERT_PTR_NOT_NULL_FATAL(report_of(&r, HOST_C, 0xC2, &a_c));
    CU_ASSERT_EQUAL(a_c.pause_stalls, 1);
    CU_ASSERT_EQUAL(a_c.hol_stall_ns, 15 * US);
    CU_ASSERT_EQUAL(a_c.hol_stalls, 1); /* blocked behind H's pause */
    CU_ASSERT_PTR_NOT_NULL_FATAL(report_of(&r, HOST_C, 0xD2, &h_c));
    CU_ASSERT_EQUAL(h_c.pause_stalls, 0); /* H's own requests */
    struct roce_flow_report late;
    CU_ASSERT_PTR_NOT_NULL_FATAL(report_of(&r, HOST_C, 0xE2, &late));
    CU_ASSERT_EQUAL(late.pause_stalls, 0); /* resumed long after the pause: its own gap */
    CU_ASSERT_EQUAL(a_c.priority, 3);
    /* the episodes: the first with its two victims, the second ended by its XON */
    const struct roce_pause_report *l = &roce_engine_totals(r.e)->pause_list;
    CU_ASSERT_EQUAL_FATAL(l->n, 3);
    const struct roce_pause_episode *p = &l->p[0];
    CU_ASSERT_EQUAL(p->frame, 6);
    CU_ASSERT_EQUAL(p->prio, PRIO);
    CU_ASSERT(p->has_mac && p->mac[RG_MAC_LEN - 1] == HOST_MAC);
    CU_ASSERT_EQUAL(p->start_ns, T0 + 5 * US);
    CU_ASSERT_EQUAL(p->end_ns, T0 + 5 * US + 9999); /* 1953 x 5.12 ns */
    CU_ASSERT_EQUAL(p->xoffs, 1);
    CU_ASSERT_EQUAL(p->xon, 0);
    CU_ASSERT_EQUAL(p->victims, 2);
    CU_ASSERT_EQUAL(p->innocent, 1);
    CU_ASSERT_EQUAL(p->stall_ns, 30 * US);
    CU_ASSERT_EQUAL_FATAL(p->n_named, 2);
    CU_ASSERT_EQUAL(p->v[0].key.dqpn, 0xB2);
    CU_ASSERT_EQUAL(p->v[0].resume_frame, 8);
    CU_ASSERT_EQUAL(p->v[0].stall_ns, 15 * US);
    CU_ASSERT_EQUAL(p->v[0].innocent, 0);
    CU_ASSERT_EQUAL(p->v[1].key.dqpn, 0xC2);
    CU_ASSERT_EQUAL(p->v[1].resume_frame, 9);
    CU_ASSERT_EQUAL(p->v[1].innocent, 1);
    CU_ASSERT_EQUAL(l->p[1].frame, 11);
    CU_ASSERT_EQUAL(l->p[1].end_ns, T0 + 27 * US); /* its XON */
    CU_ASSERT_EQUAL(l->p[1].xon, 1);
    CU_ASSERT_EQUAL(l->p[1].victims, 0); /* A -> C sent during it */
    CU_ASSERT_EQUAL(l->p[2].victims, 0); /* beyond the window */
    CU_ASSERT_EQUAL(roce_engine_totals(r.e)->pauses_unlisted, 0);
    roce_engine_free(r.e);
}

#define VICTIMS 10u /* more than a pause names */
#define PAUSES  41u /* more than the report lists */

/* A pause with more victims than it names, one renewed then ended by its
 * XON, and more pauses than the report lists (ANALYSIS.md "Pause victims",
 * "Bounds and memory"). */
static void test_pause_list_bounds(void)
{
    struct pfc_run r;
    run_init(&r, 0, 0, 0);
    for (uint32_t i = 0; i < VICTIMS; i++) /* frames 1..10 */
        send_at(&r, HOST_A, HOST_C, 0x100 + i, RG_OP_RC_SEND_ONLY, 1, i * 100);
    pause_from(&r, HOST_MAC, Q_10US, 2 * US); /* frame 11, until 11.999 us */
    for (uint32_t i = 0; i < VICTIMS; i++)    /* frames 12..21: each stalled 12 us */
        send_at(&r, HOST_A, HOST_C, 0x100 + i, RG_OP_RC_SEND_ONLY, 1, 12 * US + i * 100);
    pause_from(&r, HOST_MAC, Q_10US, 100 * US); /* frame 22 */
    pause_from(&r, HOST_MAC, Q_10US, 105 * US); /* renewed */
    pause_from(&r, HOST_MAC, 0, 110 * US);      /* XON */
    for (unsigned k = 2; k < PAUSES; k++)
        pause_from(&r, HOST_MAC, Q_10US, 200 * US + k * 20 * US);
    roce_engine_finish(r.e);
    const struct roce_totals *t = roce_engine_totals(r.e);
    CU_ASSERT_EQUAL(t->pauses, PAUSES);
    CU_ASSERT_EQUAL(t->pause_list.n, ROCE_PAUSES_LISTED);
    CU_ASSERT_EQUAL(t->pauses_unlisted, PAUSES - ROCE_PAUSES_LISTED);
    const struct roce_pause_episode *p = &t->pause_list.p[0];
    CU_ASSERT_EQUAL(p->victims, VICTIMS);
    CU_ASSERT_EQUAL(p->n_named, ROCE_PAUSE_VICTIMS);
    CU_ASSERT_EQUAL(p->stall_ns, VICTIMS * 12 * US);
    CU_ASSERT_EQUAL(p->innocent, 0); /* a MAC without RoCE frames: the fabric's */
    CU_ASSERT_EQUAL(p->v[ROCE_PAUSE_VICTIMS - 1].key.dqpn, 0x100 + ROCE_PAUSE_VICTIMS - 1);
    CU_ASSERT_EQUAL(p->v[ROCE_PAUSE_VICTIMS - 1].resume_frame, 12 + ROCE_PAUSE_VICTIMS - 1);
    p = &t->pause_list.p[1];
    CU_ASSERT_EQUAL(p->frame, 22);
    CU_ASSERT_EQUAL(p->xoffs, 2);
    CU_ASSERT_EQUAL(p->xon, 1);
    CU_ASSERT_EQUAL(p->end_ns - p->start_ns, 10 * US);
    CU_ASSERT_EQUAL(t->pause_list.p[ROCE_PAUSES_LISTED - 1].frame, 24 + ROCE_PAUSES_LISTED - 2);
    roce_engine_free(r.e);
}

static const struct tu_test tests[] = {
    {"victims", test_victims},
    {"pause_list_bounds", test_pause_list_bounds},
    {"one_xoff", test_one_xoff},
    {"refresh_and_xon", test_refresh_and_xon},
    {"link_speed", test_link_speed},
    {"storm_windows", test_storm_windows},
    {"long_pause_small_windows", test_long_pause_small_windows},
    {"other_opcode", test_other_opcode},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "pfc", tests);
}
