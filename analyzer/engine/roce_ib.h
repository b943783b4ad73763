/*
 * roce_ib.h - native InfiniBand below the transport: the Local Route Header,
 * what its next header field says follows, and the VCRC (roce_ib.c; not for
 * front ends: they call roce_decode() with link type 247, LINKTYPE_INFINIBAND).
 *
 * IBA Vol. 1 7.7 (LRH), 7.8 (CRCs), 8.3 (GRH), 5.3 (raw packets).
 *
 *   LRH (8 bytes)
 *    0                   1                   2                   3
 *   +-------+-------+-------+---+---+-------------------------------+
 *   |  VL   | LVer  |  SL   |rsv|LNH|             DLID              |
 *   +-------+-------+-------+---+---+-------------------------------+
 *   | rsv (5) |     PktLen (11)     |             SLID              |
 *   +---------+---------------------+-------------------------------+
 *
 * LNH: 3 IBA global (GRH, then the BTH when the GRH's next header is 0x1B),
 * 2 IBA local (BTH), 1 IP non-IBA transport (an IPv6 header), 0 raw (a raw
 * header: reserved (16) | EtherType (16), then its payload). PktLen counts
 * the 4-byte words from the first byte of the LRH to the last of the ICRC
 * (raw packets have none); the 2-byte VCRC follows them.
 */
#ifndef ROCE_IB_H
#define ROCE_IB_H

#include <stddef.h>
#include <stdint.h>

#define ROCE_LRH_LEN         8
#define ROCE_IB_GRH_LEN      40
#define ROCE_VCRC_LEN        2
#define ROCE_LRH_WORD        4 /* PktLen unit */
#define ROCE_LRH_VL_SHIFT    4
#define ROCE_LRH_LVER_MASK   0x0Fu
#define ROCE_LRH_SL_SHIFT    4
#define ROCE_LRH_LNH_MASK    0x03u
#define ROCE_LRH_DLID_OFF    2
#define ROCE_LRH_PKTLEN_OFF  4
#define ROCE_LRH_PKTLEN_MASK 0x07FFu
#define ROCE_LRH_SLID_OFF    6
#define ROCE_IB_RWH_LEN      4 /* raw header: reserved (16), EtherType (16) */
#define ROCE_IB_RWH_TYPE_OFF 2

/* LRH next header (LNH). */
enum roce_lnh {
    ROCE_LNH_RAW = 0,
    ROCE_LNH_IPV6 = 1,  /* IP non-IBA transport */
    ROCE_LNH_LOCAL = 2, /* IBA local: BTH */
    ROCE_LNH_GLOBAL = 3 /* IBA global: GRH */
};

/* The VCRC of n bytes (from the first byte of the LRH to the last of the
 * ICRC, or of the payload of a raw packet): CRC-16 with the polynomial
 * x^16 + x^12 + x^3 + x + 1 (0x100B), reflected, register starting at all
 * ones, complemented; sent least significant byte first, like the ICRC.
 * The value as it reads with a little-endian 16-bit load from the wire. */
uint16_t roce_vcrc_compute(const uint8_t *p, size_t n);

#endif
