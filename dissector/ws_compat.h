/*
 * ws_compat.h - every use of the Wireshark API that depends on its version.
 *
 * Written against the Wireshark 4.0 development package (Debian 12: 4.0.17).
 * The rest of the plugin uses the long-standing dissector API (proto_*,
 * expert_*, col_*, dissector tables, postdissectors, taps,
 * stat_tap_table_ui, wmem). What is known to differ between releases, or
 * reaches into a structure, lives here, so a port to a newer Wireshark
 * starts in this one file:
 *   - the plugin ABI symbols (plugin_version, plugin_want_major/minor,
 *     plugin_register; 4.2 adds plugin_describe);
 *   - where the frame's link-layer type is found (pinfo->rec) and how
 *     Wireshark's WTAP_ENCAP_* numbers map to pcap LINKTYPE_* numbers (the
 *     wiretap function for this, wtap_wtap_encap_to_pcap_encap, is not
 *     exported in 4.0);
 *   - the tap-listener callback signature (4.0 added the flags argument);
 *   - shrinking a stat_tap_table (4.0 has no call for it).
 */
#ifndef ROCE_WS_COMPAT_H
#define ROCE_WS_COMPAT_H

#include <epan/exceptions.h>
#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/stat_tap_ui.h>
#include <epan/tap.h>
#include <epan/to_str.h>
#include <wiretap/wtap.h>
#include <ws_version.h>

#include "roce_decode.h"

#if WIRESHARK_VERSION_MAJOR < 4
#error "rocescope's plugin needs the Wireshark 4.0 (or newer) development package"
#endif

/* ---- plugin ABI (see plugin.c) ---- */

/*
 * The symbols Wireshark's plugin loader looks up: plugin_version,
 * plugin_want_major/minor (the release the binary is for: the loader of 4.0
 * only warns about another one) and plugin_register(), which hands over the
 * protocol's register and handoff routines. 4.2 and later also want
 * plugin_describe(). Used once, in plugin.c.
 */
#if WIRESHARK_VERSION_MAJOR > 4 || (WIRESHARK_VERSION_MAJOR == 4 && WIRESHARK_VERSION_MINOR >= 2)
#define ROCE_WS_PLUGIN_DESCRIBE                                                                    \
    WS_DLL_PUBLIC uint32_t plugin_describe(void);                                                  \
    uint32_t plugin_describe(void)                                                                 \
    {                                                                                              \
        return WS_PLUGIN_DESC_DISSECTOR;                                                           \
    }
#else
#define ROCE_WS_PLUGIN_DESCRIBE
#endif

#define ROCE_WS_DEFINE_PLUGIN(version, register_fn, handoff_fn)                                    \
    WS_DLL_PUBLIC_DEF const gchar plugin_version[] = version;                                      \
    WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;                       \
    WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;                       \
    WS_DLL_PUBLIC void plugin_register(void);                                                      \
    void plugin_register(void)                                                                     \
    {                                                                                              \
        static proto_plugin plug;                                                                  \
        plug.register_protoinfo = register_fn;                                                     \
        plug.register_handoff = handoff_fn;                                                        \
        proto_register_plugin(&plug);                                                              \
    }                                                                                              \
    ROCE_WS_PLUGIN_DESCRIBE

/* ---- link-layer type of the frame ---- */

/* The engine's link type (pcap LINKTYPE_* numbers) of the WTAP_ENCAP_* types
 * it decodes; -1 for everything else. */
static inline int roce_ws_encap_to_linktype(int encap)
{
    switch (encap) {
    case WTAP_ENCAP_ETHERNET:
        return ROCE_LINKTYPE_ETHERNET;
    case WTAP_ENCAP_RAW_IP:
        return ROCE_LINKTYPE_RAW;
    case WTAP_ENCAP_SLL:
        return ROCE_LINKTYPE_LINUX_SLL;
    case WTAP_ENCAP_RAW_IP4:
        return ROCE_LINKTYPE_IPV4;
    case WTAP_ENCAP_RAW_IP6:
        return ROCE_LINKTYPE_IPV6;
    case WTAP_ENCAP_SLL2:
        return ROCE_LINKTYPE_LINUX_SLL2;
    default:
        return -1;
    }
}

/* The LINKTYPE_* of the frame being dissected, or -1 when the record is not
 * a packet (pcapng events, journal entries...) or its type is not decoded. */
static inline int roce_ws_frame_linktype(const packet_info *pinfo)
{
    if (pinfo->rec == NULL || pinfo->rec->rec_type != REC_TYPE_PACKET)
        return -1;
    return roce_ws_encap_to_linktype(pinfo->rec->rec_header.packet_header.pkt_encap);
}

/* ---- taps ---- */

/* Parameter list of a tap packet callback (4.0: with tap_flags_t). */
#define ROCE_WS_TAP_PACKET_PARAMS                                                                  \
    void *tapdata, packet_info *pinfo, epan_dissect_t *edt, const void *data, tap_flags_t flags
#define ROCE_WS_TAP_PACKET_UNUSED                                                                  \
    do {                                                                                           \
        (void)tapdata;                                                                             \
        (void)pinfo;                                                                               \
        (void)edt;                                                                                 \
        (void)data;                                                                                \
        (void)flags;                                                                               \
    } while (0)

/*
 * Drop the rows of a stat_tap_table from row n on. 4.0 has no call for this:
 * stat_tap_init_table_row() allocates each row with g_new0 and
 * free_stat_tables() releases them with g_free, so we do the same. The
 * caller has already released what the rows point to.
 */
static inline void roce_ws_stat_table_truncate(stat_tap_table *table, guint n)
{
    for (guint i = n; i < table->num_elements; i++)
        g_free(table->elements[i]);
    if (n < table->num_elements)
        table->num_elements = n;
}

#endif
