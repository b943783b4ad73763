/*
 * roce_time.h - the units of time of the engine and its front ends.
 *
 * Every time the engine takes or gives is an int64_t count of nanoseconds
 * (capture times: since the Unix epoch). Front ends, tools and tests convert
 * with these constants rather than writing their own.
 */
#ifndef ROCE_TIME_H
#define ROCE_TIME_H

#include <stdint.h>

#define ROCE_NS_PER_US  INT64_C(1000)
#define ROCE_NS_PER_MS  INT64_C(1000000)
#define ROCE_NS_PER_SEC INT64_C(1000000000)

#endif
