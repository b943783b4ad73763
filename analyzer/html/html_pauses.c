/*
 * html_pauses.c - the report page's pause episodes (see html_part.h;
 * ANALYSIS.md "Pause victims"): a timeline with one row per link (the MAC
 * that sent the pauses: a host NIC or a switch port), each listed pause a
 * bar from its first XOFF to its end, and a table of the pauses with their
 * victims and stalls.
 */
#include <inttypes.h>
#include <string.h>

#include "fmt.h"
#include "html_part.h"

#define ROW_H     22.0
#define ROW_GAP   8.0
#define LABEL_LEN 96
#define MIN_BAR   1.0   /* px: a pause too short to see still shows */
#define LABEL_W   150.0 /* px for a MAC beside its row */

/* The links of the listed pauses, in the order of their first pause: the
 * index in l->p of each link's first pause; a pause's row is the link whose
 * MAC it shares (the untracked MAC is one row of its own). */
static unsigned links(const struct roce_pause_report *l, unsigned *first)
{
    unsigned n = 0;
    for (unsigned i = 0; i < l->n && i < ROCE_PAUSES_LISTED; i++) {
        unsigned k = 0;
        while (k < n && (l->p[first[k]].has_mac != l->p[i].has_mac ||
                         memcmp(l->p[first[k]].mac, l->p[i].mac, ROCE_MAC_LEN) != 0))
            k++;
        if (k == n)
            first[n++] = i;
    }
    return n;
}

static unsigned row_of(const struct roce_pause_report *l, const unsigned *first, unsigned n,
                       const struct roce_pause_episode *p)
{
    for (unsigned k = 0; k < n; k++)
        if (l->p[first[k]].has_mac == p->has_mac &&
            memcmp(l->p[first[k]].mac, p->mac, ROCE_MAC_LEN) == 0)
            return k;
    return 0;
}

/* Who sent p: "host NIC 10.0.0.2", "switch port" (the fabric), or
 * "untracked MAC". */
static void sender_text(const struct roce_html_page *pg, const struct roce_pause_episode *p,
                        char *buf, size_t len)
{
    const struct roce_host_mac *m = roce_pause_sender(pg->r, p);
    char a[ROCE_FMT_ADDR_LEN];
    if (!p->has_mac) {
        snprintf(buf, len, "untracked MAC");
    } else if (m != NULL && roce_host_mac_role(m) == ROCE_MAC_UNROUTED) {
        roce_fmt_addr(m->addr, m->af, a, sizeof a);
        snprintf(buf, len, "host NIC %s", a);
    } else {
        snprintf(buf, len, "fabric (switch port)");
    }
}

static void prio_text(const struct roce_pause_episode *p, char *buf, size_t len)
{
    if (p->prio < ROCE_PFC_PRIORITIES)
        snprintf(buf, len, "priority %u", (unsigned)p->prio);
    else
        snprintf(buf, len, "link PAUSE");
}

static void timeline(struct roce_html_page *pg, const unsigned *first, unsigned n_rows)
{
    const struct roce_pause_report *l = &pg->r->t.pause_list;
    FILE *o = pg->o;
    char mac[ROCE_HTML_MAC_LEN], who[LABEL_LEN], prio[LABEL_LEN];
    int64_t end = pg->r->t.last_ts_ns;
    for (unsigned i = 0; i < l->n && i < ROCE_PAUSES_LISTED; i++)
        if (l->p[i].end_ns > end)
            end = l->p[i].end_ns;
    struct roce_html_rows c = {.row = ROW_H + ROW_GAP, .left = LABEL_W};
    roce_html_rows_open(pg, "Pauses per link", n_rows, pg->t0_ns, end, &c);
    const struct roce_html_box b = c.b;
    const struct roce_html_scale x = c.x;
    const struct roce_html_tunit unit = c.unit;
    for (unsigned r = 0; r < n_rows; r++) {
        const struct roce_pause_episode *p = &l->p[first[r]];
        double base = b.top + (r + 1) * (ROW_H + ROW_GAP) - ROW_GAP;
        if (p->has_mac)
            roce_html_mac(p->mac, mac);
        else
            snprintf(mac, sizeof mac, "untracked");
        fprintf(o,
                "<text x=\"%g\" y=\"%.1f\" text-anchor=\"end\">%s</text><line class=\"axis\" "
                "x1=\"%g\" x2=\"%g\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
                b.left - 6, base - ROW_H / 2 + 4, mac, b.left, b.right, base, base);
    }
    for (unsigned i = 0; i < l->n && i < ROCE_PAUSES_LISTED; i++) {
        const struct roce_pause_episode *p = &l->p[i];
        double base = b.top + (row_of(l, first, n_rows, p) + 1) * (ROW_H + ROW_GAP) - ROW_GAP;
        double x0 = roce_html_map(&x, (double)(p->start_ns - pg->t0_ns) / unit.ns);
        double x1 = roce_html_map(&x, (double)(p->end_ns - pg->t0_ns) / unit.ns);
        sender_text(pg, p, who, sizeof who);
        prio_text(p, prio, sizeof prio);
        fprintf(o,
                "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
                "<title>frame %" PRIu64 ": %s paused by %s for ",
                p->innocent ? "paused" : "bar", x0, base - ROW_H,
                x1 - x0 > MIN_BAR ? x1 - x0 : MIN_BAR, ROW_H, p->frame, prio, who);
        roce_html_us(o, p->end_ns - p->start_ns);
        fprintf(o, " \xc2\xb5s; %" PRIu64 " victims, %" PRIu64 " innocent</title></rect>\n",
                p->victims, p->innocent);
    }
    fputs("</svg>\n<figcaption>Each listed pause from its first XOFF to its XON or expiry, on "
          "the row of the MAC that sent it; dark red: a pause with innocent (head-of-line "
          "blocked) victims.</figcaption>\n</figure>\n",
          o);
}

/* The victims of p, each with its stall, linked to its graph when it has one. */
static void victims_cell(struct roce_html_page *pg, const struct roce_pause_episode *p)
{
    FILE *o = pg->o;
    char name[ROCE_FMT_FLOW_LEN];
    fputs("<td class=\"text\">", o);
    for (unsigned k = 0; k < p->n_named && k < ROCE_PAUSE_VICTIMS; k++) {
        const struct roce_pause_victim *v = &p->v[k];
        const struct roce_flow_report *f = roce_html_flow_by_key(pg, &v->key);
        if (k)
            fputs("<br>", o);
        if (f != NULL) {
            roce_html_flow_ref(pg, f);
        } else {
            roce_fmt_flow(&v->key, name, sizeof name);
            roce_html_esc(o, name);
        }
        fputs(": ", o);
        roce_html_us(o, v->stall_ns);
        fprintf(o, " \xc2\xb5s until frame %" PRIu64 "%s", v->resume_frame,
                v->innocent ? ", innocent" : "");
    }
    if (p->victims > p->n_named)
        fprintf(o, "%sand %" PRIu64 " more", p->n_named ? "<br>" : "", p->victims - p->n_named);
    fputs("</td>", o);
}

void roce_html_pauses_section(struct roce_html_page *pg)
{
    const struct roce_pause_report *l = &pg->r->t.pause_list;
    FILE *o = pg->o;
    unsigned first[ROCE_PAUSES_LISTED];
    char who[LABEL_LEN], prio[LABEL_LEN];
    fputs("<section id=\"pauses\">\n<h2>Pause episodes</h2>\n", o);
    if (l->n == 0) {
        fputs("<p>No pause.</p>\n</section>\n", o);
        return;
    }
    fprintf(o, "<p>%u pause%s listed", (unsigned)l->n, roce_fmt_plural(l->n));
    if (pg->r->t.pauses_unlisted)
        fprintf(o, ", %" PRIu64 " more not listed", pg->r->t.pauses_unlisted);
    fputs(".</p>\n", o);
    timeline(pg, first, links(l, first));
    fputs("<div class=\"scroll\"><table class=\"sortable\">\n<thead><tr><th scope=\"col\">"
          "frame</th><th class=\"text\" scope=\"col\">paused by</th><th class=\"text\" "
          "scope=\"col\">priority</th><th scope=\"col\">began (\xc2\xb5s)</th><th scope=\"col\">"
          "lasted</th><th class=\"text\" scope=\"col\">ended by</th><th scope=\"col\">victims"
          "</th><th scope=\"col\">innocent</th><th scope=\"col\">stalled</th><th class=\"text\" "
          "scope=\"col\">victims and their stall</th></tr></thead>\n<tbody>\n",
          o);
    for (unsigned i = 0; i < l->n && i < ROCE_PAUSES_LISTED; i++) {
        const struct roce_pause_episode *p = &l->p[i];
        sender_text(pg, p, who, sizeof who);
        prio_text(p, prio, sizeof prio);
        fputs("<tr>", o);
        roce_html_td_u64(o, p->frame);
        roce_html_td_text(o, who);
        roce_html_td_text(o, prio);
        roce_html_td_us(o, p->start_ns - pg->t0_ns);
        roce_html_td_dur(o, p->end_ns - p->start_ns);
        roce_html_td_text(o, p->xon ? "XON" : "expiry");
        roce_html_td_u64(o, p->victims);
        roce_html_td_u64(o, p->innocent);
        roce_html_td_dur(o, p->stall_ns);
        victims_cell(pg, p);
        fputs("</tr>\n", o);
    }
    fputs("</tbody></table></div>\n</section>\n", o);
}
