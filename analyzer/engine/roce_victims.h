/*
 * roce_victims.h - the victims of PFC pauses: flows whose requests stopped
 * while their priority was paused, and those of them that were innocent
 * (head-of-line blocked behind another host's pause) (roce_victims.c; not
 * for front ends; ANALYSIS.md "Pause victims").
 */
#ifndef ROCE_VICTIMS_H
#define ROCE_VICTIMS_H

#include <stdint.h>

struct roce_engine;
struct roce_flow;

/* Pauses remembered at once (the latest; roce_internal.h). */
#define ROCE_PAUSES_KEPT 64

/* An XOFF (quanta > 0, lasting dur_ns) or XON (dur_ns 0) for priority prio
 * (ROCE_PFC_PRIORITIES: link PAUSE) from the MAC table entry mac (its
 * handle, 0: untracked), frame at ts. */
void roce_victims_pause(struct roce_engine *e, unsigned prio, uint32_t mac, int64_t dur_ns,
                        uint64_t frame, int64_t ts);
/* A request of f (whose priority is known) at ts, frame: was f stalled by
 * a pause since its previous request? Call before f's last request time
 * moves on. */
void roce_victims_request(struct roce_engine *e, struct roce_flow *f, uint64_t frame, int64_t ts);

#endif
