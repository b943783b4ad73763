/*
 * report_parse.h - the parts of a JSON report (report_parse_flow.c) that
 * the report parser (report_parse.c) reads: latency objects, NAK and
 * trigger counts, flows with their episodes.
 */
#ifndef ROCE_REPORT_PARSE_H
#define ROCE_REPORT_PARSE_H

#include "jsonget.h"
#include "report.h"

/* A latency object {count, min, p50, p99, max, distribution}: the
 * distribution into l (empty before), its summary into s. The summary the
 * distribution gives must be the one written. */
void roce_parse_latency(struct roce_jget *g, json_object *o, const char *where, struct roce_lat *l,
                        struct roce_lat_summary *s);
/* {psn_sequence_error, ..., reserved_code, rnr, total}. */
void roce_parse_naks(struct roce_jget *g, json_object *o, const char *where,
                     struct roce_nak_counts *n);
/* {nak, rnr, implied, timeout}. */
void roce_parse_triggers(struct roce_jget *g, json_object *o, const char *where,
                         uint64_t by[ROCE_TRIGGER_COUNT]);
/* One element of "flows" appended to r, its episodes to r's (in flow
 * order; the caller puts them back in start order). Times stay relative to
 * the report's first_time (the caller adds it). 0, or -1 when out of memory. */
int roce_parse_flow(struct roce_jget *g, json_object *o, struct roce_report *r);

#endif
