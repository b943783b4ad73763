/*
 * rocegen_encap.h - mirror encapsulations around a built frame (ERSPAN I,
 * II, III, GRE transparent Ethernet bridging, VXLAN) and MAC Control frames
 * (802.3x PAUSE, 802.1Qbb PFC), for rocegen and the tests.
 */
#ifndef ROCEGEN_ENCAP_H
#define ROCEGEN_ENCAP_H

#include <stddef.h>
#include <stdint.h>

#include "rocegen_build.h"

enum rg_wrap_kind {
    RG_WRAP_NONE = 0,
    RG_WRAP_ERSPAN1, /* GRE 0x88BE, no sequence number, no ERSPAN header */
    RG_WRAP_ERSPAN2, /* GRE 0x88BE with sequence number, ERSPAN type II header */
    RG_WRAP_ERSPAN3, /* GRE 0x22EB with sequence number, ERSPAN type III header */
    RG_WRAP_GRE_TEB, /* GRE 0x6558 */
    RG_WRAP_VXLAN,   /* UDP to 4789, VXLAN header */
    RG_WRAP_IB_MIRROR /* InfiniBand raw packet outer.slid -> outer.dlid, EtherType 0x1123,
                         4-byte prefix (zero), the InfiniBand packet (to its VCRC), padded to
                         4 bytes: a switch's mirror, as ibdump --decap removes it */
};

struct rg_wrap {
    enum rg_wrap_kind kind;
    struct rg_spec outer; /* the tunnel's link layer and IP (kind and payload are set here) */
    uint16_t session;     /* ERSPAN session ID (10 bits) */
    uint32_t vni;         /* VXLAN network identifier (24 bits) */
    uint32_t seq;         /* GRE sequence number of the next frame (ERSPAN II/III) */
    uint8_t subheader;    /* ERSPAN III: add the 8-byte platform-specific subheader */
};

/* Set up w for kind with the tunnel between IPv4 hosts src and dst (host order). */
void rg_wrap_init(struct rg_wrap *w, enum rg_wrap_kind kind, uint32_t src, uint32_t dst);

/* Wrap the Ethernet frame inner (inner_len bytes) into buf (cap bytes):
 * tunnel Ethernet, IP, GRE (+ERSPAN) or UDP + VXLAN, then the frame (an
 * InfiniBand mirror: the InfiniBand packet in a raw packet). Returns the
 * length or a negative enum rg_error; advances w->seq. */
int rg_wrap_build(struct rg_wrap *w, const uint8_t *inner, size_t inner_len, uint8_t *buf,
                  size_t cap);

/* MAC Control opcodes. */
#define RG_MACCTRL_PAUSE 0x0001u
#define RG_MACCTRL_PFC   0x0101u
#define RG_PFC_PRIOS     8

/* A MAC Control frame from src_mac to 01:80:C2:00:00:01, padded to 60
 * bytes: PAUSE (quanta[0]) or PFC (class-enable vector cev, quanta[0..7]).
 * Returns the length or a negative enum rg_error. */
int rg_build_mac_control(unsigned opcode, uint8_t cev, const uint16_t quanta[RG_PFC_PRIOS],
                         const uint8_t src_mac[RG_MAC_LEN], uint8_t *buf, size_t cap);

#endif
