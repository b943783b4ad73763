/*
 * roce_hosts.h - the source MACs of RoCE and MAC Control frames: which are
 * host NICs, and who sent the PFC and PAUSE frames (roce_hosts.c; not for
 * front ends).
 */
#ifndef ROCE_HOSTS_H
#define ROCE_HOSTS_H

#include <stdint.h>

#define ROCE_MACS_MAX                                                                              \
    4096u /* MACs tracked (fits roce_flow.mac_slot); frames of others are                          \
              counted in macs_untracked */

struct roce_engine;
struct roce_flow;
struct roce_frame_in;
struct roce_pkt;

/* 0, or -1 when out of memory (the table is struct roce_engine's: roce_hosts_free). */
int roce_hosts_init(struct roce_engine *e);
void roce_hosts_free(struct roce_engine *e);
/* A RoCE frame of flow f. */
void roce_hosts_roce(struct roce_engine *e, struct roce_flow *f, const struct roce_frame_in *in,
                     const struct roce_pkt *pkt);
/* A PFC or PAUSE frame (pkt->mac_ctrl): the handle of its sender's entry
 * (0: none, or untracked). */
uint32_t roce_hosts_mac_control(struct roce_engine *e, const struct roce_frame_in *in,
                                const struct roce_pkt *pkt);

#endif
