/*
 * roce_config.c - the engine's configuration: defaults and limits (see
 * roce_config.h).
 */
#include "roce_config.h"

#include <string.h>

#include "roce_time.h"

#define DEFAULT_CNP_WINDOW_NS   (100 * ROCE_NS_PER_US)
#define DEFAULT_MAX_FLOWS       65536u
#define DEFAULT_MAX_EPISODES    65536u
#define DEFAULT_OPEN_VERDICTS   65536u
#define DEFAULT_NAK_HORIZON_NS  ROCE_NS_PER_SEC
#define DEFAULT_LINK_MBPS       100000u
#define DEFAULT_PFC_WINDOW_NS   ROCE_NS_PER_SEC
#define DEFAULT_PFC_STORM_PCT   50u
#define DEFAULT_DCQCN_W_NS      (20 * ROCE_NS_PER_US)
#define DEFAULT_DCQCN_D_NS      (4 * ROCE_NS_PER_US)
#define DEFAULT_DCQCN_PACKETS   5u
#define DEFAULT_DCQCN_CNPS      3u
#define DEFAULT_DCQCN_REACTED   85u
#define DEFAULT_DCQCN_IGNORED   95u
#define DEFAULT_CE_UNANSWERED   3u
#define DEFAULT_CNP_UNEXPLAINED 3u
#define DEFAULT_PFC_PAUSED_PCT  20u
#define DEFAULT_NAK_RTT_NS      ROCE_NS_PER_MS
#define DEFAULT_VICTIM_WINDOW   (10 * ROCE_NS_PER_US)
#define DEFAULT_CNP_PACING      (4 * ROCE_NS_PER_US)
#define DEFAULT_INCAST_SENDERS  4u
#define DEFAULT_INCAST_WINDOW   (10 * ROCE_NS_PER_US)
#define MIN_INCAST_SENDERS      2u
#define MAX_INCAST_SENDERS      32u /* a receiver's sender slots (roce_incast.c) */
#define MAX_DCQCN_NS            ROCE_NS_PER_SEC
#define MAX_DCQCN_PCT           1000u
#define MIN_FLOWS               4u
#define MAX_FLOWS               (1u << 26)
#define MAX_OPEN_VERDICTS       (1u << 26)
#define MAX_WINDOW_NS           (1LL << 61) /* a capture time (<= 2^62) plus a window fits */
#define PCT_MAX                 100u
#define DSCP_CLASS_SHIFT        3 /* a DSCP's class selector: its upper three bits */

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
    cfg->dcqcn_window_ns = DEFAULT_DCQCN_W_NS;
    cfg->dcqcn_delay_ns = DEFAULT_DCQCN_D_NS;
    cfg->dcqcn_min_packets = DEFAULT_DCQCN_PACKETS;
    cfg->dcqcn_min_cnps = DEFAULT_DCQCN_CNPS;
    cfg->dcqcn_reacted_pct = DEFAULT_DCQCN_REACTED;
    cfg->dcqcn_ignored_pct = DEFAULT_DCQCN_IGNORED;
    cfg->ce_unanswered_min = DEFAULT_CE_UNANSWERED;
    cfg->cnp_unexplained_min = DEFAULT_CNP_UNEXPLAINED;
    cfg->pfc_paused_pct = DEFAULT_PFC_PAUSED_PCT;
    cfg->nak_rtt_ns = DEFAULT_NAK_RTT_NS;
    cfg->victim_window_ns = DEFAULT_VICTIM_WINDOW;
    cfg->cnp_pacing_ns = DEFAULT_CNP_PACING;
    cfg->incast_senders = DEFAULT_INCAST_SENDERS;
    cfg->incast_window_ns = DEFAULT_INCAST_WINDOW;
    for (unsigned d = 0; d < ROCE_DSCP_VALUES; d++)
        cfg->dscp_priority[d] = (uint8_t)(d >> DSCP_CLASS_SHIFT);
}

/* Nonzero when every DSCP maps to a priority. */
static int dscp_map_valid(const struct roce_config *cfg)
{
    for (unsigned d = 0; d < ROCE_DSCP_VALUES; d++)
        if (cfg->dscp_priority[d] > ROCE_PRIORITY_MAX)
            return 0;
    return 1;
}

int roce_config_valid(const struct roce_config *cfg)
{
    return cfg->max_flows >= MIN_FLOWS && cfg->max_flows <= MAX_FLOWS && cfg->cnp_window_ns >= 0 &&
           cfg->cnp_window_ns <= MAX_WINDOW_NS && cfg->nak_horizon_ns >= 0 &&
           cfg->nak_horizon_ns <= MAX_WINDOW_NS && cfg->max_open_verdicts > 0 &&
           cfg->max_open_verdicts <= MAX_OPEN_VERDICTS && cfg->link_speed_mbps > 0 &&
           cfg->pfc_window_ns > 0 && cfg->pfc_window_ns <= MAX_WINDOW_NS &&
           cfg->pfc_storm_pct <= PCT_MAX && cfg->dcqcn_window_ns > 0 &&
           cfg->dcqcn_window_ns <= MAX_DCQCN_NS && cfg->dcqcn_delay_ns >= 0 &&
           cfg->dcqcn_delay_ns <= MAX_DCQCN_NS && cfg->dcqcn_min_packets > 0 &&
           cfg->dcqcn_min_cnps > 0 && cfg->dcqcn_ignored_pct <= MAX_DCQCN_PCT &&
           cfg->dcqcn_reacted_pct <= cfg->dcqcn_ignored_pct && cfg->ce_unanswered_min > 0 &&
           cfg->cnp_unexplained_min > 0 && cfg->pfc_paused_pct > 0 &&
           cfg->pfc_paused_pct <= PCT_MAX && cfg->nak_rtt_ns > 0 &&
           cfg->nak_rtt_ns <= MAX_WINDOW_NS && cfg->victim_window_ns > 0 &&
           cfg->victim_window_ns <= MAX_WINDOW_NS && cfg->cnp_pacing_ns > 0 &&
           cfg->cnp_pacing_ns <= MAX_WINDOW_NS && cfg->incast_senders >= MIN_INCAST_SENDERS &&
           cfg->incast_senders <= MAX_INCAST_SENDERS && cfg->incast_window_ns > 0 &&
           cfg->incast_window_ns <= MAX_WINDOW_NS && dscp_map_valid(cfg);
}
