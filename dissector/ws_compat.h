/*
 * ws_compat.h - every use of the Wireshark API that depends on its version.
 *
 * Built and tested against Wireshark 4.0 (Debian 12), 4.4 (Debian 13) and
 * 4.6 (Debian unstable); see dissector/README.md for what was tried where.
 * The rest of the plugin uses the long-standing dissector API (proto_*,
 * expert_*, col_*, dissector tables, postdissectors, taps,
 * stat_tap_table_ui, conversation tables, wmem). What differs between
 * releases, or reaches into a structure, lives here, behind
 * ROCE_WS_AT_LEAST(major, minor):
 *   - the plugin ABI: 4.0 and 4.2 look up plugin_version,
 *     plugin_want_major/minor and plugin_register (4.0 only warns about a
 *     plugin built for another minor version, 4.2 and later refuse it: one
 *     build per minor version); 4.4 adds plugin_describe (wsutil/plugins.h);
 *     master (4.7 development) replaces all of them with one
 *     wireshark_load_module() handing over a struct ws_module, checked
 *     against WIRESHARK_ABI_VERSION_EPAN, in a file named .so.<ABI>
 *     (dissector/CMakeLists.txt);
 *   - boolean preferences: gboolean * up to 4.2, bool * from 4.4;
 *   - the -z init callback of a stat_tap_ui: void up to 4.4, bool from 4.6;
 *   - the conversation type argument of the conversation tables;
 *   - where the frame's link-layer type is found (pinfo->rec) and how
 *     Wireshark's WTAP_ENCAP_* numbers map to pcap LINKTYPE_* numbers (the
 *     wiretap function for this, wtap_wtap_encap_to_pcap_encap, is not
 *     exported in 4.0);
 *   - the tap-listener callback signature (4.0 added the flags argument);
 *   - shrinking a stat_tap_table (no call for it).
 */
#ifndef ROCE_WS_COMPAT_H
#define ROCE_WS_COMPAT_H

#include <epan/exceptions.h>
#include <epan/expert.h>
#include <epan/packet.h>
/* after packet.h: 4.0's conversation_table.h does not include GLib itself */
#include <epan/conversation_table.h>
#include <epan/prefs.h>
#include <epan/stat_tap_ui.h>
#include <epan/tap.h>
#include <epan/to_str.h>
#include <wiretap/wtap.h>
#include <ws_version.h>

#include "roce_linktype.h" /* the engine's: the link type of an ERF record type */
#include "roce_decode.h"

/* Nonzero when building against Wireshark major.minor or later. */
#define ROCE_WS_AT_LEAST(major, minor)                                                             \
    (WIRESHARK_VERSION_MAJOR > (major) ||                                                          \
     (WIRESHARK_VERSION_MAJOR == (major) && WIRESHARK_VERSION_MINOR >= (minor)))

#if !ROCE_WS_AT_LEAST(4, 0)
#error "rocescope's plugin needs the Wireshark 4.0 (or newer) development package"
#endif

#if ROCE_WS_AT_LEAST(4, 4)
#include <wsutil/plugins.h>
#endif

/* ---- plugin ABI (see plugin.c) ---- */

/* The licence the plugin declares to the loader (master refuses a plugin
 * that declares none compatible with the GPL, which libwireshark is under). */
#define ROCE_WS_PLUGIN_SPDX "GPL-2.0-or-later"
#define ROCE_WS_PLUGIN_BLURB "RoCE analysis (rocescope): the rocescope engine's verdicts per frame"

/* The protocol's register and handoff routines handed to Wireshark. */
#define ROCE_WS_PROTO_PLUGIN_REGISTER(register_fn, handoff_fn)                                     \
    do {                                                                                           \
        static proto_plugin plug;                                                                  \
        plug.register_protoinfo = register_fn;                                                     \
        plug.register_handoff = handoff_fn;                                                        \
        proto_register_plugin(&plug);                                                              \
    } while (0)

#if ROCE_WS_AT_LEAST(4, 7)
/*
 * master: one entry point, wireshark_load_module(), defined by
 * WIRESHARK_PLUGIN_REGISTER_EPAN (wsutil/plugins.h) around a struct
 * ws_module; the loader checks WIRESHARK_ABI_VERSION_EPAN (ws_version.h)
 * and the licence. No minimum API level is asked for (0).
 */
#ifndef WIRESHARK_ABI_VERSION_EPAN
#error "Wireshark 4.7 or later without WIRESHARK_ABI_VERSION_EPAN: module registration changed again"
#endif
#define ROCE_WS_DEFINE_PLUGIN(ver, register_fn, handoff_fn)                                    \
    static void roce_ws_module_register(void)                                                      \
    {                                                                                              \
        ROCE_WS_PROTO_PLUGIN_REGISTER(register_fn, handoff_fn);                                    \
    }                                                                                              \
    static struct ws_module roce_ws_module = {                                                     \
        .license = WS_PLUGIN_IS_GPLv2_OR_LATER,                                                    \
        .flags = WS_PLUGIN_DESC_DISSECTOR | WS_PLUGIN_DESC_TAP_LISTENER,                           \
        .version = ver,                                                                            \
        .spdx_id = ROCE_WS_PLUGIN_SPDX,                                                            \
        .home_url = "",                                                                            \
        .blurb = ROCE_WS_PLUGIN_BLURB,                                                             \
        .register_cb = roce_ws_module_register,                                                    \
    };                                                                                             \
    /* the macro defines it without a prototype (-Wmissing-prototypes) */                     \
    WS_DLL_PUBLIC plugin_type_e wireshark_load_module(int *, int *, struct ws_module **);          \
    WIRESHARK_PLUGIN_REGISTER_EPAN(&roce_ws_module, 0)
#else
/* 4.0 to 4.6: plugin_version, plugin_want_major/minor, plugin_register;
 * from 4.4 also plugin_describe. */
#if ROCE_WS_AT_LEAST(4, 4)
#define ROCE_WS_PLUGIN_DESCRIBE                                                                    \
    WS_DLL_PUBLIC uint32_t plugin_describe(void);                                                  \
    uint32_t plugin_describe(void)                                                                 \
    {                                                                                              \
        return WS_PLUGIN_DESC_DISSECTOR | WS_PLUGIN_DESC_TAP_LISTENER;                             \
    }
#else
#define ROCE_WS_PLUGIN_DESCRIBE
#endif
#define ROCE_WS_DEFINE_PLUGIN(ver, register_fn, handoff_fn)                                    \
    WS_DLL_PUBLIC_DEF const gchar plugin_version[] = ver;                                          \
    WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;                       \
    WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;                       \
    WS_DLL_PUBLIC void plugin_register(void);                                                      \
    void plugin_register(void)                                                                     \
    {                                                                                              \
        ROCE_WS_PROTO_PLUGIN_REGISTER(register_fn, handoff_fn);                                    \
    }                                                                                              \
    ROCE_WS_PLUGIN_DESCRIBE
#endif

/* ---- preferences ---- */

/* The variable type prefs_register_bool_preference() takes. */
#if ROCE_WS_AT_LEAST(4, 4)
typedef bool roce_ws_bool;
#else
typedef gboolean roce_ws_bool;
#endif

/* ---- -z init callbacks (stat_tap_ui.tap_init_cb) ---- */

/* The return type of a tap_init_cb, and how it ends: from 4.6 it says
 * whether the listener was registered. */
#if ROCE_WS_AT_LEAST(4, 6)
#define ROCE_WS_TAP_INIT_RET bool
#define ROCE_WS_TAP_INIT_RETURN(ok) return (ok)
#else
#define ROCE_WS_TAP_INIT_RET void
#define ROCE_WS_TAP_INIT_RETURN(ok)                                                                \
    do {                                                                                           \
        (void)(ok);                                                                                \
        return;                                                                                    \
    } while (0)
#endif

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
 * a packet (pcapng events, journal entries...) or its type is not decoded.
 * An ERF record (ERF files, pcap of link type ERF as ibdump writes them)
 * has the link type of what it carries: wiretap keeps the record's headers
 * (and an Ethernet record's padding) out of the frame's bytes. */
static inline int roce_ws_frame_linktype(const packet_info *pinfo)
{
    if (pinfo->rec == NULL || pinfo->rec->rec_type != REC_TYPE_PACKET)
        return -1;
    const union wtap_pseudo_header *ph = &pinfo->rec->rec_header.packet_header.pseudo_header;
    int encap = pinfo->rec->rec_header.packet_header.pkt_encap;
    if (encap == WTAP_ENCAP_ERF) {
        int lt = roce_erf_type_linktype(ph->erf.phdr.type & ROCE_ERF_TYPE_MASK);
        return lt != 0 ? lt : -1;
    }
    return roce_ws_encap_to_linktype(encap);
}

/* The whole frame being dissected (its first data source), or NULL. */
static inline tvbuff_t *roce_ws_frame_tvb(const packet_info *pinfo)
{
    if (pinfo->data_src == NULL)
        return NULL;
    return get_data_source_tvb((const struct data_source *)pinfo->data_src->data);
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
