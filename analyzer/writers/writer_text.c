/*
 * writer_text.c - the summary, the default writer of the -o output: the
 * report's human summary (report_text.c) and localize's (localize_text.c).
 */
#include "writers.h"

static int text_report(const struct roce_writer_run *r, FILE *out, const struct roce_writer_doc *d)
{
    (void)r; /* no state */
    return roce_report_text(d->rep, out, d->top);
}

static int text_localize(FILE *out, const struct roce_localize_report *lz)
{
    return roce_localize_text(lz, out);
}

const struct roce_writer_ops roce_writer_text = {
    .report = text_report,
    .localize = text_localize,
};
