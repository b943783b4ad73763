/*
 * roce_addr.c - the text forms of addresses (see roce_addr.h): dotted IPv4,
 * IPv6 as RFC 5952 writes it (and inet_ntop prints it), InfiniBand LIDs
 * ("lid:0x0012"), MAC addresses.
 */
#include "roce_addr.h"

#include <stdio.h>
#include <string.h>

#define V6_WORDS       8
#define V4_COMPAT_LEN  6 /* zero words before an embedded IPv4 address (::a.b.c.d) */
#define V4_MAPPED_LEN  5 /* ... or 5 and ffff (::ffff:a.b.c.d) */
#define MAPPED_WORD    0xFFFFu
#define V4_BYTES       4
#define V4_TEXT_MAX    16 /* "255.255.255.255" */
#define HUNDRED        100u
#define TEN            10u
#define WORD_HEX_MAX   4
#define WORD_TOP_SHIFT 12
#define NIBBLE_BITS    4
#define NIBBLE_MASK    0xFu

/* Append to buf at *n (snprintf-style: *n counts what did not fit too). */
#define PUT(...)                                                                                   \
    do {                                                                                           \
        int w_ = snprintf(*n < len ? buf + *n : NULL, *n < len ? len - *n : 0, __VA_ARGS__);       \
        *n += w_ > 0 ? (size_t)w_ : 0;                                                             \
    } while (0)

/* Append the k bytes of t as PUT does (without snprintf: the addresses of
 * a report are written by the thousand). */
static void put_text(const char *t, size_t k, char *buf, size_t len, size_t *n)
{
    if (*n < len) {
        size_t room = len - *n - 1, w = k < room ? k : room;
        memcpy(buf + *n, t, w);
        buf[*n + w] = '\0';
    }
    *n += k;
}

static void lid(const uint8_t *a, char *buf, size_t len, size_t *n)
{
    PUT(ROCE_ADDR_LID_TEXT "%04x", (unsigned)roce_addr_lid(a));
}

/* "%u.%u.%u.%u" */
static void v4(const uint8_t *a, char *buf, size_t len, size_t *n)
{
    char t[V4_TEXT_MAX];
    size_t k = 0;
    for (int i = 0; i < V4_BYTES; i++) {
        unsigned v = a[i];
        if (i > 0)
            t[k++] = '.';
        if (v >= HUNDRED)
            t[k++] = (char)('0' + v / HUNDRED);
        if (v >= TEN)
            t[k++] = (char)('0' + v / TEN % TEN);
        t[k++] = (char)('0' + v % TEN);
    }
    put_text(t, k, buf, len, n);
}

/* "%x" of a 16-bit word */
static void hex_word(unsigned v, char *buf, size_t len, size_t *n)
{
    static const char digits[] = "0123456789abcdef";
    char t[WORD_HEX_MAX];
    size_t k = 0;
    for (int shift = WORD_TOP_SHIFT; shift >= 0; shift -= NIBBLE_BITS)
        if ((v >> shift) != 0 || shift == 0)
            t[k++] = digits[(v >> shift) & NIBBLE_MASK];
    put_text(t, k, buf, len, n);
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
            put_text(":", 1, buf, len, n);
            i += run - 1;
            if (i == V6_WORDS - 1)
                put_text(":", 1, buf, len, n);
            continue;
        }
        if (i > 0)
            put_text(":", 1, buf, len, n);
        if (i == V4_COMPAT_LEN && base == 0 &&
            (run == V4_COMPAT_LEN || (run == V4_MAPPED_LEN && w[V4_MAPPED_LEN] == MAPPED_WORD))) {
            v4(a + 2 * V4_COMPAT_LEN, buf, len, n);
            return;
        }
        hex_word(w[i], buf, len, n);
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
