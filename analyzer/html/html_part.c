/*
 * html_part.c - what the parts of the report page share (see html_part.h):
 * the report's flows by key, the paired flow of a flow, the flow whose graph
 * shows a frame, and a flow's reference. The page (html_page.c) and its
 * parts (html_tables.c, html_graph.c, html_charts.c) call these; they call
 * none of them.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "fmt.h"
#include "html_part.h"

/* ---- the report's flows by key ---- */

int roce_html_page_flows(struct roce_html_page *pg)
{
    const struct roce_report *r = pg->r;
    pg->by_key = calloc(r->n_flows ? r->n_flows : 1, sizeof *pg->by_key);
    if (pg->by_key == NULL)
        return -1;
    for (size_t i = 0; i < r->n_flows; i++)
        pg->by_key[i] = &r->flows[i];
    qsort(pg->by_key, r->n_flows, sizeof *pg->by_key, roce_report_cmp_by_key);
    return 0;
}

const struct roce_flow_report *roce_html_flow_by_key(const struct roce_html_page *pg,
                                                     const struct roce_flow_key *k)
{
    return roce_report_by_key(pg->by_key, pg->r->n_flows, k);
}

const struct roce_flow_report *roce_html_peer(const struct roce_html_page *pg,
                                              const struct roce_flow_report *f)
{
    const struct roce_report_flow *x = roce_report_flow_x(pg->r, f);
    if (!x->has_peer)
        return NULL;
    /* by id when the report has it (a reused QP has a flow record per use),
     * else by key */
    const struct roce_flow_report *p = f->peer_id ? roce_report_flow(pg->r, f->peer_id) : NULL;
    if (p != NULL && roce_report_cmp_key(&p->key, &x->peer) == 0)
        return p;
    return roce_html_flow_by_key(pg, &x->peer);
}

const struct roce_flow_report *roce_html_subject(const struct roce_html_page *pg,
                                                 const struct roce_flow_report *x, unsigned kind)
{
    const struct roce_flow_report *p;
    if (kind != ROCE_HTML_MARK_RESPONSE && kind != ROCE_HTML_MARK_CNP)
        return x;
    p = roce_html_peer(pg, x);
    return p != NULL ? p : x;
}

void roce_html_flow_ref(const struct roce_html_page *pg, const struct roce_flow_report *f)
{
    char name[ROCE_FMT_FLOW_LEN];
    roce_fmt_flow(&f->key, name, sizeof name);
    if (pg->has_graph != NULL && pg->has_graph[f - pg->r->flows]) {
        fprintf(pg->o, "<a href=\"#flow-%" PRIu64 "\">", f->id);
        roce_html_esc(pg->o, name);
        fputs("</a>", pg->o);
    } else {
        roce_html_esc(pg->o, name);
    }
}
