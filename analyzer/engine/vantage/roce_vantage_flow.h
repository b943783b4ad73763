/*
 * roce_vantage_flow.h - the flows of a vantage-point analysis: their table,
 * their segments, the votes of their transmissions on the order of the
 * points, the order itself and where on it a loss lies.
 */
#ifndef ROCE_VANTAGE_FLOW_H
#define ROCE_VANTAGE_FLOW_H

#include <stdint.h>

#include "roce_vantage_int.h"

int roce_vflows_init(struct roce_vantage *v);
/* Free the flows, their segments and votes. */
void roce_vflows_free(struct roce_vantage *v);

/* The flow of a handle. */
static inline struct vflow *roce_vflow(struct roce_vantage *v, uint32_t handle)
{
    return &v->flows[handle - 1];
}

/* The handle of a key's flow, created when absent and create is set; 0 when
 * absent, or when the table is full (max_flows) or out of memory (counted). */
uint32_t roce_vflow_get(struct roce_vantage *v, const struct roce_flow_key *key, int create);

/* The segment (after, before) of a flow, or NULL. */
const struct vpair *roce_vpair_find(const struct vflow *f, int after, int before);
/* The same, created when absent (NULL: out of memory, counted). */
struct vpair *roce_vpair_get(struct roce_vantage *v, struct vflow *f, int after, int before);

/* ---- votes: one per pair of points (i < j), > 0 when i was upstream ---- */

/* f's votes, allocated at the first call (NULL: out of memory, counted). */
int32_t *roce_vflow_votes(struct roce_vantage *v, struct vflow *f);

static inline unsigned roce_vote_index(unsigned n, unsigned i, unsigned j)
{
    return i * (2 * n - i - 1) / 2 + (j - i - 1);
}

/* One vote: point a passed a transmission before point b (a != b). */
static inline void roce_vote_add(int32_t *votes, unsigned n, unsigned a, unsigned b)
{
    votes[roce_vote_index(n, a < b ? a : b, a < b ? b : a)] += a < b ? 1 : -1;
}

/* > 0 when a was upstream of b more often than not (0: no votes, or none). */
static inline int32_t roce_vote(const int32_t *votes, unsigned n, unsigned a, unsigned b)
{
    if (votes == NULL || a == b)
        return 0;
    int32_t x = votes[roce_vote_index(n, a < b ? a : b, a < b ? b : a)];
    return a < b ? x : -x;
}

/* ---- order and location ---- */

/* The order of f's points (fills report.order) from its votes; where they
 * are silent on a pair, from `same` (its host pair's votes), then from
 * `reverse` (the opposite direction's, reversed); then the tie rank. */
void roce_vflow_order(struct roce_vantage *v, struct vflow *f, const int32_t *same,
                      const int32_t *reverse);

/* Locate a loss candidate on its flow's order: 1 and (after, before) when it
 * is a loss, 0 when it only shows capture misses. Counts the capture misses. */
int roce_vflow_locate(struct roce_vantage *v, const struct vevent *c, int *after, int *before);

#endif
