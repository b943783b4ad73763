/*
 * html_localize.c - the page of `rocescope localize --html` (see html.h):
 * the vantage points and their clocks, the common span, the segments of
 * all flows with what was lost and CE-marked there and the one-way
 * latency (a table and a chart), the flows with their paths, and the losses
 * and CE marks one by one (at most top each); when PFC pauses spread from
 * point to point, the findings first and the chains and cycles step by step.
 */
#include <inttypes.h>
#include <string.h>

#include "fmt.h"
#include "html.h"
#include "html_out.h"

#define NAME_LEN 96
#define BAR_H    22.0
#define BAR_GAP  8.0

static void lat_cells(FILE *o, const struct roce_lat_summary *l)
{
    if (l->count == 0) {
        for (int i = 0; i < 4; i++)
            roce_html_td_none(o);
        roce_html_td_u64(o, 0);
        return;
    }
    roce_html_td_us(o, l->min);
    roce_html_td_us(o, l->p50);
    roce_html_td_us(o, l->p99);
    roce_html_td_us(o, l->max);
    roce_html_td_u64(o, l->count);
}

/* End a table of which shown of n rows are listed, and its section. */
static void end_table(FILE *o, size_t shown, size_t n)
{
    fputs("</tbody></table></div>\n", o);
    if (shown < n)
        fprintf(o,
                "<p class=\"muted\">%zu more (<code>--top</code>, or <code>--json</code>).</p>\n",
                n - shown);
    fputs("</section>\n", o);
}

static void points(const struct roce_localize_report *r, FILE *o)
{
    fputs("<section id=\"points\">\n<h2>Vantage points</h2>\n<div class=\"scroll\"><table "
          "class=\"sortable\">\n<thead><tr><th class=\"text\">point</th><th class=\"text\">"
          "file</th><th>packets</th><th>transmissions</th><th>matched elsewhere</th><th>missed "
          "by its capture</th><th class=\"text\">clock offset</th></tr></thead>\n<tbody>\n",
          o);
    for (unsigned p = 0; p < r->n_points; p++) {
        const struct roce_vantage_pstats *ps = roce_vantage_point_stats(r->v, p);
        const struct roce_vantage_clock *c = roce_vantage_clock(r->v, p);
        fputs("<tr>", o);
        roce_html_td_text(o, r->points[p].name);
        roce_html_td_text(o, r->points[p].file);
        roce_html_td_u64(o, r->points[p].packets);
        roce_html_td_u64(o, ps->transmissions);
        roce_html_td_u64(o, ps->matched);
        roce_html_td_u64(o, ps->capture_misses);
        fputs("<td class=\"text\">", o);
        if (c->status == ROCE_VCLOCK_REFERENCE)
            fputs("0 ns (reference)", o);
        else if (c->status == ROCE_VCLOCK_GIVEN)
            fprintf(o, "%+" PRId64 " ns (given)", c->offset_ns);
        else
            fprintf(o, "%+" PRId64 " ns &plusmn; %" PRId64 " ns (%" PRIu64 " transmissions)%s",
                    c->offset_ns, c->error_bound_ns, c->samples,
                    c->drift_detected ? ", drift: aligned linearly" : "");
        fputs("</td></tr>\n", o);
    }
    fputs("</tbody></table></div>\n</section>\n", o);
}

static void summary(const struct roce_localize_report *r, FILE *o)
{
    const struct roce_vantage_totals *t = roce_vantage_totals(r->v);
    char a[ROCE_FMT_TIME_LEN], b[ROCE_FMT_TIME_LEN];
    roce_fmt_seconds(t->common_first_ns, a, sizeof a);
    roce_fmt_seconds(t->common_last_ns, b, sizeof b);
    fputs("<section id=\"summary\">\n<h2>Summary</h2>\n<dl class=\"cards\">\n", o);
    fprintf(o,
            "<div class=\"card\"><dt>transmissions</dt><dd>%" PRIu64 " <small>%" PRIu64
            " seen at two or more points</small></dd></div>\n"
            "<div class=\"card%s\"><dt>lost</dt><dd>%" PRIu64 " <small>request PSNs located"
            "</small></dd></div>\n"
            "<div class=\"card\"><dt>CE-marked</dt><dd>%" PRIu64 "</dd></div>\n"
            "<div class=\"card\"><dt>outside the common span</dt><dd>%" PRIu64
            " <small>transmissions not seen everywhere, %" PRIu64 " CE marks (not evidence)"
            "</small></dd></div>\n</dl>\n",
            t->groups, t->matched, t->losses ? " bad" : "", t->losses, t->ce_marks, t->outside_span,
            t->outside_ce);
    fprintf(o, "<p>Common span %s .. %s (", a, b);
    roce_html_us(o, t->common_last_ns - t->common_first_ns);
    fputs(" &micro;s, ", o);
    roce_html_esc(o, r->points[0].name);
    fputs("'s clock); path-delay bound ", o);
    roce_html_us(o, r->path_delay_ns);
    fputs(" &micro;s.</p>\n", o);
    if (t->forced || t->flows_dropped || t->gap_psns_unlocated || t->alloc_failures)
        fprintf(o,
                "<p class=\"warn\">Limits hit: %" PRIu64 " settled early, %" PRIu64
                " records of flows beyond --max-flows, %" PRIu64 " gap PSNs not located, %" PRIu64
                " allocation failures.</p>\n",
                t->forced, t->flows_dropped, t->gap_psns_unlocated, t->alloc_failures);
    fputs("</section>\n", o);
}

/* Losses per segment as horizontal bars (CE marks beside them, hatched). */
static void segment_chart(const struct roce_localize_report *r, FILE *o)
{
    size_t n = roce_vantage_segment_count(r->v);
    uint64_t top = 1;
    char name[NAME_LEN];
    for (size_t i = 0; i < n; i++) {
        const struct roce_vantage_segment *s = roce_vantage_segment(r->v, i);
        top = s->lost > top ? s->lost : top;
        top = s->ce_marked > top ? s->ce_marked : top;
    }
    struct roce_html_box b = {900, 0, 260, 860, 8, 0};
    b.bottom = b.top + (double)n * (BAR_H + BAR_GAP);
    b.h = b.bottom + 44;
    struct roce_html_scale x = {0, (double)top * 1.1, b.left, b.right};
    fputs("<figure>\n", o);
    roce_html_svg_open(o, &b, "Lost and CE-marked transmissions per segment", NULL, NULL, NULL);
    roce_html_axis_x(o, &b, &x, "transmissions (solid: lost, hatched: CE-marked)", 1);
    for (size_t i = 0; i < n; i++) {
        const struct roce_vantage_segment *s = roce_vantage_segment(r->v, i);
        double y = b.top + (double)i * (BAR_H + BAR_GAP);
        roce_localize_segment_name(r, s, name, sizeof name);
        fprintf(o, "<text x=\"%g\" y=\"%.1f\" text-anchor=\"end\">", b.left - 6, y + BAR_H / 2 + 4);
        roce_html_esc(o, name);
        fprintf(o,
                "</text><rect class=\"paused\" x=\"%g\" y=\"%.1f\" width=\"%.1f\" height=\"%g\">"
                "<title>lost %" PRIu64 "</title></rect><rect class=\"ep\" x=\"%g\" y=\"%.1f\" "
                "width=\"%.1f\" height=\"%g\"><title>CE-marked %" PRIu64 "</title></rect>\n",
                b.left, y, roce_html_map(&x, (double)s->lost) - b.left, BAR_H / 2, s->lost, b.left,
                y + BAR_H / 2, roce_html_map(&x, (double)s->ce_marked) - b.left, BAR_H / 2,
                s->ce_marked);
    }
    fputs("</svg>\n</figure>\n", o);
}

static void segments(const struct roce_localize_report *r, FILE *o)
{
    char name[NAME_LEN];
    fputs("<section id=\"segments\">\n<h2>Segments (all flows)</h2>\n", o);
    if (roce_vantage_segment_count(r->v) == 0) {
        fputs("<p>None.</p>\n</section>\n", o);
        return;
    }
    segment_chart(r, o);
    fputs("<div class=\"scroll\"><table class=\"sortable\">\n<thead><tr><th class=\"text\">"
          "segment</th><th>lost</th><th>CE-marked</th><th>latency min &micro;s</th><th>p50 "
          "&micro;s</th><th>p99 &micro;s</th><th>max &micro;s</th><th>samples</th></tr>"
          "</thead>\n<tbody>\n",
          o);
    for (size_t i = 0; i < roce_vantage_segment_count(r->v); i++) {
        const struct roce_vantage_segment *s = roce_vantage_segment(r->v, i);
        roce_localize_segment_name(r, s, name, sizeof name);
        fputs("<tr>", o);
        roce_html_td_text(o, name);
        roce_html_td_u64(o, s->lost);
        roce_html_td_u64(o, s->ce_marked);
        lat_cells(o, &s->latency);
        fputs("</tr>\n", o);
    }
    fputs("</tbody></table></div>\n</section>\n", o);
}

static void flows(const struct roce_localize_report *r, FILE *o)
{
    size_t n = roce_vantage_flow_count(r->v), shown = n < r->top ? n : r->top;
    char key[ROCE_FMT_FLOW_LEN], name[NAME_LEN];
    fprintf(o, "<section id=\"flows\">\n<h2>Flows (%zu)</h2>\n", n);
    fputs("<div class=\"scroll\"><table class=\"sortable\">\n<thead><tr><th class=\"text\">flow"
          "</th><th class=\"text\">path</th><th>transmissions</th><th>matched</th><th>lost</th>"
          "<th>CE-marked</th><th class=\"text\">where</th></tr></thead>\n<tbody>\n",
          o);
    for (size_t i = 0; i < shown; i++) {
        const struct roce_vantage_flow *f = roce_vantage_flow(r->v, i);
        uint64_t lost = 0, ce = 0;
        roce_fmt_flow(&f->key, key, sizeof key);
        fputs("<tr>", o);
        roce_html_td_text(o, key);
        fputs("<td class=\"text\">", o);
        for (unsigned k = 0; k < f->n_order; k++) {
            fputs(k ? " &rarr; " : "", o);
            roce_html_esc(o, r->points[f->order[k]].name);
        }
        if (!f->locate)
            fputs(" (responses / UD: losses not located)", o);
        fputs("</td>", o);
        roce_html_td_u64(o, f->transmissions);
        roce_html_td_u64(o, f->matched);
        for (size_t k = 0; k < f->n_segments; k++) {
            lost += f->segments[k].lost;
            ce += f->segments[k].ce_marked;
        }
        roce_html_td_u64(o, lost);
        roce_html_td_u64(o, ce);
        fputs("<td class=\"text\">", o);
        for (size_t k = 0, sep = 0; k < f->n_segments; k++) {
            const struct roce_vantage_segment *s = &f->segments[k];
            if (s->lost == 0 && s->ce_marked == 0)
                continue;
            roce_localize_segment_name(r, s, name, sizeof name);
            fputs(sep++ ? "; " : "", o);
            roce_html_esc(o, name);
            fprintf(o, ": lost %" PRIu64 ", CE %" PRIu64, s->lost, s->ce_marked);
        }
        fputs("</td></tr>\n", o);
    }
    end_table(o, shown, n);
}

static void events(const struct roce_localize_report *r, FILE *o, int ce)
{
    size_t n = ce ? roce_vantage_ce_count(r->v) : roce_vantage_loss_count(r->v);
    size_t shown = n < r->top ? n : r->top;
    char key[ROCE_FMT_FLOW_LEN], t[ROCE_FMT_TIME_LEN];
    fprintf(o, "<section id=\"%s\">\n<h2>%s (%zu)</h2>\n", ce ? "ce-marks" : "losses",
            ce ? "CE marks" : "Losses", n);
    if (n == 0) {
        fputs("<p>None.</p>\n</section>\n", o);
        return;
    }
    fputs("<div class=\"scroll\"><table class=\"sortable\">\n<thead><tr><th class=\"text\">flow"
          "</th><th class=\"text\">PSN</th><th class=\"text\">between</th><th class=\"text\">and"
          "</th><th>time s</th><th class=\"text\">evidence</th><th class=\"text\">first seen at"
          "</th><th>frame</th></tr></thead>\n<tbody>\n",
          o);
    for (size_t i = 0; i < shown; i++) {
        const struct roce_vantage_event *e =
            ce ? roce_vantage_ce(r->v, i) : roce_vantage_loss(r->v, i);
        roce_fmt_flow(&e->key, key, sizeof key);
        roce_fmt_seconds(e->time_ns, t, sizeof t);
        fputs("<tr>", o);
        roce_html_td_text(o, key);
        fprintf(o, "<td>%" PRIu32 "</td>", e->psn);
        roce_html_td_text(o, roce_localize_end_name(r, e->after, 1));
        roce_html_td_text(o, roce_localize_end_name(r, e->before, 0));
        fprintf(o, "<td>%s</td>", t);
        roce_html_td_text(o, roce_vevidence_name(e->evidence));
        if (e->first_point >= 0) {
            roce_html_td_text(o, r->points[e->first_point].name);
            roce_html_td_u64(o, e->first_frame);
        } else {
            roce_html_td_text(o, "");
            roce_html_td_none(o);
        }
        fputs("</tr>\n", o);
    }
    end_table(o, shown, n);
}

/* The findings pause_cycle and pause_spreading (none: no section). */
static void findings(const struct roce_localize_report *r, FILE *o)
{
    char sentence[ROCE_LOCALIZE_SENTENCE_LEN];
    int cycles = roce_vantage_pause_cycle_count(r->v) > 0;
    if (!cycles && roce_vantage_pause_chain_count(r->v) == 0)
        return;
    fputs("<section id=\"diagnoses\">\n<h2>Findings</h2>\n<ol>\n", o);
    for (int cyc = 1; cyc >= 0; cyc--) {
        if (cyc ? !cycles : roce_vantage_pause_chain_count(r->v) == 0)
            continue;
        roce_localize_pause_sentence(r, cyc, sentence, sizeof sentence);
        fprintf(o,
                "<li data-kind=\"%s\" data-severity=\"%s\"><span class=\"warn\">%s</span> "
                "<b>%s</b>: ",
                cyc ? "pause_cycle" : "pause_spreading", cyc ? "error" : "warning",
                cyc ? "error" : "warning", cyc ? "pause_cycle" : "pause_spreading");
        roce_html_esc(o, sentence);
        fputs(" (<a href=\"#pauses\">the steps</a>)</li>\n", o);
    }
    fputs("</ol>\n</section>\n", o);
}

/* The rows of one chain or cycle: a step a row. */
static void pause_rows(const struct roce_localize_report *r, FILE *o, const char *what,
                       uint32_t first, uint32_t n)
{
    const struct roce_vpause_ep *origin = roce_vantage_pause_step(r->v, first);
    char mac[ROCE_MAC_TEXT_LEN], prio[32];
    for (uint32_t k = 0; k < n; k++) {
        const struct roce_vpause_ep *e = roce_vantage_pause_step(r->v, first + k);
        const struct roce_vpause_ep *parent =
            e->parent >= 0 ? roce_vantage_pause_episode(r->v, (size_t)e->parent) : NULL;
        fputs("<tr>", o);
        roce_html_td_text(o, what);
        roce_html_td_u64(o, k + 1);
        roce_html_td_us(o, e->start_ns - origin->start_ns);
        roce_html_td_text(o, r->points[e->point].name);
        if (e->has_mac)
            roce_mac_format(e->mac, mac, sizeof mac);
        roce_html_td_text(o, e->has_mac ? mac : "");
        roce_localize_priority_name(e->prio, prio, sizeof prio);
        roce_html_td_text(o, prio);
        roce_html_td_us(o, e->end_ns - e->start_ns);
        roce_html_td_u64(o, e->first_frame);
        roce_html_td_u64(o, e->frames);
        roce_html_td_text(o, parent != NULL ? r->points[parent->point].name : "");
        roce_html_td_text(o, roce_vpause_evidence_name(e->evidence));
        fputs("</tr>\n", o);
    }
}

/* The cycles, then the chains (at most top each), step by step. */
static void pauses(const struct roce_localize_report *r, FILE *o)
{
    const struct roce_vpause_totals *t = roce_vantage_pause_totals(r->v);
    size_t nc = roce_vantage_pause_chain_count(r->v), ny = roce_vantage_pause_cycle_count(r->v);
    char what[48];
    if (t->episodes == 0)
        return;
    fprintf(o,
            "<section id=\"pauses\">\n<h2>PFC pauses across the points</h2>\n<p>%" PRIu64
            " episode%s, %" PRIu64 " spread from another point (%" PRIu64
            " tied by MAC), %zu chain%s, %zu cycle%s.</p>\n",
            t->episodes, roce_fmt_plural(t->episodes), t->spread, t->spread_mac, nc,
            roce_fmt_plural(nc), ny, roce_fmt_plural(ny));
    if (nc + ny == 0) {
        fputs("</section>\n", o);
        return;
    }
    fputs("<div class=\"scroll\"><table>\n<thead><tr><th class=\"text\">chain or cycle</th>"
          "<th>step</th><th>after &micro;s</th><th class=\"text\">point</th><th class=\"text\">"
          "sender MAC</th><th class=\"text\">priority</th><th>lasted &micro;s</th><th>first "
          "frame</th><th>frames</th><th class=\"text\">after</th><th class=\"text\">evidence"
          "</th></tr></thead>\n<tbody>\n",
          o);
    for (size_t i = 0; i < ny && i < r->top; i++) {
        const struct roce_vpause_cycle *c = roce_vantage_pause_cycle(r->v, i);
        snprintf(what, sizeof what, "cycle %zu", i + 1);
        pause_rows(r, o, what, c->first_step, c->n_steps);
    }
    for (size_t i = 0; i < nc && i < r->top; i++) {
        const struct roce_vpause_chain *c = roce_vantage_pause_chain(r->v, i);
        snprintf(what, sizeof what, "chain %zu", i + 1);
        pause_rows(r, o, what, c->first_step, c->n_steps);
    }
    end_table(o, (nc < r->top ? nc : r->top) + (ny < r->top ? ny : r->top), nc + ny);
}

int roce_html_localize(FILE *o, const struct roce_localize_report *r)
{
    roce_html_begin(o, "rocescope localize");
    fprintf(o, "<header>\n<h1>rocescope localize</h1>\n<p>%u vantage points", r->n_points);
    if (r->split_by != NULL && strcmp(r->split_by, "none") != 0)
        fprintf(o, " (split by %s)", r->split_by);
    fputs(".</p>\n", o);
    if (r->incomplete != NULL) {
        fputs("<p class=\"warn\">INCOMPLETE: a capture could not be read to its end: ", o);
        roce_html_esc(o, r->incomplete);
        fputs("</p>\n", o);
    }
    fputs("<nav aria-label=\"sections\"><ul><li><a href=\"#summary\">Summary</a></li><li><a "
          "href=\"#points\">Vantage points</a></li><li><a href=\"#segments\">Segments</a></li>"
          "<li><a href=\"#flows\">Flows</a></li><li><a href=\"#losses\">Losses</a></li><li><a "
          "href=\"#ce-marks\">CE marks</a></li>",
          o);
    if (roce_vantage_pause_totals(r->v)->episodes)
        fputs("<li><a href=\"#pauses\">PFC pauses</a></li>", o);
    fputs("</ul></nav>\n</header>\n", o);
    findings(r, o);
    summary(r, o);
    pauses(r, o);
    points(r, o);
    segments(r, o);
    flows(r, o);
    events(r, o, 0);
    events(r, o, 1);
    roce_html_end(o);
    return ferror(o) ? -1 : 0;
}
