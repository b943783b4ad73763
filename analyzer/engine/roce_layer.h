/*
 * roce_layer.h - the decoder's layers and how one hands over to the next
 * (not for front ends: they call roce_decode()).
 *
 * roce_decode.c walks a frame from the link layer inwards. It reads the
 * link header and the VLAN tags itself and hands each network-layer header
 * to roce_ip.c (which hands the transport to roce_bth.c) and each
 * encapsulation or MAC Control frame to roce_encap.c. A layer that finds
 * another frame inside (a mirror encapsulation) does not decode it: it says
 * in a struct roce_next where that frame is, and the walk goes on from
 * there. So the calls run one way: from the dispatcher to the layers.
 */
#ifndef ROCE_LAYER_H
#define ROCE_LAYER_H

#include <stddef.h>
#include <stdint.h>

#include "roce_pkt.h"

/* Where the walk goes next. */
enum roce_layer {
    ROCE_LAYER_END = 0,   /* nothing more to decode */
    ROCE_LAYER_ETHER,     /* an Ethernet frame at off (destination MAC first) */
    ROCE_LAYER_ETHERTYPE, /* what EtherType `type` carries, at off: VLAN tags, a network layer */
    ROCE_LAYER_GRE,       /* a GRE header at off, in an IP datagram ending at end */
    ROCE_LAYER_VXLAN      /* a VXLAN header at off (after the UDP header), datagram ending at end */
};

struct roce_next {
    uint8_t layer; /* enum roce_layer */
    unsigned type; /* the EtherType, for ROCE_LAYER_ETHERTYPE */
    size_t off;
    size_t end;
};

/* ---- network layer (roce_ip.c): set *next only when an encapsulation follows ---- */

/* IPv4 at off: RoCEv2 (UDP to cfg->udp_port), VXLAN (UDP to cfg->vxlan_port) or GRE. */
void roce_decode_ipv4(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                      size_t off, struct roce_pkt *pkt, struct roce_next *next);
/* IPv6 at off, after its extension headers: as IPv4. */
void roce_decode_ipv6(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                      size_t off, struct roce_pkt *pkt, struct roce_next *next);
/* The GRH of a RoCEv1 frame (EtherType 0x8915) at off, then the transport. */
void roce_decode_grh(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                     size_t off, struct roce_pkt *pkt);

/* ---- encapsulations and MAC Control (roce_encap.c) ---- */

/* GRE at off inside an IP datagram that ends at end: sets *next to the mirrored frame. */
void roce_decode_gre(const uint8_t *p, size_t caplen, size_t off, size_t end,
                     struct roce_pkt *pkt, struct roce_next *next);
/* VXLAN header at off, datagram ending at end: sets *next to the inner frame. */
void roce_decode_vxlan(const uint8_t *p, size_t caplen, size_t off, size_t end,
                       struct roce_pkt *pkt, struct roce_next *next);
/* MAC Control payload (after EtherType 0x8808) at off. */
void roce_decode_mac_control(const uint8_t *p, size_t caplen, size_t off, struct roce_pkt *pkt);

#endif
