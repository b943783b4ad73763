/*
 * html_out.c - what the page's writers share (see html_out.h).
 */
#include "html_out.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "fmt.h"
#include "html.h"

#define TICKS_X   8 /* about that many ticks on an axis */
#define MAX_TICKS 32
#define TICKS_Y   5
#define TICK_LEN  4
#define LABEL_GAP 14
#define NICE_1_5  1.5
#define NICE_3    3.0
#define NICE_7    7.0
#define DECIMAL   10.0
#define NS_PER_US 1000.0
#define NS_PER_MS 1e6
#define NS_PER_S  1e9
#define UNIT_MIN  2 /* an axis spans at least 2 of its unit */

void roce_html_text(FILE *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&':
            fputs("&amp;", o);
            break;
        case '<':
            fputs("&lt;", o);
            break;
        case '>':
            fputs("&gt;", o);
            break;
        case '"':
            fputs("&quot;", o);
            break;
        case '\'':
            fputs("&#39;", o);
            break;
        default:
            fputc(s[i], o);
        }
    }
}

void roce_html_esc(FILE *o, const char *s)
{
    if (s != NULL)
        roce_html_text(o, s, strlen(s));
}

void roce_html_us(FILE *o, int64_t ns)
{
    char buf[ROCE_FMT_US_LEN];
    fputs(roce_fmt_us_text(ns, buf), o);
}

#define THOUSAND   1000
#define DUR_DIGITS 4 /* significant digits of a duration */

void roce_html_mac(const uint8_t mac[6], char buf[ROCE_HTML_MAC_LEN])
{
    snprintf(buf, ROCE_HTML_MAC_LEN, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2],
             mac[3], mac[4], mac[5]);
}

void roce_html_mac_id(const uint8_t mac[6], char buf[ROCE_HTML_MAC_ID_LEN])
{
    snprintf(buf, ROCE_HTML_MAC_ID_LEN, "host-%02x%02x%02x%02x%02x%02x", mac[0], mac[1], mac[2],
             mac[3], mac[4], mac[5]);
}

void roce_html_u64(FILE *o, uint64_t v)
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%" PRIu64, v);
    for (int i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            fputc(',', o);
        fputc(digits[i], o);
    }
}

void roce_html_td_u64(FILE *o, uint64_t v)
{
    if (v < THOUSAND) {
        fprintf(o, "<td>%" PRIu64 "</td>", v);
        return;
    }
    fprintf(o, "<td data-v=\"%" PRIu64 "\">", v);
    roce_html_u64(o, v);
    fputs("</td>", o);
}

void roce_html_dur(FILE *o, int64_t ns)
{
    static const struct {
        double ns;
        const char *name;
    } units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "&micro;s"}};
    double a = ns < 0 ? -(double)ns : (double)ns;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (a >= units[i].ns) {
            fprintf(o, "%.*g %s", DUR_DIGITS, (double)ns / units[i].ns, units[i].name);
            return;
        }
    fprintf(o, "%" PRId64 " ns", ns);
}

void roce_html_td_us(FILE *o, int64_t ns)
{
    fprintf(o, "<td data-v=\"%" PRId64 "\">", ns);
    roce_html_us(o, ns);
    fputs("</td>", o);
}

void roce_html_td_dur(FILE *o, int64_t ns)
{
    fprintf(o, "<td data-v=\"%" PRId64 "\">", ns);
    roce_html_dur(o, ns);
    fputs("</td>", o);
}

void roce_html_td_text(FILE *o, const char *s)
{
    fputs("<td class=\"text\">", o);
    roce_html_esc(o, s);
    fputs("</td>", o);
}

void roce_html_td_none(FILE *o)
{
    fputs("<td data-v=\"-1\">&ndash;</td>", o);
}

void roce_html_verdicts(FILE *o, uint32_t flags)
{
    const char *sep = "";
    for (unsigned b = 0; b < ROCE_V_COUNT; b++)
        if (flags & (1u << b)) {
            fprintf(o, "%s%s", sep, roce_verdict_name(b));
            sep = " ";
        }
}

/* The shapes of the sequence graphs, centred on 0,0 (a <use> places them):
 * each different without colour. A transparent disc under the thin ones
 * makes them easy to point at. */
static const char shapes[] =
    "<svg class=\"defs\" width=\"0\" height=\"0\" aria-hidden=\"true\" "
    "style=\"position:absolute\"><defs>"
    "<pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
    "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fdebd0\"/>"
    "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#e59866\" stroke-width=\"2\"/></pattern>"
    "<path id=\"m-gap\" d=\"M0-5.5L5 3.5H-5Z\" fill=\"#c0392b\"/>"
    "<path id=\"m-gapc\" d=\"M0-5.5L5 3.5H-5Z\" fill=\"#fff\" stroke=\"#6e7781\" "
    "stroke-width=\"1.6\" stroke-dasharray=\"2.2 1.4\"/>"
    "<g id=\"m-gapu\"><path d=\"M0-5.5L5 3.5H-5Z\" fill=\"#fff\" stroke=\"#b9770e\" "
    "stroke-width=\"1.6\"/><path d=\"M0-2.6V0.8\" stroke=\"#b9770e\" stroke-width=\"1.6\"/></g>"
    "<g id=\"m-gapr\"><circle r=\"5\" fill=\"transparent\"/>"
    "<path d=\"M-5 0L0-5L5 0M-5 4.5L0-0.5L5 4.5\" fill=\"none\" stroke=\"#2e86c1\" "
    "stroke-width=\"1.8\"/></g>"
    "<rect id=\"m-ep\" x=\"-4\" y=\"-4\" width=\"8\" height=\"8\" fill=\"#d35400\"/>"
    "<circle id=\"m-rt\" r=\"4\" fill=\"#fff\" stroke=\"#d35400\" stroke-width=\"1.8\"/>"
    "<g id=\"m-nak\"><circle r=\"5\" fill=\"transparent\"/>"
    "<path d=\"M-4-4L4 4M-4 4L4-4\" stroke=\"#6c3483\" stroke-width=\"2.2\"/></g>"
    "<path id=\"m-rnr\" d=\"M0-5.5L5.5 0L0 5.5L-5.5 0Z\" fill=\"#fff\" stroke=\"#6c3483\" "
    "stroke-width=\"1.8\"/>"
    "<path id=\"m-ceu\" d=\"M0 5.5L5-3.5H-5Z\" fill=\"#1f618d\"/>"
    "<path id=\"m-ce\" d=\"M0 5.5L5-3.5H-5Z\" fill=\"#fff\" stroke=\"#1f618d\" "
    "stroke-width=\"1.6\"/>"
    "<g id=\"m-cnp\"><circle r=\"5\" fill=\"transparent\"/>"
    "<path d=\"M0-5V5M-5 0H5\" stroke=\"#117a65\" stroke-width=\"2.2\"/></g>"
    "<g id=\"m-oth\"><circle r=\"5\" fill=\"transparent\"/>"
    "<path d=\"M0-5V5M-4.3-2.5L4.3 2.5M-4.3 2.5L4.3-2.5\" stroke=\"#424949\" "
    "stroke-width=\"1.6\"/></g>"
    "</defs></svg>\n";

void roce_html_begin(FILE *o, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<link rel=\"icon\" href=\"data:,\">\n<title>",
          o);
    roce_html_esc(o, title);
    fprintf(o, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", roce_html_css);
    fputs("<div id=\"tip\" role=\"status\" aria-live=\"polite\"></div>\n", o);
    fputs(shapes, o);
    fputs("<main>\n", o);
}

void roce_html_end(FILE *o)
{
    fputs("<footer>Made by rocescope: one self-contained page, nothing is fetched. Point at a "
          "mark for its frame and verdicts, click to keep it; click a column heading to "
          "sort.</footer>\n</main>\n",
          o);
    fprintf(o, "<script>\n%s</script>\n</body>\n</html>\n", roce_html_js);
}

void roce_html_legend(FILE *o)
{
    static const struct {
        const char *id, *text;
    } items[] = {
        {NULL, "requests sent new (a bar per time bucket)"},
        {"m-gap", "PSN gap, lost in the network (dotted: the missing PSNs)"},
        {"m-gapc", "PSN gap the capture missed"},
        {"m-gapu", "PSN gap, undetermined"},
        {"m-gapr", "reordering (a gap whose PSNs came late, and the late packets)"},
        {"m-ep", "first resend of a go-back-N episode"},
        {"m-rt", "retransmission"},
        {"m-nak", "NAK"},
        {"m-rnr", "RNR NAK"},
        {"m-ceu", "CE mark, no CNP"},
        {"m-ce", "CE mark answered"},
        {"m-cnp", "CNP (top strip)"},
        {"m-oth", "other verdict"},
    };
    fputs("<ul class=\"legend\">", o);
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        fputs("<li><svg viewBox=\"-7 -7 14 14\" aria-hidden=\"true\">", o);
        if (items[i].id != NULL)
            fprintf(o, "<use href=\"#%s\"/>", items[i].id);
        else
            fputs("<path d=\"M0-6V6\" stroke=\"#8c959f\" stroke-width=\"3\"/>", o);
        fprintf(o, "</svg>%s</li>", items[i].text);
    }
    fputs("<li><svg viewBox=\"-7 -7 14 14\" aria-hidden=\"true\"><path d=\"M-7 0H7\" "
          "stroke=\"#1b1f23\" stroke-dasharray=\"4 2\" stroke-width=\"1.5\"/></svg>highest "
          "response PSN (ACKs, READ responses)</li>"
          "<li><svg viewBox=\"-7 -7 14 14\" aria-hidden=\"true\"><rect x=\"-7\" y=\"-7\" "
          "width=\"14\" height=\"14\" fill=\"url(#hatch)\"/></svg>go-back-N episode</li></ul>\n",
          o);
}

struct roce_html_tunit roce_html_time_unit(int64_t span_ns)
{
    static const struct roce_html_tunit units[] = {
        {"s", NS_PER_S}, {"ms", NS_PER_MS}, {"\xc2\xb5s", NS_PER_US}, {"ns", 1.0}};
    for (size_t i = 0; i + 1 < sizeof units / sizeof units[0]; i++)
        if ((double)span_ns >= UNIT_MIN * units[i].ns)
            return units[i];
    return units[sizeof units / sizeof units[0] - 1];
}

double roce_html_map(const struct roce_html_scale *s, double v)
{
    if (s->v1 == s->v0)
        return (s->p0 + s->p1) / 2;
    return s->p0 + (v - s->v0) * (s->p1 - s->p0) / (s->v1 - s->v0);
}

void roce_html_svg_open(FILE *o, const struct roce_html_box *b, const char *title,
                        const struct roce_html_scale *x, const char *unit,
                        const struct roce_html_scale *y)
{
    fprintf(o, "<svg class=\"chart\" viewBox=\"0 0 %g %g\" role=\"img\"", b->w, b->h);
    if (x != NULL)
        fprintf(o,
                " data-t0=\"%.9g\" data-t1=\"%.9g\" data-x0=\"%g\" data-x1=\"%g\" data-unit=\"%s\"",
                x->v0, x->v1, x->p0, x->p1, unit);
    if (y != NULL)
        fprintf(o, " data-p0=\"%.9g\" data-p1=\"%.9g\" data-y0=\"%g\" data-y1=\"%g\"", y->v0, y->v1,
                y->p0, y->p1);
    fputs("><title>", o);
    roce_html_esc(o, title);
    fputs("</title>\n", o);
}

/* A round step giving about n ticks over span (at least 1 for counts). */
static double nice_step(double span, int n, int integer)
{
    double raw = span / n, mag = pow(DECIMAL, floor(log10(raw))), f = raw / mag;
    double step = (f < NICE_1_5 ? 1 : f < NICE_3 ? 2 : f < NICE_7 ? 5 : DECIMAL) * mag;
    return integer && step < 1 ? 1 : step;
}

/* The round values in [v0, v1] about n of them (at most MAX_TICKS), into
 * out; how many. Each is worked out from its index, never by adding steps:
 * on an axis far from 0 (a corrupt capture's times) a step can be below
 * the precision of the values, and they must still end. */
static unsigned ticks(const struct roce_html_scale *s, int n, int integer, double *out)
{
    unsigned k = 0;
    if (!(s->v1 > s->v0) || !isfinite(s->v1 - s->v0))
        return 0;
    double step = nice_step(s->v1 - s->v0, n, integer), first = ceil(s->v0 / step) * step;
    for (unsigned i = 0; i < MAX_TICKS; i++) {
        double v = first + (double)i * step;
        if (v > s->v1 + step * 1e-9)
            break;
        if (k == 0 || v > out[k - 1])
            out[k++] = v;
    }
    return k;
}

void roce_html_axis_x(FILE *o, const struct roce_html_box *b, const struct roce_html_scale *x,
                      const char *label, int integer)
{
    double t[MAX_TICKS];
    unsigned n = ticks(x, TICKS_X, integer, t);
    fputs("<g class=\"xaxis\">", o);
    for (unsigned i = 0; i < n; i++) {
        double v = t[i], px = roce_html_map(x, v);
        fprintf(o,
                "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%g\" y2=\"%g\"/>"
                "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%g\" y2=\"%g\"/>"
                "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%.10g</text>",
                px, px, b->top, b->bottom, px, px, b->bottom, b->bottom + TICK_LEN, px,
                b->bottom + TICK_LEN + LABEL_GAP - 2, fabs(v) < 1e-12 ? 0.0 : v);
    }
    fprintf(o, "<line class=\"axis\" x1=\"%g\" x2=\"%g\" y1=\"%g\" y2=\"%g\"/>", b->left, b->right,
            b->bottom, b->bottom);
    fprintf(o, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">", (b->left + b->right) / 2,
            b->h - 4);
    roce_html_esc(o, label);
    fputs("</text></g>\n", o);
}

void roce_html_axis_y(FILE *o, const struct roce_html_box *b, const struct roce_html_scale *y,
                      const char *label, int integer)
{
    double t[MAX_TICKS];
    unsigned n = ticks(y, TICKS_Y, integer, t);
    fputs("<g class=\"yaxis\">", o);
    for (unsigned i = 0; i < n; i++) {
        double v = t[i], py = roce_html_map(y, v);
        fprintf(o,
                "<line class=\"grid\" x1=\"%g\" x2=\"%g\" y1=\"%.1f\" y2=\"%.1f\"/>"
                "<line class=\"axis\" x1=\"%g\" x2=\"%g\" y1=\"%.1f\" y2=\"%.1f\"/>"
                "<text x=\"%g\" y=\"%.1f\" text-anchor=\"end\">%.10g</text>",
                b->left, b->right, py, py, b->left - TICK_LEN, b->left, py, py,
                b->left - TICK_LEN - 2, py + 4, fabs(v) < 1e-12 ? 0.0 : v);
    }
    fprintf(o, "<line class=\"axis\" x1=\"%g\" x2=\"%g\" y1=\"%g\" y2=\"%g\"/>", b->left, b->left,
            b->top, b->bottom);
    fprintf(o, "<text transform=\"translate(12 %g) rotate(-90)\" text-anchor=\"middle\">",
            (b->top + b->bottom) / 2);
    roce_html_esc(o, label);
    fputs("</text></g>\n", o);
}
