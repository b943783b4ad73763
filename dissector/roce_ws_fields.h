/*
 * roce_ws_fields.h - the plugin's header fields (roce.*), subtrees and
 * expert infos (roce.expert.*; expert abbreviations become filter fields too,
 * so they must not reuse a header field's abbreviation).
 */
#ifndef ROCE_WS_FIELDS_H
#define ROCE_WS_FIELDS_H

#include "ws_compat.h"

#include "roce_engine.h"

/* Header field ids (filled by roce_ws_fields_register). */
struct roce_ws_hf {
    /* flow and connection */
    int flow, flow_id, flow_src, flow_dst, flow_dest_qp;
    int endpoint, src_endpoint, dst_endpoint;
    int paired_qp, paired_by, transport, opcode, psn;
    /* BTH bits and packet facts Wireshark 4.0 does not show */
    int bth_fecn, bth_becn, cnp, truncated;
    int icrc_status, icrc_computed, icrc_wire;
    int vcrc_status, vcrc_computed, vcrc_wire; /* native InfiniBand */
    /* verdicts */
    int analysis, verdicts, flags;
    int expected_psn, psn_gap, retransmission, episode_frame, gbn_episode, trigger;
    int nak_frame, time_since_nak, psn_reuse;
    int nak, nak_code, rnr, rnr_timer, retransmitted_in;
    int ce, cnp_frame, ce_unanswered, cnp_for_frame, cnp_latency, cnp_unexplained;
    int read_response_gap, duplicate_read_response, malformed;
    int capture_loss, nak_generation;
    int gap_class, gap_reason, gap_decided_by, reordered, reorder_gap_frame, reorder_time;
    int after_response, length_understated, icrc_rewritten, icrc_valid_with;
    int dcqcn, dcqcn_rate_before, dcqcn_rate_after, dcqcn_ratio, dcqcn_verdict,
        dcqcn_cnps_evaluated;
    /* diagnoses */
    int diagnosis, diagnosis_severity, diagnosis_cause, diagnosis_count, diagnosis_subject;
};

/* Subtree ids. */
struct roce_ws_ett {
    gint roce, analysis, dcqcn, diagnosis;
};

/* Expert infos, one per anomaly. */
struct roce_ws_ei {
    expert_field psn_gap, retransmission, gbn_episode, nak, rnr, bad_icrc, bad_vcrc;
    expert_field ce, ce_unanswered, cnp, cnp_unexplained, psn_reuse;
    expert_field read_response_gap, duplicate_read_response, malformed;
    expert_field capture_loss;
    expert_field gap_undetermined, gap_reordered, reordered, after_response, length_understated;
    expert_field bad_icrc_rewritten;
    expert_field diag[ROCE_DIAG_KINDS]; /* by enum roce_diag_kind */
};

extern struct roce_ws_hf roce_ws_hf;
extern struct roce_ws_ett roce_ws_ett;
extern struct roce_ws_ei roce_ws_ei;

/* Register all of the above for protocol proto. */
void roce_ws_fields_register(int proto);

#endif
