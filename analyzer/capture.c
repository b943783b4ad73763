/*
 * capture.c - capture file reader over libpcap (see capture.h).
 *
 * Each pcap_next_ex outcome has its own branch: 1 a frame, PCAP_ERROR_BREAK
 * (-2) the end of the file, PCAP_ERROR (-1) an error such as a truncated
 * record ("truncated dump file"), which ends the file with a message.
 */
#define _DEFAULT_SOURCE
#include "capture.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NS_PER_SEC 1000000000LL

struct roce_capture {
    pcap_t *p;
    int linktype;
    char err[PCAP_ERRBUF_SIZE + 64];
};

struct roce_capture *roce_capture_open(const char *path, char *err, size_t errlen)
{
    char perr[PCAP_ERRBUF_SIZE];
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
    c = calloc(1, sizeof *c);
    if (c == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    perr[0] = '\0';
    c->p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, perr);
    if (c->p == NULL) {
        snprintf(err, errlen, "%s", perr[0] ? perr : "cannot open");
        free(c);
        return NULL;
    }
    /* pcap_datalink gives a DLT_ value; the engine wants the LINKTYPE_ value */
    int dlt = pcap_datalink(c->p);
    c->linktype = dlt == DLT_RAW ? 101 : dlt;
    return c;
}

int roce_capture_linktype(const struct roce_capture *c)
{
    return c->linktype;
}

const char *roce_capture_linktype_name(const struct roce_capture *c)
{
    const char *n = pcap_datalink_val_to_name(pcap_datalink(c->p));
    return n != NULL ? n : "unknown";
}

enum roce_capture_status roce_capture_next(struct roce_capture *c, struct roce_capture_frame *f)
{
    struct pcap_pkthdr *h;
    const u_char *d;
    int rc = pcap_next_ex(c->p, &h, &d);

    if (rc == 1) {
        f->ts_ns = (int64_t)h->ts.tv_sec * NS_PER_SEC + (int64_t)h->ts.tv_usec;
        f->caplen = h->caplen;
        f->wirelen = h->len < h->caplen ? h->caplen : h->len;
        f->data = d;
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
    pcap_close(c->p);
    free(c);
}
