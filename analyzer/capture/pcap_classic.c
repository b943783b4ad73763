/*
 * pcap_classic.c - classic pcap records parsed in place (see capture_rd.h).
 *
 * The row roce_capture_pcap of the probe table.
 *
 * File format (https://www.tcpdump.org/manpages/pcap-savefile.5.html):
 *   file header (24): magic(4) version major(2) minor(2) thiszone(4)
 *                     sigfigs(4) snaplen(4) linktype(4)
 *   record header (16): ts_sec(4) ts_frac(4) incl_len(4) orig_len(4), then
 *                       incl_len bytes
 * magic 0xa1b2c3d4 (microseconds) or 0xa1b23c4d (nanoseconds), written in
 * the byte order of the machine that made the file: both orders are read.
 * Only version 2.4 files with a snapshot length in (0, 256 KiB] and no
 * link-type extension bits are taken; a record longer than the snapshot
 * length or running past the end of the input is left to libpcap, which
 * reads it or reports the problem in its own words.
 */
#include "capture_rd.h"

#include <string.h>

#include "roce_time.h"

#define FILE_HDR_LEN     24
#define REC_HDR_LEN      16
#define MAGIC_US         0xA1B2C3D4u
#define MAGIC_NS         0xA1B23C4Du
#define MAGIC_US_SWAPPED 0xD4C3B2A1u
#define MAGIC_NS_SWAPPED 0x4D3CB2A1u
#define LINKTYPE_MASK    0x03FFFFFFu    /* bits 26..31 carry FCS information */
#define MAX_RECORD       (256u * 1024u) /* libpcap's largest snapshot length */
#define VERSION_MAJOR    2
#define VERSION_MINOR    4
#define VERSION_OFF      4
#define SNAPLEN_OFF      16
#define LINKTYPE_OFF     20

/* The reader's state. */
struct classic {
    int swapped;
    int64_t frac_ns; /* nanoseconds per unit of ts_frac */
    uint32_t snaplen;
    uint8_t hdr[FILE_HDR_LEN]; /* the file header, for libpcap */
};

/* Stop at the record at the read position: libpcap reads on from there,
 * after the file header. */
static int give_way(struct roce_rd *r, const struct classic *k)
{
    r->pre = k->hdr;
    r->pre_len = sizeof k->hdr;
    return ROCE_RD_LIBPCAP;
}

/* The row's probe: the magic number, in either byte order. */
static int classic_probe(const uint8_t *head, size_t len)
{
    uint32_t magic;
    if (len < sizeof magic)
        return 0;
    memcpy(&magic, head, sizeof magic);
    return magic == MAGIC_US || magic == MAGIC_NS || magic == MAGIC_US_SWAPPED ||
           magic == MAGIC_NS_SWAPPED;
}

/* The row's open: the file header stepped over, or -1 when libpcap is to
 * read the whole input (nothing stepped over). */
static int classic_open(struct roce_rd *r)
{
    struct classic *k = r->st;
    struct roce_src *s = r->src;
    if (!roce_src_need(s, FILE_HDR_LEN))
        return -1;
    const uint8_t *h = s->p + s->off;
    uint32_t magic;
    memcpy(&magic, h, sizeof magic);
    k->swapped = magic == MAGIC_US_SWAPPED || magic == MAGIC_NS_SWAPPED;
    k->frac_ns = magic == MAGIC_US || magic == MAGIC_US_SWAPPED ? ROCE_NS_PER_US : 1;
    uint16_t ver[2] = {roce_rd16(k->swapped, h + VERSION_OFF),
                       roce_rd16(k->swapped, h + VERSION_OFF + 2)};
    uint32_t lt = roce_rd32(k->swapped, h + LINKTYPE_OFF);
    k->snaplen = roce_rd32(k->swapped, h + SNAPLEN_OFF);
    if (ver[0] != VERSION_MAJOR || ver[1] != VERSION_MINOR || (lt & ~LINKTYPE_MASK) != 0 ||
        k->snaplen == 0 || k->snaplen > MAX_RECORD)
        return -1;
    r->linktype = (int)lt;
    if (k->frac_ns == ROCE_NS_PER_US)
        r->rec.tsresol = ROCE_CAPTURE_TSRESOL_US;
    memcpy(k->hdr, h, FILE_HDR_LEN);
    roce_src_skip(s, FILE_HDR_LEN);
    return 0;
}

/* The record at h (its header and incl_len bytes at hand) as a frame. */
static inline void record(const struct roce_rd *r, const struct classic *k, const uint8_t *h,
                          struct roce_capture_frame *f)
{
    uint32_t incl = roce_rd32(k->swapped, h + 8), orig = roce_rd32(k->swapped, h + 12);
    f->ts_ns = (int64_t)roce_rd32(k->swapped, h) * ROCE_NS_PER_SEC +
               (int64_t)roce_rd32(k->swapped, h + 4) * k->frac_ns;
    f->caplen = incl;
    f->wirelen = orig < incl ? incl : orig;
    f->data = h + REC_HDR_LEN;
    f->linktype = r->linktype;
}

/* The row's next: a record, or at one it does not take the file header
 * kept for libpcap. */
static int classic_next(struct roce_rd *r, struct roce_capture_frame *f)
{
    struct classic *k = r->st;
    struct roce_src *s = r->src;
    if (!roce_src_need(s, REC_HDR_LEN)) {
        if (roce_src_left(s) == 0 && s->read_errno == 0)
            return ROCE_RD_END;
        return give_way(r, k);
    }
    uint32_t incl = roce_rd32(k->swapped, s->p + s->off + 8);
    if (incl > k->snaplen || !roce_src_need(s, REC_HDR_LEN + (size_t)incl))
        return give_way(r, k);
    record(r, k, s->p + s->off, f); /* a stream's bytes may have moved */
    roce_src_skip(s, REC_HDR_LEN + (size_t)incl);
    return ROCE_RD_FRAME;
}

/* The row's frame_at: the record at h, whole in the left bytes at hand,
 * unless classic_next would give way at it. */
static size_t classic_frame_at(const struct roce_rd *r, const uint8_t *h, size_t left,
                               struct roce_capture_frame *f, struct roce_capture_record *rec)
{
    const struct classic *k = r->st;
    (void)rec; /* the file's (r->rec): no block of its own */
    if (left < REC_HDR_LEN)
        return 0;
    uint32_t incl = roce_rd32(k->swapped, h + 8);
    if (incl > k->snaplen || left - REC_HDR_LEN < incl)
        return 0;
    record(r, k, h, f);
    return REC_HDR_LEN + (size_t)incl;
}

const struct roce_capture_format roce_capture_pcap = {
    .flags = ROCE_FMT_IN_PLACE,
    .size = sizeof(struct classic),
    .probe = classic_probe,
    .open = classic_open,
    .next = classic_next,
    .frame_at = classic_frame_at,
};
