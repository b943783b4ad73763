/*
 * decompress.c - compressed captures decompressed on a thread (see
 * decompress.h).
 *
 * Magic numbers: gzip 1f 8b (RFC 1952), zstd 28 b5 2f fd (RFC 8878), LZ4
 * frame 04 22 4d 18 (lz4 frame format). Concatenated gzip members and
 * zstd or LZ4 frames are read one after the other, as the tools do. The
 * thread writes into a pipe; when the reader stops early it closes the
 * read end, the next write fails (EPIPE: SIGPIPE is blocked in the thread)
 * and the thread ends. An input that ends inside a compressed stream, or
 * bytes that do not decompress, are reported as the file's problem.
 */
#define _GNU_SOURCE
#include "decompress.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#ifdef ROCESCOPE_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef ROCESCOPE_HAVE_LZ4
#include <lz4frame.h>
#endif

#define OUT_CHUNK  (256u * 1024u) /* decompressed bytes written at a time */
#define IN_CHUNK   (256u * 1024u) /* compressed bytes taken at a time */
#define PIPE_BYTES (1024 * 1024)  /* asked of the kernel for the pipe */
#define GZIP_WBITS (15 + 16)      /* zlib: a gzip header and trailer */

static const struct {
    uint8_t magic[4];
    size_t len;
    enum roce_zkind kind;
    const char *name;
} kinds[] = {
    {{0x1f, 0x8b}, 2, ROCE_Z_GZIP, "gzip"},
    {{0x28, 0xb5, 0x2f, 0xfd}, 4, ROCE_Z_ZSTD, "zstd"},
    {{0x04, 0x22, 0x4d, 0x18}, 4, ROCE_Z_LZ4, "lz4"},
    {{0}, 0, ROCE_Z_NONE, NULL},
};

struct roce_unzip {
    struct roce_src in;
    enum roce_zkind kind;
    int rfd, wfd;
    pthread_t thread;
    uint8_t *out;
    char err[128];
    int failed;
};

enum roce_zkind roce_unzip_kind(const uint8_t *head, size_t len)
{
    for (unsigned i = 0; kinds[i].name != NULL; i++)
        if (len >= kinds[i].len && memcmp(head, kinds[i].magic, kinds[i].len) == 0)
            return kinds[i].kind;
    return ROCE_Z_NONE;
}

const char *roce_unzip_name(enum roce_zkind kind)
{
    for (unsigned i = 0; kinds[i].name != NULL; i++)
        if (kinds[i].kind == kind)
            return kinds[i].name;
    return "none";
}

/* Write n bytes to the pipe: 0, or -1 when the reader went away. */
static int put(struct roce_unzip *z, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(z->wfd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void fail(struct roce_unzip *z, const char *why)
{
    if (!z->failed)
        snprintf(z->err, sizeof z->err, "%s: %s", roce_unzip_name(z->kind), why);
    z->failed = 1;
}

/* The next compressed bytes (at most IN_CHUNK), or n = 0 at the end. */
static const uint8_t *take(struct roce_unzip *z, size_t *n)
{
    if (!roce_src_need(&z->in, 1)) {
        *n = 0;
        if (z->in.read_errno)
            fail(z, strerror(z->in.read_errno));
        return NULL;
    }
    const uint8_t *p = z->in.p + z->in.off;
    *n = roce_src_left(&z->in) < IN_CHUNK ? roce_src_left(&z->in) : IN_CHUNK;
    return p;
}

static void run_gzip(struct roce_unzip *z)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    if (inflateInit2(&s, GZIP_WBITS) != Z_OK) {
        fail(z, "out of memory");
        return;
    }
    int in_member = 0;
    for (;;) {
        size_t n;
        const uint8_t *p = take(z, &n);
        if (n == 0) {
            if (in_member)
                fail(z, "compressed data cut short");
            break;
        }
        if (!in_member && (n < 2 || p[0] != 0x1f || p[1] != 0x8b))
            break; /* bytes after the last member: gzip(1) ignores them too */
        s.next_in = (Bytef *)p;
        s.avail_in = (uInt)n;
        int rc;
        in_member = 1;
        do { /* until the output has room left: all input taken, or the member ended */
            s.next_out = z->out;
            s.avail_out = OUT_CHUNK;
            rc = inflate(&s, Z_NO_FLUSH);
            if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
                fail(z, s.msg != NULL ? s.msg : "invalid compressed data");
                inflateEnd(&s);
                return;
            }
            if (put(z, z->out, OUT_CHUNK - s.avail_out) != 0) {
                inflateEnd(&s);
                return;
            }
        } while (s.avail_out == 0 && rc != Z_STREAM_END);
        roce_src_skip(&z->in, n - s.avail_in);
        if (rc == Z_STREAM_END) {
            inflateReset(&s);
            in_member = 0;
        }
    }
    inflateEnd(&s);
}

#ifdef ROCESCOPE_HAVE_ZSTD
static void run_zstd(struct roce_unzip *z)
{
    ZSTD_DStream *d = ZSTD_createDStream();
    size_t hint = 1;
    if (d == NULL) {
        fail(z, "out of memory");
        return;
    }
    for (;;) {
        size_t n;
        const uint8_t *p = take(z, &n);
        if (n == 0) {
            if (hint != 0)
                fail(z, "compressed data cut short");
            break;
        }
        ZSTD_inBuffer in = {p, n, 0};
        do {
            ZSTD_outBuffer out = {z->out, OUT_CHUNK, 0};
            hint = ZSTD_decompressStream(d, &out, &in);
            if (ZSTD_isError(hint)) {
                fail(z, ZSTD_getErrorName(hint));
                ZSTD_freeDStream(d);
                return;
            }
            if (put(z, z->out, out.pos) != 0) {
                ZSTD_freeDStream(d);
                return;
            }
            if (out.pos < out.size && in.pos == in.size)
                break;
        } while (1);
        roce_src_skip(&z->in, in.pos);
    }
    ZSTD_freeDStream(d);
}
#endif

#ifdef ROCESCOPE_HAVE_LZ4
static void run_lz4(struct roce_unzip *z)
{
    LZ4F_dctx *d;
    size_t hint = 1;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION))) {
        fail(z, "out of memory");
        return;
    }
    for (;;) {
        size_t n;
        const uint8_t *p = take(z, &n);
        if (n == 0) {
            if (hint != 0)
                fail(z, "compressed data cut short");
            break;
        }
        size_t used = 0;
        do {
            size_t out = OUT_CHUNK, in = n - used;
            hint = LZ4F_decompress(d, z->out, &out, p + used, &in, NULL);
            if (LZ4F_isError(hint)) {
                fail(z, LZ4F_getErrorName(hint));
                LZ4F_freeDecompressionContext(d);
                return;
            }
            used += in;
            if (put(z, z->out, out) != 0) {
                LZ4F_freeDecompressionContext(d);
                return;
            }
            if (out < OUT_CHUNK && used == n)
                break;
        } while (1);
        roce_src_skip(&z->in, used);
    }
    LZ4F_freeDecompressionContext(d);
}
#endif

static void *unzip_thread(void *arg)
{
    struct roce_unzip *z = arg;
    sigset_t pipe_sig;
    sigemptyset(&pipe_sig);
    sigaddset(&pipe_sig, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_sig, NULL);
    switch (z->kind) {
    case ROCE_Z_GZIP:
        run_gzip(z);
        break;
#ifdef ROCESCOPE_HAVE_ZSTD
    case ROCE_Z_ZSTD:
        run_zstd(z);
        break;
#endif
#ifdef ROCESCOPE_HAVE_LZ4
    case ROCE_Z_LZ4:
        run_lz4(z);
        break;
#endif
    default:
        break;
    }
    close(z->wfd);
    z->wfd = -1;
    return NULL;
}

/* Close the input (its mapping or buffer, and its descriptor). */
static void close_in(struct roce_src *in)
{
    int fd = in->fd;
    roce_src_close(in);
    if (fd > 0)
        close(fd);
}

struct roce_unzip *roce_unzip_start(struct roce_src *in, enum roce_zkind kind, char *err,
                                    size_t errlen)
{
    int built = kind == ROCE_Z_GZIP;
#ifdef ROCESCOPE_HAVE_ZSTD
    built |= kind == ROCE_Z_ZSTD;
#endif
#ifdef ROCESCOPE_HAVE_LZ4
    built |= kind == ROCE_Z_LZ4;
#endif
    if (!built) {
        snprintf(err, errlen, "%s-compressed, and this rocescope was built without %s",
                 roce_unzip_name(kind), roce_unzip_name(kind));
        close_in(in);
        return NULL;
    }
    struct roce_unzip *z = calloc(1, sizeof *z);
    int fds[2];
    if (z == NULL || (z->out = malloc(OUT_CHUNK)) == NULL) {
        snprintf(err, errlen, "out of memory");
        goto fail_alloc;
    }
    if (pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        goto fail_alloc;
    }
    fcntl(fds[1], F_SETPIPE_SZ, PIPE_BYTES); /* fewer switches; the default works too */
    z->in = *in;
    z->kind = kind;
    z->rfd = fds[0];
    z->wfd = fds[1];
    if (pthread_create(&z->thread, NULL, unzip_thread, z) != 0) {
        snprintf(err, errlen, "cannot start the decompression thread");
        close(fds[0]);
        close(fds[1]);
        in = &z->in;
        goto fail_alloc;
    }
    return z;
fail_alloc:
    close_in(in);
    if (z != NULL)
        free(z->out);
    free(z);
    return NULL;
}

int roce_unzip_fd(const struct roce_unzip *z)
{
    return z->rfd;
}

int roce_unzip_finish(struct roce_unzip *z, char *err, size_t errlen)
{
    close(z->rfd);
    pthread_join(z->thread, NULL);
    int rc = z->failed ? -1 : 0;
    if (z->failed)
        snprintf(err, errlen, "%s", z->err);
    close_in(&z->in);
    free(z->out);
    free(z);
    return rc;
}
