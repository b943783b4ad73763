/*
 * live_json.h - `rocescope -i IFACE --json`: one JSON object per interval
 * (JSON Lines: analyzer/report/REPORT.md, "JSON Lines"), and the final report on one line.
 */
#ifndef ROCE_LIVE_JSON_H
#define ROCE_LIVE_JSON_H

#include <stdio.h>

#include "live_interval.h"
#include "report.h"
#include "writers.h"

/* Write the interval as one line and flush. 0, or -1 on a write error. */
int roce_live_json_interval(FILE *out, const struct roce_live_interval *iv);

/* Write the document of a writer whose document is one JSON value
 * (ROCE_WRITER_JSON: the full report) on a single line. 0, or -1. */
int roce_live_json_document(FILE *out, const struct roce_writer_run *r,
                            const struct roce_writer_doc *d);

#endif
