/*
 * roce_bth.h - the transport: Base Transport Header and extension header
 * decoders, and the checks of a RoCE packet's declared lengths and ICRC.
 *
 * IBTA Vol. 1 9.2 (BTH), 9.3 (extension headers).
 *
 *   BTH (12 bytes)
 *    0                   1                   2                   3
 *   +---------------+-+-+---+-------+-------------------------------+
 *   |    OpCode     |S|M|Pad| TVer  |             P_Key             |
 *   +-+-+-----------+-+-+---+-------+-------------------------------+
 *   |F|B|   resv6   |                 DestQP                        |
 *   +-+-------------+-----------------------------------------------+
 *   |A|   resv7     |                  PSN                          |
 *   +-+-------------+-----------------------------------------------+
 */
#ifndef ROCE_BTH_H
#define ROCE_BTH_H

#include <stddef.h>
#include <stdint.h>

#include "roce_pkt.h"

/* The BTH layout (ROCE_BTH_*_OFF, _BIT, _MASK): roce_pkt.h, public. */

/*
 * The transport of a RoCE packet whose BTH starts at pkt->bth_off, with
 * `declared` bytes from the BTH to the end of the ICRC by the lengths the
 * network headers declare: checks that they hold the BTH, the opcode's
 * extension headers, the pad and the ICRC (else the packet is malformed),
 * decodes what was captured of them, and checks the ICRC when the whole
 * packet was captured and cfg->check_icrc is set. Needs pkt->l3_off,
 * l3_hdr_len, af, l4_off and version (lrh_off and has_grh for InfiniBand).
 */
void roce_transport_decode(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                           size_t declared, struct roce_pkt *pkt);

/* Decode the 12 BTH bytes at bth into pkt (opcode fields, op, hdrs). */
void roce_bth_decode(const uint8_t *bth, struct roce_pkt *pkt);

/* Decode the extension headers of pkt->hdrs that lie within caplen; sets
 * pkt->hdrs_captured. Needs pkt->bth_off. */
void roce_ext_decode(const uint8_t *p, size_t caplen, struct roce_pkt *pkt);

#endif
