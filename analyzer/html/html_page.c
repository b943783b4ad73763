/*
 * html_page.c - the HTML report of a capture (see html.h): the page, its
 * summary, which flows get graphs, and the limits it reached. The parts are
 * in html_tables.c, html_graph.c and html_charts.c; what they share with the
 * page, in html_part.c.
 */
#define _DEFAULT_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fmt.h"
#include "html_part.h"

#define TITLE_LEN          512
#define DATE_LEN           64
#define HTML_FINDINGS      12  /* findings listed */
#define HTML_OPEN          4   /* ... in view, the rest behind "N more findings" */
#define HTML_SUBJECTS      5   /* subjects listed per finding */
#define HTML_MORE_SUBJECTS 200 /* ... and behind "and N more" */

/* ---- which flows get graphs ---- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The page's one ranking (html_part.h): the report's (roce_report_rank:
 * the diagnoses' flows in the diagnoses' order, so that diagnosis #1's worst
 * subject is rank 1 and graph #1, then the flows with trouble), with the
 * flows a kept frame with verdicts is plotted on among the latter; graphs for
 * the first top of them. 0, or -1 when out of memory. */
static int rank_flows(struct roce_html_page *pg)
{
    const struct roce_report *r = pg->r;
    size_t n = r->n_flows;
    uint8_t *plotted_on = calloc(n ? n : 1, 1);
    pg->has_graph = calloc(n ? n : 1, 1);
    pg->rank = calloc(n ? n : 1, sizeof *pg->rank);
    pg->drawn = calloc(n ? n : 1, sizeof *pg->drawn);
    if (plotted_on == NULL || pg->has_graph == NULL || pg->rank == NULL || pg->drawn == NULL) {
        free(plotted_on);
        return -1;
    }
    for (size_t i = 0; pg->s != NULL && i < n; i++) {
        const struct roce_html_flow *fs = roce_html_series_flow(pg->s, r->flows[i].id);
        for (uint32_t k = 0; fs != NULL && k < fs->n_marks; k++)
            plotted_on[roce_html_subject(pg, &r->flows[i], fs->marks[k].kind) - r->flows] = 1;
    }
    pg->n_ranked = roce_report_rank(r->flows, n, &pg->diag, plotted_on, 0, pg->drawn);
    free(plotted_on);
    if (pg->n_ranked == ROCE_RANK_NOMEM)
        return -1;
    for (size_t i = 0; i < pg->n_ranked; i++)
        pg->rank[pg->drawn[i] - r->flows] = i + 1;
    pg->n_drawn = pg->s == NULL ? 0 : pg->n_ranked < pg->top ? pg->n_ranked : pg->top;
    for (size_t i = 0; i < pg->n_drawn; i++)
        pg->has_graph[pg->drawn[i] - r->flows] = 1;
    /* the frames kept that no graph shows (the graphs count what they plot) */
    size_t n_plot = 0;
    for (size_t i = 0; pg->s != NULL && i < pg->s->n_slots; i++) {
        const struct roce_html_flow *fs = pg->s->slots[i].f;
        const struct roce_flow_report *f = fs != NULL ? roce_report_flow(r, fs->id) : NULL;
        if (fs != NULL && f == NULL)
            pg->marks_no_flow += fs->n_marks;
        for (uint32_t k = 0; f != NULL && k < fs->n_marks; k++)
            if (!pg->has_graph[roce_html_subject(pg, f, fs->marks[k].kind) - r->flows])
                pg->marks_not_drawn++;
            else
                n_plot++;
    }
    /* and which frames they plot, for the diagnoses' links */
    pg->plotted = calloc(n_plot ? n_plot : 1, sizeof *pg->plotted);
    if (pg->plotted == NULL)
        return -1;
    for (size_t i = 0; pg->s != NULL && i < pg->s->n_slots; i++) {
        const struct roce_html_flow *fs = pg->s->slots[i].f;
        const struct roce_flow_report *f = fs != NULL ? roce_report_flow(r, fs->id) : NULL;
        for (uint32_t k = 0; f != NULL && k < fs->n_marks; k++)
            if (pg->has_graph[roce_html_subject(pg, f, fs->marks[k].kind) - r->flows])
                pg->plotted[pg->n_plotted++] = fs->marks[k].frame;
    }
    qsort(pg->plotted, pg->n_plotted, sizeof *pg->plotted, cmp_u64);
    return 0;
}

/* ---- the page ---- */

static void verdict(const struct roce_html_page *pg);

static void header(struct roce_html_page *pg)
{
    const struct roce_report *r = pg->r;
    FILE *o = pg->o;
    char date[DATE_LEN], dur[ROCE_FMT_TIME_LEN];
    fputs("<header>\n<h1>rocescope report</h1>\n<p>", o);
    if (pg->src == ROCE_HTML_LIVE)
        fputs("Live capture on ", o);
    else if (pg->src == ROCE_HTML_MERGE)
        fputs("Merged reports of ", o);
    for (size_t i = 0; i < r->n_files; i++) {
        fputs(i ? ", <code>" : "<code>", o);
        roce_html_esc(o, r->files[i]);
        fputs("</code>", o);
    }
    fputs(" (", o);
    roce_html_esc(o, r->link_type ? r->link_type : "unknown link type");
    fputs(")", o);
    if (r->t.packets) {
        time_t sec = (time_t)(r->t.first_ts_ns / ROCE_NS_PER_SEC);
        struct tm tm;
        if (gmtime_r(&sec, &tm) != NULL && strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", &tm))
            fprintf(o, "; first frame at %s.%09" PRId64 " UTC", date,
                    r->t.first_ts_ns % ROCE_NS_PER_SEC);
        roce_fmt_seconds(r->t.last_ts_ns - r->t.first_ts_ns, dur, sizeof dur);
        fprintf(o, ", %s s of traffic", dur);
    }
    fputs(".</p>\n", o);
    verdict(pg);
    if (r->error != NULL) {
        fprintf(o, "<p class=\"warn\">INCOMPLETE: %s: ",
                r->live ? "live capture" : "reading stopped early");
        roce_html_esc(o, r->error);
        fputs("</p>\n", o);
    }
    fputs("<nav aria-label=\"sections\"><ul><li><a href=\"#diagnoses\">Diagnosis</a></li>"
          "<li><a href=\"#worst\">Worst flow</a></li>"
          "<li><a href=\"#timeline\">Timeline</a></li>"
          "<li><a href=\"#summary\">Summary</a></li>"
          "<li><a href=\"#flows\">Flows</a></li><li><a href=\"#graphs\">Flows with trouble</a></li>"
          "<li><a href=\"#cnp-latency\">CNP latency</a></li><li><a href=\"#pfc\">PFC/PAUSE</a></li>"
          "<li><a href=\"#episodes\">Go-back-N episodes</a></li>"
          "<li><a href=\"#limits\">Limits</a></li></ul></nav>\n</header>\n",
          o);
}

/* A summary card: a label, a value (printf), and whether it is trouble. */
static void card(FILE *o, int bad, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void card(FILE *o, int bad, const char *label, const char *fmt, ...)
{
    va_list ap;
    fprintf(o, "<div class=\"card%s\"><dt>%s</dt><dd>", bad ? " bad" : "", label);
    va_start(ap, fmt);
    vfprintf(o, fmt, ap);
    va_end(ap);
    fputs("</dd></div>\n", o);
}

static void latency_card(FILE *o, const char *label, const struct roce_lat_summary *l)
{
    fprintf(o, "<div class=\"card\"><dt>%s</dt><dd>", label);
    if (l->count == 0) {
        fputs("&ndash;</dd></div>\n", o);
        return;
    }
    fputs("p50 ", o);
    roce_html_us(o, l->p50);
    fputs(" &micro;s <small>p99 ", o);
    roce_html_us(o, l->p99);
    fputs(", max ", o);
    roce_html_us(o, l->max);
    fprintf(o, " &micro;s, %" PRIu64 " samples</small></dd></div>\n", l->count);
}

static void summary(struct roce_html_page *pg)
{
    const struct roce_totals *t = &pg->r->t;
    FILE *o = pg->o;
    uint64_t pfc = t->pfc.pfc_frames + t->pfc.pause_frames, storms = t->pfc.pause.storm_windows;
    int64_t paused = t->pfc.pause.paused_ns;
    for (unsigned i = 0; i < ROCE_PFC_PRIORITIES; i++) {
        storms += t->pfc.prio[i].storm_windows;
        if (t->pfc.prio[i].paused_ns > paused)
            paused = t->pfc.prio[i].paused_ns;
    }
    fputs("<section id=\"summary\">\n<h2>Summary</h2>\n<dl class=\"cards\">\n", o);
    if (pg->r->live != NULL)
        card(o, pg->r->live->dropped || pg->r->live->if_dropped, "captured",
             "%" PRIu64 " <small>%" PRIu64 " dropped by the kernel, %" PRIu64
             " by the interface</small>",
             pg->r->live->received, pg->r->live->dropped, pg->r->live->if_dropped);
    card(o, 0, "packets",
         "%" PRIu64 " <small>RoCE %" PRIu64 " (v2 %" PRIu64 ", v1 %" PRIu64 "), non-RoCE %" PRIu64
         ", malformed %" PRIu64 ", truncated %" PRIu64 "</small>",
         t->packets, t->roce_packets, t->rocev2_packets, t->rocev1_packets, t->non_roce_packets,
         t->malformed_packets, t->truncated_packets);
    card(o, 0, "flows",
         "%" PRIu64 " <small>%" PRIu64 " connections (%" PRIu64 " set up by CM), %" PRIu64
         " evicted</small>",
         t->flows_active, t->connections, t->cm_connections, t->flows_evicted);
    card(o, t->gap_events != 0, "PSN gaps", "%" PRIu64 " <small>%" PRIu64 " PSNs missing</small>",
         t->gap_events, t->missing_psns);
    card(o, t->episodes != 0, "retransmitted",
         "%" PRIu64 " <small>in %" PRIu64 " go-back-N episodes (nak %" PRIu64 ", rnr %" PRIu64
         ", implied %" PRIu64 ", timeout %" PRIu64 ")</small>",
         t->retransmitted_packets, t->episodes, t->by_trigger[ROCE_TRIGGER_NAK],
         t->by_trigger[ROCE_TRIGGER_RNR], t->by_trigger[ROCE_TRIGGER_IMPLIED],
         t->by_trigger[ROCE_TRIGGER_TIMEOUT]);
    card(o, t->naks.total != 0, "NAKs",
         "%" PRIu64 " <small>PSN sequence error %" PRIu64 ", RNR %" PRIu64 ", other %" PRIu64
         "</small>",
         t->naks.total, t->naks.code[ROCE_NAK_PSN_SEQUENCE_ERROR], t->naks.rnr,
         t->naks.total - t->naks.code[ROCE_NAK_PSN_SEQUENCE_ERROR] - t->naks.rnr);
    card(o, t->ce_unanswered != 0, "ECN CE marks",
         "%" PRIu64 " <small>%" PRIu64 " answered, %" PRIu64 " unanswered</small>", t->ce_marked,
         t->ce_answered, t->ce_unanswered);
    card(o, t->cnps_unexplained != 0, "CNPs",
         "%" PRIu64 " <small>%" PRIu64 " matched, %" PRIu64 " unexplained</small>", t->cnp_packets,
         t->cnps_matched, t->cnps_unexplained);
    latency_card(o, "CNP latency (CE mark to CNP)", &t->cnp_latency);
    latency_card(o, "ACK latency", &t->ack_latency);
    card(o, t->icrc_bad != 0, "ICRC",
         "%" PRIu64 " bad <small>%" PRIu64 " good, %" PRIu64 " unchecked</small>", t->icrc_bad,
         t->icrc_good, t->icrc_unchecked);
    if (t->psn_reuse || t->read_response_gaps)
        card(o, 1, "READ",
             "%" PRIu64 " PSN reuse <small>%" PRIu64 " READ response gaps (%" PRIu64
             " PSNs)</small>",
             t->psn_reuse, t->read_response_gaps, t->read_response_missing);
    fprintf(o, "<div class=\"card%s\"><dt>PFC/PAUSE frames</dt><dd>%" PRIu64 " <small>",
            storms ? " bad" : "", pfc);
    if (pfc) {
        fputs("longest paused priority ", o);
        roce_html_us(o, paused);
        fprintf(o, " &micro;s, %" PRIu64 " storm windows", storms);
    }
    fputs("</small></dd></div>\n</dl>\n", o);
}

/* ---- the diagnoses ---- */

/* Nonzero when frame is plotted in one of the page's graphs (its mark has
 * the id frame-N). */
static int plotted(const struct roce_html_page *pg, uint64_t frame)
{
    return pg->n_plotted != 0 &&
           bsearch(&frame, pg->plotted, pg->n_plotted, sizeof frame, cmp_u64) != NULL;
}

/* The flow of the report with key k, linked to its graph when it has one;
 * text when the report does not hold it. */
static void key_ref(const struct roce_html_page *pg, const struct roce_flow_key *k,
                    const char *text)
{
    const struct roce_flow_report *f = roce_html_flow_by_key(pg, k);
    if (f != NULL && pg->has_graph[f - pg->r->flows]) {
        fprintf(pg->o, "<a href=\"#flow-%" PRIu64 "\">", f->id);
        roce_html_esc(pg->o, text);
        fputs("</a>", pg->o);
    } else {
        roce_html_esc(pg->o, text);
    }
}

/* A host subject: linked to its row among the PFC/PAUSE senders when it
 * sent any, else to the PFC section. */
static void host_ref(const struct roce_html_page *pg, const uint8_t *mac, const char *text)
{
    char m[ROCE_HTML_MAC_ID_LEN];
    int sender = 0;
    for (size_t i = 0; i < pg->r->n_macs && !sender; i++)
        sender = memcmp(pg->r->macs[i].mac, mac, ROCE_MAC_LEN) == 0 &&
                 pg->r->macs[i].pfc_frames + pg->r->macs[i].pause_frames != 0;
    roce_html_mac_id(mac, m);
    if (sender)
        fprintf(pg->o, "<a href=\"#%s\">", m);
    else
        fputs("<a href=\"#pfc\">", pg->o);
    roce_html_esc(pg->o, text);
    fputs("</a>", pg->o);
}

/* Subject s of a finding of kind: a flow linked to its graph, the QPs of an
 * ECMP collision linked to theirs, a host or a priority linked to the PFC
 * section, a fault of the capture as it is. */
static void diag_subject(const struct roce_html_page *pg, unsigned kind,
                         const struct roce_diag_subject *s)
{
    char subject[ROCE_FMT_FLOW_LEN + 64], qp[16];
    roce_diag_subject_text(kind, s, subject, sizeof subject);
    switch (roce_diag_kind(kind)->subject) {
    case ROCE_SUBJ_HOST:
        host_ref(pg, s->mac, subject);
        break;
    case ROCE_SUBJ_PRIORITY:
        fputs("<a href=\"#pfc\">", pg->o);
        roce_html_esc(pg->o, subject);
        fputs("</a>", pg->o);
        break;
    case ROCE_SUBJ_PATH:
        roce_html_esc(pg->o, subject);
        for (unsigned i = 0; i < s->n_dest_qps; i++) {
            struct roce_flow_key k = s->flow;
            k.dqpn = s->dest_qps[i];
            snprintf(qp, sizeof qp, "QP 0x%06x", (unsigned)k.dqpn);
            fputs(i ? ", " : ": ", pg->o);
            key_ref(pg, &k, qp);
        }
        break;
    case ROCE_SUBJ_FAULT:
        roce_html_esc(pg->o, subject);
        break;
    case ROCE_SUBJ_RECEIVER:
        fputs("<a href=\"#incast\">", pg->o);
        roce_html_esc(pg->o, subject);
        fputs("</a>", pg->o);
        break;
    default:
        key_ref(pg, &s->flow, subject);
        break;
    }
}

/* Evidence frames, each linked to its mark in the graphs where it is plotted. */
static void evidence(const struct roce_html_page *pg, const uint64_t *frames, unsigned n)
{
    for (unsigned k = 0; k < n; k++) {
        uint64_t fr = frames[k];
        fputs(k ? ", " : " <span class=\"evidence\">frame", pg->o);
        if (k == 0 && n > 1)
            fputc('s', pg->o);
        if (k == 0)
            fputc(' ', pg->o);
        if (plotted(pg, fr))
            fprintf(pg->o, "<a href=\"#frame-%" PRIu64 "\">%" PRIu64 "</a>", fr, fr);
        else
            fprintf(pg->o, "%" PRIu64, fr);
    }
    if (n)
        fputs("</span>", pg->o);
}

/* One subject of a finding: the subject (linked where the page shows it),
 * its sentence and evidence. */
static void subject_item(const struct roce_html_page *pg, const struct roce_diagnosis *d, size_t j)
{
    const struct roce_diag_subject *sj = roce_diag_subject_at(&pg->diag, d, j);
    FILE *o = pg->o;
    fputs("<li><span class=\"subject\">", o);
    diag_subject(pg, d->kind, sj);
    fputs("</span>: ", o);
    char phrase[ROCE_DIAG_PHRASE_LEN];
    roce_diag_subject_phrase(&pg->diag, d, j, phrase, sizeof phrase);
    roce_html_esc(o, phrase);
    evidence(pg, sj->frames, sj->n_frames);
    fputs("</li>\n", o);
}

/* One finding: its severity, kind, count, sentence and evidence, then its
 * subjects, worst first, folded (a <details> the reader opens): the first
 * HTML_SUBJECTS, then "and N more" opening the next HTML_MORE_SUBJECTS. */
static void finding(const struct roce_html_page *pg, const struct roce_diagnosis *d)
{
    FILE *o = pg->o;
    const struct roce_diag_kind_info *ki = roce_diag_kind(d->kind);
    const char *sev = roce_diag_severity_name(d->severity);
    const char *kind = roce_diag_kind_name(d->kind);
    fprintf(o,
            "<li data-kind=\"%s\" data-severity=\"%s\" data-cause=\"%s\"><div "
            "class=\"ftext\"><span class=\"sev %s\">%s</span> <b>%s</b> <small "
            "class=\"muted\">count %" PRIu64 "</small> ",
            kind, sev, roce_diag_cause_name(d->cause), sev, sev, kind, d->count);
    roce_html_esc(o, d->summary);
    fputs("</div>\n", o);
    if (d->n_subjects == 0) {
        fputs("<div>", o);
        evidence(pg, d->frames, d->n_frames);
        fputs("</div>", o);
    } else {
        const uint64_t all = roce_diag_subjects(d); /* listed or not */
        fprintf(o, "<details class=\"subjects\"><summary>%" PRIu64 " %s%s, worst first", all,
                ki->unit, all == 1 ? "" : "s");
        evidence(pg, d->frames, d->n_frames);
        fputs("</summary>\n<ul class=\"subjects\">\n", o);
        for (size_t j = 0; j < d->n_subjects && j < HTML_SUBJECTS; j++)
            subject_item(pg, d, j);
        if (all > HTML_SUBJECTS) {
            uint64_t more = all - HTML_SUBJECTS;
            fprintf(o, "<li class=\"muted\"><details><summary>and %" PRIu64 " more</summary><ul>\n",
                    more);
            for (size_t j = HTML_SUBJECTS;
                 j < d->n_subjects && j < HTML_SUBJECTS + HTML_MORE_SUBJECTS; j++)
                subject_item(pg, d, j);
            if (more > HTML_MORE_SUBJECTS)
                fprintf(o, "<li>and %" PRIu64 " more (%s)</li>\n", more - HTML_MORE_SUBJECTS,
                        d->n_unlisted ? "counted, not listed: the live monitor's --final-flows"
                                      : "the JSON report lists them all");
            fputs("</ul></details></li>\n", o);
        }
        fputs("</ul></details>", o);
    }
    fputs("</li>\n", o);
}

/* The verdict on the capture, first on the page: nothing to act on, or the
 * worst finding (the diagnoses' first) in a line, how many more follow, and
 * where the worst flow's graph is. */
static void verdict(const struct roce_html_page *pg)
{
    FILE *o = pg->o;
    const struct roce_diag_list *l = &pg->diag;
    if (l->n == 0) {
        fprintf(o,
                "<p id=\"verdict\" class=\"verdict ok\"><b>Nothing to act on</b>: no loss, "
                "congestion or error in %" PRIu64 " packet%s of %zu flow%s.</p>\n",
                pg->r->t.packets, roce_fmt_plural(pg->r->t.packets), pg->r->n_flows,
                roce_fmt_plural(pg->r->n_flows));
        return;
    }
    const struct roce_diagnosis *d = &l->d[0];
    const struct roce_diag_kind_info *ki = roce_diag_kind(d->kind);
    const char *title = ki->title, *prefix = "Diagnosis: ";
    if (strncmp(title, prefix, strlen(prefix)) == 0)
        title += strlen(prefix);
    fprintf(o, "<p id=\"verdict\" class=\"verdict %s\"><b>", roce_diag_severity_name(d->severity));
    roce_html_esc(o, title);
    fprintf(o, "</b> (%s, %" PRIu64 " %s%s)", roce_diag_severity_name(d->severity),
            roce_diag_subjects(d), ki->unit, roce_diag_subjects(d) == 1 ? "" : "s");
    if (l->n > 1)
        fprintf(o, "; %zu more finding%s below", l->n - 1, roce_fmt_plural(l->n - 1));
    if (pg->n_drawn > 0)
        fputs(". <a href=\"#worst\">The worst flow's graph</a>", o);
    fputs(".</p>\n", o);
}

/* The diagnoses as in the text summary: the capture's finding first with
 * those it explains, then worst first (finding()); the first HTML_OPEN in
 * view, the rest up to HTML_FINDINGS behind "N more findings". */
static void diagnoses(struct roce_html_page *pg)
{
    const struct roce_diag_list *l = &pg->diag;
    FILE *o = pg->o;
    fputs("<section id=\"diagnoses\">\n<h2>Diagnosis", o);
    if (l->n == 0)
        fputs("</h2>\n<p>Nothing found: no loss, congestion or error to act on.</p>\n", o);
    else
        fprintf(o, " <small class=\"muted\">%zu finding%s, %sworst first</small></h2>\n<ol>\n",
                l->n, roce_fmt_plural(l->n),
                l->d[0].kind == ROCE_DIAG_CAPTURE ? "the capture first, then " : "");
    for (size_t i = 0; i < l->n && i < HTML_FINDINGS; i++) {
        if (i == HTML_OPEN)
            fprintf(o,
                    "</ol>\n<details class=\"findings\"><summary>%zu more finding%s</summary>\n"
                    "<ol start=\"%d\">\n",
                    l->n - HTML_OPEN, roce_fmt_plural(l->n - HTML_OPEN), HTML_OPEN + 1);
        finding(pg, &l->d[i]);
    }
    if (l->n > HTML_FINDINGS)
        fprintf(o,
                "<li class=\"muted\">and %zu more finding%s (the JSON report lists them "
                "all)</li>\n",
                l->n - HTML_FINDINGS, roce_fmt_plural(l->n - HTML_FINDINGS));
    if (l->n > 0)
        fputs(l->n > HTML_OPEN ? "</ol>\n</details>\n" : "</ol>\n", o);
    fputs("</section>\n", o);
}

/* The worst flow's graphs (rank 1), right after the diagnoses: on the
 * first screen with the verdict. */
static void worst(struct roce_html_page *pg)
{
    if (pg->n_drawn == 0)
        return;
    fputs("<section id=\"worst\" aria-label=\"The worst flow\">\n", pg->o);
    roce_html_flow_graphs(pg, pg->drawn[0], 1);
    roce_html_legend(pg->o);
    fputs("</section>\n", pg->o);
}

/* The graphs of the other drawn flows, in the ranking's order. */
static void graphs(struct roce_html_page *pg)
{
    FILE *o = pg->o;
    fputs("<section id=\"graphs\">\n<h2>Flows with trouble, worst first</h2>\n", o);
    if (pg->s == NULL) {
        fputs("<p class=\"muted\">This page was made from JSON reports: the graphs over time need "
              "the frames (<code>rocescope --html PAGE CAPTURE...</code>).</p>\n",
              o);
    } else if (pg->n_drawn == 0) {
        fputs("<p>No flow had trouble.</p>\n", o);
    } else {
        fprintf(o,
                "<p class=\"muted\">%zu flow%s in the order of the diagnoses, then worst first "
                "(<code>--top</code> %u; #1 is <a href=\"#worst\">above</a>). Each has its "
                "sequence graph: PSN against time, the requests it sent, and from the paired flow "
                "the NAKs, the response PSNs and the CNPs; then its rate with the CNPs it "
                "received, and its CNP latency.</p>\n",
                pg->n_drawn, roce_fmt_plural(pg->n_drawn), pg->top);
        if (pg->n_drawn > 1)
            roce_html_legend(o);
    }
    for (size_t i = 1; i < pg->n_drawn; i++)
        roce_html_flow_graphs(pg, pg->drawn[i], (unsigned)i + 1);
    fputs("</section>\n", o);
}

static void limits(struct roce_html_page *pg)
{
    const struct roce_totals *t = &pg->r->t;
    const struct roce_html_series *s = pg->s;
    FILE *o = pg->o;
    fputs("<section id=\"limits\">\n<h2>Limits</h2>\n<ul>\n", o);
    fprintf(o,
            "<li>Engine: %" PRIu64 " flows evicted, %" PRIu64 " episodes not listed, %" PRIu64
            " verdicts settled early, %" PRIu64 " CE marks untracked, %" PRIu64
            " allocation failures.</li>\n",
            t->flows_evicted, t->episodes_unlisted, t->verdicts_forced, t->ce_tracking_overflow,
            t->alloc_failures);
    if (t->flows_unlisted)
        fprintf(o,
                "<li>Flows: %" PRIu64 " not in this report (<code>--final-flows</code>: the "
                "worst are listed; the totals and the diagnoses count every flow).</li>\n",
                t->flows_unlisted);
    if (s != NULL) {
        fprintf(o,
                "<li>Frames with verdicts: %" PRIu64 " plotted in the graphs, %" PRIu64
                " on flows without a graph (beyond <code>--top</code> %u), %" PRIu64
                " on flows not in the report (evicted), %zu outside any flow (listed above)"
                "</li>\n",
                pg->marks_plotted, pg->marks_not_drawn, pg->top, pg->marks_no_flow, s->n_loose);
        fprintf(o,
                "<li>Kept in bounded memory: %" PRIu64 " frames with verdicts not kept (at most "
                "%d per flow, %d in all), %" PRIu64 " outside any flow not kept (at most %d), "
                "%" PRIu64 " flows' series evicted (at most %d flows, %d time buckets "
                "each), %" PRIu64 " allocation failures.</li>\n",
                s->marks_dropped, ROCE_HTML_MARKS_PER_FLOW, ROCE_HTML_MAX_MARKS, s->loose_dropped,
                ROCE_HTML_MAX_LOOSE, s->flows_evicted, ROCE_HTML_MAX_SERIES, ROCE_HTML_BUCKETS,
                s->alloc_failures);
    }
    fputs("</ul>\n</section>\n", o);
}

int roce_html_report(FILE *o, const struct roce_report *r, const struct roce_html_series *s,
                     enum roce_html_source src, unsigned top)
{
    struct roce_html_page pg;
    char title[TITLE_LEN];
    int rc = 0;

    memset(&pg, 0, sizeof pg);
    pg.o = o;
    pg.r = r;
    pg.s = s;
    pg.src = src;
    pg.top = top;
    pg.t0_ns = r->t.packets ? r->t.first_ts_ns : 0;
    if (roce_html_page_flows(&pg) != 0)
        return -1;
    if (roce_report_diagnoses(r, &pg.diag) != 0) {
        free(pg.by_key);
        return -1;
    }
    if (rank_flows(&pg) != 0) {
        rc = -1;
        goto out;
    }
    snprintf(title, sizeof title, "rocescope report: %s%s", r->n_files ? r->files[0] : "",
             r->n_files > 1 ? " and more" : "");
    roce_html_begin(o, title);
    header(&pg);
    diagnoses(&pg);
    worst(&pg);
    roce_html_timeline(&pg);
    summary(&pg);
    roce_html_flows_table(&pg);
    graphs(&pg);
    fputs("<section id=\"cnp-latency\">\n<h2>CNP latency</h2>\n", o);
    roce_html_histogram(o, roce_report_lat_get(&r->lat[ROCE_LATENCY_CNP]),
                        "CNP latency of all flows: CE-marked request to its CNP", "CE marks");
    fputs("</section>\n", o);
    roce_html_pfc_section(&pg);
    roce_html_pauses_section(&pg);
    roce_html_incast_section(&pg);
    roce_html_episodes_table(&pg);
    if (s != NULL)
        roce_html_loose_table(&pg);
    limits(&pg);
    roce_html_end(o);
    rc = ferror(o) ? -1 : 0;
out:
    free(pg.by_key);
    free(pg.drawn);
    free(pg.has_graph);
    free(pg.plotted);
    free(pg.rank);
    roce_diag_list_free(&pg.diag);
    return rc;
}
