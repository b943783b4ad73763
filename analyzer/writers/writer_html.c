/*
 * writer_html.c - `--html PATH`: the HTML report (analyzer/html/), its
 * series collected from every frame and settled verdict (html_series.c;
 * with -j one per file, merged in file order), the page written at the end
 * from the report and the series (none for merge), or localize's page.
 */
#include "writers.h"

#include "html.h"

static int html_start(struct roce_writer_run *r)
{
    r->state = roce_html_series_new();
    return r->state != NULL ? 0 : -1;
}

static void html_frame(struct roce_writer_run *r, struct roce_engine *e,
                       const struct roce_frame_in *in, const struct roce_frame_out *out)
{
    roce_html_series_frame(r->state, e, in, out);
}

static void html_verdict(struct roce_writer_run *r, const struct roce_verdict *v)
{
    roce_html_series_verdict(v, r->state);
}

static void html_finish(struct roce_writer_run *r, struct roce_engine *e)
{
    roce_html_series_finish(r->state, e);
}

static int html_absorb(struct roce_writer_run *r, struct roce_writer_run *part, uint64_t frames,
                       uint64_t ids)
{
    return roce_html_series_absorb(r->state, part->state, frames, ids);
}

/* The page's source, as the HTML report names it. */
static enum roce_html_source html_source(enum roce_writer_source s)
{
    return s == ROCE_WRITE_MERGE  ? ROCE_HTML_MERGE
           : s == ROCE_WRITE_LIVE ? ROCE_HTML_LIVE
                                  : ROCE_HTML_FILES;
}

static int html_report(const struct roce_writer_run *r, FILE *out, const struct roce_writer_doc *d)
{
    return roce_html_report(out, d->rep, r->state, html_source(d->source), d->top);
}

static int html_localize(FILE *out, const struct roce_localize_report *lz)
{
    return roce_html_localize(out, lz);
}

static void html_stop(struct roce_writer_run *r)
{
    roce_html_series_free(r->state);
}

const struct roce_writer_ops roce_writer_html = {
    .start = html_start,
    .frame = html_frame,
    .verdict = html_verdict,
    .finish = html_finish,
    .absorb = html_absorb,
    .report = html_report,
    .localize = html_localize,
    .stop = html_stop,
};
