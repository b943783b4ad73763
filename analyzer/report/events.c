/*
 * events.c - JSON Lines writer for settled verdicts (see events.h).
 */
#include "events.h"

#include <json-c/json.h>

#include "fmt.h"
#include "json_values.h"

#define RATE_DECIMALS  3 /* Mb/s as Gb/s */
#define RATIO_DECIMALS 6 /* ppm as a ratio */

static void add_i64(json_object *o, const char *k, int64_t v)
{
    json_object_object_add(o, k, json_object_new_int64(v));
}

void roce_events_write(const struct roce_verdict *v, void *ctx)
{
    struct roce_events *ev = ctx;
    char buf[ROCE_FMT_TIME_LEN];
    json_object *o = json_object_new_object(), *names = json_object_new_array();
    const struct roce_opcode_info *op = roce_opcode_lookup(v->opcode);

    roce_json_put_u64(o, "frame", v->frame);
    roce_fmt_seconds(v->ts_ns, buf, sizeof buf);
    json_object_object_add(o, "time", json_object_new_string(buf));
    if (v->has_flow) {
        roce_json_endpoint(o, &v->key);
        roce_json_put_u64(o, "flow_id", v->flow_id);
        json_object_object_add(o, "opcode", json_object_new_string(op ? op->ident : "unknown"));
        roce_json_put_u64(o, "psn", v->psn);
    }
    for (unsigned b = 0; b < ROCE_V_COUNT; b++)
        if (v->flags & (1u << b))
            json_object_array_add(names, json_object_new_string(roce_verdict_name(b)));
    json_object_object_add(o, "verdicts", names);
    if (v->flags & ROCE_V_MALFORMED)
        json_object_object_add(
            o, "malformed",
            json_object_new_string(roce_malformed_name((enum roce_malformed)v->malformed)));
    if (roce_verdict_shows_expected(v))
        roce_json_put_u64(o, "expected_psn", v->expected_psn);
    if (v->flags & (ROCE_V_GAP | ROCE_V_RESP_GAP))
        roce_json_put_u64(o, "missing_psns", v->missing_psns);
    if (v->flags & ROCE_V_GAP) {
        json_object_object_add(o, "gap_class",
                               json_object_new_string(roce_gap_class_name(v->gap_class)));
        if (v->gap_class == ROCE_GAP_UNDETERMINED)
            json_object_object_add(o, "gap_reason",
                                   json_object_new_string(roce_gap_reason_name(v->gap_reason)));
        if (v->gap_decided_by)
            roce_json_put_u64(o, "gap_decided_by", v->gap_decided_by);
    }
    if (v->flags & ROCE_V_REORDERED) {
        roce_json_put_u64(o, "reorder_gap_frame", v->reorder_gap_frame);
        roce_json_put_u64(o, "reorder_psns", v->reorder_psns);
        add_i64(o, "reorder_ns", v->reorder_ns);
    }
    if (v->flags & ROCE_V_AFTER_RESPONSE)
        roce_json_put_u64(o, "response_frame", v->response_frame);
    if (v->flags & ROCE_V_RETRANSMISSION)
        roce_json_put_u64(o, "episode_frame", v->episode_frame);
    if (v->flags & ROCE_V_EPISODE_START) {
        json_object_object_add(o, "trigger", json_object_new_string(roce_trigger_name(v->trigger)));
        if (v->nak_frame) {
            roce_json_put_u64(o, "nak_frame", v->nak_frame);
            add_i64(o, "nak_to_resend_ns", v->nak_to_resend_ns);
        }
    }
    if (v->flags & ROCE_V_NAK)
        json_object_object_add(o, "nak_code",
                               json_object_new_string(roce_nak_code_name(v->nak_code)));
    if ((v->flags & ROCE_V_NAK) && v->has_nak_generation)
        add_i64(o, "nak_generation_ns", v->nak_generation_ns);
    if (v->flags & ROCE_V_RNR)
        roce_json_put_u64(o, "rnr_timer", v->rnr_timer);
    if (v->flags & ROCE_V_NAK_RESENT)
        roce_json_put_u64(o, "retransmitted_in", v->retransmitted_in);
    if (v->flags & ROCE_V_CE_ANSWERED)
        roce_json_put_u64(o, "cnp_frame", v->cnp_frame);
    if (v->flags & ROCE_V_CNP_MATCHED) {
        roce_json_put_u64(o, "cnp_for_frame", v->cnp_for_frame);
        add_i64(o, "cnp_latency_ns", v->cnp_latency_ns);
    }
    if (v->flags & ROCE_V_DCQCN) {
        json_object_object_add(o, "dcqcn_rate_before_gbps",
                               roce_json_decimal(v->dcqcn_before_mbps, RATE_DECIMALS));
        json_object_object_add(o, "dcqcn_rate_after_gbps",
                               roce_json_decimal(v->dcqcn_after_mbps, RATE_DECIMALS));
        json_object_object_add(o, "dcqcn_rate_ratio",
                               roce_json_decimal(v->dcqcn_ratio_ppm, RATIO_DECIMALS));
    }
    if (v->flags & ROCE_V_PSN_REUSE)
        roce_json_put_u64(o, "reuse_frame", v->reuse_frame);
    if (v->flags & ROCE_V_BAD_ICRC) {
        roce_json_put_u64(o, "icrc_computed", v->icrc_calc);
        roce_json_put_u64(o, "icrc_wire", v->icrc_wire);
        if (v->icrc_rewrite != ROCE_REWRITE_NONE) {
            json_object_object_add(
                o, "icrc_rewritten",
                json_object_new_string(roce_rewrite_field_name(v->icrc_rewrite)));
            roce_json_put_u64(o, "icrc_valid_with", v->icrc_rewrite_value);
        }
    }
    if (v->flags & ROCE_V_BAD_VCRC) {
        roce_json_put_u64(o, "vcrc_computed", v->vcrc_calc);
        roce_json_put_u64(o, "vcrc_wire", v->vcrc_wire);
    }
    if (fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                    JSON_C_TO_STRING_NOSLASHESCAPE),
              ev->out) < 0 ||
        fputc('\n', ev->out) == EOF)
        ev->failed = 1;
    json_object_put(o);
}
