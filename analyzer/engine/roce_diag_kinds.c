/*
 * roce_diag_kinds.c - every kind of diagnosis, declared once: its name,
 * severity, subject, cause, the plugin's expert group, what it is, the unit
 * of its subjects and the report keys of its figures (see roce_diag.h;
 * what each means: ANALYSIS.md "Diagnoses").
 *
 * Adding a kind: its enum value in roce_diag.h, its row here, its finding in
 * roce_diag.c (from report data only), its sentence in roce_diag_text.c,
 * ANALYSIS.md's table; the front ends need nothing else.
 */
#include <stddef.h>

#include "roce_diag.h"

#define FIG(key, m)                                                                                \
    {                                                                                              \
        key, offsetof(struct roce_diag_figures, m)                                                 \
    }

/* clang-format off */
static const struct roce_diag_kind_info kinds[ROCE_DIAG_KINDS] = {
    [ROCE_DIAG_CAPTURE] = {"capture", ROCE_SEV_NOTE, ROCE_SUBJ_FAULT, ROCE_CAUSE_CAPTURE,
        ROCE_GROUP_SEQUENCE, "Diagnosis: the capture is not a faithful record", "fault",
        {{NULL, 0}} /* by fault: fault_figures */},
    [ROCE_DIAG_PACKET_LOSS] = {"packet_loss", ROCE_SEV_WARNING, ROCE_SUBJ_FLOW, ROCE_CAUSE_TRAFFIC,
        ROCE_GROUP_SEQUENCE, "Diagnosis: packets lost in the network", "QP",
        {FIG("network_loss_gaps", gaps), FIG("missing_psns", missing_psns),
         FIG("nak_episodes", nak_episodes), FIG("implied_episodes", implied_episodes)}},
    [ROCE_DIAG_CAPTURE_LOSS] = {"capture_loss", ROCE_SEV_NOTE, ROCE_SUBJ_FLOW, ROCE_CAUSE_CAPTURE,
        ROCE_GROUP_SEQUENCE, "Diagnosis: the capture missed packets the network delivered", "QP",
        {FIG("gaps", gaps), FIG("missing_psns", missing_psns), FIG("inferred_gaps", inferred_gaps)}},
    [ROCE_DIAG_RETRANSMISSION_TIMEOUT] = {"retransmission_timeout", ROCE_SEV_WARNING,
        ROCE_SUBJ_FLOW, ROCE_CAUSE_TRAFFIC, ROCE_GROUP_SEQUENCE,
        "Diagnosis: resends after a timeout", "QP", {FIG("timeout_episodes", timeout_episodes)}},
    [ROCE_DIAG_RNR] = {"rnr", ROCE_SEV_WARNING, ROCE_SUBJ_FLOW, ROCE_CAUSE_TRAFFIC,
        ROCE_GROUP_RESPONSE_CODE, "Diagnosis: receiver not ready (RNR NAKs)", "QP", {{NULL, 0}}},
    [ROCE_DIAG_REMOTE_ERROR] = {"remote_error", ROCE_SEV_ERROR, ROCE_SUBJ_FLOW, ROCE_CAUSE_TRAFFIC,
        ROCE_GROUP_RESPONSE_CODE, "Diagnosis: the responder rejected requests", "QP",
        {FIG("invalid_request", invalid_request), FIG("remote_access_error", remote_access_error),
         FIG("remote_operational_or_rd", remote_other)}},
    [ROCE_DIAG_CNP_IGNORED] = {"cnp_ignored", ROCE_SEV_WARNING, ROCE_SUBJ_FLOW, ROCE_CAUSE_TRAFFIC,
        ROCE_GROUP_PROTOCOL, "Diagnosis: the sender does not slow down on CNPs (DCQCN)", "QP",
        {FIG("rate_before_mbps", rate_before_mbps), FIG("rate_after_mbps", rate_after_mbps),
         FIG("ratio_ppm", ratio_ppm)}},
    [ROCE_DIAG_CE_UNANSWERED] = {"ce_unanswered", ROCE_SEV_WARNING, ROCE_SUBJ_FLOW,
        ROCE_CAUSE_TRAFFIC, ROCE_GROUP_PROTOCOL, "Diagnosis: CE marks answered by no CNP", "QP",
        {FIG("ce_marked", ce_marked), FIG("ce_unanswered", ce_unanswered)}},
    [ROCE_DIAG_CE_SOME_UNANSWERED] = {"ce_some_unanswered", ROCE_SEV_NOTE, ROCE_SUBJ_FLOW,
        ROCE_CAUSE_TRAFFIC, ROCE_GROUP_PROTOCOL,
        "Diagnosis: CE marks left unanswered", "QP",
        {FIG("ce_marked", ce_marked), FIG("ce_answered", ce_answered),
         FIG("ce_unanswered", ce_unanswered)}},
    [ROCE_DIAG_CNP_UNEXPLAINED] = {"cnp_unexplained", ROCE_SEV_NOTE, ROCE_SUBJ_FLOW,
        ROCE_CAUSE_TRAFFIC, ROCE_GROUP_PROTOCOL, "Diagnosis: CNPs with no CE mark seen", "QP",
        {FIG("cnps", cnps), FIG("cnps_unexplained", cnps_unexplained)}},
    [ROCE_DIAG_SLOW_RECEIVER] = {"slow_receiver", ROCE_SEV_WARNING, ROCE_SUBJ_HOST,
        ROCE_CAUSE_TRAFFIC, ROCE_GROUP_PROTOCOL,
        "Diagnosis: a host NIC pauses the fabric (PFC/PAUSE)", "host",
        {FIG("pfc_frames", pfc_frames), FIG("pause_frames", pause_frames), FIG("ttl", ttl)}},
    [ROCE_DIAG_PFC_STORM] = {"pfc_storm", ROCE_SEV_WARNING, ROCE_SUBJ_PRIORITY,
        ROCE_CAUSE_TRAFFIC, ROCE_GROUP_PROTOCOL, "Diagnosis: PFC pause storm", "priority",
        {FIG("paused_ns", paused_ns), FIG("span_ns", span_ns)}},
    [ROCE_DIAG_PFC_PAUSED] = {"pfc_paused", ROCE_SEV_WARNING, ROCE_SUBJ_PRIORITY,
        ROCE_CAUSE_TRAFFIC, ROCE_GROUP_PROTOCOL,
        "Diagnosis: a priority paused a large share of the capture", "priority",
        {FIG("paused_ns", paused_ns), FIG("span_ns", span_ns), FIG("pfc_frames", pfc_frames)}},
    [ROCE_DIAG_ECMP_COLLISION] = {"ecmp_collision", ROCE_SEV_NOTE, ROCE_SUBJ_PATH,
        ROCE_CAUSE_TRAFFIC, ROCE_GROUP_PROTOCOL,
        "Diagnosis: QPs on one ECMP path (one UDP source port)", "path", {{NULL, 0}}},
    [ROCE_DIAG_ICRC_ERROR] = {"icrc_error", ROCE_SEV_ERROR, ROCE_SUBJ_FLOW, ROCE_CAUSE_TRAFFIC,
        ROCE_GROUP_CHECKSUM, "Diagnosis: bad ICRCs", "QP", {{NULL, 0}}},
    [ROCE_DIAG_PSN_REUSE] = {"psn_reuse", ROCE_SEV_ERROR, ROCE_SUBJ_FLOW, ROCE_CAUSE_TRAFFIC,
        ROCE_GROUP_SEQUENCE, "Diagnosis: requests reuse PSNs of a READ", "QP", {{NULL, 0}}},
    [ROCE_DIAG_GID_TYPE_MISMATCH] = {"gid_type_mismatch", ROCE_SEV_WARNING, ROCE_SUBJ_CONNECTION,
        ROCE_CAUSE_TRAFFIC, ROCE_GROUP_PROTOCOL,
        "Diagnosis: the two ends of a QP use different RoCE versions (GID types)", "QP",
        {FIG("request_version", request_version), FIG("response_version", response_version)}},
    [ROCE_DIAG_REORDERING] = {"reordering", ROCE_SEV_NOTE, ROCE_SUBJ_FLOW, ROCE_CAUSE_TRAFFIC,
        ROCE_GROUP_SEQUENCE, "Diagnosis: packets delivered out of order", "QP",
        {FIG("reordered", reordered), FIG("max_psns", max_psns), FIG("max_ns", max_ns)}},
    [ROCE_DIAG_LOSSY_PRIORITY] = {"lossy_priority", ROCE_SEV_WARNING, ROCE_SUBJ_PRIORITY,
        ROCE_CAUSE_TRAFFIC, ROCE_GROUP_PROTOCOL,
        "Diagnosis: RoCE data on a priority that PFC never pauses (a lossy class)", "priority",
        {FIG("request_packets", requests), FIG("flows", flows),
         FIG("paused_priority", paused_priority)}},
    [ROCE_DIAG_CNP_PRIORITY] = {"cnp_priority", ROCE_SEV_WARNING, ROCE_SUBJ_FLOW,
        ROCE_CAUSE_TRAFFIC, ROCE_GROUP_PROTOCOL,
        "Diagnosis: CNPs on a lower priority than the data they throttle", "QP",
        {FIG("cnps", cnps), FIG("priority", priority), FIG("cnp_priority", cnp_priority)}},
    [ROCE_DIAG_PAUSE_VICTIM] = {"pause_victim", ROCE_SEV_WARNING, ROCE_SUBJ_FLOW,
        ROCE_CAUSE_TRAFFIC, ROCE_GROUP_PROTOCOL,
        "Diagnosis: requests stalled by a host's pause meant for another host (head-of-line "
        "blocking)", "QP",
        {FIG("stalls", stalls), FIG("stall_ns", stall_ns), FIG("pause_stalls", pause_stalls),
         FIG("pause_stall_ns", pause_stall_ns), FIG("span_ns", span_ns)}},
    [ROCE_DIAG_CNP_UNPACED] = {"cnp_unpaced", ROCE_SEV_NOTE, ROCE_SUBJ_FLOW, ROCE_CAUSE_TRAFFIC,
        ROCE_GROUP_PROTOCOL, "Diagnosis: the responder answers every CE mark with a CNP (no "
        "CNP pacing)", "QP",
        {FIG("cnps", cnps), FIG("ce_marked", ce_marked), FIG("min_gap_ns", min_gap_ns),
         FIG("pair_min_gap_ns", pair_min_gap_ns)}},
    [ROCE_DIAG_INCAST] = {"incast", ROCE_SEV_WARNING, ROCE_SUBJ_RECEIVER, ROCE_CAUSE_TRAFFIC,
        ROCE_GROUP_PROTOCOL, "Diagnosis: incast (many senders at once to a congested receiver)",
        "receiver",
        {FIG("fanin", fanin), FIG("senders", senders), FIG("ce_marked", ce_marked),
         FIG("pauses", pauses), FIG("network_loss_gaps", lost), FIG("rate_mbps", rate_mbps),
         FIG("link_speed_mbps", link_speed_mbps)}},
    [ROCE_DIAG_CNP_CONGESTED] = {"cnp_congested", ROCE_SEV_WARNING, ROCE_SUBJ_FLOW,
        ROCE_CAUSE_TRAFFIC, ROCE_GROUP_PROTOCOL,
        "Diagnosis: CNPs that met congestion on their way (CE marked)", "QP",
        {FIG("cnps", cnps), FIG("ce_marked", ce_marked)}},
};
/* clang-format on */

/* The figures of each fault of the capture. */
static const struct roce_diag_figure fault_figures[ROCE_FAULTS][ROCE_DIAG_FIGURES_MAX] = {
    [ROCE_FAULT_LOSS] = {FIG("psns_kept", psns_kept), FIG("psns_expected", psns_expected),
                         FIG("capture_loss_gaps", gaps), FIG("inferred_gaps", inferred_gaps),
                         FIG("undetermined_gaps", undetermined_gaps), FIG("flows", flows)},
    [ROCE_FAULT_TRUNCATION] = {FIG("frames", frames), FIG("captured_min", caplen_min),
                               FIG("captured_max", caplen_max), FIG("declared_min", declared_min),
                               FIG("declared_max", declared_max)},
    [ROCE_FAULT_TIMESTAMPS] = {FIG("resolution_ns", resolution_ns),
                               FIG("latency_min_ns", latency_min_ns), FIG("repeated", frames),
                               FIG("roce_frames", of_frames)},
    [ROCE_FAULT_CLOCK] = {FIG("responses_early", responses_early), FIG("backwards", backwards)},
    [ROCE_FAULT_REWRITE] = {FIG("frames", frames), FIG("of_frames", of_frames)},
};

static const struct roce_diag_kind_info unknown = {
    "unknown",           ROCE_SEV_NOTE, ROCE_SUBJ_FLOW, ROCE_CAUSE_TRAFFIC,
    ROCE_GROUP_PROTOCOL, "Diagnosis",   "subject",      {{NULL, 0}}};

static const char *const severity_names[] = {"error", "warning", "note"};
static const char *const cause_names[ROCE_CAUSES] = {"traffic", "capture"};
static const char *const fault_names[ROCE_FAULTS] = {
    [ROCE_FAULT_LOSS] = "capture_loss",       [ROCE_FAULT_TRUNCATION] = "truncation",
    [ROCE_FAULT_TIMESTAMPS] = "timestamps",   [ROCE_FAULT_CLOCK] = "clock",
    [ROCE_FAULT_REWRITE] = "rewritten_field",
};

const struct roce_diag_kind_info *roce_diag_kind(unsigned kind)
{
    return kind < ROCE_DIAG_KINDS ? &kinds[kind] : &unknown;
}

const struct roce_diag_figure *roce_diag_figures_of(unsigned kind,
                                                    const struct roce_diag_subject *s)
{
    if (kind == ROCE_DIAG_CAPTURE)
        return s->fault < ROCE_FAULTS ? fault_figures[s->fault] : unknown.figures;
    return roce_diag_kind(kind)->figures;
}

const char *roce_diag_kind_name(unsigned kind)
{
    return roce_diag_kind(kind)->name;
}

unsigned roce_diag_kind_severity(unsigned kind)
{
    return roce_diag_kind(kind)->severity;
}

const char *roce_diag_severity_name(unsigned sev)
{
    return sev <= ROCE_SEV_NOTE ? severity_names[sev] : "unknown";
}

const char *roce_diag_cause_name(unsigned cause)
{
    return cause < ROCE_CAUSES ? cause_names[cause] : "unknown";
}

const char *roce_capture_fault_name(unsigned fault)
{
    return fault < ROCE_FAULTS ? fault_names[fault] : "unknown";
}

int roce_diag_kind_names_flow(unsigned kind)
{
    unsigned subject = roce_diag_kind(kind)->subject;
    return subject == ROCE_SUBJ_FLOW || subject == ROCE_SUBJ_CONNECTION;
}
