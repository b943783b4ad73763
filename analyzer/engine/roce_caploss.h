/*
 * roce_caploss.h - PSN gaps told apart: lost in the network, or only missed
 * by the capture (roce_caploss.c; not for front ends).
 */
#ifndef ROCE_CAPLOSS_H
#define ROCE_CAPLOSS_H

#include <stdint.h>

struct roce_engine;
struct roce_flow;
struct roce_verdict;

/* 0, or -1 when out of memory (the ring is struct roce_engine's: it frees it). */
int roce_caploss_init(struct roce_engine *e);
/* A PSN gap of `missing` PSNs before the request of v on f: classified now
 * (UC) or when the responder's ACK, a NAK or a resend shows what it was. */
void roce_caploss_gap(struct roce_engine *e, struct roce_flow *f, struct roce_verdict *v,
                      uint32_t missing);
/* An ACK (or READ response with an ACK syndrome) for f's requests up to psn. */
void roce_caploss_ack(struct roce_engine *e, struct roce_flow *f, uint32_t psn);
/* A NAK for psn, or a resend from psn, on f's requests. */
void roce_caploss_resend(struct roce_engine *e, struct roce_flow *f, uint32_t psn);
/* Classify as network loss the gaps older than the NAK horizon at now (all when flush). */
void roce_caploss_expire(struct roce_engine *e, int64_t now, int flush);
/* The flow goes away or starts afresh: its pending gaps are network loss. */
void roce_caploss_forget(struct roce_engine *e, struct roce_flow *f);
/* The pending gaps' ring: room made so far, and its bound. */
void roce_caploss_room(const struct roce_engine *e, uint32_t *room, uint32_t *max);

#endif
