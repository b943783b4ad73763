/*
 * roce_addr.h - the 16-byte addresses of packets and flow keys.
 *
 * Every address is kept in 16 bytes (ROCE_ADDR_LEN): IPv6 addresses and
 * RoCEv1 GIDs as they are, IPv4 addresses IPv4-mapped (RFC 4291 2.5.5.2):
 *
 *   0                                     10      12              16
 *   +-------------------------------------+-------+---------------+
 *   |                 zero                | FF FF | IPv4 address  |
 *   +-------------------------------------+-------+---------------+
 *
 * The decoder writes them, the report parser reads them back from text, the
 * writers print them: all through these helpers (the text forms in
 * roce_addr.c, so that the engine's own sentences name addresses too).
 */
#ifndef ROCE_ADDR_H
#define ROCE_ADDR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ROCE_ADDR_LEN    16
#define ROCE_ADDR_V4_LEN 4
#define ROCE_ADDR_V4_OFF 12   /* the IPv4 address in an IPv4-mapped one */
#define ROCE_ADDR_V4_MAP 0xFF /* bytes 10 and 11 of an IPv4-mapped address */
#define ROCE_ADDR_TEXT_LEN 48   /* room for any address's text form */
#define ROCE_MAC_ADDR_LEN  6
#define ROCE_MAC_TEXT_LEN  18 /* "02:00:0a:00:00:01" */

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

/* The text form of addr: dotted IPv4 (is_v6 == 0: its last 4 bytes), else
 * IPv6 (or a GID) as RFC 5952 and inet_ntop write it. Writes at most len
 * bytes, NUL-terminated when len > 0; returns the length of the whole text
 * (as snprintf). roce_addr.c */
size_t roce_addr_format(const uint8_t addr[ROCE_ADDR_LEN], int is_v6, char *buf, size_t len);
/* "aa:bb:cc:dd:ee:ff" (as snprintf). */
size_t roce_mac_format(const uint8_t mac[ROCE_MAC_ADDR_LEN], char *buf, size_t len);

#endif
