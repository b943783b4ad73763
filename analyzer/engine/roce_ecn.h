/*
 * roce_ecn.h - ECN CE marks and their CNPs (roce_ecn.c; not for front ends).
 */
#ifndef ROCE_ECN_H
#define ROCE_ECN_H

#include <stdint.h>

struct roce_engine;
struct roce_flow;
struct roce_verdict;

/* 0, or -1 when out of memory (the ring is struct roce_engine's: it frees it). */
int roce_ecn_init(struct roce_engine *e);
/* A CE-marked request on f. */
void roce_ecn_ce(struct roce_engine *e, struct roce_flow *f, struct roce_verdict *v);
/* A CNP on cnp_flow. */
void roce_ecn_cnp(struct roce_engine *e, struct roce_flow *cnp_flow, struct roce_verdict *v);
/* Settle CE marks older than the window at time now (all when flush). */
void roce_ecn_expire(struct roce_engine *e, int64_t now, int flush);
/* Drop the CE marks of a flow that goes away. */
void roce_ecn_forget_flow(struct roce_engine *e, struct roce_flow *f);

#endif
