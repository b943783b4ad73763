/*
 * erf.c - ERF records and raw ERF files (see erf.h).
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
 * VCRC last), 22 IPv4, 23 IPv6, 48 padding (skipped in files).
 */
#define _DEFAULT_SOURCE
#include "erf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce_decode.h"
#include "roce_extract.h"
#include "roce_time.h"

#define ERF_HDR_LEN        16
#define ERF_TYPE_OFF       8
#define ERF_RLEN_OFF       10
#define ERF_WLEN_OFF       14
#define ERF_EHDR_BIT       0x80u
#define ERF_EHDR_LEN       8
#define ERF_TYPE_PAD       48
#define ERF_TYPE_MAX       ERF_TYPE_PAD
#define FRAC_SHIFT         32
#define FRAC_MASK          0xFFFFFFFFull
#define FRAC_HALF          0x80000000ull
#define PROBE_RECORDS      20 /* records checked before a file is taken as ERF */
#define PROBE_MIN_RECORDS  3  /* a file cut short within them is not */
#define PROBE_MAX_BACK     1  /* seconds a time stamp may go back (between interfaces) */
#define PROBE_MAX_FORWARD  (365LL * 24 * 3600) /* seconds it may leap forward */

/* ns since the epoch of an ERF time stamp, rounded as Wireshark rounds it
 * (so that frame times agree with the plugin's). */
static int64_t erf_ts_ns(uint64_t ts)
{
    uint64_t frac = (ts & FRAC_MASK) * (uint64_t)ROCE_NS_PER_SEC;
    frac += (frac & FRAC_HALF) << 1;
    return (int64_t)(ts >> FRAC_SHIFT) * ROCE_NS_PER_SEC + (int64_t)(frac >> FRAC_SHIFT);
}

static uint64_t get_le64(const uint8_t *p)
{
    return (uint64_t)roce_get_le32(p, 4) << 32 | roce_get_le32(p, 0);
}

int roce_erf_frame(struct roce_capture_frame *f)
{
    const uint8_t *r = f->data;
    size_t off = ERF_HDR_LEN;

    f->linktype = ROCE_LINKTYPE_ERF;
    if (!roce_fits(f->caplen, 0, ERF_HDR_LEN))
        return -1;
    for (unsigned t = r[ERF_TYPE_OFF]; t & ERF_EHDR_BIT; off += ERF_EHDR_LEN) {
        if (!roce_fits(f->caplen, off, ERF_EHDR_LEN))
            return -1;
        t = r[off];
    }
    int lt = roce_erf_type_linktype(r[ERF_TYPE_OFF] & ROCE_ERF_TYPE_MASK);
    if (lt == ROCE_LINKTYPE_ETHERNET)
        off += ROCE_ERF_ETH_PAD_LEN;
    if (lt == 0 || off > f->caplen)
        return -1;
    uint32_t wlen = roce_get_be16(r, ERF_WLEN_OFF);
    uint32_t cap = f->caplen - (uint32_t)off;
    f->ts_ns = erf_ts_ns(get_le64(r));
    f->linktype = lt;
    f->data = r + off;
    f->caplen = cap < wlen ? cap : wlen;
    f->wirelen = wlen;
    return 0;
}

/* ---- raw ERF files ---- */

struct roce_erfmap {
    FILE *f;
    uint8_t *buf; /* one record, at most 64 KiB */
    char err[128];
};

/* Read exactly n bytes: 1, 0 at the end of the file before any, -1 cut short. */
static int read_all(FILE *f, void *p, size_t n)
{
    size_t got = fread(p, 1, n, f);
    if (got == n)
        return 1;
    return got == 0 && feof(f) ? 0 : -1;
}

int roce_erf_probe(FILE *f)
{
    uint8_t h[ERF_HDR_LEN], e[ERF_EHDR_LEN];
    uint64_t prev = 0;
    int ok = 0, i;

    for (i = 0; i < PROBE_RECORDS; i++) {
        int rc = read_all(f, h, sizeof h);
        if (rc <= 0) {
            ok = rc == 0 ? i > 0 : i >= PROBE_MIN_RECORDS;
            break;
        }
        unsigned type = h[ERF_TYPE_OFF] & ROCE_ERF_TYPE_MASK;
        size_t rlen = roce_get_be16(h, ERF_RLEN_OFF), body;
        uint64_t ts = get_le64(h);
        if (rlen < ERF_HDR_LEN || type == 0 || type > ERF_TYPE_MAX)
            break;
        body = rlen - ERF_HDR_LEN;
        if (type != ERF_TYPE_PAD) {
            if (i > 0 && ((ts < prev && (prev - ts) >> FRAC_SHIFT > PROBE_MAX_BACK) ||
                          (ts > prev && (int64_t)((ts - prev) >> FRAC_SHIFT) > PROBE_MAX_FORWARD)))
                break;
            prev = ts;
            for (unsigned t = h[ERF_TYPE_OFF]; t & ERF_EHDR_BIT; t = e[0]) {
                if (body < ERF_EHDR_LEN || read_all(f, e, sizeof e) != 1)
                    goto done;
                body -= ERF_EHDR_LEN;
            }
        }
        if (fseek(f, (long)body, SEEK_CUR) != 0)
            break;
    }
    if (i == PROBE_RECORDS)
        ok = 1;
done:
    rewind(f);
    return ok;
}

struct roce_erfmap *roce_erfmap_open(const char *path, char *err, size_t errlen)
{
    struct roce_erfmap *m = calloc(1, sizeof *m);
    if (m == NULL || (m->buf = malloc(UINT16_MAX + 1u)) == NULL) {
        free(m);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    m->f = fopen(path, "rb");
    if (m->f == NULL) {
        snprintf(err, errlen, "%s", strerror(errno));
        roce_erfmap_close(m);
        return NULL;
    }
    if (!roce_erf_probe(m->f)) {
        snprintf(err, errlen, "not an ERF file");
        roce_erfmap_close(m);
        return NULL;
    }
    return m;
}

int roce_erfmap_next(struct roce_erfmap *m, struct roce_capture_frame *f)
{
    for (;;) {
        int rc = read_all(m->f, m->buf, ERF_HDR_LEN);
        if (rc == 0)
            return ROCE_CAPTURE_END;
        size_t rlen = rc > 0 ? roce_get_be16(m->buf, ERF_RLEN_OFF) : 0;
        if (rc < 0 || rlen < ERF_HDR_LEN) {
            snprintf(m->err, sizeof m->err, rc < 0 ? "ERF record header cut short"
                                                   : "ERF record shorter than its header");
            return ROCE_CAPTURE_ERROR;
        }
        if (read_all(m->f, m->buf + ERF_HDR_LEN, rlen - ERF_HDR_LEN) != 1) {
            snprintf(m->err, sizeof m->err, "ERF record cut short");
            return ROCE_CAPTURE_ERROR;
        }
        if ((m->buf[ERF_TYPE_OFF] & ROCE_ERF_TYPE_MASK) == ERF_TYPE_PAD)
            continue;
        f->data = m->buf;
        f->caplen = (uint32_t)rlen;
        f->wirelen = (uint32_t)rlen;
        f->ts_ns = erf_ts_ns(get_le64(m->buf));
        roce_erf_frame(f);
        return ROCE_CAPTURE_FRAME;
    }
}

const char *roce_erfmap_error(const struct roce_erfmap *m)
{
    return m->err;
}

void roce_erfmap_close(struct roce_erfmap *m)
{
    if (m == NULL)
        return;
    if (m->f != NULL)
        fclose(m->f);
    free(m->buf);
    free(m);
}
