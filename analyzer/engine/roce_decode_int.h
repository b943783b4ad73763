/*
 * roce_decode_int.h - the decoder's internal entry points, shared by
 * roce_decode.c (link layer, IP, UDP, BTH) and roce_encap.c (GRE, ERSPAN,
 * VXLAN, MAC Control). Not for front ends.
 */
#ifndef ROCE_DECODE_INT_H
#define ROCE_DECODE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "roce_decode.h"

/* An Ethernet frame starting at off (destination MAC first). */
void roce_decode_ether(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                       size_t off, struct roce_pkt *pkt);
/* EtherType `type` whose payload starts at off: VLAN tags, then the network layer. */
void roce_decode_ethertype(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                           unsigned type, size_t off, struct roce_pkt *pkt);
/* GRE at off inside an IP datagram that ends at end. */
void roce_decode_gre(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                     size_t off, size_t end, struct roce_pkt *pkt);
/* VXLAN header at off (after the outer UDP header), datagram ending at end. */
void roce_decode_vxlan(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                       size_t off, size_t end, struct roce_pkt *pkt);
/* MAC Control payload (after EtherType 0x8808) at off. */
void roce_decode_mac_control(const uint8_t *p, size_t caplen, size_t off, struct roce_pkt *pkt);

#define ROCE_ETHERTYPE_MAC_CONTROL 0x8808u
#define ROCE_IPPROTO_GRE 47u

#endif
