/*
 * capture_src.c - the bytes of a capture: a mapped file or a stream (see
 * capture_src.h).
 *
 * A mapped file keeps its resident part bounded: the next WINDOW is
 * populated in one call (fewer page faults), what lies two windows behind
 * (map_keep: more) is released (the pages stay in the page cache; a private
 * read-only mapping reads them again if they are touched). A stream reads into a
 * buffer that grows to the largest request (the readers ask for at most one
 * record or block, which they bound).
 */
#define _DEFAULT_SOURCE
#include "capture_src.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define WINDOW        (1024u * 1024u) /* mapped bytes populated at a time */
#define STREAM_BUFFER (1024u * 1024u) /* a stream's buffer, at least */
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif

int roce_src_map(struct roce_src *s, int fd, size_t size)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    void *base = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED)
        return -1;
    s->p = base;
    s->len = size;
    s->mapped = 1;
    madvise(base, size, MADV_SEQUENTIAL);
    roce_src_window(s);
    return 0;
}

void roce_src_keep_behind(struct roce_src *s, size_t bytes)
{
    s->map_keep = (bytes + WINDOW - 1) / WINDOW + 1;
    if (s->map_keep < 2)
        s->map_keep = 2;
    roce_src_window(s);
}

void roce_src_stream(struct roce_src *s, int fd)
{
    memset(s, 0, sizeof *s);
    s->fd = fd;
    s->map_check = SIZE_MAX;
}

void roce_src_close(struct roce_src *s)
{
    if (s->mapped && s->p != NULL)
        munmap((void *)s->p, s->len);
    free(s->buf);
    memset(s, 0, sizeof *s);
    s->fd = -1;
}

void roce_src_window(struct roce_src *s)
{
    if (!s->mapped) {
        s->map_check = SIZE_MAX;
        return;
    }
    if (s->off + WINDOW / 2 >= s->map_ahead && s->map_ahead < s->len) {
        size_t n = s->len - s->map_ahead < WINDOW ? s->len - s->map_ahead : WINDOW;
        madvise((void *)(s->p + s->map_ahead), n, MADV_POPULATE_READ);
        s->map_ahead += n;
    }
    size_t keep = (s->map_keep ? s->map_keep : 2) * WINDOW;
    while (s->off >= s->map_behind + keep) {
        madvise((void *)(s->p + s->map_behind), WINDOW, MADV_DONTNEED);
        s->map_behind += WINDOW;
    }
    size_t populate = s->map_ahead < s->len ? s->map_ahead - WINDOW / 2 : SIZE_MAX;
    size_t release = s->map_behind + keep;
    s->map_check = populate < release ? populate : release;
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
    if (s->mapped || s->eof)
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
            if (s->mapped || s->eof)
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
