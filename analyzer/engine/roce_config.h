/*
 * roce_config.h - how an engine is set up (struct roce_config): ports,
 * windows, bounds and the callback for settled verdicts; the defaults; and
 * the capture filter that goes with a configuration.
 */
#ifndef ROCE_CONFIG_H
#define ROCE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "roce_verdict.h"

/* Callback for settled verdicts (frames with flags != 0), in frame order.
 * The record is only valid during the call. */
typedef void (*roce_verdict_fn)(const struct roce_verdict *v, void *ctx);
/* Callback for every flow created: its id (ids count up from 1) and the
 * frame that created it (by its first packet, or by a CM exchange). */
typedef void (*roce_flow_fn)(uint64_t id, uint64_t frame, void *ctx);

#define ROCE_DSCP_VALUES  64 /* DSCP is 6 bits */
#define ROCE_PRIORITY_MAX 7  /* 802.1p priorities 0..7 */

struct roce_config {
    uint16_t udp_port;          /* RoCEv2 UDP destination port, default 4791 */
    uint16_t vxlan_port;        /* VXLAN UDP port unwrapped, default 4789 (0: none) */
    uint8_t check_icrc;         /* default 1 */
    int64_t cnp_window_ns;      /* CE/CNP window, default 100 us */
    uint32_t pmtu;              /* PMTU to assume until learned (0: unknown), default 0 */
    uint32_t max_flows;         /* tracked flows; least recently active evicted, default 65536 */
    uint32_t max_episodes;      /* episodes kept for the report (all are counted), default 65536 */
    uint32_t max_open_verdicts; /* verdicts waiting to settle, default 65536 */
    int64_t nak_horizon_ns;     /* a NAK triggers an episode at most this late, default 1 s */
    uint32_t link_speed_mbps;   /* for PFC/PAUSE quanta, default 100000 (100G) */
    int64_t pfc_window_ns;      /* PFC storm window, default 1 s */
    uint32_t pfc_storm_pct;     /* paused share of a window that makes a storm, default 50 */
    /* the priority of an untagged frame by its DSCP (ANALYSIS.md "Priorities"),
       default DSCP / 8 (the DSCP's class selector: 26 -> 3, 48 -> 6) */
    uint8_t dscp_priority[ROCE_DSCP_VALUES];
    /* DCQCN reaction (ANALYSIS.md "DCQCN reaction") */
    int64_t dcqcn_window_ns;    /* W: the windows before and after a CNP, default 20 us */
    int64_t dcqcn_delay_ns;     /* D: from the CNP to the after window, default 4 us */
    uint32_t dcqcn_min_packets; /* requests each window needs, default 5 */
    uint32_t dcqcn_min_cnps;    /* evaluated CNPs a verdict needs, default 3 */
    uint32_t dcqcn_reacted_pct; /* median ratio at most this: reacted, default 85 */
    uint32_t dcqcn_ignored_pct; /* median ratio at least this: ignored, default 95 */
    /* diagnoses */
    uint32_t ce_unanswered_min;   /* unanswered CE marks that make ce_unanswered, default 3 */
    uint32_t cnp_unexplained_min; /* unexplained CNPs of a flow that make cnp_unexplained, 3 */
    uint32_t pfc_paused_pct;      /* paused share of the capture that makes pfc_paused, 20 */
    int64_t victim_window_ns;     /* a pause victim's last request before it, at most, 10 us */
    int64_t cnp_pacing_ns;        /* CNPs to one QP closer than this: unpaced, default 4 us */
    uint32_t incast_senders;      /* senders at once that make an incast, default 4 (>= 2) */
    int64_t incast_window_ns;     /* "at once": a request within this, default 10 us */
    int64_t nak_rtt_ns; /* a flow's NAK round trip while none was measured, default 1 ms */
    roce_verdict_fn on_verdict;
    roce_flow_fn on_flow; /* NULL: none */
    void *ctx;            /* of both callbacks */
};

/* Fill cfg with the defaults above. */
void roce_config_default(struct roce_config *cfg);

/* Nonzero when roce_engine_new() accepts cfg: every bound within its limits
 * (max_flows 4 .. 2^26, max_open_verdicts 1 .. 2^26, link speed and PFC
 * window not 0, storm share at most 100 %, windows and horizon 0 .. 2^61 ns,
 * a DCQCN window of 1 ns .. 1 s and delay of 0 .. 1 s, DCQCN shares at most
 * 1000 % with reacted <= ignored, at least one packet, CNP and CE mark, every
 * DSCP mapped to a priority 0..7). */
int roce_config_valid(const struct roce_config *cfg);

/*
 * The default capture filter for what the engine decodes under cfg (a BPF
 * expression, as pcap_compile() reads it): RoCEv2 (UDP to cfg->udp_port),
 * VXLAN (UDP to cfg->vxlan_port, unless 0), RoCEv1, MAC Control (PFC and
 * PAUSE) and GRE (ERSPAN, GRE-TEB, IP in GRE), untagged or behind one or two
 * VLAN tags. Writes it into buf (len bytes, NUL-terminated when len > 0)
 * and returns its length: the text was cut when that is >= len.
 * ROCE_CAPTURE_FILTER_LEN bytes always hold it.
 */
#define ROCE_CAPTURE_FILTER_LEN 512
size_t roce_capture_filter(const struct roce_config *cfg, char *buf, size_t len);

#endif
