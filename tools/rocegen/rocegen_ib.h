/*
 * rocegen_ib.h - native InfiniBand frames of the rocegen_build library
 * (rocegen_ib.c): a RoCE spec turned into the same traffic over InfiniBand,
 * and rg_build() of the InfiniBand kinds.
 */
#ifndef ROCEGEN_IB_H
#define ROCEGEN_IB_H

#include <stddef.h>
#include <stdint.h>

#include "rocegen_spec.h"

/*
 * The same traffic over native InfiniBand (rocescope's tests compare the
 * two): ib = s as a packet of kind RG_KIND_IB on link type 247 with the
 * same transport (BTH onwards, payload, time and ICRC corruption alike):
 * RoCEv2's IP addresses become LIDs (their last two bytes), RoCEv1's GIDs
 * stay GIDs in a GRH, ECN CE becomes FECN, the RoCEv2 CNP (0x81, 16
 * reserved bytes) the InfiniBand CNP (0x80), the first VLAN tag's PCP the
 * SL. Any other spec becomes a raw packet (RG_KIND_IB_RAW) of the same
 * payload length carrying its network layer's EtherType.
 */
void rg_spec_to_ib(const struct rg_spec *s, struct rg_spec *ib);

/* rg_build() of the InfiniBand kinds (RG_KIND_IB, _IB_RAW, _IB_IPV6): the
 * frame into buf (cap bytes), its length or a negative enum rg_error. Called
 * by rg_build() only. */
int rg_build_ib(const struct rg_spec *s, uint8_t *buf, size_t cap, struct rg_layout *lay);

#endif
