/*
 * roce_addr.c - the text forms of addresses (see roce_addr.h): dotted IPv4,
 * IPv6 as RFC 5952 writes it (and inet_ntop prints it), InfiniBand LIDs
 * ("lid:0x0012"), MAC addresses.
 */
#include "roce_addr.h"

#include <stdio.h>

#define V6_WORDS      8
#define V4_COMPAT_LEN 6 /* zero words before an embedded IPv4 address (::a.b.c.d) */
#define V4_MAPPED_LEN 5 /* ... or 5 and ffff (::ffff:a.b.c.d) */
#define MAPPED_WORD   0xFFFFu

/* Append to buf at *n (snprintf-style: *n counts what did not fit too). */
#define PUT(...)                                                                                   \
    do {                                                                                           \
        int w_ = snprintf(*n < len ? buf + *n : NULL, *n < len ? len - *n : 0, __VA_ARGS__);       \
        *n += w_ > 0 ? (size_t)w_ : 0;                                                             \
    } while (0)

static void lid(const uint8_t *a, char *buf, size_t len, size_t *n)
{
    PUT(ROCE_ADDR_LID_TEXT "%04x", (unsigned)roce_addr_lid(a));
}

static void v4(const uint8_t *a, char *buf, size_t len, size_t *n)
{
    PUT("%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
}

/* The longest run of at least two zero words (the first of equal runs). */
static void zero_run(const unsigned w[V6_WORDS], int *base, int *run)
{
    *base = -1;
    *run = 0;
    for (int i = 0; i < V6_WORDS;) {
        int j = i;
        while (j < V6_WORDS && w[j] == 0)
            j++;
        if (j - i > *run && j - i >= 2) {
            *base = i;
            *run = j - i;
        }
        i = j > i ? j : i + 1;
    }
}

static void v6(const uint8_t *a, char *buf, size_t len, size_t *n)
{
    unsigned w[V6_WORDS];
    int base, run;
    for (int i = 0; i < V6_WORDS; i++)
        w[i] = (unsigned)a[2 * i] << 8 | a[2 * i + 1];
    zero_run(w, &base, &run);
    for (int i = 0; i < V6_WORDS; i++) {
        if (i == base) {
            PUT(":");
            i += run - 1;
            if (i == V6_WORDS - 1)
                PUT(":");
            continue;
        }
        if (i > 0)
            PUT(":");
        if (i == V4_COMPAT_LEN && base == 0 &&
            (run == V4_COMPAT_LEN || (run == V4_MAPPED_LEN && w[V4_MAPPED_LEN] == MAPPED_WORD))) {
            v4(a + 2 * V4_COMPAT_LEN, buf, len, n);
            return;
        }
        PUT("%x", w[i]);
    }
}

size_t roce_addr_format(const uint8_t addr[ROCE_ADDR_LEN], int af, char *buf, size_t len)
{
    size_t n = 0, *np = &n;
    if (len > 0)
        buf[0] = '\0';
    if (af == ROCE_AF_LID)
        lid(addr, buf, len, np);
    else if (af == ROCE_AF_IPV6)
        v6(addr, buf, len, np);
    else
        v4(roce_addr_v4(addr), buf, len, np);
    return n;
}

size_t roce_mac_format(const uint8_t mac[ROCE_MAC_ADDR_LEN], char *buf, size_t len)
{
    int w = snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
                     mac[4], mac[5]);
    return w > 0 ? (size_t)w : 0;
}
