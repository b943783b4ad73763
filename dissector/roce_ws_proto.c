/*
 * roce_ws_proto.c - the protocol "roce", its preferences and its per-file
 * routines (see roce_ws.h).
 *
 * Preferences map onto the engine's options (struct roce_config) and are
 * read when a capture file is (re)dissected; changing one in the GUI makes
 * Wireshark redissect, which starts a fresh engine.
 */
#include "roce_ws.h"
#include "roce_ws_fields.h"

#define DEFAULT_CNP_WINDOW_US 100
#define DEFAULT_MAX_FLOWS     65536
#define MIN_MAX_FLOWS         4
#define MAX_UDP_PORT          65535
#define PMTU_MIN              256
#define PMTU_MAX              4096

int roce_ws_proto = -1;

struct roce_ws_prefs roce_ws_prefs = {
    .udp_port = ROCE_UDP_PORT_ROCEV2,
    .cnp_window_us = DEFAULT_CNP_WINDOW_US,
    .pmtu = 0,
    .check_icrc = TRUE,
    .max_flows = DEFAULT_MAX_FLOWS,
    .leave_ports = FALSE,
};

/* Nonzero when pmtu is 0 (learn it) or an IBTA MTU: 256, 512, ..., 4096. */
static int pmtu_valid(guint pmtu)
{
    if (pmtu == 0)
        return 1;
    for (guint m = PMTU_MIN; m <= PMTU_MAX; m *= 2)
        if (pmtu == m)
            return 1;
    return 0;
}

/* Preference callback: repair values the engine would refuse, then take or
 * give back the port and EtherType. */
static void prefs_changed(void)
{
    if (roce_ws_prefs.udp_port == 0 || roce_ws_prefs.udp_port > MAX_UDP_PORT) {
        ws_warning("rocescope: UDP port %u is not a port; using %u", roce_ws_prefs.udp_port,
                   ROCE_UDP_PORT_ROCEV2);
        roce_ws_prefs.udp_port = ROCE_UDP_PORT_ROCEV2;
    }
    if (!pmtu_valid(roce_ws_prefs.pmtu)) {
        ws_warning("rocescope: PMTU %u is not 256, 512, 1024, 2048 or 4096; learning it",
                   roce_ws_prefs.pmtu);
        roce_ws_prefs.pmtu = 0;
    }
    if (roce_ws_prefs.max_flows < MIN_MAX_FLOWS) {
        ws_warning("rocescope: max flows %u is below %u; using %u", roce_ws_prefs.max_flows,
                   MIN_MAX_FLOWS, MIN_MAX_FLOWS);
        roce_ws_prefs.max_flows = MIN_MAX_FLOWS;
    }
    roce_ws_assert_ports();
}

/* Init routine (each capture file): a fresh engine, and the port back from
 * the built-in dissector if its handoff took it (trap 1 of dissector/README.md,
 * "Why it attaches this way"). */
static void file_init(void)
{
    roce_ws_assert_ports();
    roce_ws_frames_init();
}

static void register_prefs(void)
{
    module_t *m = prefs_register_protocol(roce_ws_proto, prefs_changed);

    prefs_register_uint_preference(m, "udp_port", "RoCEv2 UDP destination port",
                                   "UDP destination port of RoCEv2 (the source port is entropy "
                                   "and is not looked at)",
                                   10, &roce_ws_prefs.udp_port);
    prefs_register_uint_preference(m, "cnp_window_us", "CNP window (microseconds)",
                                   "How far apart a CE mark and the CNP answering it may be", 10,
                                   &roce_ws_prefs.cnp_window_us);
    prefs_register_uint_preference(m, "pmtu", "PMTU (0: learn it from the capture)",
                                   "Path MTU to assume until the capture shows it: 256, 512, "
                                   "1024, 2048 or 4096; it sets how many PSNs a READ request "
                                   "spans",
                                   10, &roce_ws_prefs.pmtu);
    prefs_register_bool_preference(m, "check_icrc", "Verify the ICRC",
                                   "Compute the invariant CRC of each fully captured packet and "
                                   "flag those that do not match",
                                   &roce_ws_prefs.check_icrc);
    prefs_register_uint_preference(m, "max_flows", "Maximum flows tracked",
                                   "Flows tracked at once; the least recently active one is "
                                   "evicted (and counted) beyond that",
                                   10, &roce_ws_prefs.max_flows);
    prefs_register_bool_preference(
        m, "leave_ports", "Leave the port and EtherType to the built-in InfiniBand dissector",
        "Do not take UDP port 4791 and EtherType 0x8915: the built-in dissector then shows the "
        "headers as without this plugin (header-only frames as malformed, datagrams from source "
        "port 4791 as RoCE); the analysis still runs",
        &roce_ws_prefs.leave_ports);
}

void roce_ws_proto_register(void)
{
    roce_ws_proto = proto_register_protocol("RoCE analysis (rocescope)", "RoCE", "roce");
    roce_ws_fields_register(roce_ws_proto);
    register_prefs();
    register_init_routine(file_init);
    register_cleanup_routine(roce_ws_frames_cleanup);
    /* the diagnoses built from the engine (roce_ws_diag.c) sit on the frames */
    register_cleanup_routine(roce_ws_diag_cleanup);
    /* tshark -2 and the GUI: settle right after the first pass */
    register_postseq_cleanup_routine(roce_ws_settle);
    roce_ws_stats_register();
}
