/*
 * html_part.h - the report page's parts and what they share (html_page.c:
 * the page and its summary; html_tables.c: the tables; html_graph.c: the
 * graphs of a flow; html_charts.c: the CNP latency histogram and the PFC
 * timeline; html_part.c: the page's flows by key, peers and references,
 * which the page and every part use).
 */
#ifndef ROCE_HTML_PART_H
#define ROCE_HTML_PART_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "html_out.h"
#include "html_series.h"

/* Rows listed at most in the tables (the rest is counted under them). */
#define ROCE_HTML_MAX_FLOW_ROWS    5000
#define ROCE_HTML_MAX_EPISODE_ROWS 5000

struct roce_html_page {
    FILE *o;
    const struct roce_report *r;
    const struct roce_html_series *s; /* NULL: no series (merged reports) */
    enum roce_html_source src;
    unsigned top;
    int64_t t0_ns; /* the time axes start here: the capture's first frame */
    /* the report's flows by key, for the paired flows */
    const struct roce_flow_report **by_key;
    /* the diagnoses (the report library's, in their order) */
    struct roce_diag_list diag;
    /* the page's one ranking (html_page.c, rank_flows; roce_report_rank):
     * the flows the diagnoses name, in the diagnoses' order, then the other
     * flows with trouble or with a kept frame with verdicts on their graph,
     * worst first (roce_report_cmp_worst); the first n_drawn have graphs */
    const struct roce_flow_report **drawn;
    size_t n_ranked, n_drawn;
    size_t *rank;       /* by index into r->flows: 1.. in the ranking, 0 not in it */
    uint8_t *has_graph; /* by index into r->flows */
    /* frames with verdicts kept in the series: plotted in a graph, on flows
     * without a graph (beyond top), on flows not in the report (evicted) */
    uint64_t marks_plotted, marks_not_drawn, marks_no_flow;
    /* the frames plotted in the graphs, ascending (the diagnoses link to them) */
    uint64_t *plotted;
    size_t n_plotted;
};

/* Index the report's flows by key (pg->by_key; pg->r set): 0, or -1 when
 * out of memory. The caller frees pg->by_key. */
int roce_html_page_flows(struct roce_html_page *pg);
/* The flow of the report with this key, or NULL. */
const struct roce_flow_report *roce_html_flow_by_key(const struct roce_html_page *pg,
                                                     const struct roce_flow_key *k);
/* The paired flow of f in the report, or NULL. */
const struct roce_flow_report *roce_html_peer(const struct roce_html_page *pg,
                                              const struct roce_flow_report *f);
/* The flow whose graph shows a frame with verdicts of flow x (by its kind):
 * requests (and frames of unknown kind) on their own flow's, responses and
 * CNPs on the paired flow's when it is in the report, else on their own. */
const struct roce_flow_report *roce_html_subject(const struct roce_html_page *pg,
                                                 const struct roce_flow_report *x, unsigned kind);
/* "SRC -> DST QP 0x..." escaped, and a link to its graph when it has one. */
void roce_html_flow_ref(const struct roce_html_page *pg, const struct roce_flow_report *f);

/* The tables (html_tables.c). */
void roce_html_flows_table(struct roce_html_page *pg);
void roce_html_episodes_table(struct roce_html_page *pg);
void roce_html_loose_table(struct roce_html_page *pg);
/* The graphs of one flow, rank from 1 (html_graph.c). */
void roce_html_flow_graphs(struct roce_html_page *pg, const struct roce_flow_report *f,
                           unsigned rank);
/* A histogram of a latency distribution in microseconds (html_charts.c). */
void roce_html_histogram(FILE *o, const struct roce_lat *l, const char *title, const char *what);
/* The capture's timeline: throughput, CE marks, CNPs and PFC/PAUSE XOFF
 * over the whole capture, shown whatever was found (html_charts.c). */
void roce_html_timeline(struct roce_html_page *pg);
/* A chart of rows over time (html_charts.c): rows of row px (a row and its
 * gap) beside labels left px wide; from the figure, the chart's box, its
 * time scale and unit. */
struct roce_html_rows {
    double row, left;
    struct roce_html_box b;
    struct roce_html_scale x;
    struct roce_html_tunit unit;
};
/* Open its figure and chart, titled title, of n_rows rows, its time axis
 * from from to end (ns): c->row and c->left set, the rest filled. */
void roce_html_rows_open(struct roce_html_page *pg, const char *title, unsigned n_rows,
                         int64_t from, int64_t end, struct roce_html_rows *c);
/* The PFC/PAUSE section (html_charts.c). */
void roce_html_pfc_section(struct roce_html_page *pg);
/* The receivers the incast rule lists, with their fan-in over time. */
void roce_html_incast_section(struct roce_html_page *pg);
/* The pause episodes: a timeline per link and the victims (html_pauses.c). */
void roce_html_pauses_section(struct roce_html_page *pg);

#endif
