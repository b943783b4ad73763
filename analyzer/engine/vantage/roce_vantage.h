/*
 * roce_vantage.h - several captures of the same traffic (vantage points):
 * clock offsets, transmissions matched across points, the points ordered per
 * flow, every lost request PSN and every CE mark located between two points.
 *
 * What it finds and how: ANALYSIS.md, "Vantage points"; the front end is
 * `rocescope localize` (rocescope(1)).
 *
 * A front end reads every capture twice, each point through an engine of its
 * own, and turns each frame's engine output into a transmission record
 * (roce_vtx_from_frame, roce_vantage_sample.h):
 *
 *   1. first reading: each point's records go into a sample of its own
 *      (roce_vsample_add; one per point, so points can be read in parallel
 *      threads). roce_vantage_estimate() then matches the samples against
 *      the first point's and estimates every clock offset (with an error
 *      bound and a drift check) and which points saw which request flows.
 *   2. second reading: roce_vantage_need() says which input (source) the
 *      matcher wants records from next, so that all sources advance together
 *      in aligned time; roce_vantage_feed() takes them, roce_vantage_end()
 *      marks a source finished, roce_vantage_finish() settles the rest.
 *
 * Memory is bounded: a sample holds at most max_keys transmissions (chosen by
 * hash, the same at every point), the matcher keeps the transmissions of the
 * last few path-delay bounds (at most max_open), at most max_flows flows and
 * at most max_listed losses and CE marks each. What does not fit is counted.
 * C11 + libc only; a struct roce_vantage is used by one thread at a time.
 */
#ifndef ROCE_VANTAGE_H
#define ROCE_VANTAGE_H

#include <stddef.h>
#include <stdint.h>

#include "roce_engine.h"
#include "roce_vantage_pause.h"
#include "roce_vantage_sample.h"
#include "roce_vantage_types.h"

void roce_vantage_config_default(struct roce_vantage_config *cfg);

struct roce_vantage;

/* n_points points (1 .. ROCE_VANTAGE_MAX_POINTS) fed from n_sources inputs;
 * point 0 is the reference clock. Copies what it is given. NULL when out of
 * memory or the arguments are invalid. */
struct roce_vantage *roce_vantage_new(const struct roce_vantage_config *cfg, unsigned n_points,
                                      const struct roce_vantage_point *points, unsigned n_sources);
void roce_vantage_free(struct roce_vantage *v);

/* The offset of a point (point clock minus reference clock) as given by the
 * user; 0, or -1 for point 0 or an unknown point. */
int roce_vantage_set_offset(struct roce_vantage *v, unsigned point, int64_t offset_ns);

/* Estimate the offsets that were not given, from samples[0 .. n_points-1],
 * and learn from them which points saw which request flows. 0, or -1 when
 * out of memory. A point that could not be estimated has status NO_COMMON
 * ONE_WAY or INCONSISTENT; the caller decides (roce_vantage_start refuses it). */
int roce_vantage_estimate(struct roce_vantage *v, struct roce_vsample *const *samples);
const struct roce_vantage_clock *roce_vantage_clock(const struct roce_vantage *v, unsigned point);

/* Ready for the second reading. 0; -1 when a point has no offset (status
 * NO_COMMON, ONE_WAY or INCONSISTENT); -2 when the aligned capture spans have no time in
 * common; -3 when out of memory. */
int roce_vantage_start(struct roce_vantage *v);

/* The source whose next records are needed (the one furthest behind in
 * aligned time), or -1 when every source has ended. */
int roce_vantage_need(const struct roce_vantage *v);
/* A record of point `point`; the records of each source come in the order
 * of its capture. */
void roce_vantage_feed(struct roce_vantage *v, unsigned point, const struct roce_vtx *tx);
/* The source has no more records. */
void roce_vantage_end(struct roce_vantage *v, unsigned source);
/* Settle everything (after every source ended): orders, locations, segments. */
void roce_vantage_finish(struct roce_vantage *v);

/* ---- results (valid after roce_vantage_finish) ---- */

/* "gaps", "missing", "resent", "marked". */
const char *roce_vevidence_name(unsigned e);

const struct roce_vantage_totals *roce_vantage_totals(const struct roce_vantage *v);
const struct roce_vantage_pstats *roce_vantage_point_stats(const struct roce_vantage *v,
                                                           unsigned point);
/* Flows ordered by key (source, destination, dest QP). */
size_t roce_vantage_flow_count(const struct roce_vantage *v);
const struct roce_vantage_flow *roce_vantage_flow(const struct roce_vantage *v, size_t i);
/* Segments of all flows summed, in the order the sorted flows' paths give. */
size_t roce_vantage_segment_count(const struct roce_vantage *v);
const struct roce_vantage_segment *roce_vantage_segment(const struct roce_vantage *v, size_t i);
/* Listed losses and CE marks, ordered by flow, then time. */
size_t roce_vantage_loss_count(const struct roce_vantage *v);
const struct roce_vantage_event *roce_vantage_loss(const struct roce_vantage *v, size_t i);
size_t roce_vantage_ce_count(const struct roce_vantage *v);
const struct roce_vantage_event *roce_vantage_ce(const struct roce_vantage *v, size_t i);

#endif
