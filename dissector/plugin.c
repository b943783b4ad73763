/*
 * plugin.c - the entry points Wireshark's plugin loader looks up in
 * rocescope.so (their version-dependent form is in ws_compat.h).
 */
#include "roce_ws.h"

#ifndef ROCE_WS_PLUGIN_VERSION
#define ROCE_WS_PLUGIN_VERSION "0.0.0"
#endif

ROCE_WS_DEFINE_PLUGIN(ROCE_WS_PLUGIN_VERSION, roce_ws_proto_register, roce_ws_proto_handoff)
