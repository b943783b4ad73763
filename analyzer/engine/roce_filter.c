/*
 * roce_filter.c - the default capture filter: a BPF expression (as
 * pcap_compile() reads it) that keeps the frames the decoder recognises,
 * written from the decoder's own constants and the configured ports.
 *
 * Each `vlan` moves the offsets of everything after it in the expression,
 * so the tagged cases nest ("A or (vlan and (A or (vlan and A)))") rather
 * than follow one another.
 */
#include "roce_config.h"

#include <stdio.h>
#include <string.h>

#define FILTER_VLAN_TAGS 2 /* tag levels the default filter looks behind */

/* Where the text goes on in buf, and the room left there: once buf is full,
 * snprintf() only counts. */
static char *at(char *buf, size_t len, size_t n)
{
    return n < len ? buf + n : NULL;
}

static size_t room(size_t len, size_t n)
{
    return n < len ? len - n : 0;
}

/* The length of a piece snprintf() wrote (0 on an encoding error). */
static size_t piece(int k)
{
    return k > 0 ? (size_t)k : 0;
}

/* Append the untagged expression to the text of n bytes in buf. */
static size_t put_base(const struct roce_config *cfg, char *buf, size_t len, size_t n)
{
    n += piece(snprintf(at(buf, len, n), room(len, n), "udp dst port %u", (unsigned)cfg->udp_port));
    if (cfg->vxlan_port)
        n += piece(snprintf(at(buf, len, n), room(len, n), " or udp dst port %u",
                            (unsigned)cfg->vxlan_port));
    n += piece(snprintf(
        at(buf, len, n), room(len, n),
        " or ether proto 0x%04x or ether proto 0x%04x or ip proto %u or ip6 proto %u",
        ROCE_ETHERTYPE_ROCEV1, ROCE_ETHERTYPE_MAC_CONTROL, ROCE_IPPROTO_GRE, ROCE_IPPROTO_GRE));
    return n;
}

static size_t put(const char *s, char *buf, size_t len, size_t n)
{
    return n + piece(snprintf(at(buf, len, n), room(len, n), "%s", s));
}

size_t roce_capture_filter(const struct roce_config *cfg, char *buf, size_t len)
{
    size_t n = 0;
    if (len > 0)
        buf[0] = '\0';
    for (int tags = 0; tags < FILTER_VLAN_TAGS; tags++) {
        n = put("(", buf, len, n);
        n = put_base(cfg, buf, len, n);
        n = put(") or (vlan and (", buf, len, n);
    }
    n = put_base(cfg, buf, len, n);
    for (int tags = 0; tags < FILTER_VLAN_TAGS; tags++)
        n = put("))", buf, len, n);
    return n;
}
