/*
 * roce_layer.h - the decoder's layers and how one hands over to the next
 * (not for front ends: they call roce_decode()).
 *
 * roce_decode.c walks a frame from the link layer inwards: it reads the
 * link header and the VLAN tags itself and hands each network-layer header
 * to roce_ip.c, which hands the transport to roce_bth.c and a mirror
 * encapsulation (GRE, VXLAN) to roce_encap.c; an InfiniBand packet goes to
 * roce_ib.c, which hands the transport to roce_bth.c and a mirror to
 * roce_encap.c. An encapsulation decoder does
 * not decode the frame inside: it records where that frame starts
 * (pkt->encap_depth, inner_off, inner_type) and returns, and roce_decode.c
 * walks the frame like the outer one. So the calls run one way: from the
 * dispatcher down.
 */
#ifndef ROCE_LAYER_H
#define ROCE_LAYER_H

#include <stddef.h>
#include <stdint.h>

#include "roce_pkt.h"

/* ---- network layer (roce_ip.c) ---- */

/* IPv4 at off: RoCEv2 (UDP to cfg->udp_port), VXLAN (UDP to cfg->vxlan_port) or GRE. */
void roce_decode_ipv4(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                      size_t off, struct roce_pkt *pkt);
/* IPv6 at off, after its extension headers: as IPv4. */
void roce_decode_ipv6(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                      size_t off, struct roce_pkt *pkt);
/* The GRH of a RoCEv1 frame (EtherType 0x8915) at off, then the transport. */
void roce_decode_grh(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen, size_t off,
                     struct roce_pkt *pkt);
/* Addresses (af ROCE_AF_IPV6) and traffic class of the IPv6 header or GRH
 * at off (captured), and l3_off. */
void roce_take_v6_header(const uint8_t *p, size_t off, struct roce_pkt *pkt);

/* ---- InfiniBand (roce_ib.c) ---- */

/* An InfiniBand packet whose LRH is at off: the LRH, a GRH, then the
 * transport; raw and IPv6 packets counted; the VCRC checked. */
void roce_decode_lrh(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                     size_t off, struct roce_pkt *pkt);

/* ---- encapsulations and MAC Control (roce_encap.c) ---- */

/* GRE at off inside an IP datagram that ends at end: records the mirrored frame. */
void roce_decode_gre(const uint8_t *p, size_t caplen, size_t off, size_t end, struct roce_pkt *pkt);
/* VXLAN header at off (after the UDP header), datagram ending at end: records the inner frame. */
void roce_decode_vxlan(const uint8_t *p, size_t caplen, size_t off, size_t end,
                       struct roce_pkt *pkt);
/* The payload of an InfiniBand raw packet with EtherType 0x1123 at off (the
 * mirroring switch's LID: slid): records the mirrored packet after its
 * 4-byte prefix. */
void roce_decode_ib_mirror(const uint8_t *p, size_t caplen, size_t off, uint16_t slid,
                           struct roce_pkt *pkt);
/* MAC Control payload (after EtherType 0x8808) at off. */
void roce_decode_mac_control(const uint8_t *p, size_t caplen, size_t off, struct roce_pkt *pkt);

#endif
