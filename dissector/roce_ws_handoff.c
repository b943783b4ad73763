/*
 * roce_ws_handoff.c - how frames reach the plugin.
 *
 * Two routes (dissector/README.md, "Why it attaches this way"):
 *
 * 1. The headers: the plugin takes UDP port 4791 and EtherType 0x8915 from
 *    the built-in InfiniBand dissector (plugin handoffs run after the
 *    built-in ones, so its handles can be fetched first) and calls it back,
 *    so the infiniband.* tree stays as it was, with two changes: the
 *    BoundsError the built-in throws on header-only frames is caught (those
 *    are truncated, not malformed), and a UDP datagram matched on its
 *    *source* port only is declined, because RoCEv2 is defined by the
 *    destination port (the source port is ECMP entropy): UDP then tries the
 *    other port, heuristics and data, as it would without us. Any
 *    non-default infiniband preference re-runs the built-in's handoff, which
 *    takes the port back: the init routine re-asserts it. A preference hands
 *    both back for good.
 *
 * 2. The analysis: a postdissector, called for every frame with the whole
 *    frame, feeds the engine and renders its verdict. It sees every frame
 *    whichever dissector took it, so the engine gets exactly the frames
 *    rocescope reads from the file: a RoCEv2 datagram whose UDP source port
 *    is a lower well-known port (UDP tries the lower port first, e.g. TFTP's
 *    69 in oferby__proxy__roce.pcap) is analysed all the same, and the
 *    analysis also works with the ports left to the built-in dissector.
 */
#include "roce_ws.h"

/* The handles of this plugin, and the built-in ones it stands in front of. */
static dissector_handle_t udp_handle, eth_handle, post_handle;
static dissector_handle_t builtin_udp, builtin_eth;
static guint taken_port; /* UDP port currently registered to udp_handle; 0: none */
static dissector_handle_t taken_port_prev; /* who had taken_port before us, or NULL */
static gboolean taken_eth;

/*
 * How the frame being dissected went through call_builtin(), for the
 * postdissector of the same frame, which reads and clears it. Dissection is
 * single-threaded and a frame's postdissectors run right after its
 * dissectors, so one variable does (per-packet proto data would cost an
 * allocation per frame).
 */
static struct {
    guint32 frame; /* 0: none */
    enum roce_ws_route route;
    gboolean analysed;               /* fed (first pass) or looked up, Info written */
    const struct roce_ws_frame *fr;  /* its record then, or NULL */
} last_route;

/*
 * Call the built-in InfiniBand dissector (or data when there is none),
 * keeping a BoundsError inside it from ending the frame's dissection. On a
 * header-only frame (captured < reported) the built-in either throws or
 * writes "Invalid Packet Length from LRH! [Malformed Packet]" into the Info
 * column: it is kept off that column, and the rendering writes the frame's
 * Info from the engine's decode instead (ROCE_WS_ROUTE_INFO_KEPT).
 */
static void call_builtin(dissector_handle_t builtin, tvbuff_t *tvb, packet_info *pinfo,
                         proto_tree *tree, void *data)
{
    const gboolean keep_info = tvb_captured_length(tvb) < tvb_reported_length(tvb) &&
                               col_get_writable(pinfo->cinfo, COL_INFO);

    if (last_route.frame != pinfo->num) {
        last_route.frame = pinfo->num;
        last_route.analysed = FALSE;
        last_route.fr = NULL;
    }
    last_route.route = keep_info ? ROCE_WS_ROUTE_INFO_KEPT : ROCE_WS_ROUTE_BUILTIN;
    if (keep_info)
        col_set_writable(pinfo->cinfo, COL_INFO, FALSE);
    TRY
    {
        if (builtin == NULL || call_dissector_only(builtin, tvb, pinfo, tree, data) == 0)
            call_data_dissector(tvb, pinfo, tree);
    }
    CATCH_BOUNDS_ERRORS
    {
        /* header-only frame: what was captured is shown, the analysis still runs */
    }
    FINALLY
    {
        if (keep_info)
            col_set_writable(pinfo->cinfo, COL_INFO, TRUE);
    }
    ENDTRY;
}

/* Analyse the frame now, once per dissection (see the head comment), and
 * write its Info-column labels after the built-in's. */
static void analyse_and_label(packet_info *pinfo)
{
    tvbuff_t *frame = roce_ws_frame_tvb(pinfo);

    if (last_route.analysed || frame == NULL)
        return;
    last_route.fr = roce_ws_frame_analyse(frame, pinfo);
    last_route.analysed = TRUE;
    if (last_route.fr != NULL)
        roce_ws_render_info(pinfo, last_route.fr, last_route.route);
}

/* UDP port route: RoCEv2 only when the destination port matched. */
static int dissect_roce_udp(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    if (pinfo->destport != pinfo->match_uint)
        return 0; /* matched on the source port: not RoCE, let UDP go on */
    call_builtin(builtin_udp, tvb, pinfo, tree, data);
    analyse_and_label(pinfo);
    return tvb_captured_length(tvb);
}

/* EtherType route: RoCEv1. */
static int dissect_roce_eth(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    call_builtin(builtin_eth, tvb, pinfo, tree, data);
    analyse_and_label(pinfo);
    return tvb_captured_length(tvb);
}

/* The analysis of every frame (a postdissector: tvb is the whole frame). */
static int dissect_roce_post(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    const struct roce_ws_frame *fr;
    gboolean routed = last_route.frame == pinfo->num;
    enum roce_ws_route route = routed ? last_route.route : ROCE_WS_ROUTE_OTHER;
    gboolean info_done = routed && last_route.analysed;

    (void)data;
    fr = info_done ? last_route.fr : roce_ws_frame_analyse(tvb, pinfo);
    last_route.frame = 0;
    if (fr == NULL) /* not RoCE; a PFC frame may be a diagnosis's evidence */
        return roce_ws_diag_render(tvb, pinfo, tree, NULL) ? (int)tvb_captured_length(tvb) : 0;
    if (!info_done)
        roce_ws_render_info(pinfo, fr, route);
    roce_ws_diag_render(tvb, pinfo, tree, roce_ws_render(tvb, pinfo, tree, fr));
    roce_ws_stats_tap(pinfo, fr);
    return tvb_captured_length(tvb);
}

/* The handle registered for pattern in table, or NULL. */
static dissector_handle_t handle_at(const char *table, guint32 pattern)
{
    return dissector_get_uint_handle(find_dissector_table(table), pattern);
}

/* Stop taking pattern: give it back to prev, who had it before us (or drop
 * our entry when nobody had); leave it alone when someone else has
 * registered it since. */
static void release(const char *table, guint32 pattern, dissector_handle_t ours,
                    dissector_handle_t prev)
{
    if (handle_at(table, pattern) != ours)
        return;
    if (prev != NULL)
        dissector_add_uint(table, pattern, prev);
    else
        dissector_delete_uint(table, pattern, ours);
}

void roce_ws_assert_ports(void)
{
    guint port = roce_ws_prefs.udp_port;
    dissector_handle_t prev;

    if (udp_handle == NULL)
        return; /* before the handoff */
    if (taken_port != 0 && (roce_ws_prefs.leave_ports || taken_port != port)) {
        release("udp.port", taken_port, udp_handle, taken_port_prev);
        taken_port = 0;
    }
    if (taken_eth && roce_ws_prefs.leave_ports) {
        release("ethertype", ROCE_ETHERTYPE_ROCEV1, eth_handle, builtin_eth);
        taken_eth = FALSE;
    }
    if (roce_ws_prefs.leave_ports)
        return;
    /* (re)take them: the built-in's handoff may have taken them back */
    prev = handle_at("udp.port", port);
    if (taken_port != port)
        taken_port_prev = prev != udp_handle ? prev : NULL;
    dissector_add_uint("udp.port", port, udp_handle);
    dissector_add_uint("ethertype", ROCE_ETHERTYPE_ROCEV1, eth_handle);
    taken_port = port;
    taken_eth = TRUE;
}

void roce_ws_proto_handoff(void)
{
    if (udp_handle == NULL) {
        udp_handle = create_dissector_handle(dissect_roce_udp, roce_ws_proto);
        eth_handle = create_dissector_handle(dissect_roce_eth, roce_ws_proto);
        post_handle = create_dissector_handle(dissect_roce_post, roce_ws_proto);
        register_postdissector(post_handle);
        /* The built-in's handles, fetched before we take anything. At this
         * point (start-up, before preferences are read) the built-in holds
         * its default port. */
        builtin_udp = handle_at("udp.port", ROCE_UDP_PORT_ROCEV2);
        builtin_eth = handle_at("ethertype", ROCE_ETHERTYPE_ROCEV1);
    }
    roce_ws_assert_ports();
}
