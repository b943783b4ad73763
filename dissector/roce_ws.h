/*
 * roce_ws.h - what the files of the rocescope Wireshark plugin share.
 *
 * The plugin is a front end of the analysis engine (analyzer/engine) and
 * holds no protocol logic: it feeds each frame to the engine once, in the
 * first pass and in frame order, keeps the frame's verdict (overwritten by the
 * settled one when the engine delivers it), and renders it: tree, generated
 * fields, expert info, Info column, tap and statistics.
 *
 *   plugin.c           plugin ABI entry points
 *   roce_ws_proto.c    protocol, preferences, init/cleanup routines
 *   roce_ws_fields.c   header fields, subtrees and expert infos
 *   roce_ws_handoff.c  UDP port / EtherType registration, the dissectors
 *   roce_ws_frames.c   the engine of the open capture file, per-frame records
 *   roce_ws_render.c   tree, expert info and Info column of one frame
 *   roce_ws_stats.c    the tap, "-z roce,flows" and the Statistics menu table
 *   roce_ws_diag.c     the diagnoses on their evidence frames, "-z roce,diagnoses"
 *   ws_compat.h        every version-dependent use of the Wireshark API
 */
#ifndef ROCE_WS_H
#define ROCE_WS_H

#include "ws_compat.h"

#include "roce_engine.h"

/* ---- roce_ws_proto.c ---- */

/* The preferences (roce.* in Wireshark's preferences). The engine options
 * take effect when the capture file is next (re)dissected. */
struct roce_ws_prefs {
    guint udp_port;           /* RoCEv2 UDP destination port */
    guint cnp_window_us;      /* CE mark to CNP window */
    guint pmtu;               /* PMTU to assume until learned; 0: learn it */
    roce_ws_bool check_icrc;  /* verify ICRCs */
    guint max_flows;          /* flows tracked at once */
    roce_ws_bool leave_ports; /* leave the port / EtherType to the built-in dissector */
};
extern struct roce_ws_prefs roce_ws_prefs;

/* The protocol "roce" (registered by roce_ws_proto_register). */
extern int roce_ws_proto;

void roce_ws_proto_register(void);
void roce_ws_proto_handoff(void);

/* How the frame being dissected reached the headers' dissector. */
enum roce_ws_route {
    ROCE_WS_ROUTE_OTHER = 0, /* not through this plugin's port / EtherType */
    ROCE_WS_ROUTE_BUILTIN,   /* through it: the built-in wrote the Info column */
    ROCE_WS_ROUTE_INFO_KEPT  /* through it, header-only: the built-in was kept off Info */
};

/* The text of an engine address of family af (enum roce_af, roce_addr.h)
 * as the CLI writes it, into buf: IPv6 or a GID and IPv4 (IPv4-mapped) as
 * Wireshark writes them, a LID as "lid:0x0012". */
static inline void roce_ws_address_text(const guint8 *addr, guint8 af, char *buf, size_t len)
{
    address a;
    if (af == ROCE_AF_LID) {
        snprintf(buf, len, ROCE_ADDR_LID_TEXT "%04x", (unsigned)roce_addr_lid(addr));
        return;
    }
    if (af == ROCE_AF_IPV6)
        set_address(&a, AT_IPv6, ROCE_ADDR_LEN, addr);
    else
        set_address(&a, AT_IPv4, ROCE_ADDR_V4_LEN, roce_addr_v4(addr));
    address_to_str_buf(&a, buf, (int)len);
}

/* ---- roce_ws_frames.c ---- */

/* Details of a frame that carries verdicts. Frame numbers are Wireshark's
 * (from 1); 0 means none. Copied from struct roce_verdict. */
struct roce_ws_detail {
    guint32 expected_psn, missing_psns;
    guint32 episode_frame, nak_frame, retransmitted_in;
    guint32 cnp_frame, cnp_for_frame, reuse_frame;
    gint64 nak_to_resend_ns, cnp_latency_ns;
    guint32 icrc_calc, icrc_wire;
    gint64 nak_generation_ns;
    guint32 dcqcn_before_mbps, dcqcn_after_mbps, dcqcn_ratio_ppm;
    guint16 vcrc_calc, vcrc_wire;
    guint8 expected_valid, trigger, nak_code, rnr_timer, has_nak_generation;
    guint8 gap_class, gap_reason, icrc_rewrite;
    guint16 icrc_rewrite_value;
    guint32 gap_decided_by, reorder_psns, reorder_gap_frame, response_frame;
    gint64 reorder_ns;
};

/* What the plugin keeps of each frame the engine found RoCE (or malformed
 * RoCE): the verdict, then a few decode facts needed for rendering. */
struct roce_ws_frame {
    /* from struct roce_verdict (settled when the engine delivered it) */
    struct roce_flow_key key;      /* valid when has_flow */
    struct roce_ws_detail *detail; /* NULL when flags == 0 */
    guint64 flow_id;               /* the engine's flow id (roce.flow.id), when has_flow */
    guint32 flags;                 /* enum roce_verdict_flag */
    guint32 psn, peer_dqpn;
    guint32 reuse; /* see roce_ws_frames.c: read-filter reuses */
    guint8 has_flow, transport, opcode, paired_by;
    /* from struct roce_pkt */
    guint32 bth_off;
    guint8 cls, version, malformed, truncated;
    guint8 bth_captured, icrc_status, fecn, becn;
    guint8 vcrc_status; /* native InfiniBand (version ROCE_VERSION_IB) */
    guint8 has_deth;    /* a captured DETH (UD, CNP on some NICs): deth_srcqp is the source QP */
    guint32 deth_srcqp;
};

/* Start a new engine for a new capture file from the preferences (init
 * routine). Without memory the plugin analyses nothing until the next file. */
void roce_ws_frames_init(void);

/* Free the engine (cleanup routine); the records go with the file scope. */
void roce_ws_frames_cleanup(void);

/*
 * The record of the frame being dissected, or NULL when the engine found no
 * RoCE in it. tvb is the whole frame (a postdissector's tvb). In the first
 * pass the frame is fed to the engine; on a revisited frame the engine is
 * first settled (roce_ws_settle) so that every verdict is final.
 */
const struct roce_ws_frame *roce_ws_frame_analyse(tvbuff_t *tvb, packet_info *pinfo);

/* Settle every verdict still open (roce_engine_finish), once per batch of
 * frames: after the first pass, or before a table is drawn. */
void roce_ws_settle(void);

/* The engine of the open capture file (NULL when none), for its reports. */
struct roce_engine *roce_ws_engine(void);

/* A number that changes whenever the engine's state does (frame fed,
 * settled, new file): report consumers rebuild when it moved. */
guint64 roce_ws_generation(void);

/* Whether nothing was fed since the engine was last settled: its reports
 * are final (the first pass is over). */
gboolean roce_ws_settled(void);

/* ---- roce_ws_render.c ---- */

/* Add the "RoCE analysis" tree and the expert infos of fr. tvb is the whole
 * frame; tree may be NULL (expert info is still added). Returns the tree
 * added (for roce_ws_diag_render). */
proto_tree *roce_ws_render(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
                           const struct roce_ws_frame *fr);

/* "address QP 0x..." of the source (the source QP is the paired flow's
 * destination QP; "QP ?" while unpaired) or destination end of fr's flow:
 * roce.endpoint and the key of the conversation and endpoint tables. */
const char *roce_ws_endpoint(wmem_allocator_t *scope, const struct roce_ws_frame *fr,
                             gboolean source);

/* Write the Info-column labels of fr. route says whether the Info column is
 * to be written (header-only frame) or renamed (CNP, which the built-in calls
 * "Unknown OpCode"). Called once per dissection: from the headers' dissector
 * when the frame came through it (so that _ws.col.info sees the labels from
 * 4.2 on), else from the postdissector. */
void roce_ws_render_info(packet_info *pinfo, const struct roce_ws_frame *fr,
                         enum roce_ws_route route);

/* ---- roce_ws_handoff.c ---- */

/* Register (or hand back) the UDP port and the EtherType per the
 * preferences; called by the handoff, the preference callback and the init
 * routine (the built-in InfiniBand dissector may have taken them back). */
void roce_ws_assert_ports(void);

/* ---- roce_ws_stats.c ---- */

/* Register the tap, "-z roce,flows" and the Statistics menu table. */
void roce_ws_stats_register(void);

/* Queue fr for the "roce" tap listeners. */
void roce_ws_stats_tap(packet_info *pinfo, const struct roce_ws_frame *fr);

/* ---- roce_ws_diag.c ---- */

/* Register "-z roce,diagnoses" (after the tap). */
void roce_ws_diag_register(void);
/* From the second pass on: an item and an expert info for every diagnosis
 * whose evidence this frame is, in rt (the frame's "RoCE analysis" tree),
 * or in a tree of their own under tree when rt is NULL (a PFC frame).
 * TRUE when it added any. */
gboolean roce_ws_diag_render(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, proto_tree *rt);
/* Forget the diagnoses of the file (cleanup routine). */
void roce_ws_diag_cleanup(void);
/* The diagnoses of the engine's current state (made once per generation;
 * empty when there is no engine or no memory): the RoCE Flows ranking
 * starts with the flows they name. */
const struct roce_diag_list *roce_ws_diagnoses(void);

#endif
