/*
 * roce_config.c - the engine's configuration: defaults and limits (see
 * roce_config.h).
 */
#include "roce_config.h"

#include <string.h>

#include "roce_time.h"

#define DEFAULT_CNP_WINDOW_NS  (100 * ROCE_NS_PER_US)
#define DEFAULT_MAX_FLOWS      65536u
#define DEFAULT_MAX_EPISODES   65536u
#define DEFAULT_OPEN_VERDICTS  65536u
#define DEFAULT_NAK_HORIZON_NS ROCE_NS_PER_SEC
#define DEFAULT_LINK_MBPS      100000u
#define DEFAULT_PFC_WINDOW_NS  ROCE_NS_PER_SEC
#define DEFAULT_PFC_STORM_PCT  50u
#define MIN_FLOWS              4u
#define MAX_FLOWS              (1u << 26)
#define MAX_OPEN_VERDICTS      (1u << 26)
#define MAX_WINDOW_NS          (1LL << 61) /* a capture time (<= 2^62) plus a window fits */
#define PCT_MAX                100u

void roce_config_default(struct roce_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->udp_port = ROCE_UDP_PORT_ROCEV2;
    cfg->vxlan_port = ROCE_UDP_PORT_VXLAN;
    cfg->check_icrc = 1;
    cfg->cnp_window_ns = DEFAULT_CNP_WINDOW_NS;
    cfg->max_flows = DEFAULT_MAX_FLOWS;
    cfg->max_episodes = DEFAULT_MAX_EPISODES;
    cfg->max_open_verdicts = DEFAULT_OPEN_VERDICTS;
    cfg->nak_horizon_ns = DEFAULT_NAK_HORIZON_NS;
    cfg->link_speed_mbps = DEFAULT_LINK_MBPS;
    cfg->pfc_window_ns = DEFAULT_PFC_WINDOW_NS;
    cfg->pfc_storm_pct = DEFAULT_PFC_STORM_PCT;
}

int roce_config_valid(const struct roce_config *cfg)
{
    return cfg->max_flows >= MIN_FLOWS && cfg->max_flows <= MAX_FLOWS && cfg->cnp_window_ns >= 0 &&
           cfg->cnp_window_ns <= MAX_WINDOW_NS && cfg->nak_horizon_ns >= 0 &&
           cfg->nak_horizon_ns <= MAX_WINDOW_NS && cfg->max_open_verdicts > 0 &&
           cfg->max_open_verdicts <= MAX_OPEN_VERDICTS && cfg->link_speed_mbps > 0 &&
           cfg->pfc_window_ns > 0 && cfg->pfc_window_ns <= MAX_WINDOW_NS &&
           cfg->pfc_storm_pct <= PCT_MAX;
}
