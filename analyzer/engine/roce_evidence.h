/*
 * roce_evidence.h - the per-flow state of the diagnoses: evidence frames by
 * kind, and the PSN gaps waiting to be told apart as network or capture
 * loss (roce_evidence.c, roce_caploss.c; not for front ends).
 */
#ifndef ROCE_EVIDENCE_H
#define ROCE_EVIDENCE_H

#include <stdint.h>

#include "roce_diag.h"

/* Allocated at a flow's first evidence or gap. */
struct flow_ev {
    struct roce_evidence ev;
    /* its open gaps in the engine's gap ring (roce_caploss.c): sequence + 1
     * of the oldest and the newest, 0 none; chained in PSN order */
    uint64_t gap_head, gap_tail;
    uint64_t gap_n;
    /* its NAK round trip: the ACK latency p99 (computed when asked, for
     * rtt_samples samples), the longest NAK-driven recovery */
    int64_t rtt_ack_p99, rtt_nak;
    uint64_t rtt_samples;
};

struct roce_engine;
struct roce_flow;

/* f's evidence block, allocated when needed; NULL when out of memory
 * (counted). */
struct flow_ev *roce_ev_of(struct roce_engine *e, struct roce_flow *f);
/* Evidence frame of a kind on f. */
void roce_ev_note(struct roce_engine *e, struct roce_flow *f, unsigned kind, uint64_t frame);
void roce_ev_free(struct roce_flow *f);

#endif
