/*
 * html_charts.c - the report page's other charts (see html_part.h): a
 * latency histogram, and the PFC/PAUSE section (a table per priority, and,
 * with series, a timeline of the time paused).
 */
#include <inttypes.h>
#include <string.h>

#include "fmt.h"
#include "html_part.h"

#define HIST_BINS 32
#define ROW_H     34.0
#define ROW_GAP   10.0
#define TICK_H    5.0
#define P50       50
#define P99       99
#define LABEL_LEN 96

static const struct roce_html_box hist_box = {900, 220, 76, 884, 12, 174};

/* Count n samples of value v (clamped to the distribution's min and max)
 * into the bins over [lo, hi) ns. */
static void bin(uint64_t *bins, const struct roce_lat *l, int64_t lo, int64_t hi, int64_t v,
                uint64_t n)
{
    v = v < l->min ? l->min : v > l->max ? l->max : v;
    size_t k = (size_t)((double)(v - lo) * HIST_BINS / (double)(hi - lo));
    bins[k < HIST_BINS ? k : HIST_BINS - 1] += n;
}

void roce_html_histogram(FILE *o, const struct roce_lat *l, const char *title, const char *what)
{
    uint64_t bins[HIST_BINS];
    const int64_t *ex;
    size_t n_ex = roce_lat_exact(l, &ex);
    uint64_t top = 0;
    /* the bins span min to max; a single value gets a microsecond around it */
    int64_t lo_ns = l->min, hi_ns = l->max + 1;
    if (l->max - l->min < HIST_BINS) {
        lo_ns = l->min > ROCE_NS_PER_US / 2 ? l->min - ROCE_NS_PER_US / 2 : 0;
        hi_ns = lo_ns + ROCE_NS_PER_US;
    }
    char ylabel[LABEL_LEN];

    if (l->count == 0) {
        fputs("<p>No samples.</p>\n", o);
        return;
    }
    memset(bins, 0, sizeof bins);
    for (size_t i = 0; i < n_ex; i++)
        bin(bins, l, lo_ns, hi_ns, ex[i], 1);
    for (unsigned i = 0; n_ex == 0 && i < ROCE_LAT_BUCKETS; i++) {
        uint32_t c = roce_lat_bucket(l, i);
        if (c)
            bin(bins, l, lo_ns, hi_ns, roce_lat_bucket_value(i), c);
    }
    for (size_t k = 0; k < HIST_BINS; k++)
        if (bins[k] > top)
            top = bins[k];
    const size_t nb = HIST_BINS;
    double lo = (double)lo_ns / ROCE_NS_PER_US, hi = (double)hi_ns / ROCE_NS_PER_US;
    struct roce_html_scale x = {lo, hi, hist_box.left, hist_box.right};
    struct roce_html_scale y = {0, (double)top * 1.1, hist_box.bottom, hist_box.top};
    snprintf(ylabel, sizeof ylabel, "%s", what);
    fputs("<figure>\n", o);
    roce_html_svg_open(o, &hist_box, title, NULL, NULL, NULL);
    roce_html_axis_x(o, &hist_box, &x, "latency (\xc2\xb5s)", 0);
    roce_html_axis_y(o, &hist_box, &y, ylabel, 1);
    for (size_t k = 0; k < nb; k++) {
        if (!bins[k])
            continue;
        double x0 = roce_html_map(&x, lo + (hi - lo) * (double)k / (double)nb);
        double x1 = roce_html_map(&x, lo + (hi - lo) * (double)(k + 1) / (double)nb);
        double y0 = roce_html_map(&y, (double)bins[k]);
        fprintf(o,
                "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
                "<title>%" PRIu64 "</title></rect>\n",
                x0 + 0.5, y0, x1 - x0 - 1 > 1 ? x1 - x0 - 1 : 1, hist_box.bottom - y0, bins[k]);
    }
    fputs("</svg>\n<figcaption>", o);
    roce_html_esc(o, title);
    fprintf(o, ": %" PRIu64 " samples, min ", l->count);
    roce_html_us(o, l->min);
    fputs(", p50 ", o);
    roce_html_us(o, roce_lat_percentile(l, P50));
    fputs(", p99 ", o);
    roce_html_us(o, roce_lat_percentile(l, P99));
    fputs(", max ", o);
    roce_html_us(o, l->max);
    fputs(" &micro;s.</figcaption>\n</figure>\n", o);
}

static const struct roce_pfc_prio *slot(const struct roce_totals *t, unsigned i)
{
    return i < ROCE_PFC_PRIORITIES ? &t->pfc.prio[i] : &t->pfc.pause;
}

static void slot_name(unsigned i, char *buf, size_t len)
{
    if (i < ROCE_PFC_PRIORITIES)
        snprintf(buf, len, "priority %u", i);
    else
        snprintf(buf, len, "link PAUSE");
}

void roce_html_rows_open(struct roce_html_page *pg, const char *title, unsigned n_rows,
                         int64_t from, int64_t end, struct roce_html_rows *c)
{
    char xl[LABEL_LEN];
    FILE *o = pg->o;
    c->unit = roce_html_time_unit(end - pg->t0_ns > 0 ? end - pg->t0_ns : 1);
    c->b = (struct roce_html_box){900, 0, c->left, 884, 12, 0};
    c->b.bottom = c->b.top + n_rows * c->row;
    c->b.h = c->b.bottom + 44;
    c->x = (struct roce_html_scale){(double)(from - pg->t0_ns) / c->unit.ns,
                                    (double)(end - pg->t0_ns) / c->unit.ns, c->b.left, c->b.right};
    if (c->x.v1 <= c->x.v0)
        c->x.v1 = c->x.v0 + 1;
    snprintf(xl, sizeof xl, "time since the capture began (%s)", c->unit.name);
    fputs("<figure>\n", o);
    roce_html_svg_open(o, &c->b, title, &c->x, c->unit.name, NULL);
    roce_html_axis_x(o, &c->b, &c->x, xl, 0);
}

static void pfc_timeline(struct roce_html_page *pg, const unsigned *rows, unsigned n_rows)
{
    const struct roce_html_pfc *p = pg->s->pfc;
    const struct roce_totals *t = &pg->r->t;
    FILE *o = pg->o;
    char name[LABEL_LEN];
    int64_t end = t->last_ts_ns > p->end_ns ? t->last_ts_ns : p->end_ns;
    struct roce_html_rows c = {.row = ROW_H + ROW_GAP, .left = 96};
    roce_html_rows_open(pg, "Time paused per priority", n_rows, p->origin_ns, end, &c);
    const struct roce_html_box b = c.b;
    const struct roce_html_scale x = c.x;
    const struct roce_html_tunit unit = c.unit;
    for (unsigned r = 0; r < n_rows; r++) {
        unsigned i = rows[r];
        double base = b.top + (r + 1) * (ROW_H + ROW_GAP) - ROW_GAP;
        slot_name(i, name, sizeof name);
        fprintf(o,
                "<text x=\"%g\" y=\"%.1f\" text-anchor=\"end\">%s</text><line class=\"axis\" "
                "x1=\"%g\" x2=\"%g\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
                b.left - 6, base - ROW_H / 2 + 4, name, b.left, b.right, base, base);
        fputs("<path class=\"paused\" d=\"M0 0", o);
        for (unsigned k = 0; k < ROCE_HTML_PFC_BUCKETS; k++) {
            if (p->paused[i][k] <= 0)
                continue;
            double frac = (double)p->paused[i][k] / (double)p->width_ns;
            frac = frac > 1 ? 1 : frac;
            int64_t t0 = roce_html_bucket_start(p->origin_ns, p->width_ns, k);
            int64_t t1 = roce_html_bucket_start(p->origin_ns, p->width_ns, k + 1);
            double x0 = roce_html_map(&x, (double)(t0 - pg->t0_ns) / unit.ns);
            double x1 = roce_html_map(&x, (double)(t1 - pg->t0_ns) / unit.ns);
            fprintf(o, "M%.1f %.1fH%.1fV%.1fH%.1fZ", x0, base, x1 > x0 + 0.5 ? x1 : x0 + 0.5,
                    base - frac * ROW_H, x0);
        }
        fputs("\"/><path class=\"axis\" d=\"M0 0", o);
        for (unsigned k = 0; k < ROCE_HTML_PFC_BUCKETS; k++)
            if (p->xoff[i][k])
                fprintf(o, "M%.1f %.1fv%g",
                        roce_html_map(
                            &x, (double)(roce_html_bucket_start(p->origin_ns, p->width_ns, k) -
                                         pg->t0_ns) /
                                    unit.ns),
                        base, TICK_H);
        fprintf(o, "\"/><title>%s: paused ", name);
        roce_html_us(o, slot(t, i)->paused_ns);
        fprintf(o, " \xc2\xb5s, %" PRIu64 " XOFF</title>\n", slot(t, i)->xoff);
    }
    fprintf(o,
            "</svg>\n<figcaption>Share of each time bucket (%.3g %s) a priority was "
            "paused: bar height 100%% = paused throughout; ticks under a row: XOFF frames."
            "</figcaption>\n</figure>\n",
            (double)p->width_ns / roce_html_time_unit(p->width_ns).ns,
            roce_html_time_unit(p->width_ns).name);
}

/* Who sent the PFC and PAUSE frames: per source MAC (a switch port, or a
 * host's NIC), the host behind it when its RoCE frames name one, the
 * frames it sent and its first ones. Rows are host-aabbccddeeff (the diagnoses'
 * hosts link there). */
static void pfc_senders(const struct roce_html_page *pg)
{
    const struct roce_report *r = pg->r;
    FILE *o = pg->o;
    char mac[ROCE_HTML_MAC_LEN], id[ROCE_HTML_MAC_ID_LEN], addr[ROCE_FMT_ADDR_LEN];
    size_t n = 0;
    for (size_t i = 0; i < r->n_macs; i++)
        n += r->macs[i].pfc_frames + r->macs[i].pause_frames != 0;
    if (n == 0)
        return;
    fputs("<h3 id=\"pfc-senders\">Senders</h3>\n<div class=\"scroll\"><table class=\"sortable\" "
          "id=\"pfc-senders-table\">\n<thead><tr><th class=\"text\" scope=\"col\">sender "
          "MAC</th><th class=\"text\" scope=\"col\">host</th><th scope=\"col\">PFC frames</th>"
          "<th scope=\"col\">PAUSE frames</th><th class=\"text\" scope=\"col\">first frames"
          "</th></tr></thead>\n<tbody>\n",
          o);
    for (size_t i = 0; i < r->n_macs; i++) {
        const struct roce_host_mac *m = &r->macs[i];
        if (m->pfc_frames + m->pause_frames == 0)
            continue;
        roce_html_mac(m->mac, mac);
        roce_html_mac_id(m->mac, id);
        fprintf(o, "<tr id=\"%s\"><td class=\"text mono\">%s</td>", id, mac);
        if (m->addresses == 1) {
            roce_fmt_addr(m->addr, m->af, addr, sizeof addr);
            roce_html_td_text(o, addr);
        } else {
            roce_html_td_text(o, m->addresses ? "several addresses (a router port)"
                                              : "no RoCE frames: a switch port");
        }
        roce_html_td_u64(o, m->pfc_frames);
        roce_html_td_u64(o, m->pause_frames);
        fputs("<td class=\"text\">", o);
        for (unsigned k = 0; k < m->n_frames; k++)
            fprintf(o, "%s%" PRIu64, k ? ", " : "", m->frames[k]);
        fputs("</td></tr>\n", o);
    }
    fputs("</tbody></table></div>\n", o);
}

void roce_html_pfc_section(struct roce_html_page *pg)
{
    const struct roce_totals *t = &pg->r->t;
    FILE *o = pg->o;
    unsigned rows[ROCE_HTML_PFC_SLOTS], n = 0;
    char name[LABEL_LEN];
    fputs("<section id=\"pfc\">\n<h2>PFC and PAUSE</h2>\n", o);
    for (unsigned i = 0; i < ROCE_HTML_PFC_SLOTS; i++)
        if (slot(t, i)->frames)
            rows[n++] = i;
    if (n == 0) {
        fputs("<p>No PFC or PAUSE frame.</p>\n</section>\n", o);
        return;
    }
    fprintf(o, "<p>%" PRIu64 " PFC frames, %" PRIu64 " PAUSE frames.</p>\n", t->pfc.pfc_frames,
            t->pfc.pause_frames);
    if (pg->s != NULL && pg->s->pfc != NULL)
        pfc_timeline(pg, rows, n);
    fputs("<div class=\"scroll\"><table class=\"sortable\">\n<thead><tr><th class=\"text\" "
          "scope=\"col\">priority</th><th scope=\"col\">frames</th><th scope=\"col\">XOFF</th>"
          "<th scope=\"col\">XON</th><th scope=\"col\">quanta</th><th scope=\"col\">paused"
          "</th><th scope=\"col\">storm windows</th></tr></thead>\n<tbody>\n",
          o);
    for (unsigned r = 0; r < n; r++) {
        const struct roce_pfc_prio *p = slot(t, rows[r]);
        slot_name(rows[r], name, sizeof name);
        fputs("<tr>", o);
        roce_html_td_text(o, name);
        roce_html_td_u64(o, p->frames);
        roce_html_td_u64(o, p->xoff);
        roce_html_td_u64(o, p->xon);
        roce_html_td_u64(o, p->quanta);
        roce_html_td_dur(o, p->paused_ns);
        roce_html_td_u64(o, p->storm_windows);
        fputs("</tr>\n", o);
    }
    fputs("</tbody></table></div>\n", o);
    pfc_senders(pg);
    fputs("</section>\n", o);
}

/* ---- incast: each listed receiver, its worst episode and its fan-in ---- */

#define SPARK_W 4.0 /* px per point of a fan-in series */
#define SPARK_H 24.0

/* The fan-in series of r as bars, the tallest its highest point. */
static void fanin_bars(FILE *o, const struct roce_incast_receiver *r)
{
    unsigned top = 1;
    for (unsigned i = 0; i < r->n_points && i < ROCE_INCAST_POINTS; i++)
        if (r->series[i] > top)
            top = r->series[i];
    fprintf(o,
            "<svg class=\"spark\" width=\"%.0f\" height=\"%.0f\" role=\"img\">"
            "<title>most senders at once per %.3f us from the first episode:",
            SPARK_W * ROCE_INCAST_POINTS, SPARK_H, (double)r->series_step_ns / 1000.0);
    for (unsigned i = 0; i < r->n_points && i < ROCE_INCAST_POINTS; i++)
        fprintf(o, " %u", (unsigned)r->series[i]);
    fputs("</title>", o);
    for (unsigned i = 0; i < r->n_points && i < ROCE_INCAST_POINTS; i++) {
        double h = SPARK_H * r->series[i] / top;
        fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", SPARK_W * i,
                SPARK_H - h, SPARK_W - 1.0, h);
    }
    fputs("</svg>", o);
}

void roce_html_incast_section(struct roce_html_page *pg)
{
    const struct roce_incast_report *l = &pg->r->t.incast;
    FILE *o = pg->o;
    char a[ROCE_FMT_ADDR_LEN];
    fputs("<section id=\"incast\">\n<h2>Incast</h2>\n", o);
    if (l->n == 0) {
        fprintf(o, "<p>No receiver had %u senders at once.</p>\n</section>\n",
                pg->r->cfg != NULL ? (unsigned)pg->r->cfg->incast_senders : 4u);
        return;
    }
    fputs("<div class=\"scroll\"><table class=\"sortable\">\n<thead><tr><th class=\"text\" "
          "scope=\"col\">receiver</th><th scope=\"col\">episodes</th><th scope=\"col\">"
          "CE marked, paused or lost</th><th scope=\"col\">most senders at once</th>"
          "<th scope=\"col\">senders</th><th scope=\"col\">bytes</th><th scope=\"col\">"
          "lasted</th><th class=\"text\" scope=\"col\">fan-in over time</th></tr></thead>\n"
          "<tbody>\n",
          o);
    for (unsigned i = 0; i < l->n && i < ROCE_INCAST_LISTED; i++) {
        const struct roce_incast_receiver *r = &l->r[i];
        roce_fmt_addr(r->addr, r->af, a, sizeof a);
        fputs("<tr>", o);
        roce_html_td_text(o, a);
        roce_html_td_u64(o, r->episodes);
        roce_html_td_u64(o, r->flagged);
        roce_html_td_u64(o, r->worst.fanin);
        roce_html_td_u64(o, r->worst.senders);
        roce_html_td_u64(o, r->worst.bytes);
        uint64_t span = r->worst.end_ns > r->worst.start_ns
                            ? (uint64_t)r->worst.end_ns - (uint64_t)r->worst.start_ns
                            : 0; /* unsigned: a report read back may hold any two times */
        roce_html_td_dur(o, span > INT64_MAX ? INT64_MAX : (int64_t)span);
        fputs("<td class=\"text\">", o);
        fanin_bars(o, r);
        fputs("</td></tr>\n", o);
    }
    fputs("</tbody></table></div>\n</section>\n", o);
}

/* ---- the capture's timeline ---- */

#define TL_BARS    100 /* drawn buckets: at least the capture's span / 100 wide */
#define TL_MIN_NS  1000
#define TL_STRIP_H 16.0
#define TL_BITS    8.0
#define TL_HEAD    1.1
#define TL_MBPS    1000.0
#define TL_ROWS    3 /* CE marks, CNPs, PFC/PAUSE XOFF */

static const struct roce_html_box tl_box = {900, 280, 96, 884, 12, 236};

/* One strip of counts per drawn bucket (bars as tall as the count over the
 * strip's highest), its name and total. */
static void tl_strip(FILE *o, const struct roce_html_scale *x, double base, const char *cls,
                     const char *name, const uint64_t *v, unsigned n, int64_t t_first, double width)
{
    uint64_t top = 0, total = 0;
    for (unsigned i = 0; i < n; i++) {
        top = v[i] > top ? v[i] : top;
        total += v[i];
    }
    fprintf(o,
            "<g class=\"strip\" data-strip=\"%s\" data-total=\"%" PRIu64 "\"><title>%s: %" PRIu64
            "</title><text x=\"%g\" y=\"%.1f\" text-anchor=\"end\">%s</text><line "
            "class=\"axis\" x1=\"%g\" x2=\"%g\" y1=\"%.1f\" y2=\"%.1f\"/></g>\n<path "
            "class=\"tl-%s\" d=\"M0 0",
            cls, total, name, total, tl_box.left - 6, base - 3, name, tl_box.left, tl_box.right,
            base, base, cls);
    for (unsigned i = 0; i < n; i++) {
        if (v[i] == 0)
            continue;
        double x0 = roce_html_map(x, (double)t_first + width * i);
        double x1 = roce_html_map(x, (double)t_first + width * (i + 1));
        x1 = x1 > tl_box.right ? tl_box.right : x1;
        double h = TL_STRIP_H * (double)v[i] / (double)top;
        fprintf(o, "M%.1f %.1fH%.1fV%.1fH%.1fZ", x0, base, x1 > x0 + 1 ? x1 : x0 + 1,
                base - (h < 1 ? 1 : h), x0);
    }
    fputs("\"/>\n", o);
}

void roce_html_timeline(struct roce_html_page *pg)
{
    FILE *o = pg->o;
    const struct roce_html_timeline *tl = pg->s != NULL ? &pg->s->tl : NULL;
    fputs("<section id=\"timeline\">\n<h2>Timeline of the capture</h2>\n", o);
    if (tl == NULL || !tl->have) {
        fputs(pg->s == NULL ? "<p class=\"muted\">This page was made from JSON reports: the "
                              "timeline needs the frames.</p>\n</section>\n"
                            : "<p>No frame.</p>\n</section>\n",
              o);
        return;
    }
    int64_t span = tl->end_ns - tl->origin_ns + 1;
    span = span < TL_MIN_NS ? TL_MIN_NS : span;
    unsigned group = 1;
    while (group < ROCE_HTML_TL_BUCKETS && (double)tl->width_ns * group < (double)span / TL_BARS)
        group *= 2;
    int64_t width = tl->width_ns * group;
    unsigned n = (unsigned)((tl->end_ns - tl->origin_ns) / width) + 1;
    n = n > ROCE_HTML_TL_BUCKETS ? ROCE_HTML_TL_BUCKETS : n;
    uint64_t bytes[ROCE_HTML_TL_BUCKETS] = {0}, rows[TL_ROWS][ROCE_HTML_TL_BUCKETS] = {{0}};
    uint64_t packets = 0;
    double top = 0;
    for (unsigned k = 0; k < ROCE_HTML_TL_BUCKETS; k++) {
        unsigned i = k / group < n ? k / group : n - 1;
        bytes[i] += tl->bytes[k];
        rows[0][i] += tl->ce[k];
        rows[1][i] += tl->cnp[k];
        packets += tl->packets[k];
    }
    for (unsigned k = 0; pg->s->pfc != NULL && k < ROCE_HTML_PFC_BUCKETS; k++) {
        const struct roce_html_pfc *p = pg->s->pfc;
        int64_t t = roce_html_bucket_start(p->origin_ns, p->width_ns, k);
        int64_t i = t < tl->origin_ns ? 0 : (t - tl->origin_ns) / width;
        for (unsigned r = 0; r < ROCE_HTML_PFC_SLOTS; r++)
            rows[2][i < n ? i : n - 1] += p->xoff[r][k];
    }
    for (unsigned i = 0; i < n; i++) {
        double gbps = (double)bytes[i] * TL_BITS / (double)width;
        top = gbps > top ? gbps : top;
    }
    struct roce_html_tunit unit = roce_html_time_unit(span);
    double t_first = (double)(tl->origin_ns - pg->t0_ns) / unit.ns, w = (double)width / unit.ns;
    double scale = top < 1 ? TL_MBPS : 1;
    struct roce_html_scale x = {t_first, t_first + (double)span / unit.ns, tl_box.left,
                                tl_box.right};
    double rate_top = tl_box.top + TL_ROWS * (TL_STRIP_H + 8) + 8;
    struct roce_html_box rb = tl_box;
    rb.top = rate_top;
    struct roce_html_scale y = {0, top > 0 ? top * scale * TL_HEAD : 1, rb.bottom, rb.top};
    char xl[LABEL_LEN];
    snprintf(xl, sizeof xl, "time since the capture began (%s)", unit.name);
    fprintf(o,
            "<figure id=\"timeline-chart\" data-bucket=\"%" PRId64 "\" data-buckets=\"%u\" "
            "data-series-first=\"%" PRId64 "\" data-series-last=\"%" PRId64
            "\" data-packets=\"%" PRIu64 "\">\n",
            width, n, tl->origin_ns - pg->t0_ns, tl->end_ns - pg->t0_ns, packets);
    roce_html_svg_open(o, &tl_box, "Throughput, CE marks, CNPs and PFC of the whole capture", &x,
                       unit.name, NULL);
    roce_html_axis_x(o, &rb, &x, xl, 0);
    roce_html_axis_y(o, &rb, &y, scale > 1 ? "Mb/s" : "Gb/s", 0);
    static const char *const names[TL_ROWS] = {"CE marks", "CNPs", "PFC XOFF"};
    static const char *const cls[TL_ROWS] = {"ce", "cnp", "xoff"};
    for (unsigned r = 0; r < TL_ROWS; r++)
        tl_strip(o, &x, tl_box.top + (r + 1) * (TL_STRIP_H + 8), cls[r], names[r], rows[r], n,
                 t_first, w);
    fputs("<path class=\"rate\" d=\"", o);
    for (unsigned i = 0; i < n; i++) {
        double yy = roce_html_map(&y, (double)bytes[i] * TL_BITS / (double)width * scale);
        double x1 = roce_html_map(&x, t_first + w * (i + 1));
        x1 = x1 > tl_box.right ? tl_box.right : x1;
        if (i == 0)
            fprintf(o, "M%.1f %.1f", roce_html_map(&x, t_first), yy);
        else
            fprintf(o, "V%.1f", yy);
        fprintf(o, "H%.1f", x1);
    }
    fputs("\"/>\n</svg>\n<figcaption>Every frame of the capture on the wire per time bucket (", o);
    roce_html_dur(o, width);
    fprintf(o,
            " wide, %u buckets), in %s; above it, per bucket, the frames with a CE mark, the "
            "CNPs and the PFC/PAUSE frames with an XOFF (bars as tall as the bucket's count "
            "over the busiest bucket of the row).</figcaption>\n</figure>\n</section>\n",
            n, scale > 1 ? "Mb/s" : "Gb/s");
}
