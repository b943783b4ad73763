/*
 * capture.c - capture reader (see capture.h).
 *
 * The input is a file, mapped, or a stream: standard input ("-"), a pipe,
 * or the output of the decompression thread when the first bytes say gzip,
 * zstd or lz4 (decompress.c). Classic pcap (pcap_classic.c) and pcapng
 * (pcap_ng.c) are parsed in place; anything else, and any record those
 * readers do not take, goes to libpcap: a file libpcap opens itself; past
 * the first record (and for streams) libpcap reads a stream made of the
 * headers the reader kept followed by the rest of the input
 * (fopencookie), so it reads on from the record where the reader stopped
 * and both give the same frames and the same errors.
 * ROCESCOPE_READER=libpcap in the environment makes libpcap read
 * everything (the tests compare the two).
 * Records of link type ERF (ibdump's pcap files, pcapng interfaces of that
 * type) become the frames they carry (erf.c); a file no reader takes is
 * tried as a raw ERF file, which has no magic number (files only, not
 * streams).
 *
 * Each pcap_next_ex outcome has its own branch: 1 a frame, PCAP_ERROR_BREAK
 * (-2) the end of the file, PCAP_ERROR (-1) an error such as a truncated
 * record ("truncated dump file"), which ends the file with a message.
 */
#define _GNU_SOURCE
#include "capture.h"
#include "capture_pcap.h"

#include "capture_rd.h"
#include "decompress.h"
#include "erf.h"
#include "roce_decode.h"
#include "roce_time.h"

#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LINKTYPE_RAW 101
#define READER_ENV   "ROCESCOPE_READER"
#define MAGIC_LEN    4

enum reader { RD_LIBPCAP, RD_PCAP, RD_NG };

struct roce_capture {
    struct roce_src src;
    int fd; /* the input's descriptor (-1: none of ours) */
    struct roce_unzip *unzip;
    enum reader reader;
    struct roce_rd_pcap classic;
    struct roce_rd_ng ng;
    pcap_t *p;
    FILE *replay;       /* libpcap's stream (NULL: it opened the file itself) */
    const uint8_t *pre; /* the headers replayed before the rest of the input */
    size_t pre_len, pre_off;
    struct roce_erfmap *erf; /* the reader of a raw ERF file */
    int linktype;
    int reopenable; /* a file read in place or by libpcap, not a stream */
    char err[PCAP_ERRBUF_SIZE + 64];
};

int roce_pcap_linktype(int dlt)
{
    /* pcap_datalink gives a DLT_ value; the engine wants the LINKTYPE_ value */
    return dlt == DLT_RAW ? LINKTYPE_RAW : dlt;
}

const char *roce_pcap_linktype_name(int dlt)
{
    const char *n = pcap_datalink_val_to_name(dlt);
    return n != NULL ? n : "unknown";
}

int64_t roce_capture_ts_ns(int64_t sec, int64_t frac, int64_t unit)
{
    /* a corrupt file can carry seconds that 64-bit nanoseconds do not hold
     * (past the year 2262, or negative): they saturate */
    const int64_t margin = 1LL << 13; /* seconds: covers any 32-bit fraction */
    if (sec > INT64_MAX / ROCE_NS_PER_SEC - margin)
        return INT64_MAX / ROCE_NS_PER_SEC * ROCE_NS_PER_SEC - margin * ROCE_NS_PER_SEC;
    if (sec < -(INT64_MAX / ROCE_NS_PER_SEC - margin))
        return -(INT64_MAX / ROCE_NS_PER_SEC * ROCE_NS_PER_SEC - margin * ROCE_NS_PER_SEC);
    return sec * ROCE_NS_PER_SEC + frac * unit;
}

void roce_pcap_frame(const struct pcap_pkthdr *h, const u_char *d, int nano, int linktype,
                     struct roce_capture_frame *f)
{
    f->ts_ns = roce_capture_ts_ns((int64_t)h->ts.tv_sec, (int64_t)h->ts.tv_usec,
                                  nano ? 1 : ROCE_NS_PER_US);
    f->caplen = h->caplen;
    f->wirelen = h->len < h->caplen ? h->caplen : h->len;
    f->data = d;
    f->linktype = linktype;
}

/* libpcap's stream: the kept headers, then the rest of the input. */
static ssize_t replay_read(void *cookie, char *buf, size_t size)
{
    struct roce_capture *c = cookie;
    if (c->pre_off < c->pre_len) {
        size_t n = c->pre_len - c->pre_off < size ? c->pre_len - c->pre_off : size;
        memcpy(buf, c->pre + c->pre_off, n);
        c->pre_off += n;
        return (ssize_t)n;
    }
    size_t n = roce_src_read(&c->src, buf, size);
    if (n == 0 && c->src.read_errno) {
        errno = c->src.read_errno;
        return -1;
    }
    return (ssize_t)n;
}

/* libpcap reads on from the read position, after the headers pre. 0, or
 * -1 with err set. */
static int to_libpcap(struct roce_capture *c, const uint8_t *pre, size_t pre_len, char *err,
                      size_t errlen)
{
    char perr[PCAP_ERRBUF_SIZE];
    cookie_io_functions_t io = {replay_read, NULL, NULL, NULL};
    c->pre = pre;
    c->pre_len = pre_len;
    c->pre_off = 0;
    c->replay = fopencookie(c, "r", io);
    if (c->replay == NULL) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    perr[0] = '\0';
    c->p = pcap_fopen_offline_with_tstamp_precision(c->replay, PCAP_TSTAMP_PRECISION_NANO, perr);
    if (c->p == NULL) {
        fclose(c->replay);
        c->replay = NULL;
        snprintf(err, errlen, "%s", perr[0] ? perr : "cannot open");
        return -1;
    }
    c->reader = RD_LIBPCAP;
    c->linktype = roce_pcap_linktype(pcap_datalink(c->p));
    return 0;
}

/* libpcap opens the file itself. 0, or -1 with err set. */
static int open_libpcap(struct roce_capture *c, const char *path, char *err, size_t errlen)
{
    char perr[PCAP_ERRBUF_SIZE];
    perr[0] = '\0';
    c->p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, perr);
    if (c->p == NULL) {
        snprintf(err, errlen, "%s", perr[0] ? perr : "cannot open");
        return -1;
    }
    c->reader = RD_LIBPCAP;
    c->linktype = roce_pcap_linktype(pcap_datalink(c->p));
    return 0;
}

/* Open the input: standard input, or the file (mapped when it is a regular
 * file). 0, or -1 with err set. */
static int open_input(struct roce_capture *c, const char *path, int *regular, char *err,
                      size_t errlen)
{
    struct stat st;
    *regular = 0;
    if (strcmp(path, "-") == 0) {
        roce_src_stream(&c->src, STDIN_FILENO);
        if (!roce_src_need(&c->src, 1)) {
            snprintf(err, errlen, "%s",
                     c->src.read_errno ? strerror(c->src.read_errno)
                                       : "empty input, not a capture");
            return -1;
        }
        return 0;
    }
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "is a directory");
        return -1;
    }
    if (S_ISREG(st.st_mode) && st.st_size == 0) {
        snprintf(err, errlen, "empty file, not a capture");
        return -1;
    }
    /* our own open first: libpcap's message would repeat the path. A named
     * pipe is opened without waiting for a writer: with none it is empty
     * input, not a hang; then its reads wait for data as a pipe's do. */
    c->fd = open(path, O_RDONLY | O_CLOEXEC | (S_ISFIFO(st.st_mode) ? O_NONBLOCK : 0));
    if (c->fd < 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    if (S_ISFIFO(st.st_mode)) {
        int fl = fcntl(c->fd, F_GETFL);
        if (fl < 0 || fcntl(c->fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
            snprintf(err, errlen, "%s", strerror(errno));
            return -1;
        }
    }
    if (S_ISREG(st.st_mode) && roce_src_map(&c->src, c->fd, (size_t)st.st_size) == 0) {
        *regular = 1;
        return 0;
    }
    roce_src_stream(&c->src, c->fd);
    if (!roce_src_need(&c->src, 1)) {
        snprintf(err, errlen, "%s",
                 c->src.read_errno ? strerror(c->src.read_errno) : "empty input, not a capture");
        return -1;
    }
    return 0;
}

/* A compressed input: read on from the decompression thread's pipe. 0, or
 * -1 with err set. */
static int start_unzip(struct roce_capture *c, enum roce_zkind kind, char *err, size_t errlen)
{
    struct roce_src in = c->src;
    in.fd = c->fd < 0 ? STDIN_FILENO : c->fd;
    c->fd = -1; /* the thread owns the input now */
    memset(&c->src, 0, sizeof c->src);
    c->unzip = roce_unzip_start(&in, kind, err, errlen);
    if (c->unzip == NULL)
        return -1;
    roce_src_stream(&c->src, roce_unzip_fd(c->unzip));
    if (!roce_src_need(&c->src, 1)) {
        if (roce_unzip_finish(c->unzip, err, errlen) == 0)
            snprintf(err, errlen, "%s-compressed empty input, not a capture",
                     roce_unzip_name(kind));
        c->unzip = NULL;
        return -1;
    }
    return 0;
}

struct roce_capture *roce_capture_open(const char *path, char *err, size_t errlen)
{
    struct roce_capture *c = calloc(1, sizeof *c);
    int regular;
    if (c == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->fd = -1;
    roce_src_stream(&c->src, -1);
    if (open_input(c, path, &regular, err, errlen) != 0)
        goto fail;
    roce_src_need(&c->src, MAGIC_LEN);
    enum roce_zkind z = roce_unzip_kind(c->src.p + c->src.off, roce_src_left(&c->src));
    if (z != ROCE_Z_NONE) {
        if (start_unzip(c, z, err, errlen) != 0)
            goto fail;
        regular = 0;
        roce_src_need(&c->src, MAGIC_LEN);
    }
    c->reopenable = regular;
    const char *reader = getenv(READER_ENV);
    if (reader == NULL || strcmp(reader, "libpcap") != 0) {
        if (roce_rd_pcap_open(&c->classic, &c->src) == 0) {
            c->reader = RD_PCAP;
            c->linktype = c->classic.linktype;
            return c;
        }
        if (roce_rd_ng_open(&c->ng, &c->src) == 0) {
            c->reader = RD_NG;
            c->linktype = c->ng.linktype;
            return c;
        }
    }
    if ((regular ? open_libpcap(c, path, err, errlen) : to_libpcap(c, NULL, 0, err, errlen)) != 0) {
        char eerr[PCAP_ERRBUF_SIZE];
        /* a raw ERF file? (libpcap's reason stands when it is not one) */
        if (!regular || (c->erf = roce_erfmap_open(path, eerr, sizeof eerr)) == NULL)
            goto fail;
        c->linktype = ROCE_LINKTYPE_ERF;
    }
    return c;
fail:
    if (c->unzip != NULL) { /* the decompression problem says more than the reader's */
        roce_unzip_finish(c->unzip, err, errlen);
        c->unzip = NULL;
    }
    roce_capture_close(c);
    return NULL;
}

int roce_capture_path_reopenable(const char *path)
{
    struct stat st;
    uint8_t head[MAGIC_LEN];
    if (strcmp(path, "-") == 0)
        return 0;
    if (stat(path, &st) != 0 || S_ISDIR(st.st_mode))
        return 1;
    if (!S_ISREG(st.st_mode))
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 1;
    ssize_t n = pread(fd, head, sizeof head, 0);
    close(fd);
    return n <= 0 || roce_unzip_kind(head, (size_t)n) == ROCE_Z_NONE;
}

int roce_capture_reopenable(const struct roce_capture *c)
{
    return c->reopenable;
}

int roce_capture_linktype(const struct roce_capture *c)
{
    return c->linktype;
}

int roce_capture_supported(const struct roce_capture *c)
{
    return c->linktype == ROCE_LINKTYPE_ERF || roce_linktype_supported(c->linktype);
}

const char *roce_capture_linktype_name(const struct roce_capture *c)
{
    return roce_pcap_linktype_name(c->linktype == LINKTYPE_RAW ? DLT_RAW : c->linktype);
}

/* The input ended (or failed): a decompression problem is the file's. */
static enum roce_capture_status ended(struct roce_capture *c, enum roce_capture_status st)
{
    if (c->unzip != NULL) {
        if (roce_unzip_finish(c->unzip, c->err, sizeof c->err) != 0)
            st = ROCE_CAPTURE_ERROR;
        c->unzip = NULL;
    }
    return st;
}

/* A frame of a pcap or pcapng record: of its own link type, or the frame
 * an ERF record carries (with the record's time stamp). */
static enum roce_capture_status frame_out(struct roce_capture_frame *f)
{
    if (f->linktype == ROCE_LINKTYPE_ERF)
        roce_erf_frame(f);
    return ROCE_CAPTURE_FRAME;
}

enum roce_capture_status roce_capture_next(struct roce_capture *c, struct roce_capture_frame *f)
{
    struct pcap_pkthdr *h;
    const u_char *d;
    int st = ROCE_RD_LIBPCAP;

    if (c->erf != NULL) {
        int es = roce_erfmap_next(c->erf, f);
        if (es == ROCE_CAPTURE_ERROR)
            snprintf(c->err, sizeof c->err, "%s", roce_erfmap_error(c->erf));
        return (enum roce_capture_status)es;
    }
    if (c->reader == RD_PCAP)
        st = roce_rd_pcap_next(&c->classic, &c->src, f);
    else if (c->reader == RD_NG)
        st = roce_rd_ng_next(&c->ng, &c->src, f);
    if (st == ROCE_RD_FRAME)
        return frame_out(f);
    if (st == ROCE_RD_END)
        return ended(c, ROCE_CAPTURE_END);
    if (st == ROCE_RD_ERROR) {
        snprintf(c->err, sizeof c->err, "%s", c->ng.err);
        return ended(c, ROCE_CAPTURE_ERROR);
    }
    if (c->reader != RD_LIBPCAP) {
        int classic = c->reader == RD_PCAP;
        if (to_libpcap(c, classic ? c->classic.hdr : c->ng.pre,
                       classic ? sizeof c->classic.hdr : c->ng.pre_len, c->err, sizeof c->err) != 0)
            return ended(c, ROCE_CAPTURE_ERROR);
    }
    int rc = pcap_next_ex(c->p, &h, &d);
    if (rc == 1) {
        roce_pcap_frame(h, d, 1, c->linktype, f);
        return frame_out(f);
    }
    if (rc == PCAP_ERROR_BREAK)
        return ended(c, ROCE_CAPTURE_END);
    snprintf(c->err, sizeof c->err, "%s", rc == PCAP_ERROR ? pcap_geterr(c->p) : "read error");
    return ended(c, ROCE_CAPTURE_ERROR);
}

const char *roce_capture_error(const struct roce_capture *c)
{
    return c->err;
}

void roce_capture_close(struct roce_capture *c)
{
    if (c == NULL)
        return;
    if (c->p != NULL)
        pcap_close(c->p); /* closes c->replay too */
    if (c->unzip != NULL) {
        char ignored[8];
        roce_unzip_finish(c->unzip, ignored, sizeof ignored);
    }
    roce_rd_ng_free(&c->ng);
    roce_src_close(&c->src);
    if (c->fd >= 0)
        close(c->fd);
    roce_erfmap_close(c->erf);
    free(c);
}
