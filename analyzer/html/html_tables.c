/*
 * html_tables.c - the report page's tables: the flows, the go-back-N
 * episodes, the frames with verdicts outside any flow (see html_part.h).
 * Tables sort in the browser (report.js): numbers sort by data-v when the
 * text shows them otherwise.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "fmt.h"
#include "html_part.h"

static void th_row(FILE *o, const char *const *heads, size_t n)
{
    fputs("<thead><tr>", o);
    for (size_t i = 0; i < n; i++) {
        const char *h = heads[i];
        int text = h[0] == '<'; /* a leading '<' marks a text column */
        fprintf(o, "<th scope=\"col\"%s>%s</th>", text ? " class=\"text\"" : "", h + text);
    }
    fputs("</tr></thead>\n<tbody>\n", o);
}

static void lat_td(FILE *o, const struct roce_lat_summary *l, int p99)
{
    if (l->count == 0)
        roce_html_td_none(o);
    else
        roce_html_td_dur(o, p99 ? l->p99 : l->p50);
}

/* A flow's row: rank and flow, then its trouble (what ranks it), then its
 * size and latency, then what identifies it further (transport, pairing,
 * id): at 1,400 pixels the trouble is in view without scrolling. */
static void flow_row(struct roce_html_page *pg, const struct roce_flow_report *f, size_t rank)
{
    FILE *o = pg->o;
    const struct roce_flow_report *peer = roce_html_peer(pg, f);
    fprintf(o, "<tr id=\"row-%" PRIu64 "\">", f->id);
    if (rank)
        fprintf(o, "<td>%zu</td>", rank);
    else
        roce_html_td_none(o);
    fputs("<td class=\"text\">", o);
    roce_html_flow_ref(pg, f);
    fputs("</td>", o);
    roce_html_td_u64(o, f->gap_events);
    roce_html_td_u64(o, f->missing_psns);
    roce_html_td_u64(o, f->retransmitted_packets);
    roce_html_td_u64(o, f->episodes);
    roce_html_td_u64(o, f->naks.total);
    roce_html_td_u64(o, f->ce_marked);
    roce_html_td_u64(o, f->ce_unanswered);
    roce_html_td_u64(o, f->cnps_for_flow);
    roce_html_td_u64(o, f->bad_icrc);
    roce_html_td_u64(o, f->packets);
    roce_html_td_u64(o, f->bytes);
    roce_html_td_dur(o, f->last_ts_ns - f->first_ts_ns);
    lat_td(o, &f->ack_latency, 0);
    lat_td(o, &f->ack_latency, 1);
    lat_td(o, &f->cnp_latency, 0);
    roce_html_td_text(o, roce_transport_name((enum roce_transport)f->transport));
    if (peer != NULL)
        fprintf(o, "<td class=\"text\">0x%06x (%s)</td>", (unsigned)peer->key.dqpn,
                roce_paired_by_name(f->paired_by));
    else
        roce_html_td_text(o, "");
    fprintf(o, "<td>%" PRIu64 "</td></tr>\n", f->id);
}

void roce_html_flows_table(struct roce_html_page *pg)
{
    static const char *const heads[] = {"rank",
                                        "<flow",
                                        "PSN gaps",
                                        "PSNs missing",
                                        "retrans&shy;mitted",
                                        "episodes",
                                        "NAKs",
                                        "CE marks",
                                        "CE un&shy;answered",
                                        "CNPs for it",
                                        "bad ICRC",
                                        "packets",
                                        "bytes",
                                        "lasted",
                                        "ACK p50",
                                        "ACK p99",
                                        "CNP p50",
                                        "<transport",
                                        "<paired with",
                                        "id"};
    const struct roce_report *r = pg->r;
    FILE *o = pg->o;
    size_t rows = 0;

    fprintf(o,
            "<section id=\"flows\">\n<h2>Flows</h2>\n<p class=\"muted\">%zu flows carried "
            "packets; %zu ranked (those the diagnoses name in their order, then the others with "
            "trouble, worst first: the graphs' order), the rest by id.</p>\n",
            r->n_flows, pg->n_ranked);
    if (r->n_flows == 0) {
        fputs("<p>No RoCE flow.</p>\n</section>\n", o);
        return;
    }
    fputs("<div class=\"scroll tall\"><table class=\"sortable\" id=\"flows-table\">\n", o);
    th_row(o, heads, sizeof heads / sizeof heads[0]);
    for (size_t i = 0; i < pg->n_ranked && rows < ROCE_HTML_MAX_FLOW_ROWS; i++, rows++)
        flow_row(pg, pg->drawn[i], i + 1);
    for (size_t i = 0; i < r->n_flows && rows < ROCE_HTML_MAX_FLOW_ROWS; i++)
        if (pg->rank[i] == 0) {
            flow_row(pg, &r->flows[i], 0);
            rows++;
        }
    fputs("</tbody></table></div>\n", o);
    if (rows < r->n_flows)
        fprintf(o,
                "<p class=\"muted\">%zu more flows not listed (at most %d rows; the JSON report "
                "has them all).</p>\n",
                r->n_flows - rows, ROCE_HTML_MAX_FLOW_ROWS);
    fputs("</section>\n", o);
}

void roce_html_episodes_table(struct roce_html_page *pg)
{
    static const char *const heads[] = {"first frame", "<flow",         "<first PSN",
                                        "<last PSN",   "packets",       "<trigger",
                                        "NAK frame",   "NAK to resend", "lasted"};
    const struct roce_report *r = pg->r;
    FILE *o = pg->o;
    size_t n = r->n_episodes,
           shown = n < ROCE_HTML_MAX_EPISODE_ROWS ? n : ROCE_HTML_MAX_EPISODE_ROWS;

    fprintf(o, "<section id=\"episodes\">\n<h2>Go-back-N episodes</h2>\n");
    if (n == 0) {
        fputs("<p>None.</p>\n</section>\n", o);
        return;
    }
    fputs("<div class=\"scroll tall\"><table class=\"sortable\" id=\"episodes-table\">\n", o);
    th_row(o, heads, sizeof heads / sizeof heads[0]);
    for (size_t i = 0; i < shown; i++) {
        const struct roce_episode *ep = &r->episodes[i];
        const struct roce_flow_report *f = roce_report_flow(r, ep->flow_id);
        fprintf(o, "<tr><td>%" PRIu64 "</td><td class=\"text\">", ep->first_frame);
        if (f != NULL)
            roce_html_flow_ref(pg, f);
        else
            fprintf(o, "(evicted flow %" PRIu64 ")", ep->flow_id);
        fprintf(o, "</td><td>%u</td><td>%u</td><td>%" PRIu64 "</td>", (unsigned)ep->first_psn,
                (unsigned)ep->last_psn, ep->packets);
        roce_html_td_text(o, roce_trigger_name(ep->trigger));
        if (ep->nak_frame) {
            roce_html_td_u64(o, ep->nak_frame);
            roce_html_td_dur(o, ep->nak_to_resend_ns);
        } else {
            roce_html_td_none(o);
            roce_html_td_none(o);
        }
        roce_html_td_dur(o, ep->last_ts_ns - ep->first_ts_ns);
        fputs("</tr>\n", o);
    }
    fputs("</tbody></table></div>\n", o);
    if (shown < n || r->t.episodes_unlisted)
        fprintf(o,
                "<p class=\"muted\">%zu more not listed here, %" PRIu64
                " not kept by the engine.</p>\n",
                n - shown, r->t.episodes_unlisted);
    fputs("</section>\n", o);
}

void roce_html_loose_table(struct roce_html_page *pg)
{
    const struct roce_html_series *s = pg->s;
    FILE *o = pg->o;
    char t[ROCE_FMT_TIME_LEN];
    if (s->n_loose == 0)
        return;
    fputs("<section id=\"loose\">\n<h2>Frames with verdicts outside any flow</h2>\n"
          "<p class=\"muted\">Frames the engine could not put in a flow (malformed RoCE).</p>\n"
          "<div class=\"scroll\"><table class=\"sortable\">\n",
          o);
    static const char *const heads[] = {"frame", "time s", "<verdicts"};
    th_row(o, heads, sizeof heads / sizeof heads[0]);
    for (size_t i = 0; i < s->n_loose; i++) {
        const struct roce_html_mark *m = &s->loose[i];
        roce_fmt_seconds(m->ts_ns - pg->t0_ns, t, sizeof t);
        fprintf(o, "<tr data-frame=\"%" PRIu64 "\" data-verdicts=\"", m->frame);
        roce_html_verdicts(o, m->flags);
        fprintf(o, "\"><td>%" PRIu64 "</td><td>%s</td><td class=\"text\">", m->frame, t);
        roce_html_verdicts(o, m->flags);
        fputs("</td></tr>\n", o);
    }
    fputs("</tbody></table></div>\n</section>\n", o);
}
