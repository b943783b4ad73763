/*
 * roce_ws_fields.c - the plugin's header fields, subtrees and expert infos.
 *
 * Names and meanings are the ones dissector/README.md ("Fields", "Expert
 * info, Info column") promises; reference fields are FT_FRAMENUM so a click
 * jumps to the related frame. Verdict names and their details mean what
 * analyzer/engine/ANALYSIS.md says; roce.analysis.* shows a detail only where
 * rocescope --events writes it (analyzer/report/REPORT.md, "Events").
 */
#include "roce_ws_fields.h"

struct roce_ws_hf roce_ws_hf;
struct roce_ws_ett roce_ws_ett = {-1, -1, -1, -1};
struct roce_ws_ei roce_ws_ei; /* every member set to EI_INIT before registration */

/* Every expert field unregistered (EI_INIT), as Wireshark expects before
 * expert_register_field_array(). */
static void ei_init(void)
{
    expert_field *e = (expert_field *)(void *)&roce_ws_ei;
    for (size_t i = 0; i < sizeof roce_ws_ei / sizeof *e; i++)
        e[i] = (expert_field)EI_INIT;
}

#define RELATED(kind) FRAMENUM_TYPE(kind)

/* Register an array of fields; ids start at -1, as Wireshark expects of an
 * unregistered field. */
static void register_hf(int proto, hf_register_info *hf, int n)
{
    for (int i = 0; i < n; i++)
        *hf[i].p_id = -1;
    proto_register_field_array(proto, hf, n);
}

/* Fields of the flow, the connection and the packet. */
static void register_packet_fields(int proto)
{
    static hf_register_info hf[] = {
        {&roce_ws_hf.flow,
         {"Flow", "roce.flow", FT_STRING, BASE_NONE, NULL, 0x0,
          "This direction of the queue pair: source -> destination, destination QP", HFILL}},
        {&roce_ws_hf.flow_id,
         {"Flow ID", "roce.flow.id", FT_UINT64, BASE_DEC, NULL, 0x0,
          "The engine's flow number (the ID of -z roce,flows and Statistics > RoCE Flows)", HFILL}},
        {&roce_ws_hf.endpoint,
         {"Endpoint", "roce.endpoint", FT_STRING, BASE_NONE, NULL, 0x0,
          "Either end of the queue pair, \"address QP 0x...\" (\"QP ?\" while the source QP is "
          "not known): the key of Statistics > Conversations / Endpoints > RoCE",
          HFILL}},
        {&roce_ws_hf.src_endpoint,
         {"Source endpoint", "roce.src_endpoint", FT_STRING, BASE_NONE, NULL, 0x0,
          "Source address and source QP (the paired flow's destination QP)", HFILL}},
        {&roce_ws_hf.dst_endpoint,
         {"Destination endpoint", "roce.dst_endpoint", FT_STRING, BASE_NONE, NULL, 0x0,
          "Destination address and destination QP", HFILL}},
        {&roce_ws_hf.flow_src,
         {"Source", "roce.flow.src", FT_STRING, BASE_NONE, NULL, 0x0,
          "Source IP address (RoCEv2) or GID (RoCEv1)", HFILL}},
        {&roce_ws_hf.flow_dst,
         {"Destination", "roce.flow.dst", FT_STRING, BASE_NONE, NULL, 0x0,
          "Destination IP address (RoCEv2) or GID (RoCEv1)", HFILL}},
        {&roce_ws_hf.flow_dest_qp,
         {"Destination QP", "roce.flow.dest_qp", FT_UINT24, BASE_HEX, NULL, 0x0,
          "BTH destination queue pair", HFILL}},
        {&roce_ws_hf.paired_qp,
         {"Paired QP", "roce.paired_qp", FT_UINT24, BASE_HEX, NULL, 0x0,
          "Destination QP of the other direction of this connection (this flow's source QP)",
          HFILL}},
        {&roce_ws_hf.paired_by,
         {"Paired by", "roce.paired_by", FT_STRING, BASE_NONE, NULL, 0x0,
          "How the two directions were paired: cm (CM REQ/REP), psn (PSN ranges), cnp", HFILL}},
        {&roce_ws_hf.transport,
         {"Transport", "roce.transport", FT_STRING, BASE_NONE, NULL, 0x0,
          "Transport service of the flow: RC, UC, RD, UD, XRC, or CNP for a flow of CNPs only",
          HFILL}},
        {&roce_ws_hf.opcode,
         {"Opcode", "roce.opcode", FT_UINT8, BASE_HEX, NULL, 0x0, "BTH opcode", HFILL}},
        {&roce_ws_hf.psn,
         {"PSN", "roce.psn", FT_UINT24, BASE_DEC, NULL, 0x0, "BTH packet sequence number", HFILL}},
        {&roce_ws_hf.bth_fecn,
         {"FECN", "roce.bth.fecn", FT_BOOLEAN, 8, NULL, ROCE_BTH_FECN_BIT,
          "BTH forward explicit congestion notification", HFILL}},
        {&roce_ws_hf.bth_becn,
         {"BECN", "roce.bth.becn", FT_BOOLEAN, 8, NULL, ROCE_BTH_BECN_BIT,
          "BTH backward explicit congestion notification", HFILL}},
        {&roce_ws_hf.cnp,
         {"Congestion Notification Packet", "roce.cnp", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
          "CNP (BTH opcode 0x81 on RoCEv2, 0x80 on native InfiniBand)", HFILL}},
        {&roce_ws_hf.truncated,
         {"Header-only frame", "roce.truncated", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
          "The capture kept part of the packet only; analysed as far as its headers allow", HFILL}},
        {&roce_ws_hf.icrc_status,
         {"ICRC", "roce.icrc.status", FT_STRING, BASE_NONE, NULL, 0x0,
          "Invariant CRC: good, bad, or unchecked (not all captured, or checking is off)", HFILL}},
        {&roce_ws_hf.icrc_computed,
         {"Computed ICRC", "roce.icrc.computed", FT_UINT32, BASE_HEX, NULL, 0x0,
          "The ICRC the packet should carry", HFILL}},
        {&roce_ws_hf.icrc_rewritten,
         {"ICRC valid with another", "roce.icrc.rewritten", FT_STRING, BASE_NONE, NULL, 0x0,
          "The header field (udp_sport, ipv4_id) whose other value makes this bad ICRC good: "
          "rewritten on the way, by a sniffer or a mirror",
          HFILL}},
        {&roce_ws_hf.icrc_valid_with,
         {"ICRC valid with value", "roce.icrc.valid_with", FT_UINT16, BASE_DEC, NULL, 0x0,
          "The value of that field the ICRC was computed with (as sent)", HFILL}},
        {&roce_ws_hf.icrc_wire,
         {"ICRC on the wire", "roce.icrc.wire", FT_UINT32, BASE_HEX, NULL, 0x0,
          "The ICRC the packet carries", HFILL}},
        {&roce_ws_hf.vcrc_status,
         {"VCRC", "roce.vcrc.status", FT_STRING, BASE_NONE, NULL, 0x0,
          "Variant CRC of a native InfiniBand packet: good, bad, or unchecked (not captured, "
          "or checking is off)",
          HFILL}},
        {&roce_ws_hf.vcrc_computed,
         {"Computed VCRC", "roce.vcrc.computed", FT_UINT16, BASE_HEX, NULL, 0x0,
          "The VCRC the packet should carry", HFILL}},
        {&roce_ws_hf.vcrc_wire,
         {"VCRC on the wire", "roce.vcrc.wire", FT_UINT16, BASE_HEX, NULL, 0x0,
          "The VCRC the packet carries", HFILL}},
    };
    register_hf(proto, hf, array_length(hf));
}

/* Fields of the sequence analysis: gaps, retransmissions, go-back-N, NAKs. */
static void register_sequence_fields(int proto)
{
    static hf_register_info hf[] = {
        {&roce_ws_hf.analysis,
         {"Verdicts", "roce.analysis", FT_NONE, BASE_NONE, NULL, 0x0,
          "The engine's verdicts on this frame", HFILL}},
        {&roce_ws_hf.verdicts,
         {"Verdict names", "roce.analysis.verdicts", FT_STRING, BASE_NONE, NULL, 0x0,
          "Comma-separated verdict names, as in rocescope --events", HFILL}},
        {&roce_ws_hf.flags,
         {"Verdict bits", "roce.analysis.flags", FT_UINT32, BASE_HEX, NULL, 0x0,
          "Verdict bits (enum roce_verdict_flag)", HFILL}},
        {&roce_ws_hf.expected_psn,
         {"Expected PSN", "roce.analysis.expected_psn", FT_UINT24, BASE_DEC, NULL, 0x0,
          "The PSN this flow should have carried next", HFILL}},
        {&roce_ws_hf.psn_gap,
         {"PSN gap", "roce.analysis.psn_gap", FT_UINT32, BASE_DEC, NULL, 0x0,
          "PSNs missing at the capture point before this request: lost before it, or missed by "
          "the capture (roce.analysis.capture_loss)",
          HFILL}},
        {&roce_ws_hf.capture_loss,
         {"Missed by the capture", "roce.analysis.capture_loss", FT_NONE, BASE_NONE, NULL, 0x0,
          "The PSNs of this gap crossed the wire and the capture missed them (not a network "
          "loss): the responder acknowledged them, or the requester sent on past them for "
          "longer than a NAK round trip with no NAK or resend (roce.analysis.gap_class)",
          HFILL}},
        {&roce_ws_hf.gap_class,
         {"Gap class", "roce.analysis.gap_class", FT_STRING, BASE_NONE, NULL, 0x0,
          "What this PSN gap was: network_loss, capture_loss, capture_loss_inferred, reordered "
          "or undetermined",
          HFILL}},
        {&roce_ws_hf.gap_reason,
         {"Undetermined because", "roce.analysis.gap_reason", FT_STRING, BASE_NONE, NULL, 0x0,
          "Why nothing decided the gap: capture_ended, go_back, no_acks, tracking_bound", HFILL}},
        {&roce_ws_hf.gap_decided_by,
         {"Gap decided by frame", "roce.analysis.gap_decided_by", FT_FRAMENUM, BASE_NONE,
          RELATED(FT_FRAMENUM_NONE), 0x0,
          "The frame that showed what the gap was: the NAK, the resend, the ACK, the late packet "
          "or the requester's last new request",
          HFILL}},
        {&roce_ws_hf.reordered,
         {"Out of order by (PSNs)", "roce.analysis.reordered", FT_UINT32, BASE_DEC, NULL, 0x0,
          "A missing PSN arriving late, before any NAK or resend: delivered out of order, not "
          "resent; how far behind the highest PSN it came",
          HFILL}},
        {&roce_ws_hf.reorder_gap_frame,
         {"Skipped by the gap in frame", "roce.analysis.reorder_gap_frame", FT_FRAMENUM, BASE_NONE,
          RELATED(FT_FRAMENUM_NONE), 0x0, "The gap that this packet's PSN was missing from",
          HFILL}},
        {&roce_ws_hf.reorder_time,
         {"Late by", "roce.analysis.reorder_time", FT_RELATIVE_TIME, BASE_NONE, NULL, 0x0,
          "From its gap to this packet", HFILL}},
        {&roce_ws_hf.after_response,
         {"Captured after its response in frame", "roce.analysis.after_response", FT_FRAMENUM,
          BASE_NONE, RELATED(FT_FRAMENUM_ACK), 0x0,
          "A response acknowledging this request was captured before it: the clocks of merged "
          "captures disagree, or the files are out of order",
          HFILL}},
        {&roce_ws_hf.length_understated,
         {"Original length understated", "roce.analysis.length_understated", FT_BOOLEAN, BASE_NONE,
          NULL, 0x0,
          "Captured short of what its IP/UDP lengths declare, though its original length says "
          "it was captured whole: the sniffer wrote the captured length there",
          HFILL}},
        {&roce_ws_hf.retransmission,
         {"Retransmission", "roce.analysis.retransmission", FT_NONE, BASE_NONE, NULL, 0x0,
          "A request whose PSN is not after the highest PSN already used on its flow", HFILL}},
        {&roce_ws_hf.episode_frame,
         {"Go-back-N episode began in frame", "roce.analysis.episode_frame", FT_FRAMENUM, BASE_NONE,
          RELATED(FT_FRAMENUM_RETRANS_PREV), 0x0,
          "First frame of the go-back-N episode this retransmission belongs to", HFILL}},
        {&roce_ws_hf.gbn_episode,
         {"Go-back-N episode starts", "roce.analysis.gbn_episode", FT_NONE, BASE_NONE, NULL, 0x0,
          "First packet of a go-back-N episode", HFILL}},
        {&roce_ws_hf.trigger,
         {"Episode trigger", "roce.analysis.trigger", FT_STRING, BASE_NONE, NULL, 0x0,
          "What started the episode: nak, rnr, implied (READ response gap) or timeout", HFILL}},
        {&roce_ws_hf.nak_frame,
         {"Triggering NAK in frame", "roce.analysis.nak_frame", FT_FRAMENUM, BASE_NONE, NULL, 0x0,
          "The NAK (or RNR NAK) that started this go-back-N episode", HFILL}},
        {&roce_ws_hf.time_since_nak,
         {"Time since the NAK", "roce.analysis.time_since_nak", FT_RELATIVE_TIME, BASE_NONE, NULL,
          0x0, "From the triggering NAK to this first resent packet", HFILL}},
        {&roce_ws_hf.psn_reuse,
         {"PSN reused from the READ in frame", "roce.analysis.psn_reuse", FT_FRAMENUM, BASE_NONE,
          NULL, 0x0, "This request reuses a PSN of the span of the RDMA READ request in that frame",
          HFILL}},
        {&roce_ws_hf.nak,
         {"NAK", "roce.analysis.nak", FT_STRING, BASE_NONE, NULL, 0x0, "NAK code, in words",
          HFILL}},
        {&roce_ws_hf.nak_code,
         {"NAK code", "roce.analysis.nak_code", FT_STRING, BASE_NONE, NULL, 0x0,
          "NAK code identifier, as in rocescope --events", HFILL}},
        {&roce_ws_hf.rnr,
         {"RNR NAK", "roce.analysis.rnr", FT_STRING, BASE_NONE, NULL, 0x0,
          "Receiver-not-ready NAK and its timer, in words", HFILL}},
        {&roce_ws_hf.rnr_timer,
         {"RNR timer code", "roce.analysis.rnr_timer", FT_UINT8, BASE_DEC, NULL, 0x0,
          "The 5-bit RNR timer code of the AETH", HFILL}},
        {&roce_ws_hf.nak_generation,
         {"NAK generation time", "roce.analysis.nak_generation", FT_RELATIVE_TIME, BASE_NONE, NULL,
          0x0,
          "From the earliest request captured before this NAK with a PSN after the NAK's (the "
          "out-of-sequence arrival that made the responder NAK) to this NAK",
          HFILL}},
        {&roce_ws_hf.retransmitted_in,
         {"Resend began in frame", "roce.analysis.retransmitted_in", FT_FRAMENUM, BASE_NONE,
          RELATED(FT_FRAMENUM_RETRANS_NEXT), 0x0,
          "The frame where the requester began resending after this NAK", HFILL}},
        {&roce_ws_hf.read_response_gap,
         {"READ response gap", "roce.analysis.read_response_gap", FT_UINT32, BASE_DEC, NULL, 0x0,
          "READ response PSNs missing before this response", HFILL}},
        {&roce_ws_hf.duplicate_read_response,
         {"Duplicate READ response", "roce.analysis.duplicate_read_response", FT_NONE, BASE_NONE,
          NULL, 0x0, "READ response PSN before the expected one", HFILL}},
        {&roce_ws_hf.malformed,
         {"Malformed", "roce.analysis.malformed", FT_STRING, BASE_NONE, NULL, 0x0,
          "RoCE by port or EtherType, but the packet cannot be decoded: the reason", HFILL}},
    };
    register_hf(proto, hf, array_length(hf));
}

/* Fields of the ECN analysis: CE marks and CNPs. */
static void register_ecn_fields(int proto)
{
    static hf_register_info hf[] = {
        {&roce_ws_hf.ce,
         {"CE mark", "roce.analysis.ce", FT_NONE, BASE_NONE, NULL, 0x0,
          "Request marked Congestion Experienced (IP ECN 11)", HFILL}},
        {&roce_ws_hf.cnp_frame,
         {"Answered by the CNP in frame", "roce.analysis.cnp_frame", FT_FRAMENUM, BASE_NONE,
          RELATED(FT_FRAMENUM_RESPONSE), 0x0, "The CNP that answered this CE mark", HFILL}},
        {&roce_ws_hf.ce_unanswered,
         {"CE mark unanswered", "roce.analysis.ce_unanswered", FT_NONE, BASE_NONE, NULL, 0x0,
          "No CNP of this connection within the CNP window before or after this CE mark", HFILL}},
        {&roce_ws_hf.cnp_for_frame,
         {"CNP for the CE mark in frame", "roce.analysis.cnp_for_frame", FT_FRAMENUM, BASE_NONE,
          RELATED(FT_FRAMENUM_REQUEST), 0x0, "The CE-marked request this CNP answers", HFILL}},
        {&roce_ws_hf.cnp_latency,
         {"CE mark to CNP", "roce.analysis.cnp_latency", FT_RELATIVE_TIME, BASE_NONE, NULL, 0x0,
          "Time from the CE-marked request to this CNP", HFILL}},
        {&roce_ws_hf.cnp_unexplained,
         {"CNP unexplained", "roce.analysis.cnp_unexplained", FT_NONE, BASE_NONE, NULL, 0x0,
          "No CE-marked request of this connection within the CNP window before this CNP", HFILL}},
        {&roce_ws_hf.dcqcn,
         {"DCQCN reaction", "roce.analysis.dcqcn", FT_NONE, BASE_NONE, NULL, 0x0,
          "The request flow's rate in the windows before and after this CNP", HFILL}},
        {&roce_ws_hf.dcqcn_rate_before,
         {"Rate before the CNP (Gb/s)", "roce.analysis.dcqcn.rate_before", FT_DOUBLE, BASE_NONE,
          NULL, 0x0, "The flow's own requests in the window before the CNP", HFILL}},
        {&roce_ws_hf.dcqcn_rate_after,
         {"Rate after the CNP (Gb/s)", "roce.analysis.dcqcn.rate_after", FT_DOUBLE, BASE_NONE, NULL,
          0x0, "The flow's own requests in the window after the CNP", HFILL}},
        {&roce_ws_hf.dcqcn_ratio,
         {"Rate ratio", "roce.analysis.dcqcn.ratio", FT_DOUBLE, BASE_NONE, NULL, 0x0,
          "Rate after / rate before", HFILL}},
        {&roce_ws_hf.dcqcn_verdict,
         {"Flow's DCQCN verdict", "roce.analysis.dcqcn.verdict", FT_STRING, BASE_NONE, NULL, 0x0,
          "Of the request flow, over all its evaluated CNPs: reacted, ignored or undetermined",
          HFILL}},
        {&roce_ws_hf.dcqcn_cnps_evaluated,
         {"CNPs evaluated for the flow", "roce.analysis.dcqcn.cnps_evaluated", FT_UINT64, BASE_DEC,
          NULL, 0x0, "The CNPs the flow's DCQCN verdict rests on", HFILL}},
    };
    register_hf(proto, hf, array_length(hf));
}

/* Fields of the diagnoses (on their evidence frames). */
static void register_diagnosis_fields(int proto)
{
    static hf_register_info hf[] = {
        {&roce_ws_hf.diagnosis,
         {"Diagnosis", "roce.diagnosis", FT_STRING, BASE_NONE, NULL, 0x0,
          "A finding this frame is evidence of: its kind (capture, packet_loss, capture_loss, "
          "retransmission_timeout, rnr, remote_error, cnp_ignored, ce_unanswered, "
          "ce_some_unanswered, cnp_unexplained, slow_receiver, pfc_storm, pfc_paused, "
          "ecmp_collision, icrc_error, psn_reuse, gid_type_mismatch, reordering, "
          "lossy_priority, cnp_priority, pause_victim, cnp_unpaced, incast, cnp_congested)",
          HFILL}},
        {&roce_ws_hf.diagnosis_severity,
         {"Severity", "roce.diagnosis.severity", FT_STRING, BASE_NONE, NULL, 0x0,
          "error, warning or note", HFILL}},
        {&roce_ws_hf.diagnosis_cause,
         {"Cause", "roce.diagnosis.cause", FT_STRING, BASE_NONE, NULL, 0x0,
          "traffic, or capture (a finding the capture itself explains)", HFILL}},
        {&roce_ws_hf.diagnosis_subject,
         {"Subject", "roce.diagnosis.subject", FT_STRING, BASE_NONE, NULL, 0x0,
          "The subject of the finding this frame is evidence of, with its figures", HFILL}},
        {&roce_ws_hf.diagnosis_count,
         {"Count", "roce.diagnosis.count", FT_UINT64, BASE_DEC, NULL, 0x0,
          "How many of what the finding counts (gaps, CNPs, PFC frames...: its definition's "
          "count), over all its subjects (this frame's subject: in Subject)",
          HFILL}},
    };
    register_hf(proto, hf, array_length(hf));
}

/* One expert info per diagnosis kind, from the engine's table of kinds:
 * its name, group, severity and text (registered once, kept for the life
 * of the program). */
static void register_diag_experts(expert_module_t *m)
{
    static const int severity[] = {
        [ROCE_SEV_ERROR] = PI_ERROR, [ROCE_SEV_WARNING] = PI_WARN, [ROCE_SEV_NOTE] = PI_NOTE};
    static const int group[] = {
        [ROCE_GROUP_SEQUENCE] = PI_SEQUENCE,   [ROCE_GROUP_RESPONSE_CODE] = PI_RESPONSE_CODE,
        [ROCE_GROUP_PROTOCOL] = PI_PROTOCOL,   [ROCE_GROUP_CHECKSUM] = PI_CHECKSUM,
        [ROCE_GROUP_MALFORMED] = PI_MALFORMED,
    };
    static ei_register_info ei[ROCE_DIAG_KINDS];
    for (unsigned k = 0; k < ROCE_DIAG_KINDS; k++) {
        const struct roce_diag_kind_info *info = roce_diag_kind(k);
        ei[k] = (ei_register_info){&roce_ws_ei.diag[k],
                                   {g_strdup_printf("roce.expert.diagnosis.%s", info->name),
                                    group[info->group], severity[info->severity], info->title,
                                    EXPFILL}};
    }
    expert_register_field_array(m, ei, array_length(ei));
}

static void register_experts(int proto)
{
    static ei_register_info ei[] = {
        {&roce_ws_ei.psn_gap,
         {"roce.expert.psn_gap", PI_SEQUENCE, PI_WARN,
          "PSN gap lost in the network: a NAK or a resend of its PSNs shows it", EXPFILL}},
        {&roce_ws_ei.gap_undetermined,
         {"roce.expert.gap_undetermined", PI_SEQUENCE, PI_NOTE,
          "PSN gap undetermined: nothing showed whether the network lost it or the capture "
          "missed it",
          EXPFILL}},
        {&roce_ws_ei.gap_reordered,
         {"roce.expert.gap_reordered", PI_SEQUENCE, PI_NOTE,
          "PSN gap filled by late packets: reordered, not lost", EXPFILL}},
        {&roce_ws_ei.reordered,
         {"roce.expert.reordered", PI_SEQUENCE, PI_NOTE,
          "Out of order: a missing PSN arriving late, before any NAK or resend", EXPFILL}},
        {&roce_ws_ei.after_response,
         {"roce.expert.after_response", PI_SEQUENCE, PI_NOTE,
          "Captured after the response that acknowledges it: clocks or file order disagree",
          EXPFILL}},
        {&roce_ws_ei.length_understated,
         {"roce.expert.length_understated", PI_MALFORMED, PI_NOTE,
          "Cut short of its IP/UDP length, though the original length says not: the sniffer "
          "wrote the captured length as the original",
          EXPFILL}},
        {&roce_ws_ei.bad_icrc_rewritten,
         {"roce.expert.bad_icrc_rewritten", PI_CHECKSUM, PI_NOTE,
          "Bad ICRC valid with another value of a header field: rewritten on the way, not "
          "corrupted",
          EXPFILL}},
        {&roce_ws_ei.capture_loss,
         {"roce.expert.capture_loss", PI_SEQUENCE, PI_NOTE,
          "PSN gap missed by the capture: these PSNs crossed the wire (not lost)", EXPFILL}},
        {&roce_ws_ei.retransmission,
         {"roce.expert.retransmission", PI_SEQUENCE, PI_NOTE, "Retransmission (go-back-N)",
          EXPFILL}},
        {&roce_ws_ei.gbn_episode,
         {"roce.expert.gbn_episode", PI_SEQUENCE, PI_NOTE, "Go-back-N episode starts", EXPFILL}},
        {&roce_ws_ei.nak, {"roce.expert.nak", PI_SEQUENCE, PI_WARN, "NAK", EXPFILL}},
        {&roce_ws_ei.rnr, {"roce.expert.rnr", PI_SEQUENCE, PI_WARN, "RNR NAK", EXPFILL}},
        {&roce_ws_ei.bad_icrc,
         {"roce.expert.bad_icrc", PI_SEQUENCE, PI_WARN, "Bad ICRC: the packet was corrupted",
          EXPFILL}},
        {&roce_ws_ei.bad_vcrc,
         {"roce.expert.bad_vcrc", PI_SEQUENCE, PI_WARN,
          "Bad VCRC: the InfiniBand packet was corrupted on its last link", EXPFILL}},
        {&roce_ws_ei.ce, {"roce.expert.ce", PI_SEQUENCE, PI_NOTE, "CE mark", EXPFILL}},
        {&roce_ws_ei.ce_unanswered,
         {"roce.expert.ce_unanswered", PI_SEQUENCE, PI_WARN,
          "CE mark unanswered: no CNP within the CNP window", EXPFILL}},
        {&roce_ws_ei.cnp,
         {"roce.expert.cnp", PI_SEQUENCE, PI_NOTE, "CNP answering a CE mark", EXPFILL}},
        {&roce_ws_ei.cnp_unexplained,
         {"roce.expert.cnp_unexplained", PI_SEQUENCE, PI_NOTE,
          "CNP unexplained: no CE mark of its connection within the window", EXPFILL}},
        {&roce_ws_ei.psn_reuse,
         {"roce.expert.psn_reuse", PI_SEQUENCE, PI_WARN,
          "PSN reuse: a PSN of an earlier READ request's span", EXPFILL}},
        {&roce_ws_ei.read_response_gap,
         {"roce.expert.read_response_gap", PI_SEQUENCE, PI_WARN,
          "READ response gap: responses lost before the capture point", EXPFILL}},
        {&roce_ws_ei.duplicate_read_response,
         {"roce.expert.duplicate_read_response", PI_SEQUENCE, PI_NOTE, "Duplicate READ response",
          EXPFILL}},
        /* Malformed is Wireshark's own group: it also sets _ws.malformed. */
        {&roce_ws_ei.malformed,
         {"roce.expert.malformed", PI_MALFORMED, PI_WARN, "Malformed RoCE packet", EXPFILL}},
    };
    expert_module_t *m = expert_register_protocol(proto);
    expert_register_field_array(m, ei, array_length(ei));
    register_diag_experts(m);
}

void roce_ws_fields_register(int proto)
{
    static gint *ett[] = {
        &roce_ws_ett.roce,
        &roce_ws_ett.analysis,
        &roce_ws_ett.dcqcn,
        &roce_ws_ett.diagnosis,
    };
    ei_init();
    register_packet_fields(proto);
    register_sequence_fields(proto);
    register_ecn_fields(proto);
    register_diagnosis_fields(proto);
    proto_register_subtree_array(ett, array_length(ett));
    register_experts(proto);
}
