/*
 * roce_decode.h - from frame bytes to a decoded RoCE packet (roce_pkt.h).
 *
 * Link types (tcpdump.org/linktypes.html): Ethernet, Linux cooked capture
 * v1 and v2, raw IP, raw IPv4, raw IPv6, InfiniBand (LRH first, the VCRC
 * last; IBA Vol. 1 7.7). Up to ROCE_VLAN_MAX_TAGS (four)
 * stacked 802.1Q/802.1ad tags are walked; the PCP and VID of the outer
 * ROCE_MAX_VLANS (two) are recorded, n_vlans counts them all. RoCEv1:
 * EtherType 0x8915, GRH, BTH (IBTA Annex A16). RoCEv2: IPv4 or IPv6, UDP
 * destination port 4791, BTH (IBTA Annex A17). Mirror encapsulations (GRE,
 * ERSPAN, VXLAN, InfiniBand mirrors) are unwrapped and MAC Control frames
 * (PAUSE, PFC) decoded.
 *
 * The decoder never reads past the captured length and keeps three outcomes
 * apart: non-RoCE, RoCE and malformed (roce_pkt.h).
 */
#ifndef ROCE_DECODE_H
#define ROCE_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "roce_linktype.h"
#include "roce_pkt.h"

/*
 * Decode one frame. p holds caplen captured bytes of a frame that was
 * wirelen bytes long. Fills *pkt (always, also for non-RoCE frames).
 * Returns 0, or -1 when the link type is not supported (pkt is then a
 * non-RoCE packet). Never reads beyond caplen.
 */
int roce_decode(const struct roce_decode_cfg *cfg, int linktype, const uint8_t *p, size_t caplen,
                size_t wirelen, struct roce_pkt *pkt);

#endif
