/*
 * savefile.c - the live monitor's `-w` files with -C / -W rotation (see
 * savefile.h).
 *
 * Frames are written through a "dead" libpcap handle that has the live
 * capture's link type, snapshot length and time stamp precision, so the
 * files read back exactly as captured. pcap_dump itself reports no error:
 * the stream's error flag is checked at every flush and before rotating.
 */
#define _DEFAULT_SOURCE
#include "savefile.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce_time.h"

#define DECIMAL_BASE 10
#define NAME_EXTRA   24 /* room for the file number */

struct roce_savefile {
    struct roce_savefile_config cfg;
    pcap_t *dead;
    pcap_dumper_t *d;
    unsigned index; /* number of the current file */
    int width;      /* digits of the file number in a ring (0: no ring) */
    char *name;     /* current file name (owned) */
    size_t name_len;
    char err[PCAP_ERRBUF_SIZE + 64];
};

/* The name of file number i: FILE, FILE1, FILE2... or, in a ring, FILE0..FILE(N-1). */
static void file_name(struct roce_savefile *s, unsigned i)
{
    if (s->width > 0)
        snprintf(s->name, s->name_len, "%s%0*u", s->cfg.path, s->width, i);
    else if (i == 0)
        snprintf(s->name, s->name_len, "%s", s->cfg.path);
    else
        snprintf(s->name, s->name_len, "%s%u", s->cfg.path, i);
}

/* Create file number i. 0, or -1 with the reason in s->err. */
static int open_file(struct roce_savefile *s, unsigned i)
{
    s->index = i;
    file_name(s, i);
    s->d = pcap_dump_open(s->dead, s->name);
    if (s->d == NULL) {
        snprintf(s->err, sizeof s->err, "%s", pcap_geterr(s->dead));
        return -1;
    }
    return 0;
}

/* Flush and close the current file. 0, or -1 with the reason in s->err. */
static int close_file(struct roce_savefile *s)
{
    int rc = 0;
    if (s->d == NULL)
        return 0;
    if (pcap_dump_flush(s->d) != 0 || ferror(pcap_dump_file(s->d))) {
        snprintf(s->err, sizeof s->err, "%s: write failed", s->name);
        rc = -1;
    }
    pcap_dump_close(s->d);
    s->d = NULL;
    return rc;
}

struct roce_savefile *roce_savefile_open(const struct roce_savefile_config *cfg, char *err,
                                         size_t errlen)
{
    struct roce_savefile *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    if (cfg->max_files) {
        s->width = 1;
        for (unsigned n = cfg->max_files - 1; n >= DECIMAL_BASE; n /= DECIMAL_BASE)
            s->width++;
    }
    s->name_len = strlen(cfg->path) + NAME_EXTRA;
    s->name = malloc(s->name_len);
    s->dead = pcap_open_dead_with_tstamp_precision(cfg->dlt, (int)cfg->snaplen,
                                                   cfg->nano ? PCAP_TSTAMP_PRECISION_NANO
                                                             : PCAP_TSTAMP_PRECISION_MICRO);
    if (s->name == NULL || s->dead == NULL) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    if (open_file(s, 0) != 0) {
        snprintf(err, errlen, "%s", s->err);
        goto fail;
    }
    return s;
fail:
    if (s->dead != NULL)
        pcap_close(s->dead);
    free(s->name);
    free(s);
    return NULL;
}

int roce_savefile_write(struct roce_savefile *s, const struct roce_capture_frame *f)
{
    struct pcap_pkthdr h;
    if (s->d == NULL)
        return -1;
    if (s->cfg.max_bytes && (uint64_t)pcap_dump_ftell64(s->d) > s->cfg.max_bytes) {
        unsigned next = s->index + 1;
        if (s->cfg.max_files && next >= s->cfg.max_files)
            next = 0;
        if (close_file(s) != 0 || open_file(s, next) != 0)
            return -1;
    }
    int64_t sub = f->ts_ns % ROCE_NS_PER_SEC;
    h.ts.tv_sec = (time_t)(f->ts_ns / ROCE_NS_PER_SEC);
    h.ts.tv_usec = (suseconds_t)(s->cfg.nano ? sub : sub / ROCE_NS_PER_US);
    h.caplen = f->caplen;
    h.len = f->wirelen;
    pcap_dump((u_char *)s->d, &h, f->data);
    return 0;
}

int roce_savefile_flush(struct roce_savefile *s)
{
    if (s->d == NULL)
        return -1;
    if (pcap_dump_flush(s->d) != 0 || ferror(pcap_dump_file(s->d))) {
        snprintf(s->err, sizeof s->err, "%s: write failed", s->name);
        return -1;
    }
    return 0;
}

const char *roce_savefile_error(const struct roce_savefile *s)
{
    return s->err;
}

int roce_savefile_close(struct roce_savefile *s)
{
    if (s == NULL)
        return 0;
    int rc = close_file(s);
    pcap_close(s->dead);
    free(s->name);
    free(s);
    return rc;
}
