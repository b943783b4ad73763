/*
 * roce_reqlog.h - the recent request packets of all flows, in capture
 * order: time, flow, PSN and original length (roce_reqlog.c; not for front
 * ends).
 *
 * The recovery breakdown reads it back for the out-of-sequence arrival that
 * made a responder NAK (nak_generation), the DCQCN analysis for a flow's
 * rate in the window before a CNP. One bounded ring for the engine
 * (REQLOG_ENTRIES requests), never a per-packet log: writing it is one
 * sequential store per request, whatever the number of flows. A flow's
 * entries are chained from its latest (req_state.log_last); a query walks
 * at most REQLOG_WALK of them.
 */
#ifndef ROCE_REQLOG_H
#define ROCE_REQLOG_H

#include <stdint.h>

#define REQLOG_ENTRIES 65536u /* requests kept (a power of two) */
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

/* Log a request packet of f (allocates the ring at the first one; an
 * allocation failure is counted and the packet not logged). */
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
/* Free the ring (the engine's). */
void roce_reqlog_done(struct roce_engine *e);

#endif
