/*
 * live_fields.h - the live monitor's counters: the fields of the report
 * (report_fields.c) that its interval lines carry (ROCE_FF_LIVE), in the
 * order of the lines, which the JSON Lines writer (live_json.c) and the
 * Prometheus writer (prometheus.c) both follow.
 */
#ifndef ROCE_LIVE_FIELDS_H
#define ROCE_LIVE_FIELDS_H

#include <stddef.h>

#include "report_fields.h"

#define ROCE_PROM_PREFIX "rocescope_"

/* The fields of the interval lines in their order: an object of the lines
 * lists its counts, then those marked LIVE_LAST, then its gauges, then its
 * nested objects, each kind in table order; the members of the counters
 * object come in the order in which their first field comes so. Writes at
 * most cap; returns how many there are. */
size_t roce_live_fields(const struct roce_field **out, size_t cap);

/* The object of the interval lines that holds f: its path in the report,
 * whose "capture" section is the counters object itself (""). */
const char *roce_live_path(const struct roce_field *f);

#endif
