/*
 * roce_caploss.h - what each PSN gap was: lost in the network, missed by
 * the capture, late, or undecided (roce_caploss.c; not for front ends).
 */
#ifndef ROCE_CAPLOSS_H
#define ROCE_CAPLOSS_H

#include <stdint.h>

struct roce_engine;
struct roce_flow;
struct roce_verdict;

/* 0, or -1 when out of memory (the ring is struct roce_engine's: it frees it). */
int roce_caploss_init(struct roce_engine *e);
/* A PSN gap of `missing` PSNs before the request of v on f (RC, XRC, UC):
 * open until a response, a resend, a late packet or time tells what it was. */
void roce_caploss_gap(struct roce_engine *e, struct roce_flow *f, struct roce_verdict *v,
                      uint32_t missing);
/* An ACK (or READ response with an ACK syndrome) in frame for f's requests
 * up to psn. */
void roce_caploss_ack(struct roce_engine *e, struct roce_flow *f, uint32_t psn, uint64_t frame);
/* A PSN sequence error NAK (rnr 0) or an RNR NAK (rnr 1) in frame for psn of
 * f's requests. */
void roce_caploss_nak(struct roce_engine *e, struct roce_flow *f, uint32_t psn, uint64_t frame,
                      int rnr);
/* A go-back-N from psn on f, beginning in frame. */
void roce_caploss_resend(struct roce_engine *e, struct roce_flow *f, uint32_t psn, uint64_t frame);
/* A request of f whose PSN is before the expected one (v): nonzero when it
 * is a missing PSN arriving late (v gets ROCE_V_REORDERED and its details),
 * not a resend. */
int roce_caploss_late(struct roce_engine *e, struct roce_flow *f, struct roce_verdict *v);
/* A NAK round trip f showed (NAK generation + NAK to resend). */
void roce_caploss_note_rtt(struct roce_engine *e, struct roce_flow *f, int64_t ns);
/* Settle by time the gaps older than the NAK horizon at now (all when flush). */
void roce_caploss_expire(struct roce_engine *e, int64_t now, int flush);
/* The flow goes away or starts afresh: its open gaps are settled by time. */
void roce_caploss_forget(struct roce_engine *e, struct roce_flow *f);
/* The open gaps of f. */
uint64_t roce_caploss_open(const struct roce_flow *f);
/* The open gaps' ring: room made so far, and its bound. */
void roce_caploss_room(const struct roce_engine *e, uint32_t *room, uint32_t *max);

#endif
