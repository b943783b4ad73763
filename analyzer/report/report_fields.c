/*
 * report_fields.c - the fields of the report, each declared once (see
 * report_fields.h), in the order the JSON report writes them. The key names
 * are part of the interface (REPORT.md, "JSON report"); Prometheus names follow
 * its conventions: rocescope_ prefix, _total on counts, base units (seconds,
 * bytes), and the parts of one whole (RoCE frames by version, by ICRC
 * result...) as one family with a label, without the whole beside them
 * (analyzer/report/REPORT.md "Prometheus").
 */
#include "report_fields.h"

#define PSN_MAX       0xFFFFFFu /* PSNs are 24 bits */
#define FLOW_PMTU_MAX 4096u
#define PCT_MAX       100u
#define PRIORITY_MAX  7u /* 802.1p priorities 0..7 */

/* Name functions over unsigned values, for struct roce_fnames. */
static const char *transport_name(unsigned t)
{
    return roce_transport_name((enum roce_transport)t);
}

static const char *malformed_name(unsigned m)
{
    return roce_malformed_name((enum roce_malformed)m);
}

static const char *encap_name(unsigned e)
{
    return roce_encap_name((enum roce_encap)e);
}

static const char *ib_other_name(unsigned o)
{
    return roce_ib_other_name((enum roce_ib_other)o);
}

/* NONE has value 7; 6 is unused and also named "none" (the last is read back). */
static const struct roce_fnames transports = {transport_name, 0, ROCE_TRANSPORT_NONE + 1};
static const struct roce_fnames paired_by = {roce_paired_by_name, 0, ROCE_PAIRED_CNP + 1};
static const struct roce_fnames triggers = {roce_trigger_name, 0, ROCE_TRIGGER_COUNT};
static const struct roce_fnames nak_codes = {roce_nak_code_name, 0, ROCE_NAK_CODES};
static const struct roce_fnames malformed = {malformed_name, 1, ROCE_MAL_COUNT};
static const struct roce_fnames encaps = {encap_name, 1, ROCE_ENCAP_COUNT};
static const struct roce_fnames ib_others = {ib_other_name, 1, ROCE_IB_OTHER_COUNT};
static const struct roce_fnames gap_classes = {roce_gap_class_name, 0, ROCE_GAP_CLASSES};
static const struct roce_fnames ts_steps = {roce_ts_step_name, 0, ROCE_TS_STEPS};
static const struct roce_fnames rewrites = {roce_rewrite_field_name, 1, ROCE_REWRITE_FIELDS};

/* clang-format off */
#define FIELDSET(fields) {fields, sizeof fields / sizeof fields[0]}
/* The tables below name their record T (totals), O (options), E (episode),
 * F (flow), C (connection). */
#define MEMBER(rec, m) .off = offsetof(rec, m), .size = sizeof(((rec *)0)->m)
/* A 64-bit counter, a count array, a struct of counters: they add up. */
#define COUNTER(rec, path_, key_, m, ...) \
    {.path = path_, .key = key_, .type = ROCE_FT_UINT, .merge = ROCE_MERGE_SUM, MEMBER(rec, m), __VA_ARGS__}
#define COUNTS(rec, path_, key_, m, names_, ...) \
    {.path = path_, .key = key_, .type = ROCE_FT_COUNTS, .merge = ROCE_MERGE_SUM, MEMBER(rec, m), \
     .names = &names_, __VA_ARGS__}
#define OBJECT(rec, path_, key_, m, sub_, ...) \
    {.path = path_, .key = key_, .type = ROCE_FT_OBJECT, .merge = ROCE_MERGE_SUM, MEMBER(rec, m), \
     .sub = &sub_, __VA_ARGS__}
/* Any other field. */
#define FIELD(rec, path_, key_, type_, m, ...) \
    {.path = path_, .key = key_, .type = type_, MEMBER(rec, m), __VA_ARGS__}
/* Written and read by callbacks; member: where its value is, when it has one. */
#define CALL(path_, key_, call_, ...) \
    {.path = path_, .key = key_, .type = ROCE_FT_CALL, .call = &call_, __VA_ARGS__}

/* In the live monitor's interval lines, with its Prometheus name and help. */
#define PROM(prom_, help_) .prom = prom_, .help = help_
#define LIVE(prom_, help_) .flags = ROCE_FF_LIVE, PROM(prom_, help_)
#define LIVE_LAST(prom_, help_) .flags = ROCE_FF_LIVE | ROCE_FF_LIVE_LAST, PROM(prom_, help_)
#define GAUGE(prom_, help_) .flags = ROCE_FF_LIVE | ROCE_FF_GAUGE, PROM(prom_, help_)
/* A part of a family: its samples have the label key_="value_". */
#define PART(prom_, key_, value_, help_) PROM(prom_, help_), .prom_label = key_, .prom_value = value_
#define LIVE_PART(...) .flags = ROCE_FF_LIVE, PART(__VA_ARGS__)
#define LIVE_LAST_PART(...) .flags = ROCE_FF_LIVE | ROCE_FF_LIVE_LAST, PART(__VA_ARGS__)
/* COUNTS: one sample per entry, with the label key_ valued by its name. */
#define LIVE_BY(prom_, key_, help_) .flags = ROCE_FF_LIVE, PROM(prom_, help_), .prom_label = key_
/* In the interval lines, not in Prometheus: the sum of a family's parts there. */
#define LIVE_SUM .flags = ROCE_FF_LIVE
#define NOT_LIVE .flags = 0
/* clang-format on */

static const struct roce_field nak_fields[] = {
    /* the codes are members of "naks" itself */
    COUNTS(struct roce_nak_counts, "", "", code, nak_codes, NOT_LIVE),
    COUNTER(struct roce_nak_counts, "", "reserved_code", reserved_code, NOT_LIVE),
    COUNTER(struct roce_nak_counts, "", "rnr", rnr, NOT_LIVE),
    COUNTER(struct roce_nak_counts, "", "total", total, NOT_LIVE),
};
static const struct roce_fieldset naks = FIELDSET(nak_fields);

#define PRIO(key, ...)    COUNTER(struct roce_pfc_prio, "", key, __VA_ARGS__)
#define HELP_PAUSE_FRAMES "frames that carried a pause time: XOFF (nonzero) or XON (zero)"
#define HELP_ROCE         "Well-formed RoCE frames, by RoCE version (ib: native InfiniBand)"
#define HELP_ICRC         "Well-formed RoCE frames by ICRC check: good, bad, unchecked"
#define HELP_VCRC         "InfiniBand packets by VCRC check: good, bad, unchecked"
#define HELP_CNP          "Congestion notification packets: matched to a CE mark, or unexplained"
#define HELP_CE_SETTLED   "CE marks settled: answered by a CNP within the window, or unanswered"
#define HELP_MAC_CONTROL  "MAC Control frames by type: 802.1Qbb PFC, 802.3x PAUSE, other"
static const struct roce_field pfc_prio_fields[] = {
    PRIO("frames", frames, NOT_LIVE), /* xoff + xon */
    PRIO("xoff", xoff, PART("frames_total", "state", "xoff", HELP_PAUSE_FRAMES)),
    PRIO("xon", xon, PART("frames_total", "state", "xon", HELP_PAUSE_FRAMES)),
    PRIO("quanta", quanta, .flags = ROCE_FF_QUANTA,
         PROM("requested_seconds_total",
              "pause time requested (the quanta, 512 bit times each, at --link-speed)")),
    FIELD(struct roce_pfc_prio, "", "paused_us", ROCE_FT_US, paused_ns, .merge = ROCE_MERGE_SUM,
          PROM("paused_seconds_total", "time paused")),
    PRIO("storm_windows", storm_windows,
         PROM("storm_windows_total", "intervals paused for more than the storm share")),
};
const struct roce_fieldset roce_pfc_prio_fields = FIELDSET(pfc_prio_fields);

#define T struct roce_totals
static const struct roce_field report_fields[] = {
    CALL("capture", "file", roce_fcall_file, .merge = ROCE_MERGE_NONE),
    CALL("capture", "files", roce_fcall_files, .merge = ROCE_MERGE_NONE),
    CALL("capture", "link_type", roce_fcall_link_type, .merge = ROCE_MERGE_NONE),
    COUNTER(T, "capture", "packets", packets,
            LIVE("packets_total", "Frames captured and analysed")),
    COUNTER(T, "capture", "roce_packets", roce_packets, LIVE_SUM),
    COUNTER(T, "capture", "rocev1_packets", rocev1_packets,
            LIVE_PART("roce_packets_total", "version", "1", HELP_ROCE)),
    COUNTER(T, "capture", "rocev2_packets", rocev2_packets,
            LIVE_PART("roce_packets_total", "version", "2", HELP_ROCE)),
    COUNTER(T, "capture", "ib_packets", ib_packets,
            LIVE_PART("roce_packets_total", "version", "ib", HELP_ROCE)),
    COUNTER(T, "capture", "non_roce_packets", non_roce_packets,
            LIVE("non_roce_packets_total", "Frames that are not RoCE")),
    COUNTS(T, "capture", "ib_non_transport", ib_other, ib_others,
           LIVE_BY("ib_non_transport_packets_total", "kind",
                   "InfiniBand packets without the IBA transport (not RoCE), by kind")),
    COUNTER(T, "capture", "malformed_packets", malformed_packets, LIVE_SUM),
    COUNTER(T, "capture", "truncated_packets", truncated_packets,
            LIVE("truncated_packets_total", "RoCE frames cut by the snapshot length")),
    COUNTER(T, "capture", "no_bth_packets", no_bth_packets,
            LIVE("no_bth_packets_total", "RoCE frames whose BTH was not captured")),
    COUNTS(T, "capture", "malformed_by_reason", malformed_by_reason, malformed,
           LIVE_BY("malformed_packets_total", "reason",
                   "RoCE by port or EtherType, but malformed, by reason")),
    COUNTER(T, "capture", "bytes", bytes,
            LIVE("wire_bytes_total", "Bytes of the frames analysed, as on the wire")),
    COUNTER(T, "capture", "request_packets", request_packets,
            LIVE("request_packets_total", "RoCE request packets")),
    COUNTER(T, "capture", "response_packets", response_packets,
            LIVE("response_packets_total", "RoCE response packets")),
    COUNTER(T, "capture", "cnp_packets", cnp_packets, LIVE_SUM),
    FIELD(T, "capture", "first_time", ROCE_FT_SECONDS, first_ts_ns, .merge = ROCE_MERGE_EARLIEST,
          .flags = ROCE_FF_NULL0, .when = offsetof(T, packets)),
    CALL("capture", "duration_s", roce_fcall_duration_s, MEMBER(T, last_ts_ns),
         .merge = ROCE_MERGE_LATEST),
    CALL("capture", "files_overlap", roce_fcall_files_overlap, .merge = ROCE_MERGE_NONE),
    COUNTS(T, "capture", "timestamp_steps", ts_steps, ts_steps, NOT_LIVE),
    COUNTER(T, "capture", "repeated_timestamps", ts_repeated,
            LIVE("repeated_timestamps_total",
                 "RoCE frames with the time stamp of the frame before them in their flow")),
    COUNTER(T, "capture", "time_backwards", time_backwards,
            LIVE("time_backwards_total", "Frames earlier than a frame before them")),
    COUNTER(
        T, "capture", "responses_early", responses_early,
        LIVE("responses_early_total", "Responses captured before the request they acknowledge")),
    COUNTER(T, "capture.understated", "frames", understated_packets,
            LIVE("understated_packets_total",
                 "Frames cut short of their IP/UDP length whose original length says not")),
    FIELD(T, "capture.understated", "captured_min", ROCE_FT_UINT, understated_caplen_min,
          .merge = ROCE_MERGE_MIN),
    FIELD(T, "capture.understated", "captured_max", ROCE_FT_UINT, understated_caplen_max,
          .merge = ROCE_MERGE_MAX),
    FIELD(T, "capture.understated", "declared_min", ROCE_FT_UINT, understated_declared_min,
          .merge = ROCE_MERGE_MIN),
    FIELD(T, "capture.understated", "declared_max", ROCE_FT_UINT, understated_declared_max,
          .merge = ROCE_MERGE_MAX),
    COUNTER(T, "capture", "sport_is_dport", sport_is_dport, NOT_LIVE),
    CALL("capture", "fault_frames", roce_fcall_capture_frames, MEMBER(T, capture_frames),
         .merge = ROCE_MERGE_NONE),
    COUNTER(T, "capture.icrc", "good", icrc_good,
            LIVE_PART("icrc_packets_total", "result", "good", HELP_ICRC)),
    COUNTER(T, "capture.icrc", "bad", icrc_bad,
            LIVE_PART("icrc_packets_total", "result", "bad", HELP_ICRC)),
    COUNTER(T, "capture.icrc", "unchecked", icrc_unchecked,
            LIVE_PART("icrc_packets_total", "result", "unchecked", HELP_ICRC)),
    COUNTS(T, "capture.icrc", "rewritten", icrc_rewritten, rewrites,
           LIVE_BY("icrc_rewritten_packets_total", "field",
                   "Bad ICRCs that validate with another value of a header field")),
    COUNTER(T, "capture.vcrc", "good", vcrc_good,
            LIVE_PART("vcrc_packets_total", "result", "good", HELP_VCRC)),
    COUNTER(T, "capture.vcrc", "bad", vcrc_bad,
            LIVE_PART("vcrc_packets_total", "result", "bad", HELP_VCRC)),
    COUNTER(T, "capture.vcrc", "unchecked", vcrc_unchecked,
            LIVE_PART("vcrc_packets_total", "result", "unchecked", HELP_VCRC)),
    CALL("capture", "complete", roce_fcall_complete, .merge = ROCE_MERGE_NONE),
    CALL("capture", "error", roce_fcall_error, .merge = ROCE_MERGE_NONE),
    CALL("capture", "live", roce_fcall_live, .merge = ROCE_MERGE_NONE),
    CALL("", "diagnoses", roce_fcall_diagnoses, .merge = ROCE_MERGE_NONE),
    CALL("", "options", roce_fcall_options, .merge = ROCE_MERGE_NONE),
    OBJECT(T, "", "naks", naks, naks, .flags = ROCE_FF_LIVE),
    COUNTER(T, "retransmission", "episodes", episodes, LIVE_SUM),
    COUNTER(T, "retransmission", "packets", retransmitted_packets,
            LIVE("retransmitted_packets_total", "Retransmitted request packets")),
    COUNTS(T, "retransmission", "by_trigger", by_trigger, triggers,
           LIVE_BY("episodes_total", "trigger", "Go-back-N episodes by trigger")),
    COUNTER(T, "psn_gaps", "events", gap_events,
            LIVE("psn_gaps_total", "PSN gaps (packets lost before the capture point)")),
    COUNTER(T, "psn_gaps", "missing_psns", missing_psns,
            LIVE("missing_psns_total", "PSNs missing in the gaps")),
    COUNTS(T, "psn_gaps", "by_class", gap_class_events, gap_classes,
           LIVE_BY("psn_gaps_settled_total", "class",
                   "PSN gaps by what they were: network loss, capture loss (confirmed or "
                   "inferred), reordering, undetermined")),
    COUNTS(T, "psn_gaps", "missing_psns_by_class", gap_class_psns, gap_classes,
           LIVE_BY("missing_psns_settled_total", "class", "PSNs missing in those gaps")),
    COUNTER(T, "psn_gaps", "reordered_packets", reordered_packets,
            LIVE("reordered_packets_total", "Missing PSNs that arrived late, out of order")),
    COUNTER(T, "", "psn_reuse", psn_reuse,
            LIVE("psn_reuse_total", "Requests reusing a PSN of an earlier READ's span")),
    COUNTER(T, "read_response_gaps", "events", read_response_gaps,
            LIVE("read_response_gaps_total", "Gaps in RDMA READ responses")),
    COUNTER(T, "read_response_gaps", "missing_psns", read_response_missing,
            LIVE("read_response_missing_psns_total", "PSNs missing in READ response gaps")),
    COUNTER(T, "", "aeth_reserved", aeth_reserved,
            LIVE("aeth_reserved_total", "AETHs with the reserved syndrome type")),
    COUNTER(T, "ecn", "ce_marked", ce_marked,
            LIVE("ce_marked_packets_total",
                 "Congestion-marked requests: ECN CE (RoCEv2), FECN (InfiniBand)")),
    FIELD(T, "ecn", "cnps", ROCE_FT_UINT, cnp_packets,
          .flags = ROCE_FF_ALIAS | ROCE_FF_LIVE | ROCE_FF_LIVE_LAST),
    COUNTER(T, "ecn", "becn_packets", becn_packets,
            LIVE("becn_packets_total",
                 "InfiniBand responses carrying BECN (congestion notifications without a CNP)")),
    COUNTER(T, "ecn", "cnps_matched", cnps_matched,
            LIVE_LAST_PART("cnp_packets_total", "match", "matched", HELP_CNP)),
    COUNTER(T, "ecn", "cnps_unexplained", cnps_unexplained,
            LIVE_LAST_PART("cnp_packets_total", "match", "unexplained", HELP_CNP)),
    COUNTER(T, "ecn", "ce_answered", ce_answered,
            LIVE_PART("ce_marks_settled_total", "outcome", "answered", HELP_CE_SETTLED)),
    COUNTER(T, "ecn", "ce_unanswered", ce_unanswered,
            LIVE_PART("ce_marks_settled_total", "outcome", "unanswered", HELP_CE_SETTLED)),
    COUNTER(
        T, "ecn", "cnps_ce_marked", cnps_ce_marked,
        LIVE("cnps_ce_marked_total",
             "CNPs that arrived congestion marked (CE, FECN): they met congestion on their way")),
    CALL("ecn", "cnp_latency_us", roce_fcall_latency, MEMBER(T, cnp_latency),
         .merge = ROCE_MERGE_SUMMARY, .arg = ROCE_LATENCY_CNP),
    COUNTER(T, "dcqcn", "cnps_evaluated", dcqcn_cnps_evaluated,
            LIVE("dcqcn_cnps_evaluated_total",
                 "CNPs whose sender's rate before and after could be compared")),
    CALL("", "ack_latency_us", roce_fcall_latency, MEMBER(T, ack_latency),
         .merge = ROCE_MERGE_SUMMARY, .arg = ROCE_LATENCY_ACK),
    COUNTER(T, "cm", "messages", cm_messages, LIVE("cm_messages_total", "CM MADs")),
    COUNTER(T, "cm", "connections", cm_connections,
            LIVE("cm_connections_total", "CM connections set up (REQ/REP pairs)")),
    COUNTER(T, "pfc", "pfc_frames", pfc.pfc_frames,
            LIVE_PART("mac_control_frames_total", "type", "pfc", HELP_MAC_CONTROL)),
    COUNTER(T, "pfc", "pause_frames", pfc.pause_frames,
            LIVE_PART("mac_control_frames_total", "type", "pause", HELP_MAC_CONTROL)),
    COUNTER(T, "pfc", "other_mac_control", pfc.other_mac_control,
            LIVE_PART("mac_control_frames_total", "type", "other", HELP_MAC_CONTROL)),
    CALL("pfc", "priorities", roce_fcall_priorities, MEMBER(T, pfc.prio), .merge = ROCE_MERGE_SUM,
         .flags = ROCE_FF_LIVE),
    OBJECT(T, "pfc", "pause", pfc.pause, roce_pfc_prio_fields, .flags = ROCE_FF_LIVE),
    COUNTER(T, "pfc", "pauses", pauses,
            LIVE("pfc_pauses_total", "Pauses: a priority paused by one MAC, from XOFF to its end")),
    CALL("pfc", "storm_frames", roce_fcall_storm_frames, MEMBER(T, storm_frames),
         .merge = ROCE_MERGE_NONE),
    CALL("pfc", "xoff_frames", roce_fcall_storm_frames, MEMBER(T, xoff_frames),
         .merge = ROCE_MERGE_NONE),
    CALL("", "incast", roce_fcall_incast, MEMBER(T, incast), .merge = ROCE_MERGE_NONE),
    CALL("", "pause_episodes", roce_fcall_pauses, MEMBER(T, pause_list), .merge = ROCE_MERGE_NONE),
    CALL("", "host_macs", roce_fcall_macs, .merge = ROCE_MERGE_NONE, .arg = 1),
    CALL("", "fabric_macs", roce_fcall_macs, .merge = ROCE_MERGE_NONE, .arg = 0),
    COUNTS(T, "", "encapsulation", encap, encaps,
           LIVE_BY("encapsulated_frames_total", "encapsulation",
                   "Mirrored frames unwrapped, by outermost encapsulation")),
    COUNTER(T, "limits", "flows_created", flows_created,
            LIVE("flows_created_total", "Flows created")),
    COUNTER(T, "limits", "flows_evicted", flows_evicted,
            LIVE("flows_evicted_total", "Flows evicted because the table was full")),
    COUNTER(T, "limits", "flows_retired", flows_retired,
            LIVE("flows_retired_total", "Flows retired after the idle timeout")),
    COUNTER(T, "limits", "flows_active", flows_active, GAUGE("flows_active", "Flows tracked now")),
    COUNTER(T, "limits", "peak_flows", peak_flows,
            GAUGE("flows_peak", "Most flows tracked at once")),
    COUNTER(T, "limits", "episodes_unlisted", episodes_unlisted, .flags = ROCE_FF_LIVE),
    COUNTER(T, "limits", "flows_unlisted", flows_unlisted),
    COUNTER(T, "limits", "verdicts_forced", verdicts_forced,
            LIVE("verdicts_forced_total", "Verdicts settled early because too many were open")),
    COUNTER(T, "limits", "ce_tracking_overflow", ce_tracking_overflow,
            LIVE("ce_tracking_overflow_total", "CE marks settled early (tracking bound)")),
    COUNTER(T, "limits", "cnp_tracking_overflow", cnp_tracking_overflow,
            LIVE("cnp_tracking_overflow_total",
                 "CNPs decided before their connection was known (tracking bound)")),
    COUNTER(T, "limits", "alloc_failures", alloc_failures,
            LIVE("alloc_failures_total", "Allocations that failed: state not kept")),
    COUNTER(T, "limits", "dcqcn_untracked", dcqcn_untracked,
            LIVE("dcqcn_untracked_total", "CNPs not evaluated because a bound was hit")),
    COUNTER(T, "limits", "gap_tracking_overflow", gap_tracking_overflow,
            LIVE("gap_tracking_overflow_total",
                 "PSN gaps settled early (bound): inferred or undetermined, never network loss")),
    COUNTER(T, "limits", "macs_untracked", macs_untracked,
            LIVE("macs_untracked_total", "Frames from source MACs beyond the MAC table")),
    COUNTER(T, "limits", "victims_untracked", victims_untracked,
            LIVE("victims_untracked_total",
                 "Request gaps not checked for pause victims: their pauses left the ring")),
    COUNTER(T, "limits", "pauses_unlisted", pauses_unlisted,
            LIVE("pauses_unlisted_total", "Pauses beyond the listed ones (pause_episodes)")),
    COUNTER(T, "limits", "incast_receivers_evicted", incast_receivers_evicted,
            LIVE("incast_receivers_evicted_total",
                 "Receivers dropped from the incast table because their set was full")),
    COUNTER(T, "limits", "incast_receivers_unlisted", incast_receivers_unlisted,
            LIVE("incast_receivers_unlisted_total",
                 "Receivers whose fan-in reached --incast-senders, beyond the listed ones")),
    COUNTER(T, "limits", "incast_senders_untracked", incast_senders_untracked,
            LIVE("incast_senders_untracked_total",
                 "Requests of senders beyond a receiver's sender slots (incast)")),
    COUNTER(T, "limits", "cnp_dsts_evicted", cnp_dsts_evicted,
            LIVE("cnp_dsts_evicted_total",
                 "CNP destinations dropped from their table (CNP pacing per destination)")),
    COUNTER(T, "limits", "udp_sports_untracked", udp_sports_untracked,
            LIVE("udp_sports_untracked_total",
                 "Request packets whose new UDP source port was not kept")),
    COUNTER(T, "", "connections", connections,
            .flags = ROCE_FF_LIVE | ROCE_FF_GAUGE | ROCE_FF_LIVE_ONLY,
            PROM("connections", "Connections (paired flows) tracked now")),
    COUNTER(T, "", NULL, unsupported_linktype, NOT_LIVE),
};
#undef T
const struct roce_fieldset roce_report_fields = FIELDSET(report_fields);

#define O struct roce_config
static const struct roce_field option_fields[] = {
    FIELD(O, "", "udp_port", ROCE_FT_UINT, udp_port, .option = "--udp-port"),
    FIELD(O, "", "cnp_window_us", ROCE_FT_US, cnp_window_ns, .option = "--cnp-window"),
    FIELD(O, "", "pmtu", ROCE_FT_UINT, pmtu, .option = "--pmtu"),
    FIELD(O, "", "max_flows", ROCE_FT_UINT, max_flows, .option = "--max-flows"),
    FIELD(O, "", "icrc_check", ROCE_FT_BOOL, check_icrc, .option = "--no-icrc"),
    FIELD(O, "", "vxlan_port", ROCE_FT_UINT, vxlan_port, .option = "VXLAN port"),
    FIELD(O, "", "link_speed_mbps", ROCE_FT_UINT, link_speed_mbps, .option = "--link-speed"),
    FIELD(O, "", "interval_us", ROCE_FT_US, pfc_window_ns, .option = "--interval"),
    FIELD(O, "", "storm_share_pct", ROCE_FT_UINT, pfc_storm_pct, .max = PCT_MAX,
          .option = "--storm-share"),
    FIELD(O, "", "dcqcn_window_us", ROCE_FT_US, dcqcn_window_ns, .option = "--dcqcn-window"),
    FIELD(O, "", "dcqcn_delay_us", ROCE_FT_US, dcqcn_delay_ns, .option = "--dcqcn-delay"),
    FIELD(O, "", "dcqcn_min_packets", ROCE_FT_UINT, dcqcn_min_packets, .option = "--dcqcn-packets"),
    FIELD(O, "", "dcqcn_min_cnps", ROCE_FT_UINT, dcqcn_min_cnps, .option = "--dcqcn-cnps"),
    FIELD(O, "", "dcqcn_reacted_pct", ROCE_FT_UINT, dcqcn_reacted_pct, .option = "--dcqcn-reacted"),
    FIELD(O, "", "dcqcn_ignored_pct", ROCE_FT_UINT, dcqcn_ignored_pct, .option = "--dcqcn-ignored"),
    FIELD(O, "", "ce_unanswered_min", ROCE_FT_UINT, ce_unanswered_min, .option = "--ce-unanswered"),
    FIELD(O, "", "cnp_unexplained_min", ROCE_FT_UINT, cnp_unexplained_min,
          .option = "--cnp-unexplained"),
    FIELD(O, "", "paused_share_pct", ROCE_FT_UINT, pfc_paused_pct, .max = PCT_MAX,
          .option = "--paused-share"),
    FIELD(O, "", "nak_rtt_us", ROCE_FT_US, nak_rtt_ns, .option = "--nak-rtt"),
    FIELD(O, "", "victim_window_us", ROCE_FT_US, victim_window_ns, .option = "--victim-window"),
    FIELD(O, "", "cnp_pacing_us", ROCE_FT_US, cnp_pacing_ns, .option = "--cnp-pacing"),
    FIELD(O, "", "incast_senders", ROCE_FT_UINT, incast_senders, .min = 2, .max = 32,
          .option = "--incast-senders"),
    FIELD(O, "", "incast_window_us", ROCE_FT_US, incast_window_ns, .option = "--incast-window"),
};
#undef O
const struct roce_fieldset roce_option_fields = FIELDSET(option_fields);

#define E struct roce_episode
static const struct roce_field episode_fields[] = {
    FIELD(E, "", "first_frame", ROCE_FT_UINT, first_frame, .merge = ROCE_MERGE_FRAME),
    FIELD(E, "", "last_frame", ROCE_FT_UINT, last_frame, .merge = ROCE_MERGE_FRAME),
    FIELD(E, "", "first_psn", ROCE_FT_UINT, first_psn, .max = PSN_MAX, .why = "not a 24-bit PSN"),
    FIELD(E, "", "last_psn", ROCE_FT_UINT, last_psn, .max = PSN_MAX, .why = "not a 24-bit PSN"),
    FIELD(E, "", "packets", ROCE_FT_UINT, packets, .merge = ROCE_MERGE_NONE),
    FIELD(E, "", "trigger", ROCE_FT_NAME, trigger, .names = &triggers),
    FIELD(E, "", "nak_frame", ROCE_FT_UINT, nak_frame, .merge = ROCE_MERGE_FRAME,
          .flags = ROCE_FF_NULL0, .when = offsetof(E, nak_frame)),
    CALL("", "nak_generation_us", roce_fcall_nak_generation, MEMBER(E, nak_generation_ns)),
    FIELD(E, "", "nak_to_resend_us", ROCE_FT_US, nak_to_resend_ns,
          .flags = ROCE_FF_NULL0 | ROCE_FF_SIGNED, .when = offsetof(E, nak_frame)),
    CALL("", "duration_us", roce_fcall_duration_us, MEMBER(E, last_ts_ns)),
    FIELD(E, "", NULL, ROCE_FT_UINT, flow_id, .merge = ROCE_MERGE_FLOW_ID),
};
#undef E
const struct roce_fieldset roce_episode_fields = FIELDSET(episode_fields);

#define F                  struct roce_flow_report
#define FLOW_COUNT(key, m) FIELD(F, "", key, ROCE_FT_UINT, m, .merge = ROCE_MERGE_NONE)
static const struct roce_field flow_fields[] = {
    CALL("", "src", roce_fcall_endpoint, MEMBER(F, key)), /* and dst, dest_qp */
    FIELD(F, "", "id", ROCE_FT_UINT, id, .merge = ROCE_MERGE_FLOW_ID),
    FIELD(F, "", "version", ROCE_FT_UINT, key.version, .min = ROCE_VERSION_1,
          .max = ROCE_VERSION_IB, .why = "not 1, 2 or 3"),
    FIELD(F, "", "transport", ROCE_FT_NAME, transport, .names = &transports),
    CALL("", "paired_with", roce_fcall_paired_with, .merge = ROCE_MERGE_NONE),
    FIELD(F, "", "paired_with_id", ROCE_FT_UINT, peer_id, .merge = ROCE_MERGE_FLOW_REF,
          .flags = ROCE_FF_NULL0, .when = offsetof(F, peer_id)),
    FIELD(F, "", "paired_by", ROCE_FT_NAME, paired_by, .names = &paired_by),
    FLOW_COUNT("packets", packets),
    FLOW_COUNT("bytes", bytes),
    FLOW_COUNT("payload_bytes", payload_bytes),
    FLOW_COUNT("request_packets", request_packets),
    FLOW_COUNT("response_packets", response_packets),
    FLOW_COUNT("cnp_packets", cnp_packets),
    CALL("", "opcodes", roce_fcall_opcodes, MEMBER(F, op_counts)),
    CALL("", "first_psn", roce_fcall_psn_range, .merge = ROCE_MERGE_NONE), /* and last_psn */
    FIELD(F, "", "first_frame", ROCE_FT_UINT, first_frame, .merge = ROCE_MERGE_FRAME),
    FIELD(F, "", "last_frame", ROCE_FT_UINT, last_frame, .merge = ROCE_MERGE_FRAME),
    FIELD(F, "", "first_time", ROCE_FT_SECONDS, first_ts_ns, .flags = ROCE_FF_RELATIVE),
    FIELD(F, "", "last_time", ROCE_FT_SECONDS, last_ts_ns, .flags = ROCE_FF_RELATIVE),
    FIELD(F, "", "pmtu", ROCE_FT_UINT, pmtu, .max = FLOW_PMTU_MAX, .why = "larger than 4096"),
    FLOW_COUNT("retransmitted_packets", retransmitted_packets),
    FLOW_COUNT("psn_gaps", gap_events),
    FLOW_COUNT("missing_psns", missing_psns),
    FIELD(F, "", "psn_gaps_by_class", ROCE_FT_COUNTS, gap_class_gaps, .names = &gap_classes),
    FIELD(F, "", "missing_psns_by_class", ROCE_FT_COUNTS, gap_class_psns, .names = &gap_classes),
    FLOW_COUNT("reordered_packets", reordered_packets),
    FLOW_COUNT("reorder_max_psns", reorder_max_psns),
    FIELD(F, "", "reorder_max_us", ROCE_FT_US, reorder_max_ns),
    FLOW_COUNT("responses_early", responses_early),
    FLOW_COUNT("psn_reuse", psn_reuse),
    FLOW_COUNT("read_response_gaps", read_response_gaps),
    FLOW_COUNT("episode_count", episodes),
    FIELD(F, "", "episodes_by_trigger", ROCE_FT_COUNTS, by_trigger, .names = &triggers),
    FLOW_COUNT("ce_marked", ce_marked),
    FLOW_COUNT("ce_answered", ce_answered),
    FLOW_COUNT("ce_unanswered", ce_unanswered),
    FIELD(F, "", "cnps", ROCE_FT_UINT, cnp_packets, .flags = ROCE_FF_ALIAS),
    FLOW_COUNT("cnps_for_flow", cnps_for_flow),
    FLOW_COUNT("cnps_matched", cnps_matched),
    FLOW_COUNT("cnps_unexplained", cnps_unexplained),
    FLOW_COUNT("cnps_carried_unexplained", cnps_carried_unexplained),
    FLOW_COUNT("cnps_ce_marked", cnps_ce_marked),
    FLOW_COUNT("becn_packets", becn_packets),
    FLOW_COUNT("bad_icrc", bad_icrc),
    FLOW_COUNT("bad_icrc_rewritten", bad_icrc_rewritten),
    FLOW_COUNT("bad_vcrc", bad_vcrc),
    FLOW_COUNT("cm_connections", cm_connections),
    CALL("", "udp_sports", roce_fcall_udp_sports, MEMBER(F, udp_sports)),
    CALL("", "dcqcn", roce_fcall_dcqcn, MEMBER(F, dcqcn)),
    FIELD(F, "", "priority", ROCE_FT_UINT, priority, .max = PRIORITY_MAX, .why = "not 0..7",
          .flags = ROCE_FF_NULL0, .when = offsetof(F, priority_frame)),
    FIELD(F, "", "priority_frame", ROCE_FT_UINT, priority_frame, .merge = ROCE_MERGE_FRAME,
          .flags = ROCE_FF_NULL0, .when = offsetof(F, priority_frame)),
    FIELD(F, "", "cnp_priority", ROCE_FT_UINT, cnp_priority, .max = PRIORITY_MAX, .why = "not 0..7",
          .flags = ROCE_FF_NULL0, .when = offsetof(F, cnp_priority_frame)),
    FIELD(F, "", "cnp_priority_frame", ROCE_FT_UINT, cnp_priority_frame, .merge = ROCE_MERGE_FRAME,
          .flags = ROCE_FF_NULL0, .when = offsetof(F, cnp_priority_frame)),
    FLOW_COUNT("pause_stalls", pause_stalls),
    FIELD(F, "", "pause_stall_us", ROCE_FT_US, pause_stall_ns),
    FLOW_COUNT("hol_stalls", hol_stalls),
    FIELD(F, "", "hol_stall_us", ROCE_FT_US, hol_stall_ns),
    CALL("", "pause_share_pct", roce_fcall_pause_share, .merge = ROCE_MERGE_NONE),
    FLOW_COUNT("cnp_gaps", cnp_gaps),
    FIELD(F, "", "cnp_min_gap_us", ROCE_FT_US, cnp_min_gap_ns, .flags = ROCE_FF_NULL0,
          .when = offsetof(F, cnp_gaps)),
    FLOW_COUNT("cnp_pair_gaps", cnp_pair_gaps),
    FIELD(F, "", "cnp_pair_min_gap_us", ROCE_FT_US, cnp_pair_min_gap_ns, .flags = ROCE_FF_NULL0,
          .when = offsetof(F, cnp_pair_gaps)),
    FLOW_COUNT("cnp_dst_gaps", cnp_dst_gaps),
    FIELD(F, "", "cnp_dst_min_gap_us", ROCE_FT_US, cnp_dst_min_gap_ns, .flags = ROCE_FF_NULL0,
          .when = offsetof(F, cnp_dst_gaps)),
    CALL("", "evidence", roce_fcall_evidence, .merge = ROCE_MERGE_NONE),
    FIELD(F, "", "naks", ROCE_FT_OBJECT, naks, .sub = &naks),
    CALL("", "ack_latency_us", roce_fcall_latency, MEMBER(F, ack_latency), .arg = ROCE_LATENCY_ACK),
    CALL("", "cnp_latency_us", roce_fcall_latency, MEMBER(F, cnp_latency), .arg = ROCE_LATENCY_CNP),
    CALL("", "episodes", roce_fcall_episodes, .merge = ROCE_MERGE_NONE),
};
#undef F
const struct roce_fieldset roce_flow_fields = FIELDSET(flow_fields);

#define C struct roce_report_conn
static const struct roce_field conn_fields[] = {
    CALL("", "requester", roce_fcall_endpoint_object, MEMBER(C, req)),
    FIELD(C, "", "requester_id", ROCE_FT_UINT, req_id, .merge = ROCE_MERGE_FLOW_ID),
    CALL("", "responder", roce_fcall_endpoint_object, MEMBER(C, resp)),
    FIELD(C, "", "responder_id", ROCE_FT_UINT, resp_id, .merge = ROCE_MERGE_FLOW_ID),
    FIELD(C, "", "paired_by", ROCE_FT_NAME, paired_by, .names = &paired_by),
};
#undef C
const struct roce_fieldset roce_conn_fields = FIELDSET(conn_fields);
