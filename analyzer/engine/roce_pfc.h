/*
 * roce_pfc.h - PFC and PAUSE accounting (roce_pfc.c; not for front ends).
 */
#ifndef ROCE_PFC_H
#define ROCE_PFC_H

#include <stdint.h>

struct roce_config;
struct roce_engine;
struct roce_pkt;

/* No priority: a native InfiniBand packet (its SL is not a PFC priority). */
#define ROCE_PRIORITY_NONE 0xFFu
/* The PFC priority a RoCE packet travels on (ANALYSIS.md "Priorities"): the
 * PCP of its outer VLAN tag, else the COS of its ERSPAN header, else its
 * DSCP through cfg's map. */
unsigned roce_pfc_priority(const struct roce_config *cfg, const struct roce_pkt *pkt);

void roce_pfc_init(struct roce_engine *e);
/* A MAC Control frame (frame number frame) at ts, from the MAC table entry
 * mac (its handle, 0: untracked). */
void roce_pfc_frame(struct roce_engine *e, const struct roce_pkt *pkt, uint64_t frame, int64_t ts,
                    uint32_t mac);
/* Bring paused times up to now (final: end of capture, running pauses run out). */
void roce_pfc_settle(struct roce_engine *e, int64_t now, int final);

#endif
