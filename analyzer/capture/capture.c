/*
 * capture.c - capture file reader (see capture.h).
 *
 * Classic pcap files are read by pcapmap.c straight from the mapped file;
 * pcapng and anything pcapmap does not take go through libpcap. When
 * pcapmap meets a record it does not take, libpcap reopens the file, skips
 * the frames already delivered and carries on, so both readers give the
 * same frames and the same errors. ROCESCOPE_READER=libpcap in the
 * environment forces libpcap (the tests compare the two).
 *
 * Each pcap_next_ex outcome has its own branch: 1 a frame, PCAP_ERROR_BREAK
 * (-2) the end of the file, PCAP_ERROR (-1) an error such as a truncated
 * record ("truncated dump file"), which ends the file with a message.
 */
#define _DEFAULT_SOURCE
#include "capture.h"
#include "capture_pcap.h"

#include "pcapmap.h"
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

#define LINKTYPE_RAW        101
#define READER_ENV          "ROCESCOPE_READER"

struct roce_capture {
    pcap_t *p;
    struct roce_pcapmap *m; /* the fast reader, while it reads */
    char *path;
    uint64_t delivered; /* frames handed out so far */
    int linktype;
    char err[PCAP_ERRBUF_SIZE + 64];
};

/* Open the file with libpcap (nanosecond timestamps). 0, or -1 with err set. */
static int open_libpcap(struct roce_capture *c, char *err, size_t errlen)
{
    char perr[PCAP_ERRBUF_SIZE];
    perr[0] = '\0';
    c->p = pcap_open_offline_with_tstamp_precision(c->path, PCAP_TSTAMP_PRECISION_NANO, perr);
    if (c->p == NULL) {
        snprintf(err, errlen, "%s", perr[0] ? perr : "cannot open");
        return -1;
    }
    c->linktype = roce_pcap_linktype(pcap_datalink(c->p));
    return 0;
}

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

/* Nanoseconds since the epoch from a libpcap time stamp. A corrupt file can
 * carry seconds that 64-bit nanoseconds do not hold (past the year 2262, or
 * negative): they saturate instead of overflowing. */
static int64_t ts_ns(int64_t sec, int64_t frac, int64_t unit)
{
    const int64_t margin = 1LL << 13; /* seconds: covers any 32-bit fraction */
    if (sec > INT64_MAX / ROCE_NS_PER_SEC - margin)
        return INT64_MAX / ROCE_NS_PER_SEC * ROCE_NS_PER_SEC - margin * ROCE_NS_PER_SEC;
    if (sec < -(INT64_MAX / ROCE_NS_PER_SEC - margin))
        return -(INT64_MAX / ROCE_NS_PER_SEC * ROCE_NS_PER_SEC - margin * ROCE_NS_PER_SEC);
    return sec * ROCE_NS_PER_SEC + frac * unit;
}

void roce_pcap_frame(const struct pcap_pkthdr *h, const u_char *d, int nano,
                     struct roce_capture_frame *f)
{
    f->ts_ns = ts_ns((int64_t)h->ts.tv_sec, (int64_t)h->ts.tv_usec, nano ? 1 : ROCE_NS_PER_US);
    f->caplen = h->caplen;
    f->wirelen = h->len < h->caplen ? h->caplen : h->len;
    f->data = d;
}

struct roce_capture *roce_capture_open(const char *path, char *err, size_t errlen)
{
    struct stat st;
    struct roce_capture *c;

    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "is a directory");
        return NULL;
    }
    if (st.st_size == 0) {
        snprintf(err, errlen, "empty file, not a capture");
        return NULL;
    }
    /* our own open first: libpcap's message would repeat the path */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return NULL;
    }
    close(fd);
    c = calloc(1, sizeof *c);
    if (c == NULL || (c->path = strdup(path)) == NULL) {
        free(c);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    const char *reader = getenv(READER_ENV);
    if (reader == NULL || strcmp(reader, "libpcap") != 0) {
        char merr[PCAP_ERRBUF_SIZE];
        c->m = roce_pcapmap_open(path, merr, sizeof merr);
        if (c->m != NULL) {
            c->linktype = roce_pcapmap_linktype(c->m);
            return c;
        }
    }
    if (open_libpcap(c, err, errlen) != 0) {
        roce_capture_close(c);
        return NULL;
    }
    return c;
}

int roce_capture_linktype(const struct roce_capture *c)
{
    return c->linktype;
}

const char *roce_capture_linktype_name(const struct roce_capture *c)
{
    return roce_pcap_linktype_name(c->linktype == LINKTYPE_RAW ? DLT_RAW : c->linktype);
}

/* The fast reader stopped at a record it does not take: continue with
 * libpcap after the frames already delivered. */
static int switch_to_libpcap(struct roce_capture *c)
{
    struct pcap_pkthdr *h;
    const u_char *d;
    roce_pcapmap_close(c->m);
    c->m = NULL;
    if (open_libpcap(c, c->err, sizeof c->err) != 0)
        return -1;
    for (uint64_t i = 0; i < c->delivered; i++)
        if (pcap_next_ex(c->p, &h, &d) != 1) {
            snprintf(c->err, sizeof c->err, "the file changed while it was read");
            return -1;
        }
    return 0;
}

enum roce_capture_status roce_capture_next(struct roce_capture *c, struct roce_capture_frame *f)
{
    struct pcap_pkthdr *h;
    const u_char *d;

    if (c->m != NULL) {
        int st = roce_pcapmap_next(c->m, f);
        if (st != ROCE_CAPTURE_ERROR) {
            c->delivered += st == ROCE_CAPTURE_FRAME;
            return (enum roce_capture_status)st;
        }
        if (switch_to_libpcap(c) != 0)
            return ROCE_CAPTURE_ERROR;
    }
    int rc = pcap_next_ex(c->p, &h, &d);
    if (rc == 1) {
        c->delivered++;
        roce_pcap_frame(h, d, 1, f);
        return ROCE_CAPTURE_FRAME;
    }
    if (rc == PCAP_ERROR_BREAK)
        return ROCE_CAPTURE_END;
    snprintf(c->err, sizeof c->err, "%s", rc == PCAP_ERROR ? pcap_geterr(c->p) : "read error");
    return ROCE_CAPTURE_ERROR;
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
        pcap_close(c->p);
    roce_pcapmap_close(c->m);
    free(c->path);
    free(c);
}
