/*
 * roce_incast.h - incast: receivers that many senders send to at once
 * while their traffic is CE marked, paused or lost (roce_incast.c; not for
 * front ends; ANALYSIS.md "Incast"). What it finds goes to the totals
 * (struct roce_incast_report, roce_totals.h), which the diagnoses read.
 */
#ifndef ROCE_INCAST_H
#define ROCE_INCAST_H

#include <stdint.h>

#include "roce_pkt.h"

struct roce_engine;
struct roce_flow_key;

/* Receivers tracked at once (sets x ways; the least recently sent to of a
 * set is evicted, counted in incast_receivers_evicted) and senders per
 * receiver (more at once: incast_senders_untracked). */
#define ROCE_INCAST_SETS    64
#define ROCE_INCAST_WAYS    4
#define ROCE_INCAST_SENDERS 32

/* Allocated at the first request (NULL before); freed by roce_incast_free. */
struct roce_incast;

/* A request of the flow k at ts (frame, wirelen bytes on the wire; ce: it
 * carries a CE mark, evidence when an incast runs). */
void roce_incast_request(struct roce_engine *e, const struct roce_flow_key *k, uint64_t frame,
                         uint32_t wirelen, int ce, int64_t ts);
/* Evidence against receiver dst at ts: a pause that stopped its traffic
 * (paused; frames: its XOFF and the request that resumed, or the
 * receiver's own XOFF), or a PSN gap of class network_loss (lost; frames:
 * the gap and what decided it). Counts when an episode of dst runs at ts,
 * or ended less than --incast-window before. */
void roce_incast_evidence(struct roce_engine *e, const uint8_t dst[ROCE_ADDR_LEN], int lost,
                          uint64_t frame1, uint64_t frame2, int64_t ts);
/* Bring the totals' records up to date (at the end, and before a report). */
void roce_incast_settle(struct roce_engine *e);
void roce_incast_free(struct roce_engine *e);

/* The highest fan-in e saw for receiver addr, and whether e ever tracked it
 * (0: never). For roce_split_exact: a receiver whose senders are in several
 * parts. */
int roce_incast_peak(const struct roce_engine *e, const uint8_t addr[ROCE_ADDR_LEN],
                     uint32_t *peak);
/* Call fn for every receiver e tracks now (its address, its peak fan-in). */
void roce_incast_each(const struct roce_engine *e,
                      void (*fn)(const uint8_t addr[ROCE_ADDR_LEN], uint32_t peak, void *ctx),
                      void *ctx);

#endif
