/*
 * pcap_classic.c - classic pcap records parsed in place (see capture_rd.h).
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
#define LINKTYPE_MASK    0x03FFFFFFu /* bits 26..31 carry FCS information */
#define MAX_RECORD       (256u * 1024u) /* libpcap's largest snapshot length */
#define VERSION_MAJOR    2
#define VERSION_MINOR    4
#define VERSION_OFF      4
#define SNAPLEN_OFF      16
#define LINKTYPE_OFF     20

int roce_rd_pcap_probe(const uint8_t *head, size_t len)
{
    uint32_t magic;
    if (len < sizeof magic)
        return 0;
    memcpy(&magic, head, sizeof magic);
    return magic == MAGIC_US || magic == MAGIC_NS || magic == MAGIC_US_SWAPPED ||
           magic == MAGIC_NS_SWAPPED;
}

int roce_rd_pcap_open(struct roce_rd_pcap *r, struct roce_src *s)
{
    memset(r, 0, sizeof *r);
    if (!roce_src_need(s, FILE_HDR_LEN) || !roce_rd_pcap_probe(s->p + s->off, FILE_HDR_LEN))
        return -1;
    const uint8_t *h = s->p + s->off;
    uint32_t magic;
    memcpy(&magic, h, sizeof magic);
    r->swapped = magic == MAGIC_US_SWAPPED || magic == MAGIC_NS_SWAPPED;
    r->frac_ns = magic == MAGIC_US || magic == MAGIC_US_SWAPPED ? ROCE_NS_PER_US : 1;
    uint16_t ver[2] = {roce_rd16(r->swapped, h + VERSION_OFF),
                       roce_rd16(r->swapped, h + VERSION_OFF + 2)};
    uint32_t lt = roce_rd32(r->swapped, h + LINKTYPE_OFF);
    r->snaplen = roce_rd32(r->swapped, h + SNAPLEN_OFF);
    if (ver[0] != VERSION_MAJOR || ver[1] != VERSION_MINOR || (lt & ~LINKTYPE_MASK) != 0 ||
        r->snaplen == 0 || r->snaplen > MAX_RECORD)
        return -1;
    r->linktype = (int)lt;
    memcpy(r->hdr, h, FILE_HDR_LEN);
    roce_src_skip(s, FILE_HDR_LEN);
    return 0;
}

int roce_rd_pcap_next(struct roce_rd_pcap *r, struct roce_src *s, struct roce_capture_frame *f)
{
    if (!roce_src_need(s, REC_HDR_LEN))
        return roce_src_left(s) == 0 && s->read_errno == 0 ? ROCE_RD_END : ROCE_RD_LIBPCAP;
    const uint8_t *h = s->p + s->off;
    uint32_t sec = roce_rd32(r->swapped, h), frac = roce_rd32(r->swapped, h + 4);
    uint32_t incl = roce_rd32(r->swapped, h + 8), orig = roce_rd32(r->swapped, h + 12);
    if (incl > r->snaplen || !roce_src_need(s, REC_HDR_LEN + (size_t)incl))
        return ROCE_RD_LIBPCAP;
    h = s->p + s->off; /* a stream's bytes may have moved */
    f->ts_ns = (int64_t)sec * ROCE_NS_PER_SEC + (int64_t)frac * r->frac_ns;
    f->caplen = incl;
    f->wirelen = orig < incl ? incl : orig;
    f->data = h + REC_HDR_LEN;
    f->linktype = r->linktype;
    roce_src_skip(s, REC_HDR_LEN + (size_t)incl);
    return ROCE_RD_FRAME;
}
