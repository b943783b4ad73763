/*
 * roce_vantage_clock.c - a point's clock offset against point 0 from the two
 * samples (see roce_vantage_clock.h; ANALYSIS.md, "Vantage points").
 *
 * A transmission kept by both samples, seen once at each point, gives
 * delta = t(point) - t(point 0) = offset + d when point 0 is upstream (d >= 0
 * the one-way delay between the points), offset - d when it is downstream.
 * Per host pair, the direction with the larger median delta is the one where
 * point 0 is upstream: offset <= every delta of it, offset >= every delta of
 * the other direction. The offset lies in [lo, hi] = [max delta down, min
 * delta up], intersected over all host pairs; the estimate is the middle,
 * (min one-way delay A->B - min one-way delay B->A) / 2 in the definition's
 * words, and half the width is a bound that holds whatever the asymmetry of
 * the delays (only causality is assumed). An empty intersection (lo > hi)
 * means the clocks drifted or stepped, or the points are not on one path.
 *
 * Drift: the same estimate over the first and the second half of the
 * matched transmissions' time span; when the two intervals do not overlap
 * (by at most 500 ppm) the clock drifted, and the alignment follows the line
 * through them. An empty intersection that no such drift explains makes the
 * point INCONSISTENT: no offset is given (a clock step, points not on one
 * path, or transmissions of a reused QP that only look alike).
 */
#include "roce_vantage_clock.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DRIFT 0.0005 /* 500 ppm: clocks drift less (crystals: +/-100 ppm) */

/* A transmission both samples kept. */
struct vmatch {
    int64_t delta;          /* t(point) - t(point 0) */
    int64_t t0;             /* t(point 0) */
    const uint8_t *lo, *hi; /* the host pair's addresses, ordered */
    uint8_t dir;            /* 0: lo -> hi */
};

/* The offset interval over the matches with t0 in [a, b). */
struct vest {
    int64_t lo, hi;
    uint32_t pairs;
    uint64_t used;
};

static int same_pair(const struct vmatch *x, const struct vmatch *y)
{
    return memcmp(x->lo, y->lo, ROCE_ADDR_LEN) == 0 && memcmp(x->hi, y->hi, ROCE_ADDR_LEN) == 0;
}

static int cmp_match(const void *a, const void *b)
{
    const struct vmatch *x = a, *y = b;
    int c = memcmp(x->lo, y->lo, ROCE_ADDR_LEN);
    if (c == 0)
        c = memcmp(x->hi, y->hi, ROCE_ADDR_LEN);
    if (c == 0)
        c = (int)x->dir - (int)y->dir;
    if (c == 0)
        c = (x->delta > y->delta) - (x->delta < y->delta);
    return c;
}

/* Per direction of a host pair: count, min, max and median delta in range. */
struct vdir {
    uint64_t n;
    int64_t min, max, median;
};

static void dir_stats(const struct vmatch *m, size_t from, size_t to, int64_t a, int64_t b,
                      struct vdir *d)
{
    uint64_t k = 0;
    memset(d, 0, sizeof *d);
    for (size_t i = from; i < to; i++)
        if (m[i].t0 >= a && m[i].t0 < b) {
            if (d->n == 0)
                d->min = m[i].delta; /* sorted by delta */
            d->max = m[i].delta;
            d->n++;
        }
    for (size_t i = from; i < to && d->n; i++)
        if (m[i].t0 >= a && m[i].t0 < b && k++ == (d->n - 1) / 2) {
            d->median = m[i].delta;
            break;
        }
}

static void estimate_range(const struct vmatch *m, size_t n, int64_t a, int64_t b, struct vest *e)
{
    e->lo = INT64_MIN;
    e->hi = INT64_MAX;
    e->pairs = 0;
    e->used = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i, k;
        while (j < n && same_pair(&m[i], &m[j]))
            j++;
        for (k = i; k < j && m[k].dir == 0; k++)
            ;
        struct vdir d0, d1;
        dir_stats(m, i, k, a, b, &d0);
        dir_stats(m, k, j, a, b, &d1);
        if (d0.n && d1.n) {
            const struct vdir *up = d1.median > d0.median ? &d1 : &d0;
            const struct vdir *down = up == &d1 ? &d0 : &d1;
            if (down->max > e->lo)
                e->lo = down->max;
            if (up->min < e->hi)
                e->hi = up->min;
            e->pairs++;
            e->used += d0.n + d1.n;
        }
        i = j;
    }
}

/* Middle and half width of an interval (either way round). */
static void middle(const struct vest *e, int64_t *mid, int64_t *bound)
{
    int64_t w = e->hi >= e->lo ? e->hi - e->lo : e->lo - e->hi;
    *mid = e->hi >= e->lo ? e->lo + w / 2 : e->hi + w / 2;
    *bound = w / 2 + w % 2;
}

/* Drift: the estimate over each half of the matches' time span. */
static void drift(struct roce_vantage_clock *c, double *slope, const struct vmatch *m, size_t n)
{
    struct vest s, e;
    int64_t tmin = INT64_MAX, tmax = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        if (m[i].t0 < tmin)
            tmin = m[i].t0;
        if (m[i].t0 > tmax)
            tmax = m[i].t0;
    }
    int64_t mid = tmin + (tmax - tmin) / 2;
    if (tmax - tmin < 2)
        return;
    estimate_range(m, n, tmin, mid, &s);
    estimate_range(m, n, mid, tmax + 1, &e);
    if (s.pairs == 0 || e.pairs == 0)
        return;
    c->drift_known = 1;
    middle(&s, &c->start_offset_ns, &c->start_bound_ns);
    middle(&e, &c->end_offset_ns, &c->end_bound_ns);
    c->start_ts_ns = tmin + (mid - tmin) / 2;
    c->end_ts_ns = mid + (tmax - mid) / 2;
    c->drift_ns = c->end_offset_ns - c->start_offset_ns;
    int64_t apart = c->drift_ns < 0 ? -c->drift_ns : c->drift_ns;
    /* even where each half is inconsistent (a fast drift), its middle is the
     * offset near its centre; drift shows when the two are further apart
     * than the halves are wide */
    if (apart > c->start_bound_ns + c->end_bound_ns && c->end_ts_ns > c->start_ts_ns) {
        double k = (double)c->drift_ns / (double)(c->end_ts_ns - c->start_ts_ns);
        if (k <= MAX_DRIFT && k >= -MAX_DRIFT) { /* else not a clock: see below */
            c->drift_detected = 1;
            *slope = k;
        }
    }
}

/* Nonzero when the matches agree on one offset once the drift is taken out. */
static int consistent_with_drift(const struct roce_vantage_clock *c, double slope,
                                 const struct vmatch *m, size_t n)
{
    struct vmatch *k = malloc((n ? n : 1) * sizeof *k);
    struct vest e;
    if (k == NULL)
        return 0;
    for (size_t i = 0; i < n; i++) {
        k[i] = m[i];
        k[i].delta -= (int64_t)(slope * (double)(m[i].t0 - c->start_ts_ns));
    }
    qsort(k, n, sizeof *k, cmp_match);
    estimate_range(k, n, INT64_MIN, INT64_MAX, &e);
    free(k);
    return e.pairs > 0 && e.hi >= e.lo;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Keep the matches whose delta lies in the window of width 2 x bound that
 * holds the most of them. Two sightings of one transmission are at most the
 * path-delay bound apart, so the true deltas lie in [offset - bound, offset
 * + bound]; matches of two transmissions with one key (a reused QP's PSNs,
 * captures of different times) scatter. Returns how many are kept. */
static size_t densest(struct vmatch *m, size_t n, int64_t bound)
{
    int64_t *d = malloc((n ? n : 1) * sizeof *d);
    size_t best = 0, from = 0, k = 0;
    int64_t lo = 0;
    if (d == NULL)
        return n;
    for (size_t i = 0; i < n; i++)
        d[i] = m[i].delta;
    qsort(d, n, sizeof *d, cmp_i64);
    for (size_t j = 0; j < n; j++) {
        while (d[j] - d[from] > 2 * bound)
            from++;
        if (j - from + 1 > best) {
            best = j - from + 1;
            lo = d[from];
        }
    }
    free(d);
    for (size_t i = 0; i < n; i++)
        if (m[i].delta >= lo && m[i].delta - lo <= 2 * bound)
            m[k++] = m[i];
    return k;
}

/* The largest one-way delay between this point and point 0 among the
 * matches, once aligned (-1 when none): how close to the edge of the common
 * span a transmission may be and still have reached every point inside it. */
static int64_t largest_delay(const struct roce_vantage_clock *c, double slope,
                             int64_t path_delay_ns, const struct vmatch *m, size_t n)
{
    int64_t largest = -1;
    for (size_t i = 0; i < n; i++) {
        int64_t d = roce_vclock_align(c, slope, m[i].t0 + m[i].delta) - m[i].t0;
        if (d < 0)
            d = -d;
        if (d > path_delay_ns)
            continue; /* not one transmission after all */
        if (d > largest)
            largest = d;
    }
    return largest;
}

int roce_vclock_estimate(struct roce_vantage_clock *c, double *slope, int64_t path_delay_ns,
                         const struct roce_vsample *ref, const struct roce_vsample *s,
                         int64_t *margin)
{
    unsigned level = ref->level > s->level ? ref->level : s->level;
    struct vmatch *m = malloc((s->n ? s->n : 1) * sizeof *m);
    size_t n = 0;
    struct vest all;

    if (m == NULL)
        return -1;
    for (uint32_t i = 0; i <= s->mask; i++) {
        const struct vs_entry *e = &s->tab[i];
        if (e->h == 0 || e->count != 1 || !roce_vsample_keeps(e->h, level) || n >= s->n)
            continue;
        const struct vs_entry *r = roce_vsample_find(ref, e->h);
        if (r == NULL || r->count != 1)
            continue; /* not at point 0, or seen more than once: ambiguous */
        int fwd = memcmp(e->src, e->dst, ROCE_ADDR_LEN) <= 0;
        m[n].delta = e->ts - r->ts;
        m[n].t0 = r->ts;
        m[n].lo = fwd ? e->src : e->dst;
        m[n].hi = fwd ? e->dst : e->src;
        m[n].dir = fwd ? 0 : 1;
        n++;
    }
    if (c->status != ROCE_VCLOCK_GIVEN) {
        c->samples = n;
        n = densest(m, n, path_delay_ns);
        qsort(m, n, sizeof *m, cmp_match);
        estimate_range(m, n, INT64_MIN, INT64_MAX, &all);
        if (n == 0 || all.pairs == 0) {
            c->status = n == 0 ? ROCE_VCLOCK_NO_COMMON : ROCE_VCLOCK_ONE_WAY;
            *margin = -1;
            free(m);
            return 0;
        }
        c->status = ROCE_VCLOCK_ESTIMATED;
        c->host_pairs = all.pairs;
        c->samples = all.used;
        c->consistent = all.hi >= all.lo;
        middle(&all, &c->offset_ns, &c->error_bound_ns);
        if (!c->consistent) { /* a drift, or no one offset at all */
            drift(c, slope, m, n);
            if (!c->drift_detected || !consistent_with_drift(c, *slope, m, n)) {
                c->status = ROCE_VCLOCK_INCONSISTENT;
                c->drift_detected = 0;
                *slope = 0;
            }
        } else {
            drift(c, slope, m, n); /* for the report: consistent halves cannot drift apart */
        }
    }
    *margin = largest_delay(c, *slope, path_delay_ns, m, n);
    free(m);
    return 0;
}
