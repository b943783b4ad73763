/*
 * roce_addr.h - the 16-byte addresses of packets and flow keys.
 *
 * Every address is kept in 16 bytes (ROCE_ADDR_LEN), with its family
 * (enum roce_af) beside it: IPv6 addresses and GIDs (RoCEv1, InfiniBand
 * with a GRH) as they are, IPv4 addresses IPv4-mapped (RFC 4291 2.5.5.2),
 * InfiniBand LIDs (packets without a GRH) in IETF-reserved IPv6 space
 * (::/8, RFC 4291 2.4), which no IP packet or GID carries:
 *
 *   0                                     10      12      14      16
 *   +-------------------------------------+-------+-------+-------+
 *   |                 zero                | FF FF | IPv4 address  |  ROCE_AF_IPV4
 *   +-------------------------------------+-------+-------+-------+
 *   |                 zero                | FF FE | zero  |  LID  |  ROCE_AF_LID
 *   +-------------------------------------+-------+-------+-------+
 *
 * The family travels with the bytes (flow keys, vantage keys), so equal
 * bytes of two families never name the same endpoint; the bytes of a LID
 * also differ from any IPv4-mapped address and from any GID in use. Text
 * forms: dotted IPv4, IPv6 as inet_ntop writes it, "lid:0x0012" for a LID.
 * The decoder writes them, the report parser reads them back from text, the
 * writers print them: all through these helpers (the text forms in
 * roce_addr.c, so that the engine's own sentences name addresses too).
 */
#ifndef ROCE_ADDR_H
#define ROCE_ADDR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ROCE_ADDR_LEN      16
#define ROCE_ADDR_V4_LEN   4
#define ROCE_ADDR_V4_OFF   12   /* the IPv4 address in an IPv4-mapped one */
#define ROCE_ADDR_V4_MAP   0xFF /* bytes 10 and 11 of an IPv4-mapped address */
#define ROCE_ADDR_TEXT_LEN 48   /* room for any address's text form */
#define ROCE_MAC_ADDR_LEN  6
#define ROCE_MAC_TEXT_LEN  18       /* "02:00:0a:00:00:01" */
#define ROCE_ADDR_MARK_OFF 10       /* bytes 10 and 11: FF FF (IPv4) or FF FE (LID) */
#define ROCE_ADDR_LID_MARK 0xFE     /* byte 11 of a LID */
#define ROCE_ADDR_LID_OFF  14       /* the LID, big-endian */
#define ROCE_ADDR_LID_TEXT "lid:0x" /* text form: "lid:0x" and 4 hex digits */

/* What the 16 bytes of an address hold. */
enum roce_af {
    ROCE_AF_IPV4 = 0, /* IPv4, IPv4-mapped */
    ROCE_AF_IPV6 = 1, /* IPv6 address or GID */
    ROCE_AF_LID = 2   /* InfiniBand local identifier */
};

/* addr = ::ffff:v4 (v4: 4 bytes in network order). */
static inline void roce_addr_set_v4(uint8_t addr[ROCE_ADDR_LEN], const uint8_t *v4)
{
    memset(addr, 0, ROCE_ADDR_V4_OFF - 2);
    addr[ROCE_ADDR_V4_OFF - 2] = ROCE_ADDR_V4_MAP;
    addr[ROCE_ADDR_V4_OFF - 1] = ROCE_ADDR_V4_MAP;
    memcpy(addr + ROCE_ADDR_V4_OFF, v4, ROCE_ADDR_V4_LEN);
}

/* Nonzero when addr is IPv4-mapped. */
static inline int roce_addr_is_v4(const uint8_t addr[ROCE_ADDR_LEN])
{
    for (unsigned i = 0; i < ROCE_ADDR_V4_OFF - 2; i++)
        if (addr[i] != 0)
            return 0;
    return addr[ROCE_ADDR_V4_OFF - 2] == ROCE_ADDR_V4_MAP &&
           addr[ROCE_ADDR_V4_OFF - 1] == ROCE_ADDR_V4_MAP;
}

/* The 4 bytes of the IPv4 address in an IPv4-mapped addr (network order). */
static inline const uint8_t *roce_addr_v4(const uint8_t addr[ROCE_ADDR_LEN])
{
    return addr + ROCE_ADDR_V4_OFF;
}

/* addr = the 16-byte form of LID lid. */
static inline void roce_addr_set_lid(uint8_t addr[ROCE_ADDR_LEN], uint16_t lid)
{
    memset(addr, 0, ROCE_ADDR_LEN);
    addr[ROCE_ADDR_MARK_OFF] = ROCE_ADDR_V4_MAP;
    addr[ROCE_ADDR_MARK_OFF + 1] = ROCE_ADDR_LID_MARK;
    addr[ROCE_ADDR_LID_OFF] = (uint8_t)(lid >> 8);
    addr[ROCE_ADDR_LID_OFF + 1] = (uint8_t)lid;
}

/* The LID in the 16-byte form of one. */
static inline uint16_t roce_addr_lid(const uint8_t addr[ROCE_ADDR_LEN])
{
    return (uint16_t)(addr[ROCE_ADDR_LID_OFF] << 8 | addr[ROCE_ADDR_LID_OFF + 1]);
}

/* A hash of an address (FNV-1a over its 16 bytes), for tables by address. */
static inline uint32_t roce_addr_hash(const uint8_t addr[ROCE_ADDR_LEN])
{
    uint32_t h = 2166136261u; /* FNV-1a's offset basis and prime */
    for (unsigned i = 0; i < ROCE_ADDR_LEN; i++)
        h = (h ^ addr[i]) * 16777619u;
    return h;
}

/* The text form of addr of family af (enum roce_af): dotted IPv4 (its last
 * 4 bytes), IPv6 (or a GID) as RFC 5952 and inet_ntop write it, or
 * "lid:0x0012". Writes at most len bytes, NUL-terminated when len > 0;
 * returns the length of the whole text (as snprintf). roce_addr.c */
size_t roce_addr_format(const uint8_t addr[ROCE_ADDR_LEN], int af, char *buf, size_t len);
/* "aa:bb:cc:dd:ee:ff" (as snprintf). */
size_t roce_mac_format(const uint8_t mac[ROCE_MAC_ADDR_LEN], char *buf, size_t len);

#endif
