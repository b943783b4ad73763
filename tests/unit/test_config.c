/*
 * test_config.c - the engine's configuration (roce_config.c): the defaults
 * of roce_engine.h and the limits roce_engine_new() holds a configuration
 * to, each tested at its edge.
 */
#include <stdint.h>

#include "roce_engine.h"
#include "test_util.h"

static void test_defaults(void)
{
    struct roce_config cfg;
    roce_config_default(&cfg);
    CU_ASSERT_EQUAL(cfg.udp_port, 4791);
    CU_ASSERT_EQUAL(cfg.vxlan_port, 4789);
    CU_ASSERT_EQUAL(cfg.check_icrc, 1);
    CU_ASSERT_EQUAL(cfg.cnp_window_ns, 100 * ROCE_NS_PER_US);
    CU_ASSERT_EQUAL(cfg.pmtu, 0);
    CU_ASSERT_EQUAL(cfg.max_flows, 65536);
    CU_ASSERT_EQUAL(cfg.max_episodes, 65536);
    CU_ASSERT_EQUAL(cfg.max_open_verdicts, 65536);
    CU_ASSERT_EQUAL(cfg.nak_horizon_ns, ROCE_NS_PER_SEC);
    CU_ASSERT_EQUAL(cfg.link_speed_mbps, 100000);
    CU_ASSERT_EQUAL(cfg.pfc_window_ns, ROCE_NS_PER_SEC);
    CU_ASSERT_EQUAL(cfg.pfc_storm_pct, 50);
    CU_ASSERT_PTR_NULL(cfg.on_verdict);
    CU_ASSERT_TRUE(roce_config_valid(&cfg));
    struct roce_engine *e = roce_engine_new(&cfg);
    CU_ASSERT_PTR_NOT_NULL(e);
    roce_engine_free(e);
}

#define WINDOW_MAX (INT64_C(1) << 61)

/* One bound: the last value accepted and the first refused. */
struct edge {
    const char *what;
    void (*set)(struct roce_config *cfg, int64_t v);
    int64_t ok, bad;
};

static void set_max_flows(struct roce_config *c, int64_t v)
{
    c->max_flows = (uint32_t)v;
}
static void set_open(struct roce_config *c, int64_t v)
{
    c->max_open_verdicts = (uint32_t)v;
}
static void set_cnp_window(struct roce_config *c, int64_t v)
{
    c->cnp_window_ns = v;
}
static void set_nak_horizon(struct roce_config *c, int64_t v)
{
    c->nak_horizon_ns = v;
}
static void set_pfc_window(struct roce_config *c, int64_t v)
{
    c->pfc_window_ns = v;
}
static void set_speed(struct roce_config *c, int64_t v)
{
    c->link_speed_mbps = (uint32_t)v;
}
static void set_storm(struct roce_config *c, int64_t v)
{
    c->pfc_storm_pct = (uint32_t)v;
}

static const struct edge edges[] = {
    {"max_flows low", set_max_flows, 4, 3},
    {"max_flows high", set_max_flows, 1 << 26, (1 << 26) + 1},
    {"max_open_verdicts low", set_open, 1, 0},
    {"max_open_verdicts high", set_open, 1 << 26, (1 << 26) + 1},
    {"cnp_window_ns low", set_cnp_window, 0, -1},
    {"cnp_window_ns high", set_cnp_window, WINDOW_MAX, WINDOW_MAX + 1},
    {"nak_horizon_ns low", set_nak_horizon, 0, -1},
    {"nak_horizon_ns high", set_nak_horizon, WINDOW_MAX, WINDOW_MAX + 1},
    {"pfc_window_ns low", set_pfc_window, 1, 0},
    {"pfc_window_ns high", set_pfc_window, WINDOW_MAX, WINDOW_MAX + 1},
    {"link_speed_mbps", set_speed, 1, 0},
    {"pfc_storm_pct", set_storm, 100, 101},
};

static void test_limits(void)
{
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        struct roce_config cfg;
        roce_config_default(&cfg);
        edges[i].set(&cfg, edges[i].ok);
        if (!roce_config_valid(&cfg))
            CU_FAIL(edges[i].what); /* refused at its limit */
        edges[i].set(&cfg, edges[i].bad);
        if (roce_config_valid(&cfg))
            CU_FAIL(edges[i].what); /* accepted beyond its limit */
        CU_ASSERT_PTR_NULL(roce_engine_new(&cfg));
    }
}

static const struct tu_test tests[] = {
    {"defaults", test_defaults},
    {"limits", test_limits},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "config", tests);
}
