/*
 * erf.c - ERF records turned into the frames they carry (roce_erf_frame,
 * declared in capture.h), and raw ERF files.
 *
 * Record (Endace ERF types, as Wireshark's wiretap/erf.c reads them):
 *   +---------------------------------------------------------------+
 *   |        time stamp (64, little-endian): seconds << 32 |        |
 *   |        binary fraction of a second                            |
 *   +---------------+---------------+-------------------------------+
 *   | E |  type (7) |    flags      |  rlen (record length, BE)     |
 *   +---------------+---------------+-------------------------------+
 *   |  lctr (loss counter, BE)      |  wlen (length on the wire, BE)|
 *   +-------------------------------+-------------------------------+
 *   [extension headers: 8 bytes each, while bit 7 of the previous type
 *    byte (E) is set]  [Ethernet types: 2 bytes (offset, pad)]  frame
 * rlen counts the whole record, header included, padded to 8 bytes in ERF
 * files (ibdump's pcap records are not padded); the frame's captured bytes
 * are those of the record, at most wlen. Types: 2 Ethernet (and its
 * colour / hash variants 11, 16, 20), 21 InfiniBand (from the LRH, the
 * VCRC last), 22 IPv4, 23 IPv6 (roce_erf_type_linktype), 48 padding
 * (skipped in files).
 *
 * Raw ERF files: the row roce_capture_erf of the probe table, for regular
 * files only, tried after libpcap: ERF has no magic number, so the probe
 * checks the first records (sane lengths, types and time stamps, as
 * Wireshark checks them).
 */
#include "capture.h"

#include <stdio.h>

#include "capture_rd.h"
#include "roce_linktype.h"
#include "roce_time.h"

#define ERF_HDR_LEN       16
#define ERF_TYPE_OFF      8
#define ERF_RLEN_OFF      10
#define ERF_WLEN_OFF      14
#define ERF_EHDR_BIT      0x80u
#define ERF_EHDR_LEN      8
#define ERF_ETH_PAD_LEN   2 /* bytes between the headers and an Ethernet frame */
#define ERF_TYPE_PAD      48
#define ERF_TYPE_MAX      ERF_TYPE_PAD
#define FRAC_SHIFT        32
#define FRAC_MASK         0xFFFFFFFFull
#define FRAC_HALF         0x80000000ull
#define PROBE_RECORDS     20 /* records checked before a file is taken as ERF */
#define PROBE_MIN_RECORDS 3  /* a file cut short within them is not */
#define PROBE_MAX_BACK    1  /* seconds a time stamp may go back (between interfaces) */
#define PROBE_MAX_FORWARD (365LL * 24 * 3600) /* seconds it may leap forward */

/* ns since the epoch of an ERF time stamp, rounded as Wireshark rounds it
 * (so that frame times agree with the plugin's). */
static int64_t erf_ts_ns(uint64_t ts)
{
    uint64_t frac = (ts & FRAC_MASK) * (uint64_t)ROCE_NS_PER_SEC;
    frac += (frac & FRAC_HALF) << 1;
    return (int64_t)(ts >> FRAC_SHIFT) * ROCE_NS_PER_SEC + (int64_t)(frac >> FRAC_SHIFT);
}

int roce_erf_frame(struct roce_capture_frame *f)
{
    const uint8_t *r = f->data;
    size_t off = ERF_HDR_LEN;

    f->linktype = ROCE_LINKTYPE_ERF;
    if (f->caplen < ERF_HDR_LEN)
        return -1;
    for (unsigned t = r[ERF_TYPE_OFF]; t & ERF_EHDR_BIT; off += ERF_EHDR_LEN) {
        if (f->caplen - off < ERF_EHDR_LEN) /* off <= caplen: checked before */
            return -1;
        t = r[off];
    }
    int lt = roce_erf_type_linktype(r[ERF_TYPE_OFF] & ROCE_ERF_TYPE_MASK);
    if (lt == ROCE_LINKTYPE_ETHERNET)
        off += ERF_ETH_PAD_LEN;
    if (lt == 0 || off > f->caplen)
        return -1;
    uint32_t wlen = roce_rd16(ROCE_RD_BE, r + ERF_WLEN_OFF);
    uint32_t cap = f->caplen - (uint32_t)off;
    f->ts_ns = erf_ts_ns(roce_rd64(ROCE_RD_LE, r));
    f->linktype = lt;
    f->data = r + off;
    f->caplen = cap < wlen ? cap : wlen;
    f->wirelen = wlen;
    return 0;
}

/* ---- raw ERF files ---- */

/* The row's probe: the first PROBE_RECORDS records of the file (head, len
 * bytes) look like ERF, or it ends cleanly after one at least (cut short,
 * after PROBE_MIN_RECORDS at least). */
static int erf_probe(const uint8_t *head, size_t len)
{
    size_t off = 0;
    uint64_t prev = 0;

    for (int i = 0; i < PROBE_RECORDS; i++) {
        if (len - off < ERF_HDR_LEN)
            return off == len ? i > 0 : i >= PROBE_MIN_RECORDS;
        const uint8_t *h = head + off;
        unsigned type = h[ERF_TYPE_OFF] & ROCE_ERF_TYPE_MASK;
        size_t rlen = roce_rd16(ROCE_RD_BE, h + ERF_RLEN_OFF), body;
        uint64_t ts = roce_rd64(ROCE_RD_LE, h);
        if (rlen < ERF_HDR_LEN || type == 0 || type > ERF_TYPE_MAX)
            return 0;
        off += ERF_HDR_LEN;
        body = rlen - ERF_HDR_LEN;
        if (type != ERF_TYPE_PAD) {
            if (i > 0 && ((ts < prev && (prev - ts) >> FRAC_SHIFT > PROBE_MAX_BACK) ||
                          (ts > prev && (int64_t)((ts - prev) >> FRAC_SHIFT) > PROBE_MAX_FORWARD)))
                return 0;
            prev = ts;
            for (unsigned t = h[ERF_TYPE_OFF]; t & ERF_EHDR_BIT; t = head[off - ERF_EHDR_LEN]) {
                if (body < ERF_EHDR_LEN || len - off < ERF_EHDR_LEN)
                    return 0;
                off += ERF_EHDR_LEN;
                body -= ERF_EHDR_LEN;
            }
        }
        off = body < len - off ? off + body : len; /* a record past the end: the end */
    }
    return 1;
}

/* The row's open: records follow from the first byte. */
static int erf_open(struct roce_rd *r)
{
    r->linktype = ROCE_LINKTYPE_ERF;
    return 0;
}

/* The row's next: the next record but padding, as a frame of link type ERF
 * with the record's time stamp (roce_capture_frame_in takes out what it
 * carries). */
static int erf_next(struct roce_rd *r, struct roce_capture_frame *f)
{
    struct roce_src *s = r->src;
    for (;;) {
        if (!roce_src_need(s, ERF_HDR_LEN)) {
            if (roce_src_left(s) == 0)
                return ROCE_RD_END;
            snprintf(r->err, sizeof r->err, "ERF record header cut short");
            return ROCE_RD_ERROR;
        }
        const uint8_t *h = s->p + s->off;
        size_t rlen = roce_rd16(ROCE_RD_BE, h + ERF_RLEN_OFF);
        if (rlen < ERF_HDR_LEN) {
            snprintf(r->err, sizeof r->err, "ERF record shorter than its header");
            return ROCE_RD_ERROR;
        }
        if (!roce_src_need(s, rlen)) {
            snprintf(r->err, sizeof r->err, "ERF record cut short");
            return ROCE_RD_ERROR;
        }
        roce_src_skip(s, rlen);
        if ((h[ERF_TYPE_OFF] & ROCE_ERF_TYPE_MASK) == ERF_TYPE_PAD)
            continue;
        f->data = h;
        f->caplen = (uint32_t)rlen;
        f->wirelen = (uint32_t)rlen;
        f->ts_ns = erf_ts_ns(roce_rd64(ROCE_RD_LE, h));
        f->linktype = ROCE_LINKTYPE_ERF;
        return ROCE_RD_FRAME;
    }
}

const struct roce_capture_format roce_capture_erf = {
    ROCE_FMT_FILE_ONLY, 0, erf_probe, erf_open, erf_next, NULL, NULL,
};
