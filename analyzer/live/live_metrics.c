/*
 * live_metrics.c - the live monitor's counter names (see live_metrics.h).
 * JSON keys follow the offline report (README "JSON report"); Prometheus
 * names follow its conventions: rocescope_ prefix, _total on counts,
 * seconds for times.
 */
#include "live_metrics.h"

#include <string.h>

#include "roce_engine.h"

#define T(field) offsetof(struct roce_totals, field)
#define P(field) offsetof(struct roce_pfc_prio, field)

const struct roce_metric roce_live_metrics[] = {
    {NULL, "packets", "packets_total", "Frames captured and analysed", T(packets), 0},
    {NULL, "roce_packets", "roce_packets_total", "Well-formed RoCE frames", T(roce_packets), 0},
    {NULL, "rocev1_packets", "rocev1_packets_total", "RoCEv1 frames", T(rocev1_packets), 0},
    {NULL, "rocev2_packets", "rocev2_packets_total", "RoCEv2 frames", T(rocev2_packets), 0},
    {NULL, "non_roce_packets", "non_roce_packets_total", "Frames that are not RoCE",
     T(non_roce_packets), 0},
    {NULL, "malformed_packets", "malformed_packets_total",
     "RoCE by port or EtherType, but malformed", T(malformed_packets), 0},
    {NULL, "truncated_packets", "truncated_packets_total", "RoCE frames cut by the snapshot length",
     T(truncated_packets), 0},
    {NULL, "no_bth_packets", "no_bth_packets_total", "RoCE frames whose BTH was not captured",
     T(no_bth_packets), 0},
    {NULL, "bytes", "bytes_total", "Bytes on the wire of the frames analysed", T(bytes), 0},
    {NULL, "request_packets", "request_packets_total", "RoCE request packets", T(request_packets),
     0},
    {NULL, "response_packets", "response_packets_total", "RoCE response packets",
     T(response_packets), 0},
    {NULL, "cnp_packets", "cnp_packets_total", "Congestion notification packets", T(cnp_packets),
     0},
    {"icrc", "good", "icrc_good_total", "Frames whose ICRC matches", T(icrc_good), 0},
    {"icrc", "bad", "icrc_bad_total", "Frames whose ICRC does not match", T(icrc_bad), 0},
    {"icrc", "unchecked", "icrc_unchecked_total", "Frames whose ICRC could not be checked",
     T(icrc_unchecked), 0},
    {"retransmission", "episodes", NULL, NULL, T(episodes), 0},
    {"retransmission", "packets", "retransmitted_packets_total", "Retransmitted request packets",
     T(retransmitted_packets), 0},
    {"psn_gaps", "events", "psn_gaps_total", "PSN gaps (packets lost before the capture point)",
     T(gap_events), 0},
    {"psn_gaps", "missing_psns", "missing_psns_total", "PSNs missing in the gaps", T(missing_psns),
     0},
    {NULL, "psn_reuse", "psn_reuse_total", "Requests reusing a PSN of an earlier READ's span",
     T(psn_reuse), 0},
    {"read_response_gaps", "events", "read_response_gaps_total", "Gaps in RDMA READ responses",
     T(read_response_gaps), 0},
    {"read_response_gaps", "missing_psns", "read_response_missing_psns_total",
     "PSNs missing in READ response gaps", T(read_response_missing), 0},
    {NULL, "aeth_reserved", "aeth_reserved_total", "AETHs with the reserved syndrome type",
     T(aeth_reserved), 0},
    {"ecn", "ce_marked", "ce_marked_total", "CE-marked RoCEv2 requests", T(ce_marked), 0},
    {"ecn", "ce_answered", "ce_answered_total", "CE marks answered by a CNP", T(ce_answered), 0},
    {"ecn", "ce_unanswered", "ce_unanswered_total", "CE marks with no CNP within the window",
     T(ce_unanswered), 0},
    {"ecn", "cnps", NULL, NULL, T(cnp_packets), 0},
    {"ecn", "cnps_matched", "cnps_matched_total", "CNPs matched to a CE mark", T(cnps_matched), 0},
    {"ecn", "cnps_unexplained", "cnps_unexplained_total", "CNPs with no CE mark to match",
     T(cnps_unexplained), 0},
    {"cm", "messages", "cm_messages_total", "CM MADs", T(cm_messages), 0},
    {"cm", "connections", "cm_connections_total", "CM connections set up (REQ/REP pairs)",
     T(cm_connections), 0},
    {"pfc", "pfc_frames", "mac_control_pfc_frames_total", "802.1Qbb PFC frames", T(pfc.pfc_frames),
     0},
    {"pfc", "pause_frames", "mac_control_pause_frames_total", "802.3x PAUSE frames",
     T(pfc.pause_frames), 0},
    {"pfc", "other_mac_control", "mac_control_other_frames_total", "Other MAC Control frames",
     T(pfc.other_mac_control), 0},
    {"limits", "flows_created", "flows_created_total", "Flows created", T(flows_created), 0},
    {"limits", "flows_evicted", "flows_evicted_total", "Flows evicted because the table was full",
     T(flows_evicted), 0},
    {"limits", "flows_retired", "flows_retired_total", "Flows retired after the idle timeout",
     T(flows_retired), 0},
    {"limits", "episodes_unlisted", NULL, NULL, T(episodes_unlisted), 0},
    {"limits", "verdicts_forced", "verdicts_forced_total",
     "Verdicts settled early because too many were open", T(verdicts_forced), 0},
    {"limits", "ce_tracking_overflow", "ce_tracking_overflow_total",
     "CE marks settled early (tracking bound)", T(ce_tracking_overflow), 0},
    {"limits", "flows_active", "flows_active", "Flows tracked now", T(flows_active), 1},
    {"limits", "peak_flows", "flows_peak", "Most flows tracked at once", T(peak_flows), 1},
    {NULL, "connections", "connections", "Connections (paired flows) tracked now", T(connections),
     1},
    {NULL, NULL, NULL, NULL, 0, 0},
};

const struct roce_pfc_metric roce_live_pfc_metrics[] = {
    {"frames", "frames_total", "frames that carried a pause time", P(frames), 0},
    {"xoff", "xoff_total", "XOFF: frames with a nonzero pause time", P(xoff), 0},
    {"xon", "xon_total", "XON: frames with pause time zero", P(xon), 0},
    {"quanta", "quanta_total", "pause quanta requested (512 bit times each)", P(quanta), 0},
    {"paused_us", "paused_seconds_total", "time paused", P(paused_ns), 1},
    {"storm_windows", "storm_windows_total", "intervals paused for more than the storm share",
     P(storm_windows), 0},
    {NULL, NULL, NULL, 0, 0},
};

uint64_t roce_metric_get(const void *base, size_t offset)
{
    uint64_t v;
    memcpy(&v, (const char *)base + offset, sizeof v);
    return v;
}
