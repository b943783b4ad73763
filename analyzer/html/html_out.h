/*
 * html_out.h - what the page's writers share (html_out.c): escaping, numbers
 * and times as the page shows them, the embedded style and script, and the
 * charts' scales and axes.
 */
#ifndef ROCE_HTML_OUT_H
#define ROCE_HTML_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "roce_engine.h"

/* The style and the script of every page (report.css, report.js, embedded
 * at build time). */
extern const char roce_html_css[];
extern const char roce_html_js[];

/* Text with & < > " ' escaped. */
void roce_html_esc(FILE *o, const char *s);
/* Microseconds with three decimals from nanoseconds ("12.345"). */
void roce_html_us(FILE *o, int64_t ns);
/* A MAC address as text (aa:bb:cc:dd:ee:ff). */
#define ROCE_HTML_MAC_LEN 18
void roce_html_mac(const uint8_t mac[6], char buf[ROCE_HTML_MAC_LEN]);
/* ... as the id of its row among the PFC/PAUSE senders (host-aabbccddeeff). */
#define ROCE_HTML_MAC_ID_LEN 18
void roce_html_mac_id(const uint8_t mac[6], char buf[ROCE_HTML_MAC_ID_LEN]);
/* v with thousands separators (1,234,567). */
void roce_html_u64(FILE *o, uint64_t v);
/* ns as a duration in the largest unit it fills (ns, µs, ms, s), 4
 * significant digits, with its unit. */
void roce_html_dur(FILE *o, int64_t ns);
/* <td> cells: a number (thousands separated, sorting by its value);
 * microseconds, or a duration in its unit (roce_html_dur; both sorting by
 * the nanoseconds); a text (escaped, left-aligned); an empty one. */
void roce_html_td_u64(FILE *o, uint64_t v);
void roce_html_td_us(FILE *o, int64_t ns);
void roce_html_td_dur(FILE *o, int64_t ns);
void roce_html_td_text(FILE *o, const char *s);
void roce_html_td_none(FILE *o);
/* The verdict names of flags, space-separated, in bit order (as --events). */
void roce_html_verdicts(FILE *o, uint32_t flags);
/* Start a page: doctype, head with the title (escaped) and the style, the
 * body with its tooltip, the shapes the charts use, and <main>. */
void roce_html_begin(FILE *o, const char *title);
/* End it: the script, </main>, </body>. */
void roce_html_end(FILE *o);
/* The legend of the sequence graphs' shapes. */
void roce_html_legend(FILE *o);

/* A unit of time for an axis: the largest of ns, µs, ms, s that keeps the
 * span at least 2 of them. */
struct roce_html_tunit {
    const char *name;
    double ns;
};
struct roce_html_tunit roce_html_time_unit(int64_t span_ns);

/* A linear scale: values v0..v1 to pixels p0..p1. */
struct roce_html_scale {
    double v0, v1, p0, p1;
};
double roce_html_map(const struct roce_html_scale *s, double v);

/* A chart's frame: viewBox width x height, the plot inside the margins. */
struct roce_html_box {
    double w, h, left, right, top, bottom; /* plot: x in [left, right], y in [top, bottom] */
};
/* <svg class="chart"> with its viewBox, role and an accessible title, and
 * the scales' ranges as data-t0/t1 x0/x1 (time, with data-unit) and, when y
 * is not NULL, data-p0/p1 y0/y1 (PSN): the script reads positions back. */
void roce_html_svg_open(FILE *o, const struct roce_html_box *b, const char *title,
                        const struct roce_html_scale *x, const char *unit,
                        const struct roce_html_scale *y);
/* Axes with ticks at round values (whole numbers only for integer: counts,
 * PSNs), grid lines, and their labels (with units). */
void roce_html_axis_x(FILE *o, const struct roce_html_box *b, const struct roce_html_scale *x,
                      const char *label, int integer);
void roce_html_axis_y(FILE *o, const struct roce_html_box *b, const struct roce_html_scale *y,
                      const char *label, int integer);

#endif
