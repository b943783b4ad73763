/*
 * json_values.h - the json-c values the JSON writers share (the offline
 * report, the live monitor's interval lines, the events): counters, exact
 * decimal times, flow endpoints. The report's sections are written from the
 * table of its fields (report_fields.h).
 */
#ifndef ROCESCOPE_JSON_VALUES_H
#define ROCESCOPE_JSON_VALUES_H

#include <json-c/json.h>
#include <stdint.h>

#include "jsonw.h"
#include "roce_engine.h"

/* o[k] = v (an unsigned 64-bit number). */
void roce_json_put_u64(json_object *o, const char *k, uint64_t v);

/* Microseconds with three decimals, exact (from integer nanoseconds). */
json_object *roce_json_us(int64_t ns);

/* Seconds with nine decimals, exact (from integer nanoseconds). */
json_object *roce_json_seconds(int64_t ns);

/* src, dst (as inet_ntop writes them) and dest_qp of a flow key, added to
 * o: the endpoint of a flow in the report, the live lines and the events. */
void roce_json_endpoint(json_object *o, const struct roce_flow_key *k);
/* An exact decimal: units of 10^-decimals (Mb/s with 3 decimals are Gb/s). */
json_object *roce_json_decimal(uint64_t units, unsigned decimals);
/* A list of frame numbers. */
json_object *roce_json_frames(const uint64_t *frames, unsigned n);
/* The same three, streamed: the endpoint's members, the decimal, the list. */
void roce_jw_endpoint(struct roce_jw *w, const struct roce_flow_key *k);
void roce_jw_decimal(struct roce_jw *w, uint64_t units, unsigned decimals);
void roce_jw_frames(struct roce_jw *w, const uint64_t *frames, unsigned n);
/* An address of family af (enum roce_af) or a MAC as text. */
json_object *roce_json_addr(const uint8_t addr[ROCE_ADDR_LEN], int af);
json_object *roce_json_mac(const uint8_t mac[ROCE_MAC_LEN]);
/* A diagnosis of list l: {kind, severity, cause, count, summary, frames,
 * subjects: [{subject, count, figures, summary, frames}],
 * subjects_unlisted}: in the report (max_subjects SIZE_MAX: every subject
 * l lists) and the live lines (the worst max_subjects); subjects_unlisted
 * says how many more it has. */
json_object *roce_json_diagnosis(const struct roce_diag_list *l, const struct roce_diagnosis *d,
                                 size_t max_subjects);
/* The list l of diagnoses as that, streamed: the array, a subject at a
 * time. */
void roce_jw_diagnoses(struct roce_jw *w, const struct roce_diag_list *l);

#endif
