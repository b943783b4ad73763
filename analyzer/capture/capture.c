/*
 * capture.c - capture reader (see capture.h).
 *
 * The input is read with read(2) (capture_src.c): a file, standard input
 * ("-"), a pipe, or the output of the decompression thread when the first
 * bytes say gzip, zstd or lz4 (decompress.c). The formats are a table
 * (capture_rd.h): the rows are tried in order, each whose probe takes the
 * first bytes is asked to open the input, and the first that does reads
 * it. A row that parses records in place gives way to libpcap's row at any
 * record it does not take: libpcap then reads the headers that reader kept
 * followed by the rest of the input, from the record where the reader
 * stopped, so both give the same frames and the same errors.
 * ROCESCOPE_READER=libpcap in the environment leaves the in-place rows out
 * (the tests compare the two). When no row opens the input, the first
 * reason given (libpcap's) is the error.
 */
#define _GNU_SOURCE
#include "capture.h"
#include "capture_pcap.h"

#include "capture_rd.h"
#include "decompress.h"
#include "roce_linktype.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READER_ENV     "ROCESCOPE_READER"
#define MAGIC_LEN      4
#define UNKNOWN_FORMAT "unknown file format" /* as libpcap says it */

struct roce_capture {
    struct roce_src src;
    int fd; /* the input's descriptor (-1: none of ours) */
    struct roce_unzip *unzip;
    const struct roce_capture_format *fmt; /* the row reading the input (NULL: none) */
    struct roce_rd rd;
    uint8_t *kept; /* the headers a reader gave way with, copied for libpcap */
};

#define ROCE_CAPTURE_ROW(name) &roce_capture_##name,
static const struct roce_capture_format *const formats[] = {ROCE_CAPTURE_FORMATS(ROCE_CAPTURE_ROW)};
#define N_FORMATS (sizeof formats / sizeof formats[0])

/* Standard input kept for another reading (roce_capture_stdin_keep): a
 * descriptor of the file it is, or of an unnamed copy of it, and where the
 * capture starts in it; -1 while standard input is read once, as a stream. */
static int stdin_kept = -1;
static off_t stdin_start;

/* An unnamed temporary file in $TMPDIR, else /tmp: a descriptor, or -1. */
static int unnamed_tmpfile(void)
{
    const char *dir = getenv("TMPDIR");
    char tmpl[4096];
    if (dir == NULL || dir[0] == '\0')
        dir = "/tmp";
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 ||
        (size_t)snprintf(tmpl, sizeof tmpl, "%s/rocescope-stdin.XXXXXX", dir) >= sizeof tmpl)
        return fd;
    fd = mkostemp(tmpl, O_CLOEXEC); /* a file system without O_TMPFILE */
    if (fd >= 0)
        unlink(tmpl);
    return fd;
}

int roce_capture_stdin_keep(char *err, size_t errlen)
{
    struct stat st;
    static uint8_t buf[1 << 16];
    if (stdin_kept >= 0)
        return 0;
    if (fstat(STDIN_FILENO, &st) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    off_t at = lseek(STDIN_FILENO, 0, SEEK_CUR);
    if (S_ISREG(st.st_mode) && at >= 0) { /* `< file`: read it again from here */
        stdin_kept = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
        stdin_start = at;
        if (stdin_kept < 0)
            snprintf(err, errlen, "%s", strerror(errno));
        return stdin_kept < 0 ? -1 : 0;
    }
    int fd = unnamed_tmpfile();
    if (fd < 0) {
        snprintf(err, errlen, "cannot create a temporary file for a copy of it: %s",
                 strerror(errno));
        return -1;
    }
    for (;;) {
        ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
        if (n == 0)
            break;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf(err, errlen, "%s", strerror(errno));
            close(fd);
            return -1;
        }
        for (ssize_t done = 0; done < n;) {
            ssize_t w = write(fd, buf + done, (size_t)(n - done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                snprintf(err, errlen, "cannot keep a copy of it: %s", strerror(errno));
                close(fd);
                return -1;
            }
            done += w;
        }
    }
    stdin_kept = fd;
    stdin_start = 0;
    return 0;
}

/* Open the input: standard input, or the file (*regular: a regular file).
 * 0, or -1 with err set. */
static int open_input(struct roce_capture *c, const char *path, int *regular, char *err,
                      size_t errlen)
{
    struct stat st;
    *regular = 0;
    if (strcmp(path, "-") == 0) {
        /* kept: from its start again (a reader may have closed descriptor 0) */
        if (stdin_kept >= 0 && (dup2(stdin_kept, STDIN_FILENO) < 0 ||
                                lseek(STDIN_FILENO, stdin_start, SEEK_SET) < 0)) {
            snprintf(err, errlen, "%s", strerror(errno));
            return -1;
        }
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
    *regular = S_ISREG(st.st_mode);
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

/* Release the state of the row reading the input. */
static void stop(struct roce_capture *c)
{
    if (c->fmt != NULL && c->fmt->close != NULL)
        c->fmt->close(&c->rd);
    free(c->rd.st);
    c->rd.st = NULL;
    c->fmt = NULL;
}

/* Have row fmt read the input: 0, or -1 when it does not take it (its
 * state released; the reason, when it gives one, in c->rd.err). */
static int start(struct roce_capture *c, const struct roce_capture_format *fmt)
{
    if (fmt->size != 0 && (c->rd.st = calloc(1, fmt->size)) == NULL) {
        snprintf(c->rd.err, sizeof c->rd.err, "out of memory");
        return -1;
    }
    c->fmt = fmt;
    if (fmt->open(&c->rd) == 0)
        return 0;
    stop(c);
    return -1;
}

/* The first row that takes the input (regular: a regular file).
 * 0, or -1 with the first reason a row gave (else libpcap's words for a
 * format it does not know) in err. */
static int find_format(struct roce_capture *c, int regular, char *err, size_t errlen)
{
    const char *reader = getenv(READER_ENV);
    int libpcap_only = reader != NULL && strcmp(reader, "libpcap") == 0;
    err[0] = '\0';
    for (size_t i = 0; i < N_FORMATS; i++) {
        const struct roce_capture_format *f = formats[i];
        if ((libpcap_only && (f->flags & ROCE_FMT_IN_PLACE)) ||
            (!regular && (f->flags & ROCE_FMT_FILE_ONLY)))
            continue;
        if (f->probe != NULL && !f->probe(c->src.p + c->src.off, roce_src_left(&c->src)))
            continue;
        if (start(c, f) == 0)
            return 0;
        if (err[0] == '\0')
            snprintf(err, errlen, "%s", c->rd.err);
        c->rd.err[0] = '\0';
    }
    if (err[0] == '\0')
        snprintf(err, errlen, "%s", UNKNOWN_FORMAT);
    return -1;
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
    c->rd.src = &c->src;
    c->rd.file = regular ? path : NULL;
    c->rd.rec.tsresol = ROCE_CAPTURE_TSRESOL_NS; /* unless the format says otherwise */
    if (find_format(c, regular, err, errlen) == 0)
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

int roce_capture_linktype(const struct roce_capture *c)
{
    return c->rd.linktype;
}

const char *roce_capture_linktype_name(const struct roce_capture *c)
{
    int lt = c->rd.linktype;
    return roce_pcap_linktype_name(lt == ROCE_LINKTYPE_RAW ? DLT_RAW : lt);
}

/* The input ended (or failed): a decompression problem is the file's. */
static enum roce_capture_status ended(struct roce_capture *c, enum roce_capture_status st)
{
    if (c->unzip != NULL) {
        if (roce_unzip_finish(c->unzip, c->rd.err, sizeof c->rd.err) != 0)
            st = ROCE_CAPTURE_ERROR;
        c->unzip = NULL;
    }
    return st;
}

/* The reader gave way at a record it does not take: libpcap's row reads on
 * from there, after the headers the reader kept (copied: the reader's state
 * goes). 0, or -1 with the reason in c->rd.err. */
static int give_way(struct roce_capture *c)
{
    size_t n = c->rd.pre_len;
    if ((c->kept = malloc(n)) == NULL) {
        snprintf(c->rd.err, sizeof c->rd.err, "out of memory");
        return -1;
    }
    memcpy(c->kept, c->rd.pre, n);
    stop(c);
    c->rd.pre = c->kept;
    c->rd.pre_len = n;
    return start(c, &roce_capture_libpcap);
}

/* What next returns when the row's next gave no frame (st): libpcap
 * takes over from a reader that gave way, or the input ended. Apart from
 * roce_capture_next, whose every frame passes by. */
static __attribute__((noinline)) enum roce_capture_status
not_a_frame(struct roce_capture *c, struct roce_capture_frame *f, int st)
{
    if (st == ROCE_RD_LIBPCAP) {
        if (c->fmt == NULL || give_way(c) != 0) /* NULL: libpcap could not take over */
            return ended(c, ROCE_CAPTURE_ERROR);
        st = c->fmt->next(&c->rd, f);
        if (st == ROCE_RD_FRAME)
            return ROCE_CAPTURE_FRAME;
    }
    return ended(c, st == ROCE_RD_END ? ROCE_CAPTURE_END : ROCE_CAPTURE_ERROR);
}

enum roce_capture_status roce_capture_next(struct roce_capture *c, struct roce_capture_frame *f)
{
    struct roce_capture_record *rec = &c->rd.rec; /* what a format does not say */
    rec->block = rec->idb = NULL;
    rec->block_len = rec->idb_len = 0;
    int st = c->fmt != NULL ? c->fmt->next(&c->rd, f) : ROCE_RD_LIBPCAP;
    return st == ROCE_RD_FRAME   ? ROCE_CAPTURE_FRAME
           : st == ROCE_RD_BLOCK ? ROCE_CAPTURE_BLOCK
                                 : not_a_frame(c, f, st);
}

size_t roce_capture_next_run(struct roce_capture *c, struct roce_capture_frame *f,
                             struct roce_capture_record *rec, size_t max)
{
    if (c->fmt == NULL || c->fmt->frame_at == NULL)
        return 0;
    const uint8_t *p = c->src.p + c->src.off;
    size_t left = roce_src_left(&c->src), o = 0, n = 0, len;
    while (n < max) {
        rec[n] = c->rd.rec;
        if ((len = c->fmt->frame_at(&c->rd, p + o, left - o, &f[n], &rec[n])) == 0)
            break;
        o += len;
        n++;
    }
    roce_src_skip(&c->src, o);
    return n;
}

void roce_capture_blocks(struct roce_capture *c)
{
    c->rd.blocks = 1;
}

const uint8_t *roce_capture_section_header(const struct roce_capture *c, uint32_t *len,
                                           int *swapped)
{
    *len = c->rd.shb_len;
    *swapped = c->rd.shb_swapped;
    return c->rd.shb;
}

const struct roce_capture_record *roce_capture_record(const struct roce_capture *c)
{
    return &c->rd.rec;
}

const char *roce_capture_error(const struct roce_capture *c)
{
    return c->rd.err;
}

void roce_capture_close(struct roce_capture *c)
{
    if (c == NULL)
        return;
    stop(c);
    free(c->kept);
    free(c->rd.shb);
    if (c->unzip != NULL) {
        char ignored[8];
        roce_unzip_finish(c->unzip, ignored, sizeof ignored);
    }
    roce_src_close(&c->src);
    if (c->fd >= 0)
        close(c->fd);
    free(c);
}
