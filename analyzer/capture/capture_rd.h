/*
 * capture_rd.h - what the readers of the two file formats share: their
 * outcomes, and what they keep for libpcap when they give way to it.
 *
 * A reader (pcap_classic.c, pcap_ng.c) parses records in place from a
 * source (capture_src.h). It only takes what libpcap would read the same
 * way; at anything else it stops at the start of the record and keeps the
 * headers that libpcap needs to read on from there (the file header; in
 * pcapng the first section's header and first interface, then the current
 * section's header and interfaces), so that capture.c can hand libpcap
 * those headers followed by the rest of the input: libpcap then reads or
 * reports the record in its own words, and frames and errors do not depend
 * on which reader ran. Internal to analyzer/capture.
 */
#ifndef ROCE_CAPTURE_RD_H
#define ROCE_CAPTURE_RD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "capture.h"
#include "capture_src.h"

enum roce_rd_status {
    ROCE_RD_FRAME = 1,
    ROCE_RD_END = 0,
    ROCE_RD_ERROR = -1,   /* a problem in the reader's own words (err) */
    ROCE_RD_LIBPCAP = -2  /* not taken: libpcap reads on from here */
};

#define ROCE_RD_ERR_LEN 192

/* Fields of a file in either byte order: swapped when the file's differs
 * from this machine's. */
static inline uint16_t roce_rd16(int swapped, const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return swapped ? __builtin_bswap16(v) : v;
}
static inline uint32_t roce_rd32(int swapped, const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return swapped ? __builtin_bswap32(v) : v;
}
static inline uint64_t roce_rd64(int swapped, const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return swapped ? __builtin_bswap64(v) : v;
}

/* Nanoseconds since the epoch of a time stamp of sec seconds and frac units
 * of unit ns, as capture.c takes libpcap's: saturated where 64-bit
 * nanoseconds do not hold it. */
int64_t roce_capture_ts_ns(int64_t sec, int64_t frac, int64_t unit);

/* Classic pcap (pcap_classic.c). */
struct roce_rd_pcap {
    int swapped;
    int64_t frac_ns; /* nanoseconds per unit of ts_frac */
    uint32_t snaplen;
    int linktype;
    uint8_t hdr[24]; /* the file header, for libpcap */
};
/* Nonzero when the first bytes look like classic pcap (4 at least). */
int roce_rd_pcap_probe(const uint8_t *head, size_t len);
/* Read the file header: 0 (stepped over), or -1 when libpcap is to read
 * the whole input (nothing stepped over). */
int roce_rd_pcap_open(struct roce_rd_pcap *r, struct roce_src *s);
int roce_rd_pcap_next(struct roce_rd_pcap *r, struct roce_src *s, struct roce_capture_frame *f);

/* pcapng (pcap_ng.c). */
struct roce_rd_ng_if;
struct roce_rd_ng {
    int swapped;
    int linktype;          /* of the first interface (the file's, as libpcap says) */
    uint32_t first_snap;   /* its snapshot length as libpcap adjusts it */
    int compatible;        /* libpcap reads what was read so far the same way */
    struct roce_rd_ng_if *ifs; /* the current section's interfaces */
    uint32_t n_ifs, cap_ifs;
    /* the headers libpcap needs: the first section's header and first
     * interface, then the current section's header (when not the first) and
     * interfaces (the first section's after its first) */
    uint8_t *pre;
    size_t pre_len, pre_cap, pre_first;
    char err[ROCE_RD_ERR_LEN];
};
/* Nonzero when the first bytes look like pcapng (4 at least). */
int roce_rd_ng_probe(const uint8_t *head, size_t len);
/* Read up to the first interface: 0 (stepped over), or -1 when libpcap is to
 * read the whole input (nothing stepped over). */
int roce_rd_ng_open(struct roce_rd_ng *r, struct roce_src *s);
int roce_rd_ng_next(struct roce_rd_ng *r, struct roce_src *s, struct roce_capture_frame *f);
void roce_rd_ng_free(struct roce_rd_ng *r);

#endif
