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

#define ROCE_BTH_OPCODE_OFF 0
#define ROCE_BTH_FLAGS_OFF  1
#define ROCE_BTH_SE_BIT     0x80u
#define ROCE_BTH_M_BIT      0x40u
#define ROCE_BTH_PAD_SHIFT  4
#define ROCE_BTH_PAD_MASK   0x3u
#define ROCE_BTH_TVER_MASK  0x0Fu
#define ROCE_BTH_PKEY_OFF   2
#define ROCE_BTH_FB_OFF     4
#define ROCE_BTH_FECN_BIT   0x80u
#define ROCE_BTH_BECN_BIT   0x40u
#define ROCE_BTH_DQPN_OFF   5
#define ROCE_BTH_ACKREQ_OFF 8
#define ROCE_BTH_ACKREQ_BIT 0x80u
#define ROCE_BTH_PSN_OFF    9

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
