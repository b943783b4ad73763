/*
 * roce_ws_frames.c - the engine of the open capture file and the per-frame
 * records (see roce_ws.h).
 *
 * Wireshark dissects every frame once in frame order (the first pass), then
 * again in any order (tshark -2, the GUI, taps). The engine is fed in the
 * first pass only, with Wireshark's frame number; what it says about a frame
 * then is stored in a record keyed by that number. Verdicts that settle later
 * (a CE mark waiting for its CNP, a NAK learning where the resend began)
 * arrive through the engine's on_verdict callback and overwrite the record of
 * their frame. Once the first pass is over (Wireshark's post-sequential
 * cleanup, registered in roce_ws_proto.c) or, at the latest, when a frame is
 * revisited, the engine is finished (roce_engine_finish): every later
 * rendering shows final verdicts, and each frame's flow as it is at the end
 * (its pairing and transport, also on the frames before it was paired).
 *
 * A read filter (tshark -2 -R, or the GUI's) drops frames after the first
 * pass has dissected them, and the next frame then gets the same number.
 * Such a frame is fed too (it was on the wire), so the engine gets a frame
 * key whose upper 32 bits count these reuses: a late verdict for a dropped
 * frame carries an old count and is ignored, and its record is replaced.
 *
 * Records are found by frame number in an array of pointers (frame numbers
 * are dense from 1), 8 bytes per frame of the capture.
 *
 * Ownership: the engine is malloc'ed by the engine and the array by GLib,
 * both freed in the cleanup routine; records live in wmem_file_scope() and
 * go with the file.
 */
#include <string.h>

#include "roce_ws.h"

#define REUSE_SHIFT 32 /* engine frame key: reuse count << 32 | Wireshark frame number */
#define MIN_SLOTS   4096

/* State of the open capture file. */
struct roce_ws_state {
    struct roce_engine *engine;    /* NULL: no file, or out of memory */
    struct roce_ws_frame **by_num; /* record of each frame number, or NULL */
    guint32 n_slots;               /* entries of by_num */
    guint32 last_fed;              /* highest frame number fed to the engine */
    guint32 reuses;                /* frame numbers handed out twice so far */
    guint64 fed_key;               /* engine key of the frame being (or last) fed */
    gboolean settled;              /* nothing fed since the last roce_engine_finish */
    guint64 generation;
};

static struct roce_ws_state state;

/* The record of frame num, or NULL. */
static struct roce_ws_frame *lookup(guint32 num)
{
    return num < state.n_slots ? state.by_num[num] : NULL;
}

/* Set the record of frame num (fr may be NULL), growing the array. */
static void set_record(guint32 num, struct roce_ws_frame *fr)
{
    if (num >= state.n_slots) {
        guint32 n = MAX(state.n_slots, MIN_SLOTS);
        while (n <= num && n < G_MAXUINT32 / 2)
            n *= 2;
        if (n <= num)
            n = G_MAXUINT32;
        state.by_num = g_renew(struct roce_ws_frame *, state.by_num, n);
        memset(state.by_num + state.n_slots, 0, (n - state.n_slots) * sizeof *state.by_num);
        state.n_slots = n;
    }
    state.by_num[num] = fr;
}

/* The record of engine frame key; created (zeroed) for the frame being fed,
 * NULL for a frame a read filter dropped. */
static struct roce_ws_frame *record_of(guint64 key)
{
    guint32 num = (guint32)key, reuse = (guint32)(key >> REUSE_SHIFT);
    struct roce_ws_frame *fr = lookup(num);

    if (fr == NULL && key == state.fed_key) {
        fr = wmem_new0(wmem_file_scope(), struct roce_ws_frame);
        fr->reuse = reuse;
        set_record(num, fr);
    }
    return fr != NULL && fr->reuse == reuse ? fr : NULL;
}

/* Copy the verdict part of v into fr (a later, settled verdict replaces an
 * earlier one). Wireshark frame numbers fit 32 bits. */
static void store_verdict(struct roce_ws_frame *fr, const struct roce_verdict *v)
{
    fr->key = v->key;
    fr->flow_id = v->flow_id;
    fr->has_flow = v->has_flow;
    fr->transport = v->transport;
    fr->opcode = v->opcode;
    fr->paired_by = v->paired_by;
    fr->peer_dqpn = v->peer_dqpn;
    fr->psn = v->psn;
    fr->flags = v->flags;
    if (v->flags == 0)
        return;
    if (fr->detail == NULL)
        fr->detail = wmem_new0(wmem_file_scope(), struct roce_ws_detail);
    struct roce_ws_detail *d = fr->detail;
    d->expected_valid = v->expected_valid;
    d->expected_psn = v->expected_psn;
    d->missing_psns = v->missing_psns;
    d->trigger = v->trigger;
    d->nak_code = v->nak_code;
    d->rnr_timer = v->rnr_timer;
    d->episode_frame = (guint32)v->episode_frame;
    d->nak_frame = (guint32)v->nak_frame;
    d->nak_to_resend_ns = v->nak_to_resend_ns;
    d->retransmitted_in = (guint32)v->retransmitted_in;
    d->cnp_frame = (guint32)v->cnp_frame;
    d->cnp_for_frame = (guint32)v->cnp_for_frame;
    d->cnp_latency_ns = v->cnp_latency_ns;
    d->reuse_frame = (guint32)v->reuse_frame;
    d->icrc_calc = v->icrc_calc;
    d->icrc_wire = v->icrc_wire;
    d->has_nak_generation = v->has_nak_generation;
    d->nak_generation_ns = v->nak_generation_ns;
    d->dcqcn_before_mbps = v->dcqcn_before_mbps;
    d->dcqcn_after_mbps = v->dcqcn_after_mbps;
    d->dcqcn_ratio_ppm = v->dcqcn_ratio_ppm;
    d->vcrc_calc = v->vcrc_calc;
    d->vcrc_wire = v->vcrc_wire;
    d->gap_class = v->gap_class;
    d->gap_reason = v->gap_reason;
    d->gap_decided_by = (guint32)v->gap_decided_by;
    d->reorder_psns = v->reorder_psns;
    d->reorder_ns = v->reorder_ns;
    d->reorder_gap_frame = (guint32)v->reorder_gap_frame;
    d->response_frame = (guint32)v->response_frame;
    d->icrc_rewrite = v->icrc_rewrite;
    d->icrc_rewrite_value = v->icrc_rewrite_value;
}

/* Copy the decode facts the rendering needs. */
static void store_decode(struct roce_ws_frame *fr, const struct roce_pkt *pkt)
{
    fr->cls = pkt->cls;
    fr->version = pkt->version;
    fr->malformed = pkt->malformed;
    fr->truncated = pkt->truncated;
    fr->bth_captured = pkt->bth_captured;
    fr->bth_off = pkt->bth_off;
    fr->icrc_status = pkt->icrc_status;
    fr->vcrc_status = pkt->vcrc_status;
    fr->fecn = pkt->fecn;
    fr->becn = pkt->becn;
    fr->has_deth = pkt->cls != ROCE_CLASS_NON_ROCE && roce_pkt_has(pkt, ROCE_HDR_DETH);
    fr->deth_srcqp = fr->has_deth ? pkt->deth_srcqp : 0;
}

/* on_verdict: a settled verdict, for this frame or an earlier one. */
static void on_verdict(const struct roce_verdict *v, void *ctx)
{
    struct roce_ws_frame *fr = record_of(v->frame);

    (void)ctx;
    if (fr != NULL)
        store_verdict(fr, v);
}

void roce_ws_frames_init(void)
{
    struct roce_config cfg;

    roce_ws_frames_cleanup();
    roce_config_default(&cfg);
    cfg.udp_port = (uint16_t)roce_ws_prefs.udp_port;
    cfg.check_icrc = roce_ws_prefs.check_icrc ? 1 : 0;
    cfg.cnp_window_ns = (int64_t)roce_ws_prefs.cnp_window_us * ROCE_NS_PER_US;
    cfg.pmtu = roce_ws_prefs.pmtu;
    cfg.max_flows = roce_ws_prefs.max_flows;
    cfg.on_verdict = on_verdict;
    cfg.ctx = &state;
    state.engine = roce_engine_new(&cfg);
    if (state.engine == NULL) {
        ws_warning("rocescope: cannot start the analysis engine (out of memory or bad "
                   "preferences); RoCE frames of this file are not analysed");
        return;
    }
    state.last_fed = 0;
    state.reuses = 0;
    state.fed_key = 0;
    state.settled = TRUE;
    state.generation++;
}

void roce_ws_frames_cleanup(void)
{
    roce_engine_free(state.engine);
    state.engine = NULL;
    g_free(state.by_num);
    state.by_num = NULL;
    state.n_slots = 0;
    state.generation++;
}

/* Feed the frame being dissected (first pass) to the engine. */
static void feed(tvbuff_t *tvb, packet_info *pinfo)
{
    struct roce_frame_in in;
    struct roce_frame_out out;
    struct roce_ws_frame *fr;
    guint caplen = tvb_captured_length(tvb);

    if (pinfo->num == state.last_fed) { /* the previous frame was dropped by a read filter */
        state.reuses++;
        set_record(pinfo->num, NULL);
    }
    in.frame = ((guint64)state.reuses << REUSE_SHIFT) | pinfo->num;
    state.fed_key = in.frame;
    in.ts_ns = (int64_t)pinfo->abs_ts.secs * ROCE_NS_PER_SEC + pinfo->abs_ts.nsecs;
    in.linktype = roce_ws_frame_linktype(pinfo);
    in.data = caplen > 0 ? tvb_get_ptr(tvb, 0, caplen) : NULL;
    in.caplen = caplen;
    in.wirelen = tvb_reported_length(tvb);
    state.last_fed = pinfo->num;
    state.settled = FALSE;
    state.generation++;
    /* -1 (link type not decoded) is counted by the engine as non-RoCE. */
    (void)roce_engine_frame(state.engine, &in, &out);

    /* on_verdict may already have stored this frame's settled verdict */
    fr = lookup(pinfo->num);
    if (fr == NULL) {
        if (out.pkt.cls == ROCE_CLASS_NON_ROCE && out.verdict.flags == 0)
            return;
        fr = record_of(in.frame);
        store_verdict(fr, &out.verdict);
    }
    store_decode(fr, &out.pkt);
}

/* A revisited frame shows its flow as the flow is at the end (the engine
 * is settled by then): pairing found after the frame, a transport known
 * only from a later packet. A flow no longer tracked keeps what the frame
 * had. */
static void show_final_flow(struct roce_ws_frame *fr)
{
    struct roce_flow_state st;

    if (fr == NULL || !fr->has_flow ||
        roce_engine_flow_state(state.engine, &fr->key, fr->flow_id, &st) != 0)
        return;
    fr->transport = st.transport;
    fr->paired_by = st.paired_by;
    fr->peer_dqpn = st.peer_dqpn;
}

const struct roce_ws_frame *roce_ws_frame_analyse(tvbuff_t *tvb, packet_info *pinfo)
{
    if (state.engine == NULL)
        return NULL;
    if (!PINFO_FD_VISITED(pinfo) && pinfo->num >= state.last_fed) {
        feed(tvb, pinfo);
    } else if (PINFO_FD_VISITED(pinfo)) {
        roce_ws_settle();
        show_final_flow(lookup(pinfo->num));
    }
    return lookup(pinfo->num);
}

void roce_ws_settle(void)
{
    if (state.engine == NULL || state.settled)
        return;
    roce_engine_finish(state.engine);
    state.settled = TRUE;
    state.generation++;
}

struct roce_engine *roce_ws_engine(void)
{
    return state.engine;
}

guint64 roce_ws_generation(void)
{
    return state.generation;
}

gboolean roce_ws_settled(void)
{
    return state.engine != NULL && state.settled;
}
