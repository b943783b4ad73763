/*
 * capture_pcap.c - libpcap: what the file reader and the live reader share
 * over it (see capture_pcap.h), and the row roce_capture_libpcap of the
 * probe table (capture_rd.h): whatever libpcap reads, and where the readers
 * that parse in place give way.
 *
 * libpcap opens a regular file itself; otherwise (a stream, or a reader that
 * gave way) it reads a stream made of the headers the reader kept followed
 * by the rest of the input (fopencookie), so it reads on from the record
 * where the reader stopped. Time stamps are asked for in nanoseconds.
 *
 * Each pcap_next_ex outcome has its own branch: 1 a frame, PCAP_ERROR_BREAK
 * (-2) the end of the file, PCAP_ERROR (-1) an error such as a truncated
 * record ("truncated dump file"), which ends the file with a message.
 */
#define _GNU_SOURCE
#include "capture_pcap.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "capture_rd.h"
#include "roce_linktype.h"
#include "roce_time.h"

_Static_assert(ROCE_RD_ERR_LEN >= PCAP_ERRBUF_SIZE, "libpcap's messages fit in a reader's");

int roce_pcap_linktype(int dlt)
{
    /* pcap_datalink gives a DLT_ value; the engine wants the LINKTYPE_ value */
    return dlt == DLT_RAW ? ROCE_LINKTYPE_RAW : dlt;
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

/* The row's state. */
struct lp {
    pcap_t *p;
    FILE *replay;   /* libpcap's stream (NULL: it opened the file itself) */
    size_t pre_off; /* of the kept headers, replayed so far */
};

/* libpcap's stream: the kept headers, then the rest of the input. */
static ssize_t replay_read(void *cookie, char *buf, size_t size)
{
    struct roce_rd *r = cookie;
    struct lp *l = r->st;
    if (l->pre_off < r->pre_len) {
        size_t n = r->pre_len - l->pre_off < size ? r->pre_len - l->pre_off : size;
        memcpy(buf, r->pre + l->pre_off, n);
        l->pre_off += n;
        return (ssize_t)n;
    }
    size_t n = roce_src_read(r->src, buf, size);
    if (n == 0 && r->src->read_errno) {
        errno = r->src->read_errno;
        return -1;
    }
    return (ssize_t)n;
}

/* The row's open: libpcap opens the file itself when it is a regular file
 * read from its start; otherwise it reads on from the read position, after
 * the headers r->pre (r->pre_len bytes: those a reader gave way with, or
 * none). */
static int lp_open(struct roce_rd *r)
{
    struct lp *l = r->st;
    char perr[PCAP_ERRBUF_SIZE];
    perr[0] = '\0';
    if (r->file != NULL && r->pre_len == 0) {
        l->p = pcap_open_offline_with_tstamp_precision(r->file, PCAP_TSTAMP_PRECISION_NANO, perr);
    } else {
        cookie_io_functions_t io = {replay_read, NULL, NULL, NULL};
        l->replay = fopencookie(r, "r", io);
        if (l->replay == NULL) {
            snprintf(r->err, sizeof r->err, "%s", strerror(errno));
            return -1;
        }
        l->p =
            pcap_fopen_offline_with_tstamp_precision(l->replay, PCAP_TSTAMP_PRECISION_NANO, perr);
        if (l->p == NULL) {
            fclose(l->replay);
            l->replay = NULL;
        }
    }
    if (l->p == NULL) {
        snprintf(r->err, sizeof r->err, "%s", perr[0] ? perr : "cannot open");
        return -1;
    }
    r->linktype = roce_pcap_linktype(pcap_datalink(l->p));
    return 0;
}

/* The row's next: libpcap's record. */
static int lp_next(struct roce_rd *r, struct roce_capture_frame *f)
{
    struct lp *l = r->st;
    struct pcap_pkthdr *h;
    const u_char *d;
    int rc = pcap_next_ex(l->p, &h, &d);
    if (rc == 1) {
        roce_pcap_frame(h, d, 1, r->linktype, f);
        return ROCE_RD_FRAME;
    }
    if (rc == PCAP_ERROR_BREAK)
        return ROCE_RD_END;
    snprintf(r->err, sizeof r->err, "%s", rc == PCAP_ERROR ? pcap_geterr(l->p) : "read error");
    return ROCE_RD_ERROR;
}

/* The row's close: the handle (and its stream). */
static void lp_close(struct roce_rd *r)
{
    struct lp *l = r->st;
    if (l->p != NULL)
        pcap_close(l->p); /* closes l->replay too */
}

const struct roce_capture_format roce_capture_libpcap = {
    0, sizeof(struct lp), NULL, lp_open, lp_next, NULL, lp_close,
};
