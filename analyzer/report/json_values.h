/*
 * json_values.h - the json-c values the JSON writers share (the offline
 * report, the live monitor's interval lines, the events): counters, exact
 * decimal times, and the report sections whose layout both the offline
 * report and the interval lines use (malformed reasons, NAK counts, go-back-N triggers, a PFC
 * priority, encapsulations), so that the two stay alike.
 */
#ifndef ROCESCOPE_JSON_VALUES_H
#define ROCESCOPE_JSON_VALUES_H

#include <json-c/json.h>
#include <stdint.h>

#include "roce_engine.h"

/* o[k] = v (an unsigned 64-bit number). */
void roce_json_put_u64(json_object *o, const char *k, uint64_t v);

/* Microseconds with three decimals, exact (from integer nanoseconds). */
json_object *roce_json_us(int64_t ns);

/* Seconds with nine decimals, exact (from integer nanoseconds). */
json_object *roce_json_seconds(int64_t ns);

/* {reason: N, ...}: malformed frames by reason. */
json_object *roce_json_malformed(const struct roce_totals *t);

/* {psn_sequence_error, ..., reserved_code, rnr, total}. */
json_object *roce_json_naks(const struct roce_nak_counts *n);

/* {nak, rnr, implied, timeout}: go-back-N episodes by trigger. */
json_object *roce_json_triggers(const uint64_t by[ROCE_TRIGGER_COUNT]);

/* {frames, xoff, xon, quanta, paused_us, storm_windows} of a PFC priority
 * (or of PAUSE). */
json_object *roce_json_pfc_prio(const struct roce_pfc_prio *p);

/* {erspan2: N, ...}: frames by outermost encapsulation (none left out). */
json_object *roce_json_encap(const struct roce_totals *t);

#endif
