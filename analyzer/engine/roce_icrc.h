/*
 * roce_icrc.h - CRC-32 and the RoCE invariant CRC.
 *
 * IBTA Vol. 1 7.8.1 (ICRC), Annex A16 (RoCEv1) and A17.3.3 (RoCEv2): the
 * ICRC is the reflected CRC-32 (polynomial 0xEDB88320, as Ethernet) over
 * 8 bytes of 0xFF standing in for the LRH, then the GRH or IP header, the
 * UDP header (RoCEv2), the BTH and everything up to the ICRC, with the
 * variant fields replaced by ones: IPv4 TOS, TTL and header checksum; IPv6 /
 * GRH traffic class, flow label and hop limit; the UDP checksum; BTH byte 4
 * (FECN, BECN, resv6). It is complemented and sent least significant byte
 * first.
 */
#ifndef ROCE_ICRC_H
#define ROCE_ICRC_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "roce_extract.h"
#include "roce_opcode.h"

/* Continue a CRC-32: crc is the running (pre-complemented) register. */
uint32_t roce_crc32_update(uint32_t crc, const uint8_t *p, size_t n);

/* The same with the tables only (no carry-less multiplication): for tests. */
uint32_t roce_crc32_update_tables(uint32_t crc, const uint8_t *p, size_t n);

/* Plain CRC-32 of a buffer (zlib's crc32 with an initial value of 0). */
uint32_t roce_crc32(const uint8_t *p, size_t n);

/*
 * The ICRC of a RoCE packet, as it reads with roce_get_le32() from the wire.
 * l3 points at the IP header (RoCEv2) or the GRH (RoCEv1); l3_hdr_len is
 * the length of that header including IPv6/IPv4 options or extension headers
 * up to the UDP header or BTH; is_v6 says whether l3 has the IPv6/GRH layout;
 * has_udp is nonzero for RoCEv2; rest points at the UDP header (RoCEv2) or
 * the BTH (RoCEv1) and rest_len counts the bytes from there up to, not
 * including, the ICRC. The caller guarantees all those bytes are captured.
 */
uint32_t roce_icrc_compute(const uint8_t *l3, size_t l3_hdr_len, int is_v6, int has_udp,
                           const uint8_t *rest, size_t rest_len);

/*
 * The ICRC of a native InfiniBand packet (IBA Vol. 1 7.8.1): len bytes from
 * the first byte of the LRH up to, not including, the ICRC; has_grh: a GRH
 * follows the LRH. Variant fields are replaced by ones: without a GRH the
 * LRH's VL; with one the whole LRH (routers rewrite it) and the GRH's
 * traffic class, flow label and hop limit; and BTH byte 4 (FECN, BECN,
 * resv6). So a global packet has the ICRC of the RoCEv1 packet with the
 * same GRH. The caller guarantees the bytes are captured.
 */
uint32_t roce_icrc_ib_compute(const uint8_t *lrh, int has_grh, size_t len);

/*
 * A bad ICRC explained by one 16-bit field: calc is what roce_icrc_compute()
 * (or roce_icrc_ib_compute()) returned, wire the ICRC read from the frame as
 * roce_get_le32() reads it, after the number of bytes of the computation
 * that follow the field's two bytes. When changing those two bytes alone
 * (by *xor_out, the first byte in the high half) makes the ICRC good,
 * returns 1 and sets *xor_out: the field was sent as its captured value
 * xor *xor_out (and rewritten on the way). Else 0. A random difference is
 * explained so by chance once in 65536.
 */
int roce_icrc_solve_field(uint32_t calc, uint32_t wire, size_t after, uint16_t *xor_out);

/* An ICRC as roce_icrc_compute() returns it, turned into the number its four
 * bytes make in wire order read big-endian: what Wireshark shows as the
 * Invariant CRC (infiniband.invariant.crc), and what the engine reports. */
static inline uint32_t roce_icrc_wire_value(uint32_t icrc)
{
    uint8_t wire[ROCE_ICRC_LEN];
    for (unsigned i = 0; i < ROCE_ICRC_LEN; i++)
        wire[i] = (uint8_t)(icrc >> (CHAR_BIT * i)); /* least significant byte first */
    return roce_get_be32(wire, 0);
}

#endif
