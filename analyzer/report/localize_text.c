/*
 * localize_text.c - the human summary of `rocescope localize`: the points
 * and their clock offsets first, the common span and what fell outside it,
 * then per segment and per flow what was lost, CE-marked and how long the
 * packets took, then the losses and marks one by one (at most `top` each).
 */
#include <inttypes.h>
#include <string.h>

#include "fmt.h"
#include "localize_report.h"
#include "names.h"

#define NAME_BUF 96
#define ESC_BUF  (2 * NAME_BUF * ROCE_NAME_ESC_MAX) /* a segment's name, escaped */

/* Point p's name as printed: control characters escaped (names.h). */
static const char *pname(const struct roce_localize_report *r, unsigned p, char buf[ESC_BUF])
{
    return roce_name_escape(r->points[p].name, buf, ESC_BUF);
}

/* An end of a segment or event (a point, the sender, the receiver) as
 * printed. */
static const char *ename(const struct roce_localize_report *r, int p, int is_after,
                         char buf[ESC_BUF])
{
    return roce_name_escape(roce_localize_end_name(r, p, is_after), buf, ESC_BUF);
}
#define SEG_COL 34

const char *roce_localize_end_name(const struct roce_localize_report *r, int p, int is_after)
{
    if (p >= 0 && (unsigned)p < r->n_points)
        return r->points[p].name;
    return is_after ? "(sender)" : "(receiver)";
}

void roce_localize_segment_name(const struct roce_localize_report *r,
                                const struct roce_vantage_segment *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s -> %s", roce_localize_end_name(r, s->after, 1),
             roce_localize_end_name(r, s->before, 0));
}

static void latency_text(FILE *o, const struct roce_lat_summary *l)
{
    char a[ROCE_FMT_US_LEN], b[ROCE_FMT_US_LEN], c[ROCE_FMT_US_LEN], d[ROCE_FMT_US_LEN];
    if (l->count == 0)
        return;
    fprintf(o, "%s / %s / %s / %s us (%" PRIu64 ")", roce_fmt_us_text(l->min, a),
            roce_fmt_us_text(l->p50, b), roce_fmt_us_text(l->p99, c), roce_fmt_us_text(l->max, d),
            l->count);
}

static void clocks(const struct roce_localize_report *r, FILE *o)
{
    char n[ESC_BUF];
    fprintf(o, "\nClock offsets (each point's clock minus %s's):\n", pname(r, 0, n));
    for (unsigned p = 0; p < r->n_points; p++) {
        const struct roce_vantage_clock *c = roce_vantage_clock(r->v, p);
        fprintf(o, "  %-16s ", pname(r, p, n));
        if (c->status == ROCE_VCLOCK_REFERENCE) {
            fputs("0 ns (reference)\n", o);
            continue;
        }
        if (c->status == ROCE_VCLOCK_GIVEN) {
            fprintf(o, "%+" PRId64 " ns (given with --offset)\n", c->offset_ns);
            continue;
        }
        fprintf(o,
                "%+" PRId64 " ns +/- %" PRId64 " ns, from %" PRIu64 " transmission%s of %" PRIu32
                " host pair%s",
                c->offset_ns, c->error_bound_ns, c->samples, roce_fmt_plural(c->samples),
                c->host_pairs, roce_fmt_plural(c->host_pairs));
        if (!c->consistent)
            fputs("; the host pairs disagree (clock drift or step?)", o);
        if (c->drift_detected)
            fprintf(o, "; DRIFT %+" PRId64 " ns from start to end, aligned linearly", c->drift_ns);
        else if (c->drift_known)
            fprintf(o, "; no drift (start to end %+" PRId64 " ns)", c->drift_ns);
        fputc('\n', o);
    }
}

static void header(const struct roce_localize_report *r, FILE *o)
{
    const struct roce_vantage_totals *t = roce_vantage_totals(r->v);
    char a[ROCE_FMT_TIME_LEN], b[ROCE_FMT_TIME_LEN], d[ROCE_FMT_US_LEN], n[ESC_BUF];
    fprintf(o, "rocescope localize: %u vantage point%s, path-delay bound %s us%s\n", r->n_points,
            roce_fmt_plural(r->n_points), roce_fmt_us_text(r->path_delay_ns, d),
            r->incomplete != NULL ? " (INCOMPLETE: a capture could not be read to its end)" : "");
    for (unsigned p = 0; p < r->n_points; p++) {
        const struct roce_vantage_pstats *ps = roce_vantage_point_stats(r->v, p);
        fprintf(o, "  %-16s ", pname(r, p, n));
        roce_name_fputs(r->points[p].file, o);
        fprintf(o,
                ": %" PRIu64 " packets, %" PRIu64 " transmissions, %" PRIu64 " matched elsewhere",
                r->points[p].packets, ps->transmissions, ps->matched);
        if (ps->capture_misses)
            fprintf(o, ", %" PRIu64 " missed by its capture", ps->capture_misses);
        fputc('\n', o);
    }
    clocks(r, o);
    roce_fmt_seconds(t->common_first_ns, a, sizeof a);
    roce_fmt_seconds(t->common_last_ns, b, sizeof b);
    fprintf(o, "\nCommon span: %s .. %s (%s us, %s's clock)\n", a, b,
            roce_fmt_us_text(t->common_last_ns - t->common_first_ns, d), pname(r, 0, n));
    fprintf(o,
            "  outside it (not evidence): %" PRIu64
            " transmission%s not seen at every point, %" PRIu64 " CE mark%s\n",
            t->outside_span, roce_fmt_plural(t->outside_span), t->outside_ce,
            roce_fmt_plural(t->outside_ce));
    fprintf(o,
            "Transmissions: %" PRIu64 " distinct, %" PRIu64 " seen at two or more points; %" PRIu64
            " lost, %" PRIu64 " CE-marked\n",
            t->groups, t->matched, t->losses, t->ce_marks);
    if (t->forced || t->flows_dropped || t->gap_psns_unlocated || t->alloc_failures)
        fprintf(o,
                "  limits hit: %" PRIu64 " settled early (window full), %" PRIu64
                " records of flows beyond --max-flows, %" PRIu64 " gap PSNs not located, %" PRIu64
                " allocation failures\n",
                t->forced, t->flows_dropped, t->gap_psns_unlocated, t->alloc_failures);
}

static void segments(const struct roce_localize_report *r, FILE *o)
{
    char name[NAME_BUF], n[ESC_BUF];
    fprintf(o, "\nSegments (all flows):\n  %-*s %6s %9s  %s\n", SEG_COL, "segment", "lost",
            "CE marked", "one-way latency min / p50 / p99 / max (count)");
    for (size_t i = 0; i < roce_vantage_segment_count(r->v); i++) {
        const struct roce_vantage_segment *s = roce_vantage_segment(r->v, i);
        roce_localize_segment_name(r, s, name, sizeof name);
        fprintf(o, "  %-*s %6" PRIu64 " %9" PRIu64 "  ", SEG_COL,
                roce_name_escape(name, n, sizeof n), s->lost, s->ce_marked);
        if (s->latency.count)
            latency_text(o, &s->latency);
        else
            fputc('-', o);
        fputc('\n', o);
    }
}

static void flows(const struct roce_localize_report *r, FILE *o)
{
    size_t n = roce_vantage_flow_count(r->v), shown = n < r->top ? n : r->top;
    char name[NAME_BUF], key[ROCE_FMT_FLOW_LEN], esc[ESC_BUF];
    fprintf(o, "\nFlows (%zu):\n", n);
    for (size_t i = 0; i < shown; i++) {
        const struct roce_vantage_flow *f = roce_vantage_flow(r->v, i);
        roce_fmt_flow(&f->key, key, sizeof key);
        fprintf(o, "  %s: ", key);
        for (unsigned k = 0; k < f->n_order; k++)
            fprintf(o, "%s%s", k ? " -> " : "", pname(r, f->order[k], esc));
        fprintf(o, "; %" PRIu64 " transmission%s, %" PRIu64 " matched%s\n", f->transmissions,
                roce_fmt_plural(f->transmissions), f->matched,
                f->locate ? "" : " (responses / UD: losses not located)");
        for (size_t k = 0; k < f->n_segments; k++) {
            const struct roce_vantage_segment *s = &f->segments[k];
            if (s->lost == 0 && s->ce_marked == 0 && s->latency.count == 0)
                continue;
            roce_localize_segment_name(r, s, name, sizeof name);
            fprintf(o, "    %-*s lost %" PRIu64 ", CE marked %" PRIu64, SEG_COL - 2,
                    roce_name_escape(name, esc, sizeof esc), s->lost, s->ce_marked);
            if (s->latency.count) {
                fputs(", latency ", o);
                latency_text(o, &s->latency);
            }
            fputc('\n', o);
        }
    }
    if (shown < n)
        fprintf(o, "  ... %zu more (--top, or --json)\n", n - shown);
}

static void events(const struct roce_localize_report *r, FILE *o, int ce)
{
    size_t n = ce ? roce_vantage_ce_count(r->v) : roce_vantage_loss_count(r->v);
    size_t shown = n < r->top ? n : r->top;
    char key[ROCE_FMT_FLOW_LEN], t[ROCE_FMT_TIME_LEN], a[ESC_BUF], b[ESC_BUF];
    fprintf(o, "\n%s (%zu):\n", ce ? "CE marks" : "Losses", n);
    for (size_t i = 0; i < shown; i++) {
        const struct roce_vantage_event *e =
            ce ? roce_vantage_ce(r->v, i) : roce_vantage_loss(r->v, i);
        roce_fmt_flow(&e->key, key, sizeof key);
        roce_fmt_seconds(e->time_ns, t, sizeof t);
        fprintf(o, "  %s PSN %" PRIu32 ": %s between %s and %s at %s", key, e->psn,
                ce ? "marked" : "lost", ename(r, e->after, 1, a), ename(r, e->before, 0, b), t);
        if (e->evidence == ROCE_VEVIDENCE_GAPS)
            fputs(" (no point saw it: PSN gaps)", o);
        else if (e->evidence == ROCE_VEVIDENCE_RESENT)
            fprintf(o, " (every point saw it; resent: %s frame %" PRIu64 ")",
                    pname(r, e->first_point, a), e->first_frame);
        else
            fprintf(o, " (%s frame %" PRIu64 ")", pname(r, e->first_point, a), e->first_frame);
        fputc('\n', o);
    }
    if (shown < n)
        fprintf(o, "  ... %zu more (--top, or --json)\n", n - shown);
}

void roce_localize_priority_name(unsigned prio, char *buf, size_t len)
{
    if (prio == ROCE_VPAUSE_LINK)
        snprintf(buf, len, "link PAUSE");
    else
        snprintf(buf, len, "priority %u", prio);
}

/* "tap_a -> tap_c -> tap_b" of n steps from first, escaped; a cycle
 * ends with its first link again. */
static void step_names(const struct roce_localize_report *r, uint32_t first, uint32_t n, int closed,
                       char *buf, size_t len)
{
    char esc[ESC_BUF];
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t k = 0; k <= n && used < len; k++) {
        if (k == n && !closed)
            break;
        const struct roce_vpause_ep *e = roce_vantage_pause_step(r->v, first + (k < n ? k : 0));
        int w = snprintf(buf + used, len - used, "%s%s", k ? " -> " : "", pname(r, e->point, esc));
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

void roce_localize_pause_sentence(const struct roce_localize_report *r, int cycle, char *buf,
                                  size_t len)
{
    char path[NAME_BUF * 4], prio[32], esc[ESC_BUF], d[ROCE_FMT_US_LEN];
    if (cycle) {
        const struct roce_vpause_cycle *c = roce_vantage_pause_cycle(r->v, 0);
        size_t n = roce_vantage_pause_cycle_count(r->v);
        step_names(r, c->first_step, c->n_links, 1, path, sizeof path);
        roce_localize_priority_name(c->prio, prio, sizeof prio);
        snprintf(buf, len,
                 "%zu cycle%s of links each pausing the next: %s (%s, closed %" PRIu64
                 " time%s): a PFC deadlock risk; break the loop in the routing (or the "
                 "up-down order of the links) and enable the switches' PFC watchdog",
                 n, roce_fmt_plural(n), path, prio, c->count, roce_fmt_plural(c->count));
        return;
    }
    const struct roce_vpause_chain *c = roce_vantage_pause_chain(r->v, 0);
    size_t n = roce_vantage_pause_chain_count(r->v);
    const struct roce_vpause_ep *o = roce_vantage_pause_step(r->v, c->first_step),
                                *last =
                                    roce_vantage_pause_step(r->v, c->first_step + c->n_steps - 1);
    step_names(r, c->first_step, c->n_steps, 0, path, sizeof path);
    roce_localize_priority_name(c->prio, prio, sizeof prio);
    snprintf(buf, len,
             "pausing spread from link to link (%zu chain%s): %s (%s, %" PRIu32
             " links in %s us): it started at %s, downstream of the others: find what "
             "congests beyond %s (a slow receiver, incast)",
             n, roce_fmt_plural(n), path, prio, c->n_steps,
             roce_fmt_us_text(last->start_ns - o->start_ns, d), pname(r, o->point, esc),
             pname(r, o->point, esc));
}

static void pause_episode_line(const struct roce_localize_report *r, FILE *o,
                               const struct roce_vpause_ep *e, const struct roce_vpause_ep *origin)
{
    char esc[ESC_BUF], d[ROCE_FMT_US_LEN], l[ROCE_FMT_US_LEN], mac[ROCE_MAC_TEXT_LEN] = "(no MAC)";
    const struct roce_vpause_ep *parent =
        e->parent >= 0 ? roce_vantage_pause_episode(r->v, (size_t)e->parent) : NULL;
    if (e->has_mac)
        roce_mac_format(e->mac, mac, sizeof mac);
    fprintf(o, "    +%s us  %-16s from %s, lasted %s us, frames %" PRIu64,
            roce_fmt_us_text(e->start_ns - origin->start_ns, d), pname(r, e->point, esc), mac,
            roce_fmt_us_text(e->end_ns - e->start_ns, l), e->first_frame);
    if (e->last_frame != e->first_frame)
        fprintf(o, "..%" PRIu64 " (%" PRIu32 ")", e->last_frame, e->frames);
    if (parent != NULL)
        fprintf(o, "; after %s (%s)", pname(r, parent->point, esc),
                e->evidence == ROCE_VPAUSE_MAC ? "its sender sent there" : "time order only");
    else
        fputs("; where it started", o);
    fputc('\n', o);
}

/* The findings, then the pause chains and cycles (at most top each). */
static void pauses(const struct roce_localize_report *r, FILE *o)
{
    const struct roce_vpause_totals *t = roce_vantage_pause_totals(r->v);
    size_t nc = roce_vantage_pause_chain_count(r->v), ny = roce_vantage_pause_cycle_count(r->v);
    char sentence[ROCE_LOCALIZE_SENTENCE_LEN], prio[32];
    if (t->episodes == 0)
        return;
    fprintf(o,
            "\nPFC pauses across the points: %" PRIu64 " episode%s, %" PRIu64
            " spread from another point (%" PRIu64 " tied by MAC), %" PRIu64
            " chain%s, %zu cycle%s\n",
            t->episodes, roce_fmt_plural(t->episodes), t->spread, t->spread_mac, t->chains,
            roce_fmt_plural(t->chains), ny, roce_fmt_plural(ny));
    if (t->episodes_dropped || t->senders_dropped || t->chains_unlisted || t->cycles_unlisted)
        fprintf(o,
                "  limits hit: %" PRIu64 " episodes not kept, %" PRIu64
                " source MACs not noted, %" PRIu64 " chains and %" PRIu64 " cycles not listed\n",
                t->episodes_dropped, t->senders_dropped, t->chains_unlisted, t->cycles_unlisted);
    if (ny) {
        roce_localize_pause_sentence(r, 1, sentence, sizeof sentence);
        fprintf(o, "  error    pause_cycle: %s\n", sentence);
    }
    if (nc) {
        roce_localize_pause_sentence(r, 0, sentence, sizeof sentence);
        fprintf(o, "  warning  pause_spreading: %s\n", sentence);
    }
    for (size_t i = 0; i < ny && i < r->top; i++) {
        const struct roce_vpause_cycle *c = roce_vantage_pause_cycle(r->v, i);
        roce_localize_priority_name(c->prio, prio, sizeof prio);
        fprintf(o, "  cycle %zu (%s, %" PRIu32 " links, closed %" PRIu64 " time%s):\n", i + 1, prio,
                c->n_links, c->count, roce_fmt_plural(c->count));
        for (uint32_t k = 0; k < c->n_steps; k++)
            pause_episode_line(r, o, roce_vantage_pause_step(r->v, c->first_step + k),
                               roce_vantage_pause_step(r->v, c->first_step));
    }
    for (size_t i = 0; i < nc && i < r->top; i++) {
        const struct roce_vpause_chain *c = roce_vantage_pause_chain(r->v, i);
        char t0[ROCE_FMT_TIME_LEN];
        const struct roce_vpause_ep *origin = roce_vantage_pause_step(r->v, c->first_step);
        roce_localize_priority_name(c->prio, prio, sizeof prio);
        roce_fmt_seconds(origin->start_ns, t0, sizeof t0);
        fprintf(o, "  chain %zu (%s, %" PRIu32 " links, %" PRIu32 " episodes) from %s:\n", i + 1,
                prio, c->n_steps, c->episodes, t0);
        for (uint32_t k = 0; k < c->n_steps; k++)
            pause_episode_line(r, o, roce_vantage_pause_step(r->v, c->first_step + k), origin);
    }
    if (nc > r->top || ny > r->top)
        fputs("  ... more (--top, or --json)\n", o);
}

int roce_localize_text(const struct roce_localize_report *r, FILE *o)
{
    header(r, o);
    pauses(r, o);
    segments(r, o);
    flows(r, o);
    events(r, o, 0);
    events(r, o, 1);
    return ferror(o) ? -1 : 0;
}
