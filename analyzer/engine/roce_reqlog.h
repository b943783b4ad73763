/*
 * roce_reqlog.h - the recent request packets of all flows, in capture
 * order: time, flow, PSN and original length (roce_reqlog.c; not for front
 * ends).
 *
 * The recovery breakdown reads it back for the out-of-sequence arrival that
 * made a responder NAK (nak_generation), the DCQCN analysis for a flow's
 * rate in the window before a CNP. Bounded rings, never a per-packet log:
 * writing one is one sequential store per request, whatever the number of
 * flows. The requests are kept by class of their address pair
 * (REQLOG_CLASSES rings of REQLOG_ENTRIES requests, the class of
 * roce_shard_class): what one ring keeps depends only on the frames of its
 * class, so a split analysis, whose parts each take whole classes
 * (roce_engine.h), keeps exactly what one engine keeps. A flow's entries
 * are chained from its latest (req_state.log_last) in its class's ring; a
 * query walks at most REQLOG_WALK of them.
 */
#ifndef ROCE_REQLOG_H
#define ROCE_REQLOG_H

#include <stdint.h>

#define REQLOG_CLASSES 16u   /* rings: ROCE_SHARD_CLASSES */
#define REQLOG_ENTRIES 8192u /* requests kept per ring (a power of two) */
#define REQLOG_WALK    4096u  /* a flow's entries a query looks at, at most */

struct roce_engine;
struct roce_flow;

/* A request; its flow's entries are chained, newest to oldest. */
struct reqlog_entry {
    int64_t ts;
    uint64_t prev; /* the flow's previous entry: its number + 1, 0 none */
    uint32_t psn;
    uint32_t len; /* original length of the frame */
};

/* One class's ring, allocated at its first request. */
struct reqlog_ring {
    struct reqlog_entry *e;
    uint64_t written; /* requests logged in it */
};

/* Log a request packet of f (allocates its class's ring at the first one;
 * an allocation failure is counted and the packet not logged). */
void roce_reqlog_add(struct roce_engine *e, struct roce_flow *f, int64_t ts, uint32_t psn,
                     uint32_t len);
/* Sum the requests of f with a time in [from, to): 0, or -1 when the ring
 * (or REQLOG_WALK) no longer reaches back to `from` (then nothing is
 * summed). */
int roce_reqlog_window(const struct roce_engine *e, const struct roce_flow *f, int64_t from,
                       int64_t to, uint64_t *bytes, uint64_t *packets);
/* The time of the earliest request of f with a PSN after psn in the run of
 * such requests that ends with f's latest one captured at or before `at`
 * (the requests since f last sent psn or an earlier PSN). 1 with *ts set,
 * or 0 when f's latest request's PSN is not after psn or the ring (or
 * REQLOG_WALK) lost the start of the run. */
int roce_reqlog_first_after(const struct roce_engine *e, const struct roce_flow *f, uint32_t psn,
                            int64_t at, int64_t *ts);
/* Free the rings (the engine's). */
void roce_reqlog_done(struct roce_engine *e);

#endif
