/*
 * capture.h - reading captures frame by frame: pcap and pcapng files,
 * standard input ("-"), compressed captures (gzip, zstd, lz4), with
 * nanosecond time stamps, and raw ERF files (capture.c says which reader
 * reads what; capture_rd.h is the table of formats). Frames are the
 * records as captured, of their own link type (an ERF record is a frame of
 * link type ERF), and are only valid until the next call;
 * roce_capture_frame_in() turns one into the frame the engine analyses.
 * Errors are reported as text in the reader (roce_capture_error).
 */
#ifndef ROCE_CAPTURE_H
#define ROCE_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "roce_engine.h"

struct roce_capture;

struct roce_capture_frame {
    int64_t ts_ns;
    uint32_t caplen;
    uint32_t wirelen;
    const uint8_t *data;
    int linktype; /* of the frame's interface (pcapng files may mix them) */
};

enum roce_capture_status {
    ROCE_CAPTURE_BLOCK = 2, /* a pcapng block that is neither a packet, an interface nor a
                               section header: its record's block (roce_capture_blocks) */
    ROCE_CAPTURE_FRAME = 1, /* *frame is filled */
    ROCE_CAPTURE_END = 0,   /* end of file */
    ROCE_CAPTURE_ERROR = -1 /* read error (e.g. file cut short): see roce_capture_error */
};

/* Open a capture file ("-": standard input); NULL on failure with the
 * reason in err (errlen bytes). */
struct roce_capture *roce_capture_open(const char *path, char *err, size_t errlen);
/* Make standard input readable more than once: kept as the file it is
 * (`< file`), else copied whole, now, into an unnamed temporary file
 * ($TMPDIR, else /tmp); each roce_capture_open("-") after it reads it from
 * its start. For the writers that read the capture again (--annotate). 0, or
 * -1 with the reason in err. */
int roce_capture_stdin_keep(char *err, size_t errlen);
/* Nonzero when the input at path is a file that can be read again and
 * again, or cannot be opened (its problem is then the same each time);
 * 0 for standard input, pipes and compressed files. */
int roce_capture_path_reopenable(const char *path);
/* Link-layer type of the file (of its first interface), as a LINKTYPE_
 * value (DLT mapped back). */
int roce_capture_linktype(const struct roce_capture *c);
/* Name of the link-layer type as libpcap knows it (e.g. "EN10MB"). */
const char *roce_capture_linktype_name(const struct roce_capture *c);
enum roce_capture_status roce_capture_next(struct roce_capture *c, struct roce_capture_frame *f);
/* From the next roce_capture_next on, also hand out the pcapng blocks other
 * than packets, interfaces and section headers (name resolution, interface
 * statistics, decryption secrets, custom blocks...) as ROCE_CAPTURE_BLOCK,
 * for what copies the file (--annotate); the analysis steps over them. */
void roce_capture_blocks(struct roce_capture *c);
/* The section header block of a pcapng file's first section as stored
 * (*len bytes, *swapped: in the other byte order), NULL for other formats.
 * Valid until roce_capture_close. */
const uint8_t *roce_capture_section_header(const struct roce_capture *c, uint32_t *len,
                                           int *swapped);

/* The record the last frame came from, as stored, for what copies it (the
 * annotated pcapng, writers/writer_annotate.c); the engine reads none of
 * it. Valid until the next call of roce_capture_next. At the end of a
 * pcapng file, idb is the current section's first interface (when it has
 * one): what a file without packets keeps. */
struct roce_capture_record {
    uint8_t tsresol;      /* the resolution of the stored time stamps (a pcap file's, from
                             its open; else nanoseconds), as pcapng's if_tsresol:
                             ROCE_CAPTURE_TSRESOL_US or _NS */
    uint8_t swapped;      /* pcapng: block and idb are in the other byte order */
    uint32_t section;     /* pcapng: the section of the record, from 0 */
    const uint8_t *block; /* pcapng: the packet block (EPB, SPB or PB), or the other block
                             of ROCE_CAPTURE_BLOCK, as stored, block_len bytes; NULL for
                             other formats and for records libpcap read */
    const uint8_t *idb;   /* pcapng: the description block of the record's interface (of
                             an interface statistics block's), as stored, idb_len bytes
                             (NULL when block is, or for a block of no interface) */
    uint32_t block_len, idb_len;
};
#define ROCE_CAPTURE_TSRESOL_US 6
#define ROCE_CAPTURE_TSRESOL_NS 9
const struct roce_capture_record *roce_capture_record(const struct roce_capture *c);
/* The next frames at once, for what copies every frame (--annotate): up to
 * max frames into f and their records into rec, those roce_capture_next
 * would give one by one, as far as they follow each other with nothing else
 * between them and are at hand together (a classic pcap file's records, a
 * pcapng file's packet blocks, in the bytes read). All are valid
 * until the next call of a reading
 * function. Returns how many: 0 when what comes next is not such a frame
 * (another block, the end, a problem, a record left to libpcap, the end of
 * the buffer, a format read a record at a time): roce_capture_next then
 * reads it. The same frames as roce_capture_next, fewer calls. */
size_t roce_capture_next_run(struct roce_capture *c, struct roce_capture_frame *f,
                             struct roce_capture_record *rec, size_t max);
const char *roce_capture_error(const struct roce_capture *c);
void roce_capture_close(struct roce_capture *c);
/* From capture frames to the engine: the one link-type test and the one
 * conversion of every front end (the analysis of files, `rocescope
 * localize`, the live monitor, after its queue: -w keeps the records as
 * captured). */

/* 0 when a capture of link type linktype (named name, as libpcap names it)
 * can be analysed (roce_linktype_readable: the engine decodes it, or ERF);
 * else -1 with "unsupported link type NAME (N)" in msg (msglen bytes).
 * (capture_frame.c) */
int roce_capture_linktype_check(int linktype, const char *name, char *msg, size_t msglen);

/*
 * The frame inside the ERF record f holds (f->data, f->caplen captured
 * bytes of a frame of link type ERF: a pcap record, a raw ERF file's
 * record, a live capture's), as Wireshark reads it (wiretap/erf.c): rewrites
 * f in place to the frame, with f->ts_ns the record's time stamp,
 * f->linktype the link type of the record's type (roce_erf_type_linktype:
 * InfiniBand 247, Ethernet 1, IPv4 228, IPv6 229), f->caplen the captured
 * bytes of the frame (at most its wire length) and f->wirelen the record's
 * wire length. Returns 0; -1 when the record is not one of those types or
 * its headers were not captured: then f is left as it was, of link type ERF
 * (a frame the engine counts as an unsupported link type). (erf.c)
 */
int roce_erf_frame(struct roce_capture_frame *f);

/* Capture frame f as the engine's frame number frame, into *in: an ERF
 * record becomes the frame it carries (roce_erf_frame), any other frame is
 * taken as it is. in->data points into f's bytes. Inline: it runs for
 * every frame. */
static inline void roce_capture_frame_in(const struct roce_capture_frame *f, uint64_t frame,
                                         struct roce_frame_in *in)
{
    struct roce_capture_frame inner;
    if (f->linktype == ROCE_LINKTYPE_ERF) {
        inner = *f;
        roce_erf_frame(&inner);
        f = &inner;
    }
    in->frame = frame;
    in->ts_ns = f->ts_ns;
    in->linktype = f->linktype;
    in->data = f->data;
    in->caplen = f->caplen;
    in->wirelen = f->wirelen;
}

#endif
