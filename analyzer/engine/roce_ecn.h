/*
 * roce_ecn.h - ECN CE marks and their CNPs (roce_ecn.c; not for front ends).
 */
#ifndef ROCE_ECN_H
#define ROCE_ECN_H

#include <stdint.h>

#include "roce_config.h"

struct roce_engine;
struct roce_flow;
struct roce_verdict;

/* 0, or -1 when out of memory (the rings are struct roce_engine's: it frees them). */
int roce_ecn_init(struct roce_engine *e);
/* A CE-marked request on f. */
void roce_ecn_ce(struct roce_engine *e, struct roce_flow *f, struct roce_verdict *v);
/* A CNP on cnp_flow: decided now when the flow is paired, else it waits. */
void roce_ecn_cnp(struct roce_engine *e, struct roce_flow *cnp_flow, struct roce_verdict *v);
/* The pacing of a CNP that cnp_flow carries (frame at ts; ANALYSIS.md "CNP
 * pacing"): its gap from the flow's previous CNP and from the previous CNP
 * between the same two hosts; evidence of cnp_unpaced when too close. */
void roce_ecn_pacing(struct roce_engine *e, struct roce_flow *cnp_flow, uint64_t frame, int64_t ts);
/* a and b were just paired: decide the CNPs that waited on either. */
void roce_ecn_paired(struct roce_engine *e, struct roce_flow *a, struct roce_flow *b);
/* Decide the waiting CNPs whose window passed at time now, then settle the
 * CE marks older than the window that no waiting CNP can still answer (all
 * of both when flush). */
void roce_ecn_expire(struct roce_engine *e, int64_t now, int flush);
/* Nonzero while CE marks or CNPs wait (roce_ecn_expire has work). */
int roce_ecn_busy(const struct roce_engine *e);
/* Decide the waiting CNPs of a flow that goes away, drop its CE marks. */
void roce_ecn_forget_flow(struct roce_engine *e, struct roce_flow *f);

/* How many CE marks and waiting CNPs the rings hold at most. */
void roce_ecn_bounds(uint32_t *ce_max, uint32_t *cnp_max);

/* The longest a waiting CNP stays in its ring, in capture time: the window
 * after it, then it is decided (roce_ecn_expire). */
static inline int64_t roce_ecn_cnp_wait(const struct roce_config *cfg)
{
    return cfg->cnp_window_ns;
}
/* The longest a CE mark stays in its ring: its own window, and the window
 * after it of a CNP in it that waited for its connection. */
static inline int64_t roce_ecn_ce_wait(const struct roce_config *cfg)
{
    return cfg->cnp_window_ns + roce_ecn_cnp_wait(cfg);
}

#endif
