/*
 * roce_linktype.h - link-layer types: those the engine decodes, their
 * names, and what the records of an ERF capture carry.
 *
 * Link types are LINKTYPE_* values (tcpdump.org/linktypes.html); DLT_RAW is
 * 12 or 14 on some systems. Frames of a link type the engine does not
 * decode are counted as such (unsupported_linktype), never dropped.
 *
 * ERF (Endace's Extensible Record Format, LINKTYPE_ERF 197): each record
 * says what it carries in its type byte (bits 6:0; bit 7: extension headers
 * follow), as Wireshark reads them (wiretap/erf_record.h). The front ends
 * take the frame out of the record (its headers and, for Ethernet, 2 bytes
 * of padding are not the frame's) and hand it to the engine with the link
 * type of its record type: the CLI and the live monitor from the record
 * (analyzer/capture/erf.c), the Wireshark plugin from wiretap's pseudo
 * header, whose frames already come without the record's headers.
 */
#ifndef ROCE_LINKTYPE_H
#define ROCE_LINKTYPE_H

/* Link-layer header types (LINKTYPE_* values). */
enum roce_linktype {
    ROCE_LINKTYPE_ETHERNET = 1,
    ROCE_LINKTYPE_DLT_RAW = 12,
    ROCE_LINKTYPE_DLT_RAW_ALT = 14,
    ROCE_LINKTYPE_RAW = 101,
    ROCE_LINKTYPE_LINUX_SLL = 113,
    ROCE_LINKTYPE_ERF = 197, /* records that carry frames of the types below (not decoded) */
    ROCE_LINKTYPE_IPV4 = 228,
    ROCE_LINKTYPE_IPV6 = 229,
    ROCE_LINKTYPE_INFINIBAND = 247,
    ROCE_LINKTYPE_LINUX_SLL2 = 276
};

/* Nonzero when the engine can decode this link type. */
int roce_linktype_supported(int linktype);

/* Short name of a supported link type ("EN10MB", "LINUX_SLL", ...) or NULL. */
const char *roce_linktype_name(int linktype);

/* Nonzero when a capture of this link type can be analysed: the engine
 * decodes it, or it is ERF, whose records carry frames the engine decodes
 * (or, of other record types, frames counted as an unsupported link type).
 * The one test of every front end that reads captures. */
int roce_linktype_readable(int linktype);

/* ERF record types whose frames are decoded (the type byte's bits 6:0). */
#define ROCE_ERF_TYPE_MASK      0x7Fu
#define ROCE_ERF_TYPE_ETH       2
#define ROCE_ERF_TYPE_COLOR_ETH 11
#define ROCE_ERF_TYPE_DSM_ETH   16
#define ROCE_ERF_TYPE_HASH_ETH  20
#define ROCE_ERF_TYPE_IB        21
#define ROCE_ERF_TYPE_IPV4      22
#define ROCE_ERF_TYPE_IPV6      23

/* The link type of the frame an ERF record of type type (bits 6:0 of the
 * record's type byte) carries: Ethernet, InfiniBand (from the LRH, the VCRC
 * last), IPv4 or IPv6; 0 for any other type. */
int roce_erf_type_linktype(unsigned type);

#endif
