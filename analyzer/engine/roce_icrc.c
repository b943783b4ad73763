/*
 * roce_icrc.c - slice-by-8 CRC-32 and the RoCE ICRC (see roce_icrc.h).
 */
#include "roce_icrc.h"

#include <string.h>

#include "roce_extract.h"

#include "roce_crc32_table.inc"

#define ICRC_LRH_STANDIN_LEN 8
#define IPV4_TOS_OFF         1
#define IPV4_TTL_OFF         8
#define IPV4_CSUM_OFF        10
#define IPV6_VTF_LEN         4 /* version, traffic class, flow label */
#define IPV6_HOPLIMIT_OFF    7
#define IPV6_VERSION_MASK    0xF0u
#define UDP_CSUM_OFF         6
#define UDP_HDR_LEN          8
#define BTH_RESV8A_OFF       4
#define MAX_L3_HDR_LEN       512

uint32_t roce_crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
    while (n >= 8) {
        uint32_t lo = crc ^ roce_get_le32(p, 0);
        uint32_t hi = roce_get_le32(p, 4);
        crc = crc32_tab[7][lo & 0xFF] ^ crc32_tab[6][(lo >> 8) & 0xFF] ^
              crc32_tab[5][(lo >> 16) & 0xFF] ^ crc32_tab[4][lo >> 24] ^
              crc32_tab[3][hi & 0xFF] ^ crc32_tab[2][(hi >> 8) & 0xFF] ^
              crc32_tab[1][(hi >> 16) & 0xFF] ^ crc32_tab[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--)
        crc = crc32_tab[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return crc;
}

uint32_t roce_crc32(const uint8_t *p, size_t n)
{
    return ~roce_crc32_update(0xFFFFFFFFu, p, n);
}

uint32_t roce_icrc_compute(const uint8_t *l3, size_t l3_hdr_len, int is_v6, int has_udp,
                           const uint8_t *rest, size_t rest_len)
{
    static const uint8_t ones[ICRC_LRH_STANDIN_LEN] = {0xFF, 0xFF, 0xFF, 0xFF,
                                                       0xFF, 0xFF, 0xFF, 0xFF};
    uint8_t hdr[MAX_L3_HDR_LEN];
    uint8_t head[UDP_HDR_LEN + BTH_RESV8A_OFF + 1];
    size_t head_len = has_udp ? UDP_HDR_LEN + BTH_RESV8A_OFF + 1 : BTH_RESV8A_OFF + 1;
    uint32_t crc = roce_crc32_update(0xFFFFFFFFu, ones, sizeof ones);

    if (l3_hdr_len > sizeof hdr || rest_len < head_len)
        return 0; /* cannot happen for a decoded packet; keeps the copy bounded */
    memcpy(hdr, l3, l3_hdr_len);
    if (is_v6) {
        hdr[0] |= (uint8_t)~IPV6_VERSION_MASK;
        memset(hdr + 1, 0xFF, IPV6_VTF_LEN - 1);
        hdr[IPV6_HOPLIMIT_OFF] = 0xFF;
    } else {
        hdr[IPV4_TOS_OFF] = 0xFF;
        hdr[IPV4_TTL_OFF] = 0xFF;
        hdr[IPV4_CSUM_OFF] = 0xFF;
        hdr[IPV4_CSUM_OFF + 1] = 0xFF;
    }
    crc = roce_crc32_update(crc, hdr, l3_hdr_len);

    memcpy(head, rest, head_len);
    if (has_udp) {
        head[UDP_CSUM_OFF] = 0xFF;
        head[UDP_CSUM_OFF + 1] = 0xFF;
    }
    head[head_len - 1] = 0xFF; /* BTH byte 4: FECN, BECN, resv6 */
    crc = roce_crc32_update(crc, head, head_len);
    crc = roce_crc32_update(crc, rest + head_len, rest_len - head_len);
    return ~crc;
}
