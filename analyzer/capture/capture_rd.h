/*
 * capture_rd.h - the capture formats as a table of operations, and what
 * their readers share. Internal to analyzer/capture.
 *
 * Each format is one file that fills one row, struct roce_capture_format:
 * a probe of the input's first bytes and the operations open, next and
 * close, as libpcap's savefile readers do (sf-pcap.c and sf-pcapng.c each
 * check the magic number and fill the handle's operations;
 * pcap_fopen_offline tries them in order). ROCE_CAPTURE_FORMATS below is
 * the probe table: capture.c tries its rows in that order and reads the
 * input with the first that opens it. It knows no format: a new one is a
 * file and a row in that table.
 *
 * The readers that parse records in place (pcap_classic.c, pcap_ng.c) only
 * take what libpcap would read the same way. At anything else they stop at
 * the start of the record and give way (ROCE_RD_LIBPCAP) with the headers
 * libpcap needs to read on from there (the file header; in pcapng the first
 * section's header and first interface, then the current section's header
 * and interfaces): capture.c then has libpcap (capture_pcap.c) read those
 * headers followed by the rest of the input, so that libpcap reads or
 * reports the record in its own words, and frames and errors do not depend
 * on which reader ran.
 */
#ifndef ROCE_CAPTURE_RD_H
#define ROCE_CAPTURE_RD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "capture.h"
#include "capture_src.h"

enum roce_rd_status {
    ROCE_RD_BLOCK = 2, /* another block, in rec (only when blocks is set) */
    ROCE_RD_FRAME = 1,
    ROCE_RD_END = 0,
    ROCE_RD_ERROR = -1,  /* a problem in the reader's own words (err) */
    ROCE_RD_LIBPCAP = -2 /* not taken: libpcap reads on from here (pre) */
};

#define ROCE_RD_ERR_LEN 320 /* libpcap's messages (PCAP_ERRBUF_SIZE, 256) fit */

/* A reader as the operations of its format see it (capture.c owns it). */
struct roce_rd {
    struct roce_src *src; /* the input, from the read position */
    const char *file;     /* the path of a regular file (read in src); NULL: a stream
                             (standard input, a pipe, a decompressor's output) */
    void *st;             /* the format's state: its row's size, zeroed before open and
                             freed by capture.c after close */
    int linktype;         /* set by open: of the file (of its first interface), LINKTYPE_ */
    /* the headers libpcap reads before the rest of the input: set by next
     * with ROCE_RD_LIBPCAP (valid until close), copied by capture.c for
     * libpcap's open */
    const uint8_t *pre;
    size_t pre_len;
    char err[ROCE_RD_ERR_LEN];      /* why open did not take the input (when it says), or what
                                       next's ROCE_RD_ERROR is */
    struct roce_capture_record rec; /* the record of next's frame as stored: what the
                                       format knows of it (zeroed, nanoseconds, before) */
    int blocks;                     /* next hands out other blocks too (ROCE_RD_BLOCK) */
    uint8_t *shb;                   /* the first section's header as stored (pcapng, set by
                                       open; freed by capture.c) */
    uint32_t shb_len;
    int shb_swapped;
};

enum roce_capture_format_flag {
    ROCE_FMT_IN_PLACE = 1u, /* parses records in place (ROCESCOPE_READER=libpcap leaves it out) */
    ROCE_FMT_FILE_ONLY = 2u /* reads regular files only, not streams */
};

/* One capture format: its row in ROCE_CAPTURE_FORMATS. */
struct roce_capture_format {
    unsigned flags; /* enum roce_capture_format_flag */
    size_t size;    /* of its state (r->st), 0: none */
    /* Nonzero when the input, whose first len bytes are head (4 at least
     * when it is that long; what the first read brought), looks like the
     * format. NULL: open decides. */
    int (*probe)(const uint8_t *head, size_t len);
    /* Read the headers up to the first record: 0 with r->linktype set, or
     * -1 when the format does not take the input (nothing stepped over; the
     * reason in r->err when the format has one to give). */
    int (*open)(struct roce_rd *r);
    /* The next record: an enum roce_rd_status, *f filled for ROCE_RD_FRAME
     * (valid until the next call). Records are handed out as they are
     * stored: an ERF record is a frame of link type ERF (roce_capture_frame_in
     * takes out what it carries). */
    int (*next)(struct roce_rd *r, struct roce_capture_frame *f);
    /* The record at p, when it is whole in the avail bytes at hand and a
     * frame next would give as it is (into f, its record into rec, which
     * holds r->rec): its length, the read position not moved; 0 for
     * anything else (next then reads it). For runs of frames
     * (roce_capture_next_run); NULL: the format gives a frame at a time. */
    size_t (*frame_at)(const struct roce_rd *r, const uint8_t *p, size_t avail,
                       struct roce_capture_frame *f, struct roce_capture_record *rec);
    /* Release what the state holds (also after an open that failed). NULL: nothing. */
    void (*close)(struct roce_rd *r);
};

/* The probe table, in the order the formats are tried: X(name) is the row
 * roce_capture_NAME, defined in the format's file. */
#define ROCE_CAPTURE_FORMATS(X)                                                                    \
    X(pcap)    /* classic pcap, parsed in place (pcap_classic.c) */                                \
    X(pcapng)  /* pcapng, parsed in place (pcap_ng.c) */                                           \
    X(libpcap) /* whatever libpcap reads; the readers above give way to it (capture_pcap.c) */     \
    X(erf)     /* raw ERF files, which have no magic number: tried last (erf.c) */

#define ROCE_CAPTURE_FORMAT_DECLARE(name)                                                          \
    extern const struct roce_capture_format roce_capture_##name;
ROCE_CAPTURE_FORMATS(ROCE_CAPTURE_FORMAT_DECLARE)

/* Fields of a file in either byte order: swapped when the file's differs
 * from this machine's; ROCE_RD_BE / ROCE_RD_LE for a field of fixed byte
 * order (ERF's big-endian lengths, its little-endian time stamps). */
#define ROCE_RD_BE (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#define ROCE_RD_LE (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
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
 * of unit ns, as a libpcap record's is taken (capture_pcap.c): saturated
 * where 64-bit nanoseconds do not hold it. */
int64_t roce_capture_ts_ns(int64_t sec, int64_t frac, int64_t unit);

#endif
