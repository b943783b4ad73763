/*
 * savefile.c - the live monitor's `-w` files with -C / -W rotation (see
 * savefile.h).
 *
 * Frames are written through a "dead" libpcap handle that has the live
 * capture's link type, snapshot length and time stamp precision, so the
 * files read back exactly as captured. pcap_dump itself reports no error:
 * the stream's error flag is checked after every frame and at every flush.
 * A write that fails (a full file system) may leave part of a record
 * behind: the file is then closed and cut back to its last whole record,
 * found by walking the records from the last flush that succeeded.
 */
#define _DEFAULT_SOURCE
#include "savefile.h"

#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "roce_time.h"

#define DECIMAL_BASE 10
#define NAME_EXTRA   24 /* room for the file number */
#define FILE_HEADER  24 /* pcap's file header */
#define REC_HEADER   16 /* and a record's: time (2 x 32 bits), caplen, len */
#define CAPLEN_AT    8

struct roce_savefile {
    struct roce_savefile_config cfg;
    pcap_t *dead;
    pcap_dumper_t *d;
    unsigned index; /* number of the current file */
    int width;      /* digits of the file number in a ring (0: no ring) */
    char *name;     /* current file name (owned) */
    size_t name_len;
    int64_t good; /* the current file is whole up to here (its last flush) */
    int failed;   /* a write failed: the file was cut back, nothing more is written */
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

/* The end of the last whole record of file fd, walking from off (a record
 * boundary, or 0); -1 when it cannot be read. */
static off_t last_whole(int fd, off_t off)
{
    struct stat st;
    unsigned char h[REC_HEADER];
    if (fstat(fd, &st) != 0)
        return -1;
    if (off < FILE_HEADER)
        off = st.st_size < FILE_HEADER ? 0 : FILE_HEADER;
    while (off > 0 && off + REC_HEADER <= st.st_size) {
        uint32_t caplen;
        if (pread(fd, h, sizeof h, off) != (ssize_t)sizeof h)
            return -1;
        memcpy(&caplen, h + CAPLEN_AT, sizeof caplen); /* as pcap_dump wrote it: host order */
        if ((off_t)caplen > st.st_size - off - REC_HEADER)
            break;
        off += REC_HEADER + (off_t)caplen;
    }
    return off;
}

/* A write failed (errno e): close the file and cut it back to its last
 * whole record; the reason in s->err. Always -1. */
static int fail(struct roce_savefile *s, int e)
{
    off_t kept = -1;
    pcap_dump_close(s->d); /* may still write part of what it holds */
    s->d = NULL;
    s->failed = 1;
    int fd = open(s->name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (fd >= 0) {
        kept = last_whole(fd, (off_t)s->good);
        if (kept >= 0 && ftruncate(fd, kept) != 0)
            kept = -1;
        close(fd);
    }
    /* the caller names the -w path: a rotated file's own name follows it */
    const char *name = strcmp(s->name, s->cfg.path) != 0 ? s->name : NULL;
    if (kept >= 0)
        snprintf(s->err, sizeof s->err,
                 "%s%s%s: the file ends at its last whole record (%lld bytes)", name ? name : "",
                 name ? ": " : "", strerror(e), (long long)kept);
    else
        snprintf(s->err, sizeof s->err, "%s%s%s", name ? name : "", name ? ": " : "", strerror(e));
    return -1;
}

/* Create file number i. 0, or -1 with the reason in s->err. */
static int open_file(struct roce_savefile *s, unsigned i)
{
    s->index = i;
    s->good = 0;
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
        return s->failed ? -1 : 0;
    errno = EIO;
    if (pcap_dump_flush(s->d) != 0 || ferror(pcap_dump_file(s->d)))
        return fail(s, errno);
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
    errno = EIO;
    pcap_dump((u_char *)s->d, &h, f->data);
    if (ferror(pcap_dump_file(s->d)))
        return fail(s, errno);
    return 0;
}

int roce_savefile_flush(struct roce_savefile *s)
{
    if (s->d == NULL)
        return -1;
    errno = EIO;
    if (pcap_dump_flush(s->d) != 0 || ferror(pcap_dump_file(s->d)))
        return fail(s, errno);
    s->good = pcap_dump_ftell64(s->d);
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
