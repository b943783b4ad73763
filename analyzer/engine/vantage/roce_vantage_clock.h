/*
 * roce_vantage_clock.h - a point's clock against point 0's: the offset, its
 * error bound and drift, estimated from the two points' samples, and the
 * alignment of the point's times to the reference clock.
 *
 * A point's clock is its struct roce_vantage_clock plus its drift slope
 * (offset change per reference nanosecond; 0 unless drift_detected).
 */
#ifndef ROCE_VANTAGE_CLOCK_H
#define ROCE_VANTAGE_CLOCK_H

#include <stdint.h>

#include "roce_vantage_sample.h"
#include "roce_vantage_types.h"

/* Estimate the offset of the point whose sample is s against the reference
 * point's sample ref (unless c->status is ROCE_VCLOCK_GIVEN: then only the
 * margin), into c and *slope. Status NO_COMMON, ONE_WAY or INCONSISTENT when
 * it cannot be estimated. *margin: the largest one-way delay between the two
 * points among the matched transmissions once aligned (-1 when none).
 * 0, or -1 when out of memory. */
int roce_vclock_estimate(struct roce_vantage_clock *c, double *slope, int64_t path_delay_ns,
                         const struct roce_vsample *ref, const struct roce_vsample *s,
                         int64_t *margin);

/* A time of the point's clock in the reference clock. */
static inline int64_t roce_vclock_align(const struct roce_vantage_clock *c, double slope,
                                        int64_t ts)
{
    if (!c->drift_detected)
        return ts - c->offset_ns;
    double off =
        (double)c->start_offset_ns + slope * (double)(ts - c->start_offset_ns - c->start_ts_ns);
    return ts - (int64_t)(off >= 0 ? off + 0.5 : off - 0.5);
}

#endif
