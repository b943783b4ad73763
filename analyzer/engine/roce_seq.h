/*
 * roce_seq.h - PSN analysis of requests and responses (roce_seq.c; not for
 * front ends).
 */
#ifndef ROCE_SEQ_H
#define ROCE_SEQ_H

struct nak_ring;
struct roce_engine;
struct roce_flow;
struct roce_pkt;
struct roce_verdict;

/* A request on f: gaps, retransmissions, go-back-N episodes, PSN reuse. */
void roce_seq_request(struct roce_engine *e, struct roce_flow *f, const struct roce_pkt *pkt,
                      struct roce_verdict *v);
/* A response on y: NAKs, ACK latency, READ responses, PSN pairing. */
void roce_seq_response(struct roce_engine *e, struct roce_flow *y, const struct roce_pkt *pkt,
                       struct roce_verdict *v);
/* Forget the request PSN history of f (a new connection reuses its QP). */
void roce_seq_reset(struct roce_engine *e, struct roce_flow *f);
/* a and b were just paired: each adopts the NAKs the other carried unpaired. */
void roce_seq_adopt_naks(struct roce_engine *e, struct roce_flow *a, struct roce_flow *b);
/* Settle the verdicts still waiting on the NAKs of a ring, and empty it. */
void roce_seq_drop_naks(struct roce_engine *e, struct nak_ring *ring);
/* Add f's batched ACK latency samples to its distribution (ack_lat): done
 * before anything reads it. A sample that finds no memory is counted in
 * alloc_failures, as when it is added. */
void roce_seq_ack_fold(struct roce_engine *e, struct roce_flow *f);

#endif
