/*
 * capture_src.c - the bytes of a capture, read from a descriptor (see
 * capture_src.h).
 *
 * The input, a regular file as much as a pipe, is read with read(2) into a
 * buffer of STREAM_BUFFER bytes that grows to the largest request (the
 * readers ask for at most one record or block, which they bound). A file
 * is not mapped: on the machine measured, touching a mapped file's pages
 * cost three to five times copying them into a buffer that stays in the
 * cache (BENCHMARKS.md, "Reading the file with read(2)").
 */
#define _DEFAULT_SOURCE
#include "capture_src.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STREAM_BUFFER (1024u * 1024u) /* a stream's buffer, at least */

void roce_src_stream(struct roce_src *s, int fd)
{
    memset(s, 0, sizeof *s);
    s->fd = fd;
}

void roce_src_close(struct roce_src *s)
{
    free(s->buf);
    memset(s, 0, sizeof *s);
    s->fd = -1;
}

/* One read() of at most len bytes into dst, again when a signal cut it
 * short: the bytes read, or 0 at the end of the input or on an error (then
 * eof is set, and read_errno on an error). */
static size_t read_some(struct roce_src *s, uint8_t *dst, size_t len)
{
    for (;;) {
        ssize_t r = read(s->fd, dst, len);
        if (r > 0)
            return (size_t)r;
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            s->read_errno = errno;
        s->eof = 1;
        return 0;
    }
}

int roce_src_fill(struct roce_src *s, size_t n)
{
    if (s->len - s->off >= n)
        return 1;
    if (s->eof)
        return 0;
    size_t left = s->len - s->off;
    if (s->cap < n) {
        size_t cap = n > STREAM_BUFFER ? n : STREAM_BUFFER;
        uint8_t *b = malloc(cap);
        if (b == NULL) {
            s->read_errno = ENOMEM;
            s->eof = 1;
            return 0;
        }
        if (left)
            memcpy(b, s->p + s->off, left);
        free(s->buf);
        s->buf = b;
        s->cap = cap;
    } else if (left && s->off) {
        memmove(s->buf, s->p + s->off, left);
    }
    s->pos += s->off;
    s->p = s->buf;
    s->off = 0;
    s->len = left;
    while (s->len < n) {
        size_t r = read_some(s, s->buf + s->len, s->cap - s->len);
        if (r == 0)
            return 0;
        s->len += r;
    }
    return 1;
}

size_t roce_src_read(struct roce_src *s, void *out, size_t n)
{
    size_t done = 0;
    while (done < n) {
        if (roce_src_left(s) == 0) {
            if (s->eof)
                break;
            /* large reads go straight to the caller */
            if (n - done >= STREAM_BUFFER / 4) {
                size_t r = read_some(s, (uint8_t *)out + done, n - done);
                if (r == 0)
                    break;
                s->pos += r;
                done += r;
                continue;
            }
            roce_src_fill(s, 1);
            continue;
        }
        size_t k = roce_src_left(s) < n - done ? roce_src_left(s) : n - done;
        memcpy((uint8_t *)out + done, s->p + s->off, k);
        roce_src_skip(s, k);
        done += k;
    }
    return done;
}
