/*
 * test_pfc.c - PFC / PAUSE accounting (analyzer/engine/roce_pfc.c):
 * XOFF/XON counts, quanta, time paused as the union of pause intervals at
 * the configured link speed, and storm windows, against values worked out
 * by hand here. Frames come from rocegen's MAC Control builder.
 */
#include <string.h>

#include "roce_engine.h"
#include "rocegen_encap.h"
#include "test_util.h"

#define T0     1700000000000000000LL
#define US     1000LL
#define MS     1000000LL
#define PRIO   3u
#define Q_MAX  0xFFFFu
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
    struct roce_frame_in in = {++r->frame, T0 + t, ROCE_LINKTYPE_ETHERNET, f, (uint32_t)n,
                               (uint32_t)n};
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
    feed(&r, RG_MACCTRL_PFC, 1u << PRIO, Q_MAX, 0);         /* paused 0 .. 335.539 us */
    feed(&r, RG_MACCTRL_PFC, 1u << PRIO, Q_MAX, 100 * US);  /* refreshed: .. 435.539 us */
    feed(&r, RG_MACCTRL_PFC, 1u << PRIO, 0, 200 * US);      /* XON at 200 us */
    feed(&r, RG_MACCTRL_PFC, 1u << PRIO, 1000, 300 * US);   /* 5.12 us */
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

static const struct tu_test tests[] = {
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
