/*
 * roce_ws_render.c - one frame's record as Wireshark shows it: the "RoCE
 * analysis" tree, expert infos and Info-column labels (see roce_ws.h).
 *
 * Nothing here decides anything: every value comes from the engine's
 * verdict or decode, stored by roce_ws_frames.c. A detail is shown where
 * rocescope --events writes it, so the two front ends read the same.
 *
 *   RoCE analysis (rocescope)
 *       Flow: 10.0.0.1 -> 10.0.0.2 QP 0x000012      roce.flow (.src .dst .dest_qp hidden)
 *       Paired QP: 0x000011 (paired by psn)        roce.paired_qp (roce.paired_by hidden)
 *       Transport, Opcode, PSN, FECN, BECN, CNP, ICRC, Header-only frame
 *       Verdicts: gap,retransmission                roce.analysis (+ its details)
 *       Diagnosis: packet_loss (warning, 1): ...    roce.diagnosis (roce_ws_diag.c)
 */
#include "roce_ws.h"
#include "roce_ws_fields.h"

#define RNR_10US_PER_MS 100
#define MBPS_PER_GBPS   1000.0
#define PPM             1e6

/* Info-column labels of the verdicts that have a fixed one, in display order. */
static const struct {
    guint32 flag;
    const char *label;
} info_labels[] = {
    {ROCE_V_MALFORMED, "[RoCE Malformed]"},
    {ROCE_V_BAD_ICRC, "[RoCE Bad ICRC]"},
    {ROCE_V_BAD_VCRC, "[RoCE Bad VCRC]"},
    {ROCE_V_UNDERSTATED, "[RoCE Length understated]"},
    {ROCE_V_GAP, "[RoCE PSN gap]"}, /* with its class (gap_label) */
    {ROCE_V_REORDERED, "[RoCE Out of order]"},
    {ROCE_V_AFTER_RESPONSE, "[RoCE After its response]"},
    {ROCE_V_RETRANSMISSION, "[RoCE Retransmission]"},
    {ROCE_V_PSN_REUSE, "[RoCE PSN reuse]"},
    {ROCE_V_RESP_GAP, "[RoCE READ response gap]"},
    {ROCE_V_DUP_RESPONSE, "[RoCE Duplicate READ response]"},
    {ROCE_V_RNR, "[RoCE RNR NAK]"},
    {ROCE_V_CE_UNANSWERED, "[RoCE CE unanswered]"},
    {ROCE_V_CNP_UNEXPLAINED, "[RoCE CNP unexplained]"},
};

/* The Info label of a PSN gap, by its class (enum roce_gap_class). */
static const char *gap_label(unsigned cls)
{
    switch (cls) {
    case ROCE_GAP_NETWORK_LOSS:
        return "[RoCE PSN gap: lost in the network]";
    case ROCE_GAP_CAPTURE_LOSS:
    case ROCE_GAP_CAPTURE_INFERRED:
        return "[RoCE PSN gap missed by the capture]";
    case ROCE_GAP_REORDERED:
        return "[RoCE PSN gap: reordered]";
    default:
        return "[RoCE PSN gap: undetermined]";
    }
}

/* of the ICRC and of the VCRC (enum roce_icrc_status) */
static const char *const icrc_status_names[] = {
    [ROCE_ICRC_UNCHECKED] = "unchecked",
    [ROCE_ICRC_GOOD] = "good",
    [ROCE_ICRC_BAD] = "bad",
};

static nstime_t ns_to_nstime(gint64 ns)
{
    nstime_t t;
    if (ns < 0)
        ns = 0;
    t.secs = (time_t)(ns / ROCE_NS_PER_SEC);
    t.nsecs = (int)(ns % ROCE_NS_PER_SEC);
    return t;
}

static const char *addr_str(wmem_allocator_t *scope, const guint8 *a, guint8 af)
{
    char buf[WS_INET6_ADDRSTRLEN];
    roce_ws_address_text(a, af, buf, sizeof buf);
    return wmem_strdup(scope, buf);
}

const char *roce_ws_endpoint(wmem_allocator_t *scope, const struct roce_ws_frame *fr,
                             gboolean source)
{
    const struct roce_flow_key *k = &fr->key;
    const char *addr = addr_str(scope, source ? k->src : k->dst, k->af);

    if (!source)
        return wmem_strdup_printf(scope, "%s QP 0x%06x", addr, k->dqpn);
    if (fr->paired_by == ROCE_PAIRED_NONE && fr->has_deth) /* UD: the frame names it */
        return wmem_strdup_printf(scope, "%s QP 0x%06x", addr, fr->deth_srcqp);
    if (fr->paired_by == ROCE_PAIRED_NONE)
        return wmem_strdup_printf(scope, "%s QP ?", addr);
    return wmem_strdup_printf(scope, "%s QP 0x%06x", addr, fr->peer_dqpn);
}

static proto_item *generated(proto_item *pi)
{
    proto_item_set_generated(pi);
    return pi;
}

/* Info column: the engine's decode where the handoff kept the built-in
 * dissector off it (header-only frame), the CNP's name where the built-in
 * has none for it, then a label per verdict. */
void roce_ws_render_info(packet_info *pinfo, const struct roce_ws_frame *fr,
                         enum roce_ws_route route)
{
    wmem_strbuf_t *s;
    guint32 f = fr->flags;

    if (route == ROCE_WS_ROUTE_INFO_KEPT) {
        const struct roce_opcode_info *op = roce_opcode_lookup(fr->opcode);
        if (fr->has_flow)
            col_add_fstr(pinfo->cinfo, COL_INFO, "%s QP=0x%06x PSN=%u [header only]",
                         op ? op->name : "unknown opcode", fr->key.dqpn, fr->psn);
        else
            col_add_fstr(pinfo->cinfo, COL_INFO, "RoCEv%u, BTH not captured [header only]",
                         fr->version);
    } else if (route == ROCE_WS_ROUTE_BUILTIN && (f & ROCE_V_CNP)) {
        col_add_fstr(pinfo->cinfo, COL_INFO, "Congestion Notification Packet QP=0x%06x",
                     fr->key.dqpn);
    }
    if (f == 0)
        return;
    s = wmem_strbuf_new(pinfo->pool, "");
    for (size_t i = 0; i < array_length(info_labels); i++)
        if (f & info_labels[i].flag) {
            wmem_strbuf_append(s, info_labels[i].flag == ROCE_V_GAP
                                      ? gap_label(fr->detail->gap_class)
                                      : info_labels[i].label);
            wmem_strbuf_append(s, " ");
        }
    if (f & ROCE_V_NAK)
        wmem_strbuf_append_printf(s, "[RoCE NAK: %s] ", roce_nak_code_text(fr->detail->nak_code));
    if ((f & ROCE_V_CE) && !(f & ROCE_V_CE_UNANSWERED))
        wmem_strbuf_append(s, "[RoCE CE] ");
    if ((f & ROCE_V_CNP) && !(f & ROCE_V_CNP_UNEXPLAINED))
        wmem_strbuf_append(s, "[RoCE CNP] ");
    col_prepend_fstr(pinfo->cinfo, COL_INFO, "%s", wmem_strbuf_get_str(s));
}

/* A generated item that filters and -e see but the tree does not show (its
 * value is already in the text of a visible one). */
static void hidden(proto_item *pi)
{
    proto_item_set_generated(pi);
    proto_item_set_hidden(pi);
}

/* Flow, pairing, transport. The address strings are only made when the
 * tree is shown or a filter refers to them; src, dst and dest QP are in the
 * flow's text, so their own items are hidden (like ip.addr). */
static void add_flow(tvbuff_t *tvb, packet_info *pinfo, proto_tree *rt,
                     const struct roce_ws_frame *fr)
{
    const struct roce_flow_key *k = &fr->key;
    proto_item *ti;

    if (proto_field_is_referenced(rt, roce_ws_hf.flow) ||
        proto_field_is_referenced(rt, roce_ws_hf.flow_src) ||
        proto_field_is_referenced(rt, roce_ws_hf.flow_dst)) {
        const char *src = addr_str(pinfo->pool, k->src, k->af);
        const char *dst = addr_str(pinfo->pool, k->dst, k->af);
        generated(proto_tree_add_string(
            rt, roce_ws_hf.flow, tvb, 0, 0,
            wmem_strdup_printf(pinfo->pool, "%s -> %s QP 0x%06x", src, dst, k->dqpn)));
        hidden(proto_tree_add_string(rt, roce_ws_hf.flow_src, tvb, 0, 0, src));
        hidden(proto_tree_add_string(rt, roce_ws_hf.flow_dst, tvb, 0, 0, dst));
    }
    hidden(proto_tree_add_uint(rt, roce_ws_hf.flow_dest_qp, tvb, 0, 0, k->dqpn));
    generated(proto_tree_add_uint64(rt, roce_ws_hf.flow_id, tvb, 0, 0, fr->flow_id));
    if (proto_field_is_referenced(rt, roce_ws_hf.endpoint) ||
        proto_field_is_referenced(rt, roce_ws_hf.src_endpoint) ||
        proto_field_is_referenced(rt, roce_ws_hf.dst_endpoint)) {
        const char *src = roce_ws_endpoint(pinfo->pool, fr, TRUE);
        const char *dst = roce_ws_endpoint(pinfo->pool, fr, FALSE);
        hidden(proto_tree_add_string(rt, roce_ws_hf.src_endpoint, tvb, 0, 0, src));
        hidden(proto_tree_add_string(rt, roce_ws_hf.dst_endpoint, tvb, 0, 0, dst));
        hidden(proto_tree_add_string(rt, roce_ws_hf.endpoint, tvb, 0, 0, src));
        hidden(proto_tree_add_string(rt, roce_ws_hf.endpoint, tvb, 0, 0, dst));
    }
    if (fr->paired_by != ROCE_PAIRED_NONE) {
        ti = generated(proto_tree_add_uint(rt, roce_ws_hf.paired_qp, tvb, 0, 0, fr->peer_dqpn));
        proto_item_append_text(ti, " (paired by %s)", roce_paired_by_name(fr->paired_by));
        hidden(proto_tree_add_string(rt, roce_ws_hf.paired_by, tvb, 0, 0,
                                     roce_paired_by_name(fr->paired_by)));
    }
    generated(proto_tree_add_string(rt, roce_ws_hf.transport, tvb, 0, 0,
                                    roce_transport_name((enum roce_transport)fr->transport)));
}

/* The fields of a CRC check: the ICRC, or native InfiniBand's VCRC. */
struct crc_fields {
    const int *status, *computed, *wire;
};

/* A CRC's status (enum roce_icrc_status), and when bad both values; the
 * status item, for the expert info of a bad one. */
static proto_item *add_crc(tvbuff_t *tvb, proto_tree *rt, const struct crc_fields *cf,
                           guint8 status, gboolean bad, guint32 calc, guint32 wire)
{
    proto_item *ti = generated(proto_tree_add_string(
        rt, *cf->status, tvb, 0, 0,
        status < array_length(icrc_status_names) ? icrc_status_names[status] : "unknown"));
    if (bad) {
        generated(proto_tree_add_uint(rt, *cf->computed, tvb, 0, 0, calc));
        generated(proto_tree_add_uint(rt, *cf->wire, tvb, 0, 0, wire));
    }
    return ti;
}

/* Opcode, PSN, the BTH bits Wireshark lacks, CNP, ICRC, VCRC, truncation. */
static void add_packet(tvbuff_t *tvb, packet_info *pinfo, proto_tree *rt,
                       const struct roce_ws_frame *fr)
{
    const struct roce_opcode_info *op = roce_opcode_lookup(fr->opcode);

    if (fr->has_flow) {
        generated(proto_tree_add_uint_format_value(rt, roce_ws_hf.opcode, tvb, 0, 0, fr->opcode,
                                                   "%s (0x%02x)", op ? op->name : "unknown",
                                                   fr->opcode));
        generated(proto_tree_add_uint(rt, roce_ws_hf.psn, tvb, 0, 0, fr->psn));
    }
    if (fr->bth_captured) {
        proto_tree_add_boolean(rt, roce_ws_hf.bth_fecn, tvb, fr->bth_off + ROCE_BTH_FB_OFF, 1,
                               fr->fecn ? ROCE_BTH_FECN_BIT : 0);
        proto_tree_add_boolean(rt, roce_ws_hf.bth_becn, tvb, fr->bth_off + ROCE_BTH_FB_OFF, 1,
                               fr->becn ? ROCE_BTH_BECN_BIT : 0);
    }
    if (fr->flags & ROCE_V_CNP)
        generated(proto_tree_add_boolean(rt, roce_ws_hf.cnp, tvb, 0, 0, TRUE));
    if (fr->cls == ROCE_CLASS_ROCE) {
        static const struct crc_fields icrc = {&roce_ws_hf.icrc_status, &roce_ws_hf.icrc_computed,
                                               &roce_ws_hf.icrc_wire};
        gboolean bad = (fr->flags & ROCE_V_BAD_ICRC) != 0;
        proto_item *ti = add_crc(tvb, rt, &icrc, fr->icrc_status, bad,
                                 bad ? fr->detail->icrc_calc : 0, bad ? fr->detail->icrc_wire : 0);
        if (bad && fr->detail->icrc_rewrite != ROCE_REWRITE_NONE) {
            const char *field = roce_rewrite_field_name(fr->detail->icrc_rewrite);
            generated(proto_tree_add_string(rt, roce_ws_hf.icrc_rewritten, tvb, 0, 0, field));
            generated(proto_tree_add_uint(rt, roce_ws_hf.icrc_valid_with, tvb, 0, 0,
                                          fr->detail->icrc_rewrite_value));
            expert_add_info_format(pinfo, ti, &roce_ws_ei.bad_icrc_rewritten,
                                   "Bad ICRC valid with %s %u: rewritten on the way (a sniffer "
                                   "or mirror), not corrupted",
                                   field, fr->detail->icrc_rewrite_value);
        } else if (bad) {
            struct roce_engine *e = roce_ws_engine();
            if (PINFO_FD_VISITED(pinfo) && e != NULL &&
                roce_diag_icrc_all_bad(roce_engine_totals(e)))
                expert_add_info_format(pinfo, ti, &roce_ws_ei.bad_icrc,
                                       "Bad ICRC, as every ICRC checked in this capture: the "
                                       "capture path probably altered the frames, not a link");
            else
                expert_add_info(pinfo, ti, &roce_ws_ei.bad_icrc);
        }
    }
    if (fr->version == ROCE_VERSION_IB) {
        static const struct crc_fields vcrc = {&roce_ws_hf.vcrc_status, &roce_ws_hf.vcrc_computed,
                                               &roce_ws_hf.vcrc_wire};
        gboolean bad = (fr->flags & ROCE_V_BAD_VCRC) != 0;
        proto_item *ti = add_crc(tvb, rt, &vcrc, fr->vcrc_status, bad,
                                 bad ? fr->detail->vcrc_calc : 0, bad ? fr->detail->vcrc_wire : 0);
        if (bad)
            expert_add_info(pinfo, ti, &roce_ws_ei.bad_vcrc);
    }
    if (fr->truncated)
        generated(proto_tree_add_boolean(rt, roce_ws_hf.truncated, tvb, 0, 0, TRUE));
    if (fr->flags & ROCE_V_UNDERSTATED)
        expert_add_info(
            pinfo,
            generated(proto_tree_add_boolean(rt, roce_ws_hf.length_understated, tvb, 0, 0, TRUE)),
            &roce_ws_ei.length_understated);
}

/* A PSN gap: how many PSNs, what it was and what showed it. Only a gap
 * lost in the network gets the warning; the others are notes. */
static void add_gap(tvbuff_t *tvb, packet_info *pinfo, proto_tree *at,
                    const struct roce_ws_detail *d, guint32 f)
{
    proto_item *ti =
        generated(proto_tree_add_uint(at, roce_ws_hf.psn_gap, tvb, 0, 0, d->missing_psns));
    generated(proto_tree_add_string(at, roce_ws_hf.gap_class, tvb, 0, 0,
                                    roce_gap_class_name(d->gap_class)));
    if (d->gap_class == ROCE_GAP_UNDETERMINED)
        generated(proto_tree_add_string(at, roce_ws_hf.gap_reason, tvb, 0, 0,
                                        roce_gap_reason_name(d->gap_reason)));
    if (d->gap_decided_by != 0)
        generated(proto_tree_add_uint(at, roce_ws_hf.gap_decided_by, tvb, 0, 0, d->gap_decided_by));
    if (f & ROCE_V_CAPTURE_LOSS) { /* never called a loss */
        ti = generated(proto_tree_add_item(at, roce_ws_hf.capture_loss, tvb, 0, 0, ENC_NA));
        expert_add_info(pinfo, ti, &roce_ws_ei.capture_loss);
    } else if (d->gap_class == ROCE_GAP_NETWORK_LOSS) {
        expert_add_info(pinfo, ti, &roce_ws_ei.psn_gap);
    } else if (d->gap_class == ROCE_GAP_REORDERED) {
        expert_add_info(pinfo, ti, &roce_ws_ei.gap_reordered);
    } else {
        expert_add_info_format(pinfo, ti, &roce_ws_ei.gap_undetermined,
                               "PSN gap undetermined (%s): nothing showed whether the network "
                               "lost it or the capture missed it",
                               roce_gap_reason_name(d->gap_reason));
    }
}

/* Gaps, retransmissions, go-back-N episodes, PSN reuse, READ responses. */
static void add_sequence(tvbuff_t *tvb, packet_info *pinfo, proto_tree *at,
                         const struct roce_ws_frame *fr)
{
    const struct roce_ws_detail *d = fr->detail;
    guint32 f = fr->flags;
    proto_item *ti;
    nstime_t t;

    if (d->expected_valid && (f & ROCE_V_EXPECTED_PSN_FLAGS))
        generated(proto_tree_add_uint(at, roce_ws_hf.expected_psn, tvb, 0, 0, d->expected_psn));
    if (f & ROCE_V_GAP)
        add_gap(tvb, pinfo, at, d, f);
    if (f & ROCE_V_REORDERED) {
        ti = generated(proto_tree_add_uint(at, roce_ws_hf.reordered, tvb, 0, 0, d->reorder_psns));
        expert_add_info(pinfo, ti, &roce_ws_ei.reordered);
        generated(
            proto_tree_add_uint(at, roce_ws_hf.reorder_gap_frame, tvb, 0, 0, d->reorder_gap_frame));
        t = ns_to_nstime(d->reorder_ns);
        generated(proto_tree_add_time(at, roce_ws_hf.reorder_time, tvb, 0, 0, &t));
    }
    if (f & ROCE_V_AFTER_RESPONSE) {
        ti = generated(
            proto_tree_add_uint(at, roce_ws_hf.after_response, tvb, 0, 0, d->response_frame));
        expert_add_info(pinfo, ti, &roce_ws_ei.after_response);
    }
    if (f & ROCE_V_RETRANSMISSION) {
        ti = generated(proto_tree_add_item(at, roce_ws_hf.retransmission, tvb, 0, 0, ENC_NA));
        expert_add_info(pinfo, ti, &roce_ws_ei.retransmission);
        /* the episode's first frame names no other frame: no self-reference */
        if (d->episode_frame != pinfo->num)
            generated(
                proto_tree_add_uint(at, roce_ws_hf.episode_frame, tvb, 0, 0, d->episode_frame));
    }
    if (f & ROCE_V_EPISODE_START) {
        ti = generated(proto_tree_add_item(at, roce_ws_hf.gbn_episode, tvb, 0, 0, ENC_NA));
        expert_add_info_format(pinfo, ti, &roce_ws_ei.gbn_episode,
                               "Go-back-N episode starts (trigger: %s)",
                               roce_trigger_name(d->trigger));
        generated(proto_tree_add_string(at, roce_ws_hf.trigger, tvb, 0, 0,
                                        roce_trigger_name(d->trigger)));
        if (d->nak_frame != 0) {
            generated(proto_tree_add_uint(at, roce_ws_hf.nak_frame, tvb, 0, 0, d->nak_frame));
            t = ns_to_nstime(d->nak_to_resend_ns);
            generated(proto_tree_add_time(at, roce_ws_hf.time_since_nak, tvb, 0, 0, &t));
        }
    }
    if (f & ROCE_V_PSN_REUSE) {
        ti = generated(proto_tree_add_uint(at, roce_ws_hf.psn_reuse, tvb, 0, 0, d->reuse_frame));
        expert_add_info(pinfo, ti, &roce_ws_ei.psn_reuse);
    }
    if (f & ROCE_V_RESP_GAP) {
        ti = generated(
            proto_tree_add_uint(at, roce_ws_hf.read_response_gap, tvb, 0, 0, d->missing_psns));
        expert_add_info(pinfo, ti, &roce_ws_ei.read_response_gap);
    }
    if (f & ROCE_V_DUP_RESPONSE) {
        ti = generated(
            proto_tree_add_item(at, roce_ws_hf.duplicate_read_response, tvb, 0, 0, ENC_NA));
        expert_add_info(pinfo, ti, &roce_ws_ei.duplicate_read_response);
    }
}

/* NAKs and RNR NAKs, and where the resend began. */
static void add_naks(tvbuff_t *tvb, packet_info *pinfo, proto_tree *at,
                     const struct roce_ws_frame *fr)
{
    const struct roce_ws_detail *d = fr->detail;
    proto_item *ti;

    if (fr->flags & ROCE_V_NAK) {
        ti = generated(
            proto_tree_add_string(at, roce_ws_hf.nak, tvb, 0, 0, roce_nak_code_text(d->nak_code)));
        expert_add_info_format(pinfo, ti, &roce_ws_ei.nak, "NAK: %s",
                               roce_nak_code_text(d->nak_code));
        generated(proto_tree_add_string(at, roce_ws_hf.nak_code, tvb, 0, 0,
                                        roce_nak_code_name(d->nak_code)));
        if (d->has_nak_generation) {
            nstime_t t = ns_to_nstime(d->nak_generation_ns);
            generated(proto_tree_add_time(at, roce_ws_hf.nak_generation, tvb, 0, 0, &t));
        }
    }
    if (fr->flags & ROCE_V_RNR) {
        guint32 t10us = roce_rnr_timer_10us(d->rnr_timer);
        const char *words =
            wmem_strdup_printf(pinfo->pool, "timer %u.%02u ms (code %u)", t10us / RNR_10US_PER_MS,
                               t10us % RNR_10US_PER_MS, d->rnr_timer);
        ti = generated(proto_tree_add_string(at, roce_ws_hf.rnr, tvb, 0, 0, words));
        expert_add_info_format(pinfo, ti, &roce_ws_ei.rnr, "RNR NAK: %s", words);
        generated(proto_tree_add_uint(at, roce_ws_hf.rnr_timer, tvb, 0, 0, d->rnr_timer));
    }
    if (fr->flags & ROCE_V_NAK_RESENT)
        generated(
            proto_tree_add_uint(at, roce_ws_hf.retransmitted_in, tvb, 0, 0, d->retransmitted_in));
}

/* A CNP whose DCQCN reaction was evaluated: the rates around it, and the
 * verdict of its request flow (the flow's report, A -> B: the CNP's flow
 * reversed, to the paired QP). */
static void add_dcqcn(tvbuff_t *tvb, proto_tree *at, const struct roce_ws_frame *fr)
{
    const struct roce_ws_detail *d = fr->detail;
    struct roce_engine *e = roce_ws_engine();
    struct roce_flow_report rep;
    struct roce_flow_key req = fr->key;
    proto_tree *dt;

    dt = proto_item_add_subtree(
        generated(proto_tree_add_item(at, roce_ws_hf.dcqcn, tvb, 0, 0, ENC_NA)), roce_ws_ett.dcqcn);
    generated(proto_tree_add_double(dt, roce_ws_hf.dcqcn_rate_before, tvb, 0, 0,
                                    (double)d->dcqcn_before_mbps / MBPS_PER_GBPS));
    generated(proto_tree_add_double(dt, roce_ws_hf.dcqcn_rate_after, tvb, 0, 0,
                                    (double)d->dcqcn_after_mbps / MBPS_PER_GBPS));
    generated(proto_tree_add_double(dt, roce_ws_hf.dcqcn_ratio, tvb, 0, 0,
                                    (double)d->dcqcn_ratio_ppm / PPM));
    /* the CNP's request flow: its flow's peer at the end (a reused QP's
     * records are told apart by id) */
    struct roce_flow_state st;
    if (e == NULL || roce_engine_flow_report(e, &fr->key, fr->flow_id, &rep) != 0 ||
        rep.peer_id == 0 || roce_engine_flow_state(e, &fr->key, fr->flow_id, &st) != 0)
        return;
    memcpy(req.src, fr->key.dst, sizeof req.src);
    memcpy(req.dst, fr->key.src, sizeof req.dst);
    req.dqpn = st.peer_dqpn;
    if (roce_engine_flow_report(e, &req, rep.peer_id, &rep) != 0 || !rep.dcqcn.tracked)
        return;
    generated(proto_tree_add_string(dt, roce_ws_hf.dcqcn_verdict, tvb, 0, 0,
                                    roce_dcqcn_verdict_name(rep.dcqcn.verdict)));
    generated(proto_tree_add_uint64(dt, roce_ws_hf.dcqcn_cnps_evaluated, tvb, 0, 0,
                                    rep.dcqcn.cnps_evaluated));
}

/* CE marks and CNPs. */
static void add_ecn(tvbuff_t *tvb, packet_info *pinfo, proto_tree *at,
                    const struct roce_ws_frame *fr)
{
    const struct roce_ws_detail *d = fr->detail;
    guint32 f = fr->flags;
    proto_item *ti;
    nstime_t t;

    if (f & ROCE_V_CE) {
        ti = generated(proto_tree_add_item(at, roce_ws_hf.ce, tvb, 0, 0, ENC_NA));
        if (f & ROCE_V_CE_ANSWERED) {
            expert_add_info_format(pinfo, ti, &roce_ws_ei.ce, "CE mark, answered by a CNP");
            generated(proto_tree_add_uint(at, roce_ws_hf.cnp_frame, tvb, 0, 0, d->cnp_frame));
        } else if (!(f & ROCE_V_CE_UNANSWERED)) {
            expert_add_info(pinfo, ti, &roce_ws_ei.ce); /* not settled yet (one pass) */
        }
    }
    if (f & ROCE_V_CE_UNANSWERED) {
        ti = generated(proto_tree_add_item(at, roce_ws_hf.ce_unanswered, tvb, 0, 0, ENC_NA));
        expert_add_info(pinfo, ti, &roce_ws_ei.ce_unanswered);
    }
    if (f & ROCE_V_CNP_MATCHED) {
        ti = generated(
            proto_tree_add_uint(at, roce_ws_hf.cnp_for_frame, tvb, 0, 0, d->cnp_for_frame));
        t = ns_to_nstime(d->cnp_latency_ns);
        generated(proto_tree_add_time(at, roce_ws_hf.cnp_latency, tvb, 0, 0, &t));
        expert_add_info(pinfo, ti, &roce_ws_ei.cnp);
    }
    if (f & ROCE_V_CNP_UNEXPLAINED) {
        ti = generated(proto_tree_add_item(at, roce_ws_hf.cnp_unexplained, tvb, 0, 0, ENC_NA));
        expert_add_info(pinfo, ti, &roce_ws_ei.cnp_unexplained);
    }
    if (f & ROCE_V_DCQCN)
        add_dcqcn(tvb, at, fr);
}

/* The "Verdicts" subtree of a frame with verdicts. */
static void add_verdicts(tvbuff_t *tvb, packet_info *pinfo, proto_tree *rt,
                         const struct roce_ws_frame *fr)
{
    wmem_strbuf_t *names = wmem_strbuf_new(pinfo->pool, "");
    wmem_strbuf_t *titles = wmem_strbuf_new(pinfo->pool, "");
    proto_item *ti;
    proto_tree *at;

    for (unsigned b = 0; b < ROCE_V_COUNT; b++)
        if (fr->flags & (1u << b)) {
            if (wmem_strbuf_get_len(names) > 0) {
                wmem_strbuf_append(names, ",");
                wmem_strbuf_append(titles, ", ");
            }
            wmem_strbuf_append(names, roce_verdict_name(b));
            wmem_strbuf_append(titles, roce_verdict_title(b));
        }
    /* people read the titles; filters and scripts the names (as in JSON) */
    ti = generated(proto_tree_add_item(rt, roce_ws_hf.analysis, tvb, 0, 0, ENC_NA));
    proto_item_append_text(ti, ": %s", wmem_strbuf_get_str(titles));
    at = proto_item_add_subtree(ti, roce_ws_ett.analysis);
    generated(
        proto_tree_add_string(at, roce_ws_hf.verdicts, tvb, 0, 0, wmem_strbuf_get_str(names)));
    hidden(proto_tree_add_uint(at, roce_ws_hf.flags, tvb, 0, 0, fr->flags));
    if (fr->flags & ROCE_V_MALFORMED) {
        const char *why = roce_malformed_name((enum roce_malformed)fr->malformed);
        ti = generated(proto_tree_add_string(at, roce_ws_hf.malformed, tvb, 0, 0, why));
        expert_add_info_format(pinfo, ti, &roce_ws_ei.malformed, "Malformed RoCE packet: %s", why);
    }
    add_sequence(tvb, pinfo, at, fr);
    add_naks(tvb, pinfo, at, fr);
    add_ecn(tvb, pinfo, at, fr);
}

proto_tree *roce_ws_render(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
                           const struct roce_ws_frame *fr)
{
    guint caplen = tvb_captured_length(tvb);
    gint start = fr->bth_off < caplen ? (gint)fr->bth_off : 0;
    proto_item *ti;
    proto_tree *rt;

    ti = proto_tree_add_item(tree, roce_ws_proto, tvb, start, -1, ENC_NA);
    rt = proto_item_add_subtree(ti, roce_ws_ett.roce);
    if (fr->has_flow && tree != NULL)
        add_flow(tvb, pinfo, rt, fr);
    add_packet(tvb, pinfo, rt, fr);
    if (fr->flags != 0)
        add_verdicts(tvb, pinfo, rt, fr);
    return rt;
}
