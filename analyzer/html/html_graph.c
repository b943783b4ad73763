/*
 * html_graph.c - the graphs of one flow on the report page (see
 * html_part.h): its sequence graph and its rate, then its CNP latency.
 *
 * The sequence graph plots PSN, unwrapped and relative to the flow's first,
 * against time since the capture began: the requests the flow sent new (a
 * bar per time bucket, from the lowest to the highest PSN), the highest
 * response PSN of the paired flow (ACKs, READ responses), the go-back-N
 * episodes as hatched spans, and every kept frame with verdicts whose graph
 * this is (roce_html_subject) as one element with data-frame and
 * data-verdicts: at its PSN, or, for CNPs, in a strip above the plot.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "fmt.h"
#include "html_part.h"

/* The sequence graph's frame, its CNP strip, and the rate graph's. */
static const struct roce_html_box seq_box = {900, 320, 76, 884, 34, 274};
#define STRIP_Y   18
#define STRIP_GAP 6
static const struct roce_html_box rate_box = {900, 180, 76, 884, 12, 134};

#define PAD_PCT     0.03 /* of a range, on each side */
#define EP_MIN_PX   3.0
#define BAR_MIN_PX  4.0
#define MISS_PAD    0.4 /* a PSN drawn as tall as one: +-0.4 around it */
#define BITS        8.0
#define RATE_HEAD   1.1
#define NAME_LEN    (ROCE_FMT_FLOW_LEN + 64)
#define MIN_SPAN_NS 1000 /* the time axis spans at least 1 us */
#define RATE_BARS   32   /* the rate's buckets: at least the flow's span / 32 wide */
#define GBPS_MIN    1.0  /* below 1 Gb/s the rate is in Mb/s */
#define MBPS        1000.0

struct graph {
    struct roce_html_page *pg;
    const struct roce_flow_report *f, *peer;
    const struct roce_html_flow *fs, *ps; /* series of f and of its peer (either may be NULL) */
    const struct roce_html_seq *seq;      /* the sequence f's graph is drawn in */
    int64_t tmin, tmax;                   /* ns, absolute */
    double ymin, ymax;
    int have_y;
    int own_y;        /* the PSN axis is the flow's own requests': others are clipped to it */
    uint64_t clipped; /* points of the paired flow's responses clipped to the axis */
    struct roce_html_tunit unit;
    struct roce_html_scale x, y;
};

/* Time t (absolute ns) as a value of the x axis. */
static double tval(const struct graph *g, int64_t t)
{
    return (double)(t - g->pg->t0_ns) / g->unit.ns;
}

static double px(const struct graph *g, int64_t t)
{
    return roce_html_map(&g->x, tval(g, t));
}

static void see_y(struct graph *g, double v)
{
    if (!g->have_y || v < g->ymin)
        g->ymin = v;
    if (!g->have_y || v > g->ymax)
        g->ymax = v;
    g->have_y = 1;
}

static void see_t(struct graph *g, int64_t t)
{
    if (t < g->tmin)
        g->tmin = t;
    if (t > g->tmax)
        g->tmax = t;
}

/* Whether mark m of the series ms (f's or its peer's) belongs in f's graph. */
static int mine(const struct graph *g, const struct roce_html_flow *ms,
                const struct roce_html_mark *m)
{
    const struct roce_flow_report *owner = ms == g->fs ? g->f : g->peer;
    return owner != NULL && roce_html_subject(g->pg, owner, m->kind) == g->f;
}

/* The PSN of a mark in the graph (relative to the first), or 0 with *strip
 * set when it goes in the CNP strip. */
static double mark_y(const struct graph *g, const struct roce_html_flow *ms,
                     const struct roce_html_mark *m, int *strip)
{
    *strip = 0;
    if (m->kind == ROCE_HTML_MARK_CNP || m->kind == ROCE_HTML_MARK_OTHER || g->seq == NULL) {
        *strip = 1;
        return 0;
    }
    if (ms == g->fs && ((m->kind == ROCE_HTML_MARK_REQUEST && g->seq == &g->fs->req) ||
                        (m->kind == ROCE_HTML_MARK_RESPONSE && g->seq == &g->fs->resp)))
        return (double)(m->psn_abs - (int64_t)g->seq->first);
    return (double)roce_html_flow_psn(g->fs, m->ts_ns, m->psn);
}

/* y in the graph's PSN range: clipped to its edge (and counted) when the
 * axis is the flow's own and y lies outside it. */
static double clip_y(struct graph *g, double y, int *clipped)
{
    *clipped = 0;
    if (!g->own_y || (y >= g->ymin && y <= g->ymax))
        return y;
    *clipped = 1;
    g->clipped++;
    return y < g->ymin ? g->ymin : g->ymax;
}

/* y within the graph's PSN range (not counted: the missing PSNs' lines). */
static double clamp_y(const struct graph *g, double y)
{
    return !g->own_y ? y : y < g->ymin ? g->ymin : y > g->ymax ? g->ymax : y;
}

/* The response PSN of a bucket of the series bs, placed in f's graph. */
static double resp_y(const struct graph *g, const struct roce_html_flow *bs, unsigned k)
{
    const struct roce_html_bucket *b = &bs->b[k];
    if (bs == g->fs)
        return (double)(b->resp_hi - (int64_t)g->seq->first);
    int64_t mid = roce_html_bucket_start(bs->origin_ns, bs->width_ns, k) + bs->width_ns / 2;
    return (double)roce_html_flow_psn(g->fs, mid, (uint32_t)((uint64_t)b->resp_hi & ROCE_PSN_MASK));
}

/* The series whose responses make the response line: the peer's, or f's own
 * when f's graph is drawn in its responses' sequence. */
static const struct roce_html_flow *resp_series(const struct graph *g)
{
    if (g->seq == NULL)
        return NULL;
    return g->seq == &g->fs->resp ? g->fs : g->ps;
}

static void ranges_marks(struct graph *g, const struct roce_html_flow *ms)
{
    for (uint32_t i = 0; ms != NULL && i < ms->n_marks; i++) {
        const struct roce_html_mark *m = &ms->marks[i];
        int strip;
        if (!mine(g, ms, m))
            continue;
        see_t(g, m->ts_ns);
        double y = mark_y(g, ms, m, &strip);
        if (!strip && (!g->own_y || (ms == g->fs && m->kind == ROCE_HTML_MARK_REQUEST))) {
            see_y(g, y);
            if (m->missing)
                see_y(g, y - m->missing);
        }
    }
}

/* The time and PSN ranges of the graph, and its scales. */
static void ranges(struct graph *g)
{
    const struct roce_report *r = g->pg->r;
    g->tmin = g->f->first_ts_ns;
    g->tmax = g->f->last_ts_ns;
    if (g->seq != NULL) {
        const struct roce_html_flow *rs = resp_series(g);
        /* a flow that sent requests has its PSN axis from them: the paired
         * flow's responses do not stretch it (clipped, with a mark) */
        g->own_y = g->seq == &g->fs->req;
        for (unsigned k = 0; k < ROCE_HTML_BUCKETS; k++) {
            const struct roce_html_bucket *b = &g->fs->b[k];
            if (g->seq == &g->fs->req && b->req_new) {
                see_y(g, (double)(b->req_lo - (int64_t)g->seq->first));
                see_y(g, (double)(b->req_hi - (int64_t)g->seq->first));
            }
            if (rs != NULL && rs->b[k].resp && !g->own_y)
                see_y(g, resp_y(g, rs, k));
        }
        if (rs != NULL && rs != g->fs) {
            see_t(g, g->peer->first_ts_ns);
            see_t(g, g->peer->last_ts_ns);
        }
    }
    ranges_marks(g, g->fs);
    ranges_marks(g, g->ps);
    for (size_t i = 0; i < r->n_episodes; i++)
        if (r->episodes[i].flow_id == g->f->id) {
            see_t(g, r->episodes[i].first_ts_ns);
            see_t(g, r->episodes[i].last_ts_ns);
        }
    if (!g->have_y)
        see_y(g, 0);
    double pad = (g->ymax - g->ymin) * PAD_PCT;
    if (pad < 1)
        pad = 1;
    g->ymin -= pad;
    g->ymax += pad;
    if (g->tmax - g->tmin < MIN_SPAN_NS) { /* a minimum span, centred on the flow */
        int64_t mid = g->tmin + (g->tmax - g->tmin) / 2;
        g->tmin = mid - MIN_SPAN_NS / 2;
        g->tmax = g->tmin + MIN_SPAN_NS;
    }
    int64_t span = g->tmax - g->tmin;
    g->unit = roce_html_time_unit(span > 0 ? span : 1);
    double tpad = span > 0 ? (double)span * PAD_PCT / g->unit.ns : 1;
    g->x = (struct roce_html_scale){tval(g, g->tmin) - tpad, tval(g, g->tmax) + tpad, seq_box.left,
                                    seq_box.right};
    g->y = (struct roce_html_scale){g->ymin, g->ymax, seq_box.bottom, seq_box.top};
}

static void episodes(const struct graph *g)
{
    const struct roce_report *r = g->pg->r;
    FILE *o = g->pg->o;
    for (size_t i = 0; i < r->n_episodes; i++) {
        const struct roce_episode *ep = &r->episodes[i];
        if (ep->flow_id != g->f->id)
            continue;
        double x0 = px(g, ep->first_ts_ns), x1 = px(g, ep->last_ts_ns);
        if (x1 - x0 < EP_MIN_PX) {
            x0 -= EP_MIN_PX / 2;
            x1 = x0 + EP_MIN_PX;
        }
        fprintf(o,
                "<rect class=\"ep\" x=\"%.1f\" y=\"%g\" width=\"%.1f\" height=\"%g\"><title>"
                "go-back-N episode from frame %" PRIu64 ", PSN %u..%u, %" PRIu64
                " packets, trigger %s</title></rect>\n",
                x0, seq_box.top, x1 - x0, seq_box.bottom - seq_box.top, ep->first_frame,
                (unsigned)ep->first_psn, (unsigned)ep->last_psn, ep->packets,
                roce_trigger_name(ep->trigger));
    }
}

static void bands(const struct graph *g)
{
    FILE *o = g->pg->o;
    const struct roce_html_flow *fs = g->fs;
    int any = 0;
    if (g->seq != &fs->req)
        return;
    for (unsigned k = 0; k < ROCE_HTML_BUCKETS; k++) {
        const struct roce_html_bucket *b = &fs->b[k];
        if (!b->req_new)
            continue;
        int64_t mid = roce_html_bucket_start(fs->origin_ns, fs->width_ns, k) + fs->width_ns / 2;
        /* PSNs lo .. hi, each as tall as one */
        double y0 = roce_html_map(&g->y, (double)(b->req_lo - (int64_t)g->seq->first) - MISS_PAD);
        double y1 = roce_html_map(&g->y, (double)(b->req_hi - (int64_t)g->seq->first) + MISS_PAD);
        if (y0 - y1 < BAR_MIN_PX) { /* a short bar centred on them */
            double c = (y0 + y1) / 2;
            y0 = c + BAR_MIN_PX / 2;
            y1 = c - BAR_MIN_PX / 2;
        }
        fprintf(o, "%sM%.1f %.1fV%.1f", any ? "" : "<path class=\"band\" d=\"", px(g, mid), y0, y1);
        any = 1;
    }
    if (any)
        fputs("\"/>\n", o);
}

/* The highest response PSN over time, held between buckets. */
static void response_line(struct graph *g)
{
    FILE *o = g->pg->o;
    const struct roce_html_flow *rs = resp_series(g);
    int any = 0;
    for (unsigned k = 0; rs != NULL && k < ROCE_HTML_BUCKETS; k++) {
        if (!rs->b[k].resp)
            continue;
        double x0 = px(g, roce_html_bucket_start(rs->origin_ns, rs->width_ns, k));
        double x1 = px(g, roce_html_bucket_start(rs->origin_ns, rs->width_ns, k + 1));
        int clipped;
        double y = roce_html_map(&g->y, clip_y(g, resp_y(g, rs, k), &clipped));
        if (!any)
            fprintf(o, "<path class=\"ack\" d=\"M%.1f %.1fH%.1f", x0, y, x1);
        else
            fprintf(o, "H%.1fV%.1fH%.1f", x0, y, x1);
        any = 1;
    }
    if (any)
        fputs("\"/>\n", o);
}

/* The shape of a mark: its main verdict; a PSN gap by its class (network
 * loss, the capture's loss, undetermined, reordering). */
static const char *shape_of(const struct roce_html_mark *m)
{
    uint32_t fl = m->flags;
    if (fl & ROCE_V_GAP) {
        switch (m->gap_class) {
        case ROCE_GAP_NETWORK_LOSS:
            return "m-gap";
        case ROCE_GAP_CAPTURE_LOSS:
        case ROCE_GAP_CAPTURE_INFERRED:
            return "m-gapc";
        case ROCE_GAP_REORDERED:
            return "m-gapr";
        default:
            return "m-gapu";
        }
    }
    if (fl & ROCE_V_RESP_GAP)
        return "m-gap";
    if (fl & ROCE_V_REORDERED)
        return "m-gapr";
    if (fl & ROCE_V_EPISODE_START)
        return "m-ep";
    if (fl & ROCE_V_RETRANSMISSION)
        return "m-rt";
    if (fl & ROCE_V_RNR)
        return "m-rnr";
    if (fl & ROCE_V_NAK)
        return "m-nak";
    if (fl & ROCE_V_CE_UNANSWERED)
        return "m-ceu";
    if (fl & ROCE_V_CE)
        return "m-ce";
    if (fl & (ROCE_V_CNP | ROCE_V_CNP_MATCHED | ROCE_V_CNP_UNEXPLAINED))
        return "m-cnp";
    return "m-oth";
}

/* The missing PSNs before the gaps, dotted; then the marks. */
static void marks(struct graph *g, const struct roce_html_flow *ms, int missing_pass)
{
    FILE *o = g->pg->o;
    for (uint32_t i = 0; ms != NULL && i < ms->n_marks; i++) {
        const struct roce_html_mark *m = &ms->marks[i];
        int strip;
        if (!mine(g, ms, m))
            continue;
        double y = mark_y(g, ms, m, &strip), x = px(g, m->ts_ns);
        if (missing_pass) {
            if (!strip && m->missing) /* PSNs y - missing .. y - 1, each as tall as one */
                fprintf(o, "M%.1f %.1fV%.1f", x,
                        roce_html_map(&g->y, clamp_y(g, y - m->missing - MISS_PAD)),
                        roce_html_map(&g->y, clamp_y(g, y - 1 + MISS_PAD)));
            continue;
        }
        int clipped = 0;
        if (!strip)
            y = clip_y(g, y, &clipped);
        /* the frame's own time and PSN for its tooltip; focusable (Tab) */
        fprintf(o,
                "<use href=\"#%s\" id=\"frame-%" PRIu64 "\" x=\"%.1f\" y=\"%.1f\"%s%s "
                "tabindex=\"0\" data-frame=\"%" PRIu64 "\" data-time=\"%" PRId64 ".%09" PRId64
                "\" data-t=\"%" PRId64 "\" data-psn=\"%u\" data-verdicts=\"",
                shape_of(m), m->frame, x, strip ? (double)STRIP_Y : roce_html_map(&g->y, y),
                strip ? " data-strip=\"\"" : "", clipped ? " data-clipped=\"\"" : "", m->frame,
                m->ts_ns / ROCE_NS_PER_SEC, m->ts_ns % ROCE_NS_PER_SEC, m->ts_ns - g->pg->t0_ns,
                (unsigned)m->psn);
        roce_html_verdicts(o, m->flags);
        fputs("\"/>\n", o);
        g->pg->marks_plotted++;
    }
}

static void sequence_graph(struct graph *g, const char *name)
{
    FILE *o = g->pg->o;
    char title[NAME_LEN + 64], xl[64];
    snprintf(title, sizeof title, "Sequence graph of %s", name);
    snprintf(xl, sizeof xl, "time since the capture began (%s)", g->unit.name);
    fputs("<figure>\n", o);
    roce_html_svg_open(o, &seq_box, title, &g->x, g->unit.name, &g->y);
    roce_html_axis_x(o, &seq_box, &g->x, xl, 0);
    roce_html_axis_y(o, &seq_box, &g->y, "PSN \xe2\x88\x92 first PSN (packets)", 1);
    fprintf(o,
            "<text x=\"%g\" y=\"%d\" text-anchor=\"end\">CNPs</text><line class=\"grid\" "
            "x1=\"%g\" x2=\"%g\" y1=\"%d\" y2=\"%d\"/>\n",
            seq_box.left - STRIP_GAP, STRIP_Y + 4, seq_box.left, seq_box.right,
            STRIP_Y + STRIP_GAP * 2, STRIP_Y + STRIP_GAP * 2);
    episodes(g);
    if (g->seq != NULL) {
        bands(g);
        response_line(g);
    }
    fputs("<path class=\"miss\" d=\"M0 0", o);
    marks(g, g->fs, 1);
    marks(g, g->ps, 1);
    fputs("\"/>\n<g class=\"marks\">\n", o);
    marks(g, g->fs, 0);
    marks(g, g->ps, 0);
    fputs("</g>\n</svg>\n<figcaption>PSN against time: requests sent, the paired flow's "
          "responses, and every kept frame with verdicts (point at one, or Tab to it, for its "
          "frame)",
          o);
    if (g->clipped)
        fprintf(o,
                "; <span class=\"warn\" data-clipped-points=\"%" PRIu64 "\">%" PRIu64
                " point%s of the paired flow's responses lie outside this flow's PSNs: drawn "
                "on the axis' edge</span>",
                g->clipped, g->clipped, roce_fmt_plural(g->clipped));
    fputs(".</figcaption>\n</figure>\n", o);
}

/* The flow's rate per time bucket, and the CNPs of its graph as ticks. The
 * series' buckets are put together by a power of two (they start at the
 * flow's first frame and double their width, so groups stay aligned) until
 * a bucket is at least the graph's span / RATE_BARS: a short flow gets no
 * spikes of a few packets in a few ns. Mb/s below 1 Gb/s. */
static void rate_graph(struct graph *g, const char *name)
{
    FILE *o = g->pg->o;
    const struct roce_html_flow *fs = g->fs;
    char title[NAME_LEN + 64], xl[64];
    double top = 0, rates[ROCE_HTML_BUCKETS];
    unsigned group = 1, n = 0;
    while (group < ROCE_HTML_BUCKETS &&
           (double)fs->width_ns * group < (double)(g->tmax - g->tmin) / RATE_BARS)
        group *= 2;
    int64_t width = fs->width_ns * group;
    for (unsigned k = 0; k < ROCE_HTML_BUCKETS; k += group, n++) {
        uint64_t bytes = 0;
        for (unsigned j = k; j < k + group && j < ROCE_HTML_BUCKETS; j++)
            bytes += fs->b[j].bytes;
        rates[n] = (double)bytes * BITS / (double)width; /* Gb/s */
        if (rates[n] > top)
            top = rates[n];
    }
    if (top <= 0)
        return;
    double scale = top < GBPS_MIN ? MBPS : 1;
    struct roce_html_scale x = g->x,
                           y = {0, top * scale * RATE_HEAD, rate_box.bottom, rate_box.top};
    snprintf(title, sizeof title, "Rate of %s", name);
    snprintf(xl, sizeof xl, "time since the capture began (%s)", g->unit.name);
    fputs("<figure>\n", o);
    roce_html_svg_open(o, &rate_box, title, &x, g->unit.name, NULL);
    roce_html_axis_x(o, &rate_box, &x, xl, 0);
    roce_html_axis_y(o, &rate_box, &y, scale > 1 ? "Mb/s" : "Gb/s", 0);
    fputs("<path class=\"rate\" d=\"", o);
    for (unsigned i = 0; i < n; i++) {
        int64_t t0 = roce_html_bucket_start(fs->origin_ns, width, i);
        if (t0 > g->tmax)
            break;
        double yy = roce_html_map(&y, rates[i] * scale);
        double x1 = roce_html_map(&x, tval(g, roce_html_bucket_start(fs->origin_ns, width, i + 1)));
        if (x1 > rate_box.right)
            x1 = rate_box.right;
        if (i == 0)
            fprintf(o, "M%.1f %.1f", roce_html_map(&x, tval(g, t0)), yy);
        else
            fprintf(o, "V%.1f", yy);
        fprintf(o, "H%.1f", x1);
    }
    fputs("\"/>\n<path class=\"cnptick\" d=\"M0 0", o);
    uint64_t cnps = 0;
    for (int which = 0; which < 2; which++) {
        const struct roce_html_flow *ms = which ? g->ps : g->fs;
        for (uint32_t i = 0; ms != NULL && i < ms->n_marks; i++) {
            const struct roce_html_mark *m = &ms->marks[i];
            if (m->kind != ROCE_HTML_MARK_CNP || !mine(g, ms, m))
                continue;
            fprintf(o, "M%.1f %gV%g", roce_html_map(&x, tval(g, m->ts_ns)), rate_box.top,
                    rate_box.top + 10);
            cnps++;
        }
    }
    fputs("\"/>\n</svg>\n<figcaption>Rate on the wire per time bucket (", o);
    roce_html_dur(o, width);
    fprintf(o,
            " wide); ticks at the top: the %" PRIu64 " CNP%s plotted of the %" PRIu64
            " it received.</figcaption>\n</figure>\n",
            cnps, roce_fmt_plural(cnps), g->f->cnps_for_flow);
}

static void flow_line(struct graph *g, const char *name, unsigned rank)
{
    FILE *o = g->pg->o;
    const struct roce_flow_report *f = g->f;
    fprintf(o, "<h3 id=\"flow-%" PRIu64 "\">#%u ", f->id, rank);
    roce_html_esc(o, name);
    fprintf(o, " <small class=\"muted\">%s, flow %" PRIu64,
            roce_transport_name((enum roce_transport)f->transport), f->id);
    if (g->peer != NULL)
        fprintf(o, ", paired with QP 0x%06x (%s)", (unsigned)g->peer->key.dqpn,
                roce_paired_by_name(f->paired_by));
#define PL(n) (n), roce_fmt_plural(n)
    fprintf(o,
            "</small></h3>\n<p>%" PRIu64 " packet%s, %" PRIu64 " retransmitted in %" PRIu64
            " episode%s, %" PRIu64 " PSN gap%s (%" PRIu64 " missing), %" PRIu64
            " NAK%s sent (%" PRIu64 " RNR), %" PRIu64 " CE mark%s (%" PRIu64
            " unanswered), %" PRIu64 " CNP%s for it, %" PRIu64 " CNP%s carried, %" PRIu64
            " bad ICRC, %" PRIu64 " PSN reuse. <a href=\"#row-%" PRIu64 "\">In the table</a>."
            "</p>\n",
            PL(f->packets), f->retransmitted_packets, PL(f->episodes), PL(f->gap_events),
            f->missing_psns, PL(f->naks.total), f->naks.rnr, PL(f->ce_marked), f->ce_unanswered,
            PL(f->cnps_for_flow), PL(f->cnp_packets), f->bad_icrc, f->psn_reuse, f->id);
#undef PL
}

/* The span the flow's buckets cover, as attributes of its article (times
 * in ns since the capture's first frame; what the browser test holds
 * against the flow's first and last frame): from the start of the first
 * bucket with packets to the end of the last, and the buckets' width. */
static void series_span(const struct graph *g)
{
    const struct roce_html_flow *fs = g->fs;
    unsigned lo = ROCE_HTML_BUCKETS, hi = 0;
    for (unsigned k = 0; fs != NULL && k < ROCE_HTML_BUCKETS; k++)
        if (fs->b[k].packets) {
            if (lo == ROCE_HTML_BUCKETS)
                lo = k;
            hi = k;
        }
    if (lo == ROCE_HTML_BUCKETS)
        return;
    fprintf(g->pg->o,
            " data-series-first=\"%" PRId64 "\" data-series-last=\"%" PRId64
            "\" data-bucket=\"%" PRId64 "\"",
            roce_html_bucket_start(fs->origin_ns, fs->width_ns, lo) - g->pg->t0_ns,
            roce_html_bucket_start(fs->origin_ns, fs->width_ns, hi + 1) - g->pg->t0_ns,
            fs->width_ns);
}

/* Say on the graph when its series do not cover the flow (and its paired
 * flow) from the first to the last frame with every frame with verdicts
 * (roce_html_series_complete): what is missing and why (Limits). */
static void partial_note(const struct graph *g)
{
    FILE *o = g->pg->o;
    const struct roce_html_flow *fs = g->fs, *ps = g->ps;
    int own = roce_html_series_complete(fs, g->f->first_ts_ns, g->f->last_ts_ns);
    int peer = g->peer == NULL || ps == NULL ||
               roce_html_series_complete(ps, g->peer->first_ts_ns, g->peer->last_ts_ns);
    if (own && peer)
        return;
    fputs("<p class=\"warn partial\" data-partial=\"\">Partial graph: ", o);
    if (fs == NULL)
        fputs("this flow has no series (more flows than the series keep, see Limits); only what "
              "its paired flow kept is shown",
              o);
    else if (!own) {
        fputs("this flow's series covers ", o);
        roce_html_us(o, fs->first_ts_ns - g->pg->t0_ns);
        fputs(" to ", o);
        roce_html_us(o, fs->last_ts_ns - g->pg->t0_ns);
        fputs(" &micro;s of its ", o);
        roce_html_us(o, g->f->first_ts_ns - g->pg->t0_ns);
        fputs(" to ", o);
        roce_html_us(o, g->f->last_ts_ns - g->pg->t0_ns);
        fprintf(o, " &micro;s, %" PRIu64 " of its frames with verdicts not kept",
                fs->marks_dropped);
    }
    if (!peer)
        fprintf(o,
                "%sthe paired flow's series does not cover it whole (%" PRIu64
                " of its frames with verdicts not kept)",
                own ? "" : "; ", ps->marks_dropped);
    fputs(" (see Limits).</p>\n", o);
}

void roce_html_flow_graphs(struct roce_html_page *pg, const struct roce_flow_report *f,
                           unsigned rank)
{
    struct graph g;
    char name[NAME_LEN];
    memset(&g, 0, sizeof g);
    g.pg = pg;
    g.f = f;
    g.peer = roce_html_peer(pg, f);
    g.fs = roce_html_series_flow(pg->s, f->id);
    g.ps = g.peer != NULL ? roce_html_series_flow(pg->s, g.peer->id) : NULL;
    g.seq = g.fs != NULL ? roce_html_flow_seq(g.fs) : NULL;
    roce_fmt_flow(&f->key, name, sizeof name);
    fprintf(pg->o, "<article class=\"flow\" data-flow=\"%" PRIu64 "\"", f->id);
    series_span(&g);
    fputs(">\n", pg->o);
    flow_line(&g, name, rank);
    partial_note(&g);
    ranges(&g);
    sequence_graph(&g, name);
    if (g.fs != NULL)
        rate_graph(&g, name);
    const struct roce_lat *l =
        roce_report_lat_get(&roce_report_flow_x(pg->r, f)->lat[ROCE_LATENCY_CNP]);
    if (l != NULL && l->count)
        roce_html_histogram(pg->o, l, "CNP latency of this flow: CE mark to CNP", "CE marks");
    fputs("</article>\n", pg->o);
}
