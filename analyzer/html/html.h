/*
 * html.h - the HTML report (`rocescope --html PATH`): one self-contained
 * page (inline SVG, CSS and a little JavaScript of our own, nothing fetched)
 * drawn from the report and from per-flow series that a front end collects
 * while its engine reads the frames (README in this folder; what the page
 * holds: ../report/REPORT.md, "HTML report").
 *
 * The series (html_series.c) take the engine's output of every frame and its
 * settled verdicts; they hold, in bounded memory, fixed-size time buckets
 * per flow (packets, bytes, the request PSNs sent, the highest response PSN)
 * from the flow's first frame,
 * the frames with verdicts per flow (capped per flow and in all), the frames
 * with verdicts outside any flow, and a PFC/PAUSE timeline per priority. The
 * writers (html_page.c and the files it calls) hold no protocol logic: what
 * they plot are the engine's verdicts and counts.
 */
#ifndef ROCE_HTML_H
#define ROCE_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "localize_report.h"
#include "report.h"
#include "roce_engine.h"

/* The bounds of the series (each reached is counted and said on the page). */
#define ROCE_HTML_BUCKETS        192    /* time buckets per flow */
#define ROCE_HTML_MAX_SERIES     8192   /* flows with series (beyond: the least troubled evicted) */
#define ROCE_HTML_MARKS_PER_FLOW 2048   /* frames with verdicts kept per flow */
#define ROCE_HTML_MAX_MARKS      262144 /* ... in all */
#define ROCE_HTML_MAX_LOOSE      1024   /* frames with verdicts outside any flow */
#define ROCE_HTML_PFC_BUCKETS    480    /* time buckets of the PFC/PAUSE timeline */
#define ROCE_HTML_TL_BUCKETS     480    /* time buckets of the capture's timeline */
#define ROCE_HTML_PFC_SLOTS      (ROCE_PFC_PRIORITIES + 1) /* priorities 0-7, link PAUSE */

struct roce_html_series;

/* An empty collector; NULL when out of memory. */
struct roce_html_series *roce_html_series_new(void);
void roce_html_series_free(struct roce_html_series *s);

/* One frame, right after roce_engine_frame(e, in, out) (out not NULL; ctx
 * is the series, as for on_verdict): buckets of its flow; after a MAC
 * Control frame, the engine's PFC/PAUSE totals are sampled
 * (roce_engine_totals). Never fails: what does not fit is counted. */
void roce_html_series_frame(void *ctx, struct roce_engine *e, const struct roce_frame_in *in,
                            const struct roce_frame_out *out);
/* A settled verdict (the engine's on_verdict; ctx is the series). */
void roce_html_series_verdict(const struct roce_verdict *v, void *ctx);
/* Before writing a page (after roce_engine_finish(e), or mid-capture):
 * the buckets being filled are put in place and the PFC/PAUSE totals
 * sampled (after finish: the pauses still running). Frames may follow. */
void roce_html_series_finish(struct roce_html_series *s, struct roce_engine *e);

/* `-j`: move the series of one file (src, finished) into dst, its frames
 * numbered on after frame_offset and its flow ids after id_offset (as the
 * merged report numbers them); src is left empty. 0, or -1 when out of
 * memory (what was not moved is counted as evicted). */
int roce_html_series_absorb(struct roce_html_series *dst, struct roce_html_series *src,
                            uint64_t frame_offset, uint64_t id_offset);

/* Where the page comes from: what its header says, and what it can show. */
enum roce_html_source {
    ROCE_HTML_FILES = 0, /* rocescope --html: capture files (series when given) */
    ROCE_HTML_MERGE = 1, /* rocescope merge --html: JSON reports, no frames */
    ROCE_HTML_LIVE = 2   /* the live monitor's final report */
};

/*
 * Write the page of a report to out: summary (and its diagnoses), the flows
 * table, for each flow with trouble (worst first, at most top) its sequence
 * graph, rate and CNP latency, the CNP latency histogram, the PFC/PAUSE
 * timeline, the go-back-N episodes, the limits reached. s may be NULL (a
 * merged report: no graphs over time). 0, or -1 when out of memory or the
 * output failed. A live monitor serving the page calls this too.
 */
int roce_html_report(FILE *out, const struct roce_report *r, const struct roce_html_series *s,
                     enum roce_html_source src, unsigned top);

/* n bytes of s as HTML text: & < > " ' escaped (html_out.c). */
void roce_html_text(FILE *out, const char *s, size_t n);

/* The page of `rocescope localize`: points, clock offsets, segments with
 * their losses and latencies, flows, losses and CE marks (at most r->top
 * each). 0, or -1. */
int roce_html_localize(FILE *out, const struct roce_localize_report *r);

#endif
