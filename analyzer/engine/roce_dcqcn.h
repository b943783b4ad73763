/*
 * roce_dcqcn.h - the DCQCN reaction of request flows to their CNPs
 * (roce_dcqcn.c; not for front ends).
 */
#ifndef ROCE_DCQCN_H
#define ROCE_DCQCN_H

#include <stdint.h>

#include "roce_lat.h"

#define DCQCN_PENDING 8u /* CNPs of a flow whose after window is still open */

struct roce_engine;
struct roce_flow;
struct roce_flow_report;
struct roce_verdict;

/* A CNP whose after window is open. */
struct dcqcn_eval {
    uint64_t frame, vq_seq;
    int64_t ts;
    uint64_t before_bytes, before_packets, after_bytes, after_packets;
};

/* Per request flow whose connection received CNPs (allocated at the first). */
struct dcqcn_state {
    struct dcqcn_eval pend[DCQCN_PENDING]; /* oldest at head */
    uint8_t head, count;
    uint64_t evaluated;
    struct roce_lat before, after, ratio; /* Mb/s, Mb/s, ppm of the evaluated CNPs */
};

/* 0, or -1 when out of memory (the ring is struct roce_engine's: it frees it). */
int roce_dcqcn_init(struct roce_engine *e);
/* A CNP (frame, time t, its verdict's queue sequence) of the connection of
 * request flow x, decided now: current when it is the frame being analysed,
 * else a CNP that waited for its connection (its verdict is open). */
void roce_dcqcn_cnp(struct roce_engine *e, struct roce_flow *x, uint64_t frame, uint64_t vq_seq,
                    int64_t t, int current);
/* A request packet of f (len: original length) at ts: into the after windows
 * of its open CNPs, if it has any. */
void roce_dcqcn_request(const struct roce_engine *e, struct roce_flow *f, int64_t ts, uint32_t len);
/* Evaluate the CNPs whose after window ended before now; with flush (the
 * end of the capture), drop the others unevaluated. */
void roce_dcqcn_expire(struct roce_engine *e, int64_t now, int flush);
/* The flow goes away: its open CNPs are not evaluated. */
void roce_dcqcn_forget(struct roce_engine *e, struct roce_flow *f);
/* The flow's DCQCN report (medians, verdict) into r->dcqcn. */
void roce_dcqcn_report(const struct roce_engine *e, const struct roce_flow *f,
                       struct roce_flow_report *r);
void roce_dcqcn_free(struct roce_flow *f);
/* The ring of CNPs waiting for their after window: room made so far, and its bound. */
void roce_dcqcn_room(const struct roce_engine *e, uint32_t *room, uint32_t *max);

#endif
