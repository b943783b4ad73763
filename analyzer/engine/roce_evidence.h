/*
 * roce_evidence.h - the per-flow state of the diagnoses: evidence frames by
 * kind, and the PSN gaps waiting to be told apart as network or capture
 * loss (roce_evidence.c, roce_caploss.c; not for front ends).
 */
#ifndef ROCE_EVIDENCE_H
#define ROCE_EVIDENCE_H

#include <stdint.h>

#include "roce_diag.h"

#define PENDING_GAPS 16u /* gaps of a flow waiting for their ACK, NAK or resend */

/* A PSN gap not classified yet: its missing PSNs are first..last. */
struct pending_gap {
    uint64_t frame, vq_seq;
    uint32_t first, last, missing;
    uint32_t id; /* the flow's gap count when it was seen */
};

/* Allocated at a flow's first evidence. Pending gaps: oldest at gap_head. */
struct flow_ev {
    struct roce_evidence ev;
    struct pending_gap gaps[PENDING_GAPS];
    uint8_t gap_head, gap_n;
    uint32_t next_gap_id;
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
