/*
 * localize_json.c - `rocescope localize --json` (REPORT.md, "Localize",
 * lists the keys). Vantage points are named by their names; an open end of
 * a segment (before the first point, after the last) is null. Ownership:
 * every json-c value is added to its parent as it is made; the root is put
 * once at the end.
 */
#include <string.h>

#include <json-c/json.h>

#include "fmt.h"
#include "json_values.h"
#include "localize_report.h"

static const char *const clock_status[] = {"reference", "estimated", "given",
                                           "no_common", "one_way",   "inconsistent"};

/* A point's name, or null for ROCE_VANTAGE_END. */
static json_object *point_name(const struct roce_localize_report *r, int p)
{
    return p >= 0 && (unsigned)p < r->n_points ? json_object_new_string(r->points[p].name) : NULL;
}

static json_object *latency(const struct roce_lat_summary *s)
{
    if (s->count == 0)
        return NULL;
    json_object *o = json_object_new_object();
    roce_json_put_u64(o, "count", s->count);
    json_object_object_add(o, "min", roce_json_us(s->min));
    json_object_object_add(o, "p50", roce_json_us(s->p50));
    json_object_object_add(o, "p99", roce_json_us(s->p99));
    json_object_object_add(o, "max", roce_json_us(s->max));
    return o;
}

static json_object *segment(const struct roce_localize_report *r,
                            const struct roce_vantage_segment *s)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "after", point_name(r, s->after));
    json_object_object_add(o, "before", point_name(r, s->before));
    roce_json_put_u64(o, "lost", s->lost);
    roce_json_put_u64(o, "ce_marked", s->ce_marked);
    json_object_object_add(o, "latency_us", latency(&s->latency));
    return o;
}

static json_object *points(const struct roce_localize_report *r)
{
    json_object *a = json_object_new_array();
    for (unsigned p = 0; p < r->n_points; p++) {
        const struct roce_localize_point *pt = &r->points[p];
        const struct roce_vantage_pstats *ps = roce_vantage_point_stats(r->v, p);
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(pt->name));
        json_object_object_add(o, "file", json_object_new_string(pt->file));
        json_object_object_add(o, "erspan_session",
                               pt->has_session ? json_object_new_int64(pt->session) : NULL);
        json_object_object_add(o, "outer_source",
                               pt->outer_source != NULL ? json_object_new_string(pt->outer_source)
                                                        : NULL);
        roce_json_put_u64(o, "packets", pt->packets);
        roce_json_put_u64(o, "roce_packets", pt->roce_packets);
        roce_json_put_u64(o, "transmissions", ps->transmissions);
        roce_json_put_u64(o, "matched", ps->matched);
        roce_json_put_u64(o, "gap_psns", ps->gap_psns);
        roce_json_put_u64(o, "capture_misses", ps->capture_misses);
        json_object_object_add(o, "first_time", roce_json_seconds(ps->first_ns));
        json_object_object_add(o, "last_time", roce_json_seconds(ps->last_ns));
        json_object_array_add(a, o);
    }
    return a;
}

static json_object *clocks(const struct roce_localize_report *r)
{
    json_object *a = json_object_new_array();
    for (unsigned p = 0; p < r->n_points; p++) {
        const struct roce_vantage_clock *c = roce_vantage_clock(r->v, p);
        json_object *o = json_object_new_object(), *d = NULL;
        json_object_object_add(o, "vantage_point", json_object_new_string(r->points[p].name));
        json_object_object_add(o, "offset_ns", json_object_new_int64(c->offset_ns));
        json_object_object_add(
            o, "error_bound_ns",
            c->status == ROCE_VCLOCK_GIVEN ? NULL : json_object_new_int64(c->error_bound_ns));
        json_object_object_add(o, "status", json_object_new_string(clock_status[c->status]));
        roce_json_put_u64(o, "samples", c->samples);
        roce_json_put_u64(o, "host_pairs", c->host_pairs);
        json_object_object_add(o, "consistent", json_object_new_boolean(c->consistent));
        if (c->drift_known) {
            d = json_object_new_object();
            json_object_object_add(d, "start_offset_ns", json_object_new_int64(c->start_offset_ns));
            json_object_object_add(d, "start_error_bound_ns",
                                   json_object_new_int64(c->start_bound_ns));
            json_object_object_add(d, "end_offset_ns", json_object_new_int64(c->end_offset_ns));
            json_object_object_add(d, "end_error_bound_ns", json_object_new_int64(c->end_bound_ns));
            json_object_object_add(d, "drift_ns", json_object_new_int64(c->drift_ns));
            json_object_object_add(d, "detected", json_object_new_boolean(c->drift_detected));
        }
        json_object_object_add(o, "drift", d);
        json_object_array_add(a, o);
    }
    return a;
}

static json_object *events(const struct roce_localize_report *r, int ce)
{
    json_object *a = json_object_new_array();
    size_t n = ce ? roce_vantage_ce_count(r->v) : roce_vantage_loss_count(r->v);
    for (size_t i = 0; i < n; i++) {
        const struct roce_vantage_event *e =
            ce ? roce_vantage_ce(r->v, i) : roce_vantage_loss(r->v, i);
        json_object *o = json_object_new_object(), *seen = NULL;
        roce_json_endpoint(o, &e->key);
        roce_json_put_u64(o, "psn", e->psn);
        json_object_object_add(o, "after", point_name(r, e->after));
        json_object_object_add(o, "before", point_name(r, e->before));
        json_object_object_add(o, "time", roce_json_seconds(e->time_ns));
        if (!ce)
            json_object_object_add(o, "evidence",
                                   json_object_new_string(roce_vevidence_name(e->evidence)));
        if (e->first_point >= 0) {
            seen = json_object_new_object();
            json_object_object_add(seen, "vantage_point", point_name(r, e->first_point));
            roce_json_put_u64(seen, "frame", e->first_frame);
        }
        json_object_object_add(o, "first_seen", seen);
        json_object_array_add(a, o);
    }
    return a;
}

static json_object *flows(const struct roce_localize_report *r)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < roce_vantage_flow_count(r->v); i++) {
        const struct roce_vantage_flow *f = roce_vantage_flow(r->v, i);
        json_object *o = json_object_new_object(), *order = json_object_new_array(),
                    *segs = json_object_new_array();
        roce_json_endpoint(o, &f->key);
        for (unsigned k = 0; k < f->n_order; k++)
            json_object_array_add(order, point_name(r, f->order[k]));
        json_object_object_add(o, "order", order);
        json_object_object_add(o, "losses_located", json_object_new_boolean(f->locate));
        roce_json_put_u64(o, "transmissions", f->transmissions);
        roce_json_put_u64(o, "matched", f->matched);
        for (size_t k = 0; k < f->n_segments; k++)
            json_object_array_add(segs, segment(r, &f->segments[k]));
        json_object_object_add(o, "segments", segs);
        json_object_array_add(a, o);
    }
    return a;
}

/* A priority 0..7, or "pause" for 802.3x link PAUSE. */
static json_object *priority(unsigned prio)
{
    return prio == ROCE_VPAUSE_LINK ? json_object_new_string("pause") : json_object_new_int64(prio);
}

/* One step of a chain or cycle: a pause episode at a point. origin: the
 * chain's first episode (times are counted from its start). */
static json_object *pause_step(const struct roce_localize_report *r, const struct roce_vpause_ep *e,
                               const struct roce_vpause_ep *origin)
{
    const struct roce_vpause_ep *parent =
        e->parent >= 0 ? roce_vantage_pause_episode(r->v, (size_t)e->parent) : NULL;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "vantage_point", point_name(r, e->point));
    json_object_object_add(o, "sender_mac", e->has_mac ? roce_json_mac(e->mac) : NULL);
    json_object_object_add(o, "priority", priority(e->prio));
    json_object_object_add(o, "start_time", roce_json_seconds(e->start_ns));
    json_object_object_add(o, "after_us", roce_json_us(e->start_ns - origin->start_ns));
    json_object_object_add(o, "duration_us", roce_json_us(e->end_ns - e->start_ns));
    roce_json_put_u64(o, "first_frame", e->first_frame);
    roce_json_put_u64(o, "last_frame", e->last_frame);
    roce_json_put_u64(o, "frames", e->frames);
    json_object_object_add(o, "from", parent != NULL ? point_name(r, parent->point) : NULL);
    json_object_object_add(o, "evidence",
                           json_object_new_string(roce_vpause_evidence_name(e->evidence)));
    return o;
}

static json_object *pause_steps(const struct roce_localize_report *r, uint32_t first, uint32_t n)
{
    json_object *a = json_object_new_array();
    const struct roce_vpause_ep *origin = roce_vantage_pause_step(r->v, first);
    for (uint32_t k = 0; k < n; k++)
        json_object_array_add(a, pause_step(r, roce_vantage_pause_step(r->v, first + k), origin));
    return a;
}

static json_object *pause_spreading(const struct roce_localize_report *r)
{
    const struct roce_vpause_totals *t = roce_vantage_pause_totals(r->v);
    json_object *o = json_object_new_object(), *chains = json_object_new_array(),
                *cycles = json_object_new_array();
    roce_json_put_u64(o, "episodes", t->episodes);
    roce_json_put_u64(o, "spread", t->spread);
    roce_json_put_u64(o, "spread_mac_tied", t->spread_mac);
    roce_json_put_u64(o, "chains_found", t->chains);
    roce_json_put_u64(o, "chains_unlisted", t->chains_unlisted);
    roce_json_put_u64(o, "cycles_unlisted", t->cycles_unlisted);
    roce_json_put_u64(o, "episodes_dropped", t->episodes_dropped);
    roce_json_put_u64(o, "senders_dropped", t->senders_dropped);
    for (size_t i = 0; i < roce_vantage_pause_chain_count(r->v); i++) {
        const struct roce_vpause_chain *c = roce_vantage_pause_chain(r->v, i);
        json_object *co = json_object_new_object();
        json_object_object_add(co, "priority", priority(c->prio));
        json_object_object_add(co, "origin",
                               point_name(r, roce_vantage_pause_step(r->v, c->first_step)->point));
        roce_json_put_u64(co, "links", c->n_steps);
        roce_json_put_u64(co, "episodes", c->episodes);
        json_object_object_add(co, "steps", pause_steps(r, c->first_step, c->n_steps));
        json_object_array_add(chains, co);
    }
    for (size_t i = 0; i < roce_vantage_pause_cycle_count(r->v); i++) {
        const struct roce_vpause_cycle *c = roce_vantage_pause_cycle(r->v, i);
        json_object *co = json_object_new_object(), *links = json_object_new_array();
        json_object_object_add(co, "priority", priority(c->prio));
        for (uint32_t k = 0; k < c->n_links; k++)
            json_object_array_add(
                links, point_name(r, roce_vantage_pause_step(r->v, c->first_step + k)->point));
        json_object_object_add(co, "links", links);
        roce_json_put_u64(co, "closed", c->count);
        json_object_object_add(co, "steps", pause_steps(r, c->first_step, c->n_steps));
        json_object_array_add(cycles, co);
    }
    json_object_object_add(o, "chains", chains);
    json_object_object_add(o, "cycles", cycles);
    return o;
}

/* The findings: pause_cycle (error), pause_spreading (warning). */
static json_object *findings(const struct roce_localize_report *r)
{
    json_object *a = json_object_new_array();
    size_t n_cycles = roce_vantage_pause_cycle_count(r->v);
    size_t n_chains = roce_vantage_pause_chain_count(r->v);
    for (int cyc = 1; cyc >= 0; cyc--) {
        size_t n = cyc ? n_cycles : n_chains;
        if (n == 0)
            continue;
        const uint32_t first = cyc ? roce_vantage_pause_cycle(r->v, 0)->first_step
                                   : roce_vantage_pause_chain(r->v, 0)->first_step;
        const uint32_t steps = cyc ? roce_vantage_pause_cycle(r->v, 0)->n_steps
                                   : roce_vantage_pause_chain(r->v, 0)->n_steps;
        char sentence[ROCE_LOCALIZE_SENTENCE_LEN];
        json_object *o = json_object_new_object(), *frames = json_object_new_array();
        roce_localize_pause_sentence(r, cyc, sentence, sizeof sentence);
        json_object_object_add(o, "kind",
                               json_object_new_string(cyc ? "pause_cycle" : "pause_spreading"));
        json_object_object_add(o, "severity", json_object_new_string(cyc ? "error" : "warning"));
        roce_json_put_u64(o, "count", n);
        json_object_object_add(o, "summary", json_object_new_string(sentence));
        for (uint32_t k = 0; k < steps; k++) {
            const struct roce_vpause_ep *e = roce_vantage_pause_step(r->v, first + k);
            json_object *f = json_object_new_object();
            json_object_object_add(f, "vantage_point", point_name(r, e->point));
            roce_json_put_u64(f, "frame", e->first_frame);
            json_object_array_add(frames, f);
        }
        json_object_object_add(o, "frames", frames);
        json_object_array_add(a, o);
    }
    return a;
}

static json_object *totals(const struct roce_vantage_totals *t)
{
    json_object *o = json_object_new_object();
    roce_json_put_u64(o, "transmissions", t->transmissions);
    roce_json_put_u64(o, "distinct_transmissions", t->groups);
    roce_json_put_u64(o, "matched", t->matched);
    roce_json_put_u64(o, "losses", t->losses);
    roce_json_put_u64(o, "losses_unlisted", t->losses_unlisted);
    roce_json_put_u64(o, "ce_marks", t->ce_marks);
    roce_json_put_u64(o, "ce_marks_unlisted", t->ce_unlisted);
    roce_json_put_u64(o, "capture_misses", t->capture_misses);
    roce_json_put_u64(o, "gap_psns_unlocated", t->gap_psns_unlocated);
    roce_json_put_u64(o, "window_forced", t->forced);
    roce_json_put_u64(o, "flows_dropped", t->flows_dropped);
    roce_json_put_u64(o, "alloc_failures", t->alloc_failures);
    return o;
}

int roce_localize_json(const struct roce_localize_report *r, FILE *out)
{
    const struct roce_vantage_totals *t = roce_vantage_totals(r->v);
    json_object *root = json_object_new_object(), *o;
    json_object *segs = json_object_new_array();

    json_object_object_add(root, "tool", json_object_new_string("rocescope"));
    json_object_object_add(root, "command", json_object_new_string("localize"));
    json_object_object_add(root, "complete", json_object_new_boolean(r->incomplete == NULL));
    json_object_object_add(root, "error",
                           r->incomplete != NULL ? json_object_new_string(r->incomplete) : NULL);
    o = json_object_new_object();
    json_object_object_add(o, "path_delay_us", roce_json_us(r->path_delay_ns));
    json_object_object_add(o, "split_by", json_object_new_string(r->split_by));
    roce_json_put_u64(o, "link_speed_mbps", r->link_speed_mbps);
    json_object_object_add(o, "spread_window_us",
                           r->spread_window_ns > 0 ? roce_json_us(r->spread_window_ns) : NULL);
    json_object_object_add(root, "options", o);
    json_object_object_add(root, "findings", findings(r));
    json_object_object_add(root, "vantage_points", points(r));
    json_object_object_add(root, "clock_offsets", clocks(r));
    o = json_object_new_object();
    json_object_object_add(o, "first_time", roce_json_seconds(t->common_first_ns));
    json_object_object_add(o, "last_time", roce_json_seconds(t->common_last_ns));
    json_object_object_add(o, "duration_s",
                           roce_json_seconds(t->common_last_ns - t->common_first_ns));
    json_object_object_add(root, "common_span", o);
    o = json_object_new_object();
    roce_json_put_u64(o, "transmissions", t->outside_span);
    roce_json_put_u64(o, "ce_marks", t->outside_ce);
    json_object_object_add(root, "outside_common_span", o);
    json_object_object_add(root, "totals", totals(t));
    for (size_t i = 0; i < roce_vantage_segment_count(r->v); i++)
        json_object_array_add(segs, segment(r, roce_vantage_segment(r->v, i)));
    json_object_object_add(root, "segments", segs);
    json_object_object_add(root, "flows", flows(r));
    json_object_object_add(root, "losses", events(r, 0));
    json_object_object_add(root, "ce_marks", events(r, 1));
    json_object_object_add(root, "pause_spreading", pause_spreading(r));

    const char *s = json_object_to_json_string_ext(
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    int rc = s == NULL || fputs(s, out) == EOF || fputc('\n', out) == EOF ? -1 : 0;
    json_object_put(root);
    return rc;
}
