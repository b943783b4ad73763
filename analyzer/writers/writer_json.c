/*
 * writer_json.c - `--json`: the report as one JSON document (report_json.c)
 * and localize's result (localize_json.c).
 */
#include "writers.h"

static int json_report(const struct roce_writer_run *r, FILE *out, const struct roce_writer_doc *d)
{
    (void)r; /* no state */
    return roce_report_json(d->rep, out);
}

static int json_localize(FILE *out, const struct roce_localize_report *lz)
{
    return roce_localize_json(lz, out);
}

const struct roce_writer_ops roce_writer_json = {
    .report = json_report,
    .localize = json_localize,
};
