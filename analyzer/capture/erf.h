/*
 * erf.h - ERF records (Endace's Extensible Record Format): what ibdump
 * writes on InfiniBand ports (pcap files of link type 197, LINKTYPE_ERF,
 * whose records carry InfiniBand packets from the LRH), what Endace DAG
 * cards capture, and raw ERF files (records back to back, no file header).
 *
 * A record is turned into the frame it carries, with the link type the
 * engine decodes and the record's own time stamp, as Wireshark reads them
 * (wiretap/erf.c, wiretap/erf_record.h); the reader of raw ERF files sits
 * beside pcapmap.c and libpcap in capture.c.
 */
#ifndef ROCE_ERF_H
#define ROCE_ERF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "capture.h"
#include "roce_decode.h"

#define ROCE_LINKTYPE_ERF 197 /* LINKTYPE_ERF / DLT_ERF */

/* ERF record types (bits 6:0 of the type byte; bit 7: extension headers
 * follow) whose frames are decoded */
#define ROCE_ERF_TYPE_MASK      0x7Fu
#define ROCE_ERF_TYPE_ETH       2
#define ROCE_ERF_TYPE_COLOR_ETH 11
#define ROCE_ERF_TYPE_DSM_ETH   16
#define ROCE_ERF_TYPE_HASH_ETH  20
#define ROCE_ERF_TYPE_IB        21
#define ROCE_ERF_TYPE_IPV4      22
#define ROCE_ERF_TYPE_IPV6      23
#define ROCE_ERF_ETH_PAD_LEN    2 /* bytes between the headers and an Ethernet frame */

/* The link type the engine decodes of the frame an ERF record of type type
 * carries (InfiniBand, Ethernet, IPv4, IPv6), 0 for any other type. Also
 * the Wireshark plugin's, whose frames of ERF records come without the
 * record's headers and padding. */
static inline int roce_erf_type_linktype(unsigned type)
{
    switch (type) {
    case ROCE_ERF_TYPE_ETH:
    case ROCE_ERF_TYPE_COLOR_ETH:
    case ROCE_ERF_TYPE_DSM_ETH:
    case ROCE_ERF_TYPE_HASH_ETH:
        return ROCE_LINKTYPE_ETHERNET;
    case ROCE_ERF_TYPE_IB:
        return ROCE_LINKTYPE_INFINIBAND;
    case ROCE_ERF_TYPE_IPV4:
        return ROCE_LINKTYPE_IPV4;
    case ROCE_ERF_TYPE_IPV6:
        return ROCE_LINKTYPE_IPV6;
    default:
        return 0;
    }
}

/*
 * The frame inside the ERF record f holds (f->data, f->caplen captured
 * bytes, as read from a pcap record of link type ERF or from an ERF file):
 * rewrites f in place to the frame, with f->ts_ns the record's time stamp,
 * f->linktype the link type of the record's type (InfiniBand 247, Ethernet
 * 1, IPv4 228, IPv6 229), f->caplen the captured bytes of the frame (at
 * most its wire length) and f->wirelen the record's wire length. Returns 0;
 * -1 when the record is not one of those types or its headers were not
 * captured: then f is left as it was, of link type ERF (a frame the engine
 * counts as an unsupported link type).
 */
int roce_erf_frame(struct roce_capture_frame *f);

struct roce_erfmap;

/* Nonzero when the first records of an open file look like ERF (there is
 * no magic number: sane record lengths, types and time stamps, as Wireshark
 * checks them); rewinds the stream. */
int roce_erf_probe(FILE *f);

/* Read a raw ERF file; NULL (reason in err) when it cannot be opened or is
 * not ERF. */
struct roce_erfmap *roce_erfmap_open(const char *path, char *err, size_t errlen);
/* The next record as a frame (roce_erf_frame applied; padding records are
 * skipped, as Wireshark does): ROCE_CAPTURE_FRAME, ROCE_CAPTURE_END, or
 * ROCE_CAPTURE_ERROR (a record cut short: roce_erfmap_error). The data is
 * valid until the next call. */
int roce_erfmap_next(struct roce_erfmap *m, struct roce_capture_frame *f);
const char *roce_erfmap_error(const struct roce_erfmap *m);
void roce_erfmap_close(struct roce_erfmap *m);

#endif
