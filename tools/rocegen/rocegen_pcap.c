/*
 * rocegen_pcap.c - pcap and pcapng writers (see rocegen_build.h).
 *
 * Classic pcap (draft-ietf-opsawg-pcap), nanosecond variant, written
 * little-endian:
 *   file header  magic 0xA1B23C4D | version 2.4 | thiszone 0 | sigfigs 0 |
 *                snaplen | linktype
 *   record       ts_sec | ts_nsec | incl_len | orig_len | data
 * pcapng (draft-ietf-opsawg-pcapng), little-endian, one section:
 *   SHB (type 0x0A0D0D0A, BOM 0x1A2B3C4D, version 1.0, length -1, shb_userappl)
 *   IDB (type 1: linktype, snaplen, if_tsresol = 9)
 *   EPB (type 6: interface 0, 64-bit ns timestamp, caplen, origlen, data padded to 4)
 * ERF (link type 197 in pcap or pcapng, or a raw ERF file: Wireshark
 * wiretap/erf.c), each frame a record of type 21 (InfiniBand):
 *   time stamp (64, little-endian: seconds << 32 | fraction of 2^32) | type |
 *   flags 0x04 | rlen (BE) | lctr 0 | wlen (BE) | frame [| zeros to 8 bytes]
 * Nothing machine- or time-dependent is written, so equal input gives equal files.
 */
#include "rocegen_build.h"

#include <stdlib.h>
#include <string.h>

#include "roce_time.h"

#define PCAP_MAGIC_NS      0xA1B23C4Du
#define PCAP_VERSION_MAJOR 2u
#define PCAP_VERSION_MINOR 4u
#define PCAP_FILE_HDR_LEN  24
#define PCAP_REC_HDR_LEN   16
#define SNAPLEN_UNLIMITED  262144u

#define PCAPNG_SHB_TYPE       0x0A0D0D0Au
#define PCAPNG_IDB_TYPE       1u
#define PCAPNG_EPB_TYPE       6u
#define PCAPNG_BOM            0x1A2B3C4Du
#define PCAPNG_MAJOR          1u
#define PCAPNG_MINOR          0u
#define PCAPNG_OPT_ENDOFOPT   0u
#define PCAPNG_SHB_USERAPPL   4u
#define PCAPNG_IF_TSRESOL     9u
#define PCAPNG_TSRESOL_NS     9u
#define PCAPNG_ALIGN          4u
#define PCAPNG_OPT_HDR_LEN    4
#define PCAPNG_BLOCK_OVERHEAD 12 /* type, length, trailing length */
#define PCAPNG_EPB_FIXED      20 /* interface, ts high, ts low, caplen, origlen */
#define PCAPNG_BUF_LEN        128
#define PCAPNG_SHB_FIXED      16          /* BOM, major, minor, section length */
#define PCAPNG_IDB_FIXED      8           /* linktype, reserved, snaplen */
#define PCAPNG_LEN_UNKNOWN    0xFFFFFFFFu /* each half of the 64-bit section length -1 */

#define ERF_HDR_LEN    16
#define ERF_TYPE_IB    21u
#define ERF_FLAGS_VLEN 0x04u
#define ERF_ALIGN      8u
#define ERF_FRAC_SHIFT 32

#define WRITER_BUFSIZE (1u << 20)

static const char userappl[] = "rocegen";

struct rg_writer {
    FILE *f;
    int own; /* f was opened by us */
    enum rg_format fmt;
    int erf;          /* frames are written as ERF records */
    uint32_t snaplen; /* 0 = unlimited */
    uint64_t count;
    int err;
    char *iobuf;
};

/* Little-endian stores. */
static void le16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void le32(uint8_t *p, uint32_t v)
{
    le16(p, v);
    le16(p + 2, v >> 16);
}

/* Big-endian 16-bit store. */
static void be16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* The ERF record header of a frame of len bytes, cap of them captured,
 * whose record is rlen bytes long. The fraction is rounded up, so that
 * Wireshark's conversion (rounding to the nearest ns) gives back ts_ns. */
static void erf_header(uint8_t h[ERF_HDR_LEN], int64_t ts_ns, uint32_t rlen, uint32_t len)
{
    uint64_t sec = (uint64_t)(ts_ns / ROCE_NS_PER_SEC), ns = (uint64_t)(ts_ns % ROCE_NS_PER_SEC);
    uint64_t frac = ((ns << ERF_FRAC_SHIFT) + ROCE_NS_PER_SEC - 1) / ROCE_NS_PER_SEC;
    uint64_t ts = sec << ERF_FRAC_SHIFT | frac;
    le32(h, (uint32_t)ts);
    le32(h + 4, (uint32_t)(ts >> 32));
    h[8] = ERF_TYPE_IB;
    h[9] = ERF_FLAGS_VLEN;
    be16(h + 10, rlen);
    be16(h + 12, 0);
    be16(h + 14, len);
}

/* Round n up to the pcapng alignment. */
static uint32_t pad4(uint32_t n)
{
    return (n + PCAPNG_ALIGN - 1) & ~(PCAPNG_ALIGN - 1);
}

/* Write n bytes, remembering any failure in w->err. */
static void put(struct rg_writer *w, const void *p, size_t n)
{
    if (n != 0 && fwrite(p, 1, n, w->f) != n)
        w->err = 1;
}

/* Classic pcap file header. */
static void pcap_header(struct rg_writer *w, int linktype)
{
    uint8_t h[PCAP_FILE_HDR_LEN];
    le32(h, PCAP_MAGIC_NS);
    le16(h + 4, PCAP_VERSION_MAJOR);
    le16(h + 6, PCAP_VERSION_MINOR);
    le32(h + 8, 0);  /* thiszone */
    le32(h + 12, 0); /* sigfigs */
    le32(h + 16, w->snaplen ? w->snaplen : SNAPLEN_UNLIMITED);
    le32(h + 20, (uint32_t)linktype);
    put(w, h, sizeof h);
}

/* pcapng section header and interface description blocks. */
static void pcapng_header(struct rg_writer *w, int linktype)
{
    uint8_t b[PCAPNG_BUF_LEN];
    uint32_t applen = (uint32_t)(sizeof userappl - 1);
    uint32_t opts = PCAPNG_OPT_HDR_LEN + pad4(applen) + PCAPNG_OPT_HDR_LEN;
    uint32_t len = PCAPNG_BLOCK_OVERHEAD + PCAPNG_SHB_FIXED + opts;

    memset(b, 0, sizeof b);
    le32(b, PCAPNG_SHB_TYPE);
    le32(b + 4, len);
    le32(b + 8, PCAPNG_BOM);
    le16(b + 12, PCAPNG_MAJOR);
    le16(b + 14, PCAPNG_MINOR);
    le32(b + 16, PCAPNG_LEN_UNKNOWN); /* section length -1: not given */
    le32(b + 20, PCAPNG_LEN_UNKNOWN);
    le16(b + 24, PCAPNG_SHB_USERAPPL);
    le16(b + 26, applen);
    memcpy(b + 28, userappl, applen);
    /* end-of-options (4 zero bytes) already zero */
    le32(b + len - 4, len);
    put(w, b, len);

    memset(b, 0, sizeof b);
    opts = PCAPNG_OPT_HDR_LEN + PCAPNG_ALIGN + PCAPNG_OPT_HDR_LEN;
    len = PCAPNG_BLOCK_OVERHEAD + PCAPNG_IDB_FIXED + opts;
    le32(b, PCAPNG_IDB_TYPE);
    le32(b + 4, len);
    le16(b + 8, (uint32_t)linktype);
    le16(b + 10, 0);
    le32(b + 12, w->snaplen ? w->snaplen : SNAPLEN_UNLIMITED);
    le16(b + 16, PCAPNG_IF_TSRESOL);
    le16(b + 18, 1);
    b[20] = PCAPNG_TSRESOL_NS;
    le16(b + 24, PCAPNG_OPT_ENDOFOPT);
    le32(b + len - 4, len);
    put(w, b, len);
}

struct rg_writer *rg_writer_fopen(FILE *f, enum rg_format fmt, int linktype, uint32_t snaplen)
{
    struct rg_writer *w = calloc(1, sizeof *w);
    if (w == NULL)
        return NULL;
    w->f = f;
    w->fmt = fmt;
    w->snaplen = snaplen;
    w->erf = fmt == RG_FMT_ERF || linktype == RG_LINKTYPE_ERF;
    if (fmt == RG_FMT_PCAPNG)
        pcapng_header(w, linktype);
    else if (fmt == RG_FMT_PCAP)
        pcap_header(w, linktype);
    return w;
}

struct rg_writer *rg_writer_open(const char *path, enum rg_format fmt, int linktype,
                                 uint32_t snaplen)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return NULL;
    char *iobuf = malloc(WRITER_BUFSIZE);
    if (iobuf != NULL)
        setvbuf(f, iobuf, _IOFBF, WRITER_BUFSIZE);
    struct rg_writer *w = rg_writer_fopen(f, fmt, linktype, snaplen);
    if (w == NULL) {
        fclose(f);
        free(iobuf);
        return NULL;
    }
    w->own = 1;
    w->iobuf = iobuf;
    return w;
}

int rg_writer_write(struct rg_writer *w, int64_t ts_ns, const uint8_t *frame, uint32_t len)
{
    return rg_writer_write_cut(w, ts_ns, frame, len, len);
}

/* An ERF record of the frame: the record header, then the frame (the
 * caller writes it), and the padding of an ERF file (after it). */
static uint32_t erf_record(struct rg_writer *w, int64_t ts_ns, uint32_t cap, uint32_t len,
                           uint8_t h[ERF_HDR_LEN])
{
    uint32_t rlen = ERF_HDR_LEN + cap;
    if (w->fmt == RG_FMT_ERF)
        rlen = (rlen + ERF_ALIGN - 1) & ~(ERF_ALIGN - 1);
    erf_header(h, ts_ns, rlen, len);
    return rlen;
}

int rg_writer_write_cut(struct rg_writer *w, int64_t ts_ns, const uint8_t *frame, uint32_t caplen,
                        uint32_t len)
{
    static const uint8_t erf_zeros[ERF_ALIGN] = {0};
    uint32_t cap = w->snaplen != 0 && caplen > w->snaplen ? w->snaplen : caplen;
    uint8_t h[PCAPNG_BLOCK_OVERHEAD + PCAPNG_EPB_FIXED], e[ERF_HDR_LEN];
    uint32_t rlen = w->erf ? erf_record(w, ts_ns, cap, len, e) : 0;

    if (w->fmt == RG_FMT_ERF) {
        put(w, e, sizeof e);
        put(w, frame, cap);
        put(w, erf_zeros, rlen - ERF_HDR_LEN - cap);
        w->count++;
        return w->err ? RG_ERR_IO : 0;
    }
    if (w->erf) { /* the record is the pcap frame: header and frame captured, as ibdump */
        len = ERF_HDR_LEN + len;
        cap = rlen;
    }
    if (w->fmt == RG_FMT_PCAPNG) {
        static const uint8_t zeros[PCAPNG_ALIGN] = {0, 0, 0, 0};
        uint32_t blen = PCAPNG_BLOCK_OVERHEAD + PCAPNG_EPB_FIXED + pad4(cap);
        uint64_t ts = (uint64_t)ts_ns;
        le32(h, PCAPNG_EPB_TYPE);
        le32(h + 4, blen);
        le32(h + 8, 0); /* interface 0 */
        le32(h + 12, (uint32_t)(ts >> 32));
        le32(h + 16, (uint32_t)ts);
        le32(h + 20, cap);
        le32(h + 24, len);
        put(w, h, PCAPNG_BLOCK_OVERHEAD - 4 + PCAPNG_EPB_FIXED);
        if (w->erf)
            put(w, e, sizeof e);
        put(w, frame, cap - (w->erf ? ERF_HDR_LEN : 0));
        put(w, zeros, pad4(cap) - cap);
        le32(h, blen);
        put(w, h, 4);
    } else {
        le32(h, (uint32_t)(ts_ns / ROCE_NS_PER_SEC));
        le32(h + 4, (uint32_t)(ts_ns % ROCE_NS_PER_SEC));
        le32(h + 8, cap);
        le32(h + 12, len);
        put(w, h, PCAP_REC_HDR_LEN);
        if (w->erf)
            put(w, e, sizeof e);
        put(w, frame, cap - (w->erf ? ERF_HDR_LEN : 0));
    }
    w->count++;
    return w->err ? RG_ERR_IO : 0;
}

uint64_t rg_writer_count(const struct rg_writer *w)
{
    return w->count;
}

int rg_writer_close(struct rg_writer *w)
{
    if (w == NULL)
        return 0;
    int err = w->err || fflush(w->f) != 0 || ferror(w->f);
    if (w->own && fclose(w->f) != 0)
        err = 1;
    free(w->iobuf);
    free(w);
    return err ? RG_ERR_IO : 0;
}
