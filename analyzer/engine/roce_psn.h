/*
 * roce_psn.h - 24-bit packet sequence number arithmetic.
 *
 * IBTA Vol. 1 9.7.1: PSNs are 24 bits and wrap. Comparison uses serial
 * arithmetic with a 2^23 window: a is after b when 0 < (a - b) mod 2^24 < 2^23.
 * All PSN arithmetic of the engine goes through these helpers.
 */
#ifndef ROCE_PSN_H
#define ROCE_PSN_H

#include <stdint.h>

#define ROCE_PSN_MASK 0xFFFFFFu
#define ROCE_PSN_HALF 0x800000u

/* (a + n) mod 2^24. */
static inline uint32_t roce_psn_add(uint32_t a, uint32_t n)
{
    return (a + n) & ROCE_PSN_MASK;
}

/*
 * Signed distance from b to a in [-2^23, 2^23): positive when a is after b.
 * The exact half-way distance 2^23 maps to -2^23, i.e. "not after".
 */
static inline int32_t roce_psn_diff(uint32_t a, uint32_t b)
{
    uint32_t d = (a - b) & ROCE_PSN_MASK;
    return d >= ROCE_PSN_HALF ? (int32_t)d - (int32_t)(ROCE_PSN_MASK + 1) : (int32_t)d;
}

/* Nonzero when a is strictly after b. */
static inline int roce_psn_after(uint32_t a, uint32_t b)
{
    return roce_psn_diff(a, b) > 0;
}

/*
 * The unwrapped value of psn (a 64-bit count that does not wrap) nearest to
 * ref, an unwrapped PSN of the same sequence seen shortly before: ref plus
 * the signed 24-bit distance from ref to psn. ref may be negative (values
 * relative to a flow's first PSN). Front ends plot sequence numbers with it.
 */
static inline int64_t roce_psn_unwrap(int64_t ref, uint32_t psn)
{
    return ref + roce_psn_diff(psn, (uint32_t)((uint64_t)ref & ROCE_PSN_MASK));
}

/* Nonzero when psn lies in the span [first, first + count - 1] (count >= 1). */
static inline int roce_psn_in_span(uint32_t psn, uint32_t first, uint32_t count)
{
    return ((psn - first) & ROCE_PSN_MASK) < count;
}

#endif
