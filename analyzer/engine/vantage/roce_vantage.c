/*
 * roce_vantage.c - the vantage-point analysis' API (see roce_vantage.h):
 * set-up, the clock offsets of the first reading, the sources of the second,
 * and the results' accessors. The work is done by the modules below it
 * (roce_vantage_int.h lists them).
 */
#include "roce_vantage.h"

#include <string.h>

#include "roce_time.h"
#include "roce_vantage_clock.h"
#include "roce_vantage_flow.h"
#include "roce_vantage_int.h"
#include "roce_vantage_match.h"
#include "roce_vantage_result.h"
#include "roce_vantage_settle.h"

#define MAX_WINDOW_NS (1LL << 50) /* keeps time arithmetic far from overflow */

void roce_vantage_config_default(struct roce_vantage_config *cfg)
{
    *cfg = (struct roce_vantage_config){
        .path_delay_ns = ROCE_NS_PER_MS,
        .max_flows = 65536u,
        .max_open = 1u << 18,
        .max_listed = 1u << 20,
        .max_gap_psns = 1024u,
        .horizon_ns = ROCE_NS_PER_SEC,
    };
}

static int config_valid(const struct roce_vantage_config *cfg, unsigned n_points,
                        const struct roce_vantage_point *points, unsigned n_sources)
{
    if (n_points == 0 || n_points > ROCE_VANTAGE_MAX_POINTS || n_sources == 0 ||
        n_sources > n_points || cfg->path_delay_ns <= 0 || cfg->path_delay_ns > MAX_WINDOW_NS ||
        cfg->horizon_ns < 0 || cfg->horizon_ns > MAX_WINDOW_NS || cfg->max_flows == 0 ||
        cfg->max_open == 0)
        return 0;
    for (unsigned p = 0; p < n_points; p++)
        if (points[p].source >= n_sources)
            return 0;
    return 1;
}

struct roce_vantage *roce_vantage_new(const struct roce_vantage_config *cfg, unsigned n_points,
                                      const struct roce_vantage_point *points, unsigned n_sources)
{
    if (!config_valid(cfg, n_points, points, n_sources))
        return NULL;
    struct roce_vantage *v = calloc(1, sizeof *v);
    if (v == NULL)
        return NULL;
    v->cfg = *cfg;
    v->n_points = n_points;
    v->n_sources = n_sources;
    memcpy(v->points, points, n_points * sizeof *points);
    v->clock[0].status = ROCE_VCLOCK_REFERENCE;
    v->clock[0].consistent = 1;
    for (unsigned p = 1; p < n_points; p++) /* until estimated or given */
        v->clock[p].status = ROCE_VCLOCK_NO_COMMON;
    v->source_ts = calloc(n_sources, sizeof *v->source_ts);
    v->max_offset = calloc(n_sources, sizeof *v->max_offset);
    v->ended = calloc(n_sources, 1);
    v->fed = calloc(n_sources, 1);
    v->hop_lat = calloc((size_t)n_points * n_points, sizeof *v->hop_lat);
    if (v->source_ts == NULL || v->max_offset == NULL || v->ended == NULL || v->fed == NULL ||
        v->hop_lat == NULL || roce_vflows_init(v) != 0) {
        roce_vantage_free(v);
        return NULL;
    }
    return v;
}

void roce_vantage_free(struct roce_vantage *v)
{
    if (v == NULL)
        return;
    roce_vresults_free(v);
    roce_vpause_res_free(v->pause);
    roce_vsettle_free(v);
    roce_vmatch_free(v);
    roce_vflows_free(v);
    for (size_t i = 0; v->hop_lat != NULL && i < (size_t)v->n_points * v->n_points; i++)
        roce_lat_free(&v->hop_lat[i]);
    free(v->hop_lat);
    free(v->source_ts);
    free(v->max_offset);
    free(v->ended);
    free(v->fed);
    free(v);
}

/* ---- the first reading: clock offsets ---- */

int roce_vantage_set_offset(struct roce_vantage *v, unsigned point, int64_t offset_ns)
{
    if (point == 0 || point >= v->n_points || offset_ns > MAX_WINDOW_NS ||
        offset_ns < -MAX_WINDOW_NS)
        return -1;
    struct roce_vantage_clock *c = &v->clock[point];
    memset(c, 0, sizeof *c);
    c->status = ROCE_VCLOCK_GIVEN;
    c->consistent = 1;
    c->offset_ns = offset_ns;
    v->slope[point] = 0;
    return 0;
}

int roce_vantage_estimate(struct roce_vantage *v, struct roce_vsample *const *samples)
{
    for (unsigned p = 0; p < v->n_points; p++) {
        const struct roce_vsample *s = samples[p];
        for (uint32_t i = 0; i < s->n_flows; i++) {
            uint32_t h = roce_vflow_get(v, &s->flows[i], 1);
            if (h == 0)
                continue;
            struct vflow *f = roce_vflow(v, h);
            f->report.presence |= VBIT(p);
            f->report.locate = 1;
        }
        int64_t delay;
        if (p == 0)
            continue;
        if (roce_vclock_estimate(&v->clock[p], &v->slope[p], v->cfg.path_delay_ns, samples[0], s,
                                 &delay) != 0)
            return -1;
        if (delay >= 0 && (!v->have_margin || delay > v->margin)) {
            v->margin = delay;
            v->have_margin = 1;
        }
    }
    if (!v->have_margin)
        v->margin = v->cfg.path_delay_ns;
    return 0;
}

const struct roce_vantage_clock *roce_vantage_clock(const struct roce_vantage *v, unsigned point)
{
    return point < v->n_points ? &v->clock[point] : NULL;
}

/* ---- the second reading ---- */

int roce_vantage_start(struct roce_vantage *v)
{
    int64_t common_first = INT64_MIN, common_last = INT64_MAX;
    for (unsigned p = 0; p < v->n_points; p++) {
        uint8_t st = v->clock[p].status;
        if (st != ROCE_VCLOCK_REFERENCE && st != ROCE_VCLOCK_ESTIMATED && st != ROCE_VCLOCK_GIVEN)
            return -1;
    }
    for (unsigned s = 0; s < v->n_sources; s++)
        v->max_offset[s] = INT64_MIN;
    for (unsigned p = 0; p < v->n_points; p++) {
        const struct roce_vantage_point *pt = &v->points[p];
        int64_t first = roce_vclock_align(&v->clock[p], v->slope[p], pt->first_ts_ns);
        int64_t last = roce_vclock_align(&v->clock[p], v->slope[p], pt->last_ts_ns);
        v->first_aligned[p] = v->point_stats[p].first_ns = first;
        v->last_aligned[p] = v->point_stats[p].last_ns = last;
        if (first > common_first)
            common_first = first;
        if (last < common_last)
            common_last = last;
        /* the largest offset over the span (drift makes it move) */
        int64_t o1 = pt->first_ts_ns - first, o2 = pt->last_ts_ns - last;
        int64_t o = o1 > o2 ? o1 : o2;
        if (o > v->max_offset[pt->source])
            v->max_offset[pt->source] = o;
    }
    v->totals.common_first_ns = common_first;
    v->totals.common_last_ns = common_last;
    if (common_first > common_last)
        return -2;
    if (!v->have_margin)
        v->margin = v->cfg.path_delay_ns;
    if (roce_vmatch_init(v) != 0)
        return -3;
    v->started = 1;
    return 0;
}

int roce_vantage_need(const struct roce_vantage *v)
{
    return roce_vmatch_need(v);
}

void roce_vantage_feed(struct roce_vantage *v, unsigned point, const struct roce_vtx *tx)
{
    if (v->started && !v->finished && point < v->n_points)
        roce_vmatch_feed(v, point, tx);
}

void roce_vantage_end(struct roce_vantage *v, unsigned source)
{
    if (source >= v->n_sources)
        return;
    v->ended[source] = 1;
    if (v->started && !v->finished)
        roce_vmatch_settle_passed(v);
}

void roce_vantage_finish(struct roce_vantage *v)
{
    if (!v->started || v->finished)
        return;
    for (unsigned s = 0; s < v->n_sources; s++)
        v->ended[s] = 1;
    roce_vmatch_settle_passed(v);
    v->finished = 1;
    if (roce_vresults(v) != 0)
        v->totals.alloc_failures++;
}

/* ---- results ---- */

const char *roce_vevidence_name(unsigned e)
{
    static const char *const names[] = {
        [ROCE_VEVIDENCE_GAPS] = "gaps",
        [ROCE_VEVIDENCE_MISSING] = "missing",
        [ROCE_VEVIDENCE_RESENT] = "resent",
        [ROCE_VEVIDENCE_MARKED] = "marked",
    };
    return e < sizeof names / sizeof names[0] ? names[e] : "unknown";
}

const struct roce_vantage_totals *roce_vantage_totals(const struct roce_vantage *v)
{
    return &v->totals;
}

const struct roce_vantage_pstats *roce_vantage_point_stats(const struct roce_vantage *v,
                                                           unsigned point)
{
    return point < v->n_points ? &v->point_stats[point] : NULL;
}

size_t roce_vantage_flow_count(const struct roce_vantage *v)
{
    return v->n_sorted;
}

const struct roce_vantage_flow *roce_vantage_flow(const struct roce_vantage *v, size_t i)
{
    return i < v->n_sorted ? &v->flows[v->sorted[i] - 1].report : NULL;
}

size_t roce_vantage_segment_count(const struct roce_vantage *v)
{
    return v->n_segments;
}

const struct roce_vantage_segment *roce_vantage_segment(const struct roce_vantage *v, size_t i)
{
    return i < v->n_segments ? &v->segments[i] : NULL;
}

size_t roce_vantage_loss_count(const struct roce_vantage *v)
{
    return v->n_losses;
}

const struct roce_vantage_event *roce_vantage_loss(const struct roce_vantage *v, size_t i)
{
    return i < v->n_losses ? &v->losses[i] : NULL;
}

size_t roce_vantage_ce_count(const struct roce_vantage *v)
{
    return v->n_ce_marks;
}

const struct roce_vantage_event *roce_vantage_ce(const struct roce_vantage *v, size_t i)
{
    return i < v->n_ce_marks ? &v->ce_marks[i] : NULL;
}
