/*
 * pcap_ng.c - pcapng blocks parsed in place (see capture_rd.h).
 *
 * The row roce_capture_pcapng of the probe table.
 *
 * File format (IETF draft-ietf-opsawg-pcapng): a file is one or more
 * sections, each a Section Header Block followed by blocks:
 *
 *   block:  type(4) total_length(4) body... total_length(4)
 *   SHB     0x0A0D0D0A: byte_order_magic(4)=0x1A2B3C4D major(2) minor(2)
 *           section_length(8) options
 *   IDB     1: linktype(2) reserved(2) snaplen(4) options
 *   EPB     6: interface_id(4) ts_high(4) ts_low(4) caplen(4) len(4) data, options
 *   SPB     3: len(4) data (interface 0, no time stamp)
 *   PB      2: interface_id(2) drops(2) ts_high(4) ts_low(4) caplen(4) len(4) data, options
 *   option: code(2) length(2) value, padded to 4 bytes; code 0 ends the list
 *
 * Interfaces are numbered from 0 in each section. An interface's time
 * stamps count units of if_tsresol (option 9: 10^-n, or 2^-n with the top
 * bit set; default microseconds) plus if_tsoffset seconds (option 14).
 * Other blocks and options are stepped over.
 *
 * Time stamps, capture lengths and the checks follow libpcap's reader
 * (sf-pcapng.c) exactly, so that the frames are those libpcap gives; at
 * anything this reader does not take it stops and libpcap reads on
 * (capture_rd.h). One difference: libpcap refuses an interface whose link
 * type or snapshot length differs from the first interface's ("an interface
 * has a type 113 different from the type of the first interface", as
 * dumpcap writes for -i eth0 -i any and mergecap for merged captures);
 * this reader reads such files, each frame with its interface's link type.
 * From there on libpcap could not read on, and a problem is reported in
 * this reader's own words.
 */
#include "capture_rd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BT_SHB            0x0A0D0D0Au
#define BT_IDB            0x00000001u
#define BT_PB             0x00000002u
#define BT_SPB            0x00000003u
#define BT_EPB            0x00000006u
#define BT_ISB            0x00000005u
#define BYTE_ORDER_MAGIC  0x1A2B3C4Du
#define BLOCK_HDR_LEN     8
#define BLOCK_MIN_LEN     12              /* header and trailer */
#define BLOCK_MAX_LEN     (1024u * 1024u) /* larger blocks are left to libpcap */
#define SHB_MIN_LEN       28
#define SHB_BODY_LEN      16
#define IDB_BODY_LEN      8
#define EPB_BODY_LEN      20
#define PB_BODY_LEN       20
#define SPB_BODY_LEN      4
#define ISB_BODY_LEN      12
#define OPT_HDR_LEN       4
#define OPT_END           0
#define IF_TSRESOL        9
#define IF_TSOFFSET       14
#define TSRESOL_BINARY    0x80u
#define TSRESOL_MAX_SHIFT 63
#define TSRESOL_MAX_EXP   19
#define TSRESOL_DEFAULT   1000000u    /* microseconds */
#define TSRESOL_NS        1000000000u /* what the engine wants */
#define SNAPLEN_MAX       262144u     /* libpcap's largest snapshot length for these link types */
#define IFS_MAX           65536u      /* interfaces in a section taken */
#define LINKTYPE_RAW      101
#define LINKTYPE_ATM      100

enum scale { PASS_THROUGH, SCALE_UP_DEC, SCALE_DOWN_DEC, SCALE_BIN };

struct roce_rd_ng_if {
    int linktype;
    uint32_t snap;    /* snapshot length, adjusted as libpcap does */
    uint64_t tsresol; /* units per second */
    uint64_t factor;  /* decimal scaling */
    int64_t tsoffset;
    uint8_t scale;  /* enum scale */
    size_t idb_off; /* its description block, in pre */
    uint32_t idb_len;
};

/* The reader's state. */
struct roce_rd_ng {
    int swapped;
    int linktype;              /* of the first interface (the file's, as libpcap says) */
    uint32_t first_snap;       /* its snapshot length as libpcap adjusts it */
    int compatible;            /* libpcap reads what was read so far the same way */
    struct roce_rd_ng_if *ifs; /* the current section's interfaces */
    uint32_t section;          /* the current section, from 0 */
    uint32_t n_ifs, cap_ifs;
    /* the headers libpcap needs: the first section's header and first
     * interface, then the current section's header (when not the first) and
     * interfaces (the first section's after its first) */
    uint8_t *pre;
    size_t pre_len, pre_cap, pre_first;
};

/* The row's probe: a section header block (its type is the same in both
 * byte orders). */
static int ng_probe(const uint8_t *head, size_t len)
{
    uint32_t type;
    if (len < sizeof type)
        return 0;
    memcpy(&type, head, sizeof type);
    return type == BT_SHB; /* the same in both byte orders */
}

/* The DLT_ value libpcap gives for a link type (where it differs). */
static int linktype_dlt(int lt)
{
    return lt == LINKTYPE_RAW ? 12 : lt == LINKTYPE_ATM ? 11 : lt;
}

/* The snapshot length libpcap uses for an interface's. */
static uint32_t adjust_snap(uint32_t snap)
{
    return snap == 0 || snap > SNAPLEN_MAX ? SNAPLEN_MAX : snap;
}

/* Append a block to the headers kept for libpcap. 0 or -1. */
static int keep(struct roce_rd_ng *r, const uint8_t *b, size_t len)
{
    if (r->pre_len + len > r->pre_cap) {
        size_t cap = (r->pre_len + len) * 2;
        uint8_t *p = realloc(r->pre, cap);
        if (p == NULL)
            return -1;
        r->pre = p;
        r->pre_cap = cap;
    }
    memcpy(r->pre + r->pre_len, b, len);
    r->pre_len += len;
    return 0;
}

/* Keep the description block b (len bytes) of the interface added last. 0 or -1. */
static int keep_idb(struct roce_rd_ng *r, const uint8_t *b, size_t len)
{
    struct roce_rd_ng_if *i = &r->ifs[r->n_ifs - 1];
    i->idb_off = r->pre_len;
    i->idb_len = (uint32_t)len;
    return keep(r, b, len);
}

/* The time stamp options of an IDB (body b of n bytes): 0, or -1 for what
 * libpcap refuses. */
static int idb_options(const struct roce_rd_ng *r, const uint8_t *b, size_t n,
                       struct roce_rd_ng_if *i)
{
    int saw_tsresol = 0, saw_tsoffset = 0, binary = 0;
    i->tsresol = TSRESOL_DEFAULT;
    i->tsoffset = 0;
    for (size_t off = IDB_BODY_LEN; off != n;) {
        if (n - off < OPT_HDR_LEN)
            return -1;
        unsigned code = roce_rd16(r->swapped, b + off), olen = roce_rd16(r->swapped, b + off + 2);
        size_t padded = ((size_t)olen + 3) / 4 * 4;
        if (n - off - OPT_HDR_LEN < padded)
            return -1;
        const uint8_t *v = b + off + OPT_HDR_LEN;
        off += OPT_HDR_LEN + padded;
        if (code == OPT_END) {
            if (olen != 0)
                return -1;
            break;
        }
        if (code == IF_TSRESOL) {
            if (olen != 1 || saw_tsresol++)
                return -1;
            if (v[0] & TSRESOL_BINARY) {
                if ((v[0] & ~TSRESOL_BINARY) > TSRESOL_MAX_SHIFT)
                    return -1;
                binary = 1;
                i->tsresol = (uint64_t)1 << (v[0] & ~TSRESOL_BINARY);
            } else {
                if (v[0] > TSRESOL_MAX_EXP)
                    return -1;
                binary = 0;
                i->tsresol = 1;
                for (unsigned k = 0; k < v[0]; k++)
                    i->tsresol *= 10;
            }
        } else if (code == IF_TSOFFSET) {
            if (olen != 8 || saw_tsoffset++)
                return -1;
            i->tsoffset = (int64_t)roce_rd64(r->swapped, v);
        }
    }
    if (i->tsresol == TSRESOL_NS) {
        i->scale = PASS_THROUGH;
    } else if (binary) {
        i->scale = SCALE_BIN;
    } else if (i->tsresol > TSRESOL_NS) {
        i->scale = SCALE_DOWN_DEC;
        i->factor = i->tsresol / TSRESOL_NS;
    } else {
        i->scale = SCALE_UP_DEC;
        i->factor = TSRESOL_NS / i->tsresol;
    }
    return 0;
}

/* Add the interface of an IDB (body b of n >= IDB_BODY_LEN bytes). 0, or -1
 * when libpcap refuses it or out of memory. */
static int add_if(struct roce_rd_ng *r, const uint8_t *b, size_t n)
{
    struct roce_rd_ng_if i;
    memset(&i, 0, sizeof i);
    i.linktype = roce_rd16(r->swapped, b);
    i.snap = adjust_snap(roce_rd32(r->swapped, b + 4));
    if (idb_options(r, b, n, &i) != 0 || r->n_ifs == IFS_MAX)
        return -1;
    if (r->n_ifs == r->cap_ifs) {
        uint32_t cap = r->cap_ifs ? r->cap_ifs * 2 : 4;
        struct roce_rd_ng_if *p = realloc(r->ifs, cap * sizeof *p);
        if (p == NULL)
            return -1;
        r->ifs = p;
        r->cap_ifs = cap;
    }
    r->ifs[r->n_ifs++] = i;
    return 0;
}

/* The length of the block at b, whole in the avail bytes at hand and of a
 * length a block may have (its trailing length the same), else 0. */
static size_t block_in(const struct roce_rd_ng *r, const uint8_t *b, size_t avail)
{
    if (avail < BLOCK_HDR_LEN)
        return 0;
    uint32_t len = roce_rd32(r->swapped, b + 4);
    if (len < BLOCK_MIN_LEN || len % 4 != 0 || len > BLOCK_MAX_LEN || avail < len ||
        roce_rd32(r->swapped, b + len - 4) != len)
        return 0;
    return len;
}

/* The checks every block passes, at o bytes past the read position (read
 * in as needed): its length (returned), or 0 when libpcap is to read it. */
static size_t block_at(struct roce_rd_ng *r, struct roce_src *s, size_t o)
{
    if (!roce_src_need(s, o + BLOCK_HDR_LEN))
        return 0;
    uint32_t len = roce_rd32(r->swapped, s->p + s->off + o + 4);
    if (len < BLOCK_MIN_LEN || len % 4 != 0 || len > BLOCK_MAX_LEN ||
        !roce_src_need(s, o + (size_t)len))
        return 0;
    return block_in(r, s->p + s->off + o, roce_src_left(s) - o);
}

/* The row's close: the interfaces and the headers kept. */
static void ng_close(struct roce_rd *rd)
{
    struct roce_rd_ng *r = rd->st;
    free(r->ifs);
    free(r->pre);
}

/* The row's open: up to the first interface stepped over, or -1 when
 * libpcap is to read the whole input (nothing stepped over). */
static int ng_open(struct roce_rd *rd)
{
    struct roce_rd_ng *r = rd->st;
    struct roce_src *s = rd->src;
    r->compatible = 1;
    if (!roce_src_need(s, BLOCK_MIN_LEN))
        return -1;
    uint32_t bom;
    memcpy(&bom, s->p + s->off + BLOCK_HDR_LEN, sizeof bom);
    if (bom != BYTE_ORDER_MAGIC && __builtin_bswap32(bom) != BYTE_ORDER_MAGIC)
        return -1;
    r->swapped = bom != BYTE_ORDER_MAGIC;
    size_t len = block_at(r, s, 0);
    if (len < SHB_MIN_LEN)
        return -1;
    const uint8_t *h = s->p + s->off;
    unsigned major = roce_rd16(r->swapped, h + 12), minor = roce_rd16(r->swapped, h + 14);
    if (major != 1 || (minor != 0 && minor != 2))
        return -1;
    for (size_t o = len; (len = block_at(r, s, o)) != 0; o += len) {
        const uint8_t *b = s->p + s->off + o;
        uint32_t type = roce_rd32(r->swapped, b);
        if (type == BT_EPB || type == BT_SPB || type == BT_PB)
            break;
        if (type != BT_IDB)
            continue;
        if (len - BLOCK_MIN_LEN < IDB_BODY_LEN || add_if(r, b + BLOCK_HDR_LEN, len - BLOCK_MIN_LEN))
            break;
        r->linktype = r->ifs[0].linktype;
        r->first_snap = r->ifs[0].snap;
        /* the section header and the first interface, for libpcap */
        if (keep(r, s->p + s->off, roce_rd32(r->swapped, s->p + s->off + 4)) != 0 ||
            keep_idb(r, b, len) != 0)
            break;
        r->pre_first = r->pre_len;
        rd->linktype = r->linktype;
        /* the section header as stored, for what copies the file */
        uint32_t shb_len = roce_rd32(r->swapped, s->p + s->off + 4);
        if ((rd->shb = malloc(shb_len)) == NULL)
            break;
        memcpy(rd->shb, s->p + s->off, shb_len);
        rd->shb_len = shb_len;
        rd->shb_swapped = r->swapped;
        roce_src_skip(s, o + len);
        return 0;
    }
    return -1;
}

/* Stop at the block at the read position: libpcap reads on while it could
 * have read the file so far (after the headers kept), else the reader says
 * why. */
static int give_way(struct roce_rd *rd, const char *why)
{
    const struct roce_rd_ng *r = rd->st;
    if (r->compatible) {
        rd->pre = r->pre;
        rd->pre_len = r->pre_len;
        return ROCE_RD_LIBPCAP;
    }
    snprintf(rd->err, sizeof rd->err, "pcapng: %s", why);
    return ROCE_RD_ERROR;
}

/* A block that is not a packet: an interface, a section, or stepped over.
 * 0, or what next returns. */
static int other_block(struct roce_rd *rd, const uint8_t *b, size_t len)
{
    struct roce_rd_ng *r = rd->st;
    uint32_t type = roce_rd32(r->swapped, b);
    const uint8_t *body = b + BLOCK_HDR_LEN;
    size_t n = len - BLOCK_MIN_LEN;
    if (type == BT_IDB) {
        if (n < IDB_BODY_LEN)
            return give_way(rd, "interface description block too short");
        if (roce_rd16(r->swapped, body) != linktype_dlt(r->linktype) ||
            adjust_snap(roce_rd32(r->swapped, body + 4)) != r->first_snap)
            r->compatible = 0; /* from here on libpcap could not read on */
        if (add_if(r, body, n) != 0)
            return give_way(rd, "interface description block not read");
        if (keep_idb(r, b, len) != 0)
            return give_way(rd, "out of memory");
    } else if (type == BT_SHB) {
        if (n < SHB_BODY_LEN || roce_rd32(r->swapped, body) != BYTE_ORDER_MAGIC ||
            roce_rd16(r->swapped, body + 4) != 1)
            return give_way(rd, "section header block not read");
        r->n_ifs = 0;
        r->section++;
        r->pre_len = r->pre_first;
        if (keep(r, b, len) != 0)
            return give_way(rd, "out of memory");
    }
    return 0;
}

/* Nanoseconds since the epoch of t units on interface i, computed as
 * libpcap computes seconds and fractions (its overflows included), then as
 * a libpcap record's is taken (roce_capture_ts_ns). */
static int64_t ts_of(const struct roce_rd_ng_if *i, uint64_t t)
{
    uint64_t sec = t / i->tsresol + (uint64_t)i->tsoffset;
    uint64_t frac = t % i->tsresol;
    switch (i->scale) {
    case SCALE_UP_DEC:
        frac *= i->factor;
        break;
    case SCALE_DOWN_DEC:
        frac /= i->factor;
        break;
    case SCALE_BIN:
        frac = frac * TSRESOL_NS / i->tsresol;
        break;
    default:
        break;
    }
    return roce_capture_ts_ns((int64_t)sec, (int64_t)(int)frac, 1);
}

/* The packet block b (len bytes, whole; its type: an EPB, SPB or PB) as a
 * frame into f and its record into rec: NULL, or why this reader does not
 * read it (give_way's words). */
static inline __attribute__((always_inline)) const char *
packet(const struct roce_rd_ng *r, const uint8_t *b, size_t len, uint32_t type,
       struct roce_capture_frame *f, struct roce_capture_record *rec)
{
    const uint8_t *body = b + BLOCK_HDR_LEN;
    size_t n = len - BLOCK_MIN_LEN, hdr;
    uint32_t id, caplen, wirelen;
    uint64_t t;
    if (type != BT_SPB) {
        if (n < EPB_BODY_LEN)
            return "packet block too short";
        id = type == BT_EPB ? roce_rd32(r->swapped, body) : roce_rd16(r->swapped, body);
        t = (uint64_t)roce_rd32(r->swapped, body + 4) << 32 | roce_rd32(r->swapped, body + 8);
        caplen = roce_rd32(r->swapped, body + 12);
        wirelen = roce_rd32(r->swapped, body + 16);
        hdr = EPB_BODY_LEN;
    } else {
        if (n < SPB_BODY_LEN || r->n_ifs == 0)
            return "simple packet block too short or without interface";
        id = 0;
        t = 0;
        wirelen = roce_rd32(r->swapped, body);
        caplen = wirelen < r->ifs[0].snap ? wirelen : r->ifs[0].snap;
        hdr = SPB_BODY_LEN;
    }
    if (id >= r->n_ifs)
        return "packet on an interface without description";
    const struct roce_rd_ng_if *i = &r->ifs[id];
    if (caplen > (r->compatible ? r->first_snap : i->snap) || caplen > n - hdr)
        return "packet longer than its block or the snapshot length";
    f->ts_ns = ts_of(i, t);
    f->caplen = caplen;
    f->wirelen = wirelen < caplen ? caplen : wirelen;
    f->data = body + hdr;
    f->linktype = i->linktype;
    rec->swapped = (uint8_t)r->swapped;
    rec->section = r->section;
    rec->block = b;
    rec->block_len = (uint32_t)len;
    rec->idb = r->pre + i->idb_off;
    rec->idb_len = i->idb_len;
    return NULL;
}

static int is_packet(uint32_t type)
{
    return type == BT_EPB || type == BT_PB || type == BT_SPB;
}

/* The row's next: a packet block, the blocks before it read or stepped
 * over. */
static int ng_next(struct roce_rd *rd, struct roce_capture_frame *f)
{
    struct roce_rd_ng *r = rd->st;
    struct roce_src *s = rd->src;
    for (;;) {
        size_t len = block_at(r, s, 0);
        if (len == 0) {
            if (roce_src_left(s) == 0 && s->read_errno == 0) {
                if (r->n_ifs != 0) { /* a file without packets keeps its interface */
                    rd->rec.swapped = (uint8_t)r->swapped;
                    rd->rec.section = r->section;
                    rd->rec.idb = r->pre + r->ifs[0].idb_off;
                    rd->rec.idb_len = r->ifs[0].idb_len;
                }
                return ROCE_RD_END;
            }
            return give_way(rd, "block cut short or invalid");
        }
        const uint8_t *b = s->p + s->off, *body = b + BLOCK_HDR_LEN;
        uint32_t type = roce_rd32(r->swapped, b), id;
        if (is_packet(type)) {
            const char *why = packet(r, b, len, type, f, &rd->rec);
            if (why != NULL)
                return give_way(rd, why);
            roce_src_skip(s, len);
            return ROCE_RD_FRAME;
        }
        int st = other_block(rd, b, len);
        if (st != 0)
            return st;
        roce_src_skip(s, len);
        if (rd->blocks && type != BT_IDB && type != BT_SHB) {
            /* handed out as stored (b stays valid until the next call);
             * an interface statistics block with its interface */
            size_t n = len - BLOCK_MIN_LEN;
            rd->rec.swapped = (uint8_t)r->swapped;
            rd->rec.section = r->section;
            rd->rec.block = b;
            rd->rec.block_len = (uint32_t)len;
            if (type == BT_ISB && n >= ISB_BODY_LEN &&
                (id = roce_rd32(r->swapped, body)) < r->n_ifs) {
                rd->rec.idb = r->pre + r->ifs[id].idb_off;
                rd->rec.idb_len = r->ifs[id].idb_len;
            }
            return ROCE_RD_BLOCK;
        }
    }
}

/* The row's frame_at: the packet block at b, whole in the avail bytes at
 * hand, unless ng_next would give way at it. */
static size_t ng_frame_at(const struct roce_rd *rd, const uint8_t *b, size_t avail,
                          struct roce_capture_frame *f, struct roce_capture_record *rec)
{
    const struct roce_rd_ng *r = rd->st;
    size_t len = block_in(r, b, avail);
    if (len == 0)
        return 0;
    uint32_t type = roce_rd32(r->swapped, b);
    return is_packet(type) && packet(r, b, len, type, f, rec) == NULL ? len : 0;
}

const struct roce_capture_format roce_capture_pcapng = {
    .flags = ROCE_FMT_IN_PLACE,
    .size = sizeof(struct roce_rd_ng),
    .probe = ng_probe,
    .open = ng_open,
    .next = ng_next,
    .frame_at = ng_frame_at,
    .close = ng_close,
};
