/*
 * roce_pfc.h - PFC and PAUSE accounting (roce_pfc.c; not for front ends).
 */
#ifndef ROCE_PFC_H
#define ROCE_PFC_H

#include <stdint.h>

struct roce_engine;
struct roce_pkt;

void roce_pfc_init(struct roce_engine *e);
/* A MAC Control frame (frame number frame) at ts. */
void roce_pfc_frame(struct roce_engine *e, const struct roce_pkt *pkt, uint64_t frame, int64_t ts);
/* Bring paused times up to now (final: end of capture, running pauses run out). */
void roce_pfc_settle(struct roce_engine *e, int64_t now, int final);

#endif
