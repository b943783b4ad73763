/*
 * rocegen_list.c - the table of rocegen scenarios (names, link types,
 * default snaplens). captures/README.md describes each one frame by frame.
 */
#include <string.h>

#include "rocegen_scen.h"

#define SNAPLEN_HEADERS 64u /* the truncated scenario: header-only frames */

const struct rg_scenario rg_scenarios[] = {
    {"clean_rc", "CM, SEND, multi-packet WRITE, READ, ACKs, DREQ/DREP: no verdicts",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_clean_rc},
    {"loss_sender", "captured at the sender: lost after the capture point, NAK, go-back-N",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_loss_sender},
    {"loss_receiver", "captured at the receiver: PSN gap, NAK, go-back-N; gap vs CM start PSN",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_loss_receiver},
    {"timeout", "resend without a NAK (ACK timeout)", RG_LINKTYPE_ETHERNET, 0, rg_scen_timeout},
    {"rnr", "RNR NAK with timer 14 (1.28 ms), resend after it", RG_LINKTYPE_ETHERNET, 0,
     rg_scen_rnr},
    {"nak_codes", "NAKs with codes 1-5 and an AETH of the reserved type", RG_LINKTYPE_ETHERNET, 0,
     rg_scen_nak_codes},
    {"read_loss", "lost READ response: response gap, READ re-issued (trigger implied)",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_read_loss},
    {"read_span", "READ spans with unknown, then request-learned PMTU (one direction only)",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_read_span},
    {"psn_reuse", "a SEND reusing the last PSN of a 3-PSN READ (Soft-RoCE stall)",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_psn_reuse},
    {"psn_wrap", "PSNs crossing 0xFFFFFF -> 0 with a READ, a gap and a resend",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_psn_wrap},
    {"nak_unpaired", "a NAK seen before its flows could be paired still triggers the resend",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_nak_unpaired},
    {"cm_reuse", "two CM connections reusing one QP pair with fresh start PSNs: no verdicts",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_cm_reuse},
    {"ecn_cnp", "CE marks and CNPs: matched, coalesced, unanswered, unexplained, fallback",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_ecn_cnp},
    {"cnp_before_pairing", "CNPs before the ACK that pairs their connection (same time): as after",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_cnp_before_pairing},
    {"cnp_after_pairing", "cnp_before_pairing with each CNP and its pairing ACK the other way",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_cnp_after_pairing},
    {"uc", "UC: gaps only, no retransmission analysis", RG_LINKTYPE_ETHERNET, 0, rg_scen_uc},
    {"xrc", "XRC with XRCETH: gap, NAK, go-back-N", RG_LINKTYPE_ETHERNET, 0, rg_scen_xrc},
    {"ud_atomic", "UD SENDs with DETH; RC atomics, SEND w/ Invalidate, WRITE w/ Immediate",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_ud_atomic},
    {"ipv6_vlan", "RoCEv2 over IPv6 with an 802.1Q tag and with QinQ, PCP 3", RG_LINKTYPE_ETHERNET,
     0, rg_scen_ipv6_vlan},
    {"rocev1", "RoCEv1 (EtherType 0x8915, GRH, IPv4-mapped GIDs) with a resend",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_rocev1},
    {"truncated", "header-only frames (snaplen 64)", RG_LINKTYPE_ETHERNET, SNAPLEN_HEADERS,
     rg_scen_truncated},
    {"noise", "ARP, TCP, UDP, fragments, source ports 4791 and 69 around a little RoCE",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_noise},
    {"malformed", "one frame per malformed reason between good SENDs", RG_LINKTYPE_ETHERNET, 0,
     rg_scen_malformed},
    {"bad_icrc", "one frame with a wrong ICRC", RG_LINKTYPE_ETHERNET, 0, rg_scen_bad_icrc},
    {"linktype_sll", "the linktype exchange as Linux cooked capture v1 (113)",
     RG_LINKTYPE_LINUX_SLL, 0, rg_scen_linktype},
    {"linktype_sll2", "the linktype exchange as Linux cooked capture v2 (276)",
     RG_LINKTYPE_LINUX_SLL2, 0, rg_scen_linktype},
    {"linktype_raw", "the linktype exchange as raw IP (101)", RG_LINKTYPE_RAW, 0, rg_scen_linktype},
    {"linktype_ipv4", "the linktype exchange as raw IPv4 (228)", RG_LINKTYPE_IPV4, 0,
     rg_scen_linktype},
    {"linktype_ipv6", "the linktype exchange over IPv6 as raw IPv6 (229)", RG_LINKTYPE_IPV6, 0,
     rg_scen_linktype_v6},
    {"erspan2", "the linktype exchange behind a VLAN tag, mirrored with ERSPAN type II",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_erspan2},
    {"erspan3", "the linktype exchange and a PFC frame, mirrored with ERSPAN type III",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_erspan3},
    {"vxlan", "the linktype exchange, a CE mark and its CNP, in VXLAN", RG_LINKTYPE_ETHERNET, 0,
     rg_scen_vxlan},
    {"gre", "the linktype exchange in ERSPAN type I, then in GRE transparent Ethernet bridging",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_gre},
    {"pfc", "a PFC pause storm on priority 3, PFC on priority 4, an 802.3x PAUSE",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_pfc},
    {"loss_nocm", "no CM, PSN wrap: gap, NAK, go-back-N, RNR NAK, timeout (headers in 64 B)",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_loss_nocm},
    {"read_nocm", "no CM: lost READ response, READ re-issued, PSN reuse (headers in 96 B)",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_read_nocm},
    {"ecn_nocm", "no CM: CE marks and CNPs, a CNP before the pairing, ECT(1) (headers in 96 B)",
     RG_LINKTYPE_ETHERNET, 0, rg_scen_ecn_nocm},
    {NULL, NULL, 0, 0, NULL},
};

/* Linear search of the table. */
const struct rg_scenario *rg_scenario_find(const char *name)
{
    for (const struct rg_scenario *s = rg_scenarios; s->name != NULL; s++)
        if (strcmp(s->name, name) == 0)
            return s;
    return NULL;
}
