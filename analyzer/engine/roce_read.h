/*
 * roce_read.h - RDMA READ spans, READ responses and the PMTU (roce_read.c;
 * not for front ends).
 */
#ifndef ROCE_READ_H
#define ROCE_READ_H

#include <stdint.h>

#define READ_RING 16 /* recent READ requests per flow (a NIC allows 16 outstanding) */

struct roce_engine;
struct roce_flow;
struct roce_pkt;
struct roce_verdict;

/* How a READ's PSN span is known. */
enum roce_span_state {
    ROCE_SPAN_UNKNOWN = 0,
    ROCE_SPAN_GUESS = 1, /* from the configured fallback PMTU */
    ROCE_SPAN_KNOWN = 2  /* from a learned PMTU or from the responses */
};

/* An RDMA READ request and what its responses showed. */
struct read_span {
    uint64_t frame;
    uint32_t psn;
    uint32_t dma_len;
    uint32_t span;      /* PSNs occupied (1 while unknown) */
    uint32_t next_resp; /* PSN of the next expected response */
    uint8_t span_state; /* enum roce_span_state */
    uint8_t dma_known;
    uint8_t gap_seen; /* a response gap was seen inside this READ */
};

/* The recent READs of a flow, newest at head - 1. */
struct read_ring {
    struct read_span spans[READ_RING];
    uint8_t head, count;
};

/* Remember a READ request (is_new: a new request, not a re-issue); NULL when
 * out of memory (counted). Its span follows the flow's PMTU when there is one. */
struct read_span *roce_read_push(struct roce_engine *e, struct roce_flow *f,
                                 const struct roce_pkt *pkt, uint64_t frame, int is_new);
/* The READ that is the flow's latest new request, or NULL. */
struct read_span *roce_read_latest_new(const struct roce_flow *f);
/* Newest READ whose span holds psn (an unknown span reaches forward). */
struct read_span *roce_read_covering(const struct roce_flow *f, uint32_t psn);
/* Set a READ's span; moves the flow's highest PSN if it is the latest request. */
void roce_read_set_span(struct roce_flow *f, struct read_span *r, uint32_t span,
                        enum roce_span_state state);
/* A FIRST/MIDDLE payload (exact: from a READ response, else a lower bound) or a
 * CM path MTU gives the connection's PMTU. */
void roce_read_learn_pmtu(struct roce_engine *e, struct roce_flow *f, uint32_t pmtu, int exact);
/* a and b were just paired: the PMTU one of them learned is the connection's. */
void roce_read_share_pmtu(struct roce_flow *a, struct roce_flow *b);
/* A READ response on y for the READs of x. */
void roce_read_response(struct roce_engine *e, struct roce_flow *x, struct roce_flow *y,
                        const struct roce_pkt *pkt, struct roce_verdict *v);
/* Free the READs the flow keeps. */
void roce_read_free(struct roce_flow *f);

#endif
